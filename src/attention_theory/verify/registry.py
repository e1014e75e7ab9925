"""Records and the registry: what a reader cites, written as one JSON file per (claim, check).

The book build gathers the folder into the "Verified claims" page and ``claims.json``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from attention_theory.provenance import jsonable

__all__ = ["STATUSES", "CheckRecord", "registry_dir", "evaluate_only", "write_record",
           "load_registry", "summarize_registry"]

STATUSES = ("verified", "erratum", "not-checkable")



@dataclasses.dataclass
class CheckRecord:
    """What a reader cites: one check of one claim, with its provenance."""

    claim_id: str
    check: str
    description: str
    status: str
    kind: str
    n_instances: int
    worst: float | None
    params: dict[str, Any]
    seed: int | None
    package_version: str
    commit: str
    device: str
    date: str
    scale: str
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return jsonable(dataclasses.asdict(self))

    def __str__(self) -> str:
        mark = {"verified": "verified", "erratum": "erratum confirmed",
                "not-checkable": "not numerically checkable"}[self.status]
        head = f"[{mark}] {self.claim_id} / {self.check}: {self.description}"
        if self.status == "not-checkable":
            return f"{head}\n  reason: {self.detail.get('reason', '')}"
        if self.status == "erratum":
            p, c = self.detail["printed"], self.detail["corrected"]
            return (f"{head}\n  printed:   {p['text']} -> {p['summary']}"
                    f"\n  corrected: {c['text']} -> {c['summary']}")
        tight = "" if self.worst is None else f"; tightness (worst ratio) = {self.worst:.6g}"
        return f"{head}\n  {self.n_instances} instance(s){tight}"

    __repr__ = __str__


def registry_dir() -> Path | None:
    """Where records are written: ``$ATTN_REGISTRY_DIR``, else ``_build/registry``.

    The book build sets the variable; outside a build the folder is found by
    walking up to the repository root (the folder holding ``_toc.yml``).  An
    empty ``ATTN_REGISTRY_DIR`` disables writing.
    """
    env = os.environ.get("ATTN_REGISTRY_DIR")
    if env is not None:
        return Path(env) if env else None
    for parent in [Path.cwd(), *Path.cwd().parents]:
        if (parent / "_toc.yml").exists():
            return parent / "_build" / "registry"
    return Path(tempfile.gettempdir()) / "attention_theory_registry"


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


_recording: contextvars.ContextVar[bool] = contextvars.ContextVar("attn_recording", default=True)


@contextlib.contextmanager
def evaluate_only() -> Iterator[None]:
    """Run checks without writing registry records: for reporting a registered statement on
    other data (e.g. committed full-scale results) next to the record of its live check."""
    token = _recording.set(False)
    try:
        yield
    finally:
        _recording.reset(token)


def write_record(rec: CheckRecord) -> None:
    if not _recording.get():
        return
    folder = registry_dir()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{_safe_name(rec.claim_id)}__{_safe_name(rec.check)}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(rec.to_json(), fh, indent=1, sort_keys=True)
        os.replace(tmp, target)  # atomic: a reader never sees a half-written record
    finally:
        if os.path.exists(tmp):  # the write failed: leave no temporary file behind
            os.unlink(tmp)


def load_registry(folder: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """All records in ``folder`` (default :func:`registry_dir`), sorted by claim and check."""
    path = Path(folder) if folder is not None else registry_dir()
    if path is None or not path.exists():
        return []
    recs = []
    for f in sorted(path.glob("*.json")):
        if f.name.startswith(".tmp-"):
            continue
        with open(f) as fh:
            recs.append(json.load(fh))
    return sorted(recs, key=lambda r: (r["claim_id"], r["check"]))


def summarize_registry(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One row per claim ID: status, number of checks, instances, worst bound ratio.

    A claim with a confirmed erratum is reported as ``erratum`` even when other
    checks of it pass (the printed statement needed a correction); a claim with
    only ``not-checkable`` records is ``not-checkable``; a claim with passing checks
    *and* a recorded reason why some part of it could not be checked is ``partial``
    (verified in part), so a reader never mistakes it for fully verified.
    """
    rows: dict[str, dict[str, Any]] = {}
    for r in records:
        row = rows.setdefault(r["claim_id"], {
            "claim_id": r["claim_id"], "statuses": set(), "checks": [],
            "instances": 0, "worst_bound_ratio": None, "reasons": [], "worst_by_check": {},
            "commit": r["commit"], "date": r["date"], "package_version": r["package_version"],
        })
        row["statuses"].add(r["status"])
        row["checks"].append(r["check"])
        row["instances"] += int(r.get("n_instances") or 0)
        if r["status"] == "not-checkable":
            row["reasons"].append(r["detail"].get("reason", ""))
        if r["kind"] == "bound" and r["status"] == "verified" and r["worst"] is not None:
            w = float(r["worst"])
            row["worst_by_check"][r["check"]] = w
            prev = row["worst_bound_ratio"]
            row["worst_bound_ratio"] = w if prev is None else max(prev, w)
        row["date"] = max(row["date"], r["date"])
    for row in rows.values():
        st = row.pop("statuses")
        row["status"] = ("erratum" if "erratum" in st else
                         "partial" if {"verified", "not-checkable"} <= st else
                         "verified" if "verified" in st else "not-checkable")
    return dict(sorted(rows.items()))
