"""The package index (attention_theory.sphinx.package_index): the parser of the chapters' imports
and calls on small pieces of code and on the real book, the module list, the docstring markup;
and the introduction's paper table (attention_theory.sphinx.paper_table)."""

from __future__ import annotations

import re

import jupytext
import pytest

import toc_notebooks
from attention_theory import papers
from attention_theory.sphinx.package_index import (
    chapter_uses,
    docstring_summary,
    package_modules,
    rst_inline,
)
from attention_theory.sphinx.paper_table import paper_table_markdown

MODULES = {"attention_theory.results", "attention_theory.verify", "attention_theory.deora",
           "attention_theory.deora.model", "attention_theory.deora.checks",
           "attention_theory.deora.checks.training", "attention_theory.foundations",
           "attention_theory.foundations.norms"}


@pytest.mark.parametrize("alias", ["md", "model", "deora_model"])
def test_a_module_alias_is_read_from_the_import_line(alias):
    code = f"from attention_theory.deora import model as {alias}\nrisk = {alias}.risk(x) + {alias}.grad(x)\n"
    if alias == "model":
        code = code.replace(" as model", "")
    assert chapter_uses(code, MODULES) == {"attention_theory.deora.model": ["grad", "risk"]}


def test_names_imported_from_a_module_count_when_called():
    code = ("from attention_theory.results import read_result, describe_provenance as dp\n"
            "r = read_result('x')\nprint(dp(r))\n")
    assert chapter_uses(code, MODULES) == {"attention_theory.results": ["describe_provenance",
                                                                        "read_result"]}


def test_plain_and_aliased_imports_of_dotted_modules():
    code = ("import attention_theory.foundations.norms\nimport attention_theory.deora.model as m\n"
            "attention_theory.foundations.norms.spectral(a)\nm.risk(w)\n")
    assert chapter_uses(code, MODULES) == {"attention_theory.deora.model": ["risk"],
                                           "attention_theory.foundations.norms": ["spectral"]}


def test_cells_magics_nesting_and_what_is_left_out():
    cells = ["%matplotlib inline\nimport numpy as np\n",
             "from attention_theory.deora.checks import (\n    training as checks,\n)\n"
             "from attention_theory import verify\n",
             "with ctx():\n    from attention_theory.foundations import norms\n",
             "checks.check_descent(C=1.0)\nchecks._private()\nnp.zeros(3)\nchecks.sub.f()\n"
             "x = checks.check_descent\n!ls\n"]
    assert chapter_uses(cells, MODULES) == {
        "attention_theory.deora.checks.training": ["check_descent"],  # private, nested, no call: out
        "attention_theory.foundations.norms": [],                       # imported, nothing called
        "attention_theory.verify": []}


def test_unknown_and_private_modules_are_ignored():
    code = ("from attention_theory.validation import x\nfrom attention_theory.sphinx import records\n"
            "from attention_theorem import y\nfrom . import z\nrecords.records(app)\nx(1)\n")
    assert chapter_uses(code, MODULES) == {}


def test_a_cell_that_is_not_python_raises():
    with pytest.raises(SyntaxError):
        chapter_uses("def (:\n", MODULES)


def test_docstring_summary_is_the_first_paragraph_on_one_line():
    assert docstring_summary("First line,\n  second line.\n\nMore.") == "First line, second line."
    assert docstring_summary(None) == "" and docstring_summary("") == ""


def test_docstring_markup_becomes_nodes():
    out = rst_inline("Uses ``x``, :func:`~a.b.check`, :mod:`a.b`, **as reconstructed**, `t` and $\\ell_p$.")
    kinds = [(type(n).__name__, n.astext()) for n in out]
    assert kinds == [("Text", "Uses "), ("literal", "x"), ("Text", ", "), ("literal", "check"),
                     ("Text", ", "), ("literal", "a.b"), ("Text", ", "), ("strong", "as reconstructed"),
                     ("Text", ", "), ("literal", "t"), ("Text", " and "), ("math", "\\ell_p"), ("Text", ".")]


def test_package_modules_lists_the_public_modules_only():
    mods = package_modules()
    assert "attention_theory.verify" in mods and "attention_theory.papers" in mods
    assert mods["attention_theory.papers"] == "The one list of papers the book covers."
    assert not [m for m in mods if m == "attention_theory" or m.startswith("attention_theory.sphinx")
                or any(p.startswith("_") for p in m.split("."))]
    assert list(mods) == sorted(mods)


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(attention_theory[\w.]*)[ \t]+import[ \t]+"
                     r"(?:\(([\w\s,]+)\)|([\w \t,]+))|import[ \t]+(attention_theory\.[\w.]+))", re.M)


def _imported_by_lines(code: str, modules: set[str]) -> set[str]:
    """The modules a chapter imports, read from its import lines with a regular expression
    (independently of the parser under test)."""
    out = set()
    for m in _IMPORT.finditer(code):
        if m.group(4):
            out.add(m.group(4))
            continue
        for name in (m.group(2) or m.group(3)).replace("\n", " ").split(","):
            name = name.strip().split(" as ")[0].strip()
            if not name:  # the comma after the last name
                continue
            out.add(f"{m.group(1)}.{name}" if f"{m.group(1)}.{name}" in modules else m.group(1))
    return {x for x in out if not x.startswith("attention_theory.sphinx")}


def test_every_module_a_chapter_imports_appears_in_the_index():
    modules = package_modules()
    seen = set()
    for path in toc_notebooks.chapter_notebooks():
        nb = jupytext.read(path)
        if "kernelspec" not in nb.metadata:
            continue
        cells = [c.source for c in nb.cells if c.cell_type == "code"]
        expected = _imported_by_lines("\n".join(cells), set(modules))
        missing = expected - set(modules)
        assert not missing, f"{path.name}: modules missing from the index: {missing}"
        found = chapter_uses(cells, modules)
        assert expected <= set(found), f"{path.name}: imports the parser missed: {expected - set(found)}"
        seen |= set(found)
    assert len(seen) > 20


def test_paper_table_has_one_row_per_paper_with_its_citation():
    lines = paper_table_markdown()
    assert lines[:2] == ["| key | paper | what the book covers |", "|---|---|---|"]
    assert len(lines) == 2 + len(papers.PAPERS)
    for line, p in zip(lines[2:], papers.PAPERS):
        assert line == f"| `{p.key}` | {{cite:t}}`{p.cite}` | {p.covers} |"
        assert p.covers, f"paper {p.key} has no 'covers' text for the introduction's table"
    toy = papers.Paper("toy", "Toy (2026)", "toy2026", "A toy", covers="a | b")
    assert paper_table_markdown([toy])[2] == "| `toy` | {cite:t}`toy2026` | a \\| b |"
