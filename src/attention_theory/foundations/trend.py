"""Equivalence tests of "no trend": the slope of a per-``T`` statistic against ``log T`` with a
bootstrap interval over the draws (or runs) of each ``T``.

A statement such as "the gap does not grow with the sequence length" is tested by requiring the
interval of the slope to lie below a stated margin, never by a trend test that fails to reject.
An ``O(.)`` statement ``LHS = O(g)`` along a sequence of instances is tested the same way
(:func:`power_exponent`, :func:`exponent_outcome`): the exponent of ``LHS / g`` in the sequence
parameter, with an interval, is refuted when the whole interval lies above a margin (the ratio
grows without bound along the sequence) and supported when the whole interval lies below it.

Used by the word-masking and single-layer checks of Trauger & Tewari and by the sparse-majority
figures (:mod:`attention_theory.trauger.sparse_majority.evaluation`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np

from attention_theory.validation import as_vector

__all__ = ["TrendEstimate", "log_slope", "ExponentEstimate", "power_exponent", "exponent_outcome"]


@dataclasses.dataclass(frozen=True)
class TrendEstimate:
    """Slope of a per-``T`` statistic against ``log_base T`` and its bootstrap interval.

    ``slope`` is in units of the statistic per unit of ``log_base T`` (``base = 2``: per doubling
    of ``T``), divided by the statistic's mean over ``T`` when ``relative``.  ``low``/``high`` is
    the percentile interval of level ``level`` from ``n_boot`` resamples of the draws within each
    ``T``.
    """

    slope: float
    low: float
    high: float
    level: float
    n_boot: int
    relative: bool
    Ts: tuple[int, ...]
    n_draws: int
    statistic: str
    base: float

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def log_slope(Ts: Sequence[int], groups: Sequence[Sequence[float]], *, statistic: str = "mean",
              base: float = math.e, relative: bool = False, n_boot: int = 2000, level: float = 0.95,
              seed: int = 0) -> TrendEstimate:
    """Least-squares slope of ``statistic(groups[j])`` (``"mean"`` or ``"max"``) against
    ``log_base Ts[j]``, with a nonparametric bootstrap interval: the values of every group are
    resampled with replacement ``n_boot`` times.

    ``Ts``: at least two distinct positive lengths; ``groups[j]``: the finite values observed at
    ``Ts[j]`` (one value gives a group that never varies in the bootstrap).  Raises
    ``ValueError`` naming the argument otherwise.
    """
    if statistic not in ("mean", "max"):
        raise ValueError(f"statistic must be 'mean' or 'max', got {statistic!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 100:
        raise ValueError(f"n_boot must be an integer >= 100, got {n_boot!r}")
    if not (isinstance(base, (int, float)) and math.isfinite(base) and base > 1):
        raise ValueError(f"base must be a number > 1, got {base!r}")
    if not isinstance(relative, (bool, np.bool_)):
        raise TypeError(f"relative must be True or False, got {relative!r}")
    T = as_vector(Ts, "Ts")
    if T.ndim != 1 or T.size < 2 or len(set(T.tolist())) != T.size or np.any(T <= 0):
        raise ValueError(f"Ts must hold at least two distinct positive lengths, got {list(Ts)}")
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__len__"):
        raise TypeError(f"groups must be a sequence of groups of values, got {type(groups).__name__}")
    if len(groups) != T.size:
        raise ValueError(f"groups must hold one group of values per length: {len(groups)} groups "
                         f"for {T.size} lengths")
    for g in groups:
        if np.iscomplexobj(g):
            raise TypeError("groups must hold real values, got complex values")
    try:
        vals = [np.asarray(g, dtype=np.float64).ravel() for g in groups]
    except (TypeError, ValueError):
        raise TypeError("groups must hold groups of real numbers") from None
    for t, v in zip(T, vals):
        if v.size == 0 or not np.all(np.isfinite(v)):
            raise ValueError(f"groups: the values at T={int(t)} must be finite and non-empty, got {v}")
    agg = np.mean if statistic == "mean" else np.max
    x = np.log(T) / math.log(base)
    xc = x - x.mean()

    def slopes(y: np.ndarray) -> np.ndarray:
        s = (y - y.mean(axis=-1, keepdims=True)) @ xc / float(xc @ xc)
        if relative:
            mean = y.mean(axis=-1)
            if np.any(mean <= 0):
                raise ValueError("relative=True needs a positive statistic at every T")
            s = s / mean
        return s

    point = float(slopes(np.array([agg(v) for v in vals])[None, :])[0])
    rng = np.random.default_rng(seed)
    boot = np.stack([agg(v[rng.integers(0, v.size, size=(n_boot, v.size))], axis=1) for v in vals], axis=1)
    b = slopes(boot)
    a = (1 - level) / 2
    low, high = (float(q) for q in np.quantile(b, [a, 1 - a]))
    return TrendEstimate(point, low, high, level, n_boot, relative, tuple(int(t) for t in T),
                         int(sum(v.size for v in vals)), statistic, float(base))


@dataclasses.dataclass(frozen=True)
class ExponentEstimate:
    """Exponent ``a`` of ``ratio ~ c x^a`` along a sequence ``x`` (least squares on logs) and its
    ``level`` interval (Student t, from the residuals: for an exact power law the interval is
    the point), with the growth of the ratio over the sequence (last / first)."""

    exponent: float
    low: float
    high: float
    level: float
    n: int
    x_first: float
    x_last: float
    growth: float

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def power_exponent(x: Sequence[float], ratio: Sequence[float], *, level: float = 0.95) -> ExponentEstimate:
    """Least-squares slope of ``log ratio`` against ``log x`` with a ``level`` t-interval.

    ``x``: at least three distinct positive values (a sequence of sizes, norms, ``1/eps``...);
    ``ratio``: positive and finite, one per ``x``.  ``ValueError`` naming the argument otherwise.
    """
    from scipy.stats import t as student_t

    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    xs = as_vector(x, "x")
    ys = as_vector(ratio, "ratio")
    if xs.ndim != 1 or xs.size < 3 or len(set(xs.tolist())) != xs.size or not np.all(np.isfinite(xs)) \
            or np.any(xs <= 0):
        raise ValueError(f"x must hold at least three distinct positive finite values, got {xs.tolist()}")
    if ys.shape != xs.shape or not np.all(np.isfinite(ys)) or np.any(ys <= 0):
        raise ValueError(f"ratio must hold one positive finite value per x, got {ys.tolist()}")
    lx, ly = np.log(xs), np.log(ys)
    xc = lx - lx.mean()
    a = float(xc @ (ly - ly.mean()) / (xc @ xc))
    resid = ly - ly.mean() - a * xc
    dof = xs.size - 2
    se = math.sqrt(float(resid @ resid) / dof / float(xc @ xc))
    q = float(student_t.ppf(0.5 + level / 2, dof))
    order = np.argsort(xs)
    return ExponentEstimate(a, a - q * se, a + q * se, level, int(xs.size), float(xs[order[0]]),
                            float(xs[order[-1]]), float(ys[order[-1]] / ys[order[0]]))


def exponent_outcome(x: Sequence[float], ratio: Sequence[float], *, margin: float = 0.05,
                     claim: str = "refute", level: float = 0.95, instances: Any = None) -> Any:
    """An outcome for ``ratio = O(1)`` along the sequence ``x`` (ratio = LHS over the O-shape).

    ``claim="refute"``: passes unless the whole exponent interval lies above ``margin``: a printed
    ``O(.)`` fails only when the ratio grows along the sequence beyond doubt.
    ``claim="support"``: passes only if the whole interval lies at or below ``margin``: a
    corrected ``O(.)`` is supported only by a measured exponent that excludes growth.
    The exponent, its interval and the growth go to ``detail["exponent"]``.
    """
    from attention_theory.verify.outcomes import bound_outcome

    if claim not in ("refute", "support"):
        raise ValueError(f"claim must be 'refute' or 'support', got {claim!r}")
    if isinstance(margin, bool) or not (isinstance(margin, (int, float)) and math.isfinite(margin)
                                        and margin > 0):
        raise ValueError(f"margin must be a finite number > 0, got {margin!r}")
    est = power_exponent(x, ratio, level=level)
    side = est.low if claim == "refute" else est.high
    out = bound_outcome([side], [margin], instances=instances)
    detail = dict(out.detail)
    detail["exponent"] = {**est.to_dict(), "margin": margin, "claim": claim}
    return dataclasses.replace(out, detail=detail)
