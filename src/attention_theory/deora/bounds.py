"""Constants of Deora et al. (Corollary 1, Proposition 1, Lemma 5), with validated inputs.

Curvature constants, with ``b = ||theta~||_{2,inf}`` (or ``max_h ||U_h||_F``, footnote of
Corollary 1) at the point of evaluation, ``R >= 1`` the token radius of Assumption 1:

* ``beta1 = sqrt(T) R (2 R^2 b + 1)``
* ``beta3 = 2 sqrt(T d) R^3 (3 sqrt(d) R^2 b + 1)``
* ``beta2 = beta3 / sqrt(H) + beta1^2 / 4``
* ``kappa = beta3 / sqrt(H)``

The Proposition-1 right-hand sides take the data matrix ``X`` ``(T, d)`` and the
decoder ``U`` ``(T, d)``.  Deora's ``||X||_{2,inf}`` is the largest row l2 norm and
``||X||_{1,inf}`` the largest entry in absolute value (induced-norm convention, Sec. 2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attention_theory.validation import as_matrix, check_bool, check_int, check_positive, refuses_overflow

__all__ = ["beta1", "beta2", "beta3", "kappa", "prop1_rhs", "prop1_sharper_hessian_rhs",
           "row_norm_max", "entry_max"]


def _args(b: Any, T: Any, d: Any, R: Any, b_name: str = "b") -> tuple[float, int, int, float]:
    b = check_positive(b, b_name, allow_zero=True)
    T = check_int(T, "T")
    d = check_int(d, "d")
    R = check_positive(R, "R")
    return b, T, d, R


@refuses_overflow
def beta1(b: float, T: int, d: int, R: float) -> float:
    """``beta1 = sqrt(T) R (2 R^2 b + 1)`` (Corollary 1 (1); ``d`` is accepted for uniformity)."""
    b, T, d, R = _args(b, T, d, R)
    return math.sqrt(T) * R * (2 * R**2 * b + 1)


@refuses_overflow
def beta3(b: float, T: int, d: int, R: float) -> float:
    """``beta3 = 2 sqrt(T d) R^3 (3 sqrt(d) R^2 b + 1)`` (Corollary 1 (3))."""
    b, T, d, R = _args(b, T, d, R)
    return 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)


@refuses_overflow
def beta2(b: float, T: int, d: int, R: float, H: int) -> float:
    """``beta2 = beta3 / sqrt(H) + beta1^2 / 4`` (Corollary 1 (2))."""
    H = check_int(H, "H")
    return beta3(b, T, d, R) / math.sqrt(H) + beta1(b, T, d, R) ** 2 / 4


@refuses_overflow
def kappa(b: float, T: int, d: int, R: float, H: int) -> float:
    """``kappa = beta3 / sqrt(H)``, the weak-convexity constant (Corollary 1 (3))."""
    H = check_int(H, "H")
    return beta3(b, T, d, R) / math.sqrt(H)


@refuses_overflow
def row_norm_max(X: Any) -> float:
    """Deora's ``||X||_{2,inf}``: the largest row l2 norm of ``X``."""
    X = as_matrix(X, "X")
    return float(np.max(np.linalg.norm(X, axis=1)))


def entry_max(X: Any) -> float:
    """Deora's ``||X||_{1,inf}``: the largest entry of ``X`` in absolute value."""
    X = as_matrix(X, "X")
    return float(np.max(np.abs(X)))


@refuses_overflow
def prop1_rhs(X: Any, U: Any, R: float | None = None) -> dict[str, float]:
    """Right-hand sides of Proposition 1 (alias Proposition 5) and of auxiliary bound (42).

    Keys ``"1"``..``"4"`` (data-dependent items) and, when ``R`` is given, ``"5"``, ``"6"``
    (Assumption-1 items).  ``"42"`` is the per-``u`` factor ``2 ||X||_{2,inf}`` of (42),
    to be multiplied by ``||X u||_inf``.
    """
    X = as_matrix(X, "X")
    U = as_matrix(U, "U")
    if U.shape != X.shape:
        raise ValueError(f"U must have the shape of X {X.shape}, got {U.shape}")
    T, d = X.shape
    r2i, r1i = row_norm_max(X), entry_max(X)
    s = float(np.sum(np.max(np.abs(U @ X.T), axis=1)))     # sum_t ||X u_t||_inf
    out = {
        "1": math.sqrt(T) * r2i,
        "2": 2 * r2i**2 * s,
        "3": 2 * r2i**2 * s + math.sqrt(T) * r2i,
        "4": 6 * d * r2i**2 * r1i**2 * s + 2 * math.sqrt(T * d) * r2i**2 * r1i,
        "42": 2 * r2i,
    }
    if R is not None:
        R = check_positive(R, "R")
        uf = float(np.linalg.norm(U))
        out["5"] = math.sqrt(T) * R * (2 * R**2 * uf + 1)
        out["6"] = 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * uf + 1)
    return out


@refuses_overflow
def prop1_sharper_hessian_rhs(X: Any, U: Any) -> float:
    """The book's sharper bound ``2 ||X||_{2,inf}^4 sum_t ||X u_t||_inf + sqrt(T) ||X||_{2,inf}^3``."""
    X = as_matrix(X, "X")
    U = as_matrix(U, "U")
    if U.shape != X.shape:
        raise ValueError(f"U must have the shape of X {X.shape}, got {U.shape}")
    r2i = row_norm_max(X)
    s = float(np.sum(np.max(np.abs(U @ X.T), axis=1)))
    return 2 * r2i**4 * s + math.sqrt(X.shape[0]) * r2i**3


# --- Stability and initialization (Chapters 5-6) ---
#
# Calculators for Lemma 11, Theorem 2 (alias Theorem 4), Corollary 4, Proposition 7 and
# Corollary 2 (alias Corollary 5).  Notation: ``D = ||theta - theta_0||`` (distance of the
# target to the initialization), ``B = ||theta||_{2,inf}``; "tilde" constants are the
# Corollary-1 constants evaluated at ``b = 3 D + B`` (the bounded-iterates radius).
# ``corrected=True`` applies the book's correction of Proposition 7 (the witness
# ``theta_0 + g_0 theta_star`` lies at distance ``sqrt(2) g_0`` because ``||theta_star|| = sqrt 2``).

__all__ += ["tilde_betas", "lemma11_heads", "lemma11_rhs", "thm2_max_step",
            "thm2_rhs", "cor4_rhs", "prop7_g0", "prop7_heads", "cor2_g0", "cor2_heads",
            "cor2_rho", "cor2_max_step", "cor2_bounds", "cor2_report", "min_heads"]


def _dbtdr(D: Any, B: Any, T: Any, d: Any, R: Any) -> tuple[float, float, int, int, float]:
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R, "B")
    return D, B, T, d, R


@refuses_overflow
def min_heads(sqrt_h_lower: float) -> int:
    """Smallest integer ``H`` with ``sqrt(H) >= sqrt_h_lower`` (exact up to float rounding).

    Head counts demanded by the theorems reach ``1e32``; the correction steps are bounded so
    that float rounding at that size cannot turn them into a long loop.
    """
    s = check_positive(sqrt_h_lower, "sqrt_h_lower", allow_zero=True)
    H = max(1, math.ceil(s * s))
    for _ in range(4):  # ceil(s*s) may overshoot by a rounding step
        if H > 1 and math.sqrt(H - 1) >= s:
            H -= 1
        else:
            break
    for _ in range(4):  # or undershoot
        if math.sqrt(H) < s:
            H += 1
        else:
            break
    return H


@refuses_overflow
def tilde_betas(D: float, B: float, T: int, d: int, R: float, H: int) -> dict[str, float]:
    """Lemma 11's ``beta~_1, beta~_2, beta~_3``: Corollary 1's constants at ``b = 3 D + B``.

    ``beta~_1 = sqrt(T) R (2 R^2 b + 1)``, ``beta~_3 = 2 sqrt(T d) R^3 (3 sqrt(d) R^2 b + 1)``,
    ``beta~_2 = beta~_3 / sqrt(H) + beta~_1^2 / 4``.
    """
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    H = check_int(H, "H")
    b = 3 * D + B
    return {"beta1": beta1(b, T, d, R), "beta2": beta2(b, T, d, R, H),
            "beta3": beta3(b, T, d, R), "b": b}


@refuses_overflow
def lemma11_heads(D: float, B: float, T: int, d: int, R: float, *, constant: float = 256.0) -> int:
    """Smallest ``H`` with ``sqrt(H) >= 256 sqrt(T d) R^3 (3 sqrt(d) R^2 (3 D + B) + 1) D^2``
    (Lemma 11, Eq. 84; Theorem 2's head condition)."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    c = check_positive(constant, "constant")
    return min_heads(c * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * D + B) + 1) * D**2)


@refuses_overflow
def lemma11_rhs(eta: float, n: int, K: int, L_target: float, D: float, B: float, T: int, d: int,
                R: float) -> float:
    """Lemma 11: ``(2 eta beta~_1 / n) (2 K L^(theta) + 9 D^2 / (4 eta))``."""
    eta = check_positive(eta, "eta")
    n = check_int(n, "n")
    K = check_int(K, "K")
    L_target = check_positive(L_target, "L_target", allow_zero=True)
    b1 = tilde_betas(D, B, T, d, R, 1)["beta1"]
    return 2 * eta * b1 / n * (2 * K * L_target + 9 * D**2 / (4 * eta))


@refuses_overflow
def thm2_max_step(D: float, B: float, T: int, d: int, R: float, H: int, K: int, L_target: float,
                  L0: float) -> float:
    """Largest step size allowed by Theorems 1-2:
    ``1 ^ 1/rho(theta) ^ D^2 / (K L^(theta)) ^ D^2 / L^(theta_0)``."""
    K = check_int(K, "K")
    L_target = check_positive(L_target, "L_target", allow_zero=True)
    L0 = check_positive(L0, "L0")
    D_ = check_positive(D, "D")
    caps = [1.0, 1.0 / rho(D, B, T, d, R, H), D_**2 / L0]
    if L_target > 0:
        caps.append(D_**2 / (K * L_target))
    return min(caps)


@refuses_overflow
def thm2_rhs(n: int, K: int, L_target: float, D: float, eta: float) -> float:
    """Theorem 2 (Eq. 5): ``(4 / n) (2 K L^(theta) + 9 D^2 / (4 eta))`` (one training set)."""
    n = check_int(n, "n")
    K = check_int(K, "K")
    L_target = check_positive(L_target, "L_target", allow_zero=True)
    D = check_positive(D, "D", allow_zero=True)
    eta = check_positive(eta, "eta")
    return 4.0 / n * (2 * K * L_target + 9 * D**2 / (4 * eta))


@refuses_overflow
def cor4_rhs(g0_K: float, eta: float, n: int, *, constant: float = 17.0) -> float:
    """Corollary 4 (Eq. 96): ``17 g_0(1/K)^2 / (eta n)``."""
    g0_K = check_positive(g0_K, "g0_K")
    eta = check_positive(eta, "eta")
    n = check_int(n, "n")
    return check_positive(constant, "constant") * g0_K**2 / (eta * n)


@refuses_overflow
def prop7_g0(eps: float, B_phi: float, gamma: float, *, corrected: bool = False) -> float:
    """Proposition 7: ``g_0(eps) = (2 B_Phi + log(1/eps)) / gamma`` (times ``sqrt 2`` if corrected)."""
    eps = check_positive(eps, "eps")
    if eps > 1:
        raise ValueError(f"eps must lie in (0, 1], got {eps}")
    corrected = check_bool(corrected, "corrected")
    B_phi = check_positive(B_phi, "B_phi")
    gamma = check_positive(gamma, "gamma")
    g0 = (2 * B_phi + math.log(1 / eps)) / gamma
    return math.sqrt(2) * g0 if corrected else g0


@refuses_overflow
def prop7_heads(eps: float, T: int, d: int, R: float, B2: float, B_phi: float, gamma: float, *,
                corrected: bool = False) -> int:
    """Smallest ``H`` meeting Eq. (98):
    ``sqrt(H) >= c sqrt(T d) R^3 (B_2 / B_Phi) (3 sqrt(d) R^2 + 1) g_0^2 (1 v g_0)`` with the printed
    ``g_0`` inside and ``c = 5`` (printed) or ``c = 10`` (corrected: the squared distance is ``2 g_0^2``).
    """
    T = check_int(T, "T")
    d = check_int(d, "d")
    R = check_positive(R, "R")
    B2 = check_positive(B2, "B2")
    corrected = check_bool(corrected, "corrected")
    g0 = prop7_g0(eps, B_phi, gamma)
    c = 10.0 if corrected else 5.0
    return min_heads(c * math.sqrt(T * d) * R**3 * B2 / B_phi * (3 * math.sqrt(d) * R**2 + 1)
                     * g0**2 * max(1.0, g0))


@refuses_overflow
def cor2_g0(K: int, B_phi: float, gamma: float, *, corrected: bool = False) -> float:
    """Corollary 2: ``g_0(1/K) = (2 B_Phi + log K) / gamma`` (times ``sqrt 2`` if corrected)."""
    K = check_int(K, "K")
    return prop7_g0(1.0 / K, B_phi, gamma, corrected=corrected)


@refuses_overflow
def cor2_heads(K: int, T: int, d: int, R: float, B2: float, B_phi: float, gamma: float, *,
               corrected: bool = False) -> int:
    """Smallest ``H`` meeting Corollary 5's head condition
    ``sqrt(H) >= 256 sqrt(T d) R^3 B_2 (3 sqrt(d) R^2 (4 g_0 + B_2) + 1) g_0^2``.

    ``corrected=True`` uses the realizability constants of the corrected Proposition 7
    (``g~_0 = sqrt 2 g_0``, ``g~ = B_2 + sqrt 2 g_0``), i.e.
    ``256 sqrt(T d) R^3 B_2 (3 sqrt(d) R^2 (4 sqrt 2 g_0 + B_2) + 1) 2 g_0^2``.
    """
    T = check_int(T, "T")
    d = check_int(d, "d")
    R = check_positive(R, "R")
    B2 = check_positive(B2, "B2")
    corrected = check_bool(corrected, "corrected")
    g0 = cor2_g0(K, B_phi, gamma)
    if corrected:
        s = 256 * math.sqrt(T * d) * R**3 * B2 * (3 * math.sqrt(d) * R**2 * (4 * math.sqrt(2) * g0 + B2)
                                                  + 1) * 2 * g0**2
    else:
        s = 256 * math.sqrt(T * d) * R**3 * B2 * (3 * math.sqrt(d) * R**2 * (4 * g0 + B2) + 1) * g0**2
    return min_heads(s)


@refuses_overflow
def cor2_rho(K: int, T: int, d: int, R: float, B2: float, B_phi: float, gamma: float, H: int, *,
             corrected: bool = False) -> float:
    """Corollary 5's ``rho(K) = (2 sqrt(T d) R^3 / sqrt(H) + T R^2 / 4) a(K)^2`` with
    ``a(K) = 3 sqrt(d) R^2 [3 sqrt(T) R^3 (4 g_0 + B_2) + 2 sqrt(T) R]`` (``4 sqrt 2 g_0`` if corrected)."""
    T, d, R = check_int(T, "T"), check_int(d, "d"), check_positive(R, "R")
    B2 = check_positive(B2, "B2")
    corrected = check_bool(corrected, "corrected")
    g0 = cor2_g0(K, B_phi, gamma)
    g = (4 * math.sqrt(2) if corrected else 4.0) * g0
    # rho(theta) with 3 D + B = g + B_2, i.e. D = g / 3, B = B_2
    return rho(g / 3, B2, T, d, R, H)


@refuses_overflow
def cor2_max_step(K: int, T: int, d: int, R: float, B2: float, B_phi: float, gamma: float, H: int,
                  *, corrected: bool = False) -> float:
    """Largest step size of Corollary 5: ``1 ^ 1/rho(K) ^ 4 B_Phi^2 / (gamma^2 log(1 + e^B_Phi))``
    (``8 B_Phi^2`` in the corrected version)."""
    B_phi = check_positive(B_phi, "B_phi")
    gamma = check_positive(gamma, "gamma")
    corrected = check_bool(corrected, "corrected")
    c = 8.0 if corrected else 4.0
    return min(1.0, 1.0 / cor2_rho(K, T, d, R, B2, B_phi, gamma, H, corrected=corrected),
               c * B_phi**2 / (gamma**2 * math.log1p(math.exp(B_phi))))


@refuses_overflow
def cor2_bounds(K: int, n: int, eta: float, B_phi: float, gamma: float, *,
                corrected: bool = False) -> dict[str, float]:
    """Corollary 5's two conclusions (Eq. 101):
    train ``2/K + 5 (2 B_Phi + log K)^2 / (4 gamma^2 eta K)`` and gap ``17 (2 B_Phi + log K)^2 / (gamma^2 eta
    n)``.
    Corrected: the ``g_0^2`` terms double (``5/2`` and ``34``)."""
    K = check_int(K, "K")
    n = check_int(n, "n")
    eta = check_positive(eta, "eta")
    corrected = check_bool(corrected, "corrected")
    g0sq = cor2_g0(K, B_phi, gamma, corrected=corrected) ** 2
    return {"train": 2.0 / K + 5 * g0sq / (4 * eta * K), "gap": 17 * g0sq / (eta * n)}


@refuses_overflow
def cor2_report(T: int, d: int, R: float, B2: float, B_phi: float, gamma: float, K: int, n: int,
                *, corrected: bool = True) -> dict[str, float]:
    """Everything Corollary 2 asks for at these sizes: heads, ``rho(K)``, the largest step size,
    and the two bounds at that step size (``corrected`` selects the book's corrected constants)."""
    corrected = check_bool(corrected, "corrected")
    H = cor2_heads(K, T, d, R, B2, B_phi, gamma, corrected=corrected)
    eta = cor2_max_step(K, T, d, R, B2, B_phi, gamma, H, corrected=corrected)
    out = {"H": float(H), "rho": cor2_rho(K, T, d, R, B2, B_phi, gamma, H, corrected=corrected),
           "eta": eta, "g0": cor2_g0(K, B_phi, gamma, corrected=corrected)}
    out.update(cor2_bounds(K, n, eta, B_phi, gamma, corrected=corrected))
    return out
# --- Landscape and training (Chapters 3-4) ---
#
# Constants of Proposition 4 (GLQC), Theorem 1 / Theorem 3 (training), Lemma 10 and
# Corollary 3, so a reader can ask "how many heads and which step size does the theorem
# need for my sizes?".  Notation (catalogue): D = ||theta - theta_0||, B = ||theta||_{2,inf}
# of the target, R >= 1 the token radius.  The paper's alpha(theta) is called ``a`` here.

__all__ += ["glqc_distance", "glqc_sharp_constant", "step_constant_a", "rho", "a_eta",
            "rho_eta", "theta_k_bound", "thm1_heads_needed", "thm1_step_size", "thm1_loss_bound",
            "thm1_certificate", "cor3_heads_needed", "cor3_rho", "cor3_step_size",
            "rho_main_text_order", "heads_main_text_order"]


@refuses_overflow
def glqc_distance(b: float, T: int, d: int, R: float, H: int) -> float:
    """Largest ``||theta_1 - theta_2||`` allowed by (18) when ``beta3(theta_1) v beta3(theta_2)``
    is evaluated at ``||.||_{2,inf} = b``: ``sqrt(sqrt(H) / (2 beta3(b)))``."""
    H = check_int(H, "H")
    return math.sqrt(math.sqrt(H) / (2 * beta3(b, T, d, R)))


def glqc_sharp_constant(c: float) -> float:
    """The book's sharp GLQC constant ``1 / cos(sqrt(c) / 2)`` for ``g'' >= -c g`` on ``[0, 1]``.

    ``c = kappa_bar ||theta_1 - theta_2||^2``; (18) means ``c <= 1/2``, where the constant
    is at most ``1/cos(1/(2 sqrt 2)) ~ 1.0659 < 4/3``.  Valid for ``0 <= c < pi^2``.
    """
    c = check_positive(c, "c", allow_zero=True)
    if c >= math.pi**2:
        raise ValueError(f"c must be < pi^2 (the comparison function must stay positive), got {c}")
    return 1.0 / math.cos(math.sqrt(c) / 2)


@refuses_overflow
def step_constant_a(D: float, B: float, T: int, d: int, R: float) -> float:
    """Theorem 3's ``a(theta) = 3 sqrt(d) R^2 [3 sqrt(T) R^3 (3 D + B) + 2 sqrt(T) R]`` (paper: alpha)."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    return 3 * math.sqrt(d) * R**2 * (3 * math.sqrt(T) * R**3 * (3 * D + B) + 2 * math.sqrt(T) * R)


@refuses_overflow
def rho(D: float, B: float, T: int, d: int, R: float, H: int) -> float:
    """Theorem 3's ``rho(theta) = (2 sqrt(T d) R^3 / sqrt(H) + T R^2 / 4) a(theta)^2``."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    H = check_int(H, "H")
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * step_constant_a(D, B, T, d, R) ** 2


@refuses_overflow
def a_eta(eta: float, D: float, B: float, T: int, d: int, R: float) -> float:
    """Proof of Theorem 3: ``a_eta = 3 sqrt(d) R^2 [(2 eta sqrt(T) R^3 + 1)(3D + B) + eta sqrt(T) R + 1]``."""
    eta = check_positive(eta, "eta")
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    return 3 * math.sqrt(d) * R**2 * ((2 * eta * math.sqrt(T) * R**3 + 1) * (3 * D + B)
                                      + eta * math.sqrt(T) * R + 1)


@refuses_overflow
def rho_eta(eta: float, D: float, B: float, T: int, d: int, R: float, H: int) -> float:
    """``rho_eta = (2 sqrt(T d) R^3 / sqrt(H) + T R^2 / 4) a_eta^2`` (``<= rho`` for ``eta <= 1``)."""
    eta = check_positive(eta, "eta")
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    H = check_int(H, "H")
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * a_eta(eta, D, B, T, d, R) ** 2


@refuses_overflow
def theta_k_bound(eta: float, dist_k: float, B: float, T: int, R: float) -> float:
    """``Theta_k = (2 eta sqrt(T) R^3 + 1)(||theta - theta_k|| + B) + eta sqrt(T) R``, an upper
    bound on ``||theta_k||_{2,inf} v ||theta_{k+1}||_{2,inf}`` (proof of Theorem 3)."""
    eta = check_positive(eta, "eta")
    dist_k = check_positive(dist_k, "dist_k", allow_zero=True)
    B = check_positive(B, "B", allow_zero=True)
    T = check_int(T, "T")
    R = check_positive(R, "R")
    return (2 * eta * math.sqrt(T) * R**3 + 1) * (dist_k + B) + eta * math.sqrt(T) * R


@refuses_overflow
def thm1_heads_needed(D: float, B: float, T: int, d: int, R: float) -> int:
    """Smallest ``H`` with ``sqrt(H) >= 36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3D + B) + 1) D^2``
    (Theorem 3; also Lemma 10's condition (74)).  ``B`` is the target's ``||theta||_{2,inf}``,
    which in practice may itself depend on ``H``: iterate if so."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    return min_heads(36 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * D + B) + 1) * D**2)


@refuses_overflow
def thm1_step_size(D: float, B: float, T: int, d: int, R: float, H: int, K: int,
                   loss_target: float, loss_init: float) -> float:
    """Largest step size of Theorem 3: ``1 ^ 1/rho ^ D^2/(K L(theta)) ^ D^2/L(theta_0)``."""
    K = check_int(K, "K")
    lt = check_positive(loss_target, "loss_target", allow_zero=True)
    l0 = check_positive(loss_init, "loss_init", allow_zero=True)
    out = min(1.0, 1.0 / rho(D, B, T, d, R, H))
    if lt > 0:
        out = min(out, D**2 / (K * lt))
    if l0 > 0:
        out = min(out, D**2 / l0)
    return out


@refuses_overflow
def thm1_loss_bound(D: float, eta: float, K: int, loss_target: float) -> float:
    """Right side of (79): ``2 L(theta) + 5 D^2 / (4 eta K)``."""
    D = check_positive(D, "D", allow_zero=True)
    eta = check_positive(eta, "eta")
    K = check_int(K, "K")
    return 2 * check_positive(loss_target, "loss_target", allow_zero=True) + 5 * D**2 / (4 * eta * K)


@refuses_overflow
def thm1_certificate(D: float, B: float, T: int, d: int, R: float, K: int, loss_target: float,
                     loss_init: float, H: int | None = None) -> dict[str, float]:
    """Fixture ``F-cert`` for Theorem 3: the smallest admissible ``H`` (or the given one, which
    must be admissible), the largest ``eta``, ``rho``, the loss bound and the vacuity flag
    (``bound >= L(theta_0)``: then the bound follows from descent alone)."""
    need = thm1_heads_needed(D, B, T, d, R)
    if H is None:
        H = need
    H = check_int(H, "H")
    if H < need:
        raise ValueError(f"H={H} violates Theorem 3's head condition (needs H >= {need})")
    eta = thm1_step_size(D, B, T, d, R, H, K, loss_target, loss_init)
    bound = thm1_loss_bound(D, eta, K, loss_target)
    return {"H": H, "H_needed": need, "eta": eta, "rho": rho(D, B, T, d, R, H),
            "loss_bound": bound, "vacuous": bool(bound >= loss_init),
            "distance_bound": 4 * D, "iterate_bound": 3 * D}


@refuses_overflow
def cor3_heads_needed(g0K: float, gK: float, T: int, d: int, R: float, *, inner: float = 3.0) -> int:
    """Smallest ``H`` of (81): ``sqrt(H) >= 36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3 g0 + g) + 1) g0^2``
    with ``g0 = g0(1/K)``, ``g = g(1/K)``.  ``inner`` is the factor of ``g0`` inside (3 in the
    paper; exposed for the negative control)."""
    g0K = check_positive(g0K, "g0K", allow_zero=True)
    gK, T, d, R = _args(gK, T, d, R, "gK")
    inner = check_positive(inner, "inner", allow_zero=True)
    return min_heads(36 * math.sqrt(T * d) * R**3
                            * (3 * math.sqrt(d) * R**2 * (inner * g0K + gK) + 1) * g0K**2)


@refuses_overflow
def cor3_rho(g0K: float, gK: float, T: int, d: int, R: float, H: int, *, inner: float = 3.0) -> float:
    """``rho(K)`` of Corollary 3: ``rho`` with ``3D + B`` replaced by ``3 g0(1/K) + g(1/K)``."""
    H = check_int(H, "H")
    g0K = check_positive(g0K, "g0K", allow_zero=True)
    gK, T, d, R = _args(gK, T, d, R, "gK")
    inner = check_positive(inner, "inner", allow_zero=True)
    a = 3 * math.sqrt(d) * R**2 * (3 * math.sqrt(T) * R**3 * (inner * g0K + gK) + 2 * math.sqrt(T) * R)
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * a**2


@refuses_overflow
def cor3_step_size(g0K: float, gK: float, g01: float, T: int, d: int, R: float, H: int,
                   loss_init: float, *, inner: float = 3.0) -> float:
    """Corollary 3's step size ``1 ^ 1/rho(K) ^ g0(1)^2 ^ g0(1)^2 / L(theta_0)``."""
    g01 = check_positive(g01, "g01", allow_zero=True)
    l0 = check_positive(loss_init, "loss_init", allow_zero=True)
    out = min(1.0, 1.0 / cor3_rho(g0K, gK, T, d, R, H, inner=inner), g01**2)
    return min(out, g01**2 / l0) if l0 > 0 else out


@refuses_overflow
def rho_main_text_order(D: float, B: float, T: int, d: int, R: float) -> float:
    """The main text's order for rho below Eq. (3): ``d^{3/2} T^{3/2} R^{13} B^2 D^2`` (no constant)."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    return d**1.5 * T**1.5 * R**13 * B**2 * D**2


@refuses_overflow
def heads_main_text_order(D: float, B: float, T: int, d: int, R: float) -> float:
    """The main text's head condition (3) as a bound on ``sqrt(H)``: ``d T^{1/2} R^5 B D^3``."""
    D, B, T, d, R = _dbtdr(D, B, T, d, R)
    return d * math.sqrt(T) * R**5 * B * D**3
