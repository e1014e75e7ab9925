"""The instances, adversarial searches and limit families of the loss-landscape checks of Deora et
al. (Lemma 6, Corollary 1, Eqs. (14)-(16); chapter ``book/deora/landscape.md``).

* Lemma 6 / Corollary 1: the quantities and right sides of items 1-3
  (:func:`landscape_quantities`, :func:`lemma6_rhs`), the search over tokens, heads and the token
  radius ``R`` (:func:`landscape_point`, :func:`landscape_ratio`, :func:`searched_points`) and the
  families along which the ratios reach their suprema (:func:`tight_families`);
* Eqs. (14)-(16): the smallest Hessian eigenvalue along a segment (:func:`lam_min_batch`,
  :func:`segment_lam_min`, :func:`min_lam_on_segment`, :func:`seg_lam_min`), random,
  negative-curvature and GD pairs (:func:`pair_instances`, :func:`segments`), the searched pairs
  (:func:`segment_search` with the ratios :func:`taylor_ratio`, :func:`eq15_ratio`,
  :func:`eq16_ratio`) and the instances of Eq. (14) (:func:`taylor_instances`, :func:`taylor_search`).

The expensive deterministic ones (:func:`searched_points`, :func:`taylor_instances`,
:func:`taylor_search`) are kept on disk (:func:`attention_theory.compute_cache.cached_on_disk`),
so the chapter and its negative controls (other processes) compute each once; their keys hold
every argument, and the negative controls' wrong variants change only what the checks do with
these instances, never the instances themselves.  The checks are in
:mod:`attention_theory.deora.checks.landscape`.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import scipy.optimize as so
import torch

from attention_theory.compute_cache import cached_on_disk
from attention_theory.config import cached_per_scale, pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.calculus import box, into_ball, maximize_each, search_tensor, search_value
from attention_theory.deora.landscape import (
    loss_and_grad,
    random_heads,
    risk_batch,
    risk_closed_form,
    risk_fn,
)
from attention_theory.foundations import hessian as hs
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import VERIFICATION_DTYPE, f64
from attention_theory.search import SizedSearch

__all__ = ["GD_SEGMENTS_FAMILY", "LOG10_R", "PAIRS_FAMILY", "SEARCHED_PAIRS_FAMILY", "beta3_t",
           "bottom_eigvec",
           "eq15_ratio", "eq16_ratio", "head_scaling", "lam_min_batch", "landscape_init", "landscape_point",
           "landscape_quantities", "landscape_ratio", "lemma6_rhs", "min_lam_on_segment", "pair_instances",
           "ratio_items", "search_data", "searched_points", "seg_lam_min", "segment_lam_min",
           "segment_search",
           "segment_sizes", "segments", "taylor_instances", "taylor_ratio", "taylor_search", "tight_families"]


def _hessians(loss: Callable, thetas: torch.Tensor) -> torch.Tensor:
    """Exact Hessians at a batch of points ``(m, p) -> (m, p, p)`` (vmap of torch.func.hessian)."""
    return torch.func.vmap(torch.func.hessian(loss))(thetas)


def lam_min_batch(loss: Callable, thetas: torch.Tensor) -> np.ndarray:
    Hm = _hessians(loss, thetas)
    return torch.linalg.eigvalsh(0.5 * (Hm + Hm.transpose(1, 2)))[:, 0].numpy()


def bottom_eigvec(loss: Callable, theta: torch.Tensor) -> tuple[float, torch.Tensor]:
    Hm = hs.exact_hessian(loss, theta)
    ev, V = torch.linalg.eigh(Hm)
    return float(ev[0]), V[:, 0]


def landscape_quantities(th: torch.Tensor, Xs, ys, H: int) -> dict[str, float]:
    loss = risk_fn(Xs, ys, H)
    L, g = (float(v) if v.ndim == 0 else v for v in loss_and_grad(loss, th))
    ev = torch.linalg.eigvalsh(hs.exact_hessian(loss, th))
    return {"L": L, "grad": float(torch.linalg.norm(g)), "hess": float(ev.abs().max()),
            "lam": float(ev[0])}


def lemma6_rhs(b: float, T: int, d: int, R: float, H: int, L: float,
                scales: dict[str, float]) -> dict[str, float]:
    return {"1": scales.get("1", 1.0) * bd.beta1(b, T, d, R) * L,
            "2": scales.get("2", 1.0) * bd.beta2(b, T, d, R, H),
            "3": scales.get("3", 1.0) * bd.kappa(b, T, d, R, H) * L}


def ratio_items(q: dict[str, float], rhs: dict[str, float]) -> tuple[list, list]:
    lhs = [q["grad"], q["hess"], max(0.0, -q["lam"])]
    return lhs, [rhs["1"], rhs["2"], rhs["3"]]


#: ``log10`` of the token radius ``R`` the adversarial search of Lemma 6 / Corollary 1 moves over.
LOG10_R = (-3.0, 0.5)


def head_scaling(H: int, T: int, d: int, R):
    """Per-entry factors ``1/R`` (``U_h``) and ``1/R^2`` (``W_h``) of a flat parameter vector."""
    is_u = torch.as_tensor(np.tile(np.r_[np.ones(T * d), np.zeros(d * d)], H), dtype=VERIFICATION_DTYPE)
    return is_u / R + (1.0 - is_u) / R**2


def landscape_point(size: tuple[str, int, int, int, int],
                    z) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(tokens (n, T, d), theta, R)`` of a search point ``z = (tokens', heads', r)``:
    ``R = 10^box(r)`` in ``[1e-3, 10^0.5]``, tokens' pulled into the unit ball and scaled by ``R``,
    heads' rescaled to ``U_h = U_h'/R``, ``W_h = W_h'/R^2``.  ``X W X^T`` and ``<U, phi(.) X>`` are
    then those of ``(tokens', heads')`` at ``R = 1`` whatever ``R``: moving ``R`` moves only the
    weights of the bounds (``R`` is the searched scale parameter)."""
    _, T, d, n, H = size
    t = search_tensor(z)
    R = 10.0 ** box(t[-1], *LOG10_R)
    Xs = R * into_ball(t[:n * T * d].reshape(n, T, d), 1.0)
    th = t[n * T * d:-1] * head_scaling(H, T, d, R)
    return Xs, th, R


def landscape_ratio(size: tuple[str, int, int, int, int], z, b_of: str):
    """Search objective of Lemma 6 (``b_of="mU"``) / Corollary 1 (``"2inf"``) at ``z`` (decoded by
    :func:`landscape_point`): item 1 ``||grad L|| / (beta1 L)``, item 2 ``||Hess L|| / beta2``, item 3
    ``-lambda_min / (kappa L)`` (signed, so it has a gradient when ``lambda_min > 0``); labels
    alternating, ``L``, gradient and Hessian from the closed forms (:func:`risk_closed_form`)."""
    item, T, d, n, H = size
    Xs, th, R = landscape_point(size, z)
    ys = f64(np.array([(-1.0) ** i for i in range(n)]))
    L, g, Hm = risk_closed_form(th, Xs, ys, H)
    Us, _ = md.unpack_heads(th, H, T, d)
    b = torch.linalg.vector_norm((Us if b_of == "mU" else th).reshape(H, -1), dim=1).max()
    b1 = math.sqrt(T) * R * (2 * R**2 * b + 1)
    b3 = 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)
    if item == "1":
        return search_value(torch.linalg.vector_norm(g) / (b1 * L), z)
    ev = torch.linalg.eigvalsh(0.5 * (Hm + Hm.T))
    if item == "2":
        return search_value(ev.abs().max() / (b3 / math.sqrt(H) + b1**2 / 4), z)
    return search_value(-ev[0] / (b3 / math.sqrt(H) * L), z)


def landscape_init(size: tuple[str, int, int, int, int], rng: np.random.Generator) -> np.ndarray:
    """Tokens of norms in ``[1/2, 1]``, heads from small to saturated, ``log10 R`` uniform on its range."""
    _, T, d, n, H = size
    X = rng.standard_normal((n, T, d))
    X *= 1.0 / np.linalg.norm(X, axis=2, keepdims=True).clip(1e-12) * rng.uniform(0.5, 1, (n, T, 1))
    th = random_heads(rng, H, T, d, u_scale=10 ** rng.uniform(-0.5, 1),
                      w_scale=10 ** rng.uniform(0, 2)).numpy()
    u = rng.uniform(0.02, 0.98)
    return np.concatenate([X.ravel(), th, [math.log(u / (1 - u))]])


@cached_per_scale(maxsize=2)
@cached_on_disk(allowed=(SizedSearch,))  # shared by the chapter and its negative controls
def searched_points(b_of: str = "mU", seed: int = 101) -> tuple:
    """Adversarial (tokens, parameters, ``R``) per item and size ``(item, T, d, n, H)``, searched
    against the paper's bounds (Lemma 6: ``m_U``; Corollary 1: ``||theta||_{2,inf}``) with L-BFGS and
    Nelder-Mead (:func:`maximize_each`); cached.  Items 2-3 from ``T = 2`` on (one token: convex risk)."""
    sizes = pick([("1", 1, 1, 1, 1), ("1", 2, 2, 1, 1), ("2", 2, 1, 1, 1), ("2", 2, 2, 1, 1),
                  ("3", 2, 1, 1, 1), ("3", 2, 2, 1, 1)],
                 [(k, T, d, n, H) for k in "123" for (T, d, n, H) in
                  ((1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1, 1), (2, 2, 2, 1), (2, 1, 1, 2), (3, 2, 2, 2))
                  if k == "1" or T > 1])
    return maximize_each(lambda size, z: landscape_ratio(size, z, b_of), landscape_init, sizes,
                         restarts=pick(2, 4), steps=pick(8, 40), seed=seed)


def tight_families() -> list[dict]:
    """Instances along which the ratios of Lemma 6 / Corollary 1 approach their suprema.

    Each entry: ``item``, ``family``, ``parameter``, ``values``, ``instances`` (``(theta, Xs, ys,
    H, T, d, R)`` per value), ``supremum`` and ``limit`` (whether the sequence reaches its supremum
    within :func:`limit_sequence`'s tolerance).  On all of them ``W = 0`` (and ``U = 0`` for item 2),
    so ``||theta||_{2,inf} = m_U`` and Lemma 6 and Corollary 1 have the same ratios.

    Item 1 (sup 1).  ``T = d = n = H = 1``: a single score has softmax 1, so ``Phi = U x`` and the
    ``W``-gradient vanishes.  With ``x = R``, ``y = +1``, ``U = z/R`` (margin ``z``):
    ``||grad L|| = sigma(-z) R``, ``b = z/R`` and the ratio is
    ``[sigma(-z) / log(1 + e^-z)] / (1 + 2 R z)``; the first factor is ``1 - e^-z/2 + O(e^-2z)``, so
    ``z = log(1/(4R))`` gives a gap of about ``2R (1 + log(1/(4R)))``, which vanishes as ``R -> 0``.

    Item 2 (sup 1).  Identical tokens ``x_t = x``, ``||x|| = R``: every score ``x^T W x`` is the
    same, the attention is uniform for every ``W`` and ``Phi_h = <U_h, X>`` does not depend on
    ``W_h``: ``Hess Phi = 0`` (the curvature term of (65) vanishes) and ``grad Phi_h = (X, 0)``.  At
    ``U = W = 0`` (``b = 0``) the margin is 0, ``l''(0) = 1/4`` and ``||grad Phi~||^2 = T R^2``, so
    ``||Hess L|| = T R^2 / 4 = beta1(0)^2 / 4`` and the ratio is ``1 / (1 + 8 sqrt(d/T) R / sqrt(H))``:
    1 in the limit ``R -> 0`` (a sequence) or ``H -> infinity`` (at ``R = 1`` the gap falls only
    like ``1/sqrt(H)``: a family of instances, not a limit within tolerance).  ``T = 2``, ``d = 1``.

    Item 3 (sup 1/2, not 1).  The Gauss-Newton term is positive semidefinite, so
    ``-lambda_min <= (1/n) sum_i |l'_i| ||Hess Phi~_i|| <= L max_h ||Hess Phi_h|| / sqrt(H)``, and
    ``||Hess Phi_h|| <= sqrt(T) R^3 + sqrt(3 T) R^5 ||U_h||``: the ``U``-``W`` block is
    ``sum_t u_t^T Cov_t E^T x_t`` with ``Cov_t`` the covariance of the tokens under the attention of
    row ``t`` (``||Cov_t|| <= R^2``), the ``W``-``W`` block ``sum_t E_t[((a - a_bar)^2 - Var a)
    u_t^T (x - mu_t)]`` with ``|a_s| <= R^2 ||E||`` (Cauchy-Schwarz: at most ``sqrt(3) R^5 ||E||^2 ||u_t||``).
    Against ``beta3 = 2 sqrt(T d) R^3 + 6 d sqrt(T) R^5 b`` the two terms are at most
    ``1/(2 sqrt(d))`` and ``sqrt(3)/(6 d)`` of theirs, so the ratio stays below ``1/(2 sqrt(d)) <= 1/2``.
    It approaches 1/2 with ``d = 1``, ``T = 2``, tokens ``R`` and ``-R (1 - 2 eps)`` (attention
    covariance ``R^2 (1 - eps)^2`` at ``W = 0``), ``U_h = (eps/R^2)(1, 1)/sqrt(2)`` and ``H = 2``
    identical heads: the direction ``(v, -v)/sqrt(2)`` across the heads is orthogonal to
    ``grad Phi~``, so the Gauss-Newton term drops out and ``-lambda_min/L >= (|l'|/l)
    lambda_max(Hess Phi_1)/sqrt(H)``; ``R = eps^2/10`` holds the margin ``2 eps^2/R`` at 20
    (``|l'|/l = 1 - 1e-9``) while ``R^2 b = eps -> 0`` and the covariance tends to ``R^2``.
    """
    y1 = np.array([1.0])
    out = []
    R1 = [1e-1, 1e-2, 1e-3, 1e-4, 1e-6]
    out.append({"item": "1", "key": "item1_one_token", "supremum": 1.0, "limit": True,
                "family": "item 1: T = d = n = H = 1, W = 0, x = R, y = +1, margin z = log(1/(4R)) (U = z/R)",
                "parameter": "R -> 0", "values": R1,
                "instances": [(md.pack_heads(np.full((1, 1, 1), math.log(1 / (4 * R)) / R),
                                             np.zeros((1, 1, 1))),
                               np.full((1, 1, 1), R), y1, 1, 1, 1, R) for R in R1]})

    def same_tokens(R: float, H: int) -> tuple:
        theta = torch.zeros(H * md.head_size(2, 1), dtype=VERIFICATION_DTYPE)
        return (theta, np.full((1, 2, 1), R), y1, H, 2, 1, R)

    R2 = [1.0, 1e-1, 1e-2, 1e-3, 1e-4]
    out.append({"item": "2", "key": "item2_identical_tokens_R", "supremum": 1.0, "limit": True,
                "family": "item 2: identical tokens of norm R (T = 2, d = 1), U = W = 0, n = H = 1",
                "parameter": "R -> 0", "values": R2, "instances": [same_tokens(R, 1) for R in R2]})
    H2 = pick([1, 4, 16, 64], [1, 4, 16, 64, 256, 1024])
    out.append({"item": "2", "key": "item2_identical_tokens_H", "supremum": 1.0, "limit": False,
                "family": "item 2: identical tokens of norm R = 1 (T = 2, d = 1), U = W = 0, n = 1",
                "parameter": "H -> infinity", "values": H2, "instances": [same_tokens(1.0, H) for H in H2]})
    eps3 = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3]

    def two_points(eps: float) -> tuple:
        R = eps**2 / 10
        U = np.full((2, 2, 1), eps / R**2 / math.sqrt(2))
        tokens = np.array([[[R], [-R * (1 - 2 * eps)]]])
        return (md.pack_heads(U, np.zeros((2, 1, 1))), tokens, y1, 2, 2, 1, R)

    out.append({"item": "3", "key": "item3_two_identical_heads", "supremum": 0.5, "limit": True,
                "family": "item 3: tokens R and -R(1 - 2 eps) (T = 2, d = 1), W = 0, U_h = (eps/R^2)(1, "
                          "1)/sqrt(2), H = 2 identical heads, n = 1, y = +1, R = eps^2/10 (margin 20)",
                "parameter": "eps -> 0", "values": eps3, "instances": [two_points(e) for e in eps3]})
    return out


def segment_lam_min(loss: Callable, a: torch.Tensor, b: torch.Tensor,
                    grid: int) -> tuple[np.ndarray, np.ndarray]:
    al = np.linspace(0.0, 1.0, grid)
    pts = f64(al).unsqueeze(1) * a + (1 - f64(al).unsqueeze(1)) * b
    return al, lam_min_batch(loss, pts)


def min_lam_on_segment(loss, a, b, grid: int) -> float:
    al, lam = segment_lam_min(loss, a, b, grid)
    i = int(np.argmin(lam))
    best = float(lam[i])
    lo, hi = al[max(i - 1, 0)], al[min(i + 1, grid - 1)]
    f = lambda x: float(torch.linalg.eigvalsh(hs.exact_hessian(loss, x * a + (1 - x) * b))[0])
    res = so.minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-8, "maxiter": 30})
    return min(best, float(res.fun))


def search_data(size: tuple[int, int, int, int], seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The fixed ``F-rand`` data of a segment-search size ``(H, T, d, n)``."""
    H, T, d, n = size
    Xs, ys = md.sample_bounded_tokens(n, T, d, 1.0, seed=seed + 7919 * T + 101 * d + 13 * n + H)
    return f64(Xs), f64(ys)


def segment_search(ratio: Callable, sizes: list[tuple[int, int, int, int]], *, seed: int,
                    restarts: int, steps: int) -> tuple:
    """Adversarial pairs ``(theta_1, theta_2)`` on fixed data per size ``(H, T, d, n)``:
    ``ratio(size, theta_1, theta_2, Xs, ys)`` (a 0-d tensor) maximized with L-BFGS and Nelder-Mead
    (:func:`maximize_each`) from random heads and a second point at distance 0.1-2."""
    data = {size: search_data(size, seed) for size in sizes}

    def obj(size, z):
        H, T, d, _ = size
        t = search_tensor(z)
        p = H * md.head_size(T, d)
        return search_value(ratio(size, t[:p], t[p:], *data[size]), z)

    def init(size, g: np.random.Generator) -> np.ndarray:
        H, T, d, _ = size
        a = random_heads(g, H, T, d, u_scale=10 ** g.uniform(0, 0.8), w_scale=10 ** g.uniform(0, 1)).numpy()
        v = g.standard_normal(a.size)
        return np.concatenate([a, a + 10 ** g.uniform(-1, 0.3) * v / np.linalg.norm(v)])

    res, points = maximize_each(obj, init, sizes, restarts=restarts, steps=steps, seed=seed)
    out = []
    for size, (_, z) in points.items():
        H, T, d, _ = size
        p = H * md.head_size(T, d)
        Xs, ys = data[size]
        out.append((risk_fn(Xs, ys, H), f64(z[:p]), f64(z[p:]), H, T, d, Xs, ys))
    return res, out


def seg_lam_min(a: torch.Tensor, b: torch.Tensor, Xs, ys, H: int, grid: int
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``lambda_min`` of the closed-form risk Hessian, the risk and its gradient at ``grid`` points
    ``alpha a + (1 - alpha) b`` (``alpha`` from 0 to 1, so the first point is ``b`` and the last ``a``;
    differentiable; the search objectives of Eqs. (14)-(15))."""
    lam, L, G = [], [], []
    for al in np.linspace(0.0, 1.0, grid):
        Lp, g, Hm = risk_closed_form(al * a + (1 - al) * b, Xs, ys, H)
        lam.append(torch.linalg.eigvalsh(0.5 * (Hm + Hm.T))[0])
        L.append(Lp)
        G.append(g)
    return torch.stack(lam), torch.stack(L), torch.stack(G)


def beta3_t(th: torch.Tensor, H: int, T: int, d: int, R: float = 1.0) -> torch.Tensor:
    b = torch.linalg.vector_norm(th.reshape(H, -1), dim=1).max()
    return 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)


def taylor_ratio(size, thk, th, Xs, ys) -> torch.Tensor:
    """(Taylor right side of (14)) / L(theta), the minimum of lambda_min over 3 (smoke) or 7 (full)
    points of the segment (the pairs found are re-checked with the refined minimum)."""
    delta = th - thk
    lam, L, G = seg_lam_min(th, thk, Xs, ys, H=size[0], grid=pick(3, 7))   # L[0], G[0] at theta_k
    return (L[0] + G[0] @ delta + 0.5 * lam.min() * (delta @ delta)) / L[-1]


def eq15_ratio(size, a, b, Xs, ys) -> torch.Tensor:
    """Largest ``-lambda_min / (kappa_bar L)`` over 3 (smoke) or 7 (full) points of ``[a, b]`` (signed:
    it has a gradient when the risk is convex there)."""
    H, T, d, _ = size
    kb = torch.maximum(beta3_t(a, H, T, d), beta3_t(b, H, T, d)) / math.sqrt(H)
    lam, L, _ = seg_lam_min(a, b, Xs, ys, H, pick(3, 7))
    return (-lam / (kb * L)).max()


def eq16_ratio(size, thk, th, Xs, ys, curvature: float = 1.0) -> torch.Tensor:
    """(right side of (16)) / L(theta), the segment maximum of ``L`` over 11 points."""
    H, T, d, _ = size
    delta = th - thk
    kb = torch.maximum(beta3_t(th, H, T, d), beta3_t(thk, H, T, d)) / math.sqrt(H)
    al = f64(np.linspace(0.0, 1.0, 11)).unsqueeze(1)
    Ls = risk_batch(al * th + (1 - al) * thk, Xs, ys, H)       # Ls[0] = L(theta_k), Ls[-1] = L(theta)
    gk = risk_closed_form(thk, Xs, ys, H, hessian=False)[1]
    return (Ls[0] + gk @ delta - curvature * 0.5 * kb * Ls.max() * (delta @ delta)) / Ls[-1]


def segment_sizes() -> list[tuple[int, int, int, int]]:
    """Sizes ``(H, T, d, n)`` of the segment searches: from two tokens (with one token the model is
    linear in ``U`` and the risk convex) and one sample."""
    return pick([(1, 2, 1, 1), (1, 2, 2, 1)], [(1, 2, 1, 1), (1, 2, 2, 1), (2, 2, 1, 2), (1, 3, 2, 2)])


#: The families of the segment statements (Eqs. (14)-(16)), for ``check_bound(families=...)``.
PAIRS_FAMILY = ("{count} pairs on fixed data (n = 4, (T, d) in {{(2, 2), (3, 2)}}, H in {{1, 2, 4}}, R = "
                "1): theta_k random heads, theta at distance 0.1-2 along the most negative curvature "
                "direction (one in three) or a random direction")


GD_SEGMENTS_FAMILY = ("GD segments from iterates 0, 10 and 39 to the last of 40 GD steps at step size 0.5 "
                      "(n = 8, T = 3, d = 2, H in {1, 4}, start u_scale = 4, w_scale = 6)")


SEARCHED_PAIRS_FAMILY = ("adversarial pairs on fixed data, L-BFGS + Nelder-Mead on the ratio of the two "
                         "sides, sizes (H, T, d, n) from (1, 2, 1, 1)")


def pair_instances(rng: np.random.Generator, count: int) -> list[tuple]:
    """(loss, theta_k, theta, H, T, d, Xs, ys) for random pairs and negative-curvature pairs."""
    out = []
    for i in range(count):
        H = (1, 1, 2, 4)[i % 4]
        T, d = (2, 2) if i % 2 else (3, 2)
        Xs, ys = md.sample_bounded_tokens(4, T, d, 1.0, seed=int(rng.integers(1 << 30)))
        loss = risk_fn(Xs, ys, H)
        thk = random_heads(rng, H, T, d, u_scale=float(rng.uniform(1, 6)), w_scale=float(rng.uniform(1, 10)))
        dist = float(10 ** rng.uniform(-1, 0.3))
        if i % 3 == 0:     # along the most negative curvature direction at theta_k
            _, v = bottom_eigvec(loss, thk)
        else:
            v = f64(rng.standard_normal(thk.numel()))
        th = thk + dist * v / torch.linalg.norm(v)
        out.append((loss, thk, th, H, T, d, Xs, ys))
    return out


@cached_per_scale(maxsize=2)
@cached_on_disk()  # shared by the chapter and its negative controls (other processes)
def taylor_instances(seed: int) -> list[tuple]:
    """``(Xs, ys, H, theta_k, theta, L(theta), Taylor right side of (14))`` on the random and
    negative-curvature pairs of :func:`pair_instances` (data as float64 tensors; the loss is
    ``risk_fn(Xs, ys, H)``); the minimum of lambda_min over the segment uses a grid plus bounded
    refinement (exact Hessians).  Kept on disk (:func:`~attention_theory.compute_cache.cached_on_disk`).
    Used by the checks of Eq. (14) (``book/deora/landscape.md``)."""
    out = []
    for loss, thk, th, H, _T, _d, Xs, ys in pair_instances(np.random.default_rng(seed), pick(8, 60)):
        Lk, gk = loss_and_grad(loss, thk)
        delta = th - thk
        mlam = min_lam_on_segment(loss, th, thk, pick(21, 101))
        out.append((f64(Xs), f64(ys), H, thk, th, float(loss(th)),
                    float(Lk) + float(gk @ delta) + 0.5 * mlam * float(delta @ delta)))
    return out


@cached_per_scale(maxsize=2)
@cached_on_disk(allowed=(SizedSearch,))  # shared by the chapter and its negative controls
def taylor_search(seed: int) -> tuple:
    """Adversarial pairs for (14) (:func:`segment_search`) as ``(search, instances)``, the instances
    in the form of :func:`taylor_instances` (minimum of lambda_min on a refined grid).  Kept on disk.
    Used by the check of Eq. (14) (``book/deora/landscape.md``)."""
    res, pairs = segment_search(taylor_ratio, segment_sizes(), seed=seed, restarts=pick(2, 4),
                                steps=pick(2, 20))
    out = []
    for loss, thk, th, H, _T, _d, Xs, ys in pairs:
        Lk, gk = loss_and_grad(loss, thk)
        delta = th - thk
        mlam = min_lam_on_segment(loss, th, thk, pick(21, 101))
        out.append((f64(Xs), f64(ys), H, thk, th, float(loss(th)),
                    float(Lk) + float(gk @ delta) + 0.5 * mlam * float(delta @ delta)))
    return res, out


def segments(rng: np.random.Generator, count: int) -> list[tuple]:
    """Random, negative-curvature and GD segments: (loss, theta_1, theta_2, H, T, d, label)."""
    out = []
    for loss, a, b, H, T, d, Xs, ys in pair_instances(rng, count):
        out.append((loss, a, b, H, T, d, "random/negative-curvature"))
    # GD segments: consecutive-ish iterates of a run at a large step
    for H in (1, 4):
        T, d = 3, 2
        Xs, ys = md.sample_bounded_tokens(8, T, d, 1.0, seed=int(rng.integers(1 << 30)))
        loss = risk_fn(Xs, ys, H)
        th0 = random_heads(rng, H, T, d, u_scale=4.0, w_scale=6.0)
        tr = run_first_order(loss, th0, steps=40, lr=0.5, keep_iterates=True)
        for k in (0, 10, 39):
            out.append((loss, tr.iterates[k], tr.iterates[-1], H, T, d, "gd"))
    return out
