"""Negative controls for the checks of Qin, Zhou & Zhu (reconstructed Theorem 2 and Step II).

Each test runs a registered check with a deliberately wrong variant of its statement and
requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.qin import model as qm
from attention_theory.qin import residual_gd
from attention_theory.qin.checks import residual_gd as cq
from attention_theory.verify import ClaimViolation

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_eq5_momentum_is_not_gd():
    negative_control("qin-eq-5", "sgd-equivalence")
    from attention_theory.foundations.gd import run_first_order

    def heavy_ball(loss, th, eta, steps):
        return run_first_order(loss, th, steps=steps, lr=eta, method="momentum").final

    with pytest.raises(ClaimViolation):
        cq.check_eq5_update(heavy_ball)


def test_nc_assum1_relu():
    negative_control("qin-assum-1", "activation-regularity")
    with pytest.raises(ClaimViolation):
        cq.check_assum1(torch.relu, lambda x: (x > 0).to(x.dtype))


def test_nc_assum1_gelu():
    negative_control("qin-assum-1", "activation-regularity")
    gelu = torch.nn.functional.gelu

    def gelu_prime(x):
        return 0.5 * (1 + torch.erf(x / math.sqrt(2))) + x * torch.exp(-x**2 / 2) / math.sqrt(2 * math.pi)

    with pytest.raises(ClaimViolation):
        cq.check_assum1(gelu, gelu_prime)


def _grads_wk_not_transposed(params, X, Y, cfg):
    g = qm.gradients(params, X, Y, cfg)
    X = torch.as_tensor(X)
    g["WK"] = X.T @ g["GP"] @ X @ params["WQ"] / math.sqrt(params["WQ"].shape[1])
    return g


def _grads_drop_rho2(params, X, Y, cfg):
    """G_Z without the rho2 R term (the FFN residual forgotten in the backward pass)."""
    g = qm.gradients(params, X, Y, cfg)
    f = qm.forward(params, X, cfg)
    GZ = g["GZ"] - cfg.rho2 * g["R"]
    SX = f["S"] @ torch.as_tensor(X)
    g["WV"] = SX.T @ GZ @ params["WO"].T
    g["WO"] = (SX @ params["WV"]).T @ GZ
    return g


def test_nc_eq37_gp_not_transposed():
    negative_control("qin-eq-37", "autograd-gradients")
    with pytest.raises(ClaimViolation):
        cq.check_eq37_gradients(_grads_wk_not_transposed)


def test_nc_eq37_rho2_dropped():
    negative_control("qin-eq-37", "autograd-gradients")
    with pytest.raises(ClaimViolation):
        cq.check_eq37_gradients(_grads_drop_rho2)


def test_nc_eq33_rho2_dropped():
    negative_control("qin-eq-33", "forward-mode-directional")
    with pytest.raises(ClaimViolation):
        cq.check_eq33_directional(_grads_drop_rho2)


def test_nc_eq40_block_omitted():
    negative_control("qin-eq-40", "block-decomposition")
    with pytest.raises(ClaimViolation):
        cq.check_eq40_blocks(qm.BLOCKS[:-1])


def test_nc_eq38_softmax_quarter():
    negative_control("qin-eq-38", "intermediate-lipschitz")
    with pytest.raises(ClaimViolation):
        cq.check_eq38_intermediates(softmax_lip=0.25)


def _half_block_hessian(block):
    ctx = residual_gd.lipschitz_context()
    h, _ = residual_gd.top_hessian(ctx.inst, ctx.inst.theta0, block=block, iters=8)  # as in the context
    return lambda dw: 0.5 * h * float(np.linalg.norm(dw))


@pytest.mark.parametrize("fn, block, cid", [
    (cq.check_eq41_W2, "W2", "qin-eq-41"), (cq.check_eq42_W1, "W1", "qin-eq-42"),
    (cq.check_eq43_WQ, "WQ", "qin-eq-43"), (cq.check_eq44_WK, "WK", "qin-eq-44"),
    (cq.check_eq45_WV, "WV", "qin-eq-45"), (cq.check_eq46_WO, "WO", "qin-eq-46"),
])
def test_nc_per_block_half_hessian(fn, block, cid):
    negative_control("qin-eq-41", "per-block-lipschitz")
    negative_control("qin-eq-42", "per-block-lipschitz")
    negative_control("qin-eq-43", "per-block-lipschitz")
    negative_control("qin-eq-44", "per-block-lipschitz")
    negative_control("qin-eq-45", "per-block-lipschitz")
    negative_control("qin-eq-46", "per-block-lipschitz")
    with pytest.raises(ClaimViolation):
        fn(_half_block_hessian(block))


def test_nc_step2_half_hessian():
    negative_control("qin-step-2", "gradient-lipschitz")
    ctx = residual_gd.lipschitz_context()
    with pytest.raises(ClaimViolation):
        cq.check_step2_lipschitz(0.5 * ctx.lam_max)


def test_nc_step3_sigma_max():
    negative_control("qin-step-3", "pl-and-contraction")
    with pytest.raises(ClaimViolation):
        cq.check_step3_pl(lambda s: float(s[0]), n_random=30)


def test_nc_step1_half_loss():
    negative_control("qin-step-1", "iterates-in-region")
    with pytest.raises(ClaimViolation):
        cq.check_step1(loss_factor=0.5)


def test_nc_eq39_half_residual():
    negative_control("qin-eq-39", "path-bounds")
    with pytest.raises(ClaimViolation):
        cq.check_eq39_path(res_factor=0.5)


def test_nc_thm2_large_step():
    negative_control("qin-thm-2", "linear-rate")
    run = residual_gd.theorem2_run(2)
    lam, _ = residual_gd.top_hessian(run.inst, run.inst.theta0, iters=20)
    with pytest.raises(ClaimViolation):
        cq.check_thm2(eta=2.5 / lam, steps=100)


def test_nc_thm2_Q0_times_100():
    negative_control("qin-thm-2", "linear-rate")
    with pytest.raises(ClaimViolation):
        cq.check_thm2(Q0_factor=100.0)


def test_nc_eq22_rate_Q0_inflated():
    negative_control("qin-eq-22", "rate-lower-bound")
    with pytest.raises(ClaimViolation):
        cq.check_eq22_rate(Q0_factor=100.0)


def test_nc_eq22_inverted_predictor():
    negative_control("qin-eq-22", "rate-vs-singular-values")
    with pytest.raises(ClaimViolation):
        cq.check_eq22_rate_vs_sigma("sigma_1^2/sigma_N^2", steps=30)


def test_nc_fig1_flags_swapped():
    negative_control("qin-fig-1", "residual-vs-none")
    with pytest.raises(ClaimViolation):
        cq.check_fig1(rho1_with=0, rho1_without=1, seeds=(0,), steps=200)
