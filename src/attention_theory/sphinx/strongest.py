"""The ``{strongest}`` role: a record's figure at its strongest over every scale the book holds.

A chapter runs its checks at smoke scale; the committed full-scale campaign
(``results/registry-full``) often reaches a larger worst ratio.  A summary row that prints the
live figure alone understates what the book has shown, so summary rows write

    {strongest}`deora-cor-1/random-and-adversarial:worst_ratio_per_item.2|.2f`

and the page shows the largest value over the build's records of that (claim, check), with the
scale it came from: ``0.36 (full scale)``.  After the colon, an optional dotted path into the
record's ``detail`` (default: the record's worst ratio); after ``|``, an optional format
specification (default ``.3g``).  An unknown pair or path is a build warning (``-W`` fails).
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterable

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

__all__ = ["strongest_value", "parse_target", "register"]

logger = logging.getLogger(__name__)

_TARGET = re.compile(r"^(?P<claim>[a-z0-9-]+)/(?P<check>[a-z0-9-]+)(?::(?P<path>[A-Za-z0-9_.-]+))?"
                     r"(?:\|(?P<fmt>[^|]+))?$")


class strongest_placeholder(nodes.Inline, nodes.TextElement):
    """Replaced by the figure once every record of the build is known (``doctree-resolved``)."""


def parse_target(text: str) -> tuple[str, str, str | None, str]:
    """``"claim/check[:detail.path][|format]"`` -> ``(claim, check, path or None, format)``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    m = _TARGET.match(text.strip())
    if m is None:
        raise ValueError(f"expected 'claim-id/check[:detail.path][|format]', got {text!r}")
    fmt = m["fmt"] or ".3g"
    format(1.0, fmt)  # a bad format specification fails here, at parse time
    return m["claim"], m["check"], m["path"], fmt


def _lookup(record: dict[str, Any], path: str | None) -> float | None:
    if path is None:
        value: Any = record.get("worst")
    else:
        value = record.get("detail") or {}
        for key in path.split("."):
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def strongest_value(records: Iterable[dict[str, Any]], claim: str, check: str,
                    path: str | None = None) -> tuple[float, str] | None:
    """The largest value of ``path`` (a dotted key path into ``detail``; ``None``: the worst
    ratio) over the verified records of ``(claim, check)`` at every scale, with that record's
    scale; ``None`` when no record has a finite value there."""
    best: tuple[float, str] | None = None
    for r in records:
        if not isinstance(r, dict):
            raise TypeError(f"records must hold record dictionaries, got {type(r).__name__}")
        if r.get("claim_id") != claim or r.get("check") != check or r.get("status") != "verified":
            continue
        v = _lookup(r, path)
        if v is not None and (best is None or v > best[0]):
            best = (v, r.get("scale", "smoke"))
    return best


def _role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
          options: dict[str, Any] | None = None, content: list[str] | None = None) -> tuple[list, list]:
    try:
        parse_target(text)
    except ValueError as exc:
        msg = inliner.reporter.error(f"{{strongest}}: {exc}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [strongest_placeholder(rawtext, "", target=text)], []


def _resolve(app: Sphinx, doctree: nodes.document, docname: str,
             records: Callable[[Sphinx], list[dict[str, Any]]]) -> None:
    found = list(doctree.findall(strongest_placeholder))
    if not found:
        return
    recs = records(app)
    for node in found:
        claim, check, path, fmt = parse_target(node["target"])
        best = strongest_value(recs, claim, check, path)
        if best is None:
            logger.warning(f"{{strongest}}: no verified record of {claim} / {check} has a finite value at "
                           f"{path or 'worst'}", location=node)
            node.replace_self(nodes.Text("??"))
            continue
        value, scale = best
        node.replace_self(nodes.Text(f"{value:{fmt}} ({scale} scale)"))


def register(app: Sphinx, records: Callable[[Sphinx], list[dict[str, Any]]]) -> None:
    """Add the role to ``app``; ``records(app)`` gives every record of the build (live and
    committed), as the claims page reads them."""
    app.add_node(strongest_placeholder)
    app.add_role("strongest", _role)
    app.connect("doctree-resolved", lambda a, d, n: _resolve(a, d, n, records))
