"""The searches of the checks of ``book/qin/residual-gd.md`` (Qin, Zhou & Zhu, reconstructed
Theorem 2 and Step II): what :mod:`attention_theory.qin.checks.residual_gd` maximises over, besides
the instances of :mod:`attention_theory.qin.residual_gd`.

* pairs in the ball of the block-wise Lipschitz checks: the smaller instances and their balls
  (:func:`ball_instances`), the sized search over pairs (:func:`pair_search`), one adversarial pair
  in the full space of the Lipschitz context (:func:`adversarial_pairs`), and the two tight
  families of (38) at the edge of the ball (:func:`edge_families`, :func:`ball_edge_pairs`);
* the Theorem 2 instances at the edge of the hypothesis (:func:`thm2_instances`), the search over
  the direction of the target perturbation with unrolled GD (:func:`thm2_search`, with the metrics
  :func:`rate_bound_metric`, :func:`ball_radius_metric`, :func:`rate_ratio_metric`,
  :func:`path_bound_metric`, :func:`contraction_metric`) and the search over the ball
  ``B(theta0, r0)`` (:func:`ball_search`);
* the softmax primitives of (38) (:func:`softmax_jacobian_samples`,
  :func:`softmax_jacobian_metrics`), the PL-type bound of Step III (:func:`pl_random_sides`,
  :func:`pl_search`) and the windows of the searches of Assumption 1 (:func:`window_point`).

The family descriptions the records carry are here too (:data:`CONTEXT_PAIRS`, :data:`SIZED_PAIRS`,
:data:`THM2_FAMILY`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.qin import bounds as bq
from attention_theory.qin import model as qm
from attention_theory.qin.residual_gd import (
    BLOCKS,
    Instance,
    LipContext,
    block_distances,
    block_slices,
    intermediates_t,
    near_target_instance,
    random_instance,
    svals,
)
from attention_theory.search import SizedSearch, maximize, maximize_over_sizes


def ball_map(u: torch.Tensor, r: float) -> torch.Tensor:
    """Smooth map of ``R^p`` into the ball of radius ``r`` (for unconstrained search)."""
    return r * u / torch.sqrt(1 + torch.sum(u * u))


def adversarial_pairs(ctx: LipContext, objective: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                       seed: int) -> list[tuple[torch.Tensor, torch.Tensor, str]]:
    p = ctx.inst.theta0.shape[0]
    th0 = ctx.inst.theta0

    def obj(z: torch.Tensor) -> torch.Tensor:  # log: ratios are tiny, L-BFGS needs scale
        a = th0 + ball_map(z[:p], ctx.radius)
        b = th0 + ball_map(z[p:], ctx.radius)
        return torch.log(objective(a, b))

    res = maximize(obj, lambda rng: rng.standard_normal(2 * p) * rng.uniform(0.1, 3),
                   restarts=pick(2, 20), steps=pick(20, 200), seed=seed)
    z = torch.as_tensor(res.best_x)
    return [(th0 + ball_map(z[:p], ctx.radius), th0 + ball_map(z[p:], ctx.radius), "adversarial")]


#: ``(N, d, dk, dv, m)`` of the instances of the sized searches over pairs in the ball: the
#: smallest with a non-trivial attention (two tokens, one dimension), a two-dimensional one and,
#: at full scale, a three-dimensional one.  The Lipschitz context's own instance (``(4, 6, 3, 6,
#: 8)``, 204 parameters) keeps its full-space L-BFGS pair (Nelder-Mead in 408 dimensions is out
#: of reach).
PAIR_SIZES = ((2, 1, 1, 1, 1), (2, 2, 1, 2, 2))


PAIR_SIZES_FULL = ((2, 1, 1, 1, 1), (2, 2, 1, 2, 2), (3, 3, 2, 3, 3))


@cached_per_scale(maxsize=2)
def ball_instances(seed: int = 410, radius: float = 0.5) -> dict[tuple[int, ...], tuple[Instance,
                                                                                        bq.BallConstants]]:
    """Random instances of the sizes of :data:`PAIR_SIZES` built like the Lipschitz context's
    (both residuals on, ``gamma = 1/2``), with the constants of the ball of ``radius`` around each."""
    out = {}
    for size in pick(PAIR_SIZES, PAIR_SIZES_FULL):
        N, d, dk, dv, m = size
        inst = random_instance(seed, N=N, d=d, dk=dk, dv=dv, m=m, gamma=0.5, y_scale=1.0)
        L0 = float(inst.loss(inst.theta0))
        out[size] = (inst, bq.ball_constants(inst.params, inst.X.numpy(), inst.cfg, radius, loss0=L0))
    return out


def pair_search(ratio: Callable[[Instance, bq.BallConstants, torch.Tensor, torch.Tensor], torch.Tensor],
                 seed: int, radius: float = 0.5) -> SizedSearch:
    """Maximise ``ratio(inst, consts, a, b)`` over pairs ``a, b`` in the ball of each instance of
    :func:`ball_instances` (``a = theta0 + r u / sqrt(1 + |u|^2)``), with L-BFGS and Nelder-Mead."""
    insts = ball_instances(410, radius)

    th0 = {size: inst.theta0 for size, (inst, _) in insts.items()}

    def obj(size: tuple[int, ...], x: Any) -> Any:
        inst, consts = insts[size]
        x = torch.as_tensor(x, dtype=VERIFICATION_DTYPE)
        p = th0[size].shape[0]
        return ratio(inst, consts, th0[size] + ball_map(x[:p], radius), th0[size] + ball_map(x[p:], radius))

    return maximize_over_sizes(obj, lambda size, g: g.standard_normal(2 * th0[size].shape[0]) * g.uniform(0.1,
                                                                                                          3),
                               list(insts), restarts=pick(1, 3), steps=pick(3, 12), seed=seed)


#: The families of the Lipschitz checks on pairs in the ball (:func:`lipschitz_context`, :func:`pair_search`).
CONTEXT_PAIRS = ("the Lipschitz context (N, d, dk, dv, m) = (4, 6, 3, 6, 8), radius 0.5: random, close, "
                  "GD-path, Hessian-direction and one-block pairs")


SIZED_PAIRS = ("adversarial L-BFGS + Nelder-Mead over pairs in the balls of (N, d, dk, dv, m) = (2, 1, 1, 1, "
               "1), "
                "(2, 2, 1, 2, 2) (and (3, 3, 2, 3, 3) at full scale)")


def lam_radius(c: bq.BallConstants, factor: float) -> bq.BallConstants:
    """``c`` with the spectral bounds ``lam_b = ||W_b(0)||_2 + factor r`` (``factor = 1``: ``c`` itself)."""
    if factor == 1.0:
        return c
    return dataclasses.replace(c, lam={b: v - (1.0 - factor) * c.radius for b, v in c.lam.items()})


def ball_edge_pairs(inst: Instance, lip: np.ndarray, key: str, moving: str, edge: str, radius: float,
                     epss: list[float]) -> tuple[list[float], list[float]]:
    """``(||Delta Q||_F, sum_b lip[b] ||Delta W_b||_F)`` for the intermediate ``key`` on the pairs
    ``a = theta0 + s E``, ``b = a + h M`` with ``E`` the unit direction of the top singular pair of
    ``W_edge(0)`` (so ``||W_edge(a)||_2 = ||W_edge(0)||_2 + s``), ``s = radius (1 - eps)``, ``M``
    the unit all-ones direction of block ``moving`` and ``h = sqrt(radius^2 - s^2) / 2`` (both points
    in the ball), one pair per ``eps``."""
    sl = block_slices(inst.dims)
    shapes = inst.dims.shapes()
    th0 = inst.theta0
    U, _, Vh = torch.linalg.svd(th0[sl[edge]].reshape(shapes[edge]))
    E = torch.zeros_like(th0)
    E[sl[edge]] = torch.outer(U[:, 0], Vh[0]).reshape(-1)
    M = torch.zeros_like(th0)
    M[sl[moving]] = 1.0 / math.sqrt(sl[moving].stop - sl[moving].start)
    lhs, rhs = [], []
    for eps in epss:
        s = radius * (1 - eps)
        a = th0 + s * E
        b = a + 0.5 * math.sqrt(radius ** 2 - s ** 2) * M
        lhs.append(float(torch.linalg.norm(intermediates_t(inst, a)[key] - intermediates_t(inst, b)[key])))
        rhs.append(float(np.dot(lip, block_distances(inst, a, b).numpy())))
    return lhs, rhs


#: The Theorem 2 instances of the searches, ``((N, d, dk, dv, m), kappa(X))``: the smallest
#: (one token in one dimension), a two-token one with ``kappa = 3``, and at full scale more,
#: the check's own sizes included.  Each is :func:`near_target_instance` at the edge of the hypothesis,
#: (star) holding with ratio ``0.99``; the search moves the direction ``E`` of the target
#: perturbation ``Y = F(theta0) + eps E / ||E||_F`` (``eps`` fixed by the ratio).
THM2_SIZES = (((1, 1, 1, 1, 1), 1.0), ((2, 2, 1, 2, 2), 3.0))


THM2_SIZES_FULL = (((1, 1, 1, 1, 1), 1.0), ((2, 2, 1, 2, 2), 1.0), ((2, 2, 1, 2, 2), 3.0),
                    ((4, 8, 4, 8, 12), 1.0))


THM2_MARGIN = 0.99


#: The family of the Theorem 2 searches (:func:`thm2_search`), for the records.
THM2_FAMILY = ("adversarial L-BFGS + Nelder-Mead over the target direction E on the Theorem 2 instances "
                "((N, d, dk, dv, m), kappa) = ((1, 1, 1, 1, 1), 1), ((2, 2, 1, 2, 2), 3) (more at full "
                "scale, (4, 8, 4, 8, 12) included) at (star) ratio 0.99, K = 6 (20 at full scale) unrolled "
                "GD steps")


@cached_per_scale(maxsize=2)
def thm2_instances(seed: int) -> dict[tuple, tuple[Instance, dict[str, float], torch.Tensor, torch.Tensor]]:
    """``size -> (instance, Theorem 2 constants, theta0, F(theta0))`` for :data:`THM2_SIZES`."""
    out = {}
    for dims, kappa in pick(THM2_SIZES, THM2_SIZES_FULL):
        N, d, dk, dv, m = dims
        inst, k = near_target_instance(seed, N=N, d=d, dk=dk, dv=dv, m=m, kappa=kappa, margin=THM2_MARGIN)
        if not k["holds"]:   # pragma: no cover - the construction makes (star) hold
            raise RuntimeError(f"(star) fails on the search instance {dims}, kappa {kappa}")
        with torch.no_grad():
            F0 = qm._forward_t(inst.params, inst.X, inst.cfg)["F"]
        out[(dims, kappa)] = (inst, k, inst.theta0, F0)
    return out


def thm2_search(metric: Callable[..., torch.Tensor], seed: int, *, eta_factor: float = 1.0,
                 steps: int | None = None) -> SizedSearch:
    """Maximise ``metric(inst, k, eta, thetas, losses, grads)`` over the direction ``E`` of the target
    perturbation on the instances of :func:`thm2_instances`, with ``K`` steps of GD at
    ``eta = eta_factor / Q1`` unrolled in torch (``thetas (K+1, p)``, ``losses (K+1,)``, ``grads``
    the ``K + 1`` dicts of :func:`~attention_theory.qin.model.gradients`, with the search's targets)."""
    insts = thm2_instances(seed)
    K = pick(6, 20) if steps is None else steps

    def obj(size: tuple, x: Any) -> Any:
        inst, k, th0, F0 = insts[size]
        E = torch.as_tensor(x, dtype=VERIFICATION_DTYPE).reshape(inst.X.shape)
        Y = F0 + math.sqrt(2 * k["loss0"]) * E / torch.linalg.norm(E)
        eta = eta_factor / k["Q1"]
        theta, thetas, losses, grads = th0, [th0], [], []
        for _ in range(K + 1):
            g = qm._gradients_t(qm._unpack_t(theta, inst.dims), inst.X, Y, inst.cfg)
            grads.append(g)
            losses.append(0.5 * torch.sum(g["R"] ** 2))
            if len(thetas) == K + 1:
                break
            theta = theta - eta * torch.cat([g[b].reshape(-1) for b in BLOCKS])
            thetas.append(theta)
        value = metric(inst, k, eta, torch.stack(thetas), torch.stack(losses), grads)
        # a diverging run (a step size above the theorem's) makes every ratio infinite: a violation,
        # kept finite and above 1 (a non-finite value would count as no instance)
        return torch.nan_to_num(value, nan=1e300, posinf=1e300)

    return maximize_over_sizes(obj, lambda size, g: g.standard_normal(insts[size][0].X.numel()), list(insts),
                               restarts=pick(1, 2), steps=pick(4, 10), seed=seed)


def ball_search(metric: Callable[[Instance, dict, torch.Tensor], torch.Tensor], seed: int) -> SizedSearch:
    """Maximise ``metric(inst, k, theta)`` over ``theta`` in the ball ``B(theta0, r0)`` of the Theorem 2
    instances of :func:`thm2_instances` with at most 100 parameters (``theta = theta0 + r0 u /
    sqrt(1 + |u|^2)``), with L-BFGS and Nelder-Mead."""
    insts = {size: v for size, v in thm2_instances(seed).items() if v[2].shape[0] <= 100}

    def obj(size: tuple, x: Any) -> Any:
        inst, k, th0, _ = insts[size]
        return metric(inst, k, th0 + ball_map(torch.as_tensor(x, dtype=VERIFICATION_DTYPE), k["r0"]))

    return maximize_over_sizes(obj, lambda size,
                               g: g.standard_normal(insts[size][2].shape[0]) * g.uniform(0.1, 3),
                               list(insts), restarts=pick(1, 3), steps=pick(4, 20), seed=seed)


def softmax_jacobian_samples(rng: np.random.Generator, batches: int) -> tuple[list[np.ndarray],
                                                                              list[np.ndarray]]:
    """The random instances of the softmax primitives of (38) (check ``qin-eq-38``): ``batches``
    batches of 100 Gaussian logit vectors ``p`` (``T`` in 2..6 per batch, scale ``U(0.01, 5)``) and
    perturbed copies ``q`` (perturbation ``N(0, 1) 10^U(-4, 0)``).  Returns ``(norms, ratios)``, one
    array of shape ``(100,)`` per batch: ``||J(p)||_2`` of the softmax Jacobian ``J = diag(s) - s s^T``
    and ``||J(p) - J(q)||_2 / ||p - q||``; last in ``norms``, the tight case of two equal logits
    (norm ``1/2``)."""
    jn, jr = [], []
    for _ in range(batches):
        T = int(rng.integers(2, 7))
        p = torch.as_tensor(rng.standard_normal((100, T)) * rng.uniform(0.01, 5))
        s = torch.softmax(p, -1)
        J = torch.diag_embed(s) - s[..., :, None] * s[..., None, :]
        jn.append(torch.linalg.matrix_norm(J, 2).numpy())
        q = p + torch.as_tensor(rng.standard_normal((100, T))) * 10 ** rng.uniform(-4, 0)
        s2 = torch.softmax(q, -1)
        J2 = torch.diag_embed(s2) - s2[..., :, None] * s2[..., None, :]
        jr.append((torch.linalg.matrix_norm(J - J2, 2) / torch.linalg.vector_norm(p - q, dim=-1)).numpy())
    two = torch.tensor([[1e-9, -1e-9]], dtype=VERIFICATION_DTYPE)  # the tight case: two equal logits
    s = torch.softmax(two, -1)
    Jt = torch.diag_embed(s) - s[..., :, None] * s[..., None, :]
    jn.append(torch.linalg.matrix_norm(Jt, 2).numpy())
    return jn, jr


def softmax_jac(h: Any) -> Any:
    """The softmax Jacobian ``diag(s) - s s^T`` of one logit vector ``h`` of shape ``(T,)``: a
    differentiable torch tensor for a tensor (L-BFGS), a numpy array otherwise (Nelder-Mead)."""
    if isinstance(h, torch.Tensor):
        s_ = torch.softmax(h, 0)
        return torch.diag(s_) - torch.outer(s_, s_)
    e = np.exp(h - h.max())
    s_ = e / e.sum()
    return np.diag(s_) - np.outer(s_, s_)


def ball_spectral_ratio(inst: Instance, k: dict, theta: torch.Tensor) -> torch.Tensor:
    """``max_b ||W_b(theta)||_2 / (||W_b(0)||_2 + r0)`` (differentiable; a metric of
    :func:`ball_search`, check ``qin-step-1``)."""
    p_, p0 = qm._unpack_t(theta, inst.dims), inst.params
    return torch.max(torch.stack([torch.linalg.matrix_norm(p_[b], 2) / (torch.linalg.matrix_norm(p0[b], 2)
                                                                        + k["r0"]) for b in BLOCKS]))


def ball_sigma_N_ratio(inst: Instance, k: dict, theta: torch.Tensor) -> torch.Tensor:
    """``sigma_N(Z0) / (2 sigma_N(Z(theta)))`` (a metric of :func:`ball_search`, check ``qin-step-1``)."""
    Z = qm._forward_t(qm._unpack_t(theta, inst.dims), inst.X, inst.cfg)["Z"]
    return k["sigma_N_Z0"] / (2 * torch.linalg.svdvals(Z)[inst.X.shape[0] - 1])


def ball_sigma_d_ratio(inst: Instance, k: dict, theta: torch.Tensor) -> torch.Tensor:
    """``sigma_d(W2(0)) / (2 sigma_d(W2(theta)))`` (a metric of :func:`ball_search`, check ``qin-step-1``)."""
    return k["sigma_d_W20"] / (2 * torch.linalg.svdvals(qm._unpack_t(theta,
                                                                     inst.dims)["W2"])[inst.dims.d - 1])


def pl_random_sides(seed: int, count: int, sigma_Z: Callable[[np.ndarray], float]) -> tuple[list[float],
                                                                                            list[float]]:
    """The two sides of the PL-type bound ``2 gamma^2 sigma(Z)^2 sigma_d(W2)^2 L <= ||grad_W1 L||_F^2``
    (check ``qin-step-3``) on ``count`` random instances ``(N, d) = (4, 6)`` of seeds ``seed + k``:
    all four residual settings in turn, ``X`` rescaled to ``kappa(X) = 10^U(0, 2)``, query/key scale
    ``10^U(-1, 0.5)``, FFN scale ``10^U(-0.5, 0.5)``; ``sigma_Z`` picks ``sigma(Z)`` from the
    descending singular values of ``Z``.  Returns ``(lhs, rhs)``, lists of ``count`` floats."""
    lhs, rhs = [], []
    for k in range(count):
        rng = np.random.default_rng(seed + k)
        kap = float(10 ** rng.uniform(0, 2))
        inst = random_instance(seed + k, N=4, d=6, rho1=k % 2, rho2=(k // 2) % 2,
                               qk_scale=float(10 ** rng.uniform(-1, 0.5)),
                               ffn_scale=float(10 ** rng.uniform(-0.5, 0.5)))
        U_, s_, Vt = np.linalg.svd(inst.X.numpy(), full_matrices=False)
        inst = Instance(inst.params, torch.as_tensor(U_ @ np.diag(np.geomspace(1, 1 / kap, s_.size)) @ Vt),
                        inst.Y, inst.cfg, inst.dims)
        f = qm.gradients(inst.params, inst.X, inst.Y, inst.cfg)
        Z = qm.forward(inst.params, inst.X, inst.cfg)["Z"]
        L = float(qm.loss(inst.params, inst.X, inst.Y, inst.cfg))
        sd = svals(inst.params["W2"])[inst.dims.d - 1]
        lhs.append(2 * inst.cfg.gamma**2 * sigma_Z(svals(Z)) ** 2 * sd**2 * L)
        rhs.append(float(torch.sum(f["W1"] ** 2)))
    return lhs, rhs


def pick_singular_value(s: torch.Tensor, sigma_Z: Callable[[np.ndarray], float]) -> torch.Tensor:
    """The entry of the singular values ``s`` (descending, shape ``(n,)``) that ``sigma_Z`` picks,
    kept differentiable (the one nearest to ``sigma_Z(s)``)."""
    s_np = s.detach().numpy()
    return s[int(np.argmin(np.abs(s_np - sigma_Z(s_np))))]


#: ``((N, d, dk, dv, m), rho1, rho2)`` of the adversarial PL search (:func:`pl_search`).
PL_SIZES = (((1, 1, 1, 1, 1), 1, 1), ((2, 2, 1, 2, 2), 0, 1))


PL_SIZES_FULL = (((1, 1, 1, 1, 1), 1, 1), ((1, 1, 1, 1, 1), 0, 0), ((2, 2, 1, 2, 2), 0, 1),
                 ((2, 2, 1, 2, 2), 1, 0), ((2, 3, 2, 3, 3), 1, 1), ((3, 3, 2, 3, 3), 0, 0))


def pl_search(seed: int, sigma_Z: Callable[[np.ndarray], float]) -> SizedSearch:
    """Maximise the PL ratio ``2 gamma^2 sigma(Z)^2 sigma_d(W2)^2 L / ||grad_W1 L||_F^2`` (check
    ``qin-step-3``) over the weights and the tokens ``X`` (free, any conditioning) of random
    instances of the sizes and residual settings :data:`PL_SIZES` (:data:`PL_SIZES_FULL` at full
    scale), with L-BFGS and Nelder-Mead from the instances' own weights and tokens plus noise."""
    pl_insts = {size: random_instance(seed, N=size[0][0], d=size[0][1], dk=size[0][2], dv=size[0][3],
                                      m=size[0][4], rho1=size[1], rho2=size[2])
                for size in pick(PL_SIZES, PL_SIZES_FULL)}

    def pl_ratio(size: tuple, x: Any) -> torch.Tensor:
        inst_ = pl_insts[size]
        x = torch.as_tensor(x, dtype=VERIFICATION_DTYPE)
        P = qm.n_params(inst_.dims)
        p_ = qm._unpack_t(x[:P], inst_.dims)
        X = x[P:].reshape(inst_.X.shape)
        g = qm._gradients_t(p_, X, inst_.Y, inst_.cfg)
        Z = qm._forward_t(p_, X, inst_.cfg)["Z"]
        L = 0.5 * torch.sum(g["R"] ** 2)
        low = 2 * inst_.cfg.gamma ** 2 * pick_singular_value(torch.linalg.svdvals(Z), sigma_Z) ** 2 \
            * torch.linalg.svdvals(p_["W2"])[inst_.dims.d - 1] ** 2 * L
        up = torch.sum(g["W1"] ** 2)
        # up = 0 < low is a violation: kept finite (a non-finite value would count as no instance)
        return torch.where(up > 0, low / torch.clamp(up, min=1e-300), torch.where(low > 0, 1e6 + low,
                                                                                  0.0 * low))

    def start(size: tuple, g: np.random.Generator) -> np.ndarray:
        inst_ = pl_insts[size]
        return (np.concatenate([inst_.theta0.numpy(), inst_.X.numpy().ravel()])
                + g.normal(0, 0.5, inst_.theta0.shape[0] + inst_.X.numel()))

    return maximize_over_sizes(pl_ratio, start, list(pl_insts), restarts=pick(1, 4), steps=pick(8, 30),
                               seed=seed)


def window_point(w: float, u: Any) -> torch.Tensor:
    """``x = w tanh(u / w)``: a point of the window ``(-w, w)`` for an unconstrained search variable
    ``u`` (array-like or tensor; the searches of Assumption 1, check ``qin-assum-1``)."""
    return w * torch.tanh(torch.as_tensor(u, dtype=VERIFICATION_DTYPE) / w)


def tied_to(v: torch.Tensor, u: Any) -> torch.Tensor:
    """``v`` kept on the autograd graph of ``u`` when ``u`` is a tensor (a ``sigma'`` without
    gradient, e.g. a step function, must still give L-BFGS a graph); ``v`` itself otherwise."""
    return v + 0.0 * u.sum() if isinstance(u, torch.Tensor) else v


def edge_families(radius: float) -> list[tuple[str, Instance, bq.BallConstants, str, str, str]]:
    """The two tight families of (38) (check ``qin-eq-38``), as ``(family, instance, ball constants,
    intermediate, moving block, edge block)`` for :func:`ball_edge_pairs` (ball of ``radius``).

    The coefficient of ``WQ`` in ``P`` is ``tau xi^2 lam_K`` with ``lam_K = ||WK(0)||_2 + r``, which
    ``||WK||_2`` reaches only at a point that spends the whole radius on ``WK``, leaving none to move
    ``WQ``; likewise ``lam_O`` in the coefficient of ``WV`` in ``Z``.  So the pairs approach 1 as they
    move to that edge of the ball, without reaching it.  ``P`` (``d = dk = 1``, only ``WQ`` moves,
    ``WK`` pushed by ``s`` along its top singular pair): ratio ``||WK||_2 / lam_K = (||WK(0)||_2 + s) /
    (||WK(0)||_2 + r)``; ``Z`` (one token per sequence, so ``S = I``; ``d = dv = 1``; only ``WV``
    moves, ``WO`` pushed): ratio ``||WO||_2 / lam_O``."""
    inst_p, consts_p = ball_instances(410, radius)[(2, 1, 1, 1, 1)]
    inst_z = random_instance(410, N=2, d=1, dk=1, dv=1, m=1, n_seq=2, gamma=0.5, y_scale=1.0)
    consts_z = bq.ball_constants(inst_z.params, inst_z.X.numpy(), inst_z.cfg, radius,
                                 loss0=float(inst_z.loss(inst_z.theta0)))
    fam_p = "P: N = 2, d = dk = dv = m = 1, only WQ moves, WK at ||WK(0)|| + r (1 - eps)"
    fam_z = ("Z: two sequences of one token (S = I), d = dk = dv = m = 1, only WV moves, WO at "
             "||WO(0)|| + r (1 - eps)")
    return [(fam_p, inst_p, consts_p, "P", "WQ", "WK"), (fam_z, inst_z, consts_z, "Z", "WV", "WO")]


def softmax_jacobian_metrics(softmax_lip: float, softmax_jac_lip: float) -> tuple[Callable, Callable]:
    """The objectives of the searches over logits of (38) (check ``qin-eq-38``), ``(T, z) -> value``:
    ``||J(z)||_2 / softmax_lip`` (``z`` of shape ``(T,)``) and ``||J(a) - J(b)||_2 / (softmax_jac_lip
    ||a - b||)`` (``z = (a, b)`` of shape ``(2T,)``), for :func:`softmax_jac` ``J``: torch for L-BFGS,
    numpy for Nelder-Mead."""

    def jac_norm(T: int, z: Any) -> Any:
        if isinstance(z, torch.Tensor):
            return torch.linalg.eigvalsh(softmax_jac(z))[-1] / softmax_lip
        return float(np.linalg.eigvalsh(softmax_jac(z))[-1]) / softmax_lip

    def jac_ratio(T: int, z: Any) -> Any:
        a, b = z[:T], z[T:]
        if isinstance(z, torch.Tensor):
            num = torch.linalg.matrix_norm(softmax_jac(a) - softmax_jac(b), 2)
            return num / (softmax_jac_lip * torch.linalg.vector_norm(a - b))
        return float(np.linalg.norm(softmax_jac(a) - softmax_jac(b), 2)) / (softmax_jac_lip
                                                                          * float(np.linalg.norm(a - b)))

    return jac_norm, jac_ratio


def rate_bound_metric(Q0_factor: float) -> Callable[..., torch.Tensor]:
    """``max_{t >= 1} L_t / ((1 - eta Q0_factor Q0)^t L_0)`` along the unrolled run (check ``qin-thm-2``)."""

    def worst_22(inst: Instance, k: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                 grads: list) -> torch.Tensor:
        t = torch.arange(1, losses.shape[0], dtype=VERIFICATION_DTYPE)
        return torch.max(losses[1:] / ((1 - eta_ * Q0_factor * k["Q0"]) ** t * losses[0]))

    return worst_22


def ball_radius_metric(inst: Instance, k: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                       grads: list) -> torch.Tensor:
    """``max_t ||theta_t - theta_0|| / r0`` along the unrolled run (check ``qin-thm-2``)."""
    return torch.max(torch.linalg.vector_norm(thetas - thetas[0], dim=1)) / k["r0"]


def rate_ratio_metric(Q0_factor: float) -> Callable[..., torch.Tensor]:
    """The guaranteed rate ``-log(1 - eta Q0_factor Q0)`` over the measured rate of the unrolled run
    (``1e6 (1 - measured)`` when the measured rate is not positive: a violation kept finite; check
    ``qin-eq-22``)."""

    def rate_ratio(inst: Instance, k: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                   grads: list) -> torch.Tensor:
        K = losses.shape[0] - 1
        measured = -torch.log(losses[-1] / losses[0]) / K
        guaranteed = -math.log(1 - eta_ * Q0_factor * k["Q0"])
        return torch.where(measured > 0, guaranteed / measured, 1e6 * (1 - measured))

    return rate_ratio


def path_bound_metric(seed: int, res_factor: float) -> Callable[..., torch.Tensor]:
    """The largest ratio, over ``t >= 1``, of the norms of ``R, D1, GZ, GS, GP`` to their (38) bounds
    with ``rbar = res_factor sqrt(2 L0)`` on the ball ``B(theta0, r0)``, along the unrolled run of the
    instances of :func:`thm2_instances` of ``seed`` (check ``qin-eq-39``)."""
    bounds = {}
    for size, (inst_, k_, _, _) in thm2_instances(seed).items():
        cb_ = bq.ball_constants(inst_.params, inst_.X.numpy(), inst_.cfg, k_["r0"],
                                rbar=res_factor * math.sqrt(2 * k_["loss0"]))
        bounds[id(k_)] = {q: v.norm for q, v in bq.intermediate_bounds(cb_).items()}

    def path_ratio(inst_: Instance, k_: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                   grads: list) -> torch.Tensor:
        return torch.max(torch.stack([torch.linalg.norm(g[q]) / bounds[id(k_)][q]
                                      for g in grads[1:] for q in ("R", "D1", "GZ", "GS", "GP")]))

    return path_ratio


def contraction_metric(sigma_Z: Callable[[np.ndarray], float]) -> Callable[..., torch.Tensor]:
    """``max_t L_{t+1} / ((1 - eta gamma^2 sigma(Z_t)^2 sigma_d(W2_t)^2) L_t)`` along the unrolled run,
    ``sigma(Z_t)`` picked by ``sigma_Z`` (:func:`pick_singular_value`; check ``qin-step-3``)."""

    def contraction(inst_: Instance, k_: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                    grads: list) -> torch.Tensor:
        out = []
        for t in range(losses.shape[0] - 1):
            p_ = qm._unpack_t(thetas[t], inst_.dims)
            Z = qm._forward_t(p_, inst_.X, inst_.cfg)["Z"]
            sz = pick_singular_value(torch.linalg.svdvals(Z), sigma_Z)
            sdw = torch.linalg.svdvals(p_["W2"])[inst_.dims.d - 1]
            out.append(losses[t + 1] / ((1 - eta_ * inst_.cfg.gamma ** 2 * sz ** 2 * sdw ** 2) * losses[t]))
        return torch.max(torch.stack(out))

    return contraction
