"""The errata pages: the list of confirmed errata (``{errata-list}``), their counts per paper and
kind (``{errata-counts}``), and the ``{erratum}`` role that links to one entry of the list."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.placeholders import erratum_ref
from attention_theory.sphinx.records import PageData, records
from attention_theory.sphinx.render import PAPER_NAMES, link, table, text_with_math
from attention_theory.sphinx.statements import page_of
from attention_theory.verify import CLAIM_ID_PATTERN, ERRATUM_KINDS, ERRATUM_VERSIONS, weighs_on_statement

__all__ = ["erratum_place", "distinct_errata", "erratum_role", "resolve_erratum_refs", "errata_counts_table",
           "render_errata_counts", "render_errata_list"]

logger = logging.getLogger(__name__)


def erratum_place(d: dict[str, Any]) -> str:
    """Where an erratum sits, in words: "statement", "proof", "background remark", followed by
    "of the review copy" for a copy other than the published one, and by "(listed, not counted in
    the status)" when it does not weigh on the claim's status."""
    place = {"background": "background remark"}.get(d["where"], d["where"])
    if d.get("version", "published") != "published":
        place += f" of the {ERRATUM_VERSIONS[d['version']]}"
    if d.get("version", "published") != "published" or d["where"] == "background":
        place += " (listed, not counted in the status)"
    return place


def distinct_errata(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One erratum per (claim, check): a check re-run at full scale confirms the same erratum
    again, which is one more piece of evidence, not a second erratum.  The representative is the
    smoke-scale record (the one its chapter shows) when there is one; ``confirmed_at`` lists every
    scale and commit at which the check confirmed it."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in sorted((r for r in recs if r["status"] == "erratum"),
                    key=lambda r: r.get("scale", "smoke") != "smoke"):
        entry = out.setdefault((r["claim_id"], r["check"]), dict(r, confirmed_at=[]))
        entry["confirmed_at"].append((r.get("scale", "smoke"), r["commit"]))
    return list(out.values())


def _paper(r: dict[str, Any]) -> str:
    return r["claim_id"].split("-", 1)[0]


# --- the {erratum} role -----------------------------------------------------------------------

def erratum_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    """``{erratum}`claim-id/check``` or ``{erratum}`text <claim-id/check>```: a placeholder
    resolved into a link once the registry is complete (:func:`resolve_erratum_refs`)."""
    m = re.fullmatch(r"\s*(?:(?P<title>.+?)\s*<(?P<t1>[^<>]+)>|(?P<t2>[^<>]+))\s*", text)
    target = (m.group("t1") or m.group("t2")).strip() if m else ""
    cid, _, check = target.partition("/")
    if not m or not CLAIM_ID_PATTERN.match(cid) or not check:
        msg = inliner.reporter.error(f"erratum role: expected 'claim-id/check', got {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = erratum_ref(rawtext, claim_id=cid, check=check, title=(m.group("title") or "").strip())
    return [node], []


def resolve_erratum_refs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Replace every ``{erratum}`` placeholder of the page by a link to its entry (HTML) or by its
    text; warn when the registry has no such erratum."""
    refs = list(doctree.findall(erratum_ref))
    if not refs:
        return
    errata = {(r["claim_id"], r["check"]) for r in records(app) if r["status"] == "erratum"}
    errata_doc = page_of(app, "errata")
    for node in refs:
        cid, check = node["claim_id"], node["check"]
        text = node["title"] or f"erratum {cid} / {check}"
        if (cid, check) not in errata:
            logger.warning(f"{{erratum}} link to {cid}/{check}: the registry has no such erratum",
                           location=node)
        if app.builder.format == "html" and errata_doc is not None:
            ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(
                docname, errata_doc) + f"#erratum-{cid}-{check}")
            ref += nodes.Text(text)
            node.replace_self(ref)
        else:
            node.replace_self(nodes.Text(text))


# --- {errata-counts} --------------------------------------------------------------------------

def _counts_row(name: str, everything: list[dict[str, Any]]) -> list[str]:
    mine = [r["detail"] for r in everything if weighs_on_statement(r)]
    cells = []
    for kind in ERRATUM_KINDS:
        n_st = sum(1 for d in mine if d["kind"] == kind and d["where"] == "statement")
        n_pr = sum(1 for d in mine if d["kind"] == kind and d["where"] == "proof")
        cells.append(f"{n_st + n_pr} ({n_st} / {n_pr})" if n_st + n_pr else "0")
    return [name, *cells, str(len(everything) - len(mine)), str(len(everything))]


def errata_counts_table(errata: list[dict[str, Any]]) -> nodes.table:
    """Errata per paper (rows) and kind (columns), with ``statement / proof`` split in each cell;
    errata of a review copy or of a background remark are counted in a column of their own."""
    rows = [_counts_row(name, [r for r in errata if _paper(r) == paper])
            for paper, name in PAPER_NAMES.items()]
    weigh = [r for r in errata if weighs_on_statement(r)]
    total = [str(sum(1 for r in weigh if r["detail"]["kind"] == k)) for k in ERRATUM_KINDS]
    rows.append(["all papers", *total, str(len(errata) - len(weigh)), str(len(errata))])
    # headers break only between words ("typo / notation"): a column never spills into the next
    kinds = [k.replace("/", " / ") for k in ERRATUM_KINDS.values()]
    # the widths let the longest word of each header fit its column (tests/browser_check_html.py)
    out = table(["paper", *kinds, "listed only (review copy or remark)", "total"], rows,
                [16, *([13] * len(ERRATUM_KINDS)), 10, 9])
    out["classes"].append("attn-errata-counts")
    return out


def render_errata_counts(page: PageData, node: nodes.Element) -> nodes.Node:
    """``{errata-counts}``: the table of :func:`errata_counts_table`."""
    return errata_counts_table(distinct_errata(page.records))


# --- {errata-list} ----------------------------------------------------------------------------

def _erratum_heading(r: dict[str, Any], statements: dict[str, bp.Statement]) -> list[nodes.Node]:
    """An erratum's name in the book's words: its statement's title (math typeset), then the
    check that confirmed it ("Maurey's sparsification lemma — printed-gamma-squared")."""
    st = statements.get(r["claim_id"])
    title = st.title if st is not None else ""
    head = text_with_math(title) if title else [nodes.Text(r["claim_id"])]
    return [*head, nodes.Text(f" — {r['check']}")]


def _erratum_paragraph(page: PageData, r: dict[str, Any]) -> nodes.paragraph:
    d = r["detail"]
    p = nodes.paragraph()
    p += nodes.Text("Statement: ")
    p += link(page.app, page.docname, r["claim_id"], page.labels)
    confirmed = r.get("confirmed_at") or [(r.get("scale", "smoke"), r["commit"])]
    where = " and ".join(f"{scale} scale (commit {commit})" for scale, commit in confirmed)
    p += nodes.Text(f" — kind: {ERRATUM_KINDS[d['kind']]}, in the {erratum_place(d)}; "
                    f"source: {d['source']}; confirmed by the check {r['check']} at {where}, "
                    "whose record reads ")
    p += nodes.literal(text=r["description"])  # the check's own words, verbatim (plain text)
    p += nodes.Text(". ")
    p += nodes.Text("Printed and corrected were evaluated on the same instances."
                    if d.get("same_instances") else
                    "Printed and corrected ran on different instances: "
                    f"{d.get('different_instances_reason', '')}")
    return p


def _version_cell(version: dict[str, Any]) -> list[nodes.Node]:
    """The printed or the corrected statement (typeset from its LaTeX, else its text) and what
    the check found of it."""
    para = nodes.paragraph()
    tex = version.get("tex")
    if tex:
        # inline math in a paragraph: a display block inside a table cell breaks the LaTeX writer
        para += nodes.math(tex, r"\displaystyle " + tex)
    else:
        para.extend(text_with_math(version["text"]))
    outcome = nodes.paragraph(classes=["attn-erratum-outcome"])
    outcome += nodes.emphasis(text=version["summary"])
    return [para, outcome]


def _erratum_entry(page: PageData, r: dict[str, Any]) -> nodes.section:
    d = r["detail"]
    sec = nodes.section(ids=[f"erratum-{r['claim_id']}-{r['check']}"])
    sec += nodes.title("", "", *_erratum_heading(r, page.statements))
    sec += _erratum_paragraph(page, r)
    pair = table(["as printed (fails)", "corrected (passes)"],
                 [[_version_cell(d["printed"]), _version_cell(d["corrected"])]], [50, 50])
    pair["classes"].append("attn-erratum-pair")
    sec += pair
    return sec


def _errata_summary(errata: list[dict[str, Any]], statements: dict[str, bp.Statement]) -> nodes.table:
    """One row per erratum: paper, location (the paper's source), kind and place, and the entry."""
    from attention_theory.verify.rerun import natural_key

    rows = []
    for paper, name in PAPER_NAMES.items():
        mine = sorted((r for r in errata if _paper(r) == paper),
                      key=lambda r: (list(ERRATUM_KINDS).index(r["detail"]["kind"]),
                                     natural_key(r["claim_id"])))
        for r in mine:
            d = r["detail"]
            ref = nodes.reference("", "", internal=True, refid=f"erratum-{r['claim_id']}-{r['check']}")
            ref.extend(_erratum_heading(r, statements))
            rows.append([name.split(" (")[0], str(d.get("source", "")),
                         f"{ERRATUM_KINDS[d['kind']]} ({erratum_place(d)})", ref])
    return table(["paper", "location", "kind (place)", "statement and check"], rows, [14, 22, 18, 46])


def _paper_errata(page: PageData, paper: str, name: str, mine: list[dict[str, Any]]) -> nodes.section:
    """A paper's errata, one subsection per kind (with its count)."""
    psec = nodes.section(ids=[f"errata-{paper}"])
    psec += nodes.title(text=name)
    for kind, kind_text in ERRATUM_KINDS.items():
        group = [r for r in mine if r["detail"]["kind"] == kind]
        if not group:
            continue
        ksec = nodes.section(ids=[f"errata-{paper}-{kind}"])
        ksec += nodes.title(text=f"{kind_text[0].upper()}{kind_text[1:]} ({len(group)})")
        for r in group:
            ksec += _erratum_entry(page, r)
        psec += ksec
    return psec


def render_errata_list(page: PageData, node: nodes.Element) -> list[nodes.Node]:
    """``{errata-list}``: a summary table of every erratum, then per paper and kind each one with
    its statement printed and corrected side by side."""
    errata = distinct_errata(page.records)
    items: list[nodes.Node] = []
    if not errata:
        items.append(nodes.paragraph(text="No erratum has been confirmed by a check yet."))
    else:
        summary_sec = nodes.section(ids=["errata-summary"])
        summary_sec += nodes.title(text="All errata at a glance")
        summary_sec += _errata_summary(errata, page.statements)
        items.append(summary_sec)
    for paper, name in PAPER_NAMES.items():
        mine = [r for r in errata if _paper(r) == paper]
        if mine:
            items.append(_paper_errata(page, paper, name, mine))
    return items
