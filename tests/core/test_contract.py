"""The verification contract itself: every registered check has a negative control,
every claim ID is well formed, records round-trip through the registry."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from attention_theory import search, verify
from attention_theory.verify import ClaimViolation

TESTS = Path(__file__).parents[1]
BOOK = TESTS.parent / "book"


def _negative_control_pairs() -> set[tuple[str, str]]:
    pat = re.compile(r"""negative_control\(\s*["']([a-z0-9-]+)["']\s*,\s*["']([a-z0-9-]+)["']\s*\)""")
    pairs = set()
    for f in TESTS.rglob("test_*.py"):
        pairs |= set(pat.findall(f.read_text()))
    return pairs


def test_every_registered_check_has_a_negative_control():
    registered = set(verify.registered_checks())
    assert registered, "no checks registered"
    missing = sorted(registered - _negative_control_pairs())
    assert not missing, f"checks without a negative control in tests/: {missing}"


def test_negative_controls_name_registered_checks():
    stale = sorted(_negative_control_pairs() - set(verify.registered_checks()))
    assert not stale, f"negative controls for checks that do not exist: {stale}"


def test_every_registered_check_is_called_by_the_book():
    text = "\n".join(p.read_text() for p in BOOK.rglob("*.md"))
    uncalled = [f"{fn.__module__}.{fn.__name__}" for fn in verify.registered_checks().values()
                if not re.search(rf"\b{fn.__name__}\(", text)]
    assert not uncalled, f"registered checks that no chapter runs: {uncalled}"


def test_claim_ids_follow_the_pattern():
    for cid, _ in verify.registered_checks():
        assert verify.CLAIM_ID_PATTERN.match(cid)
    with pytest.raises(ValueError):
        verify.claim_check("Trauger-Lemma-3.1", "x")


def test_record_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    rec = verify.check_bound([1.0, 2.0], [2.0, 2.0], "toy bound", claim_id="trauger-lemma-3-1",
                             check="toy", seed=3)
    assert rec.worst == 1.0 and rec.n_instances == 2 and rec.status == "verified"
    (loaded,) = verify.load_registry(tmp_path)
    assert loaded["claim_id"] == "trauger-lemma-3-1" and loaded["seed"] == 3
    assert json.loads((tmp_path / "trauger-lemma-3-1__toy.json").read_text())["worst"] == 1.0
    summary = verify.summarize_registry([loaded])
    assert summary["trauger-lemma-3-1"]["status"] == "verified"


def test_violation_raises_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with pytest.raises(ClaimViolation, match="FAILS"):
        verify.check_bound([1.0, 3.0], [2.0, 2.0], "toy", claim_id="trauger-lemma-3-1", check="toy")
    assert verify.load_registry(tmp_path) == []


def test_nan_is_a_violation():
    assert not verify.bound_outcome([np.nan], [1.0]).passed
    assert not verify.identity_outcome([np.nan], [1.0]).passed


def test_erratum_requires_printed_failure_and_corrected_success(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    bad, good = verify.bound_outcome([2.0], [1.0]), verify.bound_outcome([0.5], [1.0])
    kw = dict(description="toy", printed_text="a", corrected_text="b", source="s",
              claim_id="deora-eq-24", check="toy")
    rec = verify.confirm_erratum(bad, good, **kw)
    assert rec.status == "erratum"
    with pytest.raises(ClaimViolation, match="NOT confirmed"):
        verify.confirm_erratum(good, good, **kw)
    with pytest.raises(ClaimViolation, match="corrected version fails"):
        verify.confirm_erratum(bad, bad, **kw)
    assert verify.summarize_registry(verify.load_registry(tmp_path))["deora-eq-24"]["status"] == "erratum"


def test_partly_checked_claim_is_not_reported_as_verified(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    verify.check_bound([1.0], [2.0], "toy", claim_id="trauger-fig-3", check="record")
    verify.not_checkable("trauger-fig-3", "the full-scale run that would test this is still owed",
                         check="full-scale-owed")
    row = verify.summarize_registry(verify.load_registry(tmp_path))["trauger-fig-3"]
    assert row["status"] == "partial" and row["reasons"]


def test_not_checkable_needs_a_real_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with pytest.raises(ValueError):
        verify.not_checkable("deora-sec-2", "no")
    rec = verify.not_checkable("deora-sec-2", "a meta-claim about proofs has no finite instance")
    assert rec.status == "not-checkable"


def test_interval_outcome():
    assert verify.interval_outcome(2.0, 1.9, 2.1).passed
    assert not verify.interval_outcome(1.0, 1.9, 2.1).passed
    with pytest.raises(ValueError):
        verify.interval_outcome(1.0, 2.0, 1.0)


def test_maximize_finds_the_maximum_of_a_concave_function():

    f = lambda x: -((x - 3.0) ** 2).sum()  # noqa: E731
    for method in ("lbfgs", "adam"):
        res = search.maximize(f, lambda r: r.standard_normal(2), restarts=3, steps=300,
                              method=method, seed=0, lr=0.1)
        assert res.best_value > -1e-6, method
    res = search.maximize(lambda z: -float(((z - 3.0) ** 2).sum()), lambda r: r.standard_normal(2),
                          restarts=2, method="nelder-mead")
    assert res.best_value > -1e-8
    with pytest.raises(ValueError):
        search.maximize(f, lambda r: r.standard_normal(2), method="newton")


def test_scale_mode(monkeypatch):
    from attention_theory import config

    monkeypatch.setenv("ATTN_SCALE", "full")
    assert config.pick(1, 2) == 2
    monkeypatch.setenv("ATTN_SCALE", "huge")
    with pytest.raises(ValueError, match="ATTN_SCALE"):
        config.scale()


def test_toc_notebooks_lists_every_chapter():
    import sys

    sys.path.insert(0, str(TESTS))
    import toc_notebooks

    files = toc_notebooks.chapter_notebooks()
    assert any(p.name == "norms.md" for p in files)
