"""Sparse-majority sweep of Trauger & Tewari, Sec. 6 (Figures 1-3), and its benchmark.

Run it as a module::

    python -m attention_theory.experiments.sparse_majority --scale smoke --out results/trauger-sparse-majority/
    python -m attention_theory.experiments.sparse_majority --scale full  --out results/trauger-sparse-majority/ --device cuda
    python -m attention_theory.experiments.sparse_majority --benchmark --out results/trauger-sparse-majority/

``--scale`` defaults to ``ATTN_SCALE`` (``smoke`` unless set).  The sweep writes
``runs-<scale>.json`` (one record per ``(T, seed)`` run at its best epoch, the evaluation
history, and a per-``T`` summary) with a provenance block; a checkpoint
``checkpoint-<scale>.pt`` next to it lets an interrupted sweep resume (rerun the same
command); it is deleted once the result is written unless ``--keep-checkpoint``.
``--max-epochs``, ``--seeds`` and ``--Ts`` reduce a sweep (recorded in the provenance).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Any, Sequence

import torch

from ..config import SCALES
from ..config import scale as _env_scale
from ..optim.batched import SweepConfig, build_sweep_data, train_batched, train_naive
from ..results import provenance, write_result

__all__ = ["sweep_config", "summarize", "run_sweep", "run_benchmark", "results_dir", "main"]

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
    return Path(__file__).resolve().parents[3] / "results" / "trauger-sparse-majority"


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
    out: dict[str, dict[str, Any]] = {}
    for T in sorted({r["T"] for r in runs}):
        rs = [r for r in runs if r["T"] == T]
        out[str(T)] = {"n_runs": len(rs),
                       "max_weight_l1": max(r["weight_l1"] for r in rs),
                       "max_gen_gap": max(r["gen_gap"] for r in rs),
                       "max_val_acc": max(r["val_acc"] for r in rs)}
    return out


def run_sweep(config: SweepConfig, *, out: str | Path | None = None, scale: str | None = None,
              device: str = "cpu", progress: bool = True, keep_checkpoint: bool = False,
              note: str | None = None, max_wall_s: float | None = None) -> dict[str, Any]:
    """Train the sweep (resuming from ``out/checkpoint-<scale>.pt`` if present) and, when ``out``
    is given, write ``out/runs-<scale>.json`` with provenance.  Returns ``{"provenance", "data"}``
    (``data`` also holds ``best_params`` in memory, which are not written)."""
    scale = _env_scale() if scale is None else scale
    ckpt = Path(out) / f"checkpoint-{scale}.pt" if out is not None else None
    t0 = time.perf_counter()
    res = train_batched(config, device=device, checkpoint=ckpt, progress=progress,
                        max_wall_s=max_wall_s)
    assert res is not None
    data = {"runs": res["runs"], "summary": summarize(res["runs"]), "history": res["history"],
            "epochs_run": res["epochs"], "choices": CHOICES}
    extra = {"epochs_run": res["epochs"], "max_wall_s": max_wall_s}
    if note:
        extra["note"] = note
    prov = provenance(config.to_dict(), wall_time_s=res["wall_time_s"], device=device, scale=scale,
                      extra=extra)
    if out is not None:
        write_result(Path(out) / f"runs-{scale}.json", data, prov)
        if ckpt is not None and ckpt.exists() and not keep_checkpoint:
            ckpt.unlink()
    data["best_params"] = res["best_params"]
    data["session_wall_time_s"] = time.perf_counter() - t0
    return {"provenance": prov, "data": data}


def run_benchmark(*, epochs: int = 4, device: str = "cpu", out: str | Path | None = None,
                  Ts: Sequence[int] | None = None, seeds: Sequence[int] | None = None,
                  n_val: int = 200, progress: bool = False) -> dict[str, Any]:
    """Aggregate optimizer steps per second: batched trainer vs the naive loop, same device.

    Both train the runs of the paper's sweep shape (all ``T``, all seeds unless reduced)
    for ``epochs`` epochs with the same hyper-parameters.  A third figure, "one at a time",
    runs the batched trainer on each run separately (same fast forward, no stacking) to
    separate the gain of the forward from the gain of stacking.
    """
    base = SweepConfig()
    cfg = dataclasses.replace(base, Ts=tuple(Ts or base.Ts), seeds=tuple(seeds or base.seeds),
                              n_val=n_val, max_epochs=epochs, eval_every=epochs,
                              checkpoint_every=epochs)
    data = build_sweep_data(cfg)
    steps_per_epoch = -(-cfg.n_train // cfg.batch_size)
    R = len(cfg.runs)

    t = time.perf_counter()
    res = train_batched(cfg, device=device, progress=progress, data=data)
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()
    wall_batched = time.perf_counter() - t
    steps_batched = sum(r["optimizer_steps"] for r in res["runs"])

    t = time.perf_counter()
    for r, (T, s) in enumerate(cfg.runs):
        one = dataclasses.replace(cfg, Ts=(T,), seeds=(s,))
        train_batched(one, device=device, progress=False)
    wall_single = time.perf_counter() - t
    steps_single = R * epochs * steps_per_epoch

    naive = train_naive(cfg, device=device, epochs=epochs, data=data, progress=progress)
    out_data = {
        "runs": R, "epochs": epochs, "steps_per_epoch": steps_per_epoch,
        "batched": {"optimizer_steps": steps_batched, "wall_time_s": wall_batched,
                    "steps_per_s": steps_batched / wall_batched},
        "one_at_a_time_fast_forward": {"optimizer_steps": steps_single, "wall_time_s": wall_single,
                                       "steps_per_s": steps_single / wall_single},
        "naive": {"optimizer_steps": naive["optimizer_steps"], "wall_time_s": naive["wall_time_s"],
                  "steps_per_s": naive["optimizer_steps"] / naive["wall_time_s"]},
        "note": ("wall times include one evaluation per run (train set and a validation set of "
                 f"{n_val}) for the two trainers built on train_batched; the naive loop does none"),
    }
    out_data["ratio_batched_over_naive"] = out_data["batched"]["steps_per_s"] / out_data["naive"]["steps_per_s"]
    out_data["ratio_batched_over_one_at_a_time"] = (out_data["batched"]["steps_per_s"]
                                                    / out_data["one_at_a_time_fast_forward"]["steps_per_s"])
    total_steps_full = R * 200_000 * steps_per_epoch
    out_data["projected_full_sweep_hours_batched"] = total_steps_full / out_data["batched"]["steps_per_s"] / 3600
    prov = provenance(cfg.to_dict(), wall_time_s=wall_batched + wall_single + naive["wall_time_s"],
                      device=device, scale="benchmark",
                      extra={"torch_num_threads": torch.get_num_threads()})
    if out is not None:
        write_result(Path(out) / "benchmark.json", out_data, prov)
    return {"provenance": prov, "data": out_data}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m attention_theory.experiments.sparse_majority",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--scale", choices=SCALES, default=None, help="default: $ATTN_SCALE or smoke")
    ap.add_argument("--out", default="results/trauger-sparse-majority/")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--max-epochs", type=int, default=None)
    ap.add_argument("--eval-every", type=int, default=None)
    ap.add_argument("--checkpoint-every", type=int, default=None)
    ap.add_argument("--n-val", type=int, default=None)
    ap.add_argument("--seeds", type=int, nargs="+", default=None)
    ap.add_argument("--Ts", type=int, nargs="+", default=None)
    ap.add_argument("--note", default=None, help="a sentence stored in the provenance")
    ap.add_argument("--max-wall-s", type=float, default=None,
                    help="end the sweep (after a last evaluation) once this many seconds have passed")
    ap.add_argument("--keep-checkpoint", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--benchmark", action="store_true", help="run the benchmark instead of a sweep")
    ap.add_argument("--benchmark-epochs", type=int, default=4)
    args = ap.parse_args(argv)
    if args.benchmark:
        res = run_benchmark(epochs=args.benchmark_epochs, device=args.device, out=args.out,
                            Ts=args.Ts, seeds=args.seeds, progress=not args.no_progress)
        d = res["data"]
        print(f"batched {d['batched']['steps_per_s']:.1f} steps/s, naive {d['naive']['steps_per_s']:.1f} "
              f"steps/s, ratio {d['ratio_batched_over_naive']:.1f}x")
        return 0
    scale = args.scale or _env_scale()
    over: dict[str, Any] = {}
    for key, val in (("max_epochs", args.max_epochs), ("eval_every", args.eval_every),
                     ("checkpoint_every", args.checkpoint_every), ("n_val", args.n_val)):
        if val is not None:
            over[key] = val
    if args.seeds:
        over["seeds"] = tuple(args.seeds)
    if args.Ts:
        over["Ts"] = tuple(args.Ts)
    cfg = sweep_config(scale, **over)
    res = run_sweep(cfg, out=args.out, scale=scale, device=args.device,
                    progress=not args.no_progress, keep_checkpoint=args.keep_checkpoint,
                    note=args.note, max_wall_s=args.max_wall_s)
    for T, row in res["data"]["summary"].items():
        print(f"T={T:>4}: max l1 {row['max_weight_l1']:.1f}  max gap {row['max_gen_gap']:.4f}  "
              f"max val acc {row['max_val_acc']:.4f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
