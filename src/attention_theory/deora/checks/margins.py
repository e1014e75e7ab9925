"""Checks of Deora et al., Sections 5.2-5.3 and Appendices D.2.3, E: NTK separability and the NTK margin
``gamma_star``, the actual NTK max-margin (cvxpy), softmax saturation and ``gamma_attn``, and the
``(C, p)`` argument of Section 5.3 in log variables.

The regimes, adversarial search and combined bounds shared with
:mod:`attention_theory.deora.checks.mixture` live in :mod:`attention_theory.deora.mixture`; the
closed forms of this chapter in :mod:`attention_theory.deora.margins`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.deora.margins import (
    DT,
    PROP3_CONFIGS,
    leak_and_margin,
    measured_P,
    ntk_margin_closed,
    ntk_margin_instance,
    ordering_grid,
    term2_coef,
    term112,
    term113,
    wstar,
)
from attention_theory.deora.max_margin import ntk_max_margin
from attention_theory.deora.mixture import (
    REGIMES,
    adversarial_search,
    combined_bound,
    first_step_rows,
    glin,
    gstar,
    instances,
    n1_measure,
)
from attention_theory.foundations.tensors import f64
from attention_theory.verify import (
    CheckRecord,
    bound_outcome,
    check_bound,
    claim_check,
    confirm_erratum,
    identity_outcome,
)


def _v(cfg: dm1.DM1Config, center: float, p: np.ndarray | None = None) -> torch.Tensor:
    v = center * cfg.zeta * dm1.patterns(cfg)["u_star"]
    return f64(v if p is None else v + p)


@claim_check("deora-def-wstar", "norms-and-factorization")
def check_wstar(w_norm: Callable[[dm1.DM1Config], float] = lambda c: c.S**2 * math.sqrt(2 * (c.M + 1))) -> CheckRecord:
    """``||W_star||_F = S^2 sqrt(2(M+1))``, ``||U_star||_F = S sqrt(2T)``, ``W_K W_Q^T = W_star``,
    ``||theta_star|| = sqrt(2)`` for single- and multi-head targets."""
    parts = {}
    for name, cfg in REGIMES.items():
        tg = wstar(cfg)
        parts[f"{name}-W"] = (abs(float(torch.linalg.norm(tg["W"])) - w_norm(cfg)), 1e-12 * w_norm(cfg))
        parts[f"{name}-U"] = (abs(float(torch.linalg.norm(tg["U"])) - cfg.S * math.sqrt(2 * cfg.T)), 1e-12)
        parts[f"{name}-factor"] = (float((tg["W_K"] @ tg["W_Q"].T - tg["W"]).abs().max()), 1e-12)
        for H in (1, 5):
            th = ntk.theta_star(np.where(np.arange(H) % 2, -1.0, 1.0), cfg.S, cfg.M, cfg.T, cfg.d)
            parts[f"{name}-theta-H{H}"] = (abs(float(torch.linalg.norm(th)) - math.sqrt(2)), 1e-12)
    return combined_bound(parts, "target directions: norms and key-query factorization")


@claim_check("deora-def-wstar", "key-query-naming")
def check_wstar_naming(printed_product: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] =
                       lambda WK, WQ: WQ @ WK.T) -> CheckRecord:
    """E11: with Section 2's convention ``W = W_Q W_K^T``, the factor printed as ``W_{Q,star}`` must be the
    query factor; the product ``W_{Q,star} W_{K,star}^T`` is ``W_star^T``, not ``W_star``."""
    pr, co, ref, inst = [], [], [], []
    for cfg in REGIMES.values():
        tg = wstar(cfg)
        inst.append([tg["W_K"], tg["W_Q"], tg["W"]])
        pr += printed_product(tg["W_K"], tg["W_Q"]).ravel().tolist()
        co += (tg["W_K"] @ tg["W_Q"].T).ravel().tolist()
        ref += tg["W"].ravel().tolist()
    return confirm_erratum(
        identity_outcome(pr, ref, instances=inst), identity_outcome(co, ref, instances=inst),
        description="key/query naming of the factors of W_star under W = W_Q W_K^T",
        printed_text="W_star = W_{K,star} W_{Q,star}^T with W_{K,star} = [mu_+ mu_- nu_1..nu_M] the key factor",
        corrected_text="under W = W_Q W_K^T the matrix printed as W_{K,star} is the query factor "
                       "(a noise query nu_l looks for keys mu_+-)",
        source="Deora et al., Section 5.2 (and Section 2 for the convention)", kind="typo",
        where="statement")


@claim_check("deora-eq-8", "exact-scores")
def check_eq8(transpose: bool = False, *, seed: int = 13) -> CheckRecord:
    """Exact relevance scores under ``W_star`` (Eqs. 108-110 / 127-128) against ``r_t = X W_star^T x_t``."""
    parts = {}
    for name, cfg in REGIMES.items():
        W = wstar(cfg)["W"].numpy()
        Wuse = W.T if transpose else W
        pt = dm1.patterns(cfg)
        mp, mm, nu = pt["mu_plus"], pt["mu_minus"], pt["nu"]
        S = cfg.S
        for mode, s in instances(cfg, pick(50, 500), seed):
            r = np.einsum("ntd,ed,nse->nst", s.X, Wuse, s.X)         # r[n, t, t'] = x_t^T W x_t'
            muy = np.where(s.y[:, None] > 0, mp, mm)
            zr = s.z
            ref = np.empty_like(r)
            rel = s.relevant
            for i in range(len(s)):
                for t in range(cfg.T):
                    for u in range(cfg.T):
                        if rel[i, t] and rel[i, u]:
                            ref[i, t, u] = S**4
                        elif rel[i, t]:
                            ref[i, t, u] = S**2 * muy[i] @ zr[i, u]
                        elif rel[i, u]:
                            ref[i, t, u] = S**4 + S**2 * muy[i] @ zr[i, t] + S**2 * (nu @ zr[i, t]).sum()
                        else:
                            zt, zu = zr[i, t], zr[i, u]
                            ref[i, t, u] = ((mp @ zt) * (mp @ zu) + (mm @ zt) * (mm @ zu)
                                            + (nu @ zt).sum() * ((mp + mm) @ zu) + S**2 * ((mp + mm) @ zu))
            parts[f"{name}-{mode}"] = (np.abs(r - ref).max(), 1e-10 * S**4)
    return combined_bound(parts, "relevance scores r_t(X; W_star): exact case formulas", seed=seed)


@claim_check("deora-sec-5-2", "softmax-jacobian-at-zero")
def check_sec52(printed_jacobian: Callable[[int], torch.Tensor] =
                lambda T: torch.eye(T, dtype=DT) - torch.ones(T, T, dtype=DT) / T, *, seed: int = 14) -> CheckRecord:
    """E4: the ``W``-gradient at ``theta(1)`` written with ``phi'(0) = I - 11^T/T`` (printed) disagrees with
    autograd; with ``R_0 = (I - 11^T/T)/T`` it agrees (relative error ``1e-12``)."""
    pr, co, ref, inst = [], [], [], []
    for name, cfg in REGIMES.items():
        s = dm1.sample(cfg, 8, seed=seed)
        v = first_step_rows(cfg, 500, 1, seed)[0]
        inst.append([s.X, v])
        alpha = -1.0
        U = f64(alpha * np.ones((cfg.T, 1)) * v[None, :])
        for X in s.X:
            Xt = f64(X)
            g = torch.func.grad(lambda W: md.single_head(Xt, W, U))(torch.zeros(cfg.d, cfg.d, dtype=DT))
            sx = Xt.sum(0)
            for J, out in ((printed_jacobian(cfg.T), pr), (ntk.R0(cfg.T), co)):
                out += (alpha * torch.outer(sx, Xt.T @ J @ Xt @ f64(v))).ravel().tolist()
            ref += g.ravel().tolist()
    tol = 1e-12 * max(abs(x) for x in ref)
    return confirm_erratum(
        identity_outcome(pr, ref, atol=tol, instances=inst), identity_outcome(co, ref, atol=tol, instances=inst),
        description="grad_W Phi(X; theta(1)) = alpha sum_t x_t v^T X^T phi'(0) X against autograd",
        printed_text="phi'(0) = I - (1/T) 1 1^T", corrected_text="phi'(0) = R_0 = (1/T) I - (1/T^2) 1 1^T",
        source="Deora et al., Section 5.2, proof sketch of (P3) (App. D uses R_0 correctly)", kind="typo",
        where="proof", seed=seed)


@claim_check("deora-eq-106", "u-part")
def check_eq106(gamma_lin_fn: Callable[[dm1.DM1Config], float] = glin, *, seed: int = 15) -> CheckRecord:
    """Eq. (106): ``y <grad_U Phi(X; theta(1)), Ubar_star>`` (autograd) equals ``y u_star^T sum_t x_t/(S sqrt(2T))``
    (= the oracle linear margin) and is ``>= gamma_lin``; the corner sampler attains it."""
    parts = {}
    for name, cfg in REGIMES.items():
        tg = wstar(cfg)
        for mode, s in instances(cfg, pick(60, 600), seed):
            Xt, yt = f64(s.X), f64(s.y)
            au = torch.stack([torch.sum(md.grad_U(x, torch.zeros(cfg.d, cfg.d, dtype=DT)) * tg["Ubar"])
                              for x in Xt]) * yt
            cf = ntk.u_part(Xt, yt)
            parts[f"{name}-{mode}-identity"] = ((au - cf).abs().numpy(), 1e-12)
            parts[f"{name}-{mode}-bound"] = (gamma_lin_fn(cfg), float(au.min()))
    return combined_bound(parts, "U-part of the NTK margin (106)", seed=seed, rtol=1e-12)


@claim_check("deora-eq-107", "w-part-split")
def check_eq107(rank_one: bool = True, *, seed: int = 16) -> CheckRecord:
    """Eq. (107) and the split of ``R_0``: the ``W``-part by autograd equals
    ``|alpha|/||W_star|| (Term I + Term II)`` with Term I ``= zeta/2 (term112 + term113)``."""
    parts = {}
    for name, cfg in REGIMES.items():
        tg = wstar(cfg)
        us = tg["u_star"]
        s = dm1.sample(cfg, pick(30, 300), seed=seed, noise="uniform")
        v = first_step_rows(cfg, 500, 1, seed)[0]
        p = f64(v) - cfg.zeta / 2 * us
        for alpha in (1.0, -0.7):
            U = f64(alpha * np.ones((cfg.T, 1)) * v[None, :])
            Xt, yt = f64(s.X), f64(s.y)
            auto = torch.stack([torch.sum(torch.func.grad(lambda W: md.single_head(x, W, U))(
                torch.zeros(cfg.d, cfg.d, dtype=DT)) * math.copysign(1.0, alpha) * tg["Wbar"]) for x in Xt]) * yt
            t1 = cfg.zeta / 2 * (term112(Xt, yt, tg["W"], us) + (term113(Xt, yt, tg["W"], us) if rank_one else 0))
            t2 = yt * (term2_coef(Xt, tg["W"]) @ p)
            closed = abs(alpha) / torch.linalg.norm(tg["W"]) * (t1 + t2)
            parts[f"{name}-alpha{alpha}"] = ((auto - closed).abs().numpy(), 1e-10 * float(auto.abs().max()))
    return combined_bound(parts, "W-part of the NTK margin = |alpha| (Term I + Term II)/||W_star|| (107)",
                          seed=seed)


def _lower_bound_parts(cfg: dm1.DM1Config, name: str, exact: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                       bound: float, seed: int) -> dict[str, tuple[Any, Any]]:
    """``bound <= exact(X, y)`` on uniform, corner and adversarial (minimizing ``exact``) instances."""
    parts = {}
    # orientation: for a negative bound compare |exact| <= |bound| so that the ratio reads as tightness
    pair = (lambda v: (bound, v)) if bound >= 0 else (lambda v: (-v, -bound))
    for mode, s in instances(cfg, pick(100, 1000), seed):
        parts[f"{name}-{mode}"] = pair(float(exact(f64(s.X), f64(s.y)).min()))
    _, _, vals = adversarial_search(cfg, lambda X, y: -exact(X, y), restarts=pick(4, 32),
                                    steps=pick(30, 150), seed=seed)
    parts[f"{name}-adversarial"] = pair(float(-vals.max()))
    return parts


@claim_check("deora-eq-112", "adversarial")
def check_eq112(lead: float | None = None, *, seed: int = 17) -> CheckRecord:
    """Eq. (112): ``(y/T) sum_t u_star^T X^T r_t(X; W_star) >= T[zeta S^6 - ...]`` (``lead`` replaces ``zeta``)."""
    parts = {}
    for name, cfg in REGIMES.items():
        tg = wstar(cfg)
        rhs = bm.eq112_rhs(cfg.T, cfg.zeta, cfg.S, cfg.Z_mu, cfg.Z_nu, lead=lead)
        parts.update(_lower_bound_parts(cfg, name, lambda X, y: term112(X, y, tg["W"], tg["u_star"]), rhs, seed))
    return combined_bound(parts, "first part of Term I (112)", seed=seed)


@claim_check("deora-eq-113", "adversarial")
def check_eq113(lead: float | None = None, *, seed: int = 18) -> CheckRecord:
    """Eq. (113): ``-(y/T^2) sum_t u_star^T X^T 1 1^T r_t >= T[-zeta^2 S^6 - ...]`` (``lead`` replaces ``zeta^2``)."""
    parts = {}
    for name, cfg in REGIMES.items():
        tg = wstar(cfg)
        rhs = bm.eq113_rhs(cfg.T, cfg.zeta, cfg.S, cfg.Z_mu, cfg.Z_nu, lead=lead)
        parts.update(_lower_bound_parts(cfg, name, lambda X, y: term113(X, y, tg["W"], tg["u_star"]), rhs, seed))
    return combined_bound(parts, "second part of Term I (113)", seed=seed)


@claim_check("deora-eq-114", "worst-p")
def check_eq114(t_power: float = 2.5, rhs_scale: float = 1.0, *, seed: int = 19) -> CheckRecord:
    """Eq. (114): Term II ``= y p^T c(X) >= -P ||c(X)||`` (worst ``p``, closed form) is bounded below by
    ``-sqrt(2(M+1)) S^2 P T^{t_power} (...)(...)``; adversarial maximization of ``||c(X)||``; ``P = 1``
    (both sides are linear in ``P``).  ``rhs_scale = 0`` is the main text's "ignore Term II"."""
    parts = {}
    ratios = {}
    for name, cfg in REGIMES.items():
        W = wstar(cfg)["W"]
        rhs = rhs_scale * bm.eq114_rhs(cfg.T, cfg.zeta, cfg.S, cfg.M, cfg.Z, 1.0, t_power=t_power)
        worst = 0.0
        for mode, s in instances(cfg, pick(100, 1000), seed):
            worst = max(worst, float(torch.linalg.norm(term2_coef(f64(s.X), W), dim=1).max()))
        _, _, vals = adversarial_search(cfg, lambda X, y: torch.linalg.norm(term2_coef(X, W), dim=1),
                                        restarts=pick(6, 32), steps=pick(40, 150), seed=seed)
        worst = max(worst, float(vals.max()))
        parts[name] = (worst, -rhs)                  # ||c|| <= |bound|, i.e. -||c|| >= bound
        wn = float(torch.linalg.norm(W))
        ratios[name] = {"c_over_T52": worst / (wn * cfg.T**2.5 * (cfg.S + cfg.Z) ** 3),
                        "c_over_T1": worst / (wn * cfg.T * (cfg.S + cfg.Z) ** 3)}
    return combined_bound(parts, "Term II lower bound (114), worst p of norm P = 1", seed=seed,
                          extra={"ratios": ratios})


def _wpart_parts(cfg: dm1.DM1Config, name: str, center: float, P: float, bound: float, seed: int,
                 normalized: bool) -> dict[str, tuple[Any, Any]]:
    """``bound <= min over ||p|| <= P`` of the ``W``-part with ``v = center zeta u_star + p``."""
    tg = wstar(cfg)
    W = tg["Wbar"] if normalized else tg["W"]
    v0 = _v(cfg, center)

    def exact(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return ntk.w_part(X, y, v0, W) - P * torch.linalg.norm(term2_coef(X, W), dim=1)

    return _lower_bound_parts(cfg, name, exact, bound, seed)


@claim_check("deora-eq-115", "printed-parametrization")
def check_eq115(factor: float = 0.5, *, P: float = 0.01, names: tuple[str, ...] = ("A", "B", "C"),
                seed: int = 20) -> CheckRecord:
    """Eq. (115) (sign of ``alpha`` absorbed): with ``v = zeta/2 u_star + p``, ``||p|| <= P``,
    ``y <grad_W Phi, W_star> >= T(1-zeta) zeta factor (...) - 2 sqrt(2(M+1)) P T^{5/2} S^2 (S+Z)^3``."""
    parts = {}
    for name in names:
        cfg = REGIMES[name]
        for PP in (0.0, P):
            rhs = bm.eq115_rhs(cfg.T, cfg.zeta, cfg.S, cfg.M, cfg.Z_mu, cfg.Z_nu, cfg.Z, PP, factor=factor)
            parts.update(_wpart_parts(cfg, f"{name}-P{PP}", 0.5, PP, rhs, seed, normalized=False))
    return combined_bound(parts, "W-part lower bound (115), printed parametrization", seed=seed)


@claim_check("deora-eq-116", "corrected-center")
def check_eq116(denominator: float = 4.0, *, names: tuple[str, ...] = ("A", "B", "C"), seed: int = 22) -> CheckRecord:
    """Eq. (116) as printed holds for the corrected parametrization ``v = zeta/4 u_star + p'``,
    ``||p'|| <= P`` (``P = 0`` and ``P`` measured on an actual first step), per sample (the expectation over
    ``alpha`` is trivial: the summand does not depend on ``alpha``)."""
    parts = {}
    n1 = n1_measure()
    for name in names:
        cfg = REGIMES[name]
        for P in (0.0, measured_P(name, n1)):
            rhs = bm.eq116_rhs(cfg.T, cfg.zeta, cfg.S, cfg.M, cfg.Z_mu, cfg.Z_nu, cfg.Z, P, denominator=denominator)
            parts.update(_wpart_parts(cfg, f"{name}-P{P:.2g}", 0.25, P, rhs, seed, normalized=True))
    return combined_bound(parts, "normalized W-part >= (116) with the corrected center", seed=seed)


@claim_check("deora-lemma-13", "per-sample-margin")
def check_lemma13(sign: float = 1.0, *, names: tuple[str, ...] = ("A", "B", "C"), seed: int = 23) -> CheckRecord:
    """Lemma 13 (with E1 corrected): per sample, ``y <grad Phi(X; theta(1)), theta_star> >= gamma_star(P)``
    for ``v = zeta/4 u_star + p'``, ``||p'|| <= P`` (worst ``p'``); also the printed parametrization
    ``v = zeta/2 u_star + p``.  ``sign`` multiplies ``Wbar_star`` (the paper: ``sign(alpha) alpha = 1``).

    The closed form is checked against autograd features on the actual first step."""
    parts = {}
    n1 = n1_measure()
    extra = {}
    for name in names:
        cfg = REGIMES[name]
        Pm = measured_P(name, n1)
        Wb = wstar(cfg)["Wbar"]
        for center, tag, P, tp in ((0.25, "corrected-P0", 0.0, 2.5), (0.25, "corrected-Pmeas-sharp", Pm, 1.0),
                                   (0.5, "printed-param-P0", 0.0, 2.5)):
            v0 = _v(cfg, center)

            def exact(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return (ntk_margin_closed(X, y, v0, cfg, sign)
                        - P * torch.linalg.norm(term2_coef(X, Wb), dim=1))

            parts.update(_lower_bound_parts(cfg, f"{name}-{tag}", exact, gstar(cfg, P, tp), seed))
        # autograd on the actual first step (alpha = -1 head, theta_star with sign(alpha))
        s = dm1.sample(cfg, 40, seed=seed, noise="corner")
        v = first_step_rows(cfg, n1, 1, 21)[0]
        th = md.pack_heads(f64(-np.ones((1, cfg.T, 1)) * v[None, None, :]), torch.zeros(1, cfg.d, cfg.d, dtype=DT))
        tgt = ntk.theta_star([-1.0 * sign], cfg.S, cfg.M, cfg.T, cfg.d)
        m = ntk.ntk_margins(th, s.X, s.y, 1, tgt).numpy()
        parts[f"{name}-autograd-sharp"] = (gstar(cfg, Pm, 1.0), m.min())
        parts[f"{name}-autograd-printed"] = (gstar(cfg, Pm), m.min())
        extra[name] = {"P": Pm, "gamma_star(0)": gstar(cfg, 0.0), "gamma_star(P)": gstar(cfg, Pm),
                       "gamma_star_sharp(P)": gstar(cfg, Pm, 1.0), "min_margin_autograd": float(m.min())}
    return combined_bound(parts, "per-sample NTK margin of theta_star >= gamma_star (Lemma 13)", seed=seed,
                          extra=extra)


@claim_check("deora-eq-118", "summand-bound")
def check_eq118(R_scale: float = 1.0, *, names: tuple[str, ...] = ("A", "B", "C"), seed: int = 24) -> CheckRecord:
    """Eq. (118): ``|X_h| <= sqrt(2) sqrt(T) R (2 R^2 ||theta_h(1)|| + 1) <= 2 (2 R^3 T (S+P) + sqrt(T) R)``
    (``R`` multiplied by ``R_scale``), on sampled and adversarial data."""
    parts = {}
    n1 = n1_measure()
    for name in names:
        cfg = REGIMES[name]
        P = measured_P(name, n1)
        v = f64(first_step_rows(cfg, n1, 1, 21)[0])
        R = cfg.R * R_scale
        thn = math.sqrt(cfg.T) * float(torch.linalg.norm(v))
        b1 = math.sqrt(2) * math.sqrt(cfg.T) * R * (2 * R**2 * thn + 1)
        b2 = bm.eq118_bound(cfg.T, R, cfg.S, P)
        vals = []
        for mode, s in instances(cfg, pick(100, 1000), seed):
            vals.append(float(ntk_margin_closed(f64(s.X), f64(s.y), v, cfg).abs().max()))
        _, _, av = adversarial_search(cfg, lambda X, y: ntk_margin_closed(X, y, v, cfg).abs(),
                                      restarts=pick(6, 32), steps=pick(40, 150), seed=seed)
        worst = max(max(vals), float(av.max()))
        parts[f"{name}-first"] = (worst, b1)
        parts[f"{name}-second"] = (b1, b2)
    return combined_bound(parts, "per-head summand bound (118)", seed=seed)


def _per_head_summands(cfg: dm1.DM1Config, H: int, n1: int, use_sign: bool, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    alphas = rng.choice([-1.0, 1.0], size=H)
    if H > 1:
        alphas[0], alphas[1] = 1.0, -1.0
    fs = dm1.sample(cfg, n1, seed=seed)
    th = ntk.first_step(fs.X, fs.y, H, alphas)
    s = dm1.sample(cfg, 30, seed=seed + 1)
    tgt = ntk.theta_star(alphas, cfg.S, cfg.M, cfg.T, cfg.d, use_sign=use_sign)
    multi = ntk.ntk_margins(th, s.X, s.y, H, tgt).numpy()
    Us, Ws = md.unpack_heads(th, H, cfg.T, cfg.d)
    tU, tW = md.unpack_heads(tgt * math.sqrt(H), H, cfg.T, cfg.d)
    Xh = np.stack([ntk.ntk_margins(md.pack_heads(Us[h:h + 1], Ws[h:h + 1]), s.X, s.y, 1,
                                   md.pack_heads(tU[h:h + 1], tW[h:h + 1])).numpy() for h in range(H)])
    return {"multi": multi, "Xh": Xh}


@claim_check("deora-lemma-14", "head-invariance")
def check_lemma14(use_sign: bool = True, *, delta: float = 0.1, seed: int = 25) -> CheckRecord:
    """Lemma 14 and E15: the summands ``X_h = y <grad Phi(X; theta_h(1)), theta_star(theta_h(1))>`` are equal for
    all heads (variance 0), the multi-head margin equals ``(1/H) sum_h X_h``, and the bound
    ``gamma_star - deviation`` holds, for ``H in {1, 3, 16}``."""
    parts = {}
    n1 = pick(2000, 20000)
    for name in ("A", "B"):
        cfg = REGIMES[name]
        for H in (1, 3, 16):
            r = _per_head_summands(cfg, H, n1, use_sign, seed)
            Xh, multi = r["Xh"], r["multi"]
            scale = float(np.abs(Xh).max())
            parts[f"{name}-H{H}-spread"] = ((Xh.max(0) - Xh.min(0)), 1e-12 * scale)
            parts[f"{name}-H{H}-average"] = (np.abs(multi - Xh.mean(0)), 1e-12 * scale)
            P = measured_P(name, n1_measure())
            dev = bm.lemma14_deviation(cfg.T, cfg.R, cfg.S, P, H, delta)
            parts[f"{name}-H{H}-bound"] = (gstar(cfg, P) - dev, multi.min())
    return combined_bound(parts, "multi-head NTK margin: identical summands over heads (E15) and Lemma 14",
                          seed=seed)


@claim_check("deora-lemma-15", "ntk-max-margin")
def check_lemma15(gamma_star_fn: Callable[[dm1.DM1Config, float], float] = gstar, *,
                  names: tuple[str, ...] = ("A", "B", "C"), reduction: bool = True, seed: int = 26) -> CheckRecord:
    """Lemma 15 / P3: ``min_i`` margin of ``theta~_star`` ``>= gamma_star >= gamma_star/2`` (any ``H``, E15);
    the actual NTK max-margin (cvxpy) ``>=`` that margin; the ``H = 3`` full problem equals the reduced one."""
    parts = {}
    extra = {}
    n, n1 = pick(60, 500), n1_measure()
    for name in names:
        cfg = REGIMES[name]
        r = ntk_margin_instance(cfg, n, n1, seed)
        g = gamma_star_fn(cfg, r["P"])
        gs = gstar(cfg, r["P"], 1.0)
        parts[f"{name}-target>=gamma_star"] = (g, r["min_target"])
        parts[f"{name}-target>=gamma_star/2"] = (g / 2, r["min_target"])
        parts[f"{name}-target>=gamma_star_sharp"] = (gs, r["min_target"])
        parts[f"{name}-maxmargin>=target"] = (r["min_target"], r["gamma_ntk"] * (1 + 1e-6))
        extra[name] = {"P": r["P"], "gamma_ntk": r["gamma_ntk"], "min_target": r["min_target"], "gamma_star(P)": g,
                       "gamma_star_sharp(P)": gs, "gamma_star(0)": gstar(cfg), "ntk/gamma_star(0)": r["gamma_ntk"] / gstar(cfg),
                       "ntk/gamma_star_sharp(P)": r["gamma_ntk"] / gs}
    if not reduction:
        return combined_bound(parts, "P3: NTK margin of theta_star and the actual NTK max-margin", seed=seed,
                              extra=extra)
    # reduction: the full H = 3 problem (autograd features) has the same optimum as the reduced one
    cfg = REGIMES["B"]
    fs = dm1.sample(cfg, 2000, seed=seed)
    alphas = np.array([1.0, -1.0, 1.0])
    th3 = ntk.first_step(fs.X, fs.y, 3, alphas)
    s = dm1.sample(cfg, pick(30, 200), seed=seed + 2)
    full = ntk_max_margin(ntk.ntk_features(th3, s.X, 3).numpy(), s.y)
    v = md.unpack_heads(th3, 3, cfg.T, cfg.d)[0][0, 0] / alphas[0]
    red = ntk_max_margin(ntk.reduced_features(s.X, v).numpy(), s.y)
    parts["reduction-H3"] = (abs(full.margin - red.margin), 1e-5 * abs(red.margin))
    extra["reduction"] = {"full": full.margin, "reduced": red.margin}
    return combined_bound(parts, "P3: NTK margin of theta_star and the actual NTK max-margin", seed=seed,
                          extra=extra)


@claim_check("deora-prop-2", "p3-ntk-margin")
def check_prop2_p3(gamma_fraction: float = 0.5, *, seed: int = 27) -> CheckRecord:
    """P3 of Proposition 2 on the actual multi-head first-phase iterate (``H = 4``, mixed signs):
    ``y_i <grad Phi~(X_i; theta~(1)), theta~_star> >= gamma_fraction * gamma_star`` for all ``i`` (autograd)."""
    parts = {}
    for name, cfg in REGIMES.items():
        alphas = np.array([1.0, -1.0, -1.0, 1.0])
        v = f64(first_step_rows(cfg, n1_measure(), 1, 21)[0])   # common row of every head (Lemma 16)
        th = md.pack_heads(f64(alphas)[:, None, None] * torch.ones(4, cfg.T, 1, dtype=DT) * v,
                           torch.zeros(4, cfg.d, cfg.d, dtype=DT))
        P = float(torch.linalg.norm(v - cfg.zeta / 4 * f64(dm1.patterns(cfg)["u_star"])))
        s = dm1.sample(cfg, pick(50, 300), seed=seed + 1, noise="corner")
        m = ntk.ntk_margins(th, s.X, s.y, 4, ntk.theta_star(alphas, cfg.S, cfg.M, cfg.T, cfg.d)).numpy()
        parts[f"{name}-printed"] = (gamma_fraction * gstar(cfg, P), m.min())
        parts[f"{name}-sharp"] = (gamma_fraction * gstar(cfg, P, 1.0), m.min())
    return combined_bound(parts, "P3 with gamma = gamma_star/2 on the multi-head first-phase iterate", seed=seed)


@claim_check("deora-eq-7", "values-and-scaling")
def check_eq7(gamma_star_fn: Callable[..., float] = bm.gamma_star) -> CheckRecord:
    """Eq. (7): hand values of regimes A (0.709) and B (2.42) at ``P = 0`` (to 0.005), and the scaling
    ``S -> cS, Z -> cZ, Z_mu,nu -> c^2 Z_mu,nu, P -> cP``: attention and ``P`` terms scale by ``c^4``, the
    linear term by ``c``."""
    parts = {}
    for name, ref in (("A", 0.709), ("B", 2.42)):
        c = REGIMES[name]
        g = gamma_star_fn(c.T, c.zeta, c.S, c.M, c.Z_mu, c.Z_nu, c.Z, 0.0)
        parts[f"{name}-value"] = (abs(g - ref), 0.005)
    rng = np.random.default_rng(0)
    for _ in range(20):
        T, M = int(rng.integers(2, 20)), int(rng.integers(1, 5))
        z, S, Zm, Zn, Z, P, c = (rng.uniform(0.05, 0.95), rng.uniform(0.5, 3), rng.uniform(0, 0.2),
                                 rng.uniform(0, 0.2), rng.uniform(0, 0.5), rng.uniform(0, 0.1), rng.uniform(0.5, 3))
        lin = bm.gamma_lin(T, z, S, Zm)
        g1 = gamma_star_fn(T, z, S, M, Zm, Zn, Z, P)
        g2 = gamma_star_fn(T, z, c * S, M, c**2 * Zm, c**2 * Zn, c * Z, c * P)
        pred = c**4 * (g1 - lin) + c * lin
        parts.setdefault("scaling", ([], []))
        parts["scaling"][0].append(abs(g2 - pred))
        parts["scaling"][1].append(1e-9 * (1 + abs(pred)))
    return combined_bound(parts, "gamma_star (7): reference values and scaling law")


@claim_check("deora-sec-5-1-example", "large-s-limit")
def check_sec51_example(limit: Callable[[int, int], float] = lambda T, M: T / (4 * math.sqrt(2 * (M + 1))),
                        *, kappa: float = 1.0) -> CheckRecord:
    """Pre-O form of ``gamma_star = gamma_lin + Omega(zeta^2 (1-zeta) S^4)``: with ``Z = Zbar = kappa S``, ``P = 1``,
    ``(gamma_star - gamma_lin) / (zeta^2 (1-zeta) S^4) -> T / (4 sqrt(2(M+1)))``; relative error ``< 1%`` at
    ``S = 1e8`` for ``(T, zeta, M)`` in a small grid."""
    lhs, rhs, table = [], [], {}
    for T, z, M in ((8, 0.25, 3), (10, 0.1, 2), (4, 0.5, 1)):
        S = 1e8
        val = (bm.gamma_star(T, z, S, M, kappa * S, kappa * S, kappa * S, 1.0) - bm.gamma_lin(T, z, S, kappa * S)) \
            / (z**2 * (1 - z) * S**4)
        L = limit(T, M)
        lhs.append(abs(val / L - 1))
        rhs.append(0.01)
        table[f"T={T},zeta={z},M={M}"] = [
            (bm.gamma_star(T, z, s, M, kappa * s, kappa * s, kappa * s, 1.0) - bm.gamma_lin(T, z, s, kappa * s))
            / (z**2 * (1 - z) * s**4) / L for s in (1e2, 1e4, 1e6, 1e8)]
    return check_bound(lhs, rhs, "limit of (gamma_star - gamma_lin)/(zeta^2 (1-zeta) S^4)",
                       extra={"ratio_to_limit_at_S=1e2,1e4,1e6,1e8": table})


@claim_check("deora-eq-9", "norms")
def check_eq9(printed_scale: Callable[[float, int], float] = lambda S, T: 1 / (S * math.sqrt(T))) -> CheckRecord:
    """E6: Eq. (9) normalizes ``||U_opt|| = ||W_opt|| = 1`` (total ``sqrt(2)``); App. E's (123) uses
    ``1/(S sqrt(T))`` (reading ``1_d`` as ``1_T``), giving ``||U_opt|| = sqrt(2)`` and a total norm ``sqrt(3)``."""
    pr, co, ref, inst = [], [], [], []
    for cfg in REGIMES.values():
        tg = wstar(cfg)
        inst.append([cfg.S, cfg.T, cfg.M, tg["U"], tg["W"]])
        Wopt = tg["W"] / (cfg.S**2 * math.sqrt(2 * (cfg.M + 1)))
        for scale, out in ((printed_scale(cfg.S, cfg.T), pr), (1 / (cfg.S * math.sqrt(2 * cfg.T)), co)):
            out.append(math.hypot(float(torch.linalg.norm(tg["U"] * scale)), float(torch.linalg.norm(Wopt))))
        ref.append(math.sqrt(2))
    return confirm_erratum(
        identity_outcome(pr, ref, instances=inst), identity_outcome(co, ref, instances=inst),
        description="||theta_opt||_F = sqrt(2) for the optimal single head",
        printed_text="(123): U_opt = 1/(S sqrt(T)) 1_d (mu_+ - mu_-)^T", corrected_text=
        "U_opt = 1/(S sqrt(2T)) 1_T (mu_+ - mu_-)^T as in Eq. (9)",
        source="Deora et al., TMLR version (seed 001), App. E, Eq. (123) (restatement opening the proof of "
               "Prop. 3; Eq. (9) in Sec. 5.3 is right)", kind="typo", where="proof")


def _tight_leak(T: int, L: int, eps: float, factor: float) -> tuple[float, float]:
    """Leak at ``r = (A..A, B..B)`` with ``A = 2B = 2`` and ``Gamma = factor * threshold``."""
    A, B = 2.0, 1.0
    G = factor * bm.saturation_threshold(A, T, L, eps)
    r = torch.tensor([A] * L + [B] * (T - L), dtype=DT) * G
    lse = torch.logsumexp(r, 0)
    return float(torch.exp(torch.logsumexp(r[L:], 0) - lse)), eps


@claim_check("deora-lemma-18", "saturation")
def check_lemma18(gamma_factor: float = 1.0, *, seed: int = 28) -> CheckRecord:
    """Lemma 18 with ``A > 0``: at ``Gamma = gamma_factor * (2/A) log((T/L - 1)/eps)`` the mass outside the top
    ``L`` scores is ``<= eps`` (random scores and the tight configuration ``A = 2B``, leak ``eps/(1+eps)``)."""
    rng = np.random.default_rng(seed)
    lhs, rhs = [], []
    for _ in range(pick(400, 4000)):
        T = int(rng.integers(2, 30))
        L = int(rng.integers(1, T))
        A = float(rng.uniform(0.1, 10))
        B = float(rng.uniform(-5, A / 2 * 0.999))
        eps = float(10 ** rng.uniform(-8, -0.3))
        r = np.concatenate([A + rng.exponential(1.0, L) * rng.integers(0, 2), B - rng.exponential(1.0, T - L)
                            * rng.integers(0, 2, T - L)])
        G = gamma_factor * max(0.0, bm.saturation_threshold(A, T, L, eps))   # Gamma >= 0 (E8)
        rt = torch.tensor(r * G, dtype=DT)
        lhs.append(float(torch.exp(torch.logsumexp(rt[L:], 0) - torch.logsumexp(rt, 0))))
        rhs.append(eps)
    tight = [_tight_leak(T, L, eps, gamma_factor) for T, L in ((2, 1), (10, 3), (50, 5)) for eps in (0.5, 1e-3, 1e-8)]
    return combined_bound({"random": (lhs, rhs), "tight": ([a for a, _ in tight], [b for _, b in tight])},
                          "softmax saturation (Lemma 18)", seed=seed, rtol=1e-9)


@claim_check("deora-lemma-18", "sign-condition")
def check_lemma18_sign(printed_requires_positive_A: bool = False) -> CheckRecord:
    """E8: Lemma 18 needs ``A > 0``.  Counterexample ``T = 2, L = 1, r = (-1, -0.6)``, ``A = -1 > 2B = -1.2``,
    ``eps = 0.1``: the threshold is negative and ``Gamma = 1`` satisfies it, yet the leak is ``0.599``."""
    neg_l, neg_r = [], []
    # two cases with A < 0, and one with A > 0 where eps > T/L - 1 makes the threshold (and Gamma) negative
    for r, L, A, B, eps, G in ((np.array([-1.0, -0.6]), 1, -1.0, -0.6, 0.1, 1.0),
                               (np.array([-2.0, -3.0, -1.1]), 1, -2.0, -1.1, 0.2, 0.5),
                               (np.array([1.0] * 9 + [-2.0]), 9, 1.0, -2.0, 0.5, -3.0)):
        assert A > 2 * B and G >= bm.saturation_threshold(A, len(r), L, eps)
        neg_l.append(float(torch.softmax(torch.tensor(G * r, dtype=DT), 0)[L:].sum()))
        neg_r.append(eps)
    pos = [_tight_leak(T, L, 0.1, 1.0) for T, L in ((4, 1), (7, 2))]
    pos_l, pos_r = [a for a, _ in pos], [e for _, e in pos]
    pl = pos_l + ([] if printed_requires_positive_A else neg_l)
    pr = pos_r + ([] if printed_requires_positive_A else neg_r)
    return confirm_erratum(
        bound_outcome(pl, pr), bound_outcome(pos_l, pos_r),
        different_instances_reason="the corrected lemma adds the hypothesis A > 0 (so Gamma >= 0), which the "
                                   "counterexamples violate: it is evaluated on the instances that satisfy it",
        description=f"softmax saturation without / with the sign condition A > 0 (counterexample leaks "
                    f"{np.round(neg_l, 3).tolist()} vs eps {neg_r})",
        printed_text="r_1 >= .. >= r_L >= A, max_{i>L} r_i <= B, A > 2B, Gamma >= (2/A) log((T/L-1)/eps) => leak <= eps",
        corrected_text="the same with A > 0 and Gamma >= max(0, (2/A) log((T/L-1)/eps))",
        source="Deora et al., TMLR version (seed 001), App. E, Lemma 18", kind="missing-hypothesis",
        where="statement")


def _prop3_data(gamma_factor: float, transpose: bool, seed: int, small: bool = False) -> dict[str, list[tuple[float, ...]]]:
    """Worst leak and worst margin per (configuration, eps, instance family): ``leak`` entries
    ``(value, eps)``, ``margin`` entries ``(value, T, S, Z_mu, eps)``."""
    out: dict[str, list[tuple[float, ...]]] = {"leak": [], "margin": []}
    cfgs = PROP3_CONFIGS if pick(False, True) else PROP3_CONFIGS[1:4]
    cfgs = cfgs[:1] if small else cfgs
    K = pick(4, 16)
    for T, z in cfgs:
        for S in pick((1.5,), (0.8, 1.5, 3.0)):
            cfg = dm1.DM1Config(T=T, d=6, M=2, S=S, zeta=z, Z_mu=S**2 / 8, Z_nu=S**2 / 8, Z_perp=0.3)
            rel = torch.zeros(K, T, dtype=torch.bool)
            rel[:, :cfg.n_relevant] = True
            for eps in ((1e-3,) if small else (0.5, 0.1, 1e-3, 1e-6)):
                Gm = gamma_factor * bm.prop3_threshold(S, 2, z, eps)
                meta = (T, S, cfg.Z_mu, eps)
                for mode, s in instances(cfg, pick(40, 300), seed):
                    lk, mg = leak_and_margin(f64(s.X), f64(s.y), torch.as_tensor(s.relevant), cfg, Gm, transpose)
                    out["leak"].append((float(lk.max()), eps))
                    out["margin"].append((float(mg.min()),) + meta)
                if small:
                    continue
                _, _, v = adversarial_search(cfg, lambda X, y: leak_and_margin(X, y, rel, cfg, Gm, transpose)[0].amax(-1),
                                             restarts=K, steps=pick(25, 100), seed=seed)
                out["leak"].append((float(v.max()), eps))
                _, _, v = adversarial_search(cfg, lambda X, y: -leak_and_margin(X, y, rel, cfg, Gm, transpose)[1],
                                             restarts=K, steps=pick(25, 100), seed=seed)
                out["margin"].append((float(-v.max()),) + meta)
    return out


@cached_per_scale(maxsize=8)
def _prop3_cached(gamma_factor: float, transpose: bool, seed: int, small: bool = False) -> dict[str, list[tuple[float, ...]]]:
    return _prop3_data(gamma_factor, transpose, seed, small)


def _leak_parts(d: dict[str, list[tuple[float, ...]]]) -> tuple[list[float], list[float]]:
    return [a for a, _ in d["leak"]], [e for _, e in d["leak"]]


def _margin_parts(d: dict[str, list[tuple[float, ...]]], with_eps: bool = True) -> tuple[list[float], list[float]]:
    return ([bm.gamma_attn(int(T), S, Zm, eps if with_eps else 0.0) for _, T, S, Zm, eps in d["margin"]],
            [m for m, *_ in d["margin"]])


@claim_check("deora-eq-10", "leak")
def check_eq10(transpose: bool = False, *, small: bool = False, seed: int = 29) -> CheckRecord:
    """Eq. (10): at ``Gamma_eps`` every query puts mass ``<= eps`` on ``R^c`` (``Z_mu = Z_nu = S^2/8``; corner,
    uniform and adversarial noise; ``eps in {0.5, 0.1, 1e-3, 1e-6}``); ``transpose`` uses ``W_opt^T``."""
    d = _prop3_cached(1.0, transpose, seed, small)
    return combined_bound({"leak": _leak_parts(d)}, "softmax mass on irrelevant tokens <= eps (10)", seed=seed)


@claim_check("deora-eq-11", "margin")
def check_eq11(eps_in_bound: bool = True, *, small: bool = False, seed: int = 29) -> CheckRecord:
    """Eq. (11): ``y Phi(X; U_opt, Gamma_eps W_opt) >= gamma_attn(eps)`` on the same instances; with
    ``eps_in_bound=False`` the right side is the limit ``gamma_attn(0) = S sqrt(T/2)`` (not attained)."""
    d = _prop3_cached(1.0, False, seed, small)
    return combined_bound({"margin": _margin_parts(d, eps_in_bound)},
                          "saturated single-head margin >= gamma_attn(eps) (11)", seed=seed, rtol=1e-12)


@claim_check("deora-prop-3", "saturation-and-margin")
def check_prop3(gamma_factor: float = 1.0, *, small: bool = False, seed: int = 29) -> CheckRecord:
    """Proposition 3 end to end: at ``gamma_factor * Gamma_eps`` both (10) and (11) hold on all instances."""
    d = _prop3_cached(gamma_factor, False, seed, small)
    return combined_bound({"leak (10)": _leak_parts(d), "margin (11)": _margin_parts(d)},
                          "Proposition 3: saturation and margin at the stated Gamma_eps", seed=seed)


@claim_check("deora-eq-129", "score-gap")
def check_eq129(transpose: bool = False, *, names: tuple[str, ...] = ("A", "B", "C", "S2/8"), seed: int = 30) -> CheckRecord:
    """Eq. (129): relevant scores ``>= A = S^4 - S^2 (Z_mu + Z_nu)``, irrelevant ``<= B = 2(Z_mu^2 + Z_mu Z_nu + S^2 Z_mu)``
    under ``W_star`` (``transpose`` uses ``W_star^T``), adversarially; regimes A-C and ``Zbar = S^2/8``."""
    parts = {}
    cfgs = dict(REGIMES)
    cfgs["S2/8"] = dm1.DM1Config(T=8, d=6, M=2, S=1.5, zeta=0.25, Z_mu=1.5**2 / 8, Z_nu=1.5**2 / 8, Z_perp=0.3)
    for name in names:
        cfg = cfgs[name]
        W = wstar(cfg)["W"]
        W = W.T if transpose else W
        A, B = bm.score_gap(cfg.S, cfg.Z_mu, cfg.Z_nu)
        k = cfg.n_relevant

        def scores(X: torch.Tensor) -> torch.Tensor:
            return md.head_scores(X, W.unsqueeze(0))[:, 0]

        rmin, imax = [], []
        for mode, s in instances(cfg, pick(100, 1000), seed):
            r = scores(f64(s.X))
            rel = torch.as_tensor(s.relevant)[:, None, :].expand_as(r)
            rmin.append(float(r[rel].min()))
            imax.append(float(r[~rel].max()))
        _, _, v = adversarial_search(cfg, lambda X, y: -scores(X)[:, :, :k].amin((-1, -2)),
                                     restarts=pick(6, 32), steps=pick(40, 150), seed=seed)
        rmin.append(float(-v.max()))
        _, _, v = adversarial_search(cfg, lambda X, y: scores(X)[:, :, k:].amax((-1, -2)),
                                     restarts=pick(6, 32), steps=pick(40, 150), seed=seed)
        imax.append(float(v.max()))
        parts[f"{name}-relevant>=A"] = (A, min(rmin))
        parts[f"{name}-irrelevant<=B"] = (max(imax), B)
    return combined_bound(parts, "score gap (129) under W_star", seed=seed)


@claim_check("deora-eq-129", "constant-chain")
def check_eq129_chain(printed_multiple: float = 2.0) -> CheckRecord:
    """E7: for ``Z_mu = Z_nu <= S^2/8`` the text claims ``(1.25/4) S^4 >= 2B``; only ``(1.25/4) S^4 >= B`` holds,
    and the conclusion ``A >= (3/4) S^4 > 2B`` survives.  Grid over ``S`` and ``Z in (0, S^2/8]``."""
    lp, rp, lc, rc, grid = [], [], [], [], []
    for S in np.linspace(0.3, 5, 15):
        for frac in np.linspace(0.05, 1.0, 20):
            Z = frac * S**2 / 8
            grid.append([S, Z])
            A, B = bm.score_gap(S, Z, Z)
            lp.append(printed_multiple * B)
            rp.append(1.25 / 4 * S**4)
            lc += [B, 2 * B, 0.75 * S**4]
            rc += [1.25 / 4 * S**4, 0.75 * S**4 * (1 - 1e-12), A]
    return confirm_erratum(
        bound_outcome(lp, rp, instances=grid), bound_outcome(lc, rc, instances=grid),
        description="constants in the proof of Prop. 3 (App. E.1)",
        printed_text="Z_mu = Z_nu <= S^2/8 => A >= (3/4) S^4 > (1.25/4) S^4 >= 2B",
        corrected_text="(1.25/4) S^4 >= B, hence 2B <= (2.5/4) S^4 < (3/4) S^4 <= A",
        source="Deora et al., TMLR version (seed 001), App. E.1, proof of Prop. 3", kind="proof-step",
        where="proof")


@claim_check("deora-sec-5-3-margins", "ordering")
def check_ordering(s_grid: Any = None) -> CheckRecord:
    """E10: ``gamma_attn >= gamma_star`` fails for large ``S`` (``gamma_star ~ S^4``, ``gamma_attn ~ S``); the corrected
    statement: ``gamma_lin <= gamma_star`` always (``P = 0``, no noise) and ``gamma_star <= gamma_attn`` iff
    ``S <= S_c = (4 sqrt(M+1)/(sqrt(T) zeta^2))^{1/3}``; ``gamma_attn - gamma_lin`` decreases in ``zeta``."""
    rows = ordering_grid(s_grid)
    lp = [r["star"] for r in rows]
    rp = [r["attn"] for r in rows]
    lc, rc = [], []
    for r in rows:
        lc.append(r["lin"])
        rc.append(r["star"] * (1 + 1e-12))
        if r["S"] <= r["S_c"]:
            lc.append(r["star"])
            rc.append(r["attn"] * (1 + 1e-12))
        else:
            lc.append(r["attn"])
            rc.append(r["star"] * (1 + 1e-12))
    for T, M in ((10, 2), (8, 3)):   # gap gamma_attn - gamma_lin decreasing in zeta
        gaps = [bm.gamma_attn(T, 2.0, 0.0) - bm.gamma_lin(T, z, 2.0, 0.0) for z in np.linspace(0.05, 0.95, 19)]
        lc += gaps[1:]
        rc += gaps[:-1]
        lp += gaps[1:]   # the printed "gap increases with decreasing sparsity", on the same zeta grid
        rp += gaps[:-1]
    inst = {"rows": rows, "zeta": np.linspace(0.05, 0.95, 19), "T_M": [(10, 2), (8, 3)]}
    return confirm_erratum(
        bound_outcome(lp, rp, instances=inst), bound_outcome(lc, rc, instances=inst),
        description="ordering gamma_attn >= gamma_star >= gamma_lin over S in [0.25, 5] (P = 0, no noise)",
        printed_text="gamma_attn >= gamma_star >= gamma_lin, and the gap increases with decreasing sparsity",
        corrected_text="gamma_star >= gamma_lin; gamma_attn >= gamma_star iff S <= (4 sqrt(M+1)/(sqrt(T) zeta^2))^{1/3}; "
                       "gamma_attn - gamma_lin = (1-zeta) S sqrt(T/2) grows as zeta decreases",
        source="Deora et al., Section 5.3 (after Prop. 3) and Section 7", kind="false-statement",
        where="statement")


@claim_check("deora-eq-12", "dominance")
def check_eq12(const: float = 324.0, *, seed: int = 32) -> CheckRecord:
    """Eq. (12) as the explicit ``324 d sqrt(T) R^5 ||theta||^3``: it is dominated by the exact head condition of
    Theorem 3 at ``theta_0 = 0`` (random and extreme instances; ratio -> 1 when ``||theta||_{2,inf} << ||theta||``)."""
    rng = np.random.default_rng(seed)
    lhs, rhs = [], []
    for _ in range(pick(300, 3000)):
        T, d = int(rng.integers(1, 50)), int(rng.integers(1, 50))
        R = float(10 ** rng.uniform(0, 2))
        nrm = float(10 ** rng.uniform(-3, 3))
        n2i = nrm * float(rng.uniform(0, 1)) ** 3
        lhs.append(bm.eq12_rhs(T, d, R, nrm, const=const))
        rhs.append(bm.thm3_head_condition_at_zero(T, d, R, nrm, n2i))
    for nrm in (1e3, 1e6):      # extreme: ||theta||_{2,inf} = 0, R^2 ||theta|| huge
        lhs.append(bm.eq12_rhs(4, 3, 10.0, nrm, const=const))
        rhs.append(bm.thm3_head_condition_at_zero(4, 3, 10.0, nrm, 0.0))
    return check_bound(lhs, rhs, "324 d sqrt(T) R^5 ||theta||^3 <= Theorem 3's condition at theta_0 = 0", seed=seed)


@claim_check("deora-sec-5-3", "log-lp")
def check_sec53(s_power: float = 5.0, *, p_values: Any = None) -> CheckRecord:
    """Section 5.3 in log variables: the LP of :func:`attention_theory.deora.mixture_bounds.sec53_lp` is infeasible
    for ``n = 3`` and ``n = 1000`` for every ``p in (0, 4]`` (40 values at smoke scale, 200 at full) and ``c in {1/4, 1/2, 1, 2}``; it is
    feasible for ``L = -0.5`` (the LP can say yes), and its frontier is ``L <= -h/2``."""
    lhs, rhs = [], []
    ps = np.linspace(0.02, 4, pick(40, 200)) if p_values is None else np.asarray(p_values, dtype=float)
    for c in (0.25, 0.5, 1.0, 2.0):
        for p in ps:
            for n in (3, 1000):
                res = bm.sec53_lp(p, math.log(math.log(n)), c=c, s_power=s_power)
                lhs.append(0.0 if res.status == 2 else 1.0)       # 2 = infeasible
                rhs.append(0.0)
            ctrl = bm.sec53_lp(p, -0.5, c=c, s_power=s_power, h_max=50.0)
            lhs.append(0.0 if ctrl.status == 0 else 1.0)
            rhs.append(0.0)
            fr = bm.sec53_lp(p, -0.5, c=c, s_power=s_power, objective=[-1.0, 0.0, 0.0], h_max=50.0)
            lhs.append(abs(fr.x[0] - 1.0) if fr.status == 0 else 1.0)   # sup h = -2L = 1
            rhs.append(1e-7)
    return check_bound(lhs, rhs, "no (C, p) makes the Prop.-3 target satisfy (12) when log n > 1; frontier L <= -h/2")


@claim_check("deora-sec-5-3", "exponent-erratum")
def check_sec53_exponent(printed_exponent: float = 0.25) -> CheckRecord:
    """E9: ``H^{1/2} >= log^5(n) C^{-2} H^{2p-1}`` implies ``H^{p - 3/4} <= C / log^{5/2}(n)``, not ``H^{p - 1/4}``.
    LP: maximize ``(p - e) h - k + 5L/2`` subject to the premise, ``0 <= h <= 10``; it must be ``<= 0``."""
    from scipy.optimize import linprog

    L = math.log(math.log(1000))
    mp, mc = [], []
    ps = np.linspace(0.05, 4, 40)
    for p in ps:
        for e, out in ((printed_exponent, mp), (0.75, mc)):
            # premise: h/2 >= 5L - 2k + (2p - 1) h  <=>  (2p - 3/2) h - 2k <= -5L
            res = linprog([-(p - e), 1.0], A_ub=[[2 * p - 1.5, -2.0]], b_ub=[-5 * L],
                          bounds=[(0, 10), (None, None)], method="highs")
            out.append(-res.fun + 2.5 * L)
    return confirm_erratum(
        bound_outcome(mp, 0.0, atol=1e-9, instances=ps), bound_outcome(mc, 0.0, atol=1e-9, instances=ps),
        description="exponent in the Section 5.3 chain (log variables, LP over h in [0, 10], n = 1000)",
        printed_text="H^{1/2} >~ log^5(n) C^{-2} H^{2p-1} => H^{p-1/4} <~ C / log^{5/2}(n)",
        corrected_text="=> H^{p-3/4} <~ C / log^{5/2}(n) (the contradiction survives since p - 2 < p - 3/4)",
        source="Deora et al., Section 5.3, the argument that the Prop. 3 target violates (12)",
        kind="proof-step", where="proof")
