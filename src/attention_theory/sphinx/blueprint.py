"""Blueprint-style dependency graphs of the papers' statements.

The graph is derived from what the chapters themselves declare, not from a hand-kept list:
a statement *uses* every claim that is cross-referenced (``{prf:ref}``) inside its
directive or in the derivation that follows it, up to the next labelled statement of the
same chapter.  The Sphinx extension collects these references while reading the chapters
(:mod:`attention_theory.sphinx.statements`) and calls the pure functions here to lay the graph out
and draw it as an SVG whose nodes link to the statements.

Node status, from the registry of check records:

* ``false-as-printed``, ``corrected-constant``, ``fails``  the statement as printed does not
  hold (a confirmed erratum in the statement, or a failed check at some scale);
* ``proof-erratum``   the statement holds, a step of its proof does not;
* ``reconstruction``  the statement is the book's reconstruction (fragment papers), marked
  by the word "reconstructed" in its title or the directive class ``reconstructed``;
* ``partial``         some checks passed and a recorded reason says what could not be tested;
* ``not-checkable``   a recorded reason says why no finite computation can test it;
* ``verified``        every check of the statement passed;
* ``no-record``       nothing recorded (the ``-W`` build refuses this for labelled statements).

A statement whose support (anything it uses, transitively) contains a statement that does not
hold as printed is drawn with a red outline: that is where an erratum propagates.
"""

from __future__ import annotations

import dataclasses
import html
import re
from typing import Iterable, Mapping

from attention_theory.verify.registry import CLAIM_STATUSES

__all__ = ["Statement", "STATUS_COLOURS", "STATUS_TEXT", "NOT_AS_PRINTED", "node_status", "layers",
           "plain_title", "downstream", "paper_counts", "render_svg"]

STATUS_COLOURS = {
    "verified": "#b7e1b0",
    "proof-erratum": "#dcefb4",
    "partial": "#f3e39b",
    "corrected-constant": "#f7c58f",
    "false-as-printed": "#f4a6a6",
    "fails": "#e58080",
    "reconstruction": "#c9d7f2",
    "not-checkable": "#e3e3e3",
    "remarks-only": "#eeeeee",
    "no-record": "#ffffff",
}
STATUS_TEXT = {**{k: CLAIM_STATUSES[k] for k in STATUS_COLOURS if k in CLAIM_STATUSES},
               "reconstruction": "reconstruction", "no-record": "no record"}

#: Statuses whose statement, as printed, does not hold: what rests on them is outlined in red.
NOT_AS_PRINTED = ("false-as-printed", "corrected-constant", "fails")


@dataclasses.dataclass
class Statement:
    """A labelled statement of a chapter and the claims its block cross-references."""

    label: str
    docname: str
    title: str = ""
    reconstructed: bool = False
    uses: list[str] = dataclasses.field(default_factory=list)

    @property
    def paper(self) -> str:
        return self.label.split("-", 1)[0]


def node_status(statement: Statement, registry_status: str | None) -> str:
    """The colour class of a node from its claim status (``None``: no record): a statement that
    does not hold as printed keeps that colour even when it is a reconstruction."""
    if registry_status in NOT_AS_PRINTED:
        return registry_status
    if statement.reconstructed:
        return "reconstruction"
    if registry_status in STATUS_COLOURS:
        return registry_status
    return "no-record"


def _deps(statements: Mapping[str, Statement]) -> dict[str, list[str]]:
    """Edges restricted to the given statements, self-loops removed, order kept."""
    return {k: [u for u in dict.fromkeys(s.uses) if u in statements and u != k]
            for k, s in statements.items()}


def layers(statements: Mapping[str, Statement]) -> dict[str, int]:
    """Longest-path layering: a statement sits one layer right of everything it uses.

    Cycles (two statements citing each other) are broken at the edge that closes them.
    """
    deps = _deps(statements)
    out: dict[str, int] = {}
    visiting: set[str] = set()

    def visit(k: str) -> int:
        if k in out:
            return out[k]
        if k in visiting:  # back edge of a cycle: ignore it
            return -1
        visiting.add(k)
        out[k] = 1 + max((visit(u) for u in deps[k]), default=-1)
        visiting.discard(k)
        return out[k]

    for k in statements:
        visit(k)
    return out


def downstream(statements: Mapping[str, Statement], sources: Iterable[str]) -> set[str]:
    """Statements whose transitive support contains one of ``sources`` (excluding the sources)."""
    deps = _deps(statements)
    users: dict[str, list[str]] = {k: [] for k in statements}
    for k, us in deps.items():
        for u in us:
            users[u].append(k)
    seen: set[str] = set()
    stack = [s for s in sources if s in statements]
    while stack:
        for v in users[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen - set(sources)


def paper_counts(statements: Mapping[str, Statement],
                 registry_status: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """Per paper: number of statements in each status (plus ``total``)."""
    out: dict[str, dict[str, int]] = {}
    for k, s in statements.items():
        row = out.setdefault(s.paper, {**{st: 0 for st in STATUS_COLOURS}, "total": 0})
        row[node_status(s, registry_status.get(k))] += 1
        row["total"] += 1
    return out


_TEX_WORDS = {r"\ell": "ℓ", r"\infty": "∞", r"\le": "≤", r"\ge": "≥", r"\sqrt": "√", r"\top": "ᵀ",
              r"\alpha": "α", r"\beta": "β", r"\gamma": "γ", r"\delta": "δ", r"\epsilon": "ε",
              r"\sigma": "σ", r"\theta": "θ", r"\lambda": "λ", r"\psi": "ψ", r"\Phi": "Φ", r"\|": "‖"}


def plain_title(title: str) -> str:
    """A statement title for a tooltip (plain text, where MathJax does not run): ``$...$`` spans
    lose their delimiters, common TeX commands become their Unicode characters, and remaining
    backslash commands, braces and sub/superscript marks are dropped."""
    import re

    def plain(m: "re.Match[str]") -> str:
        t = m.group(1)
        for k in sorted(_TEX_WORDS, key=len, reverse=True):
            t = t.replace(k, _TEX_WORDS[k])
        t = re.sub(r"\\[A-Za-z]+", "", t)
        return re.sub(r"[{}_^]", "", t)

    return re.sub(r"\$([^$]*)\$", plain, title)


#: Geometry of the drawing: box width and height, gaps between columns and rows, padding, and
#: the height of the title band.
_W, _H, _GAPX, _GAPY, _PAD, _TOP = 178, 22, 70, 8, 12, 34
_ERRATUM_RED = "#c0392b"


def _columns(statements: Mapping[str, Statement], lay: Mapping[str, int],
             deps: Mapping[str, list[str]]) -> tuple[list[list[str]], dict[str, float]]:
    """The statements of each layer (chapter order, then barycentre ordering, which reduces
    crossings) and each statement's row in its column."""
    columns: list[list[str]] = [[] for _ in range(max(lay.values()) + 1)]
    for k in statements:  # chapter order within a column
        columns[lay[k]].append(k)
    row: dict[str, float] = {}
    for c, col in enumerate(columns):  # barycentre ordering reduces crossings
        if c:
            col.sort(key=lambda k: (sum(row[u] for u in deps[k] if u in row) /
                                    max(1, sum(1 for u in deps[k] if u in row))) if deps[k] else -1)
        for i, k in enumerate(col):
            row[k] = i
    return columns, row


def _legend_width() -> int:
    width = sum(30 + 7 * len(STATUS_TEXT[st]) for st in STATUS_COLOURS if st != "no-record")
    return width + 30 + 7 * len("rests on an erratum")


def _header(width: int, height: int, title: str, marker: str) -> list[str]:
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="attn-blueprint" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" '
             f'font-size="11" role="img" aria-label="{html.escape(title or "dependency graph")}">',
             f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
             'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
             'fill="#666"/></marker></defs>']
    if title:
        parts.append(f'<text x="{_PAD}" y="20" font-size="13" font-weight="bold">'
                     f'{html.escape(title)}</text>')
    return parts


def _edges(deps: Mapping[str, list[str]], lay: Mapping[str, int], pos: Mapping[str, tuple[float, float]],
           red: set[str], marker: str) -> list[str]:
    """One curve per edge from a used statement to its user; red from a statement in ``red``."""
    parts = []
    for k, us in deps.items():
        x2, y2 = pos[k]
        for u in us:
            x1, y1 = pos[u]
            if lay[u] >= lay[k]:
                continue  # the edge that closed a cycle is not drawn
            sx, sy, ex, ey = x1 + _W, y1 + _H / 2, x2, y2 + _H / 2
            colour = _ERRATUM_RED if u in red else "#888"
            parts.append(f'<path d="M{sx},{sy} C{sx + _GAPX / 2},{sy} {ex - _GAPX / 2},{ey} {ex},{ey}" '
                         f'fill="none" stroke="{colour}" stroke-width="1" marker-end="url(#{marker})"/>')
    return parts


def _box(k: str, s: Statement, xy: tuple[float, float], status: str, tainted: bool, href: str) -> str:
    """A statement's box: linked, coloured by its status, outlined in red when it rests on an
    erratum, with its title and status as the tooltip."""
    x, y = xy
    outline = _ERRATUM_RED if tainted else "#555"
    sw = 2 if tainted else 1
    tip = html.escape(f"{k}: {STATUS_TEXT[status]}" + (f" — {plain_title(s.title)}" if s.title else "")
                      + (" (rests on a statement that fails as printed)" if tainted else ""))
    return (f'<a href="{html.escape(href)}"><g><title>{tip}</title>'
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="4" '
            f'fill="{STATUS_COLOURS[status]}" stroke="{outline}" stroke-width="{sw}"/>'
            f'<text x="{x + 6}" y="{y + 15}">{html.escape(k)}</text></g></a>')


def _legend(ly: float) -> list[str]:
    parts = []
    x = _PAD
    for st, colour in STATUS_COLOURS.items():
        if st == "no-record":
            continue
        parts.append(f'<rect x="{x}" y="{ly - 10}" width="12" height="12" fill="{colour}" '
                     f'stroke="#555"/><text x="{x + 16}" y="{ly}">{STATUS_TEXT[st]}</text>')
        x += 30 + 7 * len(STATUS_TEXT[st])
    parts.append(f'<rect x="{x}" y="{ly - 10}" width="12" height="12" fill="#fff" stroke="{_ERRATUM_RED}" '
                 f'stroke-width="2"/><text x="{x + 16}" y="{ly}">rests on an erratum</text>')
    return parts


def render_svg(statements: Mapping[str, Statement], registry_status: Mapping[str, str],
               hrefs: Mapping[str, str], *, title: str = "") -> str:
    """An SVG drawing of the graph: layers left to right, arrows from a used claim to its user.

    ``hrefs[label]`` is the link of each node (to its statement).  Node colours follow
    :data:`STATUS_COLOURS`; red outlines mark statements downstream of a confirmed erratum.
    """
    if not statements:
        return "<p>No labelled statements.</p>"
    lay = layers(statements)
    deps = _deps(statements)
    status = {k: node_status(s, registry_status.get(k)) for k, s in statements.items()}
    tainted = downstream(statements, [k for k, v in status.items() if v in NOT_AS_PRINTED])
    columns, row = _columns(statements, lay, deps)
    ncols = len(columns)
    width = max(_PAD * 2 + ncols * _W + (ncols - 1) * _GAPX, _PAD * 2 + _legend_width())
    height = _TOP + _PAD + max(len(c) for c in columns) * (_H + _GAPY) + 40
    pos = {k: (_PAD + lay[k] * (_W + _GAPX), _TOP + row[k] * (_H + _GAPY)) for k in statements}
    # one arrow head per graph: several graphs share a page, and HTML ids must be unique on it
    marker = "attn-arrow-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") if title else "graph")
    red = {k for k, v in status.items() if v in NOT_AS_PRINTED} | tainted
    parts = _header(width, height, title, marker) + _edges(deps, lay, pos, red, marker)
    parts += [_box(k, s, pos[k], status[k], k in tainted, hrefs.get(k, "#")) for k, s in statements.items()]
    parts += _legend(height - 18)
    parts.append("</svg>")
    return "\n".join(parts)
