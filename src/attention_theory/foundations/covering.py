"""Covering and packing numbers of finite function classes on a sample.

A class is its value array ``F``: shape ``(N, n)`` for scalar functions or
``(N, n, k)`` for vector-valued ones.  The distance between two functions is
``max_i ||f(x_i) - g(x_i)||_q`` (Trauger & Tewari, Sec. 2.4).  Covers are
*internal* (a subset of the class) with the *strict* inequality ``< eps``, as
in the paper.
"""

from __future__ import annotations

import itertools

import numpy as np

from attention_theory.validation import as_array, check_order, check_positive

__all__ = [
    "sup_distances",
    "covering_number",
    "greedy_cover_size",
    "greedy_packing_size",
    "BRUTE_FORCE_MAX",
]

#: Classes up to this size are covered by brute force; larger ones by an integer program.
BRUTE_FORCE_MAX = 15


def sup_distances(F: np.ndarray, q: float = np.inf) -> np.ndarray:
    """Pairwise ``max_i ||F[a, i] - F[b, i]||_q``, shape ``(N, N)``."""
    F = as_array(F, "F", ndim=(2, 3))
    q = check_order(q, "q")
    if F.ndim == 2:
        F = F[:, :, None]
    diff = F[:, None, :, :] - F[None, :, :, :]
    per_point = np.max(np.abs(diff), axis=-1) if np.isinf(q) else np.sum(np.abs(diff) ** q, -1) ** (1 / q)
    return np.max(per_point, axis=-1)


def _adjacency(F: np.ndarray, eps: float, q: float) -> np.ndarray:
    eps = check_positive(eps, "eps")
    return sup_distances(F, q) < eps


def covering_number(F: np.ndarray, eps: float, q: float = np.inf) -> int:
    """The exact internal ``eps``-covering number (strict ``<``) of the finite class ``F``.

    Brute force over subsets for ``N <= BRUTE_FORCE_MAX``; otherwise a set-cover
    integer program solved exactly with ``scipy.optimize.milp`` (HiGHS).
    """
    A = _adjacency(F, eps, q)
    N = A.shape[0]
    if N <= BRUTE_FORCE_MAX:
        for size in range(1, N + 1):
            for combo in itertools.combinations(range(N), size):
                if np.all(np.any(A[list(combo)], axis=0)):
                    return size
        return N  # pragma: no cover - the whole class always covers itself
    from scipy.optimize import Bounds, LinearConstraint, milp

    res = milp(c=np.ones(N), constraints=LinearConstraint(A.astype(float), lb=1, ub=np.inf),
               integrality=np.ones(N), bounds=Bounds(0, 1))
    if not res.success:  # pragma: no cover - the problem is always feasible
        raise RuntimeError(f"set-cover integer program failed: {res.message}")
    return int(round(res.fun))


def greedy_cover_size(F: np.ndarray, eps: float, q: float = np.inf) -> int:
    """Size of the greedy cover (pick the element covering most uncovered ones): an upper bound."""
    A = _adjacency(F, eps, q)
    uncovered = np.ones(A.shape[0], dtype=bool)
    size = 0
    while uncovered.any():
        gains = (A & uncovered[None, :]).sum(axis=1)
        j = int(np.argmax(gains))
        uncovered &= ~A[j]
        size += 1
    return size


def greedy_packing_size(F: np.ndarray, eps: float, q: float = np.inf) -> int:
    """Size of a greedy ``2 eps``-packing (pairwise distance ``>= 2 eps``): a lower bound.

    Two packing points cannot share a cover element, since that would put them
    at distance ``< 2 eps`` by the triangle inequality.
    """
    eps = check_positive(eps, "eps")
    D = sup_distances(F, q)
    chosen: list[int] = []
    for j in range(D.shape[0]):
        if all(D[j, c] >= 2 * eps for c in chosen):
            chosen.append(j)
    return len(chosen)
