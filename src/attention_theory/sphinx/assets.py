"""Offline assets of the HTML book.

* ``config-inited`` serves MathJax from the build (offline reading): the MathJax 3 distribution
  shipped by the pinned ``django-static-mathjax`` wheel is copied into ``_static/mathjax`` and
  ``mathjax_path`` points there instead of a CDN.
* ``html-page-context`` writes each chapter as ``.ipynb`` (jupytext) into ``_sources`` so the
  theme's download menu offers the notebook next to the MyST source.
* ``build-finished`` writes the stylesheet of the generated pages (``_static/attn-registry.css``)
  and ``claims.json`` (all records, the per-claim summary and the statements) into the output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.records import records
from attention_theory.sphinx.statements import statements
from attention_theory.verify import summarize_registry

__all__ = ["REGISTRY_CSS", "mathjax_source", "offline_mathjax", "notebook_download", "build_finished"]

logger = logging.getLogger(__name__)

#: The registry tables fill the text column and wrap long cells instead of overflowing it.
REGISTRY_CSS = "\n".join((
    "table.attn-registry { table-layout: fixed; width: 100%; }",
    "table.attn-registry th, table.attn-registry td { font-size: 0.88em; }",
    "table.attn-registry td { overflow-wrap: anywhere; }",
    "/* inline code (module names) wraps too: the theme keeps it on one line, over the next column */",
    "table.attn-registry td code, table.attn-registry td code span.pre "
    "{ white-space: normal; overflow-wrap: anywhere; word-break: break-all; }",
    "table.attn-registry th { overflow-wrap: normal; hyphens: auto; }",
    "table.attn-registry th p, table.attn-registry td p { margin: 0; }",
    "button.attn-copy { font-size: 0.85em; padding: 0 0.4em; white-space: nowrap; }",
    "p.attn-claim-badge { font-size: 0.85em; margin: 0 0 0.5em 0; color: #444; }",
    "span.attn-status { padding: 0 0.35em; border-radius: 3px; color: #222; }",
    "div.attn-proof { padding: .4rem .6rem .4rem 2rem !important; border-color: var(--grey-border-color); }",
    "table.attn-errata-counts th { font-size: 0.8em; }",
    "/* a number glued into prose is part of the sentence, not an emphasis (myst-nb makes it bold) */",
    "span.pasted-text { font-weight: inherit; }",
    "/* outputs and code wrap instead of scrolling: nothing is cut off on the page or in print */",
    "div.cell_output pre, div.cell_input pre, div.output pre, article div.highlight pre "
    "{ white-space: pre-wrap; overflow-wrap: anywhere; }",
    "/* tables a chapter's code displays fit the column: cells wrap (a wide table would scroll out of "
    "sight) */",
    "div.cell_output table { table-layout: fixed; width: 100%; font-size: 0.85em; }",
    "div.cell_output table td, div.cell_output table th { overflow-wrap: anywhere; hyphens: auto; }",
    "/* a chapter's own tables: inline code (paths, calls) wraps, so a long path cannot widen the table "
    "past the column */",
    "article table.table td code, article table.table td code span.pre "
    "{ white-space: normal; overflow-wrap: anywhere; word-break: break-all; }",
    "/* ... and their text is a size smaller (formulas included): a five-column departures table fits */",
    "article table.table:not(.attn-registry) { font-size: 0.9em; }",
    "",
)) + "".join(f"span.attn-status-{k} {{ background: {v}; }}\n" for k, v in bp.STATUS_COLOURS.items())


def mathjax_source() -> Path | None:
    """The ``es5`` folder of the MathJax 3 distribution in site-packages, if installed."""
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    for root in (spec.submodule_search_locations or []) if spec else []:
        es5 = Path(root) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").exists():
            return es5
    return None


def offline_mathjax(app: Sphinx, config: Any) -> None:
    """Serve MathJax from ``_static/mathjax`` so the HTML renders math without network."""
    import shutil

    es5 = mathjax_source()
    if es5 is None:
        logger.warning("MathJax is not installed (pip package django-static-mathjax): "
                       "the book will load it from a CDN and needs network to show math")
        return
    staging = Path(app.outdir).parent / "mathjax-static"
    target = staging / "mathjax"
    if not (target / "tex-mml-chtml.js").exists():
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(es5, target)
    config.html_static_path = list(config.html_static_path) + [str(staging)]
    config.mathjax_path = "mathjax/tex-mml-chtml.js"


def notebook_download(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                      doctree: Any) -> None:
    """Offer each chapter as ``.ipynb`` (converted with jupytext) in the download menu."""
    if doctree is None or app.builder.format != "html":
        return
    src = Path(app.env.doc2path(pagename))
    if src.suffix != ".md" or not src.exists():
        return
    import jupytext

    nb = jupytext.read(src)
    if "kernelspec" not in nb.metadata:
        return
    out = Path(app.outdir) / "_sources" / (pagename + ".ipynb")
    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, out)
    context["ipynb_source"] = pagename + ".ipynb"


def build_finished(app: Sphinx, exc: Exception | None) -> None:
    """Write ``_static/attn-registry.css`` and ``claims.json`` into the HTML output."""
    if exc is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / "attn-registry.css").write_text(REGISTRY_CSS)
    recs = records(app)
    summary = summarize_registry(recs)
    stated = {k: {"docname": v.docname, "title": v.title, "uses": sorted(set(v.uses)),
                  "reconstructed": v.reconstructed}
              for k, v in sorted(statements(app.env).items())}
    out = {"claims": list(summary.values()), "records": recs, "statements": stated}
    Path(app.outdir, "claims.json").write_text(json.dumps(out, indent=1, sort_keys=True))
