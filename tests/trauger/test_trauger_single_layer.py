"""Unit and bad-input tests of the Sec. 4.1 model and the Thm 4.1 calculators."""

import math

import numpy as np
import pytest
import torch

from attention_theory.trauger import single_layer, word_masking
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import single_layer_model as ts


def _params(rng, d=3, k=2):
    return ts.random_feasible_params(rng, d, k, B_w=1.0, B_Wc=2.0, B_Wv=0.5, B_qk=3.0)


def test_shapes_and_batching():
    rng = np.random.default_rng(0)
    p = _params(rng)
    X = rng.standard_normal((4, 7, 3))
    f = ts.single_layer_scalar(X, p["w"], p["W_c"], p["W_v"], p["W_qk"], X[0, 0])
    assert f.shape == (4,) and f.dtype == torch.float64
    one = ts.single_layer_scalar(X[2], p["w"], p["W_c"], p["W_v"], p["W_qk"], X[0, 0])
    assert one.shape == () and abs(float(one) - float(f[2])) < 1e-13
    assert ts.attention_weights(X, p["W_qk"], X[0, 0]).sum(-1).sub(1).abs().max() < 1e-14


def test_feasible_params_meet_column_constraints():
    n = ts.constraint_norms(**_params(np.random.default_rng(1)))
    assert abs(n["w_l1"] - 1) < 1e-12 and abs(n["W_c_col"] - 2) < 1e-12
    assert abs(n["W_v_col"] - 0.5) < 1e-12 and abs(n["W_qk_11"] - 3) < 1e-12


def test_into_l1_ball_and_projection():
    Z = torch.tensor([[3.0, -1.0], [0.1, 0.2]], dtype=torch.float64)
    out = ts.into_l1_ball(Z, 2.0)
    assert torch.allclose(out.abs().sum(-1), torch.tensor([2.0, 0.6], dtype=torch.float64))
    P = ts.project_l1_ball(np.array([3.0, -1.0, 0.5]), 1.0)
    assert abs(np.abs(P).sum() - 1.0) < 1e-12 and np.allclose(P, [1.0, 0.0, 0.0])
    assert np.allclose(ts.project_l1_ball(np.array([0.2, -0.3]), 1.0), [0.2, -0.3])


def test_outer_sup_identity_matches_model_maximiser():
    rng = np.random.default_rng(2)
    X = ts.sample_tokens(rng, 5, 4, 3, 1.0)
    eps = rng.choice([-1.0, 1.0], size=(3, 5))
    v = ts.pooled_tokens(X, np.eye(3), np.ones(3)).numpy()
    ref = np.abs(eps @ v).max(axis=1) * 2.0
    assert np.allclose(ts.outer_sup_identity(eps, X, np.eye(3), np.ones(3), B=2.0).numpy(), ref)


def test_sample_tokens_norms():
    rng = np.random.default_rng(3)
    for kind in ts.TOKEN_KINDS:
        X = ts.sample_tokens(rng, 2, 5, 4, 2.0, kind=kind)
        assert np.allclose(np.linalg.norm(X, axis=-1), 2.0 * 0.999)


def test_rademacher_mc_is_below_trivial_bound():
    rng = np.random.default_rng(4)
    X = ts.sample_tokens(rng, 16, 4, 3, 1.0)
    r = ts.rademacher_mc_identity(X, np.eye(3)[0], B=1.0, B_qk=2.0, n_draws=4, restarts=2, steps=20)
    assert 0 <= r["mean"] <= 1.0 and r["se"] >= 0 and r["per_draw"].shape == (4,)


def test_dudley_calculators():
    Bx, C, m, d = 1.0, 2.0, 400, 4
    ds = tb.delta_star(Bx, C, m, d)
    assert ds < Bx
    assert math.isclose(tb.dudley_inf(Bx, C, m, d), tb.dudley_h(ds, Bx, C, m, d), rel_tol=1e-14)
    assert math.isclose(tb.dudley_inf(Bx, C, m, d), tb.dudley_inf_numeric(Bx, C, m, d), rel_tol=1e-8)
    assert math.isclose(tb.dudley_inf_printed(Bx, C, m, d), tb.dudley_inf(Bx, C, m, d), rel_tol=1e-12)
    # clipped regime: delta* > Bx, so the infimum is h(Bx) = Bx
    assert tb.dudley_inf(1.0, 1e4 * math.log(9), 3, 2) == 1.0
    assert tb.dudley_inf(1.0, 0.0, 100, 2) == pytest.approx(math.sqrt(math.log(4) / 100))
    assert tb.thm41_bound(2.0, 1.0, 1e4 * math.log(9), 3, 2) == pytest.approx(2 * 12 * 2.0)


def test_printed_expression_value_from_catalogue():
    assert tb.thm41_printed_expression(1.0, 1.0, 1e4 * math.log(9), 3, 2) == pytest.approx(-708.38, abs=0.01)


def test_corollary_constants():
    assert tb.C_lemma36(2.0, 3.0, 4) == pytest.approx(4 * 9 * math.log(33))
    assert tb.C_lemma33(1.0, 1.0, 4) == pytest.approx(4 * math.log(9))
    assert tb.C_lemma34(1.0, 1.0, 4) == pytest.approx(2 * math.log(4))
    assert tb.cor411_bound(1, 1, 1, 100, 3) == tb.thm41_bound(1, 1, tb.C_lemma36(1, 1, 3), 100, 3)
    assert tb.multihead_bound(3, 2.0) == 6.0
    assert tb.edelman_type_bound(1, 1, 1, 1000, 4, 10**6) > tb.edelman_type_bound(1, 1, 1, 1000, 4, 2)
    assert tb.thm51_maurer_bound(3, 1.0) == pytest.approx(6.0)


def test_expected_abs_rademacher_sum():
    assert single_layer.expected_abs_rademacher_sum(1) == 1.0
    assert single_layer.expected_abs_rademacher_sum(2) == 1.0
    assert single_layer.expected_abs_rademacher_sum(3) == 1.5
    assert single_layer.expected_abs_rademacher_sum(10**4) == pytest.approx(math.sqrt(2 * 10**4 / math.pi),
                                                                           rel=1e-3)


@pytest.mark.parametrize("call, exc", [
    (lambda: ts.single_layer_scalar(np.ones(3), np.ones(3), np.ones((2, 3)), np.ones((3, 2)), np.eye(3),
                                    np.ones(3)),
     ValueError),
    (lambda: ts.single_layer_scalar(np.ones((2, 3)), np.ones(2), np.ones((2, 3)), np.ones((3, 2)), np.eye(3),
                                    np.ones(3)),
     ValueError),
    (lambda: ts.single_layer_scalar(np.ones((2, 3)), np.ones(3), np.ones((3, 3)), np.ones((3, 2)), np.eye(3),
                                    np.ones(3)),
     ValueError),
    (lambda: ts.attention_weights(np.ones((2, 3)), np.eye(2), np.ones(3)), ValueError),
    (lambda: ts.attention_weights(np.ones((2, 3)), np.eye(3), np.ones(2)), ValueError),
    (lambda: ts.attention_weights(np.full((2, 3), np.nan), np.eye(3), np.ones(3)), ValueError),
    (lambda: ts.attention_weights("X", np.eye(3), np.ones(3)), TypeError),
    (lambda: ts.activation("softplus"), ValueError),
    (lambda: ts.activation(3), TypeError),
    (lambda: ts.sample_tokens(np.random.default_rng(0), 2, 3, 4, 1.0, kind="gauss"), ValueError),
    (lambda: ts.sample_tokens(np.random.default_rng(0), 2, 3, 4, -1.0), ValueError),
    (lambda: ts.sample_tokens(np.random.default_rng(0), 2, 3, 4, 1.0, kind="signed-basis", r=5), ValueError),
    (lambda: ts.project_l1_ball([1.0, np.inf], 1.0), ValueError),
    (lambda: ts.into_l1_ball(torch.ones(2), 0.0), ValueError),
    (lambda: tb.delta_star(1.0, 1.0, 1, 4), ValueError),
    (lambda: tb.dudley_h(2.0, 1.0, 1.0, 10, 2), ValueError),
    (lambda: tb.dudley_h(0.0, 1.0, 1.0, 10, 2), ValueError),
    (lambda: tb.thm41_bound(-1.0, 1.0, 1.0, 10, 2), ValueError),
    (lambda: tb.thm41_bound(1.0, 1.0, 1.0, 10.5, 2), TypeError),
    (lambda: tb.thm41_bound(1.0, 1.0, -1.0, 10, 2), ValueError),
    (lambda: tb.thm41_bound(1.0, 1.0, 1.0, 10, 2, c_D=0.0), ValueError),
    (lambda: tb.dudley_inf_printed(1.0, 0.0, 10, 2), ValueError),
    (lambda: tb.C_lemma34(1.0, 1.0, 1), ValueError),
    (lambda: tb.edelman_type_bound(1.0, 1.0, 1.0, 10, 2, 0), ValueError),
    (lambda: tb.multihead_bound(0, 1.0), ValueError),
    (lambda: tb.thm51_maurer_bound(2, float("nan")), ValueError),
    (lambda: word_masking.masked_logits(np.ones((2, 3)), np.ones(4)), ValueError),
])
def test_bad_input(call, exc):
    with pytest.raises(exc):
        call()


def test_small_m_rad_search_refuses_bad_arguments_before_searching():
    from attention_theory.trauger import single_layer_search

    with pytest.raises(ValueError, match="tokens"):
        single_layer_search.small_m_rad_search("l3")
    with pytest.raises(TypeError, match="seed"):
        single_layer_search.small_m_rad_search("l2", seed=1.5)
    with pytest.raises(ValueError, match="seed"):
        single_layer_search.small_m_rad_search("l2", seed=-1)
