"""Evaluation of sparse-majority runs (Trauger & Tewari, Sec. 6, Figures 1-3).

:func:`reevaluate` recomputes a run's losses and accuracy from its saved parameters, and
:func:`kendall_trend` tests a per-``T`` curve for a monotone trend; the checks of
:mod:`attention_theory.trauger.checks.sparse_majority` use them.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import torch
from scipy import stats

from attention_theory.trauger.sparse_majority.training import (
    SweepConfig,
    build_sweep_data,
    evaluate,
)

__all__ = ['kendall_trend', 'reevaluate']


def reevaluate(config: SweepConfig, best_params: Mapping[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Regenerate every run's data from its seed and evaluate the best-epoch parameters:
    per-run ``train_loss``, ``train_acc``, ``val_loss``, ``val_acc`` (float64 arrays)."""
    data = build_sweep_data(config)
    tl, ta = evaluate(best_params, data.train_tokens, data.train_labels, heads=config.heads,
                      chunk=config.val_chunk)
    vl, va = evaluate(best_params, data.val_tokens, data.val_labels, heads=config.heads,
                      chunk=config.val_chunk)
    return {"train_loss": tl.numpy(), "train_acc": ta.numpy(), "val_loss": vl.numpy(),
            "val_acc": va.numpy()}


def kendall_trend(summary: Mapping[str, Mapping[str, float]], key: str, *,
                  alternative: str = "greater", T_min: int = 0) -> tuple[float, float, int]:
    """Kendall's tau between ``T`` and ``summary[T][key]`` over ``T >= T_min`` and the one-sided
    p-value (``alternative="greater"``: increasing trend).  Returns ``(tau, p, n_points)``."""
    Ts = sorted(int(T) for T in summary if int(T) >= T_min)
    if len(Ts) < 3:
        raise ValueError(f"a trend test needs at least 3 lengths, got {len(Ts)}")
    y = [float(summary[str(T)][key]) for T in Ts]
    res = stats.kendalltau(Ts, y, alternative=alternative)
    return float(res.statistic), float(res.pvalue), len(Ts)
