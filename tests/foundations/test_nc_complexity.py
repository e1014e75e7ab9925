"""Negative controls for the checks of ``book/foundations/complexity.md``
(:mod:`attention_theory.foundations.checks.complexity`).

Each test runs a registered check on a deliberately wrong variant of its
statement (wrong constant, wrong formula, wrong orientation) and requires the
check to reject it.  A check that accepted these variants could not fail.
"""

import numpy as np

from _nc import negative_control
from attention_theory.foundations.checks import complexity as checks


def test_nc_gap_with_wrong_risk():
    with negative_control("trauger-def-2-2", "gap-against-monte-carlo"):
        checks.check_generalization_gap(risk_shift=0.01)


def test_nc_rademacher_without_one_over_n():
    with negative_control("trauger-def-2-3", "exact-vs-monte-carlo"):
        checks.check_rademacher_exact_vs_mc(normalize=False)


def test_nc_linear_class_l1_dual_norm():
    # l1 dual norm: too large, never attained
    with negative_control("trauger-def-2-3", "linear-class-dual-norm"):
        checks.check_linear_class_sup(dual=lambda p: 1.0)


def test_nc_linear_class_inf_dual_norm():
    with negative_control("trauger-def-2-3", "linear-class-dual-norm-upper"):  # l_inf dual norm: exceeded
        checks.check_linear_class_sup(dual=lambda p: np.inf)


def test_nc_homogeneity_without_absolute_value():
    with negative_control("trauger-def-2-3", "homogeneity"):
        checks.check_rademacher_homogeneity(use_abs=False)


def test_nc_generalization_bound_shrunk():
    # kappa* is about 10: a right-hand side shrunk 20-fold must be violated too often.
    with negative_control("trauger-eq-2-3", "threshold-class"):
        checks.check_rademacher_generalization_bound(multiplier=0.05)


def test_nc_exact_cover_greedy_is_not_optimal():
    from attention_theory.foundations.covering import greedy_cover_size

    with negative_control("trauger-def-2-4", "exact-cover-optimal"):
        checks.check_exact_covering(cover=greedy_cover_size)


def test_nc_packing_at_separation_eps():
    with negative_control("trauger-def-2-4", "packing-cover-sandwich"):
        checks.check_cover_sandwich(packing_factor=1.0)


def test_nc_dudley_constant_quarter():
    # The empirical constant c* is about 0.4-0.8 on the random and searched classes and 1.09 on the
    # one-point class {0, 1/2, 3/4, 1}: c = 0.25 is exceeded everywhere.
    with negative_control("trauger-eq-2-4", "dudley-c12"):
        checks.check_dudley(c=0.25)


def test_nc_homogeneity_exponent_half():
    with negative_control("trauger-sec-2-5", "linear-homogeneity"):
        checks.check_linear_homogeneity(exponent=0.5)


def test_nc_norm_based_shape_linear_is_not_an_erratum():
    with negative_control("trauger-sec-2-5", "norm-based-shape", match="NOT confirmed"):
        checks.check_norm_based_shape(printed_power=1.0)

