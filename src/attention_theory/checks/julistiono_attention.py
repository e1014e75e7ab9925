"""Checks of Julistiono, Tarzanagh & Azizan on the attention model: Assumption A, Definition 3,
Lemmas 16-21 (objective, gradient, the Bregman cone around the l_p-AttSVM solution) and
Lemmas 27-30 and Figure 4 along real l_p-AttGD trajectories.

All displayed statements are reconstructions (``claims-julistiono.md``); constants such as
``c_+``, ``c_-``, ``c_2``, ``R_delta`` and ``R_eps`` are the book's own derivation, not the
paper's.  Quantities that underflow at large ``||W||`` (the gradient is ``~ e^{-rho}``) are
evaluated in the log domain by :func:`scaled_correlation`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np
import torch

from ..config import pick
from ..mirror import bregman, conjugate_exponent, directional_bregman, entrywise_lp, grad_psi
from ..models import julistiono as mj
from ..optim.mirror_descent import lp_attgd
from ..svm import AttSVMSolution, is_locally_optimal, lp_att_svm, select_alpha, support_tokens
from ..verify import CheckRecord, check_bound, check_identity, claim_check, maximize

torch.set_default_dtype(torch.float64)

# ---------------------------------------------------------------------------
# instances: data, SVM solution, support sets and the cone constants of Section 1.7
# ---------------------------------------------------------------------------


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
    A = float(np.max(np.sum(np.abs(diffs) ** q, axis=-1) ** (1 / q) * (np.sum(np.abs(z) ** q, axis=-1) ** (1 / q))[:, None, None]))
    eps = delta / (2 * A * sol.norm)
    D = d * d
    mu0 = eps ** p / (p * 2 ** p) if p >= 2 else (p - 1) / 2 * (eps * D ** (0.5 - 1 / p)) ** 2
    return delta, A, mu0


@functools.lru_cache(maxsize=64)
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


def _unit(W: np.ndarray, p: float) -> np.ndarray:
    return W / entrywise_lp(W, p)


def cone_point(inst: ConeInstance, direction: np.ndarray, mu: float, *, iters: int = 60) -> np.ndarray:
    """The unit-``l_p``-norm matrix ``What`` on the ray ``What^mm + t * direction`` with
    ``D_psi(What^mm, What) = mu`` (bisection in ``t``); returns ``What`` (shape ``(d, d)``)."""
    p = inst.p
    Wh = _unit(inst.Wmm, p)
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
    return _unit(Wh + lo * Dir, p)


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


def cone_points(inst: ConeInstance, directions: np.ndarray, mus: np.ndarray, *, iters: int = 60) -> np.ndarray:
    """Batched :func:`cone_point`: ``directions (m, d, d)``, targets ``mus (m,)`` -> ``(m, d, d)``."""
    p = inst.p
    Wh = _unit(inst.Wmm, p)
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


# ---------------------------------------------------------------------------
# log-domain correlation <-grad L(W), V> * exp(shift)
# ---------------------------------------------------------------------------


def scaled_correlation(inst: ConeInstance, W: np.ndarray, V: np.ndarray, shift: float | None = None,
                       loss: str = "logistic") -> tuple[float, float]:
    """``(<-grad L(W), V> * e^shift, shift)`` computed without underflow.

    Uses the covariance form ``gamma^T S'(h) a = sum_t s_t gt_t at_t - (sum s_t gt_t)(sum s_t at_t)``
    with ``gt_t = gamma_alpha - gamma_t``, ``at_t = a_alpha - a_t``, ``a = X V z``, and softmax
    ratios ``s_t / s_alpha = exp(h_t - h_alpha)``.  ``alpha`` must be the top token of every sample
    (true in the cone).  ``shift`` defaults to the smallest logit gap, so every exponent is ``<= 0``.
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
    ws = s_alpha[:, None] * np.where(mask, np.exp(-gaps + shift), 0.0)   # s_t e^shift
    cov_scaled = np.sum(ws * gt * at, axis=1) - np.sum(w * gt, axis=1) * np.sum(ws * at, axis=1)
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
    ``[m_l eps gmin / T - M_1 n (T-1) Gamma (delta/2) e^{-rho eps/(1-eps)} - M_1 n (T-1) Gamma B e^{-3 delta rho/2}
    - M_1 n (T-1)^2 Gamma B e^{-(1-delta) rho}] / n`` with ``B = 2 A ||W^mm||``."""
    c = lemma20_constants(inst, loss)
    n, T, _ = inst.X.shape
    d = inst.delta
    B = 2 * c["Abar"]
    k = c["M1"] * n * c["Gamma"]
    return (c["m_l"] * eps * c["gamma_min"] / T - k * (T - 1) * d / 2 * math.exp(-rho * eps / (1 - eps))
            - k * (T - 1) * B * math.exp(-1.5 * d * rho) - k * (T - 1) ** 2 * B * math.exp(-(1 - d) * rho)) / n


# ---------------------------------------------------------------------------
# Assumption A
# ---------------------------------------------------------------------------

_LOSS_FNS: dict[str, tuple[Callable, Callable]] = {
    name: (functools.partial(mj.loss_value, loss=name), functools.partial(mj.loss_derivative, loss=name))
    for name in mj.LOSSES
}


@claim_check("julistiono-assum-a", "loss-properties")
def check_assumption_A(losses: dict[str, tuple[Callable, Callable]] | None = None, *, seed: int = 20) -> CheckRecord:
    """For each loss on the score interval ``[min gamma, max gamma]`` (1e5-point grid): ``l'`` matches
    finite differences of ``l``, ``l' < 0`` (strictly decreasing), and ``l'`` is Lipschitz with the
    constant ``M_0`` measured on the grid (recorded with ``M_1 = max |l'|``)."""
    losses = _LOSS_FNS if losses is None else losses
    inst = mj.synthetic_dataset(seed)
    gamma = mj.scores(inst["X"], inst["Y"], inst["v"])
    u = np.linspace(gamma.min(), gamma.max(), pick(10000, 100000))
    lhs, rhs, consts, fd = [], [], {}, []
    for name, (f, df) in losses.items():
        g = np.asarray(df(u))
        h = 1e-6
        fd.extend(np.abs((f(u + h) - f(u - h)) / (2 * h) - g) / (1 + np.abs(g)))
        lhs.extend(np.full(u.size, 1e-12))
        rhs.extend(-g)
        M0 = float(np.max(np.abs(np.diff(g)) / np.diff(u)))
        consts[name] = {"M1": float(np.max(np.abs(g))), "M0_grid": M0, "min_minus_dl": float(np.min(-g))}
    check_bound(fd, 1e-6, "l' agrees with central differences of l", claim_id="julistiono-assum-a",
                check="loss-derivative", seed=seed)
    return check_bound(lhs, rhs, "-l'(u) > 0 on the score interval (strictly decreasing losses)",
                       seed=seed, extra={"constants": consts, "interval": [float(u[0]), float(u[-1])]})


# ---------------------------------------------------------------------------
# Definition 3: support and locally optimal tokens
# ---------------------------------------------------------------------------


@claim_check("julistiono-def-3", "support-kkt")
def check_def3(kkt_rows: str = "support", *, p: float = 1.75, seed: int = 21) -> CheckRecord:
    """For random instances: support sets from primal slacks and from dual variables agree (degenerate
    instances flagged and skipped); KKT: ``grad ||.||_p(W^mm)`` is a non-negative combination of the
    ``kkt_rows`` constraint gradients (``"support"``); globally optimal ``alpha`` is locally optimal; a
    non-global locally optimal ``alpha`` is constructed."""
    from scipy.optimize import nnls

    resid, agree, flagged, local_found = [], 0, 0, 0
    for s in range(seed, seed + pick(5, 50)):
        inst = cone_instance(s, p)
        sol = inst.sol
        dual_sup = np.nan_to_num(sol.duals, nan=0.0) > 1e-7 * np.nanmax(sol.duals)
        if not np.array_equal(dual_sup, inst.support):
            flagged += 1
            continue
        agree += 1
        rows = inst.support if kkt_rows == "support" else inst.nonsupport
        n, T, d = inst.X.shape
        M = np.stack([np.outer(inst.X[i, inst.alpha[i]] - inst.X[i, t], inst.z[i]).ravel()
                      for i in range(n) for t in range(T) if rows[i, t]], axis=1)
        g = grad_psi(sol.W, p).ravel() / sol.norm ** (p - 1)
        lam, r = nnls(M, g)
        resid.append(r / np.linalg.norm(g))
        if not inst.locally_optimal:
            raise AssertionError("globally optimal alpha failed the local-optimality test")
        # a non-global locally optimal alpha: move one alpha_i to its second-best token
        gamma = inst.gamma
        for i in range(pick(2, n)):
            alt = inst.alpha.copy()
            alt[i] = int(np.argsort(gamma[i])[-2])
            try:
                sol2 = lp_att_svm(inst.X, inst.z, alt, p)
            except RuntimeError:
                continue
            if is_locally_optimal(gamma, alt, support_tokens(sol2, inst.X, inst.z)):
                local_found += 1
                break
    return check_bound(resid, 1e-4, f"KKT residual of W^mm with {kkt_rows} constraints (relative, NNLS; "
                       "solver accuracy ~1e-5)",
                       atol=0.0, seed=seed,
                       extra={"instances_agreeing": agree, "degenerate_flagged": flagged,
                              "non_global_locally_optimal_found": local_found})


# ---------------------------------------------------------------------------
# Lemmas 16-18
# ---------------------------------------------------------------------------


@claim_check("julistiono-lemma-16", "objective-bounds")
def check_lemma16(lower_fn: Callable = np.max, upper_fn: Callable = np.min, *, seed: int = 22) -> CheckRecord:
    """``mean_i l(max_t gamma_it) <= L(W) <= mean_i l(min_t gamma_it)`` for random ``W``
    (``||W||_F`` 1e-3 ... 1e3) and for ``W`` maximising / minimising ``L`` (L-BFGS)."""
    data = mj.synthetic_dataset(seed)
    X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
    gamma = mj.scores(X, Y, v)
    lo = float(np.mean(mj.loss_value(lower_fn(gamma, axis=1))))
    hi = float(np.mean(mj.loss_value(upper_fn(gamma, axis=1))))
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(pick(200, 2000)):
        W = rng.standard_normal((10, 10))
        vals.append(mj.objective(W * 10 ** rng.uniform(-3, 3) / np.linalg.norm(W), X, z, Y, v))
    T_ = [torch.as_tensor(a) for a in (X, z, Y, v)]
    for sgn in (1.0, -1.0):
        res = maximize(lambda t: sgn * mj.objective_torch(t.reshape(10, 10), *T_),
                       lambda r: r.standard_normal(100) * 3, restarts=pick(3, 20), steps=200, seed=seed)
        vals.append(sgn * res.best_value)
    vals = np.asarray(vals)
    return check_bound(np.concatenate([np.full(vals.size, lo), vals]), np.concatenate([vals, np.full(vals.size, hi)]),
                       "l(max gamma) <= L(W) <= l(min gamma) (random + adversarial W)",
                       rtol=1e-12, seed=seed, extra={"lower": lo, "upper": hi, "min_L": float(vals.min()),
                                                   "max_L": float(vals.max())})


def _grad_autograd(W, X, z, Y, v, loss):
    Wt = torch.tensor(W, requires_grad=True)
    val = mj.objective_torch(Wt, *(torch.as_tensor(a) for a in (X, z, Y, v)), loss=loss)
    (g,) = torch.autograd.grad(val, Wt)
    return g.numpy()


def _grad_default(W, X, z, Y, v, loss):
    return mj.gradient_W(W, X, z, Y, v, loss=loss)


@claim_check("julistiono-lemma-17", "gradient-formula")
def check_lemma17(grad_fn: Callable = _grad_default, *, seed: int = 23) -> CheckRecord:
    """Lemma 17's gradient (``grad_fn``) against ``torch.autograd`` for three losses, shapes
    ``(n, T, d) in {(1,2,2), (6,8,10), (20,16,8)}`` and ``||W||_F in {1e-2, 1, 10}``; the naive and the
    stable softmax backward agree there too (relative error <= 1e-10)."""
    rng = np.random.default_rng(seed)
    errs = []
    for n, T, d in ((1, 2, 2), (6, 8, 10), (20, 16, 8)):
        data = mj.synthetic_dataset(int(rng.integers(1000)), n, T, d)
        X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
        for loss in mj.LOSSES:
            for nrm in (1e-2, 1.0, 10.0):
                W = rng.standard_normal((d, d))
                W *= nrm / np.linalg.norm(W)
                ref = _grad_autograd(W, X, z, Y, v, loss)
                sc = max(np.abs(ref).max(), 1e-300)
                errs.append(np.abs(grad_fn(W, X, z, Y, v, loss) - ref).max() / sc)
                errs.append(np.abs(mj.gradient_W(W, X, z, Y, v, loss=loss, stable=False) - ref).max() / sc)
    return check_bound(errs, 1e-10, "Lemma 17 vs autograd (max relative error)", rtol=0.0, seed=seed)


def saturation_errors(radii: tuple[float, ...] = (1, 5, 10, 20, 40, 80, 160, 320), *, seed: int = 1,
                      p: float = 1.75) -> dict[str, np.ndarray]:
    """Relative error of the naive (autograd-style) and the stable gradient along ``W = r W^mm / ||W^mm||``
    against a 60-digit reference (mpmath).  Returns ``radii``, ``naive``, ``stable``, ``torch``."""
    import mpmath as mp

    inst = cone_instance(seed, p)
    X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
    Wh = _unit(inst.Wmm, p)
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
            vec = np.array([float(lpr * sum(c[t] * mp.mpf(float(X[i, t, k])) for t in range(T))) for k in range(d)])
            ref += np.outer(vec, z[i]) / n
        sc = np.abs(ref).max()
        out["naive"].append(np.abs(mj.gradient_W(W, X, z, Y, v, stable=False) - ref).max() / sc)
        out["stable"].append(np.abs(mj.gradient_W(W, X, z, Y, v) - ref).max() / sc)
        out["torch"].append(np.abs(_grad_autograd(W, X, z, Y, v, "logistic") - ref).max() / sc)
    return {k: np.asarray(val) for k, val in out.items()}


@claim_check("julistiono-lemma-18", "gradient-bound")
def check_lemma18(scale: float = 1.0, *, seed: int = 24) -> CheckRecord:
    """``||S'(h)||_2 <= 1/2``; ``||grad L||_F <= G = M_1/(2n) sum_i ||X_i||_2 ||gamma_i||_2 ||z_i||_2``, every
    entry ``<= G`` and ``||grad L||_q <= D^max(0, 1/q - 1/2) G`` (``scale`` multiplies ``G``), on random
    and adversarial ``W`` (L-BFGS maximising ``||grad L||_F``)."""
    rng = np.random.default_rng(seed)
    from ..softmax import softmax_jacobian

    H = rng.standard_normal((pick(10000, 100000), 6)) * 10 ** rng.uniform(-1, 1.5, size=(1, 1))
    jn = np.linalg.norm(softmax_jacobian(H), ord=2, axis=(-2, -1))
    check_bound(jn, 0.5, "||diag(s) - s s^T||_2 <= 1/2 on random logits", claim_id="julistiono-lemma-18",
                check="softmax-jacobian-norm", seed=seed)
    data = mj.synthetic_dataset(seed)
    X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
    gamma = mj.scores(X, Y, v)
    n, T, d = X.shape
    M1 = 1.0  # logistic: |l'| <= 1
    G = scale * M1 / (2 * n) * sum(np.linalg.norm(X[i], 2) * np.linalg.norm(gamma[i]) * np.linalg.norm(z[i])
                                   for i in range(n))
    lhs, rhs = [], []
    for p in (1.25, 1.75, 2.0, 3.0):
        q = conjugate_exponent(p)
        fac = (d * d) ** max(0.0, 1 / q - 0.5)
        for _ in range(pick(100, 1000)):
            W = rng.standard_normal((d, d)) * 10 ** rng.uniform(-2, 2)
            g = mj.gradient_W(W, X, z, Y, v)
            lhs += [np.linalg.norm(g), np.abs(g).max(), entrywise_lp(g, q)]
            rhs += [G, G, fac * G]
    T_ = [torch.as_tensor(a) for a in (X, z, Y, v)]

    def gnorm(t: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            tt = t if t.requires_grad else t.detach().requires_grad_(True)
            Wt = tt.reshape(d, d)
            val = mj.objective_torch(Wt, *T_)
            (gr,) = torch.autograd.grad(val, Wt, create_graph=True)
            return torch.linalg.norm(gr)

    res = maximize(gnorm, lambda r: r.standard_normal(d * d), restarts=pick(3, 20), steps=100, seed=seed)
    lhs.append(res.best_value)
    rhs.append(G)
    return check_bound(lhs, rhs, "gradient bound G of Lemma 18 (Frobenius, entries, l_q)", seed=seed,
                       extra={"G": G, "adversarial_max_grad_F": res.best_value})


# ---------------------------------------------------------------------------
# Lemma 19 (12a)-(12c)
# ---------------------------------------------------------------------------

LEMMA19_PS = (1.25, 1.75, 2.0, 3.0, 4.0)


@claim_check("julistiono-lemma-19", "cone-margins")
def check_lemma19(mu_factor: float = 1.0, *, ps: tuple[float, ...] = LEMMA19_PS, seed: int = 25) -> CheckRecord:
    """For ``W`` in ``S_{p, mu}`` with ``mu = mu_factor * mu0`` (random interior/boundary points and the
    adversarial boundary directions): ``||Wbar - W^mm||_p <= delta/(2A)``, the perturbation of every
    constraint is ``<= delta/2``, and (12a)-(12c)."""
    rng = np.random.default_rng(seed)
    lhs, rhs, info = [], [], {}
    m12 = {"12a": ([], []), "12b": ([], []), "12c": ([], [])}
    for p in ps:
        for s in range(seed, seed + pick(1, 6)):
            inst = cone_instance(s, p)
            mu = mu_factor * inst.mu0
            d_, A = inst.delta, inst.A
            n, T, _ = inst.X.shape
            ar = np.arange(n)
            for Wh in cone_samples(inst, mu, rng, pick(10, 60)):
                Wbar = inst.norm_mm * Wh
                lhs.append(entrywise_lp(Wbar - inst.Wmm, p))
                rhs.append(d_ / (2 * A))
                hb = mj.logits(inst.X, inst.z, Wbar)
                hm = mj.logits(inst.X, inst.z, inst.Wmm)
                pert = np.abs((hb - hm)[:, :, None] - (hb - hm)[:, None, :])
                lhs.append(pert.max())
                rhs.append(d_ / 2)
                sl = hb[ar, inst.alpha][:, None] - hb          # (x_alpha - x_t)^T Wbar z
                for i in range(n):
                    S, N = inst.support[i], inst.nonsupport[i]
                    if S.any() and N.any():   # (12a): (x_t - x_tau)^T Wbar z >= 3 delta / 2
                        m12["12a"][0].append(1.5 * d_)
                        m12["12a"][1].append((sl[i][N][None, :] - sl[i][S][:, None]).min())
                    if N.any():               # (12b)
                        m12["12b"][0].append(1 + 1.5 * d_)
                        m12["12b"][1].append(sl[i][N].min())
                    if S.any():               # (12c)
                        m12["12c"][0].extend([1 - d_ / 2, sl[i][S].max()])
                        m12["12c"][1].extend([sl[i][S].min(), 1 + d_ / 2])
            info[f"p={p},seed={s}"] = {"delta": d_, "A": A, "mu0": inst.mu0, "norm_mm": inst.norm_mm}
    check_bound(np.concatenate([m12[k][0] for k in m12]), np.concatenate([m12[k][1] for k in m12]),
                "(12a)-(12c) in the Bregman cone", rtol=1e-9, atol=1e-12,
                claim_id="julistiono-eq-12", check="three-inequalities", seed=seed)
    return check_bound(lhs, rhs, "||Wbar - W^mm||_p <= delta/(2A) and constraint perturbation <= delta/2",
                       rtol=1e-9, atol=1e-13, seed=seed, params={"mu_factor": mu_factor},
                       extra={"instances": info})


# ---------------------------------------------------------------------------
# Lemma 20 and (13)-(18)
# ---------------------------------------------------------------------------


def _cone_pairs(inst: ConeInstance, rng: np.random.Generator, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(What, Vbar)``: unit-norm ``What`` in the cone and ``Vbar`` in the cone with ``||Vbar|| = ||W^mm||``
    (including ``Vbar = W^mm`` and ``Vbar = ||W^mm|| What``)."""
    pts = cone_samples(inst, inst.mu0, rng, k, n_adversarial=pick(8, 60))
    pairs = []
    for j, Wh in enumerate(pts):
        pairs.append((Wh, inst.Wmm))
        pairs.append((Wh, inst.norm_mm * Wh))
        pairs.append((Wh, inst.norm_mm * pts[(j * 7 + 3) % len(pts)]))
    return pairs


def lemma17_bound(inst: ConeInstance, rho: float, consts: dict[str, float]) -> float:
    """(17) divided by ``e^{-(1+delta/2) rho}``: ``[c_+ - c_- e^{-delta rho} - c_2 e^{-(1-3delta/2) rho}] / n``."""
    d = inst.delta
    n = inst.X.shape[0]
    return (consts["c_plus"] - consts["c_minus"] * math.exp(-d * rho)
            - consts["c_2"] * math.exp(-(1 - 1.5 * d) * rho)) / n


@claim_check("julistiono-lemma-20", "positive-correlation")
def check_lemma20(alpha_rule: str = "global", *, p: float = 1.75, seed: int = 26) -> CheckRecord:
    """(13) against autograd; the covariance identity behind (14); the softmax ratio bounds (16); the
    lower bound (17) with the book's ``c_+, c_-, c_2``; ``c_+ > 0`` (18); and Lemma 20: ``<-grad L(W), V> > 0``
    for ``rho >= R_delta`` (log domain), on sampled and adversarial cone pairs."""
    rng = np.random.default_rng(seed)
    e13, e14, r16, b17, pos, thresholds, consts_all = [], [], ([], []), ([], []), [], {}, {}
    for s in range(seed, seed + pick(2, 6)):
        inst = cone_instance(s, p, alpha_rule)
        X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
        consts = lemma20_constants(inst)
        consts_all[f"seed={s}"] = consts
        Rd = consts["R_delta_rho"] if math.isfinite(consts["R_delta_rho"]) else 60.0
        pairs = _cone_pairs(inst, rng, pick(4, 30))
        # (13) and the covariance identity at moderate norm, against autograd
        for Wh, Vb in pairs[:12]:
            W = 2.0 * inst.norm_mm * Wh
            g = _grad_autograd(W, X, z, Y, v, "logistic")
            ref = float(np.sum(g * Vb))
            h, a = mj.logits(X, z, W), mj.logits(X, z, Vb)
            c, sm, u = mj.softmax_jacobian_times(h, inst.gamma)
            f13 = float(np.mean(mj.loss_derivative(u) * np.sum(c * a, axis=1)))
            e13.append(abs(f13 - ref) / max(abs(ref), 1e-300))
            corr, sh = scaled_correlation(inst, W, Vb)
            e14.append(abs(-corr * math.exp(-sh) - ref) / max(abs(ref), 1e-300))
        emp = 0.0
        for Wh, Vb in pairs:
            # (16): log softmax ratios at rho in a grid
            Wbar = inst.norm_mm * Wh
            sl = mj.logits(X, z, Wbar)
            ar = np.arange(X.shape[0])
            gap = sl[ar, inst.alpha][:, None] - sl
            d_ = inst.delta
            for rho in (1.0, 10.0, 100.0):
                r16[0].extend(rho * (1 - d_ / 2) * np.ones(int(inst.support.sum())))
                r16[1].extend(rho * gap[inst.support])
                r16[0].extend(rho * gap[inst.support])
                r16[1].extend(rho * (1 + d_ / 2) * np.ones(int(inst.support.sum())))
                r16[0].extend(rho * (1 + 1.5 * d_) * np.ones(int(inst.nonsupport.sum())))
                r16[1].extend(rho * gap[inst.nonsupport])
            for rho in (0.5, 2.0, 8.0, 32.0, 128.0, Rd, 2 * Rd, 4 * Rd):
                W = rho * Wbar
                if d_ * rho < 600:   # (17) scaled by e^{(1+delta/2) rho} stays finite
                    corr, sh = scaled_correlation(inst, W, Vb, shift=(1 + d_ / 2) * rho)
                    b17[0].append(lemma17_bound(inst, rho, consts))
                    b17[1].append(corr)
                if rho >= Rd:
                    pos.append(scaled_correlation(inst, W, Vb)[0])
            for rho in (0.25, 0.5, 1, 2, 4, 8, 16, 32):
                corr, _ = scaled_correlation(inst, rho * Wbar, Vb)
                if corr <= 0:
                    emp = max(emp, rho)
        thresholds[f"seed={s}"] = {"R_delta_rho": consts["R_delta_rho"], "empirical_threshold_rho_below": emp}
    check_identity(e13, np.zeros(len(e13)), "(13): <grad L(W), V> = mean l'_i gamma_i^T S'(h_i) X_i V z_i vs autograd",
                   atol=1e-10, claim_id="julistiono-eq-13", check="correlation-formula", seed=seed)
    check_identity(e14, np.zeros(len(e14)), "covariance identity (TF-as-SVM Lemma 7) in log-domain form vs autograd",
                   atol=1e-9, claim_id="julistiono-eq-14", check="covariance-identity", seed=seed)
    check_bound(r16[0], r16[1], "(16): log softmax ratios within [-(1+delta/2)rho, -(1-delta/2)rho] (support) "
                "and <= -(1+3delta/2)rho (non-support)", rtol=1e-9, atol=1e-9,
                claim_id="julistiono-eq-16", check="softmax-ratios", seed=seed)
    check_bound(b17[0], b17[1], "(17): correlation * e^{(1+delta/2)rho} >= [c_+ - c_- e^{-delta rho} - "
                "c_2 e^{-(1-3delta/2)rho}]/n", rtol=1e-9, atol=1e-300,
                claim_id="julistiono-eq-17", check="combined-lower-bound", seed=seed)
    check_bound([1e-300] * len(consts_all), [c["c_plus"] for c in consts_all.values()],
                "(18): c_+ > 0 (some sample has a support token)", claim_id="julistiono-eq-18",
                check="c-plus-positive", seed=seed)
    return check_bound(np.full(len(pos), 1e-300), pos,
                       "<-grad L(W), V> > 0 for rho >= R_delta (scaled by e^{(1+delta/2)rho})",
                       seed=seed, params={"p": p, "alpha_rule": alpha_rule},
                       extra={"thresholds": thresholds, "constants": consts_all})


# ---------------------------------------------------------------------------
# Lemma 21 and (19)-(21)
# ---------------------------------------------------------------------------


@claim_check("julistiono-lemma-21", "svm-direction-beats-current")
def check_lemma21(alpha_rule: str = "global", *, eps_list: tuple[float, ...] = (0.5, 0.2, 0.1),
                  p: float = 1.75, seed: int = 27) -> CheckRecord:
    """``<-grad L(W), W^mm/||W^mm||> >= (1 - eps) <-grad L(W), W/||W||>`` along rays ``W = rho Wbar``
    (``Wbar`` sampled/adversarial in the cone) for ``rho >= R_eps`` (book's explicit value), in the
    log domain; (19)-(21) are the proof's rescaling and reductions, checked as the same inequality
    per sample at ``rho >= R_eps``."""
    rng = np.random.default_rng(seed)
    diff, e20, b21, info, lhs21, rhs21 = [], [], ([], []), {}, [], []
    for s in range(seed, seed + pick(2, 6)):
        inst = cone_instance(s, p, alpha_rule)
        X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
        pts = cone_samples(inst, inst.mu0, rng, pick(4, 30), n_adversarial=pick(8, 60))
        for eps in eps_list:
            R = lemma21_R_eps(inst, eps)
            if not math.isfinite(R):
                R = 60.0
            info[f"seed={s},eps={eps}"] = R
            for j, Wh in enumerate(pts):
                Wbar = inst.norm_mm * Wh
                if j < 4:   # (20): the per-sample decomposition, against autograd at moderate norm
                    W = 2.0 * Wbar
                    g = _grad_autograd(W, X, z, Y, v, "logistic")
                    ref = float(np.sum(-g * (inst.Wmm - (1 - eps) * Wbar)))
                    c, _ = scaled_correlation(inst, W, inst.Wmm - (1 - eps) * Wbar, shift=0.0)
                    e20.append(abs(c - ref) / max(abs(ref), 1e-300))
                for rho in (R, 2 * R):
                    W = rho * Wbar
                    a, sh = scaled_correlation(inst, W, inst.Wmm)
                    b, _ = scaled_correlation(inst, W, Wbar, shift=sh)
                    diff.append((a - (1 - eps) * b) / max(abs(a), abs(b), 1e-300))
                    lhs21.append((1 - eps) * b)
                    rhs21.append(a)
                    if alpha_rule == "global":
                        c, _ = scaled_correlation(inst, W, inst.Wmm - (1 - eps) * Wbar, shift=rho)
                        b21[0].append(lemma21_lower_bound(inst, eps, rho))
                        b21[1].append(c)
    check_bound(np.zeros(len(diff)), diff, "(19): the rescaled inequality <-grad L, W^mm - (1-eps) Wbar> >= 0 "
                "(normalised)", rtol=0.0, atol=1e-12, claim_id="julistiono-eq-19", check="rescaled-inequality",
                seed=seed)
    check_identity(e20, np.zeros(len(e20)), "(20): per-sample covariance decomposition of "
                   "<-grad L, W^mm - (1-eps) Wbar> vs autograd", atol=1e-9,
                   claim_id="julistiono-eq-20", check="per-sample-decomposition", seed=seed)
    if b21[0]:
        check_bound(b21[0], b21[1], "(21): e^rho <-grad L, W^mm - (1-eps) Wbar> >= book's lower bound",
                    rtol=1e-9, atol=1e-300, claim_id="julistiono-eq-21", check="lower-bound", seed=seed)
    return check_bound(lhs21, rhs21, "Lemma 21 at rho >= R_eps: (1-eps)<-grad L, What> <= <-grad L, What^mm> "
                       "(both scaled by the same e^shift)", rtol=1e-9, atol=1e-300, seed=seed, params={"eps": list(eps_list), "alpha_rule": alpha_rule},
                       extra={"R_eps_rho": info, "min_normalised_difference": float(np.min(diff))})


# ---------------------------------------------------------------------------
# Trajectories for Lemmas 27-30 (unnormalised l_p-AttGD from the thin cone)
# ---------------------------------------------------------------------------


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


@functools.lru_cache(maxsize=16)
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
    Wh = _unit(inst.Wmm, p)
    R0 = np.array([1.0, 3.0, 10.0])
    if init == "cone":
        dirs = [_unit(Wh + 0.05 * _unit(rng.standard_normal((d, d)), p), p) for _ in R0]
    else:
        dirs = [_unit(rng.standard_normal((d, d)), p) for _ in R0]
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


def _valid_ratio(tr: dict[str, Any]) -> np.ndarray:
    """Per-step ratio of (25) where the increment is resolvable (``den > 1e-13 ||W||^{p-1}``); else ``nan``."""
    scale = tr["norms"][:-1] ** (tr["p"] - 1)
    ok = tr["den"] > 1e-13 * scale
    return np.where(ok, tr["num"] / np.where(ok, tr["den"], 1.0), np.nan)


TRAJ_PS = (1.75, 2.0, 3.0)


@claim_check("julistiono-lemma-27", "per-step-progress")
def check_lemma27(alpha_rule: str = "global", init: str = "cone", *, threshold: float = 0.9,
                  R0_min: float = 10.0, ps: tuple[float, ...] = TRAJ_PS) -> CheckRecord:
    """(25) along unnormalised l_p-AttGD from the thin cone: the per-step ratio
    ``<grad psi(W(k+1)) - grad psi(W(k)), What^mm> / (||W(k+1)||^{p-1} - ||W(k)||^{p-1})`` is
    ``>= threshold = 0.9`` for ``R0 >= R0_min = 10``, and the empirical ``eps = 1 - min ratio`` does not
    increase with ``R0`` (Lemma 27's ``R_eps``: a larger starting norm allows a smaller ``eps``)."""
    lhs, rhs, info, mono = [], [], {}, []
    for p in ps:
        tr = cone_trajectory(p, alpha_rule, init)
        ratio = _valid_ratio(tr)
        for j, R0 in enumerate(tr["R0"]):
            r = ratio[:, j]
            r = r[np.isfinite(r)]
            info[f"p={p},R0={R0:g}"] = {"min_ratio": float(r.min()) if r.size else None,
                                        "last_quarter_min": float(r[3 * r.size // 4:].min()) if r.size else None,
                                        "n_steps_resolved": int(r.size)}
            if R0 >= R0_min:
                den, num = tr["den"][:, j], tr["num"][:, j]
                res = np.abs(den) > 1e-13 * tr["norms"][:-1, j] ** (p - 1)
                lhs.extend(threshold * den[res])
                rhs.extend(num[res])
                lhs.extend(-den[res])         # the norm increases (Lemmas 20 and 22)
                rhs.extend(np.zeros(int(res.sum())))
                if not res.any():
                    lhs.append(1.0), rhs.append(0.0)   # nothing resolvable: the run did not move
        mins = [info[f"p={p},R0={R0:g}"]["min_ratio"] for R0 in tr["R0"]]
        mins = [np.nan if m is None else m for m in mins]
        mono.extend(np.asarray(mins[:-1]) - np.asarray(mins[1:]))
    check_bound(lhs, rhs, f"(25): <grad psi(W(k+1)) - grad psi(W(k)), What^mm> >= {threshold} "
                f"(||W(k+1)||^(p-1) - ||W(k)||^(p-1)) > 0 for R0 >= {R0_min}", rtol=1e-9, atol=1e-300,
                claim_id="julistiono-eq-25", check="per-step-ratio", params={"threshold": threshold})
    check_bound(mono, 1e-12, "min per-step ratio non-decreasing in R0 (eps_emp decreasing)", rtol=0.0,
                claim_id="julistiono-lemma-27", check="eps-decreasing-in-R0")
    return check_bound(lhs, rhs, "Lemma 27 along trajectories (progress toward What^mm vs norm growth)",
                       rtol=1e-9, atol=1e-300,
                       params={"threshold": threshold, "alpha_rule": alpha_rule, "init": init},
                       extra={"per_run": info})


@claim_check("julistiono-lemma-28", "cone-invariance")
def check_lemma28(alpha_rule: str = "global", init: str = "cone", *, ps: tuple[float, ...] = TRAJ_PS,
                  mu_wide: float = 0.1) -> CheckRecord:
    """(a) ``D_k = 1 - <grad psi(W(k)), What^mm>/||W(k)||^{p-1}`` exactly; (b) (27) with
    ``eps_k = max_{i<k} (1 - ratio_i)_+`` at every ``k`` and ``D_k <= max(eps_k, D_0)``; (c) norms
    non-decreasing; (d) every iterate of the runs with ``R0 >= 3`` stays in the wider cone ``D_k <= mu_wide``."""
    idn, lhs, rhs, mono, wide, info = [], [], [], [], [], {}
    for p in ps:
        tr = cone_trajectory(p, alpha_rule, init)
        Wh = _unit(tr["inst"].Wmm, p)
        Ws, D, nr = tr["W"], tr["D"], tr["norms"]
        alt = 1 - np.sum(grad_psi(Ws, p) * Wh, axis=(-2, -1)) / nr ** (p - 1)
        idn.extend((alt - D).ravel())
        ratio = np.where(tr["den"] > 0, tr["num"] / np.where(tr["den"] > 0, tr["den"], 1), 1.0)
        for j in range(Ws.shape[1]):
            # eps_k: running max of (1 - ratio)_+; (27) holds for every k given it
            epsk = np.maximum.accumulate(np.maximum(1 - ratio[:, j], 0.0))
            D0 = D[0, j]
            bound = epsk + (D0 - epsk) * (nr[0, j] / nr[1:, j]) ** (p - 1)
            lhs.extend(D[1:, j])
            rhs.extend(bound + 1e-12)
            lhs.extend(D[1:, j])
            rhs.extend(np.maximum(epsk, D0) + 1e-12)
            mono.extend(nr[:-1, j] - nr[1:, j])
            if tr["R0"][j] >= 3:
                wide.extend(D[:, j])
            info[f"p={p},R0={tr['R0'][j]:g}"] = {"D0": float(D0), "max_D": float(D[:, j].max()),
                                                 "final_D": float(D[-1, j]), "final_eps": float(epsk[-1])}
    check_identity(idn, np.zeros(len(idn)), "D_k = 1 - <grad psi(W_k), What^mm>/||W_k||^{p-1}", atol=1e-12,
                   claim_id="julistiono-eq-26", check="divergence-identity")
    check_bound(lhs, rhs, "(27) at every step with the running eps_k", rtol=1e-9,
                claim_id="julistiono-eq-27", check="divergence-recursion")
    check_bound(mono, 1e-12, "||W(k)||_p non-decreasing", rtol=0.0, claim_id="julistiono-lemma-28",
                check="monotone-norm")
    return check_bound(wide, mu_wide, f"every iterate in the wider cone D_k <= {mu_wide}",
                       params={"alpha_rule": alpha_rule, "init": init, "mu_wide": mu_wide},
                       extra={"per_run": info})


@claim_check("julistiono-lemma-30", "log-norm-growth")
def check_lemma30(growth: Callable[[np.ndarray], np.ndarray] = np.log, *, ps: tuple[float, ...] = TRAJ_PS) -> CheckRecord:
    """Norms are non-decreasing and grow over every doubling of ``k`` in the second half; a lower bound
    ``||W(k)|| >= c_1 growth(k) - c_2`` fitted on the first half (``c_1`` least squares, ``c_2`` the
    smallest shift making it hold there) still holds on the second half (``growth = log``)."""
    lhs, rhs, fits = [], [], {}
    for p in ps:
        tr = cone_trajectory(p, "global", "cone")
        nr = tr["norms"]
        K = nr.shape[0] - 1
        for j in range(nr.shape[1]):
            y = nr[1:, j]
            k = np.arange(1, K + 1, dtype=float)
            half = K // 2
            gk = growth(k)
            A = np.vstack([gk[:half], np.ones(half)]).T
            c1 = float(np.linalg.lstsq(A, y[:half], rcond=None)[0][0])
            c2 = float(np.max(c1 * gk[:half] - y[:half]))
            lhs.extend(c1 * gk[half:] - c2)
            rhs.extend(y[half:])
            ks = [K // 2 ** m for m in range(0, 3)][::-1]
            inc = np.diff(nr[ks, j])
            lhs.extend(np.full(inc.size, 1e-300))
            rhs.extend(inc)
            fits[f"p={p},R0={tr['R0'][j]:g}"] = {"c1": c1, "c2": c2, "norm_start": float(nr[0, j]),
                                                 "norm_end": float(nr[-1, j])}
    return check_bound(lhs, rhs, "||W(k)|| >= c1 growth(k) - c2 on the second half (fitted on the first); "
                       "growth over each doubling", rtol=1e-12, extra={"fits": fits})


# ---------------------------------------------------------------------------
# Figure 4 / Lemma 29: directional convergence of normalized l_p-AttGD (E1)
# ---------------------------------------------------------------------------

E1_PS = (1.75, 2.0, 3.0)
E1_STEPS = {1.75: 1500, 2.0: 2000, 3.0: 20000}


@functools.lru_cache(maxsize=8)
def e1_run(seeds: tuple[int, ...], p: float, stable: bool = True, record_every: int = 50,
           steps: int | None = None, eta: float = 0.1) -> dict[str, Any]:
    """Normalized l_p-AttGD on the E1 data sets ``seeds`` (one batch), ``W(0)`` entries ``N(0, 1)``;
    ``alpha`` = argmax attention at the end; ``l_q``-AttSVM for ``q in E1_PS``; ``D_psi`` (MD's ``p``)
    between each SVM direction and every recorded iterate.  Returns arrays over seeds."""
    data = [mj.synthetic_dataset(s) for s in seeds]
    X, z, Y, v = (np.stack([dd[k] for dd in data]) for k in ("X", "z", "Y", "v"))
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
            dist.append(entrywise_lp(_unit(tr.iterates[-1, j], p) - _unit(sol.W, p), p))
        out["D"][qq] = np.stack(Ds, axis=1)           # (records, seeds)
        out["lp_dist"][qq] = np.asarray(dist)
        out["svm"][qq] = np.stack(Wq)
    return out


def _e1(seeds: tuple[int, ...], ps: tuple[float, ...], stable: bool) -> dict[float, dict[str, Any]]:
    return {p: e1_run(seeds, p, stable) for p in ps}


def default_seeds() -> tuple[int, ...]:
    return tuple(range(1, pick(10, 100) + 1))


@claim_check("julistiono-fig-4", "own-svm-closest")
def check_fig4(q_for_svm: Callable[[float], float] | None = None, stable: bool = True, *,
               ps: tuple[float, ...] = E1_PS, seeds: tuple[int, ...] | None = None,
               tol: float = 2e-2, fraction: float = 0.9) -> CheckRecord:
    """E1: for each MD ``p`` and at least ``fraction`` of the seeds, ``D_psi(What^mm_q, What(K)) <= tol``
    for ``q = q_for_svm(p)`` (default ``q = p``) and that ``q`` is the closest of ``{1.75, 2, 3}``."""
    seeds = default_seeds() if seeds is None else seeds
    qf = (lambda p: p) if q_for_svm is None else q_for_svm
    runs = _e1(seeds, ps, stable)
    lhs, rhs, info = [], [], {}
    for p in ps:
        r = runs[p]
        q = qf(p)
        final = {qq: r["D"][qq][-1] for qq in E1_PS}
        own = final[q]
        closest = np.all([own <= final[qq] for qq in E1_PS], axis=0)
        frac_small, frac_closest = float(np.mean(own <= tol)), float(np.mean(closest))
        lhs += [fraction, fraction]
        rhs += [frac_small, frac_closest]
        info[f"p={p}"] = {"q": q, "median_D_own": float(np.median(own)), "frac_below_tol": frac_small,
                          "frac_own_closest": frac_closest,
                          "median_D_by_q": {str(qq): float(np.median(final[qq])) for qq in E1_PS}}
    return check_bound(lhs, rhs, f"fraction of seeds with D(own SVM) <= {tol} and own SVM closest >= {fraction}",
                       params={"stable": stable, "n_seeds": len(seeds)}, extra={"per_p": info})


@claim_check("julistiono-lemma-29", "directional-convergence")
def check_lemma29(stable: bool = True, *, ps: tuple[float, ...] = E1_PS, seeds: tuple[int, ...] | None = None,
                  tol: float = 2e-2, fraction: float = 0.9) -> CheckRecord:
    """The main directional-convergence claim in the form the experiments use (normalized MD, E1 horizons):
    ``D_psi(What^mm_p, What(K)) <= tol`` for at least ``fraction`` of the seeds, and ``D`` decreases from the
    first to the last quarter of the run (median over seeds)."""
    seeds = default_seeds() if seeds is None else seeds
    runs = _e1(seeds, ps, stable)
    lhs, rhs, info = [], [], {}
    for p in ps:
        D = runs[p]["D"][p]
        K = D.shape[0]
        lhs.append(fraction)
        rhs.append(float(np.mean(D[-1] <= tol)))
        lhs.append(float(np.median(D[-1])))
        rhs.append(float(np.median(D[K // 4])))
        info[f"p={p}"] = {"median_final": float(np.median(D[-1])), "median_quarter": float(np.median(D[K // 4])),
                          "frac_below_tol": float(np.mean(D[-1] <= tol))}
    return check_bound(lhs, rhs, "directional Bregman divergence to the own-p SVM small and decreasing",
                       params={"stable": stable, "n_seeds": len(seeds)}, extra={"per_p": info})
