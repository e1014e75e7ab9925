"""Outcomes: what a statement did on its instances, without side effects.

* :func:`bound_outcome`    ``lhs <= rhs`` on every instance; the tightness is the worst ratio
  ``lhs / rhs`` (1.0 means the bound is attained);
* :func:`identity_outcome` ``|computed - reference| <= atol + rtol |reference|``; the tightness is
  the worst error divided by its tolerance;
* :func:`interval_outcome` ``low <= value <= high`` (scaling exponents, statistical agreement).

Two rules keep an outcome from passing by accident:

* **finite inputs**: a NaN or an infinity anywhere in ``lhs``, ``rhs``, ``computed``,
  ``reference`` or an interval's ``value`` fails the outcome, and ``detail["non_finite"]`` says
  which side and which instance (a check whose bound is vacuous on some instances, e.g.
  ``rhs = inf``, filters those instances itself and says so);
* **bounded tolerances**: ``rtol`` and ``atol`` must be finite, non-negative and at most
  :data:`MAX_RTOL` / :data:`MAX_ATOL` (``ValueError`` naming the argument otherwise).  A looser
  tolerance is accepted only with ``tolerance_reason="..."`` (a sentence saying why the compared
  numbers are not exact: a solver's accuracy, a grid, a float32 run, Monte-Carlo error), which
  is recorded in the outcome's ``detail``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import math
from typing import Any, Iterator

import numpy as np

__all__ = ["ClaimViolation", "Outcome", "current_check", "running_check", "instances_fingerprint", "MAX_RTOL",
           "MAX_ATOL", "MIN_REASON_CHARS", "check_tolerances",
           "bound_outcome", "identity_outcome", "interval_outcome"]

#: Largest relative tolerance a check may use without giving a reason.  Verification runs in
#: float64 (unit round-off 1.1e-16); the computations the book compares (closed forms, autograd,
#: linear solves, well-conditioned eigenvalue and quadrature routines) agree to about 1e-9
#: relative, and 1e-6 still covers an iterative routine run to its default accuracy.  Anything
#: looser means the two sides are not the same number up to round-off (a discretization, a
#: solver stopped early, a float32 run, Monte-Carlo error) and must say so (``tolerance_reason``).
MAX_RTOL = 1e-6

#: Largest absolute tolerance a check may use without giving a reason: the compared quantities
#: are of order one (probabilities, normalized norms, losses), where float64 round-off stays
#: below 1e-12; 1e-9 leaves three orders of headroom for accumulated sums.  A quantity whose
#: error is larger than that is not checked to round-off and needs a ``tolerance_reason``.
MAX_ATOL = 1e-9

#: Shortest accepted ``tolerance_reason``: a sentence, not a word.
MIN_REASON_CHARS = 20


class ClaimViolation(AssertionError):
    """Raised when a statement fails on some instance (or an erratum is not confirmed).

    ``claim_id`` and ``check`` name the registered check that raised it (by default the check
    running when it was raised, :func:`current_check`); a negative control requires them to be
    the pair it names (:func:`attention_theory.verify.negative_control`), so a control cannot
    pass because a companion check failed first.
    """

    def __init__(self, message: str, *, claim_id: str | None = None, check: str | None = None) -> None:
        super().__init__(message)
        running = current_check()
        self.claim_id = claim_id if claim_id is not None else (running[0] if running else None)
        self.check = check if check is not None else (running[1] if running else None)


_current_check: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "attn_current_check", default=None)


def current_check() -> tuple[str, str] | None:
    """The ``(claim_id, check)`` of the innermost registered check now running, else ``None``."""
    return _current_check.get()


@contextlib.contextmanager
def running_check(claim_id: str, check: str) -> Iterator[None]:
    """Mark ``(claim_id, check)`` as the running check inside the block (used by
    :func:`~attention_theory.verify.claim_check`; records and violations are attributed to it)."""
    for value, label in ((claim_id, "claim_id"), (check, "check")):
        if not isinstance(value, str):
            raise TypeError(f"{label} must be a string, got {type(value).__name__}")
    token = _current_check.set((claim_id, check))
    try:
        yield
    finally:
        _current_check.reset(token)


def instances_fingerprint(instances: Any) -> str:
    """A short SHA-256 of the instances an outcome was evaluated on (arrays, tensors, numbers,
    strings, and lists/tuples/dicts of them), so that two outcomes can be shown to have run on
    the same instances (:func:`~attention_theory.verify.confirm_erratum`)."""
    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, dict):
            h.update(b"{")
            for k in sorted(x, key=str):
                feed(str(k))
                feed(x[k])
            h.update(b"}")
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            for v in x:
                feed(v)
            h.update(b"]")
        elif isinstance(x, (str, bytes)):
            h.update(b"s" + (x.encode() if isinstance(x, str) else x))
        elif x is None or isinstance(x, (bool, int, float)):
            h.update(repr(x).encode())
        else:
            if hasattr(x, "detach"):  # torch tensor, without importing torch here
                x = x.detach().cpu().numpy()
            try:
                arr = np.ascontiguousarray(np.asarray(x))
            except Exception as exc:  # noqa: BLE001 - say what could not be fingerprinted
                raise TypeError(f"instances: cannot fingerprint a {type(x).__name__}: {exc}") from None
            if arr.dtype == object:
                raise TypeError(f"instances: cannot fingerprint an object array of {type(x).__name__}")
            h.update(f"{arr.dtype.str}{arr.shape}".encode())
            h.update(arr.tobytes())

    feed(instances)
    return h.hexdigest()[:16]


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
        if self.detail.get("non_finite"):
            return f"{verdict} on {self.n_instances} instance(s): {self.detail['non_finite']}"
        if self.kind == "bound" and "exponent" in self.detail:
            e = self.detail["exponent"]
            return (f"{verdict}: the ratio's exponent along the sequence "
                    f"{e['x_first']:.3g} .. {e['x_last']:.3g} "
                    f"is {e['exponent']:.3g}, {e['level']:.0%} interval [{e['low']:.3g}, {e['high']:.3g}] "
                    f"(margin {e['margin']:.3g}; growth over the sequence x{e['growth']:.3g})")
        # a failing outcome says how many instances fail, not only how many ran
        where = (f"{self.detail['n_violations']} of {self.n_instances}"
                 if not self.passed and "n_violations" in self.detail else f"{self.n_instances}")
        if self.kind == "bound" and self.worst == -math.inf:  # see bound_outcome: no ratio exists
            return (f"{verdict} on {where} instance(s); no LHS/RHS ratio: every right-hand side is <= 0 "
                    f"and no left-hand side exceeds atol")
        if self.kind == "bound":
            return f"{verdict} on {where} instance(s); worst LHS/RHS = {self.worst:.6g}"
        if self.kind in ("identity", "implementation"):  # an implementation check is an identity
            return f"{verdict} on {where} instance(s); max |error| = {self.detail['max_abs_error']:.3g}"
        if "value_interval" in self.detail:
            a, b = self.detail["value_interval"]
            return (f"{verdict}: value {self.detail['value']:.6g}, interval [{a:.6g}, {b:.6g}], "
                    f"within [{self.detail['low']:.6g}, {self.detail['high']:.6g}]")
        return (f"{verdict}: value {self.detail['value']:.6g} "
                f"in [{self.detail['low']:.6g}, {self.detail['high']:.6g}]")


def _instance_axes(x: Any) -> tuple[int, ...]:
    """The shape of ``x`` without its axes of length 1: (n, 1), (1, n) and (n,) are the same n
    instances, while (3, 4) against (4, 3) or (12,) would pair instances in a wrong order."""
    return tuple(int(d) for d in np.shape(x) if d != 1)


def _same_shape(a: Any, b: Any, na: str, nb: str) -> None:
    if _instance_axes(a) != _instance_axes(b):
        raise ValueError(f"{na} and {nb} must hold the same instances in the same layout, got "
                         f"shapes {tuple(np.shape(a))} and {tuple(np.shape(b))}")


def _as_float_array(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric: {exc}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one instance")
    return arr


def _tolerance(value: Any, name: str, maximum: float, reason: str | None) -> float:
    if value is None or isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}: an infinite or NaN tolerance passes anything")
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {v!r}")
    if v > maximum and reason is None:
        raise ValueError(f"{name} = {v:g} is above the maximum {maximum:g} (MAX_{name.upper()}); pass "
                         "tolerance_reason='...' saying why the compared numbers are not exact "
                         "(solver accuracy, discretization, float32 run, Monte-Carlo error)")
    return v


def check_tolerances(*, rtol: Any = 0.0, atol: Any = 0.0, tolerance_reason: str | None = None
                     ) -> dict[str, Any]:
    """Validate the tolerances of an outcome and return what its ``detail`` records.

    ``rtol`` and ``atol`` must be finite, ``>= 0`` and at most :data:`MAX_RTOL` /
    :data:`MAX_ATOL`, unless ``tolerance_reason`` (at least :data:`MIN_REASON_CHARS` characters)
    says why the check needs more.  Raises ``ValueError`` (``TypeError`` for a non-number) naming
    the bad argument.  Returns ``{"rtol": ..., "atol": ...}`` plus ``"tolerance_reason"`` when one
    was given.
    """
    if tolerance_reason is not None:
        if not isinstance(tolerance_reason, str) or len(tolerance_reason.strip()) < MIN_REASON_CHARS:
            raise ValueError(f"tolerance_reason must be a sentence of at least {MIN_REASON_CHARS} "
                             f"characters saying why the tolerance is needed, got {tolerance_reason!r}")
        tolerance_reason = " ".join(tolerance_reason.split())
    out: dict[str, Any] = {"rtol": _tolerance(rtol, "rtol", MAX_RTOL, tolerance_reason),
                           "atol": _tolerance(atol, "atol", MAX_ATOL, tolerance_reason)}
    if tolerance_reason is not None:
        out["tolerance_reason"] = tolerance_reason
    return out


def _fingerprint_detail(instances: Any) -> dict[str, str]:
    return {} if instances is None else {"instances": instances_fingerprint(instances)}


def _non_finite(sides: list[tuple[str, np.ndarray]]) -> str | None:
    """``"<side> is not finite at instance i (value); ..."`` for every side holding NaN or inf."""
    msgs = []
    for name, arr in sides:
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = np.flatnonzero(bad)
            msgs.append(f"{name} is not finite at instance {int(idx[0])} (value {float(arr[idx[0]])!r}; "
                        f"{idx.size} non-finite instance(s) of {arr.size})")
    return "; ".join(msgs) if msgs else None


def bound_outcome(lhs: Any, rhs: Any, *, rtol: float = 1e-9, atol: float = 0.0,
                  tolerance_reason: str | None = None, instances: Any = None) -> Outcome:
    """Compare ``lhs <= rhs * (1 + rtol) + atol`` elementwise.

    ``rhs`` is one bound for every instance (a single number) or one per instance, in the layout
    of ``lhs`` up to axes of length 1 (a transposed or flattened grid is rejected).

    A NaN or an infinity on either side fails the outcome (``detail["non_finite"]`` names the
    side and the first such instance): a check that silently produced NaN, or a vacuous
    ``rhs = inf``, must not pass.  Instances with ``rhs <= 0`` contribute ``+inf`` to the
    worst ratio when ``lhs > atol`` (an impossible bound) and are otherwise skipped in the
    ratio (a zero right-hand side met up to the stated absolute tolerance, e.g. float rounding
    of an exact zero, has no ratio to report).
    Tolerances are validated by :func:`check_tolerances`.
    """
    tol = check_tolerances(rtol=rtol, atol=atol, tolerance_reason=tolerance_reason)
    rtol, atol = tol["rtol"], tol["atol"]
    lhs_a, rhs_a = _as_float_array(lhs, "lhs"), _as_float_array(rhs, "rhs")
    if rhs_a.size == 1 and lhs_a.size > 1:  # one bound for every instance
        rhs_a = np.full_like(lhs_a, rhs_a[0])
    else:
        _same_shape(lhs, rhs, "lhs", "rhs")
    non_finite = _non_finite([("lhs", lhs_a), ("rhs", rhs_a)])
    with np.errstate(invalid="ignore", over="ignore"):
        slack = rhs_a * (1 + rtol) + atol - lhs_a
    bad = ~np.isfinite(lhs_a) | ~np.isfinite(rhs_a) | np.isnan(slack) | (slack < 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(rhs_a > 0, lhs_a / rhs_a, np.where(lhs_a > atol, np.inf, -np.inf))
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
            **tol,
            **({"non_finite": non_finite} if non_finite else {}),
            **_fingerprint_detail(instances),
        },
    )


def identity_outcome(computed: Any, reference: Any, *, atol: float = 1e-12,
                     rtol: float = 0.0, tolerance_reason: str | None = None,
                     instances: Any = None) -> Outcome:
    """Compare ``computed == reference`` up to ``atol + rtol * |reference|``.

    Both sides hold the same instances in the same layout, up to axes of length 1.

    A NaN or an infinity on either side fails the outcome (``detail["non_finite"]`` names the
    side and the first such instance); tolerances are validated by :func:`check_tolerances`.
    """
    tols = check_tolerances(rtol=rtol, atol=atol, tolerance_reason=tolerance_reason)
    rtol, atol = tols["rtol"], tols["atol"]
    c, r = _as_float_array(computed, "computed"), _as_float_array(reference, "reference")
    _same_shape(computed, reference, "computed", "reference")
    non_finite = _non_finite([("computed", c), ("reference", r)])
    with np.errstate(invalid="ignore"):  # inf - inf and 0 * inf: failed as non-finite above
        err = np.abs(c - r)
        tol = atol + rtol * np.abs(r)
    bad = ~np.isfinite(c) | ~np.isfinite(r) | ~(err <= tol)  # NaN-safe: NaN error is a violation
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
            **tols,
            **({"non_finite": non_finite} if non_finite else {}),
            **_fingerprint_detail(instances),
        },
    )


def interval_outcome(value: float, low: float, high: float, *, instances: Any = None,
                     value_interval: tuple[float, float] | None = None) -> Outcome:
    """Check ``low <= value <= high`` for a single derived number (e.g. a slope).

    ``low`` and ``high`` must be finite with ``low <= high`` (``ValueError`` naming them); a NaN
    or infinite ``value`` fails the outcome (``detail["non_finite"]``).  ``value_interval``: a
    confidence interval ``(a, b)`` of an estimated ``value``; then the whole interval must lie in
    ``[low, high]`` (an equivalence test: a noisy estimate whose interval reaches outside fails),
    and the worst position is that of the endpoint farthest out.
    """
    bounds = {}
    for name, b in (("low", low), ("high", high)):
        try:
            bounds[name] = float(b)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number, got {type(b).__name__}") from None
        if not math.isfinite(bounds[name]):
            raise ValueError(f"{name} must be finite, got {bounds[name]!r}")
    low, high = bounds["low"], bounds["high"]
    if not (low <= high):
        raise ValueError(f"low must be <= high, got low={low}, high={high}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"value must be a number, got {type(value).__name__}") from None
    detail: dict[str, Any] = {"value": v, "low": low, "high": high, **_fingerprint_detail(instances)}
    if not math.isfinite(v):
        detail["non_finite"] = f"value is not finite at instance 0 (value {v!r})"
        return Outcome("interval", False, 1, math.inf, 0, detail)
    points = [v]
    if value_interval is not None:
        try:
            a, b = (float(x) for x in value_interval)
        except (TypeError, ValueError):
            raise TypeError(f"value_interval must be a pair of numbers, got {value_interval!r}") from None
        if not (a <= v <= b):
            raise ValueError(f"value_interval must contain value {v}, got {value_interval!r}")
        detail["value_interval"] = [a, b]
        if not (math.isfinite(a) and math.isfinite(b)):
            detail["non_finite"] = f"value_interval is not finite ({a!r}, {b!r})"
            return Outcome("interval", False, 1, math.inf, 0, detail)
        points = [a, v, b]
    ok = bool(all(low <= p <= high for p in points))
    width = high - low
    worst = 0.0
    for p in points:
        pos = (p - low) / width if width > 0 else (0.0 if low <= p <= high else math.inf)
        worst = max(worst, max(pos, 1 - pos) if math.isfinite(pos) else math.inf)
    return Outcome("interval", ok, 1, float(worst), 0, detail)
