"""Negative controls for the checks of Julistiono, Tarzanagh & Azizan (reconstructed statements).

Each test runs a registered check with a deliberately wrong variant (a swapped argument, a
flipped sign, a wrong constant, a non-locally-optimal token selection, the naive softmax backward)
and requires :class:`ClaimViolation`.  Sizes are reduced (fewer ``p`` values, seeds or steps) so
the whole file stays within the CI time budget; the variants are the catalogue's.
"""

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.foundations.mirror import bregman, md_step
from attention_theory.julistiono import bregman_lemmas
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.checks import attention as ja
from attention_theory.julistiono.checks import bregman as jb


@pytest.fixture
def few_p(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (1.5, 3.0))


def test_nc_def1_arguments_swapped(few_p):
    with negative_control("julistiono-def-1", "closed-form"):
        jb.check_def1_closed_form(closed_form=lambda W, V, p: bregman(V, W, p))


def test_nc_def1_closed_form_negated(few_p):
    with negative_control("julistiono-def-1", "closed-form-nonnegative"):
        jb.check_def1_closed_form(closed_form=lambda W, V, p: -bregman(W, V, p))


def test_nc_def1_inverse_map_is_the_forward_map(few_p):
    with negative_control("julistiono-def-1", "mirror-map"):
        jb.check_def1_mirror_map(inverse=lambda U, p: np.sign(U) * np.abs(U) ** (p - 1))


def test_nc_def1_md_step_ascends(few_p):
    with negative_control("julistiono-def-1", "md-step-argmin"):
        jb.check_def1_md_step(step=lambda W, G, eta, p: md_step(W, -G, eta, p))


def test_nc_def1_md_step_minimises_swapped_divergence(few_p):
    with negative_control("julistiono-def-1", "md-step-numerical"):
        jb.check_def1_md_step(divergence=lambda V, W, p: bregman(W, V, p))


def test_nc_eq11_sign_flipped(few_p):
    with negative_control("julistiono-eq-11", "entrywise-term"):
        jb.check_eq11(phi=lambda w, v, p: np.abs(w) ** p / p - np.abs(v) ** p / p
                      + np.sign(v) * np.abs(v) ** (p - 1) * (w - v))


def test_nc_eq11_monotonicity_cases_exchanged(few_p):
    with negative_control("julistiono-eq-11", "entrywise-sign"):
        jb.check_eq11(increasing_for_p_at_least_2=False)


def test_nc_lemma12_exponent_inverted():
    with negative_control("julistiono-lemma-12", "norm-interval"):
        jb.check_lemma12(exponent=lambda p: 0.5 - 1.0 / p)


def test_nc_lemma13_L2_constant_times_1_1(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (1.75,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        jb.check_lemma13(c_L2=lambda p: 1.1 * (p - 1) / 2)


def test_nc_lemma13_L2_outside_the_ball(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (1.75,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        jb.check_lemma13(radius=11.0)


def test_nc_lemma13_L1_constant_times_10(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (3.0,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        jb.check_lemma13(c_L1=lambda p: 10.0 / (p * 2 ** p))


def test_nc_lemma14_x_and_y_exchanged(few_p):
    with negative_control("julistiono-lemma-14", "power-difference"):
        jb.check_lemma14(bounds=lambda x, y, p: (p * x ** (p - 1) * (x - y), p * y ** (p - 1) * (x - y)))


def test_nc_lemma15_cases_swapped(few_p):

    def swapped(x, y, p):  # the p >= 2 case used for p < 2 and vice versa
        big, small = (p - 1) * x ** (p - 2) * (x - y), (p - 1) * y ** (p - 2) * (x - y)
        return (big, small) if p >= 2 else (small, big)

    with negative_control("julistiono-lemma-15", "power-minus-one-difference"):
        jb.check_lemma15(bounds=swapped)


def test_nc_lemma26_sign_flipped(few_p):
    with negative_control("julistiono-lemma-26", "cosine-law"):
        jb.check_lemma26(sign=1.0)


def test_nc_eq22_sign_flipped(few_p, monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-22", "inner-product-identity"):
        jb.check_lemma22(sign=1.0)


def test_nc_lemma22_dual_norm_power(few_p, monkeypatch):
    # Hoelder with the wrong power: divide the growth term by ||W||^(p-1) instead of ||W||;
    # (22) itself stays right, so the wrong variant reaches the lemma's inequality
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-22", "norm-growth"):
        jb.check_lemma22(denominator_exponent=lambda p: p - 1)


def test_nc_lemma23_sign_flipped(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-23", "md-identities"):
        jb.check_lemma23(sign=-1.0)


def test_nc_eq23_sign_flipped(few_p, monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-23", "three-point-forms"):
        jb.check_lemma23(generic_sign=-1.0)


def test_nc_lemma24_step_too_large(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "one-step-descent"):
        jb.check_lemma24(require_relative_smoothness=False, etas=(500.0,))


def test_nc_eq24_coefficient_one_over_p(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-24", "descent-identities"):
        jb.check_lemma24(etas=(0.3,), norm_coefficient=lambda p: 1.0 / p)


def test_nc_lemma24_smoothness_constant_too_small(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "smoothness-constant"):
        jb.check_lemma24(smoothness_factor=0.01)


def test_nc_lemma24_large_step_is_small(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "large-step-breaks-descent"):
        jb.check_lemma24(large_eta=0.1)


def test_nc_lemma25_sign_flipped(monkeypatch):
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-25", "azizan-hassibi"):
        jb.check_lemma25(sign=-1.0)


def test_nc_lemma4_factor_dropped(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (1.25,))
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.25,))
    with negative_control("julistiono-lemma-4", "norm-increment"):
        jb.check_lemma4(factor=lambda x, y, p: 1.0)


def test_lemma4_catalogue_form_fails_for_large_p():
    assert not bregman_lemmas.lemma4_catalogue_outcome().passed


def test_nc_assumption_A_increasing_loss():
    with negative_control("julistiono-assum-a", "loss-properties"):
        ja.check_assumption_A(losses={"exp-up": (np.exp, np.exp)})


def test_nc_assumption_A_derivative_doubled():
    f, df = ja._LOSS_FNS["logistic"]
    with negative_control("julistiono-assum-a", "loss-derivative"):
        ja.check_assumption_A(losses={"logistic": (f, lambda u: 2.0 * df(u))})


def test_nc_def3_kkt_with_nonsupport_rows(monkeypatch):
    with negative_control("julistiono-def-3", "support-kkt"):
        ja.check_def3(kkt_rows="nonsupport", p=2.0)


def test_nc_lemma16_max_and_min_exchanged():
    with negative_control("julistiono-lemma-16", "objective-bounds"):
        ja.check_lemma16(lower_fn=np.min, upper_fn=np.max)


def test_nc_lemma17_transposed_gradient():
    with negative_control("julistiono-lemma-17", "gradient-formula"):
        ja.check_lemma17(grad_fn=lambda W, X, z, Y, v, loss: mj.gradient_W(W, X, z, Y, v, loss=loss).T)


def test_nc_lemma17_jacobian_without_outer_term():

    def no_outer(W, X, z, Y, v, loss):
        g = mj.scores(X, Y, v)
        s = mj.attention(X, z, W)
        u = np.sum(s * g, axis=-1)
        lp = mj.loss_derivative(u, loss)
        return np.einsum("n,ntd,nt,ne->de", lp, X, s * g, z) / X.shape[0]

    with negative_control("julistiono-lemma-17", "gradient-formula"):
        ja.check_lemma17(grad_fn=no_outer)


def test_nc_lemma18_bound_times_0_1():
    with negative_control("julistiono-lemma-18", "gradient-bound"):
        ja.check_lemma18(scale=0.1)


def test_nc_lemma18_bound_times_0_99():
    # G is sharp (ratio -> 1 along the tight family x = (a, -a), W = -a^(-3/2)): 1% less must fail
    with negative_control("julistiono-lemma-18", "gradient-bound"):
        ja.check_lemma18(scale=0.99)


def test_nc_lemma18_jacobian_bound_one_quarter():
    with negative_control("julistiono-lemma-18", "softmax-jacobian-norm"):
        ja.check_lemma18(jacobian_bound=0.25)


def test_nc_lemma19_radius_100_mu0():
    with negative_control("julistiono-lemma-19", "cone-margins"):
        ja.check_lemma19(mu_factor=100.0, ps=(2.0,))


def test_nc_eq12_margin_5_over_2():
    with negative_control("julistiono-eq-12", "three-inequalities"):
        ja.check_lemma19(margin=2.5, ps=(2.0,))


def test_nc_lemma20_not_locally_optimal():
    with negative_control("julistiono-lemma-20", "positive-correlation"):
        ja.check_lemma20(alpha_rule="worst", p=2.0)


def test_nc_eq13_sum_instead_of_mean():
    with negative_control("julistiono-eq-13", "correlation-formula"):
        ja.check_lemma20(eq13_average=np.sum)


def test_nc_eq14_product_of_means_dropped():
    with negative_control("julistiono-eq-14", "covariance-identity"):
        ja.check_lemma20(eq14_product_term=0.0)


def test_nc_eq16_support_ratios_exactly_e_minus_rho():
    with negative_control("julistiono-eq-16", "softmax-ratios"):
        ja.check_lemma20(eq16_band=0.0)


def test_nc_eq17_square_root_of_the_softmax_ratio():
    with negative_control("julistiono-eq-17", "combined-lower-bound"):
        ja.check_lemma20(eq17_rate=0.5)


def test_nc_eq18_support_by_exact_equality():
    with negative_control("julistiono-eq-18", "c-plus-positive"):
        ja.check_lemma20(eq18_support_tol=0.0)


def test_nc_lemma21_not_locally_optimal():
    with negative_control("julistiono-lemma-21", "svm-direction-beats-current"):
        ja.check_lemma21(alpha_rule="worst", p=2.0, eps_list=(0.2,))


def test_nc_eq19_one_plus_eps():
    with negative_control("julistiono-eq-19", "rescaled-inequality"):
        ja.check_lemma21(eps_list=(0.2,), eq19_eps_sign=-1.0)


def test_nc_eq20_product_of_means_dropped():
    with negative_control("julistiono-eq-20", "per-sample-decomposition"):
        ja.check_lemma21(eps_list=(0.2,), eq20_product_term=0.0)


def test_nc_eq21_square_root_of_the_softmax_ratio():
    with negative_control("julistiono-eq-21", "lower-bound"):
        ja.check_lemma21(eps_list=(0.2,), eq21_rate=0.5)


def test_nc_lemma27_not_locally_optimal():
    with negative_control("julistiono-lemma-27", "per-step-progress"):
        ja.check_lemma27(alpha_rule="worst", ps=(2.0,))


def test_nc_eq25_without_the_large_norm_hypothesis():
    with negative_control("julistiono-eq-25", "per-step-ratio"):
        ja.check_lemma27(ps=(2.0,), eq25_R0_min=1.0)


def test_nc_lemma27_eps_increasing_in_R0():
    with negative_control("julistiono-lemma-27", "eps-decreasing-in-r0"):
        ja.check_lemma27(ps=(2.0,), eps_trend=-1.0)


def test_nc_lemma28_start_outside_the_cone():
    with negative_control("julistiono-lemma-28", "cone-invariance"):
        ja.check_lemma28(alpha_rule="global", init="random", ps=(2.0,))


def test_nc_eq26_norm_power_p():
    with negative_control("julistiono-eq-26", "divergence-identity"):
        ja.check_lemma28(ps=(1.75,), eq26_exponent=lambda p: p)


def test_nc_eq27_eps_halved():
    with negative_control("julistiono-eq-27", "divergence-recursion"):
        ja.check_lemma28(ps=(2.0,), eq27_eps_factor=0.5)


def test_nc_lemma28_norms_non_increasing():
    with negative_control("julistiono-lemma-28", "monotone-norm"):
        ja.check_lemma28(ps=(2.0,), norm_trend=-1.0)


def test_nc_lemma30_sqrt_growth():
    with negative_control("julistiono-lemma-30", "log-norm-growth"):
        ja.check_lemma30(growth=np.sqrt, ps=(2.0,))


def test_nc_lemma30_thin_cone_start_does_not_decrease():
    with negative_control("julistiono-lemma-30", "random-start-norm-decreases"):
        ja.check_lemma30(ps=(2.0,), variant_start="thin-cone")


def test_nc_fig4_naive_softmax_backward():
    with negative_control("julistiono-fig-4", "own-svm-closest"):
        ja.check_fig4(stable=False, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_fig4_svm_with_another_q():
    with negative_control("julistiono-fig-4", "own-svm-closest"):
        ja.check_fig4(q_for_svm=lambda p: 3.0, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_lemma29_naive_softmax_backward():
    with negative_control("julistiono-lemma-29", "directional-convergence"):
        ja.check_lemma29(stable=False, ps=(1.75,), seeds=(1, 2, 3))
