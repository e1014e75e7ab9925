"""Dudley's entropy integral, evaluated exactly on the step function of covering numbers.

For a finite class on a sample, ``N(eps)`` (internal, strict, sup metric) is a
non-increasing step function of ``eps`` that can only change at the pairwise
distances ``d_1 < d_2 < ...``: on ``(d_k, d_{k+1}]`` the relation ``d < eps`` is
the same as ``d <= d_k``.  So the integral is a finite sum, and since
``delta + int_delta^inf g`` is piecewise linear in ``delta``, its infimum is
attained at ``0`` or at a breakpoint.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from attention_theory.foundations.covering import covering_number, sup_distances
from attention_theory.validation import as_array, check_positive

__all__ = ["DudleyResult", "dudley_bound"]


def _cover_counts(F: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Covering numbers at every increasing ``eps``, using monotonicity to skip integer programs.

    ``N`` is non-increasing in ``eps``: if it agrees at both ends of a range it is
    constant inside, so only the change points need exact solves.
    """
    counts = np.zeros(eps.size, dtype=np.int64)

    def fill(lo: int, hi: int, n_lo: int, n_hi: int) -> None:
        if n_lo == n_hi:
            counts[lo:hi + 1] = n_lo
            return
        if hi - lo <= 1:
            counts[lo], counts[hi] = n_lo, n_hi
            return
        mid = (lo + hi) // 2
        n_mid = covering_number(F, float(eps[mid]))
        fill(lo, mid, n_lo, n_mid)
        fill(mid, hi, n_mid, n_hi)

    last = eps.size - 1
    fill(0, last, covering_number(F, float(eps[0])), covering_number(F, float(eps[last])))
    return counts


@dataclasses.dataclass(frozen=True)
class DudleyResult:
    """``value = c * inf_delta (delta + int_delta^inf sqrt(log N(eps) / n) d eps)``."""

    value: float
    delta_star: float
    breakpoints: np.ndarray  # right ends of the intervals (d_k, d_{k+1}]
    log_cover: np.ndarray  # log N on each interval


def dudley_bound(F: np.ndarray, c: float = 1.0) -> DudleyResult:
    """Evaluate Dudley's bound (Trauger & Tewari Eq. 2.4 form) for the class ``F`` (N, n)."""
    F = as_array(F, "F", ndim=2)
    c = check_positive(c, "c")
    n = F.shape[1]
    D = sup_distances(F)
    d = np.unique(D[np.triu_indices_from(D, k=1)])
    d = d[d > 0]
    if d.size == 0:  # a single function (or duplicates): N = 1 everywhere
        return DudleyResult(0.0, 0.0, np.zeros(0), np.zeros(0))
    lefts = np.concatenate([[0.0], d[:-1]])
    # On (lefts[k], d[k]] the cover relation is "distance <= lefts[k]", i.e. "< d[k]".
    logN = np.log(_cover_counts(F, d))
    g = np.sqrt(logN / n)
    widths = d - lefts
    tail = np.concatenate([np.cumsum((g * widths)[::-1])[::-1], [0.0]])  # int from lefts[k]
    candidates = np.concatenate([lefts, [d[-1]]]) + tail
    k = int(np.argmin(candidates))
    delta_star = float(np.concatenate([lefts, [d[-1]]])[k])
    return DudleyResult(float(c * candidates[k]), delta_star, d, logN)
