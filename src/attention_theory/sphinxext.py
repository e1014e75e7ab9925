"""Sphinx extension: gathers check records into the Verified-claims and Errata pages.

How it fits the build:

1. ``builder-inited`` points ``ATTN_REGISTRY_DIR`` at ``_build/registry`` and empties
   it, so the kernels that execute the chapters (they inherit the environment)
   write fresh records there and nothing stale survives.
2. The directives ``{verified-claims}`` and ``{errata-list}`` leave placeholders.
3. ``doctree-resolved`` runs after *every* chapter has been executed; it reads the
   registry and replaces the placeholders with tables whose rows link to the
   statements (sphinx-proof labels are the claim IDs).
4. Consistency is enforced with warnings (``-W`` makes them errors): a record
   whose claim ID has no statement, and a statement label with no record.
5. ``build-finished`` writes ``claims.json`` (all records plus the per-claim
   summary) into the HTML output.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

from .verify import CLAIM_ID_PATTERN, load_registry, summarize_registry

logger = logging.getLogger(__name__)

STATUS_TEXT = {
    "verified": "verified",
    "erratum": "confirmed erratum",
    "not-checkable": "not numerically checkable",
}


class claims_placeholder(nodes.General, nodes.Element):
    """Replaced by the claims table at doctree-resolved."""


class errata_placeholder(nodes.General, nodes.Element):
    """Replaced by the errata list at doctree-resolved."""


class VerifiedClaimsDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [claims_placeholder("")]


class ErrataListDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        return [errata_placeholder("")]


def _registry_path(app: Sphinx) -> Path:
    return Path(app.outdir).parent / "registry"


def _builder_inited(app: Sphinx) -> None:
    reg = _registry_path(app)
    if reg.exists():
        shutil.rmtree(reg)
    reg.mkdir(parents=True)
    os.environ["ATTN_REGISTRY_DIR"] = str(reg)


def _statement_labels(env: Any) -> dict[str, dict[str, Any]]:
    proofs = getattr(env, "proof_list", {}) or {}
    return {k: v for k, v in proofs.items() if CLAIM_ID_PATTERN.match(k)}


def _link(app: Sphinx, fromdoc: str, label: str, labels: dict[str, dict[str, Any]],
          text: str | None = None) -> nodes.Node:
    info = labels.get(label)
    if info is None:
        return nodes.literal(text=text or label)
    uri = app.builder.get_relative_uri(fromdoc, info["docname"]) + "#" + label
    ref = nodes.reference("", "", internal=True, refuri=uri)
    ref += nodes.literal(text=text or label)
    return ref


def _table(headers: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["attn-registry"])
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for w in widths:
        tgroup += nodes.colspec(colwidth=w)
    thead = nodes.thead()
    tgroup += thead
    hrow = nodes.row()
    for h in headers:
        hrow += nodes.entry("", nodes.paragraph(text=h))
    thead += hrow
    tbody = nodes.tbody()
    tgroup += tbody
    for r in rows:
        row = nodes.row()
        for cell in r:
            entry = nodes.entry()
            if isinstance(cell, nodes.Node):
                para = nodes.paragraph()
                para += cell
                entry += para
            else:
                entry += nodes.paragraph(text=cell)
            row += entry
        tbody += row
    return table


def _fmt(x: Any) -> str:
    if x is None:
        return "—"
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return str(x)


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    has_claims = list(doctree.findall(claims_placeholder))
    has_errata = list(doctree.findall(errata_placeholder))
    if not has_claims and not has_errata:
        return
    records = load_registry(_registry_path(app))
    labels = _statement_labels(app.env)
    summary = summarize_registry(records)
    for node in has_claims:
        rows = []
        for cid, row in summary.items():
            tight = "; ".join(f"{k}: {_fmt(v)}" for k, v in sorted(row["worst_by_check"].items())
                              if math.isfinite(v) and v > 0) or "—"
            if row["status"] == "not-checkable":
                tight = "; ".join(row["reasons"])[:300]
            rows.append([_link(app, docname, cid, labels), STATUS_TEXT[row["status"]],
                         f"{len(set(row['checks']))} checks, {row['instances']} instances", tight,
                         f"{cid}, attention-theory book v{row['package_version']} "
                         f"(commit {row['commit']}), checked {row['date']}"])
        counts: dict[str, int] = {}
        for row in summary.values():
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        intro = nodes.paragraph(text=(
            f"{len(summary)} claims, {len(records)} check records: "
            + ", ".join(f"{counts.get(s, 0)} {STATUS_TEXT[s]}" for s in STATUS_TEXT) + "."))
        table = _table(["claim", "status", "evidence",
                        "worst LHS/RHS per bound check, or reason", "cite as"], rows,
                       [14, 10, 12, 30, 30])
        node.replace_self([intro, table])
    for node in has_errata:
        items: list[nodes.Node] = []
        errata = [r for r in records if r["status"] == "erratum"]
        if not errata:
            items.append(nodes.paragraph(text="No erratum has been confirmed by a check yet."))
        for r in errata:
            d = r["detail"]
            sec = nodes.section(ids=[f"erratum-{r['claim_id']}-{r['check']}"])
            title = nodes.title(text=f"{r['claim_id']}: {r['description']}")
            sec += title
            p = nodes.paragraph()
            p += nodes.Text("Statement: ")
            p += _link(app, docname, r["claim_id"], labels)
            p += nodes.Text(f" — source: {d['source']}; severity {d['severity']}; check "
                            f"`{r['check']}` (commit {r['commit']}).")
            sec += p
            bl = nodes.bullet_list()
            for key, label in (("printed", "As printed (fails)"), ("corrected", "Corrected (passes)")):
                li = nodes.list_item()
                para = nodes.paragraph()
                para += nodes.strong(text=f"{label}: ")
                para += nodes.literal(text=d[key]["text"])
                para += nodes.Text(f" — {d[key]['summary']}.")
                li += para
                bl += li
            sec += bl
            items.append(sec)
        node.replace_self(items)


def _env_check_consistency(app: Sphinx, env: Any) -> None:
    """Warn about records without statements and statements without records."""
    records = load_registry(_registry_path(app))
    labels = _statement_labels(env)
    recorded = {r["claim_id"] for r in records}
    for cid in sorted(recorded - set(labels)):
        logger.warning(f"check records exist for claim {cid!r} but no statement carries that label")
    for cid in sorted(set(labels) - recorded):
        info = labels[cid]
        logger.warning(f"statement {cid!r} has no check and no recorded reason "
                       "(call a registered check or verify.not_checkable)",
                       location=(info["docname"], None))


def _build_finished(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    records = load_registry(_registry_path(app))
    summary = summarize_registry(records)
    out = {"claims": list(summary.values()), "records": records}
    Path(app.outdir, "claims.json").write_text(json.dumps(out, indent=1, sort_keys=True))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(claims_placeholder)
    app.add_node(errata_placeholder)
    app.add_directive("verified-claims", VerifiedClaimsDirective)
    app.add_directive("errata-list", ErrataListDirective)
    app.connect("builder-inited", _builder_inited)
    app.connect("env-check-consistency", _env_check_consistency)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("build-finished", _build_finished)
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}


__all__ = ["setup"]
