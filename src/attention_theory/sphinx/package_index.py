"""The package index (``{package-index}``): every module of :mod:`attention_theory` with the first
paragraph of its docstring, the chapters that import it, and what each chapter calls from it.

The "used by" back-links are generated from the chapters' own code, never kept by hand.  At
``doctree-read`` the code cells of every chapter (a page with a Jupyter kernel) are parsed with
``ast``: the import lines bind names to modules (``from attention_theory.x import y [as z]``,
where ``y`` is a module or a name of module ``x``; ``import attention_theory.x [as z]``), under
whatever alias the chapter chose, and each call ``alias.f(...)`` (or ``f(...)`` for a name
imported from a module) counts as the chapter calling ``f`` of that module.  The modules are
found on disk (no import); private modules (a part starting with ``_``) and the Sphinx extension
itself are left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, Collection, Iterable

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

import attention_theory
from attention_theory import papers
from attention_theory.sphinx.records import PageData
from attention_theory.sphinx.render import chapter_link, table, text_with_math

__all__ = ["PACKAGE", "SKIPPED", "package_modules", "docstring_summary", "chapter_uses",
           "rst_inline", "doctree_read", "purge_doc", "render_package_index"]

logger = logging.getLogger(__name__)

#: The package the index lists.
PACKAGE = "attention_theory"
#: Subpackages left out of the index: the Sphinx extension is the book's machinery, not code a
#: chapter uses.
SKIPPED = ("attention_theory.sphinx",)


# --- pure functions (tested in tests/core/test_package_index.py) --------------------------------

def docstring_summary(doc: str | None) -> str:
    """The first paragraph of a docstring on one line (``""`` without a docstring)."""
    if not doc:
        return ""
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in first.splitlines())


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGE, *parts])


def _listed(name: str) -> bool:
    parts = name.split(".")
    return (len(parts) > 1 and not any(p.startswith("_") for p in parts)
            and not any(name == s or name.startswith(s + ".") for s in SKIPPED))


def package_modules(root: str | Path | None = None) -> dict[str, str]:
    """``{module: docstring summary}`` of every public module and subpackage under ``root`` (the
    folder of :mod:`attention_theory` by default), sorted by name; read from the source, without
    importing anything.  The package itself, private modules and :data:`SKIPPED` are left out."""
    root = Path(root if root is not None else attention_theory.__path__[0])
    out = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        name = _module_name(root, path)
        if _listed(name):
            out[name] = docstring_summary(ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))))
    return dict(sorted(out.items()))


_MAGIC = re.compile(r"^\s*[%!]", re.M)


def _parse_cell(code: str) -> ast.Module:
    """A code cell as Python: IPython magics and shell lines (``%...``, ``!...``) are blanked."""
    return ast.parse("\n".join("" if _MAGIC.match(line) else line for line in code.splitlines()))


def _bind_from(node: ast.ImportFrom, modules: Collection[str], as_module: dict[str, str],
               as_name: dict[str, tuple[str, str]]) -> None:
    base = node.module or ""
    if node.level or not (base == PACKAGE or base.startswith(PACKAGE + ".")):
        return
    for alias in node.names:
        local = alias.asname or alias.name
        if f"{base}.{alias.name}" in modules:
            as_module[local] = f"{base}.{alias.name}"
        elif base in modules:
            as_name[local] = (base, alias.name)


def _bind_import(node: ast.Import, modules: Collection[str], as_module: dict[str, str]) -> None:
    for alias in node.names:
        if alias.name in modules:
            as_module[alias.asname or alias.name] = alias.name


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr}"
    return None


def _called(call: ast.Call, as_module: dict[str, str],
            as_name: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """``(module, function)`` of a call ``alias.function(...)`` or ``function(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        module = as_module.get(_dotted(func.value) or "")
        return (module, func.attr) if module is not None else None
    if isinstance(func, ast.Name):
        return as_name.get(func.id)
    return None


def chapter_uses(cells: str | Iterable[str], modules: Collection[str]) -> dict[str, list[str]]:
    """``{module: sorted public names it calls}`` for every module of ``modules`` that the code
    imports (an empty list: imported, nothing called).  ``cells`` is one piece of code or the
    code cells of a chapter in order; the aliases are the chapter's own (read from its import
    lines, at any depth).  A cell that is not valid Python raises ``SyntaxError``."""
    trees = [_parse_cell(c) for c in ([cells] if isinstance(cells, str) else cells)]
    as_module: dict[str, str] = {}
    as_name: dict[str, tuple[str, str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                _bind_from(node, modules, as_module, as_name)
            elif isinstance(node, ast.Import):
                _bind_import(node, modules, as_module)
    uses: dict[str, set[str]] = {m: set() for m in (*as_module.values(), *(m for m, _ in as_name.values()))}
    for tree in trees:
        for node in ast.walk(tree):
            hit = _called(node, as_module, as_name) if isinstance(node, ast.Call) else None
            if hit is not None and not hit[1].startswith("_"):
                uses[hit[0]].add(hit[1])
    return {m: sorted(names) for m, names in sorted(uses.items())}


_RST = re.compile(r"``(?P<code>.+?)``|:[a-z:]+:`(?P<tilde>~?)(?P<role>[^`]+)`"
                  r"|\*\*(?P<strong>.+?)\*\*|`(?P<tick>[^`]+)`")


def rst_inline(text: str) -> list[nodes.Node]:
    """A docstring's reStructuredText markup as nodes: ````code````, ```x```, ``:role:`x``` (with
    ``~``: its last dotted part) as code, ``**x**`` strong, ``$...$`` math, the rest text."""
    out: list[nodes.Node] = []
    pos = 0
    for m in _RST.finditer(text):
        out += text_with_math(text[pos:m.start()]) if m.start() > pos else []
        if m["strong"] is not None:
            out.append(nodes.strong(text=m["strong"]))
        else:
            code = m["code"] or m["tick"] or m["role"]
            out.append(nodes.literal(text=code.rsplit(".", 1)[-1] if m["tilde"] else code))
        pos = m.end()
    return out + (text_with_math(text[pos:]) if pos < len(text) else [])


# --- Sphinx hooks ------------------------------------------------------------------------------

def _modules(app: Sphinx) -> dict[str, str]:
    cached = getattr(app, "_attn_package_modules", None)
    if cached is None:
        cached = app._attn_package_modules = package_modules()  # type: ignore[attr-defined]
    return cached


def _code_cells(path: Path) -> list[str] | None:
    """The code cells of a chapter (a page with a Jupyter kernel); ``None`` for other pages."""
    if path.suffix not in (".md", ".ipynb") or not path.is_file():
        return None
    import jupytext

    nb = jupytext.read(path)
    if "kernelspec" not in nb.metadata:
        return None
    return [c.source for c in nb.cells if c.cell_type == "code"]


def doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Record which modules this chapter imports and what it calls from each."""
    cells = _code_cells(Path(app.env.doc2path(app.env.docname)))
    if cells is None:
        return
    if not hasattr(app.env, "attn_chapter_uses"):
        app.env.attn_chapter_uses = {}
    try:
        app.env.attn_chapter_uses[app.env.docname] = chapter_uses(cells, _modules(app))
    except SyntaxError as exc:
        logger.warning(f"package index: the code of this chapter is not Python ({exc})",
                       location=app.env.docname)


def purge_doc(app: Sphinx, env: Any, docname: str) -> None:
    """Forget the imports of a document about to be read again."""
    getattr(env, "attn_chapter_uses", {}).pop(docname, None)


def _toc_order(env: Any) -> list[str]:
    """Every document in the order of the table of contents (depth first from the root)."""
    order: list[str] = []

    def visit(doc: str) -> None:
        if doc not in order:
            order.append(doc)
            for child in env.toctree_includes.get(doc, []):
                visit(child)

    visit(env.config.root_doc)
    return order


def _group(module: str, modules: Collection[str]) -> str:
    """The part of the index a module belongs to: its top-level subpackage, or the package."""
    top = ".".join(module.split(".")[:2])
    is_package = module != top or any(m.startswith(module + ".") for m in modules)
    return top if is_package else PACKAGE


def _group_title(group: str) -> str:
    key = group.split(".")[-1]
    names = {p.key: p.short for p in papers.PAPERS}
    if group == PACKAGE:
        return "Shared modules of the package"
    return f"{names[key]}: {group}" if key in names else group


def _users_cell(page: PageData, users: list[tuple[str, list[str]]]) -> list[nodes.Node] | str:
    if not users:
        return "—"
    items = nodes.bullet_list()
    for docname, calls in users:
        para = nodes.paragraph()
        para += chapter_link(page.app, page.docname, docname)
        if calls:
            para += nodes.Text(": ")
            for i, name in enumerate(calls):
                if i:
                    para += nodes.Text(", ")
                para += nodes.literal(text=name)
        items += nodes.list_item("", para)
    return [items]


def _module_cell(module: str) -> nodes.paragraph:
    para = nodes.paragraph(ids=[nodes.make_id("module " + module)])
    para += nodes.literal(text=module)
    return para


def render_package_index(page: PageData, node: nodes.Element) -> list[nodes.Node]:
    """``{package-index}``: one section per subpackage (papers in the order of the book), one row
    per module: its name, what it holds, and the chapters that import it with what each calls."""
    uses = getattr(page.app.env, "attn_chapter_uses", {})
    chapters = [d for d in _toc_order(page.app.env) if d in uses]
    modules = _modules(page.app)
    groups: dict[str, list[list[Any]]] = {}
    for module, summary in modules.items():
        users = [(d, uses[d][module]) for d in chapters if module in uses[d]]
        groups.setdefault(_group(module, modules), []).append(
            [[_module_cell(module)], [nodes.paragraph("", "", *rst_inline(summary))],
             _users_cell(page, users)])
    order = [PACKAGE, *sorted(g for g in groups if g.split(".")[-1] not in _paper_keys()),
             *(f"{PACKAGE}.{k}" for k in _paper_keys())]
    out: list[nodes.Node] = []
    for group in dict.fromkeys(g for g in order if g in groups):
        sec = nodes.section(ids=[nodes.make_id("package " + group)])
        sec += nodes.title(text=_group_title(group))
        sec += table(["module", "what it holds", "chapters that import it: what each calls"],
                     groups[group], [26, 40, 34])
        out.append(sec)
    return out


def _paper_keys() -> list[str]:
    return [p.key for p in papers.PAPERS]
