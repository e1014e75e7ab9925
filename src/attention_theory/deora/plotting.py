"""Plots shared by the experiment chapters: curves of a logged quantity against the step, one
line per head count (or any other sweep key), averaged over trials with a min-max band.

``runs`` maps a sweep value (e.g. ``H``) to logs as :func:`~attention_theory.deora.head_sweeps.train_heads`
returns them: ``"step"`` ``(n_logged,)`` and each quantity ``(n_logged, trials)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["LOG_Y", "LABELS", "plot_sweep"]

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


def plot_sweep(runs: Mapping[int, Mapping[str, Any]], keys: Sequence[str], *, axes: Any = None,
               reference: Mapping[str, float] | None = None, title: str = "", label: str = "H") -> Any:
    """One panel per key; returns the figure.  ``reference`` draws dashed horizontal lines
    (e.g. ``{"margin_min": gamma_attn}``); steps from 1 on, on a log axis.  On a logarithmic
    y axis (:data:`LOG_Y`) values that are not positive are masked (left out), not clipped.
    The legend (font 9 pt) is in the first panel."""
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
