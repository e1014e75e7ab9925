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

from .._validate import as_matrix, check_int, check_positive

__all__ = ["beta1", "beta2", "beta3", "kappa", "prop1_rhs", "prop1_sharper_hessian_rhs",
           "row_norm_max", "entry_max"]


def _args(b: Any, T: Any, d: Any, R: Any) -> tuple[float, int, int, float]:
    b = check_positive(b, "b", allow_zero=True)
    T = check_int(T, "T")
    d = check_int(d, "d")
    R = check_positive(R, "R")
    return b, T, d, R


def beta1(b: float, T: int, d: int, R: float) -> float:
    """``beta1 = sqrt(T) R (2 R^2 b + 1)`` (Corollary 1 (1); ``d`` is accepted for uniformity)."""
    b, T, d, R = _args(b, T, d, R)
    return math.sqrt(T) * R * (2 * R**2 * b + 1)


def beta3(b: float, T: int, d: int, R: float) -> float:
    """``beta3 = 2 sqrt(T d) R^3 (3 sqrt(d) R^2 b + 1)`` (Corollary 1 (3))."""
    b, T, d, R = _args(b, T, d, R)
    return 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)


def beta2(b: float, T: int, d: int, R: float, H: int) -> float:
    """``beta2 = beta3 / sqrt(H) + beta1^2 / 4`` (Corollary 1 (2))."""
    H = check_int(H, "H")
    return beta3(b, T, d, R) / math.sqrt(H) + beta1(b, T, d, R) ** 2 / 4


def kappa(b: float, T: int, d: int, R: float, H: int) -> float:
    """``kappa = beta3 / sqrt(H)``, the weak-convexity constant (Corollary 1 (3))."""
    H = check_int(H, "H")
    return beta3(b, T, d, R) / math.sqrt(H)


def row_norm_max(X: Any) -> float:
    """Deora's ``||X||_{2,inf}``: the largest row l2 norm of ``X``."""
    X = as_matrix(X, "X")
    return float(np.max(np.linalg.norm(X, axis=1)))


def entry_max(X: Any) -> float:
    """Deora's ``||X||_{1,inf}``: the largest entry of ``X`` in absolute value."""
    X = as_matrix(X, "X")
    return float(np.max(np.abs(X)))


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


def prop1_sharper_hessian_rhs(X: Any, U: Any) -> float:
    """The book's sharper bound ``2 ||X||_{2,inf}^4 sum_t ||X u_t||_inf + sqrt(T) ||X||_{2,inf}^3``."""
    X = as_matrix(X, "X")
    U = as_matrix(U, "U")
    if U.shape != X.shape:
        raise ValueError(f"U must have the shape of X {X.shape}, got {U.shape}")
    r2i = row_norm_max(X)
    s = float(np.sum(np.max(np.abs(U @ X.T), axis=1)))
    return 2 * r2i**4 * s + math.sqrt(X.shape[0]) * r2i**3


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


def step_constant_a(D: float, B: float, T: int, d: int, R: float) -> float:
    """Theorem 3's ``a(theta) = 3 sqrt(d) R^2 [3 sqrt(T) R^3 (3 D + B) + 2 sqrt(T) R]`` (paper: alpha)."""
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R)
    return 3 * math.sqrt(d) * R**2 * (3 * math.sqrt(T) * R**3 * (3 * D + B) + 2 * math.sqrt(T) * R)


def rho(D: float, B: float, T: int, d: int, R: float, H: int) -> float:
    """Theorem 3's ``rho(theta) = (2 sqrt(T d) R^3 / sqrt(H) + T R^2 / 4) a(theta)^2``."""
    H = check_int(H, "H")
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * step_constant_a(D, B, T, d, R) ** 2


def a_eta(eta: float, D: float, B: float, T: int, d: int, R: float) -> float:
    """Proof of Theorem 3: ``a_eta = 3 sqrt(d) R^2 [(2 eta sqrt(T) R^3 + 1)(3D + B) + eta sqrt(T) R + 1]``."""
    eta = check_positive(eta, "eta")
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R)
    return 3 * math.sqrt(d) * R**2 * ((2 * eta * math.sqrt(T) * R**3 + 1) * (3 * D + B)
                                      + eta * math.sqrt(T) * R + 1)


def rho_eta(eta: float, D: float, B: float, T: int, d: int, R: float, H: int) -> float:
    """``rho_eta = (2 sqrt(T d) R^3 / sqrt(H) + T R^2 / 4) a_eta^2`` (``<= rho`` for ``eta <= 1``)."""
    H = check_int(H, "H")
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * a_eta(eta, D, B, T, d, R) ** 2


def theta_k_bound(eta: float, dist_k: float, B: float, T: int, R: float) -> float:
    """``Theta_k = (2 eta sqrt(T) R^3 + 1)(||theta - theta_k|| + B) + eta sqrt(T) R``, an upper
    bound on ``||theta_k||_{2,inf} v ||theta_{k+1}||_{2,inf}`` (proof of Theorem 3)."""
    eta = check_positive(eta, "eta")
    dist_k = check_positive(dist_k, "dist_k", allow_zero=True)
    B = check_positive(B, "B", allow_zero=True)
    T = check_int(T, "T")
    R = check_positive(R, "R")
    return (2 * eta * math.sqrt(T) * R**3 + 1) * (dist_k + B) + eta * math.sqrt(T) * R


def _heads_from_sqrt(s: float) -> int:
    h = max(1, math.ceil(s * s))
    while math.sqrt(h) < s:          # guard against rounding
        h += 1
    return h


def thm1_heads_needed(D: float, B: float, T: int, d: int, R: float) -> int:
    """Smallest ``H`` with ``sqrt(H) >= 36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3D + B) + 1) D^2``
    (Theorem 3; also Lemma 10's condition (74)).  ``B`` is the target's ``||theta||_{2,inf}``,
    which in practice may itself depend on ``H``: iterate if so."""
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R)
    return _heads_from_sqrt(36 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * (3 * D + B) + 1) * D**2)


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


def thm1_loss_bound(D: float, eta: float, K: int, loss_target: float) -> float:
    """Right side of (79): ``2 L(theta) + 5 D^2 / (4 eta K)``."""
    D = check_positive(D, "D", allow_zero=True)
    eta = check_positive(eta, "eta")
    K = check_int(K, "K")
    return 2 * check_positive(loss_target, "loss_target", allow_zero=True) + 5 * D**2 / (4 * eta * K)


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


def cor3_heads_needed(g0K: float, gK: float, T: int, d: int, R: float, *, inner: float = 3.0) -> int:
    """Smallest ``H`` of (81): ``sqrt(H) >= 36 sqrt(T d) R^3 (3 sqrt(d) R^2 (3 g0 + g) + 1) g0^2``
    with ``g0 = g0(1/K)``, ``g = g(1/K)``.  ``inner`` is the factor of ``g0`` inside (3 in the
    paper; exposed for the negative control)."""
    g0K = check_positive(g0K, "g0K", allow_zero=True)
    gK, T, d, R = _args(gK, T, d, R)
    return _heads_from_sqrt(36 * math.sqrt(T * d) * R**3
                            * (3 * math.sqrt(d) * R**2 * (inner * g0K + gK) + 1) * g0K**2)


def cor3_rho(g0K: float, gK: float, T: int, d: int, R: float, H: int, *, inner: float = 3.0) -> float:
    """``rho(K)`` of Corollary 3: ``rho`` with ``3D + B`` replaced by ``3 g0(1/K) + g(1/K)``."""
    H = check_int(H, "H")
    g0K = check_positive(g0K, "g0K", allow_zero=True)
    gK, T, d, R = _args(gK, T, d, R)
    a = 3 * math.sqrt(d) * R**2 * (3 * math.sqrt(T) * R**3 * (inner * g0K + gK) + 2 * math.sqrt(T) * R)
    return (2 * math.sqrt(T * d) * R**3 / math.sqrt(H) + T * R**2 / 4) * a**2


def cor3_step_size(g0K: float, gK: float, g01: float, T: int, d: int, R: float, H: int,
                   loss_init: float, *, inner: float = 3.0) -> float:
    """Corollary 3's step size ``1 ^ 1/rho(K) ^ g0(1)^2 ^ g0(1)^2 / L(theta_0)``."""
    g01 = check_positive(g01, "g01", allow_zero=True)
    l0 = check_positive(loss_init, "loss_init", allow_zero=True)
    out = min(1.0, 1.0 / cor3_rho(g0K, gK, T, d, R, H, inner=inner), g01**2)
    return min(out, g01**2 / l0) if l0 > 0 else out


def rho_main_text_order(D: float, B: float, T: int, d: int, R: float) -> float:
    """The main text's order for rho below Eq. (3): ``d^{3/2} T^{3/2} R^{13} B^2 D^2`` (no constant)."""
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R)
    return d**1.5 * T**1.5 * R**13 * B**2 * D**2


def heads_main_text_order(D: float, B: float, T: int, d: int, R: float) -> float:
    """The main text's head condition (3) as a bound on ``sqrt(H)``: ``d T^{1/2} R^5 B D^3``."""
    D = check_positive(D, "D", allow_zero=True)
    B, T, d, R = _args(B, T, d, R)
    return d * math.sqrt(T) * R**5 * B * D**3
