"""Softmax, its Jacobian and its second directional derivative (numpy, float64).

Shapes: ``v`` is ``(..., T)``; the softmax acts on the last axis.
"""

from __future__ import annotations

import numpy as np

from attention_theory.validation import as_array, refuses_overflow

__all__ = ["softmax", "softmax_jacobian", "softmax_second_derivative"]


def softmax(v: np.ndarray) -> np.ndarray:
    """``phi(v)_t = exp(v_t) / sum_s exp(v_s)`` along the last axis, shape ``(..., T)``.

    The maximum is subtracted first, so scores of size 1e3 do not overflow.
    """
    v = as_array(v, "v")
    z = v - np.max(v, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_jacobian(v: np.ndarray) -> np.ndarray:
    """``phi'(v) = diag(phi(v)) - phi(v) phi(v)^T``, shape ``(..., T, T)`` (symmetric)."""
    s = softmax(v)
    return np.einsum("...i,ij->...ij", s, np.eye(s.shape[-1])) - s[..., :, None] * s[..., None, :]


@refuses_overflow
def softmax_second_derivative(v: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """``D^2 phi(v)[delta, delta] = s * dbar^2 - s (s . dbar^2)`` with ``dbar = delta - (s . delta)``.

    ``s = phi(v)``; shapes ``(..., T)``.  This is the quadratic term of
    ``phi(v + t delta) = phi(v) + t phi'(v) delta + t^2/2 D^2 phi(v)[delta, delta] + O(t^3)``.
    """
    s = softmax(v)
    delta = as_array(delta, "delta")
    if delta.shape != s.shape:
        raise ValueError(f"delta must have the shape of v {s.shape}, got {delta.shape}")
    dbar = delta - np.sum(s * delta, axis=-1, keepdims=True)
    sq = dbar**2
    return s * sq - s * np.sum(s * sq, axis=-1, keepdims=True)
