"""Losses of the papers and their derivatives (numpy, float64, overflow-safe).

* logistic loss ``l(z) = log(1 + exp(-z))`` on margins ``z = y f(x)`` (Deora et al.);
* cross-entropy ``L(x, y) = -log softmax(x)_y`` on logits ``x`` of shape ``(..., K)``
  with integer labels ``y`` (Trauger & Tewari, Sec. 5 / App. G).
"""

from __future__ import annotations

import numpy as np

from attention_theory.foundations.softmax import softmax
from attention_theory.validation import as_array, check_positive, reject_masked

__all__ = [
    "logistic_loss",
    "logistic_loss_d1",
    "logistic_loss_d2",
    "cross_entropy",
    "cross_entropy_grad",
    "clipped_cross_entropy",
    "empirical_logistic_risk",
]


def logistic_loss(z: np.ndarray) -> np.ndarray:
    """``log(1 + exp(-z))``, computed as ``logaddexp(0, -z)`` so it never overflows."""
    return np.logaddexp(0.0, -as_array(z, "z"))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def logistic_loss_d1(z: np.ndarray) -> np.ndarray:
    """``l'(z) = -sigmoid(-z)`` (always in (-1, 0))."""
    return -_sigmoid(-as_array(z, "z"))


def logistic_loss_d2(z: np.ndarray) -> np.ndarray:
    """``l''(z) = sigmoid(z) sigmoid(-z)`` (in (0, 1/4])."""
    z = as_array(z, "z")
    return _sigmoid(z) * _sigmoid(-z)


def empirical_logistic_risk(margins: np.ndarray) -> dict[str, float]:
    """``L^ = mean l(z_i)``, ``L^' = mean |l'(z_i)|``, ``L^'' = mean |l''(z_i)|`` (Deora Eq. 24)."""
    z = as_array(margins, "margins", ndim=1)
    return {
        "L": float(np.mean(logistic_loss(z))),
        "L1": float(np.mean(np.abs(logistic_loss_d1(z)))),
        "L2": float(np.mean(np.abs(logistic_loss_d2(z)))),
    }


def _labels(y: np.ndarray, logits: np.ndarray) -> np.ndarray:
    reject_masked(y, "y")
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y must hold integer class labels, got dtype {y.dtype}")
    if y.shape != logits.shape[:-1]:
        raise ValueError(f"y must have shape {logits.shape[:-1]} (the shape of x without its last "
                         f"axis), got {y.shape}")
    K = logits.shape[-1]
    if np.any((y < 0) | (y >= K)):
        raise ValueError(f"y must lie in 0..{K - 1}")
    return y


def cross_entropy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``-log softmax(x)_y`` for logits ``x`` of shape ``(..., K)``; returns shape ``(...)``."""
    x = as_array(x, "x")
    y = _labels(y, x)
    m = np.max(x, axis=-1, keepdims=True)
    lse = (m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))[..., 0]
    return lse - np.take_along_axis(x, y[..., None], axis=-1)[..., 0]


def cross_entropy_grad(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``grad_x L = softmax(x) - e_y``, shape ``(..., K)``."""
    x = as_array(x, "x")
    y = _labels(y, x)
    g = softmax(x)
    np.put_along_axis(g, y[..., None], np.take_along_axis(g, y[..., None], axis=-1) - 1.0, axis=-1)
    return g


def clipped_cross_entropy(x: np.ndarray, y: np.ndarray, clip: float) -> np.ndarray:
    """``min(L(x, y), clip)``: the bounded loss a Rademacher bound needs."""
    return np.minimum(cross_entropy(x, y), check_positive(clip, "clip"))
