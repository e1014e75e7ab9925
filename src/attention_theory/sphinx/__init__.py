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
6. ``doctree-read`` collects every labelled statement and the claims cross-referenced in its
   block (the directive and the derivation after it, up to the next statement): the
   *uses* edges of the dependency graph.  ``{dependency-graph} <paper>`` draws it
   (:mod:`attention_theory.sphinx.blueprint`) and ``{paper-status}`` counts statuses per paper.
7. ``html-page-context`` writes each chapter as ``.ipynb`` (jupytext) into ``_sources`` so the
   theme's download menu offers the notebook next to the MyST source.
8. ``config-inited`` serves MathJax from the build (offline reading): the MathJax 3
   distribution shipped by the pinned ``django-static-mathjax`` wheel is copied
   into ``_static/mathjax`` and ``mathjax_path`` points there instead of a CDN.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.util import logging

from attention_theory import papers
from attention_theory.sphinx import blueprint as bp
from attention_theory.sphinx import strongest
from attention_theory.verify import (
    CLAIM_ID_PATTERN,
    CLAIM_STATUSES,
    ERRATUM_KINDS,
    ERRATUM_VERSIONS,
    load_registry,
    registered_checks,
    summarize_registry,
    weighs_on_statement,
)

logger = logging.getLogger(__name__)

STATUS_TEXT = dict(CLAIM_STATUSES)


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


class graph_placeholder(nodes.General, nodes.Element):
    """Replaced by a paper's dependency graph (inline SVG) at doctree-resolved."""


class status_placeholder(nodes.General, nodes.Element):
    """Replaced by the per-paper status table at doctree-resolved."""


class errata_counts_placeholder(nodes.General, nodes.Element):
    """Replaced by the table of errata per paper and kind at doctree-resolved."""


class ErrataCountsDirective(Directive):
    """``{errata-counts}``: confirmed errata per paper and kind (statement or proof)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        return [errata_counts_placeholder("")]


PAPERS = {p.key: p.short for p in papers.PAPERS}


class DependencyGraphDirective(Directive):
    """``{dependency-graph} [paper]``: the blueprint graph of one paper's statements, or, without
    an argument, one graph per paper of :data:`attention_theory.papers.PAPERS` under a heading."""

    has_content = False
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        if not hasattr(env, "attn_graph_docs"):
            env.attn_graph_docs = {}
        chosen = [self.arguments[0].strip()] if self.arguments else list(PAPERS)
        out: list[nodes.Node] = []
        for paper in chosen:
            if paper not in PAPERS:
                raise self.error(f"unknown paper {paper!r}; expected one of {sorted(PAPERS)}")
            env.attn_graph_docs[paper] = env.docname
            if not self.arguments:
                out.append(nodes.rubric(text=PAPERS[paper]))
            node = graph_placeholder("")
            node["paper"] = paper
            out.append(node)
        return out


class PaperStatusDirective(Directive):
    """``{paper-status}``: per paper, how many statements are in each status."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        return [status_placeholder("")]


def _statements(env: Any) -> dict[str, bp.Statement]:
    if not hasattr(env, "attn_statements"):
        env.attn_statements = {}
    return env.attn_statements


def _is_statement(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Element) and bool(node.get("realtype")) and bool(node.get("label"))


def box_title(raw: str) -> str:
    """A statement box's title as the book reuses it (claims table, errata headings, graph
    tooltips): sphinx-proof stores it as ``"(title)"``; the enclosing pair of parentheses and the
    Markdown emphasis ``**`` are dropped (the title is also reused as plain text)."""
    title = raw.replace("**", "").strip()
    if title.startswith("(") and title.endswith(")"):
        depth = 0
        for i, ch in enumerate(title):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                break
        if i == len(title) - 1:  # the first "(" closes at the very end: it encloses the title
            title = title[1:-1].strip()
    return title


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Collect the labelled statements of this chapter and the claims each block cites."""
    store = _statements(app.env)
    docname = app.env.docname
    pages = getattr(app.env, "attn_pages", None)
    if pages is None:
        pages = app.env.attn_pages = {}
    for kind, cls in (("claims", claims_placeholder), ("errata", errata_placeholder)):
        if any(True for _ in doctree.findall(cls)):
            pages[kind] = docname
    current: bp.Statement | None = None
    for node in doctree.findall(lambda n: _is_statement(n) or isinstance(n, pending_xref)):
        if isinstance(node, pending_xref):
            target = str(node.get("reftarget", ""))
            if current is not None and node.get("refdomain") == "prf" and CLAIM_ID_PATTERN.match(target):
                current.uses.append(target)
            continue
        label = str(node["label"])
        if not CLAIM_ID_PATTERN.match(label):
            current = None
            continue
        # the box title's Markdown emphasis is dropped: the title is reused as plain text (graph
        # labels and tooltips, the claims table)
        title = box_title(str(node.get("title", "")))
        current = bp.Statement(label=label, docname=docname, title=title,
                               reconstructed=("reconstructed" in node.get("classes", [])
                                              or "reconstructed" in title.lower()))
        store[label] = current


def _purge_doc(app: Sphinx, env: Any, docname: str) -> None:
    store = _statements(env)
    for k in [k for k, v in store.items() if v.docname == docname]:
        del store[k]
    for paper, doc in list(getattr(env, "attn_graph_docs", {}).items()):
        if doc == docname:
            del env.attn_graph_docs[paper]


def _registry_path(app: Sphinx) -> Path:
    return Path(app.outdir).parent / "registry"


#: The committed records of the full-scale search campaign
#: (``python -m attention_theory check --all --scale full --registry results/registry-full``),
#: relative to the repository root: they join the records the chapters write during the build.
CAMPAIGN_REGISTRY = Path("results") / "registry-full"


def _records(app: Sphinx) -> list[dict[str, Any]]:
    """The build's records (written by the executed chapters) and the committed full-scale
    campaign's; a chapter's record of the same (claim, check, scale) replaces the campaign's."""
    built = load_registry(_registry_path(app))
    campaign_dir = Path(app.srcdir) / CAMPAIGN_REGISTRY
    if not campaign_dir.is_dir():
        return built
    seen = {(r["claim_id"], r["check"], r.get("scale", "smoke")) for r in built}
    extra = [r for r in load_registry(campaign_dir)
             if (r["claim_id"], r["check"], r.get("scale", "smoke")) not in seen]
    for r in extra:  # say where a full-scale record comes from on the claims page and in claims.json
        if not r.get("data"):
            r["data"] = {"files": [f"{CAMPAIGN_REGISTRY.as_posix()} (search campaign, commit "
                                   f"{str(r.get('commit', '?'))[:12]})"]}
    return built + extra


def _builder_inited(app: Sphinx) -> None:
    reg = _registry_path(app)
    if reg.exists():
        shutil.rmtree(reg)
    reg.mkdir(parents=True)
    os.environ["ATTN_REGISTRY_DIR"] = str(reg)


def _mathjax_source() -> Path | None:
    """The ``es5`` folder of the MathJax 3 distribution in site-packages, if installed."""
    import importlib.util

    spec = importlib.util.find_spec("mathjax")
    for root in (spec.submodule_search_locations or []) if spec else []:
        es5 = Path(root) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").exists():
            return es5
    return None


def _offline_mathjax(app: Sphinx, config: Any) -> None:
    """Serve MathJax from ``_static/mathjax`` so the HTML renders math without network."""
    es5 = _mathjax_source()
    if es5 is None:
        logger.warning("MathJax is not installed (pip package django-static-mathjax): "
                       "the book will load it from a CDN and needs network to show math")
        return
    staging = Path(app.outdir).parent / "mathjax-static"
    target = staging / "mathjax"
    if not (target / "tex-mml-chtml.js").exists():
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(es5, target)
    config.html_static_path = list(config.html_static_path) + [str(staging)]
    config.mathjax_path = "mathjax/tex-mml-chtml.js"


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


def _table(headers: list[str], rows: list[list[Any]], widths: list[int]) -> nodes.table:
    """A registry table; a cell is a string, a node (set in a paragraph) or a list of block nodes."""
    # "colwidths-given": the LaTeX writer then wraps every column at its share of the line
    # (otherwise the first column is set on one line and pushes the others off the PDF page)
    table = nodes.table(classes=["attn-registry", "colwidths-given"])
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
            if isinstance(cell, list):
                entry.extend(cell)
            elif isinstance(cell, nodes.Node):
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


def _page_of(app: Sphinx, kind: str) -> str | None:
    """The document holding the ``verified-claims`` (``kind="claims"``) or ``errata-list``
    (``kind="errata"``) directive, recorded when it was read."""
    return getattr(app.env, "attn_pages", {}).get(kind)


class erratum_ref(nodes.Inline, nodes.Element):
    """``{erratum}`claim-id/check``` (or ``{erratum}`text <claim-id/check>```): a link to that
    erratum's entry on the errata page, resolved when the registry is complete."""


def erratum_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                 options: dict | None = None, content: list | None = None) -> tuple[list, list]:
    import re

    m = re.fullmatch(r"\s*(?:(?P<title>.+?)\s*<(?P<t1>[^<>]+)>|(?P<t2>[^<>]+))\s*", text)
    target = (m.group("t1") or m.group("t2")).strip() if m else ""
    cid, _, check = target.partition("/")
    if not m or not CLAIM_ID_PATTERN.match(cid) or not check:
        msg = inliner.reporter.error(f"erratum role: expected 'claim-id/check', got {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    node = erratum_ref(rawtext, claim_id=cid, check=check, title=(m.group("title") or "").strip())
    return [node], []


def _resolve_erratum_refs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    refs = list(doctree.findall(erratum_ref))
    if not refs:
        return
    errata = {(r["claim_id"], r["check"]) for r in _records(app) if r["status"] == "erratum"}
    for node in refs:
        cid, check = node["claim_id"], node["check"]
        text = node["title"] or f"erratum {cid} / {check}"
        if (cid, check) not in errata:
            logger.warning(f"{{erratum}} link to {cid}/{check}: the registry has no such erratum",
                           location=node)
        errata_doc = _page_of(app, "errata")
        if app.builder.format == "html" and errata_doc is not None:
            ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(
                docname, errata_doc) + f"#erratum-{cid}-{check}")
            ref += nodes.Text(text)
            node.replace_self(ref)
        else:
            node.replace_self(nodes.Text(text))


def _registry_summary(app: Sphinx) -> dict[str, dict[str, Any]]:
    """The registry's per-claim summary, read once per build (after every chapter ran)."""
    cached = getattr(app, "_attn_summary", None)
    if cached is None:
        cached = summarize_registry(_records(app))
        app._attn_summary = cached  # type: ignore[attr-defined]
    return cached


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
    claims_doc = _page_of(app, "claims")
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


def _add_badges(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give every statement box of the page its claim ID and status badge."""
    statements = _statements(app.env)
    summary = None
    for node in list(doctree.findall(_is_statement)):
        cid = str(node["label"])
        if not CLAIM_ID_PATTERN.match(cid) or cid not in statements:
            continue
        if summary is None:
            summary = _registry_summary(app)
        status = summary.get(cid, {}).get("status", "no-record")
        content = next((c for c in node.children if isinstance(c, nodes.section)), None)
        if content is not None:
            content.insert(0, _badge(app, docname, cid, status, statements[cid].reconstructed))


#: a number pasted by ``{glue:text}`` in Python's e-notation, e.g. ``2.0e-04`` or ``1e+06``
_E_NOTATION = re.compile(r"^(-?\d+(?:\.\d+)?)e([+-]?)0*(\d+)$")


def e_notation_as_math(text: str) -> str | None:
    """``2.0e-04`` -> ``2.0\\times10^{-4}`` (TeX), ``1e+06`` -> ``10^{6}``; None for any other text.

    A glued number formatted with ``:.1e`` reads in prose as the mathematics it is, in HTML and
    in the PDF alike."""
    m = _E_NOTATION.match(text.strip())
    if m is None:
        return None
    mantissa, sign, exp = m.groups()
    power = f"10^{{{'-' if sign == '-' else ''}{exp}}}"
    if exp == "0":
        return mantissa
    if mantissa in ("1", "-1"):
        return ("-" if mantissa == "-1" else "") + power
    return f"{mantissa}\\times{power}"


def _pasted_numbers_as_math(doctree: nodes.document) -> None:
    for node in list(doctree.findall(nodes.inline)):
        if "pasted-text" not in node.get("classes", []):
            continue
        tex = e_notation_as_math(node.astext())
        if tex is not None:
            node.replace_self(nodes.math(tex, tex))


def _doc_links_keep_math(app: Sphinx, doctree: nodes.document) -> None:
    """A ``{doc}`` link shows the target's title as plain text, so a title with math
    ("Mirror descent with an $\\ell_p$ potential") would read "\\ell_p": the link gets a copy
    of the title's own nodes instead."""
    with_math = {title.astext(): title for title in app.env.titles.values()
                 if any(isinstance(n, nodes.math) for n in title.findall(nodes.math))}
    if not with_math:
        return
    for node in list(doctree.findall(nodes.inline)):
        title = with_math.get(node.astext())
        if title is not None and {"doc", "std-doc"} & set(node.get("classes", [])):
            node.children = []
            node.extend(child.deepcopy() for child in title.children)


def _unique_proof_ids(doctree: nodes.document) -> None:
    """sphinx-proof gives every proof the HTML id ``proof`` and every box's content the id
    ``proof-content``; a page with several boxes then repeats ids.  Each gets a numbered id, and a
    proof keeps its look through the class ``attn-proof`` (sphinx-proof styles ``div#proof``)."""
    counts: dict[str, int] = {}
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids", [])
        for fixed in ("proof", "proof-content"):
            if fixed in ids:
                counts[fixed] = counts.get(fixed, 0) + 1
                node["ids"] = [f"{fixed}-{counts[fixed]}" if i == fixed else i for i in ids]
                if fixed == "proof":
                    node["classes"].append("attn-proof")


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    _unique_proof_ids(doctree)
    _pasted_numbers_as_math(doctree)
    _doc_links_keep_math(app, doctree)
    _add_badges(app, doctree, docname)
    _resolve_erratum_refs(app, doctree, docname)
    has_claims = list(doctree.findall(claims_placeholder))
    has_errata = list(doctree.findall(errata_placeholder))
    has_graph = list(doctree.findall(graph_placeholder))
    has_status = list(doctree.findall(status_placeholder))
    has_counts = list(doctree.findall(errata_counts_placeholder))
    if not (has_claims or has_errata or has_graph or has_status or has_counts):
        return
    records = _records(app)
    labels = _statement_labels(app.env)
    summary = summarize_registry(records)
    reg_status = {cid: row["status"] for cid, row in summary.items()}
    statements = _statements(app.env)
    for node in has_graph:
        paper = node["paper"]
        mine = {k: v for k, v in statements.items() if v.paper == paper}
        hrefs = {k: app.builder.get_relative_uri(docname, v.docname) + "#" + k for k, v in mine.items()}
        svg = bp.render_svg(mine, reg_status, hrefs, title=PAPERS[paper])
        node.replace_self(nodes.raw("", f'<div id="graph-{paper}" class="attn-blueprint-wrap" style="overflow-x:auto">'
                                        f"{svg}</div>", format="html"))
    for node in has_status:
        counts = bp.paper_counts(statements, reg_status)
        graph_docs = getattr(app.env, "attn_graph_docs", {})
        columns = [k for k in bp.STATUS_COLOURS if k != "no-record"]
        rows = []
        for paper, name in PAPERS.items():
            c = counts.get(paper, {k: 0 for k in (*bp.STATUS_COLOURS, "total")})
            if paper in graph_docs:
                ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(
                    docname, graph_docs[paper]) + f"#graph-{paper}")
                ref += nodes.Text(name)
            else:
                ref = nodes.Text(name)
            counts_text = "; ".join(f"{c[k]} {bp.STATUS_TEXT[k]}" for k in columns if c[k])
            rows.append([ref, str(c["total"]), counts_text or "—"])
        # one cell of counts per paper (only the statuses that occur): ten columns do not fit a page
        node.replace_self(_table(["paper (links to its dependency graph)", "statements", "status of the statements"],
                                 rows, [26, 16, 58]))
    errata = _distinct_errata(records)
    for node in has_counts:
        node.replace_self(_errata_counts(errata))
    for node in has_claims:
        node.replace_self(_claims_page(app, docname, summary, records, statements, labels))
    for node in has_errata:
        items: list[nodes.Node] = []
        if not errata:
            items.append(nodes.paragraph(text="No erratum has been confirmed by a check yet."))
        else:
            summary_sec = nodes.section(ids=["errata-summary"])
            summary_sec += nodes.title(text="All errata at a glance")
            summary_sec += _errata_summary(app, docname, errata, statements)
            items.append(summary_sec)
        for paper, name in PAPERS.items():
            mine = [r for r in errata if r["claim_id"].split("-", 1)[0] == paper]
            if not mine:
                continue
            psec = nodes.section(ids=[f"errata-{paper}"])
            psec += nodes.title(text=name)
            for kind, kind_text in ERRATUM_KINDS.items():
                group = [r for r in mine if r["detail"]["kind"] == kind]
                if not group:
                    continue
                ksec = nodes.section(ids=[f"errata-{paper}-{kind}"])
                ksec += nodes.title(text=f"{kind_text[0].upper()}{kind_text[1:]} ({len(group)})")
                for r in group:
                    ksec += _erratum_entry(app, docname, r, labels, statements)
                psec += ksec
            items.append(psec)
        node.replace_self(items)


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


def _text_with_math(text: str) -> list[nodes.Node]:
    """``text`` with its ``$...$`` pieces as inline math (a statement title such as
    "Cross-entropy is 2-Lipschitz with respect to $\\ell_\\infty$"); unbalanced dollars stay text."""
    pieces = text.split("$")
    if len(pieces) % 2 == 0:
        return [nodes.Text(text)]
    return [nodes.math(text=p) if i % 2 else nodes.Text(p) for i, p in enumerate(pieces) if p]


def _citation(cid: str, row: dict[str, Any]) -> str:
    """The citation string of a claim: ID, status, scales, book version and commit, date."""
    return (f"{cid} ({STATUS_TEXT[row['status']]}; {'+'.join(row['scales'])} scale), attention-theory "
            f"book v{row['package_version']} (commit {row['commit']}), checked {row['date']}")


def _claims_page(app: Sphinx, docname: str, summary: dict[str, dict[str, Any]],
                 records: list[dict[str, Any]], statements: dict[str, bp.Statement],
                 labels: dict[str, dict[str, Any]]) -> list[nodes.Node]:
    """The Verified claims page: counts, a filter box, then one table per paper (claims in
    natural order) with the statement's title and chapter, status, scales and data, evidence,
    and a button that copies the claim's citation string."""
    from attention_theory.verify.rerun import natural_key

    counts: dict[str, int] = {}
    for row in summary.values():
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    out: list[nodes.Node] = [nodes.paragraph(text=(
        f"{len(summary)} claims, {len(records)} check records: "
        + ", ".join(f"{counts.get(s, 0)} {STATUS_TEXT[s]}" for s in STATUS_TEXT) + "."))]
    example = next(iter(summary.items()), None)
    if example is not None:
        cite = nodes.paragraph()
        cite += nodes.Text("Cite a claim by the string its row's copy button gives, of the form ")
        cite += nodes.literal(text=_citation(*example))
        cite += nodes.Text(". Re-run a claim's checks with ")
        cite += nodes.literal(text=f"python -m attention_theory check {example[0]}")
        cite += nodes.Text(" (add --scale full for the paper's scale).")
        out.append(cite)
    out.append(nodes.raw("", _FILTER_HTML, format="html"))
    for paper, name in PAPERS.items():
        mine = sorted((cid for cid in summary if cid.split("-", 1)[0] == paper), key=natural_key)
        if not mine:
            continue
        rows = []
        for cid in mine:
            row = summary[cid]
            tight = "; ".join(f"{k}: {_fmt(v)}" for k, v in sorted(row["worst_by_check"].items())
                              if math.isfinite(v) and v > 0) or "—"
            if row["status"] == "not-checkable":
                tight = "; ".join(row["reasons"])[:300]
            elif row["status"] == "partial":
                tight = (tight + " | not checked: " + "; ".join(row["reasons"]))[:400]
            elif row["status"] == "fails":
                tight = "; ".join(f"{f['check']} ({f['scale']}): {f['failure']}" for f in row["failures"])[:400]
            if row["errata"]:
                scales_of: dict[tuple[str, str, str], list[str]] = {}
                for e in row["errata"]:
                    scales_of.setdefault((e["check"], e["kind"], _erratum_place(e)), []).append(e.get("scale", "smoke"))
                tight += " | errata: " + "; ".join(
                    f"{c} ({ERRATUM_KINDS[k]} in the {w}; {', '.join(sc)})" for (c, k, w), sc in scales_of.items())
            if row["implementation_checks"]:
                tight += (" | implementation checks (the package's code against itself, not counted in the "
                          "status): " + ", ".join(row["implementation_checks"]))
            st = statements.get(cid)
            claim = nodes.inline()
            claim += _link(app, docname, cid, labels)
            if st is not None and st.title:
                claim += nodes.Text(" ")
                claim.extend(_text_with_math(st.title))
            if st is not None:
                title = app.env.titles.get(st.docname)
                chap = nodes.reference("", "", internal=True,
                                       refuri=app.builder.get_relative_uri(docname, st.docname))
                if title is not None:  # the title's own nodes: its math stays math ($\ell_p$)
                    chap.extend(child.deepcopy() for child in title.children)
                else:
                    chap += nodes.Text(st.docname)
                claim += nodes.Text(" — in ")
                claim += chap
            scales = ", ".join(row["scales"]) + (f" (data: {', '.join(row['data_files'])})"
                                                 if row["data_files"] else "")
            status = nodes.inline()
            status += nodes.strong(text=STATUS_TEXT[row["status"]])
            status += nodes.Text(f"; {len(set(row['checks']))} checks, {row['instances']} instances; "
                                 f"scales: {scales}")
            button = nodes.raw("", f'<button class="attn-copy" type="button" data-cite="{html.escape(_citation(cid, row))}" '
                                   'onclick="attnCopyCite(this)">copy</button>', format="html")
            rows.append([claim, status, tight, button])
        sec = nodes.section(ids=[f"claims-{paper}"])
        sec += nodes.title(text=name)
        table = _table(["claim and chapter", "status and evidence",
                        "worst LHS/RHS per bound check, reason, failure or errata", "cite"], rows,
                       [28, 21, 39, 12])
        table["classes"].append("attn-claims")
        sec += table
        out.append(sec)
    return out


def _erratum_place(d: dict[str, Any]) -> str:
    """Where an erratum sits, in words: "statement", "proof", "background remark", followed by
    "of the review copy" for a copy other than the published one, and by "(listed, not counted in
    the status)" when it does not weigh on the claim's status."""
    place = {"background": "background remark"}.get(d["where"], d["where"])
    if d.get("version", "published") != "published":
        place += f" of the {ERRATUM_VERSIONS[d['version']]}"
    if d.get("version", "published") != "published" or d["where"] == "background":
        place += " (listed, not counted in the status)"
    return place


def _distinct_errata(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One erratum per (claim, check): a check re-run at full scale confirms the same erratum
    again, which is one more piece of evidence, not a second erratum.  The representative is the
    smoke-scale record (the one its chapter shows) when there is one; ``confirmed_at`` lists every
    scale and commit at which the check confirmed it."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in sorted((r for r in records if r["status"] == "erratum"),
                    key=lambda r: r.get("scale", "smoke") != "smoke"):
        entry = out.setdefault((r["claim_id"], r["check"]), dict(r, confirmed_at=[]))
        entry["confirmed_at"].append((r.get("scale", "smoke"), r["commit"]))
    return list(out.values())


def _errata_counts(errata: list[dict[str, Any]]) -> nodes.table:
    """Errata per paper (rows) and kind (columns), with ``statement / proof`` split in each cell;
    errata of a review copy or of a background remark are counted in a column of their own."""
    rows = []
    for paper, name in PAPERS.items():
        everything = [r for r in errata if r["claim_id"].split("-", 1)[0] == paper]
        mine = [r["detail"] for r in everything if weighs_on_statement(r)]
        cells = []
        for kind in ERRATUM_KINDS:
            n_st = sum(1 for d in mine if d["kind"] == kind and d["where"] == "statement")
            n_pr = sum(1 for d in mine if d["kind"] == kind and d["where"] == "proof")
            cells.append(f"{n_st + n_pr} ({n_st} / {n_pr})" if n_st + n_pr else "0")
        rows.append([name, *cells, str(len(everything) - len(mine)), str(len(everything))])
    weigh = [r for r in errata if weighs_on_statement(r)]
    total = [str(sum(1 for r in weigh if r["detail"]["kind"] == k)) for k in ERRATUM_KINDS]
    rows.append(["all papers", *total, str(len(errata) - len(weigh)), str(len(errata))])
    # headers break only between words ("typo / notation"): a column never spills into the next
    kinds = [k.replace("/", " / ") for k in ERRATUM_KINDS.values()]
    table = _table(["paper", *kinds, "review copy or background (listed only)", "total"], rows,
                   [13, *([13] * len(ERRATUM_KINDS)), 12, 10])
    table["classes"].append("attn-errata-counts")
    return table


def _erratum_heading(r: dict[str, Any], statements: dict[str, bp.Statement]) -> list[nodes.Node]:
    """An erratum's name in the book's words: its statement's title (math typeset), then the
    check that confirmed it ("Maurey's sparsification lemma — printed-gamma-squared")."""
    st = statements.get(r["claim_id"])
    title = st.title if st is not None else ""
    head = _text_with_math(title) if title else [nodes.Text(r["claim_id"])]
    return [*head, nodes.Text(f" — {r['check']}")]


def _erratum_entry(app: Sphinx, docname: str, r: dict[str, Any], labels: dict[str, dict[str, Any]],
                   statements: dict[str, bp.Statement]) -> nodes.section:
    d = r["detail"]
    sec = nodes.section(ids=[f"erratum-{r['claim_id']}-{r['check']}"])
    sec += nodes.title("", "", *_erratum_heading(r, statements))
    p = nodes.paragraph()
    p += nodes.Text("Statement: ")
    p += _link(app, docname, r["claim_id"], labels)
    confirmed = r.get("confirmed_at") or [(r.get("scale", "smoke"), r["commit"])]
    where = " and ".join(f"{scale} scale (commit {commit})" for scale, commit in confirmed)
    p += nodes.Text(f" — kind: {ERRATUM_KINDS[d['kind']]}, in the {_erratum_place(d)}; source: {d['source']}; "
                    f"confirmed by the check {r['check']} at {where}, whose record reads ")
    p += nodes.literal(text=r["description"])  # the check's own words, verbatim (plain text)
    p += nodes.Text(". ")
    p += nodes.Text("Printed and corrected were evaluated on the same instances."
                    if d.get("same_instances") else
                    f"Printed and corrected ran on different instances: {d.get('different_instances_reason', '')}")
    sec += p
    cells = []
    for key in ("printed", "corrected"):
        cell: list[nodes.Node] = []
        tex = d[key].get("tex")
        if tex:
            # inline math in a paragraph: a display block inside a table cell breaks the LaTeX writer
            para = nodes.paragraph()
            para += nodes.math(tex, r"\displaystyle " + tex)
            cell.append(para)
        else:
            para = nodes.paragraph()
            para.extend(_text_with_math(d[key]["text"]))
            cell.append(para)
        outcome = nodes.paragraph(classes=["attn-erratum-outcome"])
        outcome += nodes.emphasis(text=d[key]["summary"])
        cell.append(outcome)
        cells.append(cell)
    table = _table(["as printed (fails)", "corrected (passes)"], [cells], [50, 50])
    table["classes"].append("attn-erratum-pair")
    sec += table
    return sec


def _errata_summary(app: Sphinx, docname: str, errata: list[dict[str, Any]],
                    statements: dict[str, bp.Statement]) -> nodes.table:
    """One row per erratum: paper, location (the paper's source), kind and place, and the entry."""
    from attention_theory.verify.rerun import natural_key

    rows = []
    for paper, name in PAPERS.items():
        mine = sorted((r for r in errata if r["claim_id"].split("-", 1)[0] == paper),
                      key=lambda r: (list(ERRATUM_KINDS).index(r["detail"]["kind"]), natural_key(r["claim_id"])))
        for r in mine:
            d = r["detail"]
            ref = nodes.reference("", "", internal=True, refid=f"erratum-{r['claim_id']}-{r['check']}")
            ref.extend(_erratum_heading(r, statements))
            rows.append([name.split(" (")[0], str(d.get("source", "")),
                         f"{ERRATUM_KINDS[d['kind']]} ({_erratum_place(d)})", ref])
    return _table(["paper", "location", "kind (place)", "statement and check"], rows, [14, 22, 18, 46])


def _env_check_consistency(app: Sphinx, env: Any) -> None:
    """Warn about records without statements and statements without records."""
    records = _records(app)
    labels = _statement_labels(env)
    recorded = {r["claim_id"] for r in records}
    pairs = set(registered_checks())
    for r in records:
        if r["status"] != "not-checkable" and (r["claim_id"], r["check"]) not in pairs:
            logger.warning(f"record {r['claim_id']} / {r['check']} comes from no registered check")
    for cid in sorted(recorded - set(labels)):
        logger.warning(f"check records exist for claim {cid!r} but no statement carries that label")
    for cid in sorted(set(labels) - recorded):
        info = labels[cid]
        logger.warning(f"statement {cid!r} has no check and no recorded reason "
                       "(call a registered check or verify.not_checkable)",
                       location=(info["docname"], None))


#: The registry tables fill the text column and wrap long cells instead of overflowing it.
REGISTRY_CSS = """table.attn-registry { table-layout: fixed; width: 100%; }
table.attn-registry th, table.attn-registry td { font-size: 0.88em; }
table.attn-registry td { overflow-wrap: anywhere; }
table.attn-registry th { overflow-wrap: normal; hyphens: auto; }
table.attn-registry th p, table.attn-registry td p { margin: 0; }
button.attn-copy { font-size: 0.85em; padding: 0 0.4em; white-space: nowrap; }
p.attn-claim-badge { font-size: 0.85em; margin: 0 0 0.5em 0; color: #444; }
span.attn-status { padding: 0 0.35em; border-radius: 3px; color: #222; }
div.attn-proof { padding: .4rem .6rem .4rem 2rem !important; border-color: var(--grey-border-color); }
table.attn-errata-counts th { font-size: 0.8em; }
/* a number glued into prose is part of the sentence, not an emphasis (myst-nb makes it bold) */
span.pasted-text { font-weight: inherit; }
/* outputs and code wrap instead of scrolling: nothing is cut off on the page or in print */
div.cell_output pre, div.cell_input pre, div.output pre, article div.highlight pre { white-space: pre-wrap; overflow-wrap: anywhere; }
/* tables a chapter's code displays fit the column: cells wrap (a wide table would scroll out of sight) */
div.cell_output table { table-layout: fixed; width: 100%; font-size: 0.85em; }
div.cell_output table td, div.cell_output table th { overflow-wrap: anywhere; hyphens: auto; }
""" + "".join(f"span.attn-status-{k} {{ background: {v}; }}\n" for k, v in bp.STATUS_COLOURS.items())


def _build_finished(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / "attn-registry.css").write_text(REGISTRY_CSS)
    records = _records(app)
    summary = summarize_registry(records)
    statements = {k: {"docname": v.docname, "title": v.title, "uses": sorted(set(v.uses)),
                      "reconstructed": v.reconstructed}
                  for k, v in sorted(_statements(app.env).items())}
    out = {"claims": list(summary.values()), "records": records, "statements": statements}
    Path(app.outdir, "claims.json").write_text(json.dumps(out, indent=1, sort_keys=True))


def _notebook_download(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                       doctree: Any) -> None:
    """Offer each chapter as ``.ipynb`` (converted with jupytext) in the download menu."""
    if doctree is None or app.builder.format != "html":
        return
    src = Path(app.env.doc2path(pagename))
    if src.suffix != ".md" or not src.exists():
        return
    import jupytext

    nb = jupytext.read(src)
    if "kernelspec" not in nb.metadata:
        return
    out = Path(app.outdir) / "_sources" / (pagename + ".ipynb")
    out.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, out)
    context["ipynb_source"] = pagename + ".ipynb"


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_css_file("attn-registry.css")
    app.add_node(claims_placeholder)
    app.add_node(errata_placeholder)
    app.add_directive("verified-claims", VerifiedClaimsDirective)
    app.add_directive("errata-list", ErrataListDirective)
    app.add_node(graph_placeholder)
    app.add_node(status_placeholder)
    app.add_directive("dependency-graph", DependencyGraphDirective)
    app.add_directive("paper-status", PaperStatusDirective)
    app.add_node(errata_counts_placeholder)
    app.add_node(erratum_ref)
    app.add_role("erratum", erratum_role)
    app.add_directive("errata-counts", ErrataCountsDirective)
    strongest.register(app, _records)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _purge_doc)
    app.connect("html-page-context", _notebook_download, priority=400)
    # Chapter titles with math appear in the navigation of every page, so MathJax must be
    # loaded on every page, not only on pages whose body has math.
    app.set_html_assets_policy("always")
    app.connect("config-inited", _offline_mathjax)
    app.connect("builder-inited", _builder_inited)
    app.connect("env-check-consistency", _env_check_consistency)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("build-finished", _build_finished)
    return {"version": "0.1", "parallel_read_safe": False, "parallel_write_safe": True}


__all__ = ["setup"]
