"""The tightness audit: which bound records are weak lower bounds on their supremum, and why.

A bound check records the worst ratio ``LHS / RHS`` it found; that figure is a *lower bound* on
the supremum of the ratio, as strong as the instances the check tried.  A worst ratio far below
1 means either that the bound is loose or that the search missed where it is tight.  The audit
lists every bound check whose strongest record (over the scales it ran at) is below a threshold,
with what its instances cover: the families the check declares (``check_bound(families=...)``),
its adversarial search (sizes, methods, restarts), or why it has none (``no_search``), and any
sequence along which the supremum is approached (``check_bound(limits=...)``).

``python -m attention_theory tightness [--below 0.5] [--registry DIR ...]``
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

from attention_theory.validation import check_positive
from attention_theory.verify.registry import load_registry

__all__ = ["tightness_rows", "format_tightness", "main"]

ROOT = Path(__file__).resolve().parents[3]

#: Registries the audit reads by default: the last book build's live (smoke) records and the
#: committed full-scale campaign.
DEFAULT_REGISTRIES = (ROOT / "_build" / "registry", ROOT / "results" / "registry-full")


def _coverage(detail: dict[str, Any]) -> dict[str, Any]:
    """What a bound record's instances cover, from its ``detail``."""
    search = detail.get("search") or {}
    out: dict[str, Any] = {"families": list(detail.get("families") or [])}
    if search:
        out["search"] = (f"{len(search.get('sizes', []))} sizes from {(search.get('sizes') or ['?'])[0]}, "
                         f"{'/'.join(search.get('methods', []))}, {search.get('restarts', '?')} restarts x "
                         f"{search.get('steps', '?')} steps")
    if detail.get("no_search"):
        out["no_search"] = detail["no_search"]
    out["limits"] = [f"sup = {lim['supremum']:g} in the limit {lim['parameter']} along {lim['family']} "
                     f"(ratio {lim['ratios'][-1]:.6g} at {lim['values'][-1]:g})"
                     for lim in detail.get("limits") or []]
    return out


def tightness_rows(records: Iterable[dict[str, Any]], *, below: float = 0.5) -> list[dict[str, Any]]:
    """One row per bound check (``kind == "bound"``, verified, with a finite positive worst ratio):
    its worst ratio per scale, the strongest over scales and the scale it came from, whether it
    is below ``below``, and its coverage (of the strongest record).  Sorted weakest first."""
    below = check_positive(below, "below")
    if isinstance(records, (str, bytes, dict)) or not isinstance(records, Iterable):
        raise TypeError(f"records must be an iterable of record dictionaries, got {type(records).__name__}")
    by_pair: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in records:
        if not isinstance(r, dict):
            raise TypeError(f"records must hold record dictionaries, got {type(r).__name__}")
        if r.get("kind") != "bound" or r.get("status") != "verified" or r.get("worst") is None:
            continue
        w = float(r["worst"])
        if not (math.isfinite(w) and w > 0):
            continue  # -inf: every right side is 0 and met; no ratio to judge
        by_pair.setdefault((r["claim_id"], r["check"]), {})[r.get("scale", "smoke")] = r
    rows = []
    for (cid, check), per_scale in by_pair.items():
        scale, best = max(per_scale.items(), key=lambda kv: float(kv[1]["worst"]))
        cover = _coverage(best.get("detail") or {})
        # families and limits are the check's: a record of another scale (e.g. one written before
        # the check declared them) lacks them, the newest that has them speaks for the check
        for r in sorted(per_scale.values(), key=lambda r: r.get("date", "")):
            other = _coverage(r.get("detail") or {})
            cover["families"] = cover["families"] or other["families"]
            cover["limits"] = cover["limits"] or other["limits"]
        rows.append({"claim_id": cid, "check": check, "worst": float(best["worst"]), "scale": scale,
                     "worst_per_scale": {s: float(r["worst"]) for s, r in sorted(per_scale.items())},
                     "weak": float(best["worst"]) < below, **cover})
    return sorted(rows, key=lambda row: (row["worst"], row["claim_id"], row["check"]))


def format_tightness(rows: Sequence[dict[str, Any]], *, below: float = 0.5) -> str:
    """The audit as text: the weak rows with their coverage, then counts."""
    below = check_positive(below, "below")
    if (isinstance(rows, (str, bytes, dict)) or not isinstance(rows, Sequence)
            or not all(isinstance(r, dict) for r in rows)):
        raise TypeError("rows must be a sequence of rows from tightness_rows")
    weak = [r for r in rows if r["weak"]]
    lines = [f"{len(rows)} bound checks with a ratio; {len(weak)} with strongest worst ratio below {below:g} "
             f"(weak lower bounds on the supremum unless a family or limit below says why):", ""]
    for r in weak:
        scales = ", ".join(f"{s} {w:.4g}" for s, w in r["worst_per_scale"].items())
        lines.append(f"{r['worst']:.4g}  {r['claim_id']} / {r['check']}  ({scales})")
        for f in r["families"]:
            lines.append(f"      family: {f}")
        if not r["families"]:
            lines.append("      families: not declared")
        if "search" in r:
            lines.append(f"      search: {r['search']}")
        if "no_search" in r:
            lines.append(f"      no search: {r['no_search'][:160]}")
        for lim in r["limits"]:
            lines.append(f"      limit: {lim}")
    declared = sum(1 for r in rows if r["families"])
    limits = sum(1 for r in rows if r["limits"])
    lines += ["", f"families declared by {declared} of {len(rows)} bound checks; "
              f"{limits} show a limit sequence reaching their supremum"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attention_theory tightness``: print the audit."""
    ap = argparse.ArgumentParser(prog="python -m attention_theory tightness", description=(
        "List the bound checks whose strongest worst ratio LHS/RHS (over the scales recorded) is below "
        "a threshold, with the families, searches and limit sequences their instances cover."))
    ap.add_argument("--below", type=float, default=0.5, help="threshold on the worst ratio (default 0.5)")
    ap.add_argument("--registry", action="append", default=None, metavar="DIR",
                    help="registry folder (repeatable; default: _build/registry and results/registry-full)")
    args = ap.parse_args(argv)
    folders = [Path(f) for f in args.registry] if args.registry else list(DEFAULT_REGISTRIES)
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        ap.error(f"no registry folder at {', '.join(missing)} (run 'make book' for the smoke records)")
    records = [r for f in folders for r in load_registry(f)]
    try:
        rows = tightness_rows(records, below=args.below)
    except (TypeError, ValueError) as exc:
        ap.error(str(exc))
    try:
        print(format_tightness(rows, below=args.below))
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        sys.stdout = None
    return 0
