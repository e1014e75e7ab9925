"""Instances, formulas and runs that :mod:`attention_theory.foundations.checks` evaluates.

The checks themselves (Checks of the Foundations part: norms, softmax, losses, Rademacher, covering, Dudley) live in :mod:`attention_theory.foundations.checks`;
this module holds what they compute, so chapters and experiments can use it without
importing a check.
"""

from __future__ import annotations

import math

import numpy as np

from attention_theory.foundations.rademacher import (
    rademacher_exact,
    rademacher_mc,
)
from attention_theory.foundations.thresholds import (
    threshold_loss_matrix,
    threshold_sample,
    threshold_true_risks,
)


def threshold_bound_ratios(n: int, n_samples: int, delta: float, multiplier: float,
                           rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """``sup_h gap / (multiplier * RHS)`` of Eq. (2.3) over independent samples of size ``n``."""
    risks = threshold_true_risks()
    out = np.empty(n_samples)
    conf = 4.0 * math.sqrt(2.0 * math.log(4.0 / delta) / n)
    for s in range(n_samples):
        x, y = threshold_sample(n, rng)
        L = threshold_loss_matrix(x, y)
        gap = float(np.max(np.abs(L.mean(axis=1) - risks)))
        rad = rademacher_exact(L) if n <= 12 else rademacher_mc(L, n_draws, seed=int(rng.integers(1 << 30)))[0]
        out[s] = gap / (multiplier * (2.0 * rad + conf))
    return out
