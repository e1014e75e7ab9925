"""Blueprint-style dependency graphs of the papers' statements.

The graph is derived from what the chapters themselves declare, not from a hand-kept list:
a statement *uses* every claim that is cross-referenced (``{prf:ref}``) inside its
directive or in the derivation that follows it, up to the next labelled statement of the
same chapter.  The Sphinx extension collects these references while reading the chapters
(:func:`attention_theory.sphinx`) and calls the pure functions here to lay the graph out
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

__all__ = ["Statement", "STATUS_COLOURS", "STATUS_TEXT", "NOT_AS_PRINTED", "node_status", "layers", "plain_title",
           "downstream", "paper_counts", "render_svg"]

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
    ncols = max(lay.values()) + 1
    columns: list[list[str]] = [[] for _ in range(ncols)]
    for k in statements:  # chapter order within a column
        columns[lay[k]].append(k)
    row: dict[str, float] = {}
    for c, col in enumerate(columns):  # barycentre ordering reduces crossings
        if c:
            col.sort(key=lambda k: (sum(row[u] for u in deps[k] if u in row) /
                                    max(1, sum(1 for u in deps[k] if u in row))) if deps[k] else -1)
        for i, k in enumerate(col):
            row[k] = i
    w, h, gapx, gapy, pad, top = 178, 22, 70, 8, 12, 34
    legend_width = sum(30 + 7 * len(STATUS_TEXT[st]) for st in STATUS_COLOURS if st != "no-record")
    legend_width += 30 + 7 * len("rests on an erratum")
    width = max(pad * 2 + ncols * w + (ncols - 1) * gapx, pad * 2 + legend_width)
    height = top + pad + max(len(c) for c in columns) * (h + gapy) + 40
    pos = {k: (pad + lay[k] * (w + gapx), top + row[k] * (h + gapy)) for k in statements}
    # one arrow head per graph: several graphs share a page, and HTML ids must be unique on it
    marker = "attn-arrow-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") if title else "graph")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="attn-blueprint" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" '
             f'font-size="11" role="img" aria-label="{html.escape(title or "dependency graph")}">',
             f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
             'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
             'fill="#666"/></marker></defs>']
    if title:
        parts.append(f'<text x="{pad}" y="20" font-size="13" font-weight="bold">'
                     f'{html.escape(title)}</text>')
    for k, us in deps.items():
        x2, y2 = pos[k]
        for u in us:
            x1, y1 = pos[u]
            if lay[u] >= lay[k]:
                continue  # the edge that closed a cycle is not drawn
            sx, sy, ex, ey = x1 + w, y1 + h / 2, x2, y2 + h / 2
            colour = "#c0392b" if status[u] in NOT_AS_PRINTED or u in tainted else "#888"
            parts.append(f'<path d="M{sx},{sy} C{sx + gapx / 2},{sy} {ex - gapx / 2},{ey} {ex},{ey}" '
                         f'fill="none" stroke="{colour}" stroke-width="1" marker-end="url(#{marker})"/>')
    for k, s in statements.items():
        x, y = pos[k]
        outline = "#c0392b" if k in tainted else "#555"
        sw = 2 if k in tainted else 1
        tip = html.escape(f"{k}: {STATUS_TEXT[status[k]]}" + (f" — {plain_title(s.title)}" if s.title else "")
                          + (" (rests on a statement that fails as printed)" if k in tainted else ""))
        parts.append(f'<a href="{html.escape(hrefs.get(k, "#"))}"><g><title>{tip}</title>'
                     f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" '
                     f'fill="{STATUS_COLOURS[status[k]]}" stroke="{outline}" stroke-width="{sw}"/>'
                     f'<text x="{x + 6}" y="{y + 15}">{html.escape(k)}</text></g></a>')
    ly = height - 18
    x = pad
    for st, colour in STATUS_COLOURS.items():
        if st == "no-record":
            continue
        parts.append(f'<rect x="{x}" y="{ly - 10}" width="12" height="12" fill="{colour}" '
                     f'stroke="#555"/><text x="{x + 16}" y="{ly}">{STATUS_TEXT[st]}</text>')
        x += 30 + 7 * len(STATUS_TEXT[st])
    parts.append(f'<rect x="{x}" y="{ly - 10}" width="12" height="12" fill="#fff" stroke="#c0392b" '
                 f'stroke-width="2"/><text x="{x + 16}" y="{ly}">rests on an erratum</text>')
    parts.append("</svg>")
    return "\n".join(parts)
