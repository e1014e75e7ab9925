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

from attention_theory._validate import check_int
from attention_theory.results import load_checkpoint, save_checkpoint
from attention_theory.trauger.sparse_majority.authors_model import (
    AuthorsRun,
    ModelShape,
    authors_positional_encoding,
    bias_mask,
    init_authors_params,
    make_authors_run,
    run_generator,
    unflatten,
)
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig, learning_rates

__all__ = ["METHODS", "build_authors_data", "structured_logits", "structured_loss",
           "StructuredTrainer", "train_structured", "structured_flops", "CHECKPOINT_FORMAT"]

#: Ways of computing the attention: the direct softmax (default) and the factorized softmax.
METHODS = ("softmax", "factorized")
#: Version tag of the checkpoints written by :class:`StructuredTrainer`.
CHECKPOINT_FORMAT = "trauger-sparse-majority-structured-1"

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


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
    return _Layout(lengths=[g[0] for g in groups], sizes=[g[1] for g in groups], E=E.to(dtype),
                   PE=authors_positional_encoding(Lmax, d, dtype=dtype), Tr=Tr,
                   data1=(t < Tr[:, None]).to(dtype), cls1=(t == Tr[:, None]).to(dtype),
                   pad=t > Tr[:, None])


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
    if not flat.is_floating_point():
        raise TypeError(f"flat must be a floating-point tensor, got dtype {flat.dtype}")
    R = flat.shape[0]
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

    z, _ = _logits(unflatten(flat, shape), lay, shape, fetch, method)
    return z


def structured_loss(flat: torch.Tensor, bits: torch.Tensor, embeddings: torch.Tensor,
                    labels: torch.Tensor, config: ProtocolConfig, *,
                    method: str = "softmax") -> torch.Tensor:
    """Per-run mean loss ``(R,)`` (``config.loss``: the authors' two-logit binary cross-entropy)
    of :func:`structured_logits` against ``labels`` ``(R, n)``."""
    z = structured_logits(flat, bits, embeddings, config, method=method)
    if not isinstance(labels, torch.Tensor) or tuple(labels.shape) != tuple(z.shape[:2]):
        raise ValueError(f"labels must be a tensor of shape {tuple(z.shape[:2])}")
    return _per_run_loss(z, labels.long(), config.loss)


# ------------------------------------------------------------------------------ the trainer
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
            groups.append(_Group(bank=bank, local=lt, start=pos, stop=pos + len(loc),
                                 Xtr=bank.Xtr.index_select(0, lt)))
            order.extend(bank.run_ids[j] for j in loc)
            pos += len(loc)
        self._groups = groups
        self._work_ids = torch.tensor(order, dtype=torch.long)
        self._wflat = self.flat.index_select(0, self._work_ids)
        self._wmom = self.mom.index_select(0, self._work_ids)
        if not groups:
            self._leaves, self._moms = {}, {}
            return
        # one autograd leaf per parameter, a view of the work tensor: the backward pass writes
        # each gradient once and the update writes through to the work tensor
        self._leaves = {k: v.requires_grad_(True) for k, v in unflatten(self._wflat, self.shape).items()}
        self._moms = unflatten(self._wmom, self.shape)
        ptr = (self._wflat.untyped_storage().data_ptr(), self._wmom.untyped_storage().data_ptr())
        if any((a.untyped_storage().data_ptr(), b.untyped_storage().data_ptr()) != ptr
               for a, b in zip(self._leaves.values(), self._moms.values())):
            raise RuntimeError("parameter views must share the work tensors' storage")
        self._ytr = torch.cat([g.bank.ytr.index_select(0, g.local) for g in groups])
        self._lay = self._layout_of(groups)

    def _layout_of(self, groups: Sequence[_Group]) -> _Layout:
        lengths = [g.bank.T for g in groups for _ in range(g.local.numel())]
        E = torch.cat([g.bank.E.index_select(0, g.local) for g in groups])
        return _layout(lengths, E, self.shape.d, self.dtype)

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
        p = unflatten(flat.index_select(0, idx), self.shape)
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
                "wall_time_s": self.wall_time_s}

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
    wall_before = trainer.wall_time_s
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
                save_checkpoint(checkpoint, trainer.state_dict())
            if stop and not done:
                return None
            if out_of_time:
                break
    finally:
        if bar is not None:
            bar.close()
    trainer.wall_time_s = wall_before + time.perf_counter() - t0
    trainer._write_back()
    return {"runs": trainer.records(), "history": trainer.history, "epochs": trainer.epoch,
            "wall_time_s": trainer.wall_time_s, "best_params": trainer.best_flat.clone(),
            "fallbacks": trainer.fallbacks, "finished": not trainer.n_training}


def structured_flops(config: ProtocolConfig, T: int, *, batch: int | None = None,
                     method: str = "softmax") -> dict[str, int]:
    """Floating-point operations of one training step of one run of length ``T`` (minibatch
    ``batch``, default ``config.batch_size``), counting the matrix products as implemented
    (``2 m k n`` per ``(m x k)(k x n)``; a backward product only for operands that need a
    gradient: the data, ``PE`` and the embeddings need none).  Element-wise work (exponentials,
    the softmax of ``method="softmax"``, the loss) is not counted.

    Returns ``{"forward", "backward", "total", "per_sample_forward"}`` (``per_sample_forward``:
    the part of the forward that grows with the batch, divided by it).
    """
    config = _check_config(config)
    method = _check_method(method)
    T = check_int(T, "T", minimum=1)
    b = config.batch_size if batch is None else check_int(batch, "batch", minimum=1)
    s = config.model_shape
    d, H, dk, dv, L = s.d, s.heads, s.key_dim, s.value_dim, T + 1
    m = s.dense_units if s.dense_units is not None else d
    # (forward flops, backward factor) of every product; factor 2: both operands need a gradient
    run = [(2 * H * dk * d, 1), (2 * H * dk * d, 2), (2 * H * dk, 2), (2 * H * d * 3, 1),
           (2 * H * L * d, 1), (2 * H * d * dv * d, 2), (2 * H * L * d * d, 1),
           (2 * H * 3 * d * d, 1), (2 * d * H * dv, 2)]
    if method == "factorized":
        per = [(2 * H * L * (d + 2), 1)]
        run.append((2 * H * L * (d + 1), 1))                     # u * PEA and the totals
    else:
        per = [(2 * H * L * d, 2), (2 * H * L, 2)]               # P @ PEA and P * O summed
    per += [(2 * H * d * 2, 2)]                                  # w1, wc times A_h(e - e0)
    if s.dense_units is not None:
        per.append((2 * d * m, 2))
    per.append((2 * m * s.n_classes, 2))
    fwd = sum(f for f, _ in run) + b * sum(f for f, _ in per)
    bwd = sum(f * k for f, k in run) + b * sum(f * k for f, k in per)
    return {"forward": fwd, "backward": bwd, "total": fwd + bwd,
            "per_sample_forward": sum(f for f, _ in per)}
