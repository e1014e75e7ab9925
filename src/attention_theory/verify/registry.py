"""Records and the registry: what a reader cites, written as one JSON file per (claim, check).

The book build gathers the folder into the "Verified claims" page and ``claims.json``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from attention_theory.config import scale
from attention_theory.provenance import jsonable
from attention_theory.results import atomic_write_text
from attention_theory.validation import check_path

__all__ = ["STATUSES", "CLAIM_STATUSES", "ERRATUM_KINDS", "CheckRecord", "registry_dir",
           "evaluate_only", "recording_to", "staging_records", "on_results", "current_source", "write_record",
           "write_record_file", "record_filename", "load_registry", "summarize_registry", "claim_status",
           "weighs_on_statement", "ERRATUM_VERSIONS", "ERRATUM_PLACES"]

#: Statuses of one record: the check passed (``verified``), it confirmed an erratum (the printed
#: version fails, the corrected passes, on the same instances), it failed (``fails``: written
#: only when a chapter *reports* a statement that may fail, e.g. on committed full-scale data,
#: see :func:`~attention_theory.verify.evaluate`), or a reason says why nothing can be computed.
STATUSES = ("verified", "erratum", "fails", "not-checkable")

#: Kinds of erratum (the errata page groups by paper and kind).
ERRATUM_KINDS = {
    "false-statement": "false statement",
    "wrong-constant": "wrong constant",
    "missing-hypothesis": "missing hypothesis",
    "proof-step": "proof step",
    "typo": "typo/notation",
}

#: Statuses of a claim (one labelled statement), from its records (:func:`claim_status`):
#:
#: * ``verified``            every check of the statement as printed passes, at every scale run;
#: * ``partial``             verified in part: the checks that ran pass, a recorded reason says
#:   what could not be checked;
#: * ``false-as-printed``    the printed statement fails on explicit instances and a corrected
#:   statement passes on the same instances (erratum of kind false statement, missing
#:   hypothesis or typo/notation in the statement);
#: * ``corrected-constant``  the printed constant fails, the statement with a stated constant
#:   passes (erratum of kind wrong constant in the statement);
#: * ``proof-erratum``       the statement passes; a step of its proof (or a constant or
#:   notation inside the proof) fails.  The claim counts as verified, the erratum is listed;
#: * ``fails``               a check of the statement failed at some scale (e.g. a paper's
#:   experimental claim that the full-scale run does not reproduce) and no correction is
#:   confirmed;
#: * ``not-checkable``       only reasons, no computation;
#: * ``remarks-only``        only errata outside the published statement and its proof (a typo of
#:   the review copy, a slip in a background remark) and implementation checks: nothing that
#:   weighs on the statement itself.
#:
#: Only what concerns the *published* statement and its proof sets the status: errata of the
#: review copy (``version="review-copy"``) or of a background remark (``where="background"``) are
#: listed on the errata page, not aggregated; implementation checks (record kind
#: ``implementation``: the package's code against itself) pass or fail like any check but do not
#: count as verifying the paper.
#:
#: A *reconstruction* (the book's statement of a lost formula) has one of these statuses too;
#: the book marks it as a reconstruction beside the status.
CLAIM_STATUSES = {
    "verified": "verified",
    "partial": "verified in part",
    "false-as-printed": "false as printed",
    "corrected-constant": "holds with a corrected constant",
    "proof-erratum": "proof erratum",
    "fails": "fails",
    "not-checkable": "not numerically checkable",
    "remarks-only": "only remarks outside the published statement",
}

#: Which text an erratum concerns: the version the book follows, or an earlier (review) copy.
ERRATUM_VERSIONS = {"published": "published version", "review-copy": "review copy"}

#: Where in that text: the statement, its proof, or a background remark around it.
ERRATUM_PLACES = ("statement", "proof", "background")



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
    data: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return jsonable(dataclasses.asdict(self))

    def __str__(self) -> str:
        own = self._own_text()
        parts = getattr(self, "part_records", None) or []
        return "\n".join([own, *(p._own_text() for p in parts)])

    def _own_text(self) -> str:
        if self.status == "erratum":
            mark = f"erratum confirmed: {ERRATUM_KINDS[self.detail['kind']]} in the {self.detail['where']}"
            if self.detail.get("version", "published") != "published":
                mark += f" of the {ERRATUM_VERSIONS[self.detail['version']]}"
        elif self.kind == "implementation":
            mark = ("implementation check passes" if self.status == "verified"
                    else "implementation check FAILS")
        else:
            mark = {"verified": "verified", "fails": "FAILS",
                    "not-checkable": "not numerically checkable"}[self.status]
        if getattr(self, "not_recorded", False):
            # a sub-statement evaluated under evaluate_only: not the registry's record of this pair
            mark = {"verified": "holds", "fails": "FAILS"}.get(self.status, mark) + ", not recorded,"
        where = f" at {self.scale} scale" + (f" on {', '.join(self.data['files'])}" if self.data else "")
        head = f"[{mark}{where}] {self.claim_id} / {self.check}: {self.description}"
        if self.status == "not-checkable":
            return f"{head}\n  reason: {self.detail.get('reason', '')}"
        if self.status == "fails":
            return f"{head}\n  {self.detail.get('failure', '')}"
        if self.status == "erratum":
            p, c = self.detail["printed"], self.detail["corrected"]
            return (f"{head}\n  printed:   {p['text']} -> {p['summary']}"
                    f"\n  corrected: {c['text']} -> {c['summary']}")
        # -inf is stored when every right-hand side is 0 and met: there is no ratio to show
        tight = ("" if self.worst is None else f"; tightness (worst ratio) = {self.worst:.6g}"
                 if math.isfinite(self.worst) else "; no LHS/RHS ratio")
        for lim in self.detail.get("limits", []):
            tight += (f"; sup = {lim['supremum']:g}, attained in the limit {lim['parameter']} along "
                      f"{lim['family']} (ratio {lim['ratios'][-1]:.6g} at {lim['values'][-1]:g})")
        return f"{head}\n  {self.n_instances} instance(s){tight}"

    __repr__ = __str__


def registry_dir() -> Path | None:
    """Where records are written: ``$ATTN_REGISTRY_DIR``, else ``_build/registry``.

    The book build sets the variable; outside a build the folder is found by
    walking up to the repository root (the folder holding ``_toc.yml``).  An
    empty ``ATTN_REGISTRY_DIR`` disables writing.
    """
    override = _folder.get()
    if override is not None:
        return override
    env = os.environ.get("ATTN_REGISTRY_DIR")
    if env is not None:
        return Path(env) if env else None
    for parent in [Path.cwd(), *Path.cwd().parents]:
        if (parent / "_toc.yml").exists():
            return parent / "_build" / "registry"
    return Path(tempfile.gettempdir()) / "attention_theory_registry"


_folder: contextvars.ContextVar[Path | None] = contextvars.ContextVar("attn_registry_folder", default=None)


@contextlib.contextmanager
def recording_to(folder: str | os.PathLike) -> Iterator[Path]:
    """Write the records of the block into ``folder`` instead of :func:`registry_dir`'s choice
    (used to re-run a cited check without touching the book's registry)."""
    path = Path(check_path(folder, "folder"))
    token = _folder.set(path)
    try:
        yield path
    finally:
        _folder.reset(token)


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


_recording: contextvars.ContextVar[bool] = contextvars.ContextVar("attn_recording", default=True)


@contextlib.contextmanager
def evaluate_only() -> Iterator[None]:
    """Run checks without writing registry records: for reporting a registered statement on
    other data (e.g. committed full-scale results) next to the record of its live check.  A
    record made inside prints as ``[holds, not recorded, at ...]``, so a chapter never shows a
    verdict for a (claim, check, scale) that the registry records differently."""
    token = _recording.set(False)
    try:
        yield
    finally:
        _recording.reset(token)


_source: contextvars.ContextVar[tuple[str, dict[str, Any]] | None] = contextvars.ContextVar(
    "attn_result_source", default=None)


def _repo_relative(path: Path) -> str:
    path = path.resolve()
    for parent in path.parents:
        if (parent / "_toc.yml").exists():
            return path.relative_to(parent).as_posix()
    return path.name


@contextlib.contextmanager
def on_results(*paths: str | os.PathLike, scale: str = "full") -> Iterator[dict[str, Any]]:
    """Attribute the records written inside the block to committed result files.

    Checks run inside evaluate a statement on the data of ``paths`` (result files written by
    :func:`attention_theory.results.write_result`), made at ``scale`` (``"full"`` unless said):
    their records carry that scale and ``data = {"files": [...], "commits": [...], "sha256":
    [...]}`` (repository-relative paths, the commit each file's provenance names, the files'
    hashes), and are stored beside the live (smoke) records of the same check.  Yields the
    ``data`` dictionary.
    """
    if scale not in ("smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    if not paths:
        raise ValueError("on_results needs at least one result file")
    files, commits, hashes = [], [], []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise FileNotFoundError(f"on_results: no result file at {path}")
        raw = path.read_bytes()
        try:
            commit = json.loads(raw).get("provenance", {}).get("commit")
        except (ValueError, AttributeError):
            commit = None
        files.append(_repo_relative(path))
        commits.append(commit)
        hashes.append(hashlib.sha256(raw).hexdigest()[:16])
    data = {"files": files, "commits": commits, "sha256": hashes}
    token = _source.set((scale, data))
    try:
        yield data
    finally:
        _source.reset(token)


def current_source() -> tuple[str, dict[str, Any] | None]:
    """``(scale, data)`` that records written now get: inside :func:`on_results` its scale and
    files, otherwise the live scale (:func:`attention_theory.config.scale`) and ``None``."""
    src = _source.get()
    if src is not None:
        return src
    return scale(), None


def record_filename(claim_id: str, check: str, scale: str) -> str:
    """``<claim>__<check>__<scale>.json``: one record per (claim, check, scale)."""
    for value, name in ((claim_id, "claim_id"), (check, "check"), (scale, "scale")):
        if not isinstance(value, str) or not value.strip():
            raise TypeError(f"{name} must be a non-empty string, got {value!r}")
    return f"{_safe_name(claim_id)}__{_safe_name(check)}__{_safe_name(scale)}.json"


#: Records staged by :func:`staging_records` (file name -> record dictionary), or ``None``.
_staged: contextvars.ContextVar[dict[str, dict[str, Any]] | None] = contextvars.ContextVar(
    "attn_staged_records", default=None)


@contextlib.contextmanager
def staging_records() -> Iterator[dict[str, dict[str, Any]]]:
    """Keep the records written inside the block in memory instead of writing them: yields a
    dictionary ``{file name: record dictionary}`` (a later record of the same (claim, check,
    scale) replaces an earlier one, as the file would be).  The campaign runs each check function
    inside it, so that the function's records reach the registry together, once it has finished,
    written by one process (:mod:`attention_theory.verify.campaign`), and a record of an earlier
    sub-statement is never left behind by a run that stopped part-way."""
    staged: dict[str, dict[str, Any]] = {}
    token = _staged.set(staged)
    try:
        yield staged
    finally:
        _staged.reset(token)


def write_record_file(folder: str | os.PathLike, record: dict[str, Any]) -> Path:
    """Write one record dictionary into ``folder`` atomically (a reader never sees half a
    record) under :func:`record_filename`; returns the path.  An error names the file."""
    folder = Path(check_path(folder, "folder"))
    if not isinstance(record, dict) or any(k not in record for k in ("claim_id", "check", "scale")):
        raise TypeError("record must be a record dictionary with claim_id, check and scale")
    target = folder / record_filename(record["claim_id"], record["check"], record["scale"])
    # atomic (a reader never sees half a record); an error names the file, no temporary file stays
    return atomic_write_text(target, json.dumps(record, indent=1, sort_keys=True))


def write_record(rec: CheckRecord) -> None:
    if not _recording.get():
        # shown by the chapter but not in the registry: its text says so (``evaluate_only``)
        rec.not_recorded = True
        return
    staged = _staged.get()
    if staged is not None:
        staged[record_filename(rec.claim_id, rec.check, rec.scale)] = rec.to_json()
        return
    folder = registry_dir()
    if folder is None:
        return
    write_record_file(folder, rec.to_json())


def load_registry(folder: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """All records in ``folder`` (default :func:`registry_dir`), sorted by claim and check."""
    path = Path(check_path(folder, "folder")) if folder is not None else registry_dir()
    if path is None or not path.exists():
        return []
    recs = []
    for f in sorted(path.glob("*.json")):
        if f.name.startswith((".tmp-", "_")):  # temporary files; the campaign's manifest
            continue
        try:
            recs.append(json.loads(f.read_text()))
        except ValueError as exc:
            raise ValueError(f"{f}: not a readable record ({exc}); restore it (git checkout) or "
                             "delete it and re-run its check") from None
    return sorted(recs, key=lambda r: (r["claim_id"], r["check"]))


def _records(records: Any, *, keys: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """``records`` as a list of record dictionaries (as :func:`load_registry` returns them)."""
    if isinstance(records, (str, bytes, dict)) or not hasattr(records, "__iter__"):
        raise TypeError(f"records must be an iterable of record dictionaries, got {type(records).__name__}")
    recs = list(records)
    bad = [type(r).__name__ for r in recs if not isinstance(r, dict) or any(k not in r for k in keys)]
    if bad:
        raise TypeError(f"records must hold record dictionaries (with keys {list(keys)}), got {bad[0]}")
    return recs


def weighs_on_statement(record: dict[str, Any]) -> bool:
    """Whether a record weighs on its claim's status: not an implementation check, and, for an
    erratum, one in the published version's statement or proof (not the review copy's, not a
    background remark's)."""
    if not isinstance(record, dict):
        raise TypeError(f"record must be a record dictionary, got {type(record).__name__}")
    if record.get("kind") == "implementation":
        return False
    if record.get("status") != "erratum":
        return True
    d = record.get("detail") or {}
    return d.get("version", "published") == "published" and d.get("where") in ("statement", "proof")


def claim_status(records: Iterable[dict[str, Any]]) -> str:
    """The status of one claim from all its records (every check, every scale); see
    :data:`CLAIM_STATUSES`.  Failing beats everything (a statement that fails at some scale is
    not verified); then errata in the statement (a false statement, missing hypothesis or typo
    before a wrong constant); then proof errata; then partial, verified, not checkable."""
    recs = _records(records)
    if not recs:
        raise ValueError("claim_status needs at least one record")
    if any(r["status"] == "fails" for r in recs):
        return "fails"
    recs = [r for r in recs if weighs_on_statement(r)]
    if not recs:
        return "remarks-only"
    st = {r["status"] for r in recs}
    errata = [r["detail"] for r in recs if r["status"] == "erratum"]
    in_statement = {e["kind"] for e in errata if e.get("where") == "statement"}
    if in_statement - {"wrong-constant"}:
        return "false-as-printed"
    if in_statement:
        return "corrected-constant"
    if errata:
        return "proof-erratum"
    if {"verified", "not-checkable"} <= st:
        return "partial"
    return "verified" if "verified" in st else "not-checkable"


def summarize_registry(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One row per claim ID: status (:func:`claim_status`), checks, instances, worst bound ratio,
    the scales it was checked at, the committed files it read, its errata (kind, place, version,
    whether it weighs on the status) and its implementation checks."""
    rows: dict[str, dict[str, Any]] = {}
    by_claim: dict[str, list[dict[str, Any]]] = {}
    for r in _records(records, keys=("claim_id",)):
        by_claim.setdefault(r["claim_id"], []).append(r)
        row = rows.setdefault(r["claim_id"], {
            "claim_id": r["claim_id"], "checks": [], "scales": [], "data_files": [],
            "instances": 0, "worst_bound_ratio": None, "reasons": [], "worst_by_check": {},
            "errata": [], "failures": [], "implementation_checks": [],
            "commit": r["commit"], "date": r["date"], "package_version": r["package_version"],
        })
        if r["check"] not in row["checks"]:
            row["checks"].append(r["check"])
        scale = r.get("scale", "smoke")
        if scale not in row["scales"]:
            row["scales"].append(scale)
        for f in (r.get("data") or {}).get("files", []):
            if f not in row["data_files"]:
                row["data_files"].append(f)
        row["instances"] += int(r.get("n_instances") or 0)
        if r["status"] == "not-checkable":
            row["reasons"].append(r["detail"].get("reason", ""))
        if r["status"] == "erratum":
            row["errata"].append({"check": r["check"], "kind": r["detail"]["kind"],
                                  "where": r["detail"]["where"], "scale": scale,
                                  "version": r["detail"].get("version", "published"),
                                  "weighs": weighs_on_statement(r)})
        if r["kind"] == "implementation" and r["check"] not in row["implementation_checks"]:
            row["implementation_checks"].append(r["check"])
        if r["status"] == "fails":
            row["failures"].append({"check": r["check"], "scale": scale,
                                    "failure": r["detail"].get("failure", "")})
        if r["kind"] == "bound" and r["status"] == "verified" and r["worst"] is not None:
            w = float(r["worst"])
            key = r["check"] if scale == "smoke" else f"{r['check']} ({scale})"
            row["worst_by_check"][key] = w
            prev = row["worst_bound_ratio"]
            row["worst_bound_ratio"] = w if prev is None else max(prev, w)
        row["date"] = max(row["date"], r["date"])
    for cid, row in rows.items():
        row["status"] = claim_status(by_claim[cid])
        row["scales"].sort(key=lambda s: (s != "smoke", s))
    return dict(sorted(rows.items()))
