"""Instances and samplers for the tokenized-mixture model DM1 and its first gradient step
(Deora et al., Section 5.1, Apps. D, F).

The closed forms ``gamma_star`` (Eq. (7)) and ``gamma_lin`` (Eq. (132)) of a DM1 configuration,
the parameter regimes, random and corner instances, the adversarial search over the noise
allowed by Assumption 3, the combined-bound and lower-bound helpers with the phrases naming their
families, actual (autograd) first steps whose common row ``v`` defines the initialization of the
second phase, the constants that Lemma 2, Eq. (6) and Lemma 17 would need, and exact Rademacher
tail probabilities (Fact 2, Lemma 12).  The checks of Section 5.1 and properties P1-P3 in
:mod:`attention_theory.deora.checks.tokenized_mixture` evaluate them (chapter
``book/deora/tokenized-mixture.md``); the shared helpers also serve
:mod:`attention_theory.deora.checks.ntk_margin` and :mod:`attention_theory.deora.checks.attention_margin`
(chapters ``book/deora/ntk-margin.md``, ``book/deora/attention-margin.md``).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
import torch
from scipy import stats

from attention_theory.config import cached_per_scale, pick
from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.foundations.tensors import VERIFICATION_DTYPE, f64
from attention_theory.verify import (
    CheckRecord,
    ClaimViolation,
    bound_outcome,
    check_bound,
)

#: Parameter regimes in which gamma_star > 0 (catalogue): A, B, C.
REGIMES: dict[str, dm1.DM1Config] = {
    "A": dm1.DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3),
    "B": dm1.DM1Config(T=6, d=6, M=2, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3),
    "C": dm1.DM1Config(T=4, d=6, M=1, S=3.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.2),
}


#: A dense regime (zeta = 0.9) in which Lemma 12 / P1-P2 are least loose.
DENSE = dm1.DM1Config(T=10, d=6, M=2, S=1.5, zeta=0.9, Z_mu=0.05, Z_nu=0.05, Z_perp=0.2)


def gstar(cfg: dm1.DM1Config, P: float = 0.0, t_power: float = 2.5) -> float:
    """``gamma_star`` of Eq. (7) for a DM1 configuration (``t_power = 1``: the book's sharper ``P``-term)."""
    return bm.gamma_star(cfg.T, cfg.zeta, cfg.S, cfg.M, cfg.Z_mu, cfg.Z_nu, cfg.Z, P, t_power)


def n1_measure() -> int:
    """First-phase sample size used to measure ``P = ||p'||``: ``10^5`` (smoke) or ``10^6`` (full)."""
    return pick(100000, 1000000)


def glin(cfg: dm1.DM1Config) -> float:
    """``gamma_lin`` of Eq. (132) for a DM1 configuration."""
    return bm.gamma_lin(cfg.T, cfg.zeta, cfg.S, cfg.Z_mu)


def combined_bound(parts: dict[str, tuple[Any, Any]], description: str, *, seed: int | None = None,
                   params: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
                   rtol: float = 1e-9, atol: float = 0.0, tolerance_reason: str | None = None,
                   search: Any = None, no_search: str | None = None,
                   families: list[str] | None = None,
                   limits: list[dict[str, Any]] | None = None) -> CheckRecord:
    """Check several ``lhs <= rhs`` parts at once; a failing part is named in the error.

    The record's ``extra["worst_by_part"]`` holds each part's worst ratio.  Tolerances follow
    :func:`attention_theory.verify.check_bound` (``tolerance_reason`` above the maxima), and so do
    ``search`` (the :class:`~attention_theory.search.SizedSearch` whose instances are among the
    parts), ``no_search`` (why the statement admits no adversarial search), ``families`` (one
    phrase per family of instances the parts evaluate or search) and ``limits`` (sequences from
    :func:`~attention_theory.verify.limit_sequence`, whose instances must be among the parts),
    passed on to it.
    """
    worst, failed, L, R = {}, [], [], []
    for name, (lhs, rhs) in parts.items():
        lhs = np.atleast_1d(np.asarray(lhs, dtype=float)).ravel()
        rhs = np.atleast_1d(np.asarray(rhs, dtype=float)).ravel()
        if rhs.size == 1 and lhs.size > 1:
            rhs = np.full_like(lhs, rhs[0])
        o = bound_outcome(lhs, rhs, rtol=rtol, atol=atol, tolerance_reason=tolerance_reason)
        worst[name] = o.worst
        if not o.passed:
            failed.append(f"[{name}] {o.summary()} (lhs {o.detail['lhs_at_worst']:.6g} vs rhs "
                          f"{o.detail['rhs_at_worst']:.6g})")
        L.append(lhs)
        R.append(rhs)
    if failed:
        raise ClaimViolation(f"{description}: " + "; ".join(failed))
    ex = {"worst_by_part": worst}
    ex.update(extra or {})
    return check_bound(np.concatenate(L), np.concatenate(R), description, rtol=rtol, atol=atol,
                       tolerance_reason=tolerance_reason, seed=seed, params=params, extra=ex,
                       search=search, no_search=no_search, families=families, limits=limits)


def adversarial_search(cfg: dm1.DM1Config, objective: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                       *, restarts: int = 8, steps: int = 60, seed: int = 0
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximize ``objective(X, y)`` (a ``(K,)`` tensor) over Assumption-3 noise, ``K = restarts`` at once.

    Each restart has its own label, relevant set (the first ``zeta T`` positions; the checked
    quantities are permutation invariant) and pattern indices ``j_t``; the noise is
    ``coef = bounds * tanh(a)``, ``w = Z_perp b / sqrt(1 + ||b||^2)``, so every iterate satisfies
    Assumption 3.  Starts near corners (large ``|a|``).  Returns ``(X, y, values)``, float64 numpy.
    """
    rng = np.random.default_rng(seed)
    c = cfg.replace(relevant="first")
    base = dm1.sample(c, restarts, seed=seed, noise="none")
    yt = f64(base.y)
    bnd = f64(cfg.coef_bounds)
    k = cfg.d - cfg.M - 2
    a = torch.tensor(rng.standard_normal((restarts, cfg.T, cfg.M + 2)) * 3.0, dtype=VERIFICATION_DTYPE,
                     requires_grad=True)
    b = torch.tensor(rng.standard_normal((restarts, cfg.T, k)) * 3.0, dtype=VERIFICATION_DTYPE,
                     requires_grad=True)

    def build() -> torch.Tensor:
        coef = bnd * torch.tanh(a)
        w = cfg.Z_perp * b / torch.sqrt(1 + (b**2).sum(-1, keepdim=True))
        return dm1.assemble(c, base.y, base.relevant, base.j, dm1.coefficients_to_noise(c, coef, w))

    opt = torch.optim.LBFGS([a, b], max_iter=steps, line_search_fn="strong_wolfe", tolerance_grad=1e-12,
                            tolerance_change=1e-14)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        val = -objective(build(), yt).sum()
        val.backward()
        return val

    opt.step(closure)
    with torch.no_grad():
        X = build()
        vals = objective(X, yt)
    return X.numpy(), base.y, vals.numpy()


def instances(cfg: dm1.DM1Config, n: int, seed: int) -> list[tuple[str, dm1.DM1Sample]]:
    """Random instances for a bound: ``[("uniform", sample), ("corner", sample)]``, ``n`` draws each."""
    return [(mode, dm1.sample(cfg, n, seed=seed + 7 * i, noise=mode))
            for i, mode in enumerate(("uniform", "corner"))]


def lower_part(bound: float, v: Any) -> tuple[Any, Any]:
    """The lower bound ``bound <= v`` as a part ``(lhs, rhs)`` of :func:`combined_bound`; for a negative
    bound it is written ``-v <= -bound`` so that the ratio reads as tightness."""
    return (bound, v) if bound >= 0 else (-v, -bound)


def family_random(names: Any, n: int) -> str:
    """Family phrase of :func:`instances` (uniform and corner noise) in the configurations ``names``."""
    return f"uniform and corner Assumption-3 noise, {n} samples each, regimes {', '.join(names)}"


def family_adversarial(restarts: int, steps: int) -> str:
    """Family phrase of :func:`adversarial_search` per regime."""
    return (f"adversarial L-BFGS over the Assumption-3 noise of {restarts} samples at once (corner starts), "
            f"{steps} steps, per regime")


def family_search(names: Any, budget: dict[str, int], labels: str = "y = +1") -> str:
    """Family phrase of :func:`attention_theory.deora.dm1_search.dm1_search` over the smallest
    configuration and ``names`` (``budget``: its restarts and steps)."""
    return (f"dm1_search: L-BFGS + Nelder-Mead over one sample's Assumption-3 noise, {budget['restarts']} "
            f"start(s) x {budget['steps']} steps per size and method, sizes: the smallest "
            f"(T = 2, d = 4, M = 1) and {', '.join(names)}, {labels}")


def lower_bound_parts(cfg: dm1.DM1Config, name: str,
                      exact: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                      bound: float, seed: int) -> dict[str, tuple[Any, Any]]:
    """``bound <= exact(X, y)`` on uniform, corner and adversarial (minimizing ``exact``) instances of
    ``cfg``: parts ``{name-uniform, name-corner, name-adversarial}`` of :func:`combined_bound`
    (``exact`` maps ``(K, T, d)`` tokens and ``(K,)`` labels to ``(K,)`` values)."""
    parts = {}
    for mode, s in instances(cfg, pick(100, 1000), seed):
        parts[f"{name}-{mode}"] = lower_part(bound, float(exact(f64(s.X), f64(s.y)).min()))
    _, _, vals = adversarial_search(cfg, lambda X, y: -exact(X, y), restarts=pick(4, 32),
                                    steps=pick(30, 150), seed=seed)
    parts[f"{name}-adversarial"] = lower_part(bound, float(-vals.max()))
    return parts


def first_step_data(cfg: dm1.DM1Config, n1: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n1`` first-phase samples of ``cfg`` (seeded): tokens ``(n1, T, d)`` and labels ``(n1,)``."""
    s = dm1.sample(cfg, n1, seed=seed)
    return s.X, s.y


@cached_per_scale(maxsize=8)
def first_step_rows(cfg: dm1.DM1Config, n1: int, reps: int, seed: int) -> np.ndarray:
    """Common row ``v = U_h(1)_row / alpha_h`` of actual (autograd) first steps: ``(reps, d)``."""
    rows = []
    for r in range(reps):
        X, y = first_step_data(cfg, n1, seed + 7919 * r)
        th = ntk.first_step(X, y, 1, [1.0])
        rows.append(md.unpack_heads(th, 1, cfg.T, cfg.d)[0][0, 0].numpy())
    return np.array(rows)


N1_VALUES = lambda: pick([100, 1000, 10000], [100, 1000, 10000, 100000])  # noqa: E731


@cached_per_scale(maxsize=4)
def dense_setup(seed: int = 10) -> dict[str, Any]:
    """First step on the dense regime (zeta = 0.9): common row v, ``P = ||v - zeta/4 u_star||`` and
    test data."""
    cfg = DENSE
    v = first_step_rows(cfg, pick(2000, 20000), 1, seed)[0]
    P = float(np.linalg.norm(v - cfg.zeta / 4 * dm1.patterns(cfg)["u_star"]))
    s = dm1.sample(cfg, pick(200, 1000), seed=seed + 1)
    c = s.X.sum(1) @ v                                   # Phi~ = A c, A = H^{-1/2} sum alpha_h
    return {"cfg": cfg, "v": v, "P": P, "X": s.X, "y": s.y, "c": c}


def deviation_rate(cfg: dm1.DM1Config, n1: int, delta: float) -> float:
    """``sqrt(d/n1) + sqrt(log(1/delta)/n1)``, the rate of Lemma 2, Eq. (6) and Lemma 17."""
    return math.sqrt(cfg.d / n1) + math.sqrt(math.log(1 / delta) / n1)


def implied_constants(cfg: dm1.DM1Config, centers: tuple[float, ...], n1s: list[int], reps: int, delta: float,
                      seed: int) -> tuple[np.ndarray, np.ndarray]:
    """For each centre ``c`` (a multiple of ``zeta u_star``): the constant (6) would need,
    ``C_hat(n1) = q_{1-delta}(||v - c zeta u_star||) / ((2S+Z)(sqrt(d/n1) + sqrt(log(1/delta)/n1)))``,
    and the mean norm, over the same ``reps`` autograd first steps per ``n1``
    (:func:`first_step_rows`); arrays ``(len(centers), len(n1s))`` (Lemma 2 and Eq. (6))."""
    us = dm1.patterns(cfg)["u_star"]
    C = np.empty((len(centers), len(n1s)))
    mean_norm = np.empty_like(C)
    for j, n1 in enumerate(n1s):
        rows = first_step_rows(cfg, n1, reps, seed)
        for i, c in enumerate(centers):
            norms = np.linalg.norm(rows - c * cfg.zeta * us[None, :], axis=1)
            C[i, j] = np.quantile(norms, 1 - delta) / ((2 * cfg.S + cfg.Z) * deviation_rate(cfg, n1, delta))
            mean_norm[i, j] = norms.mean()
    return C, mean_norm


def p_quantiles(cfg: dm1.DM1Config, n1s: list[int], reps: int, delta: float,
                seed: int) -> dict[str, np.ndarray]:
    """Exact ``(1 - delta)``-quantiles of ``||p_1||`` (printed and corrected centers;
    ``N_+ ~ Bin(n1, 1/2)``) and sampled quantiles of ``||p_2||`` (alpha = 1, ``reps`` draws), one
    entry per ``n1`` (Lemma 17)."""
    z, S = cfg.zeta, cfg.S
    q1p, q1c, q2 = [], [], []
    rng_seed = seed
    for n1 in n1s:
        k = np.arange(n1 + 1)
        pmf = stats.binom.pmf(k, n1, 0.5)
        f = k / n1
        printed = z / 2 * S * np.sqrt(f**2 + (1 - f) ** 2)
        corrected = z / 2 * S * math.sqrt(2) * np.abs(f - 0.5)
        for vals, out in ((printed, q1p), (corrected, q1c)):
            order = np.argsort(vals)
            cdf = np.cumsum(pmf[order])
            out.append(vals[order][np.searchsorted(cdf, 1 - delta)])
        norms = []
        for r in range(reps):
            s = dm1.sample(cfg, n1, seed=rng_seed + 1000 * r + n1)
            irr = np.where(s.relevant[:, :, None], 0.0, s.X).sum(1)
            norms.append(np.linalg.norm((s.y[:, None] * irr).sum(0) / (2 * n1 * cfg.T)))
        q2.append(np.quantile(norms, 1 - delta))
    return {"p1_printed": np.array(q1p), "p1_corrected": np.array(q1c), "p2": np.array(q2)}


def p1_quantiles_at(cfg: dm1.DM1Config, n1s: list[int], delta: float, center: float) -> np.ndarray:
    """Exact ``(1 - delta)``-quantiles of ``||p_1||`` when ``p_1`` is centred at ``center`` times the
    printed centre (Lemma 17 with another claimed centre), one per ``n1``."""
    z, S = cfg.zeta, cfg.S
    qs = []
    for n1 in n1s:
        k = np.arange(n1 + 1)
        f = k / n1
        v = z / 2 * S * np.sqrt((f - center) ** 2 + (1 - f - center) ** 2)
        order = np.argsort(v)
        cdf = np.cumsum(stats.binom.pmf(k, n1, 0.5)[order])
        qs.append(v[order][np.searchsorted(cdf, 1 - delta)])
    return np.array(qs)


@functools.lru_cache(maxsize=256)
def _binom_law(H: int) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(H + 1)
    return np.abs(2 * k - H) / H, stats.binom.pmf(k, H, 0.5)


def rademacher_violation(H: int, thr: float) -> float:
    """``P(|H^{-1} sum_h alpha_h| > thr)`` exactly, ``alpha_h`` Rademacher (Fact 2)."""
    mean, pmf = _binom_law(H)
    return float(pmf[mean > thr * (1 + 1e-12)].sum())


def rademacher_sum_violation(H: int, thr: float) -> float:
    """``P(|H^{-1/2} sum_h alpha_h| > thr)`` exactly, ``alpha_h`` Rademacher (Lemma 12, P2)."""
    return rademacher_violation(H, thr / math.sqrt(H))


def sampler_parts(sampler: Callable[..., dm1.DM1Sample], cfg: dm1.DM1Config, name: str, N: int,
                  seed: int) -> tuple[dict[str, tuple[Any, Any]], float]:
    """Parts ``(lhs, rhs)`` of the DM1 sampler's properties for ``N`` draws of ``sampler(cfg, N, seed=,
    noise=)`` with uniform and with corner noise (keys prefixed by ``name``): relevant rows equal to
    ``mu_y``, ``|R| = zeta T`` and the noise within Assumption 3 (``0 <= 0``), and the largest |z-score| of
    ``(1/N) sum_i y_i sum_{t in R^c} x_{i,t}`` under uniform noise against 5; returns the parts and that
    z-score."""
    parts: dict[str, tuple[Any, Any]] = {}
    z_max = float("nan")
    for mode in ("uniform", "corner"):
        s = sampler(cfg, N, seed=seed, noise=mode)
        pt = dm1.patterns(cfg)
        mu = np.where(s.y[:, None] > 0, pt["mu_plus"], pt["mu_minus"])
        err = np.abs(s.X - mu[:, None, :])[s.relevant].max()
        parts[f"{name}-{mode}-relevant-rows"] = (err, 0.0)
        parts[f"{name}-{mode}-count"] = (np.abs(s.relevant.sum(1) - cfg.n_relevant).max(), 0.0)
        bad = (~dm1.noise_bounds_ok(cfg, s.X - np.where(s.relevant[:, :, None], mu[:, None, :],
                                                          pt["nu"][np.clip(s.j, 0, cfg.M - 1)])))
        parts[f"{name}-{mode}-noise-bounds"] = (bad[~s.relevant].sum(), 0.0)
        if mode == "uniform":   # the corner mode picks signs against y on purpose (adversarial)
            Y = s.y[:, None] * np.where(s.relevant[:, :, None], 0.0, s.X).sum(1)          # (N, d)
            m, se = Y.mean(0), Y.std(0, ddof=1) / math.sqrt(N)
            z = np.abs(m) / np.maximum(se, 1e-300)
            z_max = float(z.max())
            parts[f"{name}-independence"] = (z.max(), 5.0)
    return parts, z_max


def extremal_token(cfg: dm1.DM1Config) -> np.ndarray:
    """The DM1 noise token of largest norm, ``(d,)``: ``nu_1`` plus every pattern coefficient at its
    Assumption-3 bound (``c_j = +Z_nu/(M S)``) and the orthogonal part at ``Z_perp``; ``||x|| = R``."""
    coef = cfg.coef_bounds.copy()
    w = np.zeros(cfg.d - cfg.M - 2)
    if w.size:
        w[0] = cfg.Z_perp
    return dm1.patterns(cfg)["nu"][0] + dm1.coefficients_to_noise(cfg, coef, w)


def oracle_linear_margin(cfg: dm1.DM1Config, X: Any, y: Any, rel: Any,
                         z: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (132) on a sample (tokens ``X`` and noise ``z`` ``(n, T, d)``, labels ``(n,)``, relevant mask
    ``(n, T)``): ``y Phi_lin(X; U_lin)`` evaluated directly and by the closed form
    ``(|R| S^2 + y sum_{t in R^c} <u_star, z_t>) / (S sqrt(2T))``, each ``(n,)``."""
    us = f64(dm1.patterns(cfg)["u_star"])
    Ulin = torch.ones(cfg.T, 1, dtype=VERIFICATION_DTYPE) * us[None, :] / (cfg.S * math.sqrt(2 * cfg.T))
    X, y, z = f64(X), f64(y), f64(z)
    val = y * torch.einsum("ntd,td->n", X, Ulin)
    noise_term = y * torch.where(torch.as_tensor(rel), 0.0, z @ us).sum(1)
    ref = (cfg.n_relevant * cfg.S**2 + noise_term) / (cfg.S * math.sqrt(2 * cfg.T))
    return val, ref


def row_decomposition(cfg: dm1.DM1Config, s: dm1.DM1Sample, alpha: float,
                      p2_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (120) on the first-phase sample ``s``: the common row of an autograd first step with step
    ``alpha`` and its decomposition ``zeta alpha/2 u_star + p_1 + p_2`` (``p_2`` multiplied by
    ``p2_scale``), each ``(d,)``."""
    th = ntk.first_step(s.X, s.y, 1, [alpha])
    row = md.unpack_heads(th, 1, cfg.T, cfg.d)[0][0, 0].numpy()
    pt = dm1.patterns(cfg)
    z = cfg.zeta
    muy = np.where(s.y[:, None] > 0, pt["mu_plus"], pt["mu_minus"])
    p1 = z * alpha / 2 * ((s.y[:, None] * muy).mean(0) - pt["u_star"])
    irr = np.where(s.relevant[:, :, None], 0.0, s.X).sum(1)
    p2 = p2_scale * alpha * (1 - z) / 2 * (s.y[:, None] * irr).mean(0) / ((1 - z) * cfg.T)
    return row, z * alpha / 2 * pt["u_star"] + p1 + p2


def fact1_constants(D: Any, Dl: Any, K: float) -> tuple[Any, Any]:
    """Fact 1's implied constants at dimensions ``D`` and probabilities ``Dl`` (broadcast): Gaussian
    ``chi_D^{-1}(1 - Dl) / (K (sqrt D + sqrt(log(1/Dl))))`` (``K``: the claimed psi_2 norm) and
    Rademacher ``sqrt(D) / ((sqrt D + sqrt(log(1/Dl))) / sqrt(log 2))``."""
    q = stats.chi.ppf(1 - Dl, D)
    C = q / (K * (np.sqrt(D) + np.sqrt(np.log(1 / Dl))))
    Cr = np.sqrt(D) / ((np.sqrt(D) + np.sqrt(np.log(1 / Dl))) / math.sqrt(math.log(2)))
    return C, Cr


def head_norms_at(cfg: dm1.DM1Config, v: np.ndarray, H: int) -> np.ndarray:
    """Norms ``(H,)`` of the heads ``U_h = alpha_h 1_T v^T`` with alternating signs ``alpha_h = +-1``
    (the first-phase iterate, Proposition 2, P1)."""
    alphas = np.where(np.arange(H) % 2 == 0, 1.0, -1.0)
    Us = torch.as_tensor(alphas[:, None, None] * np.ones((H, cfg.T, 1)) * v[None, None, :])
    return torch.linalg.norm(Us.reshape(H, -1), dim=1).numpy()


def first_step_setup(name: str, seed: int) -> tuple[dm1.DM1Config, np.ndarray, float, np.ndarray]:
    """Configuration, common row ``v``, ``P = ||v - zeta/4 u_star||`` and test outputs ``c = X_i sum v``
    (``Phi~ = H^{-1/2} sum_h alpha_h c``) of Proposition 2: the dense setup (:func:`dense_setup`) or
    regime ``name`` (an actual first step and 200 test samples)."""
    if name == "dense":
        st = dense_setup()
        return DENSE, st["v"], st["P"], st["c"]
    cfg = REGIMES[name]
    v = first_step_rows(cfg, pick(2000, 20000), 1, seed)[0]
    P = float(np.linalg.norm(v - cfg.zeta / 4 * dm1.patterns(cfg)["u_star"]))
    return cfg, v, P, dm1.sample(cfg, 200, seed=seed).X.sum(1) @ v


def first_update_norms(cfg: dm1.DM1Config, X: np.ndarray, y: np.ndarray, H: int,
                       step: float) -> np.ndarray:
    """Per-head norms ``(H,)`` of the first update ``-step grad_{theta_h} L(0)`` of ``H`` heads on the
    first-phase samples ``X`` ``(n, T, d)``, ``y`` ``(n,)`` (autograd; the two-phase head scaling)."""
    p = md.head_size(cfg.T, cfg.d)
    theta0 = torch.zeros(H * p, dtype=VERIFICATION_DTYPE)
    g = torch.func.grad(md.empirical_risk)(theta0, f64(X), f64(y), H).reshape(H, p)
    return torch.linalg.norm(-(step * g), dim=1).numpy()


def first_step_errors(cfg: dm1.DM1Config, X: np.ndarray, y: np.ndarray, alphas: np.ndarray,
                      sign: float = 1.0) -> tuple[float, float, float, float]:
    """Lemma 16 at an autograd first step of ``len(alphas)`` heads: ``max |W_h(1)|``, the largest
    difference between rows of ``U_h(1)``, the largest difference to ``sign`` times the closed form, and
    ``max |theta~(1)|`` (the scale of the tolerances)."""
    H = len(alphas)
    th = ntk.first_step(X, y, H, alphas)
    Us, Ws = md.unpack_heads(th, H, cfg.T, cfg.d)
    cf = sign * ntk.first_step_closed_form(X, y, H, alphas)
    return (float(torch.abs(Ws).max()), float((Us - Us[:, :1]).abs().max()), float((th - cf).abs().max()),
            float(torch.abs(th).max()))


def linear_svm_margins(cfg: dm1.DM1Config, scale: float, n: int, seed: int) -> tuple[float, float, float]:
    """The oracle ``U_lin = scale 1_T u_star^T`` against the linear hard-margin SVM (cvxpy, radius 1) on
    ``n`` corner samples: ``||U_lin||_F``, the oracle's and the SVM's margins (Eq. (132))."""
    from attention_theory.deora.max_margin import ntk_max_margin

    us = dm1.patterns(cfg)["u_star"]
    Ulin = np.ones((cfg.T, 1)) * us[None, :] * scale
    s = dm1.sample(cfg, n, seed=seed, noise="corner")
    F = s.X.reshape(len(s), -1)
    res = ntk_max_margin(F, s.y, radius=1.0)
    return float(np.linalg.norm(Ulin)), (s.y * (F @ Ulin.ravel())).min(), res.margin


def first_phase_outputs(cfg: dm1.DM1Config, alphas: np.ndarray, seed: int) -> dict[str, Any]:
    """Eq. (103): an autograd first step of ``len(alphas)`` heads on 100 first-phase samples, the model
    output at it on 50 fresh samples (``"out"``, ``(50,)``), ``"base" = X_i sum v / sqrt(H)`` (the output
    divided by ``sum_h alpha_h``) and the data (``"train_X"``, ``"train_y"``, ``"test_X"``)."""
    X, y = first_step_data(cfg, 100, seed)
    H = len(alphas)
    th = ntk.first_step(X, y, H, alphas)
    Us, Ws = md.unpack_heads(th, H, cfg.T, cfg.d)
    v = (Us[0, 0] / alphas[0]).numpy()
    s = dm1.sample(cfg, 50, seed=seed + 1)
    out = np.array([float(md.multi_head(x, Ws, Us)) for x in s.X])
    return {"out": out, "base": s.X.sum(1) @ v / math.sqrt(H), "train_X": X, "train_y": y, "test_X": s.X}
