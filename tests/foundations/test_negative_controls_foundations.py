"""Negative controls for every check of the Foundations part.

Each test runs a registered check on a deliberately wrong variant of its
statement (wrong constant, wrong formula, wrong orientation) and requires the
check to reject it.  A check that accepted these variants could not fail.
"""

import numpy as np

from _nc import negative_control
from attention_theory.foundations import checks as fc
from attention_theory.foundations.norms import mixed_norm, operator_norm, vector_norm
from attention_theory.foundations.softmax import softmax


def test_nc_mixed_norm_rows_instead_of_columns():
    with negative_control("trauger-def-2-1", "mixed-operator-identities"):
        fc.check_mixed_operator_identities(read=lambda W, q, p: mixed_norm(W.T, q, p))


def test_nc_operator_norm_without_dual_exponent():

    def wrong(W, q, p):  # forgets the Hoelder conjugate in the q -> inf formula
        if np.isinf(p) and q not in (1, np.inf):
            return float(np.max(vector_norm(W, q, axis=1)))
        if np.isinf(q) and p == 1:
            return float(np.max(np.abs(W).sum(axis=1)))  # row sums instead of the sign sup
        return operator_norm(W, q, p)

    with negative_control("trauger-def-2-1", "operator-norm-closed-forms"):
        fc.check_operator_norm_closed_forms(closed_form=wrong)


def test_nc_operator_norm_q2_overestimated():

    def wrong(W, q, p):  # 1% too large for q = 2: still an upper bound, but not attained
        return operator_norm(W, q, p) * (1.01 if q == 2 else 1.0)

    with negative_control("trauger-def-2-1", "operator-norm-q2-attained"):
        fc.check_operator_norm_closed_forms(closed_form=wrong)


def test_nc_frobenius_le_spectral_reversed():
    from attention_theory.foundations.norms import frobenius_norm, spectral_norm

    with negative_control("trauger-def-2-1", "spectral-le-frobenius"):
        fc.check_spectral_le_frobenius(lhs_norm=frobenius_norm, rhs_norm=spectral_norm)


def test_nc_deora_norms_rows_and_columns_swapped():
    wrong = {
        "2,inf": lambda A: float(np.max(np.linalg.norm(A, axis=0))),
        "1,2": lambda A: float(np.max(np.linalg.norm(A, axis=1))),
        "1,inf": lambda A: float(np.max(np.abs(A))),
    }
    # random unit vectors exceed the swapped formulas on the non-square matrices
    with negative_control("deora-sec-2", "induced-norm-random-search"):
        fc.check_deora_induced_norms(formulas=wrong)


def test_nc_deora_norms_1inf_as_row_sum():
    wrong = {
        "2,inf": lambda A: float(np.max(np.linalg.norm(A, axis=1))),
        "1,2": lambda A: float(np.max(np.linalg.norm(A, axis=0))),
        "1,inf": lambda A: float(np.max(np.abs(A).sum(axis=1))),  # the (inf,inf) norm, too large
    }
    with negative_control("deora-sec-2", "induced-norm-formulas"):
        fc.check_deora_induced_norms(formulas=wrong)


def test_nc_review_norm_slip_needs_a_wrong_printed_formula():
    with negative_control("deora-sec-2", "review-norm-slip", match="NOT confirmed"):
        fc.check_review_norm_slip(printed=lambda A: float(np.max(np.linalg.norm(A, axis=0))))


def test_nc_head_max_norm_uses_sum():
    with negative_control("deora-sec-2", "head-max-norm"):
        fc.check_head_max_norm(norm=lambda th, H: float(np.linalg.norm(th)))


def test_nc_review_jacobian_typo_needs_a_wrong_printed_formula():
    from attention_theory.foundations.softmax import softmax_jacobian

    with negative_control("deora-sec-2", "review-jacobian-typo", match="NOT confirmed"):
        fc.check_review_jacobian_typo(printed=softmax_jacobian)


def test_nc_softmax_jacobian_review_formula():
    with negative_control("deora-eq-25", "jacobian-autograd"):
        fc.check_softmax_jacobian(jacobian=lambda v: np.diag(softmax(v)) - np.outer(v, v))


def test_nc_remainder_with_diagonal_only_jacobian():
    with negative_control("deora-eq-25", "second-order-remainder"):
        fc.check_softmax_remainder_order(jacobian=lambda v: np.diag(softmax(v)))


def test_nc_second_derivative_without_centering():

    def wrong(v, d):
        s = softmax(v)
        return s * d**2 - s * np.sum(s * d**2)

    with negative_control("deora-eq-25", "second-derivative-autograd"):
        fc.check_softmax_second_derivative(second=wrong)


def test_nc_softmax_lipschitz_constant_too_small():
    with negative_control("trauger-lemma-c-1", "lipschitz-constant-2"):
        fc.check_softmax_lipschitz(constant=0.95)


def test_nc_softmax_sharp_constant_too_small():
    with negative_control("trauger-lemma-c-1", "sharp-constant-1"):
        fc.check_softmax_lipschitz_sharp(constant=0.999)


def test_nc_cross_entropy_gradient_sign():
    from attention_theory.foundations.losses import cross_entropy_grad

    with negative_control("trauger-app-g", "gradient-autograd"):
        fc.check_cross_entropy_gradient(grad=lambda x, y: -cross_entropy_grad(x, y))


def test_nc_cross_entropy_lipschitz_constant_1_5():
    with negative_control("trauger-app-g", "lipschitz-linf"):
        fc.check_cross_entropy_lipschitz(constant=1.5)


def test_nc_clipped_cross_entropy_constant_1_5():
    with negative_control("trauger-app-g", "clipped-lipschitz"):
        fc.check_clipped_cross_entropy_lipschitz(constant=1.5)


def test_nc_logistic_derivative_missing_sign():
    from attention_theory.foundations.losses import logistic_loss_d1, logistic_loss_d2

    with negative_control("deora-eq-24", "derivatives-autograd"):
        fc.check_logistic_derivatives(d1=lambda z: -logistic_loss_d1(z), d2=logistic_loss_d2)


def test_nc_self_bounded_constant_0_9():
    with negative_control("deora-eq-24", "self-bounded"):
        fc.check_logistic_self_bounded(C=0.9)


def test_nc_curvature_bound_0_2():
    with negative_control("deora-eq-24", "curvature-and-slope"):
        fc.check_logistic_curvature(curvature_bound=0.2)


def test_nc_logistic_curvature_of_sigmoid_loss():

    def sigmoid_loss_d2(z):  # l(z) = sigmoid(-z) is not convex: l'' changes sign at 0
        s = 1.0 / (1.0 + np.exp(z))
        return s * (1 - s) * (1 - 2 * s)

    with negative_control("deora-eq-24", "strict-convexity"):
        fc.check_logistic_curvature(second_derivative=sigmoid_loss_d2)


def test_nc_empirical_risk_facts_cannot_be_weakened():
    # This check has no constant argument: its negative control swaps the loss for a
    # loss without self-boundedness (the hinge-like exp(-z) scaled down), via the module.
    from attention_theory.foundations import checks as mod

    original = mod.empirical_logistic_risk

    def wrong(z):
        r = original(z)
        return {"L": r["L"] * 0.5, "L1": r["L1"], "L2": r["L2"]}  # a halved loss

    mod.empirical_logistic_risk = wrong
    try:
        with negative_control("deora-eq-24", "empirical-risk-facts"):
            mod.check_empirical_risk_facts()
    finally:
        mod.empirical_logistic_risk = original


def test_nc_printed_risk_cap_large_enough_is_not_an_erratum():
    with negative_control("deora-eq-24", "printed-risk-le-one", match="NOT confirmed"):
        fc.check_printed_risk_le_one(printed_cap=1e6)


def test_nc_gap_with_wrong_risk():
    with negative_control("trauger-def-2-2", "gap-against-monte-carlo"):
        fc.check_generalization_gap(risk_shift=0.01)


def test_nc_rademacher_without_one_over_n():
    with negative_control("trauger-def-2-3", "exact-vs-monte-carlo"):
        fc.check_rademacher_exact_vs_mc(normalize=False)


def test_nc_linear_class_l1_dual_norm():
    with negative_control("trauger-def-2-3", "linear-class-dual-norm"):  # l1 dual norm: too large, never attained
        fc.check_linear_class_sup(dual=lambda p: 1.0)


def test_nc_linear_class_inf_dual_norm():
    with negative_control("trauger-def-2-3", "linear-class-dual-norm-upper"):  # l_inf dual norm: exceeded
        fc.check_linear_class_sup(dual=lambda p: np.inf)


def test_nc_homogeneity_without_absolute_value():
    with negative_control("trauger-def-2-3", "homogeneity"):
        fc.check_rademacher_homogeneity(use_abs=False)


def test_nc_generalization_bound_shrunk():
    # kappa* is about 10: a right-hand side shrunk 20-fold must be violated too often.
    with negative_control("trauger-eq-2-3", "threshold-class"):
        fc.check_rademacher_generalization_bound(multiplier=0.05)


def test_nc_exact_cover_greedy_is_not_optimal():
    from attention_theory.foundations.covering import greedy_cover_size

    with negative_control("trauger-def-2-4", "exact-cover-optimal"):
        fc.check_exact_covering(cover=greedy_cover_size)


def test_nc_packing_at_separation_eps():
    with negative_control("trauger-def-2-4", "packing-cover-sandwich"):
        fc.check_cover_sandwich(packing_factor=1.0)


def test_nc_dudley_constant_quarter():
    # The empirical constant c* is about 0.4-0.8 on the random and searched classes and 1.09 on the
    # one-point class {0, 1/2, 3/4, 1}: c = 0.25 is exceeded everywhere.
    with negative_control("trauger-eq-2-4", "dudley-c12"):
        fc.check_dudley(c=0.25)


def test_nc_homogeneity_exponent_half():
    with negative_control("trauger-sec-2-5", "linear-homogeneity"):
        fc.check_linear_homogeneity(exponent=0.5)


def test_nc_norm_based_shape_linear_is_not_an_erratum():
    with negative_control("trauger-sec-2-5", "norm-based-shape", match="NOT confirmed"):
        fc.check_norm_based_shape(printed_power=1.0)
