"""The registry pages: the Verified-claims table (``{verified-claims}``), the per-paper status table
(``{paper-status}``), and the badge (claim ID and status) at the top of every statement box."""

from __future__ import annotations

import html
import math
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx.errata import erratum_place
from attention_theory.sphinx.records import PageData, registry_summary
from attention_theory.sphinx.render import PAPER_NAMES, chapter_link, fmt, link, table, text_with_math
from attention_theory.sphinx.statements import is_statement, page_of, statements
from attention_theory.verify import CLAIM_ID_PATTERN, CLAIM_STATUSES, ERRATUM_KINDS

__all__ = ["STATUS_TEXT", "citation", "add_badges", "render_claims", "render_paper_status"]

STATUS_TEXT = dict(CLAIM_STATUSES)

_FILTER_HTML = """<div class="attn-filter"><label>Filter the claims: <input type="search"
 id="attn-claims-filter" placeholder="claim ID, status, title or chapter" size="40"
 oninput="attnFilterClaims(this.value)"></label></div>
<script>
function attnFilterClaims(q) {
  q = q.toLowerCase();
  document.querySelectorAll("table.attn-claims tbody tr").forEach(function (tr) {
    tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
  });
}
function attnCopyCite(button) {
  navigator.clipboard.writeText(button.dataset.cite).then(function () {
    button.textContent = "copied";
    setTimeout(function () { button.textContent = "copy"; }, 1500);
  });
}
</script>"""


def citation(cid: str, row: dict[str, Any]) -> str:
    """The citation string of a claim: ID, status, scales, book version and commit, date."""
    return (f"{cid} ({STATUS_TEXT[row['status']]}; {'+'.join(row['scales'])} scale), attention-theory "
            f"book v{row['package_version']} (commit {row['commit']}), checked {row['date']}")


# --- badges -----------------------------------------------------------------------------------

def _badge(app: Sphinx, docname: str, cid: str, status: str, reconstructed: bool) -> nodes.paragraph:
    """``Claim <id> · <status>`` at the top of a statement box, linking to its paper's table on
    the Verified claims page (the same status the registry gives)."""
    para = nodes.paragraph(classes=["attn-claim-badge"])
    para += nodes.Text("Claim ")
    para += nodes.literal(text=cid)
    para += nodes.Text(" · ")
    key = status if status in STATUS_TEXT else "no-record"
    label = nodes.inline(classes=["attn-status", f"attn-status-{key}"])
    label += nodes.Text(STATUS_TEXT[key])
    claims_doc = page_of(app, "claims")
    if claims_doc is not None:
        ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(
            docname, claims_doc) + f"#claims-{cid.split('-', 1)[0]}")
        ref += label
        para += ref
    else:
        para += label
    if reconstructed and key != "reconstruction":
        para += nodes.Text(" · reconstruction")
    return para


def add_badges(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give every statement box of the page its claim ID and status badge."""
    stated = statements(app.env)
    summary = None
    for node in list(doctree.findall(is_statement)):
        cid = str(node["label"])
        if not CLAIM_ID_PATTERN.match(cid) or cid not in stated:
            continue
        if summary is None:
            summary = registry_summary(app)
        status = summary.get(cid, {}).get("status", "no-record")
        content = next((c for c in node.children if isinstance(c, nodes.section)), None)
        if content is not None:
            content.insert(0, _badge(app, docname, cid, status, stated[cid].reconstructed))


# --- {verified-claims} ------------------------------------------------------------------------

def _errata_remark(errata: list[dict[str, Any]]) -> str:
    scales_of: dict[tuple[str, str, str], list[str]] = {}
    for e in errata:
        scales_of.setdefault((e["check"], e["kind"], erratum_place(e)), []).append(e.get("scale", "smoke"))
    return " | errata: " + "; ".join(
        f"{c} ({ERRATUM_KINDS[k]} in the {w}; {', '.join(sc)})" for (c, k, w), sc in scales_of.items())


def _evidence(row: dict[str, Any]) -> str:
    """The evidence column: worst LHS/RHS per bound check, or the reasons, the failures; then
    the errata and the implementation checks."""
    tight = "; ".join(f"{k}: {fmt(v)}" for k, v in sorted(row["worst_by_check"].items())
                      if math.isfinite(v) and v > 0) or "—"
    if row["status"] == "not-checkable":
        tight = "; ".join(row["reasons"])[:300]
    elif row["status"] == "partial":
        tight = (tight + " | not checked: " + "; ".join(row["reasons"]))[:400]
    elif row["status"] == "fails":
        tight = "; ".join(f"{f['check']} ({f['scale']}): {f['failure']}" for f in row["failures"])[:400]
    if row["errata"]:
        tight += _errata_remark(row["errata"])
    if row["implementation_checks"]:
        tight += (" | implementation checks (the package's code against itself, not counted in the "
                  "status): " + ", ".join(row["implementation_checks"]))
    return tight


def _claim_cell(page: PageData, cid: str) -> nodes.inline:
    """The claim's ID (linked to its statement), its title, and its chapter."""
    st = page.statements.get(cid)
    claim = nodes.inline()
    claim += link(page.app, page.docname, cid, page.labels)
    if st is not None and st.title:
        claim += nodes.Text(" ")
        claim.extend(text_with_math(st.title))
    if st is not None:
        claim += nodes.Text(" — in ")
        claim += chapter_link(page.app, page.docname, st.docname)
    return claim


def _status_cell(row: dict[str, Any]) -> nodes.inline:
    scales = ", ".join(row["scales"]) + (f" (data: {', '.join(row['data_files'])})"
                                         if row["data_files"] else "")
    status = nodes.inline()
    status += nodes.strong(text=STATUS_TEXT[row["status"]])
    status += nodes.Text(f"; {len(set(row['checks']))} checks, {row['instances']} instances; "
                         f"scales: {scales}")
    return status


def _cite_button(cid: str, row: dict[str, Any]) -> nodes.raw:
    return nodes.raw("", f'<button class="attn-copy" type="button" '
                         f'data-cite="{html.escape(citation(cid, row))}" '
                         'onclick="attnCopyCite(this)">copy</button>', format="html")


def _paper_claims(page: PageData, paper: str, name: str, mine: list[str]) -> nodes.section:
    rows = [[_claim_cell(page, cid), _status_cell(page.summary[cid]), _evidence(page.summary[cid]),
             _cite_button(cid, page.summary[cid])] for cid in mine]
    sec = nodes.section(ids=[f"claims-{paper}"])
    sec += nodes.title(text=name)
    claims = table(["claim and chapter", "status and evidence",
                    "worst LHS/RHS per bound check, reason, failure or errata", "cite"], rows,
                   [28, 21, 39, 12])
    claims["classes"].append("attn-claims")
    sec += claims
    return sec


def _claims_preamble(page: PageData) -> list[nodes.Node]:
    """The counts per status, how to cite a claim and re-run its checks, and the filter box."""
    counts: dict[str, int] = {}
    for row in page.summary.values():
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    out: list[nodes.Node] = [nodes.paragraph(text=(
        f"{len(page.summary)} claims, {len(page.records)} check records: "
        + ", ".join(f"{counts.get(s, 0)} {STATUS_TEXT[s]}" for s in STATUS_TEXT) + "."))]
    example = next(iter(page.summary.items()), None)
    if example is not None:
        cite = nodes.paragraph()
        cite += nodes.Text("Cite a claim by the string its row's copy button gives, of the form ")
        cite += nodes.literal(text=citation(*example))
        cite += nodes.Text(". Re-run a claim's checks with ")
        cite += nodes.literal(text=f"python -m attention_theory check {example[0]}")
        cite += nodes.Text(" (add --scale full for the paper's scale).")
        out.append(cite)
    out.append(nodes.raw("", _FILTER_HTML, format="html"))
    return out


def render_claims(page: PageData, node: nodes.Element) -> list[nodes.Node]:
    """``{verified-claims}``: counts, a filter box, then one table per paper (claims in natural
    order) with the statement's title and chapter, status, scales and data, evidence, and a
    button that copies the claim's citation string."""
    from attention_theory.verify.rerun import natural_key

    out = _claims_preamble(page)
    for paper, name in PAPER_NAMES.items():
        mine = sorted((cid for cid in page.summary if cid.split("-", 1)[0] == paper), key=natural_key)
        if mine:
            out.append(_paper_claims(page, paper, name, mine))
    return out


# --- {paper-status} ---------------------------------------------------------------------------

def render_paper_status(page: PageData, node: nodes.Element) -> nodes.Node:
    """``{paper-status}``: per paper, its statements and their statuses (only those that occur),
    the paper's name linking to its dependency graph."""
    counts = bp.paper_counts(page.statements, page.status)
    graph_docs = getattr(page.app.env, "attn_graph_docs", {})
    columns = [k for k in bp.STATUS_COLOURS if k != "no-record"]
    rows = []
    for paper, name in PAPER_NAMES.items():
        c = counts.get(paper, {k: 0 for k in (*bp.STATUS_COLOURS, "total")})
        if paper in graph_docs:
            ref = nodes.reference("", "", internal=True,
                                  refuri=page.uri(graph_docs[paper]) + f"#graph-{paper}")
            ref += nodes.Text(name)
        else:
            ref = nodes.Text(name)
        counts_text = "; ".join(f"{c[k]} {bp.STATUS_TEXT[k]}" for k in columns if c[k])
        rows.append([ref, str(c["total"]), counts_text or "—"])
    # one cell of counts per paper (only the statuses that occur): ten columns do not fit a page
    return table(["paper (links to its dependency graph)", "statements", "status of the statements"],
                 rows, [26, 16, 58])
