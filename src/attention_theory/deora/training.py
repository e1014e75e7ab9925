"""Data, initializations and gradient-descent runs for Deora et al.'s training analysis (Lemmas 7-10, Theorem
1, Corollary 3).

"Easy" data and a bad initialization with a target that raises every margin, the ``F-lin``
fixture with its exact one-dimensional GD reduction (:func:`flin_margins`), the step-size
condition of the descent lemma evaluated on the iterates (:func:`certified_step`,
:func:`gd_run`), the maximum loss along a segment, cached GD runs, and the realizability point
on ``F-lin`` used for Corollary 3.  The checks in :mod:`attention_theory.deora.checks.training`
evaluate them (chapter ``book/deora/training.md``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.calculus import box, log_box
from attention_theory.deora.landscape import (
    loss_and_grad,
    norm_2inf,
    random_heads,
    risk_batch,
    risk_fn,
    segment_max,
)
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import f64
from attention_theory.validation import (
    as_tensor,
    check_bool,
    check_callable,
    check_int,
    check_positive,
    check_real,
    check_seed,
    refuses_overflow,
)

__all__ = ["PROOF_SCHEMA", "Smoothness", "bad_init", "cached_runs", "certified_instance", "certified_runs",
           "certified_step", "cor3_sides", "easy_data", "easy_target", "flin_data", "flin_direction",
           "flin_instance", "flin_margins", "flin_realizability", "flin_uphill", "gd_run", "heads_exact_sqrt",
           "order_grid", "paper_smoothness", "rho_corrected_order", "segment_loss_max", "segment_tau",
           "thm1_sides"]


def _softplus(z: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, z)


def easy_data(n: int, T: int, d: int, *, phi: float = 0.3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """"Easy data" (a noisy ``F-lin``): ``x_t = y cos(phi) e_1 + sin(phi) xi_t e_2`` with random
    signs ``xi_t``, so ``||x_t|| = 1 = R`` and the tokens' mean is close to ``y cos(phi) e_1``.
    ``Xs (n, T, d)`` (``d >= 2``), ``ys (n,)`` alternating ``+1, -1``."""
    n, T = check_int(n, "n"), check_int(T, "T")
    d = check_int(d, "d", minimum=2)
    phi = check_real(phi, "phi")
    check_seed(seed, "seed")
    rng = np.random.default_rng(seed)
    ys = np.array([1.0 if i % 2 == 0 else -1.0 for i in range(n)])
    Xs = np.zeros((n, T, d))
    Xs[:, :, 0] = ys[:, None] * math.cos(phi)
    Xs[:, :, 1] = math.sin(phi) * rng.choice([-1.0, 1.0], size=(n, T))
    return Xs, ys


def _check_HTd(H: Any, T: Any, d: Any) -> tuple[int, int, int]:
    return check_int(H, "H"), check_int(T, "T"), check_int(d, "d")


def _lin_direction(H: int, T: int, d: int) -> torch.Tensor:
    """Unit vector with ``U_h = 1_T e_1^T / sqrt(T H)`` in every head and ``W_h = 0``."""
    Us = np.zeros((H, T, d))
    Us[:, :, 0] = 1.0 / math.sqrt(T * H)
    return md.pack_heads(Us, np.zeros((H, d, d)))


def bad_init(H: int, T: int, d: int, *, margin0: float = -1.0, phi: float = 0.3, noise: float = 0.05,
             seed: int = 0) -> torch.Tensor:
    """Initialization whose margins on :func:`easy_data` are about ``margin0`` (a bad start):
    ``U_h = c 1_T e_1^T`` plus small noise with ``sqrt(H) c T cos(phi) = margin0``, ``W_h`` small."""
    H, T, d = _check_HTd(H, T, d)
    margin0, phi = check_real(margin0, "margin0"), check_real(phi, "phi")
    noise = check_positive(noise, "noise", allow_zero=True)
    check_seed(seed, "seed")
    rng = np.random.default_rng(seed)
    th = _lin_direction(H, T, d) * (margin0 / (math.sqrt(T) * math.cos(phi)))
    return th + f64(rng.standard_normal(th.numel()) * noise / math.sqrt(md.head_size(T, d)))


def easy_target(theta0: torch.Tensor, H: int, T: int, d: int, *, shift: float = 2.0,
                phi: float = 0.3) -> torch.Tensor:
    """``theta_0 + D v`` with ``v`` the unit direction of :func:`bad_init` and
    ``D = shift / (sqrt(T) cos(phi))`` (raises the uniform-attention margin by ``shift``)."""
    H, T, d = _check_HTd(H, T, d)
    shift, phi = check_real(shift, "shift"), check_real(phi, "phi")
    theta0 = _flat_theta(theta0, "theta0", H, T, d)
    return theta0 + _lin_direction(H, T, d) * (shift / (math.sqrt(T) * math.cos(phi)))


def flin_data(n: int, T: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Fixture ``F-lin``: ``X_i = 1_T (y_i e_1)^T`` (identical tokens of norm 1), labels ``+1, -1, ...``."""
    n, T, d = check_int(n, "n"), check_int(T, "T"), check_int(d, "d")
    ys = np.array([1.0 if i % 2 == 0 else -1.0 for i in range(n)])
    Xs = np.zeros((n, T, d))
    Xs[:, :, 0] = ys[:, None]
    return Xs, ys


def flin_direction(H: int, T: int, d: int) -> torch.Tensor:
    """On ``F-lin`` every margin equals ``<theta, v>`` with this ``v`` (``||v|| = sqrt(T)``)."""
    H, T, d = _check_HTd(H, T, d)
    return _lin_direction(H, T, d) * math.sqrt(T)


def flin_margins(m0: float, eta: float, K: int, T: int) -> np.ndarray:
    """Exact GD on ``F-lin`` reduced to the shared margin: ``m_{k+1} = m_k + eta T sigma(-m_k)``.

    GD from ``theta_0 = (m0 / T) v`` stays on the line ``theta_0 + R v``; the margin
    trajectory (hence the loss ``log(1 + e^{-m_k})`` and ``||theta_k - theta_0|| =
    |m_k - m_0| / sqrt(T)``) is independent of ``H``.  Returns ``m_0..m_K``.
    """
    check_real(m0, "m0")
    check_positive(eta, "eta")
    K = check_int(K, "K", minimum=0)
    T = check_int(T, "T")
    m = np.empty(K + 1)
    m[0] = x = float(m0)
    for k in range(K):
        x = x + eta * T / (1.0 + math.exp(x)) if x < 700 else x
        m[k + 1] = x
    return m


def _beta2_at(theta: torch.Tensor, H: int, T: int, d: int, R: float) -> float:
    return bd.beta2(norm_2inf(theta, H, T, d), T, d, R, H)


Smoothness = Callable[[Callable, torch.Tensor, torch.Tensor, int, int, int, float], float]


def _check_run_args(loss: Any, H: Any, T: Any, d: Any, R: Any) -> tuple[int, int, int]:
    check_callable(loss, "loss")
    check_positive(R, "R")
    return _check_HTd(H, T, d)


def _flat_theta(theta: Any, name: str, H: int, T: int, d: int) -> torch.Tensor:
    """A finite flat parameter vector ``(H (T d + d^2),)``; a tensor is returned as it is (its
    dtype kept), other input as a float64 tensor."""
    checked = as_tensor(theta, name, shape=(H * md.head_size(T, d),))
    return theta if isinstance(theta, torch.Tensor) else checked


@refuses_overflow
def paper_smoothness(loss, th_k, th_next, H, T, d, R) -> float:
    """``rho_k = beta2(theta_k) v beta2(theta_{k+1})`` (Lemma 7).

    ``loss`` (unused: the paper's ``rho_k`` depends on the iterates only) is part of the
    :data:`Smoothness` signature; ``th_k``, ``th_next``: flat ``(H (T d + d^2),)``; ``R > 0``.
    """
    H, T, d = _check_run_args(loss, H, T, d, R)
    th_k, th_next = _flat_theta(th_k, "th_k", H, T, d), _flat_theta(th_next, "th_next", H, T, d)
    return _paper_smoothness(loss, th_k, th_next, H, T, d, R)


def _paper_smoothness(loss, th_k, th_next, H, T, d, R) -> float:
    """:func:`paper_smoothness` without the checks of its arguments."""
    return max(_beta2_at(th_k, H, T, d, R), _beta2_at(th_next, H, T, d, R))


@refuses_overflow
def certified_step(loss: Callable, theta: torch.Tensor, H: int, T: int, d: int, R: float, *,
                   smoothness: Smoothness = paper_smoothness) -> float:
    """Largest ``eta`` with ``eta <= 1/rho_k`` where ``rho_k`` depends on ``theta - eta grad``
    (Lemma 7's implicit condition), by the fixed point ``eta <- 1/rho_k(eta)``."""
    H, T, d = _check_run_args(loss, H, T, d, R)
    theta = _flat_theta(theta, "theta", H, T, d)
    check_callable(smoothness, "smoothness")
    if smoothness is paper_smoothness:  # its arguments are checked here, once
        smoothness = _paper_smoothness
    _, g = loss_and_grad(loss, theta)
    eta = 1.0 / smoothness(loss, theta, theta, H, T, d, R)    # rho_k >= this for the paper's rho_k
    for _ in range(100):
        r = smoothness(loss, theta, theta - eta * g, H, T, d, R)
        if eta <= 1.0 / r * (1 + 1e-12):
            return eta
        eta = 1.0 / r
    return eta


@refuses_overflow
def gd_run(loss: Callable, theta0: torch.Tensor, H: int, T: int, d: int, R: float, steps: int,
           eta: float | None = None) -> tuple[Any, float]:
    """GD at a fixed step size, trajectory-certified for Lemma 7: start from ``eta`` (default
    ``1/beta2(theta_0)``), run, check ``eta <= 1/rho_k`` at every step, halve and rerun if not.
    Returns ``(trajectory, eta)``."""
    H, T, d = _check_run_args(loss, H, T, d, R)
    theta0 = _flat_theta(theta0, "theta0", H, T, d)
    steps = check_int(steps, "steps", minimum=0)
    if eta is not None:
        eta = check_positive(eta, "eta")
    eta = eta or 1.0 / _beta2_at(theta0, H, T, d, R)
    for _ in range(30):
        tr = run_first_order(loss, theta0, steps=steps, lr=eta, keep_iterates=True)
        b2 = [_beta2_at(x, H, T, d, R) for x in tr.iterates]
        if all(eta <= 1.0 / max(b2[k], b2[k + 1]) for k in range(steps)):
            return tr, eta
        eta /= 2
    raise RuntimeError("could not certify a step size")


def segment_loss_max(loss_batch: Callable[[torch.Tensor], torch.Tensor], a: torch.Tensor,
                     b: torch.Tensor, grid: int = 41, refine: bool = False) -> float:
    """``max_{alpha in [0,1]} L(alpha a + (1 - alpha) b)`` on a grid (optionally refined).

    A grid under-estimates the maximum; where the maximum sits on the right side of a bound
    (``tau_k`` of Lemmas 8-10) that makes the check slightly stricter than the statement."""
    check_callable(loss_batch, "loss_batch")
    a_, b_ = as_tensor(a, "a", ndim=1), as_tensor(b, "b", ndim=1)
    if b_.shape != a_.shape:
        raise ValueError(f"a and b must have the same shape, got {tuple(a_.shape)} and {tuple(b_.shape)}")
    a, b = (x if isinstance(x, torch.Tensor) else x_ for x, x_ in ((a, a_), (b, b_)))
    grid = check_int(grid, "grid")
    refine = check_bool(refine, "refine")

    def f(al: np.ndarray) -> np.ndarray:
        A = f64(al).unsqueeze(1)
        with torch.no_grad():
            return loss_batch(A * a + (1 - A) * b).numpy()
    return segment_max(f, grid=grid, refine=refine)[0]


def _runs(seed: int) -> list[dict]:
    """GD runs (``F-rand`` and easy data) with certified step sizes and targets."""
    rng = np.random.default_rng(seed)
    R = 1.0
    runs = []
    K = pick(25, 100)
    for H in pick((1, 4, 16), (1, 4, 16, 64)):
        T, d, n = 3, 2, 16
        Xs, ys = md.sample_bounded_tokens(n, T, d, R, seed=int(rng.integers(1 << 30)))
        loss = risk_fn(Xs, ys, H)
        th0 = random_heads(rng, H, T, d, u_scale=2.0, w_scale=3.0)
        tr, eta = gd_run(loss, th0, H, T, d, R, K)
        long_tr, _ = gd_run(loss, th0, H, T, d, R, pick(150, 3000), eta=eta)
        targets = {"long-run iterate": long_tr.final}
        for dist in (0.1, 0.5, 2.0):
            v = f64(rng.standard_normal(th0.numel()))
            targets[f"random at distance {dist}"] = th0 + dist * v / torch.linalg.norm(v)
        runs.append(dict(name=f"F-rand H={H}", loss=loss, Xs=Xs, ys=ys, H=H, T=T, d=d, R=R, tr=tr,
                         eta=eta, targets=targets))
    H, T, d, n = pick(256, 512), 8, 2, 16
    Xs, ys = easy_data(n, T, d, seed=seed)
    loss = risk_fn(Xs, ys, H)
    th0 = bad_init(H, T, d, seed=seed)
    tr, eta = gd_run(loss, th0, H, T, d, R, K)
    runs.append(dict(name=f"easy data H={H}", loss=loss, Xs=Xs, ys=ys, H=H, T=T, d=d, R=R, tr=tr,
                     eta=eta, targets={"designed target": easy_target(th0, H, T, d)}))
    return runs


_RUN_CACHE: dict[int, list[dict]] = {}


def cached_runs(seed: int) -> list[dict]:
    if seed not in _RUN_CACHE:
        _RUN_CACHE[seed] = _runs(seed)
    return _RUN_CACHE[seed]


@refuses_overflow
def flin_realizability(eps: float, m0: float, H: int, T: int) -> dict[str, float]:
    """On ``F-lin`` from ``theta_0 = (m0/T) v``: the point closest to ``theta_0`` with
    ``L <= eps`` and its distance and ``||.||_{2,inf}`` (closed form: the margin is linear).
    Returns ``g0`` (distance), ``g`` (``||theta_eps||_{2,inf}``) and ``margin``."""
    eps = check_positive(eps, "eps")
    check_real(m0, "m0")
    H, T = check_int(H, "H"), check_int(T, "T")
    m_star = -math.log(math.expm1(eps))           # smallest margin with log(1 + e^{-m}) <= eps
    m = max(m_star, m0)
    return {"g0": (m - m0) / math.sqrt(T), "g": abs(m) / math.sqrt(T * H), "margin": m}


def flin_uphill(m0: float, mt: float, T: int = 4, d: int = 2) -> tuple[np.ndarray, float, dict]:
    """Lemma 10 on ``F-lin`` with a target of margin ``mt < m0`` (behind the start): ``H`` from (74)
    (iterated, since ``B = |mt|/sqrt(T H)`` depends on it), ``eta = 1 ^ 1/rho ^ D^2/L(theta_0)`` and the
    largest ``K`` of (73), ``D^2/(eta L(theta))``; GD (the exact margin recursion :func:`flin_margins`)
    raises the margin, away from the target, at every step.  Returns ``(||theta_k - theta||, D, info)``
    with ``||theta_k - theta|| = |m_k - mt|/sqrt(T)``, ``D = (m0 - mt)/sqrt(T)``.  Used by the check of
    Lemma 10 (``book/deora/training.md``)."""
    m0, mt = check_real(m0, "m0"), check_real(mt, "mt")
    if not mt < m0:
        raise ValueError(f"mt must lie behind the start (mt < m0), got m0 = {m0}, mt = {mt}")
    T, d = check_int(T, "T"), check_int(d, "d")
    D = (m0 - mt) / math.sqrt(T)
    H = 1
    for _ in range(40):
        B = abs(mt) / math.sqrt(T * H)
        need = bd.thm1_heads_needed(D, B, T, d, 1.0)
        if need <= H:
            break
        H = need
    Lt, L0 = float(_softplus(np.array(-mt))), float(_softplus(np.array(-m0)))
    eta = min(1.0, 1.0 / bd.rho(D, B, T, d, 1.0, H), D**2 / L0)
    K = max(1, int(D**2 / (eta * Lt)))
    m = flin_margins(m0, eta, K, T)
    return np.abs(m - mt) / math.sqrt(T), D, {"H": H, "K": K, "eta": eta}


def segment_tau(run: dict, theta: torch.Tensor, th_k: torch.Tensor) -> float:
    """``tau_k = (beta3(theta) v beta3(theta_k)) / sqrt(H) max_[theta_k, theta] L`` (Lemma 8's curvature
    coefficient) for a run of :func:`cached_runs` (the segment maximum on a grid of 11 or 41 points).
    Used by the checks of ``book/deora/training.md``."""
    H, T, d, R = run["H"], run["T"], run["d"], run["R"]
    b3 = max(bd.beta3(norm_2inf(theta, H, T, d), T, d, R), bd.beta3(norm_2inf(th_k, H, T, d), T, d, R))
    mL = segment_loss_max(lambda th: risk_batch(th, run["Xs"], run["ys"], H), th_k, theta,
                          grid=pick(11, 41))
    return b3 / math.sqrt(H) * mL


def certified_instance(rng: np.random.Generator, *, D: float, uphill: bool, T: int = 2, d: int = 2,
                        R: float = 1.0, n: int = 8, head_norm: float = 0.3) -> dict:
    """A certified instance of Lemma 10 / Theorem 3 on ``F-rand``: ``H`` from (74) (with the
    target's ``||theta||_{2,inf}``, iterated since it depends on ``H``), ``eta`` and ``K`` from
    (73) and Theorem 3's step-size condition.  Used by :func:`certified_runs`."""
    Xs, ys = md.sample_bounded_tokens(n, T, d, R, seed=int(rng.integers(1 << 30)))
    H = 1
    hseed = int(rng.integers(1 << 30))
    for _ in range(20):
        loss = risk_fn(Xs, ys, H)
        th0 = random_heads(np.random.default_rng(hseed), H, T, d,
                           u_scale=head_norm / math.sqrt(2), w_scale=head_norm / math.sqrt(2))
        L0, g0 = loss_and_grad(loss, th0)
        v = g0 if uphill else -g0
        theta = th0 + D * v / torch.linalg.norm(v)
        B = norm_2inf(theta, H, T, d)
        need = bd.thm1_heads_needed(D, B, T, d, R)
        if need <= H:
            break
        H = need
    Lt = float(loss(theta))
    eta = min(1.0, 1.0 / bd.rho(D, B, T, d, R, H), D**2 / float(L0))
    K = max(1, int(D**2 / (eta * Lt)))          # largest K allowed by (73) at this eta
    K = min(K, pick(60, 400))
    cert = bd.thm1_certificate(D, B, T, d, R, K, Lt, float(L0), H=H)
    eta = cert["eta"]
    return dict(loss=loss, th0=th0, theta=theta, H=H, T=T, d=d, R=R, K=K, eta=eta, D=D, B=B,
                Lt=Lt, L0=float(L0), cert=cert, Xs=Xs, ys=ys)


_CERT_CACHE: dict[tuple, list[dict]] = {}


def certified_runs(seed: int) -> list[dict]:
    """GD runs of three certified ``F-rand`` instances (:func:`certified_instance`: ``D`` in {0.2, 0.15},
    downhill and uphill targets), cached per seed.  Used by the checks of Lemma 10 and Theorem 3
    (``book/deora/training.md``)."""
    key = (seed,)
    if key not in _CERT_CACHE:
        rng = np.random.default_rng(seed)
        out = []
        for D, uphill in ((0.2, False), (0.2, True), (0.15, False)):
            inst = certified_instance(rng, D=D, uphill=uphill)
            tr = run_first_order(inst["loss"], inst["th0"], steps=inst["K"], lr=inst["eta"],
                                 keep_iterates=True)
            inst["tr"] = tr
            inst["name"] = f"F-rand certified D={D}{' uphill' if uphill else ''} H={inst['H']}"
            out.append(inst)
        _CERT_CACHE[key] = out
    return _CERT_CACHE[key]


def flin_instance(m_target: float, T: int, d: int, m0: float = 0.0) -> dict:
    """Certified Theorem-3 instance on ``F-lin`` (``R = 1``): target margin ``m_target`` from a
    start with margin ``m0``; ``H`` from the head condition, ``K`` so that the two step-size
    caps ``1/rho`` and ``D^2/(K L(theta))`` balance, ``eta`` the largest admissible.  Used by the check
    ``certified-f-lin`` of Theorem 1 (``book/deora/training.md``)."""
    m_target, m0 = check_real(m_target, "m_target"), check_real(m0, "m0")
    if m_target <= m0:
        raise ValueError(f"m_target must exceed m0, got m_target = {m_target}, m0 = {m0}")
    T, d = check_int(T, "T"), check_int(d, "d")
    D = (m_target - m0) / math.sqrt(T)
    H = 1
    for _ in range(30):
        B = abs(m_target) / math.sqrt(T * H)          # ||theta||_{2,inf}: theta_h = (m/(T sqrt H)) 1 e^T
        need = bd.thm1_heads_needed(D, B, T, d, 1.0)
        if need <= H:
            break
        H = need
    Lt = float(_softplus(np.array(-m_target)))
    L0 = float(_softplus(np.array(-m0)))
    K = max(1, math.ceil(D**2 * bd.rho(D, B, T, d, 1.0, H) / Lt))
    cert = bd.thm1_certificate(D, B, T, d, 1.0, K, Lt, L0, H=H)
    return dict(D=D, B=B, H=H, K=K, eta=cert["eta"], Lt=Lt, L0=L0, cert=cert, m0=m0, m_target=m_target)


def thm1_sides(size: tuple[int, int], z: np.ndarray,
               a_fn: Callable[..., float]) -> tuple[np.ndarray, np.ndarray]:
    """The two (lhs, rhs) of :func:`check_thm1_formulas` at ``z = (R, D, B, H, eta)`` (log scales in the
    grid's ranges; ``H`` rounded down to an integer).  The search objective of the check
    ``formula-grid`` of Theorem 1 (``book/deora/training.md``)."""
    T, d = size
    R, D, B, Hr, eta = (float(log_box(z[i], lo, hi)) for i, (lo, hi)
                        in enumerate(((0, 1), (-3, 3), (-3, 3), (0, 12), (-8, 0))))
    H = max(1, int(Hr))
    Th = bd.theta_k_bound(eta, 3 * D, B, T, R)
    re = bd.rho_eta(eta, D, B, T, d, R, H)
    r = (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * a_fn(D, B, T, d, R) ** 2
    return np.array([bd.beta2(Th, T, d, R, H), re]), np.array([re, r])


@refuses_overflow
def rho_corrected_order(D: float, B: float, T: int, d: int, R: float, H: int) -> float:
    """The corrected order of Theorem 1's smoothness ``rho``:
    ``81/4 (1 + 8 sqrt(d) R / sqrt(T H)) d T^2 R^12 (3D + B + 1)^2``, which bounds Theorem 3's ``rho``.
    Used by the check ``main-text-rho-order`` (``book/deora/training.md``)."""
    D, B, R = check_positive(D, "D"), check_positive(B, "B", allow_zero=True), check_positive(R, "R")
    T, d, H = check_int(T, "T"), check_int(d, "d"), check_int(H, "H")
    return 81 / 4 * (1 + 8 * math.sqrt(d) * R / math.sqrt(T * H)) * d * T**2 * R**12 * (3 * D + B + 1) ** 2


def order_grid(seed: int) -> list[tuple]:
    """A random log-uniform grid of ``(D, B, T, d, R, H)`` (``D, B`` in ``[1e-3, 1e2]``, ``T, d`` up to
    ``10^3``, ``R`` up to 10, ``H`` up to ``10^12``; 2000 at smoke scale, 20000 at full scale) on which
    the main-text orders of Theorem 1 are compared with Theorem 3 (``book/deora/training.md``)."""
    check_seed(seed, "seed")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(pick(2000, 20000)):
        out.append((float(10 ** rng.uniform(-3, 2)), float(10 ** rng.uniform(-3, 2)),
                    int(10 ** rng.uniform(0, 3)), int(10 ** rng.uniform(0, 3)),
                    float(10 ** rng.uniform(0, 1)), int(10 ** rng.uniform(0, 12))))
    return out


@refuses_overflow
def heads_exact_sqrt(D: float, B: float, T: int, d: int, R: float) -> float:
    """Theorem 3's head condition, the least ``sqrt(H)``:
    ``36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3D + B) + 1) D^2``.  Used by the checks of Theorem 1 and
    Corollary 3 (``book/deora/training.md``)."""
    D, B, R = check_positive(D, "D"), check_positive(B, "B", allow_zero=True), check_positive(R, "R")
    T, d = check_int(T, "T"), check_int(d, "d")
    return 36 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * D + B) + 1) * D**2


def cor3_sides(size: tuple[int, int], z: np.ndarray, inner: float) -> tuple[np.ndarray, np.ndarray]:
    """The four (lhs, rhs) of :func:`check_cor3` at ``z = (R, K, g0(1), g0(1/K)/g0(1), g(1/K), L(theta_0),
    H/H_min, eta/eta_max, B/g(1/K), K L(theta))`` (log scales and fractions in the ranges of the random
    tuples; ``K`` and ``H`` integers).  The search objective of the check ``formula-implication`` of
    Corollary 3 (``book/deora/training.md``)."""
    T, d = size
    R = float(log_box(z[0], 0, 0.7))
    K = max(1, int(log_box(z[1], 0, 6)))
    g01 = float(log_box(z[2], -2, 1))
    g0K = g01 * float(log_box(z[3], 0, 1))
    gK = float(log_box(z[4], -2, 1.5))
    L0 = float(log_box(z[5], -2, 1))
    H = int(bd.cor3_heads_needed(g0K, gK, T, d, R, inner=inner) * float(log_box(z[6], 0, 1)))
    eta = bd.cor3_step_size(g0K, gK, g01, T, d, R, H, L0, inner=inner) * float(box(z[7], 0.1, 1.0))
    B = gK * float(box(z[8], 0.0, 1.0))
    Lt = float(box(z[9], 0.0, 1.0)) / K
    return (np.array([heads_exact_sqrt(g0K, B, T, d, R), eta * bd.rho(g0K, B, T, d, R, H), eta * K * Lt,
                      eta * L0]),
            np.array([math.sqrt(H), 1.0, g0K**2, g0K**2]))


#: Edges of the training proof (Figure 1, reconstructed from App. B): (source, target, note).
PROOF_SCHEMA: list[tuple[str, str, str]] = [
    ("deora-cor-1", "deora-lemma-7", "(2) local smoothness"),
    ("deora-cor-1", "deora-eq-15", "(3) weak convexity"),
    ("deora-eq-15", "deora-prop-4", "Sturm comparison"),
    ("deora-eq-14", "deora-eq-16", ""),
    ("deora-eq-15", "deora-eq-16", ""),
    ("deora-lemma-7", "deora-lemma-8", "descent"),
    ("deora-eq-16", "deora-lemma-8", "telescoping"),
    ("deora-lemma-8", "deora-lemma-9", ""),
    ("deora-prop-4", "deora-lemma-9", "per-step head condition"),
    ("deora-lemma-7", "deora-lemma-10", ""),
    ("deora-prop-4", "deora-lemma-10", "(73)-(74)"),
    ("deora-lemma-9", "deora-thm-1", ""),
    ("deora-lemma-10", "deora-thm-1", "uniform rho_k <= rho"),
    ("deora-cor-1", "deora-thm-1", "(1),(2)"),
    ("deora-thm-1", "deora-cor-3", "monotone version"),
    ("deora-assum-2", "deora-cor-3", ""),
]
