"""Structured training of the authors' sparse-majority model: every run of a sweep at once.

Trauger & Tewari, Sec. 6 train 50 independent one-layer models (10 lengths ``T`` x 5 runs) for up
to 200,000 epochs each.  :class:`StructuredTrainer` trains all of them together: the forward of
every run at once from the structure of the input (:mod:`~.structured_forward`, with autograd for
``method="factorized"``) or, by default, the hand-written forward and backward pass of
:mod:`~.structured_step`.  All runs share one flat parameter tensor ``(R, P)`` with a leading run
axis, one forward and one backward pass (the runs share no parameter, so the gradient of the
summed loss is each run's own gradient).  The optimizer is the authors' SGD with momentum in
Keras' form; each run has its own shuffling generator, its own early stopping (the first epoch
with a running training accuracy of 1, as the authors' callback), its own best epoch (lowest
validation loss) with the weights of that epoch, and a stopped run leaves the computation.
Checkpoints (:func:`attention_theory.results.save_checkpoint`) make an interrupted sweep resume
bit-identically; :func:`train_structured` is the loop with checkpoints, :func:`structured_flops`
counts the products of one step.  Used by ``book/trauger/sparse-majority.md`` (through
:mod:`~.experiment`) and :mod:`~.benchmark`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any, Sequence

import torch

from attention_theory.results import load_checkpoint, save_checkpoint
from attention_theory.trauger.sparse_majority.authors_model import (
    AuthorsRun,
    authors_positional_encoding,
    bias_mask,
    init_authors_params,
    make_authors_run,
    run_generator,
    unflatten_unchecked,
)
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig, learning_rates
from attention_theory.trauger.sparse_majority.structured_forward import (
    Layout,
    batched_logits,
    check_authors_config,
    check_method,
    make_layout,
    ones_indicator,
    per_run_loss,
    select_indicator,
)
from attention_theory.trauger.sparse_majority.structured_step import (
    flat_of,
    hand_backward,
    hand_consts,
    hand_eval_consts,
    hand_eval_forward,
    hand_forward,
    logit_grad,
    name_major,
)
from attention_theory.validation import check_bool, check_int, check_path

__all__ = ["build_authors_data", "StructuredTrainer", "train_structured", "structured_flops",
           "CHECKPOINT_FORMAT"]

#: Version tag of the checkpoints written by :class:`StructuredTrainer`.
CHECKPOINT_FORMAT = "trauger-sparse-majority-structured-1"

_DTYPES = {"float32": torch.float32, "float64": torch.float64}
#: Most attention scores per length group in one chunk of an evaluation (direct softmax).
_EVAL_SCORES = 2 ** 20


def build_authors_data(config: ProtocolConfig) -> list[AuthorsRun]:
    """The data of every run of ``config``, in the order of ``config.runs``
    (:func:`~.authors_model.make_authors_run`)."""
    config = check_authors_config(config)
    return [make_authors_run(T, seed=s, n_train=config.n_train, n_val=config.n_val, k=config.k,
                             d=config.d) for T, s in config.runs]


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
    """All runs of a sweep, trained at once (see the module docstring and :mod:`~.structured_step`).

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
        self.config = check_authors_config(config)
        self.method = check_method(method)
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
                Xtr=ones_indicator(torch.stack([r.train_bits for r in rs]), dt),
                ytr=torch.stack([r.train_labels for r in rs]),
                Xva=ones_indicator(torch.stack([r.val_bits for r in rs]), dt),
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
                Xtr[..., bank.T] = 1          # the [CLS] column of ones of hand_forward
            groups.append(_Group(bank=bank, local=lt, start=pos, stop=pos + len(loc), Xtr=Xtr))
            order.extend(bank.run_ids[j] for j in loc)
            pos += len(loc)
        self._groups = groups
        self._work_ids = torch.tensor(order, dtype=torch.long)
        # the work tensors are name-major (every parameter a contiguous ``(W, *shape)`` block of
        # one buffer; for the hand-written step Wo as Wo_h^T): the products read and write them
        # without copies, and the update of the weights is one operation
        hand = self.method == "softmax"
        self._wbuf, self._leaves = name_major(self.flat.index_select(0, self._work_ids), self.shape,
                                              wo_t=hand)
        self._mbuf, self._moms = name_major(self.mom.index_select(0, self._work_ids), self.shape, wo_t=hand)
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

    def _layout_of(self, groups: Sequence[_Group]) -> Layout:
        lengths = [g.bank.T for g in groups for _ in range(g.local.numel())]
        E = torch.cat([g.bank.E.index_select(0, g.local) for g in groups])
        return make_layout(lengths, E, self.shape.d, self.dtype)

    @property
    def _wflat(self) -> torch.Tensor:
        """The work parameters as ``(W, P)`` (a copy)."""
        return flat_of(self._leaves, self._work_ids.numel())

    @property
    def _wmom(self) -> torch.Tensor:
        return flat_of(self._moms, self._work_ids.numel())

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

            def fetch(j: int, sel: torch.Tensor | None, rows: torch.Tensor = rows,
                      b: int = b) -> torch.Tensor:
                g = self._groups[j]
                Rj, L = g.stop - g.start, g.bank.T + 1
                idx = rows[g.start:g.stop, :, None].expand(Rj, b, L)
                return select_indicator(torch.gather(g.Xtr, 1, idx), sel)

            z, fb = batched_logits(self._leaves, self._lay, shape, fetch, self.method)
            self.fallbacks += int(fb)
            y = torch.gather(self._ytr, 1, rows)
            loss = per_run_loss(z, y, cfg.loss)
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
        forward and backward (:func:`hand_forward`, :func:`hand_backward`, whose products write
        Keras' ``mu v - lr grad`` into the momentum ``v``); then the weights of all runs take the
        momentum in one operation."""
        cfg, shape, p = self.config, self.shape, self._leaves
        b = rows.shape[1]
        flat_rows = (rows + self._row_offsets).flatten()
        Xs = []
        for g in self._groups:
            Rj, n, L = g.Xtr.shape
            Xs.append(g.Xtr.view(Rj * n, L).index_select(0, flat_rows[g.start * b:g.stop * b]).view(Rj, b, L))
        k = hand_consts(p, self._lay, shape)
        z, cache = hand_forward(p, self._lay, shape, k, Xs)
        y = torch.gather(self._ytr, 1, rows)
        loss, gz = logit_grad(z, y, cfg.loss, with_loss=True)
        hand_backward(p, self._lay, shape, k, cache, gz, self._moms,
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

    def _eval_split(self, p: dict[str, torch.Tensor], lay: Layout, groups: Sequence[_Group],
                    split: str) -> tuple[torch.Tensor, torch.Tensor]:
        banks_X = [g.bank.Xtr if split == "train" else g.bank.Xva for g in groups]
        Y = torch.cat([(g.bank.ytr if split == "train" else g.bank.yva).index_select(0, g.local)
                       for g in groups])
        W, n = Y.shape
        chunk = min(self.config.val_chunk, n)
        loss = torch.zeros(W, dtype=torch.float64)
        acc = torch.zeros(W, dtype=torch.float64)
        if self.method == "softmax":
            k = hand_consts(p, lay, self.shape)
            ek = hand_eval_consts(lay, self.shape, k)
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
                z = hand_eval_forward(p, lay, self.shape, k, ek, Xs)
                y = Y[:, s:s + m]
                loss += per_run_loss(z, y, self.config.loss).double() * (m / n)
                acc += (z.argmax(-1) == y).double().sum(-1) / n
            return loss, acc
        for s in range(0, n, chunk):
            m = min(chunk, n - s)
            def fetch(j: int, sel: torch.Tensor | None, s: int = s, m: int = m) -> torch.Tensor:
                g, X = groups[j], banks_X[j][:, s:s + m]
                if g.local.numel() != X.shape[0] or not torch.equal(g.local, torch.arange(X.shape[0])):
                    X = X.index_select(0, g.local)           # a subset of the length's runs
                return select_indicator(X, sel)

            z, fb = batched_logits(p, lay, self.shape, fetch, self.method)
            self.fallbacks += int(fb)
            y = Y[:, s:s + m]
            loss += per_run_loss(z, y, self.config.loss).double() * (m / n)
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
            best = self.best_epoch[self._work_ids]
            stale = (epoch - best >= cfg.patience) & (best >= 0)
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
                   "weight_l1": float(self.best["l1"][i]),
                   "weight_l1_no_bias": float(self.best["l1_no_bias"][i]),
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
    config = check_authors_config(config)
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
    :func:`~.structured_forward.structured_logits`.  Element-wise work (exponentials, the softmax
    normalization, the loss) is not counted.  The products over the positional table span the
    longest length of ``config.Ts`` (the trainer lays every run out on one table).  ``tests/trauger/
    test_structured_trainer.py`` holds this count equal to the products recorded from the
    trainer's steps (:func:`~.benchmark.record_products`) on shapes where every dimension
    differs, with and without the Dense layer, one length and several.

    Returns ``{"forward", "backward", "total", "per_sample_forward"}`` (``per_sample_forward``:
    the part of the forward that grows with the batch, divided by it).
    """
    config = check_authors_config(config)
    method = check_method(method)
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
        run_b = (2 * H * Lp * d + 4 * H * L * d + 2 * H * L * d * d + 4 * H * dv * d + 6 * H * d * d
                 + 4 * H * d * dv * d + 6 * H * d + 6 * H * dk * d)
        # per sample: the mixing product, the w1/wc terms, the Dense layer, the read-out
        per_f = 2 * H * L * (d + 2) + 2 * (2 * H + 1) * d + (2 * d * m if dense else 0) + 2 * m * C
        per_b = 2 * H * L * (d + 2) + 4 * (2 * H + 1) * d + (4 * d * m if dense else 0) + 4 * m * C
    fwd = run_f + b * per_f
    bwd = run_b + b * per_b
    return {"forward": fwd, "backward": bwd, "total": fwd + bwd, "per_sample_forward": per_f}
