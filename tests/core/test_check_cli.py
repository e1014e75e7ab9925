"""``python -m attention_theory check``: re-running a cited claim's checks."""

import json

import pytest

from attention_theory.experiment import main
from attention_theory.verify import campaign, rerun


def test_list_names_every_claim_in_natural_order(capsys):
    assert main(["check", "--list", "--paper", "deora"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ids = [line.split(":")[0] for line in lines]
    assert ids and all(i.startswith("deora-") for i in ids)
    assert ids == sorted(ids, key=campaign.natural_key)
    assert campaign.natural_key("deora-eq-2") < campaign.natural_key("deora-eq-10")


def test_rerun_prints_fresh_and_registered_records(tmp_path, capsys):
    reg = tmp_path / "fresh"
    assert main(["check", "trauger-lemma-3-1", "--registry", str(reg), "--against", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "now:" in out and "registered: no record" in out
    fresh = list(reg.glob("trauger-lemma-3-1__*__smoke.json"))
    assert fresh, "the re-run wrote no record"
    # the fresh folder, used as the registered one, is found again
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"records": [json.loads(f.read_text()) for f in fresh]}))
    assert main(["check", "trauger-lemma-3-1", "--against", str(claims)]) == 0
    assert "registered: verified at smoke scale" in capsys.readouterr().out


def test_registered_non_finite_worst_is_printed(tmp_path, capsys):
    # JSON has no infinity: a record's worst of -inf is stored as the string "-inf" (an erratum's
    # ratio when its corrected side is 0 everywhere); the CLI printed such records with a crash
    reg = tmp_path / "fresh"
    assert main(["check", "trauger-lemma-3-1", "--registry", str(reg), "--against", str(tmp_path)]) == 0
    records = [dict(json.loads(f.read_text()), worst="-inf") for f in reg.glob("trauger-*.json")]
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"records": records}))
    capsys.readouterr()
    assert main(["check", "trauger-lemma-3-1", "--against", str(claims)]) == 0
    assert "worst -inf (commit" in capsys.readouterr().out


def test_resume_skips_recorded_checks_and_runs_the_rest(tmp_path, capsys):
    reg = tmp_path / "campaign"
    assert main(["check", "trauger-lemma-3-1", "--registry", str(reg), "--against", str(tmp_path)]) == 0
    capsys.readouterr()
    files = sorted(reg.glob("trauger-lemma-3-1__*__smoke.json"))
    assert len(files) >= 2, "the test needs a claim with at least two checks"
    stamps = {f.name: f.stat().st_mtime_ns for f in files}
    files[0].unlink()  # an interrupted campaign: one record missing
    assert main(["check", "trauger-lemma-3-1", "--registry", str(reg), "--resume",
                 "--against", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "complete in the registry folder" in out
    again = {f.name: f.stat().st_mtime_ns for f in reg.glob("trauger-lemma-3-1__*__smoke.json")}
    assert set(again) == set(stamps), "the missing record was not written again"
    assert all(again[k] == stamps[k] for k in stamps if k != files[0].name), "a recorded check ran again"


def test_resume_needs_a_registry_folder(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--all", "--resume"])
    assert exc.value.code == 2 and "--resume needs --registry" in capsys.readouterr().err


def test_checks_that_need_data_say_so():
    fn = dict(rerun.claim_checks()["trauger-fig-1"])["no-increasing-trend"]
    assert campaign.needs_data(fn) == ["runs"]


@pytest.mark.parametrize("argv", [["check"], ["check", "no-such-claim"], ["check", "x", "--all"],
                                  ["check", "trauger-lemma-3-1", "--scale", "huge"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err
