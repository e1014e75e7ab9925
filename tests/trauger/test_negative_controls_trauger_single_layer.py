"""Negative controls for the checks of Trauger & Tewari Sec. 4.1-4.2 and App. C-D (single layer).

Each ``test_nc_*`` runs a registered check with a deliberately wrong constant, formula or
orientation and requires :class:`ClaimViolation`.  The Monte-Carlo curve is computed once at a
tiny scale and shared.
"""

import math

import pytest

from _nc import negative_control
from attention_theory.trauger import single_layer
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger.checks import single_layer as c
from attention_theory.verify import ClaimViolation


@pytest.fixture(scope="module")
def curve():
    return single_layer.mc_curve(Ts=(2, 16, 64), m=64, n_draws=4, restarts=2, steps=40)


def test_nc_cls_row_app_c_orientation():
    negative_control("trauger-def-4-1", "cls-row-of-head")
    with pytest.raises(ClaimViolation):
        c.check_cls_row_of_head(transpose=False)


def test_nc_pointwise_half_bound():
    negative_control("trauger-def-4-1", "pointwise-bound")
    with pytest.raises(ClaimViolation):
        c.check_pointwise_bound(factor=0.5)


def test_nc_printed_orientation_pointwise_d1():
    negative_control("trauger-def-4-1", "printed-orientation-pointwise")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_printed_hypotheses_pointwise(d=1)


def test_nc_duality_half():
    negative_control("trauger-eq-c-1", "l1-linf-duality")
    with pytest.raises(ClaimViolation):
        c.check_l1_linf_duality(factor=0.5)


def test_nc_duality_bv_one():
    negative_control("trauger-eq-c-1", "printed-drops-bv")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_duality_printed_bv(B_v=1.0)


def test_nc_sign_removal_without_zero():
    negative_control("trauger-eq-c-2", "sign-removal")
    with pytest.raises(ClaimViolation):
        c.check_sign_removal(include_zero=False)


def test_nc_contraction_half_lipschitz():
    negative_control("trauger-eq-c-3", "ledoux-talagrand")
    with pytest.raises(ClaimViolation):
        c.check_contraction(L_factor=0.5)


def test_nc_peeling_identity_half_B():
    negative_control("trauger-eq-c-4", "identity-activation-exact")
    with pytest.raises(ClaimViolation):
        c.check_peeling_identity_activation(B_factor=0.5)


def test_nc_peeling_relu_dropped_factor():
    negative_control("trauger-eq-c-4", "relu-chain")
    with pytest.raises(ClaimViolation):
        c.check_peeling_relu(factor=0.25)


def test_nc_perturbation_softmax_constant_half():
    negative_control("trauger-eq-c-5", "perturbation-links")
    with pytest.raises(ClaimViolation):
        c.check_perturbation_chain(softmax_lip=0.5)


def test_nc_dudley_closed_form_dropped_log():
    negative_control("trauger-eq-c-6", "closed-form-vs-numeric")
    wrong = lambda Bx, C, m, d: tb.dudley_inf_printed(Bx, C, m, d) - tb.dudley_a_b(Bx, C, m, d)[1]  # noqa: E731
    with pytest.raises(ClaimViolation):
        c.check_dudley_closed_form(closed_form=wrong)


def test_nc_dudley_negative_with_clipped_form():
    negative_control("trauger-eq-c-6", "negative-closed-form")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_dudley_negative(closed_form=tb.dudley_inf)


def test_nc_mc_below_bound_tiny_bound(curve):
    negative_control("trauger-thm-4-1", "mc-below-bound")
    with pytest.raises(ClaimViolation):
        c.check_mc_below_bound(curve, bound_factor=1e-4)


def test_nc_flat_in_t_edelman(curve):
    negative_control("trauger-thm-4-1", "flat-in-t")
    with pytest.raises(ClaimViolation):
        c.check_flat_in_t(curve, series="edelman")


def test_nc_thm41_printed_negative_corrected_expression():
    negative_control("trauger-thm-4-1", "printed-negative")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_thm41_printed_negative(expression=tb.thm41_bound)


def test_nc_orientation_wv_small_d():
    negative_control("trauger-thm-4-1", "printed-orientation-wv")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_printed_orientation_wv(d=2, m=3)


def test_nc_orientation_wc_k1():
    negative_control("trauger-thm-4-1", "printed-orientation-wc")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_printed_orientation_wc(k=1)


def test_nc_cor411_alpha_corrected():
    negative_control("trauger-cor-4-1-1", "alpha-sqrt2")
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        c.check_cor411_alpha(alpha_factor=2.0)


def test_nc_cor411_mc_tiny_bound(curve):
    negative_control("trauger-cor-4-1-1", "mc-below-bound")
    with pytest.raises(ClaimViolation):
        c.check_cor411_mc(curve, bound_factor=1e-4)


def test_nc_cor411_log_relaxation_shifted():
    negative_control("trauger-cor-4-1-1", "log-relaxation")
    with pytest.raises(ClaimViolation):
        c.check_cor411_log_relaxation(minus_log=False)


def test_nc_cord01_alpha():
    negative_control("trauger-cor-d-0-1", "formula")
    with pytest.raises(ClaimViolation):
        c.check_cord01_formula(alpha_factor=math.sqrt(2.0))


def test_nc_cord01_mc_tiny_bound(curve):
    negative_control("trauger-cor-d-0-1", "mc-below-bound")
    with pytest.raises(ClaimViolation):
        c.check_cord01_mc(curve, bound_factor=1e-4)


def test_nc_cord02_alpha():
    negative_control("trauger-cor-d-0-2", "formula")
    with pytest.raises(ClaimViolation):
        c.check_cord02_formula(alpha_factor=1.0)


def test_nc_multihead_half():
    negative_control("trauger-sec-4-2", "product-sup")
    with pytest.raises(ClaimViolation):
        c.check_multihead_product_sup(rhs_scale=0.5)
