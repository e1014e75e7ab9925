"""Registered checks: the decorator, the assertions that end a check, errata and reasons.

A *check* is a package function decorated with :func:`claim_check`; it evaluates one statement
on concrete instances and ends in :func:`check_bound`, :func:`check_identity`,
:func:`check_interval`, :func:`confirm_erratum` or :func:`not_checkable`, which either write a
record (:mod:`attention_theory.verify.registry`) or raise :class:`ClaimViolation`.
"""

from __future__ import annotations

import contextvars
import dataclasses
import datetime as _dt
import functools
import re
from typing import Any, Callable

from attention_theory._validate import check_int
from attention_theory.config import scale
from attention_theory.papers import check_modules, claim_id_pattern
from attention_theory.provenance import default_device, git_commit, package_version
from attention_theory.verify.outcomes import (
    ClaimViolation,
    Outcome,
    bound_outcome,
    identity_outcome,
    interval_outcome,
)
from attention_theory.verify.registry import CheckRecord, evaluate_only, write_record

__all__ = ["CLAIM_ID_PATTERN", "claim_check", "registered_checks", "check_bound", "check_identity",
           "check_interval", "confirm_erratum", "not_checkable", "evaluate"]

#: Claim IDs are ``<paper>-<kind>-<number>`` with dots written as hyphens (papers from
#: :data:`attention_theory.papers.PAPERS`).
CLAIM_ID_PATTERN = claim_id_pattern()



_CHECKS: dict[tuple[str, str], Callable[..., Any]] = {}
_current_check: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "_current_check", default=None)


def claim_check(claim_id: str, check: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a check function for ``claim_id`` under the short name ``check``.

    The decorated function must end in one of :func:`check_bound`,
    :func:`check_identity`, :func:`check_interval`, :func:`confirm_erratum` (or
    return a list of their records); calls inside it default to this claim ID and
    check name.  ``tests/<paper>/test_negative_controls*.py`` must contain a negative
    control for every registered pair; ``tests/core/test_contract.py`` enforces that.
    """
    if not CLAIM_ID_PATTERN.match(claim_id):
        raise ValueError(f"claim_id {claim_id!r} does not match {CLAIM_ID_PATTERN.pattern}")
    if not re.match(r"^[a-z0-9][a-z0-9-]*$", check):
        raise ValueError(f"check name {check!r} must be lower-case words joined by hyphens")

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        key = (claim_id, check)
        if key in _CHECKS and _CHECKS[key].__qualname__ != fn.__qualname__:
            raise ValueError(f"check {key} registered twice")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            import torch

            from attention_theory.foundations.tensors import default_dtype

            token = _current_check.set(key)
            try:
                # verification is float64; the caller's default dtype is restored afterwards
                with default_dtype(torch.float64):
                    return fn(*args, **kwargs)
            finally:
                _current_check.reset(token)

        wrapper.claim_id = claim_id  # type: ignore[attr-defined]
        wrapper.check_name = check  # type: ignore[attr-defined]
        _CHECKS[key] = wrapper
        return wrapper

    return deco


def registered_checks() -> dict[tuple[str, str], Callable[..., Any]]:
    """All registered (claim ID, check name) pairs with their functions."""
    check_modules()  # importing every check module registers its checks

    return dict(_CHECKS)


def _resolve_ids(claim_id: str | None, check: str | None) -> tuple[str, str]:
    cur = _current_check.get()
    cid = claim_id or (cur[0] if cur else None)
    name = check or (cur[1] if cur else None)
    if cid is None or name is None:
        raise ValueError("claim_id and check must be given outside a @claim_check function")
    if not CLAIM_ID_PATTERN.match(cid):
        raise ValueError(f"claim_id {cid!r} does not match {CLAIM_ID_PATTERN.pattern}")
    return cid, name


def _make_record(claim_id: str, check: str, description: str, status: str,
                 outcome: Outcome | None, params: dict[str, Any] | None, seed: int | None,
                 device: str | None, detail: dict[str, Any]) -> CheckRecord:

    return CheckRecord(
        claim_id=claim_id,
        check=check,
        description=description,
        status=status,
        kind=outcome.kind if outcome is not None else ("erratum" if status == "erratum" else "reason"),
        n_instances=outcome.n_instances if outcome is not None else int(detail.get("n_instances", 0)),
        worst=outcome.worst if outcome is not None else None,
        params=dict(params or {}),
        seed=seed,
        package_version=package_version(),
        commit=git_commit(),
        device=device or default_device(),
        date=_dt.date.today().isoformat(),
        scale=scale(),
        detail=detail,
    )


def _finish(outcome: Outcome, description: str, claim_id: str | None, check: str | None,
            params: dict[str, Any] | None, seed: int | None, device: str | None,
            extra: dict[str, Any] | None) -> CheckRecord:
    cid, name = _resolve_ids(claim_id, check)
    if not description or not isinstance(description, str):
        raise ValueError("description must be a non-empty string saying what was checked")
    if not outcome.passed:
        raise ClaimViolation(f"{cid} / {name}: {description}: {outcome.summary()} "
                             f"(detail: {outcome.detail})")
    detail = dict(outcome.detail)
    detail.update(extra or {})
    rec = _make_record(cid, name, description, "verified", outcome, params, seed, device, detail)
    write_record(rec)
    return rec


def check_bound(lhs: Any, rhs: Any, description: str, *, rtol: float = 1e-9, atol: float = 0.0,
                tolerance_reason: str | None = None,
                claim_id: str | None = None, check: str | None = None,
                params: dict[str, Any] | None = None, seed: int | None = None,
                device: str | None = None, extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``lhs <= rhs * (1 + rtol) + atol`` on every instance, record the worst ratio,
    raise :class:`ClaimViolation` otherwise.

    A NaN or an infinity on either side raises :class:`ClaimViolation` naming the side and the
    instance.  ``rtol``/``atol`` above :data:`~attention_theory.verify.outcomes.MAX_RTOL` /
    :data:`~attention_theory.verify.outcomes.MAX_ATOL` need ``tolerance_reason`` (recorded in
    the record's ``detail``); a negative, infinite or NaN tolerance raises ``ValueError``.
    Nothing is written unless the bound holds.
    """
    return _finish(bound_outcome(lhs, rhs, rtol=rtol, atol=atol, tolerance_reason=tolerance_reason),
                   description, claim_id, check, params, seed, device, extra)


def check_identity(computed: Any, reference: Any, description: str, *, atol: float = 1e-12,
                   rtol: float = 0.0, tolerance_reason: str | None = None,
                   claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``|computed - reference| <= atol + rtol |reference|`` on every instance, raise
    :class:`ClaimViolation` otherwise (also for a NaN or an infinity on either side).

    Tolerances follow the rules of :func:`check_bound` (``tolerance_reason`` above the maxima).
    """
    return _finish(identity_outcome(computed, reference, atol=atol, rtol=rtol,
                                    tolerance_reason=tolerance_reason),
                   description, claim_id, check, params, seed, device, extra)


def check_interval(value: float, low: float, high: float, description: str, *,
                   claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, n_instances: int | None = None,
                   extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``low <= value <= high`` (a fitted slope, a test statistic...).

    ``low`` and ``high`` must be finite (``ValueError``); a NaN or infinite ``value`` raises
    :class:`ClaimViolation`."""
    out = interval_outcome(value, low, high)
    if n_instances is not None:
        out = dataclasses.replace(out, n_instances=check_int(n_instances, "n_instances"))
    return _finish(out, description, claim_id, check, params, seed, device, extra)


def confirm_erratum(printed: Outcome, corrected: Outcome, *, description: str, printed_text: str,
                    corrected_text: str, source: str, claim_id: str | None = None,
                    check: str | None = None, params: dict[str, Any] | None = None,
                    seed: int | None = None, device: str | None = None,
                    severity: str = "T") -> CheckRecord:
    """Record a confirmed erratum: the printed version must fail and the corrected pass.

    Raises :class:`ClaimViolation` if the printed version passes (then the
    suspected erratum is *refuted*, and the chapter must say so) or if the
    corrected version fails (then the correction is wrong).
    """
    cid, name = _resolve_ids(claim_id, check)
    if severity not in {"E", "G", "C", "T"}:
        raise ValueError(f"severity must be one of E, G, C, T, got {severity!r}")
    if printed.passed:
        raise ClaimViolation(f"{cid} / {name}: erratum NOT confirmed, the printed version "
                             f"passes: {printed.summary()}")
    if not corrected.passed:
        raise ClaimViolation(f"{cid} / {name}: the corrected version fails too: "
                             f"{corrected.summary()}")
    detail = {
        "source": source,
        "severity": severity,
        "printed": {"text": printed_text, "summary": printed.summary(), "worst": printed.worst,
                    "n_instances": printed.n_instances, "detail": printed.detail},
        "corrected": {"text": corrected_text, "summary": corrected.summary(),
                      "worst": corrected.worst, "n_instances": corrected.n_instances,
                      "detail": corrected.detail},
    }
    out = dataclasses.replace(corrected, n_instances=printed.n_instances + corrected.n_instances)
    rec = _make_record(cid, name, description, "erratum", out, params, seed, device, detail)
    rec.kind = "erratum"
    write_record(rec)
    return rec


def not_checkable(claim_id: str, reason: str, *, check: str = "reason",
                  description: str | None = None) -> CheckRecord:
    """Record that a statement cannot be checked numerically, and why."""
    cid, name = _resolve_ids(claim_id, check)
    if not reason or len(reason.strip()) < 20:
        raise ValueError("reason must explain (in a sentence) why no numerical check is possible")
    rec = _make_record(cid, name, description or "not numerically checkable", "not-checkable",
                       None, None, None, None, {"reason": reason.strip()})
    write_record(rec)
    return rec


def evaluate(check: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, str]:
    """``(holds, one-line summary)`` of a check function on the given data, recording nothing."""
    with evaluate_only():
        try:
            rec = check(*args, **kwargs)
        except ClaimViolation as exc:
            return False, str(exc).split(" (detail:")[0]
    recs = rec if isinstance(rec, list) else [rec]
    return True, "; ".join(f"{r.description}: worst ratio {r.worst}" for r in recs)
