"""Figures, tables and quoted numbers of the Deora experiment chapters (``book/deora/experiments.md``,
``book/deora/planted-teacher.md``, ``book/deora/sst2.md``).

Each function takes runs as the experiments store them (:mod:`attention_theory.deora.head_sweeps`:
``{H: logs}`` with ``"step"`` ``(n_logged,)`` and each quantity ``(n_logged, trials)``, from a
committed result file or a live smoke run; :mod:`attention_theory.deora.sst2_substitute`: the
substitute's runs) and draws them, or returns the numbers a chapter quotes (a dict
``{glue name: value}``) or the text it prints.  The one-panel-per-quantity sweep plot of every
figure is :func:`plot_sweep`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from attention_theory.deora.experiment_runs import ordering_violations, value_at

__all__ = ["LOG_Y", "LABELS", "plot_sweep", "engine_cost_text", "trajectory_source", "plot_trajectory_gaps",
           "trajectory_numbers", "trajectory_lines", "fig2_numbers", "plot_fig3", "fig3_numbers",
           "ordering_lines", "random_start_lines", "random_start_numbers", "plot_random_start",
           "plot_dm2_smoke", "plot_dm2_full", "dm2_numbers", "plot_substitute", "substitute_table",
           "substitute_numbers"]

#: quantities drawn on a logarithmic y axis
LOG_Y = frozenset({"train_loss", "test_loss", "head_spread"})

LABELS = {
    "train_loss": "train loss", "test_loss": "test loss", "train_acc": "train accuracy",
    "test_acc": "test accuracy", "avg_W_norm": r"average $\|W_h\|_F$",
    "avg_U_norm": r"$H^{-1/2}\sum_h\|U_h\|_F$", "margin_min": "normalized margin (min)",
    "margin_mean": "normalized margin (mean)", "attn_score": "attention on relevant tokens",
    "align_W": r"alignment of $W$ with $W_\star$", "align_U": r"alignment of $U$ with $U_\star$",
    "head_spread": "largest head spread",
}

#: the titles of the three DM2 optimizers (``book/deora/planted-teacher.md``)
DM2_NAMES = {"gd": r"GD, $\eta=\sqrt{H}$", "momentum": r"momentum 0.9, $\eta=\sqrt{H}$",
             "adam": r"Adam, $\eta=0.01$"}


def plot_sweep(runs: Mapping[int, Mapping[str, Any]], keys: Sequence[str], *, axes: Any = None,
               reference: Mapping[str, float] | None = None, title: str = "", label: str = "H") -> Any:
    """One panel per key; returns the figure.  ``reference`` draws dashed horizontal lines
    (e.g. ``{"margin_min": gamma_attn}``); steps from 1 on, on a log axis.  On a logarithmic
    y axis (:data:`LOG_Y`) values that are not positive are masked (left out), not clipped.
    The legend (font 9 pt) is in the first panel.  ``runs``: ``{H: logs}``.  Used by
    ``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``."""
    import matplotlib.pyplot as plt

    if not runs:
        raise ValueError("runs is empty")
    missing = [k for k in keys if any(k not in r for r in runs.values())]
    if missing:
        raise KeyError(f"quantities {missing} were not logged")
    if axes is None:
        _, axes = plt.subplots(1, len(keys), figsize=(3.3 * len(keys), 2.9), squeeze=False)
        axes = axes[0]
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(runs)))
    for ax, key in zip(axes, keys):
        for color, (h, r) in zip(colors, sorted(runs.items())):
            # step 0 (the zero start: output 0, so accuracy and margin are degenerate) is not drawn
            keep = np.asarray(r["step"], dtype=float) >= 1
            x = np.asarray(r["step"], dtype=float)[keep]
            y = np.asarray(r[key], dtype=float)[keep]
            mean, lo, hi = y.mean(1), y.min(1), y.max(1)
            if key in LOG_Y:  # a log axis cannot show values <= 0: mask them
                mean, lo, hi = (np.where(v > 0, v, np.nan) for v in (mean, lo, hi))
            ax.plot(x, mean, color=color, lw=1.4, label=f"{label}={h}")
            if y.shape[1] > 1:
                ax.fill_between(x, lo, hi, color=color, alpha=0.15, lw=0)
        ax.set_xscale("log")
        if key in LOG_Y:
            ax.set_yscale("log")
        if reference and key in reference:
            ax.axhline(reference[key], color="k", ls="--", lw=1)
        ax.set_xlabel("step")
        ax.set_ylabel(LABELS.get(key, key))
    axes[0].legend(fontsize=9, ncol=2 if len(runs) > 3 else 1)
    fig = axes[0].figure
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


# --- book/deora/experiments.md: the engines ---------------------------------------------------------


def engine_cost_text(heads_result: Mapping[str, Any] | None) -> str:
    """The sentence on the engines' costs, from the provenance and the measured costs of the committed
    ``fig2-heads`` result (:func:`~attention_theory.deora.head_sweeps.load_figure`), or a note that the
    file is missing (``None``).  Used by ``book/deora/experiments.md``."""
    if heads_result is None:
        return ("not measured here: the committed result file results/deora-head-sweeps/fig2-heads.json "
                "is missing (run the third command above)")
    h_runs = heads_result["runs"]["gd:constant:1.0"]
    cost = heads_result["engine_agreement"]["gd:constant:1.0"]["cpu_s_per_step"]

    def fmt(c: Mapping[str, float]) -> str:
        return f"{c['min']:.3f} / {c['median']:.3f} / {c['max']:.3f} s"

    cpu_full = sum(float(r["cpu_time_s"]) for r in h_runs.values())
    wall_full = sum(float(r["wall_time_s"]) for r in h_runs.values())
    return (f"the autograd heads engine {fmt(cost['heads'])}, the heads-batched engine "
            f"{fmt(cost['heads-batched'])} (min / median / max over {cost['heads']['reps']} "
            f"interleaved repetitions), a factor of about "
            f"{cost['heads']['median'] / cost['heads-batched']['median']:.1f}; the whole "
            f"heads-batched run of Figure 2 (seven head counts, one shard each, every head's "
            f"companion reduction included) took {cpu_full / 60:.0f} CPU minutes "
            f"({wall_full / 60:.0f} minutes of wall time)")


def trajectory_source(heads_result: Mapping[str, Any] | None, reduced_result: Mapping[str, Any] | None,
                      live: Mapping[str, Any] | None = None) -> str:
    """Where the data of the trajectory figure come from: the committed ``fig2-heads`` and ``fig2``
    results (both given), a live smoke run (``live``: the ``params`` of the check's record), or
    nothing.  Used by ``book/deora/experiments.md``."""
    from attention_theory.results import commit_label

    if heads_result is not None and reduced_result is not None:
        return (f"full scale: committed results/deora-head-sweeps/fig2-heads.json (commit "
                f"{commit_label(heads_result['provenance'])}) against fig2.json (commit "
                f"{commit_label(reduced_result['provenance'])}), H in {{1, 2, ..., 64}}, 5 trials, 2 x 10^4 "
                "steps")
    if live is not None:
        return (f"smoke scale, both engines run live: H in {{{', '.join(map(str, live['Hs']))}}}, "
                f"{live['trials']} trials, {live['steps']} steps (fig2-heads.json is not committed yet)")
    return "none: results/deora-head-sweeps/fig2-heads.json is missing (the figure is empty)"


def plot_trajectory_gaps(per_H: Mapping[int, Mapping[str, Any]], *, floor: float = 1e-18) -> Any:
    """The gaps between the ``H``-head model and the reduction along a run
    (:func:`~attention_theory.deora.experiment_runs.trajectory_gaps`' ``per_H``: ``{H: {"steps",
    "rel_gap", "param_gap", "spread"}}``), against the step on log axes: the largest relative gap of
    the logged quantities (left, with the check's tolerance ``1e-9`` dashed), the parameter gap to the
    reduction (right, solid) and the spread between heads (right, dotted); values below ``floor`` are
    drawn at ``floor``.  Returns the figure.  Used by ``book/deora/experiments.md``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharex=True)
    for i, (H, g) in enumerate(sorted(per_H.items())):
        c = f"C{i}"
        st = np.maximum(np.asarray(g["steps"], dtype=float), 1)
        axes[0].loglog(st, np.maximum(g["rel_gap"], floor), color=c, label=f"H={H}")
        axes[1].loglog(st, np.maximum(g["param_gap"], floor), color=c)
        axes[1].loglog(st, np.maximum(g["spread"], floor), ":", color=c)
    axes[0].set(xlabel="step", ylabel="largest relative gap", title="logged quantities",
                ylim=(floor / 3, 1e-6))
    axes[1].set(xlabel="step", ylabel="largest |difference|", ylim=(floor / 3, 1e-6),
                title="parameters: vs reduction (solid), between heads (dotted)")
    axes[1].title.set_fontsize(9)
    axes[0].axhline(1e-9, color="gray", lw=0.8, ls="--")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def trajectory_lines(per_H: Mapping[int, Mapping[str, Any]]) -> list[str]:
    """The lines the chapter prints about the trajectory gaps (per ``H``: the largest relative gap,
    parameter gap and spread, and the first logged step with a relative gap above ``1e-12``).  Used
    by ``book/deora/experiments.md``."""
    where = {H: (np.asarray(g["steps"], dtype=float)[np.flatnonzero(np.asarray(g["rel_gap"]) > 1e-12)[:1]]
                 .tolist() or ["never"])[0] for H, g in per_H.items()}
    return ["largest relative gap per H: "
            + str({H: f"{np.max(g['rel_gap']):.1e}" for H, g in per_H.items()}),
            "largest parameter gap to the reduction per H: "
            + str({H: f"{np.max(g['param_gap']):.1e}" for H, g in per_H.items()}),
            "largest difference between two heads per H: "
            + str({H: f"{np.max(g['spread']):.1e}" for H, g in per_H.items()}),
            "first logged step with a relative gap above 1e-12: " + str(where)]


def trajectory_numbers(per_H: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    """The numbers quoted about the trajectory gaps: ``dex_traj_rel``, ``dex_traj_param``,
    ``dex_traj_spread`` (largest over ``H``; NaN without data) and ``dex_traj_trend`` (where the largest
    relative gap sits and whether the gap grows over the run).  Used by ``book/deora/experiments.md``."""
    out: dict[str, Any] = {
        "dex_traj_rel": max((float(np.max(g["rel_gap"])) for g in per_H.values()), default=np.nan),
        "dex_traj_param": max((float(np.max(g["param_gap"])) for g in per_H.values()), default=np.nan),
        "dex_traj_spread": max((float(np.max(g["spread"])) for g in per_H.values()), default=np.nan)}
    if not per_H:
        out["dex_traj_trend"] = "nowhere: there is no data (fig2-heads.json is missing)"
        return out
    H_w = max(per_H, key=lambda H: float(np.max(per_H[H]["rel_gap"])))
    k_w = int(np.asarray(per_H[H_w]["steps"])[int(np.argmax(per_H[H_w]["rel_gap"]))])
    K_all = max(int(max(g["steps"])) for g in per_H.values())

    def part(g: Mapping[str, Any], late: bool) -> np.ndarray:
        return np.asarray(g["rel_gap"])[(np.asarray(g["steps"]) >= K_all / 10) == late]

    late = max(float(np.max(part(g, True), initial=0.0)) for g in per_H.values())
    early = max(float(np.max(part(g, False), initial=0.0)) for g in per_H.values())
    out["dex_traj_trend"] = (
        f"at step {k_w} (H = {H_w}), in the first tenth of the run; over the last nine tenths it is at most "
        f"{late:.1e}, so the gap does not grow with the step" if late < early else
        f"at step {k_w} (H = {H_w}), in the last nine tenths of the run: the gap grows with the step "
        f"(at most {early:.1e} over the first tenth)")
    return out


# --- book/deora/experiments.md: Figures 2 and 3 at full scale -----------------------------------------


def fig2_numbers(full: Mapping[str, Any], gamma_attn: float) -> dict[str, float]:
    """The numbers quoted about Figure 2 at full scale (means over trials; ``full``: the layout of
    :func:`~attention_theory.deora.experiment_runs.dm1_runs_from_results`): the largest early inversion,
    losses at steps 10 and ``K``, the late slopes, attention, margins and the lowest test accuracy, as
    ``{"dex_f2_<name>": value}``.  Used by ``book/deora/experiments.md``."""
    from attention_theory.foundations.trend import power_exponent

    K, gd1 = full["steps"]["gd1"], full["gd1"]

    def at(H: int, key: str, k: int = K) -> float:
        return float(value_at(gd1[H], key, k).mean())

    def late(r: Mapping[str, Any]) -> np.ndarray:   # the last decade of steps
        return np.asarray(r["step"], float) >= K / 10

    slopes = [power_exponent(np.asarray(r["step"], float)[late(r)],
                             np.asarray(r["train_loss"]).mean(1)[late(r)]).exponent for r in gd1.values()]
    inversions = ordering_violations(gd1, "train_loss", 10, increasing=True)
    values = {"inv10_factor": max(x / y for *_, x, y in inversions),
              "loss10_h1": at(1, "train_loss", 10), "loss10_h64": at(64, "train_loss", 10),
              "lossK_h1": at(1, "train_loss"), "lossK_h64": at(64, "train_loss"),
              "lossK_ratio": at(64, "train_loss") / at(1, "train_loss"),
              "slope_min": min(slopes), "slope_max": max(slopes),
              "attn_h1": at(1, "attn_score"), "attn_h64": at(64, "attn_score"),
              "margin_h1": at(1, "margin_min"), "margin_h64": at(64, "margin_min"),
              "margin100_h1": at(1, "margin_min", 100), "margin_frac": at(1, "margin_min") / gamma_attn,
              "test_acc_min": min(value_at(r, "test_acc", K).min() for r in gd1.values())}
    return {f"dex_f2_{name}": float(value) for name, value in values.items()}


def plot_fig3(sweeps: Mapping[str, Any], scale_label: str, gamma_attn: float) -> Any:
    """Figure 3: GD with ``eta = sqrt(H)`` (left column) and Adam (right column), one row per quantity
    (train loss, attention on the relevant token, normalized margin with ``gamma_attn`` dashed);
    ``sweeps``: the layout of :func:`~attention_theory.deora.experiment_runs.smoke_dm1_runs`.  Returns
    the figure.  Used by ``book/deora/experiments.md``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 2, figsize=(7.2, 8))
    for col, (opt, title) in enumerate((("gd_sqrtH", r"GD, $\eta=\sqrt{H}$"),
                                        ("adam", r"Adam, $\eta=0.06$"))):
        plot_sweep(sweeps[opt], ["train_loss", "attn_score", "margin_min"], axes=axes[:, col],
                   reference={"margin_min": gamma_attn})
        axes[0, col].set_title(f"{title} ({scale_label})")
    fig.tight_layout()
    return fig


def fig3_numbers(full: Mapping[str, Any]) -> dict[str, float | int]:
    """The numbers quoted about Figure 3 at full scale: mean margins of GD (``eta = sqrt(H)``) per
    ``H``, the inversions of the loss ordering of GD (step ``K``) and Adam (step 10), Adam's loss
    decrease in decades from ``H = 1`` to 32 at step 10 and the runs of ``H`` in {32, 64} below
    ``1e-8`` at step 5, as ``{"dex_f3_<name>": value}``.  Used by ``book/deora/experiments.md``."""
    K = full["steps"]["gd_sqrtH"]
    gs, adam = full["gd_sqrtH"], full["adam"]
    out: dict[str, float | int] = {f"dex_f3_margin_h{H}": float(value_at(gs[H], "margin_min", K).mean())
                                   for H in (1, 8, 16, 32, 64)}
    out["dex_f3_gd_inv"] = len(ordering_violations(gs, "train_loss", K, increasing=False))
    out["dex_f3_adam_inv"] = len(ordering_violations(adam, "train_loss", 10, increasing=False))
    out["dex_f3_adam_decades"] = float(np.log10(value_at(adam[1], "train_loss", 10).mean()
                                                / value_at(adam[32], "train_loss", 10).mean()))
    fast = np.concatenate([value_at(gs[H], "train_loss", 5) for H in (32, 64)])
    out["dex_f3_fast"] = int((fast <= 1e-8).sum())
    out["dex_f3_fast_of"] = fast.size
    return out


def ordering_lines(items: Sequence[tuple[str, Mapping[int, Mapping[str, Any]], str, int, bool]]) -> list[str]:
    """One line per ``(name, runs, key, step, increasing)``: the inversions of the strict ordering
    of ``key`` in ``H`` at ``step`` (``H, next H, trial: value -> next value``).  Used by
    ``book/deora/experiments.md``."""
    lines = []
    for name, runs, key, step, increasing in items:
        bad = ordering_violations(runs, key, step, increasing=increasing)
        lines.append(f"{name} at step {step}: "
                     + ", ".join(f"H={a}->{b} trial {t}: {x:.3g} -> {y:.3g}" for a, b, t, x, y in bad))
    return lines


# --- book/deora/experiments.md: the random start ------------------------------------------------------


def plot_random_start(random_runs: Mapping[int, Mapping[str, Any]], zero_runs: Mapping[int, Mapping[str, Any]]
                      ) -> Any:
    """Figure 2's GD from a small random start (``random_runs``, ``{H: logs}``): train loss (with the
    zero start ``zero_runs`` dotted in grey over the same steps), attention on the relevant token and
    the spread between heads; returns the figure.  Used by ``book/deora/experiments.md``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(7.2, 5.6))
    axes = axes.ravel()
    plot_sweep(random_runs, ["train_loss", "attn_score", "head_spread"], axes=axes[:3])
    for H, r in zero_runs.items():
        if H in random_runs:
            keep = (np.asarray(r["step"]) <= max(random_runs[H]["step"])) & (np.asarray(r["step"]) >= 1)
            axes[0].plot(r["step"][keep], r["train_loss"][keep].mean(1), ":", color="gray", lw=1)
    axes[0].set_title("random start (dotted: zero start)", fontsize=10)
    axes[3].axis("off")
    fig.tight_layout()
    return fig


def random_start_lines(zero_runs: Mapping[int, Mapping[str, Any]],
                       random_runs: Mapping[int, Mapping[str, Any]]) -> list[str]:
    """The table printed about the random start against the zero start at the last step both logged
    (mean losses and attention, largest spread between heads).  Used by ``book/deora/experiments.md``."""
    K = max(set(map(int, zero_runs[1]["step"])) & set(map(int, random_runs[1]["step"])))
    lines = [f"at step {K}:",
             f"{'H':>3} {'loss, zero':>11} {'loss, random':>13} {'attention, zero':>16} "
             f"{'attention, random':>18} {'head spread':>12}"]
    for H in sorted(random_runs):
        z, r = zero_runs[H], random_runs[H]
        lines.append(f"{H:>3} {value_at(z, 'train_loss', K).mean():>11.3g} "
                     f"{value_at(r, 'train_loss', K).mean():>13.3g} "
                     f"{value_at(z, 'attn_score', K).mean():>16.3f} "
                     f"{value_at(r, 'attn_score', K).mean():>18.3f} "
                     f"{value_at(r, 'head_spread', K).max():>12.3g}")
    return lines


def random_start_numbers(zero_runs: Mapping[int, Mapping[str, Any]],
                         random_runs: Mapping[int, Mapping[str, Any]]) -> dict[str, float | int]:
    """The numbers quoted about the random start (``dex_rand_<name>``): attention per ``H`` and mean
    spread at its last step, the largest relative deviation of the mean loss from the zero start from
    steps 100 and 1000 on, the factors at step 10 for ``H`` = 4 and 16 and the inversions of the loss
    ordering at steps 10 and 100.  Used by ``book/deora/experiments.md``."""
    Kr = int(max(random_runs[1]["step"]))
    common = sorted(set(map(int, zero_runs[1]["step"])) & set(map(int, random_runs[1]["step"])))

    def mean(run: Mapping[str, Any], key: str, k: int) -> float:
        return float(value_at(run, key, k).mean())

    ratio = {(H, k): mean(random_runs[H], "train_loss", k) / mean(zero_runs[H], "train_loss", k)
             for H in random_runs for k in common}
    out: dict[str, float | int] = {f"dex_rand_attn_h{H}": mean(random_runs[H], "attn_score", Kr)
                                   for H in random_runs}
    out["dex_rand_spread"] = float(np.mean([mean(random_runs[H], "head_spread", Kr) for H in random_runs
                                            if H >= 4]))
    out["dex_rand_dev100"] = max(abs(q - 1) for (H, k), q in ratio.items() if k >= 100)
    out["dex_rand_dev1000"] = max(abs(q - 1) for (H, k), q in ratio.items() if k >= 1000)
    out["dex_rand_factor10_h4"] = 1 / ratio[4, 10]
    out["dex_rand_factor10_h16"] = 1 / ratio[16, 10]
    for k in (10, 100):
        out[f"dex_rand_inv{k}"] = len(ordering_violations(random_runs, "train_loss", k, increasing=True))
    return out


# --- book/deora/planted-teacher.md ---------------------------------------------------------------------


def plot_dm2_smoke(runs: Mapping[str, Any]) -> Any:
    """The DM2 smoke runs (:func:`~attention_theory.deora.experiment_runs.smoke_dm2_runs`), one row per
    optimizer: train loss (mean over trials, log-log) and the alignments of ``W`` (solid) and ``U``
    (dashed) with the teacher, against the step (step 0 drawn at step 1).  Returns the figure.  Used by
    ``book/deora/planted-teacher.md``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 2, figsize=(7.2, 8.5), sharex=True)
    for i, opt in enumerate(DM2_NAMES):
        for H, r in runs[opt].items():
            steps = np.maximum(r["step"], 1)  # step 0 is drawn at step 1 (log axis)
            axes[i, 0].loglog(steps, r["train_loss"].mean(1), label=f"H={H}")
            color = axes[i, 0].lines[-1].get_color()
            axes[i, 1].semilogx(steps, r["align_W"].mean(1), color=color)
            axes[i, 1].semilogx(steps, r["align_U"].mean(1), "--", color=color)
        axes[i, 0].set_title(DM2_NAMES[opt], fontsize=10)
        axes[i, 1].set_title(DM2_NAMES[opt], fontsize=10)
        axes[i, 0].set_ylabel("train loss")
        axes[i, 1].set_ylabel("alignment")
    axes[2, 0].set_xlabel("step")
    axes[2, 1].set_xlabel("step")
    axes[0, 0].legend(fontsize=9)
    fig.tight_layout()
    return fig


def plot_dm2_full(full: Mapping[str, Any], opt: str) -> Any:
    """One full-scale DM2 figure (``full``: the layout of
    :func:`~attention_theory.deora.experiment_runs.dm2_runs_from_results`; ``opt`` one of ``"gd"``,
    ``"momentum"``, ``"adam"``): train loss, test accuracy, normalized margin (``gamma_DM2 = 0.2``
    dashed) and alignment of ``W``, 2 x 2 panels.  Returns the figure.  Used by
    ``book/deora/planted-teacher.md``."""
    import matplotlib.pyplot as plt

    if opt not in DM2_NAMES:
        raise ValueError(f"opt must be one of {sorted(DM2_NAMES)}, got {opt!r}")
    fig, axes = plt.subplots(2, 2, figsize=(7.2, 5.4))
    plot_sweep(full[opt], ["train_loss", "test_acc", "margin_min", "align_W"], axes=axes.ravel(),
               reference={"margin_min": 0.2}, title=DM2_NAMES[opt])
    return fig


def dm2_numbers(full: Mapping[str, Any], *, gamma_dm2: float = 0.2) -> dict[str, float | int]:
    """The numbers quoted about Figures 4 and 5 at full scale, at the last step (means over trials
    unless a minimum), as ``{"dpt_<name>": value}``: GD's losses, test accuracy, alignments and
    margins, Adam's losses and margin, momentum's speed-up over GD at step 100 (``H <= 8``) and its
    effective step at ``H = 16``, and the momentum trial that ends aligned with ``-W*`` (its index,
    the number of trials that do not, and its alignment, loss and test accuracy at ``H`` = 16 and 32).
    Used by ``book/deora/planted-teacher.md``."""
    K, Hs = full["steps"], full["Hs"]
    Hmax = max(Hs)

    def last(opt: str, H: int, key: str, k: int = K) -> np.ndarray:
        return value_at(full[opt][H], key, k)

    def lowest(opt: str, key: str) -> float:
        return min(last(opt, H, key).min() for H in Hs)

    speedup = [last("gd", H, "train_loss", 100).mean() / last("momentum", H, "train_loss", 100).mean()
               for H in Hs if H <= 8]                       # momentum against GD at step 100
    values = {"gd_loss_h1": last("gd", 1, "train_loss").mean(),
              "gd_loss_hmax": last("gd", Hmax, "train_loss").mean(),
              "gd_test_acc_min": lowest("gd", "test_acc"),
              "gd_align_W_min": lowest("gd", "align_W"), "gd_align_U_min": lowest("gd", "align_U"),
              "gd_margin_h1": last("gd", 1, "margin_min").mean(),
              "gd_margin_hmax": last("gd", Hmax, "margin_min").mean(),
              "gd_margin_h1_lo": last("gd", 1, "margin_min").min() / gamma_dm2,
              "gd_margin_h1_hi": last("gd", 1, "margin_min").max() / gamma_dm2,
              "adam_loss_h1": last("adam", 1, "train_loss").mean(),
              "adam_loss_hmax": last("adam", Hmax, "train_loss").mean(),
              "adam_margin_min": lowest("adam", "margin_min"),
              "mom_speedup_lo": min(speedup), "mom_speedup_hi": max(speedup),
              "mom_eff_step": math.sqrt(16) / (1 - 0.9)}   # sqrt(H) / (1 - momentum) at H = 16
    out: dict[str, float | int] = {f"dpt_{name}": float(value) for name, value in values.items()}
    bad = int(np.flatnonzero(last("momentum", 16, "align_W") < 0)[0])   # the trial that ends at -W*
    out["dpt_mom_bad_trial"] = bad
    out["dpt_mom_good_trials"] = int((last("momentum", 16, "align_W") > 0).sum())
    for H in (16, 32):
        for key in ("align_W", "train_loss", "test_acc"):
            out[f"dpt_mom_bad_{key}_h{H}"] = float(last("momentum", H, key)[bad])
    return out


# --- book/deora/sst2.md --------------------------------------------------------------------------------


def _smooth(x: np.ndarray, w: int) -> np.ndarray:
    w = max(1, min(w, len(x)))
    return np.convolve(x, np.ones(w) / w, mode="valid")


def plot_substitute(result: Mapping[str, Any], title: str) -> Any:
    """The SST-2 substitute (``result``: :func:`~attention_theory.deora.sst2_substitute.run_substitute`'s
    output, ``{"config", "runs": {H: [run per seed]}}``), one colour per ``H``: the training loss per
    step, moving average over a tenth of an epoch (left), and the test accuracy at each evaluation,
    mean over seeds with a band over the seeds (right), against the epoch.  Returns the figure.  Used
    by ``book/deora/sst2.md``."""
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(7.2, 3.4))
    for j, (H, runs) in enumerate(result["runs"].items()):
        per = int(runs[0]["steps_per_epoch"])
        w = max(1, per // 10)
        curves = np.array([_smooth(np.asarray(r["step_loss"], float), w) for r in runs])
        steps = np.arange(curves.shape[1]) + w
        a.plot(steps / per, curves.mean(0), color=f"C{j}", label=f"H={H}")
        acc = np.array([r["test_acc"] for r in runs])
        ep = np.asarray(runs[0]["eval_epoch"])
        b.plot(ep, acc.mean(0), "o-", color=f"C{j}", ms=3, label=f"H={H}")
        if len(runs) > 1:
            b.fill_between(ep, acc.min(0), acc.max(0), color=f"C{j}", alpha=0.15)
    a.set_xlabel("epoch")
    a.set_ylabel("train loss (moving average)")
    b.set_xlabel("epoch")
    b.set_ylabel("test accuracy")
    a.set_title(title, fontsize=10)
    b.set_title(title, fontsize=10)
    b.legend(fontsize=9)
    fig.tight_layout()
    return fig


def substitute_table(result: Mapping[str, Any], summary: Mapping[int, Mapping[str, Any]]) -> list[str]:
    """The table printed about the full substitute run: per ``H`` the mean test accuracy after a
    quarter of an epoch, after one epoch (the fifth evaluation) and at the end, the final test loss
    and the mean train loss of the first epoch (``summary``:
    :func:`~attention_theory.deora.sst2_substitute.summarize_substitute`).  Used by ``book/deora/sst2.md``."""
    lines = [f"{'H':>3} {'acc @1/4 ep':>12} {'acc @1 ep':>10} {'final acc':>10} {'final test loss':>16} "
             f"{'mean train loss, ep 1':>22}"]
    for H, s in summary.items():
        acc1 = float(np.mean([r["test_acc"][4] for r in result["runs"][H]]))
        lines.append(f"{H:>3} {s['first_eval_acc']:>12.3f} {acc1:>10.3f} {s['final_test_acc']:>10.3f} "
                     f"{s['final_test_loss']:>16.3f} {s['epoch1_train_loss']:>22.3f}")
    return lines


def substitute_numbers(result: Mapping[str, Any],
                       summary: Mapping[int, Mapping[str, Any]]) -> dict[str, float]:
    """The numbers quoted about the full substitute run (means over seeds), as ``{"dsst_<name>": value}``:
    final accuracy per ``H``, the mean loss of the last epoch and the accuracy after one epoch for
    ``H`` = 1 and 16, the accuracy after a quarter of an epoch for ``H`` = 8 and 16 and its range over
    ``H <= 4``.  Used by ``book/deora/sst2.md``."""
    runs = result["runs"]

    def last_epoch_loss(rs: Sequence[Mapping[str, Any]]) -> float:
        return float(np.mean([np.mean(r["step_loss"][-int(r["steps_per_epoch"]):]) for r in rs]))

    out = {f"dsst_final_acc_h{H}": s["final_test_acc"] for H, s in summary.items()}
    for H in (1, 16):
        out[f"dsst_loss_last_epoch_h{H}"] = last_epoch_loss(runs[H])
        out[f"dsst_acc_ep1_h{H}"] = float(np.mean([r["test_acc"][4] for r in runs[H]]))
    for H in (8, 16):
        out[f"dsst_first_acc_h{H}"] = summary[H]["first_eval_acc"]
    out["dsst_first_acc_lo"] = min(s["first_eval_acc"] for H, s in summary.items() if H <= 4)
    out["dsst_first_acc_hi"] = max(s["first_eval_acc"] for H, s in summary.items() if H <= 4)
    return out
