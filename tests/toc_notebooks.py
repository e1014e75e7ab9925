"""Convert every chapter in ``_toc.yml`` that is a MyST notebook into ``.ipynb`` for nbval.

Usage: ``python tests/toc_notebooks.py OUTDIR``.  A chapter added to the table
of contents is picked up here without touching the tests.  Plain Markdown pages
(no ``kernelspec`` in their front matter) have no code to run and are skipped.
"""

from __future__ import annotations

import shutil
import sys
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


def chapter_notebooks() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    paths = []
    for entry in toc_files(toc):
        for suffix in (".md", ".ipynb"):
            p = ROOT / (entry + suffix)
            if p.exists():
                paths.append(p)
                break
        else:
            raise FileNotFoundError(f"_toc.yml lists {entry!r} but no .md/.ipynb file exists")
    return paths


def main(outdir: str) -> None:
    out = Path(outdir)
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for src in chapter_notebooks():
        nb = jupytext.read(src)
        if "kernelspec" not in nb.metadata or not any(c.cell_type == "code" for c in nb.cells):
            continue
        target = out / src.relative_to(ROOT).with_suffix(".ipynb")
        target.parent.mkdir(parents=True, exist_ok=True)
        jupytext.write(nb, target)
        count += 1
    print(f"converted {count} chapter notebook(s) into {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "_build/nbval")
