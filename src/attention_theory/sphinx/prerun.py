"""Sphinx extension part: execute the stale chapters in parallel before Sphinx reads them.

myst-nb executes a chapter while Sphinx reads it, one chapter after another, so a cold
``make book`` used one core for its executions (about 456 CPU-seconds of chapters).  Here,
at ``builder-inited`` (after myst-nb has made its configuration and before any chapter is read),
every chapter of the table of contents is read as myst-nb reads it, matched against the
jupyter-cache of :mod:`attention_theory.sphinx.bookcache`, and the chapters without a cache entry
are executed on a local Dask cluster (one worker process per core, one thread each, as
:func:`attention_theory.cluster.open_client` makes it).  Each executed notebook enters the cache
exactly as myst-nb would put it there, so when Sphinx then reads the chapter myst-nb finds it
cached; nothing else in the build changes.

Check records: a kernel writes its records into ``$ATTN_REGISTRY_DIR``.  Each chapter executed
here gets a staging folder of its own (``_build/.jupyter_cache/<key>/staging/<chapter>``), so
that the records of chapters running at the same time stay apart; they are saved to the record
store (:func:`bookcache.save_records`) and copied into the build's registry in the order of the
table of contents, as a serial build would have left them.

A chapter that fails here is not cached: Sphinx then executes it itself, as before, and reports
its error where it always did.  ``ATTN_BOOK_WORKERS=N`` sets the number of workers (default: the
cores this process may use); ``ATTN_BOOK_WORKERS=1`` leaves every execution to myst-nb.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

__all__ = ["book_workers", "chapter_sources", "read_chapter", "stale_chapters", "execute_chapter",
           "prerun", "setup"]

#: Source suffixes a chapter of the table of contents may have, in the order tried.
SUFFIXES = (".md", ".ipynb")


def book_workers(environ: dict[str, str] | None = None) -> int:
    """Workers for the chapters: ``$ATTN_BOOK_WORKERS`` (an integer >= 1, or ``auto``), else the
    cores this process may use; read as ``--workers`` is (:func:`attention_theory.cluster.worker_count`)."""
    import argparse

    from attention_theory.cluster import worker_count

    environ = os.environ if environ is None else environ
    text = environ.get("ATTN_BOOK_WORKERS", "").strip() or "auto"
    try:
        return worker_count(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"ATTN_BOOK_WORKERS: {exc}") from None


def chapter_sources(app: Sphinx) -> list[tuple[str, Path]]:
    """``(docname, source file)`` of every page of the table of contents, in its order."""
    site_map = getattr(app.config, "external_site_map", None)
    if site_map is None:
        return []
    out = []
    for docname in site_map:
        for suffix in SUFFIXES:
            path = Path(app.srcdir) / (docname + suffix)
            if path.is_file():
                out.append((docname, path))
                break
    return out


def read_chapter(app: Sphinx, path: Path) -> tuple[Any, dict[str, Any]] | None:
    """The notebook myst-nb makes of ``path`` (same reader, same configuration, so the same
    cache key) and its execution settings; ``None`` for a page that is not a notebook."""
    from myst_nb.core.read import create_nb_reader

    text = path.read_text(encoding="utf-8")
    nb_config = app.env.mystnb_config
    reader = create_nb_reader(str(path), app.env.myst_config, nb_config, text)
    if reader is None:
        return None
    notebook = reader.read(text)
    overrides = dict(notebook.metadata.get(nb_config.metadata_key, {}) or {})
    overrides.pop("output_folder", None)
    if overrides:  # a chapter's own execution settings, as myst-nb applies them
        nb_config = nb_config.copy(**overrides)
    if nb_config.execution_mode not in ("cache", "force", "auto") or \
            not any(c.cell_type == "code" for c in notebook.cells):
        return None
    settings = {"timeout": nb_config.execution_timeout,
                "allow_errors": nb_config.execution_allow_errors,
                "in_temp": nb_config.execution_in_temp}
    return notebook, settings


def stale_chapters(app: Sphinx, cache: Any) -> list[tuple[str, Path, Any, dict[str, Any]]]:
    """The chapters whose notebook has no entry in ``cache`` (a jupyter-cache)."""
    out = []
    for docname, path in chapter_sources(app):
        read = read_chapter(app, path)
        if read is None:
            continue
        notebook, settings = read
        try:
            cache.match_cache_notebook(notebook)
        except KeyError:
            out.append((docname, path, notebook, settings))
    return out


def execute_chapter(notebook_json: str, path: str, registry: str, timeout: int | None,
                    allow_errors: bool, in_temp: bool) -> dict[str, Any]:
    """Execute one notebook (runs on a worker).  The kernel starts with ``ATTN_REGISTRY_DIR``
    set to ``registry`` and runs in the chapter's folder (or a temporary one).  Returns the
    executed notebook (JSON), its wall time, and the error text if a cell failed."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = nbformat.reads(notebook_json, as_version=4)
    Path(registry).mkdir(parents=True, exist_ok=True)
    before = os.environ.get("ATTN_REGISTRY_DIR")
    os.environ["ATTN_REGISTRY_DIR"] = registry  # the kernel inherits this process's environment
    try:
        folder = tempfile.TemporaryDirectory() if in_temp else contextlib.nullcontext(str(Path(path).parent))
        with folder as cwd:
            result = single_nb_execution(notebook, cwd=os.path.abspath(cwd), timeout=timeout,
                                         allow_errors=allow_errors, meta_override=True)
    finally:
        if before is None:
            os.environ.pop("ATTN_REGISTRY_DIR", None)
        else:
            os.environ["ATTN_REGISTRY_DIR"] = before
    return {"notebook": nbformat.writes(result.nb), "seconds": result.time,
            "error": result.exc_string if result.err is not None else None}


def _staging(folder: Path, docname: str) -> Path:
    return folder / "staging" / docname.replace("/", "__")


def _execute_all(st: Any, folder: Path, stale: list[tuple[str, Path, Any, dict[str, Any]]],
                 workers: int) -> dict[str, dict[str, Any]]:
    """Execute ``stale`` on ``workers`` Dask workers: per docname, :func:`execute_chapter`'s
    result, or ``{"error": ...}`` when its worker was lost."""
    import nbformat
    from distributed import as_completed

    from attention_theory.cluster import ClusterSpec, open_client

    results: dict[str, dict[str, Any]] = {}
    with open_client(ClusterSpec(workers=workers),
                     echo=lambda line: logger.info(f"[prerun] {line}")) as client:
        futures = {}
        # the chapters that took longest last time first, so that no long one starts last
        order = sorted(stale, key=lambda s: -_last_seconds(st.store, s[0]))
        for rank, (docname, path, notebook, settings) in enumerate(order):
            fut = client.submit(execute_chapter, nbformat.writes(notebook), str(path),
                                str(_staging(folder, docname)), settings["timeout"],
                                settings["allow_errors"], settings["in_temp"],
                                key=f"chapter-{docname.replace('/', '__')}", priority=-rank, pure=False)
            futures[fut] = docname
        for done, fut in enumerate(as_completed(futures), 1):
            docname = futures[fut]
            try:
                results[docname] = fut.result()
            except Exception as exc:  # a worker lost: myst-nb executes the chapter itself
                results[docname] = {"error": f"{type(exc).__name__}: {exc}"}
            r = results[docname]
            state = "failed (Sphinx executes it again and reports)" if r.get("error") else \
                f"executed in {r['seconds']:.1f} s"
            logger.info(f"[prerun] {done}/{len(stale)} {docname}: {state}")
    return results


def _cache_results(cache: Any, st: Any, folder: Path, stale: list[tuple[str, Path, Any, dict[str, Any]]],
                   results: dict[str, dict[str, Any]]) -> list[str]:
    """Put each chapter executed without error into the jupyter-cache, save its staged records
    to the record store and copy them into the registry, in table-of-contents order; returns
    the docnames cached."""
    import nbformat
    from jupyter_cache.base import CacheBundleIn

    from attention_theory.sphinx import bookcache

    executed = []
    for docname, path, notebook, settings in stale:  # table-of-contents order
        r = results.get(docname, {})
        if r.get("error") or "notebook" not in r:
            continue
        cache.cache_notebook_bundle(
            CacheBundleIn(nbformat.reads(r["notebook"], as_version=4), str(path),
                          data={"execution_seconds": r["seconds"]}),
            check_validity=False, overwrite=True)
        staged = _staging(folder, docname)
        names = sorted(f.name for f in staged.glob("*.json")) if staged.is_dir() else []
        bookcache.save_records(staged, st.store, docname, names, key=st.key, seconds=r["seconds"])
        st.registry.mkdir(parents=True, exist_ok=True)
        for n in names:
            shutil.copy2(staged / n, st.registry / n)
        st.written.update(names)
        executed.append(docname)
    return executed


def prerun(app: Sphinx) -> list[str]:
    """Execute the stale chapters on ``book_workers()`` Dask workers and cache them; returns the
    docnames executed (successfully).  Runs nothing with one worker or one stale chapter."""
    from jupyter_cache import get_cache

    st = app._attn_bookcache
    workers = book_workers()
    cache = get_cache(app.env.mystnb_config.execution_cache_path)
    stale = stale_chapters(app, cache)
    if workers < 2 or len(stale) < 2:
        logger.info(f"[prerun] {len(stale)} chapter(s) to execute; left to myst-nb "
                    f"({workers} worker(s))")
        return []
    folder = st.store.parent
    shutil.rmtree(folder / "staging", ignore_errors=True)
    workers = min(workers, len(stale))
    logger.info(f"[prerun] executing {len(stale)} chapter(s) on {workers} Dask workers")
    started = time.perf_counter()
    results = _execute_all(st, folder, stale, workers)
    executed = _cache_results(cache, st, folder, stale, results)
    shutil.rmtree(folder / "staging", ignore_errors=True)
    cpu = sum(results[d].get("seconds", 0.0) for d in executed)
    logger.info(f"[prerun] {len(executed)} chapter(s) cached in {time.perf_counter() - started:.0f} s "
                f"of wall time ({cpu:.0f} s of chapter execution)")
    return executed


def _last_seconds(store: Path, docname: str) -> float:
    """The execution time recorded for ``docname`` by an earlier build under any cache key
    (0 if none): ordering only."""
    best = 0.0
    for meta in store.parent.parent.glob(f"*/records/{docname.replace('/', '__')}/meta.json"):
        with contextlib.suppress(OSError, ValueError):
            best = max(best, float(json.loads(meta.read_text()).get("seconds", 0.0)))
    return best


def _builder_inited(app: Sphinx) -> None:
    if not hasattr(app, "_attn_bookcache"):
        raise RuntimeError("attention_theory.sphinx.prerun needs attention_theory.sphinx.bookcache "
                           "(list it first in the extensions)")
    app._attn_bookcache.prerun.update(prerun(app))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("attention_theory.sphinx.bookcache")
    # after the registry is emptied and myst-nb's configuration is made (both at priority 500)
    app.connect("builder-inited", _builder_inited, priority=900)
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}
