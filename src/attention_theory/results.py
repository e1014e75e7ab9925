"""Experiment results with provenance: atomic writes, checkpoints, reading back.

Every full-scale result committed under ``results/`` is a JSON file of the form
``{"provenance": {...}, "data": {...}}``.  The provenance block says where the
numbers came from: package version, git commit, date, device, torch and Python
versions, scale, the full configuration and the wall time.  Chapters read these
files with :func:`read_result` and print :func:`describe_provenance` under the
figure, so a reader always knows which run a picture shows.

Writes are atomic (a temporary file in the same folder, then :func:`os.replace`):
an interrupted run never leaves a half-written result or checkpoint behind.  A write that
fails removes its temporary file; a process killed while writing can leave one (``.tmp-*``),
which :func:`clean_temporary_files` removes later (the experiment command does, before work).

Checkpoints (:func:`save_checkpoint`, :func:`save_json_checkpoint`) carry a format version and
a SHA-256 checksum of their payload, and optionally the configuration they were written for;
loading verifies both, so a truncated, zeroed or garbled file, or one from another
configuration, stops the run with one line naming the file (:class:`CorruptCheckpoint`,
:class:`CheckpointMismatch`) instead of resuming from wrong numbers.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import pickle
import platform
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Mapping

from attention_theory.provenance import git_commit, json_data, jsonable, package_version
from attention_theory.validation import check_path, check_positive

__all__ = [
    "PROVENANCE_KEYS",
    "device_name",
    "provenance",
    "repo_results_dir",
    "ResultNotFound",
    "ResultsFolderNotFound",
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "clean_temporary_files",
    "temporary_prefix",
    "write_result",
    "read_result",
    "describe_provenance",
    "commit_label",
    "CHECKPOINT_FORMAT",
    "CheckpointError",
    "CorruptCheckpoint",
    "CheckpointMismatch",
    "save_checkpoint",
    "load_checkpoint",
    "save_json_checkpoint",
    "load_json_checkpoint",
]

#: Version of the checkpoint layout written by :func:`save_checkpoint` and
#: :func:`save_json_checkpoint`; loading refuses any other.
CHECKPOINT_FORMAT = 1

#: Prefix of the temporary files of the atomic writers (removed by :func:`clean_temporary_files`).
TEMP_PREFIX = ".tmp-"

#: Keys every provenance block carries (``read_result`` refuses files without them).
PROVENANCE_KEYS = ("package_version", "commit", "date", "device", "torch_version", "python_version",
                   "scale", "config", "wall_time_s")


def device_name(device: Any = None) -> str:
    """A human-readable name of the device a run used, e.g. ``"NVIDIA H100 80GB HBM3"``.

    ``device`` may be a ``torch.device``, a string such as ``"cuda:0"``, or ``None``
    (the CPU).  CPU names include the architecture and the number of cores.
    """
    dev = str(device) if device is not None else "cpu"
    if dev.startswith("cuda"):
        import torch

        idx = int(dev.split(":")[1]) if ":" in dev else 0
        return torch.cuda.get_device_name(idx)
    return f"cpu ({platform.machine()}, {os.cpu_count()} cores, {platform.system()})"


def source_dirty() -> bool | None:
    """Whether the package source differs from the recorded commit (``None`` outside git)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--", "."], cwd=here,
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(out.stdout.strip()) if out.returncode == 0 else None


def _check_device(device: Any) -> None:
    """``None``, a ``torch.device`` or a string torch parses as a device (``"cpu"``, ``"cuda:0"``)."""
    if device is None:
        return
    import torch

    if isinstance(device, torch.device):
        return
    if not isinstance(device, str):
        raise TypeError(f"device must be a torch.device, a device string or None, got {device!r}")
    try:
        torch.device(device)
    except (RuntimeError, ValueError):
        raise ValueError(f"device must name a torch device (e.g. 'cpu', 'cuda:0'), got {device!r}") from None


def _check_mapping(obj: Any, name: str) -> None:
    if not isinstance(obj, Mapping):
        raise TypeError(f"{name} must be a mapping, got {type(obj).__name__}")


def provenance(config: Mapping[str, Any], *, wall_time_s: float | None, device: Any = None,
               scale: str | None = None, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance block of a result.

    Parameters
    ----------
    config:
        The complete configuration of the run (sizes, seeds, optimizer, step sizes, ...):
        enough to rerun it.
    wall_time_s:
        Seconds the run took (``None`` only for results that are not timed).
    device:
        The device the run used (see :func:`device_name`).
    scale:
        ``"smoke"`` or ``"full"``; defaults to :func:`attention_theory.config.scale`.
    extra:
        Anything else worth recording (e.g. the command line).
    """
    from attention_theory.config import SCALES
    from attention_theory.config import scale as _scale

    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    if wall_time_s is not None:
        check_positive(wall_time_s, "wall_time_s", allow_zero=True)  # the value is recorded as given
    _check_device(device)
    if scale is not None:
        if not isinstance(scale, str):
            raise TypeError(f"scale must be one of {SCALES} or None, got {scale!r}")
        if scale not in SCALES:
            raise ValueError(f"scale must be one of {SCALES} or None, got {scale!r}")
    if extra is not None and not isinstance(extra, Mapping):
        raise TypeError(f"extra must be a mapping or None, got {type(extra).__name__}")

    try:
        import torch

        torch_version = torch.__version__
    except ImportError:  # the package needs torch, but provenance should never crash a run
        torch_version = "not installed"
    block = {
        "package_version": package_version(),
        "commit": git_commit(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "device": device_name(device),
        "torch_version": torch_version,
        "python_version": platform.python_version(),
        "scale": scale if scale is not None else _scale(),
        "config": dict(config),
        "wall_time_s": wall_time_s,
        "command": " ".join(sys.argv),
        "uncommitted_source_changes": source_dirty(),
    }
    if extra:
        block.update(dict(extra))
    return jsonable(block)


def _host_label() -> str:
    return re.sub(r"[^A-Za-z0-9.]", "_", platform.node() or "host")[:40]


def temporary_prefix() -> str:
    """Prefix of this process's temporary files: ``.tmp-<host>-<pid>-``, so that
    :func:`clean_temporary_files` can tell a file whose writer died from one being written."""
    return f"{TEMP_PREFIX}{_host_label()}-{os.getpid()}-"


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parent folders are created).

    The bytes go to a temporary ``.tmp-<host>-<pid>-*`` file in the same folder, are flushed to
    disk, and the file is renamed over ``path`` (:func:`os.replace`), so ``path`` holds either the
    old or the new content, never a mixture.  A failed write (a full disk, a read-only folder)
    removes its temporary file and raises an ``OSError`` that names ``path``.
    """
    target = Path(check_path(path, "path"))
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=temporary_prefix(), suffix=target.suffix)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write {target} ({exc.strerror or exc})") from None
    finally:
        if tmp is not None and os.path.exists(tmp):  # the write failed before the rename
            os.unlink(tmp)
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_write_bytes`)."""
    check_path(path, "path")
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    return atomic_write_bytes(path, text.encode("utf-8"))


def _writer_alive(name: str) -> bool | None:
    """Whether the writer of the temporary file ``name`` still runs: ``None`` when the name does
    not say (an older name, or another host's file)."""
    m = re.match(re.escape(TEMP_PREFIX) + r"(.+)-(\d+)-", name)
    if m is None or m.group(1) != _host_label():
        return None
    pid = int(m.group(2))
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def clean_temporary_files(folder: str | os.PathLike, *, older_than_s: float = 600.0) -> list[Path]:
    """Remove the temporary files that interrupted atomic writes left in ``folder``.

    A file whose name says it was written on this host by a process that no longer runs is
    removed at once; a file of a running writer is left alone; a file whose writer cannot be told
    (another host's, or an older name without it) is removed once it is older than
    ``older_than_s`` seconds.  Not recursive.  Returns the removed paths (a missing folder has
    none).  Called by :func:`attention_theory.experiment.run_cli` on the output folder and its
    shard folders, and by the check campaign on its registry folder, before any work.
    """
    try:
        older_than_s = float(older_than_s)
    except (TypeError, ValueError):
        raise TypeError(f"older_than_s must be a number, got {type(older_than_s).__name__}") from None
    if not older_than_s >= 0 or older_than_s == float("inf"):
        raise ValueError(f"older_than_s must be a finite number >= 0, got {older_than_s!r}")
    base = Path(check_path(folder, "folder"))
    if not base.is_dir():
        return []
    cutoff = time.time() - older_than_s
    removed = []
    for f in sorted(base.glob(TEMP_PREFIX + "*")):
        try:
            if not f.is_file() or f.is_symlink():
                continue
            alive = _writer_alive(f.name)
            if alive is False or (alive is None and f.stat().st_mtime <= cutoff):
                f.unlink()
                removed.append(f)
        except FileNotFoundError:  # removed meanwhile by its writer
            continue
    return removed


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as indented, key-sorted JSON to ``path`` atomically."""
    check_path(path, "path")
    return atomic_write_text(path, json.dumps(jsonable(obj), indent=1, sort_keys=True) + "\n")


def write_result(path: str | os.PathLike, data: Mapping[str, Any],
                 prov: Mapping[str, Any]) -> Path:
    """Write ``{"provenance": prov, "data": data}`` atomically; ``prov`` from :func:`provenance`."""
    check_path(path, "path")
    _check_mapping(data, "data")
    _check_mapping(prov, "prov")
    missing = [k for k in PROVENANCE_KEYS if k not in prov]
    if missing:
        raise ValueError(f"prov lacks provenance keys {missing}; build it with provenance()")
    # the payload's checksum: read_result refuses a file whose data were changed afterwards
    prov = dict(prov, data_sha256=_sha256(_canonical_json(dict(data))))
    return atomic_write_json(path, {"provenance": prov, "data": dict(data)})


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    """Read a result written by :func:`write_result`, checking that its provenance is complete
    and, when it carries one (every result written since it was introduced), the checksum of its
    data.  Every error is one line naming the file."""
    p = Path(check_path(path, "path"))
    if not p.exists():
        raise ResultNotFound(f"path: no result at {p}")
    try:
        obj = json.loads(p.read_text())
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{p}: not readable JSON ({exc}); restore it (git checkout {p.name}) or re-run "
                         "the part that writes it") from None
    if not isinstance(obj, dict) or "provenance" not in obj or "data" not in obj:
        raise ValueError(f"{p} is not a result file (needs 'provenance' and 'data')")
    missing = [k for k in PROVENANCE_KEYS if k not in obj["provenance"]]
    if missing:
        raise ValueError(f"{p}: provenance lacks {missing}")
    want = obj["provenance"].get("data_sha256")
    if want is not None and _sha256(_canonical_json(obj["data"])) != want:
        raise ValueError(f"{p}: its data fail their SHA-256 checksum (changed after the file was written); "
                         f"restore it (git checkout {p.name}) or re-run the part that writes it")
    return obj


class ResultNotFound(FileNotFoundError, ValueError):
    """No result file at ``path``: a ``FileNotFoundError`` (as before) that is also a
    ``ValueError`` (``path`` names no result)."""


class ResultsFolderNotFound(FileNotFoundError, ValueError):
    """No ``results/<name>`` folder: a ``FileNotFoundError`` (as before) that is also a
    ``ValueError`` (``name`` names no results folder)."""


def repo_results_dir(name: str) -> Path:
    """``<repository>/results/<name>`` for the repository holding this package (an editable
    install), else the first such folder at or above the working directory."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a folder name (a string), got {type(name).__name__}")
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be one folder name under results/, got {name!r}")
    here = Path(__file__).resolve()
    for base in (*here.parents, Path.cwd(), *Path.cwd().parents):
        if (base / "results" / name).is_dir():
            return base / "results" / name
    raise ResultsFolderNotFound(f"name={name!r}: results/{name} not found next to the package or above the "
                                "working directory")


def describe_provenance(prov: Mapping[str, Any]) -> str:
    """One line for a figure caption: scale, device, date, commit, wall time."""
    _check_mapping(prov, "prov")
    wall = prov.get("wall_time_s")
    wall_s = "untimed" if wall is None else f"{float(wall):.0f} s"
    return (f"{prov.get('scale')} scale on {prov.get('device')}, {prov.get('date')}, "
            f"commit {prov.get('commit')}, package {prov.get('package_version')}, "
            f"torch {prov.get('torch_version')}, wall time {wall_s}")


def commit_label(prov: Mapping[str, Any]) -> str:
    """The commit of a result for a figure caption (glue it and write ``{glue:text}`` in the
    caption): the recorded commit, followed by " (with uncommitted changes)" when the run's
    package source differed from it."""
    _check_mapping(prov, "prov")
    commit = str(prov.get("commit") or "unknown")
    return commit + (" (with uncommitted changes)" if prov.get("uncommitted_source_changes") else "")


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from; the message is one line naming the file and
    saying how to start afresh."""

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = Path(path)
        self.problem = " ".join(str(problem).split())  # one line, whatever the cause said
        super().__init__(f"checkpoint {self.path} {self.problem}; rerun with --restart to move it "
                         f"aside, or delete {self.path}")


class CorruptCheckpoint(CheckpointError):
    """The file is empty, truncated, garbled or fails its checksum."""


class CheckpointMismatch(CheckpointError):
    """The checkpoint is intact but was written for another configuration."""


_CHECKSUM_RECORD = ".attention_theory_checksum.json"


def _canonical_json(obj: Any) -> bytes:
    """Key-sorted, compact JSON of ``obj`` after a JSON round trip (int keys become strings), so
    the same content always gives the same bytes."""
    normal = json_data(obj)
    return json.dumps(normal, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_config(path: Path, saved: Any, config: Any) -> None:
    """Raise :class:`CheckpointMismatch` when ``config`` (given) differs from the saved one."""
    if config is None:
        return
    want = json.loads(_canonical_json(config))
    if saved == want:
        return
    if saved is None:
        raise CheckpointMismatch(path, "was written for another configuration (it records none)")
    if isinstance(saved, dict) and isinstance(want, dict):
        keys = sorted(k for k in set(saved) | set(want)
                      if saved.get(k, "<absent>") != want.get(k, "<absent>"))
        shown = ", ".join(f"{k}: saved {saved.get(k, '<absent>')!r}, now {want.get(k, '<absent>')!r}"
                          for k in keys[:3])
        more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
        raise CheckpointMismatch(path, f"was written for another configuration ({shown}{more})")
    raise CheckpointMismatch(path, "was written for another configuration")


def _records_digest(zf: zipfile.ZipFile, skip: str) -> tuple[str, int]:
    """SHA-256 over every record of a ``torch.save`` archive except ``skip`` (name, size and bytes,
    in archive order), and the number of payload bytes; ``zipfile`` checks each CRC-32 too."""
    h, total = hashlib.sha256(), 0
    for info in zf.infolist():
        if info.filename == skip:
            continue
        data = zf.read(info)
        total += len(data)
        h.update(info.filename.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest(), total


def save_checkpoint(path: str | os.PathLike, state: Mapping[str, Any], *,
                    config: Mapping[str, Any] | None = None) -> Path:
    """Save a checkpoint (any ``torch.save``-able mapping) atomically, with its checksum.

    The file is the ``torch.save`` archive of ``dict(state)`` (so ``torch.load`` still reads
    it) plus one record, ``<archive>/.attention_theory_checksum.json``: the format version
    :data:`CHECKPOINT_FORMAT`, the SHA-256 of the payload (every other record: name, size and
    bytes), its size, and ``config`` as JSON when given.  :func:`load_checkpoint` verifies all of
    it.  Written with :func:`atomic_write_bytes`: a process killed mid-write leaves the previous
    checkpoint intact.
    """
    import torch

    check_path(path, "path")
    if not isinstance(state, Mapping):
        raise TypeError(f"state must be a mapping, got {type(state).__name__}")
    buf = io.BytesIO()
    torch.save(dict(state), buf)
    with zipfile.ZipFile(buf, "a") as zf:
        names = zf.namelist()
        name = f"{names[0].split('/')[0]}/{_CHECKSUM_RECORD}"
        digest, size = _records_digest(zf, name)
        meta = {"format": CHECKPOINT_FORMAT, "payload_sha256": digest, "payload_bytes": size,
                "records": len(names),
                "config": None if config is None else json.loads(_canonical_json(config))}
        zf.writestr(name, json.dumps(meta, sort_keys=True))
    return atomic_write_bytes(path, buf.getvalue())


def _checkpoint_bytes(path: str | os.PathLike) -> tuple[Path, bytes] | None:
    """``(path, its bytes)``, or ``None`` when there is no checkpoint (a fresh start); an empty file
    is a damaged checkpoint."""
    p = Path(check_path(path, "path"))
    if not p.exists():
        return None
    data = p.read_bytes()
    if not data:
        raise CorruptCheckpoint(p, "is empty (0 bytes)")
    return p, data


def load_checkpoint(path: str | os.PathLike, *, config: Mapping[str, Any] | None = None,
                    allowed: tuple[type, ...] = ()) -> dict[str, Any] | None:
    """The checkpoint at ``path``, or ``None`` when there is none (a fresh start).

    The file may hold tensors and plain data (and NumPy arrays and the classes ``allowed``,
    e.g. a result dataclass, when given); anything else is refused before it is built.

    Raises :class:`CorruptCheckpoint` (a ``ValueError``) when the file is empty, truncated, not a
    checkpoint of this format, or fails its checksum, and :class:`CheckpointMismatch` when
    ``config`` is given and differs from the configuration saved with it; both messages are one
    line naming the file and saying how to start afresh (``--restart`` or delete it).
    """
    import torch

    found = _checkpoint_bytes(path)
    if found is None:
        return None
    p, data = found
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = [n for n in zf.namelist() if n.endswith("/" + _CHECKSUM_RECORD)]
            if len(names) != 1:
                raise CorruptCheckpoint(p, "has no checksum record (damaged, or written by an older "
                                           "version or another program)")
            try:
                meta = json.loads(zf.read(names[0]))
                fmt = meta["format"]
                want, size = str(meta["payload_sha256"]), int(meta["payload_bytes"])
                n_records = int(meta["records"])
            except (ValueError, KeyError, TypeError):
                raise CorruptCheckpoint(p, "has an unreadable checksum record") from None
            if fmt != CHECKPOINT_FORMAT:
                raise CorruptCheckpoint(p, f"has format {fmt!r}; this version reads format "
                                           f"{CHECKPOINT_FORMAT}")
            if len(zf.infolist()) != n_records + 1:
                raise CorruptCheckpoint(p, f"has {len(zf.infolist()) - 1} payload records, "
                                           f"{n_records} were written")
            digest, got = _records_digest(zf, names[0])
    except CorruptCheckpoint:
        raise
    except Exception as exc:  # zipfile.BadZipFile (no archive, bad CRC-32), EOFError, ...
        raise CorruptCheckpoint(p, f"is truncated or damaged ({len(data)} bytes; {exc})") from None
    if got != size or digest != want:
        raise CorruptCheckpoint(p, f"fails its SHA-256 checksum ({got} of {size} payload bytes; "
                                   "the payload was damaged)")
    _check_config(p, meta.get("config"), config)
    try:
        # tensors and plain data only: a checkpoint whose pickle names any other callable (a file
        # planted in an output folder, say) is refused before anything in it runs; the checksum
        # cannot guard against that, whoever writes the file can recompute it
        if allowed:
            import numpy as np

            # NumPy arrays of numbers only (an object array would need its objects' classes)
            dtypes = [type(np.dtype(t)) for t in (np.float64, np.float32, np.float16, np.int64, np.int32,
                                                  np.int16, np.int8, np.uint8, np.bool_, np.complex128)]
            safe = [*allowed, np.ndarray, np.dtype, np._core.multiarray._reconstruct, *dtypes]
            with torch.serialization.safe_globals(safe):
                state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        else:
            state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise CorruptCheckpoint(p, "holds objects other than tensors and plain data, which this version "
                                   f"refuses to load (they could run code): {str(exc).splitlines()[0][:200]}"
                                ) from None
    except Exception as exc:  # intact bytes that this code cannot unpickle
        raise CorruptCheckpoint(p, f"cannot be read by this version ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict):
        raise CorruptCheckpoint(p, f"holds a {type(state).__name__}, not a mapping")
    return state


def save_json_checkpoint(path: str | os.PathLike, payload: Mapping[str, Any], *,
                         config: Mapping[str, Any] | None = None) -> Path:
    """Save a JSON checkpoint atomically: ``{"checkpoint_format", "sha256", "config", "payload"}``
    where ``sha256`` covers the canonical JSON (key-sorted, compact) of ``payload`` and ``config``.

    For runs whose state is plain JSON (lists of finished runs); :func:`load_json_checkpoint`
    verifies it.
    """
    check_path(path, "path")
    if not isinstance(payload, Mapping):
        raise TypeError(f"payload must be a mapping, got {type(payload).__name__}")
    body = json.loads(_canonical_json(dict(payload)))
    cfg = None if config is None else json.loads(_canonical_json(config))
    digest = _sha256(_canonical_json({"config": cfg, "payload": body}))
    return atomic_write_json(path, {"checkpoint_format": CHECKPOINT_FORMAT, "sha256": digest,
                                    "config": cfg, "payload": body})


def load_json_checkpoint(path: str | os.PathLike, *, config: Mapping[str, Any] | None = None
                         ) -> dict[str, Any] | None:
    """The payload of the JSON checkpoint at ``path`` (``None`` when there is none).

    Raises :class:`CorruptCheckpoint` for an empty, truncated, garbled or checksum-failing file
    and :class:`CheckpointMismatch` when ``config`` is given and differs from the saved one (one
    line naming the file, as :func:`load_checkpoint`).
    """
    found = _checkpoint_bytes(path)
    if found is None:
        return None
    p, data = found
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CorruptCheckpoint(p, f"is not valid JSON ({len(data)} bytes; truncated or damaged)") from None
    if not isinstance(obj, dict) or "payload" not in obj or "sha256" not in obj:
        raise CorruptCheckpoint(p, "is not a checkpoint of this format (no checksum; damaged, or written "
                                   "by an older version)")
    if obj.get("checkpoint_format") != CHECKPOINT_FORMAT:
        raise CorruptCheckpoint(p, f"has format {obj.get('checkpoint_format')!r}; this version reads "
                                   f"format {CHECKPOINT_FORMAT}")
    if not isinstance(obj["payload"], dict):
        raise CorruptCheckpoint(p, "has a payload that is not a mapping")
    if _sha256(_canonical_json({"config": obj.get("config"), "payload": obj["payload"]})) != obj["sha256"]:
        raise CorruptCheckpoint(p, "fails its SHA-256 checksum (the payload was damaged)")
    _check_config(p, obj.get("config"), config)
    return obj["payload"]
