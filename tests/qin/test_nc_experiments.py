"""Negative controls for the checks of ``book/qin/experiments.md``
(:mod:`attention_theory.qin.checks.experiments`): the E1 comparison with and without the residual,
and the linear rate of E4 (teacher-student stability)."""

import pytest

from _nc import negative_control
from attention_theory.qin.checks import experiments as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_fig1_flags_swapped():
    with negative_control("qin-fig-1", "residual-vs-none"):
        checks.check_fig1(rho1_with=0, rho1_without=1, seeds=(0,), steps=200)


def test_nc_e4_without_the_attention_residual():
    # the student without the attention residual stalls: its windows do not halve the loss
    with negative_control("qin-fig-1", "e4-linear-rate-with-residual"):
        checks.check_e4_linear_rate(variant="none")


def test_nc_e4_contraction_too_strong():
    # a contraction factor ten times smaller than the stated one fails on the residual runs
    with negative_control("qin-fig-1", "e4-linear-rate-with-residual"):
        checks.check_e4_linear_rate(contraction=0.05)
