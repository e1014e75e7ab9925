"""Unit and bad-input tests of :mod:`attention_theory.trauger.model` (Trauger & Tewari, Sec. 2.6)."""

import numpy as np
import pytest
import torch

from attention_theory.trauger import model as tm


@pytest.fixture
def setup():
    rng = np.random.default_rng(0)
    X = torch.as_tensor(rng.standard_normal((5, 4)))
    layers = tm.random_block(rng, 2, 4, 3, B_qk=1.5, B_v=2.0, B_c=2.0)
    return rng, X, layers


def test_shapes(setup):
    rng, X, layers = setup
    assert tm.attention_head(layers[0], X).shape == (5, 4)
    assert tm.layer_f(layers[0], X).shape == (5, 3)
    assert tm.block(layers, X).shape == (5, 4)
    assert len(tm.block(layers, X, return_all=True)) == 3
    assert tm.block([], X) is not None and torch.equal(tm.block([], X), X)
    assert tm.scalar_output(layers, torch.ones(4, dtype=torch.float64), X).dim() == 0
    assert tm.multi_head_layer(layers, X).shape == (5, 4)


def test_head_matches_direct_formula(setup):
    rng, X, layers = setup
    p = layers[0]
    A = torch.softmax(X @ p.W_QK @ X.T, dim=1)
    assert torch.allclose(tm.attention_head(p, X, "tanh"), torch.tanh(A @ X @ p.W_v) @ p.W_c, atol=1e-14)


def test_random_layer_spectral_norms(setup):
    rng, _, _ = setup
    p = tm.random_layer(rng, 4, 3, B_qk=0.7, B_v=2.0, B_c=0.0)
    assert float(torch.linalg.matrix_norm(p.W_QK, ord=2)) == pytest.approx(0.7)
    assert float(torch.linalg.matrix_norm(p.W_v, ord=2)) == pytest.approx(2.0)
    assert float(p.W_c.abs().max()) == 0.0


def test_proj_norm_inside_ball_is_identity():
    Z = torch.tensor([[0.3, 0.4], [3.0, 4.0]], dtype=torch.float64)
    P = tm.proj_norm(Z)
    assert torch.allclose(P[0], Z[0]) and torch.allclose(P[1], torch.tensor([0.6, 0.8], dtype=torch.float64))


def test_block_is_differentiable(setup):
    _, X, layers = setup
    Xg = X.clone().requires_grad_(True)
    tm.scalar_output(layers, torch.ones(4, dtype=torch.float64), Xg).backward()
    assert Xg.grad is not None and torch.isfinite(Xg.grad).all()


def test_parameter_count():
    assert tm.parameter_count(4, 3) == 16 + 12 + 12 + 4
    assert tm.parameter_count(4, 3, k_qk=2, L=2, H=3) == 2 * 3 * (16 + 24) + 4
    assert tm.parameter_count(4, 3, T=10, printed_qk_shape=True) == 80 + 24 + 4


@pytest.mark.parametrize("call, exc", [
    (lambda X, p: tm.attention_head(p, X[:, :3]), ValueError),           # W_QK shape vs d
    (lambda X, p: tm.attention_head(p, X[0]), ValueError),               # X not 2-D
    (lambda X, p: tm.attention_head(p, "X"), TypeError),
    (lambda X, p: tm.attention_head(p, X * float("nan")), ValueError),
    (lambda X, p: tm.attention_head((p.W_QK, p.W_v), X), TypeError),     # not a Layer
    (lambda X, p: tm.attention_head(p._replace(W_c=p.W_c.T), X), ValueError),
    (lambda X, p: tm.attention_head(p, X, sigma="gelu"), ValueError),
    (lambda X, p: tm.attention_head(p, X, sigma=3), TypeError),
    (lambda X, p: tm.multi_head_layer([], X), TypeError),
    (lambda X, p: tm.block(p, X), TypeError),                           # a Layer, not a list
    (lambda X, p: tm.block("abc", X), TypeError),
    (lambda X, p: tm.scalar_output([p], torch.ones(3), X), ValueError),  # w of wrong length
    (lambda X, p: tm.scalar_output([p], torch.ones(4), X, cls_index=9), ValueError),
    (lambda X, p: tm.scalar_output([p], torch.ones(4), X, cls_index=True), TypeError),
    (lambda X, p: tm.qk_from_factors(torch.ones(4, 2), torch.ones(4, 3)), ValueError),
    (lambda X, p: tm.proj_norm(torch.ones(3)), ValueError),
    (lambda X, p: tm.row_softmax(torch.ones(2, 2, dtype=torch.complex128)), TypeError),
    (lambda X, p: tm.random_layer(np.random.default_rng(0), 0, 2), ValueError),
    (lambda X, p: tm.random_layer(np.random.default_rng(0), 2, 2, B_qk=-1.0), ValueError),
    (lambda X, p: tm.parameter_count(4, 3, printed_qk_shape=True), ValueError),
    (lambda X, p: tm.parameter_count(4.0, 3), TypeError),
])
def test_bad_input(setup, call, exc):
    _, X, layers = setup
    with pytest.raises(exc):
        call(X, layers[0])
