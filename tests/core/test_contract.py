"""The verification contract itself: every registered check has a negative control,
every claim ID is well formed, records round-trip through the registry."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from attention_theory import search, verify
from attention_theory.verify import ClaimViolation

TESTS = Path(__file__).parents[1]
BOOK = TESTS.parent / "book"


def _negative_control_pairs() -> set[tuple[str, str]]:
    pat = re.compile(r"""negative_control\(\s*["']([a-z0-9-]+)["']\s*,\s*["']([a-z0-9-]+)["']\s*[,)]""")
    pairs = set()
    for f in TESTS.rglob("test_*.py"):
        if f.parent.name == "core":  # the contract's own tests use toy checks
            continue
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


def test_record_round_trip(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with toy_check("trauger-lemma-3-1", "toy"):
        rec = verify.check_bound([1.0, 2.0], [2.0, 2.0], "toy bound", seed=3)
    assert rec.worst == 1.0 and rec.n_instances == 2 and rec.status == "verified"
    assert rec.scale == "smoke" and rec.data is None
    (loaded,) = verify.load_registry(tmp_path)
    assert loaded["claim_id"] == "trauger-lemma-3-1" and loaded["seed"] == 3
    assert json.loads((tmp_path / "trauger-lemma-3-1__toy__smoke.json").read_text())["worst"] == 1.0
    summary = verify.summarize_registry([loaded])
    assert summary["trauger-lemma-3-1"]["status"] == "verified"


def test_records_come_only_from_registered_pairs(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with pytest.raises(verify.ContractError, match="registered checks"):
        verify.check_bound([1.0], [2.0], "outside", claim_id="trauger-lemma-3-1", check="toy")
    with toy_check("trauger-lemma-3-1", "toy", parts=("toy-part", ("trauger-lemma-3-2", "other"))):
        verify.check_bound([1.0], [2.0], "a declared part", check="toy-part")
        verify.check_bound([1.0], [2.0], "a part of another claim", claim_id="trauger-lemma-3-2",
                           check="other")
        with pytest.raises(verify.ContractError, match="declared parts"):
            verify.check_bound([1.0], [2.0], "undeclared", check="not-declared")
    assert verify.check_owner("trauger-lemma-3-2", "other") == ("trauger-lemma-3-1", "toy")
    assert len(verify.load_registry(tmp_path)) == 2


def test_negative_control_must_fail_in_the_check_it_names(toy_check):
    with toy_check("trauger-lemma-3-1", "toy", parts=("toy-part",)):
        with verify.negative_control("trauger-lemma-3-1", "toy"):
            verify.check_bound([3.0], [2.0], "fails in the named check")
        with pytest.raises(AssertionError, match="failed in another check"):
            with verify.negative_control("trauger-lemma-3-1", "toy-part"):
                verify.check_bound([3.0], [2.0], "the companion fails first")
        with verify.negative_control("trauger-lemma-3-1", "toy-part"):
            verify.check_bound([1.0], [2.0], "the companion holds")
            verify.check_bound([3.0], [2.0], "the part fails", check="toy-part")
        with pytest.raises(AssertionError, match="wrong variant passed"):
            with verify.negative_control("trauger-lemma-3-1", "toy"):
                verify.check_bound([1.0], [2.0], "holds")
        with pytest.raises(AssertionError, match="does not match"):
            with verify.negative_control("trauger-lemma-3-1", "toy", match="NOT confirmed"):
                verify.check_bound([3.0], [2.0], "fails, but not as an erratum")
    with pytest.raises(AssertionError, match="no such registered check"):
        with verify.negative_control("trauger-lemma-3-1", "no-such-check"):
            pass


def test_violation_raises_and_writes_nothing(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with toy_check("trauger-lemma-3-1", "toy"), pytest.raises(ClaimViolation, match="FAILS") as exc:
        verify.check_bound([1.0, 3.0], [2.0, 2.0], "toy")
    assert (exc.value.claim_id, exc.value.check) == ("trauger-lemma-3-1", "toy")
    assert verify.load_registry(tmp_path) == []


def test_nan_is_a_violation():
    assert not verify.bound_outcome([np.nan], [1.0]).passed
    assert not verify.identity_outcome([np.nan], [1.0]).passed


def _erratum_kw(**over):
    return dict(description="toy", printed_text="a", corrected_text="b", source="s",
                kind="false-statement") | over


def test_erratum_requires_printed_failure_and_corrected_success(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    x = np.array([1.0, 2.0])
    bad, good = verify.bound_outcome(2 * x, x, instances=x), verify.bound_outcome(x / 2, x, instances=x)
    with toy_check("deora-eq-24", "toy"):
        rec = verify.confirm_erratum(bad, good, **_erratum_kw())
        assert rec.status == "erratum" and rec.detail["same_instances"]
        with pytest.raises(ClaimViolation, match="NOT confirmed"):
            verify.confirm_erratum(good, good, **_erratum_kw())
        with pytest.raises(ClaimViolation, match="corrected version fails"):
            verify.confirm_erratum(bad, bad, **_erratum_kw())
    summary = verify.summarize_registry(verify.load_registry(tmp_path))
    assert summary["deora-eq-24"]["status"] == "false-as-printed"


def test_erratum_keeps_its_latex_and_rejects_delimiters(toy_check):
    x = np.array([1.0, 2.0])
    bad, good = verify.bound_outcome(2 * x, x, instances=x), verify.bound_outcome(x / 2, x, instances=x)
    with toy_check("deora-eq-24", "toy"):
        rec = verify.confirm_erratum(bad, good,
                                     **_erratum_kw(printed_tex=r"2x \le x", corrected_tex=r"x/2 \le x"))
        assert rec.detail["printed"]["tex"] == r"2x \le x" and rec.detail["corrected"]["tex"] == r"x/2 \le x"
        with pytest.raises(ValueError, match="printed_tex"):
            verify.confirm_erratum(bad, good, **_erratum_kw(printed_tex="$2x$"))
        with pytest.raises(ValueError, match="corrected_tex"):
            verify.confirm_erratum(bad, good, **_erratum_kw(corrected_tex="  "))


def test_erratum_printed_and_corrected_on_the_same_instances(toy_check):
    x, y = np.array([1.0, 2.0]), np.array([1.0, 3.0])
    with toy_check("deora-eq-24", "toy"):
        with pytest.raises(ValueError, match="different instances"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                   verify.bound_outcome(y / 2, y, instances=y), **_erratum_kw())
        with pytest.raises(ValueError, match="fingerprint"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x), verify.bound_outcome(x / 2, x),
                                   **_erratum_kw())
        rec = verify.confirm_erratum(verify.bound_outcome(2 * x, x), verify.bound_outcome(y / 2, y),
                                     **_erratum_kw(different_instances_reason=(
                                         "the corrected bound needs a larger instance to be finite")))
        assert not rec.detail["same_instances"]
        with pytest.raises(ValueError, match="kind must be one of"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                   verify.bound_outcome(x / 2, x, instances=x), **_erratum_kw(kind="E"))
        with pytest.raises(ValueError, match="proof-step"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                   verify.bound_outcome(x / 2, x, instances=x),
                                   **_erratum_kw(kind="proof-step", where="statement"))


def _rec(status, **detail):
    return {"status": status, "detail": detail}


@pytest.mark.parametrize("records, status", [
    ([_rec("verified")], "verified"),
    ([_rec("verified"), _rec("not-checkable", reason="r")], "partial"),
    ([_rec("not-checkable", reason="r")], "not-checkable"),
    ([_rec("verified"), _rec("erratum", kind="proof-step", where="proof")], "proof-erratum"),
    ([_rec("verified"), _rec("erratum", kind="typo", where="proof")], "proof-erratum"),
    ([_rec("verified"), _rec("erratum", kind="wrong-constant", where="statement")], "corrected-constant"),
    ([_rec("erratum", kind="wrong-constant", where="statement"),
      _rec("erratum", kind="missing-hypothesis", where="statement")], "false-as-printed"),
    ([_rec("erratum", kind="typo", where="statement")], "false-as-printed"),
    ([_rec("verified"), _rec("fails", failure="x"), _rec("erratum", kind="proof-step", where="proof")],
     "fails"),
    # errata of the review copy or of a background remark are listed, not aggregated
    ([_rec("verified"), _rec("erratum", kind="typo", where="statement", version="review-copy")], "verified"),
    ([_rec("verified"), _rec("erratum", kind="typo", where="background")], "verified"),
    ([_rec("erratum", kind="typo", where="background")], "remarks-only"),
    # implementation checks do not verify the paper
    ([{"status": "verified", "kind": "implementation", "detail": {}}], "remarks-only"),
    ([{"status": "verified", "kind": "implementation", "detail": {}},
      _rec("not-checkable", reason="r")], "not-checkable"),
])
def test_claim_status(records, status):
    assert verify.claim_status(records) == status
    assert status in verify.CLAIM_STATUSES


def test_records_on_committed_results_carry_scale_and_files(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path / "reg"))
    result = tmp_path / "runs-full.json"
    result.write_text(json.dumps({"provenance": {"commit": "abc123"}, "data": {}}))
    with toy_check("trauger-fig-3", "toy"):
        verify.check_bound([1.0], [2.0], "live")
        with verify.on_results(result) as data:
            rec = verify.check_bound([1.0], [2.0], "on the committed run")
    assert rec.scale == "full" and data["commits"] == ["abc123"] and rec.data == data
    records = verify.load_registry(tmp_path / "reg")
    assert sorted(r["scale"] for r in records) == ["full", "smoke"]
    row = verify.summarize_registry(records)["trauger-fig-3"]
    assert row["scales"] == ["smoke", "full"] and row["data_files"] == ["runs-full.json"]


def test_evaluate_records_a_failure_at_its_scale(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path / "reg"))
    result = tmp_path / "runs-full.json"
    result.write_text(json.dumps({"provenance": {"commit": "abc123"}, "data": {}}))

    toy_check  # the fixture makes the registration below last for this test only
    fn = verify.claim_check("trauger-fig-3", "toy")(
        lambda lhs: verify.check_bound([lhs], [2.0], "toy statement"))
    assert fn(1.0).status == "verified"
    with verify.on_results(result):
        holds, summary = verify.evaluate(fn, 3.0)
    assert not holds and "FAILS" in summary
    records = verify.load_registry(tmp_path / "reg")
    assert {(r["scale"], r["status"]) for r in records} == {("smoke", "verified"), ("full", "fails")}
    assert verify.summarize_registry(records)["trauger-fig-3"]["status"] == "fails"


def test_evaluate_summary_reads_as_prose(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path / "reg"))
    toy_check  # the fixture makes the registration below last for this test only
    fn = verify.claim_check("trauger-fig-3", "toy")(
        lambda lhs, rhs: verify.check_bound([lhs], [rhs], "toy statement", no_search="toy"))
    assert verify.evaluate(fn, 0.1 + 0.2, 1.0) == (True, "toy statement: worst ratio 0.3")
    assert verify.evaluate(fn, 0.0, 0.0) == (True, "toy statement: no LHS/RHS ratio")


def test_records_shown_but_not_recorded_say_so(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path / "reg"))
    toy_check  # the fixture makes the registration below last for this test only
    fn = verify.claim_check("trauger-fig-3", "toy")(
        lambda lhs: verify.check_bound([lhs], [2.0], "toy statement", no_search="toy"))
    assert str(fn(1.0)).startswith("[verified at smoke scale] trauger-fig-3 / toy")
    with verify.evaluate_only():
        shown = fn(1.5)
    assert str(shown).startswith("[holds, not recorded, at smoke scale] trauger-fig-3 / toy")
    (only,) = verify.load_registry(tmp_path / "reg")
    assert only["worst"] == 0.5 and "not_recorded" not in only


def test_partly_checked_claim_is_not_reported_as_verified(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with toy_check("trauger-fig-3", "record"):
        verify.check_bound([1.0], [2.0], "toy")
    verify.not_checkable("trauger-fig-3", "a part of the statement has no finite instance to test",
                         check="untestable-part")
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


def test_the_returned_record_shows_the_parts_the_check_wrote(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    toy_check  # registrations below last for this test only

    @verify.claim_check("trauger-lemma-3-1", "toy-main", parts=("toy-sub",))
    def check():
        verify.check_bound([1.0], [2.0], "the part", check="toy-sub")
        return verify.check_bound([1.0], [4.0], "the main statement")

    rec = check()
    assert [r.check for r in rec.part_records] == ["toy-sub"]
    text = str(rec)
    assert "toy-main: the main statement" in text and "toy-sub: the part" in text
    assert "part_records" not in rec.to_json()


def test_bound_records_their_search_or_why_there_is_none(toy_check):
    from attention_theory.search import maximize_over_sizes

    res = maximize_over_sizes(lambda n, x: -(torch_sum_sq(x) - 1.0) ** 2, lambda n, g: g.standard_normal(n),
                              (1, 2), restarts=2, steps=20)
    with toy_check("deora-eq-24", "toy"):
        rec = verify.check_bound([res.best_value], [1.0], "toy bound", search=res)
        assert rec.detail["search"]["sizes"] == ["1", "2"] and "best_instance" in rec.detail["search"]
        rec = verify.check_bound([0.5], [1.0], "toy bound", no_search="a finite list of cases, all evaluated")
        assert rec.detail["no_search"].startswith("a finite list")
        with pytest.raises(ValueError, match="not both"):
            verify.check_bound([0.5], [1.0], "toy", search=res, no_search="reason given here")
        with pytest.raises(ValueError, match="no_search"):
            verify.check_bound([0.5], [1.0], "toy", no_search=" ")
        with pytest.raises(TypeError, match="SizedSearch"):
            verify.check_bound([0.5], [1.0], "toy", search={"sizes": [1]})


def torch_sum_sq(x):
    import torch

    return (torch.as_tensor(x, dtype=torch.float64) ** 2).sum()


def test_numpy_objective_lets_both_methods_maximize_a_numpy_formula():
    from attention_theory.search import NO_INSTANCE, maximize_over_sizes, numpy_objective

    def f(n, z):  # maximum 1 at z = 0, in every dimension n
        return float(1.0 - np.sum(z ** 2))

    for diff in ("central", "forward"):
        res = maximize_over_sizes(numpy_objective(f, difference=diff), lambda n, g: g.standard_normal(n),
                                  (1, 3), restarts=2, steps=50)
        assert res.best_value == pytest.approx(1.0, abs=1e-6)
    obj = numpy_objective(lambda n, z: float(np.log(z[0])))
    assert obj(1, np.array([-1.0])) == NO_INSTANCE and obj(1, np.array([np.inf])) == NO_INSTANCE
    with pytest.raises(ValueError, match="difference"):
        numpy_objective(f, difference="backward")


def test_maximize_reports_a_start_when_every_restart_is_infinite():
    from attention_theory.search import maximize

    res = maximize(lambda x: x.sum() * float("inf"), lambda g: g.standard_normal(2), restarts=2, steps=3)
    assert res.best_value == -math.inf and res.best_x.shape == (2,)


def test_campaign_records_come_from_registered_checks_at_full_scale():
    """The committed records of the full-scale search campaign (results/registry-full) obey the
    contract too: each was written by a registered (claim, check) pair, at full scale, at a
    named commit, with a status a claim can take."""
    records = verify.load_registry(TESTS.parent / "results" / "registry-full")
    assert records, "no campaign records"
    for rec in records:
        where = f"{rec['claim_id']} / {rec['check']}"
        verify.check_owner(rec["claim_id"], rec["check"])  # KeyError: not a registered pair
        assert rec["scale"] == "full", where
        assert re.fullmatch(r"[0-9a-f]{12}", str(rec["commit"])), where
        assert rec["status"] in ("verified", "erratum", "not-checkable"), where


def test_a_record_without_a_ratio_prints_none(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path / "reg"))
    toy_check  # the fixture makes the registration below last for this test only
    fn = verify.claim_check("trauger-fig-3", "toy")(
        lambda lhs, rhs: verify.check_bound([lhs], [rhs], "toy statement", no_search="toy"))
    assert str(fn(0.0, 0.0)).endswith("1 instance(s); no LHS/RHS ratio")
    assert str(fn(1.0, 4.0)).endswith("1 instance(s); tightness (worst ratio) = 0.25")


def test_erratum_version_and_place_are_validated_and_recorded(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    x = np.ones(3)
    with toy_check("trauger-lemma-3-1", "toy"):
        with pytest.raises(ValueError, match="version must be one of"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                   verify.bound_outcome(x / 2, x, instances=x),
                                   **_erratum_kw(version="draft"))
        with pytest.raises(ValueError, match="where must be one of"):
            verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                   verify.bound_outcome(x / 2, x, instances=x),
                                   **_erratum_kw(where="footnote"))
        rec = verify.confirm_erratum(verify.bound_outcome(2 * x, x, instances=x),
                                     verify.bound_outcome(x / 2, x, instances=x),
                                     **_erratum_kw(version="review-copy"))
    assert rec.detail["version"] == "review-copy" and "of the review copy" in str(rec)
    row = verify.summarize_registry(verify.load_registry(tmp_path))["trauger-lemma-3-1"]
    assert row["status"] == "remarks-only" and row["errata"][0]["weighs"] is False


def test_implementation_checks_have_their_own_kind(tmp_path, monkeypatch, toy_check):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with toy_check("trauger-lemma-3-1", "toy"):
        with pytest.raises(ValueError, match="implementation must be a sentence"):
            verify.check_identity([1.0], [1.0], "x", implementation="x")
        rec = verify.check_identity([1.0], [1.0], "two codes agree", implementation=(
            "the scalar helper against the vectorized helper, both ours"))
        with pytest.raises(ClaimViolation):
            verify.check_identity([1.0], [2.0], "two codes agree",
                                  implementation="the scalar helper against the vectorized helper, both ours")
    assert rec.kind == "implementation" and "implementation check passes" in str(rec)
    row = verify.summarize_registry(verify.load_registry(tmp_path))["trauger-lemma-3-1"]
    assert row["implementation_checks"] == ["toy"] and row["status"] == "remarks-only"


def test_limit_sequence_must_show_what_it_claims(tmp_path, monkeypatch, toy_check):
    ok = verify.limit_sequence("one token", "R -> 0", [1, 0.1, 0.01], [0.5, 0.9, 0.999])
    assert ok["last_gap"] == pytest.approx(1e-3)
    with pytest.raises(ValueError, match="grows"):
        verify.limit_sequence("fam", "R -> 0", [1, 0.1, 0.01], [0.5, 0.4, 0.999])
    with pytest.raises(ValueError, match="gap_tol"):
        verify.limit_sequence("fam", "R -> 0", [1, 0.1, 0.01], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="exceeds the supremum"):
        verify.limit_sequence("fam", "R -> 0", [1, 0.1, 0.01], [0.5, 0.9, 1.1])
    with pytest.raises(ValueError, match="at least 3"):
        verify.limit_sequence("fam", "R -> 0", [1, 0.1], [0.5, 0.999])
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    with toy_check("trauger-lemma-3-1", "toy"):
        with pytest.raises(TypeError, match="limit_sequence"):
            verify.check_bound([1.0], [2.0], "b", no_search="toy", limits=[{"ratios": [1]}])
        with pytest.raises(ValueError, match="families"):
            verify.check_bound([1.0], [2.0], "b", no_search="toy", families=[""])
        rec = verify.check_bound([0.5, 0.9, 0.999], [1.0, 1.0, 1.0], "b", no_search="toy",
                                 families=["one token, R -> 0"], limits=[ok])
    assert rec.detail["families"] == ["one token, R -> 0"] and rec.detail["limits"] == [ok]
    assert "sup = 1, attained in the limit R -> 0" in str(rec)
