"""Structured training of the authors' sparse-majority model: every run of a sweep at once.

Trauger & Tewari, Sec. 6 train 50 independent one-layer models (10 lengths ``T`` x 5 runs) for up
to 200,000 epochs each.  Written as in the authors' code (:class:`~.authors_model.TextbookModel`)
one step of one model forms all ``T + 1`` queries, keys and values; only the ``[CLS]`` row is
read.  This module computes exactly the same function from the structure of the input:

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

* **The trainer's step** (``method="softmax"``, :func:`_hand_forward`, :func:`_hand_backward`).
  Training does not use autograd.  A zero at position ``t`` gets the attention weight
  ``k0_t = exp(s0_t - m)``, a one ``k1_t = exp(s0_t + delta - m)`` (``s0_t``: the score of a
  zero, ``m = max_t s0_t + max(delta, 0)``, so every weight is at most 1), so with the 0/1 data
  ``X`` (``[CLS]`` column of ones) the attended input of every sample and head is ``z = N / D``
  with ``[N, D] = v0 + X V``: ``V_t = k1_t [x1_t, 1] - k0_t [x0_t, 1]`` (``x0_t``/``x1_t``: the input at
  ``t`` for a zero / a one), ``v0 = sum_t k0_t [x0_t, 1]``.  That is one ``(n x T)(T x H (d + 1))``
  product per run and no per-sample exponential, attention matrix or softmax pass; for
  ``|delta| > 8`` (where the products would lose precision) a group of runs takes the direct
  softmax.  Then ``attn = [z_1 .. z_H] [A_1^T; ..; A_H^T] + bo + sum_h Wo_h bv_h``.  The
  hand-written backward pass goes back through the same products (one ``X^T R`` product per run
  gives the gradients of ``V`` and ``v0``) and writes ``mu v - lr grad`` into the momentum ``v``
  within the products (no gradient buffer, no separate pass); the parameters live name-major (one
  contiguous ``(W, *shape)`` block per parameter, ``Wo`` as ``Wo_h^T``) so that no product copies
  them, and the work on tensors of one sample per row is done per length group while it is in
  the cache.  The ``Dense`` layer is linear after its ``ReLU`` and followed by 2 read-outs, so
  its products are taken through the ``(2 x d)`` matrix ``Wr Wd`` (rank-2 products instead of
  three ``(n x d)(d x 64)`` ones).  An evaluation uses the products ``P [PE A_1^T; ..; PE A_H^T]`` instead (no ``z``
  needed).  It agrees with autograd through :func:`structured_logits` and with the textbook model
  to float64 round-off (``tests/trauger/test_structured_trainer.py``,
  ``tests/trauger/test_structured_speed.py``).

Everything after the attention (``ReLU``, ``Dense``, read-out, loss) acts on ``(n, d)`` per run.
All runs share one flat parameter tensor ``(R, P)`` with a leading run axis, one forward and one
backward pass (the runs share no parameter, so the gradient of the summed loss is each run's own
gradient): the terms that do not depend on the length are computed for all runs at once, and
only the products over positions are done per *group* of runs of one length (no padding).  The optimizer is the authors' SGD with
momentum in Keras' form; each run has its own shuffling generator, its own early stopping (the
first epoch with a running training accuracy of 1, as the authors' callback), its own best epoch
(lowest validation loss) with the weights of that epoch, and a stopped run leaves the computation.
Checkpoints (:func:`attention_theory.results.save_checkpoint`) make an interrupted sweep resume
bit-identically.  Used by ``book/trauger/sparse-majority.md`` and :mod:`~.benchmark`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

from attention_theory._validate import check_bool, check_int, check_path
from attention_theory.results import load_checkpoint, save_checkpoint
from attention_theory.trauger._args import check_float_tensor, check_int_tensor
from attention_theory.trauger.sparse_majority.authors_model import (
    AuthorsRun,
    ModelShape,
    authors_positional_encoding,
    bias_mask,
    init_authors_params,
    make_authors_run,
    run_generator,
    unflatten_unchecked,
)
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig, learning_rates

__all__ = ["METHODS", "build_authors_data", "structured_logits", "structured_loss",
           "StructuredTrainer", "train_structured", "structured_flops", "CHECKPOINT_FORMAT"]

#: Ways of computing the attention: the direct softmax (default) and the factorized softmax.
METHODS = ("softmax", "factorized")
#: Version tag of the checkpoints written by :class:`StructuredTrainer`.
CHECKPOINT_FORMAT = "trauger-sparse-majority-structured-1"

_DTYPES = {"float32": torch.float32, "float64": torch.float64}
#: Most attention scores per length group in one chunk of an evaluation (direct softmax).
_EVAL_SCORES = 2 ** 20


def _check_config(config: Any) -> ProtocolConfig:
    if not isinstance(config, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(config).__name__}")
    unsupported = {k: getattr(config, k) for k, v in (
        ("cls_position", "last"), ("init", "keras"), ("optimizer", "sgd-momentum-keras"),
        ("embeddings", "random-orthogonal-l1"), ("positional", "authors")) if getattr(config, k) != v}
    if unsupported:
        raise ValueError(f"config: the structured trainer runs the authors' model and optimizer; "
                         f"unsupported settings {unsupported} (run book-v1 with train_batched)")
    return config


def _check_method(method: Any) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def build_authors_data(config: ProtocolConfig) -> list[AuthorsRun]:
    """The data of every run of ``config``, in the order of ``config.runs``
    (:func:`~.authors_model.make_authors_run`)."""
    config = _check_config(config)
    return [make_authors_run(T, seed=s, n_train=config.n_train, n_val=config.n_val, k=config.k,
                             d=config.d) for T, s in config.runs]


# ------------------------------------------------------------------------------ the forward
def _ones_indicator(bits: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``bits`` ``(R, n, T)`` -> ``O`` ``(R, n, T + 1)``: 1 where the symbol is ``1``, 0 elsewhere
    (``[CLS]`` at column ``T`` included).  Its complement ``C = 1 - O`` marks the zeros and ``[CLS]``."""
    R, n, T = bits.shape
    return torch.cat([bits.to(dtype), torch.zeros(R, n, 1, dtype=dtype)], dim=2)


def _select(O: torch.Tensor, sel: torch.Tensor | None) -> torch.Tensor:
    """``O`` ``(R, n, L)`` -> ``O`` itself if ``sel`` is ``None``, else ``(R, k, n, L)`` holding
    ``C = 1 - O`` where ``sel[r, i] == 1`` and ``O`` elsewhere."""
    if sel is None:
        return O
    return torch.where(sel.bool()[:, :, None, None], 1 - O[:, None], O[:, None])


@dataclasses.dataclass
class _Layout:
    """The runs of one forward, grouped by length: group ``j`` is ``sizes[j]`` consecutive runs of
    length ``lengths[j]``.  ``E`` ``(W, 3, d)``; ``PE`` ``(Lmax, d)``; per run ``Tr`` ``(W,)``,
    ``data1``/``cls1`` ``(W, Lmax)`` indicators of the data positions and of ``[CLS]``, ``pad``
    ``(W, Lmax)`` the positions past ``[CLS]``."""

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
    #: what the hand-written step needs of this layout, built on first use (:func:`_step_layout`)
    step: "_StepLayout | None" = None


def _layout(lengths: Sequence[int], E: torch.Tensor, d: int, dtype: torch.dtype) -> _Layout:
    """Layout of runs with lengths ``lengths`` (equal lengths must be consecutive)."""
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
    return _Layout(lengths=[g[0] for g in groups], sizes=[g[1] for g in groups], E=E, PE=PE, Tr=Tr,
                   data1=(t < Tr[:, None]).to(dtype), cls1=(t == Tr[:, None]).to(dtype),
                   pad=t > Tr[:, None], xc=E[:, 2] + PE[Tr],
                   Ed=torch.stack([E[:, 1] - E[:, 0], E[:, 2] - E[:, 0], E[:, 0]], dim=1))


@dataclasses.dataclass
class _StepLayout:
    """The per-layout constants of the hand-written step (:func:`_step_layout`), so that a step
    forms no index tensor, mask or slice of them.

    The input at position ``t`` of a sequence of zeros is ``x0_t = PE_t + e0`` (``[CLS]``:
    ``PE_T + ecls``), of a one ``x1_t = PE_t + e1``.  Products with the positions are taken with the
    shared ``PE`` for all runs at once (one large product instead of one tiny product per run),
    the three embeddings per run added after: ``PEe`` ``(Lmax, d + 1)`` is ``[PE_t, 1]``, ``PEeT``
    its transpose, ``PET`` ``PE^T``; ``data1``/``cls1`` ``(W, 1, Lmax)`` the indicators of the
    data positions and of ``[CLS]``; ``Tix`` ``(W, 1, 1)`` the position of ``[CLS]``; ``E3``
    ``(W, 3, d)`` the rows ``e0, ecls, e1 - e0`` and ``E3T`` its transpose; ``e0`` and ``dc``
    ``(W, 1, d)``: ``e0`` and ``ecls - e0``; ``pad`` ``(W, 1, Lmax)``: 0, ``-inf`` past ``[CLS]``.  ``Kx`` ``(W, Lmax + 1, d)``: the rows ``x0_t``
    (zero past ``[CLS]``) and ``e1 - e0``, for the direct softmax.  ``d1`` ``(W, 1, d + 1)``:
    ``[e1 - e0, 0] = [x1_t, 1] - [x0_t, 1]``.  Per group ``j``: ``bounds[j] = (r0, r1, T)`` (its
    rows of the work set, its length) and ``x1g[j]`` / ``x0g[j]`` ``(R_j, T, 1, d + 1)``:
    ``[x1_t, 1]`` and ``[x0_t, 1]`` at the data positions (the axis of length 1 broadcasts over
    the heads)."""

    PEe: torch.Tensor
    PEeT: torch.Tensor
    PET: torch.Tensor
    data1: torch.Tensor
    cls1: torch.Tensor
    Tix: torch.Tensor
    E3: torch.Tensor
    E3T: torch.Tensor
    e0: torch.Tensor
    dc: torch.Tensor
    pad: torch.Tensor
    Kx: torch.Tensor
    d1: torch.Tensor
    bounds: list[tuple[int, int, int]]
    x1g: list[torch.Tensor]
    x0g: list[torch.Tensor]


def _step_layout(lay: _Layout) -> _StepLayout:
    """:class:`_StepLayout` of ``lay`` (built once per layout and kept on it)."""
    if lay.step is not None:
        return lay.step
    E, PE = lay.E, lay.PE
    W, Lmax, dt = E.shape[0], PE.shape[0], PE.dtype
    t = torch.arange(Lmax)[None, :]
    Tr = lay.Tr[:, None]
    valid, data = (t <= Tr)[..., None].to(dt), (t < Tr)[..., None].to(dt)       # (W, Lmax, 1)
    sym0 = torch.where((t == Tr)[..., None], E[:, None, 2], E[:, None, 0])      # e0, ecls at [CLS]
    x0 = (PE[None] + sym0) * valid
    x1e = torch.cat([(PE[None] + E[:, None, 1]) * data, data], dim=-1)
    x0e = torch.cat([x0, valid], dim=-1)
    bounds, x1g, x0g, r0 = [], [], [], 0
    for T, Rj in zip(lay.lengths, lay.sizes):
        bounds.append((r0, r0 + Rj, T))
        x1g.append(x1e[r0:r0 + Rj, :T, None].contiguous())
        x0g.append(x0e[r0:r0 + Rj, :T, None].contiguous())
        r0 += Rj
    d1 = E[:, 1] - E[:, 0]
    E3 = torch.stack([E[:, 0], E[:, 2], d1], dim=1)
    PEe = torch.cat([PE, PE.new_ones(Lmax, 1)], dim=1)
    lay.step = _StepLayout(PEe=PEe, PEeT=PEe.T.contiguous(), PET=PE.T.contiguous(),
                           data1=lay.data1[:, None], cls1=lay.cls1[:, None], Tix=lay.Tr[:, None, None],
                           E3=E3, E3T=E3.transpose(1, 2).contiguous(), e0=E[:, None, 0],
                           dc=(E[:, 2] - E[:, 0])[:, None],
                           pad=torch.zeros(W, 1, Lmax, dtype=dt).masked_fill_((t > Tr)[:, None], float("-inf")),
                           Kx=torch.cat([x0, d1[:, None]], dim=1),
                           d1=torch.cat([d1, d1.new_zeros(W, 1)], dim=1)[:, None], bounds=bounds, x1g=x1g, x0g=x0g)
    return lay.step


def _tiny(dtype: torch.dtype) -> float:
    return float(torch.finfo(dtype).tiny) * 1e6


def _logits(p: dict[str, torch.Tensor], lay: _Layout, shape: ModelShape,
            fetch: Callable[[int, torch.Tensor], torch.Tensor], method: str) -> tuple[torch.Tensor, bool]:
    """Logits ``(W, n, 2)`` of the runs of ``lay`` with parameters ``p`` (name -> ``(W, *shape)``).

    ``fetch(j, sel)`` returns group ``j``'s 0/1 data as :func:`_select` does: ``O`` ``(R_j, n, L_j)``
    for ``sel=None``, else ``(R_j, H, n, L_j)`` with ``C = 1 - O`` for the heads with ``sel = 1``.  Everything that does not
    depend on the length is computed once for all runs; per group only ``PE A_h^T`` and the
    ``(n x L)(L x (d + 2))`` product (or the softmax).  Returns ``(logits, fell_back)``.
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
        for j, (Aj, bj, dj) in enumerate(zip(A_g, torch.split(base, lay.sizes), torch.split(delta, lay.sizes))):
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


def _per_run_loss(z: torch.Tensor, y: torch.Tensor, loss: str) -> torch.Tensor:
    """Mean loss per run ``(R,)`` of logits ``(R, n, K)`` and labels ``(R, n)``."""
    if loss == "bce-two-logits":
        target = F.one_hot(y, z.shape[-1]).to(z.dtype)
        return F.binary_cross_entropy_with_logits(z, target, reduction="none").mean(dim=(-1, -2))
    return F.cross_entropy(z.transpose(1, 2), y, reduction="none").mean(dim=-1)


def _check_inputs(flat: Any, bits: Any, embeddings: Any, shape: ModelShape) -> tuple[int, int, int]:
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
    config = _check_config(config)
    method = _check_method(method)
    shape = config.model_shape
    R, n, T = _check_inputs(flat, bits, embeddings, shape)
    dt = flat.dtype
    O = _ones_indicator(bits, dt)
    lay = _layout([T] * R, embeddings, shape.d, dt)

    def fetch(j: int, sel: torch.Tensor | None) -> torch.Tensor:
        return _select(O, sel)

    z, _ = _logits(unflatten_unchecked(flat, shape), lay, shape, fetch, method)
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
    return _per_run_loss(z, labels.long(), config.loss)


# ------------------------------------------------------------------ hand-reduced forward, backward
#: Largest ``|delta|`` for which :func:`_attention_weights` factorizes the exponential.
_FACTOR_MAX_DELTA = 40.0


def _weight_factors(base: torch.Tensor, delta: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The per-run factors of :func:`_attention_weights` for ``base`` ``(R, H, L)`` (``-inf`` at
    positions to leave out) and ``delta`` ``(R, H)``: ``u``, ``u c0``, ``u c1`` ``(R, H, L)``,
    ``a1`` ``(R, H)`` and ``big`` ``(R,)`` (a head with ``|delta| > 40``)."""
    u = torch.exp(base - base.amax(-1, keepdim=True))
    beta = torch.exp(-delta.abs())
    neg = delta < 0
    c0 = torch.where(neg, torch.ones_like(beta), beta)
    a1 = torch.where(neg, beta, torch.ones_like(beta))
    return u, u * c0[..., None], u * (a1 - c0)[..., None], a1, (delta.abs() > _FACTOR_MAX_DELTA).any(-1)


def _attention_weights(base: torch.Tensor, delta: torch.Tensor, X: torch.Tensor,
                       factors: tuple[torch.Tensor, ...] | None = None,
                       big: bool | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax over positions of the scores ``base[r, h, t] + X[r, i, t] delta[r, h]``:
    ``P`` ``(R, n, H, L)`` from ``base`` ``(R, H, L)``, ``delta`` ``(R, H)``, 0/1 ``X``
    ``(R, n, L)``; and ``w1`` ``(R, n, H)``, the mass on the positions with ``X = 1``.

    Without a per-sample exponential: with ``u = exp(base - max_t base)`` and
    ``beta = exp(-|delta|)``, ``exp(score - max_t base - max(delta, 0)) = u (c0 + c1 X)`` where
    ``(c0, c1) = (beta, 1 - beta)`` for ``delta >= 0`` and ``(1, beta - 1)`` otherwise: every term is
    non-negative, and so is the normalizer (at least ``beta``); the mass on the ones is
    ``a1 X u^T`` (``a1 = c0 + c1``) over it, one product ``(n x L)(L x H)``.  For
    ``|delta| > 40`` (a normalizer that small would lose precision in float32) it is the direct
    softmax.  ``factors``, ``big``: :func:`_weight_factors` of these runs, if already known."""
    if factors is None:
        factors = _weight_factors(base, delta)
    if big is None:
        big = bool(factors[4].any())
    if big:
        P = torch.softmax(torch.addcmul(base[:, None], X[:, :, None, :], delta[:, None, :, None]), dim=-1)
        return P, (P * X[:, :, None, :]).sum(-1)
    u, uc0, uc1, a1 = factors[:4]
    E = torch.addcmul(uc0[:, None], X[:, :, None, :], uc1[:, None])
    Z = E.sum(-1)
    ones = torch.bmm(X, u.transpose(1, 2)).mul_(a1[:, None])               # (R, n, H)
    return E.div_(Z[..., None]), ones.div_(Z)


def _group_weights(k: "_Consts", r0: int, r1: int, L: int, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`_attention_weights` of runs ``r0:r1`` (one length, ``L`` positions) from :func:`_hand_consts`
    (the evaluation; its factors are formed on first use and kept on ``k``)."""
    if k.factors is None:
        f = _weight_factors(k.base, k.delta)
        k.factors, k.big = f[:4], f[4].tolist()
    f = tuple(t[r0:r1, :, :L] for t in k.factors[:3]) + (k.factors[3][r0:r1],)
    return _attention_weights(k.base[r0:r1, :, :L], k.delta[r0:r1], X, f, any(k.big[r0:r1]))


#: Largest ``|delta|`` for which the training step forms the attention by products with the 0/1
#: data (:func:`_hand_forward`); a group of runs with a larger one takes the direct softmax.  Those
#: products add the weights of the preferred symbol and subtract those of the other one, so a
#: normalizer may lose up to ``~2 eps exp(|delta|)`` of its value (``4e-4`` in float32 at 8, where
#: the per-weight form it replaces loses ``eps exp(|delta|)``); the trained models of the authors'
#: protocol have ``|delta| < 2``.
_PRODUCT_MAX_DELTA = 8.0


class _Consts:
    """The per-run, per-step terms of the hand-written step (:func:`_hand_consts`).

    ``base`` ``(W, H, Lmax)``: the scores of a sequence of zeros (``-inf`` past ``[CLS]``; the key
    bias's term ``bk . q``, the same at every position, is left out: the softmax does not see it);
    ``delta`` ``(W, H)``; ``k0``/``k1`` ``(W, H, Lmax)``: the unnormalized attention weights of a
    zero / a one at each position, ``exp(score - max)`` with the maximum over positions and
    symbols (both at most 1); ``direct`` per group of the layout: its runs take the direct softmax
    (a ``|delta|`` above the products' range); ``AT`` ``(W, H d, d)`` (``A_h^T = Wv_h^T Wo_h^T``
    stacked); ``c`` ``(W, d)`` (``bo + sum_h Wo_h bv_h``); ``qs`` ``(W, H, dk)`` the query of
    ``[CLS]`` times ``1 / sqrt(dk)``; ``WoT`` ``(W, H, dv, d)`` (``Wo_h^T``, the trainer's storage).
    ``factors`` and ``big``: those of :func:`_attention_weights`, formed on first use by the
    evaluation (:func:`_group_weights`)."""

    def __init__(self, base: torch.Tensor, delta: torch.Tensor, k0: torch.Tensor, k1: torch.Tensor,
                 direct: list[bool], AT: torch.Tensor, c: torch.Tensor, qs: torch.Tensor,
                 WoT: torch.Tensor) -> None:
        self.base, self.delta, self.k0, self.k1, self.direct = base, delta, k0, k1, direct
        self.AT, self.c, self.qs, self.WoT = AT, c, qs, WoT
        self.factors: tuple[torch.Tensor, ...] | None = None
        self.big: list[bool] = []


def _wo_t(p: dict[str, torch.Tensor]) -> torch.Tensor:
    """``Wo_h^T`` of every run and head, ``(W, H, dv, d)``: the trainer keeps ``Wo`` so (key
    ``"WoT"``, :func:`_name_major`); from the flat layout ``(W, d, H, dv)`` it is a copy."""
    if "WoT" in p:
        return p["WoT"]
    return p["Wo"].permute(0, 2, 3, 1).contiguous()


def _hand_consts(p: dict[str, torch.Tensor], lay: _Layout, shape: ModelShape) -> _Consts:
    """The terms of the attention that do not depend on the samples, for all runs at once
    (:class:`_Consts`).  ``p``: name -> ``(W, *shape)``, ``Wo`` as ``"Wo"`` (flat layout) or ``"WoT"``."""
    W = p["Wq"].shape[0]
    d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
    sl = _step_layout(lay)
    scale = 1.0 / math.sqrt(dk)
    # the query of [CLS] as a vector times a matrix, (1 x d)(d x H dk) per run: the matrix-vector
    # orientation of the same product takes several times longer; 1/sqrt(dk) rides on the product
    qs = torch.baddbmm(p["bq"].reshape(W, 1, H * dk), lay.xc[:, None, :],
                       p["Wq"].reshape(W, H * dk, d).transpose(1, 2), beta=scale, alpha=scale).view(W, H, dk)
    rv = torch.bmm(qs.view(W * H, 1, dk), p["Wk"].reshape(W * H, dk, d)).view(W, H, d)
    # every position's score of a sequence of zeros: r_h . PE_t for all runs and heads in one
    # product, plus r_h . e0 at the data positions and r_h . ecls at [CLS]; delta = r_h . (e1 - e0)
    Lmax = lay.PE.shape[0]
    re = torch.bmm(rv, sl.E3T)                                              # (W, H, 3)
    base = torch.mm(rv.view(W * H, d), sl.PET).view(W, H, Lmax)
    base.addcmul_(re[..., 0:1], sl.data1).addcmul_(re[..., 1:2], sl.cls1).add_(sl.pad)
    delta = re[..., 2]
    u = torch.sub(base, base.amax(-1, keepdim=True)).exp_()
    # a zero at t weighs u_t exp(-max(delta, 0)), a one u_t exp(min(delta, 0)): the larger of the
    # two is u_t, every weight is at most 1 and the largest is 1
    k0 = u * torch.exp(delta.clamp(min=0).neg_())[..., None]
    k1 = u.mul_(torch.exp(delta.clamp(max=0))[..., None])
    limit = min(_FACTOR_MAX_DELTA, _PRODUCT_MAX_DELTA)
    direct = [False] * len(sl.bounds)
    if float(delta.abs().max()) > limit:
        wide = (delta.abs() > limit).any(-1).tolist()
        direct = [any(wide[r0:r1]) for r0, r1, _ in sl.bounds]
    WoT = _wo_t(p)
    WoP = WoT.reshape(W * H, dv, d)
    AT = torch.bmm(p["Wv"].reshape(W * H, dv, d).transpose(1, 2), WoP).view(W, H * d, d)
    c = torch.baddbmm(p["bo"].reshape(W, 1, d), p["bv"].reshape(W, 1, H * dv), WoP.view(W, H * dv, d))[:, 0]
    return _Consts(base=base, delta=delta, k0=k0, k1=k1, direct=direct, AT=AT, c=c, qs=qs, WoT=WoT)


def _hand_forward(p: dict[str, torch.Tensor], lay: _Layout, shape: ModelShape, k: _Consts,
                  Xs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, dict[str, Any]]:
    """Logits ``(W, n, n_classes)`` from :func:`_hand_consts` and the 0/1 data of every group
    ``Xs[j]`` ``(R_j, n, L_j)``, whose ``[CLS]`` column holds **ones** (:func:`_hand_backward` reads
    the sums over samples from it).  Returns the logits and what :func:`_hand_backward` needs.

    The attended input of sample ``i`` and head ``h`` is ``z = N / D`` with
    ``[N, D] = sum_t w_t [x_t, 1]``, ``w_t = k0_t`` for a zero and ``k1_t`` for a one at ``t``
    (``[CLS]``: ``k0``).  Since the data are 0/1 this is one product per run with the data:
    ``[N, D] = v0 + X V`` with the rows ``V_t = k1_t [x1_t, 1] - k0_t [x0_t, 1]`` (both heads side by
    side: ``(n x T)(T x H (d + 1))``) and ``v0 = sum_t k0_t [x0_t, 1]``, the same for every sample.
    No per-sample exponential, attention matrix or softmax pass is formed.  A group with a large
    ``|delta|`` (``k.direct``) takes the direct softmax instead (``D = 1``).  ``attn = Z A^T + c``
    with the attended inputs ``Z`` ``(W, n, H d)`` follows per group, while that group's
    ``[N, D]`` is still in the cache (a pass over a tensor of all runs costs about a millisecond
    when the data come from memory).  The ``Dense`` layer is not formed: it is linear after its
    ``ReLU`` and only ``n_classes`` read-outs follow, so the logits are
    ``relu(attn) (Wr Wd)^T + Wr bd + br``."""
    sl = _step_layout(lay)
    W, H, d = k.k0.shape[0], shape.heads, shape.d
    C, n, dt = d + 1, Xs[0].shape[1], k.k0.dtype
    # v0 = sum_t k0_t [x0_t, 1] = sum_t k0_t [PE_t, 1] + [(sum_t k0_t) e0 + k0_T (ecls - e0), 0]
    v0 = torch.mm(k.k0.view(W * H, -1), sl.PEe).view(W, H, C)
    v0[..., :d].addcmul_(v0[..., d:], sl.e0).addcmul_(k.k0.gather(-1, sl.Tix.expand(W, H, 1)), sl.dc)
    Z = torch.empty(W, n, H * d, dtype=dt)
    rho = torch.empty(W, n, H, dtype=dt)                                    # 1 / D
    attn = torch.empty(W, n, d, dtype=dt)
    Ps: list[tuple[torch.Tensor, torch.Tensor] | None] = []
    for j, X in enumerate(Xs):
        r0, r1, T = sl.bounds[j]
        Rj = r1 - r0
        Zj = Z[r0:r1].view(Rj, n, H, d)
        if k.direct[j]:
            Ps.append(_direct_forward(k, sl, r0, r1, T, X, Zj))
            rho[r0:r1] = 1
        else:
            V = torch.empty(Rj, T, H, C, dtype=dt)
            torch.mul(k.k1[r0:r1, :, :T, None].transpose(1, 2), sl.x1g[j], out=V)
            V.addcmul_(k.k0[r0:r1, :, :T, None].transpose(1, 2), sl.x0g[j], value=-1)
            Y = torch.baddbmm(v0[r0:r1].view(Rj, 1, H * C), X[:, :, :T], V.view(Rj, T, H * C)).view(Rj, n, H, C)
            torch.reciprocal(Y[..., d], out=rho[r0:r1])
            torch.mul(Y[..., :d], rho[r0:r1, ..., None], out=Zj)
            Ps.append(None)
        torch.baddbmm(k.c[r0:r1, None], Z[r0:r1], k.AT[r0:r1], out=attn[r0:r1])
    if shape.dense_units is None:
        return torch.baddbmm(p["br"][:, None], attn, p["Wr"].transpose(1, 2)), dict(Ps=Ps, Xs=Xs, Z=Z, rho=rho, h1=attn)
    # the Dense layer is linear after its ReLU and only n_classes (2) read-outs follow: the logits
    # are relu(attn) (Wr Wd)^T + Wr bd + br, a (d x 2) weight instead of an (n x d)(d x m) product
    # (the same for every gradient of the block, _hand_backward)
    WrWd = torch.bmm(p["Wr"], p["Wd"])                                      # (W, n_classes, d)
    brd = torch.baddbmm(p["br"][:, None], p["bd"][:, None], p["Wr"].transpose(1, 2))
    a1 = torch.relu_(attn)
    z = torch.baddbmm(brd, a1, WrWd.transpose(1, 2))
    return z, dict(Ps=Ps, Xs=Xs, Z=Z, rho=rho, h1=a1, WrWd=WrWd)


def _direct_forward(k: _Consts, sl: _StepLayout, r0: int, r1: int, T: int, X: torch.Tensor,
                    Z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The direct softmax of runs ``r0:r1`` (length ``T``, data ``X`` with ones at ``[CLS]``):
    the attended inputs into ``Z`` ``(R_j, n, H, d)``; returns the attention ``P``
    ``(R_j, n, H, T + 1)`` and the data with a 0 at ``[CLS]``, for the backward pass."""
    Rj, n, L = X.shape
    H, d = k.k0.shape[1], Z.shape[3]
    Lmax = sl.pad.shape[2]
    X = X.clone()
    X[..., T] = 0
    P = torch.softmax(torch.addcmul(k.base[r0:r1, None, :, :L], X[:, :, None, :],
                                    k.delta[r0:r1, None, :, None]), dim=-1)
    # z = sum_t p_t x0_t + (mass on the ones) (e1 - e0)
    torch.bmm(P.view(Rj, n * H, L), sl.Kx[r0:r1, :L], out=Z.view(Rj, n * H, d))
    Z.addcmul_((P * X[:, :, None, :]).sum(-1)[..., None], sl.Kx[r0:r1, None, None, Lmax])
    return P, X


def _hand_eval_consts(lay: _Layout, shape: ModelShape, k: _Consts) -> tuple[list[torch.Tensor], torch.Tensor]:
    """For evaluation (many samples per run): per group ``PE A_h^T`` ``(R_j, H L_j, d)``, and
    ``Ed A_h^T`` ``(W, 3 H, d)`` (rows ``A_h (e1 - e0)``, ``A_h (ecls - e0)``, ``A_h e0``)."""
    W, H, d = k.AT.shape[0], shape.heads, shape.d
    AT = k.AT.view(W, H, d, d)
    peat, r0 = [], 0
    for T, Rj in zip(lay.lengths, lay.sizes):
        peat.append(torch.matmul(lay.PE[:T + 1], AT[r0:r0 + Rj]).view(Rj, H * (T + 1), d))
        r0 += Rj
    return peat, torch.matmul(lay.Ed[:, None], AT).view(W, 3 * H, d)


def _hand_eval_forward(p: dict[str, torch.Tensor], lay: _Layout, shape: ModelShape, k: _Consts,
                       ek: tuple[list[torch.Tensor], torch.Tensor], Xs: Sequence[torch.Tensor]) -> torch.Tensor:
    """The logits of :func:`_hand_forward` without what only the backward pass needs: the
    attention output is ``[P_1 .. P_H] [PE A_1^T; ..; PE A_H^T] + [w1, wc, 1] Ed A^T + c``
    (one ``(n x H L)(H L x d)`` product per group, :func:`_hand_eval_consts`)."""
    peat, EdAT = ek
    W, H = k.base.shape[0], shape.heads
    n = Xs[0].shape[1]
    wts = torch.empty(W, n, H, 3, dtype=k.base.dtype)
    wts[..., 2] = 1
    Ps, r0 = [], 0
    for j, X in enumerate(Xs):
        Rj, L = X.shape[0], lay.lengths[j] + 1
        r1 = r0 + Rj
        P, wts[r0:r1, :, :, 0] = _group_weights(k, r0, r1, L, X)
        wts[r0:r1, :, :, 1] = P[..., L - 1]
        Ps.append(P)
        r0 = r1
    attn = torch.baddbmm(k.c[:, None], wts.view(W, n, 3 * H), EdAT)
    r0 = 0
    for j, P in enumerate(Ps):
        Rj, L = P.shape[0], lay.lengths[j] + 1
        attn[r0:r0 + Rj].baddbmm_(P.view(Rj, n, H * L), peat[j])
        r0 += Rj
    h = attn
    if shape.dense_units is not None:
        h = torch.baddbmm(p["bd"][:, None], torch.relu_(attn), p["Wd"].transpose(1, 2))
    return torch.baddbmm(p["br"][:, None], h, p["Wr"].transpose(1, 2))


def _logit_grad(z: torch.Tensor, y: torch.Tensor, loss: str, *,
                with_loss: bool = False) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Gradient of the summed per-run mean losses (:func:`_per_run_loss`) with respect to ``z``;
    ``with_loss``: ``(per-run losses, gradient)``, the one-hot target formed once for both."""
    target = F.one_hot(y, z.shape[-1]).to(z.dtype)
    if loss == "bce-two-logits":
        grad = (torch.sigmoid(z) - target) / (z.shape[1] * z.shape[2])
        if with_loss:     # the same operations as _per_run_loss
            return F.binary_cross_entropy_with_logits(z, target, reduction="none").mean(dim=(-1, -2)), grad
        return grad
    grad = (torch.softmax(z, dim=-1) - target) / z.shape[1]
    return (_per_run_loss(z, y, loss), grad) if with_loss else grad


def _momentum_add(v: torch.Tensor, grad: torch.Tensor, beta: float, alpha: float) -> None:
    """``v <- beta v + alpha grad`` for a small tensor."""
    if beta != 1.0:
        v.mul_(beta)
    v.add_(grad, alpha=alpha)


def _hand_backward(p: dict[str, torch.Tensor], lay: _Layout, shape: ModelShape, k: _Consts,
                   cache: dict[str, Any], gz: torch.Tensor, g: dict[str, torch.Tensor],
                   alpha: float = 1.0, beta: float = 1.0) -> None:
    """Gradients of :func:`_hand_forward`'s logits against ``gz`` ``(W, n, n_classes)``:
    ``g <- beta g + alpha grad`` for every parameter (``g``: name -> contiguous ``(W, *shape)``,
    ``Wo`` as ``"WoT"``, :func:`_name_major`).  Zeros, ``beta = 1`` and ``alpha = 1`` give the
    gradient; the momentum, ``beta = mu`` and ``alpha = -lr`` give Keras' update
    ``v <- mu v - lr grad`` with no gradient buffer and no separate pass over the momentum: the
    products write ``beta v + alpha (product)`` directly (GEMM's own scalars).

    Back through ``z = N / D``, ``[N, D] = v0 + X V``: ``R = [gZ / D, -(gZ . z) / D]`` per sample
    and head, then per run one product ``M = X^T R`` ``(L x n)(n x H (d + 1))`` gives the gradient
    of ``V`` (rows ``t < T``) and of ``v0`` (row ``T``: the ``[CLS]`` column of ``X`` holds ones).
    The weights enter as ``k0_t [x0_t, 1]`` (in ``v0`` and, negated, in ``V_t``) and
    ``k1_t [x1_t, 1]`` (in ``V_t``), so with ``a_t = [x1_t, 1] . M_t``, ``b_t = [x0_t, 1] . M_t``
    and ``gamma_t = [x0_t, 1] . M_T``: ``grad k1_t = a_t``, ``grad k0_t = gamma_t - b_t`` and, the
    weights being ``exp`` of the scores, ``grad base_t = k0_t (gamma_t - b_t) + k1_t a_t`` and
    ``grad delta = sum_t k1_t a_t`` (a one's score is ``base_t + delta``).  The work on tensors of
    one sample per row is done per group, while that group's rows are in the cache."""
    al, be = alpha, beta
    sl = _step_layout(lay)
    W, n = gz.shape[:2]
    d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
    C, dt = d + 1, gz.dtype
    scale = 1.0 / math.sqrt(dk)
    h1 = cache["h1"]
    gbr = gz.sum(1)
    _momentum_add(g["br"], gbr, be, al)
    if shape.dense_units is None:
        g["Wr"].baddbmm_(gz.transpose(1, 2), h1, beta=be, alpha=al)
        gattn = torch.bmm(gz, p["Wr"])
    else:
        # h = a1 Wd^T + bd (a1 = relu(attn)) is not formed: with S = gz^T a1 (n_classes x d),
        # grad Wr = S Wd^T + gbr bd^T, grad Wd = Wr^T S, grad bd = Wr^T gbr and
        # grad a1 = gz (Wr Wd): products of rank n_classes instead of three (n x d)(d x m) ones
        S = torch.bmm(gz.transpose(1, 2), h1)
        g["Wr"].baddbmm_(S, p["Wd"].transpose(1, 2), beta=be, alpha=al)
        g["Wr"].addcmul_(gbr[..., None], p["bd"][:, None], value=al)
        g["Wd"].baddbmm_(p["Wr"].transpose(1, 2), S, beta=be, alpha=al)
        _momentum_add(g["bd"], torch.bmm(gbr[:, None], p["Wr"])[:, 0], be, al)
        gattn = torch.ops.aten.threshold_backward(torch.bmm(gz, cache["WrWd"]), h1, 0)
    # attn = Z A^T + c, c = bo + sum_h Wo_h bv_h, A_h^T = Wv_h^T Wo_h^T; Z = N / D per group
    Z, rho = cache["Z"], cache["rho"]
    gc = gattn.sum(1)
    _momentum_add(g["bo"], gc, be, al)
    gAT = torch.empty(W, H * d, d, dtype=dt)
    Lmax = k.k0.shape[2]
    a = torch.zeros(W, Lmax, H, dtype=dt)                                   # a_t (0 at [CLS] and after)
    b = torch.zeros(W, Lmax, H, dtype=dt)                                   # b_t
    m0 = torch.zeros(W, H, C, dtype=dt)                                     # M_T
    direct = []
    for j, X in enumerate(cache["Xs"]):
        r0, r1, T = sl.bounds[j]
        Rj, L = r1 - r0, T + 1
        gattn_j, Zj = gattn[r0:r1], Z[r0:r1]
        torch.bmm(Zj.transpose(1, 2), gattn_j, out=gAT[r0:r1])
        gZ = torch.bmm(gattn_j, k.AT[r0:r1].transpose(1, 2)).view(Rj, n, H, d)
        if k.direct[j]:
            direct.append((j, gZ))
            continue
        R = torch.empty(Rj, n, H, C, dtype=dt)
        RN = torch.mul(gZ, rho[r0:r1, ..., None], out=R[..., :d])
        torch.sum(RN * Zj.view(Rj, n, H, d), dim=-1, out=R[..., d]).neg_()
        M = torch.bmm(X.transpose(1, 2), R.view(Rj, n, H * C)).view(Rj, L, H, C)
        # b_t = [x0_t, 1] . M_t, and a_t = b_t + (e1 - e0) . M_t as one (1 x d+1)(d+1 x T H) product
        torch.sum(M[:, :T] * sl.x0g[j], dim=-1, out=b[r0:r1, :T])
        ad = torch.bmm(sl.d1[r0:r1], M.view(Rj, L * H, C)[:, :T * H].transpose(1, 2)).view(Rj, T, H)
        torch.add(b[r0:r1, :T], ad, out=a[r0:r1, :T])
        m0[r0:r1] = M[:, T]
    # gamma_t = m0 . [x0_t, 1] = m0 . [PE_t, 1] + m0 . e0 (t < T) or m0 . ecls (t = T)
    gamma = torch.mm(m0.view(W * H, C), sl.PEeT).view(W, H, Lmax)
    ge = torch.bmm(m0[..., :d], sl.E3T[..., :2])
    gamma.addcmul_(ge[..., 0:1], sl.data1).addcmul_(ge[..., 1:2], sl.cls1)
    G2 = torch.empty(W, H, Lmax + 1, dtype=dt)                              # [grad base, grad delta]
    gbase = torch.sub(gamma, b.transpose(1, 2), out=G2[..., :Lmax]).mul_(k.k0)
    ka = a.transpose(1, 2).mul_(k.k1)
    gbase += ka
    torch.sum(ka, dim=-1, out=G2[..., Lmax])
    for j, gZ in direct:
        r0, r1, T = sl.bounds[j]
        _direct_backward(*cache["Ps"][j], gZ, sl.Kx[r0:r1], G2[r0:r1])
    WoP = k.WoT.reshape(W * H, dv, d)
    gAT = gAT.view(W * H, d, d)
    gWoT = g["WoT"]
    gWoT.view(W * H, dv, d).baddbmm_(p["Wv"].reshape(W * H, dv, d), gAT, beta=be, alpha=al)
    gWoT.addcmul_(p["bv"][..., None], gc[:, None, None, :], value=al)
    g["Wv"].view(W * H, dv, d).baddbmm_(WoP, gAT.transpose(1, 2), beta=be, alpha=al)
    g["bv"].view(W, 1, H * dv).baddbmm_(gc[:, None, :], WoP.view(W, H * dv, d).transpose(1, 2),
                                        beta=be, alpha=al)
    # scores r_h . x0_t (+ bk . q_s, equal at every position); r_h = Wk_h^T q_s; q_s = (Wq xc + bq) / sqrt(dk)
    # grad r_h = sum_t gbase_t x0_t + gdelta (e1 - e0): the PE part in one product for all runs
    gbase = G2[..., :Lmax]
    gcb = gbase.sum(-1, keepdim=True)                                       # (W, H, 1), 0 up to round-off
    gT = gbase.gather(-1, sl.Tix.expand(W, H, 1))
    grv = torch.mm(gbase.reshape(W * H, Lmax), lay.PE).view(W, H, d)
    grv.baddbmm_(torch.cat([gcb - gT, gT, G2[..., Lmax:]], dim=-1), sl.E3)
    gcb = gcb[..., 0]
    qs = k.qs
    gqs = torch.bmm(grv.view(W * H, 1, d), p["Wk"].reshape(W * H, dk, d).transpose(1, 2)).view(W, H, dk)
    gqs.addcmul_(gcb[..., None], p["bk"])
    g["Wk"].view(W * H, dk, d).baddbmm_(qs.reshape(W * H, dk, 1), grv.view(W * H, 1, d), beta=be, alpha=al)
    if be != 1.0:
        g["bk"].mul_(be)
    g["bk"].addcmul_(gcb[..., None], qs, value=al)
    g["Wq"].view(W, H * dk, d).baddbmm_(gqs.view(W, H * dk, 1), lay.xc[:, None, :], beta=be, alpha=al * scale)
    _momentum_add(g["bq"], gqs, be, al * scale)


def _direct_backward(P: torch.Tensor, X: torch.Tensor, gZ: torch.Tensor, Kx: torch.Tensor,
                     G2: torch.Tensor) -> None:
    """:func:`_direct_forward`'s backward pass for its runs (``X``: the data, ``[CLS]`` column 0):
    ``[grad base, grad delta]`` into ``G2`` ``(R_j, H, Lmax + 1)`` from ``gZ`` ``(R_j, n, H, d)``."""
    Rj, n, H, L = P.shape
    Lmax = Kx.shape[1] - 1
    gP = torch.bmm(gZ.reshape(Rj, n * H, -1), Kx[:, :L].transpose(1, 2)).view(Rj, n, H, L)
    gP.addcmul_((gZ * Kx[:, None, None, Lmax]).sum(-1)[..., None], X[:, :, None, :])
    gS = torch._softmax_backward_data(gP, P, -1, P.dtype)
    G2.zero_()
    G2[..., :L] = gS.sum(1)
    G2[..., Lmax] = (gS * X[:, :, None, :]).sum((1, 3))


def _hand_loss_grad(flat: torch.Tensor, bits: torch.Tensor, embeddings: torch.Tensor,
                    labels: torch.Tensor, config: ProtocolConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-run mean loss ``(R,)`` and its gradient ``(R, P)`` for ``R`` runs of one length, by the
    hand-written forward and backward the trainer uses (``method="softmax"``); for the tests."""
    config = _check_config(config)
    shape = config.model_shape
    R, n, T = _check_inputs(flat, bits, embeddings, shape)
    flat = flat.detach()
    lay = _layout([T] * R, embeddings, shape.d, flat.dtype)
    p = unflatten_unchecked(flat, shape)
    k = _hand_consts(p, lay, shape)
    X = _ones_indicator(bits, flat.dtype)
    X[..., T] = 1                                       # the [CLS] column of ones (_hand_forward)
    z, cache = _hand_forward(p, lay, shape, k, [X])
    y = labels.long()
    _, grads = _name_major(torch.zeros_like(flat), shape, wo_t=True)
    _hand_backward(p, lay, shape, k, cache, _logit_grad(z, y, config.loss), grads)
    return _per_run_loss(z, y, config.loss), _flat_of(grads, R)


# ------------------------------------------------------------------------------ the trainer
def _name_major(flat: torch.Tensor, shape: ModelShape, *,
                wo_t: bool = False) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``flat`` ``(W, P)`` -> a 1-d buffer holding every parameter as a contiguous ``(W, *shape)``
    block, and those blocks (views of it) by name.  ``wo_t``: ``Wo`` is kept as ``"WoT"``
    ``(W, H, dv, d)`` (``Wo_h^T``), the layout every product of the hand-written step reads and
    writes it in (no per-step permute copy); :func:`_flat_of` turns it back."""
    W = flat.shape[0]
    parts = unflatten_unchecked(flat, shape)
    if wo_t:
        parts = {("WoT" if k == "Wo" else k): (v.permute(0, 2, 3, 1) if k == "Wo" else v)
                 for k, v in parts.items()}
    buf = torch.cat([v.reshape(-1) for v in parts.values()]) if W else flat.new_zeros(0)
    views, pos = {}, 0
    for k, v in parts.items():
        views[k] = buf[pos:pos + v.numel()].view(v.shape)
        pos += v.numel()
    return buf, views


def _flat_of(views: dict[str, torch.Tensor], W: int) -> torch.Tensor:
    """The inverse of :func:`_name_major`: ``(W, P)``."""
    return torch.cat([(v.detach().permute(0, 3, 1, 2) if k == "WoT" else v.detach()).reshape(W, -1)
                      for k, v in views.items()], dim=1)


@dataclasses.dataclass
class _Bank:
    """Tensors of all runs of one length ``T`` (rows in ``run_ids`` order)."""

    T: int
    run_ids: list[int]
    PE: torch.Tensor          # (L, d)
    E: torch.Tensor           # (R_T, 3, d)
    Xtr: torch.Tensor         # (R_T, n_train, L) ones indicator, dtype of the computation
    ytr: torch.Tensor         # (R_T, n_train)
    Xva: torch.Tensor         # (R_T, n_val, L) ones indicator, dtype of the computation
    yva: torch.Tensor         # (R_T, n_val)


@dataclasses.dataclass
class _Group:
    """Consecutive runs ``[start, stop)`` of the work set, all of one length: rows ``local`` of
    ``bank``; ``Xtr`` their training indicators."""

    bank: _Bank
    local: torch.Tensor
    start: int
    stop: int
    Xtr: torch.Tensor


_BEST_KEYS = ("val_loss", "val_acc", "train_loss", "train_acc", "l1", "l1_no_bias")


class StructuredTrainer:
    """All runs of a sweep, trained at once (see the module docstring).

    ``StructuredTrainer(config, data=None, method="softmax")`` builds the data (or takes
    :func:`build_authors_data`'s list) and the initial state; :meth:`run_epoch` trains one epoch
    of every run still training; :meth:`end_epoch` applies early stopping, evaluation and
    best-epoch selection; :meth:`state_dict` / :meth:`load_state_dict` are the checkpoint.
    :func:`train_structured` is the loop with checkpoints and a progress bar.

    State, per run in ``config.runs`` order: ``flat``/``mom`` ``(R, P)`` parameters and momentum
    (rows of runs still training are refreshed by :meth:`state_dict` and :meth:`evaluate`; the
    work copies are updated in place), ``best_flat`` ``(R, P)`` the weights of the best epoch,
    ``best`` (metrics at it) and ``best_epoch``, ``active``, ``stop_epoch`` and ``stop_reason``
    (``"train-accuracy-1"``, ``"val-patience"``, ``"max-epochs"``; ``""`` while training),
    ``steps`` (optimizer steps), ``generators`` (shuffling); ``epoch`` (finished epochs),
    ``history`` (one row per evaluation), ``fallbacks`` (steps that fell back to the softmax).
    """

    def __init__(self, config: ProtocolConfig, *, data: Sequence[AuthorsRun] | None = None,
                 method: str = "softmax") -> None:
        self.config = _check_config(config)
        self.method = _check_method(method)
        self.shape = config.model_shape
        self.dtype = _DTYPES[config.dtype]
        runs = config.runs
        self.data = list(data) if data is not None else build_authors_data(config)
        if len(self.data) != len(runs) or any((r.T, r.seed) != rs for r, rs in zip(self.data, runs)):
            raise ValueError("data must hold one AuthorsRun per (T, seed) of config.runs, in order")
        for r in self.data:
            if r.train_bits.shape != (config.n_train, r.T) or r.val_bits.shape != (config.n_val, r.T):
                raise ValueError(f"data of run (T={r.T}, seed={r.seed}) does not have "
                                 f"n_train={config.n_train}, n_val={config.n_val}")
        self._banks = self._build_banks()
        self._bias = bias_mask(self.shape)
        self._rates: list[float] = []
        R, P, dt = len(runs), self.shape.size, self.dtype
        self.epoch = 0
        self.flat = torch.stack([init_authors_params(self.shape, generator=run_generator(T, s, "init"),
                                                     dtype=dt) for T, s in runs])
        self.mom = torch.zeros(R, P, dtype=dt)
        self.best_flat = self.flat.clone()
        self.active = torch.ones(R, dtype=torch.bool)
        self.stop_epoch = torch.full((R,), -1, dtype=torch.int64)
        self.stop_reason = [""] * R
        self.steps = torch.zeros(R, dtype=torch.int64)
        self.best = {k: torch.full((R,), math.inf if k == "val_loss" else math.nan, dtype=torch.float64)
                     for k in _BEST_KEYS}
        self.best_epoch = torch.full((R,), -1, dtype=torch.int64)
        self.generators = [run_generator(T, s, "shuffle") for T, s in runs]
        self.history: list[dict[str, Any]] = []
        self.fallbacks = 0
        self.wall_time_s = 0.0
        # CPU seconds of the training processes, counted since epoch ``cpu_time_since_epoch``
        # (checkpoints written before this counter existed resume with it at their epoch)
        self.cpu_time_s = 0.0
        self.cpu_time_since_epoch = 0
        self._last_running: dict[str, torch.Tensor] = {}
        self._rebuild()

    # -- data and work set -------------------------------------------------------------------
    def _build_banks(self) -> dict[int, _Bank]:
        dt, d = self.dtype, self.shape.d
        banks = {}
        for T in self.config.Ts:
            ids = [i for i, r in enumerate(self.data) if r.T == T]
            rs = [self.data[i] for i in ids]
            banks[T] = _Bank(
                T=T, run_ids=ids, PE=authors_positional_encoding(T + 1, d, dtype=dt),
                E=torch.stack([r.embeddings for r in rs]).to(dt),
                Xtr=_ones_indicator(torch.stack([r.train_bits for r in rs]), dt),
                ytr=torch.stack([r.train_labels for r in rs]),
                Xva=_ones_indicator(torch.stack([r.val_bits for r in rs]), dt),
                yva=torch.stack([r.val_labels for r in rs]))
        return banks

    def _rebuild(self) -> None:
        """(Re)form the work set: the active runs, grouped by ``T``, as contiguous rows."""
        groups, order, pos = [], [], 0
        for bank in self._banks.values():
            loc = [j for j, i in enumerate(bank.run_ids) if bool(self.active[i])]
            if not loc:
                continue
            lt = torch.tensor(loc, dtype=torch.long)
            Xtr = bank.Xtr.index_select(0, lt)
            if self.method == "softmax":
                Xtr[..., bank.T] = 1          # the [CLS] column of ones of _hand_forward
            groups.append(_Group(bank=bank, local=lt, start=pos, stop=pos + len(loc), Xtr=Xtr))
            order.extend(bank.run_ids[j] for j in loc)
            pos += len(loc)
        self._groups = groups
        self._work_ids = torch.tensor(order, dtype=torch.long)
        # the work tensors are name-major (every parameter a contiguous ``(W, *shape)`` block of
        # one buffer; for the hand-written step Wo as Wo_h^T): the products read and write them
        # without copies, and the update of the weights is one operation
        hand = self.method == "softmax"
        self._wbuf, self._leaves = _name_major(self.flat.index_select(0, self._work_ids), self.shape, wo_t=hand)
        self._mbuf, self._moms = _name_major(self.mom.index_select(0, self._work_ids), self.shape, wo_t=hand)
        if not groups:
            return
        # autograd leaves for the factorized method; the hand-written backward (direct softmax)
        # adds its products into the momentum views; the update writes through
        if self.method != "softmax":
            self._leaves = {k: v.requires_grad_(True) for k, v in self._leaves.items()}
        ptr = (self._wbuf.untyped_storage().data_ptr(), self._mbuf.untyped_storage().data_ptr())
        if any((a.untyped_storage().data_ptr(), b.untyped_storage().data_ptr()) != ptr
               for a, b in zip(self._leaves.values(), self._moms.values())):
            raise RuntimeError("parameter views must share the work tensors' storage")
        self._ytr = torch.cat([g.bank.ytr.index_select(0, g.local) for g in groups])
        # row offsets of every work run in its group's flattened training data
        self._row_offsets = torch.cat([torch.arange(g.stop - g.start) * self.config.n_train
                                       for g in groups])[:, None]
        self._lay = self._layout_of(groups)

    def _layout_of(self, groups: Sequence[_Group]) -> _Layout:
        lengths = [g.bank.T for g in groups for _ in range(g.local.numel())]
        E = torch.cat([g.bank.E.index_select(0, g.local) for g in groups])
        return _layout(lengths, E, self.shape.d, self.dtype)

    @property
    def _wflat(self) -> torch.Tensor:
        """The work parameters as ``(W, P)`` (a copy)."""
        return _flat_of(self._leaves, self._work_ids.numel())

    @property
    def _wmom(self) -> torch.Tensor:
        return _flat_of(self._moms, self._work_ids.numel())

    def _write_back(self) -> None:
        if self._work_ids.numel():
            with torch.no_grad():
                self.flat.index_copy_(0, self._work_ids, self._wflat)
                self.mom.index_copy_(0, self._work_ids, self._wmom)

    @property
    def n_training(self) -> int:
        """Number of runs still training."""
        return int(self.active.sum())

    @property
    def training_runs(self) -> list[int]:
        """Indices (into ``config.runs``) of the runs still training, in the order of the rows of
        :meth:`run_epoch`'s metrics and :meth:`evaluate_work`'s positions."""
        return self._work_ids.tolist()

    @torch.no_grad()
    def evaluate(self, flat: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Metrics of every run (``(R,)`` each, ``config.runs`` order, keys as
        :meth:`evaluate_work`) with parameters ``flat`` ``(R, P)`` (default: the current ones),
        e.g. the best-epoch parameters returned by :func:`train_structured`."""
        self._write_back()
        flat = self.flat if flat is None else flat
        if not isinstance(flat, torch.Tensor) or tuple(flat.shape) != tuple(self.flat.shape):
            raise ValueError(f"flat must be a tensor of shape {tuple(self.flat.shape)}")
        flat = flat.to(self.dtype)
        groups, order = [], []
        for bank in self._banks.values():
            groups.append(_Group(bank=bank, local=torch.arange(len(bank.run_ids)), start=0, stop=0,
                                 Xtr=bank.Xtr))
            order.extend(bank.run_ids)
        idx = torch.tensor(order, dtype=torch.long)
        p = unflatten_unchecked(flat.index_select(0, idx), self.shape)
        lay = self._layout_of(groups)
        out = {}
        for split in ("train", "val"):
            out[f"{split}_loss"], out[f"{split}_acc"] = self._eval_split(p, lay, groups, split)
        absw = flat.index_select(0, idx).abs().double()
        out["l1"] = absw.sum(1)
        out["l1_no_bias"] = absw[:, ~self._bias].sum(1)
        inv = torch.empty_like(idx)
        inv[idx] = torch.arange(idx.numel())
        return {k: v[inv] for k, v in out.items()}

    def learning_rate(self, epoch: int) -> float:
        """The learning rate of (0-based) epoch ``epoch`` (:func:`~.protocol.learning_rates`)."""
        if epoch >= len(self._rates):
            self._rates = learning_rates(self.config, max(2 * epoch + 1, 4_096))
        return self._rates[epoch]

    # -- one epoch ---------------------------------------------------------------------------
    def run_epoch(self) -> dict[str, torch.Tensor]:
        """Train every active run for one epoch (``ceil(n_train / batch_size)`` SGD steps).

        Returns the epoch's running metrics of the work set as Keras logs them: ``correct``
        (training samples classified correctly, each counted at its minibatch's forward, before
        that minibatch's update) and ``loss`` (sample-weighted mean of the minibatch losses).
        """
        cfg, shape = self.config, self.shape
        n, bs = cfg.n_train, cfg.batch_size
        W = self._work_ids.numel()
        if W == 0:
            raise RuntimeError("no run is training")
        lr = self.learning_rate(self.epoch)
        perms = torch.stack([torch.randperm(n, generator=self.generators[i])
                             for i in self._work_ids.tolist()])
        correct = torch.zeros(W, dtype=torch.int64)
        loss_sum = torch.zeros(W, dtype=torch.float64)
        names = list(self._leaves)
        leaves = [self._leaves[k] for k in names]
        for s in range(0, n, bs):
            rows = perms[:, s:s + bs]
            b = rows.shape[1]
            if self.method == "softmax":
                self._hand_step(rows, lr, correct, loss_sum)
                continue

            def fetch(j: int, sel: torch.Tensor | None, rows: torch.Tensor = rows, b: int = b) -> torch.Tensor:
                g = self._groups[j]
                Rj, L = g.stop - g.start, g.bank.T + 1
                idx = rows[g.start:g.stop, :, None].expand(Rj, b, L)
                return _select(torch.gather(g.Xtr, 1, idx), sel)

            z, fb = _logits(self._leaves, self._lay, shape, fetch, self.method)
            self.fallbacks += int(fb)
            y = torch.gather(self._ytr, 1, rows)
            loss = _per_run_loss(z, y, cfg.loss)
            grads = torch.autograd.grad(loss.sum(), leaves)
            with torch.no_grad():
                correct += (z.argmax(-1) == y).sum(-1)
                loss_sum += loss.double() * b
                for k, gr in zip(names, grads):
                    self._moms[k].mul_(cfg.momentum).add_(gr, alpha=-lr)
                    self._leaves[k].add_(self._moms[k])
        self.steps.index_add_(0, self._work_ids, torch.full((W,), cfg.steps_per_epoch, dtype=torch.int64))
        self.epoch += 1
        self._last_running = {"correct": correct, "loss": loss_sum / n}
        return self._last_running

    @torch.no_grad()
    def _hand_step(self, rows: torch.Tensor, lr: float, correct: torch.Tensor,
                   loss_sum: torch.Tensor) -> None:
        """One SGD step of every work run on minibatch ``rows`` ``(W, b)`` by the hand-written
        forward and backward (:func:`_hand_forward`, :func:`_hand_backward`, whose products write
        Keras' ``mu v - lr grad`` into the momentum ``v``); then the weights of all runs take the
        momentum in one operation."""
        cfg, shape, p = self.config, self.shape, self._leaves
        b = rows.shape[1]
        flat_rows = (rows + self._row_offsets).flatten()
        Xs = []
        for g in self._groups:
            Rj, n, L = g.Xtr.shape
            Xs.append(g.Xtr.view(Rj * n, L).index_select(0, flat_rows[g.start * b:g.stop * b]).view(Rj, b, L))
        k = _hand_consts(p, self._lay, shape)
        z, cache = _hand_forward(p, self._lay, shape, k, Xs)
        y = torch.gather(self._ytr, 1, rows)
        loss, gz = _logit_grad(z, y, cfg.loss, with_loss=True)
        _hand_backward(p, self._lay, shape, k, cache, gz, self._moms,
                       alpha=-lr, beta=cfg.momentum)
        correct += (z.argmax(-1) == y).sum(-1)
        loss_sum += loss.double() * b
        self._wbuf.add_(self._mbuf)

    # -- evaluation --------------------------------------------------------------------------
    @torch.no_grad()
    def evaluate_work(self, positions: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Training and validation loss and accuracy (float64) of work-set rows ``positions``
        (default: all; ascending), each over its full set, in chunks of ``config.val_chunk``, and
        the weight l1 norms with and without biases.  Keys ``train_loss``, ``train_acc``,
        ``val_loss``, ``val_acc``, ``l1``, ``l1_no_bias``, each ``(len(positions),)``."""
        W = self._work_ids.numel()
        pos = torch.arange(W) if positions is None else positions.long()
        groups = []
        for g in self._groups:
            sub = pos[(pos >= g.start) & (pos < g.stop)] - g.start
            if sub.numel():
                groups.append(_Group(bank=g.bank, local=g.local.index_select(0, sub), start=0, stop=0,
                                     Xtr=g.Xtr))
        p = {k: v.detach().index_select(0, pos) for k, v in self._leaves.items()}
        lay = self._layout_of(groups)
        out = {}
        for split in ("train", "val"):
            out[f"{split}_loss"], out[f"{split}_acc"] = self._eval_split(p, lay, groups, split)
        absw = self._wflat.index_select(0, pos).abs().double()
        out["l1"] = absw.sum(1)
        out["l1_no_bias"] = absw[:, ~self._bias].sum(1)
        return out

    def _eval_split(self, p: dict[str, torch.Tensor], lay: _Layout, groups: Sequence[_Group],
                    split: str) -> tuple[torch.Tensor, torch.Tensor]:
        banks_X = [g.bank.Xtr if split == "train" else g.bank.Xva for g in groups]
        Y = torch.cat([(g.bank.ytr if split == "train" else g.bank.yva).index_select(0, g.local)
                       for g in groups])
        W, n = Y.shape
        chunk = min(self.config.val_chunk, n)
        loss = torch.zeros(W, dtype=torch.float64)
        acc = torch.zeros(W, dtype=torch.float64)
        if self.method == "softmax":
            k = _hand_consts(p, lay, self.shape)
            ek = _hand_eval_consts(lay, self.shape, k)
            # at most ~2^20 scores per group and chunk: larger temporaries are fresh pages from
            # the system at every chunk (page faults cost more than the per-chunk overhead)
            per = max(Rj * self.shape.heads * (T + 1) for T, Rj in zip(lay.lengths, lay.sizes))
            chunk = min(chunk, max(1, _EVAL_SCORES // per))
            for s in range(0, n, chunk):
                m = min(chunk, n - s)
                Xs = []
                for g, X in zip(groups, banks_X):
                    X = X[:, s:s + m]
                    if g.local.numel() != X.shape[0] or not torch.equal(g.local, torch.arange(X.shape[0])):
                        X = X.index_select(0, g.local)
                    Xs.append(X)
                z = _hand_eval_forward(p, lay, self.shape, k, ek, Xs)
                y = Y[:, s:s + m]
                loss += _per_run_loss(z, y, self.config.loss).double() * (m / n)
                acc += (z.argmax(-1) == y).double().sum(-1) / n
            return loss, acc
        for s in range(0, n, chunk):
            m = min(chunk, n - s)
            def fetch(j: int, sel: torch.Tensor | None, s: int = s, m: int = m) -> torch.Tensor:
                g, X = groups[j], banks_X[j][:, s:s + m]
                if g.local.numel() != X.shape[0] or not torch.equal(g.local, torch.arange(X.shape[0])):
                    X = X.index_select(0, g.local)           # a subset of the length's runs
                return _select(X, sel)

            z, fb = _logits(p, lay, self.shape, fetch, self.method)
            self.fallbacks += int(fb)
            y = Y[:, s:s + m]
            loss += _per_run_loss(z, y, self.config.loss).double() * (m / n)
            acc += (z.argmax(-1) == y).double().sum(-1) / n
        return loss, acc

    # -- end of an epoch: stopping, evaluation, selection ------------------------------------
    def end_epoch(self) -> dict[str, Any]:
        """After :meth:`run_epoch`: the authors' early stopping (running training accuracy 1),
        evaluation (all runs on the schedule, a stopping run at its last epoch), best-epoch
        update (strictly lower validation loss), patience / maximum-epoch stopping, and removal of
        stopped runs from the work set.  Returns ``{"evaluated": [...], "stopped": [...]}``
        (run indices)."""
        cfg, epoch = self.config, self.epoch
        W = self._work_ids.numel()
        run = self._last_running
        stopping = torch.zeros(W, dtype=torch.bool)
        if cfg.early_stopping == "train-accuracy-1" and run:
            stopping = run["correct"] == cfg.n_train
        scheduled = cfg.evaluates_at(epoch)
        final = epoch >= cfg.max_epochs
        positions = torch.arange(W) if (scheduled or final) else torch.nonzero(stopping).flatten()
        evaluated: list[int] = []
        if positions.numel():
            m = self.evaluate_work(positions)
            ids = self._work_ids[positions]
            better = m["val_loss"] < self.best["val_loss"][ids]
            for k in _BEST_KEYS:
                self.best[k][ids] = torch.where(better, m[k], self.best[k][ids])
            self.best_epoch[ids] = torch.where(better, torch.tensor(epoch), self.best_epoch[ids])
            upd = ids[better]
            if upd.numel():
                self.best_flat.index_copy_(0, upd, self._wflat[positions[better]])
            evaluated = ids.tolist()
            row = {"epoch": epoch, "runs": evaluated,
                   **{k: m[k].tolist() for k in ("train_loss", "train_acc", "val_loss", "val_acc", "l1")}}
            if run:
                row["running_train_acc"] = (run["correct"][positions].double() / cfg.n_train).tolist()
                row["running_train_loss"] = run["loss"][positions].tolist()
            self.history.append(row)
        reasons = [""] * W
        for j in torch.nonzero(stopping).flatten().tolist():
            reasons[j] = "train-accuracy-1"
        if cfg.early_stopping == "val-patience":
            stale = (epoch - self.best_epoch[self._work_ids] >= cfg.patience) & (self.best_epoch[self._work_ids] >= 0)
            for j in torch.nonzero(stale & ~stopping).flatten().tolist():
                reasons[j] = "val-patience"
        if final:
            reasons = [r or "max-epochs" for r in reasons]
        stopped = []
        for j, why in enumerate(reasons):
            if why:
                i = int(self._work_ids[j])
                self.active[i] = False
                self.stop_epoch[i] = epoch
                self.stop_reason[i] = why
                stopped.append(i)
        if stopped:
            self._write_back()
            self._rebuild()
        return {"evaluated": evaluated, "stopped": stopped}

    # -- state -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume bit-identically (tensors on the CPU)."""
        self._write_back()
        return {"format": CHECKPOINT_FORMAT, "protocol": self.config.to_dict(), "method": self.method,
                "epoch": self.epoch, "flat": self.flat.clone(), "mom": self.mom.clone(),
                "best_flat": self.best_flat.clone(), "active": self.active.clone(),
                "stop_epoch": self.stop_epoch.clone(), "stop_reason": list(self.stop_reason),
                "steps": self.steps.clone(), "best": {k: v.clone() for k, v in self.best.items()},
                "best_epoch": self.best_epoch.clone(),
                "generators": [g.get_state() for g in self.generators],
                "history": list(self.history), "fallbacks": self.fallbacks,
                "wall_time_s": self.wall_time_s, "cpu_time_s": self.cpu_time_s,
                "cpu_time_since_epoch": self.cpu_time_since_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`; ``ValueError`` if it was written for another protocol."""
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError("state is not a structured-trainer checkpoint "
                             f"(format {state.get('format') if isinstance(state, dict) else None!r})")
        if state["protocol"] != self.config.to_dict() or state["method"] != self.method:
            raise ValueError("state was written for another protocol or method")
        self.epoch = int(state["epoch"])
        for key in ("flat", "mom", "best_flat", "active", "stop_epoch", "steps", "best_epoch"):
            setattr(self, key, state[key].clone())
        self.best = {k: v.clone() for k, v in state["best"].items()}
        self.stop_reason = list(state["stop_reason"])
        for g, s in zip(self.generators, state["generators"]):
            g.set_state(s)
        self.history = list(state["history"])
        self.fallbacks = int(state["fallbacks"])
        self.wall_time_s = float(state["wall_time_s"])
        self.cpu_time_s = float(state.get("cpu_time_s", 0.0))
        self.cpu_time_since_epoch = int(state.get("cpu_time_since_epoch", self.epoch))
        self._last_running = {}
        self._rebuild()

    def records(self) -> list[dict[str, Any]]:
        """One record per run at its best epoch (the quantities of Figures 1-3)."""
        out = []
        for i, r in enumerate(self.data):
            rec = {"T": r.T, "seed": r.seed, "index_set": r.index_set.tolist(),
                   "best_epoch": int(self.best_epoch[i]),
                   "train_loss": float(self.best["train_loss"][i]),
                   "train_acc": float(self.best["train_acc"][i]),
                   "val_loss": float(self.best["val_loss"][i]), "val_acc": float(self.best["val_acc"][i]),
                   "weight_l1": float(self.best["l1"][i]), "weight_l1_no_bias": float(self.best["l1_no_bias"][i]),
                   "stop_epoch": int(self.stop_epoch[i]), "stop_reason": self.stop_reason[i],
                   "optimizer_steps": int(self.steps[i])}
            rec["gen_gap"] = rec["val_loss"] - rec["train_loss"]
            rec["authors_printed_gap"] = rec["train_loss"] - rec["val_loss"]
            out.append(rec)
        return out


def train_structured(config: ProtocolConfig, *, checkpoint: str | Path | None = None,
                     stop_at_epoch: int | None = None, progress: bool = True,
                     max_wall_s: float | None = None, data: Sequence[AuthorsRun] | None = None,
                     method: str = "softmax") -> dict[str, Any] | None:
    """Train every run of ``config`` (the authors' protocol) at once; return per-run records.

    ``checkpoint``: file to resume from (if present and written for the same ``config`` and
    ``method``) and to write atomically every ``config.checkpoint_every`` epochs, when a run stops
    and at the end.  ``stop_at_epoch``: stop after that epoch (checkpoint written) and return
    ``None`` (a deliberate interruption, used to test resuming).  ``max_wall_s``: end at the
    first epoch end past this many seconds of this call (evaluated, checkpointed; rerun to
    continue).  ``progress``: a tqdm bar (epochs/s and the number of runs still training).

    Returns ``{"runs", "history", "epochs", "wall_time_s", "best_params" (R, P), "fallbacks",
    "finished"}``; ``runs`` as :meth:`StructuredTrainer.records`.
    """
    config = _check_config(config)
    check_bool(progress, "progress")
    if checkpoint is not None:
        check_path(checkpoint, "checkpoint")
    if stop_at_epoch is not None:
        stop_at_epoch = check_int(stop_at_epoch, "stop_at_epoch", minimum=1)
    if max_wall_s is not None and (isinstance(max_wall_s, bool) or not isinstance(max_wall_s, (int, float))
                                   or not max_wall_s > 0):
        raise ValueError(f"max_wall_s must be a positive number of seconds, got {max_wall_s!r}")
    t0 = time.perf_counter()
    trainer = StructuredTrainer(config, data=data, method=method)
    if checkpoint is not None:
        state = load_checkpoint(checkpoint)
        if state is not None:
            try:
                trainer.load_state_dict(state)
            except ValueError as exc:
                raise ValueError(f"checkpoint {checkpoint}: {exc}") from None
    wall_before, cpu_before, c0 = trainer.wall_time_s, trainer.cpu_time_s, time.process_time()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.max_epochs, initial=trainer.epoch, desc="sparse majority", unit="epoch",
                   leave=False)
        bar.set_postfix(training=trainer.n_training)
    try:
        while trainer.epoch < config.max_epochs and trainer.n_training:
            trainer.run_epoch()
            ev = trainer.end_epoch()
            epoch = trainer.epoch
            if bar is not None:
                bar.update(1)
                if ev["stopped"] or ev["evaluated"]:
                    bar.set_postfix(training=trainer.n_training)
            done = epoch >= config.max_epochs or not trainer.n_training
            out_of_time = max_wall_s is not None and time.perf_counter() - t0 > max_wall_s
            stop = stop_at_epoch is not None and epoch >= stop_at_epoch
            if checkpoint is not None and (epoch % config.checkpoint_every == 0 or ev["stopped"]
                                           or done or stop or out_of_time):
                trainer.wall_time_s = wall_before + time.perf_counter() - t0
                trainer.cpu_time_s = cpu_before + time.process_time() - c0
                save_checkpoint(checkpoint, trainer.state_dict())
            if stop and not done:
                return None
            if out_of_time:
                break
    finally:
        if bar is not None:
            bar.close()
    trainer.wall_time_s = wall_before + time.perf_counter() - t0
    trainer.cpu_time_s = cpu_before + time.process_time() - c0
    trainer._write_back()
    return {"runs": trainer.records(), "history": trainer.history, "epochs": trainer.epoch,
            "wall_time_s": trainer.wall_time_s, "cpu_time_s": trainer.cpu_time_s,
            "cpu_time_since_epoch": trainer.cpu_time_since_epoch, "best_params": trainer.best_flat.clone(),
            "fallbacks": trainer.fallbacks, "finished": not trainer.n_training}


def structured_flops(config: ProtocolConfig, T: int, *, batch: int | None = None,
                     method: str = "softmax") -> dict[str, int]:
    """Floating-point operations of the matrix products of one training step of one run of
    length ``T`` (minibatch ``batch``, default ``config.batch_size``), as the trainer issues them:
    ``2 m k n`` per ``(m x k)(k x n)`` product, the bias of a fused product not counted.
    ``method="softmax"``: the hand-written forward and backward of :class:`StructuredTrainer`
    (the attention taken by products with the 0/1 inputs, the Dense layer and the read-out
    folded into one ``C x d`` matrix per run); ``"factorized"``: the autograd path of
    :func:`structured_logits`.  Element-wise work (exponentials, the softmax normalization, the
    loss) is not counted.  The products over the positional table span the longest length of
    ``config.Ts`` (the trainer lays every run out on one table).  ``tests/trauger/
    test_structured_trainer.py`` holds this count equal to the products recorded from the
    trainer's steps (:func:`~.benchmark.record_products`) on shapes where every dimension
    differs, with and without the Dense layer, one length and several.

    Returns ``{"forward", "backward", "total", "per_sample_forward"}`` (``per_sample_forward``:
    the part of the forward that grows with the batch, divided by it).
    """
    config = _check_config(config)
    method = _check_method(method)
    T = check_int(T, "T", minimum=1)
    b = config.batch_size if batch is None else check_int(batch, "batch", minimum=1)
    s = config.model_shape
    d, H, dk, dv, L, C = s.d, s.heads, s.key_dim, s.value_dim, T + 1, s.n_classes
    Lp = max(T, *config.Ts) + 1           # the products over the positional table span every length
    dense = s.dense_units is not None
    m = s.dense_units if dense else d      # the width the read-out reads
    if method == "softmax":
        # per run: query, key scores, [CLS] constants, positional scores, W_v W_o, value bias,
        # the scores' table; with a Dense layer, the read-out folded through it (W2 W1, b2 + W2 b1)
        run_f = (4 * H * dk * d + 6 * H * d + 2 * H * d * Lp + 2 * H * d * d * dv + 2 * H * dv * d
                 + 2 * H * Lp * (d + 1) + (2 * C * m * d + 2 * C * m if dense else 0))
        run_b = (6 * H * dk * d + 6 * H * d + 2 * H * d * Lp + 4 * H * d * d * dv + 2 * H * dv * d
                 + 2 * H * Lp * (d + 1) + (4 * C * m * d + 2 * C * m if dense else 0)
                 + 2 * (d + 1) * H * T + 2 * H * d * C)
        # per sample: the 0/1 inputs against the table, the mixed values through W_v W_o, logits
        per_f = 2 * T * H * (d + 1) + 2 * H * d * d + 2 * d * C
        per_b = 2 * L * H * (d + 1) + 4 * H * d * d + 4 * d * C
    else:
        run_f = (4 * H * dk * d + 6 * H * d + 2 * H * d * Lp + 2 * H * d * dv * d + 6 * H * d * d
                 + 2 * H * dv * d + 2 * H * L * d * d + 2 * H * L * d)
        run_b = (2 * H * Lp * d + 4 * H * L * d + 2 * H * L * d * d + 4 * H * dv * d + 6 * H * d * d + 4 * H * d * dv * d
                 + 6 * H * d + 6 * H * dk * d)
        # per sample: the mixing product, the w1/wc terms, the Dense layer, the read-out
        per_f = 2 * H * L * (d + 2) + 2 * (2 * H + 1) * d + (2 * d * m if dense else 0) + 2 * m * C
        per_b = 2 * H * L * (d + 2) + 4 * (2 * H + 1) * d + (4 * d * m if dense else 0) + 4 * m * C
    fwd = run_f + b * per_f
    bwd = run_b + b * per_b
    return {"forward": fwd, "backward": bwd, "total": fwd + bwd, "per_sample_forward": per_f}
