"""Every inequality the book checks is searched adversarially, or says why it cannot be.

Each ``check_bound`` call in the package passes ``search=`` (a
:class:`~attention_theory.search.SizedSearch`: several sizes, the smallest included, a gradient
and a derivative-free method, restarts) or ``no_search=`` (a reason: an empirical statement
about a training run, a finite list of cases, a committed result).  The ledger ``PENDING`` lists
the calls not yet converted; it may only shrink (a stale entry fails the test).
"""

from __future__ import annotations

import ast
from pathlib import Path

import attention_theory

PACKAGE = Path(attention_theory.__file__).parent

#: Functions that write a bound record: ``check_bound`` and the helpers that forward to it.
BOUND_CALLS = ("check_bound", "combined_bound")

#: (module path relative to the package, enclosing function) of check_bound calls that have
#: neither ``search=`` nor ``no_search=`` yet.
PENDING: set[tuple[str, str]] = set()


def _bound_calls() -> dict[tuple[str, str], list[tuple[int, bool]]]:
    calls: dict[tuple[str, str], list[tuple[int, bool]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("verify/"):
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name not in BOUND_CALLS:
                    continue
                kws = {k.arg for k in node.keywords}
                ok = bool({"search", "no_search"} & kws) or None in kws  # **kwargs forwarded
                calls.setdefault((rel, fn.name), []).append((node.lineno, ok))
    return calls


def _missing() -> set[tuple[str, str]]:
    return {key for key, found in _bound_calls().items() if not all(ok for _, ok in found)}


def test_every_bound_check_is_searched_or_says_why_not():
    missing = _missing() - PENDING
    assert not missing, ("check_bound without search= or no_search= (search with "
                         f"maximize_over_sizes, or give the reason): {sorted(missing)}")


def test_the_pending_ledger_only_shrinks():
    stale = PENDING - _missing()
    assert not stale, f"remove from PENDING, these are converted: {sorted(stale)}"
