"""The l_p potential of mirror descent, its mirror map, inverse and Bregman divergence.

Julistiono, Tarzanagh & Azizan run mirror descent with the potential
``psi(W) = ||W||_p^p / p`` (entrywise l_p norm of the matrix, i.e. of ``vec(W)``), ``p > 1``.
Everything here acts entrywise and accepts arrays of any shape ``(...)``; functions that
reduce (``psi``, ``bregman``, ``entrywise_lp``) reduce over *all* axes unless ``batch_dims``
leading axes are kept (used to run several problems at once).

* ``grad_psi(W) = sign(W) |W|^(p-1)``                      (mirror map)
* ``grad_psi_inv(U) = sign(U) |U|^(1/(p-1))``              (its inverse, the gradient of psi*)
* ``psi_conj(U) = ||U||_q^q / q`` with ``q = p / (p - 1)`` (Fenchel conjugate)
* ``bregman(W, V) = psi(W) - psi(V) - <grad_psi(V), W - V>``
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attention_theory.validation import as_array, check_int, check_order, check_positive, refuses_overflow

__all__ = [
    "conjugate_exponent",
    "entrywise_lp",
    "psi",
    "psi_conj",
    "grad_psi",
    "grad_psi_inv",
    "bregman",
    "bregman_entrywise",
    "directional_bregman",
    "md_step",
]


def _p(p: Any, name: str = "p") -> float:
    p = check_order(p, name, minimum=1.0, allow_inf=False, strict=True)
    return p


def conjugate_exponent(p: float) -> float:
    """``q = p / (p - 1)`` for ``1 < p < inf``."""
    p = _p(p)
    return p / (p - 1.0)


def _axes(a: np.ndarray, batch_dims: int) -> tuple[int, ...]:
    batch_dims = check_int(batch_dims, "batch_dims", minimum=0)
    if batch_dims >= a.ndim and a.ndim > 0:
        raise ValueError(f"batch_dims={batch_dims} leaves no axis to reduce for shape {a.shape}")
    return tuple(range(batch_dims, a.ndim))


def entrywise_lp(W: Any, p: float, *, batch_dims: int = 0) -> np.ndarray | float:
    """``||vec(W)||_p`` over all axes after the first ``batch_dims`` (shape ``W.shape[:batch_dims]``).

    Computed as ``m * ||W / m||_p`` with ``m = max|W|`` so huge or tiny entries neither
    overflow nor underflow.
    """
    W = as_array(W, "W")
    p = _p(p)
    ax = _axes(W, batch_dims)
    m = np.max(np.abs(W), axis=ax, keepdims=True)
    safe = np.where(m > 0, m, 1.0)
    out = np.squeeze(safe, axis=ax) * np.sum(np.abs(W / safe) ** p, axis=ax) ** (1.0 / p)
    out = np.where(np.squeeze(m, axis=ax) > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


@refuses_overflow
def psi(W: Any, p: float, *, batch_dims: int = 0) -> np.ndarray | float:
    """The potential ``||W||_p^p / p``."""
    W = as_array(W, "W")
    p = _p(p)
    out = np.sum(np.abs(W) ** p, axis=_axes(W, batch_dims)) / p
    return float(out) if np.ndim(out) == 0 else out


@refuses_overflow
def psi_conj(U: Any, p: float, *, batch_dims: int = 0) -> np.ndarray | float:
    """The Fenchel conjugate ``psi*(U) = ||U||_q^q / q`` of ``psi`` (``q = p / (p - 1)``)."""
    U = as_array(U, "U")
    return psi(U, conjugate_exponent(p), batch_dims=batch_dims)


@refuses_overflow
def grad_psi(W: Any, p: float) -> np.ndarray:
    """The mirror map ``sign(W) |W|^(p-1)`` (entrywise, same shape as ``W``)."""
    W = as_array(W, "W")
    p = _p(p)
    return np.sign(W) * np.abs(W) ** (p - 1.0)


@refuses_overflow
def grad_psi_inv(U: Any, p: float) -> np.ndarray:
    """The inverse mirror map ``sign(U) |U|^(1/(p-1))`` (the gradient of ``psi*``)."""
    U = as_array(U, "U")
    p = _p(p)
    return np.sign(U) * np.abs(U) ** (1.0 / (p - 1.0))


@refuses_overflow
def bregman_entrywise(w: Any, v: Any, p: float) -> np.ndarray:
    """The scalar Bregman term ``phi_p(w, v) = |w|^p/p - |v|^p/p - sign(v)|v|^(p-1)(w - v)``.

    ``w`` and ``v`` broadcast; the result has their broadcast shape.
    """
    w, v = as_array(w, "w"), as_array(v, "v")
    try:
        np.broadcast_shapes(w.shape, v.shape)
    except ValueError:
        raise ValueError(f"w and v must broadcast, got shapes w {w.shape} and v {v.shape}") from None
    p = _p(p)
    return np.abs(w) ** p / p - np.abs(v) ** p / p - np.sign(v) * np.abs(v) ** (p - 1.0) * (w - v)


@refuses_overflow
def bregman(W: Any, V: Any, p: float, *, batch_dims: int = 0) -> np.ndarray | float:
    """``D_psi(W, V) = psi(W) - psi(V) - <grad_psi(V), W - V>`` (Definition 1).

    Written as ``psi(W) + (p-1)/p ||V||_p^p - <grad_psi(V), W>``, the form of the authors'
    code; the two agree algebraically.  Asymmetric: ``W`` is the point, ``V`` the base.
    """
    W, V = as_array(W, "W"), as_array(V, "V")
    if W.shape != V.shape:
        raise ValueError(f"W and V must have the same shape, got {W.shape} and {V.shape}")
    p = _p(p)
    ax = _axes(W, batch_dims)
    out = (np.sum(np.abs(W) ** p, axis=ax) / p + (p - 1.0) / p * np.sum(np.abs(V) ** p, axis=ax)
           - np.sum(grad_psi(V, p) * W, axis=ax))
    return float(out) if np.ndim(out) == 0 else out


def directional_bregman(W_ref: Any, W: Any, p: float, *, batch_dims: int = 0) -> np.ndarray | float:
    """``D_psi(W_ref / ||W_ref||_p, W / ||W||_p)``: the convergence measure of the paper's figures.

    For unit-norm arguments this equals ``1 - <grad_psi(What), What_ref>``, which is the form
    used here (it is exact and avoids the cancellation of the three-term formula).
    Reference direction first, iterate second.
    """
    W_ref, W = as_array(W_ref, "W_ref"), as_array(W, "W")
    try:
        np.broadcast_shapes(W_ref.shape, W.shape)
    except ValueError:
        raise ValueError(f"W_ref and W must have broadcastable shapes, got {W_ref.shape} and "
                         f"{W.shape}") from None
    p = _p(p)
    batch_dims = check_int(batch_dims, "batch_dims", minimum=0)
    if batch_dims == 0 and W_ref.shape != W.shape:
        raise ValueError(f"W_ref and W must have the same shape, got {W_ref.shape} and {W.shape}")
    ax = _axes(W, batch_dims)
    nr = np.asarray(entrywise_lp(W_ref, p, batch_dims=_bd(W_ref, W, batch_dims)))
    nw = np.asarray(entrywise_lp(W, p, batch_dims=batch_dims))
    if np.any(nr == 0) or np.any(nw == 0):
        raise ValueError("W_ref and W must be non-zero")
    shape = nw.shape + (1,) * len(ax)
    Wh = W / nw.reshape(shape)
    Rh = W_ref / nr.reshape(nr.shape + (1,) * (W_ref.ndim - nr.ndim))
    out = 1.0 - np.sum(grad_psi(Wh, p) * Rh, axis=ax)
    out = np.maximum(out, 0.0)
    return float(out) if np.ndim(out) == 0 else out


def _bd(W_ref: np.ndarray, W: np.ndarray, batch_dims: int) -> int:
    """Batch dims of the reference (it may be shared, i.e. lack the batch axes)."""
    return batch_dims if W_ref.ndim == W.ndim else 0


@refuses_overflow
def md_step(W: Any, G: Any, eta: float, p: float) -> np.ndarray:
    """One mirror-descent step ``grad_psi(W+) = grad_psi(W) - eta G`` (any shape).

    Equivalently ``W+ = argmin_V eta <G, V> + D_psi(V, W)``; for ``p = 2`` it is a GD step.
    """
    W, G = as_array(W, "W"), as_array(G, "G")
    if W.shape != G.shape:
        raise ValueError(f"W and G must have the same shape, got {W.shape} and {G.shape}")
    eta = check_positive(eta, "eta")
    return grad_psi_inv(grad_psi(W, p) - eta * G, p)
