"""Step II of Qin, Zhou & Zhu (2025) **as reconstructed**: a small bound calculus (numpy, float64).

On the ball ``B = {theta : ||theta - theta0||_F <= r}`` every intermediate quantity ``Q`` of
:mod:`attention_theory.qin.model` gets a norm bound ``Q.norm`` (valid at every point of
``B``) and a vector ``Q.lip`` of six per-block coefficients (order
:data:`~attention_theory.qin.model.BLOCKS`) with

    ||Q(theta) - Q(theta')||_F <= sum_b Q.lip[b] ||W_b - W_b'||_F     for theta, theta' in B.

The rules are the chain/product rules of the reconstructed Eq. (38); the per-block
gradient bounds (41)-(46) are the rows of the 6 x 6 matrix ``C`` of
:func:`lipschitz_constants`, and ``Q1 = ||C||_F`` (Step II).  Every constant is computed,
none is typed.  Notation: ``xi = ||X||_2``, ``lam_b >= ||W_b||_2`` on ``B``, ``T`` the
sequence length (``||S||_2 <= sqrt(T)`` for block-diagonal row-stochastic ``S``), ``rbar`` a
bound on ``||F - Y||_F``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

import numpy as np

from attention_theory.qin.model import BLOCKS, QinConfig, activation_beta
from attention_theory.validation import as_matrix, check_int, check_positive, refuses_overflow

__all__ = ["Bounded", "BallConstants", "ball_constants", "intermediate_bounds",
           "lipschitz_constants", "gradient_residual_ratio", "choose_radius", "theorem2_constants",
           "SOFTMAX_LIP", "SOFTMAX_JAC_LIP"]

#: ``||diag(s) - s s^T||_2 <= 1/2``: each softmax row is 1/2-Lipschitz in its logits.
SOFTMAX_LIP = 0.5
#: ``||J(p) - J(p')||_2 <= 3 ||s - s'|| <= 3/2 ||p - p'||`` for ``J = diag(s) - s s^T``.
SOFTMAX_JAC_LIP = 1.5

_IDX = {b: i for i, b in enumerate(BLOCKS)}


@dataclasses.dataclass(frozen=True)
class Bounded:
    """A quantity's norm bound on the ball and its per-block Lipschitz coefficients ``(6,)``."""

    norm: float
    lip: np.ndarray

    def __add__(self, other: "Bounded") -> "Bounded":
        return Bounded(self.norm + other.norm, self.lip + other.lip)

    def scale(self, c: float) -> "Bounded":
        return Bounded(c * self.norm, c * self.lip)


def _e(block: str, c: float) -> np.ndarray:
    v = np.zeros(len(BLOCKS))
    v[_IDX[block]] = c
    return v


@dataclasses.dataclass(frozen=True)
class BallConstants:
    """Data of the ball: ``xi = ||X||_2``, ``xiF = ||X||_F``, ``T``, ``dk``, the spectral bounds
    ``lam[b] = ||W_b(0)||_2 + r``, the residual bound ``rbar`` and the activation constants."""

    xi: float
    xiF: float
    T: int
    dk: int
    lam: dict[str, float]
    rbar: float
    rho1: int
    rho2: int
    beta: float
    radius: float


def _check_params0(params0: Any) -> None:
    if not isinstance(params0, Mapping):
        raise TypeError(f"params0 must be a mapping with the blocks {BLOCKS}, got {type(params0).__name__}")


@refuses_overflow
def ball_constants(params0: Mapping[str, Any], X: Any, cfg: QinConfig, radius: float,
                   rbar: float | None = None, *, loss0: float | None = None) -> BallConstants:
    """Constants of the ball of ``radius`` around ``params0``.

    ``rbar`` bounds ``||F - Y||_F``: pass it directly (e.g. ``sqrt(2 L0)`` along a
    descending path, Eq. (39)), or pass ``loss0 = L(theta0)`` to get the bound valid on the
    whole ball, ``sqrt(2 L0) + Lip_F r`` (``Lip_F`` from the forward part of the calculus).
    """
    if not isinstance(cfg, QinConfig):
        raise TypeError(f"cfg must be a QinConfig, got {type(cfg).__name__}")
    _check_params0(params0)
    radius = check_positive(radius, "radius", allow_zero=True)
    X = as_matrix(X, "X")
    N = X.shape[0]
    if N % cfg.n_seq:
        raise ValueError(f"X has N={N} rows, not divisible by n_seq={cfg.n_seq}")
    lam = {}
    for b in BLOCKS:
        if b not in params0:
            raise ValueError(f"params0 lacks block {b}")
        lam[b] = float(np.linalg.norm(as_matrix(params0[b], f"params0['{b}']"), 2)) + radius
    dk = int(as_matrix(params0["WQ"], "params0['WQ']").shape[1])
    base = dict(xi=float(np.linalg.norm(X, 2)), xiF=float(np.linalg.norm(X)), T=N // cfg.n_seq,
                dk=dk, lam=lam, rho1=cfg.rho1, rho2=cfg.rho2,
                beta=activation_beta(cfg.gamma, cfg.b), radius=radius)
    if rbar is None:
        if loss0 is None:
            raise ValueError("give rbar or loss0")
        loss0 = check_positive(loss0, "loss0", allow_zero=True)
        tmp = BallConstants(rbar=0.0, **base)
        lipF = float(np.linalg.norm(intermediate_bounds(tmp)["F"].lip))
        rbar = math.sqrt(2 * loss0) + lipF * radius
    return BallConstants(rbar=check_positive(rbar, "rbar", allow_zero=True), **base)


def intermediate_bounds(c: BallConstants, *, softmax_lip: float = SOFTMAX_LIP,
                        softmax_jac_lip: float = SOFTMAX_JAC_LIP) -> dict[str, Bounded]:
    """The reconstructed Eq. (38): norm bound and Lipschitz coefficients of every intermediate.

    Keys: ``P, S, SX, B (= S X WV), Z, U, H, F, R, D1, GZ, GS, GP`` and the six gradient
    blocks ``WQ, ..., W2`` (whose ``lip`` rows form the matrix ``C`` of (41)-(46)).
    Norms are spectral bounds where the product rules need them and Frobenius bounds
    otherwise (the Frobenius bound is also a spectral bound).
    """
    if not isinstance(c, BallConstants):
        raise TypeError("c must be a BallConstants")
    L = c.lam
    xi, sT, tau, rbar = c.xi, math.sqrt(c.T), 1 / math.sqrt(c.dk), c.rbar
    out: dict[str, Bounded] = {}
    out["P"] = Bounded(tau * xi**2 * L["WQ"] * L["WK"],
                       _e("WQ", tau * xi**2 * L["WK"]) + _e("WK", tau * xi**2 * L["WQ"]))
    out["S"] = Bounded(sT, softmax_lip * out["P"].lip)
    out["SX"] = Bounded(sT * xi, xi * out["S"].lip)
    out["B"] = Bounded(sT * xi * L["WV"], L["WV"] * out["SX"].lip + _e("WV", sT * xi))
    zeta = c.rho1 * xi + out["B"].norm * L["WO"]
    zetaF = c.rho1 * c.xiF + sT * c.xiF * L["WV"] * L["WO"]
    out["Z"] = Bounded(zeta, L["WO"] * out["B"].lip + _e("WO", out["B"].norm))
    out["U"] = Bounded(zetaF * L["W1"], L["W1"] * out["Z"].lip + _e("W1", zeta))
    out["H"] = Bounded(out["U"].norm, out["U"].lip)  # |sigma(x)| <= |x|, sigma' <= 1
    out["F"] = Bounded(c.rho2 * zeta + L["W2"] * out["H"].norm,
                       c.rho2 * out["Z"].lip + L["W2"] * out["H"].lip + _e("W2", out["H"].norm))
    out["R"] = Bounded(rbar, out["F"].lip)
    # D1 = sigma'(U) * (R W2^T): ||a*b||_F <= ||a||_F ||b||_F and sigma' beta-Lipschitz, <= 1
    RW = Bounded(rbar * L["W2"], L["W2"] * out["R"].lip + _e("W2", rbar))
    out["D1"] = Bounded(RW.norm, c.beta * RW.norm * out["U"].lip + RW.lip)
    out["GZ"] = Bounded(c.rho2 * rbar + out["D1"].norm * L["W1"],
                        c.rho2 * out["R"].lip + L["W1"] * out["D1"].lip + _e("W1", out["D1"].norm))
    gz = out["GZ"].norm
    out["GS"] = Bounded(gz * L["WO"] * L["WV"] * xi,
                        xi * L["WO"] * L["WV"] * out["GZ"].lip
                        + _e("WO", gz * xi * L["WV"]) + _e("WV", gz * xi * L["WO"]))
    gs = out["GS"].norm
    out["GP"] = Bounded(softmax_lip * gs,
                        softmax_jac_lip * gs * out["P"].lip + softmax_lip * out["GS"].lip)
    gp = out["GP"].norm
    # the six gradient blocks (the rows of C, reconstructed (41)-(46))
    out["W2"] = Bounded(out["H"].norm * rbar, rbar * out["H"].lip + out["H"].norm * out["R"].lip)
    out["W1"] = Bounded(zeta * out["D1"].norm,
                        out["D1"].norm * out["Z"].lip + zeta * out["D1"].lip)
    out["WQ"] = Bounded(tau * xi**2 * gp * L["WK"],
                        tau * xi**2 * (L["WK"] * out["GP"].lip + _e("WK", gp)))
    out["WK"] = Bounded(tau * xi**2 * gp * L["WQ"],
                        tau * xi**2 * (L["WQ"] * out["GP"].lip + _e("WQ", gp)))
    out["WV"] = Bounded(out["SX"].norm * gz * L["WO"],
                        gz * L["WO"] * out["SX"].lip + out["SX"].norm * L["WO"] * out["GZ"].lip
                        + _e("WO", out["SX"].norm * gz))
    out["WO"] = Bounded(out["B"].norm * gz, gz * out["B"].lip + out["B"].norm * out["GZ"].lip)
    return out


def lipschitz_constants(c: BallConstants) -> tuple[np.ndarray, float]:
    """``(C, Q1)``: the 6 x 6 per-block matrix of (41)-(46) and ``Q1 = ||C||_F`` (Step II).

    Row ``b`` of ``C`` bounds ``||grad_b L(theta) - grad_b L(theta')||_F <= sum_b' C[b, b']
    ||W_b' - W_b''||_F``; then ``||grad L(theta) - grad L(theta')|| <= ||C||_2 ||theta - theta'||
    <= ||C||_F ||theta - theta'||`` by the block decomposition (40) and Cauchy-Schwarz.
    """
    ib = intermediate_bounds(c)
    C = np.stack([ib[b].lip for b in BLOCKS])
    return C, float(np.linalg.norm(C))


def gradient_residual_ratio(c: BallConstants) -> float:
    """``G_R``: ``||grad L(theta)||_F <= G_R ||F(theta) - Y||_F`` on the ball (every block is
    linear in the residual ``R``), i.e. the gradient-block norm bounds at ``rbar = 1``."""
    if not isinstance(c, BallConstants):
        raise TypeError(f"c must be a BallConstants, got {type(c).__name__}")
    ib = intermediate_bounds(dataclasses.replace(c, rbar=1.0))
    return float(math.sqrt(sum(ib[b].norm**2 for b in BLOCKS)))


@refuses_overflow
def choose_radius(params0: Mapping[str, Any], X: Any, cfg: QinConfig, sigma_N_Z0: float,
                  sigma_d_W20: float, *, iters: int = 60) -> float:
    """Largest ``r`` (bisection) with ``r ||Z.lip||_2 <= sigma_N(Z0)/2`` and ``r <= sigma_d(W2(0))/2``.

    On such a ball Weyl's inequality gives ``sigma_N(Z) >= sigma_N(Z0)/2`` and
    ``sigma_d(W2) >= sigma_d(W2(0))/2`` (the reconstructed choice of ``r0``).
    """
    if not isinstance(cfg, QinConfig):
        raise TypeError(f"cfg must be a QinConfig, got {type(cfg).__name__}")
    _check_params0(params0)
    check_positive(sigma_N_Z0, "sigma_N_Z0", allow_zero=True)
    check_positive(sigma_d_W20, "sigma_d_W20", allow_zero=True)
    iters = check_int(iters, "iters")
    hi = sigma_d_W20 / 2
    c0 = ball_constants(params0, X, cfg, 0.0, rbar=0.0)

    def ok(r: float) -> bool:
        c = dataclasses.replace(c0, lam={b: v + r for b, v in c0.lam.items()}, radius=r)
        return r * float(np.linalg.norm(intermediate_bounds(c)["Z"].lip)) <= sigma_N_Z0 / 2

    if hi <= 0 or sigma_N_Z0 <= 0:
        return 0.0
    if ok(hi):
        return hi
    lo = 0.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


@refuses_overflow
def theorem2_constants(params0: Mapping[str, Any], X: Any, cfg: QinConfig, loss0: float,
                       sigma_N_Z0: float, sigma_d_W20: float) -> dict[str, float]:
    """The reconstructed constants of Theorem 2 and its initialization condition (star).

    Returns ``r0``, ``Q0 = gamma^2 sigma_N(Z0)^2 sigma_d(W2(0))^2 / 16``, ``Q1`` (ball
    version, valid for any pair in ``B``), ``Q1_path`` (with ``rbar = sqrt(2 L0)``, Eq. (39)),
    ``G_R``, the two sides of (star)
    ``lhs = gamma^2 sigma_N^2 sigma_d^2 r0`` and ``rhs = 32 G_R sqrt(2 L0)``, and ``holds``.
    """
    if not isinstance(cfg, QinConfig):
        raise TypeError(f"cfg must be a QinConfig, got {type(cfg).__name__}")
    _check_params0(params0)
    check_positive(loss0, "loss0", allow_zero=True)
    check_positive(sigma_N_Z0, "sigma_N_Z0", allow_zero=True)
    check_positive(sigma_d_W20, "sigma_d_W20", allow_zero=True)
    r0 = choose_radius(params0, X, cfg, sigma_N_Z0, sigma_d_W20)
    cb = ball_constants(params0, X, cfg, r0, loss0=loss0)
    _, Q1 = lipschitz_constants(cb)
    _, Q1p = lipschitz_constants(ball_constants(params0, X, cfg, r0, rbar=math.sqrt(2 * loss0)))
    GR = gradient_residual_ratio(cb)
    g2 = cfg.gamma**2 * sigma_N_Z0**2 * sigma_d_W20**2
    lhs, rhs = g2 * r0, 32 * GR * math.sqrt(2 * loss0)
    return {"r0": r0, "Q0": g2 / 16, "Q1": Q1, "Q1_path": Q1p, "G_R": GR, "star_lhs": lhs,
            "star_rhs": rhs, "holds": bool(lhs >= rhs), "rbar_ball": cb.rbar}
