"""Negative controls for the checks of Deora et al., Section 5 and Appendices D-F
(``checks/deora_mixture.py`` and ``checks/deora_margins.py``).

Each test runs a registered check with a deliberately wrong variant of its statement (a dropped
factor, a transposed matrix, a wrong center, an erratum whose "printed" side is already correct)
and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.deora import dm1, mixture
from attention_theory.deora.checks import margins as dg
from attention_theory.deora.checks import mixture as dx

pytestmark = pytest.mark.usefixtures("float64_default")


# --- D5.0 -------------------------------------------------------------------------


def test_nc_sampler_noise_depends_on_label():
    with negative_control("deora-def-dm1", "sampler"):

        def biased(cfg, n, seed=0, noise=None):
            s = dm1.sample(cfg, n, seed=seed, noise=noise)
            s.X = s.X + 0.01 * s.y[:, None, None] * (~s.relevant)[:, :, None] * np.eye(cfg.d)[-1]
            return s
        dx.check_dm1_sampler(sampler=biased)


def test_nc_radius_without_cross_term():
    with negative_control("deora-assum-3", "token-radius"):
        dx.check_assum3_radius(radius=lambda c: math.sqrt(c.S**2 + c.Z**2))


def test_nc_linear_margin_factor_two_dropped():
    with negative_control("deora-eq-132", "oracle-margin"):
        dx.check_linear_margin(
                gamma_lin_fn=lambda c: c.S * math.sqrt(c.T / 2) * (c.zeta - (1 - c.zeta) * c.Z_mu / c.S**2))


def test_nc_linear_oracle_e6_normalization():
    with negative_control("deora-def-linear", "svm-vs-oracle"):
        dx.check_linear_svm(oracle_scale=lambda c: 1 / (c.S * math.sqrt(c.T)))


# --- D5.1 -------------------------------------------------------------------------


def test_nc_two_phase_without_sqrt_H():
    with negative_control("deora-def-two-phase", "head-scaling"):
        dx.check_two_phase_scaling(step_scale=lambda H: 1.0)


def test_nc_first_step_opposite_sign():
    with negative_control("deora-lemma-16", "autograd-step"):
        dx.check_first_step(sign=-1.0)


def test_nc_loss_slope_printed_already_correct():
    with negative_control("deora-lemma-16", "loss-slope-erratum"):
        dx.check_loss_slope(printed_slope=-0.5)


def test_nc_eq120_wrong_p2():
    with negative_control("deora-eq-120", "decomposition"):
        dx.check_eq120(p2_scale=2.0)


def test_nc_lemma17_printed_center_already_corrected():
    # with the centre u_star/2 as the "printed" one, C_hat does not grow: the erratum is not confirmed
    with negative_control("deora-lemma-17", "implied-constant", match="NOT confirmed"):
        dx.check_lemma17(printed_center=0.5, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma17_growth_below_a_margin_above_one_half():
    # the printed C_hat grows like n1^(1/2): a margin above 1/2 would not call that growth
    with negative_control("deora-lemma-17", "implied-constant", match="NOT confirmed"):
        dx.check_lemma17(margin=0.6, n1s=[100, 1000, 10000], reps=4)


def test_nc_fact1_too_small_psi2_norm():
    with negative_control("deora-fact-1", "chi-quantile"):
        dx.check_fact1(K=0.3)


def test_nc_lemma2_printed_center_already_corrected():
    # with the centre zeta/4 u_star as the "printed" one, the constant (6) needs does not grow
    with negative_control("deora-lemma-2", "center-erratum", match="NOT confirmed"):
        dx.check_lemma2(printed_center=0.25, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma2_growth_below_a_margin_above_one_half():
    # the printed constant grows like n1^(1/2) at most: a margin above 1/2 would not call that growth
    with negative_control("deora-lemma-2", "center-erratum", match="NOT confirmed"):
        dx.check_lemma2(margin=0.6, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma2_corrected_with_the_printed_center():
    # the printed centre as the "corrected" one: its constant grows past twice its first value
    with negative_control("deora-lemma-2", "center-erratum", match="corrected version fails"):
        dx.check_lemma2(corrected_center=0.5, n1s=[100, 1000, 10000], reps=4)


def test_nc_eq6_with_printed_center():
    with negative_control("deora-eq-6", "implied-constant-corrected"):
        dx.check_eq6(center=0.5, names=("A",), n1s=[100, 3000], reps=4)


# --- D5.2 -------------------------------------------------------------------------


def test_nc_eq102_not_divided_by_alpha():
    with negative_control("deora-eq-102", "shared-direction"):
        dx.check_eq102(divide_by_alpha=False)


def test_nc_fact2_printed_already_two_sided():
    with negative_control("deora-fact-2", "exact-binomial"):
        dx.check_fact2(printed_log=lambda d: math.log(2 / d))


def test_nc_eq103_single_alpha_is_not_an_erratum():
    with negative_control("deora-eq-103", "model-output-identity"):
        dx.check_eq103(printed_alpha_power=1)


def test_nc_lemma12_printed_already_two_sided():
    with negative_control("deora-lemma-12", "exact-binomial"):
        dx.check_lemma12(printed_log=lambda d: math.log(2 / d))


def test_nc_prop2_B2_wrong_power_of_T():
    with negative_control("deora-prop-2", "p1-p2"):
        dx.check_prop2_p1p2(b2_fn=lambda T, S, P: (S + P) / math.sqrt(T))


# --- D5.3 -------------------------------------------------------------------------


def test_nc_wstar_norm():
    with negative_control("deora-def-wstar", "norms-and-factorization"):
        dg.check_wstar(w_norm=lambda c: c.S**2 * math.sqrt(c.M + 1))


def test_nc_wstar_naming_printed_already_consistent():
    with negative_control("deora-def-wstar", "key-query-naming"):
        dg.check_wstar_naming(printed_product=lambda WK, WQ: WK @ WQ.T)


def test_nc_scores_transposed():
    with negative_control("deora-eq-8", "exact-scores"):
        dg.check_eq8(transpose=True)


def test_nc_sec52_printed_jacobian_already_R0():
    with negative_control("deora-sec-5-2", "softmax-jacobian-at-zero"):
        from attention_theory.deora import ntk
        dg.check_sec52(printed_jacobian=ntk.R0)


def test_nc_eq106_factor_two_dropped():
    with negative_control("deora-eq-106", "u-part"):
        dg.check_eq106(
                gamma_lin_fn=lambda c: c.S * math.sqrt(c.T / 2) * (c.zeta - (1 - c.zeta) * c.Z_mu / c.S**2))


def test_nc_eq107_rank_one_term_dropped():
    with negative_control("deora-eq-107", "w-part-split"):
        dg.check_eq107(rank_one=False)


def test_nc_eq112_lead_without_zeta():
    with negative_control("deora-eq-112", "adversarial"):
        dg.check_eq112(lead=1.0)


def test_nc_eq113_leading_term_dropped():
    with negative_control("deora-eq-113", "adversarial"):
        dg.check_eq113(lead=0.0)


def test_nc_eq114_term_two_ignored():
    with negative_control("deora-eq-114", "worst-p"):
        dg.check_eq114(rhs_scale=0.0)


def test_nc_eq115_doubled():
    with negative_control("deora-eq-115", "printed-parametrization"):
        dg.check_eq115(factor=1.0, names=("C",))


def test_nc_eq116_not_halved():
    with negative_control("deora-eq-116", "corrected-center"):
        dg.check_eq116(denominator=2.0, names=("C",))


def test_nc_lemma13_without_sign_alpha():
    with negative_control("deora-lemma-13", "per-sample-margin"):
        dg.check_lemma13(sign=-1.0, names=("B",))


def test_nc_eq118_radius_too_small():
    with negative_control("deora-eq-118", "summand-bound"):
        dg.check_eq118(R_scale=0.1, names=("C",))


def test_nc_lemma14_without_sign_alpha():
    with negative_control("deora-lemma-14", "head-invariance"):
        dg.check_lemma14(use_sign=False)


def test_nc_lemma15_doubled_gamma_star():
    with negative_control("deora-lemma-15", "ntk-max-margin"):
        dg.check_lemma15(gamma_star_fn=lambda c, P: 2 * mixture.gstar(c, P), names=("C",), reduction=False)


def test_nc_prop2_p3_full_gamma_star_twice():
    with negative_control("deora-prop-2", "p3-ntk-margin"):
        dg.check_prop2_p3(gamma_fraction=2.0)


def test_nc_eq7_wrong_denominator():
    with negative_control("deora-eq-7", "values-and-scaling"):
        from attention_theory.deora import mixture_bounds as bm

        def wrong(T, z, S, M, Zm, Zn, Z, P):
            return 2 * bm.gamma_star(T, z, S, M, Zm, Zn, Z, P) - bm.gamma_lin(T, z, S, Zm) - bm.gamma_star_parts(
                T, z, S, M, Zm, Zn, Z, P)["p"]
        dg.check_eq7(gamma_star_fn=wrong)


def test_nc_sec51_wrong_limit():
    with negative_control("deora-sec-5-1-example", "large-s-limit"):
        dg.check_sec51_example(limit=lambda T, M: T / (2 * math.sqrt(2 * (M + 1))))


# --- D5.4 -------------------------------------------------------------------------


def test_nc_eq9_printed_already_normalized():
    with negative_control("deora-eq-9", "norms"):
        dg.check_eq9(printed_scale=lambda S, T: 1 / (S * math.sqrt(2 * T)))


def test_nc_lemma18_gamma_below_threshold():
    with negative_control("deora-lemma-18", "saturation"):
        dg.check_lemma18(gamma_factor=0.9)


def test_nc_lemma18_sign_condition_already_printed():
    with negative_control("deora-lemma-18", "sign-condition"):
        dg.check_lemma18_sign(printed_requires_positive_A=True)


def test_nc_eq10_transposed_attention():
    with negative_control("deora-eq-10", "leak"):
        dg.check_eq10(transpose=True, small=True)


def test_nc_eq11_limit_margin_not_attained():
    with negative_control("deora-eq-11", "margin"):
        dg.check_eq11(eps_in_bound=False, small=True)


def test_nc_prop3_gamma_too_small():
    with negative_control("deora-prop-3", "saturation-and-margin"):
        dg.check_prop3(gamma_factor=0.3, small=True)


def test_nc_eq129_transposed():
    with negative_control("deora-eq-129", "score-gap"):
        dg.check_eq129(transpose=True, names=("A",))


def test_nc_eq129_chain_printed_already_correct():
    with negative_control("deora-eq-129", "constant-chain"):
        dg.check_eq129_chain(printed_multiple=1.0)


def test_nc_ordering_small_S_only():
    with negative_control("deora-sec-5-3-margins", "ordering"):
        dg.check_ordering(s_grid=[0.5, 1.0])


# --- D5.5 -------------------------------------------------------------------------


def test_nc_eq12_constant_too_large():
    with negative_control("deora-eq-12", "dominance"):
        dg.check_eq12(const=400.0)


def test_nc_sec53_weaker_head_condition_is_feasible():
    with negative_control("deora-sec-5-3", "log-lp"):
        dg.check_sec53(s_power=1.0, p_values=[0.5, 2.0])


def test_nc_sec53_exponent_printed_already_corrected():
    with negative_control("deora-sec-5-3", "exponent-erratum"):
        dg.check_sec53_exponent(printed_exponent=0.75)
