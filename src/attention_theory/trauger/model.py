"""Trauger & Tewari's Transformer (Sec. 2.6, after Edelman et al. 2022), as pure torch functions.

Shapes (``T`` tokens, ``d`` embedding dimension, ``k`` hidden dimension, ``k'`` query/key
dimension, ``L`` layers, ``H`` heads):

* ``X``: ``(T, d)``, rows are tokens;
* one head / one layer :class:`Layer`: ``W_QK`` ``(d, d)``, ``W_v`` ``(d, k)``, ``W_c`` ``(k, d)``;
  the factored form uses ``W_Q``, ``W_K`` ``(d, k')`` with ``W_QK = W_Q W_K^T``;
* an ``L``-layer block: a sequence of ``L`` :class:`Layer`;
* the read-out ``w``: ``(d,)``.

Definitions (Sec. 2.6):

* head: ``sigma(RowSoftmax(X W_QK X^T) X W_v) W_c``, shape ``(T, d)``;
* multi-head layer: the sum of ``H`` heads;
* block: ``f(Z) = RowSoftmax(Z W_QK Z^T) Z W_v``, ``g^(1) = X`` and
  ``g^(i+1) = Pi_norm(sigma(Pi_norm(f(g^(i)))) W_c)``, where ``Pi_norm`` maps every row
  ``z`` to ``z / max(1, ||z||_2)``;
* scalar output: ``w^T g^(L+1)(X)[cls]``.

Token ``x`` (a row) is mapped to ``W_v^T x`` by the value matrix and to ``W_c^T y`` by the
output matrix, which is why the norm hypotheses of Sec. 4 sit on ``W_v^T`` and ``W_c^T``.
Every function validates its input, works in float64 and is differentiable.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import torch

from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import (
    as_tensor,
    check_bool,
    check_int,
    check_positive,
    check_rng,
    refuses_overflow,
)

__all__ = [
    "Layer",
    "ACTIVATIONS",
    "activation",
    "as_tensor",
    "qk_from_factors",
    "row_softmax",
    "proj_norm",
    "attention_head",
    "attention_head_factored",
    "multi_head_layer",
    "layer_f",
    "block_layer",
    "block",
    "scalar_output",
    "random_layer",
    "random_block",
    "parameter_count",
]


class _LayerFields(NamedTuple):
    W_QK: torch.Tensor
    W_v: torch.Tensor
    W_c: torch.Tensor


class Layer(_LayerFields):
    """Parameters of one head (or one block layer): ``W_QK`` (d, d), ``W_v`` (d, k), ``W_c`` (k, d).

    The matrices are validated (real, finite, non-empty, of matching shapes) and stored as given.
    """

    __slots__ = ()

    def __new__(cls, W_QK: Any, W_v: Any, W_c: Any) -> "Layer":
        qk = as_tensor(W_QK, "W_QK", ndim=2)
        if qk.shape[0] != qk.shape[1]:
            raise ValueError(f"W_QK must be square (d, d), got shape {tuple(qk.shape)}")
        v = as_tensor(W_v, "W_v", ndim=2)
        if v.shape[0] != qk.shape[0]:
            raise ValueError(f"W_v must have shape ({qk.shape[0]}, k) to match W_QK, got {tuple(v.shape)}")
        as_tensor(W_c, "W_c", shape=(v.shape[1], qk.shape[0]))
        return super().__new__(cls, W_QK, W_v, W_c)


#: Named activations with their Lipschitz constants ``L_sigma`` (all satisfy ``sigma(0) = 0``).
ACTIVATIONS: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], float]] = {
    "identity": (lambda z: z, 1.0),
    "relu": (torch.relu, 1.0),
    "tanh": (torch.tanh, 1.0),
    "2tanh": (lambda z: 2.0 * torch.tanh(z), 2.0),
}


def activation(sigma: str | Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
    """Resolve ``sigma`` (a name in :data:`ACTIVATIONS` or a callable) to a callable."""
    if isinstance(sigma, str):
        if sigma not in ACTIVATIONS:
            raise ValueError(f"sigma must be one of {sorted(ACTIVATIONS)} or a callable, got {sigma!r}")
        return ACTIVATIONS[sigma][0]
    if not callable(sigma):
        raise TypeError(f"sigma must be a name or a callable, got {type(sigma).__name__}")
    return sigma


def _layer(params: Any, d: int, name: str = "params") -> Layer:
    """Validate a :class:`Layer` (or a 3-tuple) against embedding dimension ``d``."""
    if not isinstance(params, (tuple, list)) or len(params) != 3:
        raise TypeError(f"{name} must be a Layer(W_QK, W_v, W_c), got {type(params).__name__}")
    W_QK = as_tensor(params[0], f"{name}.W_QK", shape=(d, d))
    W_v = as_tensor(params[1], f"{name}.W_v", ndim=2)
    if W_v.shape[0] != d:
        raise ValueError(f"{name}.W_v must have shape ({d}, k), got {tuple(W_v.shape)}")
    W_c = as_tensor(params[2], f"{name}.W_c", shape=(W_v.shape[1], d))
    return Layer._make((W_QK, W_v, W_c))  # validated above: no second pass


def qk_from_factors(W_Q: Any, W_K: Any) -> torch.Tensor:
    """``W_QK = W_Q W_K^T``: ``W_Q``, ``W_K`` of shape ``(d, k')`` give ``(d, d)``."""
    W_Q = as_tensor(W_Q, "W_Q", ndim=2)
    W_K = as_tensor(W_K, "W_K", shape=tuple(W_Q.shape))
    return W_Q @ W_K.T


def row_softmax(S: Any) -> torch.Tensor:
    """Softmax of every row of ``S`` (shape ``(T, T')``), same shape; rows sum to 1."""
    S = as_tensor(S, "S", ndim=2)
    return torch.softmax(S, dim=-1)


def proj_norm(Z: Any) -> torch.Tensor:
    """``Pi_norm``: every row ``z`` of ``Z`` (shape ``(T, n)``) becomes ``z / max(1, ||z||_2)``.

    This is the Euclidean projection of each row onto the unit l2 ball, hence
    idempotent and 1-Lipschitz row by row.
    """
    Z = as_tensor(Z, "Z", ndim=2)
    return Z / torch.clamp(torch.linalg.vector_norm(Z, dim=-1, keepdim=True), min=1.0)


@refuses_overflow
def attention_head(params: Any, X: Any, sigma: str | Callable = "relu") -> torch.Tensor:
    """One head (Sec. 2.6): ``sigma(RowSoftmax(X W_QK X^T) X W_v) W_c``, shape ``(T, d)``.

    ``params`` is a :class:`Layer` (``W_QK`` (d, d), ``W_v`` (d, k), ``W_c`` (k, d));
    ``X`` has shape ``(T, d)``.
    """
    X = as_tensor(X, "X", ndim=2)
    p = _layer(params, X.shape[1])
    act = activation(sigma)
    return act(torch.softmax(X @ p.W_QK @ X.T, dim=-1) @ X @ p.W_v) @ p.W_c


def attention_head_factored(W_Q: Any, W_K: Any, W_v: Any, W_c: Any, X: Any,
                            sigma: str | Callable = "relu") -> torch.Tensor:
    """The head with separate query/key matrices ``W_Q``, ``W_K`` of shape ``(d, k')``."""
    X = as_tensor(X, "X", ndim=2)
    W_Q = as_tensor(W_Q, "W_Q", ndim=2)
    W_K = as_tensor(W_K, "W_K", shape=tuple(W_Q.shape))
    if W_Q.shape[0] != X.shape[1]:
        raise ValueError(f"W_Q must have shape ({X.shape[1]}, k'), got {tuple(W_Q.shape)}")
    act = activation(sigma)
    W_v = as_tensor(W_v, "W_v", ndim=2)
    W_c = as_tensor(W_c, "W_c", ndim=2)
    scores = (X @ W_Q) @ (X @ W_K).T
    return act(torch.softmax(scores, dim=-1) @ X @ W_v) @ W_c


@refuses_overflow
def multi_head_layer(heads: Sequence[Any], X: Any, sigma: str | Callable = "relu") -> torch.Tensor:
    """Multi-head layer (Sec. 2.6): ``sum_h head_h(X)``, shape ``(T, d)``; ``heads`` is a list of
    :class:`Layer`."""
    if isinstance(heads, (str, bytes)) or not isinstance(heads, Sequence) or len(heads) == 0:
        raise TypeError("heads must be a non-empty sequence of Layer")
    X = as_tensor(X, "X", ndim=2)
    out = attention_head(heads[0], X, sigma)
    for h in heads[1:]:
        out = out + attention_head(h, X, sigma)
    return out


@refuses_overflow
def layer_f(params: Any, Z: Any) -> torch.Tensor:
    """``f(Z; W) = RowSoftmax(Z W_QK Z^T) Z W_v``, shape ``(T, k)`` for ``Z`` of shape ``(T, d)``."""
    Z = as_tensor(Z, "Z", ndim=2)
    p = _layer(params, Z.shape[1])
    return torch.softmax(Z @ p.W_QK @ Z.T, dim=-1) @ Z @ p.W_v


def block_layer(params: Any, Z: Any, sigma: str | Callable = "relu") -> torch.Tensor:
    """One block layer: ``Pi_norm(sigma(Pi_norm(f(Z; W))) W_c)``, shape ``(T, d)``."""
    Z = as_tensor(Z, "Z", ndim=2)
    p = _layer(params, Z.shape[1])
    act = activation(sigma)
    return proj_norm(act(proj_norm(layer_f(p, Z))) @ p.W_c)


@refuses_overflow
def block(layers: Sequence[Any], X: Any, sigma: str | Callable = "relu", *,
          return_all: bool = False) -> torch.Tensor | list[torch.Tensor]:
    """The ``L``-layer block ``g^(L+1)(X)``, shape ``(T, d)``; ``layers`` is a list of ``L`` :class:`Layer`.

    With ``return_all=True`` returns ``[g^(1) = X, g^(2), ..., g^(L+1)]``.
    ``L = 0`` (an empty list) is allowed and returns ``X``.
    """
    if isinstance(layers, (str, bytes)) or not isinstance(layers, Sequence):
        raise TypeError("layers must be a sequence of Layer")
    X = as_tensor(X, "X", ndim=2)
    outs = [X]
    for i, p in enumerate(layers):
        outs.append(block_layer(_layer(p, X.shape[1], f"layers[{i}]"), outs[-1], sigma))
    return outs if return_all else outs[-1]


@refuses_overflow
def scalar_output(layers: Sequence[Any], w: Any, X: Any, sigma: str | Callable = "relu", *,
                  cls_index: int = 0) -> torch.Tensor:
    """Scalar read-out (Sec. 2.6): ``w^T g^(L+1)(X)[cls_index]``, a 0-d tensor; ``w``: ``(d,)``.

    ``X`` has shape ``(T, d)`` and already contains the [CLS] token at row ``cls_index``.
    """
    X = as_tensor(X, "X", ndim=2)
    w = as_tensor(w, "w", shape=(X.shape[1],))
    if isinstance(cls_index, bool) or not isinstance(cls_index, (int, np.integer)):
        raise TypeError(f"cls_index must be an integer, got {cls_index!r}")
    if not -X.shape[0] <= int(cls_index) < X.shape[0]:
        raise ValueError(f"cls_index must index a row of X (T = {X.shape[0]}), got {cls_index}")
    return block(layers, X, sigma)[int(cls_index)] @ w


def random_layer(rng: np.random.Generator, d: int, k: int, *, B_qk: float = 1.0, B_v: float = 1.0,
                 B_c: float = 1.0) -> Layer:
    """A Gaussian layer rescaled to spectral norms exactly ``B_qk``, ``B_v``, ``B_c``."""
    rng = check_rng(rng)
    d, k = check_int(d, "d"), check_int(k, "k")
    out = []
    for shape, B, name in (((d, d), B_qk, "B_qk"), ((d, k), B_v, "B_v"), ((k, d), B_c, "B_c")):
        B = check_positive(B, name, allow_zero=True)
        M = rng.standard_normal(shape)
        out.append(torch.as_tensor(M * (B / np.linalg.norm(M, 2)), dtype=VERIFICATION_DTYPE))
    return Layer(*out)


def random_block(rng: np.random.Generator, L: int, d: int, k: int, **bounds: float) -> list[Layer]:
    """``L`` independent :func:`random_layer` draws."""
    rng, L = check_rng(rng), check_int(L, "L", minimum=0)
    return [random_layer(rng, d, k, **bounds) for _ in range(L)]


def parameter_count(d: int, k: int, *, L: int = 1, H: int = 1, k_qk: int | None = None,
                    T: int | None = None, printed_qk_shape: bool = False) -> int:
    """Number of trainable weights of an ``L``-layer, ``H``-head model plus the read-out ``w``.

    With ``k_qk`` given, ``W_Q``, ``W_K`` are counted separately as ``(d, k_qk)`` each; otherwise
    the combined ``W_QK`` (``d*d``).  ``printed_qk_shape=True`` uses the printed
    ``W_Q, W_K in R^{d x T}`` of Sec. 2.6 (needs ``T``), whose count grows with ``T``.
    """
    d, k, L, H = check_int(d, "d"), check_int(k, "k"), check_int(L, "L"), check_int(H, "H")
    printed_qk_shape = check_bool(printed_qk_shape, "printed_qk_shape")
    if T is not None:
        T = check_int(T, "T")
    if k_qk is not None:
        k_qk = check_int(k_qk, "k_qk")
    if printed_qk_shape:
        if T is None:
            raise ValueError("T is required when printed_qk_shape=True")
        qk = 2 * d * check_int(T, "T")
    elif k_qk is not None:
        qk = 2 * d * check_int(k_qk, "k_qk")
    else:
        qk = d * d
    return L * H * (qk + d * k + k * d) + d
