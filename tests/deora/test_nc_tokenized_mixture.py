"""Negative controls for the checks of the chapter ``book/deora/tokenized-mixture.md``
(Deora et al., Section 5.1 and Appendices D.1-D.3, F;
``src/attention_theory/deora/checks/tokenized_mixture.py``).

Each test runs a registered check with a deliberately wrong variant of its statement (a dropped
factor, a transposed matrix, a wrong center, an erratum whose "printed" side is already correct)
and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.deora import dm1
from attention_theory.deora.checks import tokenized_mixture as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_sampler_noise_depends_on_label():
    with negative_control("deora-def-dm1", "sampler"):

        def biased(cfg, n, seed=0, noise=None):
            s = dm1.sample(cfg, n, seed=seed, noise=noise)
            s.X = s.X + 0.01 * s.y[:, None, None] * (~s.relevant)[:, :, None] * np.eye(cfg.d)[-1]
            return s
        checks.check_dm1_sampler(sampler=biased)


def test_nc_radius_without_cross_term():
    with negative_control("deora-assum-3", "token-radius"):
        checks.check_assum3_radius(radius=lambda c: math.sqrt(c.S**2 + c.Z**2))


def test_nc_linear_margin_factor_two_dropped():
    with negative_control("deora-eq-132", "oracle-margin"):
        checks.check_linear_margin(
                gamma_lin_fn=lambda c: c.S * math.sqrt(c.T / 2) * (c.zeta - (1 - c.zeta) * c.Z_mu / c.S**2))


def test_nc_linear_oracle_e6_normalization():
    with negative_control("deora-def-linear", "svm-vs-oracle"):
        checks.check_linear_svm(oracle_scale=lambda c: 1 / (c.S * math.sqrt(c.T)))


def test_nc_two_phase_without_sqrt_H():
    with negative_control("deora-def-two-phase", "head-scaling"):
        checks.check_two_phase_scaling(step_scale=lambda H: 1.0)


def test_nc_first_step_opposite_sign():
    with negative_control("deora-lemma-16", "autograd-step"):
        checks.check_first_step(sign=-1.0)


def test_nc_loss_slope_printed_already_correct():
    with negative_control("deora-lemma-16", "loss-slope-erratum"):
        checks.check_loss_slope(printed_slope=-0.5)


def test_nc_eq120_wrong_p2():
    with negative_control("deora-eq-120", "decomposition"):
        checks.check_eq120(p2_scale=2.0)


def test_nc_lemma17_printed_center_already_corrected():
    # with the centre u_star/2 as the "printed" one, C_hat does not grow: the erratum is not confirmed
    with negative_control("deora-lemma-17", "implied-constant", match="NOT confirmed"):
        checks.check_lemma17(printed_center=0.5, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma17_growth_below_a_margin_above_one_half():
    # the printed C_hat grows like n1^(1/2): a margin above 1/2 would not call that growth
    with negative_control("deora-lemma-17", "implied-constant", match="NOT confirmed"):
        checks.check_lemma17(margin=0.6, n1s=[100, 1000, 10000], reps=4)


def test_nc_fact1_too_small_psi2_norm():
    with negative_control("deora-fact-1", "chi-quantile"):
        checks.check_fact1(K=0.3)


def test_nc_lemma2_printed_center_already_corrected():
    # with the centre zeta/4 u_star as the "printed" one, the constant (6) needs does not grow
    with negative_control("deora-lemma-2", "center-erratum", match="NOT confirmed"):
        checks.check_lemma2(printed_center=0.25, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma2_growth_below_a_margin_above_one_half():
    # the printed constant grows like n1^(1/2) at most: a margin above 1/2 would not call that growth
    with negative_control("deora-lemma-2", "center-erratum", match="NOT confirmed"):
        checks.check_lemma2(margin=0.6, n1s=[100, 1000, 10000], reps=4)


def test_nc_lemma2_corrected_with_the_printed_center():
    # the printed centre as the "corrected" one: its constant grows past twice its first value
    with negative_control("deora-lemma-2", "center-erratum", match="corrected version fails"):
        checks.check_lemma2(corrected_center=0.5, n1s=[100, 1000, 10000], reps=4)


def test_nc_eq6_with_printed_center():
    with negative_control("deora-eq-6", "implied-constant-corrected"):
        checks.check_eq6(center=0.5, names=("A",), n1s=[100, 3000], reps=4)


def test_nc_eq102_not_divided_by_alpha():
    with negative_control("deora-eq-102", "shared-direction"):
        checks.check_eq102(divide_by_alpha=False)


def test_nc_fact2_printed_already_two_sided():
    with negative_control("deora-fact-2", "exact-binomial"):
        checks.check_fact2(printed_log=lambda d: math.log(2 / d))


def test_nc_eq103_single_alpha_is_not_an_erratum():
    with negative_control("deora-eq-103", "model-output-identity"):
        checks.check_eq103(printed_alpha_power=1)


def test_nc_lemma12_printed_already_two_sided():
    with negative_control("deora-lemma-12", "exact-binomial"):
        checks.check_lemma12(printed_log=lambda d: math.log(2 / d))


def test_nc_prop2_B2_wrong_power_of_T():
    with negative_control("deora-prop-2", "p1-p2"):
        checks.check_prop2_p1p2(b2_fn=lambda T, S, P: (S + P) / math.sqrt(T))


def test_nc_prop2_p3_full_gamma_star_twice():
    with negative_control("deora-prop-2", "p3-ntk-margin"):
        checks.check_prop2_p3(gamma_fraction=2.0)
