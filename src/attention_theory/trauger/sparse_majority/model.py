"""The sparse-majority Transformer of Trauger & Tewari, Sec. 6: one multi-head attention
layer read out at ``[CLS]`` into 2 logits.

Parameters are a plain dict of tensors (pure-function style) so that many runs can be
*stacked* along leading dimensions and trained at once:

=======  ===============  ==============================================
key      shape            role
=======  ===============  ==============================================
``Wq``   ``(*B, d, d)``   query projection, ``q = x Wq^T + bq``
``bq``   ``(*B, d)``      query bias
``Wk``   ``(*B, d, d)``   key projection
``bk``   ``(*B, d)``      key bias
``Wv``   ``(*B, d, d)``   value projection
``bv``   ``(*B, d)``      value bias
``Wo``   ``(*B, d, d)``   output projection of the concatenated heads
``bo``   ``(*B, d)``      output bias
``Wc``   ``(*B, 2, d)``   read-out of the ``[CLS]`` output into 2 logits
``bc``   ``(*B, 2)``      read-out bias
=======  ===============  ==============================================

``*B`` is any number of leading "run" dimensions (none for a single model).  Heads split
the ``d`` features into ``heads`` blocks of ``d / heads``; attention logits are scaled by
``1 / sqrt(d / heads)``.  This is the layout of ``torch.nn.MultiheadAttention`` (and of
Keras' ``MultiHeadAttention`` with ``key_dim = d / heads``), with biases, as in the paper.

Two forwards compute the same function:

* :func:`logits_dense` on embedded inputs ``X`` of shape ``(*B, n, L, d)`` (the textbook
  formula, used as the reference);
* :func:`logits` on tokens ``(*B, n, L)``.  Because the symbols take only 3 values and the
  projections are linear, it projects the 3 symbol vectors and the ``L`` position vectors
  once and *gathers*, instead of projecting all ``n L`` inputs; and because only the
  ``[CLS]`` output is read, only the ``[CLS]`` query is formed.  Cost ``O(n L d)`` instead
  of ``O(n L d^2)``.  Padded positions (token :data:`~attention_theory.trauger.sparse_majority.data.PAD`)
  are masked out of the softmax, so runs of different lengths can share one batch.
"""

from __future__ import annotations

import math
from typing import Mapping

import torch

from attention_theory.trauger._args import check_float_tensor, check_int_tensor, check_sequence
from attention_theory.trauger.sparse_majority.data import (
    CLS,
    PAD,
    positional_encoding,
    token_embeddings,
)
from attention_theory.validation import check_bool, check_int, check_seed, refuses_overflow, torch_generator

__all__ = [
    "PARAM_NAMES",
    "init_params",
    "stack_params",
    "param_count",
    "logits",
    "logits_dense",
    "cross_entropy",
    "accuracy",
    "weight_l1",
    "to_torch_modules",
]

PARAM_NAMES = ("Wq", "bq", "Wk", "bk", "Wv", "bv", "Wo", "bo", "Wc", "bc")
_BIASES = ("bq", "bk", "bv", "bo", "bc")


def init_params(d: int = 64, *, seed: int, n_classes: int = 2,
                dtype: torch.dtype = torch.float32) -> dict[str, torch.Tensor]:
    """Glorot-uniform weights and zero biases (the Keras defaults), seeded.

    Each weight matrix ``W`` of shape ``(out, in)`` is drawn from
    ``U(-a, a)`` with ``a = sqrt(6 / (in + out))``.
    """
    d = check_int(d, "d", minimum=2)
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    seed = check_seed(seed)
    g = torch_generator(seed)

    def glorot(out: int, inp: int) -> torch.Tensor:
        a = math.sqrt(6.0 / (inp + out))
        return ((torch.rand(out, inp, generator=g, dtype=torch.float64) * 2 - 1) * a).to(dtype)

    p = {}
    for name in ("q", "k", "v", "o"):
        p[f"W{name}"] = glorot(d, d)
        p[f"b{name}"] = torch.zeros(d, dtype=dtype)
    p["Wc"] = glorot(n_classes, d)
    p["bc"] = torch.zeros(n_classes, dtype=dtype)
    return {k: p[k] for k in PARAM_NAMES}


def check_params(params: Mapping[str, torch.Tensor], name: str = "params") -> tuple[int, tuple[int, ...]]:
    if not isinstance(params, Mapping):
        raise TypeError(f"{name} must be a mapping of tensors, got {type(params).__name__}")
    missing = [k for k in PARAM_NAMES if k not in params]
    if missing:
        raise ValueError(f"{name} lacks {missing}")
    Wq = params["Wq"]
    if not isinstance(Wq, torch.Tensor) or Wq.ndim < 2 or Wq.shape[-1] != Wq.shape[-2]:
        raise ValueError(f"{name}['Wq'] must be a tensor of shape (*B, d, d)")
    return Wq.shape[-1], tuple(Wq.shape[:-2])


def stack_params(runs: list[Mapping[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """Stack single-run parameter dicts along a new leading run dimension."""
    check_sequence(runs, "runs")
    for i, r in enumerate(runs):
        check_params(r, f"runs[{i}]")
    return {k: torch.stack([r[k] for r in runs]) for k in PARAM_NAMES}


def param_count(params: Mapping[str, torch.Tensor]) -> int:
    """Number of trainable scalars of one model (leading run dimensions are not counted)."""
    d, batch = check_params(params)
    nb = math.prod(batch)
    return sum(params[k].numel() for k in PARAM_NAMES) // nb


def _heads(d: int, heads: int) -> int:
    heads = check_int(heads, "heads", minimum=1)
    if d % heads:
        raise ValueError(f"heads must divide d={d}, got heads={heads}")
    return d // heads


def logits(params: Mapping[str, torch.Tensor], tokens: torch.Tensor, *,
           heads: int = 2, shared_padding: bool | None = None,
           validate: bool = True) -> torch.Tensor:
    """Logits ``(*B, n, 2)`` of token sequences ``(*B, n, L)``.

    Position 0 must hold :data:`CLS` and the other positions 0, 1 or :data:`PAD` (masked).
    ``shared_padding``: ``True`` if all samples of a run have the same padded positions (the
    mask is then applied once per run), ``False`` for a per-sample mask, ``None`` to detect.
    Under ``torch.func.vmap`` pass ``shared_padding=False, validate=False`` (no data-dependent
    control flow).
    """
    d, B = check_params(params)
    dh = _heads(d, heads)
    if shared_padding is not None:
        check_bool(shared_padding, "shared_padding")
    check_bool(validate, "validate")
    if not isinstance(tokens, torch.Tensor) or tokens.dtype not in (torch.int64, torch.int32,
                                                                    torch.uint8, torch.int16):
        raise TypeError("tokens must be an integer tensor of shape (*B, n, L)")
    if tokens.ndim != len(B) + 2 or tuple(tokens.shape[:len(B)]) != B:
        raise ValueError(f"tokens must have shape {(*B, 'n', 'L')}, got {tuple(tokens.shape)}")
    if validate and (not bool((tokens[..., 0] == CLS).all())
                     or bool((tokens[..., 1:] == CLS).any())):
        raise ValueError("tokens must hold CLS at position 0 and only there")
    n, L = tokens.shape[-2:]
    dt = params["Wq"].dtype
    E = token_embeddings(d, dtype=dt)                                              # rows 0, 1, CLS
    PE = positional_encoding(L, d, dtype=dt).to(params["Wq"].device)
    E = E.to(PE.device)
    x0 = E[CLS] + PE[0]
    scale = 1.0 / math.sqrt(dh)

    # Only the [CLS] query matters; keys split into a symbol part and a position part.
    q = torch.einsum("...ed,d->...e", params["Wq"], x0) + params["bq"]            # (*B, d)
    qh = q.reshape(*B, heads, dh)
    EK = torch.einsum("...ed,cd->...ce", params["Wk"], E).reshape(*B, 3, heads, dh)
    PK = (torch.einsum("...ed,td->...te", params["Wk"], PE)
          + params["bk"][..., None, :]).reshape(*B, L, heads, dh)
    a = torch.einsum("...chk,...hk->...hc", EK, qh) * scale                      # (*B, h, 3)
    b = torch.einsum("...thk,...hk->...ht", PK, qh) * scale                      # (*B, h, L)
    # score[n, h, t] = a[h, tok[n, t]] + b[h, t], written without a gather: position 0 holds
    # [CLS], every other position holds 0 or 1, PAD positions get -inf.
    base = torch.cat([b[..., :1] + a[..., 2:3], b[..., 1:] + a[..., 0:1]], dim=-1)  # (*B, h, L)
    delta = (a[..., 1] - a[..., 0])[..., None, :, None]                           # (*B, 1, h, 1)
    one = (tokens == 1).to(dt)[..., None, :]                                       # (*B, n, 1, L)
    pad = tokens == PAD
    pad_row = pad[..., :1, :]                                                      # (*B, 1, L)
    shared = bool((pad == pad_row).all()) if shared_padding is None else shared_padding
    if shared:
        base = base.masked_fill(pad_row, float("-inf"))
    scores = base[..., None, :, :] + one * delta                                   # (*B, n, h, L)
    if not shared:
        scores = scores.masked_fill(pad[..., None, :], float("-inf"))
    p = torch.softmax(scores, dim=-1)

    # Values likewise: o_h = sum_t p_t (EV[tok_t] + PV[t]).
    EV = torch.einsum("...ed,cd->...ce", params["Wv"], E).reshape(*B, 3, heads, dh)
    PV = (torch.einsum("...ed,td->...te", params["Wv"], PE)
          + params["bv"][..., None, :]).reshape(*B, L, heads, dh)
    w_cls = p[..., 0:1]                                                            # (*B, n, h, 1)
    w_one = (p * one).sum(dim=-1, keepdim=True)
    w_zero = 1 - w_cls - w_one
    o = (torch.einsum("...nht,...thk->...nhk", p, PV)
         + w_zero * EV[..., None, 0, :, :] + w_one * EV[..., None, 1, :, :]
         + w_cls * EV[..., None, 2, :, :]).reshape(*B, n, d)
    z = torch.einsum("...ed,...nd->...ne", params["Wo"], o) + params["bo"][..., None, :]
    return torch.einsum("...ke,...ne->...nk", params["Wc"], z) + params["bc"][..., None, :]


@refuses_overflow
def logits_dense(params: Mapping[str, torch.Tensor], X: torch.Tensor, *, heads: int = 2,
                 key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Reference forward on embedded inputs ``X`` of shape ``(*B, n, L, d)``: logits ``(*B, n, 2)``.

    ``key_padding_mask`` (``(*B, n, L)``, ``True`` = ignore) masks positions out of the softmax.
    """
    d, B = check_params(params)
    dh = _heads(d, heads)
    check_float_tensor(X, "X")
    if X.dtype != params["Wq"].dtype:
        raise TypeError(f"X must have the parameters' dtype {params['Wq'].dtype}, got {X.dtype}")
    if X.ndim != len(B) + 3 or X.shape[-1] != d:
        raise ValueError(f"X must have shape {(*B, 'n', 'L', d)}, got {tuple(getattr(X, 'shape', ()))}")
    n, L = X.shape[-3], X.shape[-2]
    if key_padding_mask is not None:
        if not isinstance(key_padding_mask, torch.Tensor) or key_padding_mask.dtype != torch.bool:
            raise TypeError("key_padding_mask must be a bool tensor (True = ignore)")
        if tuple(key_padding_mask.shape) != tuple(X.shape[:-1]):
            raise ValueError(f"key_padding_mask must have shape {tuple(X.shape[:-1])}, "
                             f"got {tuple(key_padding_mask.shape)}")
    lin = lambda W, bias, x: torch.einsum("...ed,...nld->...nle", W, x) + bias[..., None, None, :]
    q = lin(params["Wq"], params["bq"], X[..., :1, :]).reshape(*B, n, 1, heads, dh)
    k = lin(params["Wk"], params["bk"], X).reshape(*B, n, L, heads, dh)
    v = lin(params["Wv"], params["bv"], X).reshape(*B, n, L, heads, dh)
    s = torch.einsum("...nqhk,...nthk->...nht", q, k) / math.sqrt(dh)
    if key_padding_mask is not None:
        s = s.masked_fill(key_padding_mask[..., None, :], float("-inf"))
    p = torch.softmax(s, dim=-1)
    o = torch.einsum("...nht,...nthk->...nhk", p, v).reshape(*B, n, d)
    z = torch.einsum("...ed,...nd->...ne", params["Wo"], o) + params["bo"][..., None, :]
    return torch.einsum("...ke,...ne->...nk", params["Wc"], z) + params["bc"][..., None, :]


def _check_logits_labels(z: object, y: object) -> None:
    check_float_tensor(z, "z", min_ndim=2)
    K = z.shape[-1]
    check_int_tensor(y, "y", low=0, high=K - 1)
    if y.shape != z.shape[:-1]:
        raise ValueError(f"y must have shape {tuple(z.shape[:-1])} (that of z without its class axis), "
                         f"got {tuple(y.shape)}")


def _cross_entropy(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """:func:`cross_entropy` without validation (the trainers' inner loops)."""
    logp = torch.log_softmax(z, dim=-1)
    return -torch.gather(logp, -1, y.long()[..., None])[..., 0].mean(dim=-1)


def _accuracy(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """:func:`accuracy` without validation (the trainers' inner loops)."""
    return (z.argmax(dim=-1) == y).to(z.dtype).mean(dim=-1)


def cross_entropy(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the sample axis: logits ``(*B, n, K)`` (finite, real), labels
    ``(*B, n)`` (integers in ``[0, K)``) -> ``(*B,)``."""
    _check_logits_labels(z, y)
    return _cross_entropy(z, y)


def accuracy(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Fraction of correct arg-max predictions per run, ``(*B,)`` (``z``, ``y`` as in
    :func:`cross_entropy`)."""
    _check_logits_labels(z, y)
    return _accuracy(z, y)


def weight_l1(params: Mapping[str, torch.Tensor], *, include_biases: bool = True) -> torch.Tensor:
    """Sum of absolute values of all trainable weights per run, shape ``B`` (Fig. 1's quantity)."""
    d, B = check_params(params)
    include_biases = check_bool(include_biases, "include_biases")
    names = PARAM_NAMES if include_biases else tuple(k for k in PARAM_NAMES if k not in _BIASES)
    total = torch.zeros(B, dtype=params["Wq"].dtype)
    for k in names:
        t = params[k]
        total = total + t.abs().reshape(*B, -1).sum(dim=-1)
    return total


def to_torch_modules(params: Mapping[str, torch.Tensor], *, heads: int = 2
                     ) -> tuple[torch.nn.MultiheadAttention, torch.nn.Linear]:
    """The same single model as ``torch.nn.MultiheadAttention`` plus ``nn.Linear`` read-out.

    This is what a user would write; the naive baseline of the benchmark trains it, and a
    check compares it with :func:`logits`.
    """
    d, B = check_params(params)
    if B:
        raise ValueError("to_torch_modules takes the parameters of a single model (no run axis)")
    _heads(d, heads)
    dt = params["Wq"].dtype
    mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True, dtype=dt)
    head = torch.nn.Linear(d, params["Wc"].shape[0], dtype=dt)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([params["Wq"], params["Wk"], params["Wv"]]))
        mha.in_proj_bias.copy_(torch.cat([params["bq"], params["bk"], params["bv"]]))
        mha.out_proj.weight.copy_(params["Wo"])
        mha.out_proj.bias.copy_(params["bo"])
        head.weight.copy_(params["Wc"])
        head.bias.copy_(params["bc"])
    return mha, head
