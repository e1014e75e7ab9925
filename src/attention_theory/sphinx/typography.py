"""Typography of every page, applied at ``doctree-resolved``: glued numbers in e-notation read as
mathematics, ``{doc}`` links keep the math of a chapter title, and sphinx-proof's repeated HTML
ids become unique.  Each transform takes ``(app, doctree, docname)``, as the dispatcher of
:mod:`attention_theory.sphinx` calls it."""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

__all__ = ["e_notation_as_math", "pasted_numbers_as_math", "doc_links_keep_math", "unique_proof_ids"]

#: a number pasted by ``{glue:text}`` in Python's e-notation, e.g. ``2.0e-04`` or ``1e+06``
_E_NOTATION = re.compile(r"^(-?\d+(?:\.\d+)?)e([+-]?)0*(\d+)$")


def e_notation_as_math(text: str) -> str | None:
    """``2.0e-04`` -> ``2.0\\times10^{-4}`` (TeX), ``1e+06`` -> ``10^{6}``; None for any other text.

    A glued number formatted with ``:.1e`` reads in prose as the mathematics it is, in HTML and
    in the PDF alike."""
    m = _E_NOTATION.match(text.strip())
    if m is None:
        return None
    mantissa, sign, exp = m.groups()
    power = f"10^{{{'-' if sign == '-' else ''}{exp}}}"
    if exp == "0":
        return mantissa
    if mantissa in ("1", "-1"):
        return ("-" if mantissa == "-1" else "") + power
    return f"{mantissa}\\times{power}"


def pasted_numbers_as_math(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A number glued into the prose in e-notation becomes inline math."""
    for node in list(doctree.findall(nodes.inline)):
        if "pasted-text" not in node.get("classes", []):
            continue
        tex = e_notation_as_math(node.astext())
        if tex is not None:
            node.replace_self(nodes.math(tex, tex))


def doc_links_keep_math(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A ``{doc}`` link shows the target's title as plain text, so a title with math
    ("Mirror descent with an $\\ell_p$ potential") would read "\\ell_p": the link gets a copy
    of the title's own nodes instead."""
    with_math = {title.astext(): title for title in app.env.titles.values()
                 if any(isinstance(n, nodes.math) for n in title.findall(nodes.math))}
    if not with_math:
        return
    for node in list(doctree.findall(nodes.inline)):
        title = with_math.get(node.astext())
        if title is not None and {"doc", "std-doc"} & set(node.get("classes", [])):
            node.children = []
            node.extend(child.deepcopy() for child in title.children)


def unique_proof_ids(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """sphinx-proof gives every proof the HTML id ``proof`` and every box's content the id
    ``proof-content``; a page with several boxes then repeats ids.  Each gets a numbered id, and a
    proof keeps its look through the class ``attn-proof`` (sphinx-proof styles ``div#proof``)."""
    counts: dict[str, int] = {}
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids", [])
        for fixed in ("proof", "proof-content"):
            if fixed in ids:
                counts[fixed] = counts.get(fixed, 0) + 1
                node["ids"] = [f"{fixed}-{counts[fixed]}" if i == fixed else i for i in ids]
                if fixed == "proof":
                    node["classes"].append("attn-proof")
