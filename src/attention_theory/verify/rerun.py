"""Re-run the checks of a cited claim and compare them with the book's records.

``python -m attention_theory check <claim-id> [--scale smoke|full]`` runs every registered check
of the claim (its parts included) that needs no data, prints the fresh records and, beside each,
the record the book build registered (``_build/registry`` of the last ``make book``, or the
folder or ``claims.json`` given with ``--against``).  ``--list`` lists the claims and their checks;
``--all`` re-runs every claim (``--paper`` restricts it) and ``--registry DIR`` keeps the fresh
records (the full-scale campaign writes them under ``results/``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

from attention_theory.config import SCALES, use_scale
from attention_theory.papers import PAPERS
from attention_theory.verify.contract import registered_checks
from attention_theory.verify.outcomes import ClaimViolation
from attention_theory.verify.registry import load_registry, recording_to

__all__ = ["natural_key", "claim_checks", "needs_data", "rerun_claim", "registered_records", "main"]


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders ``deora-eq-2`` before ``deora-eq-10`` (numbers compared as numbers)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def claim_checks() -> dict[str, list[tuple[str, Callable[..., Any]]]]:
    """Claim ID -> ``[(check name, function that writes it)]``, in natural order."""
    out: dict[str, list[tuple[str, Callable[..., Any]]]] = {}
    for (cid, name), fn in registered_checks().items():
        out.setdefault(cid, []).append((name, fn))
    return {k: sorted(out[k], key=lambda t: t[0]) for k in sorted(out, key=natural_key)}


def needs_data(fn: Callable[..., Any]) -> list[str]:
    """The arguments a check needs (data a chapter loads); empty when it runs on its own."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def rerun_claim(claim_id: str, *, scale: str, folder: str | Path,
                skip_recorded: bool = False) -> list[dict[str, Any]]:
    """Run every check of ``claim_id`` that needs no data at ``scale``, writing records into
    ``folder``.  Returns one entry per check function: ``{"checks", "status"
    ("ran"/"fails"/"error"/"needs-data"/"recorded"), "message", "seconds"}``.  With
    ``skip_recorded`` a check function whose checks all have a record at ``scale`` in ``folder``
    is not run again (status ``"recorded"``): an interrupted campaign resumes where it stopped."""
    table = claim_checks()
    if claim_id not in table:
        raise KeyError(f"no registered check for claim {claim_id!r} (see --list)")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if not isinstance(skip_recorded, bool):
        raise TypeError(f"skip_recorded must be a bool, got {type(skip_recorded).__name__}")
    by_fn: dict[Callable[..., Any], list[str]] = {}
    for name, fn in table[claim_id]:
        by_fn.setdefault(fn, []).append(name)
    recorded = ({r["check"] for r in load_registry(folder)
                 if r["claim_id"] == claim_id and r.get("scale") == scale}
                if skip_recorded and Path(folder).is_dir() else set())
    out = []
    for fn, names in by_fn.items():
        entry: dict[str, Any] = {"checks": names, "function": f"{fn.__module__}.{fn.__name__}"}
        if recorded and set(names) <= recorded:
            entry.update(status="recorded", message="already recorded in the registry folder", seconds=0.0)
            out.append(entry)
            continue
        missing = needs_data(fn)
        if missing:
            entry.update(status="needs-data", message=(
                f"needs {', '.join(missing)} (data its chapter loads): execute the chapter to re-run it"),
                seconds=0.0)
            out.append(entry)
            continue
        t0 = time.perf_counter()
        try:
            with use_scale(scale), recording_to(folder):
                fn()
            entry.update(status="ran", message="")
        except ClaimViolation as exc:
            entry.update(status="fails", message=str(exc).split(" (detail:")[0])
        except Exception as exc:  # noqa: BLE001 - report and go on with the other checks
            entry.update(status="error", message=f"{type(exc).__name__}: {exc}",
                         traceback=traceback.format_exc(limit=3))
        entry["seconds"] = time.perf_counter() - t0
        out.append(entry)
    return out


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


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m attention_theory check",
                                 description="Re-run the checks of a cited claim and show them beside "
                                             "the book's records.")
    ap.add_argument("claim_id", nargs="?", help="claim ID, e.g. trauger-lemma-3-1")
    ap.add_argument("--scale", choices=SCALES, default="smoke", help="smoke (default) or full")
    ap.add_argument("--list", action="store_true", help="list the claims and their checks")
    ap.add_argument("--all", action="store_true", help="re-run every claim (with --paper, one paper's)")
    ap.add_argument("--paper", choices=[p.key for p in PAPERS], help="with --all or --list: one paper")
    ap.add_argument("--against", help="registry folder or claims.json to compare with "
                                      "(default: the last book build's)")
    ap.add_argument("--registry", help="keep the fresh records in this folder (default: a temporary one)")
    ap.add_argument("--resume", action="store_true",
                    help="with --registry: skip the checks that already have a record at this scale "
                         "there (to continue an interrupted --all campaign)")
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    table = claim_checks()
    if args.list:
        for cid, checks in table.items():
            if args.paper and not cid.startswith(args.paper + "-"):
                continue
            print(f"{cid}: " + ", ".join(name for name, _ in checks))
        return 0
    if args.all == bool(args.claim_id):
        ap.error("give one claim ID, or --all (see --list)")
    claims = ([c for c in table if not args.paper or c.startswith(args.paper + "-")]
              if args.all else [args.claim_id])
    if args.claim_id and args.claim_id not in table:
        ap.error(f"no registered check for claim {args.claim_id!r} (see --list)")
    registered = {(r["claim_id"], r["check"], r.get("scale", "smoke")): r
                  for r in registered_records(args.against)}
    if args.resume and not args.registry:
        ap.error("--resume needs --registry (the folder whose records are kept)")
    folder = Path(args.registry) if args.registry else Path(tempfile.mkdtemp(prefix="attn-check-"))
    folder.mkdir(parents=True, exist_ok=True)
    failed = False
    for cid in claims:
        t_claim = time.perf_counter()
        entries = rerun_claim(cid, scale=args.scale, folder=folder, skip_recorded=args.resume)
        fresh = {(r["claim_id"], r["check"]): r for r in load_registry(folder)
                 if r["claim_id"] == cid and r.get("scale") == args.scale}
        print(f"{cid} ({args.scale} scale, {time.perf_counter() - t_claim:.1f} s)")
        for e in entries:
            if e["status"] in ("fails", "error"):
                failed = True
                print(f"  {e['status'].upper()} {e['function']}: {e['message']}")
            elif e["status"] in ("needs-data", "recorded"):
                print(f"  {'/'.join(e['checks'])}: {e['message']}")
            for name in e["checks"]:
                if e["status"] in ("needs-data", "recorded"):
                    continue
                print(f"  {name} [{e['seconds']:.1f} s]\n    now:        {_line(fresh.get((cid, name)))}"
                      f"\n    registered: {_line(registered.get((cid, name, args.scale)))}")
        sys.stdout.flush()  # a long campaign's log shows each claim as soon as it is done
    if args.registry:
        print(f"records written to {folder}")
    return 1 if failed else 0
