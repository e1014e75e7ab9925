"""Constants, formulas and trajectories of the Bregman-divergence lemmas of Julistiono et al.
(App. A.2, A.4), used by the chapter ``book/julistiono/mirror-descent.md``.

The values of ``p`` the checks sweep, the constants ``c_1(p)``, ``c_2(p)`` of the norm-divergence
comparisons and of Lemma 13, mirror-descent trajectories, the outcome of Lemma 4 as it was
first transcribed (a form the source does not support), and the formulas, samplers and search
objectives that the checks of :mod:`attention_theory.julistiono.checks.mirror_descent` evaluate
(each takes the variant a negative control turns as an argument).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from attention_theory.foundations.mirror import (
    bregman,
    bregman_entrywise,
    conjugate_exponent,
    entrywise_lp,
    grad_psi,
    md_step,
    psi,
)
from attention_theory.julistiono import model as mj

P_LOW = (1.05, 1.1, 1.25, 1.5, 1.75, 1.9)


P_HIGH = (2.0, 2.5, 3.0, 4.0, 6.0)


P_ALL = P_LOW + P_HIGH


KINDS = ("gauss", "sparse", "heavy", "onehot", "constant")


def c_l1(p: float) -> float:
    """Lemma 13's constant of case L1 (``p >= 2``), ``1 / (p 2^p)``."""
    return 1.0 / (p * 2.0 ** p)


def c_l2(p: float) -> float:
    """Lemma 13's constant of case L2 (``1 < p < 2``), ``(p - 1) / 2``."""
    return (p - 1.0) / 2.0


def lemma13_scalar_constants(p: float, grid: int = 801) -> float:
    """Best empirical constant of Lemma 13 at scalar level on ``[-1, 1]^2``:
    ``min phi_p(w, v) / |w - v|^p`` (``p >= 2``) or ``min phi_p / (w - v)^2`` (``p < 2``)."""
    t = np.linspace(-1, 1, grid)
    w, v = np.meshgrid(t, t)
    m = w != v
    phi = bregman_entrywise(w[m], v[m], p)
    den = np.abs(w[m] - v[m]) ** (p if p >= 2 else 2.0)
    return float(np.min(phi / den))


def md_trajectory(p: float, *, seed: int = 0, steps: int = 200, eta: float = 0.5, scale: float = 1.0,
                  normalized: bool = False) -> dict[str, Any]:
    """Every iterate of unnormalised l_p-AttGD on an E1 data set, with gradients and losses.

    Returns ``W (K+1, d, d)``, ``G (K+1, d, d)``, ``L (K+1,)`` and the data.
    """
    from attention_theory.julistiono.mirror_descent import lp_attgd

    data = mj.synthetic_dataset(seed, n=4, T=5, d=4)
    W0 = np.random.default_rng(seed + 1000).standard_normal((4, 4)) * scale
    tr = lp_attgd(W0, data["X"], data["z"], data["Y"], data["v"], p=p, eta=eta, steps=steps,
                  normalized=normalized)
    W = tr.iterates
    G = mj.gradient_W(W, data["X"], data["z"], data["Y"], data["v"])
    L = np.asarray(mj.objective(W, data["X"], data["z"], data["Y"], data["v"]))
    return {"W": W, "G": G, "L": L, "eta": eta, "p": p, **data}


def _l4_catalogue_factor(x: float, y: float, p: float) -> float:
    return max(x, y) ** (2 - p)


def lemma4_catalogue_outcome(*, seed: int = 13) -> Any:
    """The catalogue's first reconstruction (factor ``max(x, y)^(2-p)`` for every ``p``) on aligned
    steps at ``p = 6``: returns the failing :class:`~attention_theory.verify.Outcome` (not recorded)."""
    from attention_theory.verify import bound_outcome

    rng = np.random.default_rng(seed)
    lhs, rhs, p = [], [], 6.0
    for _ in range(200):
        W = rng.standard_normal((3, 3)) * 10 ** rng.uniform(-1, 1)
        Ga = -grad_psi(W, p)
        G = Ga / entrywise_lp(Ga, conjugate_exponent(p))
        eta = float(10 ** rng.uniform(-3, 0))
        x, y = entrywise_lp(md_step(W, G, eta, p), p), entrywise_lp(W, p)
        lhs.append(x - y)
        rhs.append(eta / (p - 1) * _l4_catalogue_factor(x, y, p))
    return bound_outcome(lhs, rhs, rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# Helpers of the checks of book/julistiono/mirror-descent.md (attention_theory.julistiono.checks.
# mirror_descent): formulas of the statements, samplers, and the objectives of the adversarial
# searches.  They take the variant a negative control turns as an argument.
# ---------------------------------------------------------------------------------------------


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + e^{-x})`` of a float or array, ``x`` clipped to ``[-700, 700]``."""
    return 1.0 / (1.0 + np.exp(-np.clip(x, -700.0, 700.0)))


def p_from_coordinate(s: float, lo: float = 1.05, hi: float = 6.0) -> float:
    """A search coordinate ``s`` (a float) mapped to an exponent ``p`` in ``[lo, hi]`` (default: the
    range of :data:`P_ALL`)."""
    return float(lo + (hi - lo) * sigmoid(s))


def lp_unchecked(W: np.ndarray, p: float) -> float:
    """:func:`~attention_theory.foundations.mirror.entrywise_lp` of one array of any shape without
    validation (the searches' inner loops); 0 for the zero array."""
    m = float(np.max(np.abs(W)))
    return m * float(np.sum(np.abs(W / m) ** p)) ** (1.0 / p) if m > 0 else 0.0


def relative_error(a: Any, b: Any, scale: np.ndarray | float | None = None) -> np.ndarray:
    """``|a - b| / max(|b|, scale)`` elementwise (``a``, ``b`` broadcastable arrays or floats;
    ``scale`` defaults to 1e-300)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    s = np.abs(b) if scale is None else np.maximum(np.abs(b), scale)
    return np.abs(a - b) / np.maximum(s, 1e-300)


def random_matrices(rng: np.random.Generator, shape: tuple[int, ...], kind: str) -> np.ndarray:
    """One test array of ``shape``: ``kind`` one of :data:`KINDS` (Gaussian, sparse Gaussian,
    Cauchy, one-hot at a random magnitude, constant magnitude with random signs)."""
    if kind == "gauss":
        return rng.standard_normal(shape)
    if kind == "sparse":
        return rng.standard_normal(shape) * (rng.random(shape) < 0.2)
    if kind == "heavy":
        return rng.standard_cauchy(shape)
    if kind == "onehot":
        W = np.zeros(shape)
        W.flat[rng.integers(W.size)] = rng.choice([-1.0, 1.0]) * 10 ** rng.uniform(-3, 3)
        return W
    if kind == "constant":
        return rng.choice([-1.0, 1.0], size=shape) * 10 ** rng.uniform(-3, 3)
    raise ValueError(kind)


def lemma12_exponent(p: float) -> float:
    """Lemma 12's exponent ``1/p - 1/2``: ``||w||_p / ||w||_2`` lies between 1 and ``D^(1/p - 1/2)``."""
    return 1.0 / p - 0.5


def lemma14_bounds(x: Any, y: Any, p: float) -> tuple[Any, Any]:
    """Lemma 14's two bounds on ``x^p - y^p`` (``x >= y >= 0``, floats or arrays):
    ``(p y^(p-1) (x - y), p x^(p-1) (x - y))``."""
    return p * y ** (p - 1) * (x - y), p * x ** (p - 1) * (x - y)


def lemma15_bounds(x: Any, y: Any, p: float) -> tuple[Any, Any]:
    """Lemma 15's two bounds on ``x^(p-1) - y^(p-1)`` (``x >= y > 0``): ``(p - 1) y^(p-2) (x - y)``
    below and ``(p - 1) x^(p-2) (x - y)`` above for ``p >= 2``, the two factors exchanged for ``p < 2``."""
    if p >= 2:
        return (p - 1) * y ** (p - 2) * (x - y), (p - 1) * x ** (p - 2) * (x - y)
    return (p - 1) * x ** (p - 2) * (x - y), (p - 1) * y ** (p - 2) * (x - y)


def lemma4_factor(x: float, y: float, p: float) -> float:
    """Lemma 4's factor: ``x^(2-p)`` for ``p < 2`` and ``y^(2-p)`` for ``p >= 2`` (``x = ||W(k+1)||``,
    ``y = ||W(k)||``, ``x > y``): the larger norm for ``p < 2``, the smaller one for ``p > 2``
    (Lemma 15's two cases)."""
    return (max(x, y) if p < 2 else min(x, y)) ** (2 - p)


def lemma24_coefficient(p: float) -> float:
    """The coefficient ``(p - 1)/p`` of the norm increment in the first identity behind (24)."""
    return (p - 1) / p


def power_pairs(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(y, r)`` with ``x = y (1 + r)``: ``m`` random magnitudes ``y`` in 1e-3 ... 1e3 and gaps ``r``
    in 1e-8 ... 10, plus every pair ``x > y`` of a 60-point log grid of 1e-3 ... 1e3 (1-d arrays)."""
    y = 10 ** rng.uniform(-3, 3, m)
    r = 10 ** rng.uniform(-8, 1, m)
    g = 10 ** np.linspace(-3, 3, 60)
    gx, gy = np.meshgrid(g, g)
    keep = gx > gy
    return np.concatenate([y, gy[keep]]), np.concatenate([r, gx[keep] / gy[keep] - 1])


def power_difference(y: Any, r: Any, e: float) -> Any:
    """``(y (1 + r))^e - y^e`` without cancellation, ``y^e expm1(e log1p(r))`` (numpy or torch)."""
    if isinstance(y, torch.Tensor):
        return y ** e * torch.expm1(e * torch.log1p(r))
    return y ** e * np.expm1(e * np.log1p(r))


def objective_bregman(W: np.ndarray, V: np.ndarray, LW: float, LV: float, GV: np.ndarray) -> float:
    """Bregman divergence of the objective, ``L(W) - L(V) - <grad L(V), W - V>``, from the values
    ``LW = L(W)``, ``LV = L(V)`` and the gradient ``GV`` at ``V`` (``W``, ``V``, ``GV`` of one shape)."""
    return LW - LV - float(np.sum(GV * (W - V)))


def three_point_errors(R: np.ndarray, Wk: np.ndarray, Wk1: np.ndarray, G: np.ndarray, eta: float,
                       p: float, sign: float) -> list[float]:
    """Relative errors of (23a) (with ``sign`` in front of ``D(W_k, W_{k+1})``) and (23b) at the
    reference matrix ``R`` for the step ``W_k -> W_{k+1}`` with gradient ``G`` (all of one shape)."""
    scale = psi(R, p) + psi(Wk, p) + psi(Wk1, p)
    a = bregman(R, Wk, p) - eta * float(np.sum(G * (Wk - R))) + sign * bregman(Wk, Wk1, p)
    b = bregman(R, Wk, p) - eta * float(np.sum(G * (Wk1 - R))) - bregman(Wk1, Wk, p)
    return [relative_error(bregman(R, Wk1, p), a, scale), relative_error(bregman(R, Wk1, p), b, scale)]


def smoothness_constant(data: dict) -> float:
    """A Euclidean smoothness constant of ``L`` (logistic loss) on the data set ``data`` (keys
    ``X (n, T, d)``, ``z (n, d)``, ``Y (n,)``, ``v (d,)``), valid for every ``W``:
    ``beta_F = (1/n) sum_i B_i^2 (Gamma_i^2/16 + Gamma_i)`` with ``B_i = max_t ||x_it||_2 ||z_i||_2`` and
    ``Gamma_i = max_t gamma_it - min_t gamma_it``.  Along ``W + s Delta`` the logits move by
    ``a_t = x_t^T Delta z`` (``|a_t| <= B_i ||Delta||_F``); the second derivative of
    ``l(<gamma, softmax(h)>)`` is ``l'' Cov_s(gamma, a)^2 + l' kappa_s(gamma, a, a)`` with
    ``|Cov| <= (Gamma/2)(B ||Delta||_F)`` (Popoviciu), ``|kappa| <= Gamma B^2 ||Delta||_F^2``,
    ``0 <= l'' <= 1/4`` and ``|l'| <= 1`` (Assumption A for the logistic loss)."""
    gamma = mj.scores(data["X"], data["Y"], data["v"])
    Gam = gamma.max(axis=1) - gamma.min(axis=1)
    B = np.linalg.norm(data["X"], axis=-1).max(axis=1) * np.linalg.norm(data["z"], axis=-1)
    return float(np.mean(B ** 2 * (Gam ** 2 / 16 + Gam)))


def md_step_minimisers(W: np.ndarray, G: np.ndarray, eta: float, p: float,
                       divergence: Callable[[np.ndarray, np.ndarray, float], float]) -> np.ndarray:
    """The minimiser of ``eta g x + divergence([[x]], [[w]], p)`` over ``x``, entry by entry of ``W``
    and ``G`` (one shape; the same shape returned), by scipy's bounded Brent search (``xatol``
    1e-12) on ``|x| <= (|w|^(p-1) + eta |g|)^(1/(p-1)) + 1``, a bound on the minimiser from its
    first-order condition: the numerical MD step of Definition 1."""
    import scipy.optimize as so

    out = []
    for w, g in zip(W.ravel(), G.ravel()):
        far = (abs(w) ** (p - 1) + eta * abs(g)) ** (1 / (p - 1)) + 1.0
        res = so.minimize_scalar(
            lambda x, w=w, g=g: eta * g * x + float(divergence(np.array([[x]]), np.array([[w]]), p)),
            bounds=(-far, far), method="bounded", options={"xatol": 1e-12, "maxiter": 2000})
        out.append(res.x)
    return np.reshape(np.asarray(out, dtype=float), W.shape)


# the objectives of the adversarial searches: f(size, z) for numpy_objective, or (size, x) with
# a torch branch for the gradient methods of maximize_over_sizes


def def1_negative_divergence(shape: tuple[int, int], z: np.ndarray, *,
                             closed_form: Callable[[np.ndarray, np.ndarray, float], float],
                             p_range: tuple[float, float]) -> float:
    """``-D(W, V) / (psi(W) + psi(V))`` at the search point ``z = (W, V, s)`` (``W``, ``V`` of
    ``shape``, ``p`` from ``s`` in ``p_range``) with the divergence ``closed_form``."""
    k = shape[0] * shape[1]
    W, V, p = z[:k].reshape(shape), z[k:2 * k].reshape(shape), p_from_coordinate(z[-1], *p_range)
    scale = psi(W, p) + psi(V, p)
    return -closed_form(W, V, p) / scale if scale > 0 else -np.inf


def eq11_sign_violation(size: tuple[str, str], z: np.ndarray, *,
                        phi: Callable[[np.ndarray, np.ndarray, float], np.ndarray],
                        increasing_for_p_at_least_2: bool) -> float:
    """The violation of a sign statement of (11) at the search point ``z`` (3 coordinates):
    ``size = (part, half)`` with ``part`` ``"phi"`` (``-phi_p(w, v)``, ``(w, v)`` in ``[-3, 3]^2``) or
    ``"derivative"`` (the wrong-signed ``d/dv phi_p(v + delta, v)`` over ``v``, relative, ``v`` in
    ``(0.01, 3)``, ``delta / v`` in ``(-0.99, 3)``), ``half`` ``"p<2"`` (``p`` in ``[1.05, 2)``) or
    ``"p>=2"`` (``[2, 6]``)."""
    part, half = size
    p = p_from_coordinate(z[2], 1.05, 2.0 - 1e-9) if half == "p<2" else p_from_coordinate(z[2], 2.0, 6.0)
    if part == "phi":
        return -float(np.asarray(phi(3 * np.tanh(z[:1]), 3 * np.tanh(z[1:2]), p)).sum())
    v = 0.01 + 2.99 * sigmoid(z[1])
    delta = (-0.99 + 3.99 * sigmoid(z[0])) * v
    dv = (v + delta) ** (p - 1) - v ** (p - 1) - (p - 1) * v ** (p - 2) * delta
    up = (p >= 2) == increasing_for_p_at_least_2
    return float(-dv / v ** (p - 1) if up else dv / v ** (p - 1))


def lemma12_ratio(size: tuple[int, str], z: np.ndarray, *, exponent: Callable[[float], float]) -> float:
    """Lemma 12's ratio to one end at the search point ``z = (w, s)``: ``size = (D, side)``, ``w``
    of ``D`` entries, ``p`` from ``s`` in ``[1.05, 6]``; ``r / max(1, c)`` (``side = "upper"``) or
    ``min(1, c) / r`` (``"lower"``) with ``r = ||w||_p / ||w||_2`` and ``c = D^exponent(p)``."""
    D, side = size
    w, p = z[:D], p_from_coordinate(z[D])
    if not np.any(w):
        return -np.inf
    c = float(D) ** exponent(p)
    r = lp_unchecked(w, p) / lp_unchecked(w, 2.0)
    return r / max(1.0, c) if side == "upper" else min(1.0, c) / r


def lemma13_ratio(size: tuple[float, int], x: Any, *, consts: dict[float, tuple[float, float]],
                  radius: float) -> Any:
    """``c ||W - V||^e / D_psi(W, V)`` at the search point ``x = (U, U')`` of ``2k`` entries mapped
    into the ball of ``radius`` (``W = radius U / max(1, ||U||_p)``): ``size = (p, k)``,
    ``(c, e) = consts[p]``.  Pairs closer than 1e-4 (largest entry) give 0: there ``D ~ 1e-8`` and
    the ratio of two round-off-sized numbers would measure cancellation, not the lemma.  A torch
    ``x`` gives a torch value (the gradient methods), a numpy one a float."""
    p, k = size
    c, e = consts[p]
    if isinstance(x, torch.Tensor):
        def ball(u: torch.Tensor) -> torch.Tensor:
            n = (u.abs() ** p).sum() ** (1 / p)
            return radius * u / torch.clamp(n, min=1.0)
        W, V = ball(x[:k]), ball(x[k:])
        D = ((W.abs() ** p).sum() / p - (V.abs() ** p).sum() / p
             - (torch.sign(V) * V.abs() ** (p - 1) * (W - V)).sum())
        val = c * ((W - V).abs() ** e).sum() / (D + 1e-300)
        return torch.where((W - V).abs().max() >= 1e-4, val, torch.zeros_like(val))
    x = np.asarray(x, dtype=float)
    W, V = (radius * u / max(float(np.sum(np.abs(u) ** p)) ** (1 / p), 1.0) for u in (x[:k], x[k:]))
    if np.abs(W - V).max() < 1e-4:
        return 0.0
    return c * float(np.sum(np.abs(W - V) ** e)) / (bregman(W, V, p) + 1e-300)


def power_bound_ratio(size: tuple[float, int], t: Any, *, bounds: Callable,
                      exponent: Callable[[float], float]) -> Any:
    """The ratio of a mean-value bound (Lemmas 14, 15) at the search point ``t = (log y, log r)``
    (clipped to ``y`` in ``[e^-7, e^7]``, ``r`` in ``[e^-18, 10]``), ``x = y (1 + r)``: ``size = (p,
    which)``, ``lower / (x^e - y^e)`` for ``which = 0`` and ``(x^e - y^e) / upper`` for ``1``, with
    ``(lower, upper) = bounds(x, y, p)`` and ``e = exponent(p)`` (torch in, torch out)."""
    p, which = size
    if isinstance(t, torch.Tensor):
        yv = torch.exp(torch.clamp(t[0], -7.0, 7.0))
        xv = yv * (1 + torch.exp(torch.clamp(t[1], -18.0, 2.3)))
    else:
        yv = float(np.exp(np.clip(t[0], -7.0, 7.0)))
        xv = yv * (1 + float(np.exp(np.clip(t[1], -18.0, 2.3))))
    dv = power_difference(yv, (xv - yv) / yv, exponent(p))
    lo_t, hi_t = bounds(xv, yv, p)
    return lo_t / dv if which == 0 else dv / hi_t


def lemma22_ratio(shape: tuple[int, int], z: np.ndarray, *, denominator_exponent: Callable[[float], float],
                  p_range: tuple[float, float]) -> float:
    """Lemma 22's lower bound divided by ``||W(k+1)||_p^(p-1)`` for one MD step at the search point
    ``z = (W, G, s_eta, s_p)`` (``W``, ``G`` of ``shape``, ``eta`` in ``[1e-3, 1]``, ``p`` in
    ``p_range``); the growth term divided by ``||W||_p^denominator_exponent(p)``."""
    k = shape[0] * shape[1]
    W, G = z[:k].reshape(shape), z[k:2 * k].reshape(shape)
    eta, p = float(10 ** (-3 + 3 * sigmoid(z[-2]))), p_from_coordinate(z[-1], *p_range)
    nW = lp_unchecked(W, p)
    if nW == 0:
        return -np.inf
    low = nW ** (p - 1) + eta * float(np.sum(-G * W)) / nW ** denominator_exponent(p)
    up = lp_unchecked(md_step(W, G, eta, p), p) ** (p - 1)
    return low / up if up > 0 else (np.inf if low > 0 else -np.inf)


def lemma4_ratio(shape: tuple[int, int], z: np.ndarray, *, factor: Callable[[float, float, float], float],
                 p_range: tuple[float, float], resolved: float) -> float:
    """Lemma 4's ratio ``(x - y) / (eta factor(x, y, p) / (p - 1))`` for one MD step at the search
    point ``z = (W, G, s_eta, s_p)`` (``G`` normalised to ``||G||_q = 1``, ``eta`` in ``[1e-3, 1]``,
    ``p`` in ``p_range``); 0 for a step whose growth is not resolvable (``x - y <= resolved max(x, y)``)."""
    k = shape[0] * shape[1]
    W, G = z[:k].reshape(shape), z[k:2 * k].reshape(shape)
    eta, p = float(10 ** (-3 + 3 * sigmoid(z[-2]))), p_from_coordinate(z[-1], *p_range)
    q = conjugate_exponent(p)
    nG = lp_unchecked(G, q)
    if nG == 0 or not np.any(W):
        return -np.inf
    G = G / nG
    x, y = lp_unchecked(md_step(W, G, eta, p), p), lp_unchecked(W, p)
    if x - y <= resolved * max(x, y):
        return 0.0
    return (x - y) / (eta / (p - 1) * factor(x, y, p))


def lemma24_run(tr: dict[str, Any], *, norm_coefficient: Callable[[float], float],
                smoothness_factor: float) -> dict[str, Any]:
    """Per-step quantities of Lemma 24 along one run ``tr`` of :func:`md_trajectory`: the relative
    errors ``errs`` of the two identities behind (24) (``eta >= 0.1`` only: below, the ``1/eta``
    amplifies the closed forms' round-off; ``norm_coefficient(p)`` in place of ``(p-1)/p``), the
    curvature pairs ``D_L <= smoothness_factor beta_F ||Delta||_F^2 / 2`` (``curv_l``, ``curv_r``), the
    small-step thresholds ``etabar``, the relative-smoothness ratios ``eta D_L / D_psi``, the two sides
    ``run_l``, ``run_r`` of (24) at every step, ``beta_F`` and ``lin``, ``D(W_0, W_1) / (eta <-grad L,
    W_0>)``."""
    p, eta = tr["p"], tr["eta"]
    beta = smoothness_constant(tr)
    Ws, Gs, L = tr["W"], tr["G"], tr["L"]
    out: dict[str, Any] = {k: [] for k in ("errs", "curv_l", "curv_r", "etabar", "smooth_ratio",
                                           "run_l", "run_r")}
    for k in range(len(Ws) - 1):
        Wk, Wk1, G = Ws[k], Ws[k + 1], Gs[k]
        nk, nk1 = entrywise_lp(Wk, p) ** p, entrywise_lp(Wk1, p) ** p
        Dfw, Dbw = bregman(Wk1, Wk, p), bregman(Wk, Wk1, p)
        corr = eta * float(np.sum(-G * Wk))
        DL = objective_bregman(Wk1, Wk, L[k + 1], L[k], G)
        if eta >= 0.1:
            out["errs"].append(relative_error(corr, norm_coefficient(p) * (nk1 - nk) - Dbw, nk + Dbw))
            out["errs"].append(relative_error(L[k + 1], L[k] - (Dfw + Dbw) / eta + DL, 1.0))
        sq = float(np.sum((Wk1 - Wk) ** 2))
        out["curv_l"].append(DL)
        out["curv_r"].append(smoothness_factor * beta * sq / 2 + 1e-15 * (1 + abs(L[k])))
        out["etabar"].append(2 * Dfw / (beta * sq) if sq > 0 else np.inf)
        out["smooth_ratio"].append(eta * DL / Dfw if Dfw > 0 else 0.0)
        out["run_l"].append(L[k + 1])
        out["run_r"].append(L[k] - Dbw / eta)
    out["beta_F"] = beta
    out["lin"] = bregman(Ws[0], Ws[1], p) / abs(eta * float(np.sum(-Gs[0] * Ws[0])))
    return out


def smoothness_pairs(seed: int, n_pairs: int, smoothness_factor: float) -> tuple[list[float], list[float]]:
    """Both sides of ``D_L(V, W) <= smoothness_factor beta_F ||V - W||_F^2 / 2`` (plus a 1e-15 round-off
    allowance) at ``n_pairs`` random pairs ``W``, ``V = W + N(0, 1) x 10^U(-3, 0.5)`` (``||W||`` scale
    ``10^U(-1, 1)``) on the data set ``synthetic_dataset(seed, 4, 5, 4)`` (Lemma 24's constant)."""
    rng = np.random.default_rng(seed)
    data = mj.synthetic_dataset(seed, n=4, T=5, d=4)
    beta = smoothness_constant(data)
    grad = mj.make_gradient(data["X"], data["z"], data["Y"], data["v"])
    lhs, rhs = [], []
    for _ in range(n_pairs):
        W = rng.standard_normal((4, 4)) * 10 ** rng.uniform(-1, 1)
        V = W + rng.standard_normal((4, 4)) * 10 ** rng.uniform(-3, 0.5)
        G, u = grad(W)
        LW, LV = float(np.mean(mj.loss_value(u))), float(np.mean(mj.loss_value(grad(V)[1])))
        lhs.append(LV - LW - float(np.sum(G * (V - W))))
        rhs.append(smoothness_factor * beta * float(np.sum((V - W) ** 2)) / 2 + 1e-15 * (1 + LW))
    return lhs, rhs


def lemma24_step_ratio(size: tuple[int, int, int], z: np.ndarray, *, gradients: dict,
                       eta0: float, require_relative_smoothness: bool) -> float:
    """``L_{k+1} / (L_k - D(W_k, W_{k+1})/eta)`` for one MD step from ``W_k = 3 z[:d^2]`` on the data
    set of ``size = (n, T, d)`` whose gradient closure (of
    :func:`~attention_theory.julistiono.model.make_gradient`) is ``gradients[size]``,
    ``eta = eta0 10^(-2 .. 0)`` and ``p`` in ``[1.25, 3]`` from the last two
    coordinates.  Where ``require_relative_smoothness`` and ``eta D_L > (1 - 1e-6) D_psi`` (outside the
    lemma) the value is ``1 - `` the relative excess, below 1; a step below the resolution of the
    divergences (either under ``1e-8 (psi(W_k) + psi(W_{k+1}))``) gives 0."""
    grad = gradients[size]
    d = size[2]
    Wk = 3.0 * z[:d * d].reshape(d, d)
    eta, p = float(eta0 * 10 ** (-2 + 2 * sigmoid(z[-2]))), p_from_coordinate(z[-1], 1.25, 3.0)
    G, u = grad(Wk)
    Lk = float(np.mean(mj.loss_value(u)))
    Wk1 = md_step(Wk, G, eta, p)
    Lk1 = float(np.mean(mj.loss_value(grad(Wk1)[1])))
    Dfw, Dbw = bregman(Wk1, Wk, p), bregman(Wk, Wk1, p)
    DL = objective_bregman(Wk1, Wk, Lk1, Lk, G)
    if min(Dfw, Dbw) < 1e-8 * (psi(Wk, p) + psi(Wk1, p)):
        return 0.0
    if require_relative_smoothness and eta * DL > (1 - 1e-6) * Dfw:
        return 1.0 - (eta * DL - (1 - 1e-6) * Dfw) / (abs(eta * DL) + abs(Dfw))
    den = Lk - Dbw / eta
    return Lk1 / den if den > 0 else (np.inf if Lk1 > 0 else -np.inf)


# per-sample terms of the checks' random families


def def1_samples(rng: np.random.Generator, p: float, count: int,
                 closed_form: Callable[[np.ndarray, np.ndarray, float], float]) -> tuple[list, list]:
    """Definition 1 on ``count`` random pairs ``W``, ``V`` (shapes up to 5 x 5, ``N(0, 1) x
    10^U(-2, 2)`` each): the relative errors of ``closed_form`` against the generic definition with
    autograd's ``grad psi``, of ``D(V, V) = 0`` and of the unit-norm form ``1 - <grad psi(V), U>``
    (first list), and ``-D / (psi(W) + psi(V))`` at ``(W, V)`` and ``(V, V)`` (second list)."""
    errs, neg = [], []
    for _ in range(count):
        shape = tuple(int(k) for k in rng.integers(1, 6, size=2))
        W = rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2)
        V = rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2)
        Vt = torch.tensor(V, requires_grad=True)
        pv = (Vt.abs() ** p).sum() / p
        (g,) = torch.autograd.grad(pv, Vt)
        generic = psi(W, p) - psi(V, p) - float(np.sum(g.numpy() * (W - V)))
        val = closed_form(W, V, p)
        scale = psi(W, p) + psi(V, p)
        errs.append(abs(val - generic) / scale)
        neg.append(-val / scale)
        errs.append(abs(closed_form(V, V, p)) / psi(V, p))
        neg.append(-closed_form(V, V, p) / (2 * psi(V, p)))  # W = V: D = 0, equality
        U, Vn = W / entrywise_lp(W, p), V / entrywise_lp(V, p)
        errs.append(abs(closed_form(U, Vn, p) - (1 - np.sum(grad_psi(Vn, p) * U))))
    return errs, neg


def eq11_samples(rng: np.random.Generator, p: float,
                 phi: Callable[[np.ndarray, np.ndarray, float], np.ndarray],
                 increasing_for_p_at_least_2: bool) -> list[float]:
    """The sign violations of (11) at one ``p``: ``-phi_p(w, v)`` on 2000 random ``(w, v)`` in
    ``[-3, 3]^2``; the wrong-signed ``d/dv phi_p(v + delta, v)`` (relative to ``v^(p-1)``) on 2000 random
    ``v`` in ``(0.01, 3)``, ``delta / v`` in ``(-0.99, 3)``; and both at the equality cases ``w = v``,
    ``delta = 0`` of the same ``v``."""
    out: list[float] = []
    w, v = rng.uniform(-3, 3, 2000), rng.uniform(-3, 3, 2000)
    out.extend(-np.asarray(phi(w, v, p)))
    v = rng.uniform(0.01, 3, 2000)
    delta = rng.uniform(-0.99, 3, 2000) * v
    dv = (v + delta) ** (p - 1) - v ** (p - 1) - (p - 1) * v ** (p - 2) * delta
    up = (p >= 2) == increasing_for_p_at_least_2
    out.extend(-dv / v ** (p - 1) if up else dv / v ** (p - 1))
    # the equality cases: phi_p(v, v) = 0, and the derivative vanishes at delta = 0
    out.extend(-np.asarray(phi(v, v, p)))
    z0 = np.zeros_like(v)
    d0 = (v + z0) ** (p - 1) - v ** (p - 1) - (p - 1) * v ** (p - 2) * z0
    out.extend(-d0 / v ** (p - 1) if up else d0 / v ** (p - 1))
    return out


def lemma13_samples(rng: np.random.Generator, p: float, c: float, e: float, w: np.ndarray, v: np.ndarray,
                    radius: float, count: int) -> tuple[list, list]:
    """Both sides of Lemma 13, ``c |W - V|^e <= D_psi(W, V)``, on the scalar grid ``(w, v)`` (1-d
    arrays) and on ``count`` random 3 x 3 pairs in the ball (``radius x U(0, 1) / ||.||_p``)."""
    lhs, rhs = list(c * np.abs(w - v) ** e), list(bregman_entrywise(w, v, p))
    for _ in range(count):
        W, V = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
        W *= radius * rng.uniform(0, 1) / entrywise_lp(W, p)
        V *= radius * rng.uniform(0, 1) / entrywise_lp(V, p)
        lhs.append(c * float(np.sum(np.abs(W - V) ** e)))
        rhs.append(bregman(W, V, p))
    return lhs, rhs


def lemma4_step(W: np.ndarray, G: np.ndarray, eta: float, p: float,
                factor: Callable[[float, float, float], float],
                resolved: float) -> tuple[float, float] | None:
    """Both sides of Lemma 4 for one MD step from ``W`` with gradient ``G``, divided by ``max(x, y)``
    (``x - y`` carries round-off ~1e-15 ``max(x, y)``): ``(x - y, eta ||G||_q factor(x, y, p) / (p - 1))``
    over ``max(x, y)``, or ``None`` when the growth is not resolvable (``x - y <= resolved max(x, y)``:
    the bound holds trivially)."""
    q = conjugate_exponent(p)
    x, y = entrywise_lp(md_step(W, G, eta, p), p), entrywise_lp(W, p)
    m = max(x, y)
    if x - y <= resolved * m:
        return None
    return (x - y) / m, eta * entrywise_lp(G, q) / (p - 1) * factor(x, y, p) / m


def cosine_law_errors(rng: np.random.Generator, p: float, count: int, sign: float) -> list:
    """Relative errors of the Bregman cosine law ``D(W, U) = D(W, V) + D(V, U) + sign <grad psi(U) -
    grad psi(V), W - V>`` (Lemma 26: ``sign = -1``) on ``count`` random triples (shapes up to 10 x 10,
    ``N(0, 1) x 10^U(-1, 1)``), relative to ``psi(W) + psi(U) + psi(V)``."""
    errs = []
    for _ in range(count):
        shape = tuple(int(k) for k in rng.integers(1, 11, size=2))
        W, U, V = (rng.standard_normal(shape) * 10 ** rng.uniform(-1, 1) for _ in range(3))
        rhs = (bregman(W, V, p) + bregman(V, U, p)
               + sign * float(np.sum((grad_psi(U, p) - grad_psi(V, p)) * (W - V))))
        errs.append(relative_error(bregman(W, U, p), rhs, psi(W, p) + psi(U, p) + psi(V, p)))
    return errs


def three_point_random_errors(rng: np.random.Generator, p: float, count: int, sign: float) -> list:
    """:func:`three_point_errors` on ``count`` single MD steps with random ``W_k``, ``G`` (shapes up to
    5 x 5, ``N(0, 1) x 10^U(-1, 1)``), ``eta = 10^U(-2, 0)`` and reference ``R = N(0, 1) ||W_k||_p``."""
    errs = []
    for _ in range(count):
        shape = tuple(int(k) for k in rng.integers(1, 6, size=2))
        Wk = rng.standard_normal(shape) * 10 ** rng.uniform(-1, 1)
        G = rng.standard_normal(shape) * 10 ** rng.uniform(-1, 1)
        eta = float(10 ** rng.uniform(-2, 0))
        R = rng.standard_normal(shape) * entrywise_lp(Wk, p)
        errs.extend(three_point_errors(R, Wk, md_step(Wk, G, eta, p), G, eta, p, sign))
    return errs


def azizan_hassibi_errors(tr: dict[str, Any], rng: np.random.Generator, sign: float) -> list:
    """Relative errors of the Azizan-Hassibi identity (Lemma 25 candidate) along the run ``tr`` of
    :func:`md_trajectory`, every fifth step, at a random reference ``R = N(0, 1) ||W_k||_p``:
    ``D(R, W_k) + eta L(R) = D(R, W_{k+1}) + E_k + sign eta D_L(R, W_k)``, ``E_k = D(W_{k+1}, W_k) -
    eta D_L(W_{k+1}, W_k) + eta L(W_{k+1})``, relative to ``psi(R) + psi(W_k) + 1``."""
    p, Ws, Gs, L, eta = tr["p"], tr["W"], tr["G"], tr["L"], tr["eta"]
    errs = []
    for k in range(0, len(Ws) - 1, 5):
        Wk, Wk1, G = Ws[k], Ws[k + 1], Gs[k]
        R = rng.standard_normal(Wk.shape) * entrywise_lp(Wk, p)
        LR = mj.objective(R, tr["X"], tr["z"], tr["Y"], tr["v"])
        Ek = bregman(Wk1, Wk, p) - eta * objective_bregman(Wk1, Wk, L[k + 1], L[k], G) + eta * L[k + 1]
        lhs = bregman(R, Wk, p) + eta * LR
        rhs = bregman(R, Wk1, p) + Ek + sign * eta * objective_bregman(R, Wk, LR, L[k], G)
        errs.append(relative_error(lhs, rhs, psi(R, p) + psi(Wk, p) + 1.0))
    return errs


def lemma22_step(W: np.ndarray, G: np.ndarray, eta: float, p: float, sign: float,
                 denominator_exponent: Callable[[float], float]) -> tuple[Any, float, float]:
    """One MD step from ``W`` with gradient ``G`` (one shape): the relative error of (22),
    ``<grad psi(W+), W> = ||W||_p^p + sign eta <G, W>`` (``sign = -1``), and both sides of Lemma 22,
    ``||W||_p^(p-1) + eta <-G, W> / ||W||_p^denominator_exponent(p)`` and ``||W+||_p^(p-1)``."""
    Wp = md_step(W, G, eta, p)
    nW = entrywise_lp(W, p)
    err = relative_error(float(np.sum(grad_psi(Wp, p) * W)), nW ** p + sign * eta * float(np.sum(G * W)),
                         nW ** p + eta * abs(float(np.sum(G * W))))
    low = nW ** (p - 1) + eta * float(np.sum(-G * W)) / nW ** denominator_exponent(p)
    return err, low, entrywise_lp(Wp, p) ** (p - 1)
