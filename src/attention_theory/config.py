"""Run-time configuration: the scale of a run, ``smoke`` or ``full``.

The scale is read from ``ATTN_SCALE`` (``smoke`` when unset) unless a caller opts into
another one with :func:`use_scale` for a block of code; no module writes the environment.
Functions whose result depends on the scale and that cache it use :func:`cached_per_scale`,
so a cached value is never reused at the other scale (or under another default dtype).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
from typing import Any, Callable, Iterator, TypeVar

SCALES = ("smoke", "full")

__all__ = ["SCALES", "scale", "pick", "use_scale", "cached_per_scale"]

F = TypeVar("F", bound=Callable[..., Any])

_SCALE: contextvars.ContextVar[str | None] = contextvars.ContextVar("attn_scale", default=None)


def _checked(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {SCALES}, got {type(value).__name__}")
    value = value.strip().lower()
    if value not in SCALES:
        raise ValueError(f"{name} must be one of {SCALES}, got {value!r}")
    return value


def scale() -> str:
    """The scale of this run: the innermost :func:`use_scale`, else ``$ATTN_SCALE``, else ``smoke``."""
    chosen = _SCALE.get()
    if chosen is not None:
        return chosen
    return _checked(os.environ.get("ATTN_SCALE", "smoke").strip() or "smoke", "ATTN_SCALE")


@contextlib.contextmanager
def use_scale(value: str) -> Iterator[str]:
    """Run the block at scale ``value`` (``smoke`` or ``full``) without touching the environment."""
    token = _SCALE.set(_checked(value, "value (the scale)"))
    try:
        yield _SCALE.get()
    finally:
        _SCALE.reset(token)


def pick(smoke: Any, full: Any) -> Any:
    """Return ``smoke`` or ``full`` according to :func:`scale`."""
    return full if scale() == "full" else smoke


def _default_dtype_key() -> str | None:
    """torch's default dtype when torch is loaded (``None`` otherwise): part of every cache key."""
    torch = sys.modules.get("torch")
    return None if torch is None else str(torch.get_default_dtype())


def cached_per_scale(maxsize: int = 8) -> Callable[[F], F]:
    """Like ``functools.lru_cache(maxsize)``, with the current :func:`scale` and torch's default
    dtype as part of the key, so a value computed at one scale or precision is never reused at
    another."""

    if maxsize is not None and (isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 0):
        raise TypeError(f"maxsize must be an integer >= 0 or None, got {maxsize!r}")

    def deco(fn: F) -> F:
        @functools.lru_cache(maxsize=maxsize)
        def cached(_scale: str, _dtype: str | None, *args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return cached(scale(), _default_dtype_key(), *args, **kwargs)

        wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco
