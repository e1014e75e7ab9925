"""Data, initializations and gradient-descent runs for Deora et al.'s training analysis (Lemmas 7-10, Theorem 1, Corollary 3).

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

from attention_theory._validate import (
    as_tensor,
    check_bool,
    check_callable,
    check_int,
    check_positive,
    check_real,
    check_seed,
    refuses_overflow,
)
from attention_theory.config import pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.landscape import (
    loss_and_grad,
    norm_2inf,
    random_heads,
    risk_fn,
    segment_max,
)
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import f64

__all__ = ['DT', 'PROOF_SCHEMA', 'Smoothness', 'bad_init', 'cached_runs', 'certified_step', 'easy_data', 'easy_target', 'flin_data', 'flin_direction', 'flin_margins', 'flin_realizability', 'gd_run', 'paper_smoothness', 'segment_loss_max']


DT = torch.float64


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
