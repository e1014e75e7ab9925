"""How fast the sparse-majority sweep trains (Trauger & Tewari, Sec. 6): three trainers, one process.

:func:`benchmark_trainers` measures aggregate optimizer steps per second (one step of one run
counts 1) of

* ``naive``: the loop a user would write for the authors' model, one run after the other:
  :class:`~.authors_model.TextbookModel` with ``torch.nn.MultiheadAttention`` on embedded inputs
  (all ``T + 1`` queries, as Keras computes them), the two-logit binary cross-entropy and
  ``torch.optim.SGD(momentum=0.9)`` with the authors' learning rate;
* ``batched``: :func:`~.training.train_batched`, the trainer of the book's first edition (its own,
  smaller model: ``key_dim = 32``, no ``Dense`` block, Adam), on the same runs;
* ``structured``: :class:`~.structured.StructuredTrainer` on the authors' protocol (the default
  ``method``; the other method is timed too, ``structured_other_methods``);

all on the thread count of the calling process (recorded).  It also counts the floating-point
operations of one structured step (:func:`~.structured.structured_flops`) and measures the
machine's matrix-product throughput on the shapes of the structured step's products, so that
the trainer's speed can be read as a fraction of what the products alone would allow.
Used by ``python -m attention_theory run trauger sparse-majority --parts benchmark-structured``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Sequence

import torch

from attention_theory._validate import check_int, check_seed
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
    METHODS,
    StructuredTrainer,
    build_authors_data,
    structured_flops,
)
from attention_theory.trauger.sparse_majority.training import train_batched

__all__ = ["naive_steps_per_second", "matmul_throughput", "benchmark_trainers"]


def naive_steps_per_second(config: ProtocolConfig, *, epochs: int = 1,
                           runs: Sequence[tuple[int, int]] | None = None) -> dict[str, Any]:
    """Train ``runs`` (default ``config.runs``) one after the other with the naive loop for
    ``epochs`` epochs each; ``{"optimizer_steps", "wall_time_s", "steps_per_s"}``."""
    if not isinstance(config, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(config).__name__}")
    epochs = check_int(epochs, "epochs", minimum=1)
    dt = {"float32": torch.float32, "float64": torch.float64}[config.dtype]
    if runs is not None:
        check_sequence(runs, "runs")
        for i, pair in enumerate(runs):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"runs[{i}] must be a pair (T, seed), got {pair!r}")
            check_int(pair[0], f"runs[{i}] T", minimum=config.k + 1)
            check_seed(pair[1], f"runs[{i}] seed")
    chosen = list(config.runs if runs is None else runs)
    cfg_runs = dataclasses.replace(config, Ts=tuple(sorted({T for T, _ in chosen})),
                                   seeds=tuple(sorted({s for _, s in chosen})))
    data = {(r.T, r.seed): r for r in build_authors_data(cfg_runs)}
    rates = learning_rates(config, epochs)
    steps, t0 = 0, time.perf_counter()
    for T, s in chosen:
        run = data[(T, s)]
        model = TextbookModel(config.model_shape, attention="mha", dtype=dt)
        model.load_flat(init_authors_params(config.model_shape, generator=run_generator(T, s, "init"), dtype=dt))
        opt = torch.optim.SGD(model.parameters(), lr=rates[0], momentum=config.momentum)
        X = embed_authors(run.train_bits, run.embeddings, dtype=dt)
        y = torch.nn.functional.one_hot(run.train_labels, 2).to(dt)
        gen = run_generator(T, s, "shuffle")
        for e in range(epochs):
            for group in opt.param_groups:
                group["lr"] = rates[e]
            perm = torch.randperm(config.n_train, generator=gen)
            for b in range(0, config.n_train, config.batch_size):
                idx = perm[b:b + config.batch_size]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(model(X[idx]), y[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                steps += 1
    wall = time.perf_counter() - t0
    return {"optimizer_steps": steps, "wall_time_s": wall, "steps_per_s": steps / wall}


def _time(fn: Any, reps: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def matmul_throughput(config: ProtocolConfig, *, reps: int = 5) -> dict[str, Any]:
    """Measured matrix-product throughput (GFLOP/s) of this process on the shapes of one
    structured step of ``config``'s runs (the hand-written step of ``method="softmax"``): for
    every length ``T`` with ``R_T`` runs, the products with the positional encodings
    ``R_T x (b H x L)(L x d)`` (forward) and ``R_T x (b H x d)(d x L)`` (backward); for all ``R``
    runs ``A^T = Wv^T Wo^T`` ``(R H) x (d x dv)(dv x d)``, ``Z A^T`` ``R x (b x H d)(H d x d)`` and
    the ``Dense`` product ``R x (b x d)(d x m)``; plus one square ``1024^3`` product (the
    machine's peak for large products).
    ``{"step_shapes_gflops", "square_1024_gflops", "flops_step_shapes"}``.
    """
    if not isinstance(config, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(config).__name__}")
    reps = check_int(reps, "reps", minimum=1)
    dt = {"float32": torch.float32, "float64": torch.float64}[config.dtype]
    g = torch.Generator()
    g.manual_seed(0)
    s, b = config.model_shape, config.batch_size
    d, H, dv = s.d, s.heads, s.value_dim
    m = s.dense_units or d
    ops, flops = [], 0

    def add(B: int, M: int, K: int, N: int) -> None:
        nonlocal flops
        ops.append((torch.rand(B, M, K, generator=g, dtype=dt), torch.rand(B, K, N, generator=g, dtype=dt)))
        flops += 2 * B * M * K * N

    for T in config.Ts:
        R, L = len(config.seeds), T + 1
        add(R, b * H, L, d)
        add(R, b * H, d, L)
    R = len(config.runs)
    add(R * H, d, dv, d)
    add(R, b, H * d, d)
    add(R, b, d, m)
    t = _time(lambda: [torch.bmm(a, c) for a, c in ops], reps)
    big = torch.rand(1024, 1024, generator=g, dtype=dt)
    t_big = _time(lambda: big @ big, reps)
    return {"step_shapes_gflops": flops / t / 1e9, "square_1024_gflops": 2 * 1024 ** 3 / t_big / 1e9,
            "flops_step_shapes": flops}


def benchmark_trainers(*, config: ProtocolConfig | None = None, epochs_structured: int = 10,
                       epochs_batched: int = 2, epochs_naive: int = 1,
                       naive_runs: Sequence[tuple[int, int]] | None = None, method: str = "softmax",
                       progress: bool = False) -> dict[str, Any]:
    """Steps per second of the naive loop, :func:`~.training.train_batched` and the structured
    trainer on the runs of ``config`` (default: the paper's 10 lengths x 5 seeds, the authors'
    protocol with 100 validation samples), in this process and on its thread count.

    ``epochs_*``: epochs each trainer runs (the structured trainer after one untimed warm-up
    epoch; ``train_batched``'s time includes one evaluation on its training set and ``n_val``
    validation samples; the naive loop does no evaluation).  ``naive_runs`` (default: every length
    with the first seed) are the runs of the naive loop, which trains one run at a time, so its
    rate hardly depends on how many are timed.  Returns the configuration, the three rates, their
    ratios, the structured step's floating-point operations and achieved GFLOP/s, and
    :func:`matmul_throughput`.
    """
    cfg = protocol("authors", "full", n_val=100) if config is None else config
    if not isinstance(cfg, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(cfg).__name__}")
    for name, v in (("epochs_structured", epochs_structured), ("epochs_batched", epochs_batched),
                    ("epochs_naive", epochs_naive)):
        check_int(v, name, minimum=1)
    R, spe = len(cfg.runs), cfg.steps_per_epoch
    threads = torch.get_num_threads()

    # structured: the authors' protocol, every run at once (both ways of computing the attention)
    data = build_authors_data(cfg)
    rates = {}
    for m in (method, *(x for x in METHODS if x != method)):
        trainer = StructuredTrainer(dataclasses.replace(cfg, early_stopping="none"), data=data, method=m)
        trainer.run_epoch()
        t0 = time.perf_counter()
        for _ in range(epochs_structured):
            trainer.run_epoch()
        wall = time.perf_counter() - t0
        rates[m] = {"optimizer_steps": R * spe * epochs_structured, "wall_time_s": wall,
                    "steps_per_s": R * spe * epochs_structured / wall, "method": m,
                    "fallbacks": trainer.fallbacks}
    structured = rates[method]

    # the first edition's batched trainer (its own model, Adam), same runs
    old = dataclasses.replace(protocol("book-v1", "full"), Ts=cfg.Ts, seeds=cfg.seeds, n_train=cfg.n_train,
                              n_val=cfg.n_val, batch_size=cfg.batch_size, max_epochs=epochs_batched,
                              eval_every=epochs_batched, checkpoint_every=epochs_batched)
    t0 = time.perf_counter()
    res = train_batched(old.to_sweep_config(), progress=progress)
    wall = time.perf_counter() - t0
    steps = sum(r["optimizer_steps"] for r in res["runs"])
    batched = {"optimizer_steps": steps, "wall_time_s": wall, "steps_per_s": steps / wall,
               "model": "book-v1 (key_dim 32, no Dense block, Adam)"}

    chosen = list(naive_runs) if naive_runs is not None else [(T, cfg.seeds[0]) for T in cfg.Ts]
    naive = naive_steps_per_second(cfg, epochs=epochs_naive, runs=chosen)
    naive["runs"] = [list(r) for r in chosen]

    flops = [structured_flops(cfg, T, method=method) for T, _ in cfg.runs]
    per_step = sum(f["total"] for f in flops) / R            # one step of one run, mean over runs
    mm = matmul_throughput(cfg)
    achieved = per_step * structured["steps_per_s"] / 1e9
    return {
        "config": {**cfg.to_dict(), "epochs_structured": epochs_structured, "epochs_batched": epochs_batched,
                   "epochs_naive": epochs_naive, "method": method},
        "threads": threads,
        "naive": naive, "batched": batched, "structured": structured,
        "structured_other_methods": {m: r for m, r in rates.items() if m != method},
        "ratio_structured_over_naive": structured["steps_per_s"] / naive["steps_per_s"],
        "ratio_structured_over_batched": structured["steps_per_s"] / batched["steps_per_s"],
        "ratio_batched_over_naive": batched["steps_per_s"] / naive["steps_per_s"],
        "flops_per_step_structured": per_step,
        "flops_per_step_structured_by_T": {str(T): structured_flops(cfg, T, method=method)["total"]
                                           for T in cfg.Ts},
        "structured_achieved_gflops": achieved,
        "matmul": mm,
        "structured_fraction_of_matmul_throughput": achieved / mm["step_shapes_gflops"],
        "note": ("steps/s count one optimizer step of one run as 1; the structured FLOPs count the "
                 "matrix products only (element-wise work excluded)"),
    }
