"""The structured forward of the authors' sparse-majority model: every run of a sweep at once.

Trauger & Tewari, Sec. 6 train 50 independent one-layer models (10 lengths ``T`` x 5 runs) for up
to 200,000 epochs each.  Written as in the authors' code (:class:`~.authors_model.TextbookModel`)
one step of one model forms all ``T + 1`` queries, keys and values; only the ``[CLS]`` row is
read.  This module computes exactly the same function from the structure of the input (with
autograd; the trainer's hand-written step is :mod:`~.structured_step`, the trainer
:mod:`~.structured`):

* **One query.**  ``[CLS]`` is always at position ``T`` with the same embedding, so its query
  ``q_h = Wq_h (e_cls + PE_T) + bq_h`` is the same for every sample of a run.  With
  ``r_h = Wk_h^T q_h / sqrt(dk)`` the score of position ``t`` is
  ``s_t = b_h[t] + a_h[x_t]``: a per-position term ``b_h[t] = r_h . PE_t + bk_h . q_h / sqrt(dk)``
  plus a per-symbol term ``a_h[c] = r_h . e_c``.  For a data position only ``x_t in {0, 1}``
  varies, so ``s_t = base_h[t] + o_t delta_h`` with ``o_t = 1{x_t = 1}`` and
  ``delta_h = a_h[1] - a_h[0]``.  These are ``O(L d)`` numbers per run and step.
* **Values.**  ``sum_t p_t (Wv_h x_t + bv_h) = Wv_h z_h + bv_h`` with ``z_h = sum_t p_t x_t``, and the
  output projection is linear, so the attention output is ``sum_h A_h z_h + c`` with the per-run
  ``d x d`` matrices ``A_h = Wo_h Wv_h``.  With ``PEA_h = PE A_h^T`` (``L x d``, per run) the
  value side of a head is one ``(n x L)(L x d)`` product ``P_h PEA_h``, plus the symbol terms
  ``w1 A_h (e1 - e0) + wc A_h (ecls - e0)`` (``w1``: attention mass on ones, ``wc``: on ``[CLS]``).
  This is ``method="softmax"``, the default: scores ``base + o delta`` (one fused multiply-add),
  softmax over the ``L`` positions, the product.
* **Factorized softmax** (``method="factorized"``).  Because ``o_t`` is 0 or 1,
  ``exp(s_t) = u_t exp(o_t delta)`` with ``u_t = exp(base_t - max base)``; the numerator and the
  normalizer of the softmax are then linear in the 0/1 data matrix, and the whole head is one
  product ``X (n x L)`` times ``[u PEA, u, u]`` (``L x (d + 2)``) with no per-sample exponential.
  To avoid cancellation ``X`` is the indicator of the symbol the head prefers (``o`` when
  ``delta >= 0``, else ``1 - o``, which includes ``[CLS]``), so every term is a sum of non-negative
  weights: with ``beta = exp(-|delta|)``, ``N = beta * sum_t V_t + (1 - beta) * X V``.  If a
  normalizer ever underflows (it is at least ``exp(-|delta|)``, so only for ``|delta| > 87`` in
  float32) that step falls back to the direct softmax.  On a CPU it is not faster than the
  direct form (the softmax is vectorized, the selected ``X`` must be materialized per head);
  it removes every per-sample exponential, which may pay where those dominate.

Everything after the attention (``ReLU``, ``Dense``, read-out, loss) acts on ``(n, d)`` per run.
All runs share one flat parameter tensor ``(R, P)`` with a leading run axis and one forward pass:
the terms that do not depend on the length are computed for all runs at once, and only the
products over positions are done per *group* of runs of one length (no padding).  Used by
``book/trauger/sparse-majority.md`` (through :mod:`~.structured`) and :mod:`~.benchmark`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

from attention_theory.trauger._args import check_float_tensor, check_int_tensor
from attention_theory.trauger.sparse_majority.authors_model import (
    ModelShape,
    authors_positional_encoding,
    unflatten_unchecked,
)
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig

__all__ = ["METHODS", "check_authors_config", "check_method", "check_inputs", "ones_indicator",
           "select_indicator", "Layout", "make_layout", "batched_logits", "per_run_loss",
           "structured_logits", "structured_loss"]

#: Ways of computing the attention: the direct softmax (default) and the factorized softmax.
METHODS = ("softmax", "factorized")


def check_authors_config(config: Any) -> ProtocolConfig:
    """``config`` itself if it is a :class:`~.protocol.ProtocolConfig` of the authors' model and
    optimizer (the only one the structured trainer runs); ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(config, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(config).__name__}")
    unsupported = {k: getattr(config, k) for k, v in (
        ("cls_position", "last"), ("init", "keras"), ("optimizer", "sgd-momentum-keras"),
        ("embeddings", "random-orthogonal-l1"), ("positional", "authors")) if getattr(config, k) != v}
    if unsupported:
        raise ValueError(f"config: the structured trainer runs the authors' model and optimizer; "
                         f"unsupported settings {unsupported} (run book-v1 with train_batched)")
    return config


def check_method(method: Any) -> str:
    """``method`` itself if it is one of :data:`METHODS`; ``ValueError`` otherwise."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


# ------------------------------------------------------------------------------ the forward
def ones_indicator(bits: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``bits`` ``(R, n, T)`` -> ``O`` ``(R, n, T + 1)``: 1 where the symbol is ``1``, 0 elsewhere
    (``[CLS]`` at column ``T`` included).  Its complement ``C = 1 - O`` marks the zeros and ``[CLS]``."""
    R, n, T = bits.shape
    return torch.cat([bits.to(dtype), torch.zeros(R, n, 1, dtype=dtype)], dim=2)


def select_indicator(O: torch.Tensor, sel: torch.Tensor | None) -> torch.Tensor:
    """``O`` ``(R, n, L)`` -> ``O`` itself if ``sel`` is ``None``, else ``(R, k, n, L)`` holding
    ``C = 1 - O`` where ``sel[r, i] == 1`` and ``O`` elsewhere."""
    if sel is None:
        return O
    return torch.where(sel.bool()[:, :, None, None], 1 - O[:, None], O[:, None])


@dataclasses.dataclass
class Layout:
    """The runs of one forward, grouped by length: group ``j`` is ``sizes[j]`` consecutive runs of
    length ``lengths[j]``.  ``E`` ``(W, 3, d)``; ``PE`` ``(Lmax, d)``; per run ``Tr`` ``(W,)``,
    ``data1``/``cls1`` ``(W, Lmax)`` indicators of the data positions and of ``[CLS]``, ``pad``
    ``(W, Lmax)`` the positions past ``[CLS]``, ``xc`` ``(W, d)`` the input at ``[CLS]``, ``Ed``
    ``(W, 3, d)`` the rows ``e1 - e0``, ``ecls - e0``, ``e0``.  Built by :func:`make_layout`."""

    lengths: list[int]
    sizes: list[int]
    E: torch.Tensor
    PE: torch.Tensor
    Tr: torch.Tensor
    data1: torch.Tensor
    cls1: torch.Tensor
    pad: torch.Tensor
    xc: torch.Tensor
    Ed: torch.Tensor
    #: what the hand-written step needs of this layout, built on first use by
    #: :mod:`~.structured_step` (its ``_StepLayout``)
    step: Any = None


def make_layout(lengths: Sequence[int], E: torch.Tensor, d: int, dtype: torch.dtype) -> Layout:
    """:class:`Layout` of runs with lengths ``lengths`` (equal lengths must be consecutive) and
    embeddings ``E`` ``(W, 3, d)``, in ``dtype``."""
    groups: list[list[int]] = []
    for T in lengths:
        if groups and groups[-1][0] == T:
            groups[-1][1] += 1
        else:
            groups.append([T, 1])
    Lmax = max(lengths) + 1
    Tr = torch.tensor(list(lengths), dtype=torch.long)
    t = torch.arange(Lmax)[None, :]
    E, PE = E.to(dtype), authors_positional_encoding(Lmax, d, dtype=dtype)
    return Layout(lengths=[g[0] for g in groups], sizes=[g[1] for g in groups], E=E, PE=PE, Tr=Tr,
                  data1=(t < Tr[:, None]).to(dtype), cls1=(t == Tr[:, None]).to(dtype),
                  pad=t > Tr[:, None], xc=E[:, 2] + PE[Tr],
                  Ed=torch.stack([E[:, 1] - E[:, 0], E[:, 2] - E[:, 0], E[:, 0]], dim=1))


def _tiny(dtype: torch.dtype) -> float:
    return float(torch.finfo(dtype).tiny) * 1e6


def batched_logits(p: dict[str, torch.Tensor], lay: Layout, shape: ModelShape,
                   fetch: Callable[[int, torch.Tensor], torch.Tensor],
                   method: str) -> tuple[torch.Tensor, bool]:
    """Logits ``(W, n, 2)`` of the runs of ``lay`` with parameters ``p`` (name -> ``(W, *shape)``),
    with autograd (:func:`structured_logits`; the trainer's ``method="factorized"`` steps).

    ``fetch(j, sel)`` returns group ``j``'s 0/1 data as :func:`select_indicator` does: ``O``
    ``(R_j, n, L_j)`` for ``sel=None``, else ``(R_j, H, n, L_j)`` with ``C = 1 - O`` for the heads
    with ``sel = 1``.  Everything that does not depend on the length is computed once for all runs;
    per group only ``PE A_h^T`` and the ``(n x L)(L x (d + 2))`` product (or the softmax).
    Returns ``(logits, fell_back)``.
    """
    d, H = shape.d, shape.heads
    scale = 1.0 / math.sqrt(shape.key_dim)
    E, PE = lay.E, lay.PE
    xc = E[:, 2] + PE[lay.Tr]
    q = torch.einsum("rhkd,rd->rhk", p["Wq"], xc) + p["bq"]
    rv = torch.einsum("rhkd,rhk->rhd", p["Wk"], q) * scale
    cb = (p["bk"] * q).sum(-1) * scale
    a = torch.einsum("rhd,rcd->rhc", rv, E)
    pos = torch.einsum("rhd,td->rht", rv, PE) + cb[..., None]
    base = pos + a[..., 0:1] * lay.data1[:, None] + a[..., 2:3] * lay.cls1[:, None]
    base = base.masked_fill(lay.pad[:, None], float("-inf"))
    delta = a[..., 1] - a[..., 0]
    A = torch.einsum("rohv,rhvi->rhoi", p["Wo"], p["Wv"])
    emb = torch.einsum("rhoi,rci->rhco", A, E)
    c = p["bo"] + torch.einsum("rohv,rhv->ro", p["Wo"], p["bv"]) + emb[:, :, 0].sum(1)
    B = emb[:, :, 1:] - emb[:, :, :1]
    A_g = torch.split(A, lay.sizes)
    fell_back = False
    if method == "factorized":
        neg = (delta < 0).detach()
        u = torch.exp(base - base.detach().amax(-1, keepdim=True))         # (W, H, Lmax), max 1
        beta = torch.exp(torch.where(neg, delta, -delta))                   # exp(-|delta|)
        uT = (u * lay.cls1[:, None]).sum(-1)                                # weight of [CLS]
        Ys = []
        for j, (Aj, uj, bj, nj) in enumerate(zip(A_g, torch.split(u, lay.sizes),
                                                 torch.split(beta, lay.sizes), torch.split(neg, lay.sizes))):
            L, Rj = lay.lengths[j] + 1, lay.sizes[j]
            uj = uj[..., :L]
            PEA = torch.einsum("td,rhod->rhto", PE[:L], Aj)                 # (Rj, H, L, d)
            us = uj * (1 - bj)[..., None]
            # [beta sum_t u_t PEA_t, beta sum_t u_t, 0] + X [(1 - beta) u PEA, (1 - beta) u, u]
            inp = torch.cat([torch.matmul(uj[..., None, :], PEA) * bj[..., None, None],
                             (uj.sum(-1) * bj)[..., None, None], torch.zeros(Rj, H, 1, 1, dtype=uj.dtype)],
                            dim=-1)
            Vs = torch.cat([us[..., None] * PEA, us[..., None], uj[..., None]], dim=-1)
            X = fetch(j, nj.long())
            n = X.shape[2]
            Ys.append(torch.baddbmm(inp.reshape(Rj * H, 1, d + 2), X.reshape(Rj * H, n, L),
                                    Vs.reshape(Rj * H, L, d + 2)).reshape(Rj, H, n, d + 2))
        Y = torch.cat(Ys, dim=0) if len(Ys) > 1 else Ys[0]
        N, Z, ZX = torch.split(Y, [d, 1, 1], dim=-1)
        Zd = Z.detach()
        if bool(torch.isfinite(Zd).all()) and not bool((Zd < _tiny(Zd.dtype)).any()):
            rz = 1.0 / Z                                                     # (W, H, n, 1)
            wX = (ZX * rz)[..., 0]                                           # mass on X's positions
            w1 = torch.where(neg[..., None], 1 - wX, wX)
            wc = (torch.where(neg, torch.ones_like(beta), beta) * uT)[..., None] * rz[..., 0]
            Az = (N * rz).sum(1)
        else:
            fell_back = True
    if method == "softmax" or fell_back:
        parts = []
        for j, (Aj, bj, dj) in enumerate(zip(A_g, torch.split(base, lay.sizes),
                                             torch.split(delta, lay.sizes))):
            L = lay.lengths[j] + 1
            O = fetch(j, None)
            P = torch.softmax(torch.addcmul(bj[..., None, :L], O[:, None], dj[..., None, None]), dim=-1)
            parts.append((torch.matmul(P, torch.einsum("td,rhod->rhto", PE[:L], Aj)).sum(1),
                          (P * O[:, None]).sum(-1), P[..., L - 1]))
        Az, w1, wc = (torch.cat(t, dim=0) for t in zip(*parts))
    # attn = Az + c + sum_h (w1_h A_h (e1 - e0) + wc_h A_h (ecls - e0)): one product
    W, n = Az.shape[:2]
    wts = torch.cat([w1.transpose(1, 2), wc.transpose(1, 2), torch.ones(W, n, 1, dtype=Az.dtype)], dim=-1)
    attn = torch.baddbmm(Az, wts, torch.cat([B[:, :, 0], B[:, :, 1], c[:, None]], dim=1))
    h = attn
    if shape.dense_units is not None:
        h = torch.baddbmm(p["bd"][:, None], torch.relu(h), p["Wd"].transpose(1, 2))
    return torch.baddbmm(p["br"][:, None], h, p["Wr"].transpose(1, 2)), fell_back


def per_run_loss(z: torch.Tensor, y: torch.Tensor, loss: str) -> torch.Tensor:
    """Mean loss per run ``(R,)`` of logits ``(R, n, K)`` and labels ``(R, n)``."""
    if loss == "bce-two-logits":
        target = F.one_hot(y, z.shape[-1]).to(z.dtype)
        return F.binary_cross_entropy_with_logits(z, target, reduction="none").mean(dim=(-1, -2))
    return F.cross_entropy(z.transpose(1, 2), y, reduction="none").mean(dim=-1)


def check_inputs(flat: Any, bits: Any, embeddings: Any, shape: ModelShape) -> tuple[int, int, int]:
    """``(R, n, T)`` of parameters ``flat`` ``(R, P)``, 0/1 sequences ``bits`` ``(R, n, T)`` and
    ``embeddings`` ``(R, 3, d)`` of a model of ``shape``; ``TypeError``/``ValueError`` naming the
    argument otherwise (:func:`structured_logits`)."""
    if not isinstance(flat, torch.Tensor):
        raise TypeError(f"flat must be a tensor of shape (R, {shape.size}), got {type(flat).__name__}")
    if flat.ndim != 2 or flat.shape[1] != shape.size:
        raise ValueError(f"flat must be a tensor of shape (R, {shape.size}), got {tuple(flat.shape)}")
    if flat.dtype not in (torch.float32, torch.float64):
        # float16/bfloat16 would overflow in the logits (their largest value is 65504 / ~3e38
        # with 3 significant digits): refused rather than computed wrong
        raise TypeError(f"flat must be a float32 or float64 tensor, got dtype {flat.dtype}")
    R = flat.shape[0]
    if R == 0:
        raise ValueError(f"flat must not be empty (shape {tuple(flat.shape)})")
    if not bool(torch.isfinite(flat.detach()).all()):
        raise ValueError("flat must contain only finite values")
    if not isinstance(bits, torch.Tensor):
        raise TypeError(f"bits must be a tensor of shape ({R}, n, T), got {type(bits).__name__}")
    if bits.ndim != 3 or bits.shape[0] != R:
        raise ValueError(f"bits must be a tensor of shape ({R}, n, T), got {tuple(bits.shape)}")
    if bits.is_floating_point() or bits.is_complex():
        raise TypeError(f"bits must be an integer or bool tensor of 0/1, got dtype {bits.dtype}")
    if bits.numel() and (int(bits.min()) < 0 or int(bits.max()) > 1):
        raise ValueError("bits must take values in {0, 1}")
    if not isinstance(embeddings, torch.Tensor):
        raise TypeError(f"embeddings must be a tensor of shape ({R}, 3, {shape.d})")
    check_float_tensor(embeddings, "embeddings")
    if tuple(embeddings.shape) != (R, 3, shape.d):
        raise ValueError(f"embeddings must be a tensor of shape ({R}, 3, {shape.d}), "
                         f"got {tuple(embeddings.shape)}")
    return R, bits.shape[1], bits.shape[2]


def structured_logits(flat: torch.Tensor, bits: torch.Tensor, embeddings: torch.Tensor,
                      config: ProtocolConfig, *, method: str = "softmax") -> torch.Tensor:
    """Logits ``(R, n, 2)`` of ``R`` models of the same length ``T`` (autograd-ready).

    ``flat`` ``(R, P)`` parameters (:class:`~.authors_model.ModelShape` layout, dtype of the
    computation), ``bits`` ``(R, n, T)`` 0/1 sequences (``[CLS]`` is implied at position ``T``),
    ``embeddings`` ``(R, 3, d)`` (rows ``0``, ``1``, ``[CLS]``).  The same function as
    :class:`~.authors_model.TextbookModel` on :func:`~.authors_model.embed_authors` inputs.
    """
    config = check_authors_config(config)
    method = check_method(method)
    shape = config.model_shape
    R, n, T = check_inputs(flat, bits, embeddings, shape)
    dt = flat.dtype
    O = ones_indicator(bits, dt)
    lay = make_layout([T] * R, embeddings, shape.d, dt)

    def fetch(j: int, sel: torch.Tensor | None) -> torch.Tensor:
        return select_indicator(O, sel)

    z, _ = batched_logits(unflatten_unchecked(flat, shape), lay, shape, fetch, method)
    return z


def structured_loss(flat: torch.Tensor, bits: torch.Tensor, embeddings: torch.Tensor,
                    labels: torch.Tensor, config: ProtocolConfig, *,
                    method: str = "softmax") -> torch.Tensor:
    """Per-run mean loss ``(R,)`` (``config.loss``: the authors' two-logit binary cross-entropy)
    of :func:`structured_logits` against ``labels`` ``(R, n)``."""
    z = structured_logits(flat, bits, embeddings, config, method=method)
    check_int_tensor(labels, "labels", ndim=2, low=0, high=z.shape[-1] - 1)
    if tuple(labels.shape) != tuple(z.shape[:2]):
        raise ValueError(f"labels must be a tensor of shape {tuple(z.shape[:2])}, got {tuple(labels.shape)}")
    return per_run_loss(z, labels.long(), config.loss)
