"""Run-time configuration: the scale mode of a run (``ATTN_SCALE``)."""

from __future__ import annotations

import os

SCALES = ("smoke", "full")

__all__ = ["SCALES", "scale", "pick"]


def scale() -> str:
    """The scale of this run: ``smoke`` (default; CPU, what CI runs) or ``full`` (paper scale)."""
    value = os.environ.get("ATTN_SCALE", "smoke").strip().lower() or "smoke"
    if value not in SCALES:
        raise ValueError(f"ATTN_SCALE must be one of {SCALES}, got {value!r}")
    return value


def pick(smoke, full):
    """Return ``smoke`` or ``full`` according to :func:`scale`."""
    return full if scale() == "full" else smoke
