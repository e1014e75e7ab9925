"""Negative controls for the checks of Deora et al.'s training analysis (Lemmas 7-10,
Theorem 1, Assumption 2, Corollary 3), plus unit tests of the fixtures and bound calculators.

Each negative control runs a registered check with a deliberately wrong variant of its
statement and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.deora import bounds as bd
from attention_theory.deora import training
from attention_theory.deora.checks import training as checks
from attention_theory.foundations import hessian as hs

pytestmark = pytest.mark.usefixtures("float64_default")


def _too_small_smoothness(loss, th_k, th_next, H, T, d, R):
    """2.5 / (g^T Hess g / |g|^2) as step: overshoots along the gradient."""
    from attention_theory.deora.landscape import loss_and_grad
    _, g = loss_and_grad(loss, th_k)
    g = g / torch.linalg.norm(g)
    q = float(g @ hs.hvp_function(loss, th_k)(g))
    return max(q, 1e-12) / 2.5


def test_nc_descent_with_overshooting_step():
    with negative_control("deora-lemma-7", "descent-along-gd"):
        checks.check_lemma7(smoothness=_too_small_smoothness)


def test_nc_lemma8_without_distance_term():
    with negative_control("deora-lemma-8", "regret-along-gd"):
        checks.check_lemma8(distance_term=0.0)


def test_nc_lemma8_per_step_without_target_loss():
    # (70) without its L(theta) term; the convex version (no curvature term) still holds here
    with negative_control("deora-lemma-8", "per-step-70"):
        checks.check_lemma8(step_target_loss=0.0)


def test_nc_lemma9_without_distance_terms():
    with negative_control("deora-lemma-9", "trajectory-certified"):
        checks.check_lemma9(coefficients=(2.0, 0.0, 0.0))


def test_nc_lemma10_constant_one():
    with negative_control("deora-lemma-10", "iterates-norm"):  # the uphill target: GD moves away from it
        checks.check_lemma10(constant=1.0)


def test_nc_lemma10_sharper_constant_one():
    with negative_control("deora-lemma-10", "sharper-constant"):  # the uphill target: GD moves away from it
        checks.check_lemma10(sharp_constant=1.0)


def test_nc_thm1_certified_constant_one():
    with negative_control("deora-thm-1", "certified-smoke"):
        checks.check_thm1_certified(iterate_constant=1.0)


def test_nc_thm1_flin_without_regret_term():
    with negative_control("deora-thm-1", "certified-f-lin"):
        checks.check_thm1_flin(regret_coef=0.0)


def test_nc_thm1_flin_reduction_without_T():
    with negative_control("deora-thm-1", "h-reduction"):
        checks.check_thm1_flin(reduction=lambda m0, eta, K, T: training.flin_margins(m0, eta, K, 1))


def test_nc_thm1_formulas_with_smaller_a():
    with negative_control("deora-thm-1", "formula-grid"):
        checks.check_thm1_formulas(a_fn=lambda D, B, T, d, R: 0.5 * bd.step_constant_a(D, B, T, d, R))


def test_nc_rho_order_exact_is_not_an_erratum():
    # Theorem 3's rho at H = 1 (its largest value) as the "printed" order: 1/(C order) <= 1/rho for C >= 1
    with negative_control("deora-thm-1", "main-text-rho-order", match="NOT confirmed"):
        checks.check_thm1_rho_order(printed=lambda D, B, T, d, R: bd.rho(D, B, T, d, R, 1))


def test_nc_rho_order_corrected_form_is_not_an_erratum():
    # the corrected order (at H = 1), as the "printed" one, bounds rho for every constant >= 1
    with negative_control("deora-thm-1", "main-text-rho-order", match="NOT confirmed"):
        checks.check_thm1_rho_order(printed=lambda D, B, T, d,
                                    R: training.rho_corrected_order(D, B, T, d, R, 1))


def test_nc_head_order_exact_is_not_an_erratum():
    with negative_control("deora-thm-1", "main-text-head-order", match="NOT confirmed"):
        checks.check_thm1_head_order(printed=training.heads_exact_sqrt)


def test_nc_head_order_corrected_form_is_not_an_erratum():
    # the corrected condition, as the "printed" order, implies Theorem 3's for every constant >= 1
    with negative_control("deora-thm-1", "main-text-head-order", match="NOT confirmed"):
        checks.check_thm1_head_order(printed=lambda D, B, T, d,
                                     R: 324 * d * math.sqrt(T) * R**5 * (D + B + 1) * D**2)


def test_nc_assum2_g0_below_minimal_distance():
    with negative_control("deora-assum-2", "witnesses-f-lin"):
        checks.check_assum2(g0_scale=0.95)


def test_nc_cor3_inner_factor_one():
    with negative_control("deora-cor-3", "formula-implication"):
        checks.check_cor3(inner=1.0)


# --- unit tests ----------------------------------------------------------------------


def test_thm1_calculators():
    D, B, T, d, R = 0.2, 0.3, 2, 2, 1.0
    H = bd.thm1_heads_needed(D, B, T, d, R)
    s = 36 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * D + B) + 1) * D**2
    assert math.sqrt(H) >= s and math.sqrt(H - 1) < s
    a = bd.step_constant_a(D, B, T, d, R)
    assert bd.rho(D, B, T, d, R, H) == pytest.approx((2 * math.sqrt(T * d) / math.sqrt(H) + T / 4) * a * a)
    assert bd.rho_eta(1.0, D, B, T, d, R, H) <= bd.rho(D, B, T, d, R, H)
    cert = bd.thm1_certificate(D, B, T, d, R, 10, 0.5, 0.7)
    assert cert["H"] == H and cert["eta"] <= 1 / cert["rho"]
    assert cert["loss_bound"] == pytest.approx(bd.thm1_loss_bound(D, cert["eta"], 10, 0.5))
    with pytest.raises(ValueError, match="H"):
        bd.thm1_certificate(D, B, T, d, R, 10, 0.5, 0.7, H=H - 1)
    with pytest.raises(ValueError, match="D"):
        bd.rho(-1.0, B, T, d, R, 4)
    with pytest.raises(TypeError, match="K"):
        bd.thm1_step_size(D, B, T, d, R, H, 2.5, 0.5, 0.7)


def test_cor3_calculators_match_thm1_with_realizability_envelopes():
    g0, g, T, d, R = 0.4, 0.6, 3, 2, 1.0
    assert bd.cor3_heads_needed(g0, g, T, d, R) == bd.thm1_heads_needed(g0, g, T, d, R)
    assert bd.cor3_rho(g0, g, T, d, R, 100) == pytest.approx(bd.rho(g0, g, T, d, R, 100))
    assert bd.cor3_step_size(g0, g, 0.1, T, d, R, 100, 2.0) <= 0.1**2 / 2.0


def test_flin_reduction_and_realizability():
    m = training.flin_margins(0.0, 0.1, 50, 4)
    assert np.all(np.diff(m) > 0)
    w = training.flin_realizability(0.01, -1.0, 4, 4)
    assert math.log1p(math.exp(-w["margin"])) == pytest.approx(0.01)
    assert w["g0"] == pytest.approx((w["margin"] + 1.0) / 2.0)


def test_easy_data_and_bad_init():
    Xs, ys = training.easy_data(6, 4, 2, seed=0)
    assert np.allclose(np.linalg.norm(Xs, axis=2), 1.0)
    with pytest.raises(ValueError, match="d"):
        training.easy_data(2, 4, 1)
    th0 = training.bad_init(8, 4, 2, noise=0.0)
    from attention_theory.deora.landscape import risk_fn
    # uniform attention (W = 0): every margin is exactly -1
    assert float(risk_fn(Xs, ys, 8)(th0)) == pytest.approx(math.log1p(math.e), rel=1e-12)


def test_nc_cor3_proof_with_bar_distance_is_not_an_erratum():
    with negative_control("deora-cor-3", "proof-distance-equality"):
        checks.check_cor3_proof(printed_distance=lambda actual, g0K: g0K)
