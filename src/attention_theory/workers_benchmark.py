"""How much faster the campaign and a sharded sweep run on more workers, measured side by side.

``python -m attention_theory bench-workers [--workers 1 2] [--repeats 3] [--paper qin]``
runs, for each repetition and, inside it, for each worker count in turn (interleaved, so a
change of the machine's load hits every count alike):

* the smoke-scale campaign (every check of ``--paper``, or of every paper) into a fresh folder;
* the smoke-scale sparse-majority sweep of the authors' protocol (one shard per length).

Each is one command in a fresh interpreter, exactly as a user types it, so its wall time
includes starting Python, importing the package and, with more than one worker, starting the
local Dask cluster and importing the package in every worker (a user waits for all of it).  The
CPU seconds are the campaign's tasks' own (from its manifest) and the command's with every
process it waited for.  The report gives min / median / max of the
wall times per worker count, the speed-up of each count over the first (ratio of medians), the
machine's core count and its load average before and after, and is written with provenance to
``results/benchmarks/workers-smoke.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from attention_theory.cluster import worker_count
from attention_theory.papers import PAPERS
from attention_theory.validation import as_array

__all__ = ["time_campaign", "time_sweep", "summarize_times", "main"]


def _command(args: list[str]) -> tuple[float, float]:
    """Run ``python -m attention_theory ARGS`` in a fresh interpreter, as a user would: wall
    seconds and the CPU seconds of it and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "attention_theory", *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"'{' '.join(args)}' failed ({done.returncode}): {done.stderr[-1500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _check_workers(workers: int) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")


def time_campaign(workers: int, *, paper: str | None = None) -> dict[str, float]:
    """Wall seconds of the smoke campaign (every check of ``paper``, or of all papers) on
    ``workers`` local workers, as one command in a fresh interpreter writing into a temporary
    folder, and the CPU seconds of its tasks (from the folder's manifest)."""
    from attention_theory.verify.campaign import read_manifest

    _check_workers(workers)
    if paper is not None and paper not in {p.key for p in PAPERS}:
        raise ValueError(f"paper must be one of {[p.key for p in PAPERS]}, got {paper!r}")
    with tempfile.TemporaryDirectory(prefix="attn-bench-") as folder:
        reg = Path(folder) / "registry"
        wall, cpu = _command(["check", "--all", *(["--paper", paper] if paper else []),
                              "--registry", str(reg), "--against", folder, "--no-progress",
                              "--workers", str(workers)])
        tasks = read_manifest(reg)["tasks"]
        return {"wall_s": wall, "cpu_s": sum(t["cpu_s"] for t in tasks.values()), "tasks": len(tasks),
                "process_cpu_s": cpu}


def time_sweep(workers: int) -> dict[str, float]:
    """Wall seconds of the smoke sparse-majority sweep (authors' protocol, one shard per length)
    on ``workers`` local workers, as one command in a fresh interpreter."""
    _check_workers(workers)
    with tempfile.TemporaryDirectory(prefix="attn-bench-") as folder:
        wall, cpu = _command(["run", "trauger", "sparse-majority", "--protocol", "authors",
                              "--scale", "smoke", "--no-progress", "--out", folder,
                              "--workers", str(workers)])
        return {"wall_s": wall, "process_cpu_s": cpu}


def summarize_times(times: Sequence[float]) -> dict[str, float]:
    """``{"min", "median", "max", "n"}`` of repeated measurements (seconds)."""
    values = as_array(times, "times", ndim=1).tolist()
    if any(v < 0 for v in values):
        raise ValueError(f"times must be seconds >= 0, got {values}")
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def _measure(name: str, fn: Callable[[], dict[str, float]], log: Callable[[str], None]) -> dict[str, float]:
    out = fn()
    log(f"  {name}: {out['wall_s']:.1f} s wall, {out['process_cpu_s']:.1f} CPU-s"
        + (f" ({out['cpu_s']:.1f} in its tasks)" if "cpu_s" in out else ""))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from attention_theory.results import provenance, repo_results_dir, write_result

    ap = argparse.ArgumentParser(prog="python -m attention_theory bench-workers",
                                 description="The smoke campaign and a smoke sweep on 1, 2, ... workers, "
                                             "side by side, with the speed-up.")
    ap.add_argument("--workers", type=worker_count, nargs="+", default=[1, 2], metavar="N|auto",
                    help="worker counts to compare, the first being the reference (default: 1 2)")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    ap.add_argument("--paper", choices=[p.key for p in PAPERS], default=None,
                    help="the campaign of one paper only (default: every paper)")
    ap.add_argument("--no-sweep", action="store_true", help="time the campaign only")
    ap.add_argument("--out", type=Path, default=None,
                    help="result file (default: results/benchmarks/workers-smoke.json)")
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {args.repeats}")
    if len(set(args.workers)) != len(args.workers):
        ap.error(f"--workers must be distinct counts, got {args.workers}")
    out = args.out or repo_results_dir("benchmarks") / "workers-smoke.json"
    if out.exists() and out.is_dir():
        ap.error(f"--out {out} is a folder: give a file name")
    load_before = os.getloadavg()
    t_all, c_all = time.perf_counter(), time.process_time()
    runs: dict[str, dict[int, list[dict[str, float]]]] = {"campaign": {}, "sweep": {}}
    for rep in range(args.repeats):
        for w in args.workers:
            print(f"repetition {rep + 1}/{args.repeats}, {w} worker(s)", flush=True)
            runs["campaign"].setdefault(w, []).append(
                _measure("campaign", lambda: time_campaign(w, paper=args.paper), print))
            if not args.no_sweep:
                runs["sweep"].setdefault(w, []).append(_measure("sweep", lambda: time_sweep(w), print))
    load_after = os.getloadavg()
    data: dict[str, Any] = {"cores": os.cpu_count(), "load_average_before": list(load_before),
                            "load_average_after": list(load_after), "paper": args.paper or "all"}
    ref = args.workers[0]
    lines = []
    for what, per in runs.items():
        if not per:
            continue
        data[what] = {}
        for w, rows in per.items():
            row = {"wall_s": summarize_times([r["wall_s"] for r in rows])}
            row["process_cpu_s"] = summarize_times([r["process_cpu_s"] for r in rows])
            if "cpu_s" in rows[0]:
                row["task_cpu_s"] = summarize_times([r["cpu_s"] for r in rows])
            row["speedup_over_first"] = per[ref] and (
                statistics.median(r["wall_s"] for r in per[ref]) / row["wall_s"]["median"])
            data[what][str(w)] = row
            lines.append(f"{what}, {w} worker(s): wall min/median/max {row['wall_s']['min']:.1f}/"
                         f"{row['wall_s']['median']:.1f}/{row['wall_s']['max']:.1f} s; speed-up over {ref}: "
                         f"{row['speedup_over_first']:.2f}x")
    config = {"workers": args.workers, "repeats": args.repeats, "paper": args.paper,
              "sweep": not args.no_sweep}
    prov = provenance(config, wall_time_s=time.perf_counter() - t_all, scale="smoke",
                      extra={"client_cpu_time_s": time.process_time() - c_all})
    path = write_result(out, data, prov)
    print("\n".join(lines))
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} ({os.cpu_count()} cores); "
          f"wrote {path}")
    return 0
