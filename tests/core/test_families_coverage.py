"""Every bound check says which families of instances it covers (``check_bound(families=...)``),
so that the tightness audit (``python -m attention_theory tightness``) can tell a weak lower bound
on a supremum from a bound that is loose by design."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "attention_theory"


def _bound_calls_without_families() -> tuple[int, list[str]]:
    total, missing = 0, []
    for f in sorted(SRC.rglob("*.py")):
        if "verify" in f.relative_to(SRC).parts:
            continue  # the verify API itself defines check_bound
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in ("check_bound", "combined_bound"):
                    total += 1
                    keywords = {k.arg for k in node.keywords}
                    if "families" not in keywords and None not in keywords:  # None: **kwargs
                        missing.append(f"{f.relative_to(SRC)}:{node.lineno}")
    return total, missing


def test_every_bound_check_declares_its_families():
    total, missing = _bound_calls_without_families()
    assert total > 100, "the scan found too few bound checks: has the API moved?"
    assert not missing, f"check_bound calls without families=[...]: {missing}"
