"""Provenance of records and results: package version, git commit, device, JSON conversion."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["git_commit", "source_tree_hash", "package_version", "default_device", "jsonable", "json_data"]


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the package's repository (12 hex digits).  Without git, or outside a
    repository, ``"unknown (source <hash>)"`` with :func:`source_tree_hash`: nothing, no
    environment variable either, can make a record claim a commit it was not computed at."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here,
                             capture_output=True, text=True, timeout=5)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return f"unknown (source {source_tree_hash()})"


@functools.lru_cache(maxsize=1)
def source_tree_hash() -> str:
    """SHA-256 (first 12 hex digits) of the package's source: every ``.py`` file under the
    package folder, by relative path and content, in sorted order."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def package_version() -> str:
    from attention_theory import __version__

    return __version__


def default_device() -> str:
    return f"cpu ({platform.machine()}, {platform.system()})"


def jsonable(x: Any) -> Any:
    """Convert numpy scalars/arrays and tuples into JSON-friendly objects."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        f = float(x)
        return f if math.isfinite(f) else str(f)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    return repr(x)



def json_data(x: Any) -> Any:
    """``x`` as it reads back from JSON (:func:`jsonable`, then a round trip: tuples become lists,
    keys strings), so values computed now and values read from a file compare equal."""
    return json.loads(json.dumps(jsonable(x)))