"""The cached book build (attention_theory.sphinx.bookcache), the page footer
(attention_theory.sphinx.citation) and the PDF adjustments (attention_theory.sphinx.pdf),
tested as pure functions: no book build."""

from __future__ import annotations

import json
import os
import time

from attention_theory.sphinx import bookcache as bc
from attention_theory.sphinx import citation, pdf


def _tree(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _record(folder, name, **fields):
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".tmp-{name}"
    tmp.write_text(json.dumps({"claim_id": name, **fields}))
    os.replace(tmp, folder / name)  # as verify.registry.write_record does


BASE = {"src/attention_theory/a.py": "x = 1\n", "src/attention_theory/sub/b.py": "y = 2\n",
        "results/r/part.json": "{}", "pyproject.toml": "[project]\n", "book/ch.md": "# text\n"}


def test_source_key_changes_with_the_package_source(tmp_path):
    _tree(tmp_path, BASE)
    env = {"ATTN_SCALE": "smoke"}
    key = bc.source_key(tmp_path, environ=env)
    assert key == bc.source_key(tmp_path, environ=env)  # deterministic
    (tmp_path / "src/attention_theory/sub/b.py").write_text("y = 3\n")
    changed = bc.source_key(tmp_path, environ=env)
    assert changed != key
    (tmp_path / "src/attention_theory/sub/b.py").write_text("y = 2\n")
    assert bc.source_key(tmp_path, environ=env) == key  # content, not mtime
    (tmp_path / "src/attention_theory/new.py").write_text("")
    assert bc.source_key(tmp_path, environ=env) != key  # a new (even empty) file counts
    (tmp_path / "src/attention_theory/new.py").unlink()
    (tmp_path / "src/attention_theory/sub/b.py").rename(tmp_path / "src/attention_theory/b2.py")
    assert bc.source_key(tmp_path, environ=env) != key  # so does a rename


def test_source_key_covers_results_dependencies_and_settings(tmp_path):
    _tree(tmp_path, BASE)
    key = bc.source_key(tmp_path, environ={})
    assert key == bc.source_key(tmp_path, environ={"ATTN_SCALE": "smoke"})  # smoke is the default
    assert key != bc.source_key(tmp_path, environ={"ATTN_SCALE": "full"})
    # where the build writes and whether it caches do not change what a chapter computes
    assert key == bc.source_key(tmp_path, environ={"ATTN_REGISTRY_DIR": "/x", "ATTN_BOOK_CACHE": "0",
                                                   "HOME": "/elsewhere"})
    (tmp_path / "results/r/part.json").write_text('{"a": 1}')
    k2 = bc.source_key(tmp_path, environ={})
    assert k2 != key
    (tmp_path / "pyproject.toml").write_text("[project]\nversion = '2'\n")
    assert bc.source_key(tmp_path, environ={}) != k2


def test_source_key_ignores_chapter_text_and_bytecode(tmp_path):
    _tree(tmp_path, BASE)
    key = bc.source_key(tmp_path, environ={})
    (tmp_path / "book/ch.md").write_text("# other text\n")  # the notebook hash covers chapters
    _tree(tmp_path, {"src/attention_theory/__pycache__/a.cpython-311.pyc": "junk",
                     "src/attention_theory/sub/c.pyc": "junk"})
    assert bc.source_key(tmp_path, environ={}) == key


def test_changed_records_between_snapshots(tmp_path):
    reg = tmp_path / "registry"
    _record(reg, "a.json", v=1)
    _record(reg, "b.json", v=1)
    before = bc.snapshot(reg)
    _record(reg, "b.json", v=1)  # rewritten with the same content: still written by this chapter
    _record(reg, "c.json", v=2)
    (reg / ".tmp-partial.json").write_text("{")  # a write in progress is not a record
    assert bc.changed(before, bc.snapshot(reg)) == ["b.json", "c.json"]
    assert bc.changed({}, {}) == []
    assert bc.snapshot(tmp_path / "missing") == {}


def test_records_are_saved_and_restored_unchanged(tmp_path):
    reg, store = tmp_path / "registry", tmp_path / "store"
    _record(reg, "a.json", commit="1111", date="2026-01-01")
    _record(reg, "b.json", commit="1111", date="2026-01-01")
    _record(reg, "other.json")
    bc.save_records(reg, store, "book/trauger/model", ["a.json", "b.json"], key="k")
    assert bc.has_records(store, "book/trauger/model")
    assert not bc.has_records(store, "book/trauger/other")
    saved = {n: (reg / n).read_text() for n in ("a.json", "b.json")}

    # next build: the registry was emptied, the chapter came from the cache
    for f in reg.iterdir():
        f.unlink()
    assert bc.restore_records(reg, store, "book/trauger/model") == ["a.json", "b.json"]
    assert {n: (reg / n).read_text() for n in saved} == saved  # original commit and date kept
    assert not (reg / "other.json").exists()  # another chapter's records are not taken


def test_restore_never_overwrites_a_record_executed_in_this_build(tmp_path):
    reg, store = tmp_path / "registry", tmp_path / "store"
    _record(reg, "shared.json", date="old")
    _record(reg, "own.json", date="old")
    bc.save_records(reg, store, "book/a", ["shared.json", "own.json"])
    _record(reg, "shared.json", date="new")  # written by a chapter executed in this build
    assert bc.restore_records(reg, store, "book/a", skip={"shared.json"}) == ["own.json"]
    assert json.loads((reg / "shared.json").read_text())["date"] == "new"


def test_a_chapter_executed_again_replaces_its_stored_records(tmp_path):
    reg, store = tmp_path / "registry", tmp_path / "store"
    _record(reg, "gone.json")
    bc.save_records(reg, store, "book/a", ["gone.json"])
    _record(reg, "kept.json")
    bc.save_records(reg, store, "book/a", ["kept.json"])
    for f in reg.iterdir():
        f.unlink()
    assert bc.restore_records(reg, store, "book/a") == ["kept.json"]
    # a chapter that records nothing is stored as such (and restores nothing)
    bc.save_records(reg, store, "book/empty", [])
    assert bc.has_records(store, "book/empty")
    assert bc.restore_records(reg, store, "book/empty") == []
    assert not any(p.name.startswith("book__a.") for p in store.iterdir())  # no temporary folders


def test_executed_now_tells_a_cache_hit_from_an_execution():
    t0 = time.time()
    assert bc.executed_now(None, t0, t0 + 5) is None  # not a notebook
    assert bc.executed_now({"method": "force", "mtime": t0 - 1e6}, t0, t0 + 5) is True
    assert bc.executed_now({"method": "cache", "mtime": t0 + 3}, t0, t0 + 5) is True
    assert bc.executed_now({"method": "cache", "mtime": t0 - 86400}, t0, t0 + 5) is False
    assert bc.executed_now({"method": "cache", "mtime": t0 - 0.5}, t0, t0 + 5) is False
    # a cache entry whose naive UTC time reads as hours in the future is not "now" either
    assert bc.executed_now({"method": "cache", "mtime": t0 + 7200}, t0, t0 + 5) is False


def test_cache_switch_and_pruning(tmp_path):
    assert bc.cache_enabled({}) and bc.cache_enabled({"ATTN_BOOK_CACHE": "1"})
    assert not any(bc.cache_enabled({"ATTN_BOOK_CACHE": v}) for v in ("0", "false", "No", "off"))
    for i, name in enumerate(["k1", "k2", "k3", "k4", "cur"]):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (1000 + i, 1000 + i))
    os.utime(tmp_path / "cur", (1, 1))  # the current key is kept whatever its age
    assert sorted(bc.prune_keys(tmp_path, keep="cur", n=3)) == ["k1", "k2"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cur", "k3", "k4"]


def test_footer_names_version_date_commit_and_links():
    info = {"version": "0.1.0", "commit": "abc123def456", "dirty": False, "date": "2026-11-24"}
    html = citation.footer_html(info, {"Cite: CITATION.cff": "../CITATION.cff", "README": "../README.md"})
    assert 'data-version="0.1.0"' in html and 'data-commit="abc123def456"' in html
    assert "v0.1.0" in html and "2026-11-24" in html and "abc123def456" in html
    assert 'href="../CITATION.cff"' in html and 'href="../README.md"' in html
    assert "uncommitted" not in html
    assert "uncommitted" in citation.footer_html({**info, "dirty": True}, {})
    assert "<script" not in citation.footer_html({**info, "commit": "<script>"}, {})


def test_inline_svgs_become_standalone_files():
    html = ('<div class="wrap"><svg width="10" height="5"><a xlink:href="#x"><rect/></a></svg></div>'
            '<p>text</p><svg xmlns="http://www.w3.org/2000/svg"><g/></svg>')
    first, second = pdf.inline_svgs(html)
    assert first.startswith("<svg") and first.endswith("</svg>")
    assert 'xmlns="http://www.w3.org/2000/svg"' in first and "xmlns:xlink=" in first
    assert second.count("xmlns=") == 1
    assert pdf.inline_svgs("<p>No labelled statements.</p>") == []


def test_a_tagged_display_moves_its_tag_out_of_split():
    tex = pdf.tagged_display(r"\nabla^2 L = \frac1n\sum_i H_i. \tag{65}")
    assert tex.startswith("\\begin{equation*}") and tex.rstrip().endswith("\\end{equation*}")
    assert r"\end{split}\tag{65}" in tex and tex.count(r"\tag") == 1
    assert pdf.tagged_display(r"a = b") is None  # nothing to move
    assert pdf.tagged_display(r"a \tag{1} \\ b \tag{2}") is None  # not one formula
    assert pdf.tagged_display(r"\begin{align} a \tag{1} \end{align}") is None  # its own environment


def test_source_key_ignores_the_extension_checkpoints_and_temporary_files(tmp_path):
    (tmp_path / "src" / "attention_theory" / "sphinx").mkdir(parents=True)
    (tmp_path / "results" / "x").mkdir(parents=True)
    (tmp_path / "src" / "attention_theory" / "m.py").write_text("a = 1\n")
    key = bc.source_key(tmp_path, environ={})
    (tmp_path / "src" / "attention_theory" / "sphinx" / "pages.py").write_text("b = 2\n")
    (tmp_path / "results" / "x" / "checkpoint-authors-full.pt").write_bytes(b"\0" * 8)
    (tmp_path / "results" / "x" / ".tmp-abc.json").write_text("{}")
    (tmp_path / "results" / "registry-full").mkdir()
    (tmp_path / "results" / "registry-full" / "qin-step-1__x__full.json").write_text("{}")
    assert bc.source_key(tmp_path, environ={}) == key
    (tmp_path / "results" / "x" / "runs-full.json").write_text("{}")
    assert bc.source_key(tmp_path, environ={}) != key
