"""Sphinx extension: version, build date, commit and citation links on every HTML page.

* ``config-inited`` stages ``README.md``, ``CITATION.cff`` and, when ``make pdf`` has built it,
  the whole book as one PDF (``_build/pdf/attention-theory-verified.pdf``) into
  ``_build/html-extra/``; ``build-finished`` copies them to the root of the HTML output (not
  ``html_extra_path``: its copy obeys ``exclude_patterns``, which lists ``README.md``).
* ``html-page-context`` fills the theme's extra footer (sphinx-book-theme ``extra_footer``) of
  every page with the package version, the build date and the git commit, and links to
  ``README.md``, ``CITATION.cff`` and the PDF (when built), relative to the page.

The footer's ``<div class="attn-build-info">`` carries ``data-version``, ``data-commit`` and
``data-date`` for the browser test (``tests/browser_check_html.py``).
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from attention_theory.provenance import git_commit, package_version

__all__ = ["PDF_NAME", "build_info", "footer_html", "setup"]

PDF_NAME = "attention-theory-verified.pdf"
EXTRA_FILES = ("README.md", "CITATION.cff")


def _dirty(root: Path) -> bool:
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                             capture_output=True, text=True, timeout=10)
        return out.returncode == 0 and bool(out.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return False


def build_info(root: str | os.PathLike) -> dict[str, Any]:
    """Version, commit (and whether the working tree differs from it) and build date (UTC,
    or ``SOURCE_DATE_EPOCH`` when set, for reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    now = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch
           else _dt.datetime.now(_dt.timezone.utc))
    return {"version": package_version(), "commit": git_commit(), "dirty": _dirty(Path(root)),
            "date": now.strftime("%Y-%m-%d")}


def footer_html(info: dict[str, Any], links: dict[str, str]) -> str:
    """The footer line: ``attention-theory v<version> · built <date> from commit <sha>`` and the
    links (label -> relative URL)."""
    e = html.escape
    commit = e(info["commit"]) + (" (with uncommitted changes)" if info.get("dirty") else "")
    parts = [f'<span class="attn-version">attention-theory book v{e(info["version"])}</span>',
             f'built <span class="attn-date">{e(info["date"])}</span> from commit '
             f'<code class="attn-commit">{commit}</code>']
    anchors = " · ".join(f'<a href="{e(url)}">{e(label)}</a>' for label, url in links.items())
    return (f'<div class="attn-build-info" data-version="{e(info["version"])}" '
            f'data-commit="{e(info["commit"])}" data-date="{e(info["date"])}">'
            + " · ".join(parts) + (f"<br/>{anchors}" if anchors else "") + "</div>")


def _config_inited(app: Sphinx, config: Any) -> None:
    root = Path(app.srcdir)
    build = Path(app.outdir).parent
    staging = build / "html-extra"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for name in EXTRA_FILES:
        if (root / name).is_file():
            shutil.copy2(root / name, staging / name)
    pdf = build / "pdf" / PDF_NAME
    if pdf.is_file():
        shutil.copy2(pdf, staging / PDF_NAME)
    app._attn_build_info = build_info(root)
    app._attn_extra_dir = staging
    app._attn_extra = sorted(p.name for p in staging.iterdir())


def _build_finished(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    for name in app._attn_extra:
        shutil.copy2(app._attn_extra_dir / name, Path(app.outdir) / name)


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: Any) -> None:
    if app.builder.format != "html":
        return
    pathto = context.get("pathto")
    extra = getattr(app, "_attn_extra", [])
    links = {}
    for label, name in (("PDF of the whole book", PDF_NAME), ("Cite: CITATION.cff", "CITATION.cff"),
                        ("README", "README.md")):
        if name in extra:
            links[label] = pathto(name, 1) if pathto else name
    context["theme_extra_footer"] = footer_html(app._attn_build_info, links)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
