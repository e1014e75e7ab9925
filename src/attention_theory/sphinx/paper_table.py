"""The table of the papers the book covers (``{paper-table}``, on the introduction), generated
from :data:`attention_theory.papers.PAPERS`: each paper's key, its citation and what the book
covers of it.

The table is written as MyST Markdown and parsed in place, exactly as if it were typed on the
page: its ``{cite:t}`` roles are then ordinary citations that sphinxcontrib-bibtex collects and
resolves (a citation node made by hand would not be registered with the bibliography).
"""

from __future__ import annotations

from typing import Iterable

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from attention_theory import papers

__all__ = ["paper_table_markdown", "PaperTableDirective"]


def paper_table_markdown(entries: Iterable[papers.Paper] = papers.PAPERS) -> list[str]:
    """The lines of the Markdown table: key, ``{cite:t}`` of the paper, what the book covers."""
    lines = ["| key | paper | what the book covers |", "|---|---|---|"]
    for p in entries:
        covers = p.covers.replace("|", "\\|") or "—"
        lines.append(f"| `{p.key}` | {{cite:t}}`{p.cite}` | {covers} |")
    return lines


class PaperTableDirective(Directive):
    """``{paper-table}``: the table of :func:`paper_table_markdown` (in a MyST page)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        if not hasattr(self.state, "_renderer"):  # the table is Markdown: only MyST parses it
            raise self.error("paper-table: use this directive in a MyST Markdown page")
        holder = nodes.Element()
        self.state.nested_parse(StringList(paper_table_markdown()), self.content_offset, holder)
        return list(holder.children)
