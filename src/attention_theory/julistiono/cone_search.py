"""Points of the Bregman cone and the objectives of the adversarial cone searches of Julistiono et
al. (Lemmas 19-21 and the sub-equations (12), (16), (17), (19), (21)), used by the chapter
``book/julistiono/attention-svm.md`` through the checks of
:mod:`attention_theory.julistiono.checks.attention_svm`.

A search point ``(U, s)`` is mapped to the unit-``l_p`` matrix on the ray ``What^mm + t U`` at
divergence ``sigmoid(s) mu`` (:func:`cone_map`); the objectives take the negative control's variant
as a keyword argument.  Everything here skips validation: the searches call it in their inner loops.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from attention_theory.config import pick
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.attention import (
    ConeInstance,
    cone_instance,
    cone_samples,
    lemma17_bound,
    lemma21_lower_bound,
    lemma21_R_eps,
    scaled_correlation,
)

#: ``(n, T, d)`` of the data sets the cone searches use: the smallest feasible one, one with
#: non-support tokens, and (full scale) two more.
CONE_SHAPES = ((1, 2, 2), (2, 3, 2))
CONE_SHAPES_FULL = ((1, 2, 2), (2, 3, 2), (3, 3, 3), (3, 4, 3))


def seed_range(first: int, count: int) -> str:
    """``"first ... last"`` for ``count`` consecutive data-set seeds (``"first"`` when one), for the
    records."""
    return str(first) if count == 1 else f"{first} ... {first + count - 1}"


def lp_unchecked(W: np.ndarray, p: float) -> float:
    """Entrywise ``l_p`` norm of one matrix without validation (the searches' inner loops)."""
    a = np.abs(W)
    m = a.max()
    return float(m * ((a / m) ** p).sum() ** (1.0 / p)) if m > 0 else 0.0


def logits_unchecked(X: np.ndarray, z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """:func:`~attention_theory.julistiono.model.logits` without validation (the searches' loops):
    ``X (n, T, d)``, ``z (n, d)``, ``W (d, d)`` give ``(n, T)``."""
    return np.matmul(X, np.matmul(z, W.T)[..., None])[..., 0]


def cone_map(inst: ConeInstance, U: np.ndarray, frac: float, mu: float) -> np.ndarray:
    """The unit-``l_p`` matrix on the ray ``What^mm + t U / ||U||_p`` with ``D_psi(What^mm, What) =
    frac * mu``: :func:`~attention_theory.julistiono.attention.cone_point` without validation, ``t``
    by the secant method on ``sqrt(D(t))`` (nearly linear in ``t``), Brent's method as the fallback.
    The adversarial searches' map of ``(U, frac)`` into ``S_{p, mu}``."""
    p = inst.p
    Wh = inst.Wmm / lp_unchecked(inst.Wmm, p)
    nU = lp_unchecked(U, p)
    if not 0 < nU < np.inf or frac <= 0:
        return Wh
    # D carries rounding ~1e-16 (it is 1 - <.,.>), i.e. ~1e-16/sqrt(D) in sqrt(D): solve to that
    # accuracy, aiming 1e-6 (relative) inside the cone so that the point found stays in it
    Dir, target = U / nU, frac * mu * (1 - 1e-6)

    def D(t: float) -> float:
        W = Wh + t * Dir
        W = W / lp_unchecked(W, p)
        return 1.0 - float(np.sum(np.sign(W) * np.abs(W) ** (p - 1) * Wh))

    def point(t: float) -> np.ndarray:
        W = Wh + t * Dir
        return W / lp_unchecked(W, p)

    r = math.sqrt(target)
    t0, h0 = 0.0, -r
    t1 = r
    for _ in range(12):
        h1 = math.sqrt(max(D(t1), 0.0)) - r
        if abs(h1) <= max(1e-10 * r, 4e-16 / r):
            return point(t1)
        if h1 == h0:
            break
        t0, t1, h0 = t1, t1 - h1 * (t1 - t0) / (h1 - h0), h1
        if not 0 < t1 < 1e3:
            break
    from scipy.optimize import brentq

    hi = max(r / 4, 1e-12)
    while D(hi) < target and hi < 1e3:
        hi *= 2
    return point(hi if D(hi) < target
                 else brentq(lambda t: D(t) - target, 0.0, hi, xtol=1e-12 * hi, rtol=1e-10))


def search_instances(seed: int, ps: tuple[float, ...], shapes: tuple[tuple[int, int, int], ...],
                      alpha_rule: str = "global") -> dict[tuple[float, tuple[int, int, int]], ConeInstance]:
    """Cone instances of the searches: data sets ``seed`` of the given ``(n, T, d)`` (those whose
    l_p-AttSVM for ``alpha_rule`` is feasible)."""
    out = {}
    for p in ps:
        for shape in shapes:
            try:
                out[(p, shape)] = cone_instance(seed, p, alpha_rule, *shape)
            except RuntimeError:   # alpha infeasible on this data set
                continue
    return out


def worst_ratio(lhs: list[float], rhs: list[float]) -> float:
    """Largest ``lhs / rhs`` over the pairs of a bound ``lhs <= rhs`` (the record's worst ratio): a pair
    with ``rhs <= 0`` counts ``-1`` when it holds and ``1e6 (1 + lhs - rhs)`` (above 1) when it fails."""
    out = -np.inf
    for a, b in zip(lhs, rhs):
        out = max(out, a / b if b > 0 else (-1.0 if a <= b else 1e6 * (1 + a - b)))
    return float(out)


def sigmoid(x: float) -> float:
    """The logistic function of a float, ``x`` clamped to ``[-700, 700]`` (``math``, no numpy)."""
    return 1.0 / (1.0 + math.exp(-min(max(x, -700.0), 700.0)))


def cone_pair_point(inst: ConeInstance, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(What, V)`` from a search point ``x = (U, s, U', s', ...)``: ``What`` the cone point of
    ``(U, s)`` and ``V = ||W^mm|| *`` the cone point of ``(U', s')`` (both in ``S_{p, mu0}``)."""
    d2, sh = inst.Wmm.size, inst.Wmm.shape
    Wh = cone_map(inst, x[:d2].reshape(sh), sigmoid(x[d2]), inst.mu0)
    Vh = cone_map(inst, x[d2 + 1:2 * d2 + 1].reshape(sh), sigmoid(x[2 * d2 + 1]), inst.mu0)
    return Wh, inst.norm_mm * Vh


def normalised_correlation(inst: ConeInstance, W: np.ndarray, V: np.ndarray) -> float:
    """``<-grad L(W), V>`` (log domain, :func:`~attention_theory.julistiono.attention.scaled_correlation`)
    divided by the same sums with absolute values, so in ``[-1, 1]``: its sign is the sign of the
    correlation at any ``||W||``."""
    c, sh = scaled_correlation(inst, W, V)
    n = inst.X.shape[0]
    ar = np.arange(n)
    h, a = logits_unchecked(inst.X, inst.z, W), logits_unchecked(inst.X, inst.z, V)
    gaps = h[ar, inst.alpha][:, None] - h
    gt = np.abs(inst.gamma[ar, inst.alpha][:, None] - inst.gamma)
    at = np.abs(a[ar, inst.alpha][:, None] - a)
    mask = np.ones_like(h, dtype=bool)
    mask[ar, inst.alpha] = False
    e = np.where(mask, np.exp(-gaps), 0.0)
    s_alpha = 1.0 / (1.0 + e.sum(axis=1))
    w = s_alpha[:, None] * e
    ws = s_alpha[:, None] * np.where(mask, np.exp(-gaps + sh), 0.0)
    u = inst.gamma[ar, inst.alpha] - np.sum(w * (inst.gamma[ar, inst.alpha][:, None] - inst.gamma), axis=1)
    scale = float(np.mean(-mj.loss_derivative(u) * (np.sum(ws * gt * at, axis=1)
                                                    + np.sum(w * gt, axis=1) * np.sum(ws * at, axis=1))))
    return c / scale if scale > 0 else 0.0


def cone_init(n_points: int, extra: int) -> Callable:
    """Starts of the cone searches, ``init(size, rng)`` for ``size = (p, (n, T, d))``: ``n_points``
    (direction, level) blocks (``d^2`` normal entries and a level ``U(0, 6)``, near the boundary),
    and ``extra`` standard-normal coordinates."""
    def init(size: tuple[float, tuple[int, int, int]], g: np.random.Generator) -> np.ndarray:
        d2 = size[1][2] ** 2
        blocks = [np.append(g.standard_normal(d2), g.uniform(0, 6)) for _ in range(n_points)]
        return np.concatenate(blocks + [g.standard_normal(extra)])
    return init


def lemma19_terms(inst: ConeInstance, Wh: np.ndarray, margin: float) -> tuple[list, list, dict]:
    """The two bounds of Lemma 19 (``lhs <= rhs``: ``||Wbar - W^mm||_p <= delta/(2A)`` and the
    constraint perturbation ``<= delta/2``) and the (12a)-(12c) pairs ``{name: (lhs, rhs)}`` at the
    unit-norm cone point ``Wh``, with ``margin`` (3/2) the constant of (12a)/(12b)."""
    p, d_, A = inst.p, inst.delta, inst.A
    n = inst.X.shape[0]
    ar = np.arange(n)
    Wbar = inst.norm_mm * Wh
    hb = logits_unchecked(inst.X, inst.z, Wbar)
    hm = logits_unchecked(inst.X, inst.z, inst.Wmm)
    pert = np.abs((hb - hm)[:, :, None] - (hb - hm)[:, None, :])
    lhs, rhs = [lp_unchecked(Wbar - inst.Wmm, p), float(pert.max())], [d_ / (2 * A), d_ / 2]
    m12 = {"12a": ([], []), "12b": ([], []), "12c": ([], [])}
    sl = hb[ar, inst.alpha][:, None] - hb          # (x_alpha - x_t)^T Wbar z
    for i in range(n):
        S, N = inst.support[i], inst.nonsupport[i]
        if S.any() and N.any():   # (12a): (x_t - x_tau)^T Wbar z >= 3 delta / 2
            m12["12a"][0].append(margin * d_)
            m12["12a"][1].append((sl[i][N][None, :] - sl[i][S][:, None]).min())
        if N.any():               # (12b)
            m12["12b"][0].append(1 + margin * d_)
            m12["12b"][1].append(sl[i][N].min())
        if S.any():               # (12c)
            m12["12c"][0].extend([1 - d_ / 2, sl[i][S].max()])
            m12["12c"][1].extend([sl[i][S].min(), 1 + d_ / 2])
    return lhs, rhs, m12


def cone_pairs(inst: ConeInstance, rng: np.random.Generator, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(What, Vbar)``: unit-norm ``What`` in the cone and ``Vbar`` in the cone with ``||Vbar|| =
    ||W^mm||`` (including ``Vbar = W^mm`` and ``Vbar = ||W^mm|| What``), from ``k`` random and some
    adversarial-direction cone points (:func:`~attention_theory.julistiono.attention.cone_samples`)."""
    pts = cone_samples(inst, inst.mu0, rng, k, n_adversarial=pick(8, 60))
    pairs = []
    for j, Wh in enumerate(pts):
        pairs.append((Wh, inst.Wmm))
        pairs.append((Wh, inst.norm_mm * Wh))
        pairs.append((Wh, inst.norm_mm * pts[(j * 7 + 3) % len(pts)]))
    return pairs


# the objectives of the searches of Lemmas 20 and 21: f(size, x) for numpy_objective, size = (p, (n, T, d))


def lemma20_value(size: tuple, x: np.ndarray, *, insts: dict, radii: dict) -> float:
    """Minus the normalised correlation ``<-grad L(W), V>`` (:func:`normalised_correlation`) at the
    cone pair of ``x = (U, s, U', s', r)`` (:func:`cone_pair_point`) on ``insts[size]``, ``W = rho
    ||W^mm|| What`` with ``rho = radii[size] (1 + e^r)`` (``r`` clamped to ``[-20, 5]``): positive where
    Lemma 20 fails."""
    inst_ = insts[size]
    Wh, V = cone_pair_point(inst_, x)
    rho = radii[size] * (1 + math.exp(min(max(x[-1], -20.0), 5.0)))
    return -normalised_correlation(inst_, rho * inst_.norm_mm * Wh, V)


def eq16_ratio(size: tuple, x: np.ndarray, *, insts: dict, band: float) -> float:
    """The worst ratio (:func:`worst_ratio`) of the softmax-ratio bounds (16) at the cone point of
    ``x = (U, s)`` on ``insts[size]``: support gaps within ``[1 - band delta, 1 + band delta]`` (``band``
    1/2), non-support gaps at least ``1 + 3 delta / 2`` (in units of ``rho``, which they do not depend
    on)."""
    inst_ = insts[size]
    d2 = inst_.Wmm.size
    Wh = cone_map(inst_, x[:d2].reshape(inst_.Wmm.shape), sigmoid(x[d2]), inst_.mu0)
    sl = logits_unchecked(inst_.X, inst_.z, inst_.norm_mm * Wh)
    gap = sl[np.arange(sl.shape[0]), inst_.alpha][:, None] - sl
    d_ = inst_.delta
    gs, gn = gap[inst_.support], gap[inst_.nonsupport]
    return worst_ratio([1 - band * d_] * gs.size + list(gs) + [1 + 1.5 * d_] * gn.size,
                       list(gs) + [1 + band * d_] * gs.size + list(gn))


def eq17_ratio(size: tuple, x: np.ndarray, *, insts: dict, radii: dict, constants: dict,
               rate: float) -> float:
    """(17)'s lower bound (:func:`~attention_theory.julistiono.attention.lemma17_bound` with
    ``constants[size]``) over the correlation scaled by ``e^{rate (1 + delta/2) rho}`` (``rate`` 1), at
    the cone pair of ``x = (U, s, U', s', r)``, ``rho = 0.5 + (4 radii[size] - 0.5) sigmoid(r)``;
    ``-inf`` where ``delta rho >= 600`` (the scaling overflows)."""
    inst_ = insts[size]
    Wh, V = cone_pair_point(inst_, x)
    rho = 0.5 + (4 * radii[size] - 0.5) * sigmoid(x[-1])
    if inst_.delta * rho >= 600:
        return -np.inf
    corr, _ = scaled_correlation(inst_, rho * inst_.norm_mm * Wh, V,
                                 shift=rate * (1 + inst_.delta / 2) * rho)
    return worst_ratio([lemma17_bound(inst_, rho, constants[size])], [corr])


def lemma21_point(inst: ConeInstance, x: np.ndarray,
                  eps_range: tuple[float, float]) -> tuple[float, float, np.ndarray]:
    """``(eps, rho, Wbar)`` of the search point ``x = (U, s, e, r)``: ``Wbar = ||W^mm||`` times the cone
    point of ``(U, s)``, ``eps`` in ``eps_range`` from ``sigmoid(e)``, ``rho = R_eps (1 + e^r)`` with
    Lemma 21's ``R_eps`` (60 where it is infinite; ``r`` clamped to ``[-20, 5]``)."""
    d2 = inst.Wmm.size
    Wbar = inst.norm_mm * cone_map(inst, x[:d2].reshape(inst.Wmm.shape), sigmoid(x[d2]), inst.mu0)
    e_lo, e_hi = eps_range
    eps = e_lo + (e_hi - e_lo) * sigmoid(x[-2])
    R = lemma21_R_eps(inst, eps)
    R = R if math.isfinite(R) else 60.0
    return eps, R * (1 + math.exp(min(max(x[-1], -20.0), 5.0))), Wbar


def lemma21_ratio(size: tuple, x: np.ndarray, *, insts: dict, eps_range: tuple[float, float]) -> float:
    """Lemma 21's ratio ``(1 - eps) <-grad L, What> / <-grad L, What^mm>`` (both scaled by the same
    ``e^shift``) at the point of :func:`lemma21_point` on ``insts[size]``."""
    inst_ = insts[size]
    eps, rho, Wbar = lemma21_point(inst_, x, eps_range)
    a, sh = scaled_correlation(inst_, rho * Wbar, inst_.Wmm)
    b, _ = scaled_correlation(inst_, rho * Wbar, Wbar, shift=sh)
    return worst_ratio([(1 - eps) * b], [a])


def eq19_value(size: tuple, x: np.ndarray, *, insts: dict, eps_range: tuple[float, float],
               eps_sign: float) -> float:
    """Minus the rescaled correlation (19), ``<-grad L, W^mm - (1 - eps_sign eps) Wbar>``, normalised by
    the larger of the two correlations of Lemma 21, at the point of :func:`lemma21_point`: positive
    where (19) fails (``eps_sign`` 1)."""
    inst_ = insts[size]
    eps, rho, Wbar = lemma21_point(inst_, x, eps_range)
    a, sh = scaled_correlation(inst_, rho * Wbar, inst_.Wmm)
    b, _ = scaled_correlation(inst_, rho * Wbar, Wbar, shift=sh)
    c19, _ = scaled_correlation(inst_, rho * Wbar, inst_.Wmm - (1 - eps_sign * eps) * Wbar, shift=sh)
    return -c19 / max(abs(a), abs(b), 1e-300)


def eq21_ratio(size: tuple, x: np.ndarray, *, insts: dict, eps_range: tuple[float, float],
               rate: float) -> float:
    """(21)'s lower bound (:func:`~attention_theory.julistiono.attention.lemma21_lower_bound`) over
    ``e^{rate rho} <-grad L, W^mm - (1 - eps) Wbar>`` (``rate`` 1) at the point of
    :func:`lemma21_point`."""
    inst_ = insts[size]
    eps, rho, Wbar = lemma21_point(inst_, x, eps_range)
    c, _ = scaled_correlation(inst_, rho * Wbar, inst_.Wmm - (1 - eps) * Wbar, shift=rate * rho)
    return worst_ratio([lemma21_lower_bound(inst_, eps, rho)], [c])
