"""Figures, tables and summaries of ``book/qin/experiments.md`` (the experiment ``residual-training``).

Each function takes a result as stored by :mod:`attention_theory.qin.residual_training` (the
``data`` of a file of ``results/qin-residual-training/``, or the same dictionary from a live smoke
run) and draws it on matplotlib axes or returns the numbers the chapter quotes. Lists in a result
may hold ``"nan"``/``"inf"`` strings (JSON has no non-finite numbers): a diverged run's loss is
data here, so these functions read such values as floats instead of refusing them.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from attention_theory.qin.stability import window_ratios

__all__ = ["plot_lowrank", "lowrank_summary", "plot_e1", "e1_final_losses", "e1_ranges", "e1_diverged",
           "plot_e2", "e2_summary", "e3_table", "e3_summary", "e4_settings_table", "plot_e4", "e4_summary"]

_LOWRANK_LABELS = {"residual": "Z, residual", "none": "Z, no residual", "S": "S"}


def _floats(v: Any) -> np.ndarray:
    """Floats from a result list (``"nan"``/``"inf"`` are stored as strings in JSON)."""
    return np.asarray(v, dtype=np.float64)


def plot_lowrank(data: Mapping[str, Any], axes: Any) -> None:
    """Draw the part ``lowrank`` on a 2 x 2 grid of axes, one panel per query/key standard
    deviation: singular values (descending, clipped at ``1e-18``) of ``Z`` with and without the
    residual and of ``S``, one line per seed, log ``y`` axis.  ``data[qk_std][variant]``: a list
    over seeds of singular values (variants ``"residual"``, ``"none"``, ``"S"``).  Used by
    ``book/qin/experiments.md`` (figure ``fig-qexp-lowrank``)."""
    for ax, (q, rec) in zip(axes.ravel(), data.items()):
        for variant, style in (("residual", "C0o-"), ("none", "C3s-"), ("S", "k:")):
            for j, sv in enumerate(rec[variant]):
                ax.semilogy(np.arange(1, len(sv) + 1), np.maximum(sv, 1e-18), style, alpha=0.6,
                            label=None if j else _LOWRANK_LABELS[variant])
        ax.set_title(f"$W_Q,W_K$ std {q}", fontsize=10)
        ax.set_xlabel("index $i$")
    axes[0, 0].set_ylabel(r"$\sigma_i$")
    axes[1, 0].set_ylabel(r"$\sigma_i$")
    axes[0, 0].legend(fontsize=9)


def lowrank_summary(data: Mapping[str, Any]) -> dict[str, float]:
    """Without the residual: the largest singular value of ``Z`` after the first at zero query/key
    weights (``zero_rest_max``, rounding level), and the smallest singular value's range over the
    seeds at standard deviation 1 (``std1_min``, ``std1_max``).  ``data``: the part ``lowrank``."""
    zero, one = (_floats(data[q]["none"]) for q in ("0", "1"))  # rows: seeds
    return {"zero_rest_max": float(zero[:, 1:].max()), "std1_min": float(one[:, -1].min()),
            "std1_max": float(one[:, -1].max())}


def plot_e1(runs: Mapping[str, Any], title: str, axes: Sequence[Any]) -> None:
    """Draw E1 runs of one query/key standard deviation on four axes: the loss, ``sigma_N(Z_t)``
    (``sigma_1`` dotted), the condition number ``kappa(Z_t)`` against the GD step, and a legend
    panel.  ``runs[variant][mode]``: a list over seeds of ``{step, loss, sigma_N, sigma_1}``
    (variants ``"residual"``, ``"none"``; modes ``"common"``, ``"tuned"`` step size).  Used by
    ``book/qin/experiments.md`` (smoke and full-scale E1 figures)."""
    for variant, color in (("residual", "C0"), ("none", "C3")):
        for mode, ls in (("common", "-"), ("tuned", "--")):
            for j, r in enumerate(runs[variant][mode]):
                lab = f"{variant}, {mode} $\\eta$" if j == 0 else None
                st, loss = _floats(r["step"]), _floats(r["loss"])
                sN, s1 = _floats(r["sigma_N"]), _floats(r["sigma_1"])
                axes[0].semilogy(st, loss, color=color, ls=ls, alpha=0.7, label=lab)
                axes[1].semilogy(st, np.maximum(sN, 1e-18), color=color, ls=ls, alpha=0.7)
                axes[1].semilogy(st, s1, color=color, ls=":", alpha=0.5)
                axes[2].semilogy(st, s1 / np.maximum(sN, 1e-18), color=color, ls=ls, alpha=0.7)
    axes[0].set_ylabel("loss")
    axes[1].set_ylabel(r"$\sigma_N(Z_t)$; $\sigma_1(Z_t)$ dotted")
    axes[2].set_ylabel(r"$\kappa(Z_t)$")
    axes[0].set_title(title, fontsize=10)
    axes[3].legend(*axes[0].get_legend_handles_labels(), loc="center", fontsize=9)
    axes[3].axis("off")
    for ax in axes[:3]:
        ax.set_xlabel("GD step")


def e1_final_losses(runs: Mapping[str, Any], mode: str) -> dict[str, list[str]]:
    """The final loss of every E1 run at step-size ``mode`` (``"common"`` or ``"tuned"``), per
    variant and seed, formatted ``.1e``.  ``runs``: the E1 runs of one query/key standard deviation."""
    return {v: [f"{_floats(r['loss'])[-1]:.1e}" for r in runs[v][mode]] for v in runs}


def _last_finite(r: Mapping[str, Any], key: str) -> float:
    """The value of ``key`` at the last record where the run's loss is finite."""
    return _floats(r[key])[np.isfinite(_floats(r["loss"]))][-1]


def e1_ranges(data: Mapping[str, Any], qs: Sequence[str]) -> dict[str, Any]:
    """The values behind the ranges ``book/qin/experiments.md`` quotes for E1, over the query/key
    standard deviations ``qs`` (keys of ``data["runs"]``), tuned step size: with the residual
    (``res_*``) and without it (``none_*``), ``sigma_N`` at initialization, the last finite loss,
    ``sigma_N``, and the condition number (every record with the residual; the last without it)."""
    runs = data["runs"]
    res = [r for q in qs for r in runs[q]["residual"]["tuned"]]
    non = [r for q in qs for r in runs[q]["none"]["tuned"]]
    return {"res_sN0": [_floats(r["sigma_N"])[0] for r in res],
            "res_loss": [_last_finite(r, "loss") for r in res],
            "res_kappa": np.concatenate([_floats(r["sigma_1"]) / _floats(r["sigma_N"]) for r in res]),
            "none_sN0": [_floats(r["sigma_N"])[0] for r in non],
            "none_sN": [_last_finite(r, "sigma_N") for r in non],
            "none_kappa": [_last_finite(r, "sigma_1") / _last_finite(r, "sigma_N") for r in non],
            "none_loss": [_last_finite(r, "loss") for r in non]}


def e1_diverged(data: Mapping[str, Any], seeds: Sequence[int]) -> str:
    """The E1 runs without the residual that diverged at the common step size (final loss not
    finite), as ``"std <q>, seed <s>"`` joined by ``"; "``.  ``seeds``: the seeds of the result's
    configuration, in order."""
    return "; ".join(f"std {q}, seed {sd}" for q, runs in data["runs"].items()
                     for sd, run in zip(seeds,
                                        runs["none"]["common"]) if not np.isfinite(_floats(run["loss"])[-1]))


def plot_e2(sw: Mapping[str, Any], title: str, axes: Sequence[Any]) -> None:
    """Draw E2 on two axes (log-log): the rate per unit step at the fixed step size against
    ``sigma_N(Z0)^2``, and the rate at ``0.5 / lambda_max`` against ``sigma_N^2 / sigma_1^2``.
    ``sw``: the part ``e2`` (arrays or lists ``sigma_N, sigma_1, rate_fixed, eta_fixed,
    rate_hess``).  Used by ``book/qin/experiments.md`` (figures ``fig-qexp-e2-*``)."""
    sN2 = np.asarray(sw["sigma_N"]) ** 2
    ratio = sN2 / np.asarray(sw["sigma_1"]) ** 2
    axes[0].loglog(sN2, np.asarray(sw["rate_fixed"]) / np.asarray(sw["eta_fixed"]), "o")
    axes[0].set_xlabel(r"$\sigma_N(Z_0)^2$")
    axes[0].set_ylabel(r"$\hat r/\eta$ (fixed $\eta$)")
    axes[1].loglog(ratio, sw["rate_hess"], "s", color="C2")
    axes[1].set_xlabel(r"$\sigma_N(Z_0)^2/\sigma_1(Z_0)^2$")
    axes[1].set_ylabel(r"$\hat r$ at $\eta=0.5/\lambda_{\max}$")
    axes[0].set_title(title)


def e2_summary(data: Mapping[str, Any]) -> dict[str, Any]:
    """The number of E2 runs where (star) holds (``n_holds``) and, over them, the range of the
    measured rate at ``0.5 / lambda_max`` divided by the guaranteed rate (``gap_min``, ``gap_max``)."""
    hold = np.asarray(data["holds"], dtype=bool)
    gap = np.asarray(data["rate_hess"])[hold] / np.asarray(data["guaranteed"])[hold]  # measured / guaranteed
    return {"n_holds": int(hold.sum()), "gap_min": float(gap.min()), "gap_max": float(gap.max())}


def e3_table(data: Mapping[str, Any]) -> str:
    """One line per E3 stack (``"L<L>_<residual|none>"``): the median final loss over seeds and
    the median over seeds of ``sigma_N(Z^(l))`` of every layer at initialization."""
    lines = []
    for key, rec in data.items():
        fin = np.array([run[-1] for run in rec["loss"]])
        s0 = np.array(rec["sigma_N_init"])
        lines.append(f"{key:14s} final loss median {np.median(fin):.2e}   sigma_N(Z^(l)) at init (median "
                     "over seeds): " + ", ".join(f"{v:.1e}" for v in np.median(s0, axis=0)))
    return "\n".join(lines)


def e3_summary(data: Mapping[str, Any]) -> dict[str, float]:
    """The numbers the chapter quotes for E3: per stack, the median initial and final loss
    (``<key>_loss0``, ``<key>_loss``); the range over stacks of the per-layer median ``sigma_N`` at
    initialization without the residual in the first layer (``none_l1_*``) and second layer
    (``none_l2_*``), and with the residual in every layer (``res_*``)."""
    out: dict[str, float] = {}
    med = {k: np.median(np.array(r["sigma_N_init"]), axis=0) for k,
           r in data.items()}  # per layer, over seeds
    for k, r in data.items():
        out[f"{k}_loss0"] = float(np.median([run[0] for run in r["loss"]]))
        out[f"{k}_loss"] = float(np.median([run[-1] for run in r["loss"]]))
    for name, vals in {"none_l1": [m[0] for k, m in med.items() if k.endswith("none")],
                       "none_l2": [m[1] for k, m in med.items() if k.endswith("none") and len(m) > 1],
                       "res": np.concatenate([m for k, m in med.items() if k.endswith("residual")])}.items():
        out[f"{name}_min"] = float(np.min(vals))
        out[f"{name}_max"] = float(np.max(vals))
    return out


def e4_settings_table(config: Mapping[str, Any]) -> str:
    """The settings of E4 as a Markdown table, from the configuration recorded in its result."""
    c4 = config
    rows = [("tokens $N$ (sequences)", f"{c4['N']} ({c4['n_seq']} of {c4['N'] // c4['n_seq']})"),
            ("width $d$, $d_k$, $d_v$, FFN width $m$", f"{c4['d']}, {c4['dk']}, {c4['dv']}, {c4['m']}"),
            ("activation", r"$\sigma$ of Assumption 1, $\gamma=0.2$, $b=4$"),
            ("teacher and student weights", r"$W_Q,W_K,W_1\sim\mathcal N(0,1/d)$, $W_V\sim\mathcal "
                                            r"N(0,1/d)$, "
             r"$W_O\sim\mathcal N(0,1/d_v)$, $W_2\sim\mathcal N(0,1/m)$"),
            ("step sizes $\\eta$", ", ".join(f"{e:g}" for e in c4["etas"])),
            ("seeds", f"{len(c4['seeds'])} ({c4['seeds'][0]}–{c4['seeds'][-1]})"),
            ("GD steps (loss recorded every)", f"{c4['steps']} ({c4['record']})"),
            ("divergence", f"loss non-finite or above {c4['diverge_factor']:g} L0"),
            ("target for 'steps to target'", f"{c4['target']:g} L0")]
    return "| setting | value |\n|---|---|\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)


def plot_e4(config: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], axes: Sequence[Any]) -> None:
    """Draw E4 on three axes: the fraction of diverged runs per step size with exact
    (Clopper-Pearson) 95% intervals, the final over initial loss of the runs that did not diverge,
    and the loss curves of the first seed at the three smallest step sizes; a grey band spans
    ``1 / lambda_max`` over the seeds.  ``config``, ``runs``: the recorded configuration and the
    runs of the part ``e4``.  Used by ``book/qin/experiments.md`` (figure ``fig-qexp-e4``)."""
    from scipy.stats import binomtest

    c4, runs4 = config, runs
    etas4 = [float(e) for e in c4["etas"]]
    n4 = len(c4["seeds"])
    for variant, color, mk in (("residual", "C0", "o"), ("none", "C3", "s")):
        rv = [r for r in runs4 if r["variant"] == variant]
        k = np.array([sum(r["diverged"] for r in rv if r["eta"] == e) for e in etas4])
        ci = np.array([binomtest(int(ki), n4).proportion_ci(method="exact") for ki in k])
        off = 1.04 if variant == "none" else 1 / 1.04
        axes[0].errorbar(np.array(etas4) * off, k / n4, yerr=[k / n4 - ci[:, 0], ci[:, 1] - k / n4],
                         color=color,
                         marker=mk, capsize=3,
                         label={"residual": "with attention residual", "none": "without"}[variant])
        for e in etas4:
            fin = [r["final_loss"] / r["loss0"] for r in rv if r["eta"] == e and not r["diverged"]]
            if fin:
                axes[1].plot([e * off] * len(fin), fin, mk, color=color, alpha=0.5, ms=4)
        for e, ls in zip(etas4[:3], ("-", "--", ":")):
            r = next(r for r in rv if r["eta"] == e and r["seed"] == c4["seeds"][0])
            axes[2].semilogy(r["step"], np.asarray(r["loss"]) / r["loss0"], color=color, ls=ls,
                             label=f"$\\eta$={e:g}" if variant == "residual" else None)
    lam = np.array([r["lambda_max"] for r in runs4 if r["variant"] == "residual" and r["eta"] == etas4[0]])
    for ax in axes[:2]:
        ax.set_xscale("log")
        ax.set_xlabel(r"step size $\eta$")
        ax.axvspan(1 / lam.max(), 1 / lam.min(), color="0.85", zorder=0)
    axes[1].set_yscale("log")
    axes[0].set_ylabel("fraction of runs diverged")
    axes[0].legend(fontsize=8)
    axes[1].set_ylabel(r"final loss / $\mathcal{L}_0$ (runs not diverged)")
    axes[2].set_xlabel("GD step")
    axes[2].set_ylabel(r"$\mathcal{L}_t/\mathcal{L}_0$, seed " + str(c4["seeds"][0]))
    axes[2].legend(fontsize=8)


def _minmax(vals: Sequence[float]) -> tuple[float, float]:
    return float(np.min(vals)), float(np.max(vals))


def _window(config: Mapping[str, Any], eta: float) -> int:
    """``3 / eta`` steps, rounded to a multiple of the record spacing (at least one): the window of
    the check ``e4-linear-rate-with-residual``."""
    return max(config["record"], round(3 / eta / config["record"]) * config["record"])


def e4_summary(config: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The numbers the chapter quotes for E4, per variant (``residual_*``, ``none_*``): the range of
    ``sigma_N(Z0)`` and of ``lambda_max`` over the runs, the diverged runs per step size (text), the
    range of the final over initial loss of the runs that did not diverge, the number of runs that
    reached the target and the number of runs; then the statement of the check on these data: the
    worst window ratio ``L(t + 3/eta) / L(t)`` over the residual runs with ``eta lambda_max <= 1``
    (``full_worst``, infinite for a diverged one; ``full_nruns`` such runs) and the smallest
    per-run worst ratio of the runs without the residual that did not diverge (``none_worst_min``)."""
    c4, runs4 = config, runs
    etas4 = [float(e) for e in c4["etas"]]
    n4 = len(c4["seeds"])
    out: dict[str, Any] = {}
    for variant in ("residual", "none"):
        rv = [r for r in runs4 if r["variant"] == variant]
        for name, vals in {"sN": [r["sigma_N_Z0"] for r in rv], "lam": [r["lambda_max"] for r in rv]}.items():
            out[f"{variant}_{name}_min"], out[f"{variant}_{name}_max"] = _minmax(vals)
        div = {e: sum(r["diverged"] for r in rv if r["eta"] == e) for e in etas4}
        out[f"{variant}_div"] = "; ".join(f"{k}/{n4} at {e:g}" for e, k in div.items())
        ok = [r for r in rv if not r["diverged"]]
        final = [r["final_loss"] / r["loss0"] for r in ok]
        out[f"{variant}_final_min"], out[f"{variant}_final_max"] = _minmax(final)
        out[f"{variant}_hit"] = sum(r["steps_to_target"] is not None for r in rv)
        out[f"{variant}_n"] = len(rv)
    worst = []
    for r in runs4:
        if r["variant"] == "residual" and r["eta"] * r["lambda_max"] <= 1:
            w = window_ratios(r["step"], r["loss"], window=_window(c4, r["eta"]))
            worst.append(np.inf if r["diverged"] else max(w))
    none_w = [max(window_ratios(r["step"], r["loss"], window=_window(c4, r["eta"]))) for r in runs4
              if r["variant"] == "none" and r["eta"] * r["lambda_max"] <= 1 and not r["diverged"]]
    out["full_worst"] = float(max(worst))
    out["full_nruns"] = len(worst)
    out["none_worst_min"] = float(min(none_w))
    return out
