"""The book's stale chapters run in parallel before Sphinx reads them
(attention_theory.sphinx.prerun), on a three-chapter book built with Sphinx in a temporary
folder: the chapters' executions overlap in time, each runs once (myst-nb serves the cached
notebook), every chapter's record reaches the registry and the record store, a second build
executes nothing, and a failing chapter still fails the build with its own error."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from attention_theory.sphinx.prerun import book_workers

CHAPTER = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---
# Chapter {name}

```{{code-cell}} python3
import json, os, time
from pathlib import Path
t0 = time.time()
time.sleep({sleep})
log = Path({log!r})
with log.open("a") as f:
    f.write(json.dumps({{"chapter": "{name}", "start": t0, "end": time.time()}}) + "\\n")
reg = Path(os.environ["ATTN_REGISTRY_DIR"])
reg.mkdir(parents=True, exist_ok=True)
(reg / "{name}__check.json").write_text(json.dumps({{"claim_id": "{name}"}}))
{extra}
print("done {name}")
```
"""


def _project(root: Path, log: Path, fail: str | None = None) -> None:
    (root / "conf.py").write_text(textwrap.dedent("""\
        extensions = ["myst_nb", "sphinx_external_toc", "attention_theory.sphinx.bookcache",
                      "attention_theory.sphinx.prerun"]
        external_toc_path = "_toc.yml"
        nb_execution_mode = "cache"
        nb_execution_raise_on_error = True
        exclude_patterns = ["_build"]
        """))
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n"
                                   "  - file: a\n  - file: b\n")
    for name, sleep in (("intro", 3), ("a", 3), ("b", 1)):
        extra = "raise RuntimeError('planted failure')" if name == fail else ""
        (root / f"{name}.md").write_text(CHAPTER.format(name=name, sleep=sleep, log=str(log),
                                                        extra=extra))


def _build(root: Path, monkeypatch, workers: str) -> int:
    from sphinx.cmd.build import build_main

    monkeypatch.setenv("ATTN_BOOK_WORKERS", workers)
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(root / "_build" / "registry"))
    return build_main([str(root), str(root / "_build" / "html"), "-q", "-E", "-b", "html"])


def _runs(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_book_workers_reads_the_setting():
    assert book_workers({"ATTN_BOOK_WORKERS": "3"}) == 3
    assert book_workers({}) >= 1
    for bad in ("0", "two", "-1", "1e9"):
        with pytest.raises(ValueError, match="ATTN_BOOK_WORKERS"):
            book_workers({"ATTN_BOOK_WORKERS": bad})


def test_stale_chapters_run_in_parallel_once_and_keep_their_records(tmp_path, monkeypatch):
    log = tmp_path / "runs.jsonl"
    root = tmp_path / "book"
    root.mkdir()
    _project(root, log)
    assert _build(root, monkeypatch, "2") == 0
    runs = _runs(log)
    assert sorted(r["chapter"] for r in runs) == ["a", "b", "intro"]  # each executed once
    by = {r["chapter"]: r for r in runs}
    # intro and a (3 s each) ran at the same time on two workers
    assert by["intro"]["start"] < by["a"]["end"] and by["a"]["start"] < by["intro"]["end"]
    registry = root / "_build" / "registry"
    assert sorted(p.name for p in registry.glob("*.json")) == [
        "a__check.json", "b__check.json", "intro__check.json"]
    stores = list((root / "_build" / ".jupyter_cache").glob("*/records"))
    assert len(stores) == 1
    for name in ("intro", "a", "b"):
        meta = json.loads((stores[0] / name / "meta.json").read_text())
        assert meta["records"] == [f"{name}__check.json"] and meta["seconds"] > 0.5
        html = (root / "_build" / "html" / f"{name}.html").read_text()
        assert f"done {name}" in html  # the executed outputs are on the page
    assert not (root / "_build" / ".jupyter_cache" / next(iter(stores)).parent.name / "staging").exists()

    # a second build executes nothing and restores every record
    for p in registry.glob("*.json"):
        p.unlink()
    assert _build(root, monkeypatch, "2") == 0
    assert len(_runs(log)) == 3
    assert sorted(p.name for p in registry.glob("*.json")) == [
        "a__check.json", "b__check.json", "intro__check.json"]


def test_a_failing_chapter_still_fails_the_build(tmp_path, monkeypatch):
    log = tmp_path / "runs.jsonl"
    root = tmp_path / "book"
    root.mkdir()
    _project(root, log, fail="b")
    assert _build(root, monkeypatch, "2") != 0
    # b failed on a worker, then once more when Sphinx executed it itself to report the error
    assert sorted(r["chapter"] for r in _runs(log)) == ["a", "b", "b", "intro"]
    # the chapters that succeeded are cached: once b is mended, only b runs again
    _project(root, log)
    assert _build(root, monkeypatch, "2") == 0
    assert sorted(r["chapter"] for r in _runs(log)) == ["a", "b", "b", "b", "intro"]
