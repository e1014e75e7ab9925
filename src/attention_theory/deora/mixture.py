"""Instances and samplers for the tokenized-mixture model DM1 and its first gradient step (Deora et al., Section 5.1, Apps. D, F).

The closed forms ``gamma_star`` (Eq. (7)) and ``gamma_lin`` (Eq. (132)) of a DM1 configuration,
the parameter regimes, random and corner instances, the adversarial search over the noise
allowed by Assumption 3, the combined-bound helper, and actual (autograd) first steps whose
common row ``v`` defines the initialization of the second phase.  The checks of Section 5.1 and
properties P1-P2 in :mod:`attention_theory.deora.checks.mixture` (and, for the shared helpers,
:mod:`attention_theory.deora.checks.margins`) evaluate them (chapter ``book/deora/tokenized-mixture.md``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.foundations.tensors import f64
from attention_theory.verify import (
    CheckRecord,
    ClaimViolation,
    bound_outcome,
    check_bound,
)

DT = torch.float64


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
                   families: list[str] | None = None, limits: list[dict[str, Any]] | None = None) -> CheckRecord:
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
                       *, restarts: int = 8, steps: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    a = torch.tensor(rng.standard_normal((restarts, cfg.T, cfg.M + 2)) * 3.0, dtype=DT, requires_grad=True)
    b = torch.tensor(rng.standard_normal((restarts, cfg.T, k)) * 3.0, dtype=DT, requires_grad=True)

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


def first_step_data(cfg: dm1.DM1Config, n1: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
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
    """First step on the dense regime (zeta = 0.9): common row v, ``P = ||v - zeta/4 u_star||`` and test data."""
    cfg = DENSE
    v = first_step_rows(cfg, pick(2000, 20000), 1, seed)[0]
    P = float(np.linalg.norm(v - cfg.zeta / 4 * dm1.patterns(cfg)["u_star"]))
    s = dm1.sample(cfg, pick(200, 1000), seed=seed + 1)
    c = s.X.sum(1) @ v                                   # Phi~ = A c, A = H^{-1/2} sum alpha_h
    return {"cfg": cfg, "v": v, "P": P, "X": s.X, "y": s.y, "c": c}
