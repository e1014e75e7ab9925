"""Unit and bad-input tests of the reconstructed Qin, Zhou & Zhu model and bound calculus."""

import math

import numpy as np
import pytest
import torch

from attention_theory.qin import bounds as bq
from attention_theory.qin import model as qm
from attention_theory.qin import residual_gd, residual_training

pytestmark = pytest.mark.usefixtures("float64_default")


def _inst(**kw):
    return residual_gd.random_instance(0, **kw)


def test_shapes_and_pack_roundtrip():
    inst = _inst(N=6, n_seq=2)
    f = qm.forward(inst.params, inst.X, inst.cfg)
    assert f["Z"].shape == (6, 6) and f["U"].shape == (6, 8) and f["F"].shape == (6, 6)
    th = qm.pack(inst.params)
    assert th.shape == (qm.n_params(inst.dims),)
    back = qm.unpack(th, inst.dims)
    assert all(torch.equal(back[b], inst.params[b]) for b in qm.BLOCKS)


def test_block_diagonal_attention_has_zero_cross_blocks():
    inst = _inst(N=6, n_seq=3)
    S = qm.forward(inst.params, inst.X, inst.cfg)["S"]
    mask = qm.block_mask(6, 3)
    assert float(S[~mask].abs().max()) == 0.0
    assert torch.allclose(S.sum(1), torch.ones(6))


def test_sequences_are_independent():
    """With n sequences, the output on sequence j depends only on sequence j."""
    inst = _inst(N=6, n_seq=2)
    F = qm.output(inst.params, inst.X, inst.cfg)
    cfg1 = qm.QinConfig(n_seq=1, rho1=inst.cfg.rho1, rho2=inst.cfg.rho2, gamma=inst.cfg.gamma)
    F0 = qm.output(inst.params, inst.X[:3], cfg1)
    assert torch.allclose(F[:3], F0, atol=1e-14)


def test_residual_switches():
    inst = _inst()
    p = dict(inst.params)
    for b in ("W1", "W2", "WV", "WO"):
        p[b] = torch.zeros_like(p[b])
    F = qm.output(p, inst.X, qm.QinConfig(rho1=1, rho2=1))
    assert torch.allclose(F, inst.X)  # identity through both residuals
    F = qm.output(p, inst.X, qm.QinConfig(rho1=1, rho2=0))
    assert float(F.abs().max()) == 0.0


def test_activation_assumption():
    x = torch.linspace(-30, 30, 10001)
    s = qm.activation_prime(x, 0.3, 2.0)
    assert float(s.min()) >= 0.3 and float(s.max()) <= 1.0
    assert float(qm.activation(torch.zeros(1), 0.3, 2.0)) == 0.0
    assert math.isclose(float(qm.activation_second(torch.zeros(1), 0.3, 2.0)), qm.activation_beta(0.3, 2.0))


def test_stack_forward_one_layer_equals_forward():
    inst = _inst()
    a = qm.stack_forward([inst.params], inst.X, inst.cfg)[-1]["F"]
    assert torch.allclose(a, qm.output(inst.params, inst.X, inst.cfg))
    L2 = qm.stack_loss([inst.params, inst.params], inst.X, inst.Y, inst.cfg)
    assert L2.ndim == 0 and math.isfinite(float(L2))


def test_gradient_matches_autograd_quickly():
    inst = _inst(n_seq=2, rho1=0)
    p = {b: inst.params[b].clone().requires_grad_(True) for b in qm.BLOCKS}
    auto = torch.autograd.grad(qm.loss(p, inst.X, inst.Y, inst.cfg), [p[b] for b in qm.BLOCKS])
    mine = qm.gradients(inst.params, inst.X, inst.Y, inst.cfg)
    for b, a in zip(qm.BLOCKS, auto):
        assert torch.allclose(mine[b], a, rtol=1e-10, atol=1e-13)


def test_bounds_are_positive_and_grow_with_radius():
    inst = _inst()
    c1 = bq.ball_constants(inst.params, inst.X, inst.cfg, 0.1, loss0=1.0)
    c2 = bq.ball_constants(inst.params, inst.X, inst.cfg, 1.0, loss0=1.0)
    C1, q1 = bq.lipschitz_constants(c1)
    C2, q2 = bq.lipschitz_constants(c2)
    assert C1.shape == (6, 6) and np.all(C1 >= 0) and q2 > q1 > 0
    assert bq.gradient_residual_ratio(c1) > 0


def test_theorem2_constants_and_radius():
    inst, k = residual_gd.near_target_instance(0)
    assert k["holds"] and k["r0"] > 0 and k["Q1"] > k["Q0"] > 0


def test_spearman_and_rate():
    assert residual_training.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert residual_training.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert residual_training.spearman([1, 1, 2], [1, 1, 2]) == pytest.approx(1.0)
    L = 2.0 * 0.9 ** np.arange(11)
    assert residual_training.empirical_rate(L) == pytest.approx(-math.log(0.9))
    L2 = np.concatenate([L, np.full(5, 1e-300)])  # below the floor: cut at the first such step
    assert residual_training.empirical_rate(L2, floor=1e-200) < 1e3


@pytest.mark.parametrize("call, exc, name", [
    (lambda: residual_training.spearman([1, 2], [1, 2]), ValueError, "length"),
    (lambda: residual_training.spearman([1, 2, np.nan], [1, 2, 3]), ValueError, "finite"),
    (lambda: residual_training.empirical_rate([0.0, 1.0]), ValueError, "losses"),
    (lambda: residual_training.run_e1(dict(N=4, d=6, dk=2, dv=2, m=6, seeds=(0,), steps=2, record=1,
                                           qk_stds=(0.1,), eta_grid=(0.01,), common_eta=0.02)),
     ValueError, "common_eta"),
    (lambda: residual_training.run_e1([("N", 4)]), TypeError, "config"),
    (lambda: residual_training.e1_config("medium"), ValueError, "scale"),
    (lambda: residual_training.e1_instance(0, qk_std=-1.0), ValueError, "qk_std"),
    (lambda: residual_training.train_recording(residual_gd.random_instance(0), eta=0.0, steps=2, record=1),
     ValueError, "eta"),
    (lambda: qm.QinConfig(rho1=2), ValueError, "rho1"),
    (lambda: qm.QinConfig(rho2=True), ValueError, "rho2"),
    (lambda: qm.QinConfig(gamma=1.5), ValueError, "gamma"),
    (lambda: qm.QinConfig(gamma=0.0), ValueError, "gamma"),
    (lambda: qm.QinConfig(n_seq=0), ValueError, "n_seq"),
    (lambda: qm.QinConfig(b=-1.0), ValueError, "b"),
    (lambda: qm.Dims(4, 0, 2, 3), ValueError, "dk"),
    (lambda: qm.forward({"WQ": np.ones((3, 2))}, np.ones((2, 3))), ValueError, "params lacks"),
    (lambda: qm.forward("abc", np.ones((2, 3))), TypeError, "params"),
    (lambda: qm.forward(_inst().params, np.ones((4, 5))), ValueError, "X"),
    (lambda: qm.forward(_inst().params, np.full((4, 6), np.nan)), ValueError, "X"),
    (lambda: qm.forward(_inst().params, np.ones((4, 6)), qm.QinConfig(n_seq=3)), ValueError, "n_seq"),
    (lambda: qm.forward(_inst().params, np.ones((4, 6)), cfg="x"), TypeError, "cfg"),
    (lambda: qm.loss(_inst().params, np.ones((4, 6)), np.ones((4, 5))), ValueError, "Y"),
    (lambda: qm.unpack(np.ones(5), qm.Dims(2, 2, 2, 2)), ValueError, "theta"),
    (lambda: qm.unpack(np.ones(24), (2, 2, 2, 2)), TypeError, "dims"),
    (lambda: qm.init_params(qm.Dims(4, 2, 2, 2), np.random.default_rng(0), orthonormal_W2=True),
     ValueError, "m >= d"),
    (lambda: qm.init_params(qm.Dims(4, 2, 2, 2), 0), TypeError, "rng"),
    (lambda: qm.stack_forward([], np.ones((2, 3))), ValueError, "layers"),
    (lambda: qm.block_mask(5, 2), ValueError, "n_seq"),
    (lambda: bq.ball_constants(_inst().params, np.ones((4, 6)), qm.QinConfig(), -1.0, rbar=1.0),
     ValueError, "radius"),
    (lambda: bq.ball_constants(_inst().params, np.ones((4, 6)), qm.QinConfig(), 1.0), ValueError,
     "rbar or loss0"),
    (lambda: bq.ball_constants(_inst().params, np.ones((4, 6)), "cfg", 1.0, rbar=1.0), TypeError,
     "cfg"),
])
def test_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
