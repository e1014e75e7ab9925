"""Closed-form quantities of Deora et al., Section 5 and Appendices D-F (tokenized mixture DM1).

Notation (Assumption 3): ``T`` tokens, sparsity ``zeta`` (``zeta T`` label-relevant tokens),
signal strength ``S``, ``M`` irrelevant patterns, noise bounds ``Z_mu``, ``Z_nu`` (inner products
with the patterns), ``Z`` (noise norm) and ``P`` (bound on the first-phase deviation ``||p||``).

* :func:`gamma_star`   -- Eq. (7)/(119), the NTK margin at the first-phase initialization;
* :func:`gamma_lin`    -- Eq. (132), margin of the oracle linear classifier (App. F);
* :func:`gamma_attn`   -- Eq. (11), margin of the saturated single head (Prop. 3);
* :func:`radius_dm1`   -- the token radius ``R`` of Assumption 3;
* :func:`score_gap`    -- ``A, B`` of Eq. (129);
* :func:`saturation_threshold`, :func:`prop3_threshold` -- Lemma 18 and Prop. 3;
* the right-hand sides of Eqs. (112)-(116), (118), Lemmas 12, 14, 15 and Prop. 2;
* :func:`thm3_head_condition_at_zero` -- the exact head-count condition behind Eq. (12);
* :func:`sec53_lp` -- the log-variable linear program of the Section 5.3 argument.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attention_theory.validation import (
    as_vector,
    check_int,
    check_positive,
    check_probability,
    check_real,
    refuses_overflow,
)

__all__ = [
    "zbar", "noise_norm_bound", "radius_dm1", "gamma_star", "gamma_star_parts", "gamma_lin",
    "gamma_attn", "score_gap", "saturation_threshold", "prop3_threshold", "eq112_rhs",
    "eq113_rhs", "eq114_rhs", "eq115_rhs", "eq116_rhs", "eq118_bound",
    "lemma14_deviation", "lemma15_heads", "prop2_B2", "prop2_BPhi", "ordering_crossover",
    "thm3_head_condition_at_zero", "eq12_rhs", "sec53_lp",
]


def _zeta(zeta: Any) -> float:
    return check_probability(zeta, "zeta")


def zbar(Z_mu: float, Z_nu: float) -> float:
    """``Z-bar = max(Z_mu, Z_nu)``."""
    return max(check_positive(Z_mu, "Z_mu", allow_zero=True), check_positive(Z_nu, "Z_nu", allow_zero=True))


@refuses_overflow
def noise_norm_bound(S: float, M: int, Z_mu: float, Z_nu: float, Z_perp: float) -> float:
    """Largest ``||z||`` of the book's bounded sampler: ``sqrt(2 Z_mu^2/S^2 + Z_nu^2/(M S^2) + Z_perp^2)``.

    The coefficients of ``z`` along ``mu_+/S, mu_-/S`` are at most ``Z_mu/S``, along each
    ``nu_l/S`` at most ``Z_nu/(M S)``, and the orthogonal part has norm at most ``Z_perp``.
    """
    S = check_positive(S, "S")
    M = check_int(M, "M")
    Z_mu = check_positive(Z_mu, "Z_mu", allow_zero=True)
    Z_nu = check_positive(Z_nu, "Z_nu", allow_zero=True)
    Z_perp = check_positive(Z_perp, "Z_perp", allow_zero=True)
    return math.sqrt(2 * Z_mu**2 / S**2 + Z_nu**2 / (M * S**2) + Z_perp**2)


@refuses_overflow
def radius_dm1(S: float, Z: float, Z_nu: float, M: int) -> float:
    """Assumption 3 => Assumption 1 with ``R = sqrt(S^2 + Z^2 + 2 Z_nu / M)``."""
    S = check_positive(S, "S")
    Z = check_positive(Z, "Z", allow_zero=True)
    Z_nu = check_positive(Z_nu, "Z_nu", allow_zero=True)
    M = check_int(M, "M")
    return math.sqrt(S**2 + Z**2 + 2 * Z_nu / M)


@refuses_overflow
def gamma_star_parts(T: int, zeta: float, S: float, M: int, Z_mu: float, Z_nu: float, Z: float,
                     P: float, t_power: float = 2.5) -> dict[str, float]:
    """The three terms of Eq. (7): ``"w"`` (attention part), ``"p"`` (``-P T^{5/2}(S+Z)^3``), ``"u"``
    (= gamma_lin).

    ``t_power = 1`` gives the book's sharper ``P``-term ``-P T (S+Z)^3`` (operator-norm bound on Term II).
    """
    T = check_int(T, "T")
    zeta = _zeta(zeta)
    S = check_positive(S, "S")
    M = check_int(M, "M")
    Zb = zbar(Z_mu, Z_nu)
    Z = check_positive(Z, "Z", allow_zero=True)
    P = check_positive(P, "P", allow_zero=True)
    t_power = check_real(t_power, "t_power")
    w = T * (1 - zeta) * zeta / (4 * math.sqrt(2 * (M + 1))) * (
        zeta * S**4 - 7 * Zb * S**2 - 12 * Zb**2 - 16 * Zb**3 / S**2)
    return {"w": w, "p": -P * T**t_power * (S + Z) ** 3, "u": gamma_lin(T, zeta, S, Z_mu)}


@refuses_overflow
def gamma_star(T: int, zeta: float, S: float, M: int, Z_mu: float, Z_nu: float, Z: float,
               P: float, t_power: float = 2.5) -> float:
    """Eq. (7) (= Eq. (119)): the NTK margin ``gamma_star`` of Proposition 2 / Lemma 13.

    ``t_power = 1`` is the book's sharper variant (``-P T (S+Z)^3`` instead of ``-P T^{5/2} (S+Z)^3``).
    """
    parts = gamma_star_parts(T, zeta, S, M, Z_mu, Z_nu, Z, P, t_power)
    return parts["w"] + parts["p"] + parts["u"]


@refuses_overflow
def gamma_lin(T: int, zeta: float, S: float, Z_mu: float) -> float:
    """Eq. (132): ``S sqrt(T)/sqrt(2) (zeta - 2 (1 - zeta) Z_mu / S^2)``."""
    T = check_int(T, "T")
    zeta = _zeta(zeta)
    S = check_positive(S, "S")
    Z_mu = check_positive(Z_mu, "Z_mu", allow_zero=True)
    return S * math.sqrt(T) / math.sqrt(2) * (zeta - 2 * (1 - zeta) * Z_mu / S**2)


@refuses_overflow
def gamma_attn(T: int, S: float, Z_mu: float, eps: float = 0.0) -> float:
    """Eq. (11): ``sqrt(T)/(sqrt(2) S) (S^2 (1 - eps) - 2 eps Z_mu)``; ``eps = 0`` gives ``S sqrt(T/2)``."""
    T = check_int(T, "T")
    S = check_positive(S, "S")
    Z_mu = check_positive(Z_mu, "Z_mu", allow_zero=True)
    eps = check_positive(eps, "eps", allow_zero=True)
    return math.sqrt(T) / (math.sqrt(2) * S) * (S**2 * (1 - eps) - 2 * eps * Z_mu)


@refuses_overflow
def score_gap(S: float, Z_mu: float, Z_nu: float) -> tuple[float, float]:
    """Eq. (129): ``A = S^4 - S^2 (Z_mu + Z_nu)`` and ``B = 2 (Z_mu^2 + Z_mu Z_nu + S^2 Z_mu)``."""
    S = check_positive(S, "S")
    Z_mu = check_positive(Z_mu, "Z_mu", allow_zero=True)
    Z_nu = check_positive(Z_nu, "Z_nu", allow_zero=True)
    return S**4 - S**2 * (Z_mu + Z_nu), 2 * (Z_mu**2 + Z_mu * Z_nu + S**2 * Z_mu)


@refuses_overflow
def saturation_threshold(A: float, T: int, L: int, eps: float) -> float:
    """Lemma 18: ``Gamma >= (2/A) log((T/L - 1)/eps)`` (no sign condition is imposed here)."""
    T = check_int(T, "T")
    L = check_int(L, "L")
    if L > T:
        raise ValueError(f"L must be <= T={T}, got {L}")
    eps = check_positive(eps, "eps")
    if not isinstance(A, (int, float, np.floating)) or not math.isfinite(A) or A == 0:
        raise ValueError(f"A must be a finite non-zero number, got {A!r}")
    if L == T:
        return 0.0
    return 2.0 / A * math.log((T / L - 1) / eps)


@refuses_overflow
def prop3_threshold(S: float, M: int, zeta: float, eps: float) -> float:
    """Proposition 3: ``Gamma_eps = 8 sqrt(2(M+1)) / (3 S^2) log((1/zeta - 1)/eps)``, floored at 0."""
    S = check_positive(S, "S")
    M = check_int(M, "M")
    zeta = _zeta(zeta)
    eps = check_positive(eps, "eps")
    return max(0.0, 8 * math.sqrt(2 * (M + 1)) / (3 * S**2) * math.log((1 / zeta - 1) / eps))


def _tzs(T: Any, zeta: Any, S: Any, Z_mu: Any, Z_nu: Any) -> tuple[int, float, float, float, float]:
    """Validated ``T, zeta, S, Z_mu, Z_nu`` of Eqs. (112)-(113)."""
    return (check_int(T, "T"), _zeta(zeta), check_positive(S, "S"),
            check_positive(Z_mu, "Z_mu", allow_zero=True), check_positive(Z_nu, "Z_nu", allow_zero=True))


@refuses_overflow
def eq112_rhs(T: int, zeta: float, S: float, Z_mu: float, Z_nu: float, lead: float | None = None) -> float:
    """Right side of Eq. (112); ``lead`` replaces the coefficient ``zeta`` of ``S^6`` (negative controls)."""
    T, z, S, Z_mu, Z_nu = _tzs(T, zeta, S, Z_mu, Z_nu)
    lead = z if lead is None else check_real(lead, "lead")
    return T * (lead * S**6 - z * (1 - z) * (Z_mu + Z_nu) * S**4
                - 2 * (1 - z) * (z + 2 * (1 - z)) * Z_mu**2 * S**2
                - 4 * (1 - z) ** 2 * Z_mu**2 * (Z_mu + Z_nu))


@refuses_overflow
def eq113_rhs(T: int, zeta: float, S: float, Z_mu: float, Z_nu: float, lead: float | None = None) -> float:
    """Right side of Eq. (113); ``lead`` replaces ``zeta^2`` in ``-zeta^2 S^6``."""
    T, z, S, Z_mu, Z_nu = _tzs(T, zeta, S, Z_mu, Z_nu)
    lead = z**2 if lead is None else check_real(lead, "lead")
    return T * (-lead * S**6 - z * (1 - z) * (4 * Z_mu + z * Z_nu) * S**4
                - 2 * (1 - z) ** 2 * ((2 + z) * Z_mu + 2 * z * Z_nu) * Z_mu * S**2
                - 4 * (1 - z) ** 3 * Z_mu**2 * (Z_mu + Z_nu))


@refuses_overflow
def eq114_rhs(T: int, zeta: float, S: float, M: int, Z: float, P: float, t_power: float = 2.5) -> float:
    """Right side of Eq. (114) (a lower bound on Term II, ``||p|| <= P``); ``t_power`` is the exponent
    of ``T``."""
    T, z, S, M = check_int(T, "T"), _zeta(zeta), check_positive(S, "S"), check_int(M, "M")
    Z, P = check_positive(Z, "Z", allow_zero=True), check_positive(P, "P", allow_zero=True)
    t_power = check_real(t_power, "t_power")
    return -(math.sqrt(2 * (M + 1)) * S**2 * P * T**t_power * (z * S + (1 - z) * (S + Z))
             * (z * S**2 + (1 - z) * (S + Z) ** 2))


@refuses_overflow
def eq115_rhs(T: int, zeta: float, S: float, M: int, Z_mu: float, Z_nu: float, Z: float, P: float,
              factor: float = 0.5) -> float:
    """Eq. (115) with the sign of ``alpha`` absorbed: lower bound on ``y <grad_W Phi, W_star>``.

    ``T (1-zeta) zeta factor (zeta S^6 - 7 Zb S^4 - 12 Zb^2 S^2 - 16 Zb^3)
    - 2 sqrt(2(M+1)) P T^{5/2} S^2 (S+Z)^3`` with ``factor = 1/2`` as printed.
    """
    T, z, S, M = check_int(T, "T"), _zeta(zeta), check_positive(S, "S"), check_int(M, "M")
    Zb = zbar(Z_mu, Z_nu)
    Z, P = check_positive(Z, "Z", allow_zero=True), check_positive(P, "P", allow_zero=True)
    factor = check_real(factor, "factor")
    return (T * (1 - z) * z * factor * (z * S**6 - 7 * Zb * S**4 - 12 * Zb**2 * S**2 - 16 * Zb**3)
            - 2 * math.sqrt(2 * (M + 1)) * P * T**2.5 * S**2 * (S + Z) ** 3)


@refuses_overflow
def eq116_rhs(T: int, zeta: float, S: float, M: int, Z_mu: float, Z_nu: float, Z: float, P: float,
              denominator: float = 4.0) -> float:
    """Eq. (116): ``T(1-zeta)zeta/(denominator sqrt(2(M+1))) (...) - P T^{5/2} (S+Z)^3`` (printed: 4)."""
    denominator = check_positive(denominator, "denominator")
    parts = gamma_star_parts(T, zeta, S, M, Z_mu, Z_nu, Z, P)
    return parts["w"] * 4.0 / denominator + parts["p"]


def _trsp(T: Any, R: Any, S: Any, P: Any) -> tuple[int, float, float, float]:
    """Validated ``T, R, S, P`` of Eq. (118), Lemmas 14-15 and Proposition 2."""
    return (check_int(T, "T"), check_positive(R, "R"), check_positive(S, "S"),
            check_positive(P, "P", allow_zero=True))


@refuses_overflow
def eq118_bound(T: int, R: float, S: float, P: float) -> float:
    """Eq. (118), last form: ``2 (2 R^3 T (S + P) + sqrt(T) R)``."""
    T, R, S, P = _trsp(T, R, S, P)
    return 2 * (2 * R**3 * T * (S + P) + math.sqrt(T) * R)


@refuses_overflow
def lemma14_deviation(T: int, R: float, S: float, P: float, H: int, delta: float) -> float:
    """Lemma 14's deviation term ``2 (2 R^3 T (S+P) + sqrt(T) R) sqrt(2 log(1/delta) / H)``."""
    T, R, S, P = _trsp(T, R, S, P)
    H = check_int(H, "H")
    delta = check_probability(delta, "delta")
    return eq118_bound(T, R, S, P) * math.sqrt(2 * math.log(1 / delta) / H)


@refuses_overflow
def lemma15_heads(T: int, R: float, S: float, P: float, gamma: float, n: int, delta: float) -> float:
    """Lemma 15: the smallest ``H`` with
    ``sqrt(H) >= 4 (2 R^3 T (S+P) + sqrt(T) R)/gamma sqrt(2 log(n/delta))``."""
    T, R, S, P = _trsp(T, R, S, P)
    n = check_int(n, "n")
    delta = check_probability(delta, "delta")
    gamma = check_positive(gamma, "gamma")
    root = 4 * (2 * R**3 * T * (S + P) + math.sqrt(T) * R) / gamma * math.sqrt(2 * math.log(n / delta))
    return float(math.ceil(root**2))


def prop2_B2(T: int, S: float, P: float) -> float:
    """Proposition 2, P1: ``B_2 = sqrt(T) (S + P)``."""
    return math.sqrt(check_int(T, "T")) * (check_positive(S, "S") + check_positive(P, "P", allow_zero=True))


@refuses_overflow
def prop2_BPhi(T: int, R: float, S: float, P: float, n: int, delta: float) -> float:
    """Proposition 2, P2: ``B_Phi = T R (S + P) sqrt(2 log(n / delta))``."""
    T, R, S, P = _trsp(T, R, S, P)
    n = check_int(n, "n")
    delta = check_probability(delta, "delta")
    return T * R * (S + P) * math.sqrt(2 * math.log(n / delta))


@refuses_overflow
def ordering_crossover(T: int, zeta: float, M: int) -> float:
    """Noise-free, ``P = 0``: ``gamma_attn(0) >= gamma_star`` iff
    ``S <= (4 sqrt(M+1) / (sqrt(T) zeta^2))^{1/3}``.

    From ``gamma_star - gamma_lin = T (1-zeta) zeta^2 S^4 / (4 sqrt(2(M+1)))`` and
    ``gamma_attn - gamma_lin = (1-zeta) S sqrt(T/2)``.
    """
    T = check_int(T, "T")
    zeta = _zeta(zeta)
    M = check_int(M, "M")
    return (4 * math.sqrt(M + 1) / (math.sqrt(T) * zeta**2)) ** (1 / 3)


@refuses_overflow
def thm3_head_condition_at_zero(T: int, d: int, R: float, norm: float, norm_2inf: float) -> float:
    """Exact right side of Theorem 3's head condition at ``theta_0 = 0`` (the source of Eq. (12)).

    ``sqrt(H) >= 36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3 ||theta|| + ||theta||_{2,inf}) + 1) ||theta||^2``.
    """
    T = check_int(T, "T")
    d = check_int(d, "d")
    R = check_positive(R, "R")
    norm = check_positive(norm, "norm", allow_zero=True)
    norm_2inf = check_positive(norm_2inf, "norm_2inf", allow_zero=True)
    return 36 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * norm + norm_2inf) + 1) * norm**2


@refuses_overflow
def eq12_rhs(T: int, d: int, R: float, norm: float, const: float = 324.0) -> float:
    """The explicit form of Eq. (12) kept by the book: ``324 d sqrt(T) R^5 ||theta||^3``."""
    const = check_positive(const, "const", allow_zero=True)
    norm = check_positive(norm, "norm", allow_zero=True)
    return const * check_int(d, "d") * math.sqrt(check_int(T, "T")) * check_positive(R, "R") ** 5 * norm**3


@refuses_overflow
def sec53_lp(p: float, L: float, c: float = 0.5, s_power: float = 5.0, objective: Any = None,
             h_max: float | None = None) -> Any:
    """The Section 5.3 argument as a linear program in ``(h, s, k) = (log H, log S, log C)``.

    All hidden constants are set to 1 and ``L = log log n``.  Per head
    ``U_h = (log n / gamma_attn) H^{c-1} U_opt`` (output margin ``log n`` for identical heads under
    the ``H^{-c}`` normalization, ``c = 1/2`` in the paper) and ``W_h = C H^{-p} W_opt``, with
    ``gamma_attn ~ S``.  Constraints (each "gtrsim" becomes ``>=`` in logs):

    * saturation ``||W_h|| >= 1/S^2``:                 ``2 s + k - p h >= 0``;
    * head count ``H^c >= S^{s_power} ||theta||^3`` with ``||theta|| = max(||U~||, ||W~||)``:
      ``c h >= s_power s + 3 (k + (1/2 - p) h)`` and ``c h >= s_power s + 3 (L - s + (c - 1/2) h)``;
    * ``h >= 0`` (and ``h <= h_max`` if given).

    Returns the ``scipy.optimize.linprog`` result for minimizing ``objective`` (default 0, a
    feasibility problem) over ``(h, s, k)``, without the ``residual`` of its ``lower`` and ``upper``
    bound marginals (the distances to the bounds, infinite for the free ``s`` and ``k``).
    """
    from scipy.optimize import linprog

    p = check_real(p, "p")
    L = check_real(L, "L")
    c = check_real(c, "c")
    s_power = check_real(s_power, "s_power")
    if objective is not None:
        objective = as_vector(objective, "objective")
        if objective.shape != (3,):
            raise ValueError(f"objective must have shape (3,) (coefficients of h, s, k), "
                             f"got {objective.shape}")
    if h_max is not None:
        h_max = check_real(h_max, "h_max")
    A = [[p, -2.0, -1.0],                                   # p h - 2 s - k <= 0
         [3 * (0.5 - p) - c, s_power, 3.0],                 # s_power s + 3k + (3(1/2-p) - c) h <= 0
         [3 * (c - 0.5) - c, s_power - 3.0, 0.0]]           # (s_power - 3) s + (3(c-1/2) - c) h <= -3L
    b = [0.0, 0.0, -3.0 * L]
    obj = np.zeros(3) if objective is None else np.asarray(objective, dtype=float)
    bounds = [(0.0, h_max), (None, None), (None, None)]
    res = linprog(obj, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    for side in ("lower", "upper"):
        if isinstance(res.get(side), dict):
            res[side].pop("residual", None)
    return res
