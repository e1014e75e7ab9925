"""The training runs of App. G (Figures 2-5) as the experiment checks read them.

Cached smoke-scale sweeps over the number of heads on the tokenized mixture DM1
(:func:`smoke_dm1_runs`: GD with step 1 and ``sqrt(H)``, Adam) and on the planted teacher DM2
(:func:`smoke_dm2_runs`), the conversion of full-scale result files into the same layout, and
the helpers that turn the paper's qualitative statements ("more heads train faster") into
comparisons of adjacent head counts (:func:`adjacent_in_H`, :func:`ordering_violations`).
The checks in :mod:`attention_theory.deora.checks.experiments` evaluate them (chapters
``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attention_theory.config import pick
from attention_theory.deora import head_sweeps as dh

__all__ = ['adjacent_in_H', 'dm1_runs_from_results', 'dm2_runs_from_results', 'format_report', 'ordering_violations', 'smoke_dm1_runs', 'smoke_dm2_runs', 'value_at']


def smoke_dm2_runs(*, steps: int | None = None, Hs: tuple[int, ...] = (1, 4, 16)) -> dict[str, Any]:
    """The DM2 sweeps the chapter plots and the qualitative checks read (cached per arguments)."""
    steps = steps or pick(200, 5000)
    key = (steps, Hs)
    if key not in _CACHE:
        data = dh.dm2_trials(pick(2, 5), pick(100, 1000), pick(300, 3000))
        _CACHE[key] = {"data": data, "steps": steps, "Hs": Hs,
                       "gd": dh.dm2_sweep(data, list(Hs), "gd", steps=steps, lr_rule="sqrtH"),
                       "momentum": dh.dm2_sweep(data, list(Hs), "momentum", steps=steps, lr_rule="sqrtH"),
                       "adam": dh.dm2_sweep(data, list(Hs), "adam", steps=steps, lr_rule="constant",
                                            lr=0.01)}
    return _CACHE[key]


_CACHE: dict[Any, dict[str, Any]] = {}


def smoke_dm1_runs(*, Hs: tuple[int, ...] = (1, 4, 16), engine: str = "reduced") -> dict[str, Any]:
    """The DM1 sweeps of Figures 2-3 at the current scale (cached): ``{"gd1", "gd_sqrtH", "adam"}``.

    The reduced engine is exact from zero (``check_dm1_engines_agree``) and ten times cheaper,
    which keeps the chapter within its time budget; ``engine="heads"`` runs the H-head model.
    """
    key = ("dm1", Hs, engine)
    if key not in _CACHE:
        data = dh.dm1_trials(pick(2, 5), 100, 300)
        K_gd, K_adam = pick(500, 20_000), pick(300, 2000)
        _CACHE[key] = {"data": data, "Hs": Hs, "steps": {"gd1": K_gd, "gd_sqrtH": K_gd, "adam": K_adam},
                       "gd1": dh.sweep(data, list(Hs), "gd", steps=K_gd, lr_rule="constant", engine=engine),
                       "gd_sqrtH": dh.sweep(data, list(Hs), "gd", steps=K_gd, lr_rule="sqrtH", engine=engine),
                       "adam": dh.sweep(data, list(Hs), "adam", steps=K_adam, lr_rule="constant", lr=0.06,
                                        engine=engine)}
    return _CACHE[key]


def dm1_runs_from_results(fig2: dict[str, Any], fig3: dict[str, Any]) -> dict[str, Any]:
    """The full-scale results (:func:`~attention_theory.deora.head_sweeps.load_figure`) in
    the layout of :func:`smoke_dm1_runs`."""
    gd1, gds, adam = (fig2["runs"]["gd:constant:1.0"], fig3["runs"]["gd:sqrtH:1.0"],
                      fig3["runs"]["adam:constant:0.06"])
    return {"Hs": tuple(sorted(gd1)), "gd1": gd1, "gd_sqrtH": gds, "adam": adam,
            "steps": {k: int(max(r[1]["step"])) for k, r in (("gd1", gd1), ("gd_sqrtH", gds), ("adam", adam))}}


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
    return [(a, b, value_at(runs[a], key, step), value_at(runs[b], key, step)) for a, b in zip(Hs[:-1], Hs[1:])]


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
