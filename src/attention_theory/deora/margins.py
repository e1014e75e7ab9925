"""Closed forms and instances for the NTK margin and the attention margin (Deora et al., Sections 5.2-5.3, App. E).

The target directions ``W_star``, ``U_star`` of a DM1 configuration, the terms of the NTK-margin
expansion (Eqs. (112)-(113) and Term II), the measured first-step error ``P = ||p'||``, actual NTK
max-margin instances (cvxpy on the reduced features), the saturated attention of ``U_opt`` and
``Gamma W_opt`` with its leak and margin (Proposition 3), and the ``gamma_lin`` / ``gamma_star`` /
``gamma_attn`` curves compared in the book.  The checks in :mod:`attention_theory.deora.checks.margins`
evaluate them (chapters ``book/deora/ntk-margin.md`` and ``book/deora/attention-margin.md``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attention_theory.config import cached_per_scale
from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.deora.max_margin import ntk_max_margin
from attention_theory.deora.mixture import (
    REGIMES,
    first_step_rows,
    glin,
    gstar,
)
from attention_theory.foundations.tensors import f64

DT = torch.float64


def wstar(cfg: dm1.DM1Config) -> dict[str, torch.Tensor]:
    return ntk.target_directions(cfg.S, cfg.M, cfg.T, cfg.d)


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
    """Single-head NTK margin ``y <grad Phi(X; U = 1 v^T, W = 0), (Ubar_star, sign Wbar_star)>``, ``(K,)``."""
    return ntk.u_part(X, y) + sign * ntk.w_part(X, y, v, wstar(cfg)["Wbar"])


@cached_per_scale(maxsize=8)
def measured_P(name: str, n1: int, seed: int = 21) -> float:
    """``||p'||`` of an actual first step (corrected center ``zeta/4``) in regime ``name``."""
    cfg = REGIMES[name]
    v = first_step_rows(cfg, n1, 1, seed)[0]
    return float(np.linalg.norm(v - cfg.zeta / 4 * dm1.patterns(cfg)["u_star"]))


@cached_per_scale(maxsize=32)
def ntk_margin_instance(cfg: dm1.DM1Config, n: int, n1: int, seed: int) -> dict[str, Any]:
    """Actual first step on ``n1`` samples, reduced NTK features of ``n`` fresh samples, cvxpy max-margin.

    Returns ``gamma_ntk`` (max-margin over ``||theta|| <= sqrt(2)``), ``min_target`` (min margin of
    ``theta_star``), ``P`` (``||p'||``), ``gamma_star`` (with that ``P``) and the data.
    """
    v = f64(first_step_rows(cfg, n1, 1, seed)[0])              # autograd first step (Lemma 16 checked)
    th = md.pack_heads(torch.ones(1, cfg.T, 1, dtype=DT) * v, torch.zeros(1, cfg.d, cfg.d, dtype=DT))
    P = float(torch.linalg.norm(v - cfg.zeta / 4 * f64(dm1.patterns(cfg)["u_star"])))
    s = dm1.sample(cfg, n, seed=seed + 1)
    F = ntk.reduced_features(s.X, v).numpy()
    res = ntk_max_margin(F, s.y)
    tgt = ntk.theta_star([1.0], cfg.S, cfg.M, cfg.T, cfg.d).numpy()
    mt = s.y * (F @ tgt)
    return {"gamma_ntk": res.margin, "min_target": float(mt.min()), "P": P, "gamma_star": gstar(cfg, P),
            "X": s.X, "y": s.y, "v": v.numpy(), "theta1": th, "solver": res.solver}


def attention_scores(X: torch.Tensor, cfg: dm1.DM1Config, Gamma: float, transpose: bool = False) -> torch.Tensor:
    """``Gamma X W_opt X^T`` (row ``t`` = scores of query ``t``), shape ``(K, T, T)``."""
    Wopt = wstar(cfg)["W"] / (cfg.S**2 * math.sqrt(2 * (cfg.M + 1)))
    W = Wopt.T if transpose else Wopt
    return Gamma * md.head_scores(X, W.unsqueeze(0))[:, 0]


def leak_and_margin(X: torch.Tensor, y: torch.Tensor, rel: torch.Tensor, cfg: dm1.DM1Config, Gamma: float,
                    transpose: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-query leak ``sum_{t' in R^c} phi_t'`` ``(K, T)`` and margin ``y Phi(X; U_opt, Gamma W_opt)`` ``(K,)``."""
    G = attention_scores(X, cfg, Gamma, transpose)
    lse = torch.logsumexp(G, -1)
    masked = G.masked_fill(rel[:, None, :], -torch.inf)
    leak = torch.exp(torch.logsumexp(masked, -1) - lse)
    A = torch.softmax(G, -1)
    Uopt = wstar(cfg)["U"] / (cfg.S * math.sqrt(2 * cfg.T))
    return leak, y * md.attention_readout(A.unsqueeze(1), X, Uopt.unsqueeze(0))


PROP3_CONFIGS = [(6, 1 / 6), (8, 0.25), (10, 0.1), (10, 0.5), (20, 0.05)]


def ordering_grid(s_grid: Any = None) -> list[dict[str, float]]:
    """``gamma_lin``, ``gamma_star`` (``P = 0``, no noise) and ``gamma_attn(0)`` over ``S`` x ``(T, zeta, M)``."""
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
    """For each ``S``: ``gamma_lin``, ``gamma_star(P)``, ``gamma_star(0)``, the sharper ``gamma_star`` (``P``-term
    ``-P T (S+Z)^3``), measured NTK max-margin (cvxpy, actual first step),
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
                     ("attn", bm.gamma_attn(T, S, Z_mu, eps)), ("attn_measured", float(mg.min())), ("P", r["P"])):
            out[k].append(float(v))
    return {k: np.array(v) for k, v in out.items()}
