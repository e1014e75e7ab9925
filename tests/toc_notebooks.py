"""Convert every chapter in ``_toc.yml`` that is a MyST notebook into ``.ipynb`` for nbval.

Usage: ``python tests/toc_notebooks.py OUTDIR [--paper KEY]``.  A chapter added to the table
of contents is picked up here without touching the tests.  Plain Markdown pages
(no ``kernelspec`` in their front matter) have no code to run and are skipped.  With
``--paper KEY`` only the chapters in ``book/KEY/`` are converted (``make test-paper``).
The notebooks are also what ``ruff`` lints of the chapters (``make lint``).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_files(toc: dict) -> list[str]:
    """All ``file:`` entries of a jupyter-book table of contents, in order."""
    out: list[str] = [toc["root"]]

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                out.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk({k: v for k, v in toc.items() if k != "root"})
    return out


def chapter_notebooks(paper: str | None = None) -> list[Path]:
    """The chapter files of ``_toc.yml`` (only those in ``book/<paper>/`` when ``paper`` is given)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    paths = []
    for entry in toc_files(toc):
        if paper is not None and not entry.startswith(f"book/{paper}/"):
            continue
        for suffix in (".md", ".ipynb"):
            p = ROOT / (entry + suffix)
            if p.exists():
                paths.append(p)
                break
        else:
            raise FileNotFoundError(f"_toc.yml lists {entry!r} but no .md/.ipynb file exists")
    return paths


def main(outdir: str, paper: str | None = None) -> None:
    out = Path(outdir)
    if out.exists():
        shutil.rmtree(out)
    chapters = chapter_notebooks(paper)
    if paper is not None and not chapters:
        raise SystemExit(f"error: _toc.yml lists no chapter in book/{paper}/")
    count = 0
    for src in chapters:
        nb = jupytext.read(src)
        if "kernelspec" not in nb.metadata or not any(c.cell_type == "code" for c in nb.cells):
            continue
        target = out / src.relative_to(ROOT).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        jupytext.write(nb, target)
        count += 1
    print(f"converted {count} chapter notebook(s) into {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", nargs="?", default="_build/nbval")
    ap.add_argument("--paper", default=None, help="convert only the chapters in book/PAPER/")
    args = ap.parse_args()
    main(args.outdir, args.paper)
