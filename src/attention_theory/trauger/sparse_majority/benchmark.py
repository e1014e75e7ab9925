"""How fast the sparse-majority sweep trains (Trauger & Tewari, Sec. 6), measured so that it cannot
flatter any trainer.

:func:`benchmark_trainers` compares, in one process and on its thread count (recorded),

* ``naive``: the loop a user would write for the authors' model, one run after the other
  (:class:`~.authors_model.TextbookModel` with ``torch.nn.MultiheadAttention``, the two-logit binary
  cross-entropy, ``torch.optim.SGD(momentum=0.9)`` with the authors' learning rates);
* ``batched``: the inner loop of :func:`~.training.train_batched`, the first edition's trainer (its
  own, smaller model: ``key_dim = 32``, no ``Dense`` block, Adam), on the same runs;
* ``structured``: :meth:`~.structured.StructuredTrainer.run_epoch` on the authors' protocol;
* ``limit``: the matrix products of one structured epoch alone, replayed
  (:func:`replay_products`): what the structured trainer would take if everything but its products
  cost nothing.

Every trainer is timed the same way: built untimed (data, parameters, optimizer), one untimed
warm-up epoch, then blocks of training epochs only (no evaluation, no checkpoint, for any of
them).  The blocks are interleaved: each repetition times one block of each, in an order that
rotates from one repetition to the next, so that a change of the machine's load during the
benchmark hits every trainer alike; ratios are taken within a repetition (paired) and reported as
min / median / max.

The work of the structured trainer is not taken from a formula but counted from the products it
issues (:func:`record_products`: every ``mm``, ``bmm``, ``addmm``, ``baddbmm``, ... with its
shapes, strides and dtype; ``2 * (output elements) * K`` floating-point operations each).
:func:`sgemm_peak` gives the machine's single-thread peak on a large square product.  Used by
``python -m attention_theory run trauger sparse-majority --parts benchmark-structured``.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import os
import platform
import statistics
import time
from typing import Any, Callable, Mapping, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from attention_theory.trauger._args import check_sequence
from attention_theory.trauger.sparse_majority.authors_model import (
    TextbookModel,
    embed_authors,
    init_authors_params,
    run_generator,
)
from attention_theory.trauger.sparse_majority.protocol import (
    ProtocolConfig,
    learning_rates,
    protocol,
)
from attention_theory.trauger.sparse_majority.structured import (
    StructuredTrainer,
    build_authors_data,
    structured_flops,
)
from attention_theory.trauger.sparse_majority.structured_forward import METHODS
from attention_theory.trauger.sparse_majority.training import BatchedEpochs
from attention_theory.validation import check_bool, check_callable, check_int, check_seed

__all__ = ["PRODUCTS", "product_flops", "record_products", "replay_products", "sgemm_peak",
           "benchmark_trainers"]

#: The matrix-product operators counted, by ATen name (an in-place variant such as ``baddbmm_`` and
#: the ``out=`` overloads count as the operator): the positions of the two factors among the
#: positional arguments and the kind of product.  ``matmul``, ``einsum``, ``linear`` and
#: ``tensordot`` never reach a dispatch mode: they are decomposed into these before it.
PRODUCTS: dict[str, tuple[int, int, str]] = {
    "mm": (0, 1, "matrix"), "addmm": (1, 2, "matrix"),
    "bmm": (0, 1, "batched"), "baddbmm": (1, 2, "batched"),
    "addbmm": (1, 2, "batch-summed"),
    "mv": (0, 1, "matrix-vector"), "addmv": (1, 2, "matrix-vector"),
    "dot": (0, 1, "dot"), "vdot": (0, 1, "dot"),
    "addr": (1, 2, "outer"),
}
#: factor ranks of each kind of product
_RANKS = {"matrix": (2, 2), "batched": (3, 3), "batch-summed": (3, 3), "matrix-vector": (2, 1),
          "dot": (1, 1), "outer": (1, 1)}
_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
           "float64": torch.float64}
_TRAINERS = ("structured", "batched", "naive")


# ------------------------------------------------------------------------- counting products
def _check_shape(shape: Any, name: str) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, (Sequence, torch.Size)):
        raise TypeError(f"{name} must be a sequence of integers (a tensor shape), got {shape!r}")
    return tuple(check_int(s, f"{name}[{i}]", minimum=0) for i, s in enumerate(shape))


def _product_dims(kind: str, a: tuple[int, ...], b: tuple[int, ...], name: str) -> tuple[int, int]:
    """``(output elements, K)`` of a product of kind ``kind`` with factor shapes ``a`` and ``b``
    (``K``: the number of multiply-adds behind one output element)."""
    ra, rb = _RANKS[kind]
    if (len(a), len(b)) != (ra, rb):
        raise ValueError(f"{name}: a {kind} product needs factors of ranks ({ra}, {rb}), "
                         f"got shapes {a} and {b}")
    if kind == "outer":
        return a[0] * b[0], 1
    if kind == "dot":
        if a[0] != b[0]:
            raise ValueError(f"{name}: the factors of a dot product must have equal lengths, got {a} and {b}")
        return 1, a[0]
    if kind == "matrix-vector":
        if a[1] != b[0]:
            raise ValueError(f"{name}: inner dimensions differ, got shapes {a} and {b}")
        return a[0], a[1]
    if kind == "matrix":
        if a[1] != b[0]:
            raise ValueError(f"{name}: inner dimensions differ, got shapes {a} and {b}")
        return a[0] * b[1], a[1]
    if a[0] != b[0] or a[2] != b[1]:
        raise ValueError(f"{name}: batch or inner dimensions differ, got shapes {a} and {b}")
    if kind == "batched":                                   # (B, M, K)(B, K, N) -> (B, M, N)
        return a[0] * a[1] * b[2], a[2]
    return a[1] * b[2], a[0] * a[2]                        # addbmm: sum over the batch, (M, N)


def product_flops(op: str, shapes: Sequence[Sequence[int]]) -> int:
    """Floating-point operations of one product ``op`` (a key of :data:`PRODUCTS`, e.g. ``"bmm"``)
    whose two factors have the shapes ``shapes = (left, right)``: ``2 * (output elements) * K``,
    one multiply and one add per term (the bias of ``addmm``/``baddbmm`` is not counted).

    ``mm`` ``(M, K)(K, N)``: ``2 M N K``; ``bmm`` ``(B, M, K)(B, K, N)``: ``2 B M N K``; ``addbmm``
    sums the batch, ``2 M N (B K)``; ``mv`` ``(M, K)(K,)``: ``2 M K``; ``dot`` ``(K,)(K,)``: ``2 K``;
    ``addr`` ``(M,)(N,)``: ``2 M N``.
    """
    if not isinstance(op, str):
        raise TypeError(f"op must be a product name (str), one of {tuple(PRODUCTS)}, got {op!r}")
    if op not in PRODUCTS:
        raise ValueError(f"op must be one of {tuple(PRODUCTS)}, got {op!r}")
    check_sequence(shapes, "shapes")
    if len(shapes) != 2:
        raise ValueError(f"shapes must hold the two factors' shapes, got {len(shapes)}")
    a, b = (_check_shape(s, f"shapes[{i}]") for i, s in enumerate(shapes))
    out, K = _product_dims(PRODUCTS[op][2], a, b, "shapes")
    return 2 * out * K


def _base_name(func: Any) -> str | None:
    """``"baddbmm"`` for ``aten.baddbmm_.default`` / ``aten.baddbmm.out``; ``None`` for an operator
    that is not a product of :data:`PRODUCTS`."""
    if getattr(func, "namespace", None) != "aten":
        return None
    name = func._overloadpacket.__name__
    base = name[:-1] if name.endswith("_") else name
    return base if base in PRODUCTS else None


class _ProductRecorder(TorchDispatchMode):
    """A dispatch mode that notes every product of :data:`PRODUCTS` it sees (after autograd and the
    decomposition of ``matmul``/``einsum``) and lets it run unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.products: list[dict[str, Any]] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        base = _base_name(func)
        if base is not None:
            self.products.append(_describe(func, base, args, kwargs))
        return func(*args, **kwargs)


def _describe(func: Any, base: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The JSON-able record of one product call: what :func:`replay_products` needs to issue it
    again (every tensor argument as shape, strides and dtype; the numbers as they were)."""
    shapes: list[list[int]] = []
    strides: list[list[int]] = []
    dtypes: list[str] = []
    factor_shapes: dict[int, tuple[int, ...]] = {}

    def spec(x: Any, pos: int | None) -> Any:
        if isinstance(x, torch.Tensor):
            shapes.append(list(x.shape))
            strides.append(list(x.stride()))
            dtypes.append(str(x.dtype).removeprefix("torch."))
            if pos is not None:
                factor_shapes[pos] = tuple(x.shape)
            return {"tensor": len(shapes) - 1}
        if x is None or isinstance(x, (bool, int, float)):
            return x
        raise TypeError(f"cannot record argument {x!r} ({type(x).__name__}) of {func}")

    arg_specs = [spec(x, i) for i, x in enumerate(args)]
    kw_specs = {k: spec(v, None) for k, v in sorted(kwargs.items())}
    ia, ib, kind = PRODUCTS[base]
    out, K = _product_dims(kind, factor_shapes[ia], factor_shapes[ib], str(func))
    return {"op": str(func), "product": base, "shapes": shapes, "strides": strides, "dtypes": dtypes,
            "args": arg_specs, "kwargs": kw_specs, "flops": 2 * out * K}


def record_products(fn: Callable[[], Any]) -> list[dict[str, Any]]:
    """Call ``fn()`` and return the matrix products it issued, in order: one JSON-able record per
    call of an operator of :data:`PRODUCTS` (``torch.matmul``, ``einsum``, ``nn.Linear`` are
    recorded as the ``mm``/``bmm``/``addmm`` they are decomposed into).

    A record: ``op`` (the ATen overload, e.g. ``"aten.baddbmm_.default"``), ``product`` (its key in
    :data:`PRODUCTS`), ``shapes``/``strides``/``dtypes`` of every tensor argument (positional, then
    keyword arguments by name), ``args``/``kwargs`` (each tensor as ``{"tensor": index}``, numbers
    as given) and ``flops`` (:func:`product_flops` of its two factors).  ``fn``'s result is dropped.
    """
    check_callable(fn, "fn")
    with _ProductRecorder() as rec:
        fn()
    return rec.products


# --------------------------------------------------------------------------- replaying them
def _resolve(op: Any, name: str) -> Any:
    """The ATen overload named ``op`` (``"aten.<operator>.<overload>"``), a product only."""
    if not isinstance(op, str):
        raise TypeError(f"{name} must be an ATen overload name (str), got {op!r}")
    parts = op.split(".")
    if len(parts) != 3 or parts[0] != "aten" or parts[1].rstrip("_") not in PRODUCTS:
        raise ValueError(f"{name} must name a product overload 'aten.<op>.<overload>' with <op> one of "
                         f"{tuple(PRODUCTS)} (or its in-place form), got {op!r}")
    try:
        return getattr(getattr(torch.ops.aten, parts[1]), parts[2])
    except AttributeError:
        raise ValueError(f"{name}: torch has no overload {op!r}") from None


def _storage_size(shape: Sequence[int], stride: Sequence[int]) -> int:
    """Elements a strided tensor of ``shape`` and ``stride`` reaches (0 if it is empty)."""
    if any(s == 0 for s in shape):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(shape, stride))


_TensorSpec = tuple[tuple[int, ...], tuple[int, ...], torch.dtype]          # shape, strides, dtype


def _check_product(p: Any, name: str) -> tuple[Any, list[_TensorSpec]]:
    """The overload and the tensor specs ``(shape, stride, dtype)`` of a record of
    :func:`record_products`."""
    if not isinstance(p, Mapping):
        raise TypeError(f"{name} must be a record of record_products (a dict), got {type(p).__name__}")
    missing = [k for k in ("op", "shapes", "strides", "dtypes", "args", "kwargs") if k not in p]
    if missing:
        raise ValueError(f"{name} lacks the keys {missing}")
    func = _resolve(p["op"], f"{name}['op']")
    for key in ("shapes", "strides", "dtypes"):
        check_sequence(p[key], f"{name}[{key!r}]", non_empty=False)
    if not len(p["shapes"]) == len(p["strides"]) == len(p["dtypes"]):
        raise ValueError(f"{name}: shapes, strides and dtypes must have one entry per tensor")
    tensors = []
    for i, (shape, stride, dt) in enumerate(zip(p["shapes"], p["strides"], p["dtypes"])):
        shape = _check_shape(shape, f"{name}['shapes'][{i}]")
        stride = _check_shape(stride, f"{name}['strides'][{i}]")
        if len(stride) != len(shape):
            raise ValueError(f"{name}: tensor {i} has {len(shape)} dimensions but {len(stride)} strides")
        if dt not in _DTYPES:
            raise ValueError(f"{name}['dtypes'][{i}] must be one of {tuple(_DTYPES)}, got {dt!r}")
        tensors.append((shape, stride, _DTYPES[dt]))
    if isinstance(p["args"], (str, bytes)) or not isinstance(p["args"], Sequence):
        raise TypeError(f"{name}['args'] must be a list, got {type(p['args']).__name__}")
    if not isinstance(p["kwargs"], Mapping):
        raise TypeError(f"{name}['kwargs'] must be a dict, got {type(p['kwargs']).__name__}")
    for where, x in [*((f"['args'][{i}]", x) for i, x in enumerate(p["args"])),
                     *((f"['kwargs'][{k!r}]", x) for k, x in p["kwargs"].items())]:
        if isinstance(x, Mapping):
            j = x.get("tensor")
            if set(x) != {"tensor"} or isinstance(j, bool) or not isinstance(j, int) \
                    or not 0 <= j < len(tensors):
                raise ValueError(f"{name}{where} must be {{'tensor': index}} with an index < {len(tensors)}, "
                                 f"got {x!r}")
        elif not (x is None or isinstance(x, (bool, int, float))):
            raise TypeError(f"{name}{where} must be a tensor reference or a number, got {x!r}")
        elif isinstance(x, float) and not math.isfinite(x):
            raise ValueError(f"{name}{where} must be finite, got {x!r}")
    return func, tensors


def replay_products(products: Sequence[Mapping[str, Any]], *, seed: int = 0) -> Callable[[], None]:
    """A function that issues ``products`` (records of :func:`record_products`) again, in order:
    the same overloads with tensors of the same shapes, strides and dtypes
    (``torch.empty_strided``, uniform on ``[-1, 1)`` from a generator seeded with ``seed``) and
    the same numbers (``alpha``, ``beta``).

    The operands are allocated here, once; calling the returned function only runs the products.
    One buffer serves every call with the same argument position, shape, strides and dtype, so the
    replay's operands are at least as warm in the caches as the trainer's; the arguments of one
    call never share memory (an in-place product does not read what it writes).
    """
    check_sequence(products, "products")
    seed = check_seed(seed, "seed")
    checked = [_check_product(p, f"products[{i}]") for i, p in enumerate(products)]
    gen = torch.Generator()
    gen.manual_seed(seed)
    pool: dict[tuple, torch.Tensor] = {}

    def operand(slot: Any, spec: _TensorSpec) -> torch.Tensor:
        key = (slot, *spec)
        if key not in pool:
            shape, stride, dt = spec
            # fill the whole storage (a strided view may skip elements) before taking the view
            flat = torch.empty(_storage_size(shape, stride), dtype=dt)
            flat.uniform_(-1.0, 1.0, generator=gen)
            pool[key] = flat.as_strided(shape, stride)
        return pool[key]

    def value(x: Any, slot: Any, tensors: list) -> Any:
        return operand(slot, tensors[x["tensor"]]) if isinstance(x, Mapping) else x

    calls = []
    for p, (func, tensors) in zip(products, checked):
        args = tuple(value(x, i, tensors) for i, x in enumerate(p["args"]))
        kwargs = {k: value(x, k, tensors) for k, x in p["kwargs"].items()}
        calls.append((func, args, kwargs))

    def replay() -> None:
        for func, args, kwargs in calls:
            func(*args, **kwargs)

    return replay


def sgemm_peak(*, n: int = 2048, reps: int = 3, threads: int = 1) -> dict[str, Any]:
    """Floating-point throughput of ``torch.mm`` on two ``n x n`` float32 matrices (``2 n^3``
    operations) with ``threads`` threads (the process's setting is restored): one untimed product,
    then ``reps`` timed ones.  ``{"n", "threads", "reps", "seconds" (each product), "gflops"
    (the fastest product), "gflops_median"}``."""
    n = check_int(n, "n")
    reps = check_int(reps, "reps")
    threads = check_int(threads, "threads")
    before = torch.get_num_threads()
    gen = torch.Generator()
    gen.manual_seed(0)
    a = torch.rand(n, n, generator=gen)
    b = torch.rand(n, n, generator=gen)
    c = torch.empty(n, n)
    seconds = []
    try:
        torch.set_num_threads(threads)
        torch.mm(a, b, out=c)
        for _ in range(reps):
            t0 = time.perf_counter()
            torch.mm(a, b, out=c)
            seconds.append(max(time.perf_counter() - t0, 1e-9))
    finally:
        torch.set_num_threads(before)
    flops = 2 * n ** 3
    return {"n": n, "threads": threads, "reps": reps, "seconds": seconds,
            "gflops": flops / min(seconds) / 1e9, "gflops_median": flops / statistics.median(seconds) / 1e9}


# ------------------------------------------------------------------- steady-state trainers
@dataclasses.dataclass
class _Naive:
    """One run of the naive loop after its set-up: model, optimizer, embedded data, shuffling."""

    config: ProtocolConfig
    model: TextbookModel
    opt: torch.optim.Optimizer
    X: torch.Tensor
    y: torch.Tensor
    gen: torch.Generator
    epoch: int = 0


def _naive_setup(config: ProtocolConfig, run: Any) -> _Naive:
    """The naive loop's set-up of one run (``run``: its :class:`~.authors_model.AuthorsRun`)."""
    dt = {"float32": torch.float32, "float64": torch.float64}[config.dtype]
    model = TextbookModel(config.model_shape, attention="mha", dtype=dt)
    model.load_flat(init_authors_params(config.model_shape, generator=run_generator(run.T, run.seed, "init"),
                                        dtype=dt))
    opt = torch.optim.SGD(model.parameters(), lr=learning_rates(config, 1)[0], momentum=config.momentum)
    X = embed_authors(run.train_bits, run.embeddings, dtype=dt)
    y = torch.nn.functional.one_hot(run.train_labels, 2).to(dt)
    return _Naive(config, model, opt, X, y, run_generator(run.T, run.seed, "shuffle"))


def _naive_epoch(r: _Naive) -> int:
    """One epoch of the naive loop on one run: the epoch's learning rate, a permutation,
    minibatches through ``torch.nn`` (forward, loss, ``zero_grad``, ``backward``, ``SGD.step``).
    Returns the optimizer steps taken."""
    cfg = r.config
    for group in r.opt.param_groups:
        group["lr"] = learning_rates(cfg, 1, start=r.epoch)[0]
    perm = torch.randperm(cfg.n_train, generator=r.gen)
    steps = 0
    for s in range(0, cfg.n_train, cfg.batch_size):
        idx = perm[s:s + cfg.batch_size]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(r.model(r.X[idx]), r.y[idx])
        r.opt.zero_grad(set_to_none=True)
        loss.backward()
        r.opt.step()
        steps += 1
    r.epoch += 1
    return steps


# -------------------------------------------------------------------------------- the benchmark
def _stats(xs: Sequence[float]) -> dict[str, float]:
    return {"min": float(min(xs)), "median": float(statistics.median(xs)), "max": float(max(xs))}


def _timed(block: Callable[[], Any]) -> tuple[float, float, Any]:
    """``(wall seconds, CPU seconds of this process, block's result)`` of ``block()``; garbage is
    collected first, untimed, so that no block pays for another's."""
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    out = block()
    return time.perf_counter() - w0, time.process_time() - c0, out


def _check_runs(runs: Any, config: ProtocolConfig) -> list[tuple[int, int]]:
    check_sequence(runs, "naive_runs")
    out = []
    for i, pair in enumerate(runs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"naive_runs[{i}] must be a pair (T, seed), got {pair!r}")
        T = check_int(pair[0], f"naive_runs[{i}] T", minimum=config.k + 1)
        out.append((T, check_seed(pair[1], f"naive_runs[{i}] seed")))
    return out


def _aggregate(products: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Products grouped by overload, shapes and dtypes: ``calls`` and ``flops`` (all calls), the
    largest first."""
    groups: dict[tuple, dict[str, Any]] = {}
    for p in products:
        key = (p["op"], str(p["shapes"]), str(p["dtypes"]))
        g = groups.setdefault(key, {"op": p["op"], "shapes": p["shapes"], "dtypes": p["dtypes"],
                                    "calls": 0, "flops": 0})
        g["calls"] += 1
        g["flops"] += p["flops"]
    return sorted(groups.values(), key=lambda g: -g["flops"])


def benchmark_trainers(*, config: ProtocolConfig | None = None, epochs: int = 3, reps: int = 5,
                       naive_runs: Sequence[tuple[int, int]] | None = None, method: str = "softmax",
                       peak_n: int = 2048, peak_reps: int = 3, progress: bool = False) -> dict[str, Any]:
    """Steady-state optimizer steps per second of the naive loop, the first edition's batched
    trainer and the structured trainer on the runs of ``config`` (default: the paper's 10 lengths x
    5 seeds, the authors' protocol with 100 validation samples), beside the time of the structured
    trainer's matrix products alone.

    ``epochs``: epochs per timed block, for every trainer (the naive loop: ``epochs`` epochs of
    each run of ``naive_runs``, default every length with the first seed; it trains one run at a
    time, so its rate hardly depends on how many runs are timed).  ``reps``: repetitions; each times
    one block of the three trainers and of the replayed products (``limit``), the order rotating by
    one per repetition.  A step of one run counts 1 everywhere.  ``method``: the structured
    trainer's (:data:`~.structured_forward.METHODS`).  ``peak_n``, ``peak_reps``: the square product of
    :func:`sgemm_peak`, measured before and after the repetitions on one thread.

    Returns a JSON-able dict (see ``note`` in it and the chapter): ``trainers`` (per trainer: steps
    per block, wall and CPU seconds per block and steps per wall- and CPU-second, each as
    min/median/max over the repetitions, and the per-repetition lists), ``limit``, ``speedup``
    (paired ratios), ``flops`` (counted from the issued products, and the formula beside it),
    ``throughput`` (fractions of the limit and of the peak), ``fraction_exceeds_one``, ``machine``,
    ``load_average``, ``order``.
    """
    cfg = protocol("authors", "full", n_val=100) if config is None else config
    if not isinstance(cfg, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(cfg).__name__}")
    epochs = check_int(epochs, "epochs")
    reps = check_int(reps, "reps")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    peak_n = check_int(peak_n, "peak_n")
    peak_reps = check_int(peak_reps, "peak_reps")
    check_bool(progress, "progress")
    chosen = (_check_runs(naive_runs, cfg) if naive_runs is not None
              else [(T, cfg.seeds[0]) for T in cfg.Ts])
    load_before = list(os.getloadavg())
    threads = torch.get_num_threads()
    R, spe = len(cfg.runs), cfg.steps_per_epoch

    # -- set-up, untimed: every trainer built and warmed up by one epoch -----------------------
    data = build_authors_data(cfg)
    structured = StructuredTrainer(dataclasses.replace(cfg, early_stopping="none"), data=data, method=method)
    structured.run_epoch()
    # one more epoch, recorded: the products of a steady-state epoch, counted two ways
    with FlopCounterMode(display=False) as counter:
        products = record_products(structured.run_epoch)
    replay = replay_products(products)
    replay()

    old = dataclasses.replace(protocol("book-v1", "full"), Ts=cfg.Ts, seeds=cfg.seeds, n_train=cfg.n_train,
                              n_val=cfg.n_val, batch_size=cfg.batch_size).to_sweep_config()
    batched = BatchedEpochs(old)  # train_batched's own epoch, without its evaluation
    batched.run_epoch()

    naive_data = {(r.T, r.seed): r for r in data}
    missing = [pair for pair in chosen if pair not in naive_data]
    if missing:                           # naive runs outside config: their own data
        extra = dataclasses.replace(cfg, Ts=tuple(sorted({T for T, _ in missing})),
                                    seeds=tuple(sorted({s for _, s in missing})))
        naive_data.update({(r.T, r.seed): r for r in build_authors_data(extra)})
    naive = [_naive_setup(cfg, naive_data[pair]) for pair in chosen]
    for r in naive:
        _naive_epoch(r)

    def structured_block() -> int:
        for _ in range(epochs):
            structured.run_epoch()
        return R * spe * epochs

    def batched_block() -> int:
        return sum(batched.run_epoch() for _ in range(epochs))

    def naive_block() -> int:
        return sum(_naive_epoch(r) for r in naive for _ in range(epochs))

    def limit_block() -> int:
        for _ in range(epochs):
            replay()
        return R * spe * epochs

    blocks = {"structured": structured_block, "batched": batched_block, "naive": naive_block,
              "limit": limit_block}
    names = list(blocks)
    peak_before = sgemm_peak(n=peak_n, reps=peak_reps, threads=1)

    # -- the interleaved repetitions -------------------------------------------------------------
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    steps: dict[str, int] = {}
    order = []
    loop: Any = range(reps)
    if progress:
        from tqdm.auto import tqdm

        loop = tqdm(loop, desc="benchmark", unit="rep", leave=False)
    for rep in loop:
        this = names[rep % len(names):] + names[:rep % len(names)]
        order.append(this)
        for name in this:
            w, c, n_steps = _timed(blocks[name])
            wall[name].append(w)
            cpu[name].append(c)
            steps[name] = n_steps
    peak_after = sgemm_peak(n=peak_n, reps=peak_reps, threads=1)
    load_after = list(os.getloadavg())

    # -- per trainer ------------------------------------------------------------------------------
    def summary(name: str) -> dict[str, Any]:
        s = steps[name]
        return {"steps_per_block": s, "epochs_per_block": epochs,
                "wall_s": _stats(wall[name]), "cpu_s": _stats(cpu[name]),
                "steps_per_wall_s": _stats([s / w for w in wall[name]]),
                "steps_per_cpu_s": _stats([s / c for c in cpu[name]]),
                "wall_s_per_rep": [float(w) for w in wall[name]],
                "cpu_s_per_rep": [float(c) for c in cpu[name]]}

    trainers = {k: summary(k) for k in _TRAINERS}
    trainers["structured"].update({"runs": R, "method": method, "fallbacks": structured.fallbacks})
    trainers["batched"].update({"runs": R, "model": "book-v1 (key_dim 32, no Dense block, Adam)"})
    trainers["naive"].update({"runs": [list(p) for p in chosen]})

    def paired(fast: str, slow: str, clock: dict[str, list[float]]) -> dict[str, float]:
        # time per step of `slow` over that of `fast`, within each repetition
        return _stats([(clock[slow][i] / steps[slow]) / (clock[fast][i] / steps[fast]) for i in range(reps)])

    speedup = {f"{a}_over_{b}": {"cpu": paired(a, b, cpu), "wall": paired(a, b, wall)}
               for a, b in (("structured", "batched"), ("structured", "naive"), ("batched", "naive"))}

    # -- work and throughput ------------------------------------------------------------------
    issued = sum(p["flops"] for p in products)              # one epoch of every run
    formula_full = sum(structured_flops(cfg, T, method=method)["total"] for T, _ in cfg.runs) / R
    batches = [min(cfg.batch_size, cfg.n_train - s) for s in range(0, cfg.n_train, cfg.batch_size)]
    formula_actual = sum(structured_flops(cfg, T, batch=b, method=method)["total"]
                         for T, _ in cfg.runs for b in batches) / (R * spe)
    per_step = issued / (R * spe)
    calls: dict[str, int] = {}
    for p in products:
        calls[p["op"]] = calls.get(p["op"], 0) + 1
    flops = {
        "issued_per_epoch": int(issued), "issued_per_step": float(per_step),
        "formula_per_step": float(formula_full), "formula_per_step_actual_batches": float(formula_actual),
        "formula_over_issued": float(formula_full / per_step) if per_step else None,
        "flop_counter_mode_per_step": float(counter.get_total_flops() / (R * spe)),
        "products_per_epoch": len(products), "calls_by_op": calls, "products": _aggregate(products),
    }

    def per_rep(clock: dict[str, list[float]]) -> list[float]:
        # (products' time per epoch) / (trainer's time per epoch): both blocks have `epochs` epochs
        return [float(clock["limit"][i] / clock["structured"][i]) for i in range(reps)]

    fractions = {"cpu": per_rep(cpu), "wall": per_rep(wall)}
    exceeding = [{"rep": i, "clock": k, "fraction": f} for k, fs in fractions.items()
                 for i, f in enumerate(fs) if f > 1]
    peak = max(peak_before["gflops"], peak_after["gflops"])

    def gflops(name: str, clock: dict[str, list[float]]) -> dict[str, float]:
        return _stats([issued * epochs / t / 1e9 for t in clock[name]])

    throughput = {
        "fraction_of_limit": {k: _stats(v) for k, v in fractions.items()},
        "fraction_of_limit_per_rep": fractions,
        "exceeding_one": exceeding,
        "achieved_gflops": {"cpu": gflops("structured", cpu), "wall": gflops("structured", wall)},
        "limit_gflops": {"cpu": gflops("limit", cpu), "wall": gflops("limit", wall)},
        "sgemm_peak": {"before": peak_before, "after": peak_after, "gflops": peak},
        "achieved_fraction_of_peak": {k: {s: v / peak for s, v in gflops("structured", c).items()}
                                      for k, c in (("cpu", cpu), ("wall", wall))},
        "limit_fraction_of_peak": {k: {s: v / peak for s, v in gflops("limit", c).items()}
                                   for k, c in (("cpu", cpu), ("wall", wall))},
    }
    limit = {"epochs_per_block": epochs, "products_per_epoch": len(products),
             "wall_s": _stats(wall["limit"]), "cpu_s": _stats(cpu["limit"]),
             "wall_s_per_rep": [float(w) for w in wall["limit"]],
             "cpu_s_per_rep": [float(c) for c in cpu["limit"]]}
    return {
        "config": {**cfg.to_dict(), "epochs_per_block": epochs, "reps": reps, "method": method,
                   "naive_runs": [list(p) for p in chosen], "peak_n": peak_n, "peak_reps": peak_reps},
        "trainers": trainers, "limit": limit, "speedup": speedup, "flops": flops, "throughput": throughput,
        "fraction_exceeds_one": bool(exceeding),
        "machine": {"machine": platform.machine(), "processor": platform.processor(),
                    "cpu_count": os.cpu_count(), "torch_threads": threads,
                    "torch_version": torch.__version__},
        "load_average": {"before": load_before, "after": load_after},
        "order": order,
        "note": (
            "Steady state: every trainer is built untimed, runs one untimed warm-up epoch, then "
            f"{reps} repetitions each time one block of {epochs} epoch(s) of training steps only "
            "(no evaluation and no checkpoint for any trainer) of structured, batched, naive and the "
            "limit, in an order rotating by one per repetition. One optimizer step of one run counts "
            "1. CPU seconds are time.process_time() of this process (all its threads; "
            f"torch threads: {threads}). Speed-ups are paired ratios of time per step within each "
            "repetition. 'limit' replays exactly the matrix products recorded from one structured "
            "epoch (same ATen overloads, shapes, strides, dtypes; random operands): "
            "fraction_of_limit = limit time / structured time per epoch, per repetition. FLOPs are "
            "counted from the issued products, 2 * output elements * K each (element-wise work "
            "excluded); formula_per_step is structured_flops (full batches) for comparison; "
            "flop_counter_mode_per_step is torch's FlopCounterMode, which omits the in-place "
            "products (baddbmm_). sgemm_peak: a square float32 product on one thread."),
    }
