"""Negative controls for the checks of the chapter ``book/deora/ntk-margin.md``
(Deora et al., Sections 5.1-5.2 and Appendices D.2.3, D.3;
``src/attention_theory/deora/checks/ntk_margin.py``).

Each test runs a registered check with a deliberately wrong variant of its statement (a dropped
factor, a transposed matrix, a wrong center, an erratum whose "printed" side is already correct)
and requires :class:`ClaimViolation`.
"""

import math

import pytest

from _nc import negative_control
from attention_theory.deora import mixture, mixture_bounds, ntk
from attention_theory.deora.checks import ntk_margin as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_wstar_norm():
    with negative_control("deora-def-wstar", "norms-and-factorization"):
        checks.check_wstar(w_norm=lambda c: c.S**2 * math.sqrt(c.M + 1))


def test_nc_wstar_naming_printed_already_consistent():
    with negative_control("deora-def-wstar", "key-query-naming"):
        checks.check_wstar_naming(printed_product=lambda WK, WQ: WK @ WQ.T)


def test_nc_scores_transposed():
    with negative_control("deora-eq-8", "exact-scores"):
        checks.check_eq8(transpose=True)


def test_nc_sec52_printed_jacobian_already_R0():
    with negative_control("deora-sec-5-2", "softmax-jacobian-at-zero"):
        checks.check_sec52(printed_jacobian=ntk.R0)


def test_nc_eq106_factor_two_dropped():
    with negative_control("deora-eq-106", "u-part"):
        checks.check_eq106(
                gamma_lin_fn=lambda c: c.S * math.sqrt(c.T / 2) * (c.zeta - (1 - c.zeta) * c.Z_mu / c.S**2))


def test_nc_eq107_rank_one_term_dropped():
    with negative_control("deora-eq-107", "w-part-split"):
        checks.check_eq107(rank_one=False)


def test_nc_eq112_lead_without_zeta():
    with negative_control("deora-eq-112", "adversarial"):
        checks.check_eq112(lead=1.0)


def test_nc_eq113_leading_term_dropped():
    with negative_control("deora-eq-113", "adversarial"):
        checks.check_eq113(lead=0.0)


def test_nc_eq114_term_two_ignored():
    with negative_control("deora-eq-114", "worst-p"):
        checks.check_eq114(rhs_scale=0.0)


def test_nc_eq115_doubled():
    with negative_control("deora-eq-115", "printed-parametrization"):
        checks.check_eq115(factor=1.0, names=("C",))


def test_nc_eq116_not_halved():
    with negative_control("deora-eq-116", "corrected-center"):
        checks.check_eq116(denominator=2.0, names=("C",))


def test_nc_lemma13_without_sign_alpha():
    with negative_control("deora-lemma-13", "per-sample-margin"):
        checks.check_lemma13(sign=-1.0, names=("B",))


def test_nc_eq118_radius_too_small():
    with negative_control("deora-eq-118", "summand-bound"):
        checks.check_eq118(R_scale=0.1, names=("C",))


def test_nc_lemma14_without_sign_alpha():
    with negative_control("deora-lemma-14", "head-invariance"):
        checks.check_lemma14(use_sign=False)


def test_nc_lemma15_doubled_gamma_star():
    with negative_control("deora-lemma-15", "ntk-max-margin"):
        checks.check_lemma15(gamma_star_fn=lambda c, P: 2 * mixture.gstar(c, P), names=("C",),
                             reduction=False)


def test_nc_eq7_wrong_denominator():
    with negative_control("deora-eq-7", "values-and-scaling"):
        def wrong(T, z, S, M, Zm, Zn, Z, P):
            return (2 * mixture_bounds.gamma_star(T, z, S, M, Zm, Zn, Z, P)
                    - mixture_bounds.gamma_lin(T, z, S, Zm)
                    - mixture_bounds.gamma_star_parts(T, z, S, M, Zm, Zn, Z, P)["p"])
        checks.check_eq7(gamma_star_fn=wrong)


def test_nc_sec51_wrong_limit():
    with negative_control("deora-sec-5-1-example", "large-s-limit"):
        checks.check_sec51_example(limit=lambda T, M: T / (2 * math.sqrt(2 * (M + 1))))
