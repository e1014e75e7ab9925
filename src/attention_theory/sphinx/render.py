"""Building blocks of the generated pages: tables, links to statements and chapters, numbers, and
text whose ``$...$`` pieces are typeset as math."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from attention_theory import papers

__all__ = ["PAPER_NAMES", "table", "link", "chapter_link", "fmt", "text_with_math"]

#: How the book names each paper, by key, in the order of :data:`attention_theory.papers.PAPERS`.
PAPER_NAMES = {p.key: p.short for p in papers.PAPERS}


def link(app: Sphinx, fromdoc: str, label: str, labels: dict[str, dict[str, Any]],
         text: str | None = None) -> nodes.Node:
    """A link from ``fromdoc`` to the statement ``label`` (its ID as code); plain code when the
    label is not in ``labels``."""
    info = labels.get(label)
    if info is None:
        return nodes.literal(text=text or label)
    uri = app.builder.get_relative_uri(fromdoc, info["docname"]) + "#" + label
    ref = nodes.reference("", "", internal=True, refuri=uri)
    ref += nodes.literal(text=text or label)
    return ref


def chapter_link(app: Sphinx, fromdoc: str, docname: str) -> nodes.reference:
    """A link to a chapter showing its title; the title's own nodes, so its math stays math
    ($\\ell_p$); the document name when the chapter has no title."""
    title = app.env.titles.get(docname)
    ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(fromdoc, docname))
    if title is not None:
        ref.extend(child.deepcopy() for child in title.children)
    else:
        ref += nodes.Text(docname)
    return ref


def _cell(cell: Any) -> nodes.entry:
    entry = nodes.entry()
    if isinstance(cell, list):
        entry.extend(cell)
    elif isinstance(cell, nodes.Node):
        para = nodes.paragraph()
        para += cell
        entry += para
    else:
        entry += nodes.paragraph(text=cell)
    return entry


def table(headers: list[str], rows: list[list[Any]], widths: list[int]) -> nodes.table:
    """A registry table; a cell is a string, a node (set in a paragraph) or a list of block nodes."""
    # "colwidths-given": the LaTeX writer then wraps every column at its share of the line
    # (otherwise the first column is set on one line and pushes the others off the PDF page)
    out = nodes.table(classes=["attn-registry", "colwidths-given"])
    tgroup = nodes.tgroup(cols=len(headers))
    out += tgroup
    for w in widths:
        tgroup += nodes.colspec(colwidth=w)
    thead = nodes.thead()
    tgroup += thead
    hrow = nodes.row()
    for h in headers:
        hrow += nodes.entry("", nodes.paragraph(text=h))
    thead += hrow
    tbody = nodes.tbody()
    tgroup += tbody
    for r in rows:
        row = nodes.row()
        for cell in r:
            row += _cell(cell)
        tbody += row
    return out


def fmt(x: Any) -> str:
    """A number with four significant digits; ``—`` for ``None``; anything else as text."""
    if x is None:
        return "—"
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def text_with_math(text: str) -> list[nodes.Node]:
    """``text`` with its ``$...$`` pieces as inline math (a statement title such as
    "Cross-entropy is 2-Lipschitz with respect to $\\ell_\\infty$"); unbalanced dollars stay text."""
    pieces = text.split("$")
    if len(pieces) % 2 == 0:
        return [nodes.Text(text)]
    return [nodes.math(text=p) if i % 2 else nodes.Text(p) for i, p in enumerate(pieces) if p]
