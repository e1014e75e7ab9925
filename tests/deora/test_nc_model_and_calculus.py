"""Negative controls for the checks of Deora et al.'s model and calculus, plus unit tests
of :mod:`attention_theory.deora.model` and :mod:`attention_theory.deora.bounds`.

Each negative control runs a registered check with a deliberately wrong variant of its
statement and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.deora import bounds as bd
from attention_theory.deora import calculus
from attention_theory.deora import model as md
from attention_theory.deora.checks import model_and_calculus as checks

pytestmark = pytest.mark.usefixtures("float64_default")


# --- negative controls -------------------------------------------------------------


def test_nc_absorption_wrong_order():
    with negative_control("deora-eq-1", "value-absorption"):
        checks.check_eq1_absorption(absorb=lambda WQ, WK, WV, Up: (WK @ WQ.T, Up @ WV.T))


def test_nc_variant_gradients_first_token():
    with negative_control("deora-eq-1", "variant-gradients"):
        checks.check_eq1_variant_gradients(last_rule=lambda gU: gU[0])


def test_nc_pooling_constant_with_full_projection_factor():
    with negative_control("deora-eq-1", "pooling-constant"):  # sqrt(T) is exceeded when saturated
        checks.check_eq1_pooling_constant(factor=math.sqrt)


def test_nc_multi_head_scaled_by_one_over_H():
    with negative_control("deora-eq-2", "vectorized-vs-loop"):
        checks.check_eq2_vectorized(impl=lambda X, Ws, Us: md.multi_head(X, Ws, Us) / math.sqrt(Ws.shape[0]))


def test_nc_variance_with_one_over_H_scaling():
    with negative_control("deora-eq-2", "output-variance"):
        checks.check_eq2_variance(scaling=lambda H: 1.0 / H)


def test_nc_assumption1_generator_too_large():
    with negative_control("deora-assum-1", "generator-and-consequences"):
        checks.check_assum1(radius_factor=1.1)


def test_nc_lemma1_untransposed_scores():
    with negative_control("deora-lemma-1", "formulas-vs-autodiff"):
        checks.check_lemma1(transpose=False)


def test_nc_lemma1_review_jacobian():
    wrong = lambda G: torch.diag_embed(torch.softmax(G, -1)) - G.unsqueeze(-1) * G.unsqueeze(-2)
    with negative_control("deora-lemma-1", "formulas-vs-autodiff"):
        checks.check_lemma1(jacobian=wrong)


def test_nc_lemma1_dt_without_third_term():
    with negative_control("deora-lemma-1", "formulas-vs-autodiff"):
        checks.check_lemma1(dt_terms=(True, True, False))


def test_nc_lemma1_hessian_without_mixed_block():

    def wrong(X, W, U):
        Hs = md.hessian_closed_form(X, W, U).clone()
        p = X.shape[0] * X.shape[1]
        Hs[:p, p:] = 0
        Hs[p:, :p] = 0
        return Hs

    with negative_control("deora-lemma-1", "formulas-vs-autodiff"):
        checks.check_lemma1(hessian=wrong)


def test_nc_lemma1_hessian_one_mixed_block():

    def wrong(X, W, U):  # only the lower mixed block: not symmetric
        Hs = md.hessian_closed_form(X, W, U).clone()
        p = X.shape[0] * X.shape[1]
        Hs[:p, p:] = 0
        return Hs

    with negative_control("deora-lemma-1", "hessian-symmetry"):
        checks.check_lemma1(hessian=wrong)


def _scaled_rhs(factor, items=None):
    def rhs(X, U, R):
        r = calculus.rhs_torch(X, U, R)
        return {k: (factor * v if items is None or k in items else v) for k, v in r.items()}
    return rhs


def test_nc_prop1_random_item1_scaled():
    with negative_control("deora-prop-1", "random-instances"):
        checks.check_prop1_random(rhs=_scaled_rhs(0.9, {"1"}))


def test_nc_prop1_adversarial_gradient_items_scaled():
    with negative_control("deora-prop-1", "adversarial-search"):
        checks.check_prop1_adversarial(rhs=_scaled_rhs(0.9), items=("5",))


def test_nc_prop1_adversarial_hessian_item_scaled():
    with negative_control("deora-prop-1", "adversarial-search"):
        checks.check_prop1_adversarial(rhs=_scaled_rhs(0.25), items=("6",))


def test_nc_prop1_sharper_halved():
    with negative_control("deora-prop-1", "sharper-hessian-bound"):
        checks.check_prop1_sharper(scale=0.5)


def test_nc_eq52_correct_form_is_not_an_erratum():
    with negative_control("deora-prop-1", "eq52-quadratic-form"):
        checks.check_prop1_eq52(printed_form=checks._eq52_corrected)


def test_nc_lemma5_structure_one_over_H():
    with negative_control("deora-lemma-5", "block-structure"):
        checks.check_lemma5_structure(hess_scale=lambda H: 1.0 / H)


def test_nc_lemma5_heads_coupled():

    def coupled(X, Ws, Us):  # a model whose heads interact: the Hessian is not block-diagonal
        out = md.multi_head(X, Ws, Us)
        return out + 0.1 * out**2

    with negative_control("deora-lemma-5", "offdiagonal-blocks"):
        checks.check_lemma5_structure(model=coupled)


def test_nc_lemma5_bounds_one_over_H():
    with negative_control("deora-lemma-5", "multi-head-bounds"):
        checks.check_lemma5_bounds(head_factor=lambda H: 1.0 / H)


# --- unit tests of the model and bound functions ----------------------------------


def test_shapes_and_head_loop_equivalence():
    rng = np.random.default_rng(0)
    H, T, d = 3, 4, 2
    X = rng.standard_normal((T, d))
    Us, Ws = rng.standard_normal((H, T, d)), rng.standard_normal((H, d, d))
    assert md.attention_matrix(X, Ws[0]).shape == (T, T)
    assert md.grad_U(X, Ws[0]).shape == (T, d)
    assert md.grad_W(X, Ws[0], Us[0]).shape == (d, d)
    assert md.hessian_closed_form(X, Ws[0], Us[0]).shape == (T * d + d * d,) * 2
    assert float(md.multi_head(X, Ws, Us)) == pytest.approx(float(md.multi_head_loop(X, Ws, Us)),
                                                            rel=1e-13)
    theta = md.pack_heads(Us, Ws)
    assert theta.shape == (H * md.head_size(T, d),)
    U2, W2 = md.unpack_heads(theta, H, T, d)
    assert torch.equal(U2, torch.as_tensor(Us)) and torch.equal(W2, torch.as_tensor(Ws))


def test_risk_matches_manual_and_variants():
    rng = np.random.default_rng(1)
    H, T, d = 2, 3, 2
    Xs, ys = md.sample_bounded_tokens(5, T, d, 1.0, seed=1)
    Us, Ws = rng.standard_normal((H, T, d)), rng.standard_normal((H, d, d))
    theta = md.pack_heads(Us, Ws)
    manual = np.mean([np.log1p(np.exp(-ys[i] * float(md.multi_head(Xs[i], Ws, Us)))) for i in range(5)])
    assert float(md.empirical_risk(theta, Xs, ys, H)) == pytest.approx(manual, rel=1e-12)
    u = rng.standard_normal(d)
    assert float(md.single_head_pooling(Xs[0], Ws[0], u)) == pytest.approx(
        float(md.single_head(Xs[0], Ws[0], np.tile(u, (T, 1)))), rel=1e-13)
    assert np.linalg.norm(Xs, axis=2).max() <= 1.0 + 1e-15


def test_betas():
    assert bd.beta1(0.5, 4, 3, 1.0) == pytest.approx(2 * 1 * (2 * 0.5 + 1))
    assert bd.beta3(0.5, 4, 3, 1.0) == pytest.approx(2 * math.sqrt(12) * (3 * math.sqrt(3) * 0.5 + 1))
    assert bd.beta2(0.5, 4, 3, 1.0,
                    4) == pytest.approx(bd.beta3(0.5, 4, 3, 1.0) / 2 + bd.beta1(0.5, 4, 3, 1.0) ** 2 / 4)
    assert bd.kappa(0.5, 4, 3, 1.0, 9) == pytest.approx(bd.beta3(0.5, 4, 3, 1.0) / 3)


def test_bad_W_shape():
    with pytest.raises(ValueError, match="W"):
        md.single_head(np.ones((3, 2)), np.ones((3, 3)), np.ones((3, 2)))


def test_bad_U_nonfinite():
    U = np.ones((3, 2)); U[0, 0] = np.nan
    with pytest.raises(ValueError, match="U"):
        md.single_head(np.ones((3, 2)), np.eye(2), U)


def test_bad_X_type():
    with pytest.raises(TypeError, match="X"):
        md.grad_U("not an array", np.eye(2))


def test_bad_theta_length_and_labels():
    with pytest.raises(ValueError, match="theta"):
        md.unpack_heads(np.ones(7), 2, 2, 2)
    with pytest.raises(ValueError, match="ys"):
        md.empirical_risk(np.ones(8), np.ones((2, 2, 2)), np.array([1.0, 0.5]), 1)


def test_bad_bound_inputs():
    with pytest.raises(ValueError, match="R"):
        bd.beta1(1.0, 2, 2, -1.0)
    with pytest.raises(TypeError, match="T"):
        bd.beta3(1.0, 2.5, 2, 1.0)
    with pytest.raises(ValueError, match="U"):
        bd.prop1_rhs(np.ones((2, 2)), np.ones((3, 2)))
