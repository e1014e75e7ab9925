"""``python -m attention_theory new-paper <key> --title "..." --cite <bibkey> [...]``: a new paper
that passes the gates as written (CONTRIBUTING.md, "Adding a paper").

It writes, in the repository this package belongs to:

* ``src/attention_theory/<key>/__init__.py``, ``model.py`` (one validated public function) and
  ``checks/<chapter>.py`` (one registered check, searched with
  :func:`~attention_theory.search.maximize_over_sizes`, its families of instances named);
* ``tests/<key>/test_nc_<chapter>.py`` (the check's negative control) and the function's fuzz
  example at the end of ``tests/fuzz/examples.py``;
* ``book/<key>/<chapter>.md`` (a MyST notebook: a statement box labelled with the claim ID
  ``<key>-lemma-1`` and the cell that runs its check);
* the paper's entry in :data:`attention_theory.papers.PAPERS`, its part of ``_toc.yml`` (before
  the Registry part) and a BibTeX stub in ``book/references.bib``.

The statement is a placeholder with a short proof (each row of ``softmax(X W X^T) X`` is a convex
combination of the tokens, so its norm is at most the largest token's): it shows the shape of a
chapter, and the author replaces it with the paper's first statement. ``--dry-run`` lists what
would be written; a key or chapter name that is taken or malformed is refused with one line.
``tests/core/test_scaffold.py`` runs the command in a copy of the repository and runs the gates
there.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import keyword
import re
import sys
from pathlib import Path
from typing import Sequence

from attention_theory.papers import PAPERS, Paper

__all__ = ["ScaffoldError", "new_paper", "render"]

#: The repository this package belongs to (``src/attention_theory/scaffold.py``, two levels down).
REPO = Path(__file__).resolve().parents[2]

KEY = re.compile(r"^[a-z][a-z0-9]*$")
CHAPTER = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
CITE = re.compile(r"^[A-Za-z][A-Za-z0-9_:.-]*$")
#: The part of ``_toc.yml`` that a new paper's part goes before.
REGISTRY_PART = "  - caption: Registry"


class ScaffoldError(ValueError):
    """A key, chapter or cite key that cannot be used, or a repository file that cannot be edited."""


@dataclasses.dataclass(frozen=True)
class _Names:
    key: str
    title: str
    cite: str
    short: str
    chapter: str
    covers: str
    year: int

    @property
    def module(self) -> str:
        return self.chapter.replace("-", "_")


def _single_line(text: object, name: str) -> str:
    if not isinstance(text, str) or not text.strip() or "\n" in text:
        raise ScaffoldError(f"{name} must be one non-empty line of text, got {text!r}")
    return text.strip()


def _doc(text: str) -> str:
    """``text`` inside a Python docstring (backslashes and double quotes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _names(key: object, title: object, cite: object, short: object, chapter: object, covers: object,
           year: int | None) -> _Names:
    """The names of a new paper, each checked for its form (not for being free: :func:`_check_free`)."""
    if not isinstance(key, str) or not KEY.match(key) or keyword.iskeyword(key):
        raise ScaffoldError(f"key must be lower-case letters and digits, starting with a letter "
                            f"(it names the package and prefixes claim IDs), got {key!r}")
    n = _Names(key=key, title=_single_line(title, "title"), cite=_single_line(cite, "cite"),
               short=_single_line(short, "short") if short is not None else key.capitalize(),
               chapter=_single_line(chapter, "chapter"),
               covers=_single_line(covers, "covers") if covers is not None
               else "its first statement (a placeholder)",
               year=_dt.date.today().year if year is None else int(year))
    if not CHAPTER.match(n.chapter) or keyword.iskeyword(n.module):
        raise ScaffoldError(f"chapter must be lower-case words joined by hyphens (the file "
                            f"book/<key>/<chapter>.md), got {n.chapter!r}")
    if not CITE.match(n.cite):
        raise ScaffoldError(f"cite must be a BibTeX key (letters, digits, _:.-), got {n.cite!r}")
    return n


def _check_free(root: Path, n: _Names) -> None:
    known = [p.key for p in PAPERS]
    if n.key in known:
        raise ScaffoldError(f"key {n.key!r} is taken: the papers are {known}")
    pkg = root / "src" / "attention_theory"
    for taken in (pkg / n.key, pkg / f"{n.key}.py", root / "book" / n.key, root / "tests" / n.key):
        if taken.exists():
            raise ScaffoldError(f"key {n.key!r} is taken: {taken.relative_to(root)} exists")
    if n.key in ("core", "fuzz", "models", "bounds", "data", "optim", "experiments", "checks"):
        raise ScaffoldError(f"key {n.key!r} names a folder of the tests or a layer of the package "
                            "(tests/core/test_layout.py::test_the_package_is_arranged_by_paper)")
    bib = (root / "book" / "references.bib").read_text()
    if re.search(rf"@\w+\{{\s*{re.escape(n.cite)}\s*,", bib):
        raise ScaffoldError(f"cite key {n.cite!r} is already in book/references.bib")


# ------------------------------------------------------------------------------ the new files

def _init(n: _Names) -> str:
    return f'''"""{_doc(n.short)}, {_doc(n.title)}.

* :mod:`~.model` the paper's model;
* :mod:`~.checks` the registered checks, one module per chapter of ``book/{n.key}/``.
"""
'''


def _model(n: _Names) -> str:
    return f'''"""The model of {_doc(n.short)}: single-head self-attention without a value matrix
(the placeholder that ``python -m attention_theory new-paper`` wrote; replace it with the paper's
model)."""

from __future__ import annotations

from typing import Any

import torch

from attention_theory.validation import as_tensor, refuses_overflow

__all__ = ["attention_rows"]


@refuses_overflow
def attention_rows(X: Any, W: Any) -> torch.Tensor:
    """``softmax(X W X^T) X`` with the softmax over each row of the scores.

    ``X`` ``(T, d)`` tokens, ``W`` ``(d, d)``; returns ``(T, d)`` in float64 (gradients kept):
    each row is a convex combination of the tokens.
    """
    X = as_tensor(X, "X", ndim=2)
    W = as_tensor(W, "W", shape=(X.shape[1], X.shape[1]))
    return torch.softmax(X @ W @ X.T, dim=-1) @ X
'''


def _checks_init(n: _Names) -> str:
    return ('"""Registered checks of this paper, one module per chapter of ``book/<paper>/`` (found by\n'
            ':func:`attention_theory.papers.check_modules`)."""\n')


def _check_module(n: _Names) -> str:
    return f'''"""Checks of ``book/{n.key}/{n.chapter}.md``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.search import maximize_over_sizes
from attention_theory.{n.key} import model
from attention_theory.verify import CheckRecord, check_bound, claim_check

#: Sizes ``(T, d)`` searched, the smallest first (with one token the two sides are equal).
_SIZES = ((1, 1), (2, 2), (4, 3))


def _ratio(size: tuple[int, int], z: Any) -> torch.Tensor:
    """``max_t ||row_t|| / max_s ||x_s||`` at ``z`` (the entries of ``X``, then of ``W``)."""
    T, d = size
    z = torch.as_tensor(z, dtype=VERIFICATION_DTYPE)
    X, W = z[: T * d].reshape(T, d), z[T * d:].reshape(d, d)
    return model.attention_rows(X, W).norm(dim=1).max() / X.norm(dim=1).max()


def _start(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    T, d = size
    return rng.standard_normal(T * d + d * d) * rng.uniform(0.1, 3.0)


@claim_check("{n.key}-lemma-1", "rows-within-largest-token")
def check_rows_within_largest_token(*, C: float = 1.0, seed: int = 0) -> CheckRecord:
    """``{n.key}-lemma-1``: ``max_t ||(softmax(X W X^T) X)_t|| <= C max_s ||x_s||`` with ``C = 1``,
    on random ``(X, W)`` and on the instances an adversarial search finds."""
    rng = np.random.default_rng(seed)
    ratios = [float(_ratio(size, _start(size, rng))) for size in _SIZES for _ in range(pick(20, 2000))]
    search = maximize_over_sizes(_ratio, _start, _SIZES, restarts=pick(2, 8), steps=pick(30, 200),
                                 seed=seed)
    lhs = np.array([*ratios, search.best_value])
    return check_bound(lhs, C * np.ones_like(lhs), "max_t ||row_t||_2 <= C max_s ||x_s||_2",
                       seed=seed, params={{"C": C}}, search=search,
                       families=["random X, W: standard normal entries times a scale in [0.1, 3], "
                                 "(T, d) in (1, 1), (2, 2), (4, 3)",
                                 "adversarial L-BFGS + Nelder-Mead over the same sizes",
                                 "one token (T = 1): the row is the token, the two sides are equal"])
'''


def _control(n: _Names) -> str:
    return f'''"""Negative controls of the checks of ``book/{n.key}/{n.chapter}.md``."""

from _nc import negative_control
from attention_theory.{n.key}.checks import {n.module}


def test_nc_rows_within_largest_token_constant_halved():
    with negative_control("{n.key}-lemma-1", "rows-within-largest-token"):
        {n.module}.check_rows_within_largest_token(C=0.5)
'''


def _chapter(n: _Names) -> str:
    return f'''---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# {n.title}

This part of the book follows {{cite:t}}`{n.cite}`. Its first chapter was written by
`python -m attention_theory new-paper {n.key}`: the statement below is a placeholder that shows
the shape of a chapter (a statement box whose label is its claim ID, the cell that runs its
check, and the record the check prints). Replace it with the paper's first statement.

```{{code-cell}} ipython3
from attention_theory.{n.key}.checks import {n.module} as checks
```

## Attention averages the tokens

Single-head self-attention without a value matrix maps tokens $X\\in\\mathbb R^{{T\\times d}}$
(rows $x_1,\\dots,x_T$) to $\\operatorname{{softmax}}(XWX^\\top)X$, the softmax taken over each row.

````{{prf:lemma}} Attention rows stay within the largest token
:label: {n.key}-lemma-1

For all $X\\in\\mathbb R^{{T\\times d}}$ and $W\\in\\mathbb R^{{d\\times d}}$, every row of
$\\operatorname{{softmax}}(XWX^\\top)X$ has Euclidean norm at most $\\max_s\\|x_s\\|_2$.
````

```{{prf:proof}}
A row is $\\sum_s p_sx_s$ with $p_s\\ge0$ and $\\sum_sp_s=1$, so by the triangle inequality its
norm is at most $\\sum_sp_s\\|x_s\\|_2\\le\\max_s\\|x_s\\|_2$.
```

The check compares the two sides on random instances and on those an adversarial search finds,
for $(T,d)$ from $(1,1)$ up. With one token the row is the token, so the bound is attained.

```{{code-cell}} ipython3
checks.check_rows_within_largest_token()
```
'''


def _fuzz_example(n: _Names) -> str:
    return (f"\n# {n.key}: the model's public function (written by `python -m attention_theory "
            f"new-paper {n.key}`)\n"
            f'EXAMPLES["attention_theory.{n.key}.model.attention_rows"] = lambda: dict(\n'
            f"    X=unif((3, 2)), W=unif((2, 2), seed=1))\n")


# ---------------------------------------------------------------------- edits of shared files

def _paper_entry(n: _Names) -> str:
    """The ``Paper(...)`` line for :data:`PAPERS`, from the fields :class:`Paper` has now."""
    given = {"key": n.key, "short": n.short, "cite": n.cite, "title": n.title, "covers": n.covers}
    args = []
    for f in dataclasses.fields(Paper):
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if f.name in given:
            args.append(f"{f.name}={_literal(given[f.name], 10 + len(f.name) + 1)}")
        elif not has_default:
            raise ScaffoldError(f"Paper has a field {f.name!r} that new-paper does not know: "
                                "add it to attention_theory/scaffold.py")
    return "    Paper(" + ",\n          ".join(args) + "),\n"


def _literal(value: str, indent: int, width: int = 70) -> str:
    """A Python string literal for ``value``, split at spaces into adjacent literals of at most
    about ``width`` characters, one per line (continuation lines indented by ``indent``), so that
    no line of the entry exceeds the line-length rule."""
    pieces, line = [], ""
    for word in value.split(" "):
        if line and len(line) + 1 + len(word) > width:
            pieces.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    pieces.append(line)
    return ("\n" + " " * indent).join(json.dumps(p, ensure_ascii=False) for p in pieces)


def _add_paper(text: str, entry: str) -> str:
    start = text.find("PAPERS: tuple[Paper, ...] = (")
    end = text.find("\n)\n", start)
    if start < 0 or end < 0:
        raise ScaffoldError("src/attention_theory/papers.py: no block `PAPERS: tuple[Paper, ...] = (` "
                            "... `)` to add the paper to")
    new = text[: end + 1] + entry + text[end + 1:]
    compile(new, "papers.py", "exec")
    return new


def _toc_part(n: _Names) -> str:
    caption = f"{n.short} — {n.title}"
    if re.search(r"""[:#{}\[\],&*!|>'"%@`]""", caption):
        caption = json.dumps(caption, ensure_ascii=False)
    return f"  - caption: {caption}\n    chapters:\n      - file: book/{n.key}/{n.chapter}\n"


def _add_toc_part(text: str, part: str) -> str:
    at = text.find(f"\n{REGISTRY_PART}\n")
    if at < 0:
        raise ScaffoldError(f"_toc.yml: no part {REGISTRY_PART.strip()!r} to put the new part before")
    return text[: at + 1] + part + text[at + 1:]


def _bib_entry(n: _Names) -> str:
    title = n.title.replace("{", "").replace("}", "")
    return (f"@misc{{{n.cite},\n  title  = {{{title}}},\n  author = {{Surname, Given}},\n"
            f"  year   = {{{n.year}}},\n  note   = {{A stub written by new-paper: complete it (authors, "
            f"venue, version the book follows)}}\n}}\n")


def _add_bib(text: str, entry: str) -> str:
    last = PAPERS[-1].cite if PAPERS else None
    m = re.search(rf"@\w+\{{\s*{re.escape(last)}\s*,.*?\n\}}\n", text, re.S) if last else None
    if m is None:
        return text.rstrip("\n") + "\n\n" + entry
    return text[: m.end()] + "\n" + entry + text[m.end():]


# --------------------------------------------------------------------------------- the command

def render(key: str, *, title: str, cite: str, short: str | None = None, chapter: str = "first-lemma",
           covers: str | None = None, year: int | None = None) -> dict[str, dict[str, str]]:
    """What :func:`new_paper` writes for these names, without writing: ``{"files": {path: text},
    "additions": {path: text}}`` with paths relative to the repository (the new files, and the
    text added to ``papers.py``, ``_toc.yml``, ``book/references.bib`` and
    ``tests/fuzz/examples.py``). CONTRIBUTING.md shows these texts for the key ``toy``."""
    n = _names(key, title, cite, short, chapter, covers, year)
    pkg = f"src/attention_theory/{n.key}"
    files = {
        f"{pkg}/__init__.py": _init(n),
        f"{pkg}/model.py": _model(n),
        f"{pkg}/checks/__init__.py": _checks_init(n),
        f"{pkg}/checks/{n.module}.py": _check_module(n),
        f"tests/{n.key}/test_nc_{n.module}.py": _control(n),
        f"book/{n.key}/{n.chapter}.md": _chapter(n),
    }
    additions = {
        "src/attention_theory/papers.py": _paper_entry(n),
        "_toc.yml": _toc_part(n),
        "book/references.bib": _bib_entry(n),
        "tests/fuzz/examples.py": _fuzz_example(n),
    }
    return {"files": files, "additions": additions}


_EDITS = {
    "src/attention_theory/papers.py": lambda text, added: _add_paper(text, added),
    "_toc.yml": lambda text, added: _add_toc_part(text, added),
    "book/references.bib": lambda text, added: _add_bib(text, added),
    "tests/fuzz/examples.py": lambda text, added: text.rstrip("\n") + "\n" + added,
}


def new_paper(key: str, *, title: str, cite: str, short: str | None = None, chapter: str = "first-lemma",
              covers: str | None = None, year: int | None = None, root: Path | str | None = None,
              dry_run: bool = False) -> list[Path]:
    """Write a new paper ``key`` into the repository ``root`` (default: this package's) and
    return the files written or edited (with ``dry_run``, the files it would write, unwritten).

    ``title`` and ``cite`` (its BibTeX key) are required; ``short`` is how the book names it
    (default: the key, capitalized), ``chapter`` the first chapter's file name, ``covers`` what
    the book covers of it (default: its first chapter's placeholder statement). Raises
    :class:`ScaffoldError` for a key, chapter or cite key that is taken or malformed.
    """
    base = Path(REPO if root is None else root)
    if not (base / "_toc.yml").is_file() or not (base / "src" / "attention_theory" / "papers.py").is_file():
        raise ScaffoldError(f"root {str(base)!r} is not a clone of the book (no _toc.yml or "
                            "src/attention_theory/papers.py)")
    n = _names(key, title, cite, short, chapter, covers, year)
    _check_free(base, n)
    out = render(key, title=title, cite=cite, short=short, chapter=chapter, covers=covers, year=n.year)
    texts = {base / rel: text for rel, text in out["files"].items()}
    for rel, added in out["additions"].items():  # every edit is made (and checked) before any write
        texts[base / rel] = _EDITS[rel]((base / rel).read_text(), added)
    if not dry_run:
        for path, text in texts.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return list(texts)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m attention_theory new-paper",
                                 description="Write a new paper (package folder, first chapter, a check "
                                             "with its search and negative control, a validated function "
                                             "with its fuzz example, the papers.py entry, the _toc.yml "
                                             "part and a BibTeX stub) that passes `make test` as written.")
    ap.add_argument("key", help="the paper's key: package name and claim-ID prefix (e.g. smith)")
    ap.add_argument("--title", required=True, help="the paper's title")
    ap.add_argument("--cite", required=True,
                    help="its BibTeX key (a stub is added to book/references.bib)")
    ap.add_argument("--short", default=None, help="how the book names it, e.g. 'Smith & Jones (2025)'")
    ap.add_argument("--chapter", default="first-lemma",
                    help="the first chapter's file name (default: %(default)s)")
    ap.add_argument("--covers", default=None, help="what the book covers of the paper (one line)")
    ap.add_argument("--dry-run", action="store_true", help="list the files it would write, write nothing")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attention_theory new-paper <key> --title ... --cite ... [options]``."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        paths = new_paper(args.key, title=args.title, cite=args.cite, short=args.short, chapter=args.chapter,
                          covers=args.covers, dry_run=args.dry_run)
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    root = REPO
    verb = "would write" if args.dry_run else "wrote"
    for p in paths:
        print(f"{verb} {p.relative_to(root) if p.is_relative_to(root) else p}")
    if not args.dry_run:
        print(f"next: make test-paper PAPER={args.key}, then replace the placeholder statement "
              f"(CONTRIBUTING.md, Adding a paper)")
    return 0
