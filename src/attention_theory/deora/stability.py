"""Data, leave-one-out runs and constants for Deora et al.'s generalization analysis (Lemma 3, Eqs.
(19)-(22), Lemma 11, Theorem 2, Corollary 4).

The ``F-lin`` data with token and label noise, per-sample losses at many parameter points
(:func:`sample_losses`), stacked full-data, leave-one-out and replace-one GD runs
(:func:`loo_runs`), the per-step quantities of the stability recursion (:func:`step_data`), the
practical, Monte-Carlo and certified configurations with their runs, test losses, and the
function ``rho`` of the generalization bound.  The checks in
:mod:`attention_theory.deora.checks.stability` evaluate them (chapter ``book/deora/stability.md``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.cluster import map_pieces
from attention_theory.config import pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.calculus import box, log_box, search_tensor, search_value
from attention_theory.deora.landscape import risk_batch, risk_closed_form
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import (
    as_array,
    as_tensor,
    check_bool,
    check_finite,
    check_int,
    check_positive,
    check_probability,
    check_seed,
    config_dict,
    real_values,
    refuses_overflow,
    torch_generator,
)

__all__ = ['alpha_ki', 'certified_config', 'certified_runs', 'certified_setup', 'cor4_sides', 'eq19_point',
           'eq19_ratio', 'expansion_factor', 'init_heads', 'lemma11_trajectory_curves', 'loo_runs',
           'LOORuns', 'monte_carlo', 'monte_carlo_config', 'noisy_lin_tokens', 'norm_2inf_batch',
           'practical_config', 'practical_runs', 'require', 'rho_vec', 'run_tilde_betas', 'sample_losses',
           'segment_loo_losses', 'step_data', 'StepData', 'target_direction', 'test_losses']


_PRACTICAL_KEYS = ("T", "d", "R", "H", "n", "steps", "eta", "signal", "label_noise", "init_scale", "seed")
_MC_KEYS = _PRACTICAL_KEYS + ("sets", "n_test", "checkpoints")
_CERT_KEYS = ("T", "d", "R", "D", "n", "sets", "signal", "label_noise", "init_scale", "n_test", "seed")


def _elementwise(x: Any, name: str) -> Any:
    """An elementwise operand (number, array or tensor, its graph kept): real, non-empty, finite.
    Returned unchanged, except a list or tuple, returned as a float64 array."""
    v = real_values(x, name, "a number, an array or a tensor")
    if (v.numel() if torch.is_tensor(v) else v.size) == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(v.shape)})")
    check_finite(v, name)
    return torch.as_tensor(v) if isinstance(x, (list, tuple)) else x


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
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=n)
    xi = rng.standard_normal((n, T, d))
    xi *= (rng.uniform(size=(n, T, 1)) ** (1.0 / d)) / np.linalg.norm(xi, axis=2, keepdims=True)
    e1 = np.zeros(d)
    e1[0] = 1.0
    Xs = R * (s * y[:, None, None] * e1 + (1 - s) * xi)
    flip = rng.uniform(size=n) < q
    return Xs, np.where(flip, -y, y)


@refuses_overflow
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
    out = md.multi_head_output_flat(thetas, Xs, H)                           # (m, n)
    return torch.nn.functional.softplus(-ys * out)


@refuses_overflow
def norm_2inf_batch(thetas: Any, H: int) -> torch.Tensor:
    """``||theta||_{2,inf} = max_h ||theta_h||`` for each row of ``thetas`` ``(m, p)``; returns ``(m,)``."""
    thetas = md.as_tensor(thetas, "thetas", ndim=2)
    H = check_int(H, "H")
    if thetas.shape[1] % H:
        raise ValueError(f"thetas has {thetas.shape[1]} columns, not a multiple of H = {H}")
    return torch.linalg.vector_norm(thetas.reshape(thetas.shape[0], H, -1), dim=2).max(dim=1).values


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


@refuses_overflow
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
    weights = [torch.ones(n, dtype=VERIFICATION_DTYPE)]
    for i in range(n):
        w = torch.ones(n, dtype=VERIFICATION_DTYPE)
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
            weights.append(torch.ones(n, dtype=VERIFICATION_DTYPE))
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


@refuses_overflow
def segment_loo_losses(runs: LOORuns, Xs: Any, ys: Any, *, grid: int = 11
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """``L^{not i}`` and ``||.||_{2,inf}`` on a grid of the segments ``[theta_k^{not i}, theta_k]``.

    Returns two tensors of shape ``(K, grid, n)``: ``L^{not i}(theta_{k alpha}^{not i})`` and
    ``||theta_{k alpha}^{not i}||_{2,inf}`` at ``alpha = 0, 1/(grid-1), ..., 1``.  A grid maximum is at
    most the true maximum; used on the right side of a bound it makes a check slightly stricter
    than the statement.
    """
    if _check_runs(runs).iterates is None:
        raise ValueError("runs must keep their iterates")
    its = runs.iterates
    grid = check_int(grid, "grid", minimum=2)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    ys = md.as_tensor(ys, "ys")
    n, K, H = runs.n, its.shape[0] - 1, runs.H
    alphas = torch.linspace(0, 1, grid, dtype=VERIFICATION_DTYPE)
    mask = 1.0 - torch.eye(n, dtype=VERIFICATION_DTYPE)                 # mask[i, j] = 1 if j != i
    L = torch.empty(K, grid, n, dtype=VERIFICATION_DTYPE)
    B = torch.empty(K, grid, n, dtype=VERIFICATION_DTYPE)
    with torch.no_grad():
        for k in range(K):
            a, b = its[k, 0], its[k, 1:n + 1]           # (p,), (n, p)
            pts = (alphas[:, None, None] * a + (1 - alphas[:, None, None]) * b).reshape(-1, a.shape[0])
            Ls = sample_losses(pts, Xs, ys, H).reshape(grid, n, n)
            L[k] = (Ls * mask).sum(-1) / n
            B[k] = norm_2inf_batch(pts, H).reshape(grid, n)
    return L, B


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


@refuses_overflow
def step_data(runs: LOORuns, Xs: Any, ys: Any, *, grid: int = 11) -> StepData:
    """Evaluate the per-step quantities of Eqs. (20)-(22) along stored runs."""
    if _check_runs(runs).iterates is None:
        raise ValueError("runs must keep their iterates")
    grid = check_int(grid, "grid", minimum=2)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    ys = md.as_tensor(ys, "ys", shape=(Xs.shape[0],))
    its = runs.iterates
    n, H = runs.n, runs.H
    K = its.shape[0] - 1
    with torch.no_grad():
        dist = torch.linalg.vector_norm(its[:, 1:n + 1] - its[:, :1], dim=2)
        nrm = torch.stack([norm_2inf_batch(its[k], H) for k in range(K + 1)])   # (K+1, m)
        b_end = torch.maximum(nrm[:K, :1], nrm[:K, 1:n + 1])
        full = sample_losses(its[:K + 1, 0], Xs, ys, H)                          # (K+1, n)
        mask = 1.0 - torch.eye(n, dtype=VERIFICATION_DTYPE)
        loo_at_full = (full[:K] @ mask) / n               # sum_{j != i} l_j(theta_k) / n
        loo_at_loo = runs.losses[:K, 1:n + 1]
    seg_loss, seg_b = segment_loo_losses(runs, Xs, ys, grid=grid)
    return StepData(dist=dist, seg_loss=seg_loss, seg_b=seg_b, b_end=b_end,
                    b_full=nrm[:K, 0], loss_i=full[:K], loo_at_full=loo_at_full,
                    loo_at_loo=loo_at_loo, full_loss=full.mean(dim=1),
                    b_run=float(nrm[:, :n + 1].max()))


def expansion_factor(eta: float, beta3: Any, beta2: Any, L: Any, H: int) -> Any:
    """Eq. (19)'s factor ``(1 + eta beta3 L / sqrt(H)) v eta beta2`` (elementwise, broadcast).

    ``eta`` is a positive number or a one-element tensor (a search variable, its graph kept)."""
    if torch.is_tensor(eta):
        if eta.is_complex() or eta.dtype == torch.bool or eta.numel() != 1:
            raise TypeError(f"eta must be a real number or a one-element tensor, got {eta!r}")
        check_positive(float(eta.detach()), "eta")
    else:
        check_positive(eta, "eta")
    beta3, beta2, L = _elementwise(beta3, "beta3"), _elementwise(beta2, "beta2"), _elementwise(L, "L")
    H = check_int(H, "H")
    one = 1 + eta * beta3 * L / math.sqrt(H)
    return torch.maximum(torch.as_tensor(one), torch.as_tensor(eta * beta2))


def practical_config() -> dict[str, Any]:
    """Configuration "A" (practical step size; hypotheses of Eqs. 20-22 certified along the runs)."""
    return dict(T=3, d=2, R=1.0, H=pick(16, 64), n=pick(8, 20), steps=pick(150, 500), eta=0.08,
                signal=0.5, label_noise=0.1, init_scale=0.2, seed=0)


def init_heads(H: int, T: int, d: int, scale: float, seed: int) -> torch.Tensor:
    """Random initialization with every head of norm ``scale`` (so ``||theta_0||_{2,inf} = scale``)."""
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    scale = check_positive(scale, "scale", allow_zero=True)
    seed = check_seed(seed)
    g = torch_generator(seed)
    th = torch.randn(H, md.head_size(T, d), generator=g, dtype=VERIFICATION_DTYPE)
    th = th / torch.linalg.vector_norm(th, dim=1, keepdim=True) * scale
    return th.reshape(-1)


_PRACTICAL_CACHE: dict[tuple, tuple] = {}


def practical_runs(cfg: dict[str, Any] | None = None) -> tuple[LOORuns, StepData, np.ndarray, np.ndarray]:
    """The LOO runs of configuration A on one training set, with their per-step data (cached)."""
    cfg = config_dict(cfg, practical_config, _PRACTICAL_KEYS)
    key = tuple(sorted(cfg.items()))
    if key not in _PRACTICAL_CACHE:
        Xs, ys = noisy_lin_tokens(cfg["n"], cfg["T"], cfg["d"], signal=cfg["signal"], R=cfg["R"],
                                  label_noise=cfg["label_noise"], seed=cfg["seed"])
        th0 = init_heads(cfg["H"], cfg["T"], cfg["d"], cfg["init_scale"], cfg["seed"] + 1)
        runs = loo_runs(th0, Xs, ys, cfg["H"], eta=cfg["eta"], steps=cfg["steps"])
        _PRACTICAL_CACHE[key] = (runs, step_data(runs, Xs, ys), Xs, ys)
    return _PRACTICAL_CACHE[key]


def _check_step_data(sd: Any) -> StepData:
    if not isinstance(sd, StepData):
        raise TypeError(f"sd must be a StepData (step_data(runs, Xs, ys)), got {type(sd).__name__}")
    return sd


def _check_runs(runs: Any) -> LOORuns:
    if not isinstance(runs, LOORuns):
        raise TypeError(f"runs must be a LOORuns (loo_runs(...)), got {type(runs).__name__}")
    return runs


def run_tilde_betas(sd: StepData, cfg: dict[str, Any]) -> dict[str, float]:
    """``beta~`` constants from the largest ``||.||_{2,inf}`` met by any run (in place of ``3D + B``)."""
    _check_step_data(sd)
    cfg = config_dict(cfg, None, ("T", "d", "R", "H"))
    T, d, R, H = cfg["T"], cfg["d"], cfg["R"], cfg["H"]
    return {"beta1": bd.beta1(sd.b_run, T, d, R), "beta3": bd.beta3(sd.b_run, T, d, R),
            "beta2": bd.beta2(sd.b_run, T, d, R, H), "b": sd.b_run}


def require(ok: bool, what: str) -> None:
    """Raise ``ValueError`` (naming the hypothesis ``what``) unless ``ok``."""
    ok = check_bool(ok, "ok")
    if not isinstance(what, str):
        raise TypeError(f"what must be a string (the hypothesis), got {type(what).__name__}")
    if not ok:
        raise ValueError(f"hypothesis not met on this configuration: {what}")


def alpha_ki(sd: StepData, cfg: dict[str, Any]) -> torch.Tensor:
    """``alpha_{k,i} = 4 eta beta~3 (L^{not i}(theta_k) + L^{not i}(theta_k^{not i})) / (3 sqrt(H))``, ``(K,
    n)``."""
    _check_step_data(sd)
    cfg = config_dict(cfg, None, ("T", "d", "R", "H", "eta"))
    check_positive(cfg["eta"], "cfg['eta']")
    tb = run_tilde_betas(sd, cfg)
    return 4 * cfg["eta"] * tb["beta3"] / (3 * math.sqrt(cfg["H"])) * (sd.loo_at_full + sd.loo_at_loo)


def lemma11_trajectory_curves(cfg: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Average LOO distance and the unrolled bound of Lemma 11 at every iteration ``k``.

    ``bound[k] = max_i exp(sum_{l<k} alpha_{l,i}) * (eta beta~1 / n) sum_{j<k} L^(theta_j)`` (the proof's
    (91)-(92) with the measured exponential factor in place of 2) and ``bound2[k]`` the same with the
    factor 2 (valid once the exponential is at most 2).
    """
    cfg = config_dict(cfg, practical_config, _PRACTICAL_KEYS)
    runs, sd, _, _ = practical_runs(cfg)
    tb = run_tilde_betas(sd, cfg)
    al = alpha_ki(sd, cfg)
    cum_alpha = torch.cat([torch.zeros(1, cfg["n"]), al.cumsum(0)])          # (K+1, n)
    cum_loss = torch.cat([torch.zeros(1), sd.full_loss[:-1].cumsum(0)])      # (K+1,)
    base = cfg["eta"] * tb["beta1"] / cfg["n"] * cum_loss
    return {"k": np.arange(len(cum_loss)), "stability": sd.dist.mean(dim=1).numpy(),
            "bound": (torch.exp(cum_alpha).max(dim=1).values * base).numpy(),
            "bound2": (2 * base).numpy(), "exp_factor": torch.exp(cum_alpha).max(dim=1).values.numpy()}


@refuses_overflow
def test_losses(thetas: torch.Tensor, Xt: Any, yt: Any, H: int, *, chunk: int = 4000) -> torch.Tensor:
    """Mean logistic loss of each row of ``thetas`` ``(m, p)`` on a (large) test set; ``(m,)``."""
    thetas = as_tensor(thetas, "thetas", ndim=2)
    H = check_int(H, "H")
    chunk = check_int(chunk, "chunk")
    Xt = md.as_tensor(Xt, "Xt", ndim=3)
    yt = md.as_tensor(yt, "yt", shape=(Xt.shape[0],))
    tot = torch.zeros(thetas.shape[0], dtype=VERIFICATION_DTYPE)
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
    cfg = config_dict(cfg, monte_carlo_config, _MC_KEYS)
    key = tuple(sorted(cfg.items()))
    if key in _MC_CACHE:
        return _MC_CACHE[key]
    T, d, R, K = cfg["T"], cfg["d"], cfg["R"], cfg["steps"]
    ks = np.unique(np.linspace(0, K, cfg["checkpoints"]).round().astype(int))
    # one piece per training set, each from its own seeds: Dask sub-tasks inside a campaign task
    sets = map_pieces(functools.partial(_monte_carlo_set, cfg, ks), range(cfg["sets"]),
                      desc="training sets" if progress else None)
    gap, stab, rstab, train, test = ([p[name] for p in sets]
                                     for name in ("gap", "stab", "rstab", "train", "test"))
    bmax = max(0.0, *(p["b_max"] for p in sets))
    out = {"k": ks, "gap": np.array(gap), "stab": np.array(stab), "rstab": np.array(rstab),
           "train": np.array(train), "test": np.array(test), "G": bd.beta1(bmax, T, d, R),
           "b_max": bmax, "cfg": cfg}
    _MC_CACHE[key] = out
    return out


def _monte_carlo_set(cfg: dict[str, Any], ks: np.ndarray, s: int) -> dict[str, Any]:
    """Training set ``s`` of :func:`monte_carlo`: its full, leave-one-out and replace-one runs, the
    test and train losses at the checkpoints ``ks``, and the largest ``||.||_{2,inf}`` of its iterates."""
    T, d, R, H, n, K = cfg["T"], cfg["d"], cfg["R"], cfg["H"], cfg["n"], cfg["steps"]
    kw = dict(signal=cfg["signal"], R=R, label_noise=cfg["label_noise"])
    Xt, yt = noisy_lin_tokens(cfg["n_test"], T, d, seed=10**6, **kw)
    th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"] + 1)
    Xs, ys = noisy_lin_tokens(n, T, d, seed=1000 + s, **kw)
    Xr, yr = noisy_lin_tokens(n, T, d, seed=5000 + s, **kw)
    runs = loo_runs(th0, Xs, ys, H, eta=cfg["eta"], steps=K, replace=(Xr, yr))
    L_test = test_losses(runs.iterates[ks, 0], Xt, yt, H)
    L_train = runs.losses[ks, 0]
    return {"train": L_train.numpy(), "test": L_test.numpy(), "gap": (L_test - L_train).numpy(),
            "stab": [runs.stability(int(k)) for k in ks],
            "rstab": [runs.replace_stability(int(k)) for k in ks],
            "b_max": float(norm_2inf_batch(runs.iterates.reshape(-1, th0.shape[0]), H).max())}


def certified_config() -> dict[str, Any]:
    """Configuration B: every hypothesis of Lemma 11 / Theorem 2 holds (F-cert)."""
    return dict(T=2, d=1, R=1.0, D=pick(0.2, 0.3), n=pick(6, 10), sets=pick(4, 20), signal=0.8,
                label_noise=0.0, init_scale=0.05, n_test=pick(1500, 50000), seed=7)


def target_direction(H: int, T: int, d: int) -> torch.Tensor:
    """Unit vector with ``U_h = 1_T e_1^T / sqrt(T H)`` in every head and ``W_h = 0``."""
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    v = torch.zeros(H, md.head_size(T, d), dtype=VERIFICATION_DTYPE)
    U = torch.zeros(T, d, dtype=VERIFICATION_DTYPE)
    U[:, 0] = 1.0 / math.sqrt(T * H)
    v[:, :T * d] = U.reshape(-1)
    return v.reshape(-1)


_CERT_CACHE: dict[tuple, dict[str, Any]] = {}


def certified_setup(cfg: dict[str, Any] | None = None) -> dict[str, Any]:
    """``F-cert`` for Theorem 2: the head count of Eq. (84) for the target ``theta = theta_0 + D v``,
    then ``K`` and ``eta`` meeting Theorem 1's step-size conditions on every sampled training set."""
    cfg = config_dict(cfg, certified_config, _CERT_KEYS)
    T, d, R, D = cfg["T"], cfg["d"], cfg["R"], cfg["D"]
    B = cfg["init_scale"] + D
    for _ in range(3):  # B depends on H through the per-head share D / sqrt(H) of the target
        H = bd.lemma11_heads(D, B, T, d, R)
        th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"])
        theta = th0 + D * target_direction(H, T, d)
        B = float(norm_2inf_batch(theta.unsqueeze(0), H)[0])
    require(H == bd.lemma11_heads(D, B, T, d, R) or H > bd.lemma11_heads(D, B, T, d, R),
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
    cfg = config_dict(cfg, certified_config, _CERT_KEYS)
    key = tuple(sorted(cfg.items()))
    if key in _CERT_CACHE:
        return _CERT_CACHE[key]
    st = certified_setup(cfg)
    Xt, yt = noisy_lin_tokens(cfg["n_test"], cfg["T"], cfg["d"], seed=10**6, signal=cfg["signal"], R=cfg["R"],
                              label_noise=cfg["label_noise"])
    # one piece per training set (Dask sub-tasks inside a campaign task), all sharing the setup
    rows = map_pieces(functools.partial(_certified_row, cfg, st, (Xt, yt)), range(cfg["sets"]))
    out = dict(st, rows=rows)
    _CERT_CACHE[key] = out
    return out


def _certified_row(cfg: dict[str, Any], st: dict[str, Any], test: tuple[torch.Tensor, torch.Tensor],
                   s: int) -> dict[str, float]:
    """Training set ``s`` of :func:`certified_runs`: its full and leave-one-out runs and the sides."""
    T, d, R, D = cfg["T"], cfg["d"], cfg["R"], cfg["D"]
    H, K, eta, B = st["H"], st["K"], st["eta"], st["B"]
    (Xs, ys), Lt = st["sets"][s], st["L_target"][s]
    runs = loo_runs(st["theta0"], Xs, ys, H, eta=eta, steps=K)
    its = runs.iterates
    dist_target = float(torch.linalg.vector_norm(its[:, 0] - st["theta"], dim=1).max())
    b_all = float(norm_2inf_batch(its.reshape(-1, its.shape[-1]), H).max())
    L_test = float(test_losses(runs.final[:1], *test, H)[0])
    L_train = float(runs.losses[-1, 0])
    return dict(stab=runs.stability(), gap=L_test - L_train, test=L_test, train=L_train,
                sum_train=float(runs.losses[:-1, 0].sum()), dist_target=dist_target,
                b_all=b_all, lemma11=bd.lemma11_rhs(eta, cfg["n"], K, Lt, D, B, T, d, R),
                thm2=bd.thm2_rhs(cfg["n"], K, Lt, D, eta))


@refuses_overflow
def rho_vec(D: np.ndarray, B: np.ndarray, T: np.ndarray, d: np.ndarray, R: np.ndarray,
            H: np.ndarray) -> np.ndarray:
    """Vectorized ``rho(theta)`` (same formula as :func:`attention_theory.deora.bounds.rho`).

    Numbers or arrays broadcast against each other: ``D, B >= 0``, ``T, d, R, H > 0``."""
    arrays = []
    for name, x, lo in (("D", D, 0.0), ("B", B, 0.0), ("T", T, None), ("d", d, None), ("R", R, None),
                        ("H", H, None)):
        a = as_array(x, name)
        if (lo is not None and np.any(a < lo)) or (lo is None and np.any(a <= 0)):
            raise ValueError(f"{name} must be {'>= 0' if lo is not None else '> 0'}")
        arrays.append(a)
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise ValueError("D, B, T, d, R, H must have broadcastable shapes, got "
                         f"{[a.shape for a in arrays]}") from None
    # computed on the converted arrays: a Python list times 3 would repeat the list
    D, B, T, d, R, H = (a if a.ndim else float(a) for a in arrays)
    a = 3 * np.sqrt(d) * R**2 * (3 * np.sqrt(T) * R**3 * (3 * D + B) + 2 * np.sqrt(T) * R)
    return (2 * np.sqrt(T * d) * R**3 / np.sqrt(H) + T * R**2 / 4) * a**2


def _beta1(b: torch.Tensor, T: int, d: int, R: float) -> torch.Tensor:
    return math.sqrt(T) * R * (2 * R**2 * b + 1)


def _beta3(b: torch.Tensor, T: int, d: int, R: float) -> torch.Tensor:
    return 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)


def eq19_point(size: tuple[int, int, int, int], z: Any) -> tuple:
    """``(theta, theta', delta, eta)`` of a search point ``z = (theta, v, x_delta, x_eta)``:
    ``theta' = theta + delta v/||v||``, ``delta`` in ``[1e-3, 1]`` and ``eta`` in ``[1e-3, 1]`` (log
    scale).  The search point of the check of Eq. (19) (``book/deora/stability.md``)."""
    H, T, d, _ = size
    t = search_tensor(z)
    p = H * md.head_size(T, d)
    v = t[p:2 * p] / torch.linalg.vector_norm(t[p:2 * p])
    delta, eta = log_box(t[2 * p], -3.0, 0.0), log_box(t[2 * p + 1], -3.0, 0.0)
    return t[:p], t[:p] + delta * v, delta, eta


def eq19_ratio(size: tuple[int, int, int, int], z: Any, data: dict, factor: Callable[..., Any],
               mechanism_scale: float, grid: int, R: float = 1.0) -> Any:
    """The larger of the two ratios of the check at a search point: ``||G(theta) - G(theta')||`` over
    ``factor delta`` and over ``mechanism_scale max_alpha ||I - eta Hess|| delta`` (``grid`` points on
    the segment; closed-form Hessians, :func:`attention_theory.deora.landscape.risk_closed_form`).  The
    search objective of the check of Eq. (19) (``book/deora/stability.md``)."""
    H, T, d, _ = size
    Xs, ys = data[size]
    th, th2, delta, eta = eq19_point(size, z)
    f = lambda t: md.empirical_risk(t, Xs, ys, H)  # noqa: E731
    diff = torch.linalg.vector_norm((th - eta * torch.func.grad(f)(th))
                                    - (th2 - eta * torch.func.grad(f)(th2)))
    al = torch.linspace(0.0, 1.0, grid, dtype=VERIFICATION_DTYPE).unsqueeze(1)
    pts = al * th + (1 - al) * th2
    Ls = risk_batch(pts, Xs, ys, H)
    bs = torch.linalg.vector_norm(pts.reshape(grid, H, -1), dim=2).max(dim=1).values
    b3 = _beta3(bs, T, d, R)
    b2 = b3 / math.sqrt(H) + _beta1(bs, T, d, R) ** 2 / 4
    fac = torch.as_tensor(factor(eta, b3, b2, Ls, H)).max()
    p = th.numel()
    mech = torch.stack([torch.linalg.eigvalsh(torch.eye(p, dtype=VERIFICATION_DTYPE) - eta
                                              * risk_closed_form(q, Xs, ys, H)[2])
                        .abs().max() for q in pts]).max()
    return search_value(torch.maximum(diff / (fac * delta), diff / (mechanism_scale * mech * delta)), z)


def cor4_sides(size: tuple[int, int], z: np.ndarray,
               constant: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The six (lhs, rhs, ratio) of the check ``formula-implication`` of Corollary 4 at one tuple: ``z``
    holds ``R, K, n, g_0(1/K)``, ``g_0(1)/g_0(1/K)``, ``g(1/K)``, ``B/g(1/K)``, ``K L^(theta_(1/K))``,
    ``L^(theta_0)``, ``eta/eta_max`` (log scales and fractions in the ranges of the random tuples; ``K``,
    ``n`` taken real).  The search objective of that check (``book/deora/stability.md``)."""
    T, d = (np.array([float(v)]) for v in size)
    R, K, n = log_box(z[0], 0, 0.5), log_box(z[1], 0, 6), log_box(z[2], 0, 6)
    g0K = log_box(z[3], -3, 1)
    g0_1 = g0K * box(z[4], 0.1, 1.0)
    gK = log_box(z[5], -2, 1)
    B = gK * box(z[6], 0.0, 1.0)
    L_t = box(z[7], 0.0, 1.0) / K
    L0 = log_box(z[8], -3, 1)
    sqrtH = 256 * np.sqrt(T * d) * R**3 * (3 * np.sqrt(d) * R**2 * (3 * g0K + gK) + 1) * g0K**2
    H = np.ceil(sqrtH**2) + 1
    eta = min(1.0, float(1 / rho_vec(g0K, gK, T, d, R, H)[0]), g0_1**2, g0_1**2 / L0) * box(z[9], 0.01, 1.0)
    lhs = np.array([float((256 * np.sqrt(T * d) * R**3 * (3 * np.sqrt(d) * R**2 * (3 * g0K + B) + 1)
                           * g0K**2)[0]),
                    eta * K * L_t, eta * L0, eta, float(eta * rho_vec(g0K, B, T, d, R, H)[0]),
                    float((4.0 / n * (2 * K * L_t + 9 * g0K**2 / (4 * eta))))])
    rhs = np.array([float(np.sqrt(H)[0]), g0K**2, g0K**2, 1.0, 1.0, constant * g0K**2 / (eta * n)])
    return lhs, rhs, lhs / rhs
