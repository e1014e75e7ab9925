"""Negative controls for the checks of ``book/qin/residual-gd.md`` (Qin, Zhou & Zhu, reconstructed
Theorem 2 and Step II; :mod:`attention_theory.qin.checks.residual_gd`).

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
from attention_theory.qin.checks import residual_gd as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_eq5_momentum_is_not_gd():
    from attention_theory.foundations.gd import run_first_order

    def heavy_ball(loss, th, eta, steps):
        return run_first_order(loss, th, steps=steps, lr=eta, method="momentum").final

    with negative_control("qin-eq-5", "sgd-equivalence"):
        checks.check_eq5_update(update=heavy_ball)


def test_nc_assum1_relu():
    with negative_control("qin-assum-1", "activation-regularity"):
        checks.check_assum1(sigma=torch.relu, sigma_prime=lambda x: (x > 0).to(x.dtype))


def test_nc_assum1_gelu():
    gelu = torch.nn.functional.gelu

    def gelu_prime(x):
        return 0.5 * (1 + torch.erf(x / math.sqrt(2))) + x * torch.exp(-x**2 / 2) / math.sqrt(2 * math.pi)

    with negative_control("qin-assum-1", "activation-regularity"):
        checks.check_assum1(sigma=gelu, sigma_prime=gelu_prime)


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
    with negative_control("qin-eq-37", "autograd-gradients"):
        checks.check_eq37_gradients(grad_fn=_grads_wk_not_transposed)


def test_nc_eq37_rho2_dropped():
    with negative_control("qin-eq-37", "autograd-gradients"):
        checks.check_eq37_gradients(grad_fn=_grads_drop_rho2)


def test_nc_eq33_rho2_dropped():
    with negative_control("qin-eq-33", "forward-mode-directional"):
        checks.check_eq33_directional(grad_fn=_grads_drop_rho2)


def test_nc_eq40_block_omitted():
    with negative_control("qin-eq-40", "block-decomposition"):
        checks.check_eq40_blocks(blocks=qm.BLOCKS[:-1])


def test_nc_eq38_softmax_quarter():
    with negative_control("qin-eq-38", "intermediate-lipschitz"):
        checks.check_eq38_intermediates(softmax_lip=0.25)


def test_nc_eq38_spectral_bounds_with_0_9_radius():
    # lam_b = ||W_b(0)||_2 + 0.9 r: only the tight families at the edge of the ball (ratio -> 1)
    # exceed this; the random, path and searched pairs stay below it
    with negative_control("qin-eq-38", "intermediate-lipschitz"):
        checks.check_eq38_intermediates(radius_factor=0.9)


def _half_block_hessian(block):
    ctx = residual_gd.lipschitz_context()
    h, _ = residual_gd.top_hessian(ctx.inst, ctx.inst.theta0, block=block, iters=8)  # as in the context
    return lambda dw: 0.5 * h * float(np.linalg.norm(dw))


def _per_block(fn, block):
    fn(bound=_half_block_hessian(block))


def test_nc_per_block_half_hessian_w2():
    with negative_control("qin-eq-41", "per-block-lipschitz"):
        _per_block(checks.check_eq41_W2, "W2")


def test_nc_per_block_half_hessian_w1():
    with negative_control("qin-eq-42", "per-block-lipschitz"):
        _per_block(checks.check_eq42_W1, "W1")


def test_nc_per_block_half_hessian_wq():
    with negative_control("qin-eq-43", "per-block-lipschitz"):
        _per_block(checks.check_eq43_WQ, "WQ")


def test_nc_per_block_half_hessian_wk():
    with negative_control("qin-eq-44", "per-block-lipschitz"):
        _per_block(checks.check_eq44_WK, "WK")


def test_nc_per_block_half_hessian_wv():
    with negative_control("qin-eq-45", "per-block-lipschitz"):
        _per_block(checks.check_eq45_WV, "WV")


def test_nc_per_block_half_hessian_wo():
    with negative_control("qin-eq-46", "per-block-lipschitz"):
        _per_block(checks.check_eq46_WO, "WO")


_PER_BLOCK = {"W2": ("qin-eq-41", checks.check_eq41_W2), "W1": ("qin-eq-42", checks.check_eq42_W1),
              "WQ": ("qin-eq-43", checks.check_eq43_WQ), "WK": ("qin-eq-44", checks.check_eq44_WK),
              "WV": ("qin-eq-45", checks.check_eq45_WV), "WO": ("qin-eq-46", checks.check_eq46_WO)}


@pytest.mark.parametrize("block", list(_PER_BLOCK))
def test_nc_per_block_own_block_only(block):
    """Dropped coupling terms: each block's gradient bounded by its own block's change only
    (the row's diagonal entry).  The pairs that move one other block reject it."""
    ctx = residual_gd.lipschitz_context()
    i = qm.BLOCKS.index(block)
    claim, fn = _PER_BLOCK[block]
    with negative_control(claim, "per-block-lipschitz"):
        fn(bound=lambda dw: float(ctx.C[i, i] * dw[i]))


def test_nc_step2_half_hessian():
    ctx = residual_gd.lipschitz_context()
    with negative_control("qin-step-2", "gradient-lipschitz"):
        checks.check_step2_lipschitz(Q1=0.5 * ctx.lam_max)


def test_nc_step2_curvature_at_theta0():
    """The top Hessian eigenvalue at theta0 taken as the Lipschitz constant on the whole ball: the
    gradient varies about twice as fast on some pairs of the ball (adversarial search)."""
    ctx = residual_gd.lipschitz_context()
    with negative_control("qin-step-2", "gradient-lipschitz"):
        checks.check_step2_lipschitz(Q1=ctx.lam_max)


def test_nc_step3_sigma_max():
    with negative_control("qin-step-3", "pl-and-contraction"):
        checks.check_step3_pl(sigma_Z=lambda s: float(s[0]), n_random=30)


def test_nc_step1_half_loss():
    with negative_control("qin-step-1", "iterates-in-region"):
        checks.check_step1(loss_factor=0.5)


def test_nc_eq39_half_residual():
    with negative_control("qin-eq-39", "path-bounds"):
        checks.check_eq39_path(res_factor=0.5)


def test_nc_thm2_large_step():
    run = residual_gd.theorem2_run(2)
    lam, _ = residual_gd.top_hessian(run.inst, run.inst.theta0, iters=20)
    with negative_control("qin-thm-2", "linear-rate"):
        checks.check_thm2(eta=2.5 / lam, steps=100)


def test_nc_thm2_Q0_times_100():
    with negative_control("qin-thm-2", "linear-rate"):
        checks.check_thm2(Q0_factor=100.0)


def test_nc_eq22_rate_Q0_inflated():
    with negative_control("qin-eq-22", "rate-lower-bound"):
        checks.check_eq22_rate(Q0_factor=100.0)


def test_nc_eq22_inverted_predictor():
    with negative_control("qin-eq-22", "rate-vs-singular-values"):
        checks.check_eq22_rate_vs_sigma(predictor="sigma_1^2/sigma_N^2", steps=30)
