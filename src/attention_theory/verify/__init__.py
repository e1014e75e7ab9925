"""The verification contract: checks, records, errata and the claim registry.

A *check* evaluates one statement of a paper on concrete instances and either
passes (returning a :class:`CheckRecord`) or raises :class:`ClaimViolation`, so a
chapter whose statement stops holding fails under nbval.  Every record is also
written to the *registry*, a folder of JSON files that the book build gathers
into the "Verified claims" page and ``claims.json``.

Three kinds of outcome are compared against what a statement says:

* :func:`bound_outcome`    ``lhs <= rhs`` on every instance; the tightness is the
  worst ratio ``lhs / rhs`` (1.0 means the bound is attained);
* :func:`identity_outcome` ``|computed - reference| <= atol + rtol |reference|``;
  the tightness is the worst error divided by its tolerance;
* :func:`interval_outcome` ``low <= value <= high`` (scaling exponents,
  statistical agreement).

Checks themselves are package functions decorated with :func:`claim_check`; a
chapter calls them with the paper's constants and ``tests/`` calls them with a
deliberately wrong constant or formula, which must raise (the negative control).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime as _dt
import functools
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from attention_theory._validate import check_int
from attention_theory.papers import check_modules, claim_id_pattern
from attention_theory.provenance import default_device, git_commit, jsonable, package_version

__all__ = [
    "ClaimViolation",
    "Outcome",
    "CheckRecord",
    "bound_outcome",
    "identity_outcome",
    "interval_outcome",
    "check_bound",
    "check_identity",
    "check_interval",
    "confirm_erratum",
    "not_checkable",
    "evaluate",
    "evaluate_only",
    "claim_check",
    "registered_checks",
    "registry_dir",
    "load_registry",
    "summarize_registry",
    "CLAIM_ID_PATTERN",
]

#: Claim IDs are ``<paper>-<kind>-<number>`` with dots written as hyphens (papers from
#: :data:`attention_theory.papers.PAPERS`).
CLAIM_ID_PATTERN = claim_id_pattern()

STATUSES = ("verified", "erratum", "not-checkable")


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


# ---------------------------------------------------------------------------
# Records and the registry.
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class CheckRecord:
    """What a reader cites: one check of one claim, with its provenance."""

    claim_id: str
    check: str
    description: str
    status: str
    kind: str
    n_instances: int
    worst: float | None
    params: dict[str, Any]
    seed: int | None
    package_version: str
    commit: str
    device: str
    date: str
    scale: str
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return jsonable(dataclasses.asdict(self))

    def __str__(self) -> str:
        mark = {"verified": "verified", "erratum": "erratum confirmed",
                "not-checkable": "not numerically checkable"}[self.status]
        head = f"[{mark}] {self.claim_id} / {self.check}: {self.description}"
        if self.status == "not-checkable":
            return f"{head}\n  reason: {self.detail.get('reason', '')}"
        if self.status == "erratum":
            p, c = self.detail["printed"], self.detail["corrected"]
            return (f"{head}\n  printed:   {p['text']} -> {p['summary']}"
                    f"\n  corrected: {c['text']} -> {c['summary']}")
        tight = "" if self.worst is None else f"; tightness (worst ratio) = {self.worst:.6g}"
        return f"{head}\n  {self.n_instances} instance(s){tight}"

    __repr__ = __str__


def registry_dir() -> Path | None:
    """Where records are written: ``$ATTN_REGISTRY_DIR``, else ``_build/registry``.

    The book build sets the variable; outside a build the folder is found by
    walking up to the repository root (the folder holding ``_toc.yml``).  An
    empty ``ATTN_REGISTRY_DIR`` disables writing.
    """
    env = os.environ.get("ATTN_REGISTRY_DIR")
    if env is not None:
        return Path(env) if env else None
    for parent in [Path.cwd(), *Path.cwd().parents]:
        if (parent / "_toc.yml").exists():
            return parent / "_build" / "registry"
    return Path(tempfile.gettempdir()) / "attention_theory_registry"


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


_recording: contextvars.ContextVar[bool] = contextvars.ContextVar("attn_recording", default=True)


@contextlib.contextmanager
def evaluate_only() -> Iterator[None]:
    """Run checks without writing registry records: for reporting a registered statement on
    other data (e.g. committed full-scale results) next to the record of its live check."""
    token = _recording.set(False)
    try:
        yield
    finally:
        _recording.reset(token)


def evaluate(check: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, str]:
    """``(holds, one-line summary)`` of a check function on the given data, recording nothing."""
    with evaluate_only():
        try:
            rec = check(*args, **kwargs)
        except ClaimViolation as exc:
            return False, str(exc).split(" (detail:")[0]
    recs = rec if isinstance(rec, list) else [rec]
    return True, "; ".join(f"{r.description}: worst ratio {r.worst}" for r in recs)


def _write_record(rec: CheckRecord) -> None:
    if not _recording.get():
        return
    folder = registry_dir()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{_safe_name(rec.claim_id)}__{_safe_name(rec.check)}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(rec.to_json(), fh, indent=1, sort_keys=True)
    os.replace(tmp, target)  # atomic: a reader never sees a half-written record


def load_registry(folder: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """All records in ``folder`` (default :func:`registry_dir`), sorted by claim and check."""
    path = Path(folder) if folder is not None else registry_dir()
    if path is None or not path.exists():
        return []
    recs = []
    for f in sorted(path.glob("*.json")):
        if f.name.startswith(".tmp-"):
            continue
        with open(f) as fh:
            recs.append(json.load(fh))
    return sorted(recs, key=lambda r: (r["claim_id"], r["check"]))


def summarize_registry(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One row per claim ID: status, number of checks, instances, worst bound ratio.

    A claim with a confirmed erratum is reported as ``erratum`` even when other
    checks of it pass (the printed statement needed a correction); a claim with
    only ``not-checkable`` records is ``not-checkable``; a claim with passing checks
    *and* a recorded reason why some part of it could not be checked is ``partial``
    (verified in part), so a reader never mistakes it for fully verified.
    """
    rows: dict[str, dict[str, Any]] = {}
    for r in records:
        row = rows.setdefault(r["claim_id"], {
            "claim_id": r["claim_id"], "statuses": set(), "checks": [],
            "instances": 0, "worst_bound_ratio": None, "reasons": [], "worst_by_check": {},
            "commit": r["commit"], "date": r["date"], "package_version": r["package_version"],
        })
        row["statuses"].add(r["status"])
        row["checks"].append(r["check"])
        row["instances"] += int(r.get("n_instances") or 0)
        if r["status"] == "not-checkable":
            row["reasons"].append(r["detail"].get("reason", ""))
        if r["kind"] == "bound" and r["status"] == "verified" and r["worst"] is not None:
            w = float(r["worst"])
            row["worst_by_check"][r["check"]] = w
            prev = row["worst_bound_ratio"]
            row["worst_bound_ratio"] = w if prev is None else max(prev, w)
        row["date"] = max(row["date"], r["date"])
    for row in rows.values():
        st = row.pop("statuses")
        row["status"] = ("erratum" if "erratum" in st else
                         "partial" if {"verified", "not-checkable"} <= st else
                         "verified" if "verified" in st else "not-checkable")
    return dict(sorted(rows.items()))


# ---------------------------------------------------------------------------
# Registered check functions (each needs a negative control in tests/).
# ---------------------------------------------------------------------------

_CHECKS: dict[tuple[str, str], Callable[..., Any]] = {}
_current_check: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "_current_check", default=None)


def claim_check(claim_id: str, check: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a check function for ``claim_id`` under the short name ``check``.

    The decorated function must end in one of :func:`check_bound`,
    :func:`check_identity`, :func:`check_interval`, :func:`confirm_erratum` (or
    return a list of their records); calls inside it default to this claim ID and
    check name.  ``tests/test_negative_controls*.py`` must contain a negative
    control for every registered pair; ``tests/test_contract.py`` enforces that.
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
    from attention_theory.config import scale

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
    _write_record(rec)
    return rec


def check_bound(lhs: Any, rhs: Any, description: str, *, rtol: float = 1e-9, atol: float = 0.0,
                claim_id: str | None = None, check: str | None = None,
                params: dict[str, Any] | None = None, seed: int | None = None,
                device: str | None = None, extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``lhs <= rhs`` on every instance, record the worst ratio, raise otherwise."""
    return _finish(bound_outcome(lhs, rhs, rtol=rtol, atol=atol), description, claim_id, check,
                   params, seed, device, extra)


def check_identity(computed: Any, reference: Any, description: str, *, atol: float = 1e-12,
                   rtol: float = 0.0, claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``computed == reference`` to tolerance, raise otherwise."""
    return _finish(identity_outcome(computed, reference, atol=atol, rtol=rtol), description,
                   claim_id, check, params, seed, device, extra)


def check_interval(value: float, low: float, high: float, description: str, *,
                   claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, n_instances: int | None = None,
                   extra: dict[str, Any] | None = None) -> CheckRecord:
    """Assert ``low <= value <= high`` (a fitted slope, a test statistic...)."""
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
    _write_record(rec)
    return rec


def not_checkable(claim_id: str, reason: str, *, check: str = "reason",
                  description: str | None = None) -> CheckRecord:
    """Record that a statement cannot be checked numerically, and why."""
    cid, name = _resolve_ids(claim_id, check)
    if not reason or len(reason.strip()) < 20:
        raise ValueError("reason must explain (in a sentence) why no numerical check is possible")
    rec = _make_record(cid, name, description or "not numerically checkable", "not-checkable",
                       None, None, None, None, {"reason": reason.strip()})
    _write_record(rec)
    return rec
