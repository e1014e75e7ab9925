"""Batched multi-run training: every (T, seed) run of a sweep trained at once on one device.

The sweep of Trauger & Tewari, Sec. 6 is 50 small, independent models (10 lengths x 5
seeds), each trained with minibatches of 128 for up to 200,000 epochs.  Trained one after
the other, the time goes into Python and kernel-launch overhead, not arithmetic.  Here the
parameters of all runs are *stacked* along a leading run axis, the pure forward of
:mod:`attention_theory.trauger.sparse_majority.model` is evaluated on all runs in one call, and
the per-run losses are summed before one backward pass: since the runs share no
parameters, the gradient of the sum with respect to run ``r``'s block is exactly run
``r``'s own gradient, and the element-wise Adam update then acts on every run as if it
were trained alone.  Runs of different length ``T`` share the batch by padding to the
longest sequence with a masked ``PAD`` token (the padded keys get zero attention weight).

Per run the trainer keeps its own shuffling (a per-run permutation each epoch), its own
Adam step count, its **best epoch** (lowest validation cross-entropy, evaluated every
``eval_every`` epochs) with the metrics and parameters at that epoch, and its own early
stopping (no improvement for ``patience`` epochs freezes the run).  A checkpoint (all of
the above plus the shuffling generator's state) is written atomically every
``checkpoint_every`` epochs, so an interrupted sweep resumes where it stopped and ends
bit-identical to an uninterrupted one.

:func:`train_naive` is the loop a user would write (``torch.nn.MultiheadAttention``,
``torch.optim.Adam``, one model at a time, same hyper-parameters): a reference for the batched
trainer's numbers in the unit tests.  The trainers' speeds are measured by
:func:`~.benchmark.benchmark_trainers`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from attention_theory.results import load_checkpoint, save_checkpoint
from attention_theory.trauger._args import check_float_tensor, check_int_tensor
from attention_theory.trauger.sparse_majority import model as sm
from attention_theory.trauger.sparse_majority.data import PAD, embed, make_sparse_majority
from attention_theory.validation import (
    as_vector,
    check_bool,
    check_int,
    check_mapping,
    check_positive,
    check_seed,
    check_seeds,
    torch_generator,
)

__all__ = ["SweepConfig", "SweepData", "build_sweep_data", "train_batched", "train_naive",
           "evaluate", "adam_step", "BatchedEpochs"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """Everything that defines a sweep (recorded in the provenance and the checkpoint).

    ``patience`` is in epochs (``None``: no early stopping); ``eval_every`` and
    ``checkpoint_every`` in epochs (``checkpoint_every`` a multiple of ``eval_every``).
    """

    Ts: tuple[int, ...] = (20, 40, 60, 80, 100, 120, 140, 160, 180, 200)
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    n_train: int = 300
    n_val: int = 10_000
    k: int = 9
    d: int = 64
    heads: int = 2
    batch_size: int = 128
    max_epochs: int = 200_000
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-7
    eval_every: int = 500
    patience: int | None = None
    checkpoint_every: int = 5_000
    dtype: str = "float32"
    val_chunk: int = 500
    shuffle_seed: int = 12345

    def __post_init__(self) -> None:
        if not self.Ts or not self.seeds:
            raise ValueError("Ts and seeds must be non-empty")
        check_int(self.k, "k", minimum=1)
        for T in self.Ts:
            check_int(T, "Ts", minimum=self.k + 1)
        check_seeds(self.seeds, "seeds")
        for name in ("n_train", "n_val", "batch_size", "max_epochs", "eval_every",
                     "checkpoint_every", "val_chunk", "d", "heads"):
            check_int(getattr(self, name), name, minimum=1)
        if self.patience is not None:
            check_int(self.patience, "patience", minimum=1)
        if self.checkpoint_every % self.eval_every:
            raise ValueError("checkpoint_every must be a multiple of eval_every")
        if not (isinstance(self.lr, (int, float)) and math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a positive number, got {self.lr!r}")
        _check_betas(self.betas, "betas")
        check_positive(self.eps, "eps")
        check_seed(self.shuffle_seed, "shuffle_seed")
        if self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {tuple(_DTYPES)}, got {self.dtype!r}")

    @property
    def runs(self) -> list[tuple[int, int]]:
        """The ``(T, seed)`` pairs, in the order of the run axis."""
        return [(T, s) for T in self.Ts for s in self.seeds]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class SweepData:
    """Padded token tensors of every run: ``train_tokens (R, n_train, L)``, ``val_tokens
    (R, n_val, L)`` (uint8 to save memory), labels ``(R, n)``; ``L = max T + 1``."""

    train_tokens: torch.Tensor
    train_labels: torch.Tensor
    val_tokens: torch.Tensor
    val_labels: torch.Tensor
    index_sets: list[list[int]]


def _pad(tokens: torch.Tensor, L: int) -> torch.Tensor:
    out = torch.full((tokens.shape[0], L), PAD, dtype=torch.int64)
    out[:, :tokens.shape[1]] = tokens
    return out


def _check_config(config: Any) -> SweepConfig:
    if not isinstance(config, SweepConfig):
        raise TypeError(f"config must be a SweepConfig, got {type(config).__name__}")
    return config


def _check_betas(betas: Any, name: str) -> tuple[float, float]:
    """Adam's ``(beta1, beta2)``: two real numbers in ``[0, 1)``."""
    if isinstance(betas, (str, bytes)) or betas is None:
        raise TypeError(f"{name} must be a pair of numbers (beta1, beta2), got {betas!r}")
    b = as_vector(betas, name)
    if b.shape != (2,) or not bool(np.all((b >= 0) & (b < 1))):
        raise ValueError(f"{name} must be a pair of numbers in [0, 1), got {b.tolist()}")
    return float(b[0]), float(b[1])


def build_sweep_data(config: SweepConfig) -> SweepData:
    """Generate (deterministically from the seeds) and pad the data of every run."""
    config = _check_config(config)
    L = max(config.Ts) + 1
    tr, ytr, va, yva, idx = [], [], [], [], []
    for T, seed in config.runs:
        ds = make_sparse_majority(T, seed=seed, n_train=config.n_train, n_val=config.n_val,
                                  k=config.k)
        tr.append(_pad(ds.train_tokens, L))
        va.append(_pad(ds.val_tokens, L).to(torch.uint8))
        ytr.append(ds.train_labels)
        yva.append(ds.val_labels)
        idx.append(ds.index_set.tolist())
    return SweepData(torch.stack(tr), torch.stack(ytr), torch.stack(va), torch.stack(yva), idx)


def adam_step(params: dict[str, torch.Tensor], grads: Sequence[torch.Tensor],
              m: dict[str, torch.Tensor], v: dict[str, torch.Tensor], step: torch.Tensor,
              active: torch.Tensor, *, lr: float, betas: tuple[float, float],
              eps: float) -> None:
    """One Adam update (the ``torch.optim.Adam`` formula) of stacked runs, in place.

    ``params``, ``m``, ``v``: tensors ``(R, ...)`` by name (the same names and shapes);
    ``grads``: one tensor per parameter, in the order of ``params``.  ``step`` ``(R,)`` (integer)
    counts each run's updates; runs with ``active == False`` (``(R,)``, bool) are left untouched
    (parameters, moments and step count).  The trainer's loop runs the same update without
    these checks.
    """
    check_mapping(params, "params")
    if not params:
        raise ValueError("params must not be empty")
    if isinstance(grads, (str, bytes)) or not isinstance(grads, Sequence):
        raise TypeError(f"grads must be a sequence of tensors (one per parameter), got "
                        f"{type(grads).__name__}")
    if len(grads) != len(params):
        raise ValueError(f"grads must hold one tensor per parameter ({len(params)}), got {len(grads)}")
    check_mapping(m, "m", tuple(params))
    check_mapping(v, "v", tuple(params))
    R = None
    for (name, p), g in zip(params.items(), grads):
        check_float_tensor(p, f"params[{name!r}]", min_ndim=1, finite=False)
        R = p.shape[0] if R is None else R
        if p.shape[0] != R:
            raise ValueError(f"params[{name!r}] must have the run axis of length {R} first, got "
                             f"{tuple(p.shape)}")
        for t, label in ((g, "grads"), (m[name], "m"), (v[name], "v")):
            check_float_tensor(t, f"{label}[{name!r}]", finite=False)
            if t.shape != p.shape:
                raise ValueError(f"{label}[{name!r}] must have the shape {tuple(p.shape)} of "
                                 f"params[{name!r}], got {tuple(t.shape)}")
    check_int_tensor(step, "step", ndim=1, low=0)
    if step.dtype == torch.bool or step.shape != (R,):
        raise ValueError(f"step must be an integer tensor of shape ({R},), got {step.dtype} "
                         f"{tuple(step.shape)}")
    if not isinstance(active, torch.Tensor) or active.dtype != torch.bool:
        raise TypeError(f"active must be a bool tensor of shape ({R},), got "
                        f"{getattr(active, 'dtype', type(active))}")
    if active.shape != (R,):
        raise ValueError(f"active must have shape ({R},), got {tuple(active.shape)}")
    check_positive(lr, "lr")
    _check_betas(betas, "betas")
    check_positive(eps, "eps")
    _adam_step(params, grads, m, v, step, active, lr=lr, betas=betas, eps=eps)


def _adam_step(params: dict[str, torch.Tensor], grads: Sequence[torch.Tensor],
               m: dict[str, torch.Tensor], v: dict[str, torch.Tensor], step: torch.Tensor,
               active: torch.Tensor, *, lr: float, betas: tuple[float, float],
               eps: float) -> None:
    """:func:`adam_step` without validation (the trainer's inner loop)."""
    b1, b2 = betas
    step += active.to(step.dtype)
    t = step.clamp(min=1).to(torch.float64)
    bc1 = (1 - b1 ** t)
    bc2 = (1 - b2 ** t)
    with torch.no_grad():
        for (name, p), g in zip(params.items(), grads):
            shape = (-1,) + (1,) * (p.ndim - 1)
            act = active.reshape(shape)
            m_new = torch.lerp(m[name], g, 1 - b1)
            v_new = v[name] * b2 + (1 - b2) * g * g
            step_size = (lr / bc1).to(p.dtype).reshape(shape)
            denom = v_new.sqrt() / bc2.sqrt().to(p.dtype).reshape(shape) + eps
            m[name] = torch.where(act, m_new, m[name])
            v[name] = torch.where(act, v_new, v[name])
            p.copy_(torch.where(act, p - step_size * m_new / denom, p))


def evaluate(params: Mapping[str, torch.Tensor], tokens: torch.Tensor, labels: torch.Tensor, *,
             heads: int, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-run mean cross-entropy and accuracy ``(R,)`` on ``tokens (R, n, L)`` (integer tokens:
    ``[CLS]`` at position 0, then 0, 1 or ``PAD``) with ``labels (R, n)`` (0 or 1), in chunks of
    ``chunk`` samples."""
    _, B = sm.check_params(params)
    if len(B) != 1:
        raise ValueError(f"params must be stacked runs with one leading run axis, got run shape {B}")
    check_int_tensor(tokens, "tokens", ndim=3, low=0, high=PAD)
    if tokens.shape[0] != B[0]:
        raise ValueError(f"tokens must have shape ({B[0]}, n, L) (one row per run of params), "
                         f"got {tuple(tokens.shape)}")
    n_classes = params["Wc"].shape[-2]
    check_int_tensor(labels, "labels", ndim=2, low=0, high=n_classes - 1)
    if tuple(labels.shape) != tuple(tokens.shape[:2]):
        raise ValueError(f"labels must have shape {tuple(tokens.shape[:2])} (that of tokens without L), "
                         f"got {tuple(labels.shape)}")
    sm._heads(params["Wq"].shape[-1], heads)
    chunk = check_int(chunk, "chunk")
    return _evaluate(params, tokens, labels, heads=heads, chunk=chunk)


@torch.no_grad()
def _evaluate(params: Mapping[str, torch.Tensor], tokens: torch.Tensor, labels: torch.Tensor, *,
              heads: int, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`evaluate` without validation (the trainer's evaluations)."""
    R, n = labels.shape
    dev = params["Wq"].device
    loss = torch.zeros(R, dtype=torch.float64, device=dev)
    acc = torch.zeros(R, dtype=torch.float64, device=dev)
    for s in range(0, n, chunk):
        tok = tokens[:, s:s + chunk].to(dev, torch.int64)
        y = labels[:, s:s + chunk].to(dev)
        z = sm.logits(params, tok, heads=heads, shared_padding=True, validate=False)
        w = y.shape[1] / n
        loss += w * sm._cross_entropy(z, y).double()
        acc += w * sm._accuracy(z, y).double()
    return loss, acc


_BEST_KEYS = ("epoch", "train_loss", "train_acc", "val_loss", "val_acc", "l1", "l1_no_bias")


def _fresh_state(config: SweepConfig, device: torch.device) -> dict[str, Any]:
    dt = _DTYPES[config.dtype]
    R = len(config.runs)
    params = sm.stack_params([sm.init_params(config.d, seed=1000 * T + s, dtype=dt)
                              for T, s in config.runs])
    params = {k: t.to(device) for k, t in params.items()}
    gen = torch_generator(config.shuffle_seed)
    best = {k: torch.full((R,), math.inf if k == "val_loss" else math.nan, dtype=torch.float64)
            for k in _BEST_KEYS}
    best["epoch"] = torch.full((R,), -1, dtype=torch.int64)
    return {
        "epoch": 0,
        "params": params,
        "m": {k: torch.zeros_like(t) for k, t in params.items()},
        "v": {k: torch.zeros_like(t) for k, t in params.items()},
        "step": torch.zeros(R, dtype=torch.int64, device=device),
        "active": torch.ones(R, dtype=torch.bool, device=device),
        "stopped_epoch": torch.full((R,), -1, dtype=torch.int64),
        "best": best,
        "best_params": {k: t.detach().clone().cpu() for k, t in params.items()},
        "history": [],
        "gen_state": gen.get_state(),
        "wall_time_s": 0.0,
    }


def _epoch(state: dict[str, Any], gen: torch.Generator, tokens: torch.Tensor, labels: torch.Tensor,
           config: SweepConfig) -> int:
    """One epoch of :func:`train_batched` (a permutation per run, minibatches gathered from the
    padded ``tokens`` ``(R, n, L)``, the batched forward, the summed cross-entropy, one masked Adam
    step per minibatch), updating ``state`` in place; no evaluation.  Returns the optimizer steps
    taken (one per run and minibatch)."""
    params = state["params"]
    R, n = labels.shape
    L = tokens.shape[-1]
    bs = config.batch_size
    perm = torch.argsort(torch.rand(R, n, generator=gen), dim=1)
    for s in range(0, n, bs):
        idx = perm[:, s:s + bs].to(tokens.device)
        tok = torch.gather(tokens, 1, idx[..., None].expand(R, idx.shape[1], L))
        y = torch.gather(labels, 1, idx)
        z = sm.logits(params, tok, heads=config.heads, shared_padding=True, validate=False)
        loss = sm._cross_entropy(z, y).sum()
        grads = torch.autograd.grad(loss, list(params.values()))
        _adam_step(params, grads, state["m"], state["v"], state["step"], state["active"],
                   lr=config.lr, betas=config.betas, eps=config.eps)
    state["epoch"] += 1
    return R * -(-n // bs)


class BatchedEpochs:
    """The first edition's trainer (:func:`train_batched`) after its set-up, one epoch per call,
    without evaluation or checkpoints: what its steady state costs (used by
    :func:`~.benchmark.benchmark_trainers`).  ``config``: a :class:`SweepConfig`; ``data``: its
    :class:`SweepData` (built when ``None``)."""

    def __init__(self, config: SweepConfig, data: SweepData | None = None) -> None:
        self.config = _check_config(config)
        data = build_sweep_data(self.config) if data is None else data
        if not isinstance(data, SweepData):
            raise TypeError(f"data must be a SweepData, got {type(data).__name__}")
        self.state = _fresh_state(self.config, torch.device("cpu"))
        self.gen = torch.Generator()
        self.gen.set_state(self.state["gen_state"])
        for t in self.state["params"].values():
            t.requires_grad_(True)
        self.tokens, self.labels = data.train_tokens, data.train_labels

    def run_epoch(self) -> int:
        """Train one epoch; returns the optimizer steps taken (one per run and minibatch)."""
        return _epoch(self.state, self.gen, self.tokens, self.labels, self.config)


def _to_device(state: dict[str, Any], device: torch.device) -> dict[str, Any]:
    for key in ("params", "m", "v"):
        state[key] = {k: t.to(device) for k, t in state[key].items()}
    state["step"] = state["step"].to(device)
    state["active"] = state["active"].to(device)
    return state


def _checkpoint_payload(state: Mapping[str, Any], config: SweepConfig) -> dict[str, Any]:
    out = dict(state)
    for key in ("params", "m", "v"):
        out[key] = {k: t.detach().cpu() for k, t in state[key].items()}
    out["step"] = state["step"].cpu()
    out["active"] = state["active"].cpu()
    out["config"] = config.to_dict()
    return out


def _evaluate_and_select(state: dict[str, Any], data: SweepData, config: SweepConfig) -> None:
    params, epoch = state["params"], state["epoch"]
    tr_loss, tr_acc = _evaluate(params, data.train_tokens, data.train_labels, heads=config.heads,
                                chunk=config.val_chunk)
    va_loss, va_acc = _evaluate(params, data.val_tokens, data.val_labels, heads=config.heads,
                                chunk=config.val_chunk)
    tr_loss, tr_acc, va_loss, va_acc = (t.cpu() for t in (tr_loss, tr_acc, va_loss, va_acc))
    with torch.no_grad():
        l1 = sm.weight_l1(params).double().cpu()
        l1nb = sm.weight_l1(params, include_biases=False).double().cpu()
    active = state["active"].cpu()
    state["history"].append({"epoch": epoch, "train_loss": tr_loss.tolist(),
                             "val_loss": va_loss.tolist(), "val_acc": va_acc.tolist(),
                             "train_acc": tr_acc.tolist(), "l1": l1.tolist()})
    best = state["best"]
    better = (va_loss < best["val_loss"]) & active  # best epoch: lowest validation CE
    for key, val in (("train_loss", tr_loss), ("train_acc", tr_acc), ("val_loss", va_loss),
                     ("val_acc", va_acc), ("l1", l1), ("l1_no_bias", l1nb)):
        best[key] = torch.where(better, val, best[key])
    best["epoch"] = torch.where(better, torch.tensor(epoch), best["epoch"])
    for k, t in params.items():
        bp = state["best_params"][k]
        shape = (-1,) + (1,) * (bp.ndim - 1)
        state["best_params"][k] = torch.where(better.reshape(shape), t.detach().cpu(), bp)
    if config.patience is not None:
        stale = active & (epoch - best["epoch"] >= config.patience)
        state["stopped_epoch"] = torch.where(stale, torch.tensor(epoch), state["stopped_epoch"])
        state["active"] = state["active"] & ~stale.to(state["active"].device)


def _records(state: Mapping[str, Any], config: SweepConfig, data: SweepData) -> list[dict[str, Any]]:
    recs = []
    best = state["best"]
    for r, (T, seed) in enumerate(config.runs):
        rec = {"T": T, "seed": seed, "index_set": data.index_sets[r],
               "best_epoch": int(best["epoch"][r]),
               "train_loss": float(best["train_loss"][r]), "train_acc": float(best["train_acc"][r]),
               "val_loss": float(best["val_loss"][r]), "val_acc": float(best["val_acc"][r]),
               "weight_l1": float(best["l1"][r]), "weight_l1_no_bias": float(best["l1_no_bias"][r]),
               "stopped_epoch": int(state["stopped_epoch"][r]),
               "optimizer_steps": int(state["step"][r])}
        rec["gen_gap"] = rec["val_loss"] - rec["train_loss"]
        recs.append(rec)
    return recs


def train_batched(config: SweepConfig, *, device: str | torch.device = "cpu",
                  checkpoint: str | Path | None = None, stop_at_epoch: int | None = None,
                  progress: bool = True, data: SweepData | None = None,
                  max_wall_s: float | None = None) -> dict[str, Any] | None:
    """Train every run of ``config`` at once; return the per-run best-epoch records.

    Parameters
    ----------
    config:
        The sweep (:class:`SweepConfig`).
    device:
        ``"cpu"``, ``"cuda"``, ... (parameters and minibatches live there; data stay on the CPU
        and are moved per batch).
    checkpoint:
        Path of the checkpoint file; if it exists and was written for the same ``config`` the
        run resumes from it.  Written every ``config.checkpoint_every`` epochs and at the end.
    stop_at_epoch:
        Stop (after writing the checkpoint) once this many epochs are done and return
        ``None``: a deliberate interruption, used to test resuming.
    progress:
        Show a tqdm progress bar over epochs.
    max_wall_s:
        Wall-time budget of this call in seconds: at the first epoch end past it the sweep is
        evaluated once more and ends (checkpoint written, records returned; ``"epochs"`` says
        how far it got; rerunning with the same checkpoint continues the sweep).

    Returns
    -------
    ``{"runs": [...], "history": [...], "epochs": int, "wall_time_s": float,
    "best_params": {...}}`` or ``None`` when stopped at ``stop_at_epoch``.
    """
    config = _check_config(config)
    check_bool(progress, "progress")
    if stop_at_epoch is not None:
        stop_at_epoch = check_int(stop_at_epoch, "stop_at_epoch", minimum=1)
        if stop_at_epoch % config.eval_every:
            raise ValueError("stop_at_epoch must be a multiple of config.eval_every")
    device = torch.device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device is cuda but torch.cuda.is_available() is False")
    t0 = time.perf_counter()
    data = data if data is not None else build_sweep_data(config)
    state = load_checkpoint(checkpoint) if checkpoint is not None else None
    if state is not None:
        if state.get("config") != config.to_dict():
            raise ValueError(f"checkpoint {checkpoint} was written for a different config")
        state = _to_device(state, device)
    else:
        state = _fresh_state(config, device)
    gen = torch.Generator()
    gen.set_state(state["gen_state"])
    params = state["params"]
    for t in params.values():
        t.requires_grad_(True)
    train_tokens = data.train_tokens.to(device)
    train_labels = data.train_labels.to(device)
    wall_before = float(state["wall_time_s"])

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.max_epochs, initial=state["epoch"], desc="sweep", leave=False,
                   unit="epoch")
    try:
        while state["epoch"] < config.max_epochs and bool(state["active"].any()):
            _epoch(state, gen, train_tokens, train_labels, config)
            if bar is not None:
                bar.update(1)
            epoch = state["epoch"]
            out_of_time = max_wall_s is not None and time.perf_counter() - t0 > max_wall_s
            if epoch % config.eval_every == 0 or epoch == config.max_epochs or out_of_time:
                _evaluate_and_select(state, data, config)
                if bar is not None:
                    bar.set_postfix(active=int(state["active"].sum()),
                                    best_val_acc=f"{float(state['best']['val_acc'].mean()):.3f}")
            done = epoch >= config.max_epochs or not bool(state["active"].any()) or out_of_time
            stop = stop_at_epoch is not None and epoch >= stop_at_epoch
            if checkpoint is not None and (epoch % config.checkpoint_every == 0 or done or stop):
                state["gen_state"] = gen.get_state()
                state["wall_time_s"] = wall_before + time.perf_counter() - t0
                save_checkpoint(checkpoint, _checkpoint_payload(state, config))
            if stop and not done:
                return None
            if done:
                break
    finally:
        if bar is not None:
            bar.close()
    wall = wall_before + time.perf_counter() - t0
    return {"runs": _records(state, config, data), "history": state["history"],
            "epochs": state["epoch"], "wall_time_s": wall,
            "best_params": {k: t.detach().cpu() for k, t in state["best_params"].items()}}


def train_naive(config: SweepConfig, *, device: str | torch.device = "cpu", epochs: int,
                data: SweepData | None = None, progress: bool = False) -> dict[str, Any]:
    """The loop a user would write: for each run, ``nn.MultiheadAttention`` + ``nn.Linear`` on
    embedded inputs, ``torch.optim.Adam`` with the same hyper-parameters, minibatches of
    ``config.batch_size``; one model at a time.  No evaluation, no checkpoints.

    Returns ``{"final_params": [...], "optimizer_steps": int, "wall_time_s": float}``.
    """
    config = _check_config(config)
    epochs = check_int(epochs, "epochs", minimum=1)
    check_bool(progress, "progress")
    device = torch.device(device)
    data = data if data is not None else build_sweep_data(config)
    dt = _DTYPES[config.dtype]
    t0 = time.perf_counter()
    gen = torch_generator(config.shuffle_seed)
    finals, steps = [], 0
    runs = config.runs
    if progress:
        from tqdm.auto import tqdm

        runs = tqdm(runs, desc="naive", leave=False)
    for r, (T, seed) in enumerate(runs):
        p0 = sm.init_params(config.d, seed=1000 * T + seed, dtype=dt)
        mha, head = sm.to_torch_modules(p0, heads=config.heads)
        mha, head = mha.to(device), head.to(device)
        opt = torch.optim.Adam(list(mha.parameters()) + list(head.parameters()), lr=config.lr,
                               betas=config.betas, eps=config.eps)
        X = embed(data.train_tokens[r, :, :T + 1], config.d, dtype=dt).to(device)
        y = data.train_labels[r].to(device)
        n = X.shape[0]
        for _ in range(epochs):
            perm = torch.argsort(torch.rand(1, n, generator=gen), dim=1)[0]
            for s in range(0, n, config.batch_size):
                idx = perm[s:s + config.batch_size].to(device)
                xb = X[idx]
                out, _ = mha(xb[:, :1], xb, xb, need_weights=False)
                loss = torch.nn.functional.cross_entropy(head(out[:, 0]), y[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                steps += 1
        w_in = mha.in_proj_weight.detach().cpu()
        b_in = mha.in_proj_bias.detach().cpu()
        d = config.d
        finals.append({"Wq": w_in[:d], "Wk": w_in[d:2 * d], "Wv": w_in[2 * d:],
                       "bq": b_in[:d], "bk": b_in[d:2 * d], "bv": b_in[2 * d:],
                       "Wo": mha.out_proj.weight.detach().cpu(), "bo": mha.out_proj.bias.detach().cpu(),
                       "Wc": head.weight.detach().cpu(), "bc": head.bias.detach().cpu()})
    if device.type == "cuda":
        torch.cuda.synchronize()
    return {"final_params": finals, "optimizer_steps": steps,
            "wall_time_s": time.perf_counter() - t0}
