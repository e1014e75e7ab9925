"""Sphinx extension: what the PDF of the book (``make pdf``, LaTeX builder) needs beyond the HTML.

* **Dependency graphs.**  The registry extension draws each paper's dependency graph as inline
  SVG inside a raw-HTML node, which the LaTeX builder drops.  For the LaTeX builder only,
  ``doctree-resolved`` (after the registry extension has put the graphs in) writes each inline
  SVG to a file in the LaTeX output, converts it to PDF with ``rsvg-convert`` (Debian's
  ``librsvg2-bin``, installed by ``make pdf``) and puts an image node in its place.  Without
  ``rsvg-convert`` the graphs are left out of the PDF with a message (the HTML is not affected).
* **Tagged display math.**  Sphinx's LaTeX writer wraps ``$$...$$`` in ``split``, where amsmath
  forbids ``\\tag``; a display with one ``\\tag{...}`` and no label is written as
  ``equation*`` with the tag outside the ``split`` (:func:`tagged_display`).  MathJax in the HTML
  needs nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

__all__ = ["inline_svgs", "tagged_display", "setup"]

_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
_TAG = re.compile(r"\\tag\*?\{[^{}]*\}")


def tagged_display(tex: str) -> str | None:
    """LaTeX for a display formula with exactly one ``\\tag{...}``: ``equation*`` around a
    ``split`` of the formula without the tag, the tag after it.  ``None`` if there is no tag,
    more than one, or the formula is an environment of its own."""
    tags = _TAG.findall(tex)
    if len(tags) != 1 or re.search(r"\\begin\{(?:align|gather|equation|multline|split)", tex):
        return None
    body = _TAG.sub("", tex).strip()
    return "\\begin{equation*}\n\\begin{split}" + body + "\\end{split}" + tags[0] + "\n\\end{equation*}\n"


def inline_svgs(html_text: str) -> list[str]:
    """The ``<svg>...</svg>`` elements of an HTML fragment, with the SVG namespace declared
    (a standalone file needs it; inline HTML does not)."""
    out = []
    for m in _SVG.finditer(html_text):
        svg = m.group(0)
        head = svg[:svg.index(">")]
        if "xmlns=" not in head:
            svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
        if "xlink:" in svg and "xmlns:xlink" not in head:
            svg = svg.replace("<svg", '<svg xmlns:xlink="http://www.w3.org/1999/xlink"', 1)
        out.append(svg)
    return out


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "latex":
        return
    for block in list(doctree.findall(nodes.math_block)):
        tex = tagged_display(block.astext())
        if tex is not None and not block.get("label") and not block.get("nowrap"):
            block.children = [nodes.Text(tex)]
            block["nowrap"] = True
    _graphs(app, doctree, docname)


def _graphs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    raws = [n for n in doctree.findall(nodes.raw)
            if "html" in n.get("format", "").split() and "<svg" in n.astext()]
    if not raws:
        return
    tool = shutil.which("rsvg-convert")
    if tool is None:
        logger.info(f"[pdf] rsvg-convert not found: the graphs of {docname} are left out "
                    "of the PDF (apt-get install librsvg2-bin)")
        return
    out = Path(app.outdir)
    stem = docname.replace("/", "-")
    count = 0
    for raw in raws:
        images = []
        for svg in inline_svgs(raw.astext()):
            count += 1
            name = f"attn-graph-{stem}-{count}"
            (out / f"{name}.svg").write_text(svg)
            res = subprocess.run([tool, "-f", "pdf", "-o", str(out / f"{name}.pdf"),
                                  str(out / f"{name}.svg")], capture_output=True, text=True)
            if res.returncode != 0:
                logger.warning(f"[pdf] rsvg-convert failed on {name}.svg: {res.stderr.strip()}",
                               location=docname)
                continue
            img = nodes.image(uri=f"{name}.pdf", candidates={"*": f"{name}.pdf"})
            images.append(img)
        raw.replace_self(images or [])


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", _doctree_resolved, priority=800)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
