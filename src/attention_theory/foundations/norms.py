"""Matrix norms used by the papers of the book, under names that say what they are.

The papers use the same symbol for different norms, so this module never uses
the bare symbol ``||W||_{a,b}``:

==========================  =======================================  ==========================
paper's symbol               meaning                                  function here
==========================  =======================================  ==========================
Trauger ``||W||_{q,p}``      p-norm of the vector of column q-norms   ``mixed_norm(W, q, p)``
Trauger ``||W||_{q->p}``     operator norm from l_q to l_p            ``operator_norm(W, q, p)``
Deora ``||A||_{p,q}``        operator norm from l_p to l_q            ``operator_norm(A, p, q)``
Deora ``||theta~||_{2,inf}`` largest head-parameter l2 norm           ``head_max_norm(theta, H)``
==========================  =======================================  ==========================

So Trauger's ``||W||_{2,inf}`` (largest *column* l2 norm) equals
``operator_norm(W, 1, 2)``, while Deora's ``||A||_{2,inf}`` (largest *row* l2
norm) equals ``operator_norm(A, 2, inf)`` = ``mixed_norm(A.T, 2, inf)``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from attention_theory.validation import (
    as_array,
    as_matrix,
    as_vector,
    check_int,
    check_order,
    check_seed,
    refuses_overflow,
)

__all__ = [
    "vector_norm",
    "dual_exponent",
    "mixed_norm",
    "entrywise_norm",
    "operator_norm",
    "operator_norm_lower_bound",
    "frobenius_norm",
    "spectral_norm",
    "head_max_norm",
    "MAX_ENUMERATION_DIM",
]

#: Largest dimension for which :func:`operator_norm` enumerates sign vectors.
MAX_ENUMERATION_DIM = 20


def vector_norm(x: np.ndarray, p: float, axis: int | None = None) -> np.ndarray | float:
    """The l_p norm (p >= 1 or inf) along ``axis`` (all entries if None).

    Where ``sum |x_i|^p`` would overflow or lose the largest terms to underflow (large ``p``, or
    entries near 1e+-300), the norm is computed as ``m (sum (|x_i|/m)^p)^(1/p)`` with ``m`` the
    largest ``|x_i|``, which is finite and accurate for every finite input; elsewhere the plain
    sum is used (bit for bit what it always was)."""
    p = check_order(p, "p")
    x = as_array(x, "x")
    a = np.abs(x)
    if math.isinf(p):
        return np.max(a, axis=axis)
    with np.errstate(over="ignore", under="ignore"):
        s = np.sum(a ** p, axis=axis)
    # below 1e-200 an underflowed term can matter relative to the sum; above it, none can
    plain_ok = np.isfinite(s) & ((s >= 1e-200) | (np.max(a, axis=axis) == 0))
    if np.all(plain_ok):
        return s ** (1.0 / p)
    m = np.max(a, axis=axis, keepdims=True)
    with np.errstate(under="ignore", invalid="ignore", divide="ignore"):
        scaled = np.squeeze(m, axis=axis) * np.sum(np.where(m > 0, a / np.where(m > 0, m, 1.0), 0.0) ** p,
                                                   axis=axis) ** (1.0 / p)
    out = np.where(plain_ok, np.abs(s) ** (1.0 / p), scaled)
    return out if np.ndim(out) else float(out)


def dual_exponent(p: float) -> float:
    """Hoelder conjugate ``p* = p / (p - 1)`` with ``1* = inf`` and ``inf* = 1``."""
    p = check_order(p, "p")
    if p == 1:
        return math.inf
    if math.isinf(p):
        return 1.0
    return p / (p - 1)


def mixed_norm(W: np.ndarray, q: float, p: float) -> float:
    """Trauger & Tewari's column-wise norm ``||W||_{q,p}`` (Sec. 2.1).

    The l_p norm of ``(||W[:,1]||_q, ..., ||W[:,d]||_q)``; ``W`` has shape ``(r, d)``.
    For the row-wise reading pass ``W.T``.
    """
    W = as_matrix(W, "W")
    q = check_order(q, "q")
    p = check_order(p, "p")
    return float(vector_norm(vector_norm(W, q, axis=0), p))


def entrywise_norm(W: np.ndarray, p: float) -> float:
    """The l_p norm of all entries of ``W`` (``p = 2`` is the Frobenius norm)."""
    W = as_matrix(W, "W")
    return float(vector_norm(W.ravel(), check_order(p, "p")))


def frobenius_norm(W: np.ndarray) -> float:
    """``||W||_F``."""
    return entrywise_norm(W, 2)


def spectral_norm(W: np.ndarray) -> float:
    """``||W||_{2->2}``, the largest singular value."""
    W = as_matrix(W, "W")
    return float(np.linalg.norm(W, 2))


def _sign_vectors(n: int) -> np.ndarray:
    # Only half the cube is needed: s and -s give the same norm.
    if n == 1:
        return np.ones((1, 1))
    rest = np.array(list(itertools.product((-1.0, 1.0), repeat=n - 1)))
    return np.hstack([np.ones((rest.shape[0], 1)), rest])


def operator_norm(W: np.ndarray, q: float, p: float) -> float:
    """The operator norm ``||W||_{q->p} = sup_x ||W x||_p / ||x||_q`` for ``W`` of shape ``(r, d)``.

    Closed forms are used where they exist and are exact:

    * ``q = 1``: largest column l_p norm (the sup of a convex function over the
      l_1 ball is attained at a vertex ``+-e_j``);
    * ``p = inf``: largest row l_{q*} norm (Hoelder, attained);
    * ``q = p = 2``: largest singular value;
    * ``q = inf`` or ``p = 1``: enumeration of sign vectors (vertices of the
      cube; ``p = 1`` by duality ``||W||_{q->1} = ||W^T||_{inf->q*}``), allowed up to
      :data:`MAX_ENUMERATION_DIM` columns (rows).

    Other pairs are NP-hard in general; use :func:`operator_norm_lower_bound`.
    """
    W = as_matrix(W, "W")
    q = check_order(q, "q")
    p = check_order(p, "p")
    if q == 1:
        return float(np.max(vector_norm(W, p, axis=0)))
    if math.isinf(p):
        return float(np.max(vector_norm(W, dual_exponent(q), axis=1)))
    if q == 2 and p == 2:
        return spectral_norm(W)
    if math.isinf(q) or p == 1:
        M, norm_p = (W, p) if math.isinf(q) else (W.T, dual_exponent(q))
        n = M.shape[1]
        if n > MAX_ENUMERATION_DIM:
            raise ValueError(f"W has {n} columns to enumerate for the ({q}->{p}) norm; at most "
                             f"{MAX_ENUMERATION_DIM} are supported (use operator_norm_lower_bound)")
        S = _sign_vectors(n)
        return float(np.max(vector_norm(S @ M.T, norm_p, axis=1)))
    raise ValueError(f"no exact formula for the ({q}->{p}) operator norm; "
                     "use operator_norm_lower_bound")


def operator_norm_lower_bound(W: np.ndarray, q: float, p: float, *, restarts: int = 20,
                              seed: int = 0) -> float:
    """A certified *lower* bound on ``||W||_{q->p}`` by local maximization of the ratio.

    Every value returned is ``||W x||_p / ||x||_q`` at an actual ``x``, so it never
    exceeds the true norm; it is used to test the closed forms of
    :func:`operator_norm` from the other side.
    """
    import torch

    from attention_theory.search import maximize

    W = as_matrix(W, "W")
    q = check_order(q, "q")
    p = check_order(p, "p")
    restarts = check_int(restarts, "restarts")
    seed = check_seed(seed)
    # The ratio is homogeneous in W: optimize the normalized matrix so that the
    # optimizer's tolerances are relative, then scale back.
    scale = float(np.max(np.abs(W)))
    if scale == 0.0:
        return 0.0
    Wt = torch.as_tensor(W / scale)

    def tnorm(v: "torch.Tensor", r: float) -> "torch.Tensor":
        return v.abs().max() if math.isinf(r) else (v.abs() ** r).sum() ** (1.0 / r)

    def ratio(x: "torch.Tensor") -> "torch.Tensor":
        return tnorm(Wt @ x, p) / tnorm(x, q)

    # Norms with kinks (1, inf) defeat gradient methods; use Nelder-Mead there.
    smooth = not (math.isinf(q) or math.isinf(p) or q == 1 or p == 1)
    if smooth:
        res = maximize(ratio, lambda rng: rng.standard_normal(W.shape[1]), restarts=restarts,
                       steps=300, method="lbfgs", seed=seed)
    else:
        res = maximize(lambda z: float(ratio(torch.as_tensor(z))),
                       lambda rng: rng.standard_normal(W.shape[1]), restarts=restarts,
                       steps=400, method="nelder-mead", seed=seed)
    return res.best_value * scale


@refuses_overflow
def head_max_norm(theta: np.ndarray, H: int) -> float:
    """Deora et al.'s ``||theta~||_{2,inf} = max_h ||theta_h||``.

    ``theta`` is the flat concatenation of ``H`` equally sized head blocks.
    """
    theta = as_vector(theta, "theta")
    H = check_int(H, "H")
    if theta.size % H:
        raise ValueError(f"theta has {theta.size} entries, not divisible into H={H} heads")
    rows = theta.reshape(H, -1)
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(rows, axis=1)
    # a sum of squares that overflows, or loses its terms to underflow: the scaled l_2 norm
    lost = ~np.isfinite(norms) | ((norms < 1e-150) & (np.max(np.abs(rows), axis=1) > 0))
    if np.any(lost):
        norms = np.where(lost, vector_norm(rows, 2, axis=1), norms)
    return float(np.max(norms))
