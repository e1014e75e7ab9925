"""The experiment ``head-sweeps`` (attention_theory.deora.head_sweeps, Figures 2-5 of Deora et al.):
each part's declared configuration is what a run records (smoke) and what the committed result
files record (full); the chapters' live runs are the smoke configuration; result files and the
command line."""

import json

import pytest

from attention_theory.config import use_scale
from attention_theory.deora import experiment_runs, head_sweeps
from attention_theory.experiment import run_cli

PARTS = ("fig2", "fig2-heads", "fig2-random", "fig3", "fig4", "fig5")


def test_every_part_declares_its_config():
    assert sorted(p.name for p in head_sweeps.EXPERIMENT.parts) == sorted(PARTS)
    for part in head_sweeps.EXPERIMENT.parts:
        for scale in ("smoke", "full"):
            assert part.config_for(scale) == head_sweeps.figure_config(part.name, scale)


@pytest.mark.parametrize("fig", PARTS)
def test_full_config_is_the_one_of_the_committed_result(fig):
    committed = json.loads((head_sweeps.results_dir() / f"{fig}.json").read_text())["provenance"]["config"]
    declared = json.loads(json.dumps(head_sweeps.EXPERIMENT.part(fig).config_for("full")))
    assert declared == committed


def test_smoke_run_records_the_declared_config(tmp_path, monkeypatch):
    # every part at smoke scale with three steps per setting: the recorded configuration is the
    # part's declared one (with the same short settings)
    for fig in PARTS:
        runs = [(opt, rule, lr, k_full, 3)
                for opt, rule, lr, k_full, _ in head_sweeps.FIGURE_SETTINGS[fig]["runs"]]
        monkeypatch.setitem(head_sweeps.FIGURE_SETTINGS, fig,
                            dict(head_sweeps.FIGURE_SETTINGS[fig], runs=runs))
    run_cli(head_sweeps.EXPERIMENT,
            ["--parts", *PARTS, "--scale", "smoke", "--out", str(tmp_path), "--no-progress"])
    for fig in PARTS:
        recorded = head_sweeps.load_figure(fig, tmp_path / f"{fig}-smoke.json")["config"]
        assert recorded == json.loads(json.dumps(head_sweeps.EXPERIMENT.part(fig).config_for("smoke"))), fig


def test_the_chapters_live_runs_use_the_smoke_config():
    with use_scale("smoke"):
        for fig in ("fig2", "fig3", "fig4", "fig5"):
            assert experiment_runs.live_config(fig) == head_sweeps.EXPERIMENT.part(fig).config_for("smoke")
    with use_scale("full"):   # the campaign's checks: smoke head counts and engine, full sizes
        for fig in ("fig2", "fig4"):
            live = experiment_runs.live_config(fig)
            smoke = head_sweeps.EXPERIMENT.part(fig).config_for("smoke")
            full = head_sweeps.EXPERIMENT.part(fig).config_for("full")
            assert live["Hs"] == smoke["Hs"] and live["engine"] == smoke["engine"]
            assert live["trials"] == full["trials"] and live["n_train"] == full["n_train"]


def test_engine_option_and_bad_input():
    assert head_sweeps.figure_config("fig4", "smoke")["engine"] == "heads"
    assert head_sweeps.figure_config("fig4", "full")["engine"] == "reduced"
    assert head_sweeps.figure_config("fig4", "smoke", "reduced")["engine"] == "reduced"
    assert head_sweeps.figure_config("fig2-random", "smoke", "reduced")["engine"] == "heads"
    assert head_sweeps.figure_config("fig2-heads", "smoke", "heads")["engine"] == "heads-batched"
    with pytest.raises(ValueError, match="fig2-heads"):
        head_sweeps.figure_config("fig2", "smoke", "heads-batched")
    with pytest.raises(ValueError, match="engine"):
        head_sweeps.figure_config("fig2", "smoke", "fast")
    with pytest.raises(ValueError, match="scale"):
        head_sweeps.figure_config("fig2", "huge")
    with pytest.raises(ValueError, match="figure"):
        head_sweeps.run_figure("fig9")
    with pytest.raises(ValueError, match="figure"):
        head_sweeps.load_figure("fig9")
    with pytest.raises(ValueError, match="lacks"):
        head_sweeps.run_config({"figure": "fig2"})
    with pytest.raises(TypeError, match="config"):
        head_sweeps.run_config(["fig2"])


def test_run_figure_writes_and_loads(tmp_path, monkeypatch):
    from attention_theory.results import provenance, write_result

    short = dict(head_sweeps.FIGURE_SETTINGS["fig2-random"], runs=[("gd", "constant", 1.0, 2000, 20)])
    monkeypatch.setitem(head_sweeps.FIGURE_SETTINGS, "fig2-random", short)
    block, cfg = head_sweeps.run_figure("fig2-random", scale="smoke")
    assert cfg["engine"] == "heads" and cfg["init_scale"] > 0
    path = write_result(tmp_path / "fig2-random.json", block, provenance(cfg, wall_time_s=1.0, scale="smoke"))
    back = head_sweeps.load_figure("fig2-random", path)
    run = back["runs"]["gd:constant:1.0"][4]
    assert run["train_loss"].shape[1] == 2 and run["head_spread"][-1].min() > 0


def test_command_line_writes_provenance(tmp_path, monkeypatch):
    short = dict(head_sweeps.FIGURE_SETTINGS["fig2-random"], runs=[("gd", "constant", 1.0, 2000, 5)])
    monkeypatch.setitem(head_sweeps.FIGURE_SETTINGS, "fig2-random", short)
    run_cli(head_sweeps.EXPERIMENT,
            ["--parts", "fig2-random", "--scale", "smoke", "--out", str(tmp_path), "--no-progress"])
    back = head_sweeps.load_figure("fig2-random", tmp_path / "fig2-random-smoke.json")
    prov = back["provenance"]
    for key in ("commit", "commit_at_start", "uncommitted_source_changes_at_start", "wall_time_s",
                "torch_version"):
        assert key in prov
    assert prov["config"]["init_scale"] == 0.01 and back["runs"]["gd:constant:1.0"][1]["step"][-1] == 5
