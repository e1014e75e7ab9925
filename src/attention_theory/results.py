"""Experiment results with provenance: atomic writes, checkpoints, reading back.

Every full-scale result committed under ``results/`` is a JSON file of the form
``{"provenance": {...}, "data": {...}}``.  The provenance block says where the
numbers came from: package version, git commit, date, device, torch and Python
versions, scale, the full configuration and the wall time.  Chapters read these
files with :func:`read_result` and print :func:`describe_provenance` under the
figure, so a reader always knows which run a picture shows.

Writes are atomic (a temporary file in the same folder, then :func:`os.replace`):
an interrupted run never leaves a half-written result or checkpoint behind.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

from attention_theory.provenance import git_commit, jsonable, package_version

__all__ = [
    "PROVENANCE_KEYS",
    "device_name",
    "provenance",
    "repo_results_dir",
    "atomic_write_text",
    "atomic_write_json",
    "write_result",
    "read_result",
    "describe_provenance",
    "save_checkpoint",
    "load_checkpoint",
]

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
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    if wall_time_s is not None and not (wall_time_s >= 0):
        raise ValueError(f"wall_time_s must be a non-negative number, got {wall_time_s!r}")
    from attention_theory.config import scale as _scale

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


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (parent folders are created)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as indented, key-sorted JSON to ``path`` atomically."""
    return atomic_write_text(path, json.dumps(jsonable(obj), indent=1, sort_keys=True) + "\n")


def write_result(path: str | os.PathLike, data: Mapping[str, Any],
                 prov: Mapping[str, Any]) -> Path:
    """Write ``{"provenance": prov, "data": data}`` atomically; ``prov`` from :func:`provenance`."""
    missing = [k for k in PROVENANCE_KEYS if k not in prov]
    if missing:
        raise ValueError(f"prov lacks provenance keys {missing}; build it with provenance()")
    return atomic_write_json(path, {"provenance": dict(prov), "data": dict(data)})


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    """Read a result written by :func:`write_result`, checking that its provenance is complete."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no result at {p}")
    obj = json.loads(p.read_text())
    if not isinstance(obj, dict) or "provenance" not in obj or "data" not in obj:
        raise ValueError(f"{p} is not a result file (needs 'provenance' and 'data')")
    missing = [k for k in PROVENANCE_KEYS if k not in obj["provenance"]]
    if missing:
        raise ValueError(f"{p}: provenance lacks {missing}")
    return obj


def repo_results_dir(name: str) -> Path:
    """``<repository>/results/<name>`` for the repository holding this package (an editable
    install), else the first such folder at or above the working directory."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name must be one folder name under results/, got {name!r}")
    here = Path(__file__).resolve()
    for base in (*here.parents, Path.cwd(), *Path.cwd().parents):
        if (base / "results" / name).is_dir():
            return base / "results" / name
    raise FileNotFoundError(f"results/{name} not found next to the package or above the working directory")


def describe_provenance(prov: Mapping[str, Any]) -> str:
    """One line for a figure caption: scale, device, date, commit, wall time."""
    wall = prov.get("wall_time_s")
    wall_s = "untimed" if wall is None else f"{float(wall):.0f} s"
    return (f"{prov.get('scale')} scale on {prov.get('device')}, {prov.get('date')}, "
            f"commit {prov.get('commit')}, package {prov.get('package_version')}, "
            f"torch {prov.get('torch_version')}, wall time {wall_s}")


def save_checkpoint(path: str | os.PathLike, state: Mapping[str, Any]) -> Path:
    """Save a checkpoint (any ``torch.save``-able mapping) atomically."""
    import torch

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".pt")
    os.close(fd)
    try:
        torch.save(dict(state), tmp)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any] | None:
    """The checkpoint at ``path``, or ``None`` when there is none (a fresh start)."""
    import torch

    p = Path(path)
    if not p.exists():
        return None
    return torch.load(p, map_location="cpu", weights_only=False)
