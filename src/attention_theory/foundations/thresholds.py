"""A finite learning problem where every risk is exact: noisy thresholds on {0, ..., m-1}.

``x`` is uniform on ``{0, ..., m-1}``; the clean label is ``1{x >= cut}``, flipped
with probability ``flip``.  The hypothesis class is the ``m + 1`` thresholds
``h_t(x) = 1{x >= t}``, ``t = 0..m``, with 0-1 loss.  Used to test the
Rademacher generalization bound where nothing needs to be estimated
(:func:`threshold_bound_ratios`, used by the Foundations complexity chapter and its checks).
"""

from __future__ import annotations

import math

import numpy as np

from attention_theory.foundations.rademacher import rademacher_exact, rademacher_mc
from attention_theory.validation import (
    as_vector,
    check_int,
    check_positive,
    check_probability,
    check_rng,
    refuses_overflow,
)

__all__ = ["threshold_true_risks", "threshold_sample", "threshold_loss_matrix", "threshold_bound_ratios"]


def _check(m: int, cut: int, flip: float) -> tuple[int, int, float]:
    m = check_int(m, "m", minimum=2)
    cut = check_int(cut, "cut", minimum=0)
    if cut > m:
        raise ValueError(f"cut must be <= m={m}, got {cut}")
    return m, cut, check_probability(flip, "flip", open_interval=False)


def threshold_true_risks(m: int = 20, cut: int = 7, flip: float = 0.2) -> np.ndarray:
    """Exact 0-1 risk of each threshold ``t = 0..m``, shape ``(m + 1,)``."""
    m, cut, flip = _check(m, cut, flip)
    x = np.arange(m)
    p1 = np.where(x >= cut, 1 - flip, flip)  # P(y = 1 | x)
    preds = (x[None, :] >= np.arange(m + 1)[:, None]).astype(float)
    err = preds * (1 - p1)[None, :] + (1 - preds) * p1[None, :]
    return err.mean(axis=1)


def threshold_sample(n: int, rng: np.random.Generator, m: int = 20, cut: int = 7,
                     flip: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """``n`` i.i.d. pairs ``(x, y)``: integer arrays of shape ``(n,)``."""
    n = check_int(n, "n")
    m, cut, flip = _check(m, cut, flip)
    rng = check_rng(rng)
    x = rng.integers(0, m, size=n)
    y = (x >= cut).astype(int) ^ (rng.random(n) < flip).astype(int)
    return x, y


def threshold_loss_matrix(x: np.ndarray, y: np.ndarray, m: int = 20) -> np.ndarray:
    """0-1 losses of every threshold on the sample: shape ``(m + 1, n)``."""
    m = check_int(m, "m", minimum=2)
    x, y = as_vector(x, "x"), as_vector(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {x.shape} and {y.shape}")
    preds = (x[None, :] >= np.arange(m + 1)[:, None]).astype(int)
    return (preds != y[None, :]).astype(float)


@refuses_overflow
def threshold_bound_ratios(n: int, n_samples: int, delta: float, multiplier: float,
                           rng: np.random.Generator, n_draws: int) -> np.ndarray:
    """``sup_h gap / (multiplier * RHS)`` of Eq. (2.3) over independent samples of size ``n``."""
    n, n_samples = check_int(n, "n"), check_int(n_samples, "n_samples")
    n_draws = check_int(n_draws, "n_draws")
    delta = check_probability(delta, "delta")
    multiplier = check_positive(multiplier, "multiplier")
    rng = check_rng(rng)
    risks = threshold_true_risks()
    out = np.empty(n_samples)
    conf = 4.0 * math.sqrt(2.0 * math.log(4.0 / delta) / n)
    for s in range(n_samples):
        x, y = threshold_sample(n, rng)
        L = threshold_loss_matrix(x, y)
        gap = float(np.max(np.abs(L.mean(axis=1) - risks)))
        if n <= 12:
            rad = rademacher_exact(L)
        else:
            rad = rademacher_mc(L, n_draws, seed=int(rng.integers(1 << 30)))[0]
        out[s] = gap / (multiplier * (2.0 * rad + conf))
    return out
