"""The verification API passes only what holds: bounded, finite tolerances (a looser one only
with a recorded reason) and finite compared numbers.  Every rejected call writes nothing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attention_theory import verify
from attention_theory.verify import (
    MAX_ATOL,
    MAX_RTOL,
    ClaimViolation,
    bound_outcome,
    check_bound,
    check_identity,
    check_interval,
    identity_outcome,
    interval_outcome,
)

IDS = {"claim_id": "trauger-lemma-3-1", "check": "toy"}


@pytest.fixture(autouse=True)
def _inside_toy_check(toy_check):
    """Every test here calls the assertions as the registered check ``IDS`` (a test-only check)."""
    with toy_check(**IDS):
        yield
REASON = "the right side comes from a Monte-Carlo estimate with standard error about 1e-4"


@pytest.fixture
def registry(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    return tmp_path


def _written(folder):
    return sorted(p.name for p in folder.iterdir())


# --- tolerances: infinite, NaN, negative -------------------------------------------------------

@pytest.mark.parametrize("name", ["rtol", "atol"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_check_bound_rejects_non_finite_tolerance(registry, name, value):
    with pytest.raises(ValueError, match=name):
        check_bound([2.0], [1.0], "x", **{name: value}, **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("name", ["rtol", "atol"])
@pytest.mark.parametrize("value", [math.inf, math.nan])
def test_check_identity_rejects_non_finite_tolerance(registry, name, value):
    with pytest.raises(ValueError, match=name):
        check_identity([2.0], [1.0], "x", **{name: value}, **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("fn", [bound_outcome, identity_outcome])
@pytest.mark.parametrize("name", ["rtol", "atol"])
def test_outcomes_reject_infinite_tolerance_even_with_a_reason(registry, fn, name):
    with pytest.raises(ValueError, match=name):
        fn([2.0], [1.0], **{name: math.inf}, tolerance_reason=REASON)
    assert _written(registry) == []


@pytest.mark.parametrize("fn", [check_bound, check_identity])
@pytest.mark.parametrize("name", ["rtol", "atol"])
def test_negative_tolerance_is_rejected(registry, fn, name):
    with pytest.raises(ValueError, match=f"{name} must be >= 0"):
        fn([1.0], [1.0], "x", **{name: -1e-12}, **IDS)
    with pytest.raises(ValueError, match=name):
        (bound_outcome if fn is check_bound else identity_outcome)([1.0], [1.0], **{name: -1e-300})
    assert _written(registry) == []


@pytest.mark.parametrize("fn", [check_bound, check_identity])
def test_non_numeric_tolerance_is_a_type_error(registry, fn):
    with pytest.raises(TypeError, match="rtol"):
        fn([1.0], [1.0], "x", rtol="1e-9", **IDS)
    with pytest.raises(TypeError, match="atol"):
        fn([1.0], [1.0], "x", atol=None, **IDS)
    assert _written(registry) == []


# --- tolerances above the maximum --------------------------------------------------------------

def test_maxima_are_documented_constants():
    assert verify.MAX_RTOL == MAX_RTOL == 1e-6 and verify.MAX_ATOL == MAX_ATOL == 1e-9
    assert "MAX_RTOL" in verify.outcomes.__doc__ and "tolerance_reason" in verify.outcomes.__doc__


@pytest.mark.parametrize("fn", [check_bound, check_identity])
@pytest.mark.parametrize("name,value", [("rtol", 10 * MAX_RTOL), ("atol", 10 * MAX_ATOL)])
def test_tolerance_above_maximum_needs_a_reason(registry, fn, name, value):
    with pytest.raises(ValueError, match=f"{name} .* above the maximum.*tolerance_reason"):
        fn([1.0], [1.0], "x", **{name: value}, **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("fn", [bound_outcome, identity_outcome])
def test_outcome_tolerance_above_maximum_needs_a_reason(fn):
    with pytest.raises(ValueError, match="rtol .* above the maximum"):
        fn([1.0], [1.0], rtol=1e-3)
    with pytest.raises(ValueError, match="atol .* above the maximum"):
        fn([1.0], [1.0], atol=1e-3)


@pytest.mark.parametrize("fn", [check_bound, check_identity])
@pytest.mark.parametrize("reason", ["", "   ", "float32", 42])
def test_a_short_or_non_string_reason_is_refused(registry, fn, reason):
    with pytest.raises(ValueError, match="tolerance_reason"):
        fn([1.0], [1.0], "x", rtol=1e-3, tolerance_reason=reason, **IDS)
    assert _written(registry) == []


def test_tolerance_at_the_maximum_needs_no_reason(registry):
    rec = check_bound([1.0 + 0.5 * MAX_RTOL], [1.0], "x", rtol=MAX_RTOL, atol=MAX_ATOL, **IDS)
    assert rec.status == "verified" and "tolerance_reason" not in rec.detail
    assert rec.detail["rtol"] == MAX_RTOL and rec.detail["atol"] == MAX_ATOL


def test_check_bound_with_a_reason_records_it(registry):
    rec = check_bound([1.0005], [1.0], "x", rtol=1e-3, tolerance_reason=REASON, **IDS)
    assert rec.status == "verified" and rec.detail["tolerance_reason"] == REASON
    (path,) = registry.glob("*.json")
    stored = json.loads(path.read_text())
    assert stored["detail"]["tolerance_reason"] == REASON and stored["detail"]["rtol"] == 1e-3


def test_check_identity_with_a_reason_records_it(registry):
    rec = check_identity([1.0 + 5e-7], [1.0], "x", atol=1e-6, tolerance_reason=REASON, **IDS)
    assert rec.detail["tolerance_reason"] == REASON
    (path,) = registry.glob("*.json")
    assert json.loads(path.read_text())["detail"]["tolerance_reason"] == REASON


def test_outcomes_record_the_reason():
    for outcome in (bound_outcome([1.0], [1.0], rtol=1e-3, tolerance_reason=REASON),
                    identity_outcome([1.0], [1.0], atol=1e-3, tolerance_reason=REASON)):
        assert outcome.detail["tolerance_reason"] == REASON


def test_a_reason_does_not_make_a_false_bound_pass(registry):
    with pytest.raises(ClaimViolation):
        check_bound([2.0], [1.0], "x", rtol=1e-3, tolerance_reason=REASON, **IDS)
    assert _written(registry) == []


# --- non-finite compared numbers ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("side", ["lhs", "rhs"])
def test_check_bound_fails_on_non_finite_side(registry, side, bad):
    lhs, rhs = [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]
    (lhs if side == "lhs" else rhs)[2] = bad
    with pytest.raises(ClaimViolation, match=f"{side} is not finite at instance 2"):
        check_bound(lhs, rhs, "x", **IDS)
    assert _written(registry) == []


def test_a_vacuous_bound_rhs_inf_does_not_pass(registry):
    with pytest.raises(ClaimViolation, match="rhs is not finite at instance 0"):
        check_bound([1.0], [math.inf], "x", **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("side", ["computed", "reference"])
def test_check_identity_fails_on_non_finite_side(registry, side, bad):
    computed, reference = [1.0, 1.0], [1.0, 1.0]
    (computed if side == "computed" else reference)[1] = bad
    with pytest.raises(ClaimViolation, match=f"{side} is not finite at instance 1"):
        check_identity(computed, reference, "x", **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_check_interval_fails_on_non_finite_value(registry, bad):
    with pytest.raises(ClaimViolation, match="value is not finite"):
        check_interval(bad, 0.0, 1.0, "x", **IDS)
    assert _written(registry) == []


@pytest.mark.parametrize("name", ["low", "high"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_interval_bounds_must_be_finite(registry, name, bad):
    kw = {"low": 0.0, "high": 1.0, name: bad}
    with pytest.raises(ValueError, match=name):
        check_interval(0.5, kw["low"], kw["high"], "x", **IDS)
    with pytest.raises(ValueError, match=name):
        interval_outcome(0.5, kw["low"], kw["high"])
    assert _written(registry) == []


@pytest.mark.parametrize("side", ["lhs", "rhs"])
def test_bound_outcome_reports_non_finite_side(side):
    lhs, rhs = np.zeros(4), np.ones(4)
    (lhs if side == "lhs" else rhs)[3] = np.nan
    out = bound_outcome(lhs, rhs)
    assert not out.passed and f"{side} is not finite at instance 3" in out.detail["non_finite"]
    assert "not finite" in out.summary()


@pytest.mark.parametrize("side", ["computed", "reference"])
def test_identity_outcome_reports_non_finite_side(side):
    c, r = np.ones(3), np.ones(3)
    (c if side == "computed" else r)[0] = np.inf
    out = identity_outcome(c, r)
    assert not out.passed and f"{side} is not finite at instance 0" in out.detail["non_finite"]


def test_interval_outcome_reports_non_finite_value():
    out = interval_outcome(math.nan, 0.0, 1.0)
    assert not out.passed and "value is not finite" in out.detail["non_finite"]


def test_finite_outcomes_are_unchanged():
    out = bound_outcome([0.5, 1.0], [1.0, 1.0])
    assert out.passed and out.worst == 1.0 and "non_finite" not in out.detail
    assert identity_outcome([1.0], [1.0]).passed and interval_outcome(0.5, 0.0, 1.0).passed


def test_the_reported_example_no_longer_verifies(registry):
    """``check_bound([2], [1], rtol=inf)`` used to return a verified record and write it."""
    for kw in ({"rtol": math.inf}, {"atol": math.inf}):
        with pytest.raises(ValueError):
            verify.check_bound([2.0], [1.0], "x", **kw, **IDS)
    with pytest.raises(ValueError):
        verify.check_identity([2.0], [1.0], "x", atol=math.inf, **IDS)
    assert _written(registry) == []


def test_interval_with_value_interval_requires_the_whole_interval_inside(registry):
    # the point estimate is inside, the interval reaches outside: fails
    out = interval_outcome(-0.33, -0.75, -0.25, value_interval=(-0.47, -0.19))
    assert not out.passed and "interval [-0.47, -0.19]" in out.summary()
    assert interval_outcome(-0.33, -1.0, -0.1, value_interval=(-0.47, -0.19)).passed
    with pytest.raises(ClaimViolation):
        check_interval(-0.33, -0.75, -0.25, "x", value_interval=(-0.47, -0.19), **IDS)
    rec = check_interval(-0.33, -1.0, -0.1, "x", value_interval=(-0.47, -0.19), **IDS)
    assert rec.detail["value_interval"] == [-0.47, -0.19]


@pytest.mark.parametrize("bad, exc", [((0.0, 1.0), ValueError), ((math.nan, 0.0), ValueError),
                                      ("ab", TypeError), (None, None)])
def test_value_interval_must_contain_the_value(bad, exc):
    if exc is None:
        assert interval_outcome(0.5, 0.0, 1.0, value_interval=bad).passed
        return
    with pytest.raises(exc, match="value_interval"):
        interval_outcome(-0.5, -1.0, 1.0, value_interval=bad)


def test_zero_rhs_met_within_atol_has_no_infinite_ratio():
    # an exact zero right-hand side computed as -1e-16, with a rounding-size left-hand side
    out = bound_outcome([1e-17, 0.5], [-1e-16, 1.0], atol=1e-12)
    assert out.passed and out.worst == 0.5
    # beyond the absolute tolerance it is an impossible bound: infinite ratio, and it fails
    out = bound_outcome([1e-6, 0.5], [0.0, 1.0], atol=1e-12)
    assert not out.passed and out.worst == math.inf


@pytest.mark.parametrize("shapes", [((3, 4), (4, 3)), ((12,), (3, 4)), ((2, 3), (3,))])
@pytest.mark.parametrize("fn", [identity_outcome, bound_outcome])
def test_sides_in_another_layout_are_rejected(fn, shapes):
    """A transposed or flattened grid would pair instances wrongly: an error, not a verdict."""
    a, b = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match="same instances in the same layout"):
        fn(a, b)


@pytest.mark.parametrize("fn", [identity_outcome, bound_outcome])
def test_axes_of_length_one_keep_the_instances(fn):
    assert fn(np.arange(3.0).reshape(3, 1), np.arange(3.0)).passed
    assert not fn(np.arange(3.0).reshape(1, 3) + 1.0, np.arange(3.0)).passed


def test_one_bound_for_every_instance():
    assert bound_outcome([1.0, 2.0, 3.0], 3.0).passed
    assert not bound_outcome([1.0, 2.0, 3.0], [2.0]).passed


def test_bound_summary_says_when_no_ratio_exists():
    # right-hand sides 0 and met: the worst ratio is -inf by convention, which a reader should not see
    s = verify.bound_outcome([0.0, 1e-12], [0.0, 0.0], atol=1e-9).summary()
    assert "no LHS/RHS ratio" in s and "inf" not in s
    assert "worst LHS/RHS = 0.5" in verify.bound_outcome([1.0], [2.0]).summary()
