"""Checks of the chapter ``book/qin/residual-gd.md``: Qin, Zhou & Zhu (2025), Theorem 2 and its
Step II, **as reconstructed**.

The source is a fragment whose formulas were lost: every statement checked here is the book's
reconstruction, tagged as such in the chapter.  Each function is a registered check; its
keyword-only arguments carry the statement's constant or formula, so the chapter calls it with the
reconstructed version and ``tests/qin/test_nc_residual_gd.py`` with a wrong one (which must raise
:class:`~attention_theory.verify.ClaimViolation`).  The instances, searches and families the checks
use are in :mod:`attention_theory.qin.residual_gd`.  Sizes follow ``ATTN_SCALE``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.qin import bounds as bq
from attention_theory.qin import model as qm
from attention_theory.qin.residual_gd import (
    BLOCKS,
    Instance,
    block_diff,
    block_distances,
    block_norms,
    gradients_t,
    grid_instances,
    intermediates,
    intermediates_t,
    lipschitz_context,
    random_instance,
    svals,
    theorem2_run,
)
from attention_theory.qin.residual_training import empirical_rate, rate_sweep, spearman
from attention_theory.qin.searches import (
    CONTEXT_PAIRS,
    PL_SIZES,
    PL_SIZES_FULL,
    SIZED_PAIRS,
    THM2_FAMILY,
    adversarial_pairs,
    ball_edge_pairs,
    ball_instances,
    ball_radius_metric,
    ball_search,
    ball_sigma_d_ratio,
    ball_sigma_N_ratio,
    ball_spectral_ratio,
    contraction_metric,
    edge_families,
    lam_radius,
    pair_search,
    path_bound_metric,
    pl_random_sides,
    pl_search,
    rate_bound_metric,
    rate_ratio_metric,
    softmax_jacobian_metrics,
    softmax_jacobian_samples,
    thm2_search,
    tied_to,
    window_point,
)
from attention_theory.search import maximize_over_sizes
from attention_theory.validation import torch_generator
from attention_theory.verify import (
    CheckRecord,
    check_bound,
    check_identity,
    check_interval,
    claim_check,
    limit_sequence,
)


def _gd_steps(loss, theta0, eta, steps):
    return run_first_order(loss, theta0, steps=steps, lr=eta, method="gd").final


@claim_check("qin-eq-5", "sgd-equivalence")
def check_eq5_update(*, update: Callable[..., torch.Tensor] = _gd_steps, seed: int = 50) -> CheckRecord:
    """The project's GD loop ``theta <- theta - eta grad L`` equals torch's SGD update (no
    momentum, no weight decay) after several steps, on random instances.  The reference is
    ``torch.optim.sgd.sgd``, the functional update that ``torch.optim.SGD.step`` calls (the
    class itself costs seconds of one-time set-up on first use)."""
    from torch.optim.sgd import sgd

    comp, ref = [], []
    for k in range(pick(3, 10)):
        inst = random_instance(seed + k, rho1=k % 2, n_seq=1 + (k % 2))
        eta, steps = 0.01 * (1 + k), 5
        th = update(inst.loss, inst.theta0, eta, steps)
        t = inst.theta0.clone()
        for _ in range(steps):
            tt = t.clone().requires_grad_(True)
            (g,) = torch.autograd.grad(inst.loss(tt), tt)
            sgd([t], [g], [None], weight_decay=0.0, momentum=0.0, lr=eta, dampening=0.0,
                nesterov=False, maximize=False, foreach=False)
        comp.append(th.detach().numpy())
        ref.append(t.detach().numpy())
    return check_identity(np.concatenate(comp), np.concatenate(ref),
                          "five GD steps of optim.gd equal five torch.optim.SGD steps",
                          atol=1e-14, rtol=1e-12, seed=seed)


@claim_check("qin-assum-1", "activation-regularity")
def check_assum1(*, sigma: Callable[[torch.Tensor], torch.Tensor] | None = None,
                 sigma_prime: Callable[[torch.Tensor], torch.Tensor] | None = None, gamma: float = 0.2,
                 b: float = 4.0, beta: float | None = None) -> CheckRecord:
    """``sigma(0) = 0``, ``gamma <= sigma' <= 1`` and ``|sigma'(x) - sigma'(y)| <= beta |x - y|``
    on a grid of ``[-50, 50]`` (the reconstructed Assumption 1), for the book's activation by
    default.  Returns the record of the Lipschitz part (the tightest one)."""
    sig = sigma or (lambda x: qm.activation(x, gamma, b))
    sp = sigma_prime or (lambda x: qm.activation_prime(x, gamma, b))
    beta = qm.activation_beta(gamma, b) if beta is None else beta
    x = torch.linspace(-50, 50, pick(200_001, 1_000_001), dtype=VERIFICATION_DTYPE)  # spacing 5e-4 or 1e-4
    s = sp(x)
    check_identity(float(sig(torch.zeros(1, dtype=VERIFICATION_DTYPE))[0]), 0.0, "sigma(0) = 0", atol=1e-15)

    # adversarial (L-BFGS and Nelder-Mead) over the whole line, x = w tanh(u / w) on windows
    # w in {1, 10, 1000} (the grid covers [-50, 50])
    budget = {"restarts": pick(2, 20), "steps": pick(20, 200), "seed": 1}
    windows = (1.0, 10.0, 1000.0)
    grid = f"{x.numel()}-point grid of [-50, 50], gamma = {gamma:g}, b = {b:g}"
    adv = "adversarial L-BFGS + Nelder-Mead over x = w tanh(u / w), windows w in {1, 10, 1000}"
    rng_res = maximize_over_sizes(lambda size, u: tied_to((gamma - sp(window_point(size[1],
                                                                                   u)) if size[0] == "lower"
                                                        else sp(window_point(size[1], u)) - 1).sum(), u),
                                  lambda size, g: g.normal(0, size[1], 1),
                                  [(part, w) for part in ("lower", "upper") for w in windows], **budget)
    check_bound(np.concatenate([gamma - s.numpy(), s.numpy() - 1, list(rng_res.per_size.values())]), 0.0,
                "gamma <= sigma'(x) <= 1 on the grid and at adversarial x", atol=0.0, rtol=0.0,
                search=rng_res, families=[grid + ", both sides", adv + ", both sides"])
    slope = (s[1:] - s[:-1]).abs() / (x[1:] - x[:-1])
    # autograd sigma' must agree with the closed form (so a wrong sigma_prime is noticed)
    xs = x[:: max(1, x.numel() // 5000)].clone().requires_grad_(True)
    (g,) = torch.autograd.grad(sig(xs).sum(), xs)
    check_identity(g.detach().numpy(), sp(xs.detach()).numpy(), "sigma' equals autograd of sigma",
                   atol=1e-12)
    if sigma is None:  # the closed form sigma'' of the book's activation
        res2 = maximize_over_sizes(lambda w, u: qm.activation_second(window_point(w, u), gamma,
                                                                     b).sum() / beta,
                                   lambda w, g: g.normal(0, w, 1), windows, **budget)
        check_bound(np.concatenate([qm.activation_second(x, gamma, b).numpy() / beta,
                                    list(res2.per_size.values())]), 1.0,
                    "sigma'' <= beta (closed form; grid and adversarial x; both sides divided by beta)",
                    search=res2, families=[grid, adv])

    def slope_ratio(w: float, u: Any) -> torch.Tensor:
        # pairs at least 1e-4 apart (the grid's spacing is 5e-4): closer pairs measure the
        # cancellation in sigma'(x) - sigma'(y), not the Lipschitz constant
        u = torch.as_tensor(u, dtype=VERIFICATION_DTYPE)
        x0 = window_point(w, u[:1])
        x1 = x0 + 1e-4 + 2 * w * torch.sigmoid(u[1:])
        return tied_to((sp(x0) - sp(x1)).abs().sum() / (beta * (x1 - x0).sum()), u)

    res = maximize_over_sizes(slope_ratio, lambda w, g: g.normal(0, w, 2), windows, **budget)
    return check_bound(np.concatenate([slope.numpy() / beta, list(res.per_size.values())]), 1.0,
                       "sigma' is beta-Lipschitz (finite differences on the grid and adversarial pairs; "
                       "both sides divided by beta)",
                       rtol=1e-9, params={"gamma": gamma, "b": b, "beta": beta}, search=res,
                       families=["slopes between neighbours of the " + grid,
                                 "adversarial L-BFGS + Nelder-Mead over pairs x0 = w tanh(u0 / w), x1 >= x0 "
                                 "+ 1e-4, windows w in {1, 10, 1000}"])


@claim_check("qin-eq-37", "autograd-gradients")
def check_eq37_gradients(*, grad_fn: Callable[..., dict[str, torch.Tensor]] = qm.gradients,
                         seed: int = 370) -> CheckRecord:
    """Closed-form gradients of the six blocks vs torch autograd, over residual switches
    ``rho1, rho2 in {0, 1}``, ``n in {1, 3}`` sequences and weight scales ``{0.1, 1, 3}``.
    The recorded figure is the worst relative error per block and instance, relative to
    ``||autograd block|| + 1e-6 ||full gradient||`` (tolerance 1e-10; the floor keeps blocks whose
    gradient nearly vanishes, e.g. ``WQ`` under saturated attention, from measuring rounding)."""
    errs, n = [], 0
    for inst in grid_instances(seed):
        p = {b: inst.params[b].clone().requires_grad_(True) for b in BLOCKS}
        L = qm.loss(p, inst.X, inst.Y, inst.cfg)
        auto = torch.autograd.grad(L, [p[b] for b in BLOCKS])
        mine = grad_fn(inst.params, inst.X, inst.Y, inst.cfg)
        full = math.sqrt(sum(float(torch.sum(a * a)) for a in auto))
        for b, a in zip(BLOCKS, auto):
            den = float(torch.linalg.norm(a)) + 1e-6 * full
            errs.append(float(torch.linalg.norm(mine[b] - a)) / max(den, 1e-300))
        n += 1
    return check_bound(errs, 1e-10, "relative error of each closed-form block gradient vs autograd",
                       seed=seed, params={"instances": n},
                       families=["random instances (N, d, dk, dv, m) = (6, 7, 3, 5, 9), rho1, rho2 in "
                                 f"{{0, 1}}, n in {{1, 3}} sequences, weight scales {{0.1, 1, 3}}, "
                                 f"{pick(1, 5)} seed(s) each, the six blocks"],
                       no_search="(37) is an exact identity (closed-form gradient = autograd), checked to "
                                 "round-off on a grid of residual switches, sequence counts and weight "
                                 "scales: a wrong formula fails at generic instances (the negative "
                                 "controls), and the residual of the right one is float64 rounding, which a "
                                 "search would maximise as rounding, not as a counterexample")


@claim_check("qin-eq-33", "forward-mode-directional")
def check_eq33_directional(*, grad_fn: Callable[..., dict[str, torch.Tensor]] = qm.gradients,
                           seed: int = 330) -> CheckRecord:
    """``<grad L(theta), V> = d/dt L(theta + t V)|_0`` with the right side by forward-mode AD
    (``torch.func.jvp``, independent of backpropagation), for random directions ``V``."""
    comp, ref = [], []
    for inst in grid_instances(seed):
        dims = inst.dims
        g = grad_fn(inst.params, inst.X, inst.Y, inst.cfg)
        gflat = torch.cat([g[b].reshape(-1) for b in BLOCKS])
        gen = torch_generator(seed)
        for _ in range(1):
            V = torch.randn(qm.n_params(dims), generator=gen, dtype=VERIFICATION_DTYPE)
            _, dl = torch.func.jvp(inst.loss, (inst.theta0,), (V,))
            scale = float(torch.linalg.vector_norm(gflat) * torch.linalg.vector_norm(V))
            comp.append(float(gflat @ V) / scale)
            ref.append(float(dl) / scale)
    return check_identity(comp, ref, "<closed-form gradient, V> equals the forward-mode derivative "
                          "(both divided by ||grad|| ||V||)", atol=1e-12, seed=seed)


@claim_check("qin-eq-40", "block-decomposition")
def check_eq40_blocks(*, blocks: tuple[str, ...] = BLOCKS, seed: int = 400) -> CheckRecord:
    """``||grad L(theta) - grad L(theta')||^2 = sum_b ||grad_b L(theta) - grad_b L(theta')||^2``."""
    comp, ref = [], []
    for k in range(pick(10, 50)):
        inst = random_instance(seed + k, rho1=k % 2, rho2=(k // 2) % 2)
        rng = np.random.default_rng(seed + k)
        th2 = inst.theta0 + 0.3 * torch.as_tensor(rng.standard_normal(inst.theta0.shape[0]))
        g1 = qm.gradients(qm.unpack(inst.theta0, inst.dims), inst.X, inst.Y, inst.cfg)
        g2 = qm.gradients(qm.unpack(th2, inst.dims), inst.X, inst.Y, inst.cfg)
        full = torch.cat([(g1[b] - g2[b]).reshape(-1) for b in BLOCKS])
        ref.append(float(full @ full))
        comp.append(sum(float(torch.sum((g1[b] - g2[b]) ** 2)) for b in blocks))
    return check_identity(comp, ref, "squared gradient difference splits over the six blocks",
                          rtol=1e-12, seed=seed)


def _per_block_check(block: str, bound: Callable[[np.ndarray], float] | None, seed: int) -> CheckRecord:
    ctx = lipschitz_context()
    i = BLOCKS.index(block)
    row = torch.as_tensor(ctx.C[i])
    bfun = bound or (lambda dv: float(np.dot(ctx.C[i], dv)))

    def ratio_t(a, b):
        dg, dw = block_diff(ctx, a, b)
        return dg[i] / (row @ dw)

    # the adversarial pair maximises the ratio to the book's row; it is kept for any ``bound``
    pairs = list(ctx.pairs) + adversarial_pairs(ctx, ratio_t, seed)
    lhs, rhs, kinds = [], [], []
    for a, b, kind in pairs:
        dg, dw = block_diff(ctx, a, b)
        lhs.append(float(dg[i]))
        rhs.append(bfun(dw.numpy()))
        kinds.append(kind)

    # the sized search: pairs in the balls of smaller instances, each against its own row of C
    # (``bound`` belongs to the context's instance and is not transferred)
    rows = {id(c): torch.as_tensor(bq.lipschitz_constants(c)[0][i]) for _, c in ball_instances(410,
                                                                                               ctx.radius).values()}

    def ratio_s(inst: Instance, consts: bq.BallConstants, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        dg = gradients_t(inst, a)[block] - gradients_t(inst, b)[block]
        return torch.linalg.vector_norm(dg) / (rows[id(consts)] @ block_distances(inst, a, b))

    res = pair_search(ratio_s, seed, ctx.radius)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    kinds.extend(f"search-{k}" for k in res.per_size)
    lhs, rhs = np.array(lhs), np.array(rhs)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(rhs > 0, lhs / rhs, np.inf)
    worst_kind = kinds[int(np.argmax(ratios))]
    own = ratios[:len(pairs)]
    return check_bound(lhs, rhs, f"||Delta grad_{block} L|| <= sum_b' C[{block}, b'] ||Delta W_b'|| "
                       "on pairs in the ball (the context's instance and smaller ones)", seed=seed,
                       params={"radius": ctx.radius, "row": ctx.C[i].tolist()}, search=res,
                       families=[CONTEXT_PAIRS + ", plus one adversarial L-BFGS pair in the full space",
                                 SIZED_PAIRS + f", the {block} block against its own row of C"],
                       extra={"worst_pair_kind": worst_kind,
                              "worst_on_context_instance": float(np.max(own)),
                              "worst_pair_kind_on_context_instance": kinds[int(np.argmax(own))],
                              "worst_by_kind": {k: float(max(r for r, kk in zip(ratios, kinds) if kk == k))
                                                for k in sorted(set(kinds))},
                              "looseness": "the row is a chain of worst-case norm bounds on the whole "
                                           "ball; 1/worst is the factor by which it exceeds the "
                                           "largest ratio found (random, close, path, Hessian, "
                                           "one-block and adversarial pairs on the context's "
                                           "instance; the sized search on smaller instances)"})


@claim_check("qin-eq-41", "per-block-lipschitz")
def check_eq41_W2(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 41) -> CheckRecord:
    """Reconstructed (41): the ``W2`` gradient block ``H^T R`` is Lipschitz on the ball with row
    ``C[W2, :]``.  ``bound(dW) -> float`` overrides the right side (negative controls)."""
    return _per_block_check("W2", bound, seed)


@claim_check("qin-eq-42", "per-block-lipschitz")
def check_eq42_W1(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 42) -> CheckRecord:
    """Reconstructed (42): the ``W1`` block ``Z^T D1`` (needs Assumption 1's ``beta``)."""
    return _per_block_check("W1", bound, seed)


@claim_check("qin-eq-43", "per-block-lipschitz")
def check_eq43_WQ(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 43) -> CheckRecord:
    """Reconstructed (43): the ``WQ`` block ``tau X^T GP X WK`` (softmax-Jacobian Lipschitz)."""
    return _per_block_check("WQ", bound, seed)


@claim_check("qin-eq-44", "per-block-lipschitz")
def check_eq44_WK(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 44) -> CheckRecord:
    """Reconstructed (44): the ``WK`` block ``tau X^T GP^T X WQ``."""
    return _per_block_check("WK", bound, seed)


@claim_check("qin-eq-45", "per-block-lipschitz")
def check_eq45_WV(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 45) -> CheckRecord:
    """Reconstructed (45): the ``WV`` block ``(S X)^T GZ WO^T``."""
    return _per_block_check("WV", bound, seed)


@claim_check("qin-eq-46", "per-block-lipschitz")
def check_eq46_WO(*, bound: Callable[[np.ndarray], float] | None = None, seed: int = 46) -> CheckRecord:
    """Reconstructed (46): the ``WO`` block ``(S X WV)^T GZ``."""
    return _per_block_check("WO", bound, seed)


@claim_check("qin-step-2", "gradient-lipschitz")
def check_step2_lipschitz(*, Q1: float | None = None, seed: int = 20) -> CheckRecord:
    """``||grad L(theta) - grad L(theta')|| <= Q1 ||theta - theta'||`` for pairs in the ball, with
    ``Q1 = ||C||_F`` (reconstructed Step II) unless given.  The record's ``extra`` holds the
    looseness ``max ratio`` and ``lambda_max(nabla^2 L(theta0)) / Q1``."""
    ctx = lipschitz_context()
    q = ctx.Q1 if Q1 is None else float(Q1)

    def ratio_t(a, b):
        return torch.linalg.vector_norm(ctx.inst.grad(a) - ctx.inst.grad(b)) / (
            q * torch.linalg.vector_norm(a - b))

    pairs = list(ctx.pairs) + adversarial_pairs(ctx, ratio_t, seed)  # argmax does not depend on q
    lhs = [float(torch.linalg.vector_norm(ctx.inst.grad(a) - ctx.inst.grad(b))) for a, b, _ in pairs]
    rhs = [q * float(torch.linalg.vector_norm(a - b)) for a, b, _ in pairs]
    own = max(x / y for x, y in zip(lhs, rhs))
    # the sized search: pairs in the balls of smaller instances, each against its own Q1 (a given
    # ``Q1`` belongs to the context's instance and is not transferred)
    q1s = {id(c): bq.lipschitz_constants(c)[1] for _, c in ball_instances(410, ctx.radius).values()}

    def ratio_s(inst: Instance, consts: bq.BallConstants, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ga, gb = gradients_t(inst, a), gradients_t(inst, b)
        dg = torch.cat([(ga[k] - gb[k]).reshape(-1) for k in BLOCKS])
        return torch.linalg.vector_norm(dg) / (q1s[id(consts)] * torch.linalg.vector_norm(a - b))

    res = pair_search(ratio_s, seed, ctx.radius)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    return check_bound(lhs, rhs, "gradient of L is Q1-Lipschitz on the ball (the context's instance and "
                       "smaller ones)", seed=seed, params={"Q1": q, "radius": ctx.radius}, search=res,
                       families=[CONTEXT_PAIRS + ", plus one adversarial L-BFGS pair in the full space",
                                 SIZED_PAIRS + ", each against its own Q1"],
                       extra={"lambda_max_hessian_theta0": ctx.lam_max,
                              "hessian_over_Q1": ctx.lam_max / q, "worst_on_context_instance": own})


@claim_check("qin-eq-38", "intermediate-lipschitz")
def check_eq38_intermediates(*, softmax_lip: float = bq.SOFTMAX_LIP,
                             softmax_jac_lip: float = bq.SOFTMAX_JAC_LIP, radius_factor: float = 1.0,
                             seed: int = 38) -> CheckRecord:
    """The reconstructed (38): (a) the softmax primitives ``||diag(s) - s s^T||_2 <= softmax_lip``
    and ``||J(p) - J(p')||_2 <= softmax_jac_lip ||p - p'||`` on random and adversarial logits
    (two tokens included, where ``1/2`` is attained); (b) for every intermediate ``Q`` of the
    forward/backward pass, ``||Delta Q||_F <= sum_b Q.lip[b] ||Delta W_b||_F`` on the pairs of
    the Lipschitz context, on adversarial pairs of smaller instances and on the pairs of two tight
    families (``P`` and ``Z``, ratio ``-> 1`` at the edge of the ball, recorded as limit
    sequences).  ``radius_factor`` scales the radius in the spectral bounds ``lam_b =
    ||W_b(0)||_2 + radius_factor r`` of (b) (``1``; a smaller value is a wrong variant, caught by
    the tight families).  Returns the record of (b)."""
    # (a) primitives on logits
    jn, jr = softmax_jacobian_samples(np.random.default_rng(seed), pick(2000, 100000) // 100)
    # adversarial (L-BFGS and Nelder-Mead, T = 2, 3, 5 logits): the norm of J and its Lipschitz ratio
    jac_norm, jac_ratio = softmax_jacobian_metrics(softmax_lip, softmax_jac_lip)
    budget = {"restarts": pick(2, 20), "steps": pick(10, 200), "seed": seed}
    nres = maximize_over_sizes(jac_norm, lambda T, g: g.normal(0, 2, T), (2, 3, 5), **budget)
    adv = maximize_over_sizes(jac_ratio, lambda T, g: g.standard_normal(2 * T), (2, 3, 5),
                              **{**budget, "steps": pick(25, 200)})
    check_bound(np.concatenate(jn + [np.array(list(nres.per_size.values())) * softmax_lip]), softmax_lip,
                "||diag(s) - s s^T||_2 <= softmax_lip", claim_id="qin-eq-38",
                check="intermediate-lipschitz",
                search=nres,
                families=[f"{pick(2000, 100000)} random Gaussian logit vectors, T = 2 ... 6, scales "
                          "U(0.01, 5)",
                          "two equal logits (T = 2, the maximiser)",
                          "adversarial L-BFGS + Nelder-Mead over the logits, T in {2, 3, 5}"])
    check_bound(np.concatenate(jr + [np.array(list(adv.per_size.values())) * softmax_jac_lip]),
                softmax_jac_lip,
                "softmax Jacobian is softmax_jac_lip-Lipschitz in the logits", search=adv,
                families=[f"{pick(2000, 100000)} random logit pairs, T = 2 ... 6, scales U(0.01, 5), "
                          "perturbations of size 10^U(-4, 0)",
                          "adversarial L-BFGS + Nelder-Mead over logit pairs, T in {2, 3, 5}"])
    # (b) chained bounds on the pairs in the ball
    ctx = lipschitz_context()
    ib = bq.intermediate_bounds(lam_radius(ctx.consts, radius_factor), softmax_lip=softmax_lip,
                                softmax_jac_lip=softmax_jac_lip)
    lhs, rhs, names = [], [], []
    for a, b, _ in ctx.pairs:
        Ia, Ib = intermediates(ctx.inst, a), intermediates(ctx.inst, b)
        dw = block_norms(a - b, ctx.inst.dims).numpy()
        for k in Ia:
            lhs.append(float(torch.linalg.norm(Ia[k] - Ib[k])))
            rhs.append(float(np.dot(ib[k].lip, dw)))
            names.append(k)
    lhs, rhs = np.array(lhs), np.array(rhs)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = lhs / rhs
    per = {k: float(max(r for r, n in zip(ratio, names) if n == k)) for k in sorted(set(names))}
    # the sized search: pairs in the balls of smaller instances, the worst intermediate against its
    # own chained bound (with the same softmax constants)
    lips = {id(c): {k: torch.as_tensor(v.lip) for k, v in
                    bq.intermediate_bounds(lam_radius(c, radius_factor), softmax_lip=softmax_lip,
                                           softmax_jac_lip=softmax_jac_lip).items()}
            for _, c in ball_instances(410, ctx.radius).values()}

    def ratio_s(inst: Instance, consts: bq.BallConstants, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        Ia, Ib, dw = intermediates_t(inst, a), intermediates_t(inst, b), block_distances(inst, a, b)
        return torch.max(torch.stack([torch.linalg.norm(Ia[k] - Ib[k]) / (lips[id(consts)][k] @ dw)
                                      for k in ib if k in Ia and k not in BLOCKS]))

    res = pair_search(ratio_s, seed, ctx.radius)
    lhs = np.concatenate([lhs, list(res.per_size.values())])
    rhs = np.concatenate([rhs, np.ones(len(res.per_size))])
    # the tight families (limits) of :func:`edge_families`, s = r (1 - eps), eps = 1e-1 ... 1e-4
    epss = [10.0 ** -k for k in range(1, 5)]
    fams = edge_families(ctx.radius)
    limits = []
    for fam, inst_e, consts_e, key, moving, edge in fams:
        lip = bq.intermediate_bounds(lam_radius(consts_e, radius_factor), softmax_lip=softmax_lip,
                                     softmax_jac_lip=softmax_jac_lip)[key].lip
        el, er = ball_edge_pairs(inst_e, lip, key, moving, edge, ctx.radius, epss)
        lhs, rhs = np.concatenate([lhs, el]), np.concatenate([rhs, er])
        ratios = [a / b for a, b in zip(el, er)]
        if max(ratios) <= 1.0 + 1e-9:   # a wrong constant fails the bound on these pairs instead
            limits.append(limit_sequence(fam, "eps -> 0", epss, ratios, supremum=1.0))
    return check_bound(lhs, rhs, "||Delta Q||_F <= sum_b lip_Q[b] ||Delta W_b||_F for every "
                       "intermediate Q on pairs in the ball (the context's instance and smaller ones)",
                       seed=seed,
                       params={"softmax_lip": softmax_lip, "softmax_jac_lip": softmax_jac_lip,
                               "radius_factor": radius_factor}, search=res,
                       extra={"worst_by_quantity": per,
                              "softmax_jacobian_norm_max": float(np.max(np.concatenate(jn))),
                              "softmax_jac_lip_adversarial": adv.best_value * softmax_jac_lip},
                       families=[CONTEXT_PAIRS + ", every intermediate P, S, Z, U, H, F, R, D1, GZ, GS, GP",
                                 SIZED_PAIRS + ", the worst intermediate",
                                 *(f[0] + ", eps = 1e-1 ... 1e-4" for f in fams)],
                       limits=limits or None)


@claim_check("qin-thm-2", "linear-rate")
def check_thm2(*, eta: float | None = None, Q0_factor: float = 1.0, seed: int = 2,
               steps: int | None = None, kappas: tuple[float, ...] = (1.0, 3.0)) -> CheckRecord:
    """Reconstructed Theorem 2 on its instances (``kappa(X)`` in ``kappas``): (star) holds, the
    iterates stay in the ball of radius ``r0`` and ``L(theta_t) <= (1 - eta Q0)^t L(theta0)`` for
    every ``t``, with ``eta = 1/Q1`` unless given.

    The instance ``t = 0`` is an equality (``L(theta0) = L(theta0)``); it is asserted but left out
    of the tightness, which is the worst ratio over ``t >= 1`` (recorded with its ``t``), next to
    the ratio of the guaranteed to the measured rate ``-log(1 - eta Q0) / r``.

    Both conclusions are also searched adversarially over the instance space (:func:`thm2_search`:
    the direction of the target perturbation, on instances where (star) holds with ratio 0.99,
    the smallest one token in one dimension), with ``eta`` the same multiple of ``1/Q1`` as on the
    check's instance."""
    lhs, rhs, per = [], [], {}
    main = theorem2_run(seed, eta, steps)
    eta_factor = main.eta * main.consts["Q1"]

    res = thm2_search(rate_bound_metric(Q0_factor), seed, eta_factor=eta_factor)
    res_ball = thm2_search(ball_radius_metric, seed, eta_factor=eta_factor)
    adv2 = THM2_FAMILY + f", GD at eta = {eta_factor:.3g}/Q1"
    for kap in kappas:
        run = theorem2_run(seed, eta, steps if kap == 1.0 else (steps or pick(300, 3000)), kappa=kap)
        k = run.consts
        run_fam = (f"the Theorem 2 instance of seed {seed} (N, d, dk, dv, m) = (4, 8, 4, 8, 12), kappa(X) = "
                   f"{kap:g}")
        check_bound(k["star_rhs"], k["star_lhs"], f"initialization condition (star) holds (kappa {kap:g})",
                    families=[run_fam],
                    no_search="(star) is the theorem's hypothesis, which the instance is built to satisfy "
                              "(the target's distance eps is set from it): a precondition asserted, not a "
                              "claim")
        dist = torch.linalg.vector_norm(run.iterates - run.inst.theta0, dim=1).numpy()
        check_bound(np.concatenate([dist / k["r0"], list(res_ball.per_size.values())]), 1.0,
                    f"every iterate stays in the ball of radius r0 (kappa {kap:g}; distances divided by r0, "
                    "with the adversarial instances)", search=res_ball,
                    families=[f"every GD iterate of the run on {run_fam}, {run.losses.size - 1} steps", adv2])
        Q0 = Q0_factor * k["Q0"]
        t = np.arange(run.losses.size)
        bound = (1 - run.eta * Q0) ** t * run.losses[0]
        check_bound(run.losses[:1], bound[:1], "t = 0: L(theta_0) <= L(theta_0)", rtol=1e-9,
                    families=[f"t = 0 of the run on {run_fam}"],
                    no_search="t = 0 is the identity L(theta_0) = L(theta_0), asserted for completeness and "
                              "left out of the tightness")
        r = run.losses[1:] / bound[1:]
        j = int(np.argmax(r))
        per[f"kappa={kap:g}"] = {"worst_ratio_t_ge_1": float(r[j]), "worst_t": int(j + 1),
                                 "ratio_at_t_1": float(r[0]), "ratio_at_last_t": float(r[-1]),
                                 "guaranteed_over_measured_rate":
                                     -math.log(1 - run.eta * Q0) / max(empirical_rate(run.losses), 1e-300),
                                 "eta": run.eta, "Q0": Q0, "Q1": k["Q1"], "steps": int(t[-1])}
        lhs.extend(run.losses[1:] / bound[1:])
        rhs.extend(np.ones(r.size))
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    return check_bound(lhs, rhs, "L(theta_t) <= (1 - eta Q0)^t L(theta0) for every t >= 1 (both sides "
                                 "divided "
                       "by the bound; the check's instances and the adversarial ones)",
                       seed=seed, rtol=1e-9, search=res,
                       params={"kappas": list(kappas), "Q0_factor": Q0_factor},
                       families=["every step t >= 1 of the GD runs on the Theorem 2 instance of seed "
                                 f"{seed}, kappa(X) in {tuple(kappas)}", adv2],
                       extra={"per_instance": per, "t0_ratio": 1.0,
                              "constants": {k2: float(v) for k2, v in main.consts.items()}})


@claim_check("qin-eq-22", "rate-lower-bound")
def check_eq22_rate(*, Q0_factor: float = 1.0, seeds: tuple[int, ...] = (2,)) -> CheckRecord:
    """The measured rate ``-(1/K) log(L_K/L_0)`` is at least ``-log(1 - eta Q0)`` in every run
    where (star) holds (``eta = 1/Q1``), on instances with ``kappa(X)`` in ``{1, 3}``, and on the
    adversarial instances of :func:`thm2_search` (their first ``K`` steps)."""
    lhs, rhs = [], []
    for s in seeds:
        for kap in (1.0, 3.0):
            run = theorem2_run(s, kappa=kap, steps=None if kap == 1.0 else pick(300, 3000))
            if not run.consts["holds"]:
                continue
            lhs.append(-math.log(1 - run.eta * Q0_factor * run.consts["Q0"]))
            rhs.append(empirical_rate(run.losses))

    # adversarial: guaranteed / measured rate over the first K steps (the statement holds for every
    # horizon K) on the instances of :func:`thm2_search`, eta = 1/Q1
    res = thm2_search(rate_ratio_metric(Q0_factor), seeds[0])
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    return check_bound(lhs, rhs, "guaranteed rate -log(1 - eta Q0) <= measured rate (the check's runs; the "
                       "adversarial instances as guaranteed/measured over their first K steps)",
                       params={"seeds": list(seeds)}, search=res,
                       families=[f"GD runs at eta = 1/Q1 on the Theorem 2 instances of seeds {tuple(seeds)}, "
                                 "kappa(X) in {1, 3}, where (star) holds", THM2_FAMILY + ", eta = 1/Q1"])


@claim_check("qin-eq-22", "rate-vs-singular-values")
def check_eq22_rate_vs_sigma(*, predictor: str = "sigma_N^2", seed: int = 22,
                             steps: int | None = None) -> CheckRecord:
    """Over a sweep of ``kappa(X)`` in ``[1, 30]``: the Spearman correlation between the measured
    rate per unit step ``r/eta`` (fixed ``eta``) and the predictor (``"sigma_N^2"`` =
    ``sigma_N(Z0)^2``, the reconstructed rate constant) is at least 0.8."""
    sw = rate_sweep(kappas=(1.0, 2.0, 5.0, 10.0, 30.0), seeds=(seed,),
                    steps=pick(100, 2000) if steps is None else steps, hessian=False)
    x = {"sigma_N^2": sw["sigma_N"] ** 2, "sigma_1^2/sigma_N^2": sw["sigma_1"] ** 2 / sw["sigma_N"] ** 2,
         "sigma_N^2/sigma_1^2": sw["sigma_N"] ** 2 / sw["sigma_1"] ** 2}[predictor]
    rho = spearman(x, sw["rate_fixed"] / sw["eta_fixed"])
    return check_interval(rho, 0.8, 1.0, f"Spearman(rate/eta, {predictor}) >= 0.8",
                          n_instances=len(x), seed=seed,
                          extra={"rate_over_eta": (sw["rate_fixed"] / sw["eta_fixed"]).tolist(),
                                 "predictor": x.tolist()})


@claim_check("qin-step-1", "iterates-in-region")
def check_step1(*, loss_factor: float = 1.0, seed: int = 2) -> CheckRecord:
    """Along the Theorem 2 run: ``L_t <= loss_factor L_0`` (``t >= 1``: ``t = 0`` is an equality, left
    out), ``||W_b(t)||_2 <= ||W_b(0)||_2 + r0``, ``sigma_N(Z_t) >= sigma_N(Z0)/2`` and
    ``sigma_d(W2(t)) >= sigma_d(W2(0))/2`` at every step.

    Adversarially: the loss along the GD runs of the instances of :func:`thm2_search`; the other
    three anywhere in the ball ``B(theta0, r0)`` that contains the iterates (the theorem chooses
    ``r0`` so that they hold on all of ``B``), on its instances with at most 100 parameters."""
    run = theorem2_run(seed)
    k = run.consts
    inst = run.inst
    idx = np.unique(np.linspace(0, run.iterates.shape[0] - 1, pick(100, 1000)).astype(int))
    spec, specb, sN, sd = [], [], [], []
    for t in idx:
        p = qm.unpack(run.iterates[t], inst.dims)
        for b in BLOCKS:
            spec.append(float(torch.linalg.matrix_norm(p[b], 2)))
            specb.append(float(torch.linalg.matrix_norm(inst.params[b], 2)) + k["r0"])
        sN.append(svals(inst.Z(run.iterates[t]))[inst.X.shape[0] - 1])
        sd.append(svals(p["W2"])[inst.dims.d - 1])

    def loss_ratio(inst_: Instance, k_: dict, eta_: float, thetas: torch.Tensor, losses: torch.Tensor,
                 grads: list) -> torch.Tensor:
        return torch.max(losses[1:]) / (loss_factor * losses[0])

    r_spec, r_N, r_d = (ball_search(f, seed) for f in (ball_spectral_ratio, ball_sigma_N_ratio,
                                                        ball_sigma_d_ratio))
    r_loss = thm2_search(loss_ratio, seed)
    along = (f"{idx.size} iterates of the GD run at eta = 1/Q1 on the Theorem 2 instance of seed {seed}, "
             "kappa(X) = 1")
    ball = ("adversarial L-BFGS + Nelder-Mead over theta in the ball B(theta0, r0) of the Theorem 2 search "
            "instances with at most 100 parameters")
    check_bound(spec + list(r_spec.per_size.values()), specb + [1.0] * len(r_spec.per_size),
                "||W_b(t)||_2 <= ||W_b(0)||_2 + r0 (along the run; adversarially on the ball, divided by "
                "the bound)", search=r_spec, families=[along + ", the six blocks", ball])
    check_bound(k["sigma_N_Z0"] / 2 * np.ones(len(sN)) if not r_N.per_size else
                np.concatenate([k["sigma_N_Z0"] / 2 * np.ones(len(sN)), list(r_N.per_size.values())]),
                np.concatenate([np.array(sN), np.ones(len(r_N.per_size))]),
                "sigma_N(Z_t) >= sigma_N(Z0)/2 (along the run; adversarially on the ball, as a ratio)",
                search=r_N, families=[along, ball])
    check_bound(np.concatenate([k["sigma_d_W20"] / 2 * np.ones(len(sd)), list(r_d.per_size.values())]),
                np.concatenate([np.array(sd), np.ones(len(r_d.per_size))]),
                "sigma_d(W2(t)) >= sigma_d(W2(0))/2 (along the run; adversarially on the ball, as a ratio)",
                search=r_d, families=[along, ball])
    return check_bound(np.concatenate([run.losses[1:], list(r_loss.per_size.values())]),
                       np.concatenate([loss_factor * run.losses[0] * np.ones(run.losses.size - 1),
                                       np.ones(len(r_loss.per_size))]),
                       "L(theta_t) <= L(theta_0) for t >= 1 (t = 0 is an equality, left out; the adversarial "
                       "instances as max_t L_t / L_0)",
                       seed=seed, search=r_loss,
                       extra={"min_sigma_N_ratio": float(min(sN) / k["sigma_N_Z0"])},
                       families=["every step t >= 1 of the GD run at eta = 1/Q1 on the Theorem 2 instance "
                                 f"of seed {seed}, kappa(X) = 1", THM2_FAMILY + ", eta = 1/Q1"])


@claim_check("qin-eq-39", "path-bounds")
def check_eq39_path(*, res_factor: float = 1.0, seed: int = 2) -> CheckRecord:
    """Along the Theorem 2 run: ``||F(theta_t) - Y||_F <= res_factor sqrt(2 L0)`` and the norms of
    ``D1, GZ, GS, GP`` stay below their (38) bounds with ``rbar = sqrt(2 L0)``.  The residual at
    ``t = 0`` is the definition of ``rbar`` (an equality when ``res_factor = 1``) and is left out;
    adversarially, the largest ratio over ``t >= 1`` along the GD runs of :func:`thm2_search`."""
    run = theorem2_run(seed)
    inst, k = run.inst, run.consts
    cb = bq.ball_constants(inst.params, inst.X.numpy(), inst.cfg, k["r0"],
                           rbar=res_factor * math.sqrt(2 * k["loss0"]))
    ib = bq.intermediate_bounds(cb)
    lhs, rhs = [], []
    for t in np.unique(np.linspace(0, run.iterates.shape[0] - 1, pick(100, 500)).astype(int)):
        I = intermediates(inst, run.iterates[t])
        for q in ("R", "D1", "GZ", "GS", "GP"):
            if q == "R" and t == 0:
                continue
            lhs.append(float(torch.linalg.norm(I[q])))
            rhs.append(ib[q].norm)
    res = thm2_search(path_bound_metric(seed, res_factor), seed)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    return check_bound(lhs, rhs, "residual and backward quantities below their path bounds (t >= 1 for the "
                       "residual; the adversarial instances as the largest ratio over t >= 1)",
                       seed=seed, params={"rbar": cb.rbar}, search=res,
                       families=[f"{pick(100, 500)} iterates of the GD run at eta = 1/Q1 on the Theorem 2 "
                                 f"instance of seed {seed}, kappa(X) = 1: R (t >= 1), D1, GZ, GS, GP",
                                 THM2_FAMILY + ", eta = 1/Q1"])


@claim_check("qin-step-3", "pl-and-contraction")
def check_step3_pl(*, sigma_Z: Callable[[np.ndarray], float] = lambda s: float(s[-1]), seed: int = 30,
                   n_random: int | None = None) -> CheckRecord:
    """PL-type bound ``||grad_W1 L||_F^2 >= 2 gamma^2 sigma_N(Z)^2 sigma_d(W2)^2 L`` on random
    ``theta`` (all residual settings, ill-conditioned ``Z`` included; ``sigma_Z`` picks the singular
    value of ``Z`` from the descending list, the smallest by default) and the per-step contraction
    ``L_{t+1} <= (1 - eta gamma^2 sigma_N(Z_t)^2 sigma_d(W2_t)^2) L_t`` on the Theorem 2 run; both also
    adversarially (the PL ratio over weights and tokens of small instances, the contraction along the
    GD runs of :func:`thm2_search`)."""
    lhs, rhs = pl_random_sides(seed, pick(100, 1000) if n_random is None else n_random, sigma_Z)
    run = theorem2_run(2)
    inst = run.inst
    g2 = inst.cfg.gamma**2
    idx = np.unique(np.linspace(0, run.iterates.shape[0] - 2, pick(200, 1000)).astype(int))
    cl, cr = [], []
    idx = idx[run.losses[idx] > 1e-16 * run.losses[0]]  # above the rounding floor of L
    for t in idx:
        p = qm.unpack(run.iterates[t], inst.dims)
        s = sigma_Z(svals(inst.Z(run.iterates[t])))
        sd = svals(p["W2"])[inst.dims.d - 1]
        cl.append(run.losses[t + 1])
        cr.append((1 - run.eta * g2 * s**2 * sd**2) * run.losses[t])

    res_c = thm2_search(contraction_metric(sigma_Z), 2)
    check_bound(cl + list(res_c.per_size.values()), cr + [1.0] * len(res_c.per_size),
                "per-step contraction along the Theorem 2 run (and, as a ratio, along the runs of the "
                "adversarial instances)", rtol=1e-9, search=res_c,
                families=["steps of the GD run at eta = 1/Q1 on the Theorem 2 instance of seed 2, kappa(X) = "
                          "1, above the rounding floor of L", THM2_FAMILY + ", eta = 1/Q1"])

    # adversarial PL: L-BFGS and Nelder-Mead over the weights and the tokens X (free, any
    # conditioning) of small instances, in several residual settings
    pl_sizes = pick(PL_SIZES, PL_SIZES_FULL)
    res = pl_search(seed, sigma_Z)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    # the PL record last, so that the registry shows the PL tightness
    return check_bound(lhs, rhs, "2 gamma^2 sigma(Z)^2 sigma_d(W2)^2 L <= ||grad_W1 L||^2 (random theta; "
                       "adversarial weights and tokens as a ratio)", seed=seed, search=res,
                       families=[f"{pick(100, 1000) if n_random is None else n_random} random instances (N, "
                                 "d) = (4, 6), all residual settings, kappa(X) = 10^U(0, 2), qk scale "
                                 "10^U(-1, 0.5), FFN scale 10^U(-0.5, 0.5)",
                                 "adversarial L-BFGS + Nelder-Mead over the weights and the tokens X of "
                                 "(N, d, dk, dv, m, rho1, rho2) = "
                                 f"{', '.join(str(z[0] + z[1:]) for z in pl_sizes)}"])
