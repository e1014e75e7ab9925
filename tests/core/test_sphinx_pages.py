"""The registry pages of the Sphinx extension, built on a two-statement toy book: statuses,
errata grouped by paper and kind with their counts, the claims table with scales and citations."""

import json
import os
import textwrap

import pytest

sphinx_app = pytest.importorskip("sphinx.application")


def _record(cid, check, status, *, scale="smoke", data=None, **detail):
    return {"claim_id": cid, "check": check, "description": f"{check} of {cid}", "status": status,
            "kind": "erratum" if status == "erratum" else "bound", "n_instances": 4, "worst": 0.5,
            "params": {}, "seed": 0, "package_version": "0.1.0", "commit": "abc123def456",
            "device": "cpu", "date": "2026-11-24", "scale": scale, "detail": detail, "data": data}


RECORDS = [
    _record("trauger-lemma-3-1", "bound", "verified"),
    _record("trauger-lemma-3-1", "printed-step", "erratum", kind="proof-step", where="proof",
            source="Proof, Eq. 7", same_instances=True,
            printed={"text": "a <= b/2", "tex": r"a \le b/2", "summary": "FAILS"},
            corrected={"text": "a <= b", "summary": "holds"}),
    # the same erratum confirmed again by the full-scale campaign: one entry, two scales
    {**_record("trauger-lemma-3-1", "printed-step", "erratum", scale="full", kind="proof-step", where="proof",
               source="Proof, Eq. 7", same_instances=True,
               printed={"text": "a <= b/2", "tex": r"a \le b/2", "summary": "FAILS"},
               corrected={"text": "a <= b", "summary": "holds"}), "commit": "fedcba654321"},
    _record("trauger-fig-3", "plateau", "verified"),
    _record("trauger-fig-3", "plateau", "fails", scale="full",
            data={"files": ["results/x/runs-full.json"], "commits": ["abc"], "sha256": ["0"]},
            failure="trauger-fig-3 / plateau: FAILS on 3 instance(s)"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("toybook")
    (root / "conf.py").write_text(textwrap.dedent(f"""
        import json, pathlib
        extensions = ["sphinx_proof", "attention_theory.sphinx"]
        RECORDS = {json.dumps(RECORDS)!r}
        def _write(app):
            reg = pathlib.Path(app.outdir).parent / "registry"
            for i, r in enumerate(json.loads(RECORDS)):
                (reg / f"r{{i}}.json").write_text(json.dumps(r))
        def setup(app):
            app.connect("builder-inited", _write, priority=900)
        """))
    (root / "index.rst").write_text(textwrap.dedent("""
        Toy
        ===

        .. toctree::

           claims
           errata

        .. prf:lemma:: A toy lemma
           :label: trauger-lemma-3-1

           Statement.

        .. prf:remark:: A toy figure
           :label: trauger-fig-3

           Statement.

        .. paper-status::

        .. errata-counts::

        See :erratum:`the printed step <trauger-lemma-3-1/printed-step>`.
        """))
    (root / "claims.rst").write_text("Claims\n======\n\n.. verified-claims::\n")
    (root / "errata.rst").write_text("Errata\n======\n\n.. errata-list::\n")
    out = root / "_build" / "html"
    saved = os.environ.get("ATTN_REGISTRY_DIR")  # the extension points it at its registry
    try:
        app = sphinx_app.Sphinx(str(root), str(root), str(out), str(root / "_build" / "doctrees"),
                                "html", status=None, warning=None, freshenv=True)
        app.build()
    finally:
        if saved is None:
            os.environ.pop("ATTN_REGISTRY_DIR", None)
        else:
            os.environ["ATTN_REGISTRY_DIR"] = saved
    return out


def test_claims_page_shows_status_scales_and_citation(built):
    page = (built / "claims.html").read_text()
    assert "proof erratum" in page and "fails" in page
    assert "results/x/runs-full.json" in page
    assert "trauger-fig-3 (fails; smoke+full scale)" in page
    assert "attn-claims-filter" in page and 'class="attn-copy"' in page
    assert page.count("printed-step (proof step in the proof; smoke, full)") == 1
    claims = json.loads((built / "claims.json").read_text())
    status = {c["claim_id"]: c["status"] for c in claims["claims"]}
    assert status == {"trauger-lemma-3-1": "proof-erratum", "trauger-fig-3": "fails"}


def test_errata_are_grouped_by_paper_and_kind_with_counts(built):
    page = (built / "errata.html").read_text()
    assert 'id="errata-trauger-proof-step"' in page and "Proof step (1)" in page
    assert "kind: proof step, in the proof" in page and "same instances" in page
    assert page.count("attn-erratum-pair") == 1  # confirmed at two scales, listed once
    assert "at smoke scale (commit abc123def456) and full scale (commit fedcba654321)" in page
    # named by its statement's title and its check; the check's plain-text words only as a literal
    assert '<h4>A toy lemma — printed-step<a class="headerlink"' in page
    assert '-printed-step">A toy lemma — printed-step</a>' in page  # the summary row
    assert "<code class=\"docutils literal notranslate\"><span class=\"pre\">printed-step</span>" in page
    index = (built / "index.html").read_text()
    assert "1 (0 / 1)" in index  # one proof-step erratum: none in a statement, one in a proof


def test_statement_boxes_show_their_claim_id_and_registry_status(built):
    index = (built / "index.html").read_text()
    assert index.count('class="attn-claim-badge"') == 2
    assert ('<span class="pre">trauger-fig-3</span></code> · <a class="reference internal" '
            'href="claims.html#claims-trauger"><span class="attn-status attn-status-fails">fails') in index
    assert 'class="attn-status attn-status-fails"' in index
    assert 'class="attn-status attn-status-proof-erratum"' in index


def test_erratum_role_links_to_the_entry(built):
    index = (built / "index.html").read_text()
    assert 'href="errata.html#erratum-trauger-lemma-3-1-printed-step"' in index
    assert (built / "errata.html").read_text().count('id="erratum-trauger-lemma-3-1-printed-step"') == 1


def test_errata_page_has_a_summary_table_and_printed_corrected_side_by_side(built):
    page = (built / "errata.html").read_text()
    assert 'id="errata-summary"' in page and 'href="#erratum-trauger-lemma-3-1-printed-step"' in page
    assert "attn-erratum-pair" in page and "as printed (fails)" in page and "corrected (passes)" in page
    assert r"\(\displaystyle a \le b/2\)" in page    # typeset from its LaTeX
    assert "a &lt;= b" in page                          # no LaTeX given: the plain text


@pytest.mark.parametrize("text, tex", [
    ("2.0e-04", r"2.0\times10^{-4}"), ("1e-08", "10^{-8}"), ("1e+06", "10^{6}"),
    ("-3.5e+01", r"-3.5\times10^{1}"), ("1.0e+00", "1.0"), ("-1e-03", "-10^{-3}"),
    ("0.52", None), ("(2, 1, 1)", None), ("1e-3x", None), ("", None)])
def test_glued_e_notation_reads_as_mathematics(text, tex):
    from attention_theory.sphinx.typography import e_notation_as_math

    assert e_notation_as_math(text) == tex


@pytest.mark.parametrize("raw, title", [
    ("(Row-by-row covers (Trauger & Tewari, App. A))", "Row-by-row covers (Trauger & Tewari, App. A)"),
    ("(**Lemma 3** corrected)", "Lemma 3 corrected"),
    ("(a) first, (b) second (c)", "(a) first, (b) second (c)"),   # the first "(" closes early
    ("Plain title", "Plain title"), ("  ( x )  ", "x"), ("", "")])
def test_box_titles_lose_their_enclosing_parentheses(raw, title):
    from attention_theory.sphinx.statements import box_title

    assert box_title(raw) == title


CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A toy chapter with $\\ell_p$

```{code-cell} ipython3
from attention_theory.foundations import norms as nr
from attention_theory.results import read_result
```

```{code-cell} ipython3
nr.spectral_norm(a)
nr._private(a)
read_result("x")
```
"""


@pytest.fixture(scope="module")
def myst_built(tmp_path_factory):
    """A MyST book (myst-nb, sphinxcontrib-bibtex, no execution): the introduction's paper table,
    a chapter with code, the package index, the bibliography; the warnings are kept."""
    import io
    import pathlib
    import shutil

    root = tmp_path_factory.mktemp("mystbook")
    shutil.copy(pathlib.Path(__file__).resolve().parents[2] / "book" / "references.bib", root / "refs.bib")
    (root / "conf.py").write_text(textwrap.dedent("""
        extensions = ["myst_nb", "sphinx_proof", "sphinxcontrib.bibtex", "attention_theory.sphinx"]
        nb_execution_mode = "off"
        bibtex_bibfiles = ["refs.bib"]
        bibtex_reference_style = "author_year"
        myst_enable_extensions = ["dollarmath"]
        exclude_patterns = ["_build"]
        """))
    (root / "index.md").write_text("# Toy\n\n```{paper-table}\n```\n\n"
                                   "```{toctree}\nchapter\npackage-index\nbib\n```\n")
    (root / "chapter.md").write_text(CHAPTER)
    (root / "package-index.md").write_text("# Package index\n\n```{package-index}\n```\n")
    (root / "bib.md").write_text("# Bibliography\n\n```{bibliography}\n```\n")
    out = root / "_build" / "html"
    warnings = io.StringIO()
    saved = os.environ.get("ATTN_REGISTRY_DIR")
    try:
        app = sphinx_app.Sphinx(str(root), str(root), str(out), str(root / "_build" / "doctrees"),
                                "html", status=None, warning=warnings, freshenv=True)
        app.build()
    finally:
        if saved is None:
            os.environ.pop("ATTN_REGISTRY_DIR", None)
        else:
            os.environ["ATTN_REGISTRY_DIR"] = saved
    # a second Sphinx application in one process registers Sphinx's own nodes again: not ours
    return out, [w for w in warnings.getvalue().splitlines()
                 if w.strip() and "is already registered" not in w]


def test_paper_table_is_generated_with_resolved_citations(myst_built):
    from attention_theory import papers

    out, warnings = myst_built
    assert not warnings, warnings
    index = (out / "index.html").read_text()
    assert index.count("<tr ") + index.count("<tr>") == 1 + len(papers.PAPERS)
    for p in papers.PAPERS:
        assert f'<span class="pre">{p.key}</span>' in index
    assert index.count('href="bib.html#') == len(papers.PAPERS)  # every citation resolved
    assert "Trauger and Tewari" in index and "norm-based generalization bounds" in index
    assert r"\(\ell_p\)</span> mirror descent" in index  # the math of a "covers" text stays math


def test_package_index_lists_modules_and_the_chapters_that_call_them(myst_built):
    out, _ = myst_built
    page = (out / "package-index.html").read_text()
    row = page[page.index('id="module-attention-theory-foundations-norms"'):]
    row = row[:row.index("</tr>")]
    assert 'href="chapter.html"' in row and "spectral_norm" in row and "_private" not in row
    assert r"\(\ell_p\)" in row  # the chapter's title keeps its math
    results = page[page.index('id="module-attention-theory-results"'):]
    assert "read_result" in results[:results.index("</tr>")]
    assert 'id="module-attention-theory-sphinx' not in page
