"""Registered checks: the decorator, the assertions that end a check, errata and reasons.

A *check* is a package function decorated with :func:`claim_check`; it evaluates one statement
on concrete instances and ends in :func:`check_bound`, :func:`check_identity`,
:func:`check_interval`, :func:`confirm_erratum` or :func:`not_checkable`, which either write a
record (:mod:`attention_theory.verify.registry`) or raise :class:`ClaimViolation`.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime as _dt
import functools
import math
import re
from typing import Any, Callable, Iterable, Iterator

from attention_theory.papers import check_modules, claim_id_pattern
from attention_theory.provenance import default_device, git_commit, package_version
from attention_theory.validation import as_vector, check_int, check_positive, check_real
from attention_theory.verify.outcomes import (
    MIN_REASON_CHARS,
    ClaimViolation,
    Outcome,
    bound_outcome,
    current_check,
    identity_outcome,
    interval_outcome,
    running_check,
)
from attention_theory.verify.registry import (
    ERRATUM_KINDS,
    ERRATUM_PLACES,
    ERRATUM_VERSIONS,
    CheckRecord,
    current_source,
    evaluate_only,
    write_record,
)

__all__ = ["CLAIM_ID_PATTERN", "ContractError", "claim_check", "registered_checks", "check_owner",
           "check_bound", "check_identity", "check_interval", "confirm_erratum", "not_checkable",
           "evaluate", "negative_control", "limit_sequence"]

#: Claim IDs are ``<paper>-<kind>-<number>`` with dots written as hyphens (papers from
#: :data:`attention_theory.papers.PAPERS`).
CLAIM_ID_PATTERN = claim_id_pattern()



class ContractError(RuntimeError):
    """A record that no registered (claim, check) pair may write: written outside a registered
    check, or naming a pair that the running check did not declare."""


#: Records written by the registered check now running (its own and its parts').
_written: contextvars.ContextVar[list[CheckRecord] | None] = contextvars.ContextVar(
    "attn_written_records", default=None)

#: Every registered (claim, check) pair -> the function that writes its record.
_CHECKS: dict[tuple[str, str], Callable[..., Any]] = {}
#: Pairs of the parts of a check -> the pair of the check that declares them.
_PARTS: dict[tuple[str, str], tuple[str, str]] = {}


def _pair(part: str | tuple[str, str], claim_id: str) -> tuple[str, str]:
    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a string, got {type(claim_id).__name__}")
    if not isinstance(part, (str, tuple, list)) or (not isinstance(part, str) and len(part) != 2):
        raise TypeError(f"parts must hold check names or (claim_id, check) pairs, got {part!r}")
    cid, name = (claim_id, part) if isinstance(part, str) else tuple(part)
    if not isinstance(cid, str) or not CLAIM_ID_PATTERN.match(cid):
        raise ValueError(f"claim_id {cid!r} does not match {CLAIM_ID_PATTERN.pattern}")
    if not re.match(r"^[a-z0-9][a-z0-9-]*$", name):
        raise ValueError(f"check name {name!r} must be lower-case words joined by hyphens")
    return cid, name


def claim_check(claim_id: str, check: str, *, parts: Iterable[str | tuple[str, str]] = (),
                shares: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a check function for ``claim_id`` under the short name ``check``.

    The decorated function must end in one of :func:`check_bound`,
    :func:`check_identity`, :func:`check_interval`, :func:`confirm_erratum` (or
    return a list of their records); calls inside it write records under this claim ID and
    check name.  A check that writes several records declares the others as ``parts``: check
    names of the same claim, or ``(claim_id, check)`` pairs of another claim; each part is a
    registered pair of its own (it needs its own negative control) and its records are written
    by passing ``check=`` (and ``claim_id=``) to the assertion.  Any other pair is refused
    (:class:`ContractError`).  Every registered pair needs a negative control in ``tests/``
    (:func:`negative_control`); ``tests/core/test_contract.py`` enforces that.

    ``shares``: checks that name the same label compute one expensive cached result (a Monte
    Carlo over training sets, say); the campaign (:mod:`attention_theory.verify.campaign`) runs
    them as one task, in one process, so that it is computed once.
    """
    key = _pair(check, claim_id)
    if shares is not None and (not isinstance(shares, str)
                               or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", shares)):
        raise ValueError(f"shares must be a label of lower-case words joined by hyphens, got {shares!r}")
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise TypeError(f"parts must be an iterable of check names or (claim_id, check) pairs, "
                        f"got {type(parts).__name__}")
    part_keys = tuple(dict.fromkeys(_pair(p, claim_id) for p in parts))

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for k in (key, *part_keys):
            if k in _CHECKS and _CHECKS[k].__qualname__ != fn.__qualname__:
                raise ValueError(f"check {k} registered twice")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            import torch

            from attention_theory.foundations.tensors import default_dtype

            written: list[CheckRecord] = []
            token = _written.set(written)
            try:
                # verification is float64; the caller's default dtype is restored afterwards
                with running_check(*key), default_dtype(torch.float64):
                    result = fn(*args, **kwargs)
            finally:
                _written.reset(token)
                outer = _written.get()
                if outer is not None:  # a check run inside another: its records belong to both
                    outer.extend(written)
            if isinstance(result, CheckRecord):
                # a reader sees every record the call wrote (its parts), not only the returned one
                result.part_records = [r for r in written if r is not result]
            return result

        wrapper.claim_id = claim_id  # type: ignore[attr-defined]
        wrapper.check_name = check  # type: ignore[attr-defined]
        wrapper.parts = part_keys  # type: ignore[attr-defined]
        wrapper.shares = shares  # type: ignore[attr-defined]
        _CHECKS[key] = wrapper
        for k in part_keys:
            _CHECKS[k] = wrapper
            _PARTS[k] = key
        return wrapper

    return deco


def registered_checks() -> dict[tuple[str, str], Callable[..., Any]]:
    """All registered (claim ID, check name) pairs, parts included, with the function that
    writes their records."""
    check_modules()  # importing every check module registers its checks

    return dict(_CHECKS)


def check_owner(claim_id: str, check: str) -> tuple[str, str]:
    """The pair of the registered check that writes the records of ``(claim_id, check)``: the
    pair itself, or for a part the check that declares it."""
    key = (claim_id, check)
    if key not in registered_checks():
        raise KeyError(f"no registered check {claim_id} / {check}")
    return _PARTS.get(key, key)


def _resolve_ids(claim_id: str | None, check: str | None) -> tuple[str, str]:
    """The pair a record is written under: the running check's, or one of its declared parts."""
    cur = current_check()
    if cur is None:
        raise ContractError("records come only from registered checks: call the assertion inside a "
                            "function decorated with @claim_check")
    pair = (claim_id or cur[0], check or cur[1])
    if pair != cur and _PARTS.get(pair) != cur:
        raise ContractError(f"the running check {cur[0]} / {cur[1]} may write records only under its "
                            f"own pair or its declared parts, not {pair[0]} / {pair[1]} (declare it "
                            "with @claim_check(..., parts=...))")
    return pair


def _make_record(claim_id: str, check: str, description: str, status: str,
                 outcome: Outcome | None, params: dict[str, Any] | None, seed: int | None,
                 device: str | None, detail: dict[str, Any]) -> CheckRecord:
    scale, data = current_source()
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
        scale=scale,
        detail=detail,
        data=data,
    )


def _keep(rec: CheckRecord) -> None:
    """Write a record to the registry and remember it for the running check's return value."""
    write_record(rec)
    written = _written.get()
    if written is not None:
        written.append(rec)


def _finish(outcome: Outcome, description: str, claim_id: str | None, check: str | None,
            params: dict[str, Any] | None, seed: int | None, device: str | None,
            extra: dict[str, Any] | None) -> CheckRecord:
    cid, name = _resolve_ids(claim_id, check)
    if not description or not isinstance(description, str):
        raise ValueError("description must be a non-empty string saying what was checked")
    if not outcome.passed:
        raise ClaimViolation(f"{cid} / {name}: {description}: {outcome.summary()} "
                             f"(detail: {outcome.detail})", claim_id=cid, check=name)
    detail = dict(outcome.detail)
    if outcome.kind == "bound":
        # the largest factor by which the right-hand side could shrink before the check rejects
        detail["discrimination"] = 1.0 / outcome.worst if outcome.worst > 0 else None
    detail.update(extra or {})
    rec = _make_record(cid, name, description, "verified", outcome, params, seed, device, detail)
    _keep(rec)
    return rec


def check_bound(lhs: Any, rhs: Any, description: str, *, rtol: float = 1e-9, atol: float = 0.0,
                tolerance_reason: str | None = None,
                claim_id: str | None = None, check: str | None = None,
                params: dict[str, Any] | None = None, seed: int | None = None,
                device: str | None = None, extra: dict[str, Any] | None = None,
                search: Any = None, no_search: str | None = None,
                families: Iterable[str] | None = None,
                limits: Iterable[dict[str, Any]] | None = None) -> CheckRecord:
    """Assert ``lhs <= rhs * (1 + rtol) + atol`` on every instance, record the worst ratio,
    raise :class:`ClaimViolation` otherwise.

    ``families``: one short phrase per family of instances the check evaluates or searches
    ("random heads, R = 1", "identical tokens, U = 0, H up to 64"...), kept as
    ``detail["families"]`` for the tightness audit (``python -m attention_theory tightness``).
    ``limits``: sequences along which the ratio approaches the bound's supremum, each from
    :func:`limit_sequence` (their instances must be among ``lhs``/``rhs`` too); kept as
    ``detail["limits"]``, and the record then says "sup = ..., attained in the limit".

    ``search``: the :class:`~attention_theory.search.SizedSearch` whose best instances are among
    ``lhs``/``rhs`` (its budget, best value per size and best instance go to ``detail["search"]``);
    ``no_search``: why the statement admits no adversarial search (an empirical statement about
    a training run, a finite list of cases...), recorded as ``detail["no_search"]``.  Give one of
    the two: the contract test requires it of every bound record.

    A NaN or an infinity on either side raises :class:`ClaimViolation` naming the side and the
    instance.  ``rtol``/``atol`` above :data:`~attention_theory.verify.outcomes.MAX_RTOL` /
    :data:`~attention_theory.verify.outcomes.MAX_ATOL` need ``tolerance_reason`` (recorded in
    the record's ``detail``); a negative, infinite or NaN tolerance raises ``ValueError``.
    Nothing is written unless the bound holds.
    """
    extra = dict(extra or {})
    extra.update(_search_detail(search, no_search))
    if families is not None:
        fam = list(families) if not isinstance(families, str) else [families]
        if not fam or not all(isinstance(f, str) and f.strip() for f in fam):
            raise ValueError("families must be non-empty strings, one per family of instances")
        extra["families"] = fam
    if limits is not None:
        lim = list(limits)
        for entry in lim:
            if not isinstance(entry, dict) or entry.get("kind") != "limit-sequence":
                raise TypeError("each entry of limits must come from limit_sequence(...)")
        extra["limits"] = lim
    return _finish(bound_outcome(lhs, rhs, rtol=rtol, atol=atol, tolerance_reason=tolerance_reason),
                   description, claim_id, check, params, seed, device, extra)


def limit_sequence(family: str, parameter: str, values: Iterable[float], ratios: Iterable[float], *,
                   supremum: float = 1.0, gap_tol: float = 1e-2) -> dict[str, Any]:
    """A sequence of instances along which a bound's ratio ``lhs / rhs`` tends to ``supremum``:
    ``family`` says which instances (e.g. "T = d = n = H = 1, W = 0, U = z / R"), ``parameter``
    which quantity moves (e.g. "R -> 0"), ``values`` its values and ``ratios`` the ratio at each.

    The sequence must show what it claims: at least three points, finite ratios not above
    ``supremum`` (beyond round-off), gaps ``supremum - ratio`` that never grow along the sequence
    and a last gap at most ``gap_tol``; otherwise ``ValueError`` (the supremum is then not
    shown to be approached, and the check must not say it is).  Returns the ``dict`` that
    :func:`check_bound` keeps (``limits=[...]``)."""
    for name, text in (("family", family), ("parameter", parameter)):
        if not isinstance(text, str) or len(text.strip()) < 2:
            raise ValueError(f"{name} must be a phrase saying what it is, got {text!r}")
    supremum = check_real(supremum, "supremum")
    gap_tol = check_positive(gap_tol, "gap_tol")
    v = as_vector(values, "values").tolist()
    r = as_vector(ratios, "ratios").tolist()
    if len(v) != len(r) or len(r) < 3:
        raise ValueError("values and ratios must have the same length, at least 3; "
                         f"got {len(v)} and {len(r)}")
    gaps = [supremum - x for x in r]
    slack = 1e-9 * max(1.0, abs(supremum))
    if min(gaps) < -slack:
        raise ValueError(f"ratios: one exceeds the supremum {supremum}: {max(r)}")
    if any(b > a + slack for a, b in zip(gaps, gaps[1:])):
        raise ValueError(f"ratios: the gap to {supremum} grows along the sequence: {gaps}")
    if gaps[-1] > gap_tol:
        raise ValueError(f"ratios: the last one, {r[-1]}, is {gaps[-1]:.3g} below {supremum}, more than "
                         f"gap_tol={gap_tol}")
    return {"kind": "limit-sequence", "family": family.strip(), "parameter": parameter.strip(),
            "values": v, "ratios": r, "supremum": float(supremum), "last_gap": gaps[-1]}


def _search_detail(search: Any, no_search: str | None) -> dict[str, Any]:
    """``detail`` entries for ``check_bound(search=..., no_search=...)``."""
    if search is not None and no_search is not None:
        raise ValueError("give either search (the adversarial search) or no_search (why there is none), "
                         "not both")
    if no_search is not None:
        if not isinstance(no_search, str) or not no_search.strip():
            raise ValueError("no_search must be a non-empty string saying why no search applies")
        return {"no_search": no_search}
    if search is None:
        return {}
    record = getattr(search, "record", None)
    if not callable(record):
        raise TypeError("search must be a SizedSearch (from maximize_over_sizes), "
                        f"got {type(search).__name__}")
    return dict(record())


def check_identity(computed: Any, reference: Any, description: str, *, atol: float = 1e-12,
                   rtol: float = 0.0, tolerance_reason: str | None = None,
                   claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, extra: dict[str, Any] | None = None,
                   implementation: str | None = None) -> CheckRecord:
    """Assert ``|computed - reference| <= atol + rtol |reference|`` on every instance, raise
    :class:`ClaimViolation` otherwise (also for a NaN or an infinity on either side).

    Tolerances follow the rules of :func:`check_bound` (``tolerance_reason`` above the maxima).
    ``implementation``: a sentence saying which code of the package is checked against which
    (an *implementation check*: useful, but it tests the package, not the paper); the record's
    kind is then ``"implementation"``, and it does not count toward the claim's status.
    """
    out = identity_outcome(computed, reference, atol=atol, rtol=rtol, tolerance_reason=tolerance_reason)
    if implementation is None:
        return _finish(out, description, claim_id, check, params, seed, device, extra)
    if not isinstance(implementation, str) or len(implementation.strip()) < MIN_REASON_CHARS:
        raise ValueError("implementation must be a sentence saying which code is checked against which")
    extra = {**(extra or {}), "implementation": " ".join(implementation.split())}
    return _finish(dataclasses.replace(out, kind="implementation"), description, claim_id, check,
                   params, seed, device, extra)


def check_interval(value: float, low: float, high: float, description: str, *,
                   claim_id: str | None = None, check: str | None = None,
                   params: dict[str, Any] | None = None, seed: int | None = None,
                   device: str | None = None, n_instances: int | None = None,
                   extra: dict[str, Any] | None = None, instances: Any = None,
                   value_interval: tuple[float, float] | None = None) -> CheckRecord:
    """Assert ``low <= value <= high`` (a fitted slope, a test statistic...).

    ``low`` and ``high`` must be finite (``ValueError``); a NaN or infinite ``value`` raises
    :class:`ClaimViolation`.  With ``value_interval=(a, b)`` (a confidence interval of an
    estimated ``value``, e.g. :func:`~attention_theory.foundations.trend.power_exponent`) the
    whole interval must lie in ``[low, high]``."""
    out = interval_outcome(value, low, high, instances=instances, value_interval=value_interval)
    if n_instances is not None:
        out = dataclasses.replace(out, n_instances=check_int(n_instances, "n_instances"))
    return _finish(out, description, claim_id, check, params, seed, device, extra)


def confirm_erratum(printed: Outcome, corrected: Outcome, *, description: str, printed_text: str,
                    corrected_text: str, source: str, kind: str, where: str | None = None,
                    different_instances_reason: str | None = None, printed_tex: str | None = None,
                    corrected_tex: str | None = None, version: str = "published",
                    claim_id: str | None = None,
                    check: str | None = None, params: dict[str, Any] | None = None,
                    seed: int | None = None, device: str | None = None) -> CheckRecord:
    """Record a confirmed erratum: the printed version must fail and the corrected pass, on the
    same instances.

    ``kind`` is one of :data:`~attention_theory.verify.registry.ERRATUM_KINDS`
    (``false-statement``, ``wrong-constant``, ``missing-hypothesis``, ``proof-step``, ``typo``);
    ``where`` is ``"statement"`` (what the paper states), ``"proof"`` (a step, constant or
    notation of its proof; implied by ``kind="proof-step"``) or ``"background"`` (a remark or
    example around the statements, e.g. a background section); ``version`` is the text the
    erratum concerns, ``"published"`` (the version the book follows) or ``"review-copy"``.  Only
    errata in the published statement or proof set the claim's status
    (:func:`~attention_theory.verify.registry.claim_status`); the others are listed.  Both
    outcomes must carry the fingerprint of their instances (``instances=`` of the outcome
    functions) and the two must be equal, unless ``different_instances_reason`` says why they
    cannot be (it is recorded).

    ``printed_tex``/``corrected_tex``: the two versions in LaTeX (math mode, without ``$``), for
    the errata page; ``printed_text``/``corrected_text`` stay the plain-text versions.

    Raises :class:`ClaimViolation` if the printed version passes (then the suspected erratum is
    *refuted*, and the chapter must say so) or if the corrected version fails (then the
    correction is wrong); ``ValueError`` for a bad ``kind``/``where`` or differing instances.
    """
    cid, name = _resolve_ids(claim_id, check)
    if kind not in ERRATUM_KINDS:
        raise ValueError(f"kind must be one of {tuple(ERRATUM_KINDS)}, got {kind!r}")
    where = where or ("proof" if kind == "proof-step" else "statement")
    if where not in ERRATUM_PLACES:
        raise ValueError(f"where must be one of {ERRATUM_PLACES}, got {where!r}")
    if version not in ERRATUM_VERSIONS:
        raise ValueError(f"version must be one of {tuple(ERRATUM_VERSIONS)}, got {version!r}")
    if kind == "proof-step" and where != "proof":
        raise ValueError("an erratum of kind 'proof-step' is in the proof (where='proof')")
    for name_, tex in (("printed_tex", printed_tex), ("corrected_tex", corrected_tex)):
        if tex is not None and (not isinstance(tex, str) or not tex.strip() or "$" in tex):
            raise ValueError(f"{name_} must be a non-empty LaTeX formula without '$' delimiters, got {tex!r}")
    fp_p, fp_c = printed.detail.get("instances"), corrected.detail.get("instances")
    if different_instances_reason is not None:
        if (not isinstance(different_instances_reason, str)
                or len(different_instances_reason.strip()) < MIN_REASON_CHARS):
            raise ValueError("different_instances_reason must be a sentence saying why printed and "
                             "corrected cannot be evaluated on the same instances")
    elif fp_p is None or fp_c is None:
        raise ValueError("printed and corrected must carry their instances' fingerprint (pass "
                         "instances=... to the outcome functions), or give different_instances_reason")
    elif fp_p != fp_c:
        raise ValueError(f"printed and corrected were evaluated on different instances "
                         f"(fingerprints {fp_p} and {fp_c})")
    if printed.passed:
        raise ClaimViolation(f"{cid} / {name}: erratum NOT confirmed, the printed version "
                             f"passes: {printed.summary()}", claim_id=cid, check=name)
    if not corrected.passed:
        raise ClaimViolation(f"{cid} / {name}: the corrected version fails too: "
                             f"{corrected.summary()}", claim_id=cid, check=name)
    detail = {
        "source": source,
        "kind": kind,
        "where": where,
        "version": version,
        "same_instances": different_instances_reason is None,
        **({"different_instances_reason": " ".join(different_instances_reason.split())}
           if different_instances_reason is not None else {}),
        "printed": {"text": printed_text, **({"tex": printed_tex} if printed_tex else {}),
                    "summary": printed.summary(), "worst": printed.worst,
                    "n_instances": printed.n_instances, "detail": printed.detail},
        "corrected": {"text": corrected_text, **({"tex": corrected_tex} if corrected_tex else {}),
                      "summary": corrected.summary(),
                      "worst": corrected.worst, "n_instances": corrected.n_instances,
                      "detail": corrected.detail},
    }
    out = dataclasses.replace(corrected, n_instances=printed.n_instances + corrected.n_instances)
    rec = _make_record(cid, name, description, "erratum", out, params, seed, device, detail)
    rec.kind = "erratum"
    _keep(rec)
    return rec


def not_checkable(claim_id: str, reason: str, *, check: str = "reason",
                  description: str | None = None) -> CheckRecord:
    """Record that a statement cannot be checked numerically, and why.

    A reason is not a computation, so it needs no registered check (and no negative control):
    it may be recorded from anywhere, under the check name ``check`` (default ``"reason"``)."""
    cid, name = _pair(check, claim_id)
    if not isinstance(reason, str):
        raise TypeError(f"reason must be a sentence (a string), got {type(reason).__name__}")
    if not reason or len(reason.strip()) < 20:
        raise ValueError("reason must explain (in a sentence) why no numerical check is possible")
    rec = _make_record(cid, name, description or "not numerically checkable", "not-checkable",
                       None, None, None, None, {"reason": reason.strip()})
    write_record(rec)
    return rec


def evaluate(check: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, str]:
    """Run a registered check to *report* whether its statement holds: ``(holds, one-line
    summary)``, without raising.

    The records are written as usual when it passes; when it fails, a record with status
    ``fails`` (the violation's message) is written for the pair that raised, so a statement
    that fails (e.g. on committed full-scale data, inside
    :func:`~attention_theory.verify.on_results`) is never shown as verified.
    """
    if not callable(check):
        raise TypeError(f"check must be a registered check (or a callable running one), got {check!r}")
    try:
        rec = check(*args, **kwargs)
    except ClaimViolation as exc:
        message = str(exc).split(" (detail:")[0]
        cid, name = exc.claim_id, exc.check
        if cid is None or name is None:  # raised outside any registered check: nothing to record
            raise
        with running_check(cid, name):
            failed = _make_record(cid, name, message, "fails", None, None, None, None,
                                  {"failure": message})
        failed.kind = "fails"
        write_record(failed)
        return False, message
    recs = rec if isinstance(rec, list) else [rec]
    return True, "; ".join(f"{r.description}: {_worst_ratio_text(r.worst)}" for r in recs)


def _worst_ratio_text(worst: float | None) -> str:
    """The tightness as a reader sees it: six significant digits (not ``0.9375000000000001``);
    no ratio where there is none (``None``, or ``-inf`` when every right-hand side is 0 and met)."""
    if worst is None or not math.isfinite(worst):
        return "no LHS/RHS ratio"
    return f"worst ratio {worst:.6g}"


@contextlib.contextmanager
def negative_control(claim_id: str, check: str, *, match: str | None = None) -> Iterator[None]:
    """The block is a negative control of ``(claim_id, check)``: it must raise
    :class:`ClaimViolation` *from that check* (the violation's ``claim_id``/``check``), with a
    message matching the regular expression ``match`` when given.

    A violation from another check (a companion that failed first), no violation, or a pair
    that is not registered raises ``AssertionError`` saying which.  Nothing is recorded.
    """
    key = (claim_id, check)
    if key not in registered_checks():
        raise AssertionError(f"negative control of {claim_id} / {check}: no such registered check")
    with evaluate_only():
        try:
            yield
        except ClaimViolation as exc:
            got = (exc.claim_id, exc.check)
            if got != key:
                raise AssertionError(f"negative control of {claim_id} / {check} failed in another "
                                     f"check, {got[0]} / {got[1]}: {str(exc)[:300]}") from exc
            if match is not None and not re.search(match, str(exc)):
                raise AssertionError(f"negative control of {claim_id} / {check}: the violation "
                                     f"does not match {match!r}: {str(exc)[:300]}") from exc
            return
    raise AssertionError(f"negative control of {claim_id} / {check}: the wrong variant passed "
                         "(no ClaimViolation was raised)")
