"""``refuses_overflow``: a formula whose answer float64 cannot hold refuses it, naming the
arguments of extreme magnitude; with ordinary arguments nothing changes (issue 30, item 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_theory.validation import Unrepresentable, refuses_overflow


def quartic(b: float, R: float) -> float:
    return b * R**4


def ratio(a: float, eps: float) -> float:
    return a / eps


def inf_by_design(x: float) -> float:
    return math.inf if x > 1 else x


def test_undecorated_formulas_fail_unhelpfully():
    # the negative control: what the decorator is for
    with pytest.raises(OverflowError):
        quartic(1.0, 1e300)
    assert np.isinf(np.float64(1.0) / np.float64(1e-310))


def test_overflow_is_refused_naming_the_extreme_argument():
    with pytest.raises(Unrepresentable, match=r"quartic: .* extreme magnitude R=1e\+300"):
        refuses_overflow(quartic)(2.0, 1e300)
    assert refuses_overflow(quartic)(2.0, 3.0) == 162.0


def test_an_infinite_result_from_a_tiny_argument_is_refused():
    with pytest.raises(ValueError, match=r"eps=1e-310"):
        refuses_overflow(ratio)(np.float64(1.0), np.float64(1e-310))
    with pytest.raises(ValueError, match=r"for the arguments a, eps"):  # none extreme: every one named
        refuses_overflow(ratio)(1.0, 0.0)


def test_a_documented_infinity_stays():
    assert refuses_overflow(inf_by_design)(5.0) == math.inf


def test_an_inner_refusal_names_the_outer_arguments():
    inner = refuses_overflow(quartic)

    @refuses_overflow
    def outer(scale: float, radius: float) -> float:
        return inner(scale, radius) + 1

    with pytest.raises(Unrepresentable, match=r"outer: .*radius=1e\+300") as exc:
        outer(1.0, 1e300)
    assert " R=" not in str(exc.value)


def test_an_ordinary_error_passes_through():
    @refuses_overflow
    def checked(x: float) -> float:
        if x < 0:
            raise ValueError(f"x must be >= 0, got {x}")
        return x

    with pytest.raises(ValueError, match=r"^x must be >= 0, got -1"):
        checked(-1.0)


def test_the_signature_is_kept():
    import inspect

    assert list(inspect.signature(refuses_overflow(quartic)).parameters) == ["b", "R"]
