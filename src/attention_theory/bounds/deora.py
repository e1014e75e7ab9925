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
