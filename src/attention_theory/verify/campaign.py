"""The search campaign: every registered check function run once, on any number of workers.

``python -m attention_theory check --all --scale full --registry DIR [--workers N]`` builds one
:class:`CheckTask` per check function (a function that writes several (claim, check) pairs is
one task; functions that declare the same ``shares`` label, because they use one expensive
cached result, are one task too), runs each with :func:`run_check_task` (in this process, or on
Dask workers: :mod:`attention_theory.cluster`), and writes what each returns with
:func:`record_task_result`.

* A task keeps its records in memory (:func:`~attention_theory.verify.registry.staging_records`)
  and returns them when its functions have finished; the process that submitted it is the only
  writer of the registry folder.  A run that stops part-way therefore leaves nothing behind, and a
  check function that writes one record per sub-statement under one pair leaves only the last.
* A check that fails keeps only the failing record (status ``fails``), never a record of an
  earlier sub-statement of the same run.
* The folder's manifest (:data:`MANIFEST`) lists, per finished task, the files it wrote with
  their hashes, its status and its wall and CPU seconds; it is written after the records, so a
  task is *complete* (:func:`completed_tasks`, used by ``--resume``) only if its entry is there
  and every file it lists still has that hash.
* Every record gains ``timing``: the wall and CPU seconds of the task that wrote it (its pieces'
  CPU on other workers included), so a campaign can be planned from the last one.
* A task runs with one torch thread wherever it runs, so its records do not depend on the number
  of workers.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import inspect
import json
import os
import re
import socket
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from attention_theory.cluster import counting_piece_cpu, one_thread
from attention_theory.config import SCALES, use_scale
from attention_theory.provenance import git_commit
from attention_theory.results import atomic_write_text
from attention_theory.validation import as_array, check_path
from attention_theory.verify.contract import evaluate, registered_checks
from attention_theory.verify.registry import load_registry, staging_records, write_record_file

__all__ = ["MANIFEST", "TASK_STATUSES", "CheckTask", "natural_key", "needs_data", "EXPERIMENT_DATA_ARGUMENTS",
           "trains_experiment", "campaign_tasks", "run_check_task",
           "record_task_result", "read_manifest", "completed_tasks", "known_durations", "task_jobs",
           "predict_wall", "registry_scale", "run_campaign"]

#: The manifest of a registry folder written by the campaign (not a record: ``load_registry``
#: skips names that start with ``_``).
MANIFEST = "_campaign.json"

#: What became of a task: its function ran and every statement held (``ran``), a statement
#: failed (``fails``, the failing record is kept), the function raised another exception
#: (``error``, nothing written), it needs data a chapter loads (``needs-data``), or ``--resume``
#: found it complete (``recorded``).
TASK_STATUSES = ("ran", "fails", "error", "needs-data", "recorded")


@dataclasses.dataclass(frozen=True)
class CheckTask:
    """One campaign task: the check ``functions`` it runs (``module.qualname``; several when they
    share a cached computation, :func:`~attention_theory.verify.contract.claim_check`'s
    ``shares``), and the (claim, check) ``pairs`` they write, the first function's own first."""

    functions: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    shares: str | None = None

    @property
    def key(self) -> str:
        """The task's name in the manifest: the shared label, else the function."""
        return f"shares:{self.shares}" if self.shares else self.functions[0]

    @property
    def claim_id(self) -> str:
        return self.pairs[0][0]

    @property
    def label(self) -> str:
        return f"{self.claim_id} / {', '.join(c for _, c in self.pairs)}"


def _function_name(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders ``deora-eq-2`` before ``deora-eq-10`` (numbers compared as numbers)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def needs_data(fn: Callable[..., Any]) -> list[str]:
    """The arguments a check needs (data a chapter loads); empty when it runs on its own."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


#: Names of the argument through which a figure's check receives an experiment's results; left
#: at its default (``None``) the check trains the experiment's runs itself.
EXPERIMENT_DATA_ARGUMENTS = ("runs", "result")


def trains_experiment(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` trains an experiment's runs when called without its data (an argument of
    :data:`EXPERIMENT_DATA_ARGUMENTS` that defaults to ``None``)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    return any(p.name in EXPERIMENT_DATA_ARGUMENTS and p.default is None
               for p in inspect.signature(fn).parameters.values())


def campaign_tasks(claims: Iterable[str]) -> list[CheckTask]:
    """One task per check function that writes a record of any claim in ``claims``, in the
    natural order of their own pairs."""
    if isinstance(claims, (str, bytes)) or not hasattr(claims, "__iter__"):
        raise TypeError(f"claims must be an iterable of claim IDs, got {type(claims).__name__}")
    wanted = list(claims)
    bad = [c for c in wanted if not isinstance(c, str)]
    if bad:
        raise TypeError(f"claims must hold claim IDs (strings), got {bad[0]!r}")
    table = registered_checks()
    unknown = sorted(set(wanted) - {cid for cid, _ in table})
    if unknown:
        raise ValueError(f"claims: no registered check for {', '.join(unknown)} (see --list)")
    wanted = set(wanted)
    by_fn: dict[str, tuple[Callable[..., Any], list[tuple[str, str]]]] = {}
    for pair, fn in table.items():
        by_fn.setdefault(_function_name(fn), (fn, []))[1].append(pair)
    singles, groups = [], {}
    for name, (fn, pairs) in by_fn.items():
        own = (fn.claim_id, fn.check_name)
        rest = sorted((p for p in pairs if p != own), key=lambda p: (natural_key(p[0]), p[1]))
        shares = getattr(fn, "shares", None)
        if shares:
            groups.setdefault(shares, []).append((name, (own, *rest)))
        else:
            singles.append(CheckTask((name,), (own, *rest)))
    for shares, members in groups.items():
        members.sort(key=lambda m: (natural_key(m[1][0][0]), m[1][0][1]))
        singles.append(CheckTask(tuple(n for n, _ in members),
                                 tuple(p for _, ps in members for p in ps), shares))
    tasks = [t for t in singles if wanted & {cid for cid, _ in t.pairs}]
    return sorted(tasks, key=lambda t: (natural_key(t.claim_id), t.pairs[0][1]))


def _find_function(name: str) -> Callable[..., Any]:
    for fn in registered_checks().values():
        if _function_name(fn) == name:
            return fn
    raise KeyError(f"no registered check function {name}")


def run_check_task(task: CheckTask, scale: str) -> dict[str, Any]:
    """Run one check function at ``scale`` (with one torch thread, as on a Dask worker) and
    return what it wrote instead of writing it:
    ``{"task", "pairs", "status", "message", "records", "wall_s", "cpu_s", "host"}`` with
    ``status`` one of :data:`TASK_STATUSES`.  Never raises for what the check does (a worker
    dying is the cluster's to retry)."""
    if not isinstance(task, CheckTask):
        raise TypeError(f"task must be a CheckTask, got {type(task).__name__}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    out: dict[str, Any] = {"task": task.key, "pairs": [list(p) for p in task.pairs],
                           "host": f"{socket.gethostname()}:{os.getpid()}"}
    fns = [_find_function(name) for name in task.functions]
    missing = sorted({m for fn in fns for m in needs_data(fn)})
    if missing:
        return dict(out, status="needs-data", records=[], wall_s=0.0, cpu_s=0.0, message=(
            f"needs {', '.join(missing)} (data its chapter loads): execute the chapter to re-run it"))
    if scale == "full" and any(trains_experiment(fn) for fn in fns):
        return dict(out, status="needs-data", records=[], wall_s=0.0, cpu_s=0.0, message=(
            "at full scale its data are an experiment's committed results (without them it would train "
            "the experiment's runs again): its chapter records it on those files"))
    # CPU of this thread only: pieces that ran on this worker's other threads are counted by
    # map_pieces, and the worker's own threads (communication, heartbeats) are not the check's
    t0, c0 = time.perf_counter(), time.thread_time()
    statuses, messages, records = [], [], []
    with use_scale(scale), counting_piece_cpu() as pieces, one_thread():
        for fn in fns:  # one after another in this process: a shared cached result is computed once
            status, message, recs = _run_function(fn, out)
            statuses.append(status)
            messages += [message] if message else []
            records += recs
    status = next((s for s in ("error", "fails") if s in statuses), "ran")
    out.update(status=status, message="; ".join(messages), records=records,
               wall_s=time.perf_counter() - t0, cpu_s=time.thread_time() - c0 + sum(pieces),
               pieces_cpu_s=[round(c, 3) for c in pieces])
    return out


def _run_function(fn: Callable[..., Any], out: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    """Run one check function with its records staged: ``(status, message, records)``; a failure
    keeps only the failing record, an error none."""
    with staging_records() as staged:
        try:
            holds, summary = evaluate(fn)
            status, message = ("ran", "") if holds else ("fails", summary)
        except Exception as exc:  # noqa: BLE001 - reported; the other tasks go on
            status, message = "error", f"{type(exc).__name__}: {exc}"
            out["traceback"] = traceback.format_exc(limit=4)
        records = list(staged.values())
    if status == "fails":  # the failing record only, never an earlier sub-statement's
        records = [r for r in records if r["status"] == "fails"]
    elif status == "error":
        records = []
    return status, message, records


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest of a registry folder (``{"tasks": {function: entry}}``; empty when absent).
    A damaged manifest raises ``ValueError`` naming it."""
    path = Path(check_path(folder, "folder")) / MANIFEST
    if not path.is_file():
        return {"tasks": {}}
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise ValueError(f"{path}: damaged campaign manifest ({exc}); delete it to re-run every "
                         "check of the folder") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        raise ValueError(f"{path}: not a campaign manifest (no 'tasks' table)")
    return data


def _write_json_atomically(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_task_result(folder: str | os.PathLike, result: dict[str, Any], *, scale: str) -> list[Path]:
    """Write a task's records into ``folder`` (each atomically, each with its ``timing``), then
    its manifest entry; returns the record paths.  Only a finished function (``ran`` or
    ``fails``) gets an entry: ``--resume`` runs the others again."""
    folder = Path(check_path(folder, "folder"))
    if not isinstance(result, dict) or "status" not in result or "records" not in result:
        raise TypeError("result must be what run_check_task returned")
    if result["status"] not in ("ran", "fails"):
        return []
    timing = {"task": result["task"], "wall_s": round(float(result["wall_s"]), 3),
              "cpu_s": round(float(result["cpu_s"]), 3)}
    paths = [write_record_file(folder, dict(rec, timing=timing)) for rec in result["records"]]
    manifest = read_manifest(folder)
    manifest["tasks"][result["task"]] = {
        "pairs": result["pairs"], "status": result["status"], "scale": scale,
        "files": {p.name: _sha256(p) for p in paths}, "wall_s": timing["wall_s"],
        "cpu_s": timing["cpu_s"], "commit": git_commit(),
        **({"pieces_cpu_s": list(result["pieces_cpu_s"])} if result.get("pieces_cpu_s") else {}),
        "finished": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    _write_json_atomically(folder / MANIFEST, manifest)
    return paths


def completed_tasks(folder: str | os.PathLike, scale: str) -> set[str]:
    """Functions whose complete set of records from one finished run is in ``folder`` at
    ``scale``: a manifest entry whose every file is present with the recorded hash."""
    folder = Path(check_path(folder, "folder"))
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    done = set()
    for name, entry in read_manifest(folder)["tasks"].items():
        if entry.get("scale") != scale or entry.get("status") not in ("ran", "fails"):
            continue
        files = entry.get("files") or {}
        if files and all((folder / f).is_file() and _sha256(folder / f) == h for f, h in files.items()):
            done.add(name)
    return done


def known_durations(*folders: str | os.PathLike) -> dict[str, float]:
    """CPU seconds per task from the manifests of ``folders`` (the first that knows wins): what a
    task costs a dedicated single-threaded worker, the campaign's order (longest first)."""
    out: dict[str, float] = {}
    for folder in folders:
        path = Path(check_path(folder, "folder"))
        if not path.is_dir():
            continue
        try:
            tasks = read_manifest(path)["tasks"]
        except ValueError:
            continue
        for name, entry in tasks.items():
            if name not in out and isinstance(entry.get("cpu_s"), (int, float)):
                out[name] = float(entry["cpu_s"])
    return out


def task_jobs(entry: dict[str, Any]) -> tuple[float, list[float]]:
    """A manifest entry's work as ``(own CPU s, [CPU s of each piece])``: the pieces a task handed
    to :func:`attention_theory.cluster.map_pieces` ran as sub-tasks on any worker."""
    if not isinstance(entry, dict) or not isinstance(entry.get("cpu_s"), (int, float)):
        raise TypeError(f"entry must be a manifest entry (a dict with cpu_s), got {entry!r:.80}")
    pieces = [float(c) for c in entry.get("pieces_cpu_s") or []]
    return max(float(entry["cpu_s"]) - sum(pieces), 0.0), pieces


def predict_wall(durations: Iterable[float | tuple[float, Sequence[float]]], workers: int) -> float:
    """Wall seconds of the given work on ``workers`` workers: each job started on the first free
    worker, longest first (as the campaign submits them).  A duration is a task's seconds, or
    ``(own seconds, [seconds of each piece])`` for a task whose pieces run as sub-tasks: every
    piece is then a job of its own, and the task lasts at least its own part plus its longest
    piece.  Never below that critical path nor below the total divided by ``workers``."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if isinstance(durations, (str, bytes)) or not hasattr(durations, "__iter__"):
        raise TypeError(f"durations must be a sequence of seconds, got {type(durations).__name__}")
    durations = list(durations)
    if not durations:
        raise ValueError("durations must not be empty")
    jobs: list[float] = []
    critical = 0.0
    for i, d in enumerate(durations):
        own, pieces = (d[0], list(d[1])) if isinstance(d, tuple) else (d, [])
        parts = as_array([own, *pieces], f"durations[{i}]", ndim=1).tolist()
        if any(t < 0 for t in parts):
            raise ValueError("durations must be seconds >= 0")
        jobs += parts
        critical = max(critical, parts[0] + max(parts[1:], default=0.0))
    free = [0.0] * workers
    for t in sorted(jobs, reverse=True):
        k = min(range(workers), key=free.__getitem__)
        free[k] += t
    return max(max(free, default=0.0), critical)


def registry_scale(folder: str | os.PathLike) -> str | None:
    """The scale of the records in ``folder`` (``None`` when it has none); ``ValueError`` when it
    mixes scales."""
    folder = Path(check_path(folder, "folder"))
    scales = {r.get("scale", "smoke") for r in load_registry(folder)} if folder.is_dir() else set()
    if len(scales) > 1:
        raise ValueError(f"{folder} holds records of several scales ({', '.join(sorted(scales))})")
    return next(iter(scales), None)


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="checks", unit="task", disable=not enabled, leave=True,
                dynamic_ncols=True)


def run_campaign(tasks: Sequence[CheckTask], *, scale: str, folder: str | os.PathLike,
                 client: Any = None, resume: bool = False, progress: bool = True,
                 on_result: Callable[[dict[str, Any]], None] | None = None,
                 durations: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Run ``tasks`` at ``scale`` and write their records into ``folder`` as each finishes.

    ``client``: a ``distributed.Client`` (tasks are submitted to it, longest first when
    ``durations`` knows them, each retried once if its worker dies), or ``None`` (one after
    another, in this process).  With ``resume`` the tasks :func:`completed_tasks` lists are not
    run (status ``recorded``).  ``on_result(result)`` is called in this process after each
    result is written.  Returns the results in the order of ``tasks``."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    folder = Path(check_path(folder, "folder"))
    folder.mkdir(parents=True, exist_ok=True)
    have = registry_scale(folder)
    if have is not None and have != scale:
        raise ValueError(f"{folder} holds {have}-scale records: write {scale}-scale records into "
                         "another folder (--registry)")
    durations = dict(durations or {})
    done = completed_tasks(folder, scale) if resume else set()
    results: dict[str, dict[str, Any]] = {}
    todo = []
    for t in tasks:
        if t.key in done:
            results[t.key] = {"task": t.key, "pairs": [list(p) for p in t.pairs],
                                   "status": "recorded", "records": [], "wall_s": 0.0, "cpu_s": 0.0,
                                   "message": "complete in the registry folder (manifest and hashes)"}
        else:
            todo.append(t)

    def finish(res: dict[str, Any], bar: Any) -> None:
        record_task_result(folder, res, scale=scale)
        results[res["task"]] = res
        bar.update(1)
        if on_result is not None:
            on_result(res)

    with _progress(len(todo), progress) as bar:
        if client is None:
            for t in todo:
                bar.set_postfix_str(t.label[:60])
                finish(run_check_task(t, scale), bar)
        else:
            from distributed import as_completed

            order = sorted(todo, key=lambda t: -durations.get(t.key, 0.0))
            futures = [client.submit(run_check_task, t, scale, key=f"check-{t.key}-{scale}",
                                     pure=False, retries=1, priority=int(durations.get(t.key, 0.0)))
                       for t in order]
            for fut in as_completed(futures):
                res = fut.result()
                finish(res, bar)
                bar.set_postfix(running=sum(1 for f in futures if f.status == "pending"))
    return [results[t.key] for t in tasks]
