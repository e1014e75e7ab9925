"""A content-keyed on-disk cache for expensive deterministic computations that a chapter and its
tests share.

Within one process :func:`attention_theory.config.cached_per_scale` already keeps a value; but a
chapter's kernel and the test files that re-run its checks (negative controls) are different
processes, so without this cache ``make test`` computes, say, the adversarial identical-heads
search of Deora et al.'s Corollary 1 once in the chapter and again in its negative controls.

:func:`cached_on_disk` stores a function's value under a key that covers everything the value
depends on: the function's name, its arguments (plain JSON data only: a call with any other
argument is computed, not cached), the scale, torch's default dtype and thread count (reductions
over another number of threads round differently), the versions of torch and NumPy, and the
SHA-256 of the package's source (:func:`provenance.source_tree_hash`), so any code change makes
a new key.  Values are written with :func:`results.save_checkpoint` (checksummed, atomic) and
read with :func:`results.load_checkpoint`, which builds tensors, plain data, NumPy arrays and the
dataclasses a decorated function declares, nothing else: a file planted in the cache cannot run
code.  Processes that ask for the same key at once wait for the first one (an advisory file lock)
instead of computing it twice.

Where: ``$ATTN_COMPUTE_CACHE`` (a folder; ``0``/``off`` disables the cache), else
``_build/compute-cache`` of the source checkout the package is imported from; an installed
package outside a checkout caches nothing unless the variable names a folder.  ``make clean``
removes it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, TypeVar

__all__ = ["cache_folder", "cache_key", "cached_on_disk"]

F = TypeVar("F", bound=Callable[..., Any])

#: Values of ``$ATTN_COMPUTE_CACHE`` that turn the cache off.
OFF = frozenset({"0", "off", "false", "no"})


def cache_folder(environ: Mapping[str, str] | None = None) -> Path | None:
    """The cache's folder, or ``None`` when the cache is off (see the module's docstring)."""
    environ = os.environ if environ is None else environ
    if not isinstance(environ, Mapping):
        raise TypeError(f"environ must be a mapping (like os.environ), got {type(environ).__name__}")
    text = str(environ.get("ATTN_COMPUTE_CACHE", "")).strip()
    if text.lower() in OFF:
        return None
    if text:
        return Path(text)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "src" / "attention_theory").is_dir():
        return root / "_build" / "compute-cache"
    return None


def _plain(x: Any) -> bool:
    # exact types: a NumPy scalar or a subclass may compute differently from the plain value
    if x is None or type(x) in (bool, int, str):
        return True
    if type(x) is float:
        return x == x and abs(x) != float("inf")
    if type(x) in (list, tuple):
        return all(_plain(v) for v in x)
    if type(x) is dict:
        return all(isinstance(k, str) and _plain(v) for k, v in x.items())
    return False


def cache_key(name: str, args: tuple, kwargs: dict[str, Any]) -> str | None:
    """The key of a call (64 hex digits), or ``None`` when an argument is not plain JSON data
    (such a call is not cached)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"args must be a tuple, got {type(args).__name__}")
    if not isinstance(kwargs, Mapping):
        raise TypeError(f"kwargs must be a mapping, got {type(kwargs).__name__}")
    kwargs = dict(kwargs)
    if not (_plain(list(args)) and _plain(kwargs)):
        return None
    import numpy as np
    import torch

    from attention_theory.config import scale
    from attention_theory.provenance import source_tree_hash

    # tuples and lists are told apart: a function may treat them differently
    def tagged(x: Any) -> Any:
        if isinstance(x, tuple):
            return {"tuple": [tagged(v) for v in x]}
        if isinstance(x, list):
            return [tagged(v) for v in x]
        if isinstance(x, dict):
            return {k: tagged(v) for k, v in sorted(x.items())}
        return x

    material = {"function": name, "args": tagged(args), "kwargs": tagged(kwargs), "scale": scale(),
                "dtype": str(torch.get_default_dtype()), "threads": torch.get_num_threads(),
                "torch": torch.__version__, "numpy": np.__version__, "source": source_tree_hash()}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path`` (released when the process dies, too)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX: no lock, at worst a value computed twice
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def cached_on_disk(allowed: tuple[type, ...] = ()) -> Callable[[F], F]:
    """Decorate a deterministic function whose value is tensors, plain data, NumPy arrays or
    instances of the dataclasses ``allowed`` (nested in dicts, lists and tuples): its value is kept
    on disk (see the module's docstring).  ``fn.disk_cache_info()`` gives the hits and misses of
    this process."""
    for cls in allowed:
        if not isinstance(cls, type):
            raise TypeError(f"allowed must hold classes, got {cls!r}")

    def deco(fn: F) -> F:
        name = f"{fn.__module__}.{fn.__qualname__}"
        stats = {"hits": 0, "misses": 0, "uncached": 0}

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            from attention_theory.results import CheckpointError, load_checkpoint, save_checkpoint

            folder = cache_folder()
            key = None if folder is None else cache_key(name, args, kwargs)
            if key is None:
                stats["uncached"] += 1
                return fn(*args, **kwargs)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{fn.__name__}-{key[:32]}.pt"
            config = {"function": name, "key": key}
            with _locked(folder / f".lock-{key[:32]}"):
                try:
                    state = load_checkpoint(path, config=config, allowed=allowed)
                except CheckpointError as exc:  # damaged or foreign: computed again, and replaced
                    print(f"compute cache: {exc}; computing it again", file=sys.stderr)
                    state = None
                if state is not None:
                    stats["hits"] += 1
                    return state["value"]
                value = fn(*args, **kwargs)
                save_checkpoint(path, {"value": value}, config=config)
                try:  # a value that could not be read back is a mistake in the declaration
                    load_checkpoint(path, config=config, allowed=allowed)
                except CheckpointError as exc:
                    path.unlink(missing_ok=True)
                    raise TypeError(f"{name}: its value cannot be kept on disk ({exc}); declare its "
                                    "classes in cached_on_disk(allowed=...)") from None
                stats["misses"] += 1
                return value

        wrapper.disk_cache_info = lambda: dict(stats)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco
