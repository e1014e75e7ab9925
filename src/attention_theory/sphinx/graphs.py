"""Dependency graphs: ``{dependency-graph} [paper]`` draws the blueprint graph of a paper's
statements (:mod:`attention_theory.sphinx.blueprint`) as inline SVG whose boxes link to the
statements, coloured by the registry's status of each claim."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.placeholders import graph_placeholder
from attention_theory.sphinx.records import PageData
from attention_theory.sphinx.render import PAPER_NAMES

__all__ = ["DependencyGraphDirective", "render_graph", "purge_doc"]


class DependencyGraphDirective(Directive):
    """``{dependency-graph} [paper]``: the blueprint graph of one paper's statements, or, without
    an argument, one graph per paper of :data:`attention_theory.papers.PAPERS` under a heading."""

    has_content = False
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        if not hasattr(env, "attn_graph_docs"):
            env.attn_graph_docs = {}
        chosen = [self.arguments[0].strip()] if self.arguments else list(PAPER_NAMES)
        out: list[nodes.Node] = []
        for paper in chosen:
            if paper not in PAPER_NAMES:
                raise self.error(f"unknown paper {paper!r}; expected one of {sorted(PAPER_NAMES)}")
            env.attn_graph_docs[paper] = env.docname
            if not self.arguments:
                out.append(nodes.rubric(text=PAPER_NAMES[paper]))
            node = graph_placeholder("")
            node["paper"] = paper
            out.append(node)
        return out


def render_graph(page: PageData, node: nodes.Element) -> nodes.Node:
    """The graph of ``node["paper"]``, in a scrolling ``div`` with the id ``graph-<paper>``."""
    paper = node["paper"]
    mine = {k: v for k, v in page.statements.items() if v.paper == paper}
    hrefs = {k: page.uri(v.docname) + "#" + k for k, v in mine.items()}
    svg = bp.render_svg(mine, page.status, hrefs, title=PAPER_NAMES[paper])
    return nodes.raw("", f'<div id="graph-{paper}" class="attn-blueprint-wrap" style="overflow-x:auto">'
                         f"{svg}</div>", format="html")


def purge_doc(app: Sphinx, env: Any, docname: str) -> None:
    """Forget which papers' graphs a document about to be read again drew."""
    for paper, doc in list(getattr(env, "attn_graph_docs", {}).items()):
        if doc == docname:
            del env.attn_graph_docs[paper]
