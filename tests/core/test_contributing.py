"""CONTRIBUTING.md keeps its promises, and no page types a count of the papers by hand.

* every rule (a bullet of its "Rules" section) names the test that keeps it (``tests/...py`` or
  ``tests/...py::test_name``, each of which exists) or the lint gate (``make lint``);
* its "Gates" table names every test file of ``tests/core`` and the fuzz suite;
* its Python snippets each say which file they are (``# <path>``, or ``# <path> (added at the
  end)``), and those that ``new-paper`` writes are exactly what it writes for the recipe's
  command; ``tests/core/test_scaffold.py`` writes them all into a copy of the repository with
  that command's output and runs the gates there (ruff, layout, conventions, their negative
  control and unit test, their fuzz examples);
* no Markdown page outside a paper's folder (nor the README, CITATION.cff, pyproject.toml or a
  docstring of the package) says "<number> papers" with a number other than the count of
  :data:`attention_theory.papers.PAPERS` (run in the copy with one more paper, the test finds the
  counts that are right today and wrong tomorrow).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from _repo_copy import CONTRIBUTING, new_paper_arguments, python_blocks, snippets
from attention_theory import papers, scaffold

ROOT = Path(__file__).resolve().parents[2]
TEXT = CONTRIBUTING.read_text()
REF = re.compile(r"`(tests/[\w/.-]+\.py)(?:::(\w+))?`")


def _section(title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert m, f"CONTRIBUTING.md has no section '## {title}'"
    return m.group(1)


def _bullets(section: str) -> list[str]:
    """The top-level bullets of a section, each with its (indented) continuation lines."""
    out: list[list[str]] = []
    current: list[str] | None = None
    for line in section.splitlines():
        if line.startswith("- "):
            current = [line[2:]]
            out.append(current)
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(b) for b in out]


def _missing_reference(path: str, name: str | None) -> str | None:
    f = ROOT / path
    if not f.is_file():
        return f"{path} does not exist"
    if name and not re.search(rf"^def {re.escape(name)}\(", f.read_text(), re.M):
        return f"{path} has no test {name}"
    return None


def test_every_rule_names_its_test():
    rules = _bullets(_section("Rules"))
    assert len(rules) > 30, f"the Rules section lists {len(rules)} rules: has its format changed?"
    unnamed = [b[:100] for b in rules if not REF.search(b) and "`make lint`" not in b]
    assert not unnamed, f"rules of CONTRIBUTING.md that name no test: {unnamed}"
    named = REF.findall(_section("Rules") + _section("Gates"))
    stale = sorted({msg for path, name in named if (msg := _missing_reference(path, name))})
    assert not stale, f"tests named by CONTRIBUTING.md that do not exist: {stale}"


def test_the_gates_name_every_core_test():
    gates = _section("Gates")
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "core").glob("test_*.py"))
    missing = [f for f in [*files, "tests/fuzz/test_fuzz_public_api.py"] if f"`{f}`" not in gates]
    assert not missing, f"test files the Gates section of CONTRIBUTING.md does not name: {missing}"


def test_the_python_snippets_are_what_new_paper_writes():
    items = snippets(TEXT)  # ValueError: a block that does not say which file it is
    assert len(items) == len(python_blocks(TEXT)) >= 5
    args = scaffold._parser().parse_args(new_paper_arguments(TEXT))
    written = scaffold.render(args.key, title=args.title, cite=args.cite, short=args.short,
                              chapter=args.chapter, covers=args.covers)
    key, module = args.key, args.chapter.replace("-", "_")
    own = (f"src/attention_theory/{key}/", f"tests/{key}/")
    outside = [s.path for s in items
               if not (s.path.startswith(own) or (s.added and s.path == "tests/fuzz/examples.py"))]
    assert not outside, f"snippets outside the toy paper's files: {outside}"
    shown = {s.path: s for s in items if not s.added}
    for path in (f"src/attention_theory/{key}/model.py", f"src/attention_theory/{key}/checks/{module}.py",
                 f"tests/{key}/test_nc_{module}.py"):
        assert path in shown, f"CONTRIBUTING.md shows no snippet of {path}"
    differ = [p for p, s in shown.items() if p in written["files"] and s.text != written["files"][p]]
    assert not differ, f"snippets that differ from what new-paper writes (update one of them): {differ}"
    added = [s.text for s in items if s.added]
    assert written["additions"]["tests/fuzz/examples.py"] in added, \
        "CONTRIBUTING.md does not show the fuzz example that new-paper adds"


NUMBER = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
COUNT = re.compile(rf"\b({'|'.join(NUMBER)}|\d+)\s+papers\b", re.I)


def _prose_files() -> list[Path]:
    paper_folders = {ROOT / "book" / p.key for p in papers.PAPERS}
    skip = {".venv", "_build", "node_modules", ".git", "__pycache__"}
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in skip and Path(folder, d) not in paper_folders)
        out += [Path(folder, f) for f in sorted(files) if f.endswith(".md")]
    out += [ROOT / n for n in ("CITATION.cff", "pyproject.toml") if (ROOT / n).exists()]
    return out + sorted((ROOT / "src").rglob("*.py"))


def test_no_hand_typed_paper_counts():
    n = len(papers.PAPERS)
    bad = []
    for f in _prose_files():
        for k, line in enumerate(f.read_text().splitlines(), start=1):
            for m in COUNT.finditer(line):
                word = m.group(1).lower()
                if (int(word) if word.isdigit() else NUMBER[word]) != n:
                    bad.append(f"{f.relative_to(ROOT)}:{k}: {m.group(0)!r}")
    assert not bad, (f"counts of papers typed by hand (papers.py lists {n}; name them or say 'the papers'):"
                     "\n  " + "\n  ".join(bad))
