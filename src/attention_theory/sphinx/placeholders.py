"""The nodes the book's directives and roles leave in a page, and the directives that leave them.

A generated page (the claims table, the errata list, a dependency graph, the package index) can
only be drawn once every chapter has been read and executed, so its directive puts a placeholder
node in the page; the ``doctree-resolved`` dispatcher of :mod:`attention_theory.sphinx` replaces
each placeholder with what its render function draws.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive

__all__ = ["claims_placeholder", "errata_placeholder", "errata_counts_placeholder",
           "graph_placeholder", "status_placeholder", "package_index_placeholder", "erratum_ref",
           "PAGE_NODES", "placeholder_directive", "VerifiedClaimsDirective", "ErrataListDirective",
           "ErrataCountsDirective", "PaperStatusDirective", "PackageIndexDirective"]


class claims_placeholder(nodes.General, nodes.Element):
    """Replaced by the claims table at doctree-resolved."""


class errata_placeholder(nodes.General, nodes.Element):
    """Replaced by the errata list at doctree-resolved."""


class errata_counts_placeholder(nodes.General, nodes.Element):
    """Replaced by the table of errata per paper and kind at doctree-resolved."""


class graph_placeholder(nodes.General, nodes.Element):
    """Replaced by a paper's dependency graph (inline SVG) at doctree-resolved."""


class status_placeholder(nodes.General, nodes.Element):
    """Replaced by the per-paper status table at doctree-resolved."""


class package_index_placeholder(nodes.General, nodes.Element):
    """Replaced by the package index (modules, and the chapters that import them)."""


class erratum_ref(nodes.Inline, nodes.Element):
    """``{erratum}`claim-id/check``` (or ``{erratum}`text <claim-id/check>```): a link to that
    erratum's entry on the errata page, resolved when the registry is complete."""


#: The pages other pages link to, by kind: the document holding each placeholder is recorded
#: when it is read (:func:`attention_theory.sphinx.statements.page_of`).
PAGE_NODES: dict[str, type[nodes.Element]] = {"claims": claims_placeholder, "errata": errata_placeholder}


def placeholder_directive(node_class: type[nodes.Element], doc: str) -> type[Directive]:
    """A directive without arguments or content that leaves one ``node_class`` node."""

    def run(self: Directive) -> list[nodes.Node]:
        return [node_class("")]

    return type(f"{node_class.__name__}_directive", (Directive,),
                {"has_content": False, "run": run, "__doc__": doc})


VerifiedClaimsDirective = placeholder_directive(
    claims_placeholder, "``{verified-claims}``: the table of every claim and its records.")
ErrataListDirective = placeholder_directive(
    errata_placeholder, "``{errata-list}``: every confirmed erratum, printed and corrected.")
ErrataCountsDirective = placeholder_directive(
    errata_counts_placeholder,
    "``{errata-counts}``: confirmed errata per paper and kind (statement or proof).")
PaperStatusDirective = placeholder_directive(
    status_placeholder, "``{paper-status}``: per paper, how many statements are in each status.")
PackageIndexDirective = placeholder_directive(
    package_index_placeholder,
    "``{package-index}``: every module of the package and the chapters that import it.")
