"""Evaluation of sparse-majority runs (Trauger & Tewari, Sec. 6, Figures 1-3).

:func:`reevaluate` recomputes a run's losses and accuracy from its saved parameters, and
:func:`doubling_slope` estimates how much a per-``T`` curve changes per doubling of ``T``, with a
bootstrap confidence interval over the runs (the equivalence tests of Figures 1-3); the checks of
:mod:`attention_theory.trauger.checks.sparse_majority` use them.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import torch

from attention_theory.foundations.trend import TrendEstimate, log_slope
from attention_theory.trauger.sparse_majority.model import check_params
from attention_theory.trauger.sparse_majority.training import (
    SweepConfig,
    build_sweep_data,
    evaluate,
)
from attention_theory.validation import check_positive, check_real

__all__ = ['reevaluate', 'doubling_slope', 'equivalence_decision', 'slopes_by_seed_count']


def reevaluate(config: SweepConfig, best_params: Mapping[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Regenerate every run's data from its seed and evaluate the best-epoch parameters:
    per-run ``train_loss``, ``train_acc``, ``val_loss``, ``val_acc`` (float64 arrays)."""
    if not isinstance(config, SweepConfig):
        raise TypeError(f"config must be a SweepConfig, got {type(config).__name__}")
    _, B = check_params(best_params, "best_params")
    if B != (len(config.runs),):
        raise ValueError(f"best_params must hold the {len(config.runs)} runs of config stacked on one "
                         f"leading axis, got run shape {B}")
    data = build_sweep_data(config)
    tl, ta = evaluate(best_params, data.train_tokens, data.train_labels, heads=config.heads,
                      chunk=config.val_chunk)
    vl, va = evaluate(best_params, data.val_tokens, data.val_labels, heads=config.heads,
                      chunk=config.val_chunk)
    return {"train_loss": tl.numpy(), "train_acc": ta.numpy(), "val_loss": vl.numpy(),
            "val_acc": va.numpy()}


def doubling_slope(runs: Sequence[Mapping[str, Any]], key: str, *, statistic: str = "max",
                   relative: bool = False, T_min: int = 0, n_boot: int = 4000, level: float = 0.95,
                   seed: int = 0) -> TrendEstimate:
    """How much the per-``T`` ``statistic`` (``"max"`` or ``"mean"`` over the seeds of each ``T``;
    the paper's figures use the maximum) of ``run[key]`` changes per doubling of ``T``, with a
    bootstrap interval over the runs (:func:`~attention_theory.foundations.trend.log_slope` with
    ``base = 2``).

    ``runs`` are the run records of a sweep (``{"T", "seed", key, ...}``); lengths below ``T_min``
    are left out.  Needs at least 3 lengths and 2 runs per length.
    """
    Ts = sorted({int(r["T"]) for r in runs if int(r["T"]) >= T_min})
    if len(Ts) < 3:
        raise ValueError(f"a slope over T needs at least 3 lengths >= {T_min}, got {Ts}")
    groups = [[float(r[key]) for r in runs if int(r["T"]) == T] for T in Ts]
    for T, g in zip(Ts, groups):
        if len(g) < 2:
            raise ValueError(f"the bootstrap needs at least 2 runs per length; T={T} has {len(g)}")
    return log_slope(Ts, groups, statistic=statistic, base=2.0, relative=relative, n_boot=n_boot,
                     level=level, seed=seed)


def equivalence_decision(low: float, high: float, margin: float) -> str:
    """What an interval ``[low, high]`` of a change per doubling decides against ``[-margin, margin]``:
    ``"inside"`` (no change beyond the margin: a plateau), ``"outside"`` (the whole interval lies
    beyond one end: a change larger than the margin) or ``"undecided"`` (it straddles an end)."""
    low, high = check_real(low, "low"), check_real(high, "high")
    margin = check_positive(margin, "margin")
    if low > high:
        raise ValueError(f"[low, high] must be a finite interval, got [{low}, {high}]")
    if -margin <= low and high <= margin:
        return "inside"
    if high < -margin or low > margin:
        return "outside"
    return "undecided"


def slopes_by_seed_count(runs: Sequence[Mapping[str, Any]], key: str, counts: Sequence[int],
                         **kwargs: Any) -> list[TrendEstimate]:
    """:func:`doubling_slope` of ``key`` on the runs of the first ``k`` seeds (in increasing order),
    for every ``k`` in ``counts``: how the interval narrows as seeds are added (``kwargs`` go to
    :func:`doubling_slope`)."""
    seeds = sorted({int(r["seed"]) for r in runs})
    out = []
    for k in counts:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= len(seeds):
            raise ValueError(f"counts must be integers from 2 to the {len(seeds)} seeds of runs, got {k!r}")
        keep = set(seeds[:k])
        out.append(doubling_slope([r for r in runs if int(r["seed"]) in keep], key, **kwargs))
    return out
