"""Sphinx extension: the book's generated pages, from the check records and the chapters' code.

The extension is a set of tables, each entry pointing into the module of its concern:

* :data:`EVENTS`: Sphinx event -> handler (with its priority);
* :data:`NODES`, :data:`DIRECTIVES`, :data:`ROLES`: what the pages may contain;
* :data:`TRANSFORMS`: what ``doctree-resolved`` does to every page, in order;
* :data:`RENDERERS`: placeholder node -> the function that draws it at ``doctree-resolved``,
  once every chapter has been read and executed.

The modules, by concern:

* :mod:`~attention_theory.sphinx.statements`: the labelled statements of every chapter and the
  claims each one cites (``doctree-read``, ``env-purge-doc``);
* :mod:`~attention_theory.sphinx.records`: the check records of the build (``builder-inited``
  empties ``_build/registry`` and points the chapters' kernels at it) and of the committed
  full-scale campaign, and their consistency with the statements (``env-check-consistency``:
  ``-W`` makes a record without a statement, or a statement without a record, an error);
* :mod:`~attention_theory.sphinx.registry_pages`: the Verified-claims table, the per-paper status
  table, the badge of every statement box;
* :mod:`~attention_theory.sphinx.errata`: the errata list, their counts, the ``{erratum}`` role;
* :mod:`~attention_theory.sphinx.graphs`: the dependency graphs
  (drawn by :mod:`~attention_theory.sphinx.blueprint`);
* :mod:`~attention_theory.sphinx.package_index`: every module of the package and the chapters
  that import it (parsed from the chapters' code);
* :mod:`~attention_theory.sphinx.paper_table`: the introduction's table of the papers;
* :mod:`~attention_theory.sphinx.typography`: e-notation of glued numbers, ``{doc}`` links that
  keep math, unique proof ids;
* :mod:`~attention_theory.sphinx.assets`: offline MathJax, the notebook download, the stylesheet
  and ``claims.json`` (``build-finished``);
* :mod:`~attention_theory.sphinx.placeholders` and :mod:`~attention_theory.sphinx.render`: the
  placeholder nodes and the building blocks (tables, links) the pages share.

Separate extensions of the same package: :mod:`~attention_theory.sphinx.bookcache`,
:mod:`~attention_theory.sphinx.prerun`, :mod:`~attention_theory.sphinx.citation`,
:mod:`~attention_theory.sphinx.pdf`; the ``{strongest}`` role (:mod:`~attention_theory.sphinx.strongest`)
is registered here.
"""

from __future__ import annotations

from typing import Any, Callable

from docutils import nodes
from sphinx.application import Sphinx

from attention_theory.sphinx import (
    assets,
    errata,
    graphs,
    package_index,
    paper_table,
    records,
    registry_pages,
    statements,
    strongest,
    typography,
)
from attention_theory.sphinx import placeholders as ph

#: Transforms every page goes through at ``doctree-resolved``, in this order, before the
#: placeholders are drawn: ``transform(app, doctree, docname)``.
TRANSFORMS: tuple[Callable[[Sphinx, nodes.document, str], None], ...] = (
    typography.unique_proof_ids,
    typography.pasted_numbers_as_math,
    typography.doc_links_keep_math,
    registry_pages.add_badges,
    errata.resolve_erratum_refs,
)

#: Placeholder node -> ``render(page, node)``, which returns what replaces the node.
RENDERERS: dict[type[nodes.Element], Callable[[records.PageData, Any], Any]] = {
    ph.graph_placeholder: graphs.render_graph,
    ph.status_placeholder: registry_pages.render_paper_status,
    ph.errata_counts_placeholder: errata.render_errata_counts,
    ph.claims_placeholder: registry_pages.render_claims,
    ph.errata_placeholder: errata.render_errata_list,
    ph.package_index_placeholder: package_index.render_package_index,
}


def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Apply :data:`TRANSFORMS` to the page, then replace each placeholder by its rendering."""
    for transform in TRANSFORMS:
        transform(app, doctree, docname)
    found = [(node, render) for cls, render in RENDERERS.items() for node in doctree.findall(cls)]
    if not found:
        return
    page = records.PageData(app, docname)
    for node, render in found:
        node.replace_self(render(page, node))


NODES: tuple[type[nodes.Element], ...] = (
    ph.claims_placeholder, ph.errata_placeholder, ph.graph_placeholder, ph.status_placeholder,
    ph.errata_counts_placeholder, ph.erratum_ref, ph.package_index_placeholder,
)

DIRECTIVES: dict[str, type] = {
    "verified-claims": ph.VerifiedClaimsDirective,
    "errata-list": ph.ErrataListDirective,
    "dependency-graph": graphs.DependencyGraphDirective,
    "paper-status": ph.PaperStatusDirective,
    "errata-counts": ph.ErrataCountsDirective,
    "package-index": ph.PackageIndexDirective,
    "paper-table": paper_table.PaperTableDirective,
}

ROLES: dict[str, Callable[..., tuple[list, list]]] = {"erratum": errata.erratum_role}

#: ``(event, handler, priority)``, connected in this order.
EVENTS: tuple[tuple[str, Callable[..., Any], int], ...] = (
    ("doctree-read", statements.doctree_read, 500),
    ("doctree-read", package_index.doctree_read, 500),
    ("env-purge-doc", statements.purge_doc, 500),
    ("env-purge-doc", graphs.purge_doc, 500),
    ("env-purge-doc", package_index.purge_doc, 500),
    ("html-page-context", assets.notebook_download, 400),
    ("config-inited", assets.offline_mathjax, 500),
    ("builder-inited", records.builder_inited, 500),
    ("env-check-consistency", records.env_check_consistency, 500),
    ("doctree-resolved", doctree_resolved, 500),
    ("build-finished", assets.build_finished, 500),
)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_css_file("attn-registry.css")
    for node in NODES:
        app.add_node(node)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    for name, role in ROLES.items():
        app.add_role(name, role)
    strongest.register(app, records.records)
    for event, handler, priority in EVENTS:
        app.connect(event, handler, priority=priority)
    # Chapter titles with math appear in the navigation of every page, so MathJax must be
    # loaded on every page, not only on pages whose body has math.
    app.set_html_assets_policy("always")
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}


__all__ = ["setup", "TRANSFORMS", "RENDERERS", "NODES", "DIRECTIVES", "ROLES", "EVENTS", "doctree_resolved"]
