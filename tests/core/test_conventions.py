"""The conventions of CONTRIBUTING.md ("Rules"), read from the sources; each test lists its offenders.

* names: a chapter ``book/<paper>/<chapter>.md`` of ``_toc.yml`` has its checks in
  ``attention_theory.<paper>.checks.<chapter_>`` (hyphens become underscores) and their negative
  controls in ``tests/<paper>/test_nc_<chapter_>.py``; the module exists iff the chapter calls
  checks of its own, the control file exists iff the module registers checks, and every check
  module, control file and negative control belongs to a chapter (``book/foundations`` likewise);
* imports in chapters: ``as checks`` only for the chapter's own check module, every other module
  under its own name, or ``<parent>_<name>`` when two modules the chapter imports share a name;
* registered checks take keyword-only arguments;
* float64: no ``set_default_dtype`` in chapters, and ``foundations.tensors.VERIFICATION_DTYPE``
  is the only module-level name of the package bound to ``torch.float64``;
* no ``def``/``class`` in chapter code cells;
* no module over :data:`MAX_LINES` lines unless :data:`LONG_MODULES` says why;
* the validation helpers are public (``attention_theory.validation``).

``ATTN_CONVENTIONS_PAPER=<key>`` restricts every test to one paper (``make test-paper``, and the
copies of the repository that ``test_contributing.py`` and ``test_scaffold.py`` make for a new
paper); only that paper's check modules are imported then.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import os
import re
from pathlib import Path
from typing import Any, Callable

import jupytext
import yaml

from attention_theory import papers

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PKG = SRC / "attention_theory"
BOOK = ROOT / "book"
TESTS = ROOT / "tests"

#: ``ATTN_CONVENTIONS_PAPER``: the one paper (or ``foundations``) to look at, else every one.
ONLY = os.environ.get("ATTN_CONVENTIONS_PAPER", "").strip() or None
#: Folders of ``book/`` and ``src/attention_theory/`` that hold chapters and check modules.
FOLDERS = tuple(f for f in (*papers.SHARED_CHECK_PACKAGES, *(p.key for p in papers.PAPERS))
                if ONLY is None or f == ONLY)

#: Longest module (lines) without a stated reason.
MAX_LINES = 700
#: Modules of ``src/attention_theory`` (path relative to it) allowed over :data:`MAX_LINES`, with
#: the reason they cannot be split sensibly. An entry that is no longer needed fails the test.
LONG_MODULES: dict[str, str] = {
    "trauger/checks/linear_covering.py":
        "the 30 registered checks of one chapter (Sec. 3, Apps. A-B); the computation lives in "
        "trauger/linear_covering.py and linear_covering_search.py, what remains is each check's "
        "statement, families and erratum texts",
    "trauger/checks/single_layer.py":
        "the 25 checks and records of one chapter (Sec. 4.1-4.2, Apps. C-D); the computation lives in "
        "trauger/single_layer.py and single_layer_search.py",
}


# ----------------------------------------------------------------------------------- chapters

@dataclasses.dataclass(frozen=True)
class Chapter:
    """A chapter ``book/<folder>/<name>.md`` of ``_toc.yml`` and the names that follow from it."""

    folder: str
    name: str

    @property
    def path(self) -> Path:
        return BOOK / self.folder / f"{self.name}.md"

    @property
    def label(self) -> str:
        return f"book/{self.folder}/{self.name}.md"

    @property
    def module(self) -> str:
        return f"attention_theory.{self.folder}.checks.{self.name.replace('-', '_')}"

    @property
    def control(self) -> Path:
        return TESTS / self.folder / f"test_nc_{self.name.replace('-', '_')}.py"


def _toc_files(node: Any) -> list[str]:
    if isinstance(node, dict):
        return ([node["file"]] if "file" in node else []) + [f for v in node.values() for f in _toc_files(v)]
    if isinstance(node, list):
        return [f for v in node for f in _toc_files(v)]
    return []


@functools.cache
def chapters() -> tuple[Chapter, ...]:
    """Every chapter of ``_toc.yml`` in a paper's folder or ``book/foundations``."""
    out = []
    for entry in _toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text())):
        parts = Path(entry).parts
        if len(parts) == 3 and parts[0] == "book" and parts[1] in FOLDERS:
            out.append(Chapter(parts[1], Path(parts[2]).stem))
    return tuple(out)


@functools.cache
def _chapter_of_module() -> dict[str, Chapter]:
    return {c.module: c for c in chapters()}


@functools.cache
def code_cells(chapter: Chapter) -> tuple[tuple[int, ast.Module | None, str], ...]:
    """``(cell number, parsed code or None, source)`` of every code cell, as jupytext reads it
    (the number counts code cells from 1); IPython magics (``%``, ``!``) are blanked."""
    nb = jupytext.read(chapter.path)
    out = []
    for k, cell in enumerate((c for c in nb.cells if c.cell_type == "code"), start=1):
        src = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                        for line in cell.source.splitlines())
        try:
            tree: ast.Module | None = ast.parse(src)
        except SyntaxError:
            tree = None
        out.append((k, tree, cell.source))
    return tuple(out)


def _trees(chapter: Chapter) -> list[tuple[int, ast.Module]]:
    return [(k, t) for k, t, _ in code_cells(chapter) if t is not None]


def test_chapter_code_cells_parse():
    bad = [f"{c.label}, code cell {k}" for c in chapters() for k, t, _ in code_cells(c) if t is None]
    assert not bad, f"code cells that are not Python: {bad}"


# ------------------------------------------------------------------------------------ modules

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _in_scope(module: str) -> bool:
    parts = module.split(".")
    return ONLY is None or (len(parts) > 1 and parts[1] == ONLY)


def _is_check_module(module: str) -> bool:
    return ".checks." in module or module.endswith(".checks")


def check_module_files() -> dict[str, Path]:
    """Check modules on disk (``<folder>/checks/<x>.py``, or a ``<folder>/checks.py`` module), in scope."""
    return {m: p for m, p in MODULES.items()
            if _is_check_module(m) and _in_scope(m) and p.name != "__init__.py"}


@functools.cache
def registered() -> tuple[tuple[str, Callable[..., Any]], ...]:
    """``(module, function)`` of every registered check in the check modules in scope (each
    imported; a registered check carries ``claim_id``, ``check_name`` and ``parts``)."""
    out = []
    names = dict.fromkeys([*sorted(check_module_files()), *(f"attention_theory.{f}.checks" for f in FOLDERS)])
    for name in names:
        mod = importlib.import_module(name)
        for obj in vars(mod).values():
            if callable(obj) and hasattr(obj, "claim_id") and hasattr(obj, "check_name") \
                    and getattr(obj, "__module__", None) == name:
                out.append((name, obj))
    return tuple(out)


def _pairs_of(fn: Callable[..., Any]) -> list[tuple[str, str]]:
    return [(fn.claim_id, fn.check_name), *getattr(fn, "parts", ())]


# --------------------------------------------------------------------------- chapter imports

@dataclasses.dataclass(frozen=True)
class Import:
    """One name a chapter binds by importing from the package: ``target`` is a module (``name``
    is None) or ``name`` from the module ``target``; ``alias`` is the ``as`` name, if any."""

    cell: int
    target: str
    name: str | None
    alias: str | None

    @property
    def bound(self) -> str:
        return self.alias or (self.name if self.name is not None else self.target.rsplit(".", 1)[-1])

    def where(self, chapter: Chapter) -> str:
        what = self.target if self.name is None else f"{self.target}.{self.name}"
        return f"{chapter.label}, code cell {self.cell}: {what}" + (f" as {self.alias}" if self.alias else "")


@functools.cache
def chapter_imports(chapter: Chapter) -> tuple[Import, ...]:
    out = []
    for k, tree in _trees(chapter):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == "attention_theory":
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in MODULES:
                        out.append(Import(k, full, None, a.asname))
                    else:
                        out.append(Import(k, node.module, a.name, a.asname))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "attention_theory" and a.asname:
                        out.append(Import(k, a.name, None, a.asname))
    return tuple(out)


@functools.cache
def references(chapter: Chapter) -> frozenset[tuple[str, str]]:
    """``(check module, name)`` for every name of a check module that the chapter's code uses:
    ``alias.name`` for a module it imported, or a name it imported from one."""
    imports = chapter_imports(chapter)
    modules = {i.bound: i.target for i in imports if i.name is None and _is_check_module(i.target)}
    refs = {(i.target, i.name) for i in imports if i.name is not None and _is_check_module(i.target)}
    for _, tree in _trees(chapter):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in modules:
                refs.add((modules[node.value.id], node.attr))
    return frozenset(refs)


@functools.cache
def _labels(chapter: Chapter) -> frozenset[str]:
    return frozenset(re.findall(r"^:label:\s*(\S+)\s*$", chapter.path.read_text(), re.M))


# ---------------------------------------------------------------------------------- a. names

def test_a_chapter_has_a_check_module_iff_it_calls_checks_of_its_own():
    bad = []
    home = _chapter_of_module()
    for c in chapters():
        refs = references(c)
        if c.module in MODULES and not any(m == c.module for m, _ in refs):
            bad.append(f"{c.module} exists but {c.label} does not call it (import it as checks)")
        for m, name in sorted(refs):
            if m not in home and not (m.endswith(".checks") and f"{m}.{name}" not in MODULES):
                bad.append(f"{c.label} uses {m}.{name}: {m} is the check module of no chapter")
    fns = registered()
    for module, fn in fns:
        h = home.get(module)
        if h is None:
            continue  # reported by test_every_check_module_belongs_to_a_chapter
        callers = {c for c in chapters() if (module, fn.__name__) in references(c)}
        stating = {c for c in chapters() if fn.claim_id in _labels(c)}
        where = f"{module}.{fn.__name__} ({fn.claim_id})"
        if callers and h not in callers | stating:
            bad.append(f"{where} lives in the module of {h.label}, which neither calls it nor states its "
                       f"claim; it belongs to {sorted(c.label for c in callers)}")
        elif len(callers) > 1 and stating & callers and h not in stating:
            bad.append(f"{where} is called by {sorted(c.label for c in callers)}: it belongs to the module "
                       f"of the chapter that states {fn.claim_id}, {sorted(c.label for c in stating)}")
    assert not bad, "one name per chapter (CONTRIBUTING.md, Names):\n  " + "\n  ".join(bad)


def test_every_check_module_belongs_to_a_chapter():
    home = _chapter_of_module()
    bad = [f"{m} ({p.relative_to(ROOT)}): no chapter book/<paper>/<chapter>.md of _toc.yml has this name"
           + (" (make checks/ a package with one module per chapter)" if p.name == "checks.py" else "")
           for m, p in sorted(check_module_files().items()) if m not in home]
    bad += [f"{m}.{fn.__name__}: a registered check in a checks package's __init__"
            for m, fn in registered() if m.endswith(".checks")]
    assert not bad, "check modules named after no chapter:\n  " + "\n  ".join(bad)


def test_negative_control_files_follow_the_chapters():
    registering = {m for m, _ in registered()}
    bad = []
    for c in chapters():
        rel = c.control.relative_to(ROOT)
        if c.module in registering and not c.control.exists():
            bad.append(f"{c.module} registers checks: their negative controls go in {rel}")
        if c.control.exists() and c.module not in registering:
            bad.append(f"{rel} exists but {c.module} registers no check")
    controls = {c.control for c in chapters()}
    for f in sorted(TESTS.rglob("test_nc_*.py")):
        if (ONLY is None or f.parent.name == ONLY) and f not in controls:
            bad.append(f"{f.relative_to(ROOT)}: no chapter of _toc.yml has this name")
    for f in sorted(TESTS.rglob("test_negative_controls_*.py")):
        if ONLY is None or f.parent.name == ONLY:
            bad.append(f"{f.relative_to(ROOT)}: negative controls go in test_nc_<chapter>.py")
    assert not bad, "negative-control files (tests/<paper>/test_nc_<chapter>.py):\n  " + "\n  ".join(bad)


_NC_CALL = re.compile(r"""negative_control\(\s*["']([a-z0-9-]+)["']\s*,\s*["']([a-z0-9-]+)["']""")


def test_negative_controls_are_in_the_file_of_their_chapter():
    owner = {pair: module for module, fn in registered() for pair in _pairs_of(fn)}
    home = _chapter_of_module()
    bad = []
    for f in sorted(TESTS.rglob("*.py")):
        if f.parent.name == "core" or f.name == "_nc.py":
            continue
        for claim, check in _NC_CALL.findall(f.read_text()):
            module = owner.get((claim, check))
            if module is None or module not in home:
                continue  # not in scope, not registered (test_contract.py) or homeless (above)
            if f != home[module].control:
                bad.append(f"{f.relative_to(ROOT)}: the control of {claim} / {check} goes in "
                           f"{home[module].control.relative_to(ROOT)} (its check is in {module})")
    bad = list(dict.fromkeys(bad))
    assert not bad, "negative controls outside their chapter's file:\n  " + "\n  ".join(bad)


# -------------------------------------------------------------------------------- b. imports

def _import_offenders(c: Chapter) -> list[str]:
    bad = []
    imports = chapter_imports(c)
    module_names = [i.target.rsplit(".", 1)[-1] for i in imports if i.name is None]
    for i in imports:
        if i.name is None:
            parent, own = i.target.rsplit(".", 2)[-2:]
            if i.alias == "checks":
                if i.target != c.module:
                    bad.append(f"{i.where(c)}: only the chapter's own check module, {c.module}, "
                               "is imported as checks")
            elif i.target == c.module:
                bad.append(f"{i.where(c)}: the chapter's own check module is imported as checks")
            elif i.alias is not None and i.alias != own:
                if i.alias != f"{parent}_{own}":
                    bad.append(f"{i.where(c)}: import the module under its own name ({own}), or as "
                               f"{parent}_{own} when another imported module is also named {own}")
                elif module_names.count(own) < 2:
                    bad.append(f"{i.where(c)}: no other imported module is named {own}: import it as {own}")
        elif i.target.endswith(".checks"):
            bad.append(f"{i.where(c)}: no check module {i.target}.{i.name} (import a chapter's module)")
        elif _is_check_module(i.target):
            how = "checks" if i.target == c.module else i.target.rsplit(".", 1)[-1]
            bad.append(f"{i.where(c)}: call checks through their module ({how}.{i.name})")
        elif i.alias is not None and i.alias != i.name:
            bad.append(f"{i.where(c)}: import names unaliased")
    return bad


def test_chapters_import_modules_under_their_own_names():
    bad = [line for c in chapters() for line in _import_offenders(c)]
    assert not bad, "chapter imports (CONTRIBUTING.md, Chapters):\n  " + "\n  ".join(bad)


_EXAMPLE = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

```{code-cell} ipython3
%matplotlib inline
from attention_theory.qin.checks import residual_gd as checks
from attention_theory.qin.checks import experiments
from attention_theory.qin import model as qm
from attention_theory.foundations import norms as qin_norms
from attention_theory.qin import model as qin_model
from attention_theory.trauger import model
from attention_theory.config import scale as current_scale
from attention_theory.qin.checks.experiments import check_e4_linear_rate
```
"""


def test_the_import_rule_finds_each_kind_of_offender(tmp_path, monkeypatch):
    (tmp_path / "qin").mkdir()
    (tmp_path / "qin" / "zz-example.md").write_text(_EXAMPLE)
    monkeypatch.setitem(globals(), "BOOK", tmp_path)
    bad = _import_offenders(Chapter("qin", "zz-example"))
    expected = ["residual_gd as checks: only the chapter's own check module",
                "qin.model as qm: import the module under its own name (model)",
                "foundations.norms as qin_norms: import the module under its own name (norms), or as "
                "foundations_norms", "check_e4_linear_rate: call checks through their module "
                "(experiments.check_e4_linear_rate)", "config.scale as current_scale: import names unaliased"]
    for text in expected:
        assert sum(text in line for line in bad) == 1, (text, bad)
    assert len(bad) == len(expected), bad  # `qin_model` and `model` (trauger) share a name: allowed


# ----------------------------------------------------------------------- c. keyword-only checks

def test_registered_checks_take_keyword_only_arguments():
    bad = []
    for module, fn in registered():
        params = inspect.signature(fn).parameters.values()
        positional = [p.name for p in params if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
        if positional:
            bad.append(f"{module}.{fn.__name__}: {', '.join(positional)}")
    assert not bad, ("registered checks with positional parameters (write def check_x(*, ...)):\n  "
                     + "\n  ".join(bad))


# ---------------------------------------------------------------------------------- d. float64

def test_no_chapter_sets_the_default_dtype():
    bad = [f"{c.label}, code cell {k}" for c in chapters() for k, tree in _trees(c)
           for node in ast.walk(tree)
           if (isinstance(node, ast.Attribute) and node.attr == "set_default_dtype")
           or (isinstance(node, ast.Name) and node.id == "set_default_dtype")]
    assert not bad, ("torch.set_default_dtype in chapters (pass dtype=, or use "
                     f"`with default_dtype(VERIFICATION_DTYPE):`): {bad}")


def _is_float64(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr in ("float64", "double")
            and isinstance(node.value, ast.Name) and node.value.id == "torch")


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    out = []
    for node in body:
        out.append(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)) and isinstance(inner, list):
                out += _top_level(inner)
    return out


def test_one_float64_constant():
    home = PKG / "foundations" / "tensors.py"
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        if not _in_scope(_module_name(path)):
            continue
        rel = path.relative_to(SRC)
        for node in _top_level(ast.parse(path.read_text()).body):
            value = getattr(node, "value", None)
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) else []
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if value is not None and names and _is_float64(value):
                if not (path == home and names == ["VERIFICATION_DTYPE"]):
                    bad.append(f"{rel}:{node.lineno}: {', '.join(names)} = torch.float64")
            elif value is not None and names and isinstance(value, (ast.Name, ast.Attribute)) \
                    and (getattr(value, "id", None) or getattr(value, "attr", None)) == "VERIFICATION_DTYPE":
                bad.append(f"{rel}:{node.lineno}: {', '.join(names)} re-aliases VERIFICATION_DTYPE")
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if node.module == "torch" and a.name in ("float64", "double"):
                        bad.append(f"{rel}:{node.lineno}: from torch import {a.name}")
                    if a.name == "VERIFICATION_DTYPE" and a.asname not in (None, "VERIFICATION_DTYPE"):
                        bad.append(f"{rel}:{node.lineno}: VERIFICATION_DTYPE imported as {a.asname}")
    for c in chapters():
        bad += [f"{i.where(c)}" for i in chapter_imports(c) if i.name == "VERIFICATION_DTYPE" and i.alias]
    assert not bad, ("module-level float64 names other than foundations.tensors.VERIFICATION_DTYPE "
                     "(import it instead):\n  " + "\n  ".join(bad))


# ------------------------------------------------------------------------------ e. no def cells

def test_no_definitions_in_chapter_cells():
    bad = [f"{c.label}, code cell {k}: {'class' if isinstance(node, ast.ClassDef) else 'def'} {node.name}"
           for c in chapters() for k, tree in _trees(c) for node in ast.walk(tree)
           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert not bad, ("functions and classes defined in chapter cells (move them into the package, "
                     "e.g. <paper>/figures.py, with a docstring and a unit test):\n  " + "\n  ".join(bad))


# ---------------------------------------------------------------------------- f. module size

def test_no_module_over_the_size_limit():
    sizes = {p.relative_to(PKG).as_posix(): len(p.read_text().splitlines())
             for p in sorted(PKG.rglob("*.py")) if _in_scope(_module_name(p))}
    long = [f"{rel}: {n} lines" for rel, n in sizes.items() if n > MAX_LINES and rel not in LONG_MODULES]
    stale = [f"{rel}: {sizes.get(rel, 'no such module')}" for rel in LONG_MODULES
             if (ONLY is None or rel.split("/")[0] == ONLY) and sizes.get(rel, 0) <= MAX_LINES]
    empty = [rel for rel, why in LONG_MODULES.items() if not why.strip()]
    assert not long, (f"modules over {MAX_LINES} lines (split them, or add them to LONG_MODULES with "
                      "the reason):\n  " + "\n  ".join(long))
    assert not stale, f"LONG_MODULES entries no longer needed (remove them): {stale}"
    assert not empty, f"LONG_MODULES entries without a reason: {empty}"


# -------------------------------------------------------------------- g. public validation helpers

# The old name is spelled in two pieces so that a search for it finds only real imports.
_OLD = "attention_theory." + "_validate"


def test_the_validation_helpers_are_public():
    bad = []
    files = [p for p in sorted(SRC.rglob("*.py")) if _in_scope(_module_name(p))]
    files += [p for p in sorted(TESTS.rglob("*.py"))
              if ONLY is None or ONLY in p.relative_to(TESTS).parts[:1]]
    for path in files:
        module = _module_name(path) if path.is_relative_to(SRC) else None
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level and module:
                    parts = module.split(".")
                    base = parts[: len(parts) - node.level + (path.name == "__init__.py")]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                names = [f"{target}.{a.name}" for a in node.names]
                if any(t == _OLD or t.startswith(_OLD + ".") for t in [target, *names]):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            elif isinstance(node, ast.Import):
                if any(a.name == _OLD or a.name.startswith(_OLD + ".") for a in node.names):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    for c in chapters():
        bad += [i.where(c) for i in chapter_imports(c)
                if i.target == _OLD or i.target.startswith(_OLD + ".") or f"{i.target}.{i.name}" == _OLD]
    assert (PKG / "validation.py").exists() and not (PKG / "_validate.py").exists(), \
        "the validation helpers live in attention_theory/validation.py (rename the module)"
    assert not bad, f"imports of {_OLD} (now attention_theory.validation): {len(bad)}: {bad[:20]}"


# ------------------------------------------------------------------------------- experiments

def test_every_experiment_part_declares_its_config():
    from attention_theory.experiment import experiments

    bad = [f"{paper} {name}: part {part.name}" for (paper, name), exp in sorted(experiments().items())
           if ONLY is None or paper == ONLY for part in exp.parts if part.config is None]
    assert not bad, ("experiment parts without Part(config=<function scale -> dict>) (the chapter and "
                     "`run --scale smoke` must compute the same thing):\n  " + "\n  ".join(bad))
