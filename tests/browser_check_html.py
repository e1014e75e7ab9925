"""Browser test of the built HTML book (``make check-html``; needs ``make book`` first).

Every page of ``_build/html`` is opened in headless Chromium (Debian's ``chromium`` and
``chromium-driver``) through a server on 127.0.0.1, with every other host unreachable, and
checked as a reader would see it:

* the mathematics was typeset by MathJax (served from the build): no raw TeX left in math
  elements and no MathJax error boxes;
* every image loaded (non-zero natural size);
* every internal link and cross-reference points to an existing page and anchor;
* the page references no external script, stylesheet or font (offline reading);
* the package index has a row for every public module of the package;
* the Verified-claims table has one row per claim of ``claims.json``, and every check record a
  chapter prints (``[verified at full scale] claim / check: ...``) has the status of the
  registry's record of that (claim, check, scale);
* nothing is clipped: no cell output, code input, display equation, table or figure of the page
  body is wider than its box or sticks out of the text column (the article's content box; a
  table's scroll container counts as a box: a table that only fits by scrolling is clipped);
* the reader-visible text has no raw TeX outside math, no literal backtick, no local file path,
  and none of the internal words "task", "lent", "owed", "catalogue";
* the footer of every page shows the package version, the build date and the git commit, and
  links ``README.md``, ``CITATION.cff`` (copied into the HTML output) and, when ``make pdf`` has
  built it, the PDF of the book.

Screenshots of a few pages are written to ``_build/html-check/`` for a human look.
This file is not collected by ``make test`` (its name does not start with ``test_``).
"""

from __future__ import annotations

import collections
import functools
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("ATTN_HTML_DIR", ROOT / "_build" / "html"))
SHOTS = HTML.parent / "html-check"
SCREENSHOT_PAGES = ("index.html", "book/verified-claims.html", "book/errata.html",
                    "book/foundations/softmax.html", "book/trauger/linear-covering.html",
                    "book/trauger/sparse-majority.html")
PDF_NAME = "attention-theory-verified.pdf"
EXTERNAL = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.I)

if not (HTML / "index.html").exists():
    pytest.exit("no built book at _build/html: run `make book` first", returncode=2)


def _pages() -> list[str]:
    pages = sorted(str(p.relative_to(HTML)) for p in HTML.rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts)
    return [p for p in pages if p not in ("genindex.html", "search.html")] + ["search.html"]


@pytest.fixture(scope="session")
def server():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output readable
            pass

    handler = functools.partial(Quiet, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver")
    if not chromium or not driver_bin:
        pytest.exit("Debian's chromium and chromium-driver are needed (make check-html installs them)",
                    returncode=2)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic", "--window-size=1280,1600",
                 # offline: every host but the local server is unreachable
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(driver_bin), options=opts)
    drv.set_page_load_timeout(60)
    drv.set_script_timeout(60)
    yield drv
    drv.quit()


#: Words of the project's internal language that must not reach a reader.
# "multi-task" in a cited title is fine
INTERNAL_WORDS = re.compile(r"(?<![-\w])(tasks?|lent|owed|catalogues?)\b", re.I)
LOCAL_PATH = re.compile(r"(?:/work/|/home/|/tmp/|/root/|/private/var/|[A-Z]:\\Users\\)")
RAW_TEX = re.compile(r"\\(?:frac|sum|mathbb|mathrm|ell|left|right|begin|end|sqrt|alpha|beta|gamma|"
                     r"theta|sigma|lambda|epsilon|cdot|le|ge|infty|operatorname|top)(?![A-Za-z])"
                     r"|\$[^$\s][^$]*[\\^_{}][^$]*\$"
                     r"|\*\*\w")
# (?![A-Za-z]), not \b: "\ell_p" has no word boundary before "_"; "**": raw bold


def _layout(drv) -> dict:
    """Clipped boxes and the reader-visible text (outside code and math) of the page body."""
    return drv.execute_script("""
        const main = document.querySelector('article.bd-article') || document.querySelector('main article') ||
                     document.querySelector('main') || document.body;
        // the text column is the article's content box: its padding is not room for a box to use
        // (a table's scroll container ends where the padding starts and cuts what lies beyond)
        const box = main.getBoundingClientRect(), pad = getComputedStyle(main);
        const col = {left: box.left + parseFloat(pad.paddingLeft),
                     right: box.right - parseFloat(pad.paddingRight)};
        const sel = 'div.cell_output pre, div.cell_input pre, div.output pre, ' +
                    'mjx-container[display="true"], div.math, table, img, svg, div.highlight pre, ' +
                    'div.pst-scrollable-table-container';
        const clipped = [];
        for (const el of main.querySelectorAll(sel)) {
          if (el.closest('.attn-blueprint-wrap') || el.closest('nav') || el.closest('.headerlink') ||
              (el.classList && el.classList.contains('svg-inline--fa'))) continue;
          if (el.getClientRects().length === 0) continue;
          const r = el.getBoundingClientRect();
          const wide = el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== 'visible';
          const out = r.right > col.right + 2 || r.left < col.left - 2;
          if (r.width > 0 && (wide || out)) {
            const cls = el.className.baseVal !== undefined ? el.className.baseVal : el.className;
            clipped.push(el.tagName.toLowerCase() + '.' + cls.toString().split(' ')[0] + ': ' +
                         (el.textContent || '').trim().slice(0, 60));
          }
        }
        // a table cell whose content is wider than the cell spills over its neighbour (fixed layout)
        for (const cell of main.querySelectorAll('table th, table td')) {
          if (cell.closest('.attn-blueprint-wrap') || cell.getClientRects().length === 0) continue;
          if (cell.scrollWidth > cell.clientWidth + 2) {
            clipped.push(cell.tagName.toLowerCase() + ' (content wider than its cell): ' +
                         (cell.textContent || '').trim().slice(0, 60));
          }
        }
        const skip = 'pre, code, script, style, .math, mjx-container, .MathJax, .highlight, kbd, samp, ' +
                     '.cell_input';
        const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
        const parts = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (!n.parentElement || n.parentElement.closest(skip)) continue;
          parts.push(n.textContent);
        }
        const outputs = Array.from(main.querySelectorAll('div.cell_output, div.output'))
                             .map(e => e.textContent).join(' ');
        return {clipped: clipped, prose: parts.join(' '), outputs: outputs};
    """)


def _text_problems(seen: dict) -> list[str]:
    problems = []
    prose, outputs = seen["prose"], seen["outputs"]
    if "`" in prose:
        i = prose.index("`")
        problems.append(f"literal backtick in the text: ...{prose[max(0, i - 40):i + 40]!r}")
    for name, pattern, text in (("internal word", INTERNAL_WORDS, prose + " " + outputs),
                                ("local path", LOCAL_PATH, prose + " " + outputs),
                                ("raw TeX outside math", RAW_TEX, prose)):
        m = pattern.search(text)
        if m:
            problems.append(f"{name}: ...{text[max(0, m.start() - 40):m.end() + 40]!r}")
    return problems


def _typeset(drv) -> dict:
    """Wait for MathJax, then report what a reader sees on the page."""
    return drv.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const report = () => {
          const maths = Array.from(document.querySelectorAll('.math, span.math, div.math'));
          const raw = maths.filter(m => !m.querySelector('mjx-container') &&
                                        /\\\\\\(|\\\\\\[|\\$\\$/.test(m.textContent)).length;
          const errors = document.querySelectorAll('mjx-merror, [data-mjx-error]').length;
          const imgs = Array.from(document.images);
          const broken = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
          done({mathjax: !!(window.MathJax && window.MathJax.version), maths: maths.length,
                raw: raw, errors: errors, images: imgs.length, broken: broken});
        };
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
          MathJax.startup.promise.then(report, report);
        } else { setTimeout(report, 500); }
    """)


@functools.lru_cache(maxsize=None)
def _anchors(page: Path) -> frozenset[str]:
    text = page.read_text(errors="replace")
    return frozenset(re.findall(r"""\b(?:id|name)=["']([^"']+)["']""", text))


def _internal_links(page: str) -> list[tuple[str, str]]:
    """``(href, problem)`` for every broken internal link of ``page``."""
    text = (HTML / page).read_text(errors="replace")
    bad = []
    for href in re.findall(r"""<a\b[^>]*\bhref=["']([^"']+)["']""", text):
        if href.startswith(("http://", "https://", "mailto:", "javascript:", "//")):
            continue
        url = urlparse(urljoin(f"http://x/{page}", href))
        target = HTML / unquote(url.path.lstrip("/"))
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            bad.append((href, "missing file"))
        elif url.fragment and target.suffix == ".html" and unquote(url.fragment) not in _anchors(target):
            bad.append((href, "missing anchor"))
    return bad


@pytest.mark.parametrize("page", _pages())
def test_page(page, server, browser):
    browser.get(server + page)
    seen = _typeset(browser)
    problems = []
    if seen["maths"] and not seen["mathjax"]:
        problems.append("MathJax did not load")
    if seen["raw"]:
        problems.append(f"{seen['raw']} math element(s) left as raw TeX")
    if seen["errors"]:
        problems.append(f"{seen['errors']} MathJax error(s)")
    if seen["broken"]:
        problems.append(f"images not loaded: {seen['broken'][:5]}")
    broken_links = _internal_links(page)
    if broken_links:
        problems.append(f"broken internal links: {broken_links[:5]}")
    ids = re.findall(r"""\bid=["']([^"']+)["']""", (HTML / page).read_text(errors="replace"))
    repeated = sorted(i for i, n in collections.Counter(ids).items() if n > 1)
    if repeated:  # a link to a repeated anchor lands on the first one only
        problems.append(f"repeated HTML ids: {repeated[:5]}")
    external = EXTERNAL.findall((HTML / page).read_text(errors="replace"))
    if external:
        problems.append(f"external resources: {external[:3]}")
    layout = _layout(browser)
    if layout["clipped"]:
        problems.append(f"{len(layout['clipped'])} box(es) wider than the column: {layout['clipped'][:4]}")
    problems += _text_problems(layout)
    footer = _footer(browser)
    if footer is None:
        problems.append("no version/commit footer (div.attn-build-info)")
    else:
        if footer["version"] != _version() or not re.fullmatch(r"[0-9a-f]{7,40}|unknown", footer["commit"]):
            problems.append(f"footer version/commit wrong: {footer}")
        if not footer["visible"]:
            problems.append("footer not visible")
        missing = {"CITATION.cff", "README.md"} - set(footer["links"])
        if missing:
            problems.append(f"footer links missing: {sorted(missing)}")
        if (HTML / PDF_NAME).exists() and PDF_NAME not in footer["links"]:
            problems.append("the PDF is built but the footer does not link it")
    if page in SCREENSHOT_PAGES:
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / (page.replace("/", "_").removesuffix(".html") + ".png")))
    assert not problems, f"{page}: " + "; ".join(problems)


def _footer(drv) -> dict | None:
    return drv.execute_script("""
        const f = document.querySelector('.attn-build-info');
        if (!f) { return null; }
        const r = f.getBoundingClientRect();
        return {version: f.dataset.version, commit: f.dataset.commit, date: f.dataset.date,
                visible: r.width > 0 && r.height > 0,
                links: Array.from(f.querySelectorAll('a')).map(a => a.getAttribute('href').split('/').pop())};
    """)


@functools.lru_cache(maxsize=None)
def _version() -> str:
    text = (ROOT / "src" / "attention_theory" / "__init__.py").read_text()
    return re.search(r"""__version__\s*=\s*["']([^"']+)""", text).group(1)


def test_citation_files_are_served():
    for name in ("README.md", "CITATION.cff"):
        assert (HTML / name).is_file() and (HTML / name).stat().st_size > 0, f"{name} not in the HTML output"


def test_no_external_fonts_or_imports_in_css():
    offenders = []
    for css in HTML.rglob("*.css"):
        for url in re.findall(r"""(?:url\(|@import\s+)["']?((?:https?:)?//[^"')\s]+)""",
                              css.read_text(errors="replace")):
            offenders.append(f"{css.relative_to(HTML)}: {url}")
    assert not offenders, offenders[:10]


def test_verified_claims_table_has_one_row_per_claim(server, browser):
    claims = json.loads((HTML / "claims.json").read_text())["claims"]
    browser.get(server + "book/verified-claims.html")
    rows = browser.execute_script(
        "return document.querySelectorAll('table.attn-registry tbody tr').length")
    assert rows == len(claims) > 0


def test_package_index_has_a_row_per_module_and_links_chapters():
    from docutils.nodes import make_id

    from attention_theory.sphinx.package_index import package_modules

    page = HTML / "book" / "package-index.html"
    anchors = _anchors(page)
    missing = [m for m in package_modules() if make_id("module " + m) not in anchors]
    assert not missing, f"modules without a row in the package index: {missing[:10]}"
    assert page.read_text(errors="replace").count('<a class="reference internal" href="') > 20


_PRINTED_RECORD = re.compile(
    r"\[(verified|FAILS|not numerically checkable|erratum confirmed: [^\]]*?) at (smoke|full) scale"
    r"[^\]]*\] ([a-z0-9-]+) / ([a-z0-9-]+):")
_MARK_STATUS = {"verified": "verified", "FAILS": "fails", "not numerically checkable": "not-checkable"}


def printed_records(page_html: str) -> list[tuple[str, str, str, str]]:
    """``(claim, check, scale, status)`` of every record a page prints in its cell outputs."""
    import html as html_lib

    text = html_lib.unescape(re.sub(r"<[^>]+>", "", page_html))
    return [(cid, chk, scale, "erratum" if mark.startswith("erratum") else _MARK_STATUS[mark])
            for mark, scale, cid, chk in _PRINTED_RECORD.findall(text)]


def test_printed_record_pattern():
    shown = ("<pre>[verified at full scale on results/a.json] deora-fig-4 / margin: x\n"
             "[FAILS at smoke scale] trauger-fig-3 / plateau: y\n"
             "[holds, not recorded, at full scale] deora-fig-4 / recovered: z</pre>")
    assert printed_records(shown) == [("deora-fig-4", "margin", "full", "verified"),
                                      ("trauger-fig-3", "plateau", "smoke", "fails")]


def test_chapters_print_the_registry_verdicts():
    claims = json.loads((HTML / "claims.json").read_text())
    registry = {(r["claim_id"], r["check"], r.get("scale", "smoke")): r["status"] for r in claims["records"]}
    seen, differ = 0, []
    for page in sorted((HTML / "book").rglob("*.html")):
        for cid, chk, scale, status in printed_records(page.read_text()):
            seen += 1
            if registry.get((cid, chk, scale)) != status:
                differ.append(f"{page.relative_to(HTML)}: {cid} / {chk} at {scale} scale prints {status}, "
                              f"the registry has {registry.get((cid, chk, scale))}")
    assert seen > 100, f"only {seen} printed records found: has the record format changed?"
    assert not differ, "\n".join(differ)


def test_search_works_offline(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server + "search.html?q=softmax")
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#search-results li, ul.search li"))
    hits = browser.find_elements(By.CSS_SELECTOR, "#search-results li, ul.search li")
    assert hits, "the offline search index returned nothing for 'softmax'"
