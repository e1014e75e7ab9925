"""Instances, Hessian tools and runs for the reconstructed Theorem 2 of Qin, Zhou & Zhu.

:class:`Instance` bundles a model, data and dimensions (random, or near a target with a chosen
spectrum); :func:`hvp` and :func:`top_hessian` give Hessian-vector products and the top of the
spectrum; :func:`lipschitz_context` draws the points of the block-wise Lipschitz checks and
:func:`theorem2_run` trains GD and records the quantities of the linear rate; the intermediate
quantities of the forward and backward pass the checks compare (:func:`intermediates`, and
:func:`intermediates_t`, :func:`gradients_t` for the searches' inner loops).  The checks of
:mod:`attention_theory.qin.checks.residual_gd` (with the searches of
:mod:`attention_theory.qin.searches`) and the experiment :mod:`attention_theory.qin.residual_training`
use them.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.qin import bounds as bq
from attention_theory.qin import model as qm
from attention_theory.validation import torch_generator

BLOCKS = qm.BLOCKS


@dataclasses.dataclass
class Instance:
    """A data set, an initialization and the forward options."""

    params: dict[str, torch.Tensor]
    X: torch.Tensor
    Y: torch.Tensor
    cfg: qm.QinConfig
    dims: qm.Dims

    @property
    def theta0(self) -> torch.Tensor:
        return qm.pack(self.params)

    def __post_init__(self) -> None:
        self._loss = qm.flat_loss(self.X, self.Y, self.dims, self.cfg)
        self._grad = qm.flat_gradient_fn(self.X, self.Y, self.dims, self.cfg)

    def loss(self, theta: torch.Tensor) -> torch.Tensor:
        """``L(theta)`` for a flat ``theta`` of shape ``(p,)``."""
        return self._loss(theta)

    def grad(self, theta: torch.Tensor) -> torch.Tensor:
        """Closed-form flat gradient, shape ``(p,)``."""
        return self._grad(theta)

    def Z(self, theta: torch.Tensor) -> torch.Tensor:
        """The attention output ``Z``, shape ``(N, d)``."""
        return qm.forward(qm.unpack(theta, self.dims), self.X, self.cfg)["Z"]


def random_instance(seed: int, *, N: int = 4, d: int = 6, dk: int = 3, dv: int = 6, m: int = 8,
                    n_seq: int = 1, rho1: int = 1, rho2: int = 1, gamma: float = 0.5,
                    b: float = 4.0, qk_scale: float = 1.0, vo_scale: float = 1.0,
                    ffn_scale: float = 1.0, y_scale: float = 1.0) -> Instance:
    """Gaussian tokens (rows normalized), Gaussian targets of scale ``y_scale``, Gaussian weights."""
    rng = np.random.default_rng(seed)
    dims = qm.Dims(d, dk, dv, m)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = y_scale * rng.standard_normal((N, d))
    p = qm.init_params(dims, rng, qk_scale=qk_scale, vo_scale=vo_scale, ffn_scale=ffn_scale)
    return Instance(p, torch.as_tensor(X, dtype=VERIFICATION_DTYPE), torch.as_tensor(Y,
                                                                                     dtype=VERIFICATION_DTYPE),
                    qm.QinConfig(n_seq=n_seq, rho1=rho1, rho2=rho2, gamma=gamma, b=b), dims)


def near_target_instance(seed: int, *, N: int = 4, d: int = 8, dk: int = 4, dv: int = 8,
                         m: int = 12, gamma: float = 0.9, rho1: int = 1, kappa: float = 1.0,
                         vo_scale: float = 0.1, margin: float = 0.5,
                         loss0: float | None = None) -> tuple[Instance, dict[str, float]]:
    """The Theorem 2 instance: ``X`` with singular values spread over ``[1/kappa, 1]``, ``W2(0)``
    with orthonormal columns, small ``WV, WO`` (so ``Z0 ~ X``), and a target ``Y = F(theta0) + eps E``
    with ``eps`` chosen so that the reconstructed condition (star) holds with ratio ``margin``
    (or ``L(theta0) = loss0`` if given).  Returns the instance and the Theorem 2 constants.
    """
    rng = np.random.default_rng(seed)
    dims = qm.Dims(d, dk, dv, m)
    Uo, _ = np.linalg.qr(rng.standard_normal((N, N)))
    Vo, _ = np.linalg.qr(rng.standard_normal((d, N)))
    s = np.geomspace(1.0, 1.0 / kappa, N)
    X = torch.as_tensor(Uo @ np.diag(s) @ Vo.T, dtype=VERIFICATION_DTYPE)
    p = qm.init_params(dims, rng, vo_scale=vo_scale, orthonormal_W2=True)
    cfg = qm.QinConfig(rho1=rho1, rho2=1, gamma=gamma)
    with torch.no_grad():
        F0 = qm.output(p, X, cfg)
        sN = float(np.linalg.svd(qm.forward(p, X, cfg)["Z"].numpy(), compute_uv=False)[N - 1])
    sd = float(np.linalg.svd(p["W2"].numpy(), compute_uv=False)[d - 1])
    E = rng.standard_normal((N, d))
    E /= np.linalg.norm(E)
    k1 = bq.theorem2_constants(p, X.numpy(), cfg, 1.0, sN, sd)  # G_R, r0 do not depend on L0
    eps = (margin * k1["star_lhs"] / (32 * k1["G_R"]) if loss0 is None else math.sqrt(2 * loss0))
    Y = F0 + eps * torch.as_tensor(E, dtype=VERIFICATION_DTYPE)
    L0 = 0.5 * eps**2
    k = bq.theorem2_constants(p, X.numpy(), cfg, L0, sN, sd)
    k.update(sigma_N_Z0=sN, sigma_d_W20=sd, loss0=L0,
             sigma_1_Z0=float(np.linalg.svd(qm.forward(p, X, cfg)["Z"].detach().numpy(),
                                            compute_uv=False)[0]))
    return Instance(p, X, Y, cfg, dims), k


def block_slices(dims: qm.Dims) -> dict[str, slice]:
    out, k = {}, 0
    for b, (r, c) in dims.shapes().items():
        out[b] = slice(k, k + r * c)
        k += r * c
    return out


def hvp(inst: Instance, theta: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Hessian-vector product ``nabla^2 L(theta) v`` (forward-over-closed-form-gradient)."""
    _, out = torch.func.jvp(inst.grad, (theta,), (v,))
    return out


def top_hessian(inst: Instance, theta: torch.Tensor, *, block: str | None = None,
                iters: int = 60, seed: int = 0) -> tuple[float, torch.Tensor]:
    """Power iteration for ``||nabla^2 L||_2`` (``block=None``) or for the norm of the Hessian's
    row block ``b`` (``sqrt`` of the top eigenvalue of ``H P_b H``); returns ``(value, vector)``."""
    g = torch_generator(seed)
    v = torch.randn(theta.shape[0], generator=g, dtype=VERIFICATION_DTYPE)
    v /= torch.linalg.vector_norm(v)
    sl = block_slices(inst.dims)[block] if block else None
    val = 0.0
    for _ in range(iters):
        w = hvp(inst, theta, v)
        if sl is not None:
            wb = torch.zeros_like(w)
            wb[sl] = w[sl]
            w = hvp(inst, theta, wb)
        val = float(torch.linalg.vector_norm(w))
        if val == 0:
            break
        v = w / val
    if sl is not None:
        val = math.sqrt(val)
    return val, v


@dataclasses.dataclass
class LipContext:
    inst: Instance
    radius: float
    consts: bq.BallConstants
    C: np.ndarray
    Q1: float
    pairs: list[tuple[torch.Tensor, torch.Tensor, str]]
    lam_max: float


@cached_per_scale(maxsize=4)
def lipschitz_context(seed: int = 410, radius: float = 0.5) -> LipContext:
    """A random instance with both residuals on, the ball of ``radius`` around it, the
    reconstructed constants, and test pairs: random pairs, close pairs, consecutive GD iterates,
    pairs along the top singular direction of each Hessian row block, and pairs that differ in
    one block only."""
    inst = random_instance(seed, gamma=0.5, y_scale=1.0)
    L0 = float(inst.loss(inst.theta0))
    consts = bq.ball_constants(inst.params, inst.X.numpy(), inst.cfg, radius, loss0=L0)
    C, Q1 = bq.lipschitz_constants(consts)
    rng = np.random.default_rng(seed)
    p = inst.theta0.shape[0]
    th0 = inst.theta0

    def in_ball(rad):
        v = rng.standard_normal(p)
        return th0 + torch.as_tensor(v / np.linalg.norm(v) * rad, dtype=VERIFICATION_DTYPE)

    pairs = []
    for _ in range(pick(10, 200)):
        pairs.append((in_ball(radius * rng.uniform() ** (1 / 3)),
                      in_ball(radius * rng.uniform() ** (1 / 3)), "random"))
    for _ in range(pick(10, 200)):
        a = in_ball(radius * rng.uniform() * 0.99)
        v = torch.as_tensor(rng.standard_normal(p), dtype=VERIFICATION_DTYPE)
        pairs.append((a, a + 1e-3 * radius * v / torch.linalg.vector_norm(v), "close"))
    traj = run_first_order(inst.loss, th0, steps=pick(10, 100), lr=0.02, keep_iterates=True)
    its = traj.iterates
    for t in range(its.shape[0] - 1):
        if torch.linalg.vector_norm(its[t + 1] - th0) <= radius:
            pairs.append((its[t], its[t + 1], "path"))
    lam, v = top_hessian(inst, th0, iters=pick(20, 60))
    pairs.append((th0, th0 + 1e-4 * radius * v, "hessian-top"))
    for b in BLOCKS:
        _, vb = top_hessian(inst, th0, block=b, iters=pick(8, 30))
        pairs.append((th0, th0 + 1e-4 * radius * vb, f"hessian-{b}"))
    sl = block_slices(inst.dims)
    for b in BLOCKS:   # pairs that differ in one block only (they separate the blocks' couplings)
        a = in_ball(radius * rng.uniform() * 0.99)
        v = torch.zeros(p, dtype=VERIFICATION_DTYPE)
        v[sl[b]] = torch.as_tensor(rng.standard_normal(sl[b].stop - sl[b].start), dtype=VERIFICATION_DTYPE)
        pairs.append((a, a + 1e-3 * radius * v / torch.linalg.vector_norm(v), f"only-{b}"))
    return LipContext(inst, radius, consts, C, Q1, pairs, lam)


@dataclasses.dataclass
class Thm2Run:
    inst: Instance
    consts: dict[str, float]
    eta: float
    losses: np.ndarray
    iterates: torch.Tensor


def theorem2_run(seed: int = 2, eta: float | None = None, steps: int | None = None,
                 rho1: int = 1, kappa: float = 1.0) -> Thm2Run:
    """GD (``optim.gd``) with ``eta = 1/Q1`` (unless given) on the Theorem 2 instance of ``seed``;
    cached, so the checks of one chapter share the run."""
    steps = pick(800, 5000) if steps is None else int(steps)
    return _theorem2_run(int(seed), None if eta is None else float(eta), steps, int(rho1),
                         float(kappa))


@cached_per_scale(maxsize=8)
def _theorem2_run(seed: int, eta: float | None, steps: int, rho1: int, kappa: float) -> Thm2Run:
    inst, k = near_target_instance(seed, rho1=rho1, kappa=kappa)
    eta = 1.0 / k["Q1"] if eta is None else eta
    tr = run_first_order(inst.loss, inst.theta0, steps=steps, lr=eta, keep_iterates=True)
    return Thm2Run(inst, k, eta, tr.losses.numpy(), tr.iterates)


def svals(A: torch.Tensor) -> np.ndarray:
    return np.linalg.svd(A.detach().numpy(), compute_uv=False)


def block_norms(v: torch.Tensor, dims: qm.Dims) -> torch.Tensor:
    sl = block_slices(dims)
    return torch.stack([torch.linalg.vector_norm(v[sl[b]]) for b in BLOCKS])


def grid_instances(seed: int):
    k = 0
    for rho1 in (0, 1):
        for rho2 in (0, 1):
            for n_seq in (1, 3):
                for sc in (0.1, 1.0, 3.0):
                    for s in range(pick(1, 5)):
                        yield random_instance(seed + 1000 * s + k, N=6, d=7, dk=3, dv=5, m=9,
                                              n_seq=n_seq, rho1=rho1, rho2=rho2, qk_scale=sc,
                                              vo_scale=sc, ffn_scale=sc)
                        k += 1


def gradients_t(inst: Instance, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    """The closed-form gradient blocks and backward quantities at ``theta`` (differentiable, no
    validation: the searches' inner loops)."""
    return qm._gradients_t(qm._unpack_t(theta, inst.dims), inst.X, inst.Y, inst.cfg)


def intermediates_t(inst: Instance, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    """Every intermediate of :func:`intermediates` at ``theta`` (differentiable, no validation)."""
    g = gradients_t(inst, theta)
    f = qm._forward_t(qm._unpack_t(theta, inst.dims), inst.X, inst.cfg)
    P = torch.where(torch.isfinite(f["P"]), f["P"], torch.zeros_like(f["P"]))
    return {**g, "P": P, "S": f["S"], "Z": f["Z"], "U": f["U"], "H": f["H"], "F": f["F"]}


def block_distances(inst: Instance, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``||W_b(a) - W_b(b)||_F`` for the six blocks (differentiable)."""
    sl = block_slices(inst.dims)
    return torch.stack([torch.linalg.vector_norm((a - b)[sl[k]]) for k in BLOCKS])


def block_diff(ctx: LipContext, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(||grad_b L(a) - grad_b L(b)||_F for the six b, ||W_b(a) - W_b(b)||_F for the six b)``."""
    dims = ctx.inst.dims
    return block_norms(ctx.inst.grad(a) - ctx.inst.grad(b), dims), block_norms(a - b, dims)


def intermediates(inst: Instance, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    p = qm.unpack(theta, inst.dims)
    f = qm.forward(p, inst.X, inst.cfg)
    g = qm.gradients(p, inst.X, inst.Y, inst.cfg)
    P = torch.where(torch.isfinite(f["P"]), f["P"], torch.zeros_like(f["P"]))
    return {"P": P, "S": f["S"], "Z": f["Z"], "U": f["U"], "H": f["H"], "F": f["F"],
            "R": g["R"], "D1": g["D1"], "GZ": g["GZ"], "GS": g["GS"], "GP": g["GP"]}


# The metrics of :func:`thm2_search`, ``(inst, k, eta, thetas, losses, grads) -> tensor``, for the
# checks of Theorem 2 (``qin-thm-2``), Eq. (22), Eq. (39) and Step III.
