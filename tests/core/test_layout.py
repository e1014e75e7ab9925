"""The package layout rules (see CONTRIBUTING.md), read from the source with ``ast``:

* shared code (everything outside a paper's folder) never imports a paper;
* a paper never imports another paper;
* only check modules import check modules;
* no module imports a private name (``_x``) from another module;
* the import graph has no cycles;
* a check module defines checks only (its public functions are registered checks, ``record_*``
  functions that write records, or ``*_report`` functions that evaluate registered checks);
* every check module is found by discovery and every registered check lives in one.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from attention_theory import papers, verify

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "attention_theory"
BOOK = SRC.parent / "book"
PAPER_KEYS = {p.key for p in papers.PAPERS}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _resolve(mod: str, path: Path, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module if node.module and node.module.split(".")[0] == "attention_theory" else None
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    base = pkg[: len(pkg) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(mod: str) -> list[tuple[str, str, int]]:
    """``(imported module, imported name or '', line)`` for every import of the package, at any depth."""
    path = MODULES[mod]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(mod, path, node)
            if target is None:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    out.append((sub, "", node.lineno))
                else:
                    out.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names if a.name.startswith("attention_theory")]
    return out


def _paper_of(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PAPER_KEYS else None


def _is_check_module(mod: str) -> bool:
    return ".checks" in mod or mod.endswith(".checks")


def test_the_package_is_arranged_by_paper():
    for key in PAPER_KEYS:
        assert (PKG / key / "checks").is_dir(), f"paper {key!r} has no checks/ folder"
    for old in ("models", "bounds", "data", "optim", "experiments", "checks"):
        assert not (PKG / old).exists(), f"layer folder {old}/ is back: code goes in a paper's folder"


def test_shared_code_never_imports_a_paper():
    bad = [f"{m}:{line} imports {t}" for m in MODULES if _paper_of(m) is None
           for t, _, line in _imports(m) if _paper_of(t) is not None]
    assert not bad, bad


def test_no_paper_imports_another():
    bad = [f"{m}:{line} imports {t}" for m in MODULES if _paper_of(m)
           for t, _, line in _imports(m) if _paper_of(t) not in (None, _paper_of(m))]
    assert not bad, bad


def test_only_checks_import_checks():
    bad = [f"{m}:{line} imports {t}" for m in MODULES if not _is_check_module(m)
           for t, _, line in _imports(m) if _is_check_module(t)]
    assert not bad, bad


def test_no_private_names_cross_modules():
    bad = [f"{m}:{line} imports {t}.{n}" for m in MODULES for t, n, line in _imports(m)
           if n.startswith("_") and n != "__version__"]
    book = []
    pat = re.compile(r"^\s*from attention_theory[\w.]* import (.+)$", re.M)
    for md in BOOK.rglob("*.md"):
        for m in pat.finditer(md.read_text()):
            names = [x.strip().split(" as ")[0] for x in m.group(1).strip("()").split(",")]
            book += [f"{md.name}: {n}" for n in names if n.startswith("_")]
    assert not bad and not book, bad + book


def test_no_import_cycles():
    graph = {m: {t for t, _, _ in _imports(m) if t in MODULES and t != m} for m in MODULES}
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t] if t in stack else [m, t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    # a package importing its own submodule is not a cycle through code
    cycles = [c for c in cycles if not all(x.startswith(c[0] + ".") or x == c[0] for x in c[1:])]
    assert not cycles, cycles


def test_check_modules_define_checks_only():
    registered = {(fn.__module__, fn.__name__) for fn in verify.registered_checks().values()}
    bad = []
    for name in papers.check_module_names():
        tree = ast.parse(MODULES[name].read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bad.append(f"{name}.{node.name} (a class)")
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                ok = ((name, node.name) in registered or node.name.startswith("record_")
                      or node.name.endswith("_report"))
                if not ok:
                    bad.append(f"{name}.{node.name}")
    assert not bad, f"helpers in check modules (move them to the paper's modules): {bad}"


def test_discovery_sees_every_check_module():
    on_disk = {m for m in MODULES if _is_check_module(m) and not m.endswith("__init__")}
    on_disk = {m for m in on_disk if MODULES[m].name != "__init__.py" or m.endswith(".checks")}
    discovered = set(papers.check_module_names())
    missing = sorted(m for m in on_disk if m not in discovered)
    assert not missing, f"check modules that discovery does not import: {missing}"
    homes = {fn.__module__ for fn in verify.registered_checks().values()}
    assert homes <= discovered, sorted(homes - discovered)


def test_a_new_check_module_is_discovered(tmp_path, monkeypatch):
    """Discovery reads the folder: a module dropped into a paper's checks/ is registered."""
    import attention_theory.qin.checks as qc

    extra = tmp_path / "qin_checks_extra"
    extra.mkdir()
    (extra / "probe_module.py").write_text(
        "from attention_theory.verify import check_bound, claim_check\n\n\n"
        "@claim_check('qin-thm-2', 'discovery-probe')\n"
        "def check_probe():\n"
        "    return check_bound([1.0], [1.0], 'probe')\n")
    monkeypatch.setattr(qc, "__path__", [*qc.__path__, str(extra)])
    assert "attention_theory.qin.checks.probe_module" in papers.check_module_names()
    try:
        assert ("qin-thm-2", "discovery-probe") in verify.registered_checks()
    finally:
        verify.contract._CHECKS.pop(("qin-thm-2", "discovery-probe"), None)
        import sys

        sys.modules.pop("attention_theory.qin.checks.probe_module", None)


def test_claim_id_pattern_comes_from_the_paper_list():
    for p in papers.PAPERS:
        assert verify.CLAIM_ID_PATTERN.match(f"{p.key}-lemma-1")
    assert not verify.CLAIM_ID_PATTERN.match("nosuchpaper-lemma-1")
    with pytest.raises(ValueError, match="unknown paper"):
        papers.paper("nosuchpaper")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_imports(name):
    importlib.import_module(name)

