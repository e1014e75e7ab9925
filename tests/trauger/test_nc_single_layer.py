"""Negative controls for the checks of Trauger & Tewari Sec. 4.1-4.2 and App. C-D (single layer).

Each ``test_nc_*`` runs a registered check with a deliberately wrong constant, formula or
orientation and requires :class:`ClaimViolation`.  The Monte-Carlo curve is computed once at a
tiny scale and shared.
"""

import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.trauger import single_layer
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger.checks import single_layer as c


@pytest.fixture(scope="module")
def curve():
    return single_layer.mc_curve(Ts=(2, 16, 64), m=64, n_draws=4, restarts=2, steps=40)


def test_nc_cls_row_app_c_orientation():
    with negative_control("trauger-def-4-1", "cls-row-of-head"):
        c.check_cls_row_of_head(transpose=False)


def test_nc_app_c_orientation_printed_as_sec41():
    # if App. C had printed Sec. 4.1's reading there would be no erratum
    with negative_control("trauger-def-4-1", "app-c-orientation", match="NOT confirmed"):
        c.check_cls_row_of_head(printed_transpose=True)


def test_nc_pointwise_half_bound():
    with negative_control("trauger-def-4-1", "pointwise-bound"):
        c.check_pointwise_bound(factor=0.5)


def test_nc_printed_orientation_pointwise_d1():
    with negative_control("trauger-def-4-1", "printed-orientation-pointwise", match="NOT confirmed"):
        c.check_printed_hypotheses_pointwise(d=1)


def test_nc_duality_half():
    with negative_control("trauger-eq-c-1", "l1-linf-duality"):
        c.check_l1_linf_duality(factor=0.5)


def test_nc_duality_vertex_without_sign():
    with negative_control("trauger-eq-c-1", "attained-at-vertex"):
        c.check_l1_linf_duality(vertex_sign=False)


def test_nc_duality_bv_one():
    with negative_control("trauger-eq-c-1", "printed-drops-bv", match="NOT confirmed"):
        c.check_duality_printed_bv(B_v=1.0)


def test_nc_sign_removal_without_zero():
    with negative_control("trauger-eq-c-2", "sign-removal"):
        c.check_sign_removal(include_zero=False)


def test_nc_contraction_half_lipschitz():
    with negative_control("trauger-eq-c-3", "ledoux-talagrand"):
        c.check_contraction(L_factor=0.5)


def test_nc_peeling_identity_half_B():
    with negative_control("trauger-eq-c-4", "identity-activation-exact"):
        c.check_peeling_identity_activation(B_factor=0.5)


def test_nc_peeling_attained_half_B():
    with negative_control("trauger-eq-c-4", "identity-activation-attained"):
        c.check_peeling_identity_activation(attained_factor=0.5)


def test_nc_peeling_relu_dropped_factor():
    with negative_control("trauger-eq-c-4", "relu-chain"):
        c.check_peeling_relu(factor=0.25)


def test_nc_perturbation_softmax_constant_half():
    with negative_control("trauger-eq-c-5", "perturbation-links"):
        c.check_perturbation_chain(softmax_lip=0.5)


def test_nc_perturbation_one_point_cover():
    # the Maurey cover is far inside its guarantee (a 4x coarser one still passes), so the wrong
    # variant is the one-point cover {0}
    with negative_control("trauger-eq-c-5", "maurey-cover"):
        c.check_perturbation_chain(cover=lambda W, *a: np.zeros_like(W))


def test_nc_perturbation_cover_size_one_atom_short():
    with negative_control("trauger-eq-c-5", "cover-log-size"):
        c.check_perturbation_chain(atoms_per_step=lambda d: 2 * d * d)


def test_nc_dudley_clipped_form_is_not_below():
    with negative_control("trauger-eq-c-6", "below-when-clipped"):
        c.check_dudley_closed_form(clipped_form=tb.dudley_inf)


def test_nc_dudley_integral_half_log_term():
    with negative_control("trauger-eq-c-6", "integral-identity"):
        c.check_dudley_closed_form(integrand_b_factor=0.5)


def test_nc_dudley_closed_form_dropped_log():
    # noqa: E731
    wrong = lambda Bx, C, m, d: tb.dudley_inf_printed(Bx, C, m, d) - tb.dudley_a_b(Bx, C, m, d)[1]
    with negative_control("trauger-eq-c-6", "closed-form-vs-numeric"):
        c.check_dudley_closed_form(closed_form=wrong)


def test_nc_dudley_negative_with_clipped_form():
    with negative_control("trauger-eq-c-6", "negative-closed-form", match="NOT confirmed"):
        c.check_dudley_negative(closed_form=tb.dudley_inf)


def test_nc_mc_below_bound_tiny_bound(curve):
    with negative_control("trauger-thm-4-1", "mc-below-bound"):
        c.check_mc_below_bound(curve=curve, bound_factor=1e-4)


def test_nc_mc_below_tiny_trivial_bound(curve):
    with negative_control("trauger-thm-4-1", "below-trivial"):
        c.check_mc_below_bound(curve=curve, trivial_factor=1e-4)


def test_nc_mc_hypotheses_half_radius(curve):
    with negative_control("trauger-thm-4-1", "hypotheses-hold"):
        c.check_mc_below_bound(curve=curve, radius_factor=0.5)


def test_flat_in_t_holds_on_fixture(curve):
    c.check_flat_in_t(curve=curve)  # the right variant passes on the tiny curve too


def test_nc_flat_in_t_edelman(curve):
    with negative_control("trauger-thm-4-1", "flat-in-t"):
        c.check_flat_in_t(curve=curve, series="edelman")


def test_nc_thm41_printed_negative_corrected_expression():
    with negative_control("trauger-thm-4-1", "printed-negative", match="NOT confirmed"):
        c.check_thm41_printed_negative(expression=tb.thm41_bound)


def test_nc_orientation_wv_small_d():
    # without the sqrt(d) gain of the row-wise construction nothing grows: not an erratum
    with negative_control("trauger-thm-4-1", "printed-orientation-wv", match="NOT confirmed"):
        c.check_printed_orientation_wv(printed_gain=0.0)


def test_nc_orientation_wv_closed_form_without_sqrt_d():
    with negative_control("trauger-thm-4-1", "c1-closed-form"):
        c.check_printed_orientation_wv(closed_form_sqrt_d=False)


def test_nc_orientation_wc_construction_without_gain():
    with negative_control("trauger-thm-4-1", "c2-construction"):
        c.check_printed_orientation_wc(construction_gain=False)


def test_nc_orientation_wc_k1():
    with negative_control("trauger-thm-4-1", "printed-orientation-wc", match="NOT confirmed"):
        c.check_printed_orientation_wc(k=1)


def test_nc_cor411_alpha_corrected():
    with negative_control("trauger-cor-4-1-1", "alpha-sqrt2", match="NOT confirmed"):
        c.check_cor411_alpha(alpha_factor=2.0)


def test_nc_cor411_mc_tiny_bound(curve):
    with negative_control("trauger-cor-4-1-1", "mc-below-bound"):
        c.check_cor411_mc(curve=curve, bound_factor=1e-4)


def test_nc_cor411_log_relaxation_shifted():
    with negative_control("trauger-cor-4-1-1", "log-relaxation"):
        c.check_cor411_log_relaxation(minus_log=False)


def test_nc_cord01_alpha():
    with negative_control("trauger-cor-d-0-1", "formula"):
        c.check_cord01_formula(alpha_factor=math.sqrt(2.0))


def test_nc_cord01_log_argument_lemma36_constant():
    with negative_control("trauger-cor-d-0-1", "log-argument"):
        c.check_cord01_formula(closed_form_C=tb.C_lemma36)


def test_nc_cord01_mc_tiny_bound(curve):
    with negative_control("trauger-cor-d-0-1", "mc-below-bound"):
        c.check_cord01_mc(curve=curve, bound_factor=1e-4)


def test_nc_cord02_alpha():
    with negative_control("trauger-cor-d-0-2", "formula"):
        c.check_cord02_formula(alpha_factor=1.0)


def test_nc_multihead_half():
    with negative_control("trauger-sec-4-2", "product-sup"):
        c.check_multihead_product_sup(rhs_scale=0.5)


def test_nc_multihead_optimized_w_half():
    with negative_control("trauger-sec-4-2", "optimized-w"):
        c.check_multihead_product_sup(separate_scale=0.5)
