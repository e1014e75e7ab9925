"""Maurey sparsification and the linear covering numbers of Trauger & Tewari, Sec. 3.

Everything here is constructive: :func:`greedy_maurey` builds the integer
approximant that Maurey's lemma (Lemma 3.1) promises, without randomness, and the
``cover_*`` helpers map a weight matrix to the element of the explicit covers of
Lemmas 3.3, 3.6 and Appendix A that the proofs assign to it.  The ``log_cover_*``
functions give the log-covering-number bounds as printed (and, where the proof
certifies something different, as certified).

Conventions (Trauger & Tewari, Sec. 2.1): ``W`` has shape ``(k, d)`` and maps
``x`` of shape ``(d,)`` to ``W @ x`` of shape ``(k,)``; ``||W||_{q,p}`` is the
l_p norm of the vector of *column* l_q norms.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np
from scipy.special import gammaln

from attention_theory.validation import as_matrix, as_vector, check_int, check_positive, refuses_overflow

__all__ = [
    "maurey_rhs",
    "greedy_maurey",
    "l1_ball_atoms",
    "l1_maurey_approx",
    "count_index_vectors",
    "enumerate_index_vectors",
    "log_binomial",
    "maurey_K",
    "maurey_cover_points",
    "cover_columns_l1",
    "cover_flat_l1",
    "cover_rows",
    "log_cover_size_lemma33",
    "log_cover_size_lemma36",
    "log_cover_bound_lemma33",
    "log_cover_bound_lemma34",
    "log_cover_bound_lemma36",
    "log_l2_ball_volume",
]


@refuses_overflow
def maurey_rhs(gamma: float, b: float, f_norm: float, K: int, *, gamma_power: float = 1.0) -> float:
    """Right side of Maurey's lemma, ``(gamma**gamma_power * b**2 - ||f||**2) / K``.

    ``gamma_power = 1`` is the bound the sampling proof gives; ``gamma_power = 2``
    is the version printed in Lemma 3.1 (see erratum #1).
    """
    gamma = check_positive(gamma, "gamma", allow_zero=True)
    if gamma > 1 + 1e-12:
        raise ValueError(f"gamma must be <= 1, got {gamma}")
    b = check_positive(b, "b", allow_zero=True)
    f_norm = check_positive(f_norm, "f_norm", allow_zero=True)
    K = check_int(K, "K")
    gamma_power = check_positive(gamma_power, "gamma_power")
    return (gamma ** gamma_power * b * b - f_norm * f_norm) / K


def greedy_maurey(f: np.ndarray, atoms: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Derandomized Maurey approximant of ``f`` by averages of ``K`` atoms (or zero).

    Parameters
    ----------
    f : shape ``(n,)``
        The point to approximate.
    atoms : shape ``(m, n)``
        The atoms ``V_1, ..., V_m``; the zero vector is always allowed as well.
    K : int >= 1
        Number of greedy steps.

    Returns ``(approx, counts)`` with ``approx = counts @ atoms / K`` of shape
    ``(n,)`` and integer ``counts`` of shape ``(m,)``, ``counts.sum() <= K``.
    Step ``t`` adds the atom (or zero) that minimizes ``||t f - S_t||``, where
    ``S_t`` is the running sum; the minimum is at most the mean under the law
    ``(alpha, 1 - gamma)``, which gives ``||f - approx||^2 <= (sum_i alpha_i
    ||V_i||^2 - ||f||^2) / K`` for every representation ``f = sum alpha_i V_i``.
    """
    f = as_vector(f, "f")
    atoms = as_matrix(atoms, "atoms")
    if atoms.shape[1] != f.shape[0]:
        raise ValueError(f"atoms must have shape (m, {f.shape[0]}), got {atoms.shape}")
    K = check_int(K, "K")
    cand = np.vstack([atoms, np.zeros((1, f.shape[0]))])
    counts = np.zeros(atoms.shape[0], dtype=np.int64)
    S = np.zeros_like(f)
    for t in range(1, K + 1):
        resid = t * f - S  # shape (n,)
        err = np.sum((resid[None, :] - cand) ** 2, axis=1)
        j = int(np.argmin(err))
        S = S + cand[j]
        if j < atoms.shape[0]:
            counts[j] += 1
    return counts @ atoms / K, counts


def l1_ball_atoms(dim: int, radius: float) -> np.ndarray:
    """The ``2 dim`` vertices ``+-radius e_j`` of the l1 ball, shape ``(2 dim, dim)``."""
    dim = check_int(dim, "dim")
    radius = check_positive(radius, "radius")
    eye = np.eye(dim)
    return radius * np.vstack([eye, -eye])


def l1_maurey_approx(w: np.ndarray, radius: float, K: int) -> np.ndarray:
    """Greedy Maurey approximant of ``w`` (``||w||_1 <= radius``) from atoms ``+-radius e_j``.

    ``w`` has shape ``(n,)``; returns shape ``(n,)`` with ``||w - approx||_2^2 <=
    (radius ||w||_1 - ||w||_2^2) / K`` and ``||approx||_1 <= radius`` (an internal cover).
    """
    w = as_vector(w, "w")
    radius = check_positive(radius, "radius")
    if np.abs(w).sum() > radius * (1 + 1e-12):
        raise ValueError(f"w must satisfy ||w||_1 <= radius = {radius}, got {np.abs(w).sum()}")
    approx, _ = greedy_maurey(w, l1_ball_atoms(w.shape[0], radius), K)
    return approx


def count_index_vectors(d: int, K: int, *, exact_sum: bool = False) -> int:
    """Number of ``(k_1..k_d)`` in ``Z_{>=0}^d`` with ``sum k_i <= K`` (or ``== K``).

    ``binom(d + K, K)`` for ``<= K`` and ``binom(d + K - 1, K)`` for ``== K``.
    """
    d = check_int(d, "d")
    K = check_int(K, "K", minimum=0)
    return math.comb(d + K - 1, K) if exact_sum else math.comb(d + K, K)


def enumerate_index_vectors(d: int, K: int) -> np.ndarray:
    """All ``(k_1..k_d)`` with ``k_i >= 0`` and ``sum k_i <= K``, shape ``(count, d)`` (brute force)."""
    d = check_int(d, "d")
    K = check_int(K, "K", minimum=0)
    if (K + 1) ** d > 2_000_000:
        raise ValueError(f"d={d}, K={K} is too large to enumerate by brute force")
    rows = [v for v in itertools.product(range(K + 1), repeat=d) if sum(v) <= K]
    return np.array(rows, dtype=np.int64).reshape(len(rows), d)


def log_binomial(n: int, K: int) -> float:
    """``log binom(n, K)`` via ``gammaln`` (exact to float precision for large arguments)."""
    n = check_int(n, "n", minimum=0)
    K = check_int(K, "K", minimum=0)
    if K > n:
        raise ValueError(f"K must be <= n, got K={K}, n={n}")
    return float(gammaln(n + 1) - gammaln(K + 1) - gammaln(n - K + 1))


@refuses_overflow
def maurey_K(Bw: float, Bx: float, eps: float) -> int:
    """Number of Maurey steps the covers use: ``ceil(Bw^2 Bx^2 / eps^2)`` (at least 1).

    With it the greedy error is ``< eps / Bx`` strictly: the Maurey bound
    ``(Bw^2 - ||w||^2)/K`` is ``< Bw^2/K <= eps^2/Bx^2`` unless ``w = 0``, which
    the greedy step reproduces exactly.
    """
    Bw, Bx, eps = (check_positive(v, n) for v, n in ((Bw, "Bw"), (Bx, "Bx"), (eps, "eps")))
    r = (Bw * Bx / eps) ** 2
    K = math.ceil(r)
    if K - r > 1 - 1e-12:  # r is an integer up to rounding: do not add a spurious step
        K -= 1
    return max(1, K)


@refuses_overflow
def maurey_cover_points(dim: int, radius: float, K: int) -> np.ndarray:
    """All distinct averages ``(1/K) sum k_i V_i`` over atoms ``+-radius e_j`` with ``sum k_i <= K``.

    Shape ``(count, dim)``; ``count <= binom(2 dim + K, K)`` (antipodal atoms cancel,
    so some index vectors give the same point).  Brute force: small sizes only.
    """
    dim = check_int(dim, "dim")
    radius = check_positive(radius, "radius")
    K = check_int(K, "K")
    idx = enumerate_index_vectors(2 * dim, K)
    pts = idx @ l1_ball_atoms(dim, radius) / K
    return np.unique(np.round(pts, 12), axis=0)


def _check_class(W: np.ndarray, Bw: float, norm: Callable[[np.ndarray], float], what: str) -> None:
    if norm(W) > Bw * (1 + 1e-12):
        raise ValueError(f"W must satisfy {what} <= Bw = {Bw}, got {norm(W)}")


def cover_columns_l1(W: np.ndarray, Bw: float, Bx: float, eps: float, *,
                     K: int | None = None) -> np.ndarray:
    """Lemma 3.3's cover element for ``W`` (shape ``(k, d)``, every column l1 norm ``<= Bw``).

    Each column is replaced by its greedy Maurey approximant with ``K`` steps
    (default :func:`maurey_K`); returns shape ``(k, d)``.  The cover is the set of
    all ``d``-tuples of such approximants, of size ``<= binom(2k + K, K)^d``.
    """
    W = as_matrix(W, "W")
    Bw = check_positive(Bw, "Bw")
    _check_class(W, Bw, lambda A: float(np.abs(A).sum(axis=0).max()),
                 "||W||_{1,inf} (largest column l1 norm)")
    Bx, eps = check_positive(Bx, "Bx"), check_positive(eps, "eps")
    K = maurey_K(Bw, Bx, eps) if K is None else check_int(K, "K")
    atoms = l1_ball_atoms(W.shape[0], Bw)
    return np.column_stack([greedy_maurey(W[:, i], atoms, K)[0] for i in range(W.shape[1])])


def cover_flat_l1(W: np.ndarray, Bw: float, Bx: float, eps: float, *,
                  K: int | None = None) -> np.ndarray:
    """Lemma 3.6's cover element for ``W`` (shape ``(k, d)``, ``sum |W_ij| <= Bw``).

    The flattened matrix is approximated with atoms ``+-Bw E_ij`` (``2dk`` of them);
    returns shape ``(k, d)``.  Cover size ``<= binom(2dk + K, K)``.
    """
    W = as_matrix(W, "W")
    Bw = check_positive(Bw, "Bw")
    _check_class(W, Bw, lambda A: float(np.abs(A).sum()), "||W||_{1,1}")
    Bx, eps = check_positive(Bx, "Bx"), check_positive(eps, "eps")
    K = maurey_K(Bw, Bx, eps) if K is None else check_int(K, "K")
    v, _ = greedy_maurey(W.ravel(), l1_ball_atoms(W.size, Bw), K)
    return v.reshape(W.shape)


def cover_rows(W: np.ndarray, scalar_cover: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Appendix A: cover ``W`` (shape ``(k, d)``) row by row with a scalar-class cover map.

    ``scalar_cover(w)`` maps a row ``w`` of shape ``(d,)`` to its cover element.
    """
    W = as_matrix(W, "W")
    if not callable(scalar_cover):
        raise TypeError("scalar_cover must be callable")
    return np.vstack([np.asarray(scalar_cover(W[j]), dtype=np.float64) for j in range(W.shape[0])])


def _dims(d: int, k: int, Bw: float, Bx: float, eps: float) -> tuple[int, int, float]:
    d, k = check_int(d, "d"), check_int(k, "k")
    Bw, Bx, eps = (check_positive(v, n) for v, n in ((Bw, "Bw"), (Bx, "Bx"), (eps, "eps")))
    return d, k, (Bw * Bx / eps) ** 2


@refuses_overflow
def log_cover_size_lemma33(d: int, k: int, Bw: float, Bx: float, eps: float) -> float:
    """Log-size the Lemma 3.3 construction certifies: ``d log binom(2k + K, K)``, ``K = maurey_K``."""
    d, k, _ = _dims(d, k, Bw, Bx, eps)
    K = maurey_K(Bw, Bx, eps)
    return d * log_binomial(2 * k + K, K)


@refuses_overflow
def log_cover_size_lemma36(d: int, k: int, Bw: float, Bx: float, eps: float) -> float:
    """Log-size the Lemma 3.6 construction certifies: ``log binom(2dk + K, K)``."""
    d, k, _ = _dims(d, k, Bw, Bx, eps)
    K = maurey_K(Bw, Bx, eps)
    return log_binomial(2 * d * k + K, K)


@refuses_overflow
def log_cover_bound_lemma33(d: int, k: int, Bw: float, Bx: float, eps: float, *,
                            ceiling: bool = False) -> float:
    """Lemma 3.3: ``d (Bw Bx / eps)^2 log(2k + 1)`` (printed), or with ``ceil`` (as proved)."""
    d, k, r = _dims(d, k, Bw, Bx, eps)
    factor = maurey_K(Bw, Bx, eps) if ceiling else r
    return d * factor * math.log(2 * k + 1)


@refuses_overflow
def log_cover_bound_lemma34(d: int, k: int, Bw: float, Bx: float, eps: float, *,
                            constant: float = 1.0) -> float:
    """Lemma 3.4 with its hidden constant made explicit: ``C (Bw Bx / eps)^2 log(d k)``."""
    d, k, r = _dims(d, k, Bw, Bx, eps)
    constant = check_positive(constant, "constant")
    return constant * r * math.log(d * k)


@refuses_overflow
def log_cover_bound_lemma36(d: int, k: int, Bw: float, Bx: float, eps: float, *,
                            ceiling: bool = False) -> float:
    """Lemma 3.6: ``(Bw Bx / eps)^2 log(2dk + 1)`` (printed), or with ``ceil`` (as proved)."""
    d, k, r = _dims(d, k, Bw, Bx, eps)
    factor = maurey_K(Bw, Bx, eps) if ceiling else r
    return factor * math.log(2 * d * k + 1)


def log_l2_ball_volume(k: int, radius: float) -> float:
    """``log vol(B_2^k(radius)) = (k/2) log pi - log Gamma(k/2 + 1) + k log radius``."""
    k = check_int(k, "k")
    radius = check_positive(radius, "radius")
    return float(0.5 * k * math.log(math.pi) - gammaln(0.5 * k + 1) + k * math.log(radius))
