"""Corollary 4.1.1 on the trained sparse-majority models (Trauger & Tewari, Sec. 4 next to Sec. 6).

The authors' model (:mod:`~.authors_model`) is not literally the paper's single-layer class
``w^T W_c^T sigma(W_v^T X^T softmax(X W_QK^T x_cls))``: it has biases, an output projection per
head, the ReLU after the *sum* of the heads, a ``Dense`` layer and two logits.  It is, however,
*exactly* a member of the class once every token gets a constant coordinate,
``x~ = (x, 1)`` in ``R^(d+1)`` (:func:`class_parameters`):

* scores: ``(W_q x_cls + b_q)^T (W_k x_t + b_k) / sqrt(dk)`` equals ``x~_t^T W_QK^T x~_cls``
  plus a term that is the same for every ``t`` (the key bias), which the softmax ignores, with
  ``W_QK^T = [[W_k^T W_q, W_k^T b_q], [0, 0]] / sqrt(dk)``;
* values: the attention weights sum to one, so ``Wo_h (Wv_h X^T p + bv_h) (+ bo)`` is
  ``A_h X~^T p`` with ``A_h = Wo_h [Wv_h | bv_h]`` (``bo`` joins the last column of head 0);
  the paper's ``W_v^(h) = A_h^T`` (``(d+1) x d``);
* ``sigma = ReLU`` acts on the sum over heads; ``W_c^T = Wd`` (``W_c = Wd^T``); the read-out row
  ``Wr[s]`` is ``w`` of logit ``s``, and ``c_s = Wr[s] . bd + br[s]`` a constant.

The proof of Theorem 4.1 (App. C) bounds the Rademacher complexity of that class: peel ``w``
(``||w||_1``), ``W_c`` (largest column l1 norm), the contraction through ``sigma``, then ``W_v``
(largest column l1 norm) and cover ``x -> W_QK x`` (Lemma 3.6, ``||W_QK||_{1,1}``); a sum of
``H`` heads inside ``sigma`` costs a factor ``H`` after the contraction (Sec. 4.2's argument), and
the constant ``c_s`` adds ``|c_s| / sqrt(m)``.  :func:`gap_bound` turns the two logits' bounds into
a bound on the cross-entropy generalization gap (contraction of the 1-Lipschitz binary
cross-entropy, and McDiarmid with the loss range).

Evaluated at a trained model's own norms, the bound is the paper's usage (Sec. 6 reads the
norms of trained weights against ``T``); a bound valid for weights chosen after training would
take a union over a grid of norm levels, which adds a lower-order term we leave out.
Used by ``book/trauger/sparse-majority.md``.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from attention_theory.trauger._args import check_float_tensor
from attention_theory.trauger.single_layer_bounds import C_lemma36, thm41_bound
from attention_theory.trauger.sparse_majority.authors_model import (
    ModelShape,
    authors_positional_encoding,
    random_orthogonal_embeddings,
    run_generator,
    unflatten_unchecked,
)
from attention_theory.validation import check_int, check_mapping, check_positive, refuses_overflow

__all__ = ["class_parameters", "class_logits", "token_bound", "cor411_norms", "gap_bound", "bound_per_run"]


def _check_flat(flat: Any, shape: ModelShape) -> torch.Tensor:
    if not isinstance(shape, ModelShape):
        raise TypeError(f"shape must be a ModelShape, got {type(shape).__name__}")
    if shape.dense_units is None:
        raise ValueError("the class embedding needs the authors' Dense block (dense_units is None)")
    if not isinstance(flat, torch.Tensor) or flat.ndim != 1 or flat.shape[0] != shape.size:
        raise ValueError(f"flat must be a tensor of shape ({shape.size},), got "
                         f"{tuple(getattr(flat, 'shape', ()))}")
    if flat.is_complex() or not torch.isfinite(flat).all():
        raise ValueError("flat must be real and finite")
    return flat.to(torch.float64)


def class_parameters(flat: torch.Tensor, shape: ModelShape) -> dict[str, torch.Tensor]:
    """The paper's parameters of one trained model ``flat`` ``(P,)``, in float64:

    ``W_qk`` ``(H, d+1, d+1)`` (scores ``X~ W_qk^T x~_cls``), ``W_v`` ``(H, d+1, d)`` (head output
    ``W_v^T X~^T p``), ``W_c`` ``(d, m)`` (``Y = W_c^T relu(sum_h ...)``), ``w`` ``(2, m)`` (one row
    per logit) and ``c`` ``(2,)`` (the constant of each logit).
    """
    p = unflatten_unchecked(_check_flat(flat, shape), shape)
    d, H, dk = shape.d, shape.heads, shape.key_dim
    W_qk = torch.zeros(H, d + 1, d + 1, dtype=torch.float64)
    W_v = torch.zeros(H, d + 1, d, dtype=torch.float64)
    for h in range(H):
        Wq, Wk = p["Wq"][h], p["Wk"][h]                      # (dk, d)
        W_qk[h, :d, :d] = (Wk.T @ Wq).T / math.sqrt(dk)      # W_qk^T[:d,:d] = Wk^T Wq / sqrt(dk)
        W_qk[h, d, :d] = (Wk.T @ p["bq"][h]) / math.sqrt(dk)  # W_qk^T[:d, d] (query bias)
        Wo_h = p["Wo"][:, h, :]                              # (d, dv)
        A = torch.cat([Wo_h @ p["Wv"][h], (Wo_h @ p["bv"][h])[:, None]], dim=1)   # (d, d+1)
        if h == 0:
            A[:, d] += p["bo"]
        W_v[h] = A.T
    return {"W_qk": W_qk, "W_v": W_v, "W_c": p["Wd"].T.clone(), "w": p["Wr"].clone(),
            "c": p["Wr"] @ p["bd"] + p["br"]}


def _augment(X: torch.Tensor) -> torch.Tensor:
    return torch.cat([X, torch.ones(*X.shape[:-1], 1, dtype=X.dtype)], dim=-1)


_CLASS_KEYS = ("W_qk", "W_v", "W_c", "w", "c")


def _check_class_params(params: Any) -> None:
    """The keys and tensor shapes of :func:`class_parameters`' output (no scan of the values)."""
    check_mapping(params, "params", _CLASS_KEYS)
    for key, nd in (("W_qk", 3), ("W_v", 3), ("W_c", 2), ("w", 2), ("c", 1)):
        t = params[key]
        if not isinstance(t, torch.Tensor) or t.is_complex() or not t.is_floating_point() or t.ndim != nd:
            raise ValueError(f"params[{key!r}] must be a real floating-point tensor with {nd} dimensions")


def class_logits(params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
    """Logits ``(n, 2)`` of the paper's class with ``params`` (:func:`class_parameters`) on inputs
    ``X`` ``(n, T+1, d)`` (``[CLS]`` last, as :func:`~.authors_model.embed_authors` builds them)."""
    _check_class_params(params)
    if not isinstance(X, torch.Tensor) or X.ndim != 3:
        raise ValueError("X must be a tensor of shape (n, T+1, d)")
    check_float_tensor(X, "X")
    d = params["W_c"].shape[0]
    if X.shape[-1] != d:
        raise ValueError(f"X must have d = {d} features (the d of params), got shape {tuple(X.shape)}")
    Xa = _augment(X.to(torch.float64))
    cls = Xa[:, -1]                                                   # (n, d+1)
    pre = 0.0
    for h in range(params["W_qk"].shape[0]):
        scores = torch.einsum("ntj,kj,nk->nt", Xa, params["W_qk"][h], cls)   # X~ W_qk^T x~_cls
        prob = torch.softmax(scores, dim=-1)
        pre = pre + torch.einsum("nt,ntj,jk->nk", prob, Xa, params["W_v"][h])  # W_v^T X~^T p
    Y = torch.relu(pre) @ params["W_c"]                               # W_c^T relu(.)
    return Y @ params["w"].T + params["c"]


@refuses_overflow
def token_bound(embeddings: torch.Tensor, T: int) -> float:
    """``B_x``: the largest l2 norm of an augmented token ``(E_s + PE_j, 1)`` of a length-``T`` run
    (symbols 0 and 1 at positions ``0..T-1``, ``[CLS]`` at ``T``); exact, over every token the
    run can contain."""
    T = check_int(T, "T", minimum=1)
    if not isinstance(embeddings, torch.Tensor) or embeddings.ndim != 2 or embeddings.shape[0] != 3:
        raise ValueError("embeddings must be a tensor of shape (3, d)")
    check_float_tensor(embeddings, "embeddings")
    E = embeddings.to(torch.float64)
    PE = authors_positional_encoding(T + 1, E.shape[1])
    sym = (E[:2, None, :] + PE[None, :T]).reshape(-1, E.shape[1])
    tokens = torch.cat([sym, (E[2] + PE[T])[None]])
    return float(torch.sqrt((tokens ** 2).sum(-1) + 1.0).max())


def cor411_norms(params: dict[str, torch.Tensor]) -> dict[str, float]:
    """The norms Corollary 4.1.1 uses (corrected, column-wise reading of Sec. 4.1), worst head:
    ``B_w`` (largest ``||w_s||_1``), ``B_Wc`` and ``B_Wv`` (largest column l1 norm), ``B_QK``
    (largest ``||W_QK||_{1,1}``), ``c_max`` (largest ``|c_s|``) and ``H``."""
    _check_class_params(params)
    return {"B_w": float(params["w"].abs().sum(-1).max()),
            "B_Wc": float(params["W_c"].abs().sum(0).max()),
            "B_Wv": float(params["W_v"].abs().sum(1).max()),
            "B_QK": float(params["W_qk"].abs().sum((-1, -2)).max()),
            "c_max": float(params["c"].abs().max()),
            "H": int(params["W_qk"].shape[0])}


@refuses_overflow
def gap_bound(norms: dict[str, float], B_x: float, *, m: int, d: int,
              delta: float = 0.05) -> dict[str, float]:
    """Bound on ``E[loss] - train loss`` for the mean binary cross-entropy over the two logits
    (the authors' loss), with probability ``>= 1 - delta`` over the ``m`` training samples.

    ``rad_logit = H * thm41_bound(B_w B_Wc B_Wv, B_x, C_lemma36(B_x, B_QK, d+1), m, d+1) + c_max/sqrt(m)``
    bounds each logit's class (``L_sigma = 1``); the loss ``(1/2) sum_s BCE(z_s, y_s)`` is
    1-Lipschitz in each logit, so its class has ``rad_loss <= rad_logit``; its range is at most
    ``M = Z + ln 2`` with ``Z = H B_w B_Wc B_Wv B_x + c_max >= |z_s|``.  Returns ``rad_logit``,
    ``rad_loss``, ``range``, ``confidence_term = M sqrt(ln(1/delta) / (2m))`` and
    ``gap_bound = 2 rad_loss + confidence_term``.
    """
    m = check_int(m, "m", minimum=1)
    d = check_int(d, "d", minimum=1)
    B_x = check_positive(B_x, "B_x")
    delta = check_positive(delta, "delta")
    if delta >= 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    check_mapping(norms, "norms", ("B_w", "B_Wc", "B_Wv", "B_QK", "c_max", "H"))
    for key in ("B_w", "B_Wc", "B_Wv", "B_QK"):
        check_positive(norms[key], f"norms[{key!r}]")
    check_positive(norms["c_max"], "norms['c_max']", allow_zero=True)
    H = check_int(norms["H"], "norms['H']", minimum=1)
    B = norms["B_w"] * norms["B_Wc"] * norms["B_Wv"]
    rad_logit = H * thm41_bound(B, B_x, C_lemma36(B_x, norms["B_QK"], d + 1), m, d + 1) \
        + norms["c_max"] / math.sqrt(m)
    Z = H * B * B_x + norms["c_max"]
    M = Z + math.log(2.0)
    conf = M * math.sqrt(math.log(1.0 / delta) / (2 * m))
    return {"rad_logit": rad_logit, "rad_loss": rad_logit, "range": M, "confidence_term": conf,
            "gap_bound": 2 * rad_logit + conf, "trivial_gap_bound": M}


def bound_per_run(weights: dict[str, Any], *, shape: ModelShape | None = None, m: int = 300,
                  delta: float = 0.05) -> list[dict[str, float]]:
    """:func:`cor411_norms`, ``B_x`` and :func:`gap_bound` for every run of ``weights``
    (:func:`~.collect.read_weights`: arrays ``T``, ``seed``, ``flat`` ``(R, P)``); each run's
    embeddings are regenerated from its seed (:func:`~.authors_model.run_generator`)."""
    check_mapping(weights, "weights", ("T", "seed", "flat"))
    shape = ModelShape() if shape is None else shape
    if not isinstance(shape, ModelShape):
        raise TypeError(f"shape must be a ModelShape, got {type(shape).__name__}")
    flat = torch.as_tensor(weights["flat"])
    if flat.ndim != 2 or flat.shape[1] != shape.size or len(weights["T"]) != flat.shape[0]:
        raise ValueError(f"weights must hold T, seed and flat of shape (R, {shape.size})")
    out = []
    for i, (T, seed) in enumerate(zip(weights["T"].tolist(), weights["seed"].tolist())):
        E = random_orthogonal_embeddings(shape.d, generator=run_generator(T, seed, "embeddings"))
        norms = cor411_norms(class_parameters(flat[i].to(torch.float64), shape))
        B_x = token_bound(E, T)
        out.append({"T": T, "seed": seed, **norms, "B_x": B_x,
                    **gap_bound(norms, B_x, m=m, d=shape.d, delta=delta)})
    return out
