"""Checks of Deora et al.'s generalization analysis (Chapter 5): Lemma 3, Eqs. (19)-(22),
Lemma 11, Theorem 2 and Corollary 4, plus the leave-one-out machinery they need.

The leave-one-out (LOO) runs are ordinary full-batch GD runs
(:func:`attention_theory.optim.gd.run_first_order`): all runs of one training set are
stacked into one flat vector ``Theta = concat(theta^(0), theta^(1), ..., theta^(m-1))`` and
GD is applied to the *separable* loss ``sum_r L_r(theta^(r))``.  Because the blocks do not
interact, its gradient is the concatenation of the individual gradients, so one call of
``run_first_order`` performs all runs exactly (run 0 is the full-data run, run ``i`` the run
on ``L^{not i} = (1/n) sum_{j != i} l_j``, note ``1/n`` and not ``1/(n-1)``, and optionally
runs ``n+1..2n`` the replace-one runs of Lei & Ying).

Data: ``noisy_lin_tokens`` is the fixture ``F-lin`` with token noise (an explicit
construction of this book, not the paper's tokenized-mixture model): every token is
``R (y s e_1 + (1 - s) xi_t)`` with ``xi_t`` uniform in the unit ball, so ``||x_t|| <= R``
(Assumption 1) and ``s = 1`` is exactly ``F-lin``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np
import torch

from .._validate import check_int, check_positive, check_probability
from ..bounds import deora as bd
from ..config import pick
from ..models import deora as md
from ..optim.gd import run_first_order
from ..verify import (CheckRecord, bound_outcome, check_bound, check_identity, claim_check,
                      confirm_erratum)

torch.set_default_dtype(torch.float64)
DT = torch.float64

__all__ = ["noisy_lin_tokens", "sample_losses", "norm_2inf_batch", "LOORuns", "loo_runs",
           "segment_loo_losses", "StepData", "step_data", "expansion_factor", "run_tilde_betas",
           "practical_runs", "monte_carlo", "certified_runs", "init_heads", "test_losses"]


# ---------------------------------------------------------------------------
# data and batched evaluation
# ---------------------------------------------------------------------------


def noisy_lin_tokens(n: int, T: int, d: int, *, signal: float = 0.6, R: float = 1.0,
                     label_noise: float = 0.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``F-lin`` with token noise: ``Xs (n, T, d)``, ``ys (n,)``.

    Token ``t`` of sample ``i`` is ``R (y_i^clean s e_1 + (1 - s) xi_{it})`` with ``xi`` uniform in
    the unit ball of ``R^d`` (so ``||x_t|| <= R``); the observed label ``y_i`` equals the clean
    label except with probability ``label_noise``.  ``signal = s`` in ``(0, 1]``.
    """
    n, T, d = check_int(n, "n"), check_int(T, "T"), check_int(d, "d")
    s = check_positive(signal, "signal")
    if s > 1:
        raise ValueError(f"signal must lie in (0, 1], got {signal}")
    R = check_positive(R, "R")
    q = check_probability(label_noise, "label_noise", open_interval=False)
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=n)
    xi = rng.standard_normal((n, T, d))
    xi *= (rng.uniform(size=(n, T, 1)) ** (1.0 / d)) / np.linalg.norm(xi, axis=2, keepdims=True)
    e1 = np.zeros(d)
    e1[0] = 1.0
    Xs = R * (s * y[:, None, None] * e1 + (1 - s) * xi)
    flip = rng.uniform(size=n) < q
    return Xs, np.where(flip, -y, y)


def sample_losses(thetas: Any, Xs: Any, ys: Any, H: int) -> torch.Tensor:
    """Per-sample logistic losses ``l(y_j Phi~(X_j; theta_m))`` for a batch of parameters.

    ``thetas``: ``(m, H (T d + d^2))``; ``Xs``: ``(n, T, d)`` shared by all, or ``(m, n, T, d)``
    one data set per parameter vector; ``ys``: ``(n,)`` or ``(m, n)``.  Returns ``(m, n)``.
    """
    thetas = md.as_tensor(thetas, "thetas", ndim=2)
    Xs = md.as_tensor(Xs, "Xs")
    ys = md.as_tensor(ys, "ys")
    H = check_int(H, "H")
    m = thetas.shape[0]
    if Xs.dim() == 3:
        Xs = Xs.unsqueeze(0).expand(m, *Xs.shape)
    if ys.dim() == 1:
        ys = ys.unsqueeze(0).expand(m, ys.shape[0])
    if Xs.dim() != 4 or Xs.shape[0] != m:
        raise ValueError(f"Xs must have shape (n, T, d) or ({m}, n, T, d), got {tuple(Xs.shape)}")
    _, n, T, d = Xs.shape
    if tuple(ys.shape) != (m, n):
        raise ValueError(f"ys must have shape (n,) or ({m}, n) matching Xs, got {tuple(ys.shape)}")
    p = md.head_size(T, d)
    if thetas.shape[1] != H * p:
        raise ValueError(f"thetas must have H (T d + d^2) = {H * p} columns, got {thetas.shape[1]}")
    blocks = thetas.reshape(m, H, p)
    Us = blocks[..., :T * d].reshape(m, H, T, d)
    Ws = blocks[..., T * d:].reshape(m, H, d, d)
    S = torch.softmax(torch.einsum("mntd,mhde,mnse->mnhts", Xs, Ws, Xs), dim=-1)
    out = torch.einsum("mnhts,mnsd,mhtd->mn", S, Xs, Us) / math.sqrt(H)
    return torch.nn.functional.softplus(-ys * out)


def norm_2inf_batch(thetas: Any, H: int) -> torch.Tensor:
    """``||theta||_{2,inf} = max_h ||theta_h||`` for each row of ``thetas`` ``(m, p)``; returns ``(m,)``."""
    thetas = md.as_tensor(thetas, "thetas", ndim=2)
    H = check_int(H, "H")
    if thetas.shape[1] % H:
        raise ValueError(f"thetas has {thetas.shape[1]} columns, not a multiple of H = {H}")
    return torch.linalg.vector_norm(thetas.reshape(thetas.shape[0], H, -1), dim=2).max(dim=1).values


# ---------------------------------------------------------------------------
# leave-one-out runs
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class LOORuns:
    """Stacked GD runs of one training set.

    ``iterates``: ``(K + 1, m, p)`` when kept (run 0 full data, runs ``1..n`` leave-one-out,
    runs ``n+1..2n`` replace-one when requested); ``final``: ``(m, p)``; ``losses``:
    ``(K + 1, m)`` the run's own objective (``L^``, ``L^{not i}``, ``L^_{S^(i)}``) at every iterate.
    """

    n: int
    H: int
    eta: float
    final: torch.Tensor
    losses: torch.Tensor
    iterates: torch.Tensor | None

    def stability(self, k: int | None = None) -> float:
        """On-average model stability ``(1/n) sum_i ||theta_k - theta_k^{not i}||`` (``k = K`` by default)."""
        th = self.final if k is None else self._at(k)
        return float(torch.linalg.vector_norm(th[1:self.n + 1] - th[0], dim=1).mean())

    def replace_stability(self, k: int | None = None) -> float:
        """``(1/n) sum_i ||theta_k - theta_k^{(i)}||`` for the replace-one runs."""
        th = self.final if k is None else self._at(k)
        if th.shape[0] < 2 * self.n + 1:
            raise ValueError("these runs have no replace-one runs")
        return float(torch.linalg.vector_norm(th[self.n + 1:] - th[0], dim=1).mean())

    def _at(self, k: int) -> torch.Tensor:
        if self.iterates is None:
            raise ValueError("iterates were not kept (keep_iterates=False)")
        return self.iterates[k]


def loo_runs(theta0: Any, Xs: Any, ys: Any, H: int, *, eta: float, steps: int,
             replace: tuple[Any, Any] | None = None, keep_iterates: bool = True,
             progress: bool = False) -> LOORuns:
    """Full-data GD and all ``n`` leave-one-out runs (and replace-one runs) from ``theta0``.

    ``replace = (X', y')`` with ``X'`` ``(n, T, d)``: run ``n + i`` replaces sample ``i`` by
    ``(X'_i, y'_i)``.  Every run uses the same step size ``eta`` and starts at ``theta0``.
    """
    theta0 = md.as_tensor(theta0, "theta0", ndim=1)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    n, T, d = Xs.shape
    ys = md.as_tensor(ys, "ys", shape=(n,))
    H = check_int(H, "H")
    if theta0.shape[0] != H * md.head_size(T, d):
        raise ValueError(f"theta0 must have H (T d + d^2) = {H * md.head_size(T, d)} entries")
    eta = check_positive(eta, "eta")
    steps = check_int(steps, "steps", minimum=0)
    weights = [torch.ones(n, dtype=DT)]
    for i in range(n):
        w = torch.ones(n, dtype=DT)
        w[i] = 0.0
        weights.append(w)
    data_X = [Xs] * (n + 1)
    data_y = [ys] * (n + 1)
    if replace is not None:
        Xr = md.as_tensor(replace[0], "replace[0]", shape=(n, T, d))
        yr = md.as_tensor(replace[1], "replace[1]", shape=(n,))
        for i in range(n):
            Xi, yi = Xs.clone(), ys.clone()
            Xi[i], yi[i] = Xr[i], yr[i]
            data_X.append(Xi)
            data_y.append(yi)
            weights.append(torch.ones(n, dtype=DT))
    Wt = torch.stack(weights) / n                        # (m, n), 1/n normalisation
    XX, YY = torch.stack(data_X), torch.stack(data_y)    # (m, n, T, d), (m, n)
    m, p = Wt.shape[0], theta0.shape[0]

    def per_run(Theta: torch.Tensor) -> torch.Tensor:
        return (Wt * sample_losses(Theta.reshape(m, p), XX, YY, H)).sum(dim=1)

    tr = run_first_order(lambda Th: per_run(Th).sum(), theta0.repeat(m), steps=steps, lr=eta,
                         keep_iterates=keep_iterates, progress=progress)
    if keep_iterates:
        its = tr.iterates.reshape(steps + 1, m, p)
        with torch.no_grad():
            losses = torch.stack([per_run(its[k].reshape(-1)) for k in range(steps + 1)])
    else:
        its = None
        with torch.no_grad():
            losses = per_run(tr.final).unsqueeze(0)
    return LOORuns(n=n, H=H, eta=eta, final=tr.final.reshape(m, p), losses=losses, iterates=its)


def segment_loo_losses(runs: LOORuns, Xs: Any, ys: Any, *, grid: int = 11
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """``L^{not i}`` and ``||.||_{2,inf}`` on a grid of the segments ``[theta_k^{not i}, theta_k]``.

    Returns two tensors of shape ``(K, grid, n)``: ``L^{not i}(theta_{k alpha}^{not i})`` and
    ``||theta_{k alpha}^{not i}||_{2,inf}`` at ``alpha = 0, 1/(grid-1), ..., 1``.  A grid maximum is at
    most the true maximum; used on the right side of a bound it makes a check slightly stricter
    than the statement.
    """
    if runs.iterates is None:
        raise ValueError("runs must keep their iterates")
    its = runs.iterates
    grid = check_int(grid, "grid", minimum=2)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    ys = md.as_tensor(ys, "ys")
    n, K, H = runs.n, its.shape[0] - 1, runs.H
    alphas = torch.linspace(0, 1, grid, dtype=DT)
    mask = 1.0 - torch.eye(n, dtype=DT)                 # mask[i, j] = 1 if j != i
    L = torch.empty(K, grid, n, dtype=DT)
    B = torch.empty(K, grid, n, dtype=DT)
    with torch.no_grad():
        for k in range(K):
            a, b = its[k, 0], its[k, 1:n + 1]           # (p,), (n, p)
            pts = (alphas[:, None, None] * a + (1 - alphas[:, None, None]) * b).reshape(-1, a.shape[0])
            Ls = sample_losses(pts, Xs, ys, H).reshape(grid, n, n)
            L[k] = (Ls * mask).sum(-1) / n
            B[k] = norm_2inf_batch(pts, H).reshape(grid, n)
    return L, B


# ---------------------------------------------------------------------------
# per-step quantities along the runs
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class StepData:
    """Everything Eqs. (20)-(22) need, for ``k = 0..K-1`` (rows) and ``i = 1..n`` (columns)."""

    dist: torch.Tensor          # ||theta_k - theta_k^{not i}||, (K + 1, n)
    seg_loss: torch.Tensor      # L^{not i} on the segment grid, (K, G, n)
    seg_b: torch.Tensor         # ||.||_{2,inf} on the segment grid, (K, G, n)
    b_end: torch.Tensor         # ||theta_k||_{2,inf} v ||theta_k^{not i}||_{2,inf}, (K, n)
    b_full: torch.Tensor        # ||theta_k||_{2,inf}, (K,)
    loss_i: torch.Tensor        # l_i(theta_k), (K, n)
    loo_at_full: torch.Tensor   # L^{not i}(theta_k), (K, n)
    loo_at_loo: torch.Tensor    # L^{not i}(theta_k^{not i}), (K, n)
    full_loss: torch.Tensor     # L^(theta_k), (K + 1,)
    b_run: float                # max ||.||_{2,inf} over every iterate of every run


def step_data(runs: LOORuns, Xs: Any, ys: Any, *, grid: int = 11) -> StepData:
    """Evaluate the per-step quantities of Eqs. (20)-(22) along stored runs."""
    if runs.iterates is None:
        raise ValueError("runs must keep their iterates")
    its = runs.iterates
    n, H = runs.n, runs.H
    K = its.shape[0] - 1
    with torch.no_grad():
        dist = torch.linalg.vector_norm(its[:, 1:n + 1] - its[:, :1], dim=2)
        nrm = torch.stack([norm_2inf_batch(its[k], H) for k in range(K + 1)])   # (K+1, m)
        b_end = torch.maximum(nrm[:K, :1], nrm[:K, 1:n + 1])
        full = sample_losses(its[:K + 1, 0], Xs, ys, H)                          # (K+1, n)
        mask = 1.0 - torch.eye(n, dtype=DT)
        loo_at_full = (full[:K] @ mask) / n               # sum_{j != i} l_j(theta_k) / n
        loo_at_loo = runs.losses[:K, 1:n + 1]
    seg_loss, seg_b = segment_loo_losses(runs, Xs, ys, grid=grid)
    return StepData(dist=dist, seg_loss=seg_loss, seg_b=seg_b, b_end=b_end,
                    b_full=nrm[:K, 0], loss_i=full[:K], loo_at_full=loo_at_full,
                    loo_at_loo=loo_at_loo, full_loss=full.mean(dim=1),
                    b_run=float(nrm[:, :n + 1].max()))


def _beta1(b: torch.Tensor, T: int, d: int, R: float) -> torch.Tensor:
    return math.sqrt(T) * R * (2 * R**2 * b + 1)


def _beta3(b: torch.Tensor, T: int, d: int, R: float) -> torch.Tensor:
    return 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)


def expansion_factor(eta: float, beta3: Any, beta2: Any, L: Any, H: int) -> Any:
    """Eq. (19)'s factor ``(1 + eta beta3 L / sqrt(H)) v eta beta2`` (elementwise)."""
    one = 1 + eta * beta3 * L / math.sqrt(H)
    return torch.maximum(torch.as_tensor(one), torch.as_tensor(eta * beta2))


# ---------------------------------------------------------------------------
# experiment configurations
# ---------------------------------------------------------------------------


def practical_config() -> dict[str, Any]:
    """Configuration "A" (practical step size; hypotheses of Eqs. 20-22 certified along the runs)."""
    return dict(T=3, d=2, R=1.0, H=pick(16, 64), n=pick(8, 20), steps=pick(150, 500), eta=0.08,
                signal=0.5, label_noise=0.1, init_scale=0.2, seed=0)


def init_heads(H: int, T: int, d: int, scale: float, seed: int) -> torch.Tensor:
    """Random initialization with every head of norm ``scale`` (so ``||theta_0||_{2,inf} = scale``)."""
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    scale = check_positive(scale, "scale", allow_zero=True)
    g = torch.Generator().manual_seed(seed)
    th = torch.randn(H, md.head_size(T, d), generator=g, dtype=DT)
    th = th / torch.linalg.vector_norm(th, dim=1, keepdim=True) * scale
    return th.reshape(-1)


_PRACTICAL_CACHE: dict[tuple, tuple] = {}


def practical_runs(cfg: dict[str, Any] | None = None) -> tuple[LOORuns, StepData, np.ndarray, np.ndarray]:
    """The LOO runs of configuration A on one training set, with their per-step data (cached)."""
    cfg = dict(practical_config() if cfg is None else cfg)
    key = tuple(sorted(cfg.items()))
    if key not in _PRACTICAL_CACHE:
        Xs, ys = noisy_lin_tokens(cfg["n"], cfg["T"], cfg["d"], signal=cfg["signal"], R=cfg["R"],
                                  label_noise=cfg["label_noise"], seed=cfg["seed"])
        th0 = init_heads(cfg["H"], cfg["T"], cfg["d"], cfg["init_scale"], cfg["seed"] + 1)
        runs = loo_runs(th0, Xs, ys, cfg["H"], eta=cfg["eta"], steps=cfg["steps"])
        _PRACTICAL_CACHE[key] = (runs, step_data(runs, Xs, ys), Xs, ys)
    return _PRACTICAL_CACHE[key]


def run_tilde_betas(sd: StepData, cfg: dict[str, Any]) -> dict[str, float]:
    """``beta~`` constants from the largest ``||.||_{2,inf}`` met by any run (in place of ``3D + B``)."""
    T, d, R, H = cfg["T"], cfg["d"], cfg["R"], cfg["H"]
    return {"beta1": bd.beta1(sd.b_run, T, d, R), "beta3": bd.beta3(sd.b_run, T, d, R),
            "beta2": bd.beta2(sd.b_run, T, d, R, H), "b": sd.b_run}


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"hypothesis not met on this configuration: {what}")


# ---------------------------------------------------------------------------
# deora-eq-19: GD expansiveness
# ---------------------------------------------------------------------------


def _default_factor(eta: float, b3: Any, b2: Any, L: Any, H: int) -> Any:
    return expansion_factor(eta, b3, b2, L, H)


@claim_check("deora-eq-19", "expansiveness")
def check_eq19(factor: Callable[..., Any] = _default_factor, *, seed: int = 190,
               grid: int = 6, reps: int | None = None) -> CheckRecord:
    """``||G(theta) - G(theta')|| <= max_alpha {(1 + eta beta3 L^/sqrt(H)) v eta beta2}(theta_alpha) ||theta - theta'||``.

    ``F-rand`` data (``T = 3``, ``d = 2``, ``R = 1``, ``n = 6``), ``H in {1, 4}``; pairs
    ``theta' = theta + delta v`` with ``v`` random or the eigenvector of the most negative
    Hessian eigenvalue (the adversarial direction: GD expands most there), ``delta`` from
    ``1e-3`` to ``1``, ``eta in {1e-3, 0.1, 1}``.  Also asserts the mechanism
    ``max_alpha ||I - eta Hess(theta_alpha)|| ||theta - theta'||`` (exact Hessians).  ``factor(eta,
    beta3, beta2, L, H)`` is the expansion factor under test.
    """
    rng = np.random.default_rng(seed)
    T, d, R, n = 3, 2, 1.0, 6
    Xs, ys = md.sample_bounded_tokens(n, T, d, R, seed=seed)
    Xt, yt = torch.as_tensor(Xs), torch.as_tensor(ys)
    lhs, rhs, mech, kinds = [], [], [], []
    alphas = np.linspace(0, 1, grid)
    for H in (1, 4):
        p = H * md.head_size(T, d)
        loss = lambda th: md.empirical_risk(th, Xt, yt, H)  # noqa: E731
        for rep in range(pick(2, 12) if reps is None else reps):
            th = torch.as_tensor(rng.standard_normal(p) * rng.uniform(0.3, 1.5))
            Hs = torch.func.hessian(loss)(th)
            ev, evec = torch.linalg.eigh(Hs)
            for kind in ("random", "negative-curvature"):
                v = evec[:, 0] if kind != "random" else torch.as_tensor(rng.standard_normal(p))
                v = v / torch.linalg.vector_norm(v)
                for delta in (1e-3, 1e-1, 1.0):
                    th2 = th + delta * v
                    pts = [a * th + (1 - a) * th2 for a in alphas]
                    hess = [torch.func.hessian(loss)(q) for q in pts]
                    Ls = torch.stack([loss(q) for q in pts]).detach()
                    bs = torch.stack([norm_2inf_batch(q.unsqueeze(0), H)[0] for q in pts])
                    b3 = _beta3(bs, T, d, R)
                    b2 = b3 / math.sqrt(H) + _beta1(bs, T, d, R) ** 2 / 4
                    g1 = torch.func.grad(loss)(th)
                    g2 = torch.func.grad(loss)(th2)
                    for eta in (1e-3, 0.1, 1.0):
                        diff = float(torch.linalg.vector_norm((th - eta * g1) - (th2 - eta * g2)))
                        f = float(torch.as_tensor(factor(eta, b3, b2, Ls, H)).max())
                        m = max(float(torch.linalg.matrix_norm(torch.eye(p) - eta * Hq, ord=2))
                                for Hq in hess)
                        lhs.append(diff)
                        rhs.append(f * delta)
                        mech.append(m * delta)
                        kinds.append(kind)
    # the mechanism is an intermediate inequality; a grid maximum may miss the true maximum
    # by O(grid^-2) on long segments, hence the small relative tolerance
    check_bound(lhs, mech, "mechanism: ||G(theta)-G(theta')|| <= max_alpha ||I - eta Hess|| ||theta-theta'||",
                rtol=1e-3, seed=seed, check="expansiveness-mechanism")
    lhs_a, rhs_a = np.array(lhs), np.array(rhs)
    neg = np.array(kinds) == "negative-curvature"
    return check_bound(lhs, rhs, "GD expansiveness (Eq. 19) on random and negative-curvature pairs",
                       seed=seed, params={"T": T, "d": d, "n": n, "H": [1, 4]},
                       extra={"worst_ratio_random": float(np.max(lhs_a[~neg] / rhs_a[~neg])),
                              "worst_ratio_negative_curvature": float(np.max(lhs_a[neg] / rhs_a[neg]))})


# ---------------------------------------------------------------------------
# deora-eq-20 .. deora-eq-22 along real runs
# ---------------------------------------------------------------------------


@claim_check("deora-eq-20", "loo-recursion")
def check_eq20(factor: Callable[..., Any] = _default_factor, drift_scale: float = 1.0, *,
               cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Eq. (20) at every step ``k`` and every left-out ``i`` of the configuration-A runs:
    ``||theta_{k+1} - theta^{not i}_{k+1}|| <= max_alpha factor(theta^{not i}_{k alpha}) ||theta_k - theta_k^{not i}||
    + eta beta1(theta_k) l_i(theta_k) / n``, with ``L^{not i}`` and the betas evaluated on the segment grid.
    ``drift_scale`` multiplies the last term (negative control: 0 drops it)."""
    cfg = dict(practical_config() if cfg is None else cfg)
    runs, sd, _, _ = practical_runs(cfg)
    T, d, R, H, eta, n = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["eta"], cfg["n"]
    b3 = _beta3(sd.seg_b, T, d, R)
    b2 = b3 / math.sqrt(H) + _beta1(sd.seg_b, T, d, R) ** 2 / 4
    fac = torch.as_tensor(factor(eta, b3, b2, sd.seg_loss, H)).max(dim=1).values     # (K, n)
    rhs = fac * sd.dist[:-1] + drift_scale * eta * _beta1(sd.b_full, T, d, R)[:, None] * sd.loss_i / n
    lhs = sd.dist[1:]
    ok = sd.dist[:-1] > 0                                  # k = 0: both sides start at 0
    return check_bound(lhs[ok].numpy(), rhs[ok].numpy(),
                       "Eq. (20) at every step and every left-out sample of real GD/LOO runs",
                       params=cfg, extra={"steps_x_samples": int(ok.sum())})


def _printed_21(eta: float, bt3: float, H: int, segmax: torch.Tensor) -> torch.Tensor:
    return (1 + eta * bt3 / math.sqrt(H)) * segmax


def _corrected_21(eta: float, bt3: float, H: int, segmax: torch.Tensor) -> torch.Tensor:
    return 1 + eta * bt3 / math.sqrt(H) * segmax


def _eq21_sides(cfg: dict[str, Any], factor: Callable[..., torch.Tensor]
                ) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    runs, sd, _, _ = practical_runs(cfg)
    T, d, R, H, eta, n = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["eta"], cfg["n"]
    tb = run_tilde_betas(sd, cfg)
    _require(eta <= 1 / tb["beta2"], f"eta = {eta} <= 1/beta~_2 = {1 / tb['beta2']:.4g}")
    segmax = sd.seg_loss.max(dim=1).values
    rhs = factor(eta, tb["beta3"], H, segmax) * sd.dist[:-1] \
        + eta * _beta1(sd.b_full, T, d, R)[:, None] * sd.loss_i / n
    ok = sd.dist[:-1] > 0
    return sd.dist[1:][ok], rhs[ok], tb


@claim_check("deora-eq-21", "simplified-recursion")
def check_eq21(factor: Callable[..., torch.Tensor] = _corrected_21, *,
               cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Eq. (21) in its corrected form
    ``||Delta_{k+1}|| <= (1 + eta beta~3 max_alpha L^{not i} / sqrt(H)) ||Delta_k|| + eta beta1(theta_k) l_i / n``
    along the configuration-A runs; ``beta~_j`` from the largest ``||.||_{2,inf}`` of all runs, and
    the hypothesis ``eta <= 1/beta~_2`` is asserted first."""
    cfg = dict(practical_config() if cfg is None else cfg)
    lhs, rhs, tb = _eq21_sides(cfg, factor)
    return check_bound(lhs.numpy(), rhs.numpy(), "corrected Eq. (21) along real GD/LOO runs",
                       params=cfg, extra={"beta_tilde": tb})


@claim_check("deora-eq-21", "printed-parentheses")
def check_eq21_parentheses(printed: Callable[..., torch.Tensor] = _printed_21, *,
                           cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Erratum: (21) and (86) print the factor ``(1 + eta beta~3/sqrt(H)) * max L^{not i}``, which is
    below 1 once the loss is small (a contraction); the intended ``1 + eta beta~3 max L^{not i}/sqrt(H)``."""
    cfg = dict(practical_config() if cfg is None else cfg)
    lp, rp, _ = _eq21_sides(cfg, printed)
    lc, rc, _ = _eq21_sides(cfg, _corrected_21)
    return confirm_erratum(
        bound_outcome(lp.numpy(), rp.numpy()), bound_outcome(lc.numpy(), rc.numpy()),
        description="misplaced parentheses in the LOO recursion (21)/(86)",
        printed_text="||D_{k+1}|| <= ((1 + eta b3~/sqrt(H)) max_a L^{-i}(theta_ka)) ||D_k|| + eta b1 l_i/n",
        corrected_text="||D_{k+1}|| <= (1 + eta b3~ max_a L^{-i}(theta_ka)/sqrt(H)) ||D_k|| + eta b1 l_i/n",
        source="Deora et al., TMLR, Eq. (21) (main text) and Eq. (86)-(88) (App. C)", severity="T",
        params=cfg)


def alpha_ki(sd: StepData, cfg: dict[str, Any]) -> torch.Tensor:
    """``alpha_{k,i} = 4 eta beta~3 (L^{not i}(theta_k) + L^{not i}(theta_k^{not i})) / (3 sqrt(H))``, ``(K, n)``."""
    tb = run_tilde_betas(sd, cfg)
    return 4 * cfg["eta"] * tb["beta3"] / (3 * math.sqrt(cfg["H"])) * (sd.loo_at_full + sd.loo_at_loo)


@claim_check("deora-eq-22", "alpha-recursion")
def check_eq22(alpha_scale: float = 1.0, drift_scale: float = 1.0, *,
               cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Eq. (22) ``||Delta_{k+1}|| <= (1 + alpha_{k,i}) ||Delta_k|| + eta beta~1 l_i(theta_k)/n`` at every step
    where its head condition ``sqrt(H) >= 2 (beta3(theta_k) v beta3(theta_k^{not i})) ||Delta_k||^2`` holds
    (fraction reported), and the unrolled form (91)
    ``||Delta_K|| <= exp(sum_l alpha_{l,i}) (eta beta~1/n) sum_{k<K} l_i(theta_k)`` for every ``i``.
    ``alpha_scale`` multiplies ``alpha_{k,i}``, ``drift_scale`` the last term (negative controls)."""
    cfg = dict(practical_config() if cfg is None else cfg)
    runs, sd, _, _ = practical_runs(cfg)
    T, d, R, H, eta, n = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["eta"], cfg["n"]
    tb = run_tilde_betas(sd, cfg)
    _require(eta <= 1 / tb["beta2"], f"eta <= 1/beta~_2 = {1 / tb['beta2']:.4g}")
    al = alpha_scale * alpha_ki(sd, cfg)
    cond = math.sqrt(H) >= 2 * _beta3(sd.b_end, T, d, R) * sd.dist[:-1] ** 2
    rhs = (1 + al) * sd.dist[:-1] + drift_scale * eta * tb["beta1"] * sd.loss_i / n
    ok = cond & (sd.dist[:-1] > 0)
    lhs_all = sd.dist[1:][ok].numpy().tolist()
    rhs_all = rhs[ok].numpy().tolist()
    n_step = len(lhs_all)
    # unrolled (91), only if the head condition held at every step of that i
    full_i = cond.all(dim=0)
    unrolled = drift_scale * torch.exp(al.sum(dim=0)) * eta * tb["beta1"] / n * sd.loss_i.sum(dim=0)
    lhs_all += sd.dist[-1][full_i].numpy().tolist()
    rhs_all += unrolled[full_i].numpy().tolist()
    return check_bound(lhs_all, rhs_all, "Eq. (22) per step and unrolled (91) along real GD/LOO runs",
                       params=cfg, extra={"fraction_head_condition": float(cond.float().mean()),
                                          "n_step_instances": n_step,
                                          "max_exp_sum_alpha": float(torch.exp(al.sum(0)).max()),
                                          "beta_tilde": tb})


# ---------------------------------------------------------------------------
# deora-lemma-11
# ---------------------------------------------------------------------------


def lemma11_trajectory_curves(cfg: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Average LOO distance and the unrolled bound of Lemma 11 at every iteration ``k``.

    ``bound[k] = max_i exp(sum_{l<k} alpha_{l,i}) * (eta beta~1 / n) sum_{j<k} L^(theta_j)`` (the proof's
    (91)-(92) with the measured exponential factor in place of 2) and ``bound2[k]`` the same with the
    factor 2 (valid once the exponential is at most 2).
    """
    cfg = dict(practical_config() if cfg is None else cfg)
    runs, sd, _, _ = practical_runs(cfg)
    tb = run_tilde_betas(sd, cfg)
    al = alpha_ki(sd, cfg)
    cum_alpha = torch.cat([torch.zeros(1, cfg["n"]), al.cumsum(0)])          # (K+1, n)
    cum_loss = torch.cat([torch.zeros(1), sd.full_loss[:-1].cumsum(0)])      # (K+1,)
    base = cfg["eta"] * tb["beta1"] / cfg["n"] * cum_loss
    return {"k": np.arange(len(cum_loss)), "stability": sd.dist.mean(dim=1).numpy(),
            "bound": (torch.exp(cum_alpha).max(dim=1).values * base).numpy(),
            "bound2": (2 * base).numpy(), "exp_factor": torch.exp(cum_alpha).max(dim=1).values.numpy()}


@claim_check("deora-lemma-11", "trajectory-intermediate")
def check_lemma11_trajectory(scale: float = 1.0, *, cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Trajectory-certified intermediate bound of Lemma 11 at every iteration ``k``:
    ``(1/n) sum_i ||theta_k - theta_k^{not i}|| <= E_k (eta beta~1 / n) sum_{j<k} L^(theta_j)``, with
    ``E_k = max_i exp(sum_{l<k} alpha_{l,i})`` measured (the proof bounds it by 2 under the 256 head
    condition).  ``scale`` multiplies the right side (negative control)."""
    cfg = dict(practical_config() if cfg is None else cfg)
    c = lemma11_trajectory_curves(cfg)
    ok = c["k"] > 0
    return check_bound(c["stability"][ok], scale * c["bound"][ok],
                       "average LOO stability <= exp-factor x (eta beta~1/n) sum_k L^(theta_k) at every k",
                       params=cfg, extra={"max_exp_factor": float(c["exp_factor"].max())})


def _eq87_printed(b_seg: torch.Tensor, b_end: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return b_seg, b_end          # printed: ||theta_{k alpha}||_{2,inf} = max of the endpoint norms


@claim_check("deora-lemma-11", "eq87-and-eq89")
def check_lemma11_errata(printed_89: Callable[..., torch.Tensor] | None = None, *,
                         cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Errata in the proof of Lemma 11 on the configuration-A runs.

    (89) prints ``((1 + 4 eta beta~3/(3 sqrt H)) (L^{not i}(theta_k) + L^{not i}(theta_k^{not i}))) ||Delta_k||``
    (a contraction once the losses are small) where Eq. (22)'s ``1 + alpha_{k,i}`` is meant.  The
    check confirms it (printed fails, corrected passes); the equality sign of (87) is recorded
    alongside (``||theta_{k alpha}||_{2,inf}`` is below the endpoint maximum inside the segment, so only
    "<=" holds; the record's ``detail`` gives the largest gap found).
    """
    cfg = dict(practical_config() if cfg is None else cfg)
    runs, sd, _, _ = practical_runs(cfg)
    T, d, R, H, eta, n = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["eta"], cfg["n"]
    tb = run_tilde_betas(sd, cfg)
    _require(eta <= 1 / tb["beta2"], "eta <= 1/beta~_2")
    ssum = sd.loo_at_full + sd.loo_at_loo
    if printed_89 is None:
        fac_p = (1 + 4 * eta * tb["beta3"] / (3 * math.sqrt(H))) * ssum
    else:
        fac_p = printed_89(eta, tb["beta3"], H, ssum)
    fac_c = 1 + alpha_ki(sd, cfg)
    cond = (math.sqrt(H) >= 2 * _beta3(sd.b_end, T, d, R) * sd.dist[:-1] ** 2) & (sd.dist[:-1] > 0)
    extra_term = eta * tb["beta1"] * sd.loss_i / n
    lhs = sd.dist[1:][cond].numpy()
    gap87 = float((sd.b_end[:, None, :] - sd.seg_b).max())
    return confirm_erratum(
        bound_outcome(lhs, (fac_p * sd.dist[:-1] + extra_term)[cond].numpy()),
        bound_outcome(lhs, (fac_c * sd.dist[:-1] + extra_term)[cond].numpy()),
        description="proof of Lemma 11: parentheses of (89) (and '=' for '<=' in (87), gap "
                    f"{gap87:.3g} between endpoint maximum and segment norm)",
        printed_text="(89): ||D_{k+1}|| <= ((1 + 4 eta b3~/(3 sqrt H)) (L^{-i}(theta_k) + L^{-i}(theta_k^{-i}))) ||D_k|| + ...",
        corrected_text="(22): ||D_{k+1}|| <= (1 + 4 eta b3~ (L^{-i}(theta_k) + L^{-i}(theta_k^{-i}))/(3 sqrt H)) ||D_k|| + ...;"
                       " (87) with '<=' (convexity of ||.||_{2,inf})",
        source="Deora et al., TMLR, App. C, Eqs. (87) and (89)", severity="T", params=cfg)


# ---------------------------------------------------------------------------
# Monte Carlo over training sets: deora-lemma-3 (practical) and deora-thm-2 (certified)
# ---------------------------------------------------------------------------


def test_losses(thetas: torch.Tensor, Xt: Any, yt: Any, H: int, *, chunk: int = 4000) -> torch.Tensor:
    """Mean logistic loss of each row of ``thetas`` ``(m, p)`` on a (large) test set; ``(m,)``."""
    Xt = md.as_tensor(Xt, "Xt", ndim=3)
    yt = md.as_tensor(yt, "yt", shape=(Xt.shape[0],))
    tot = torch.zeros(thetas.shape[0], dtype=DT)
    with torch.no_grad():
        for s in range(0, Xt.shape[0], chunk):
            tot += sample_losses(thetas, Xt[s:s + chunk], yt[s:s + chunk], H).sum(dim=1)
    return tot / Xt.shape[0]


def monte_carlo_config() -> dict[str, Any]:
    """Configuration A for the Monte Carlo over training sets (Lemma 3, figure)."""
    cfg = practical_config()
    cfg.update(sets=pick(5, 40), steps=pick(80, 500), n_test=pick(5000, 200000),
               checkpoints=pick(6, 21))
    return cfg


_MC_CACHE: dict[tuple, dict[str, Any]] = {}


def monte_carlo(cfg: dict[str, Any] | None = None, *, progress: bool = False) -> dict[str, Any]:
    """Per training set ``s`` and checkpoint ``k``: generalization gap, LOO and replace-one stability,
    train loss, and the Lipschitz constant ``G = beta1(max ||.||_{2,inf})`` over every iterate (cached)."""
    cfg = dict(monte_carlo_config() if cfg is None else cfg)
    key = tuple(sorted(cfg.items()))
    if key in _MC_CACHE:
        return _MC_CACHE[key]
    T, d, R, H, n, K = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["n"], cfg["steps"]
    kw = dict(signal=cfg["signal"], R=R, label_noise=cfg["label_noise"])
    Xt, yt = noisy_lin_tokens(cfg["n_test"], T, d, seed=10**6, **kw)
    th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"] + 1)
    ks = np.unique(np.linspace(0, K, cfg["checkpoints"]).round().astype(int))
    gap, stab, rstab, train, test, bmax = [], [], [], [], [], 0.0
    it = range(cfg["sets"])
    if progress:
        from tqdm.auto import tqdm
        it = tqdm(it, leave=False, desc="training sets")
    for s in it:
        Xs, ys = noisy_lin_tokens(n, T, d, seed=1000 + s, **kw)
        Xr, yr = noisy_lin_tokens(n, T, d, seed=5000 + s, **kw)
        runs = loo_runs(th0, Xs, ys, H, eta=cfg["eta"], steps=K, replace=(Xr, yr))
        full = runs.iterates[ks, 0]
        L_test = test_losses(full, Xt, yt, H)
        L_train = runs.losses[ks, 0]
        train.append(L_train.numpy())
        test.append(L_test.numpy())
        gap.append((L_test - L_train).numpy())
        stab.append([runs.stability(int(k)) for k in ks])
        rstab.append([runs.replace_stability(int(k)) for k in ks])
        bmax = max(bmax, float(norm_2inf_batch(runs.iterates.reshape(-1, th0.shape[0]), H).max()))
    out = {"k": ks, "gap": np.array(gap), "stab": np.array(stab), "rstab": np.array(rstab),
           "train": np.array(train), "test": np.array(test), "G": bd.beta1(bmax, T, d, R),
           "b_max": bmax, "cfg": cfg}
    _MC_CACHE[key] = out
    return out


@claim_check("deora-lemma-3", "monte-carlo")
def check_lemma3(G_scale: float = 1.0, *, cfg: dict[str, Any] | None = None,
                 z: float = 2.6) -> CheckRecord:
    """Lemma 3 (and Lei & Ying's replace-one form) by Monte Carlo over training sets, at every checkpoint:
    ``E[L(theta_k) - L^(theta_k)] <= 2 G E[(1/n) sum_i ||theta_k - theta_k^{not i}||]`` and
    ``<= G E[(1/n) sum_i ||theta_k - theta_k^{(i)}||]``, with ``G = beta1`` at the largest ``||.||_{2,inf}``
    of all iterates (a valid Lipschitz constant of every sample loss there, Lemma 5 and ``|l'| <= 1``).
    Asserted as "no significant violation": mean gap ``<=`` bound ``+ z`` standard errors of the
    per-set difference.  ``G_scale`` multiplies ``G`` (negative control)."""
    mc = monte_carlo(cfg)
    G = G_scale * mc["G"]
    lhs, rhs, ratios = [], [], {}
    for name, st, c in (("leave-one-out", mc["stab"], 2.0), ("replace-one", mc["rstab"], 1.0)):
        delta = mc["gap"] - c * G * st                                # (sets, checkpoints)
        se = delta.std(axis=0, ddof=1) / math.sqrt(delta.shape[0])
        sel = mc["k"] > 0
        lhs += mc["gap"].mean(0)[sel].tolist()
        rhs += (c * G * st.mean(0) + z * se)[sel].tolist()
        with np.errstate(divide="ignore"):
            ratios[name] = (mc["gap"].mean(0)[sel] / (c * G * st.mean(0)[sel])).tolist()
    return check_bound(lhs, rhs, "E[gap] <= 2G E[LOO stability] and <= G E[replace-one stability]",
                       params={k: v for k, v in mc["cfg"].items()},
                       extra={"G": G, "ratio_gap_over_bound": ratios, "k": mc["k"].tolist(),
                              "mean_gap": mc["gap"].mean(0).tolist()})


def certified_config() -> dict[str, Any]:
    """Configuration B: every hypothesis of Lemma 11 / Theorem 2 holds (F-cert)."""
    return dict(T=2, d=1, R=1.0, D=pick(0.2, 0.3), n=pick(6, 10), sets=pick(4, 20), signal=0.8,
                label_noise=0.0, init_scale=0.05, n_test=pick(1500, 50000), seed=7)


def target_direction(H: int, T: int, d: int) -> torch.Tensor:
    """Unit vector with ``U_h = 1_T e_1^T / sqrt(T H)`` in every head and ``W_h = 0``."""
    v = torch.zeros(H, md.head_size(T, d), dtype=DT)
    U = torch.zeros(T, d, dtype=DT)
    U[:, 0] = 1.0 / math.sqrt(T * H)
    v[:, :T * d] = U.reshape(-1)
    return v.reshape(-1)


_CERT_CACHE: dict[tuple, dict[str, Any]] = {}


def certified_setup(cfg: dict[str, Any] | None = None) -> dict[str, Any]:
    """``F-cert`` for Theorem 2: the head count of Eq. (84) for the target ``theta = theta_0 + D v``,
    then ``K`` and ``eta`` meeting Theorem 1's step-size conditions on every sampled training set."""
    cfg = dict(certified_config() if cfg is None else cfg)
    T, d, R, D = cfg["T"], cfg["d"], cfg["R"], cfg["D"]
    B = cfg["init_scale"] + D
    for _ in range(3):  # B depends on H through the per-head share D / sqrt(H) of the target
        H = bd.lemma11_heads(D, B, T, d, R)
        th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"])
        theta = th0 + D * target_direction(H, T, d)
        B = float(norm_2inf_batch(theta.unsqueeze(0), H)[0])
    _require(H == bd.lemma11_heads(D, B, T, d, R) or H > bd.lemma11_heads(D, B, T, d, R),
             "head condition (84)")
    kw = dict(signal=cfg["signal"], R=R, label_noise=cfg["label_noise"])
    sets = [noisy_lin_tokens(cfg["n"], T, d, seed=100 + s, **kw) for s in range(cfg["sets"])]
    L_t = [float(md.empirical_risk(theta, X, y, H)) for X, y in sets]
    L_0 = [float(md.empirical_risk(th0, X, y, H)) for X, y in sets]
    rho = bd.rho(D, B, T, d, R, H)
    K = max(1, int(math.floor(D**2 * rho / max(L_t))))
    eta = min(bd.thm2_max_step(D, B, T, d, R, H, K, Lt, L0) for Lt, L0 in zip(L_t, L_0))
    return dict(cfg=cfg, H=H, B=B, K=K, eta=eta, rho=rho, theta0=th0, theta=theta, sets=sets,
                L_target=L_t, L0=L_0)


def certified_runs(cfg: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run configuration B on every training set (cached): stability, gap, Lemma 11 and Theorem 2 sides."""
    cfg = dict(certified_config() if cfg is None else cfg)
    key = tuple(sorted(cfg.items()))
    if key in _CERT_CACHE:
        return _CERT_CACHE[key]
    st = certified_setup(cfg)
    T, d, R, D, H, K, eta, B = cfg["T"], cfg["d"], cfg["R"], cfg["D"], st["H"], st["K"], st["eta"], st["B"]
    Xt, yt = noisy_lin_tokens(cfg["n_test"], T, d, seed=10**6, signal=cfg["signal"], R=R,
                              label_noise=cfg["label_noise"])
    rows = []
    for (Xs, ys), Lt in zip(st["sets"], st["L_target"]):
        runs = loo_runs(st["theta0"], Xs, ys, H, eta=eta, steps=K)
        its = runs.iterates
        dist_target = float(torch.linalg.vector_norm(its[:, 0] - st["theta"], dim=1).max())
        b_all = float(norm_2inf_batch(its.reshape(-1, its.shape[-1]), H).max())
        L_test = float(test_losses(runs.final[:1], Xt, yt, H)[0])
        L_train = float(runs.losses[-1, 0])
        rows.append(dict(stab=runs.stability(), gap=L_test - L_train, test=L_test, train=L_train,
                         sum_train=float(runs.losses[:-1, 0].sum()), dist_target=dist_target,
                         b_all=b_all, lemma11=bd.lemma11_rhs(eta, cfg["n"], K, Lt, D, B, T, d, R),
                         thm2=bd.thm2_rhs(cfg["n"], K, Lt, D, eta)))
    out = dict(st, rows=rows)
    _CERT_CACHE[key] = out
    return out


@claim_check("deora-lemma-11", "certified")
def check_lemma11_certified(scale: float = 1.0, *, cfg: dict[str, Any] | None = None) -> CheckRecord:
    """Lemma 11's final form on configuration B (every hypothesis certified: head condition (84),
    Theorem 1's step size on every training set), per training set:
    ``(1/n) sum_i ||theta_K - theta_K^{not i}|| <= (2 eta beta~1 / n)(2 K L^(theta) + 9 D^2/(4 eta))``.
    Also asserts the bounded-iterates facts the proof uses (``||theta_k - theta|| <= 3D``,
    ``||theta_k||_{2,inf} <= 3D + B`` for every run).  ``scale`` multiplies the right side."""
    r = certified_runs(cfg)
    D, B = r["cfg"]["D"], r["B"]
    check_bound([x["dist_target"] for x in r["rows"]] + [x["b_all"] for x in r["rows"]],
                [3 * D] * len(r["rows"]) + [3 * D + B] * len(r["rows"]),
                "bounded iterates used by the proof (Theorem 1 / Lemma 10)",
                check="certified-iterates", params=r["cfg"])
    return check_bound([x["stab"] for x in r["rows"]], [scale * x["lemma11"] for x in r["rows"]],
                       "Lemma 11 on certified instances (every hypothesis asserted)",
                       params=dict(r["cfg"], H=r["H"], K=r["K"], eta=r["eta"], B=r["B"]))


@claim_check("deora-thm-2", "certified")
def check_thm2_certified(scale: float = 1.0, *, cfg: dict[str, Any] | None = None,
                         z: float = 2.6) -> CheckRecord:
    """Theorem 2 on configuration B: the mean measured gap (test set) against the mean right side
    ``(4/n)(2 K L^(theta) + 9 D^2/(4 eta))``, plus ``z`` standard errors; the proof's intermediate
    ``E[gap] <= 2 beta~1 E[stability]`` (Lemma 3 with ``G = beta~1``) alongside.  Records the vacuity
    flag: the bound exceeds the mean test loss (which bounds the gap trivially)."""
    r = certified_runs(cfg)
    T, d, R, D, B = r["cfg"]["T"], r["cfg"]["d"], r["cfg"]["R"], r["cfg"]["D"], r["B"]
    gap = np.array([x["gap"] for x in r["rows"]])
    se = gap.std(ddof=1) / math.sqrt(len(gap)) if len(gap) > 1 else 0.0
    b1 = bd.tilde_betas(D, B, T, d, R, r["H"])["beta1"]
    stab = np.mean([x["stab"] for x in r["rows"]])
    rhs = scale * np.mean([x["thm2"] for x in r["rows"]])
    vacuous = bool(rhs >= np.mean([x["test"] for x in r["rows"]]))
    return check_bound([gap.mean(), gap.mean()], [rhs + z * se, 2 * b1 * stab + z * se],
                       "Theorem 2 (and its Lemma-3 step) on certified instances",
                       params=dict(r["cfg"], H=r["H"], K=r["K"], eta=r["eta"], B=r["B"]),
                       extra={"ratio_gap_over_bound": float(gap.mean() / rhs), "vacuous": vacuous,
                              "mean_gap": float(gap.mean()), "bound": float(rhs)})


def rho_vec(D: np.ndarray, B: np.ndarray, T: np.ndarray, d: np.ndarray, R: np.ndarray,
            H: np.ndarray) -> np.ndarray:
    """Vectorized ``rho(theta)`` (same formula as :func:`attention_theory.bounds.deora.rho`)."""
    a = 3 * np.sqrt(d) * R**2 * (3 * np.sqrt(T) * R**3 * (3 * D + B) + 2 * np.sqrt(T) * R)
    return (2 * np.sqrt(T * d) * R**3 / np.sqrt(H) + T * R**2 / 4) * a**2


@claim_check("deora-thm-2", "rho-dominates")
def check_thm2_rho(rho: Callable[..., np.ndarray] = rho_vec, *, seed: int = 200) -> CheckRecord:
    """The proof's step ``eta <= 1/rho(theta) <= 1/beta~1(theta)^2`` and the step-size hypothesis of
    Lemma 11 ``eta <= 1/beta~2(theta)``: ``rho >= beta~1^2`` and ``rho >= beta~2`` on a random
    log-uniform grid (``T, d in [1, 1e3]``, ``R in [1, 10]``, ``D, B in [1e-3, 1e3]``, ``H in [1, 1e12]``);
    the scalar calculator ``bounds.deora.rho`` is compared with the vectorized formula."""
    rng = np.random.default_rng(seed)
    m = pick(50000, 500000)
    T, d = np.floor(10 ** rng.uniform(0, 3, m)), np.floor(10 ** rng.uniform(0, 3, m))
    R = 10 ** rng.uniform(0, 1, m)
    D, B = 10 ** rng.uniform(-3, 3, m), 10 ** rng.uniform(-3, 3, m)
    H = np.floor(10 ** rng.uniform(0, 12, m))
    b = 3 * D + B
    b1 = np.sqrt(T) * R * (2 * R**2 * b + 1)
    b3 = 2 * np.sqrt(T * d) * R**3 * (3 * np.sqrt(d) * R**2 * b + 1)
    b2 = b3 / np.sqrt(H) + b1**2 / 4
    r = rho(D, B, T, d, R, H)
    scalar = [bd.rho(float(D[j]), float(B[j]), int(T[j]), int(d[j]), float(R[j]), int(H[j]))
              for j in range(50)]
    check_identity(scalar, rho_vec(D, B, T, d, R, H)[:50], "scalar and vectorized rho agree",
                   rtol=1e-12, seed=seed, check="rho-calculator")
    return check_bound(np.concatenate([b1**2, b2]), np.concatenate([r, r]),
                       "rho(theta) >= beta~1^2 and >= beta~2 on random parameter grids", seed=seed)


@claim_check("deora-cor-4", "formula-implication")
def check_cor4(constant: float = 17.0, *, seed: int = 400) -> CheckRecord:
    """Corollary 4 from Theorem 2 at the formula level, on random admissible tuples: with
    ``D <= g_0(1/K)``, ``B <= g(1/K)``, ``L^(theta_(1/K)) <= 1/K`` and
    ``eta <= 1 ^ 1/rho(K) ^ g_0(1)^2 ^ g_0(1)^2/L^(theta_0)`` (``g_0(1) <= g_0(1/K)``): (i) the head
    condition (95) implies (84) and the step-size conditions of Theorem 2 hold (monotone version,
    ``D bar = g_0(1/K)``); (ii) Theorem 2's right side is at most ``constant * g_0(1/K)^2 / (eta n)``.
    A quarter of the tuples are the equality case ``D = g_0``, ``L^ = 1/K``, ``eta = g_0(1)^2 = g_0(1/K)^2``
    (possible when ``g_0`` is small), where 17 is attained."""
    rng = np.random.default_rng(seed)
    m = pick(50000, 500000)
    eq = np.arange(m) % 4 == 0
    T, d = np.floor(10 ** rng.uniform(0, 2, m)), np.floor(10 ** rng.uniform(0, 2, m))
    T[eq], d[eq] = 1, 1
    R = np.where(eq, 1.0, 10 ** rng.uniform(0, 0.5, m))
    K, n = np.floor(10 ** rng.uniform(0, 6, m)), np.floor(10 ** rng.uniform(0, 6, m))
    g0K = np.where(eq, 10 ** rng.uniform(-3, -1, m), 10 ** rng.uniform(-2, 1, m))
    g0_1 = np.where(eq, g0K, g0K * rng.uniform(0.1, 1.0, m))
    gK = 10 ** rng.uniform(-2, 1, m)
    D = np.where(eq, g0K, g0K * rng.uniform(0.01, 1, m))
    B = gK * rng.uniform(0, 1, m)
    L_t = np.where(eq, 1.0 / K, rng.uniform(0, 1, m) / K)
    L0 = np.where(eq, 0.5, 10 ** rng.uniform(-3, 1, m))
    sqrtH = 256 * np.sqrt(T * d) * R**3 * (3 * np.sqrt(d) * R**2 * (3 * g0K + gK) + 1) * g0K**2
    H = np.ceil(sqrtH**2) + 1
    eta_max = np.minimum.reduce([np.ones(m), 1 / rho_vec(g0K, gK, T, d, R, H), g0_1**2, g0_1**2 / L0])
    eta = np.where(eq, eta_max, eta_max * rng.uniform(0.01, 1, m))
    lhs = [256 * np.sqrt(T * d) * R**3 * (3 * np.sqrt(d) * R**2 * (3 * g0K + B) + 1) * g0K**2,
           eta * K * L_t, eta * L0, eta, eta * rho_vec(g0K, B, T, d, R, H),
           4.0 / n * (2 * K * L_t + 9 * g0K**2 / (4 * eta))]
    rhs = [np.sqrt(H), g0K**2, g0K**2, np.ones(m), np.ones(m), constant * g0K**2 / (eta * n)]
    hit = float(np.max(lhs[-1] / rhs[-1]))
    return check_bound(np.concatenate(lhs), np.concatenate(rhs),
                       "Corollary 4's hypotheses imply Theorem 2's; 17 g0^2/(eta n) dominates",
                       seed=seed, extra={"worst_ratio_final_bound": hit})
