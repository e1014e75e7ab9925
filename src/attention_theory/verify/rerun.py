"""Re-run the checks of a cited claim and compare them with the book's records.

``python -m attention_theory check <claim-id> [--scale smoke|full]`` runs every registered check
of the claim (its parts included) that needs no data, prints the fresh records and, beside each,
the record the book build registered (``_build/registry`` of the last ``make book``, or the
folder or ``claims.json`` given with ``--against``).  ``--list`` lists the claims and their checks;
``--all`` re-runs every claim (``--paper`` restricts it) and ``--registry DIR`` keeps the fresh
records (the full-scale campaign writes them under ``results/``).  The work is the campaign's
(:mod:`attention_theory.verify.campaign`): one task per check function, on this process or on
Dask workers (``--workers``, ``--scheduler``, ``--cluster``: :mod:`attention_theory.cluster`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from attention_theory.cluster import add_cluster_options, cluster_spec, open_client
from attention_theory.config import SCALES
from attention_theory.papers import PAPERS
from attention_theory.results import clean_temporary_files
from attention_theory.verify.campaign import (
    campaign_tasks,
    known_durations,
    natural_key,
    predict_wall,
    read_manifest,
    run_campaign,
    task_jobs,
)
from attention_theory.verify.contract import registered_checks
from attention_theory.verify.registry import load_registry

__all__ = ["claim_checks", "registered_records", "main"]


def claim_checks() -> dict[str, list[tuple[str, Callable[..., Any]]]]:
    """Claim ID -> ``[(check name, function that writes it)]``, in natural order."""
    out: dict[str, list[tuple[str, Callable[..., Any]]]] = {}
    for (cid, name), fn in registered_checks().items():
        out.setdefault(cid, []).append((name, fn))
    return {k: sorted(out[k], key=lambda t: t[0]) for k in sorted(out, key=natural_key)}


def registered_records(against: str | Path | None) -> list[dict[str, Any]]:
    """The book's records: a registry folder, a ``claims.json``, or by default the registry of
    the last book build (``_build/registry``, else ``_build/html/claims.json``)."""
    if against is None:
        root = next((p for p in [Path.cwd(), *Path.cwd().parents] if (p / "_toc.yml").exists()), None)
        if root is None:
            return []
        for cand in (root / "_build" / "registry", root / "_build" / "html" / "claims.json"):
            if cand.exists():
                return registered_records(cand)
        return []
    path = Path(against)
    if path.is_dir():
        return load_registry(path)
    if path.is_file():
        return list(json.loads(path.read_text()).get("records", []))
    raise FileNotFoundError(f"--against: no registry folder or claims.json at {path}")


def _line(r: dict[str, Any] | None) -> str:
    if r is None:
        return "no record"
    # a non-finite worst is stored in JSON as the string "inf", "-inf" or "nan"
    worst = "" if r.get("worst") is None else f", worst {float(r['worst']):.6g}"
    data = f" on {', '.join(r['data']['files'])}" if r.get("data") else ""
    return (f"{r['status']} at {r.get('scale', 'smoke')} scale{data}: {r.get('n_instances', 0)} instances"
            f"{worst} (commit {r.get('commit', '?')}, {r.get('date', '?')})")


def _print_result(res: dict[str, Any], registered: dict[tuple[str, str, str], dict[str, Any]],
                  scale: str, write: Callable[[str], None]) -> None:
    fresh = {(r["claim_id"], r["check"]): r for r in res["records"]}
    head = f"{res['task'].rsplit('.', 1)[-1]} [{res['status']}, {res['wall_s']:.1f} s]"
    lines = [f"{' / '.join(res['pairs'][0])}: {head}"]
    if res["status"] in ("fails", "error"):
        lines.append(f"  {res['status'].upper()}: {res['message']}")
    if res["status"] in ("needs-data", "recorded"):
        lines.append(f"  {res['message']}")
    else:
        for cid, name in res["pairs"]:
            lines.append(f"  {cid} / {name}\n    now:        {_line(fresh.get((cid, name)))}"
                         f"\n    registered: {_line(registered.get((cid, name, scale)))}")
    write("\n".join(lines))


def _summary(results: list[dict[str, Any]], wall: float, slowest: int = 10) -> str:
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    ran = sorted((r for r in results if r["status"] in ("ran", "fails", "error")),
                 key=lambda r: -r["wall_s"])
    cpu = sum(r["cpu_s"] for r in ran)
    lines = [f"{len(results)} tasks in {wall:.1f} s wall, {cpu:.1f} CPU-s: "
             + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))]
    if ran:
        lines.append("slowest (wall s / CPU s): " + "; ".join(
            f"{' / '.join(r['pairs'][0])} {r['wall_s']:.1f}/{r['cpu_s']:.1f}" for r in ran[:slowest]))
    return "\n".join(lines)


def _plan(folder: Path, slowest: int = 10, paper: str | None = None) -> str:
    """The durations of a registry folder's manifest (of one paper's tasks with ``paper``) and
    the wall time they predict."""
    tasks = read_manifest(folder)["tasks"]
    if paper is not None:
        tasks = {k: t for k, t in tasks.items()
                 if any(str(pair[0]).startswith(paper + "-") for pair in t.get("pairs", []))}
    if not tasks:
        return (f"{folder}: no campaign manifest (or no finished task{' of ' + paper if paper else ''}) "
                "to plan from")
    # CPU seconds: what a task costs a dedicated single-threaded worker (wall time on a shared
    # machine also counts the waits for a core); a task's pieces are jobs of their own
    rows = sorted(tasks.items(), key=lambda kv: -kv[1]["cpu_s"])
    cpus = [t["cpu_s"] for _, t in rows]
    jobs = [task_jobs(t) for _, t in rows]
    lines = [f"{len(rows)} tasks, {sum(cpus):.0f} CPU-s "
             f"({sum(t['wall_s'] for t in tasks.values()):.0f} s of task wall time); "
             f"costliest {cpus[0]:.0f} CPU-s",
             "predicted wall time from the CPU seconds (longest first on the first free worker): "
             + ", ".join(f"{w} worker(s) {predict_wall(jobs, w):.0f} s" for w in (1, 2, 8, 32)),
             "costliest tasks (CPU s / wall s):"]
    lines += [f"  {name.rsplit('.', 1)[-1]:<48} {t['cpu_s']:9.1f} {t['wall_s']:9.1f}"
              for name, t in rows[:slowest]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m attention_theory check",
                                 description="Re-run the checks of a cited claim and show them beside "
                                             "the book's records.")
    ap.add_argument("claim_id", nargs="?", help="claim ID, e.g. trauger-lemma-3-1")
    ap.add_argument("--scale", choices=SCALES, default="smoke", help="smoke (default) or full")
    ap.add_argument("--list", action="store_true", help="list the claims and their checks")
    ap.add_argument("--all", action="store_true", help="re-run every claim (with --paper, one paper's)")
    ap.add_argument("--paper", choices=[p.key for p in PAPERS],
                    help="with --all, --list or --plan: one paper")
    ap.add_argument("--against", help="registry folder or claims.json to compare with "
                                      "(default: the last book build's)")
    ap.add_argument("--registry", help="keep the fresh records in this folder (default: a temporary one); "
                                       "it must hold records of the same scale only")
    ap.add_argument("--resume", action="store_true",
                    help="with --registry: skip the check functions whose complete records of one "
                         "finished run are there (to continue an interrupted --all campaign)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--plan", action="store_true",
                    help="with --registry: print the durations its manifest recorded, the slowest tasks and "
                         "the wall time predicted on 1, 2, 8 and 32 workers; run nothing")
    add_cluster_options(ap)
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    spec = cluster_spec(args, ap)
    table = claim_checks()
    if args.list:
        for cid, checks in table.items():
            if args.paper and not cid.startswith(args.paper + "-"):
                continue
            print(f"{cid}: " + ", ".join(name for name, _ in checks))
        return 0
    if args.plan:
        if not args.registry:
            ap.error("--plan needs --registry (the folder whose manifest has the durations)")
        print(_plan(Path(args.registry), paper=args.paper))
        return 0
    if args.all == bool(args.claim_id):
        ap.error("give one claim ID, or --all (see --list)")
    claims = ([c for c in table if not args.paper or c.startswith(args.paper + "-")]
              if args.all else [args.claim_id])
    if args.claim_id and args.claim_id not in table:
        ap.error(f"no registered check for claim {args.claim_id!r} (see --list)")
    if args.resume and not args.registry:
        ap.error("--resume needs --registry (the folder whose records are kept)")
    if args.registry is not None and not args.registry.strip():
        ap.error("--registry needs a folder name")
    registered = {(r["claim_id"], r["check"], r.get("scale", "smoke")): r
                  for r in registered_records(args.against)}
    folder = Path(args.registry) if args.registry else Path(tempfile.mkdtemp(prefix="attn-check-"))
    if folder.exists() and not folder.is_dir():
        ap.error(f"--registry {folder} is not a folder")
    for tmp in clean_temporary_files(folder):
        print(f"removed {tmp} (left by an interrupted write)", flush=True)
    tasks = campaign_tasks(claims)
    from tqdm import tqdm

    def show(res: dict[str, Any]) -> None:
        _print_result(res, registered, args.scale, lambda text: tqdm.write(text, file=sys.stdout))
        sys.stdout.flush()  # a long campaign's log shows each check as soon as it is done

    t0 = time.perf_counter()
    try:
        with open_client(spec) as client:
            results = run_campaign(tasks, scale=args.scale, folder=folder, client=client,
                                   resume=args.resume, progress=not args.no_progress, on_result=show,
                                   durations=known_durations(folder))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for res in results:
        if res["status"] == "recorded":
            show(res)
    print(_summary(results, time.perf_counter() - t0))
    if args.registry:
        print(f"records written to {folder}")
    return 1 if any(r["status"] in ("fails", "error") for r in results) else 0
