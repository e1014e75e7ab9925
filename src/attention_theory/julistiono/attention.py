"""Instances and runs for the convergence lemmas of Julistiono, Tarzanagh & Azizan (reconstructed).

Token selections (the globally and worst optimal ``alpha``), cone instances around the l_p
max-margin direction and points inside the cone, the constants of Lemmas 17-21 (and Lemma 18's
search objectives and tight family), gradients at saturated softmax, l_p-AttGD trajectories, and
the runs of experiment E1. Used by the chapters ``book/julistiono/attention-svm.md``,
``convergence.md`` and ``experiments.md``, the checks of
:mod:`attention_theory.julistiono.checks.attention_svm` and
:mod:`attention_theory.julistiono.checks.convergence`, and
:mod:`attention_theory.julistiono.mirror_descent_training`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.foundations.mirror import (
    conjugate_exponent,
    directional_bregman,
    entrywise_lp,
    grad_psi,
)
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.mirror_descent import lp_attgd
from attention_theory.julistiono.svm import (
    AttSVMSolution,
    is_locally_optimal,
    lp_att_svm,
    select_alpha,
    support_tokens,
)
from attention_theory.search import NO_INSTANCE


def global_alpha(gamma: np.ndarray) -> np.ndarray:
    """Globally optimal tokens ``argmax_t gamma_it``."""
    return np.argmax(gamma, axis=-1).astype(int)


def worst_alpha(gamma: np.ndarray) -> np.ndarray:
    """``argmin_t gamma_it``: every support token then scores higher, so ``alpha`` is not locally optimal."""
    return np.argmin(gamma, axis=-1).astype(int)


@dataclasses.dataclass
class ConeInstance:
    """One data set with its l_p-AttSVM solution and the constants of the cone lemmas.

    ``support``/``nonsupport`` are ``(n, T)`` masks; ``delta`` the margin gap, ``A`` the
    Hoelder constant, ``mu0`` the cone radius, ``gamma`` the scores ``(n, T)``.
    """

    X: np.ndarray
    z: np.ndarray
    Y: np.ndarray
    v: np.ndarray
    gamma: np.ndarray
    p: float
    alpha: np.ndarray
    sol: AttSVMSolution
    support: np.ndarray
    nonsupport: np.ndarray
    delta: float
    A: float
    mu0: float

    @property
    def Wmm(self) -> np.ndarray:
        return self.sol.W

    @property
    def norm_mm(self) -> float:
        return self.sol.norm

    @property
    def locally_optimal(self) -> bool:
        return is_locally_optimal(self.gamma, self.alpha, self.support)


def cone_constants(X: np.ndarray, z: np.ndarray, sol: AttSVMSolution, support: np.ndarray,
                   p: float) -> tuple[float, float, float]:
    """``(delta, A, mu0)`` of Section 1.7 (reconstructed): margin gap, Hoelder constant, cone radius."""
    q = conjugate_exponent(p)
    n, T, d = X.shape
    nonsup = ~support.copy()
    nonsup[np.arange(n), sol.alpha] = False
    slack = sol.margins[nonsup] - 1.0
    delta = 0.5 * min(1.0, float(np.min(slack)) if slack.size else 1.0)
    diffs = X[:, :, None, :] - X[:, None, :, :]
    A = float(np.max(np.sum(np.abs(diffs) ** q, axis=-1) ** (1 / q)
                     * (np.sum(np.abs(z) ** q, axis=-1) ** (1 / q))[:, None, None]))
    eps = delta / (2 * A * sol.norm)
    D = d * d
    mu0 = eps ** p / (p * 2 ** p) if p >= 2 else (p - 1) / 2 * (eps * D ** (0.5 - 1 / p)) ** 2
    return delta, A, mu0


@cached_per_scale(maxsize=64)
def cone_instance(seed: int, p: float, alpha_rule: str = "global", n: int = 6, T: int = 8,
                  d: int = 10) -> ConeInstance:
    """E1 data set ``seed``, ``alpha`` by ``alpha_rule`` (``"global"`` or ``"worst"``), SVM and constants."""
    data = mj.synthetic_dataset(seed, n, T, d)
    gamma = mj.scores(data["X"], data["Y"], data["v"])
    alpha = {"global": global_alpha, "worst": worst_alpha}[alpha_rule](gamma)
    sol = lp_att_svm(data["X"], data["z"], alpha, p)
    sup = support_tokens(sol, data["X"], data["z"])
    delta, A, mu0 = cone_constants(data["X"], data["z"], sol, sup, p)
    nonsup = ~sup
    nonsup[np.arange(n), alpha] = False
    return ConeInstance(X=data["X"], z=data["z"], Y=data["Y"], v=data["v"], gamma=gamma, p=float(p),
                        alpha=alpha, sol=sol, support=sup, nonsupport=nonsup, delta=delta, A=A, mu0=mu0)


def unit(W: np.ndarray, p: float) -> np.ndarray:
    return W / entrywise_lp(W, p)


def cone_point(inst: ConeInstance, direction: np.ndarray, mu: float, *, iters: int = 60) -> np.ndarray:
    """The unit-``l_p``-norm matrix ``What`` on the ray ``What^mm + t * direction`` with
    ``D_psi(What^mm, What) = mu`` (bisection in ``t``); returns ``What`` (shape ``(d, d)``)."""
    p = inst.p
    Wh = unit(inst.Wmm, p)
    Dir = direction / entrywise_lp(direction, p)

    def D(t: float) -> float:
        return directional_bregman(Wh, Wh + t * Dir, p)

    hi = 1e-8
    while D(hi) < mu and hi < 1e3:
        hi *= 2
    lo = 0.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if D(mid) < mu else (lo, mid)
    return unit(Wh + lo * Dir, p)


def adversarial_directions(inst: ConeInstance) -> list[np.ndarray]:
    """For every constraint pair ``(i, t, tau)`` and both signs, the l_p direction that moves
    ``(x_it - x_itau)^T W z_i`` fastest: ``sign(B)|B|^(q-1)`` with ``B = (x_it - x_itau) z_i^T``."""
    q = conjugate_exponent(inst.p)
    out = []
    n, T, _ = inst.X.shape
    for i in range(n):
        for t in range(T):
            for tau in range(t + 1, T):
                B = np.outer(inst.X[i, t] - inst.X[i, tau], inst.z[i])
                Dd = np.sign(B) * np.abs(B) ** (q - 1)
                out.extend([Dd, -Dd])
    return out


def cone_points(inst: ConeInstance, directions: np.ndarray, mus: np.ndarray, *,
                iters: int = 60) -> np.ndarray:
    """Batched :func:`cone_point`: ``directions (m, d, d)``, targets ``mus (m,)`` -> ``(m, d, d)``."""
    p = inst.p
    Wh = unit(inst.Wmm, p)
    Dir = directions / entrywise_lp(directions, p, batch_dims=1)[:, None, None]

    def D(t: np.ndarray) -> np.ndarray:
        return directional_bregman(Wh, Wh + t[:, None, None] * Dir, p, batch_dims=1)

    hi = np.full(len(Dir), 1e-8)
    for _ in range(60):
        small = D(hi) < mus
        if not small.any():
            break
        hi = np.where(small, 2 * hi, hi)
    lo = np.zeros_like(hi)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = D(mid) < mus
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    pts = Wh + lo[:, None, None] * Dir
    return pts / entrywise_lp(pts, p, batch_dims=1)[:, None, None]


def cone_samples(inst: ConeInstance, mu: float, rng: np.random.Generator, n_random: int,
                 n_adversarial: int | None = None) -> list[np.ndarray]:
    """Unit-norm matrices in ``S_{p,mu}``: random directions (interior and boundary) and the
    adversarial directions of :func:`adversarial_directions` (on the boundary; all of them, or a
    random subset of ``n_adversarial``)."""
    d = inst.X.shape[-1]
    R = rng.standard_normal((n_random, d, d))
    mus_r = mu * rng.uniform(0.05, 1.0, n_random)
    adv = np.stack(adversarial_directions(inst))
    if n_adversarial is not None and n_adversarial < len(adv):
        adv = adv[rng.choice(len(adv), n_adversarial, replace=False)]
    dirs = np.concatenate([R, adv])
    mus = np.concatenate([mus_r, np.full(len(adv), mu)])
    return list(cone_points(inst, dirs, mus))


def scaled_correlation(inst: ConeInstance, W: np.ndarray, V: np.ndarray, shift: float | None = None,
                       loss: str = "logistic", product_term: float = 1.0) -> tuple[float, float]:
    """``(<-grad L(W), V> * e^shift, shift)`` computed without underflow.

    Uses the covariance form ``gamma^T S'(h) a = sum_t s_t gt_t at_t - (sum s_t gt_t)(sum s_t at_t)``
    with ``gt_t = gamma_alpha - gamma_t``, ``at_t = a_alpha - a_t``, ``a = X V z``, and softmax
    ratios ``s_t / s_alpha = exp(h_t - h_alpha)``.  ``alpha`` must be the top token of every sample
    (true in the cone).  ``shift`` defaults to the smallest logit gap, so every exponent is ``<= 0``.
    ``product_term`` multiplies the product of the two means (``1``; ``0`` drops it, a wrong variant
    used by negative controls).
    """
    n = inst.X.shape[0]
    ar = np.arange(n)
    h = mj.logits(inst.X, inst.z, W)
    a = mj.logits(inst.X, inst.z, V)
    gaps = h[ar, inst.alpha][:, None] - h            # >= 0 in the cone
    gt = inst.gamma[ar, inst.alpha][:, None] - inst.gamma
    at = a[ar, inst.alpha][:, None] - a
    mask = np.ones_like(h, dtype=bool)
    mask[ar, inst.alpha] = False
    if shift is None:
        shift = float(np.min(gaps[mask]))
    e = np.where(mask, np.exp(-gaps), 0.0)
    s_alpha = 1.0 / (1.0 + e.sum(axis=1))
    w = s_alpha[:, None] * e                          # s_t, t != alpha
    with np.errstate(over="ignore"):  # a shift far above a gap overflows to inf, which the callers reject
        ws = s_alpha[:, None] * np.where(mask, np.exp(-gaps + shift), 0.0)   # s_t e^shift
    cov_scaled = (np.sum(ws * gt * at, axis=1)
                  - product_term * np.sum(w * gt, axis=1) * np.sum(ws * at, axis=1))
    u = inst.gamma[ar, inst.alpha] - np.sum(w * gt, axis=1)
    lp = -mj.loss_derivative(u, loss)
    return float(np.mean(lp * cov_scaled)), shift


def lemma20_constants(inst: ConeInstance, loss: str = "logistic") -> dict[str, float]:
    """The book's constants for (17)-(18) and ``R_delta`` (in units of ``rho = ||W||/||W^mm||``).

    ``c_+ = m_l (1 - delta/2)/T * sum_{i: T_i nonempty} min_{t in T_i} (gamma_{i alpha_i} - gamma_it)``,
    ``c_- = n M_1 Gamma Abar (T-1)``, ``c_2 = n M_1 Gamma Abar (T-1)^2`` with ``m_l = min(-l')``,
    ``M_1 = max(-l')`` on the score range, ``Gamma = max |gamma_it - gamma_itau|``,
    ``Abar = A ||W^mm||_p``.
    """
    n, T, _ = inst.X.shape
    ar = np.arange(n)
    gt = inst.gamma[ar, inst.alpha][:, None] - inst.gamma
    lo, hi = float(inst.gamma.min()), float(inst.gamma.max())
    grid = np.linspace(lo, hi, 1001)
    dl = -mj.loss_derivative(grid, loss)
    m_l, M1 = float(dl.min()), float(dl.max())
    Gamma = float(np.max(inst.gamma.max(axis=1) - inst.gamma.min(axis=1)))
    Abar = inst.A * inst.norm_mm
    gmin = [gt[i][inst.support[i]].min() for i in range(n) if inst.support[i].any()]
    d = inst.delta
    c_plus = m_l * (1 - d / 2) / T * float(np.sum(gmin)) if gmin else 0.0
    c_minus = n * M1 * Gamma * Abar * (T - 1)
    c_2 = n * M1 * Gamma * Abar * (T - 1) ** 2
    if c_plus > 0:
        R = max(math.log(3 * c_minus / c_plus) / d, math.log(3 * c_2 / c_plus) / (1 - 1.5 * d), 0.0)
    else:
        R = math.inf
    return {"c_plus": c_plus, "c_minus": c_minus, "c_2": c_2, "m_l": m_l, "M1": M1, "Gamma": Gamma,
            "Abar": Abar, "gamma_min": float(min(gmin)) if gmin else float("nan"), "R_delta_rho": R}


def lemma21_R_eps(inst: ConeInstance, eps: float, loss: str = "logistic") -> float:
    """The book's ``R_eps`` (units of ``rho``) for Lemma 21: the largest of
    ``(1-eps)/eps log(4 T n (T-1) M_1 Gamma delta/2 / (m_l eps gmin))``,
    ``2/(3 delta) log(4 T n (T-1) M_1 Gamma B / (m_l eps gmin))`` and
    ``1/(1-delta) log(4 T n (T-1)^2 M_1 Gamma B / (m_l eps gmin))`` with ``B = 2 Abar``, and ``R_delta``."""
    c = lemma20_constants(inst, loss)
    n, T, _ = inst.X.shape
    d = inst.delta
    base = c["m_l"] * eps * c["gamma_min"]
    if not base > 0:
        return math.inf
    B = 2 * c["Abar"]
    r1 = (1 - eps) / eps * math.log(max(4 * T * n * (T - 1) * c["M1"] * c["Gamma"] * d / 2 / base, 1.0))
    r2 = 2 / (3 * d) * math.log(max(4 * T * n * (T - 1) * c["M1"] * c["Gamma"] * B / base, 1.0))
    r3 = 1 / (1 - d) * math.log(max(4 * T * n * (T - 1) ** 2 * c["M1"] * c["Gamma"] * B / base, 1.0))
    return max(r1, r2, r3, c["R_delta_rho"])


def lemma21_lower_bound(inst: ConeInstance, eps: float, rho: float, loss: str = "logistic") -> float:
    """The book's lower bound on ``e^rho <-grad L(W), W^mm - (1-eps) Wbar>`` (``W = rho Wbar`` in the cone):
    ``[m_l eps gmin / T - M_1 n (T-1) Gamma (delta/2) e^{-rho eps/(1-eps)}
    - M_1 n (T-1) Gamma B e^{-3 delta rho/2} - M_1 n (T-1)^2 Gamma B e^{-(1-delta) rho}] / n`` with
    ``B = 2 A ||W^mm||``."""
    c = lemma20_constants(inst, loss)
    n, T, _ = inst.X.shape
    d = inst.delta
    B = 2 * c["Abar"]
    k = c["M1"] * n * c["Gamma"]
    return (c["m_l"] * eps * c["gamma_min"] / T - k * (T - 1) * d / 2 * math.exp(-rho * eps / (1 - eps))
            - k * (T - 1) * B * math.exp(-1.5 * d * rho)
            - k * (T - 1) ** 2 * B * math.exp(-(1 - d) * rho)) / n


def grad_autograd(W, X, z, Y, v, loss):
    Wt = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    val = mj.objective_torch(Wt, *(torch.as_tensor(a, dtype=torch.float64) for a in (X, z, Y, v)), loss=loss)
    (g,) = torch.autograd.grad(val, Wt)
    return g.numpy()


def saturation_errors(radii: tuple[float, ...] = (1, 5, 10, 20, 40, 80, 160, 320), *, seed: int = 1,
                      p: float = 1.75) -> dict[str, np.ndarray]:
    """Relative error of the naive (autograd-style) and the stable gradient along ``W = r W^mm / ||W^mm||``
    against a 60-digit reference (mpmath).  Returns ``radii``, ``naive``, ``stable``, ``torch``."""
    import mpmath as mp

    inst = cone_instance(seed, p)
    X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
    Wh = unit(inst.Wmm, p)
    mp.mp.dps = 60
    out = {"radii": np.asarray(radii, float), "naive": [], "stable": [], "torch": []}
    n, T, d = X.shape
    for r in radii:
        W = r * Wh
        h = mj.logits(X, z, W)
        gamma = inst.gamma
        ref = np.zeros((d, d))
        for i in range(n):
            hm = max(h[i])
            e = [mp.e ** (mp.mpf(float(h[i, t])) - mp.mpf(float(hm))) for t in range(T)]
            S = sum(e)
            s = [x / S for x in e]
            u = sum(s[t] * mp.mpf(float(gamma[i, t])) for t in range(T))
            c = [s[t] * (mp.mpf(float(gamma[i, t])) - u) for t in range(T)]
            lpr = -1 / (1 + mp.e ** u)
            vec = np.array([float(lpr * sum(c[t] * mp.mpf(float(X[i, t, k])) for t in range(T)))
                            for k in range(d)])
            ref += np.outer(vec, z[i]) / n
        sc = np.abs(ref).max()
        out["naive"].append(np.abs(mj.gradient_W(W, X, z, Y, v, stable=False) - ref).max() / sc)
        out["stable"].append(np.abs(mj.gradient_W(W, X, z, Y, v) - ref).max() / sc)
        out["torch"].append(np.abs(grad_autograd(W, X, z, Y, v, "logistic") - ref).max() / sc)
    return {k: np.asarray(val) for k, val in out.items()}


LEMMA19_PS = (1.25, 1.75, 2.0, 3.0, 4.0)


def lemma17_bound(inst: ConeInstance, rho: float, consts: dict[str, float]) -> float:
    """(17) divided by ``e^{-(1+delta/2) rho}``: ``[c_+ - c_- e^{-delta rho} - c_2 e^{-(1-3delta/2) rho}]
    / n``."""
    d = inst.delta
    n = inst.X.shape[0]
    return (consts["c_plus"] - consts["c_minus"] * math.exp(-d * rho)
            - consts["c_2"] * math.exp(-(1 - 1.5 * d) * rho)) / n


def lemma18_constant(data: dict[str, np.ndarray], scale: float = 1.0) -> float:
    """Lemma 18's gradient bound ``G = M_1/(2n) sum_i ||X_i||_2 ||gamma_i||_2 ||z_i||_2`` of the data set
    ``data`` (``X (n, T, d)``, ``Y (n,)``, ``z (n, d)``, ``v (d,)``) for the logistic loss (``M_1 = 1``),
    times ``scale`` (the negative controls' knob)."""
    M1 = 1.0  # logistic: |l'| <= 1
    g_ = mj.scores(data["X"], data["Y"], data["v"])
    return scale * M1 / (2 * data["X"].shape[0]) * sum(
        np.linalg.norm(data["X"][i], 2) * np.linalg.norm(g_[i]) * np.linalg.norm(data["z"][i])
        for i in range(data["X"].shape[0]))


def lemma18_data_dim(shape: tuple[int, int, int]) -> int:
    """Length of a search point ``(X, z, v, W)`` of the data-moving Lemma 18 search at ``shape = (n, T,
    d)``."""
    n, T, d = shape
    return n * T * d + n * d + d + d * d


def lemma18_data_ratio(Y: np.ndarray, scale: float, shape: tuple[int, int, int], kind: str, x: Any) -> Any:
    """``||grad L(W)||_F / G`` (kind ``"F"``) or ``||grad L(W)||_{3/2} / (D^(1/6) G)`` (``"q=1.5"``) at
    the data set of ``shape`` and ``W`` read from the search point ``x = (X, z, v, W)``, labels ``Y``;
    ``G`` is Lemma 18's constant of that data set times ``scale``.  A torch ``x`` gives a torch value
    (the gradient by autograd, differentiated again), a numpy one the closed form of Lemma 17."""
    n, T, d = shape
    qq, fac = (2.0, 1.0) if kind == "F" else (1.5, float(d * d) ** (1 / 1.5 - 0.5))
    k1, k2, k3 = n * T * d, n * T * d + n * d, n * T * d + n * d + d
    if not isinstance(x, torch.Tensor):
        x = np.asarray(x, dtype=np.float64)
        if not np.all(np.isfinite(x)):
            return NO_INSTANCE
        Xn, zn, vn = x[:k1].reshape(n, T, d), x[k1:k2].reshape(n, d), x[k2:k3]
        with np.errstate(all="ignore"):
            g = mj.make_gradient(Xn, zn, Y, vn)(x[k3:].reshape(d, d))[0]
            gam = Y[:, None] * (Xn @ vn)
            G = scale / (2 * n) * sum(np.linalg.norm(Xn[i], 2) * np.linalg.norm(gam[i])
                                      * np.linalg.norm(zn[i]) for i in range(n))
            val = float(np.sum(np.abs(g) ** qq) ** (1 / qq)) / (fac * G) if G > 0 else NO_INSTANCE
        return val if math.isfinite(val) else NO_INSTANCE
    with torch.enable_grad():
        t = x if x.requires_grad else x.detach().requires_grad_(True)
        Xt, zt, vt, Wt = t[:k1].reshape(n, T, d), t[k1:k2].reshape(n, d), t[k2:k3], t[k3:].reshape(d, d)
        Yt = torch.as_tensor(Y)
        (gr,) = torch.autograd.grad(mj.objective_torch(Wt, Xt, zt, Yt, vt), Wt, create_graph=True)
        gam = Yt[:, None] * (Xt @ vt)
        G = scale / (2 * n) * (torch.linalg.matrix_norm(Xt, 2) * torch.linalg.vector_norm(gam, dim=1)
                               * torch.linalg.vector_norm(zt, dim=1)).sum()
        return (gr.abs() ** qq).sum() ** (1 / qq) / (fac * G)


def lemma18_tight_instance(a: float) -> dict[str, np.ndarray]:
    """The data set and ``W`` of Lemma 18's tight family at token size ``a``: ``n = 1``, ``T = 2``,
    ``d = 1``, ``x = (a, -a)``, ``v = z = Y = 1``, ``W = -a^(-3/2)``."""
    return {"X": np.array([[[a], [-a]]]), "z": np.ones((1, 1)), "Y": np.ones(1), "v": np.ones(1),
            "W": np.array([[-a ** -1.5]])}


def lemma18_search_ratio(size: tuple[tuple[int, int, int], str, str], t: Any, *, labels: dict,
                         gradients: dict, tensors: dict, constants: dict, scale: float) -> Any:
    """The objective of Lemma 18's search at ``size = (shape, kind, mode)``: mode ``"data"`` moves the
    data and ``W`` together (:func:`lemma18_data_ratio` with ``labels[shape]``); mode ``"W"`` moves
    ``W`` on the fixed data set of ``shape``, ``||grad L(W)||_F / G`` (kind ``"F"``) or
    ``||grad L(W)||_{3/2} / (D^(1/6) G)`` (``"q=1.5"``), with ``G = constants[shape]``, the numpy gradient
    closure ``gradients[shape]`` and the torch data ``tensors[shape]`` (a torch ``t``: autograd, kept
    differentiable)."""
    shape, kind, mode = size
    if mode == "data":
        return lemma18_data_ratio(labels[shape], scale, shape, kind, t)
    dd = shape[2]
    qq, fac = (2.0, 1.0) if kind == "F" else (1.5, float(dd * dd) ** (1 / 1.5 - 0.5))
    if not isinstance(t, torch.Tensor):
        return entrywise_lp(gradients[shape](np.reshape(t, (dd, dd)))[0], qq) / (fac * constants[shape])
    with torch.enable_grad():
        tt = t if t.requires_grad else t.detach().requires_grad_(True)
        Wt = tt.reshape(dd, dd)
        val = mj.objective_torch(Wt, *tensors[shape])
        (gr,) = torch.autograd.grad(val, Wt, create_graph=True)
        return (gr.abs() ** qq).sum() ** (1 / qq) / (fac * constants[shape])


def lemma18_search_start(size: tuple[tuple[int, int, int], str, str], r: np.random.Generator) -> np.ndarray:
    """A start of Lemma 18's search at ``size = (shape, kind, mode)``: ``3 N(0, 1)`` entries of ``W``
    (mode ``"W"``) or ``2 N(0, 1)`` entries of ``(X, z, v, W)`` (mode ``"data"``)."""
    shape, _, mode = size
    if mode == "W":
        return r.standard_normal(shape[2] ** 2) * 3
    return r.standard_normal(lemma18_data_dim(shape)) * 2


def _norm_increment(U: np.ndarray, dU: np.ndarray, q: float) -> np.ndarray:
    """``||U + dU||_q - ||U||_q`` over the last two axes without cancellation."""
    a, b = U, dU
    same = (a != 0) & (np.abs(b) < np.abs(a))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(same, b / np.where(a != 0, a, 1.0), 0.0)
        term = np.where(same, np.abs(a) ** q * np.expm1(q * np.log1p(ratio)),
                        np.abs(a + b) ** q - np.abs(a) ** q)
    dq = term.sum(axis=(-2, -1))                       # ||U+dU||^q - ||U||^q
    y = np.sum(np.abs(a) ** q, axis=(-2, -1)) ** (1 / q)
    return y * np.expm1(np.log1p(dq / y ** q) / q)


@cached_per_scale(maxsize=16)
def cone_trajectory(p: float, alpha_rule: str = "global", init: str = "cone", seed: int = 1,
                    steps: int | None = None, eta: float = 1.0) -> dict[str, Any]:
    """Unnormalised l_p-AttGD from ``W(0) = R0 ||W^mm|| unit(What^mm + 0.05 N)``, ``R0 in (1, 3, 10)``
    (``init="cone"``) or from ``N(0, 1)`` entries scaled to the same norms (``init="random"``), as a
    batch of three runs.  Returns iterates ``W (K+1, 3, d, d)``, per-step gradients, norms, ``D_k``,
    the per-step ratio of (25) and the data."""
    steps = pick(2000, 20000) if steps is None else steps
    inst = cone_instance(seed, p, alpha_rule)
    rng = np.random.default_rng(seed + 77)
    d = inst.X.shape[-1]
    Wh = unit(inst.Wmm, p)
    R0 = np.array([1.0, 3.0, 10.0])
    if init == "cone":
        dirs = [unit(Wh + 0.05 * unit(rng.standard_normal((d, d)), p), p) for _ in R0]
    else:
        dirs = [unit(rng.standard_normal((d, d)), p) for _ in R0]
    W0 = np.stack([r * inst.norm_mm * D for r, D in zip(R0, dirs)])
    tr = lp_attgd(W0, inst.X, inst.z, inst.Y, inst.v, p=p, eta=eta, steps=steps, normalized=False)
    Ws = tr.iterates                                    # (K+1, 3, d, d)
    G = mj.gradient_W(Ws, inst.X, inst.z, inst.Y, inst.v)
    q = conjugate_exponent(p)
    U = grad_psi(Ws, p)
    num = np.sum(-eta * G[:-1] * Wh, axis=(-2, -1))     # <grad psi(W_{k+1}) - grad psi(W_k), What^mm>
    den = _norm_increment(U[:-1], -eta * G[:-1], q)     # ||W_{k+1}||^{p-1} - ||W_k||^{p-1}
    norms = entrywise_lp(Ws, p, batch_dims=2)
    Dk = directional_bregman(Wh, Ws, p, batch_dims=2)
    return {"inst": inst, "W": Ws, "G": G, "num": num, "den": den, "norms": norms, "D": Dk, "R0": R0,
            "p": p, "eta": eta, "steps": steps}


TRAJ_PS = (1.75, 2.0, 3.0)


E1_PS = (1.75, 2.0, 3.0)


E1_STEPS = {1.75: 1500, 2.0: 2000, 3.0: 20000}


#: The E1 data sets: ``"authors"`` draws them as the authors' public generator does
#: (:func:`~attention_theory.julistiono.model.authors_synthetic_dataset`, the default);
#: ``"book-v1"`` is the book's earlier reconstruction
#: (:func:`~attention_theory.julistiono.model.synthetic_dataset`), kept for comparison.
E1_DATA = {"authors": mj.authors_synthetic_dataset, "book-v1": mj.synthetic_dataset}


def e1_dataset(seed: int, data: str = "authors") -> dict[str, np.ndarray]:
    """The E1 data set of ``seed`` (``n=6, T=8, d=10``) drawn by the generator ``data`` (a key of
    :data:`E1_DATA`)."""
    if not isinstance(data, str) or data not in E1_DATA:
        raise ValueError(f"data must be one of {tuple(E1_DATA)}, got {data!r}")
    return E1_DATA[data](seed)


@cached_per_scale(maxsize=8)
def e1_run(seeds: tuple[int, ...], p: float, stable: bool = True, record_every: int = 50,
           steps: int | None = None, eta: float = 0.1, data: str = "authors") -> dict[str, Any]:
    """Normalized l_p-AttGD on the E1 data sets ``seeds`` (one batch), ``W(0)`` entries ``N(0, 1)``
    (``np.random.default_rng(10_000 + seed)``: the authors' ``W(0)`` comes from an unseeded global
    generator and cannot be reproduced); ``alpha`` = argmax attention at the end; ``l_q``-AttSVM for
    ``q in E1_PS``; ``D_psi`` (MD's ``p``) between each SVM direction and every recorded iterate.
    ``data`` picks the generator of the data sets (:data:`E1_DATA`: the authors' by default, or
    ``"book-v1"``).  Returns arrays over seeds."""
    sets = [e1_dataset(s, data) for s in seeds]
    X, z, Y, v = (np.stack([dd[k] for dd in sets]) for k in ("X", "z", "Y", "v"))
    W0 = np.stack([np.random.default_rng(10_000 + s).standard_normal((10, 10)) for s in seeds])
    K = E1_STEPS[p] if steps is None else steps
    tr = lp_attgd(W0, X, z, Y, v, p=p, eta=eta, steps=K, normalized=True, stable=stable,
                  record_every=record_every)
    final = tr.iterates[-1]
    out = {"steps": tr.steps, "max_prob": tr.max_prob, "losses": tr.losses, "norms": tr.norms,
           "final": final, "alpha": [], "D": {}, "lp_dist": {}, "svm": {}}
    for j, s in enumerate(seeds):
        out["alpha"].append(select_alpha(X[j], z[j], final[j]))
    for qq in E1_PS:
        Ds, dist, Wq = [], [], []
        for j in range(len(seeds)):
            sol = lp_att_svm(X[j], z[j], out["alpha"][j], qq)
            Wq.append(sol.W)
            Ds.append(directional_bregman(sol.W, tr.iterates[:, j], p, batch_dims=1))
            dist.append(entrywise_lp(unit(tr.iterates[-1, j], p) - unit(sol.W, p), p))
        out["D"][qq] = np.stack(Ds, axis=1)           # (records, seeds)
        out["lp_dist"][qq] = np.asarray(dist)
        out["svm"][qq] = np.stack(Wq)
    return out


def default_seeds() -> tuple[int, ...]:
    return tuple(range(1, pick(10, 100) + 1))
