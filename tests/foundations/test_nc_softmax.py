"""Negative controls for the checks of ``book/foundations/softmax.md``
(:mod:`attention_theory.foundations.checks.softmax`).

Each test runs a registered check on a deliberately wrong variant of its
statement (wrong constant, wrong formula, wrong orientation) and requires the
check to reject it.  A check that accepted these variants could not fail.
"""

import numpy as np

from _nc import negative_control
from attention_theory.foundations.checks import softmax as checks
from attention_theory.foundations.softmax import softmax


def test_nc_review_jacobian_typo_needs_a_wrong_printed_formula():
    from attention_theory.foundations.softmax import softmax_jacobian

    with negative_control("deora-sec-2", "review-jacobian-typo", match="NOT confirmed"):
        checks.check_review_jacobian_typo(printed=softmax_jacobian)


def test_nc_softmax_jacobian_review_formula():
    with negative_control("deora-eq-25", "jacobian-autograd"):
        checks.check_softmax_jacobian(jacobian=lambda v: np.diag(softmax(v)) - np.outer(v, v))


def test_nc_remainder_with_diagonal_only_jacobian():
    with negative_control("deora-eq-25", "second-order-remainder"):
        checks.check_softmax_remainder_order(jacobian=lambda v: np.diag(softmax(v)))


def test_nc_second_derivative_without_centering():

    def wrong(v, d):
        s = softmax(v)
        return s * d**2 - s * np.sum(s * d**2)

    with negative_control("deora-eq-25", "second-derivative-autograd"):
        checks.check_softmax_second_derivative(second=wrong)


def test_nc_softmax_lipschitz_constant_too_small():
    with negative_control("trauger-lemma-c-1", "lipschitz-constant-2"):
        checks.check_softmax_lipschitz(constant=0.95)


def test_nc_softmax_sharp_constant_too_small():
    with negative_control("trauger-lemma-c-1", "sharp-constant-1"):
        checks.check_softmax_lipschitz_sharp(constant=0.999)

