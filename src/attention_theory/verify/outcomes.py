"""Outcomes: what a statement did on its instances, without side effects.

* :func:`bound_outcome`    ``lhs <= rhs`` on every instance; the tightness is the worst ratio
  ``lhs / rhs`` (1.0 means the bound is attained);
* :func:`identity_outcome` ``|computed - reference| <= atol + rtol |reference|``; the tightness is
  the worst error divided by its tolerance;
* :func:`interval_outcome` ``low <= value <= high`` (scaling exponents, statistical agreement).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["ClaimViolation", "Outcome", "bound_outcome", "identity_outcome", "interval_outcome"]


class ClaimViolation(AssertionError):
    """Raised when a statement fails on some instance (or an erratum is not confirmed)."""


# ---------------------------------------------------------------------------
# Outcomes: what happened on the instances, without side effects.
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of comparing a statement against instances.

    ``worst`` is the tightness figure: the worst LHS/RHS ratio for bounds, the
    worst error relative to its tolerance for identities, and the position of the
    value inside ``[low, high]`` mapped to ``[0, 1]`` for intervals (values
    outside the interval give a number above 1).
    """

    kind: str
    passed: bool
    n_instances: int
    worst: float
    worst_index: int | None
    detail: dict[str, Any]

    def summary(self) -> str:
        verdict = "holds" if self.passed else "FAILS"
        if self.kind == "bound":
            return (f"{verdict} on {self.n_instances} instance(s); "
                    f"worst LHS/RHS = {self.worst:.6g}")
        if self.kind == "identity":
            return (f"{verdict} on {self.n_instances} instance(s); "
                    f"max |error| = {self.detail['max_abs_error']:.3g}")
        return f"{verdict}: value {self.detail['value']:.6g} in [{self.detail['low']:.6g}, {self.detail['high']:.6g}]"


def _same_shape(a: np.ndarray, b: np.ndarray, na: str, nb: str) -> None:
    if a.shape != b.shape:
        raise ValueError(f"{na} and {nb} must have the same shape, got {a.shape} and {b.shape}")


def _as_float_array(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric: {exc}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one instance")
    return arr


def bound_outcome(lhs: Any, rhs: Any, *, rtol: float = 1e-9, atol: float = 0.0) -> Outcome:
    """Compare ``lhs <= rhs`` elementwise.

    A NaN on either side counts as a violation: a check that silently produced
    NaN must not pass.  Instances with ``rhs <= 0`` contribute ``+inf`` to the
    worst ratio when ``lhs > 0`` (an impossible bound) and are otherwise skipped
    in the ratio.
    """
    lhs_a, rhs_a = _as_float_array(lhs, "lhs"), _as_float_array(rhs, "rhs")
    if rhs_a.size == 1 and lhs_a.size > 1:
        rhs_a = np.full_like(lhs_a, rhs_a[0])
    _same_shape(lhs_a, rhs_a, "lhs", "rhs")
    slack = rhs_a * (1 + rtol) + atol - lhs_a
    bad = np.isnan(slack) | (slack < 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(rhs_a > 0, lhs_a / rhs_a, np.where(lhs_a > 0, np.inf, -np.inf))
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    idx = int(np.argmax(ratio))
    worst = float(ratio[idx])
    first_bad = int(np.flatnonzero(bad)[0]) if bad.any() else None
    return Outcome(
        kind="bound",
        passed=not bad.any(),
        n_instances=int(lhs_a.size),
        worst=worst,
        worst_index=idx,
        detail={
            "n_violations": int(bad.sum()),
            "first_violation": first_bad,
            "lhs_at_worst": float(lhs_a[idx]),
            "rhs_at_worst": float(rhs_a[idx]),
            "rtol": rtol,
            "atol": atol,
        },
    )


def identity_outcome(computed: Any, reference: Any, *, atol: float = 1e-12,
                     rtol: float = 0.0) -> Outcome:
    """Compare ``computed == reference`` up to ``atol + rtol * |reference|``."""
    c, r = _as_float_array(computed, "computed"), _as_float_array(reference, "reference")
    _same_shape(c, r, "computed", "reference")
    err = np.abs(c - r)
    tol = atol + rtol * np.abs(r)
    bad = ~(err <= tol)  # NaN-safe: NaN error is a violation
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(tol > 0, err / tol, np.where(err > 0, np.inf, 0.0))
    rel = np.where(np.isnan(rel), np.inf, rel)
    idx = int(np.argmax(rel))
    return Outcome(
        kind="identity",
        passed=not bad.any(),
        n_instances=int(c.size),
        worst=float(rel[idx]),
        worst_index=idx,
        detail={
            "max_abs_error": float(np.nanmax(err)) if np.isfinite(err).any() else float("inf"),
            "n_violations": int(bad.sum()),
            "atol": atol,
            "rtol": rtol,
        },
    )


def interval_outcome(value: float, low: float, high: float) -> Outcome:
    """Check ``low <= value <= high`` for a single derived number (e.g. a slope)."""
    if not (low <= high):
        raise ValueError(f"low must be <= high, got low={low}, high={high}")
    v = float(value)
    ok = bool(low <= v <= high)
    width = high - low
    pos = (v - low) / width if width > 0 else (0.0 if ok else math.inf)
    worst = max(pos, 1 - pos) if math.isfinite(pos) else math.inf
    return Outcome("interval", ok, 1, float(worst), 0,
                   {"value": v, "low": float(low), "high": float(high)})
