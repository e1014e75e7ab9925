"""A copy of the repository that a test may add a paper to (``tests/core/test_scaffold.py``),
commands run inside it, and the recipes of ``CONTRIBUTING.md`` (its ``new-paper`` command and its
Python snippets, also read by ``tests/core/test_contributing.py``).

The copy holds ``src/`` (with its ``__pycache__``, so that nothing is compiled again), ``tests/``,
``book/``, ``_toc.yml``, ``_config.yml``, ``pyproject.toml`` and ``CONTRIBUTING.md``; ``results/``
is a link to the repository's (read only: nothing run in the copy writes there). Commands run
with this interpreter (the same ``.venv``), ``PYTHONPATH`` pointing at the copy's ``src/`` (it
comes before the editable install), at smoke scale, one thread, records in the copy's ``_build/``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from attention_theory import scaffold

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
RUFF = str(Path(PYTHON).with_name("ruff"))
COPIED = ("src", "tests", "book", "_toc.yml", "_config.yml", "pyproject.toml", "CONTRIBUTING.md")
_IGNORE = shutil.ignore_patterns("*.egg-info", ".ipynb_checkpoints", ".pytest_cache", "_build")


def copy_repository(dest: Path) -> Path:
    """Copy the repository into ``dest`` (see the module docstring) and return ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=_IGNORE, symlinks=True)
        elif src.exists():
            shutil.copy2(src, dest / name)
    if (ROOT / "results").exists():
        (dest / "results").symlink_to(ROOT / "results")
    return dest


def environment(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a command run in the copy ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ATTN_", "PYTEST_", "COV_"))}
    env.update(PYTHONPATH=str(root / "src"), ATTN_SCALE="smoke", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               ATTN_REGISTRY_DIR=str(root / "_build" / "test-registry"), PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def run(root: Path, command: Sequence[str], *, timeout: float = 600, **extra: str) -> str:
    """Run ``command`` in the copy ``root``; its output, or ``AssertionError`` with its end."""
    proc = subprocess.run(list(command), cwd=root, env=environment(root, **extra), capture_output=True,
                          text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise AssertionError(f"`{' '.join(command)}` exited with {proc.returncode} in the copy:\n"
                             f"{out[-6000:]}")
    return out


# ------------------------------------------------------------------------- CONTRIBUTING.md recipes

CONTRIBUTING = ROOT / "CONTRIBUTING.md"
#: The first line of every Python block of CONTRIBUTING.md: the file it is, or is added to.
MARKER = re.compile(r"^# (\S+\.py)( \(added at the end\))?$")


@dataclasses.dataclass(frozen=True)
class Snippet:
    """A Python block of CONTRIBUTING.md: ``path`` (relative to the repository), whether it is
    ``added`` at the end of that file (else it is the whole file) and its ``text`` (the block
    without its first line, ending in a newline)."""

    path: str
    added: bool
    text: str


def python_blocks(text: str) -> list[str]:
    """The contents of every ```` ```python ```` block of a Markdown text."""
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


def snippets(text: str) -> list[Snippet]:
    """The Python blocks of ``text`` as :class:`Snippet`; ``ValueError`` naming a block without
    the first line ``# <path>`` or ``# <path> (added at the end)``."""
    out = []
    for block in python_blocks(text):
        first, _, rest = block.partition("\n")
        m = MARKER.match(first)
        if m is None:
            raise ValueError(f"a Python block of CONTRIBUTING.md does not start with '# <path>': {first!r}")
        out.append(Snippet(m.group(1), bool(m.group(2)), rest))
    return out


def new_paper_arguments(text: str) -> list[str]:
    """The arguments of the ``.venv/bin/python -m attention_theory new-paper`` command of the
    recipe (the interpreter that ``make install`` creates: a fresh clone has no other with the
    package)."""
    m = re.search(r"^\.venv/bin/python -m attention_theory new-paper (.+)$", text, re.M)
    if m is None:
        raise ValueError("CONTRIBUTING.md shows no `.venv/bin/python -m attention_theory new-paper ...` "
                         "command")
    return shlex.split(m.group(1))


def rekeyed(text: str, key: str) -> str:
    """The recipe ``text`` with its paper's key (the first argument of its ``new-paper`` command)
    replaced by ``key`` wherever it is a key: in paths, module names, claim IDs and the BibTeX key
    it starts (``toy2025attention``); capitalized words (``Toy & Model``) stay."""
    old = new_paper_arguments(text)[0]
    return re.sub(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![a-z_])", key, text)


def free_recipe(text: str, root: Path = ROOT) -> str:
    """The recipe ``text``, re-keyed (:func:`rekeyed`) if its key or cite key is taken in the
    repository ``root``: a clone where someone ran the recipe already (``toy`` exists) tests the
    recipe as ``toyb``; ``LookupError`` if no key up to ``toyz`` is free."""
    old = new_paper_arguments(text)[0]
    for key in (old, *(old + c for c in "bcdefghijklmnopqrstuvwxyz")):
        candidate = rekeyed(text, key)
        args = scaffold._parser().parse_args(new_paper_arguments(candidate))
        try:
            scaffold.new_paper(args.key, title=args.title, cite=args.cite, short=args.short,
                               chapter=args.chapter, covers=args.covers, root=root, dry_run=True)
        except scaffold.ScaffoldError:
            continue
        return candidate
    raise LookupError(f"no free key for the recipe of CONTRIBUTING.md in {root} ({old}, {old}b ... {old}z)")


def add_snippets(root: Path, items: Sequence[Snippet]) -> list[str]:
    """Write the snippets into the copy ``root`` (an added one only if the file lacks it); the
    paths written."""
    for s in items:
        path = root / s.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not s.added:
            path.write_text(s.text)
        elif s.text not in path.read_text():
            path.write_text(path.read_text().rstrip("\n") + "\n" + s.text)
    return sorted({s.path for s in items})
