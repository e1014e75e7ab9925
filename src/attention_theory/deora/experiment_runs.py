"""The training runs of App. G (Figures 2-5) as the experiment checks and chapters read them.

The live runs of the chapters and of the checks that read them (:func:`smoke_dm1_runs`: GD with
step 1 and ``sqrt(H)``, Adam on the tokenized mixture DM1; :func:`smoke_dm2_runs`: GD, momentum
and Adam on the planted teacher DM2) are the parts ``fig2``, ``fig3``, ``fig4`` and ``fig5`` of the
experiment :mod:`attention_theory.deora.head_sweeps` run with their declared configuration
(:func:`live_config`), so they are what ``python -m attention_theory run deora head-sweeps --scale
smoke`` computes.  Also here: the conversion of full-scale result files into the same layout, the
helpers that turn the paper's qualitative statements ("more heads train faster") into comparisons
of adjacent head counts (:func:`adjacent_in_H`, :func:`ordered_in_H`, :func:`ordering_violations`)
and the family phrases of those checks (:func:`runs_family`).  The checks of
:mod:`attention_theory.deora.checks.experiments` and :mod:`attention_theory.deora.checks.planted_teacher`
evaluate them (chapters ``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from attention_theory.config import scale
from attention_theory.deora import head_sweeps, heads_training
from attention_theory.foundations.tensors import VERIFICATION_DTYPE, default_dtype

__all__ = ["FULL_NO_SEARCH", "ORDER_FAMILY", "RUNS_NO_SEARCH", "TRAJECTORY_KEYS", "adjacent_in_H",
           "dm1_runs_from_results", "dm2_runs_from_results", "format_report", "live_config", "ordered_in_H",
           "ordering_violations", "random_start_dm1", "random_start_dm2", "runs_family", "smoke_dm1_runs",
           "smoke_dm2_runs", "trajectory_gaps", "value_at"]

#: ``no_search`` reason of the statements about the live runs (or the committed full-scale results)
RUNS_NO_SEARCH = ("an empirical statement about the App. G training runs (every H and trial of the smoke "
                  "runs, or of the committed full-scale results): the runs are the instances, there is no "
                  "continuous instance space to search")
#: ``no_search`` reason of the statements about the committed full-scale results only
FULL_NO_SEARCH = ("an empirical statement about the committed full-scale App. G results (every optimizer, H "
                  "and trial): the runs are the instances, there is nothing to search")
#: family phrase of an ordering between runs
ORDER_FAMILY = ("loose by design: an operational ordering between runs (lhs below rhs); the ratio measures "
                "the effect size, there is no constant of the paper to tighten")

#: The parts whose runs the chapters and checks run live
LIVE_PARTS = ("fig2", "fig3", "fig4", "fig5")

#: At full scale (the campaign's checks) the live runs keep the smoke head counts and engine and take
#: the full scale's trials, sizes and (DM1) steps; the DM2 runs train 5000 steps.
_LIVE_FULL_DM2_STEPS = 5000


def live_config(fig: str) -> dict[str, Any]:
    """The configuration of a live run of the part ``fig`` (``"fig2"`` ... ``"fig5"``) at the current
    scale: at smoke scale the part's declared smoke configuration
    (``head_sweeps.EXPERIMENT.part(fig).config_for("smoke")``); at full scale the same head counts and
    engine with the full scale's trials and sizes (see ``_LIVE_FULL_DM2_STEPS``).  Used by
    :func:`smoke_dm1_runs` and :func:`smoke_dm2_runs` (chapters ``book/deora/experiments.md`` and
    ``book/deora/planted-teacher.md``)."""
    if not isinstance(fig, str):
        raise TypeError(f"fig must be a part name, one of {LIVE_PARTS}, got {fig!r}")
    if fig not in LIVE_PARTS:
        raise ValueError(f"fig must be a part name, one of {LIVE_PARTS}, got {fig!r}")
    smoke = head_sweeps.EXPERIMENT.part(fig).config_for("smoke")
    if scale() == "smoke":
        return smoke
    full = head_sweeps.EXPERIMENT.part(fig).config_for("full")
    settings = [dict(s, steps=_LIVE_FULL_DM2_STEPS) if full["data_model"] == "dm2" else s
                for s in full["settings"]]
    return {**full, "Hs": smoke["Hs"], "engine": smoke["engine"], "settings": settings}


def _live(fig: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(config, runs)`` of the live run of ``fig`` (computed once per scale)."""
    key = (fig, scale())
    if key not in _CACHE:
        cfg = live_config(fig)
        with default_dtype(VERIFICATION_DTYPE):
            _CACHE[key] = (cfg, head_sweeps.as_runs(head_sweeps.run_config(cfg)))
    return _CACHE[key]


_CACHE: dict[Any, Any] = {}


def _data(fig: str) -> dict[str, Any]:
    key = ("data", fig, scale())
    if key not in _CACHE:
        _CACHE[key] = head_sweeps.figure_data(live_config(fig))
    return _CACHE[key]


def smoke_dm2_runs() -> dict[str, Any]:
    """The DM2 sweeps the chapter plots and the qualitative checks read: the parts ``fig4`` (GD,
    ``eta = sqrt(H)``) and ``fig5`` (momentum, ``eta = sqrt(H)``; Adam, ``eta = 0.01``) run with
    :func:`live_config` (cached per scale): ``{"data", "steps", "Hs", "gd", "momentum", "adam"}``.
    Used by ``book/deora/planted-teacher.md``."""
    cfg4, fig4 = _live("fig4")
    _, fig5 = _live("fig5")
    return {"data": _data("fig4"), "steps": cfg4["settings"][0]["steps"], "Hs": tuple(cfg4["Hs"]),
            "gd": fig4["gd:sqrtH:1.0"], "momentum": fig5["momentum:sqrtH:1.0"],
            "adam": fig5["adam:constant:0.01"]}


def smoke_dm1_runs() -> dict[str, Any]:
    """The DM1 sweeps of Figures 2-3: the parts ``fig2`` and ``fig3`` run with :func:`live_config`
    (cached per scale): ``{"data", "Hs", "steps", "gd1", "gd_sqrtH", "adam"}``.

    Their engine is the exact reduction (exact from zero, ``check_dm1_engines_agree``, and ten times
    cheaper).  Used by ``book/deora/experiments.md``.
    """
    cfg2, fig2 = _live("fig2")
    cfg3, fig3 = _live("fig3")
    steps = {"gd1": cfg2["settings"][0]["steps"], "gd_sqrtH": cfg3["settings"][0]["steps"],
             "adam": cfg3["settings"][1]["steps"]}
    return {"data": _data("fig2"), "Hs": tuple(cfg2["Hs"]), "steps": steps, "gd1": fig2["gd:constant:1.0"],
            "gd_sqrtH": fig3["gd:sqrtH:1.0"], "adam": fig3["adam:constant:0.06"]}


def dm1_runs_from_results(fig2: dict[str, Any], fig3: dict[str, Any]) -> dict[str, Any]:
    """The full-scale results (:func:`~attention_theory.deora.head_sweeps.load_figure`) in
    the layout of :func:`smoke_dm1_runs`."""
    gd1, gds, adam = (fig2["runs"]["gd:constant:1.0"], fig3["runs"]["gd:sqrtH:1.0"],
                      fig3["runs"]["adam:constant:0.06"])
    return {"Hs": tuple(sorted(gd1)), "gd1": gd1, "gd_sqrtH": gds, "adam": adam,
            "steps": {k: int(max(r[1]["step"]))
                      for k, r in (("gd1", gd1), ("gd_sqrtH", gds), ("adam", adam))}}


def value_at(run: dict[str, Any], key: str, step: int) -> np.ndarray:
    """The logged ``key`` at ``step`` (one value per trial); a clear error for an unlogged step."""
    steps = [int(s) for s in run["step"]]
    if step not in steps:
        raise ValueError(f"step {step} was not logged (logged: {steps[:5]}...{steps[-3:]})")
    return np.asarray(run[key])[steps.index(step)]


def adjacent_in_H(runs: dict[int, dict[str, Any]], key: str,
                   step: int) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """``(H, H_next, key at step for H, for H_next)`` for every adjacent pair of head counts."""
    Hs = sorted(runs)
    return [(a, b, value_at(runs[a], key, step), value_at(runs[b], key, step))
            for a, b in zip(Hs[:-1], Hs[1:])]


def dm2_runs_from_results(fig4: dict[str, Any], fig5: dict[str, Any]) -> dict[str, Any]:
    """The full-scale DM2 results in the layout of :func:`smoke_dm2_runs`."""
    gd, mom = fig4["runs"]["gd:sqrtH:1.0"], fig5["runs"]["momentum:sqrtH:1.0"]
    adam = fig5["runs"]["adam:constant:0.01"]
    return {"Hs": tuple(sorted(gd)), "gd": gd, "momentum": mom, "adam": adam,
            "steps": int(max(gd[1]["step"]))}


def format_report(rows: list[tuple[str, str, bool, str]], claim_id: str | None = None) -> str:
    """The rows of :func:`full_scale_report` (optionally of one claim) as aligned text."""
    lines = []
    for cid, text, holds, summary in rows:
        if claim_id is None or cid == claim_id:
            lines.append(f"{'holds' if holds else 'FAILS':<6}{cid}: {text}\n      {summary}")
    return "\n".join(lines)


def ordering_violations(runs: dict[int, dict[str, Any]], key: str, step: int, *,
                        increasing: bool) -> list[tuple[int, int, int, float, float]]:
    """Where ``key`` at ``step`` is not strictly monotone in H: ``(H, H_next, trial, value, value_next)``
    for every adjacent pair of head counts and every trial that breaks the ordering."""
    out = []
    for a, b, va, vb in adjacent_in_H(runs, key, step):
        bad = va >= vb if increasing else vb >= va
        out += [(a, b, int(t), float(va[t]), float(vb[t])) for t in np.flatnonzero(bad)]
    return out


def ordered_in_H(runs: Mapping[int, Mapping[str, Any]], keys: tuple[str, ...], step: int,
                 increasing: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(lhs, rhs)`` of adjacent head counts with ``lhs < rhs`` meaning that every key of
    ``keys`` at ``step`` is strictly increasing (``increasing``) or decreasing in ``H``, on every trial
    (``rhs`` is moved down by one unit in the last place, so equality fails).  Used by the ordering
    checks of ``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``."""
    lo, hi = [], []
    for key in keys:
        for _, _, va, vb in adjacent_in_H(runs, key, step):
            lo.append(va if increasing else vb)
            hi.append(vb if increasing else va)
    # strict: lhs must be below rhs by at least one unit in the last place
    return np.concatenate(lo), np.nextafter(np.concatenate(hi), -np.inf)


def runs_family(by_H: Mapping[int, Mapping[str, Any]], label: str, steps: Any) -> str:
    """Family phrase (for ``check_bound(families=...)``) of the runs ``by_H`` (``{H: run}``) read at
    ``steps``: their head counts and number of trials."""
    Hs = sorted(by_H)
    trials = int(np.asarray(by_H[Hs[0]]["train_loss"]).shape[-1])
    return f"{label} runs, H in {{{', '.join(map(str, Hs))}}}, {trials} trials each, read at step {steps}"


#: the logged quantities compared step by step between the H-head model and the reduction
TRAJECTORY_KEYS = ("train_loss", "test_loss", "train_acc", "test_acc", "avg_W_norm", "avg_U_norm",
                    "margin_min", "margin_mean", "attn_score")


def trajectory_gaps(heads: dict[int, dict[str, Any]], reduced: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Step-by-step gaps between an H-head run and a reduced run of the same configuration:
    ``{"computed", "reference"}`` (every logged quantity, step, H and trial, concatenated),
    ``{"steps", "rel_gap", "param_gap", "spread"}`` per ``H`` (largest over trials and quantities,
    one value per logged step; ``rel_gap`` is ``|a - b| / max(|b|, 1e-300)``).  Used by the check
    ``engines-agree-full-trajectory`` and the figure of ``book/deora/experiments.md``."""
    computed, reference, per_H = [], [], {}
    for H in sorted(heads):
        a, b = heads[H], reduced[H]
        steps = np.asarray(a["step"], dtype=int)
        if not np.array_equal(steps, np.asarray(b["step"], dtype=int)):
            raise ValueError(f"H = {H}: the two runs are logged at different steps")
        rel = np.zeros(len(steps))
        for key in TRAJECTORY_KEYS:
            x, y = np.asarray(a[key], dtype=float), np.asarray(b[key], dtype=float)
            computed.append(x.ravel())
            reference.append(y.ravel())
            rel = np.maximum(rel, (np.abs(x - y) / np.maximum(np.abs(y), 1e-300)).max(axis=1))
        per_H[H] = {"steps": steps.tolist(), "rel_gap": rel.tolist(),
                    "param_gap": np.asarray(a["reduced_param_gap"], dtype=float).max(axis=1).tolist(),
                    "spread": np.asarray(a["head_spread_pairs"], dtype=float).max(axis=1).tolist()}
    return {"computed": np.concatenate(computed), "reference": np.concatenate(reference), "per_H": per_H}


def random_start_dm1(runs: Mapping[str, Any], *, Hs: tuple[int, ...] = (1, 16), max_step: int = 200,
                     init_scale: float = 0.01) -> list[str]:
    """Figure 2's GD (``eta = 1``) on the data of the live DM1 runs (:func:`smoke_dm1_runs`) from a
    small random start (entries ``N(0, init_scale^2)``, seed ``H``; the autograd ``H``-head engine,
    since the reduction does not apply) for the head counts ``Hs``, up to the last step the zero-start
    run logged at or before ``max_step``; returns the lines of a table comparing the two starts (mean
    train loss, largest spread between heads).  Used by ``book/deora/experiments.md``."""
    data = {k: runs["data"][k] for k in ("Xtr", "ytr", "Xte", "yte", "rel_tr")}
    K = int(max(s for s in runs["gd1"][1]["step"] if s <= max_step))   # a step the zero-start run logged
    with default_dtype(VERIFICATION_DTYPE):
        rand = heads_training.sweep(data, list(Hs), "gd", steps=K, lr_rule="constant", init_scale=init_scale)
    lines = [f"step {K}:",
             f"{'H':>3} {'loss, zero start':>17} {'loss, random start':>19} {'head spread':>12}"]
    for H in Hs:
        zero = value_at(runs["gd1"][H], "train_loss", K).mean()
        lines.append(f"{H:>3} {zero:>17.4g} {rand[H]['train_loss'][-1].mean():>19.4g} "
                     f"{rand[H]['head_spread'][-1].max():>12.3g}")
    return lines


def random_start_dm2(runs: Mapping[str, Any], *, init_scale: float = 1e-2) -> list[str]:
    """The GD sweep of the live DM2 runs (:func:`smoke_dm2_runs`, ``eta = sqrt(H)``) repeated from a
    small random start (entries ``N(0, init_scale^2)``, seed ``H``) for every ``H``; returns the lines
    of a table of the final train losses of both starts and the spread between heads.  Used by
    ``book/deora/planted-teacher.md``."""
    data, K = runs["data"], runs["steps"]
    lines = [f"{'H':>3} {'loss, zero start':>17} {'loss, random start':>19} {'head spread':>12}"]
    with default_dtype(VERIFICATION_DTYPE):
        for H in runs["Hs"]:
            init = heads_training.init_heads(data["Xtr"].shape[0], H, 10, 5, scale=init_scale, seed=H)
            r = heads_training.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=H,
                                           spec=heads_training.TrainSpec.uniform("gd", math.sqrt(H), K),
                                           init=init, record_at=[K])
            lines.append(f"{H:>3} {runs['gd'][H]['train_loss'][-1].mean():>17.4g} "
                         f"{r['train_loss'][-1].mean():>19.4g} {r['head_spread'][-1].max():>12.3g}")
    return lines
