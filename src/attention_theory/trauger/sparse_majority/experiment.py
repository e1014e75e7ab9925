"""Sparse-majority sweep of Trauger & Tewari, Sec. 6 (Figures 1-3), and its benchmark.

Run it with the book's experiment command::

    python -m attention_theory run trauger sparse-majority --scale smoke
    python -m attention_theory run trauger sparse-majority --scale full --device cuda

``--scale`` defaults to ``ATTN_SCALE`` (``smoke`` unless set).  The sweep writes
``runs-<scale>.json`` (one record per ``(T, seed)`` run at its best epoch, the evaluation
history, and a per-``T`` summary) with a provenance block; a checkpoint
``checkpoint-<scale>.pt`` in the output folder lets an interrupted sweep resume (rerun the same
command); it is deleted once the result is written unless ``--keep-checkpoint``.
``--max-epochs``, ``--seeds`` and ``--Ts`` reduce a sweep (recorded in the provenance).

``--protocol`` chooses the protocol of the sweep (:mod:`~.protocol`): ``book-v1`` (the default,
the first edition's, trained by :func:`~.training.train_batched`) or ``authors`` (the authors'
code, trained by :func:`~.structured.train_structured`; its checkpoint is
``checkpoint-authors-<scale>.pt``).  The part ``benchmark-structured`` times the naive loop, the
first edition's batched trainer and the structured trainer in steady state, interleaved, beside a
replay of the structured trainer's matrix products (:func:`~.benchmark.benchmark_trainers`;
``--benchmark-epochs`` epochs per block, ``--benchmark-reps`` repetitions)::

    python -m attention_theory run trauger sparse-majority --protocol authors --scale smoke
    python -m attention_theory run trauger sparse-majority --parts benchmark-structured
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any, Sequence

from attention_theory._validate import check_mapping
from attention_theory.config import SCALES
from attention_theory.config import scale as _env_scale
from attention_theory.experiment import (
    DistinctSeeds,
    Experiment,
    Part,
    PartResult,
    RunContext,
    Shards,
    positive_float,
    positive_int,
    seed_int,
    shard_dir,
)
from attention_theory.results import repo_results_dir
from attention_theory.trauger._args import check_sequence
from attention_theory.trauger.sparse_majority.benchmark import benchmark_trainers
from attention_theory.trauger.sparse_majority.protocol import PROTOCOLS, ProtocolConfig, protocol
from attention_theory.trauger.sparse_majority.structured import train_structured
from attention_theory.trauger.sparse_majority.training import SweepConfig, train_batched

__all__ = ["sweep_config", "summarize", "run_sweep", "run_authors_sweep", "authors_shard",
           "run_structured_benchmark", "results_dir", "EXPERIMENT"]

#: Protocol choices the paper leaves open (documented in the chapter).
CHOICES = {
    "optimizer": "Adam (lr 1e-3, betas (0.9, 0.999), eps 1e-7: the Keras defaults)",
    "init": "Glorot-uniform weights, zero biases (the Keras defaults)",
    "best_epoch": "lowest validation cross-entropy among the evaluated epochs",
    "gap": "validation CE minus training CE (full training set) at the best epoch",
    "weight_l1": "sum of |w| over all trainable parameters incl. biases (embeddings are fixed)",
    "embeddings": "0, 1, [CLS] = first three standard basis vectors of R^64; [CLS] at position 0",
    "index_set": "drawn uniformly without replacement, anew for each run",
    "padding": "all runs padded to max T + 1 with a masked PAD token",
}


def results_dir() -> Path:
    """The committed results of this experiment: ``<repository>/results/trauger-sparse-majority``
    (found from the package location, so chapters work from any working directory)."""
    return repo_results_dir("trauger-sparse-majority")


def sweep_config(scale: str | None = None, **overrides: Any) -> SweepConfig:
    """The sweep of a scale: ``smoke`` (CPU, seconds) or ``full`` (the paper's), with overrides."""
    scale = _env_scale() if scale is None else scale
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if scale == "smoke":
        base = SweepConfig(Ts=(20, 100), seeds=(0,), n_train=300, n_val=2000, max_epochs=300,
                           eval_every=10, checkpoint_every=100, patience=None)
    else:
        base = SweepConfig()
    return dataclasses.replace(base, **overrides) if overrides else base


def summarize(runs: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per ``T``: the largest weight l1 norm, the largest gap and the best validation accuracy
    over the seeds (the quantities of Figures 1, 2 and 3; each may come from a different run)."""
    check_sequence(runs, "runs")
    for i, r in enumerate(runs):
        check_mapping(r, f"runs[{i}]", ("T", "weight_l1", "gen_gap", "val_acc"))
    out: dict[str, dict[str, Any]] = {}
    for T in sorted({r["T"] for r in runs}):
        rs = [r for r in runs if r["T"] == T]
        out[str(T)] = {"n_runs": len(rs),
                       "max_weight_l1": max(r["weight_l1"] for r in rs),
                       "max_gen_gap": max(r["gen_gap"] for r in rs),
                       "max_val_acc": max(r["val_acc"] for r in rs)}
    return out


def run_sweep(config: SweepConfig, *, checkpoint_dir: str | Path | None = None, scale: str | None = None,
              device: str = "cpu", progress: bool = True, keep_checkpoint: bool = False,
              max_wall_s: float | None = None) -> dict[str, Any]:
    """Train the sweep, resuming from ``checkpoint_dir/checkpoint-<scale>.pt`` if present.

    Returns ``{"config", "data", "extra"}``: the configuration that ran, the result body (runs at
    their best epoch, per-``T`` summary, evaluation history; in memory also ``best_params``,
    which are not written) and provenance fields (epochs run, wall-time limit). The checkpoint
    is deleted after a finished sweep unless ``keep_checkpoint``.
    """
    scale = _env_scale() if scale is None else scale
    ckpt = Path(checkpoint_dir) / f"checkpoint-{scale}.pt" if checkpoint_dir is not None else None
    t0 = time.perf_counter()
    res = train_batched(config, device=device, checkpoint=ckpt, progress=progress,
                        max_wall_s=max_wall_s)
    assert res is not None
    data = {"runs": res["runs"], "summary": summarize(res["runs"]), "history": res["history"],
            "epochs_run": res["epochs"], "choices": CHOICES}
    extra = {"epochs_run": res["epochs"], "max_wall_s": max_wall_s,
             "train_wall_time_s": res["wall_time_s"]}
    if ckpt is not None and ckpt.exists() and not keep_checkpoint:
        ckpt.unlink()
    data["best_params"] = res["best_params"]
    data["session_wall_time_s"] = time.perf_counter() - t0
    return {"config": config.to_dict(), "data": data, "extra": extra}


def run_authors_sweep(config: ProtocolConfig, *, checkpoint_dir: str | Path | None = None,
                      scale: str | None = None, progress: bool = True, keep_checkpoint: bool = False,
                      max_wall_s: float | None = None) -> dict[str, Any]:
    """Train the sweep of the authors' protocol (:func:`~.structured.train_structured`), resuming
    from ``checkpoint_dir/checkpoint-authors-<scale>.pt`` if present.

    Returns ``{"config", "data", "extra"}`` like :func:`run_sweep`: runs at their best epoch,
    per-``T`` summary, evaluation history, the protocol name, and (in memory only) ``best_params``.
    The checkpoint is deleted after a finished sweep unless ``keep_checkpoint``.
    """
    scale = _env_scale() if scale is None else scale
    ckpt = (Path(checkpoint_dir) / f"checkpoint-authors-{scale}.pt"
            if checkpoint_dir is not None else None)
    t0 = time.perf_counter()
    res = train_structured(config, checkpoint=ckpt, progress=progress, max_wall_s=max_wall_s)
    assert res is not None
    data = {"protocol": config.name, "runs": res["runs"], "summary": summarize(res["runs"]),
            "history": res["history"], "epochs_run": res["epochs"], "finished": res["finished"],
            "softmax_fallbacks": res["fallbacks"]}
    extra = {"epochs_run": res["epochs"], "max_wall_s": max_wall_s, "train_wall_time_s": res["wall_time_s"],
             "train_cpu_time_s": res["cpu_time_s"], "cpu_time_since_epoch": res["cpu_time_since_epoch"]}
    if ckpt is not None and ckpt.exists() and res["finished"] and not keep_checkpoint:
        ckpt.unlink()
    data["best_params"] = res["best_params"]
    data["session_wall_time_s"] = time.perf_counter() - t0
    return {"config": config.to_dict(), "data": data, "extra": extra}


def run_structured_benchmark(scale: str | None = None, **kwargs: Any) -> dict[str, Any]:
    """:func:`~.benchmark.benchmark_trainers` at ``scale``: ``full`` times every (T, seed) run of the
    paper (10 lengths x 5 seeds; 10 epochs per block, 7 repetitions, the naive loop on the
    lengths 20, 100 and 200 with seed 0, the peak on a ``2048^3`` product: blocks of a second or
    more, so that one preemption does not decide a repetition); ``smoke`` three lengths x two seeds, 1 epoch per block, 3 repetitions, a ``1024^3``
    peak (seconds on one thread).  ``kwargs`` override the arguments of ``benchmark_trainers``.
    Returns ``{"config", "data"}``."""
    scale = _env_scale() if scale is None else scale
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if scale == "smoke":
        cfg = protocol("authors", "full", Ts=(20, 100, 200), seeds=(0, 1), n_val=100)
        args: dict[str, Any] = {"config": cfg, "epochs": 1, "reps": 3, "peak_n": 1024}
    else:
        args = {"config": protocol("authors", "full", n_val=100), "epochs": 10, "reps": 7, "peak_n": 2048,
                "naive_runs": [(20, 0), (100, 0), (200, 0)]}
    args.update(kwargs)
    res = benchmark_trainers(**args)
    return {"config": res.pop("config"), "data": res}


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--max-epochs", type=positive_int, default=None, help="sweep: fewer epochs than the scale's")
    ap.add_argument("--eval-every", type=positive_int, default=None, help="sweep: epochs between evaluations")
    ap.add_argument("--checkpoint-every", type=positive_int, default=None, help="sweep: epochs between checkpoints")
    ap.add_argument("--n-val", type=positive_int, default=None, help="validation samples")
    ap.add_argument("--seeds", type=seed_int, nargs="+", action=DistinctSeeds, default=None, help="seeds (default: the scale's)")
    ap.add_argument("--Ts", type=positive_int, nargs="+", default=None, help="sequence lengths")
    ap.add_argument("--max-wall-s", type=positive_float, default=None,
                    help="sweep: end (after a last evaluation) once this many seconds have passed")
    ap.add_argument("--keep-checkpoint", action="store_true", help="sweep: keep the checkpoint after the run")
    ap.add_argument("--benchmark-epochs", type=positive_int, default=None,
                    help="benchmark-structured: epochs per timed block (default: the scale's)")
    ap.add_argument("--benchmark-reps", type=positive_int, default=None,
                    help="benchmark-structured: interleaved repetitions (default: the scale's)")
    ap.add_argument("--from", dest="collect_from", type=Path, nargs="+", default=None, metavar="FOLDER",
                    help="collect-authors: folders holding checkpoint-authors-full.pt (default: "
                         "<out>/authors-a and <out>/authors-b)")
    ap.add_argument("--protocol", choices=tuple(PROTOCOLS), default="book-v1",
                    help="sweep: the training protocol (default book-v1, the first edition's; "
                         "authors: the authors' code, trained by the structured trainer)")


def _overrides(o: argparse.Namespace) -> dict[str, Any]:
    """The sweep settings given on the command line."""
    over: dict[str, Any] = {}
    for key in ("max_epochs", "eval_every", "checkpoint_every", "n_val"):
        if getattr(o, key) is not None:
            over[key] = getattr(o, key)
    if o.seeds:
        over["seeds"] = tuple(o.seeds)
    if o.Ts:
        over["Ts"] = tuple(o.Ts)
    return over


def _sweep_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    over = _overrides(o)
    if getattr(o, "protocol", "book-v1") == "authors":
        if ctx.device != "cpu":
            raise SystemExit("error: --protocol authors runs on the CPU (the structured trainer)")
        res = run_authors_sweep(protocol("authors", ctx.scale, **over), checkpoint_dir=ctx.out,
                                scale=ctx.scale, progress=ctx.progress, keep_checkpoint=o.keep_checkpoint,
                                max_wall_s=o.max_wall_s)
    else:
        cfg = sweep_config(ctx.scale, **over)
        res = run_sweep(cfg, checkpoint_dir=ctx.out, scale=ctx.scale, device=ctx.device,
                        progress=ctx.progress, keep_checkpoint=o.keep_checkpoint, max_wall_s=o.max_wall_s)
    data = {k: v for k, v in res["data"].items() if k not in ("best_params", "session_wall_time_s")}
    worst = max(row["max_gen_gap"] for row in data["summary"].values())
    return PartResult(res["config"], data, extra=res["extra"],
                      summary=f"{len(data['runs'])} runs, largest gap {worst:.4f}")


def _sweep_preflight(ctx: RunContext) -> str | None:
    """Refuse to overwrite a first-edition result with the authors' protocol (or the reverse)."""
    chosen = getattr(ctx.options, "protocol", "book-v1")
    target = Path(ctx.out) / f"runs-{ctx.scale}.json"
    if not target.exists():
        return None
    try:
        found = json.loads(target.read_text()).get("data", {}).get("protocol", "book-v1")
    except (OSError, ValueError, AttributeError):
        return None
    if found != chosen:
        return (f"error: {target} holds a sweep of protocol {found!r}; --protocol {chosen} would "
                f"overwrite it (choose another --out)")
    return None


def _authors_plan(ctx: RunContext) -> list[tuple[str, int]]:
    """One shard per length ``T`` (all its seeds), as the committed sweep was split over processes."""
    return [(f"T-{T}", T) for T in protocol("authors", ctx.scale, **_overrides(ctx.options)).Ts]


def authors_shard(ctx: RunContext, T: int) -> str:
    """Train (or resume) every seed of length ``T`` under the authors' protocol, keeping the
    checkpoint in its shard folder; returns that folder."""
    folder = shard_dir(ctx, "authors-sweep", f"T-{T}")
    cfg = protocol("authors", ctx.scale, **dict(_overrides(ctx.options), Ts=(T,)))
    run_authors_sweep(cfg, checkpoint_dir=folder, scale=ctx.scale, progress=ctx.progress,
                      keep_checkpoint=True, max_wall_s=ctx.options.max_wall_s)
    return str(folder)


def _authors_merge(ctx: RunContext, folders: list[str]) -> PartResult:
    return _collected(ctx, folders, f"checkpoint-authors-{ctx.scale}.pt")


def _collected(ctx: RunContext, folders: Sequence[str | Path], checkpoint_name: str) -> PartResult:
    """Merge authors'-protocol checkpoints into the sweep's result and write the best-epoch weights
    next to it (``authors-best-weights.npz``, ``-smoke`` at smoke scale; SHA-256 in the provenance)."""
    from attention_theory.trauger.sparse_majority.collect import collect_authors_sweep, write_weights

    try:
        res = collect_authors_sweep(folders, checkpoint_name=checkpoint_name)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    name = "authors-best-weights.npz" if ctx.scale == "full" else "authors-best-weights-smoke.npz"
    path, sha = write_weights(Path(ctx.out) / name, res["weights"])
    data = res["data"]
    data["summary"] = summarize(data["runs"])
    data["weights_file"] = path.name
    n_done = sum(r["stop_reason"] != "still-training" for r in data["runs"])
    epochs = [p["epoch"] for p in data["processes"]]
    return PartResult(res["config"], data, extra={"weights_sha256": sha, "weights_file": path.name},
                      summary=f"{len(data['runs'])} runs ({n_done} stopped), processes at epochs {epochs}")


def _structured_benchmark_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    if ctx.device != "cpu":
        raise SystemExit("error: benchmark-structured times the trainers on the CPU (omit --device)")
    over: dict[str, Any] = {}
    if o.Ts or o.seeds:
        base = protocol("authors", "full", n_val=100)
        over["config"] = dataclasses.replace(base, Ts=tuple(o.Ts or base.Ts), seeds=tuple(o.seeds or base.seeds))
    if o.benchmark_epochs is not None:
        over["epochs"] = o.benchmark_epochs
    if o.benchmark_reps is not None:
        over["reps"] = o.benchmark_reps
    res = run_structured_benchmark(ctx.scale, progress=ctx.progress, **over)
    d = res["data"]
    rate = {k: d["trainers"][k]["steps_per_cpu_s"]["median"] for k in ("structured", "batched", "naive")}
    frac = d["throughput"]["fraction_of_limit"]["cpu"]
    return PartResult(res["config"], d, summary=(
        f"median steps per CPU-second: structured {rate['structured']:.0f}, batched {rate['batched']:.0f}, "
        f"naive {rate['naive']:.1f}; structured/batched "
        f"{d['speedup']['structured_over_batched']['cpu']['median']:.2f}x; fraction of the products' "
        f"limit {frac['min']:.2f}-{frac['max']:.2f}"
        + (" (EXCEEDS 1)" if d["fraction_exceeds_one"] else "")
        + f" ({d['machine']['torch_threads']} threads)"))


def _collect_part(ctx: RunContext) -> PartResult:
    """Merge the authors'-protocol checkpoints of ``--from`` (default ``authors-a``, ``authors-b``:
    the two processes of the earlier recipe) into ``authors-sweep.json`` and its weights."""
    if ctx.scale != "full":
        raise SystemExit("error: collect-authors reads full-scale checkpoints (use --scale full)")
    folders = ctx.options.collect_from or [Path(ctx.out) / "authors-a", Path(ctx.out) / "authors-b"]
    return _collected(ctx, folders, "checkpoint-authors-full.pt")


def _collect_preflight(ctx: RunContext) -> str | None:
    folders = ctx.options.collect_from or [Path(ctx.out) / "authors-a", Path(ctx.out) / "authors-b"]
    missing = [str(f) for f in folders if not (Path(f) / "checkpoint-authors-full.pt").exists()]
    return f"error: no checkpoint-authors-full.pt in {missing}" if missing else None


def _default_parts(options: argparse.Namespace) -> tuple[str, ...]:
    """sweep; with --protocol authors, authors-sweep"""
    return ("authors-sweep",) if getattr(options, "protocol", "book-v1") == "authors" else ("sweep",)


EXPERIMENT = Experiment(
    paper="trauger", name="sparse-majority",
    description="Sparse-majority sweep of Trauger & Tewari, Sec. 6 (Figures 1-3), and its benchmark.",
    results="trauger-sparse-majority",
    parts=(Part("sweep", _sweep_part, "train every (T, seed) run; resumes from its checkpoint",
                filename=lambda scale: f"runs-{scale}.json", preflight=_sweep_preflight),
           Part("benchmark-structured", _structured_benchmark_part,
                "naive loop, first-edition batched trainer and structured trainer (authors' model) in "
                "steady state, interleaved repetitions, beside a replay of the structured trainer's "
                "products"),
           Part("authors-sweep", None,
                "the authors' protocol, one shard per length T (spread over --workers; each shard "
                "resumes from its own checkpoint), merged into authors-sweep.json and its weights",
                filename=lambda scale: "authors-sweep.json" if scale == "full" else "authors-sweep-smoke.json",
                shards=Shards(_authors_plan, authors_shard, _authors_merge)),
           Part("collect-authors", _collect_part,
                "merge the authors'-protocol checkpoints (--from) into authors-sweep.json and the "
                "best-epoch weights", filename=lambda scale: "authors-sweep.json",
                preflight=_collect_preflight)),
    default_parts=_default_parts,
    add_options=_options,
)
