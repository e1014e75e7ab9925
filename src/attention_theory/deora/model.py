"""Deora et al.'s attention models (Eqs. 1-2), their risk, and Lemma 1's calculus (torch, float64).

Shapes (``T`` tokens, ``d`` features, ``H`` heads, ``n`` samples):

* ``X``: ``(T, d)``, rows are tokens ``x_t``;  ``W``: ``(d, d)``;  ``U``: ``(T, d)``, rows ``u_t``.
* multi-head ``Ws``: ``(H, d, d)``, ``Us``: ``(H, T, d)``.
* flat parameters ``theta``: ``(H * (T*d + d*d),)``, head ``h`` occupying one block
  ``concat(vec U_h, vec W_h)`` where ``vec`` is the row-major flattening
  (:func:`pack_heads` / :func:`unpack_heads`).

The score vector of query ``t`` is ``g_t = X W^T x_t`` (the ``t``-th row of ``X W X^T``),
``s_t = softmax(g_t)`` and ``phi'(v) = diag(phi(v)) - phi(v) phi(v)^T``.

Batched forward (the one home of Eq. (2) for every module of :mod:`attention_theory.deora`):
:func:`head_scores`, :func:`head_attention`, :func:`attention_readout`, :func:`multi_head_sum`,
:func:`multi_head_output` and :func:`multi_head_output_flat` take data ``Xs`` of shape
``(..., n, T, d)`` and parameters ``Ws`` ``(..., H, d, d)``, ``Us`` ``(..., H, T, d)`` (or flat
``thetas`` ``(..., H (T d + d^2))``) whose leading dimensions broadcast against each other;
:func:`multi_head_output_bmm` is the same forward evaluated with batched matrix products, for
the trainer of :mod:`attention_theory.deora.head_sweeps`.

The single-sample functions accept numpy arrays or tensors and compute in float64; the batched
forward takes tensors and keeps their dtype.  All are differentiable (no in-place operations),
so ``torch.func`` can be applied to them.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import torch

from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import (
    as_tensor,
    check_bool,
    check_callable,
    check_int,
    check_positive,
    check_seed,
    refuses_overflow,
)

__all__ = [
    "as_tensor",
    "attention_matrix",
    "softmax_jacobian_t",
    "single_head",
    "pooling_U",
    "last_token_U",
    "single_head_pooling",
    "single_head_last_token",
    "multi_head",
    "multi_head_loop",
    "head_scores",
    "head_attention",
    "attention_readout",
    "multi_head_sum",
    "multi_head_output",
    "multi_head_output_flat",
    "multi_head_output_bmm",
    "split_heads",
    "pack_heads",
    "unpack_heads",
    "head_size",
    "empirical_risk",
    "grad_U",
    "grad_W",
    "hvp_WU",
    "hvp_WW",
    "hessian_closed_form",
    "sample_bounded_tokens",
]


# ---------------------------------------------------------------------------
# Argument checks (shared by the Deora modules; private)
# ---------------------------------------------------------------------------


def _sum_is_finite(tensors: Sequence[torch.Tensor]) -> bool:
    """Whether the sum of all entries is finite (it is not when an entry is NaN or infinite; a
    finite sum that overflows is a false alarm, which the callers clear with an exact scan).
    One reduction per tensor and one read of a scalar: cheaper than an ``isfinite`` pass.  True
    inside ``vmap``, where no value can be read."""
    try:
        total = None
        for t in tensors:
            part = t.detach().sum()
            total = part if total is None else total + part
        return total is None or math.isfinite(float(total))
    except RuntimeError:  # data-dependent control flow inside vmap
        return True


def _raise_nonfinite(*named: tuple[str, torch.Tensor]) -> None:
    """``ValueError`` naming the first tensor with a NaN or infinite entry (an exact scan)."""
    for name, t in named:
        if not bool(torch.isfinite(t.detach()).all()):
            raise ValueError(f"{name} must contain only finite values")


def _check_finite(*named: tuple[str, torch.Tensor]) -> None:
    """``ValueError`` naming the first tensor with a NaN or infinite entry."""
    if not _sum_is_finite([t for _, t in named]):
        _raise_nonfinite(*named)


def _finite_inputs_of(out: torch.Tensor, *named: tuple[str, torch.Tensor]) -> torch.Tensor:
    """``out``, computed from the tensors ``named``, after a check that they are finite.

    Checks the (small) output instead of the inputs: in Eq. (2) every entry of ``Xs``, ``Ws``,
    ``Us`` (and of ``S`` in :func:`attention_readout`) enters each output it affects through
    products and sums, and an IEEE product with a NaN or an infinity is never finite (``0 * inf``
    is NaN; a row of scores with an infinite entry has a NaN softmax or puts weight on the
    infinite token), so a finite output certifies finite inputs.  A non-finite output triggers
    the exact scan; one from finite inputs (overflow) is returned as it is.
    """
    if not _sum_is_finite([out]):
        _raise_nonfinite(*named)
    return out


def _tensor_arg(x: Any, name: str) -> torch.Tensor:
    """O(1) checks of a tensor argument of the batched forward (whose dtype is kept): a real
    floating-point ``torch.Tensor`` with no zero-size dimension."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a real floating-point tensor, got dtype {x.dtype}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(x.shape)})")
    return x


def _same_dtype(*named: tuple[str, torch.Tensor]) -> None:
    first, ref = named[0]
    for name, t in named[1:]:
        if t.dtype != ref.dtype:
            raise TypeError(f"{name} must have the dtype of {first} ({ref.dtype}), got {t.dtype}")


def _broadcast_leading(*named: tuple[str, tuple[int, ...]]) -> None:
    """The leading (batch) dimensions of the arguments must broadcast against each other (numpy
    rules, as in ``einsum``'s ``...``; plain Python: ``torch.broadcast_shapes`` costs ~10 us)."""
    width = max(len(shape) for _, shape in named)
    for axis in range(1, width + 1):
        sizes = {shape[-axis] for _, shape in named if len(shape) >= axis} - {1}
        if len(sizes) > 1:
            got = ", ".join(f"{name} {tuple(shape)}" for name, shape in named)
            raise ValueError(f"the leading (batch) dimensions must broadcast, got {got}")


def _check_XW(X: Any, W: Any) -> tuple[torch.Tensor, torch.Tensor]:
    X = as_tensor(X, "X", ndim=2)
    d = X.shape[1]
    W = as_tensor(W, "W", shape=(d, d))
    return X, W


@refuses_overflow
def attention_matrix(X: Any, W: Any) -> torch.Tensor:
    """``phi(X W X^T)``, row-wise softmax, shape ``(T, T)``; row ``t`` is ``s_t = phi(X W^T x_t)``."""
    X, W = _check_XW(X, W)
    return torch.softmax(X @ W @ X.T, dim=-1)


def softmax_jacobian_t(v: torch.Tensor) -> torch.Tensor:
    """Torch version of ``phi'(v) = diag(phi(v)) - phi(v) phi(v)^T`` for ``v`` of shape ``(..., T)``.

    ``v``: a real floating-point tensor (its dtype is kept).  Returns ``(..., T, T)``; reuses no
    numpy so it is differentiable.
    """
    v = _tensor_arg(v, "v")
    if v.dim() < 1:
        raise ValueError("v must have shape (..., T), got a 0-d tensor")
    _check_finite(("v", v))
    return _softmax_jacobian(v)


def _softmax_jacobian(v: torch.Tensor) -> torch.Tensor:
    s = torch.softmax(v, dim=-1)
    return torch.diag_embed(s) - s.unsqueeze(-1) * s.unsqueeze(-2)


def single_head(X: Any, W: Any, U: Any) -> torch.Tensor:
    """Eq. (1): ``Phi(X; W, U) = <U, phi(X W X^T) X>``, a 0-d tensor.

    ``X``: ``(T, d)``, ``W``: ``(d, d)``, ``U``: ``(T, d)`` (full projection).
    """
    X, W = _check_XW(X, W)
    U = as_tensor(U, "U", shape=tuple(X.shape))
    # plain matrix products, independent of the batched forward below: multi_head_loop, the
    # reference that checks compare multi_head with, is built on this function
    return torch.sum(U * (attention_matrix(X, W) @ X))


def pooling_U(u: Any, T: int) -> torch.Tensor:
    """Pooling variant (ii): ``U = 1_T u^T``, shape ``(T, d)`` from ``u`` of shape ``(d,)``."""
    u = as_tensor(u, "u", ndim=1)
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}")
    return torch.ones(int(T), 1, dtype=VERIFICATION_DTYPE) * u.unsqueeze(0)


def last_token_U(u: Any, T: int) -> torch.Tensor:
    """Last-token variant (iii): ``U = [0_{d x (T-1)}  u]^T``, shape ``(T, d)``."""
    u = as_tensor(u, "u", ndim=1)
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}")
    return torch.cat([torch.zeros(int(T) - 1, u.shape[0], dtype=VERIFICATION_DTYPE), u.unsqueeze(0)], dim=0)


@refuses_overflow
def single_head_pooling(X: Any, W: Any, u: Any) -> torch.Tensor:
    """``Phi_pool = u^T X^T phi(X W X^T)^T 1_T`` (variant (ii)); ``u``: ``(d,)``."""
    X, W = _check_XW(X, W)
    u = as_tensor(u, "u", shape=(X.shape[1],))
    return single_head(X, W, pooling_U(u, X.shape[0]))


@refuses_overflow
def single_head_last_token(X: Any, W: Any, u: Any) -> torch.Tensor:
    """``Phi_last = u^T X^T phi(X W^T x_T)`` (variant (iii)); ``u``: ``(d,)``."""
    X, W = _check_XW(X, W)
    u = as_tensor(u, "u", shape=(X.shape[1],))
    return single_head(X, W, last_token_U(u, X.shape[0]))


def _check_heads(X: Any, Ws: Any, Us: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    X = as_tensor(X, "X", ndim=2)
    T, d = X.shape
    Ws = as_tensor(Ws, "Ws", shape=(None, d, d))
    Us = as_tensor(Us, "Us", shape=(Ws.shape[0], T, d))
    return X, Ws, Us


@refuses_overflow
def multi_head(X: Any, Ws: Any, Us: Any) -> torch.Tensor:
    """Eq. (2), vectorized over heads: ``(1/sqrt(H)) sum_h <U_h, phi(X W_h X^T) X>`` (0-d tensor).

    ``X``: ``(T, d)``; ``Ws``: ``(H, d, d)``; ``Us``: ``(H, T, d)``.  One sample of
    :func:`multi_head_output`, with the inputs validated and converted to float64.
    """
    X, Ws, Us = _check_heads(X, Ws, Us)
    return _multi_head_output(X.unsqueeze(0), Ws, Us)[0]


@refuses_overflow
def multi_head_loop(X: Any, Ws: Any, Us: Any) -> torch.Tensor:
    """Reference implementation of Eq. (2): an explicit Python loop over heads.

    Independent of :func:`multi_head_output` on purpose (it sums :func:`single_head`, plain
    matrix products): ``check_eq2_vectorized`` compares the two.
    """
    X, Ws, Us = _check_heads(X, Ws, Us)
    H = Ws.shape[0]
    total = torch.zeros((), dtype=VERIFICATION_DTYPE)
    for h in range(H):
        total = total + single_head(X, Ws[h], Us[h])
    return total / math.sqrt(H)


def head_size(T: int, d: int) -> int:
    """Number of parameters of one head, ``T d + d^2`` (``T``, ``d`` positive integers)."""
    T, d = check_int(T, "T"), check_int(d, "d")
    return T * d + d * d


def pack_heads(Us: Any, Ws: Any) -> torch.Tensor:
    """``theta = concat_h(vec U_h, vec W_h)``, shape ``(H (T d + d^2),)`` (row-major ``vec``)."""
    Us = as_tensor(Us, "Us", ndim=3)
    H, T, d = Us.shape
    Ws = as_tensor(Ws, "Ws", shape=(H, d, d))
    return torch.cat([Us.reshape(H, T * d), Ws.reshape(H, d * d)], dim=1).reshape(-1)


def unpack_heads(theta: Any, H: int, T: int, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inverse of :func:`pack_heads`: returns ``(Us (H, T, d), Ws (H, d, d))``."""
    for name, v in (("H", H), ("T", T), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
        if v < 1:
            raise ValueError(f"{name} must be >= 1, got {v}")
    theta = as_tensor(theta, "theta", ndim=1)
    p = head_size(T, d)
    if theta.shape[0] != H * p:
        raise ValueError(f"theta must have H (T d + d^2) = {H * p} entries, got {theta.shape[0]}")
    return _split_heads(theta, H, T, d)


@refuses_overflow
def empirical_risk(theta: Any, Xs: Any, ys: Any, H: int) -> torch.Tensor:
    """Logistic empirical risk ``(1/n) sum_i log(1 + exp(-y_i Phi~(X_i; theta)))`` (0-d tensor).

    ``theta``: flat ``(H (T d + d^2),)``; ``Xs``: ``(n, T, d)``; ``ys``: ``(n,)`` in ``{-1, +1}``.
    Uses ``softplus`` so large margins neither overflow nor lose precision.
    """
    Xs = as_tensor(Xs, "Xs", ndim=3)
    n, T, d = Xs.shape
    ys = as_tensor(ys, "ys", shape=(n,))
    if not bool(torch.all((ys == 1) | (ys == -1))):
        raise ValueError("ys must contain only -1 and +1")
    Us, Ws = unpack_heads(theta, H, T, d)
    out = _multi_head_output(Xs, Ws, Us)
    return torch.nn.functional.softplus(-ys * out).mean()


# ---------------------------------------------------------------------------
# Eq. (2), batched: the one forward of the package
# ---------------------------------------------------------------------------


_NO_US = object()  # head_scores/head_attention take no Us (None is a wrong Us, not a missing one)


def _check_batch(Xs: Any, Ws: Any, Us: Any = _NO_US) -> None:
    """O(1) checks of the batched forward: real floating tensors of one dtype, shapes ``Xs``
    ``(..., n, T, d)``, ``Ws`` ``(..., H, d, d)``, ``Us`` ``(..., H, T, d)`` whose leading
    dimensions broadcast, no empty tensor (finiteness is checked by the callers)."""
    named = [("Xs", _tensor_arg(Xs, "Xs")), ("Ws", _tensor_arg(Ws, "Ws"))]
    if Us is not _NO_US:
        named.append(("Us", _tensor_arg(Us, "Us")))
    if Xs.dim() < 3:
        raise ValueError(f"Xs must have shape (..., n, T, d), got {tuple(Xs.shape)}")
    T, d = Xs.shape[-2:]
    if Ws.dim() < 3 or tuple(Ws.shape[-2:]) != (d, d):
        raise ValueError(f"Ws must have shape (..., H, {d}, {d}), got {tuple(Ws.shape)}")
    if Us is not _NO_US and (Us.dim() < 3 or tuple(Us.shape[-3:]) != (Ws.shape[-3], T, d)):
        raise ValueError(f"Us must have shape (..., {Ws.shape[-3]}, {T}, {d}), got {tuple(Us.shape)}")
    _same_dtype(*named)
    _broadcast_leading(*((name, tuple(t.shape[:-3])) for name, t in named))


@refuses_overflow
def head_scores(Xs: torch.Tensor, Ws: torch.Tensor) -> torch.Tensor:
    """Attention scores ``X_i W_h X_i^T`` of every head on every sample (Deora et al., Eq. (2)).

    ``Xs``: ``(..., n, T, d)``; ``Ws``: ``(..., H, d, d)``; the leading dimensions ``...`` of the
    two broadcast (e.g. data ``(n, T, d)`` against ``m`` parameter points ``(m, H, d, d)``).
    Returns ``(..., n, H, T, T)``; row ``t`` of ``[..., i, h]`` is ``g_t = X_i W_h^T x_{i,t}``.
    One ``einsum``, left to right, in the dtype of the inputs.  Used by every chapter of
    ``book/deora/`` through :func:`head_attention`; ``book/deora/attention-margin.md`` uses the
    scores themselves (score gap, Eq. (129)).
    """
    _check_batch(Xs, Ws)
    _check_finite(("Xs", Xs), ("Ws", Ws))
    return _head_scores(Xs, Ws)


def _head_scores(Xs: torch.Tensor, Ws: torch.Tensor) -> torch.Tensor:
    return torch.einsum("...ntd,...hde,...nse->...nhts", Xs, Ws, Xs)


@refuses_overflow
def head_attention(Xs: torch.Tensor, Ws: torch.Tensor) -> torch.Tensor:
    """Row-wise softmax attention ``phi(X_i W_h X_i^T)`` of every head (Deora et al., Eq. (2)).

    Shapes as :func:`head_scores`: ``Xs`` ``(..., n, T, d)``, ``Ws`` ``(..., H, d, d)``, returns
    ``(..., n, H, T, T)`` whose rows ``s_t`` sum to one.  Chapter ``book/deora/model-and-calculus.md``.
    """
    _check_batch(Xs, Ws)
    _check_finite(("Xs", Xs), ("Ws", Ws))
    return _head_attention(Xs, Ws)


def _head_attention(Xs: torch.Tensor, Ws: torch.Tensor) -> torch.Tensor:
    return torch.softmax(_head_scores(Xs, Ws), dim=-1)


def _check_readout(S: Any, Xs: Any, Us: Any) -> None:
    """Checks of :func:`attention_readout`; a dimension of size 1 broadcasts, as in ``einsum``."""
    args = {"S": _tensor_arg(S, "S"), "Xs": _tensor_arg(Xs, "Xs"), "Us": _tensor_arg(Us, "Us")}
    for name, want in (("S", "(..., n, H, T, T)"), ("Xs", "(..., n, T, d)"), ("Us", "(..., H, T, d)")):
        if args[name].dim() < len(want.split(",")) - 1:
            raise ValueError(f"{name} must have shape {want}, got {tuple(args[name].shape)}")
    # the letters of "...nhts,...nsd,...htd->...n": (size name, (argument, axis), (argument, axis))
    for what, (a, i), (b, j) in (("n", ("S", -4), ("Xs", -3)), ("H", ("S", -3), ("Us", -3)),
                                 ("T", ("S", -2), ("Us", -2)), ("T", ("S", -1), ("Xs", -2)),
                                 ("d", ("Xs", -1), ("Us", -1))):
        sa, sb = args[a].shape[i], args[b].shape[j]
        if sa != sb and 1 not in (sa, sb):
            raise ValueError(f"{a} {tuple(args[a].shape)} and {b} {tuple(args[b].shape)} disagree on "
                             f"{what} ({sa} vs {sb})")
    _same_dtype(*args.items())
    _broadcast_leading(("S", tuple(S.shape[:-4])), ("Xs", tuple(Xs.shape[:-3])), ("Us", tuple(Us.shape[:-3])))


def attention_readout(S: torch.Tensor, Xs: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    """Linear decoder of Eq. (2) applied to given attention: ``sum_h <U_h, S_{i,h} X_i>``, no ``1/sqrt(H)``.

    ``S``: ``(..., n, H, T, T)`` (e.g. :func:`head_attention`, or a softmax of rescaled scores);
    ``Xs``: ``(..., n, T, d)``; ``Us``: ``(..., H, T, d)``; returns ``(..., n)``.
    ``book/deora/attention-margin.md`` applies it to saturated attention (Proposition 3).
    """
    _check_readout(S, Xs, Us)
    return _finite_inputs_of(_attention_readout(S, Xs, Us), ("S", S), ("Xs", Xs), ("Us", Us))


def _attention_readout(S: torch.Tensor, Xs: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    return torch.einsum("...nhts,...nsd,...htd->...n", S, Xs, Us)


@refuses_overflow
def multi_head_sum(Xs: torch.Tensor, Ws: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    """Unnormalized Eq. (2): ``sum_h <U_h, phi(X_i W_h X_i^T) X_i>`` for every sample, ``(..., n)``.

    ``Xs``: ``(..., n, T, d)``; ``Ws``: ``(..., H, d, d)``; ``Us``: ``(..., H, T, d)``; leading
    dimensions broadcast.  With ``H = 1`` this is the single-head model of Eq. (1).  The output
    scaling is left to the caller: ``book/deora/model-and-calculus.md`` (output variance) varies it.
    """
    _check_batch(Xs, Ws, Us)
    return _finite_inputs_of(_multi_head_sum(Xs, Ws, Us), ("Xs", Xs), ("Ws", Ws), ("Us", Us))


def _multi_head_sum(Xs: torch.Tensor, Ws: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    return _attention_readout(_head_attention(Xs, Ws), Xs, Us)


@refuses_overflow
def multi_head_output(Xs: torch.Tensor, Ws: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    """Deora et al., Eq. (2): ``Phi~(X_i; theta) = (1/sqrt(H)) sum_h <U_h, phi(X_i W_h X_i^T) X_i>``.

    ``Xs``: data ``(..., n, T, d)``; ``Ws``: ``(..., H, d, d)``; ``Us``: ``(..., H, T, d)``; the
    leading dimensions of data and parameters broadcast (one data set against many parameter
    points, or one data set per parameter point).  Returns ``(..., n)`` in the dtype of the
    inputs.  Every chapter of ``book/deora/`` evaluates the model through it
    (``model-and-calculus.md``, ``landscape.md``, ``training.md``, ``stability.md``, ...).
    """
    _check_batch(Xs, Ws, Us)
    return _finite_inputs_of(_multi_head_output(Xs, Ws, Us), ("Xs", Xs), ("Ws", Ws), ("Us", Us))


def _multi_head_output(Xs: torch.Tensor, Ws: torch.Tensor, Us: torch.Tensor) -> torch.Tensor:
    return _multi_head_sum(Xs, Ws, Us) / math.sqrt(Ws.shape[-3])


def _check_flat(thetas: Any, H: Any, T: Any, d: Any) -> int:
    """``thetas`` a real floating tensor ``(..., H (T d + d^2))``; returns ``H``."""
    H = check_int(H, "H")
    p = head_size(T, d)
    _tensor_arg(thetas, "thetas")
    if thetas.dim() < 1 or thetas.shape[-1] != H * p:
        raise ValueError(f"thetas must have shape (..., H (T d + d^2)) = (..., {H * p}), "
                         f"got {tuple(thetas.shape)}")
    return H


def split_heads(thetas: torch.Tensor, H: int, T: int, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Batched :func:`unpack_heads`: ``(..., H (T d + d^2))`` to ``(Us (..., H, T, d), Ws (..., H, d, d))``,
    the layout of :func:`pack_heads` (reshapes of ``thetas``, in its dtype)."""
    H = _check_flat(thetas, H, T, d)
    _check_finite(("thetas", thetas))
    return _split_heads(thetas, H, T, d)


def _split_heads(thetas: torch.Tensor, H: int, T: int, d: int) -> tuple[torch.Tensor, torch.Tensor]:
    lead = tuple(thetas.shape[:-1])
    blocks = thetas.reshape(*lead, H, head_size(T, d))
    return blocks[..., :T * d].reshape(*lead, H, T, d), blocks[..., T * d:].reshape(*lead, H, d, d)


@refuses_overflow
def multi_head_output_flat(thetas: torch.Tensor, Xs: torch.Tensor, H: int) -> torch.Tensor:
    """Eq. (2) at flat parameter vectors: :func:`multi_head_output` after :func:`split_heads`.

    ``thetas``: ``(..., H (T d + d^2))``; ``Xs``: ``(..., n, T, d)``; returns ``(..., n)``.
    Used by the risk of many parameter points at once (``book/deora/landscape.md``,
    ``book/deora/stability.md``) and by the NTK features (``book/deora/ntk-margin.md``).
    """
    _tensor_arg(Xs, "Xs")
    if Xs.dim() < 3:
        raise ValueError(f"Xs must have shape (..., n, T, d), got {tuple(Xs.shape)}")
    T, d = Xs.shape[-2:]
    H = _check_flat(thetas, H, T, d)
    _same_dtype(("thetas", thetas), ("Xs", Xs))
    _broadcast_leading(("thetas", tuple(thetas.shape[:-1])), ("Xs", tuple(Xs.shape[:-3])))
    Us, Ws = _split_heads(thetas, H, T, d)
    return _finite_inputs_of(_multi_head_output(Xs, Ws, Us), ("thetas", thetas), ("Xs", Xs))


@refuses_overflow
def multi_head_output_bmm(Xs: torch.Tensor, Ws: torch.Tensor,
                          Us: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (2) as :func:`multi_head_output`, evaluated with batched matrix products; also returns the
    attention.

    ``Xs``: ``(..., n, T, d)``; ``Ws``: ``(..., H, d, d)``; ``Us``: ``(..., H, T, d)``.  Returns
    ``(outputs (..., n), attention (..., n, H, T, T))``.  Equal to :func:`multi_head_output` and
    :func:`head_attention` up to round-off; on the trainer's stacks of trials (``(B, n, T, d)``
    against ``(B, H, d, d)``) forward plus backward are about 1.4x faster than the three-operand
    ``einsum``.  The trainer of ``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``
    (:mod:`attention_theory.deora.head_sweeps`) uses it (validating its data once, not per step).
    """
    _check_batch(Xs, Ws, Us)
    out, S = multi_head_output_bmm_unchecked(Xs, Ws, Us)
    return _finite_inputs_of(out, ("Xs", Xs), ("Ws", Ws), ("Us", Us)), S


def multi_head_output_bmm_unchecked(Xs: torch.Tensor, Ws: torch.Tensor,
                           Us: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    Xh = Xs.unsqueeze(-3)  # (..., n, 1, T, d), broadcast over heads
    S = torch.softmax(torch.einsum("...ntd,...hde->...nhte", Xs, Ws) @ Xh.transpose(-1, -2), dim=-1)
    out = ((S @ Xh) * Us.unsqueeze(-4)).sum(dim=(-3, -2, -1)) / math.sqrt(Ws.shape[-3])
    return out, S


# ---------------------------------------------------------------------------
# Lemma 1 (alias Lemma 4) closed forms
# ---------------------------------------------------------------------------

Jacobian = Callable[[torch.Tensor], torch.Tensor]


def _scores(X: torch.Tensor, W: torch.Tensor, transpose: bool = True) -> torch.Tensor:
    """``G[t] = g_t = X W^T x_t`` (``transpose=True``, the paper) or ``X W x_t``; shape ``(T, T)``."""
    return X @ W @ X.T if transpose else X @ W.T @ X.T


@refuses_overflow
def grad_U(X: Any, W: Any) -> torch.Tensor:
    """Lemma 1 item 1: ``grad_U Phi = phi(X W X^T) X``, shape ``(T, d)``."""
    X, W = _check_XW(X, W)
    return attention_matrix(X, W) @ X


def _jacobian_fn(jacobian: Any) -> Jacobian:
    """The ``jacobian`` argument of the closed forms (the default skips the checks of its input)."""
    check_callable(jacobian, "jacobian")
    return _softmax_jacobian if jacobian is softmax_jacobian_t else jacobian


@refuses_overflow
def grad_W(X: Any, W: Any, U: Any, *, jacobian: Jacobian = softmax_jacobian_t,
           transpose: bool = True) -> torch.Tensor:
    """Lemma 1 item 2: ``grad_W Phi = sum_t x_t u_t^T X^T phi'(g_t) X``, shape ``(d, d)``.

    ``jacobian`` and ``transpose`` (``g_t = X W^T x_t`` when True, ``X W x_t``
    otherwise) exist so that checks can evaluate wrong variants of the formula.
    """
    X, W = _check_XW(X, W)
    U = as_tensor(U, "U", shape=tuple(X.shape))
    jac = _jacobian_fn(jacobian)
    transpose = check_bool(transpose, "transpose")
    G = _scores(X, W, transpose)                       # (T, T), row t = g_t
    J = jac(G)                                         # (T, T, T), J[t] = phi'(g_t)
    Z = U @ X.T                                        # (T, T), row t = (X u_t)^T
    return torch.einsum("ti,tk,tkl,lj->ij", X, Z, J, X)


@refuses_overflow
def hvp_WU(X: Any, W: Any, a: Any, b: Any, *, jacobian: Jacobian = softmax_jacobian_t) -> torch.Tensor:
    """Lemma 1 item 3: ``grad_W <a, grad_U Phi b> = sum_t a_t x_t b^T X^T phi'(g_t) X``, ``(d, d)``.

    ``a``: ``(T,)``, ``b``: ``(d,)``.  Equals the mixed Hessian applied to ``a b^T``.
    """
    X, W = _check_XW(X, W)
    T, d = X.shape
    a = as_tensor(a, "a", shape=(T,))
    b = as_tensor(b, "b", shape=(d,))
    J = _jacobian_fn(jacobian)(X @ W @ X.T)
    return torch.einsum("t,ti,k,tkl,lj->ij", a, X, X @ b, J, X)


@refuses_overflow
def hvp_WW(X: Any, W: Any, U: Any, c: Any, b: Any, *, jacobian: Jacobian = softmax_jacobian_t,
           terms: tuple[bool, bool, bool] = (True, True, True)) -> torch.Tensor:
    """Lemma 1 item 4: ``grad_W <c, grad_W Phi b> = sum_t (c^T x_t) x_t d_t^T phi'(g_t) X``, ``(d, d)``.

    ``d_t = diag(X b) X u_t - (s_t^T X b) X u_t - (s_t^T X u_t) X b``.  ``terms`` switches
    the three terms of ``d_t`` on or off (for negative controls).
    """
    X, W = _check_XW(X, W)
    T, d = X.shape
    U = as_tensor(U, "U", shape=(T, d))
    c = as_tensor(c, "c", shape=(d,))
    b = as_tensor(b, "b", shape=(d,))
    jac = _jacobian_fn(jacobian)
    if isinstance(terms, (str, bytes)) or not isinstance(terms, Sequence) or len(terms) != 3:
        raise TypeError(f"terms must be a tuple of three booleans, got {terms!r}")
    terms = tuple(check_bool(t, "terms") for t in terms)
    G = X @ W @ X.T
    S = torch.softmax(G, dim=-1)                       # (T, T), row t = s_t
    J = jac(G)
    Z = U @ X.T                                        # row t = X u_t
    xb = X @ b                                         # (T,)
    D = torch.zeros_like(Z)
    if terms[0]:
        D = D + xb.unsqueeze(0) * Z
    if terms[1]:
        D = D - (S @ xb).unsqueeze(1) * Z
    if terms[2]:
        D = D - (S * Z).sum(1, keepdim=True) * xb.unsqueeze(0)
    return torch.einsum("t,ti,tk,tkl,lj->ij", X @ c, X, D, J, X)


@refuses_overflow
def hessian_closed_form(X: Any, W: Any, U: Any) -> torch.Tensor:
    """Full Hessian of ``Phi`` in ``theta = concat(vec U, vec W)`` from Eqs. (47)-(51).

    Shape ``(T d + d^2, T d + d^2)``.  Blocks: ``UU = 0`` (47);
    ``d^2 Phi / dW dU_{tj} = x_t X_{:,j}^T phi'(g_t) X`` (48);
    ``d^2 Phi / dW dW_{ij} = sum_t X_{ti} x_t r_{tj}^T`` (50) with
    ``r_{tj}^T = (u_t^T X^T diag(X_{:,j}) - (s_t^T X_{:,j}) u_t^T X^T - (s_t^T X u_t) X_{:,j}^T) phi'(g_t)
    X``.
    """
    X, W = _check_XW(X, W)
    T, d = X.shape
    U = as_tensor(U, "U", shape=(T, d))
    G = X @ W @ X.T
    S = torch.softmax(G, dim=-1)
    J = _softmax_jacobian(G)                           # (T, T, T)
    Z = U @ X.T                                        # (T, T): Z[t] = X u_t
    # (48): HUW[t, j, k, l] = x_t[k] * (X_{:,j}^T phi'(g_t) X)[l]
    XJX = torch.einsum("mj,tmn,nl->tjl", X, J, X)      # (T, d, d)
    HUW = torch.einsum("tk,tjl->tjkl", X, XJX).reshape(T * d, d * d)
    # (50): e_{tj} = Z_t * X_{:,j} - (s_t . X_{:,j}) Z_t - (s_t . Z_t) X_{:,j}, shape (T, d, T)
    E = (Z.unsqueeze(1) * X.T.unsqueeze(0)
         - (S @ X).unsqueeze(2) * Z.unsqueeze(1)
         - (S * Z).sum(1).reshape(T, 1, 1) * X.T.unsqueeze(0))
    Rm = torch.einsum("tjm,tmn,nl->tjl", E, J, X)      # r_{tj}, (T, d, d)
    HWW = torch.einsum("ti,tk,tjl->ijkl", X, X, Rm).reshape(d * d, d * d)
    top = torch.cat([torch.zeros(T * d, T * d, dtype=VERIFICATION_DTYPE), HUW], dim=1)
    bottom = torch.cat([HUW.T, HWW], dim=1)
    return torch.cat([top, bottom], dim=0)


# ---------------------------------------------------------------------------
# Data satisfying Assumption 1
# ---------------------------------------------------------------------------


def sample_bounded_tokens(n: int, T: int, d: int, R: float, *, seed: int = 0,
                          radius_factor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Fixture ``F-rand``: ``Xs`` ``(n, T, d)`` with every token ``||x_t|| <= R``, labels ``(n,)``.

    Gaussian tokens are rescaled by ``R / max_t ||x_t||`` times a uniform factor
    in ``(0, 1]``, so some sample attains ``R`` closely.  ``radius_factor`` multiplies
    the radius (``> 1`` breaks Assumption 1; used by the negative control).
    """
    for name, v in (("n", n), ("T", T), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
        if v < 1:
            raise ValueError(f"{name} must be >= 1, got {v}")
    if isinstance(R, bool) or not isinstance(R, (int, float, np.floating)) or not math.isfinite(R) or R <= 0:
        raise ValueError(f"R must be a finite positive number, got {R!r}")
    check_seed(seed, "seed")
    check_positive(radius_factor, "radius_factor")
    rng = np.random.default_rng(seed)
    Xs = rng.standard_normal((n, T, d))
    norms = np.linalg.norm(Xs, axis=2)
    scale = R * radius_factor * rng.uniform(0.0, 1.0, size=(n, 1, 1)) ** 0.1 / norms.max(1)[:, None, None]
    Xs = Xs * scale
    ys = rng.choice([-1.0, 1.0], size=n)
    return Xs, ys
