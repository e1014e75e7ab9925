"""The one experiment command: every declared experiment is listed and runnable, bad arguments
exit with status 2 and one line, an unwritable output folder stops the run before any work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attention_theory import experiment, papers
from attention_theory.experiment import Experiment, Part, PartResult, run_cli


def _toy(calls):
    def run(ctx):
        calls.append(ctx.scale)
        return PartResult({"n": 3, "scale_seen": ctx.scale}, {"values": [1, 2, 3]}, summary="toy")

    return Experiment(paper="qin", name="toy", description="toy", results="qin",
                      parts=(Part("a", run), Part("b", run, filename=lambda s: f"b_{s}.json")))


def test_every_paper_experiment_is_declared_and_found():
    found = experiment.experiments()
    declared = sum(len(p.experiments) for p in papers.PAPERS)
    assert len(found) == declared >= 5
    for (paper, name), exp in found.items():
        assert exp.parts and experiment.find_experiment(paper, name) is exp


def test_parts_write_the_configuration_they_ran(tmp_path):
    calls = []
    written = run_cli(_toy(calls), ["--scale", "full", "--out", str(tmp_path), "--no-progress"])
    assert calls == ["full", "full"]
    assert written == {"a": tmp_path / "a.json", "b": tmp_path / "b_full.json"}
    from attention_theory.results import read_result

    obj = read_result(tmp_path / "a.json")
    prov = obj["provenance"]
    assert prov["config"] == {"n": 3, "scale_seen": "full"} and prov["scale"] == "full"
    for key in ("commit_at_start", "uncommitted_source_changes_at_start", "torch_threads", "wall_time_s"):
        assert key in prov
    assert obj["data"] == {"values": [1, 2, 3]}


def test_smoke_scale_never_overwrites_full_results(tmp_path):
    written = run_cli(_toy([]), ["--scale", "smoke", "--parts", "a", "--out", str(tmp_path)])
    assert written == {"a": tmp_path / "a-smoke.json"}


def test_skip_existing(tmp_path, capsys):
    calls = []
    run_cli(_toy(calls), ["--scale", "full", "--parts", "a", "--out", str(tmp_path)])
    run_cli(_toy(calls), ["--scale", "full", "--parts", "a", "--out", str(tmp_path), "--skip-existing"])
    assert calls == ["full"] and "skipped" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--scale", "medium"], ["--parts", "zzz"], ["--device", "tpu"]])
def test_bad_arguments_exit_2(argv, tmp_path):
    with pytest.raises(SystemExit) as exc:
        run_cli(_toy([]), [*argv, "--out", str(tmp_path)])
    assert exc.value.code == 2


def test_unwritable_output_stops_before_any_work(tmp_path):
    calls = []
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit, match="not writable"):
        run_cli(_toy(calls), ["--out", str(blocker / "sub")])
    assert calls == []


@pytest.mark.parametrize("text,ok", [("3", True), ("0", False), ("-1", False), ("x", False)])
def test_positive_int(text, ok):
    if ok:
        assert experiment.positive_int(text) == 3
    else:
        with pytest.raises(Exception):
            experiment.positive_int(text)


@pytest.mark.parametrize("text", ["nan", "inf", "-1", "0", "abc"])
def test_positive_float_rejects(text):
    with pytest.raises(Exception):
        experiment.positive_float(text)


def test_module_command_lists_and_rejects_unknown():
    out = subprocess.run([sys.executable, "-m", "attention_theory", "list"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and "trauger sparse-majority" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "attention_theory", "run", "trauger", "nope"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "no experiment" in bad.stderr
