"""Markdown tables of the book keep their columns.

Inside a Markdown table row a ``|`` ends the cell, even inside ``$...$`` math: ``$|g|\\le 1$`` in
a cell splits it in three and the row renders garbled (in HTML and in the PDF). Bars inside
table math are written ``\\lvert ... \\rvert`` or ``\\Vert``; an escaped ``\\|`` is read as a
literal single bar. Checked by parsing ``book/**/*.md`` (no Sphinx): every row of a table has
as many cells as its header row.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"


def n_cells(row: str) -> int:
    """Number of cells in a Markdown table row (an escaped ``\\|`` is not a separator)."""
    body = re.sub(r"\\\|", "", row.strip())
    return body.strip("|").count("|") + 1


def ragged_rows(text: str) -> list[tuple[int, int, int]]:
    """(line, header cells, row cells) for every table row whose cell count differs from its
    table's first row."""
    out, header = [], None
    for i, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("|"):
            n = n_cells(line)
            if header is None:
                header = n
            elif n != header:
                out.append((i, header, n))
        else:
            header = None
    return out


def test_a_bar_inside_table_math_is_caught():
    table = "| ID | check |\n|---|---|\n| `x` | $|g|\\le 1$ |\n"
    assert ragged_rows(table) == [(3, 2, 4)]
    assert ragged_rows(table.replace("$|g|", "$\\lvert g\\rvert")) == []


@pytest.mark.parametrize("path", sorted(BOOK.rglob("*.md")), ids=lambda p: str(p.relative_to(BOOK)))
def test_every_table_row_has_its_header_s_cells(path):
    assert ragged_rows(path.read_text()) == [], f"{path}: rows with the wrong number of cells"
