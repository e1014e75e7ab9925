"""The one-layer attention classifier of Julistiono, Tarzanagh & Azizan (numpy, float64).

Model: ``f(X, z; W, v) = v^T X^T softmax(X W z)`` with ``X`` of shape ``(T, d)`` (rows are
tokens), query ``z`` of shape ``(d,)``, key-query matrix ``W`` ``(d, d)`` and decoder ``v``
``(d,)``.  A data set is ``X (n, T, d)``, ``z (n, d)``, ``Y (n,)`` with labels in ``{-1, +1}``.

Every function accepts extra *leading batch axes* on all its arguments (``X (..., n, T, d)``,
``W (..., d, d)``, ...) that broadcast against each other, so many data sets, seeds or
iterates are evaluated at once.

Notation: scores ``gamma_it = Y_i v^T x_it`` ``(..., n, T)``, logits ``h_i = X_i W z_i``
``(..., n, T)``, softmax ``s_i``, margins ``u_i = Y_i f(X_i, z_i) = gamma_i^T s_i``.

Gradients come in two forms (see :func:`gradient_W`):

* ``stable=True`` computes, per sample, relative to the current top token ``a``:
  ``gt = gamma - gamma_a``, ``m = sum_t s_t gt_t``, ``(S'(h) gamma)_t = s_t (gt_t - m)``
  with the softmax formed from ``h - h_a``.  Every quantity is then small where the exact
  value is small, so the gradient keeps full *relative* accuracy even when the softmax is
  saturated (``||W||`` large);
* ``stable=False`` is what automatic differentiation of the softmax computes,
  ``s * (gamma - <s, gamma>)``: the top-token entry is a difference of two numbers close to
  ``gamma_a`` and loses all relative accuracy once ``1 - s_a`` drops below ``1e-16``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

from attention_theory.validation import as_array, check_int, check_seed, torch_generator

__all__ = [
    "LOSSES",
    "validate_data",
    "scores",
    "logits",
    "attention",
    "attention_output",
    "margins",
    "loss_value",
    "loss_derivative",
    "objective",
    "softmax_jacobian_times",
    "gradient_W",
    "objective_torch",
    "make_gradient",
    "synthetic_dataset",
    "authors_synthetic_dataset",
    "two_sample_example",
]

LOSSES = ("logistic", "exponential", "correlation")


def _loss_name(loss: Any) -> str:
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    return loss


def validate_data(X: Any, z: Any, Y: Any | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Check shapes ``X (..., n, T, d)``, ``z (..., n, d)``, ``Y (..., n)`` (entries +-1)."""
    X = as_array(X, "X")
    z = as_array(z, "z")
    if X.ndim < 3:
        raise ValueError(f"X must have shape (..., n, T, d), got {X.shape}")
    if z.ndim < 2 or z.shape[-1] != X.shape[-1] or z.shape[-2] != X.shape[-3]:
        raise ValueError(f"z must have shape (..., n, d) = (..., {X.shape[-3]}, {X.shape[-1]}), "
                         f"got {z.shape}")
    if Y is not None:
        Y = as_array(Y, "Y")
        if Y.ndim < 1 or Y.shape[-1] != X.shape[-3]:
            raise ValueError(f"Y must have shape (..., n) with n = {X.shape[-3]}, got {Y.shape}")
        if not np.all(np.abs(Y) == 1):
            raise ValueError("Y must contain only labels -1 and +1")
    return X, z, Y


def _check_flag(flag: Any, name: str) -> None:
    if not isinstance(flag, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {flag!r}")


def _check_W(W: Any, d: int) -> np.ndarray:
    W = as_array(W, "W")
    if W.ndim < 2 or W.shape[-2:] != (d, d):
        raise ValueError(f"W must have shape (..., {d}, {d}), got {W.shape}")
    return W


def _check_v(v: Any, d: int) -> np.ndarray:
    v = as_array(v, "v")
    if v.ndim < 1 or v.shape[-1] != d:
        raise ValueError(f"v must have shape (..., {d}), got {v.shape}")
    return v


def scores(X: Any, Y: Any, v: Any) -> np.ndarray:
    """Token scores ``gamma_it = Y_i v^T x_it``, shape ``(..., n, T)``."""
    X = as_array(X, "X")
    if X.ndim < 3:
        raise ValueError(f"X must have shape (..., n, T, d), got {X.shape}")
    Y = as_array(Y, "Y")
    if Y.ndim < 1 or Y.shape[-1] != X.shape[-3]:
        raise ValueError(f"Y must have shape (..., n) with n = {X.shape[-3]}, got {Y.shape}")
    if not np.all(np.abs(Y) == 1):
        raise ValueError("Y must contain only labels -1 and +1")
    v = _check_v(v, X.shape[-1])
    return Y[..., None] * np.einsum("...ntd,...d->...nt", X, v)


def logits(X: Any, z: Any, W: Any) -> np.ndarray:
    """Attention logits ``h_i = X_i W z_i``, shape ``(..., n, T)``."""
    X, z, _ = validate_data(X, z)
    W = _check_W(W, X.shape[-1])
    Wz = np.matmul(z, np.swapaxes(W, -1, -2))          # (..., n, d): rows W z_i
    return np.matmul(X, Wz[..., None])[..., 0]


def _softmax_shifted(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(softmax(h), argmax h)`` along the last axis, computed from ``h - max h``."""
    a = np.argmax(h, axis=-1)
    hs = h - np.take_along_axis(h, a[..., None], axis=-1)
    e = np.exp(hs)
    return e / np.sum(e, axis=-1, keepdims=True), a


def attention(X: Any, z: Any, W: Any) -> np.ndarray:
    """Attention weights ``s_i = softmax(X_i W z_i)``, shape ``(..., n, T)``."""
    return _softmax_shifted(logits(X, z, W))[0]


def attention_output(X: Any, z: Any, W: Any, v: Any) -> np.ndarray:
    """Model outputs ``f(X_i, z_i) = v^T X_i^T s_i``, shape ``(..., n)``."""
    X, z, _ = validate_data(X, z)
    v = _check_v(v, X.shape[-1])
    s = attention(X, z, W)
    return np.einsum("...nt,...ntd,...d->...n", s, X, v, optimize=True)


def loss_value(u: Any, loss: str = "logistic") -> np.ndarray:
    """``l(u)``: logistic ``log(1 + e^-u)``, exponential ``e^-u`` or correlation ``-u``."""
    u = as_array(u, "u")
    loss = _loss_name(loss)
    if loss == "logistic":
        return np.logaddexp(0.0, -u)
    if loss == "exponential":
        return np.exp(-u)
    return -u


def loss_derivative(u: Any, loss: str = "logistic") -> np.ndarray:
    """``l'(u)`` (negative for all three losses); logistic via ``-expit(-u)`` (no overflow)."""
    u = as_array(u, "u")
    loss = _loss_name(loss)
    if loss == "logistic":
        return -expit(-u)
    if loss == "exponential":
        return -np.exp(-u)
    return -np.ones_like(u)


def softmax_jacobian_times(h: Any, gamma: Any, *,
                           stable: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(S'(h) gamma, s, gamma^T s)`` along the last axis (shapes ``(..., T)``, ``(..., T)``, ``(...)``).

    ``S'(h) = diag(s) - s s^T``.  ``stable=True`` centres everything at the top token
    ``a = argmax h`` (module docstring); ``stable=False`` is autograd's formula
    ``s * (gamma - <s, gamma>)``.
    """
    h, gamma = as_array(h, "h"), as_array(gamma, "gamma")
    _check_flag(stable, "stable")
    try:
        h, gamma = np.broadcast_arrays(h, gamma)
    except ValueError:
        raise ValueError(f"h and gamma must have broadcastable shapes, got {h.shape} and "
                         f"{gamma.shape}") from None
    if h.shape[-1] != gamma.shape[-1]:
        raise ValueError("h and gamma must have the same last axis")
    s, a = _softmax_shifted(h)
    if stable:
        ga = np.take_along_axis(gamma, a[..., None], axis=-1)
        gt = gamma - ga
        m = np.sum(s * gt, axis=-1, keepdims=True)
        return s * (gt - m), s, (ga + m)[..., 0]
    u = np.sum(s * gamma, axis=-1, keepdims=True)
    return s * (gamma - u), s, u[..., 0]


def margins(W: Any, X: Any, z: Any, Y: Any, v: Any) -> np.ndarray:
    """``u_i = Y_i f(X_i, z_i) = gamma_i^T s_i``, shape ``(..., n)``."""
    validate_data(X, z, as_array(Y, "Y"))
    return Y * attention_output(X, z, W, v)


def objective(W: Any, X: Any, z: Any, Y: Any, v: Any, *, loss: str = "logistic") -> np.ndarray | float:
    """ERM objective with fixed ``v``: ``L(W) = mean_i l(gamma_i^T s_i)`` (shape: batch axes)."""
    X, z, Y = validate_data(X, z, Y)
    gamma = scores(X, Y, v)
    h = logits(X, z, W)
    _, _, u = softmax_jacobian_times(h, gamma)
    out = np.mean(loss_value(u, loss), axis=-1)
    return float(out) if np.ndim(out) == 0 else out


def gradient_W(W: Any, X: Any, z: Any, Y: Any, v: Any, *, loss: str = "logistic",
               stable: bool = True) -> np.ndarray:
    """Lemma 17: ``grad L(W) = (1/n) sum_i l'(u_i) X_i^T S'(h_i) gamma_i z_i^T``, shape ``(..., d, d)``."""
    X, z, Y = validate_data(X, z, Y)
    W = _check_W(W, X.shape[-1])
    return make_gradient(X, z, Y, v, loss=loss, stable=stable)(W)[0]


def make_gradient(X: Any, z: Any, Y: Any, v: Any, *, loss: str = "logistic", stable: bool = True):
    """A fast closure ``W (..., d, d) -> (grad L(W), u)`` for fixed data (used inside training loops).

    Validates once, precomputes the scores and uses batched ``matmul`` instead of ``einsum``;
    numerically identical to :func:`gradient_W`.
    """
    X, z, Y = validate_data(X, z, Y)
    loss = _loss_name(loss)
    _check_flag(stable, "stable")
    gamma = scores(X, Y, v)
    n = X.shape[-3]
    zT = z
    Xt = np.swapaxes(X, -1, -2)

    def grad(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Wz = np.matmul(zT, np.swapaxes(W, -1, -2))                 # (..., n, d)
        h = np.matmul(X, Wz[..., None])[..., 0]                     # (..., n, T)
        c, _, u = _sjt(h, gamma, stable)
        r = loss_derivative_fast(u, loss)[..., None] * c            # (..., n, T)
        B = np.matmul(Xt, r[..., None])[..., 0]                     # (..., n, d)
        return np.matmul(np.swapaxes(B, -1, -2), zT) / n, u        # (..., d, d)

    return grad


def _sjt(h: np.ndarray, gamma: np.ndarray, stable: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gamma = np.broadcast_to(gamma, h.shape)
    a = np.argmax(h, axis=-1)[..., None]
    e = np.exp(h - np.take_along_axis(h, a, axis=-1))
    s = e / np.sum(e, axis=-1, keepdims=True)
    if stable:
        ga = np.take_along_axis(gamma, a, axis=-1)
        gt = gamma - ga
        m = np.sum(s * gt, axis=-1, keepdims=True)
        return s * (gt - m), s, (ga + m)[..., 0]
    u = np.sum(s * gamma, axis=-1, keepdims=True)
    return s * (gamma - u), s, u[..., 0]


def loss_derivative_fast(u: np.ndarray, loss: str) -> np.ndarray:
    """:func:`loss_derivative` without validation (internal loops)."""
    if loss == "logistic":
        return -expit(-u)
    if loss == "exponential":
        return -np.exp(-u)
    return -np.ones_like(u)


def objective_torch(W, X, z, Y, v, *, loss: str = "logistic"):
    """The same objective in torch (autograd reference; float64 tensors, no batch axes).

    ``W (d, d)``, ``X (n, T, d)``, ``z (n, d)``, ``Y (n,)`` (labels +-1), ``v (d,)``: tensors are
    used as given (a floating tensor keeps its dtype and its autograd graph); other input is
    converted to float64 tensors.
    """
    X = _torch_arg(X, "X", 3)
    n, _, d = X.shape
    W = _torch_arg(W, "W", 2, (d, d))
    z = _torch_arg(z, "z", 2, (n, d))
    Y = _torch_arg(Y, "Y", 1, (n,))
    v = _torch_arg(v, "v", 1, (d,))
    import torch

    try:
        labels = bool(torch.all(Y.abs() == 1))
    except RuntimeError:  # inside a function transform: no data-dependent checks
        labels = True
    if not labels:
        raise ValueError("Y must contain only labels -1 and +1")
    loss = _loss_name(loss)
    dtypes = {name: t.dtype for name, t in (("X", X), ("W", W), ("z", z), ("Y", Y), ("v", v))
              if t.is_floating_point()}
    if len(set(dtypes.values())) > 1:
        raise TypeError("the floating tensors must share one dtype, got "
                        + ", ".join(f"{k} {v}" for k, v in dtypes.items()))
    h = torch.einsum("ntd,de,ne->nt", X, W, z)
    s = torch.softmax(h, dim=-1)
    u = Y * torch.einsum("nt,ntd,d->n", s, X, v)
    if loss == "logistic":
        val = torch.nn.functional.softplus(-u)
    elif loss == "exponential":
        val = torch.exp(-u)
    else:
        val = -u
    return val.mean()


def _torch_arg(t: Any, name: str, ndim: int, shape: tuple[int, ...] | None = None):
    """A real, finite, non-empty tensor with ``ndim`` axes (and ``shape``), used as given when it is
    a floating or integer tensor; anything else is validated by :func:`as_tensor` (float64)."""
    import torch

    from attention_theory.validation import as_tensor, check_finite

    if not isinstance(t, torch.Tensor) or t.is_complex() or t.dtype == torch.bool:
        t = as_tensor(t, name)
    if t.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(t.shape)}")
    if t.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(t.shape)})")
    if shape is not None and tuple(t.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}, got {tuple(t.shape)}")
    return check_finite(t, name)


def _unit_rows(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def synthetic_dataset(seed: int, n: int = 6, T: int = 8, d: int = 10) -> dict[str, np.ndarray]:
    """The E1 data generator (reconstructed from the TF-as-SVM notebook the authors adapted).

    Tokens ``x_it`` and queries ``z_i`` are unit-normalised Gaussians, ``v`` a unit-normalised
    Gaussian, ``Y_i = sign`` of a Gaussian.  Returns ``X (n, T, d)``, ``z (n, d)``, ``Y (n,)``,
    ``v (d,)``.
    """
    check_seed(seed)
    n, T, d = check_int(n, "n"), check_int(T, "T", minimum=2), check_int(d, "d")
    rng = np.random.default_rng(seed)
    X = _unit_rows(rng.standard_normal((n, T, d)))
    z = _unit_rows(rng.standard_normal((n, d)))
    v = _unit_rows(rng.standard_normal(d))
    Y = np.where(rng.standard_normal(n) >= 0, 1.0, -1.0)
    return {"X": X, "z": z, "Y": Y, "v": v}


def authors_synthetic_dataset(seed: int, n: int = 6, T: int = 8, d: int = 10) -> dict[str, np.ndarray]:
    """The E1 data set drawn as the authors' public generator draws it (``synthetic-data/tools/
    generate_data.py`` of aaronk2002/AttentionMD, commit ff5fdf5); this is an independent
    implementation of the described procedure.

    One CPU ``torch.Generator`` seeded with ``seed`` (``manual_seed(seed)`` exactly for
    ``seed < 2**32``, see :func:`attention_theory.validation.torch_generator`) draws, in float32 and
    in this order: the decoder ``v`` ``(d,)``; one Gaussian per sample whose sign gives the label
    (``Y_i = +1`` if it is ``> 0``, else ``-1``); the tokens ``(n, T, d)``; the queries ``(n, d)``.
    ``v``, every token and every query are then divided by their Euclidean norm in float32, and
    the result is cast to float64 (the authors' scripts call ``.double()``).

    Returns ``X (n, T, d)``, ``z (n, d)``, ``Y (n,)``, ``v (d,)`` (float64), the keys of
    :func:`synthetic_dataset`. The authors' ``W(0)`` is not part of the data set: their scripts draw
    it from the unseeded global torch generator, so it cannot be reproduced.
    """
    import torch

    check_seed(seed)
    n, T, d = check_int(n, "n"), check_int(T, "T", minimum=2), check_int(d, "d")
    g = torch_generator(seed)
    f32 = torch.float32
    v = torch.randn(d, generator=g, dtype=f32)
    sign = torch.randn(n, generator=g, dtype=f32)
    X = torch.randn(n, T, d, generator=g, dtype=f32)
    z = torch.randn(n, d, generator=g, dtype=f32)

    def unit(a: torch.Tensor) -> np.ndarray:
        return (a / torch.linalg.vector_norm(a, dim=-1, keepdim=True)).double().numpy()

    Y = np.where(sign.numpy() > 0, 1.0, -1.0)
    return {"X": unit(X), "z": unit(z), "Y": Y, "v": unit(v)}


def two_sample_example() -> dict[str, np.ndarray]:
    """The joint-training example (E2): ``n = 2, T = 3, d = 2``, ``z_i = x_i1``, ``Y = (1, -1)``."""
    X = np.array([[[-2.7, 1.2], [1.4, 2.1], [1.3, -0.1]],
                  [[0.4, -2.2], [-1.1, -0.4], [0.9, 0.1]]])
    return {"X": X, "z": X[:, 0, :].copy(), "Y": np.array([1.0, -1.0])}
