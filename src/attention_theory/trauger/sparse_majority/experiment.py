"""Sparse-majority sweep of Trauger & Tewari, Sec. 6 (Figures 1-3), and its benchmark.

Run it with the book's experiment command::

    python -m attention_theory run trauger sparse-majority --scale smoke
    python -m attention_theory run trauger sparse-majority --scale full --workers auto

``--scale`` defaults to ``ATTN_SCALE`` (``smoke`` unless set).  ``--protocol`` chooses the
protocol (:mod:`~.protocol`): ``authors`` (the default: the authors' code, the protocol of the
book's figures, trained by :func:`~.structured.train_structured`) or ``book-v1`` (the first
edition's, trained by :func:`~.training.train_batched`).  By default the authors' protocol runs
the part ``authors-sweep`` (one shard per length, merged into ``authors-sweep.json`` and its
best-epoch weights); ``book-v1`` runs the part ``sweep``.  The part ``sweep`` trains every run in
one process and writes ``runs-<scale>.json`` (one record per ``(T, seed)`` run at its best
epoch, the evaluation history, and a per-``T`` summary) with a provenance block; a checkpoint in
the output folder (``checkpoint-<scale>.pt``, ``checkpoint-authors-<scale>.pt`` for the authors'
protocol) lets an interrupted sweep resume (rerun the same command); it is deleted once the
result is written unless ``--keep-checkpoint``.  ``--max-epochs``, ``--seeds`` and ``--Ts``
reduce a sweep (recorded in the provenance).

Every part declares the configuration it runs at each scale (``config=`` of its
:class:`~attention_theory.experiment.Part`; the options above override it), and the chapter's
live run uses the same one: ``EXPERIMENT.part("sweep").config_for("smoke")`` (one configuration
per protocol).  The part ``benchmark-structured`` times the naive loop, the first edition's
batched trainer and the structured trainer in steady state, interleaved, beside a replay of the
structured trainer's matrix products (:func:`~.benchmark.benchmark_trainers`;
``--benchmark-epochs`` epochs per block, ``--benchmark-reps`` repetitions)::

    python -m attention_theory run trauger sparse-majority --protocol book-v1 --scale smoke
    python -m attention_theory run trauger sparse-majority --parts benchmark-structured
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

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
from attention_theory.validation import check_mapping

__all__ = ["sweep_config", "summarize", "run_sweep", "run_authors_sweep", "authors_shard",
           "run_structured_benchmark", "results_dir", "EXPERIMENT"]

#: The protocol ``run trauger sparse-majority`` trains unless ``--protocol`` says otherwise.
DEFAULT_PROTOCOL = "authors"

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


def _protocol_from(settings: Mapping[str, Any] | ProtocolConfig, **overrides: Any) -> ProtocolConfig:
    """A :class:`~.protocol.ProtocolConfig` from its ``to_dict()`` form (lists as tuples), with
    ``overrides`` applied."""
    if not isinstance(settings, ProtocolConfig):
        check_mapping(settings, "config", ("name", "Ts", "seeds"))
        settings = ProtocolConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()})
    return dataclasses.replace(settings, **overrides) if overrides else settings


def _sweep_config_from(settings: Mapping[str, Any] | SweepConfig, **overrides: Any) -> SweepConfig:
    """A :class:`~.training.SweepConfig` from its ``to_dict()`` form (lists as tuples), with
    ``overrides`` applied."""
    if not isinstance(settings, SweepConfig):
        check_mapping(settings, "config", ("Ts", "seeds"))
        settings = SweepConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()})
    return dataclasses.replace(settings, **overrides) if overrides else settings


def run_sweep(config: SweepConfig | Mapping[str, Any], *, checkpoint_dir: str | Path | None = None,
              scale: str | None = None, device: str = "cpu", progress: bool = True,
              keep_checkpoint: bool = False, max_wall_s: float | None = None) -> dict[str, Any]:
    """Train the sweep of the first edition's protocol (``config``: a
    :class:`~.training.SweepConfig` or its ``to_dict()``, e.g.
    ``EXPERIMENT.part("sweep").config_for("smoke")["book-v1"]``), resuming from
    ``checkpoint_dir/checkpoint-<scale>.pt`` if present.

    Returns ``{"config", "data", "extra"}``: the configuration that ran, the result body (runs at
    their best epoch, per-``T`` summary, evaluation history; in memory also ``best_params``,
    which are not written) and provenance fields (epochs run, wall-time limit). The checkpoint
    is deleted after a finished sweep unless ``keep_checkpoint``.
    """
    config = _sweep_config_from(config)
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


def run_authors_sweep(config: ProtocolConfig | Mapping[str, Any], *,
                      checkpoint_dir: str | Path | None = None, scale: str | None = None,
                      progress: bool = True, keep_checkpoint: bool = False,
                      max_wall_s: float | None = None) -> dict[str, Any]:
    """Train the sweep of the authors' protocol (:func:`~.structured.train_structured`; ``config``:
    a :class:`~.protocol.ProtocolConfig` or its ``to_dict()``, e.g.
    ``EXPERIMENT.part("sweep").config_for("smoke")["authors"]``), resuming from
    ``checkpoint_dir/checkpoint-authors-<scale>.pt`` if present.

    Returns ``{"config", "data", "extra"}`` like :func:`run_sweep`: runs at their best epoch,
    per-``T`` summary, evaluation history, the protocol name, and (in memory only) ``best_params``.
    The checkpoint is deleted after a finished sweep unless ``keep_checkpoint``.
    """
    config = _protocol_from(config)
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


def run_structured_benchmark(config: Mapping[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """:func:`~.benchmark.benchmark_trainers` with the settings ``config`` (the part's declared
    configuration, ``EXPERIMENT.part("benchmark-structured").config_for(scale)``: ``config`` the
    protocol as ``to_dict()``, ``epochs`` per block, ``reps``, ``peak_n`` and optionally
    ``naive_runs``).  Returns ``{"config", "data"}``."""
    check_mapping(config, "config", ("config", "epochs", "reps", "peak_n"))
    args = dict(config)
    args["config"] = _protocol_from(config["config"])
    if args.get("naive_runs") is not None:
        args["naive_runs"] = [tuple(r) for r in args["naive_runs"]]
    res = benchmark_trainers(**args, progress=progress)
    return {"config": res.pop("config"), "data": res}


# ------------------------------------------------------------ the parts and their configurations
def _sweep_configs(scale: str) -> dict[str, dict[str, Any]]:
    """Part ``sweep``: the configuration of each protocol at ``scale`` (``--protocol`` picks one):
    ``authors`` the authors' code (:func:`~.protocol.protocol`), ``book-v1`` the first edition's
    (:func:`sweep_config`)."""
    return {"authors": protocol("authors", scale).to_dict(), "book-v1": sweep_config(scale).to_dict()}


def _authors_sweep_config(scale: str) -> dict[str, Any]:
    """Part ``authors-sweep``: the authors' protocol at ``scale`` (each shard trains its length)."""
    return protocol("authors", scale).to_dict()


def _benchmark_config(scale: str) -> dict[str, Any]:
    """Part ``benchmark-structured``: ``full`` times every (T, seed) run of the paper (10 lengths x
    5 seeds, 100 validation samples; 10 epochs per block, 7 repetitions, the naive loop on the
    lengths 20, 100 and 200 with seed 0, the peak on a ``2048^3`` product: blocks of a second or
    more, so that one preemption does not decide a repetition); ``smoke`` three lengths x two
    seeds, 1 epoch per block, 3 repetitions, a ``1024^3`` peak (seconds on one thread)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if scale == "smoke":
        cfg = protocol("authors", "full", Ts=(20, 100, 200), seeds=(0, 1), n_val=100)
        return {"config": cfg.to_dict(), "epochs": 1, "reps": 3, "peak_n": 1024}
    return {"config": protocol("authors", "full", n_val=100).to_dict(), "epochs": 10, "reps": 7,
            "peak_n": 2048, "naive_runs": [[20, 0], [100, 0], [200, 0]]}


def _collect_config(scale: str) -> dict[str, Any]:
    """Part ``collect-authors``: the checkpoint file it merges and the folders (under ``--out``)
    it reads when ``--from`` is not given (the two processes of the earlier recipe); the protocol
    is the one saved in the checkpoints.  Full scale only."""
    return {"checkpoint_name": "checkpoint-authors-full.pt", "from": ["authors-a", "authors-b"]}


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--max-epochs", type=positive_int, default=None,
                    help="sweep: fewer epochs than the scale's")
    ap.add_argument("--eval-every", type=positive_int, default=None,
                    help="sweep: epochs between evaluations")
    ap.add_argument("--checkpoint-every", type=positive_int, default=None,
                    help="sweep: epochs between checkpoints")
    ap.add_argument("--n-val", type=positive_int, default=None, help="validation samples")
    ap.add_argument("--seeds", type=seed_int, nargs="+", action=DistinctSeeds, default=None,
                    help="seeds (default: the scale's)")
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
    ap.add_argument("--protocol", choices=tuple(PROTOCOLS), default=DEFAULT_PROTOCOL,
                    help="the training protocol (default authors: the authors' code, trained by the "
                         "structured trainer, the protocol of the book's figures; book-v1: the first "
                         "edition's)")


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


def _protocol_name(options: argparse.Namespace) -> str:
    return getattr(options, "protocol", DEFAULT_PROTOCOL)


def _sweep_part(ctx: RunContext) -> PartResult:
    o = ctx.options
    name = _protocol_name(o)
    declared = _sweep_configs(ctx.scale)[name]
    if name == "authors":
        if ctx.device != "cpu":
            raise SystemExit("error: --protocol authors runs on the CPU (the structured trainer)")
        res = run_authors_sweep(_protocol_from(declared, **_overrides(o)), checkpoint_dir=ctx.out,
                                scale=ctx.scale, progress=ctx.progress, keep_checkpoint=o.keep_checkpoint,
                                max_wall_s=o.max_wall_s)
    else:
        res = run_sweep(_sweep_config_from(declared, **_overrides(o)), checkpoint_dir=ctx.out,
                        scale=ctx.scale, device=ctx.device, progress=ctx.progress,
                        keep_checkpoint=o.keep_checkpoint, max_wall_s=o.max_wall_s)
    data = {k: v for k, v in res["data"].items() if k not in ("best_params", "session_wall_time_s")}
    worst = max(row["max_gen_gap"] for row in data["summary"].values())
    return PartResult(res["config"], data, extra=res["extra"],
                      summary=f"{len(data['runs'])} runs, largest gap {worst:.4f}")


def _sweep_preflight(ctx: RunContext) -> str | None:
    """Refuse to overwrite a first-edition result with the authors' protocol (or the reverse)."""
    chosen = _protocol_name(ctx.options)
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


def _authors_protocol(ctx: RunContext, **extra: Any) -> ProtocolConfig:
    """The declared authors' protocol of ``ctx.scale`` with the command line's settings and ``extra``."""
    return _protocol_from(_authors_sweep_config(ctx.scale), **dict(_overrides(ctx.options), **extra))


def _authors_plan(ctx: RunContext) -> list[tuple[str, int]]:
    """One shard per length ``T`` (all its seeds), as the committed sweep was split over processes."""
    return [(f"T-{T}", T) for T in _authors_protocol(ctx).Ts]


def authors_shard(ctx: RunContext, T: int) -> str:
    """Train (or resume) every seed of length ``T`` under the authors' protocol, keeping the
    checkpoint in its shard folder; returns that folder."""
    folder = shard_dir(ctx, "authors-sweep", f"T-{T}")
    run_authors_sweep(_authors_protocol(ctx, Ts=(T,)), checkpoint_dir=folder, scale=ctx.scale,
                      progress=ctx.progress, keep_checkpoint=True, max_wall_s=ctx.options.max_wall_s)
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


def _benchmark_settings(ctx: RunContext) -> dict[str, Any]:
    """The declared benchmark configuration of ``ctx.scale`` with the command line's ``--Ts``,
    ``--seeds``, ``--benchmark-epochs`` and ``--benchmark-reps``."""
    o = ctx.options
    settings = _benchmark_config(ctx.scale)
    if o.Ts or o.seeds:
        base = settings["config"]
        settings["config"] = {**base, "Ts": list(o.Ts or base["Ts"]), "seeds": list(o.seeds or base["seeds"])}
    if o.benchmark_epochs is not None:
        settings["epochs"] = o.benchmark_epochs
    if o.benchmark_reps is not None:
        settings["reps"] = o.benchmark_reps
    return settings


def _structured_benchmark_part(ctx: RunContext) -> PartResult:
    if ctx.device != "cpu":
        raise SystemExit("error: benchmark-structured times the trainers on the CPU (omit --device)")
    res = run_structured_benchmark(_benchmark_settings(ctx), progress=ctx.progress)
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


def _collect_folders(ctx: RunContext) -> list[Path]:
    return ctx.options.collect_from or [Path(ctx.out) / f for f in _collect_config(ctx.scale)["from"]]


def _collect_part(ctx: RunContext) -> PartResult:
    """Merge the authors'-protocol checkpoints of ``--from`` (default ``authors-a``, ``authors-b``:
    the two processes of the earlier recipe) into ``authors-sweep.json`` and its weights."""
    if ctx.scale != "full":
        raise SystemExit("error: collect-authors reads full-scale checkpoints (use --scale full)")
    return _collected(ctx, _collect_folders(ctx), _collect_config(ctx.scale)["checkpoint_name"])


def _collect_preflight(ctx: RunContext) -> str | None:
    name = _collect_config(ctx.scale)["checkpoint_name"]
    missing = [str(f) for f in _collect_folders(ctx) if not (Path(f) / name).exists()]
    return f"error: no {name} in {missing}" if missing else None


def _default_parts(options: argparse.Namespace) -> tuple[str, ...]:
    """authors-sweep (the default protocol, authors); with --protocol book-v1, sweep"""
    return ("authors-sweep",) if _protocol_name(options) == "authors" else ("sweep",)


def _authors_sweep_file(scale: str) -> str:
    return "authors-sweep.json" if scale == "full" else "authors-sweep-smoke.json"


EXPERIMENT = Experiment(
    paper="trauger", name="sparse-majority",
    description="Sparse-majority sweep of Trauger & Tewari, Sec. 6 (Figures 1-3), and its benchmark.",
    results="trauger-sparse-majority",
    parts=(Part("sweep", _sweep_part, "train every (T, seed) run in this process (the protocol of "
                "--protocol); resumes from its checkpoint",
                filename=lambda scale: f"runs-{scale}.json", preflight=_sweep_preflight,
                config=_sweep_configs),
           Part("benchmark-structured", _structured_benchmark_part,
                "naive loop, first-edition batched trainer and structured trainer (authors' model) in "
                "steady state, interleaved repetitions, beside a replay of the structured trainer's "
                "products", config=_benchmark_config),
           Part("authors-sweep", None,
                "the authors' protocol, one shard per length T (spread over --workers; each shard "
                "resumes from its own checkpoint), merged into authors-sweep.json and its weights",
                filename=_authors_sweep_file,
                shards=Shards(_authors_plan, authors_shard, _authors_merge), config=_authors_sweep_config),
           Part("collect-authors", _collect_part,
                "merge the authors'-protocol checkpoints (--from) into authors-sweep.json and the "
                "best-epoch weights", filename=lambda scale: "authors-sweep.json",
                preflight=_collect_preflight, config=_collect_config)),
    default_parts=_default_parts,
    add_options=_options,
)
