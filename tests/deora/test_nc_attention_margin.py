"""Negative controls for the checks of the chapter ``book/deora/attention-margin.md``
(Deora et al., Section 5.3 and Appendix E; ``src/attention_theory/deora/checks/attention_margin.py``).

Each test runs a registered check with a deliberately wrong variant of its statement (a dropped
factor, a transposed matrix, a wrong center, an erratum whose "printed" side is already correct)
and requires :class:`ClaimViolation`.
"""

import math

import pytest

from _nc import negative_control
from attention_theory.deora.checks import attention_margin as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_eq9_printed_already_normalized():
    with negative_control("deora-eq-9", "norms"):
        checks.check_eq9(printed_scale=lambda S, T: 1 / (S * math.sqrt(2 * T)))


def test_nc_lemma18_gamma_below_threshold():
    with negative_control("deora-lemma-18", "saturation"):
        checks.check_lemma18(gamma_factor=0.9)


def test_nc_lemma18_sign_condition_already_printed():
    with negative_control("deora-lemma-18", "sign-condition"):
        checks.check_lemma18_sign(printed_requires_positive_A=True)


def test_nc_eq10_transposed_attention():
    with negative_control("deora-eq-10", "leak"):
        checks.check_eq10(transpose=True, small=True)


def test_nc_eq11_limit_margin_not_attained():
    with negative_control("deora-eq-11", "margin"):
        checks.check_eq11(eps_in_bound=False, small=True)


def test_nc_prop3_gamma_too_small():
    with negative_control("deora-prop-3", "saturation-and-margin"):
        checks.check_prop3(gamma_factor=0.3, small=True)


def test_nc_eq129_transposed():
    with negative_control("deora-eq-129", "score-gap"):
        checks.check_eq129(transpose=True, names=("A",))


def test_nc_eq129_chain_printed_already_correct():
    with negative_control("deora-eq-129", "constant-chain"):
        checks.check_eq129_chain(printed_multiple=1.0)


def test_nc_ordering_small_S_only():
    with negative_control("deora-sec-5-3-margins", "ordering"):
        checks.check_ordering(s_grid=[0.5, 1.0])


def test_nc_eq12_constant_too_large():
    with negative_control("deora-eq-12", "dominance"):
        checks.check_eq12(const=400.0)


def test_nc_sec53_weaker_head_condition_is_feasible():
    with negative_control("deora-sec-5-3", "log-lp"):
        checks.check_sec53(s_power=1.0, p_values=[0.5, 2.0])


def test_nc_sec53_exponent_printed_already_corrected():
    with negative_control("deora-sec-5-3", "exponent-erratum"):
        checks.check_sec53_exponent(printed_exponent=0.75)
