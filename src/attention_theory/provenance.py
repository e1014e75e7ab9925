"""Provenance of records and results: package version, git commit, device, JSON conversion."""

from __future__ import annotations

import functools
import math
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["git_commit", "package_version", "default_device", "jsonable"]


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here,
                             capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return os.environ.get("ATTN_COMMIT", "unknown")


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
