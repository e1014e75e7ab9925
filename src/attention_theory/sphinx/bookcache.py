"""Sphinx extension: cached book builds that keep every chapter's check records.

``make book`` executes the chapters through jupyter-cache (myst-nb ``nb_execution_mode:
cache``): a chapter whose code cells are unchanged is not executed again, its outputs come from
the cache.  Two things myst-nb does not do by itself are done here.

* **The package is part of the cache key.**  myst-nb matches a notebook on its code cells only,
  so a change to :mod:`attention_theory` (or to the committed ``results/`` a chapter loads, or to
  the pinned dependencies, or to an ``ATTN_*`` setting such as ``ATTN_SCALE``) would serve stale
  outputs.  At ``config-inited`` the cache folder is set to
  ``_build/.jupyter_cache/<key>/jupyter`` where ``<key>`` is :func:`source_key`, a hash of those
  inputs: any change starts a new, empty cache (the three most recent keys are kept).

* **Records of cached chapters survive.**  The registry extension empties
  ``_build/registry`` at ``builder-inited`` and the kernels write records while a chapter
  executes; a chapter served from the cache writes none.  So, per chapter, the registry is
  snapshotted at ``source-read`` and again at ``doctree-read`` (execution happens in between,
  inside the myst-nb parser); the records the chapter wrote are saved to
  ``_build/.jupyter_cache/<key>/records/<chapter>/`` (:func:`save_records`).  When the chapter
  comes from the cache instead, its saved records are copied back into the registry
  (:func:`restore_records`), unchanged: they keep the commit and date of the execution that
  computed them.  A record some chapter executed in this build is never overwritten by a
  restored one.

* **Stale chapters run in parallel.**  At ``builder-inited`` the chapters without a cache
  entry are executed on Dask workers and cached (:mod:`attention_theory.sphinx.prerun`); when
  Sphinx reads them myst-nb finds them in the cache.  Their records are staged per chapter,
  saved to the store and put in the registry in table-of-contents order.

``ATTN_BOOK_CACHE=0`` (``make book-fresh``) empties the cache of the current key first, so every
chapter is executed (and the record store is refreshed).  ``make test`` does not build the book
(it runs nbval), so it always executes everything.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

__all__ = ["source_key", "snapshot", "changed", "save_records", "restore_records",
           "has_records", "executed_now", "cache_enabled", "prune_keys", "setup"]

#: Inputs of the cache key, relative to the repository root: the package, the committed
#: results chapters load, and the pinned dependencies.  The Sphinx extension itself is left out
#: (chapters never import it: a change to how pages are drawn re-executes nothing), and so are
#: the records of the full-scale search campaign, which only the extension reads (new campaign
#: records re-draw the registry pages, they change no chapter).
KEY_INPUTS = ("src/attention_theory", "results", "pyproject.toml")
KEY_EXCLUDED = ("src/attention_theory/sphinx", "results/registry-full")
#: Environment variables that do not change what a chapter computes.
KEY_ENV_IGNORED = frozenset({"ATTN_REGISTRY_DIR", "ATTN_BOOK_CACHE", "ATTN_BOOK_WORKERS",
                             "ATTN_COMPUTE_CACHE"})
SKIPPED_PARTS = frozenset({"__pycache__", ".ipynb_checkpoints", ".pytest_cache"})
#: Files that never change what a chapter computes: bytecode, and the checkpoints a running
#: sweep writes into ``results/`` (git ignores them; a chapter reads only result files).
SKIPPED_SUFFIXES = (".pyc", ".pyo", ".pt")
KEEP_KEYS = 3
META = "meta.json"


# --- pure functions (tested in tests/core/test_book_cache.py) ------------------------------------

def _files(root: Path, inputs: Iterable[str]) -> list[Path]:
    out = []
    for rel in inputs:
        p = root / rel
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out.extend(f for f in p.rglob("*") if f.is_file()
                       and not SKIPPED_PARTS.intersection(f.relative_to(root).parts)
                       and not f.name.endswith(SKIPPED_SUFFIXES)
                       and not f.name.startswith(".tmp-")
                       and not any(f.relative_to(root).as_posix().startswith(x + "/") for x in KEY_EXCLUDED))
    return sorted(out)


def source_key(root: str | os.PathLike, inputs: Iterable[str] = KEY_INPUTS,
               environ: Mapping[str, str] | None = None) -> str:
    """Hash of every file under ``inputs`` (paths and contents) and of the ``ATTN_*``
    environment variables that change what a chapter computes (e.g. ``ATTN_SCALE``, which
    defaults to ``smoke`` when unset).  16 hex digits."""
    root = Path(root)
    environ = os.environ if environ is None else environ
    h = hashlib.sha256()
    for f in _files(root, inputs):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    env = {k: v for k, v in environ.items() if k.startswith("ATTN_") and k not in KEY_ENV_IGNORED}
    env.setdefault("ATTN_SCALE", "smoke")
    h.update(json.dumps(sorted(env.items())).encode())
    return h.hexdigest()[:16]


def snapshot(folder: str | os.PathLike) -> dict[str, tuple[int, int, int]]:
    """``{file name: (inode, mtime_ns, size)}`` of the records in ``folder``.  A record is
    written by an atomic replace, so every write changes the signature."""
    path = Path(folder)
    if not path.is_dir():
        return {}
    out = {}
    for f in path.glob("*.json"):
        if f.name.startswith(".tmp-"):
            continue
        try:
            st = f.stat()
        except FileNotFoundError:
            continue
        out[f.name] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return out


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Record files new or rewritten between two snapshots, sorted."""
    return sorted(name for name, sig in after.items() if before.get(name) != sig)


def _doc_dir(store: Path, docname: str) -> Path:
    return store / docname.replace("/", "__")


def save_records(registry: str | os.PathLike, store: str | os.PathLike, docname: str,
                 names: Iterable[str], **meta: Any) -> Path:
    """Replace the stored records of ``docname`` by the files ``names`` of ``registry`` (possibly
    none: a chapter that records nothing), with a ``meta.json`` naming them."""
    registry, store = Path(registry), Path(store)
    names = sorted(set(names))
    target = _doc_dir(store, docname)
    tmp = target.with_name(target.name + f".tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for n in names:
        shutil.copy2(registry / n, tmp / n)
    (tmp / META).write_text(json.dumps({"docname": docname, "records": names, "saved": time.time(),
                                        **meta}, indent=1, sort_keys=True))
    old = target.with_name(target.name + f".old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    tmp.rename(target)
    if old.exists():
        shutil.rmtree(old)
    return target


def has_records(store: str | os.PathLike, docname: str) -> bool:
    """Whether records of ``docname`` were saved (possibly an empty set)."""
    return (_doc_dir(Path(store), docname) / META).is_file()


def restore_records(registry: str | os.PathLike, store: str | os.PathLike, docname: str,
                    skip: Iterable[str] = ()) -> list[str]:
    """Copy the stored records of ``docname`` into ``registry``, except the names in ``skip``
    (records written by a chapter executed in this build).  Returns the names copied."""
    registry, src = Path(registry), _doc_dir(Path(store), docname)
    if not (src / META).is_file():
        return []
    names = json.loads((src / META).read_text())["records"]
    skip = set(skip)
    registry.mkdir(parents=True, exist_ok=True)
    copied = []
    for n in names:
        if n in skip or not (src / n).is_file():
            continue
        shutil.copy2(src / n, registry / n)
        copied.append(n)
    return copied


def executed_now(exec_data: Mapping[str, Any] | None, started: float, now: float) -> bool | None:
    """From myst-nb's execution data of a chapter: ``True`` if it was executed in this read
    (started at ``started``), ``False`` if its outputs came from the cache, ``None`` if it is not
    an executed notebook.  myst-nb gives an executed notebook the time of execution and a cached
    one the time its cache entry was created (before this build)."""
    if not exec_data:
        return None
    if exec_data.get("method") != "cache":
        return True
    mtime = exec_data.get("mtime")
    # no slack before ``started``: an entry made a moment earlier (by the parallel pre-run, or
    # by a build that ended just before this one) is a cache hit
    return mtime is not None and started <= float(mtime) <= now + 1.0


def cache_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """``ATTN_BOOK_CACHE=0`` (or ``false``/``no``/``off``) forces a full execution."""
    environ = os.environ if environ is None else environ
    return environ.get("ATTN_BOOK_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def prune_keys(root: str | os.PathLike, keep: str, n: int = KEEP_KEYS) -> list[str]:
    """Remove all but the ``n`` most recently used key folders of ``root`` (never ``keep``)."""
    root = Path(root)
    if not root.is_dir():
        return []
    dirs = sorted((d for d in root.iterdir() if d.is_dir() and d.name != keep),
                  key=lambda d: d.stat().st_mtime, reverse=True)
    removed = []
    for d in dirs[max(n - 1, 0):]:
        shutil.rmtree(d, ignore_errors=True)
        removed.append(d.name)
    return removed


# --- Sphinx hooks ---------------------------------------------------------------------------------

@dataclasses.dataclass
class _State:
    enabled: bool
    key: str
    store: Path
    registry: Path
    before: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    started: dict[str, float] = dataclasses.field(default_factory=dict)
    written: set[str] = dataclasses.field(default_factory=set)
    executed: list[str] = dataclasses.field(default_factory=list)
    restored: list[str] = dataclasses.field(default_factory=list)
    #: chapters executed before the read by :mod:`attention_theory.sphinx.prerun` (an extension of
    #: its own, listed after this one)
    prerun: set[str] = dataclasses.field(default_factory=set)


def _build_dir(app: Sphinx) -> Path:
    return Path(app.outdir).parent


def _repo_root(app: Sphinx) -> Path:
    return Path(app.srcdir)


def _config_inited(app: Sphinx, config: Any) -> None:
    key = source_key(_repo_root(app))
    root = _build_dir(app) / ".jupyter_cache"
    folder = root / key
    (folder / "jupyter").mkdir(parents=True, exist_ok=True)
    os.utime(folder)
    prune_keys(root, keep=key)
    enabled = cache_enabled()
    if not enabled:
        # an empty cache for this key: every chapter is executed (in parallel, by prerun) and
        # the record store is refreshed
        for sub in ("jupyter", "records"):
            shutil.rmtree(folder / sub, ignore_errors=True)
        (folder / "jupyter").mkdir(parents=True, exist_ok=True)
        logger.info("[bookcache] ATTN_BOOK_CACHE=0: cache emptied, executing every chapter")
    config.nb_execution_mode = "cache"
    config.nb_execution_cache_path = str(folder / "jupyter")
    logger.info(f"[bookcache] jupyter-cache at {folder / 'jupyter'} (source key {key})")
    app._attn_bookcache = _State(enabled=enabled, key=key, store=folder / "records",
                                 registry=_build_dir(app) / "registry")


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    st: _State = app._attn_bookcache
    st.before[docname] = snapshot(st.registry)
    st.started[docname] = time.time()


def _doctree_read(app: Sphinx, doctree: Any) -> None:
    st: _State = app._attn_bookcache
    docname = app.env.docname
    if docname not in st.before:
        return
    before = st.before.pop(docname)
    started = st.started.pop(docname)
    exec_data = (getattr(app.env, "nb_metadata", {}) or {}).get(docname, {}).get("exec_data")
    executed = executed_now(exec_data, started, time.time())
    if executed is None:
        return
    if docname in st.prerun:  # executed before the read; its records are in the registry
        st.executed.append(docname)
        return
    if executed:
        names = changed(before, snapshot(st.registry))
        save_records(st.registry, st.store, docname, names, key=st.key,
                     seconds=float(exec_data.get("runtime") or 0.0))
        st.written.update(names)
        st.executed.append(docname)
        return
    if not has_records(st.store, docname):
        # Outputs cached without records (e.g. an interrupted build): drop the cache entry so
        # the next build executes the chapter; this build cannot show its records.
        _forget_cached(app, docname)
        logger.warning(f"[bookcache] {docname} came from the cache but its check records were "
                       "not saved; its cache entry is removed, build again (or make book-fresh)",
                       location=docname)
        return
    copied = restore_records(st.registry, st.store, docname, skip=st.written)
    st.restored.append(docname)
    logger.info(f"[bookcache] {docname}: cached, {len(copied)} record(s) restored")


def _forget_cached(app: Sphinx, docname: str) -> None:
    try:
        from jupyter_cache import get_cache

        cache = get_cache(app.config.nb_execution_cache_path)
        path = Path(app.env.doc2path(docname)).resolve()
        for rec in cache.list_project_records():
            if Path(rec.uri).resolve() == path:
                cached = cache.get_cached_project_nb(rec.pk)
                if cached is not None:
                    cache.remove_cache(cached.pk)
    except Exception as exc:  # best effort: the warning already fails a -W build
        logger.info(f"[bookcache] could not remove the cache entry of {docname}: {exc}")


def _env_updated(app: Sphinx, env: Any) -> None:
    st: _State = app._attn_bookcache
    logger.info(f"[bookcache] {len(st.executed)} chapter(s) executed, "
                f"{len(st.restored)} served from the cache with their records")


def setup(app: Sphinx) -> dict[str, Any]:
    # after jupyter-book's own config handling, before myst-nb reads it (builder-inited)
    app.connect("config-inited", _config_inited, priority=900)
    app.connect("source-read", _source_read, priority=100)
    app.connect("doctree-read", _doctree_read, priority=100)
    app.connect("env-updated", _env_updated)
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}
