"""Negative controls for the checks of ``book/foundations/losses.md``
(:mod:`attention_theory.foundations.checks.losses`).

Each test runs a registered check on a deliberately wrong variant of its
statement (wrong constant, wrong formula, wrong orientation) and requires the
check to reject it.  A check that accepted these variants could not fail.
"""

import numpy as np

from _nc import negative_control
from attention_theory.foundations.checks import losses as checks


def test_nc_cross_entropy_gradient_sign():
    from attention_theory.foundations.losses import cross_entropy_grad

    with negative_control("trauger-app-g", "gradient-autograd"):
        checks.check_cross_entropy_gradient(grad=lambda x, y: -cross_entropy_grad(x, y))


def test_nc_cross_entropy_lipschitz_constant_1_5():
    with negative_control("trauger-app-g", "lipschitz-linf"):
        checks.check_cross_entropy_lipschitz(constant=1.5)


def test_nc_clipped_cross_entropy_constant_1_5():
    with negative_control("trauger-app-g", "clipped-lipschitz"):
        checks.check_clipped_cross_entropy_lipschitz(constant=1.5)


def test_nc_logistic_derivative_missing_sign():
    from attention_theory.foundations.losses import logistic_loss_d1, logistic_loss_d2

    with negative_control("deora-eq-24", "derivatives-autograd"):
        checks.check_logistic_derivatives(d1=lambda z: -logistic_loss_d1(z), d2=logistic_loss_d2)


def test_nc_self_bounded_constant_0_9():
    with negative_control("deora-eq-24", "self-bounded"):
        checks.check_logistic_self_bounded(C=0.9)


def test_nc_curvature_bound_0_2():
    with negative_control("deora-eq-24", "curvature-and-slope"):
        checks.check_logistic_curvature(curvature_bound=0.2)


def test_nc_logistic_curvature_of_sigmoid_loss():

    def sigmoid_loss_d2(z):  # l(z) = sigmoid(-z) is not convex: l'' changes sign at 0
        s = 1.0 / (1.0 + np.exp(z))
        return s * (1 - s) * (1 - 2 * s)

    with negative_control("deora-eq-24", "strict-convexity"):
        checks.check_logistic_curvature(second_derivative=sigmoid_loss_d2)


def test_nc_empirical_risk_facts_cannot_be_weakened():
    # This check has no constant argument: its negative control swaps the loss for a
    # loss without self-boundedness (the hinge-like exp(-z) scaled down), via the module.
    original = checks.empirical_logistic_risk

    def wrong(z):
        r = original(z)
        return {"L": r["L"] * 0.5, "L1": r["L1"], "L2": r["L2"]}  # a halved loss

    checks.empirical_logistic_risk = wrong
    try:
        with negative_control("deora-eq-24", "empirical-risk-facts"):
            checks.check_empirical_risk_facts()
    finally:
        checks.empirical_logistic_risk = original


def test_nc_printed_risk_cap_large_enough_is_not_an_erratum():
    with negative_control("deora-eq-24", "printed-risk-le-one", match="NOT confirmed"):
        checks.check_printed_risk_le_one(printed_cap=1e6)

