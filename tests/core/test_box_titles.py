"""One numbering in statement titles and headings.

The book numbers its statement boxes itself ("Lemma 12 (...)"), so a paper's own numbering may
appear in a box title or a heading only in one fixed form, ``<Authors>, <Location>``, at the head
of a parenthetical::

    Descent lemma (Deora et al., Lemma 7, Eq. 68; main text Eq. 13)
    Imported covering lemma (Trauger & Tewari, Lemma 3.5; restating Edelman et al. 2022, Lemma 4.6)

Checked here, by parsing the text of ``book/<paper>/*.md`` (no Sphinx):

* a location of the chapter's own paper (``Lemma 7``, ``Eq. 68``, ``App. G``, ...) in a ``prf``
  box title or a heading stands inside a parenthetical whose first own-paper location is
  immediately preceded by ``<Authors>, ``; a location outside any parenthetical is a bare
  number and fails;
* locations of other papers are left alone when their authors precede them (``Edelman et al.,
  Lemma A.15``);
* spelling: ``Eq. 42`` (not ``Eq. (42)`` or a bare ``(42)``), ``Theorem``/``Corollary``/``App.``/
  ``Sec.`` (not ``Thm.``/``Cor.``/``Appendix``/``Section``).

Bracketed tags (``[reconstructed]``, ``— [fragment: ... Lemma 13 ...]``) and ``$...$`` math are
not part of the title's numbering and are skipped.  Box titles in ``book/foundations`` cite the
paper named by their label's prefix (``deora-``, ``trauger-``, ...).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_theory.papers import PAPERS

BOOK = Path(__file__).resolve().parents[2] / "book"



def box_authors(short: str) -> str:
    """How a box title names a paper, from its ``Paper.short``: one or two authors by name,
    three or more as the first ``et al.`` (``"Qin, Zhou & Zhu (2025)"`` -> ``"Qin et al."``)."""
    names = re.sub(r"\s*\(\d{4}\)\s*$", "", short).strip()
    if names.endswith("et al."):
        return names
    authors = [a.strip() for a in re.split(r",|&", names) if a.strip()]
    return f"{authors[0]} et al." if len(authors) > 2 else " & ".join(authors)


#: Every paper of papers.py, by key (a new paper's boxes are checked too).
AUTHORS = {p.key: box_authors(p.short) for p in PAPERS}
FOLDERS = (*AUTHORS, "foundations")

_KEYWORDS = (r"Lemmas?|Theorems?|Corollary|Corollaries|Propositions?|Definitions?|Assumptions?|Facts?"
             r"|Figures?|Eqs?\.|Secs?\.|App\.|Thm\.|Cor\.|Prop\.|Lem\.|Def\.|Fig\.|Appendix|Appendices"
             r"|Sections?|Equations?")
#: A numbered location: a keyword followed by a number, an appendix letter or a tag like DM1.
LOCATION = re.compile(rf"\b(?:{_KEYWORDS})\s+(?:\(\d+\w*\)|\d[\w.]*|[A-Z]{{1,3}}\d\w*|[A-Z](?:\.\d+)*\b)")
#: Authors of a cited paper, e.g. "Edelman et al.", "Lei & Ying", "TF-as-SVM".
AUTHOR_MARK = re.compile(r"[A-Z][\w'’-]*(?:[–-][A-Z][\w'’-]*)?(?: et al\.| & [A-Z][\w'’-]+)|TF-as-SVM")
#: Spellings the fixed form does not use.
BAD_SPELLING = [
    (re.compile(r"\bEqs?\.\s*\("), "write 'Eq. N', without parentheses around the number"),
    (re.compile(r"(?<![\w$])\(\d+[a-z]?\)"), "a bare equation number '(N)': write 'Eq. N'"),
    (re.compile(r"\b(?:Thm|Cor|Prop|Lem|Def|Fig)\.\s"), "abbreviation: spell 'Theorem', 'Corollary', ..."),
    (re.compile(r"\b(?:Appendix|Appendices|Sections?|Equations?)\s+[A-Z0-9]"), "write 'App.', 'Sec.', 'Eq.'"),
]

PRF_OPEN = re.compile(r"^\s*(`{3,}|:{3,})\{prf:(\w+)\}[ \t]*(.*?)\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _strip(title: str) -> str:
    """The title without ``$...$`` math (kept as a placeholder) and without bracketed tags."""
    title = re.sub(r"\$[^$]*\$", "M", title)
    out, depth = [], 0
    for ch in title:
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return re.sub(r"\s*—\s*$", "", "".join(out)).strip()


def _groups(text: str) -> list[tuple[int, int]]:
    """Spans (inside the parentheses) of the top-level parentheticals of ``text``."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i))
    return spans


def _own_prefix_ok(before: str, own: str | None) -> bool:
    names = [own] if own else list(AUTHORS.values())
    return any(before.endswith(f"{name}, ") for name in names)


def title_problems(title: str, own: str | None) -> list[str]:
    """What is wrong with ``title`` (a box title or a heading) for a chapter of the paper by ``own``
    (``None``: any of the book's papers)."""
    text = _strip(title)
    problems = [f"{msg}: {m.group(0)!r}" for rx, msg in BAD_SPELLING for m in rx.finditer(text)]
    spans = _groups(text)
    first_own_seen: set[tuple[int, int]] = set()
    for m in LOCATION.finditer(text):
        span = next((s for s in spans if s[0] <= m.start() < s[1]), None)
        if span is None:
            if not re.search(rf"(?:{AUTHOR_MARK.pattern})(?: \d{{4}})?,? $", text[:m.start()]):
                problems.append(f"bare location outside a parenthetical: {m.group(0)!r}")
            continue
        segment_start = max(span[0], text.rfind(";", span[0], m.start()) + 1)
        marks = list(AUTHOR_MARK.finditer(text, segment_start, m.start()))
        if marks:
            name = marks[-1].group(0)
            other = name not in AUTHORS.values() if own is None else name != own
            if other:
                continue  # another paper's location, introduced by its authors
        if span in first_own_seen:
            continue
        first_own_seen.add(span)
        if not _own_prefix_ok(text[span[0]:m.start()], own):
            problems.append(f"{m.group(0)!r} is not preceded by '{own or '<Authors>'}, '")
    return problems


def _paper(path: Path) -> str:
    return path.relative_to(BOOK).parts[0]


def _chapters() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (BOOK / folder).glob("*.md"))


def box_titles(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, title, label)`` of the ``prf`` boxes of a chapter (proofs have no title)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        m = PRF_OPEN.match(line)
        if not m or m.group(2) == "proof" or not m.group(3):
            continue
        label = None
        for opt in lines[i + 1:]:
            if not opt.startswith(":"):
                break
            if opt.startswith(":label:"):
                label = opt.split(":", 2)[2].strip()
        out.append((i + 1, m.group(3), label))
    return out


def headings(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of the Markdown headings of a chapter outside any fence (code cells,
    directives) and outside the front matter."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, stack = [], []
    i = 0
    if lines and lines[0].strip() == "---":
        i = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), 0) + 1
    for n in range(i, len(lines)):
        line = lines[n]
        f = FENCE.match(line)
        if f:
            mark, info = f.group(1), f.group(2).strip()
            if stack and not info and mark[0] == stack[-1][0] and len(mark) >= len(stack[-1]):
                stack.pop()
            else:
                stack.append(mark)
            continue
        if not stack:
            h = HEADING.match(line)
            if h:
                out.append((n + 1, h.group(2)))
    return out


def _own(path: Path, label: str | None) -> str | None:
    paper = _paper(path)
    if paper in AUTHORS:
        return AUTHORS[paper]
    prefix = (label or "").split("-", 1)[0]
    return AUTHORS.get(prefix)


def test_the_chapters_are_found():
    chapters = _chapters()
    assert {_paper(p) for p in chapters} == set(FOLDERS)
    assert sum(len(box_titles(p)) for p in chapters) > 100


@pytest.mark.parametrize("path", _chapters(), ids=lambda p: p.relative_to(BOOK).as_posix())
def test_box_titles_cite_the_paper_in_the_fixed_form(path):
    bad = [f"{path.name}:{line}: {title!r}: {p}"
           for line, title, label in box_titles(path) for p in title_problems(title, _own(path, label))]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", _chapters(), ids=lambda p: p.relative_to(BOOK).as_posix())
def test_headings_name_no_bare_paper_number(path):
    own = AUTHORS.get(_paper(path))
    bad = [f"{path.name}:{line}: {text!r}: {p}" for line, text in headings(path)
           for p in title_problems(text, own)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("title, own, ok", [
    ("Descent lemma (Deora et al., Lemma 7, Eq. 68; main text Eq. 13)", "Deora et al.", True),
    ("Descent lemma (Lemma 7, Eq. 68; main text Eq. 13)", "Deora et al.", False),
    ("Loss properties (Corollary 1)", "Deora et al.", False),
    ("Eq. (42) [reconstructed]", "Qin et al.", False),
    ("Lipschitz bound (Qin et al., Eq. 42) [reconstructed]", "Qin et al.", True),
    ("Figure 4: GD with a step size", "Deora et al.", False),
    ("Imported lemma (Trauger & Tewari, Lemma 3.5; restating Edelman et al. 2022, Lemma 4.6)",
     "Trauger & Tewari", True),
    ("One-block bound (Trauger & Tewari, Lemma E.2; Edelman et al., Lemma A.15)", "Trauger & Tewari", True),
    ("One-block bound (Lemma E.2; Edelman et al., Lemma A.15)", "Trauger & Tewari", False),
    ("Bounded objective (Julistiono et al., Lemma 16) — [fragment: via Lemma 13 and (12)]",
     "Julistiono et al.", True),
    ("Single-layer bound (Trauger & Tewari, Cor. 4.1.1)", "Trauger & Tewari", False),
    ("Gradient descent (Qin et al., Eq. (5))", "Qin et al.", False),
    ("Covariance form used for (14)", "Julistiono et al.", False),
    ("Softmax bound (Trauger & Tewari, Lemma C.1)", None, True),
    ("Softmax bound (Lemma C.1)", None, False),
    ("## Summary", "Deora et al.", True),
    ("The full sweep (Deora et al., App. G, Figures 1–3)", "Deora et al.", True),
    ("Figures 1–3 from the full sweep", "Trauger & Tewari", False),
    ("Row-by-row covers (Appendix A)", "Trauger & Tewari", False),
])
def test_the_rule_itself(title, own, ok):
    assert (not title_problems(title, own)) is ok, title_problems(title, own)


@pytest.mark.parametrize("folder", FOLDERS)
def test_backtick_fenced_box_titles_hold_no_backticks(folder):
    """CommonMark ends a backtick fence's info string at the first backtick, so a title such as
    ``Lemma 24 — [fragment (`004`)]`` silently turns the whole box into a paragraph of text (its
    label, and every box after it up to the next stray fence, disappear from the book)."""
    bad = []
    for path in sorted((BOOK / folder).glob("*.md")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            m = PRF_OPEN.match(line)
            if m and m.group(1).startswith("`") and "`" in m.group(3):
                bad.append(f"{path.name}:{n}: {m.group(3)[:80]}")
    assert not bad, f"backticks in a ```{{prf:...}} title (use a ::: fence or drop the backticks): {bad}"


@pytest.mark.parametrize("short, expected", [
    ("Trauger & Tewari (2024)", "Trauger & Tewari"), ("Deora et al. (2024)", "Deora et al."),
    ("Qin, Zhou & Zhu (2025)", "Qin et al."), ("Toy", "Toy"), ("Toy & Model (2025)", "Toy & Model")])
def test_box_authors_come_from_the_papers_short_names(short, expected):
    assert box_authors(short) == expected
