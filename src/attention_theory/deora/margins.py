"""Closed forms and instances for the NTK margin and the attention margin (Deora et al.,
Sections 5.2-5.3, App. E).

The target directions ``W_star``, ``U_star`` of a DM1 configuration, the terms of the NTK-margin
expansion (Eqs. (107), (112)-(113) and Term II) and the exact relevance scores under ``W_star``
(Eqs. (108)-(110)), the worst-``p`` lower bounds of the ``W``-part and of the NTK margin with their
adversarial search over sizes, the measured first-step error ``P = ||p'||``, actual (multi-head)
first steps and their per-head NTK summands, actual NTK max-margin instances (cvxpy on the reduced
features), the saturated attention of ``U_opt`` and ``Gamma W_opt`` with its leak and margin
(Proposition 3), and the ``gamma_lin`` / ``gamma_star`` / ``gamma_attn`` curves compared in the book.
The checks in :mod:`attention_theory.deora.checks.ntk_margin` and
:mod:`attention_theory.deora.checks.attention_margin` evaluate them (chapters
``book/deora/ntk-margin.md`` and ``book/deora/attention-margin.md``); P3 of Proposition 2 in
:mod:`attention_theory.deora.checks.tokenized_mixture` uses :func:`ntk_margin_closed`.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.deora.dm1_search import DM1Size, dm1_budget, dm1_search, dm1_sizes
from attention_theory.deora.max_margin import ntk_max_margin
from attention_theory.deora.mixture import (
    REGIMES,
    combined_bound,
    family_adversarial,
    family_random,
    family_search,
    first_step_rows,
    glin,
    gstar,
    lower_bound_parts,
    lower_part,
    n1_measure,
)
from attention_theory.foundations.tensors import VERIFICATION_DTYPE, f64
from attention_theory.verify import CheckRecord


def wstar(cfg: dm1.DM1Config) -> dict[str, torch.Tensor]:
    """Target directions of ``cfg`` (:func:`attention_theory.deora.ntk.target_directions`): ``W_star``,
    ``U_star``, their normalized forms, the key/query factors and ``u_star``."""
    return ntk.target_directions(cfg.S, cfg.M, cfg.T, cfg.d)


@functools.lru_cache(maxsize=64)
def targets(cfg: dm1.DM1Config) -> dict[str, torch.Tensor]:
    """:func:`wstar` cached per configuration (the searches evaluate it at every point)."""
    return wstar(cfg)


def wstar_parts(cfg: dm1.DM1Config, name: str, w_norm: Callable[[dm1.DM1Config], float]
                ) -> dict[str, tuple[float, float]]:
    """Parts ``(|error|, tolerance)`` of the targets of ``cfg``: ``||W_star||_F = w_norm(cfg)``,
    ``||U_star||_F = S sqrt(2T)``, ``W_K W_Q^T = W_star`` and ``||theta_star|| = sqrt(2)`` for
    ``H in {1, 5}`` heads of alternating signs (keys prefixed by ``name``)."""
    out = {}
    tg = wstar(cfg)
    out[f"{name}-W"] = (abs(float(torch.linalg.norm(tg["W"])) - w_norm(cfg)), 1e-12 * w_norm(cfg))
    out[f"{name}-U"] = (abs(float(torch.linalg.norm(tg["U"])) - cfg.S * math.sqrt(2 * cfg.T)), 1e-12)
    out[f"{name}-factor"] = (float((tg["W_K"] @ tg["W_Q"].T - tg["W"]).abs().max()), 1e-12)
    for H in (1, 5):
        th = ntk.theta_star(np.where(np.arange(H) % 2, -1.0, 1.0), cfg.S, cfg.M, cfg.T, cfg.d)
        out[f"{name}-theta-H{H}"] = (abs(float(torch.linalg.norm(th)) - math.sqrt(2)), 1e-12)
    return out


def gamma_star_scaling(gamma_star_fn: Callable[..., float], T: int, M: int, z: float, S: float, Zm: float,
                       Zn: float, Z: float, P: float, c: float) -> tuple[float, float]:
    """The scaling law of Eq. (7) for ``gamma_star_fn(T, zeta, S, M, Z_mu, Z_nu, Z, P)``: under
    ``S -> cS, Z -> cZ, Z_mu,nu -> c^2 Z_mu,nu, P -> cP`` the attention and ``P`` terms scale by ``c^4``
    and ``gamma_lin`` by ``c``; returns ``(|error|, tolerance)``."""
    lin = bm.gamma_lin(T, z, S, Zm)
    g1 = gamma_star_fn(T, z, S, M, Zm, Zn, Z, P)
    g2 = gamma_star_fn(T, z, c * S, M, c**2 * Zm, c**2 * Zn, c * Z, c * P)
    pred = c**4 * (g1 - lin) + c * lin
    return abs(g2 - pred), 1e-9 * (1 + abs(pred))


@functools.lru_cache(maxsize=64)
def _patterns(cfg: dm1.DM1Config) -> dict[str, torch.Tensor]:
    """:func:`dm1.patterns` as float64 tensors, cached per configuration."""
    return {k: f64(v) for k, v in dm1.patterns(cfg).items()}


def first_step_center(cfg: dm1.DM1Config, center: float, p: np.ndarray | None = None) -> torch.Tensor:
    """The row ``v = center zeta u_star (+ p)`` of a first step as a float64 tensor ``(d,)``."""
    v = center * cfg.zeta * dm1.patterns(cfg)["u_star"]
    return f64(v if p is None else v + p)


def term112(X: torch.Tensor, y: torch.Tensor, W: torch.Tensor, us: torch.Tensor) -> torch.Tensor:
    """``(y/T) sum_t u_star^T X^T r_t(X; W)`` with ``r_t = X W^T x_t``, shape ``(K,)``."""
    T = X.shape[1]
    sx = X.sum(1)
    return y / T * torch.einsum("kt,kt->k", X @ us, torch.einsum("ktd,ed,ke->kt", X, W, sx))


def term113(X: torch.Tensor, y: torch.Tensor, W: torch.Tensor, us: torch.Tensor) -> torch.Tensor:
    """``-(y/T^2) sum_t u_star^T X^T 1 1^T r_t(X; W)``, shape ``(K,)``."""
    T = X.shape[1]
    sx = X.sum(1)
    return -y / T**2 * (sx @ us) * torch.einsum("kd,ed,ke->k", sx, W, sx)


def term2_coef(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``c(X) = X^T R_0 X W^T sum_t x_t`` so that Term II ``= y p^T c(X)``, shape ``(K, d)``."""
    T = X.shape[1]
    return torch.einsum("ktd,ts,kse,fe,kf->kd", X, ntk.R0(T), X, W, X.sum(1))


def ntk_margin_closed(X: torch.Tensor, y: torch.Tensor, v: torch.Tensor, cfg: dm1.DM1Config,
                      sign: float = 1.0) -> torch.Tensor:
    """Single-head NTK margin ``y <grad Phi(X; U = 1 v^T, W = 0), (Ubar_star, sign Wbar_star)>``, ``(K,)``
    (closed form; the target directions cached per configuration)."""
    return ntk.u_part(X, y) + sign * ntk.w_part(X, y, v, targets(cfg)["Wbar"])


def score_formula_error(cfg: dm1.DM1Config, X: Any, y: Any, rel: Any, z: Any,
                        transpose: bool = False) -> torch.Tensor:
    """Largest ``|x_t^T W x_t' - case formula|`` over a sample of ``cfg`` (Eqs. 108-110 / 127-128), with
    ``W = W_star`` (``W_star^T`` with ``transpose``): ``X``, ``z`` are the tokens and their noise
    ``(n, T, d)``, ``y`` the labels ``(n,)``, ``rel`` the relevant mask ``(n, T)``; a scalar tensor."""
    W = targets(cfg)["W"]
    Wuse = W.T if transpose else W
    pt = _patterns(cfg)
    mp, mm, nu = pt["mu_plus"], pt["mu_minus"], pt["nu"]
    S = cfg.S
    X, y, z = f64(X), f64(y), f64(z)
    rel = torch.as_tensor(rel)
    r = torch.einsum("ntd,ed,nse->nst", X, Wuse, X)              # r[n, t, t'] = x_t^T W x_t'
    muy = torch.where(y[:, None] > 0, mp, mm)                     # (n, d)
    a, b = z @ mp, z @ mm                                         # (n, T)
    m_z = torch.einsum("ntd,nd->nt", z, muy)                      # mu_y^T z_t
    n_z = (z @ nu.T).sum(-1)                                      # sum_l nu_l^T z_t
    s_z = a + b                                                   # (mu_+ + mu_-)^T z_t
    rt, ru = rel[:, :, None], rel[:, None, :]
    ref = torch.where(rt & ru, S**4,
          torch.where(rt, S**2 * m_z[:, None, :],
          torch.where(ru, S**4 + S**2 * m_z[:, :, None] + S**2 * n_z[:, :, None],
                      a[:, :, None] * a[:, None, :] + b[:, :, None] * b[:, None, :]
                      + n_z[:, :, None] * s_z[:, None, :] + S**2 * s_z[:, None, :])))
    return (r - ref).abs().amax((-1, -2)).max()


def grad_W_autograd(x: torch.Tensor, U: torch.Tensor) -> torch.Tensor:
    """``grad_W Phi(x; W = 0, U)`` by autograd, ``(d, d)`` for tokens ``x`` ``(T, d)`` (differentiable in
    ``x`` when ``x`` needs gradients)."""
    with torch.enable_grad():
        W = torch.zeros(x.shape[-1], x.shape[-1], dtype=VERIFICATION_DTYPE, requires_grad=True)
        (g,) = torch.autograd.grad(md.single_head(x, W, U), W, create_graph=x.requires_grad)
    return g


def w_part_split(cfg: dm1.DM1Config, Xt: torch.Tensor, yt: torch.Tensor, v: np.ndarray, alpha: float,
                 rank_one: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Eq. (107) on tokens ``Xt`` ``(K, T, d)`` and labels ``yt`` ``(K,)`` at ``U = alpha 1_T v^T``: the
    ``W``-part of the NTK margin by autograd, its closed form ``|alpha|/||W_star|| (Term I + Term II)``
    (Term I ``= zeta/2 (term112 + term113)``, the second term dropped with ``rank_one=False``), and the
    size of the summed terms (a rounding scale), each ``(K,)``."""
    tg = targets(cfg)
    us = tg["u_star"]
    p = f64(v) - cfg.zeta / 2 * us
    U = f64(alpha * np.ones((cfg.T, 1)) * v[None, :])
    sgn = math.copysign(1.0, alpha)
    auto = torch.stack([torch.sum(grad_W_autograd(x, U) * sgn * tg["Wbar"]) for x in Xt]) * yt
    t1 = cfg.zeta / 2 * (term112(Xt, yt, tg["W"], us) + (term113(Xt, yt, tg["W"], us) if rank_one else 0))
    t2 = yt * (term2_coef(Xt, tg["W"]) @ p)
    scale = abs(alpha) / torch.linalg.norm(tg["W"])
    return auto, scale * (t1 + t2), scale * (t1.abs() + t2.abs())


@functools.lru_cache(maxsize=64)
def wpart_exact(cfg: dm1.DM1Config, center: float, P: float, normalized: bool) -> Callable[..., torch.Tensor]:
    """``X, y ->`` the ``W``-part with ``v = center zeta u_star + p`` at the worst ``p`` of norm ``P``
    (``Wbar_star`` with ``normalized``, else ``W_star``), ``(K,)`` for ``(K, T, d)`` tokens (Eqs. 115-116)."""
    tg = targets(cfg)
    W = tg["Wbar"] if normalized else tg["W"]
    v0 = first_step_center(cfg, center)

    def exact(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        value = ntk.w_part(X, y, v0, W)
        return value - P * torch.linalg.norm(term2_coef(X, W), dim=1) if P else value

    return exact


@functools.lru_cache(maxsize=64)
def margin_exact(cfg: dm1.DM1Config, center: float, P: float, sign: float) -> Callable[..., torch.Tensor]:
    """``X, y ->`` the single-head NTK margin of ``theta_star`` at ``v = center zeta u_star + p'``, worst
    ``p'`` of norm ``P`` (closed form, ``sign`` multiplies ``Wbar_star``), ``(K,)`` (Lemma 13)."""
    v0 = first_step_center(cfg, center)
    Wb = targets(cfg)["Wbar"]

    def exact(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        value = ntk_margin_closed(X, y, v0, cfg, sign)
        return value - P * torch.linalg.norm(term2_coef(X, Wb), dim=1) if P else value

    return exact


@cached_per_scale(maxsize=16)
def shared_row_iterate(cfg: dm1.DM1Config, alphas: tuple[float, ...]
                       ) -> tuple[torch.Tensor, torch.Tensor, float]:
    """The multi-head first-phase iterate whose heads share an actual first-step row ``v``
    (``U_h = alpha_h 1_T v^T``, ``W_h = 0``; Lemma 16): ``v`` ``(d,)``, the flat iterate and
    ``P = ||v - zeta/4 u_star||`` (Proposition 2, P3)."""
    H = len(alphas)
    v = f64(first_step_rows(cfg, n1_measure(), 1, 21)[0])
    th = md.pack_heads(f64(alphas)[:, None, None] * torch.ones(H, cfg.T, 1, dtype=VERIFICATION_DTYPE) * v,
                       torch.zeros(H, cfg.d, cfg.d, dtype=VERIFICATION_DTYPE))
    P = float(torch.linalg.norm(v - cfg.zeta / 4 * f64(dm1.patterns(cfg)["u_star"])))
    return v, th, P


def lower_bound_search(variants: Callable[[DM1Size], list[tuple[str, float, Callable[..., Any]]]],
                       sizes: list[DM1Size], seed: int) -> tuple[Any, dict[str, tuple[Any, Any]]]:
    """:func:`~attention_theory.deora.dm1_search.dm1_search` of the lower bounds ``bound <= exact(X, y)``
    given per size by ``variants(size)`` (``[(tag, bound, exact)]``); returns the search and the parts
    at its best instances."""
    res, found, _ = dm1_search(
        lambda size, X, y: {tag: lower_part(b, ex(X, y)) for tag, b, ex in variants(size)},
        sizes, seed=seed, **dm1_budget())
    return res, found


def single_lower_bound(variants: Callable[[DM1Size], list[tuple[str, float, Callable[..., Any]]]],
                       label: str, seed: int) -> CheckRecord:
    """One lower bound (``variants`` returns a single ``(tag, bound, exact)`` per size) checked with
    :func:`~attention_theory.deora.mixture.combined_bound` (``label`` its description): the uniform,
    corner and adversarial noise instances of each regime, then :func:`lower_bound_search` over the
    regimes' sizes (Eqs. 112-113)."""
    parts = {}
    for name, cfg in REGIMES.items():
        _, rhs, exact = variants(DM1Size(name, cfg))[0]
        parts.update(lower_bound_parts(cfg, name, exact, rhs, seed))
    res, found = lower_bound_search(variants, dm1_sizes(REGIMES), seed)
    parts.update(found)
    return combined_bound(parts, label, seed=seed, search=res,
                          families=[family_random("ABC", pick(100, 1000)),
                                    family_adversarial(pick(4, 32), pick(30, 150)),
                                    family_search("ABC", dm1_budget())])


@cached_per_scale(maxsize=16)
def multi_head_step(cfg: dm1.DM1Config, H: int, n1: int, seed: int) -> tuple[np.ndarray, torch.Tensor]:
    """Head signs ``(H,)`` (the first two ``+1, -1``) and the actual first-phase iterate ``theta~(1)``
    (``H`` heads, ``n1`` samples, flat)."""
    rng = np.random.default_rng(seed)
    alphas = rng.choice([-1.0, 1.0], size=H)
    if H > 1:
        alphas[0], alphas[1] = 1.0, -1.0
    fs = dm1.sample(cfg, n1, seed=seed)
    return alphas, ntk.first_step(fs.X, fs.y, H, alphas)


def per_head_summands(cfg: dm1.DM1Config, H: int, n1: int, use_sign: bool, seed: int,
                      data: tuple[Any, Any] | None = None) -> dict[str, np.ndarray]:
    """Multi-head NTK margins ``(n,)`` and the per-head summands ``X_h`` ``(H, n)`` (autograd features) of
    :func:`multi_head_step` on 30 fresh samples, or on ``data = (X, y)`` (Lemma 14)."""
    alphas, th = multi_head_step(cfg, H, n1, seed)
    if data is None:
        s = dm1.sample(cfg, 30, seed=seed + 1)
        data = (s.X, s.y)
    X, y = data
    tgt = ntk.theta_star(alphas, cfg.S, cfg.M, cfg.T, cfg.d, use_sign=use_sign)
    multi = ntk.ntk_margins(th, X, y, H, tgt).numpy()
    Us, Ws = md.unpack_heads(th, H, cfg.T, cfg.d)
    tU, tW = md.unpack_heads(tgt * math.sqrt(H), H, cfg.T, cfg.d)
    Xh = np.stack([ntk.ntk_margins(md.pack_heads(Us[h:h + 1], Ws[h:h + 1]), X, y, 1,
                                   md.pack_heads(tU[h:h + 1], tW[h:h + 1])).numpy() for h in range(H)])
    return {"multi": multi, "Xh": Xh}


def head_summand_parts(size: DM1Size, Hs: tuple[int, ...], n1: int, use_sign: bool, delta: float, seed: int,
                       data: tuple[Any, Any] | None = None) -> dict[str, tuple[Any, Any]]:
    """Parts of Lemma 14 for each ``H`` in ``Hs`` (:func:`per_head_summands`): the spread of the
    summands over heads and the multi-head margin against their average (both to round-off), and
    ``gamma_star(P) - deviation(H, delta) <= min`` margin at the measured ``P`` (:func:`measured_P_at`)."""
    cfg, out = size.cfg, {}
    for H in Hs:
        r = per_head_summands(cfg, H, n1, use_sign, seed, data)
        Xh, multi = r["Xh"], r["multi"]
        scale = float(np.abs(Xh).max())
        out[f"H{H}-spread"] = ((Xh.max(0) - Xh.min(0)), 1e-12 * scale)
        out[f"H{H}-average"] = (np.abs(multi - Xh.mean(0)), 1e-12 * scale)
        dev = bm.lemma14_deviation(cfg.T, cfg.R, cfg.S, measured_P_at(size, n1_measure()), H, delta)
        out[f"H{H}-bound"] = (gstar(cfg, measured_P_at(size, n1_measure())) - dev, multi.min())
    return out


@cached_per_scale(maxsize=8)
def measured_P(name: str, n1: int, seed: int = 21) -> float:
    """``||p'||`` of an actual first step (corrected center ``zeta/4``) in regime ``name``."""
    cfg = REGIMES[name]
    v = first_step_rows(cfg, n1, 1, seed)[0]
    return float(np.linalg.norm(v - cfg.zeta / 4 * dm1.patterns(cfg)["u_star"]))


def measured_P_at(size: DM1Size, n1: int) -> float:
    """``P = ||p'||`` of an actual first step in the configuration of ``size`` (:func:`measured_P` for a
    regime)."""
    if size.name in REGIMES:
        return measured_P(size.name, n1)
    row = first_step_rows(size.cfg, n1, 1, 21)[0]
    return float(np.linalg.norm(row - size.cfg.zeta / 4 * dm1.patterns(size.cfg)["u_star"]))


def full_and_reduced_max_margin(cfg: dm1.DM1Config, n: int, seed: int) -> tuple[float, float]:
    """NTK max-margins (cvxpy) of ``n`` fresh samples at an actual ``H = 3`` first step (signs
    ``+, -, +``, 2000 first-phase samples): with the full autograd features and with the reduced
    single-head features (Lemma 15: the two optima agree)."""
    fs = dm1.sample(cfg, 2000, seed=seed)
    alphas = np.array([1.0, -1.0, 1.0])
    th3 = ntk.first_step(fs.X, fs.y, 3, alphas)
    s = dm1.sample(cfg, n, seed=seed + 2)
    full = ntk_max_margin(ntk.ntk_features(th3, s.X, 3).numpy(), s.y)
    v = md.unpack_heads(th3, 3, cfg.T, cfg.d)[0][0, 0] / alphas[0]
    red = ntk_max_margin(ntk.reduced_features(s.X, v).numpy(), s.y)
    return full.margin, red.margin


@cached_per_scale(maxsize=32)
def ntk_margin_instance(cfg: dm1.DM1Config, n: int, n1: int, seed: int) -> dict[str, Any]:
    """Actual first step on ``n1`` samples, reduced NTK features of ``n`` fresh samples, cvxpy max-margin.

    Returns ``gamma_ntk`` (max-margin over ``||theta|| <= sqrt(2)``), ``min_target`` (min margin of
    ``theta_star``), ``P`` (``||p'||``), ``gamma_star`` (with that ``P``) and the data.
    """
    v = f64(first_step_rows(cfg, n1, 1, seed)[0])              # autograd first step (Lemma 16 checked)
    th = md.pack_heads(torch.ones(1, cfg.T, 1, dtype=VERIFICATION_DTYPE) * v,
                       torch.zeros(1, cfg.d, cfg.d, dtype=VERIFICATION_DTYPE))
    P = float(torch.linalg.norm(v - cfg.zeta / 4 * f64(dm1.patterns(cfg)["u_star"])))
    s = dm1.sample(cfg, n, seed=seed + 1)
    F = ntk.reduced_features(s.X, v).numpy()
    res = ntk_max_margin(F, s.y)
    tgt = ntk.theta_star([1.0], cfg.S, cfg.M, cfg.T, cfg.d).numpy()
    mt = s.y * (F @ tgt)
    return {"gamma_ntk": res.margin, "min_target": float(mt.min()), "P": P, "gamma_star": gstar(cfg, P),
            "X": s.X, "y": s.y, "v": v.numpy(), "theta1": th, "solver": res.solver}


def attention_scores(X: torch.Tensor, cfg: dm1.DM1Config, Gamma: float,
                     transpose: bool = False) -> torch.Tensor:
    """``Gamma X W_opt X^T`` (row ``t`` = scores of query ``t``), shape ``(K, T, T)``."""
    Wopt = wstar(cfg)["W"] / (cfg.S**2 * math.sqrt(2 * (cfg.M + 1)))
    W = Wopt.T if transpose else Wopt
    return Gamma * md.head_scores(X, W.unsqueeze(0))[:, 0]


def leak_and_margin(X: torch.Tensor, y: torch.Tensor, rel: torch.Tensor, cfg: dm1.DM1Config, Gamma: float,
                    transpose: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-query leak ``sum_{t' in R^c} phi_t'`` ``(K, T)`` and margin ``y Phi(X; U_opt, Gamma W_opt)``
    ``(K,)``."""
    G = attention_scores(X, cfg, Gamma, transpose)
    lse = torch.logsumexp(G, -1)
    masked = G.masked_fill(rel[:, None, :], -torch.inf)
    leak = torch.exp(torch.logsumexp(masked, -1) - lse)
    A = torch.softmax(G, -1)
    Uopt = wstar(cfg)["U"] / (cfg.S * math.sqrt(2 * cfg.T))
    return leak, y * md.attention_readout(A.unsqueeze(1), X, Uopt.unsqueeze(0))


PROP3_CONFIGS = [(6, 1 / 6), (8, 0.25), (10, 0.1), (10, 0.5), (20, 0.05)]


def ordering_grid(s_grid: Any = None) -> list[dict[str, float]]:
    """``gamma_lin``, ``gamma_star`` (``P = 0``, no noise) and ``gamma_attn(0)`` over ``S`` x
    ``(T, zeta, M)``."""
    s_grid = np.linspace(0.25, 5, 20) if s_grid is None else s_grid
    rows = []
    for T, z, M in ((10, 0.5, 2), (10, 0.1, 2), (8, 0.25, 3), (4, 0.5, 1), (20, 0.05, 2), (20, 0.9, 3)):
        for S in s_grid:
            rows.append({"T": T, "zeta": z, "M": M, "S": float(S),
                         "lin": bm.gamma_lin(T, z, S, 0.0),
                         "star": bm.gamma_star(T, z, S, M, 0.0, 0.0, 0.0, 0.0),
                         "attn": bm.gamma_attn(T, S, 0.0, 0.0), "S_c": bm.ordering_crossover(T, z, M)})
    return rows


def margin_curves(S_grid: Any, *, T: int = 8, zeta: float = 0.25, M: int = 2, d: int = 6, Z_mu: float = 0.05,
                  Z_nu: float = 0.05, Z_perp: float = 0.2, n: int = 60, n1: int = 10000, eps: float = 1e-3,
                  seed: int = 31) -> dict[str, np.ndarray]:
    """For each ``S``: ``gamma_lin``, ``gamma_star(P)``, ``gamma_star(0)``, the sharper ``gamma_star``
    (``P``-term ``-P T (S+Z)^3``), measured NTK max-margin (cvxpy, actual first step),
    ``gamma_attn(eps)`` and the measured attention margin ``min_i y_i Phi(X_i; U_opt, Gamma_eps W_opt)``."""
    out: dict[str, list[float]] = {k: [] for k in ("S", "lin", "star", "star0", "star_sharp", "ntk", "attn",
                                                   "attn_measured", "P")}
    for S in S_grid:
        cfg = dm1.DM1Config(T=T, d=d, M=M, S=float(S), zeta=zeta, Z_mu=Z_mu, Z_nu=Z_nu, Z_perp=Z_perp)
        r = ntk_margin_instance(cfg, n, n1, seed)
        Gm = bm.prop3_threshold(S, M, zeta, eps)
        s = dm1.sample(cfg, n, seed=seed + 1)
        _, mg = leak_and_margin(f64(s.X), f64(s.y), torch.as_tensor(s.relevant), cfg, Gm)
        for k, v in (("S", S), ("lin", glin(cfg)), ("star", r["gamma_star"]), ("star0", gstar(cfg)),
                     ("star_sharp", gstar(cfg, r["P"], 1.0)), ("ntk", r["gamma_ntk"]),
                     ("attn", bm.gamma_attn(T, S, Z_mu, eps)), ("attn_measured", float(mg.min())),
                     ("P", r["P"])):
            out[k].append(float(v))
    return {k: np.array(v) for k, v in out.items()}
