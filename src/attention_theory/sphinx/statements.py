"""Statements collection: the labelled statements of every chapter and the claims each one cites.

At ``doctree-read`` every statement box whose label is a claim ID (sphinx-proof stores the label
and the box title) becomes a :class:`~attention_theory.sphinx.blueprint.Statement`, and every
``{prf:ref}`` to a claim inside its block (the directive and the derivation after it, up to the
next statement) is one of its *uses*: the edges of the dependency graphs.  The documents holding
the claims and errata pages are recorded too, so that other pages can link to them.
``env-purge-doc`` forgets what a re-read document had stated.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.placeholders import PAGE_NODES
from attention_theory.verify import CLAIM_ID_PATTERN

__all__ = ["statements", "is_statement", "box_title", "statement_labels", "page_of", "doctree_read",
           "purge_doc"]


def statements(env: Any) -> dict[str, bp.Statement]:
    """Every statement read so far, by claim ID (kept in the Sphinx environment)."""
    if not hasattr(env, "attn_statements"):
        env.attn_statements = {}
    return env.attn_statements


def is_statement(node: nodes.Node) -> bool:
    """Whether ``node`` is a labelled sphinx-proof box (a theorem, lemma, definition, ...)."""
    return isinstance(node, nodes.Element) and bool(node.get("realtype")) and bool(node.get("label"))


def box_title(raw: str) -> str:
    """A statement box's title as the book reuses it (claims table, errata headings, graph
    tooltips): sphinx-proof stores it as ``"(title)"``; the enclosing pair of parentheses and the
    Markdown emphasis ``**`` are dropped (the title is also reused as plain text)."""
    title = raw.replace("**", "").strip()
    if title.startswith("(") and title.endswith(")"):
        depth = 0
        for i, ch in enumerate(title):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                break
        if i == len(title) - 1:  # the first "(" closes at the very end: it encloses the title
            title = title[1:-1].strip()
    return title


def statement_labels(env: Any) -> dict[str, dict[str, Any]]:
    """sphinx-proof's record of every box labelled with a claim ID (docname and more), by label."""
    proofs = getattr(env, "proof_list", {}) or {}
    return {k: v for k, v in proofs.items() if CLAIM_ID_PATTERN.match(k)}


def page_of(app: Sphinx, kind: str) -> str | None:
    """The document holding the ``verified-claims`` (``kind="claims"``) or ``errata-list``
    (``kind="errata"``) directive, recorded when it was read."""
    return getattr(app.env, "attn_pages", {}).get(kind)


def _record_pages(env: Any, doctree: nodes.document, docname: str) -> None:
    pages = getattr(env, "attn_pages", None)
    if pages is None:
        pages = env.attn_pages = {}
    for kind, cls in PAGE_NODES.items():
        if any(True for _ in doctree.findall(cls)):
            pages[kind] = docname


def _statement_of(node: nodes.Element, label: str, docname: str) -> bp.Statement:
    # the box title's Markdown emphasis is dropped: the title is reused as plain text (graph
    # labels and tooltips, the claims table)
    title = box_title(str(node.get("title", "")))
    return bp.Statement(label=label, docname=docname, title=title,
                        reconstructed=("reconstructed" in node.get("classes", [])
                                       or "reconstructed" in title.lower()))


def doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Collect the labelled statements of this chapter and the claims each block cites."""
    store = statements(app.env)
    docname = app.env.docname
    _record_pages(app.env, doctree, docname)
    current: bp.Statement | None = None
    for node in doctree.findall(lambda n: is_statement(n) or isinstance(n, pending_xref)):
        if isinstance(node, pending_xref):
            target = str(node.get("reftarget", ""))
            if current is not None and node.get("refdomain") == "prf" and CLAIM_ID_PATTERN.match(target):
                current.uses.append(target)
            continue
        label = str(node["label"])
        current = _statement_of(node, label, docname) if CLAIM_ID_PATTERN.match(label) else None
        if current is not None:
            store[label] = current


def purge_doc(app: Sphinx, env: Any, docname: str) -> None:
    """Forget the statements of a document about to be read again."""
    store = statements(env)
    for k in [k for k, v in store.items() if v.docname == docname]:
        del store[k]
