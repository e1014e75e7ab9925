"""The experiment ``residual-training`` (:mod:`attention_theory.qin.residual_training`): every part
declares its configuration, and runs exactly that configuration (the chapter's live smoke runs
call the same entry points with ``config_for("smoke")``)."""

import json

import pytest

from attention_theory.experiment import find_experiment
from attention_theory.provenance import jsonable
from attention_theory.qin import residual_training
from attention_theory.qin.residual_training import EXPERIMENT

pytestmark = pytest.mark.usefixtures("float64_default")


def _json(obj):
    return json.loads(json.dumps(jsonable(obj)))


def test_the_experiment_is_found_by_its_name():
    assert find_experiment("qin", "residual-training") is EXPERIMENT
    assert EXPERIMENT.results == "qin-residual-training"
    assert residual_training.results_dir().name == "qin-residual-training"
    assert [p.name for p in EXPERIMENT.parts] == ["lowrank", "e2", "e3", "e1", "e4"]


@pytest.mark.parametrize("part", ["lowrank", "e1", "e2", "e3", "e4"])
def test_every_part_declares_its_configuration(part):
    for scale in ("smoke", "full"):
        cfg = EXPERIMENT.part(part).config_for(scale)
        assert cfg == _json(residual_training.SIZES[scale][part])  # lists, as recorded in a result
        assert cfg is not EXPERIMENT.part(part).config_for(scale)  # a fresh dict every time


def test_full_configurations_match_the_committed_results():
    folder = residual_training.results_dir()
    for part in ("lowrank", "e1", "e2", "e3", "e4"):
        recorded = json.loads((folder / f"{part}.json").read_text())["provenance"]["config"]
        assert recorded == EXPERIMENT.part(part).config_for("full"), part


@pytest.mark.parametrize("part", ["lowrank", "e3"])
def test_a_smoke_run_records_the_declared_configuration(part, tmp_path):
    """The cheap parts run here; the recorded configuration is the declared one."""
    from attention_theory.experiment import RunContext

    ctx = RunContext(scale="smoke", device="cpu", out=tmp_path, progress=False, options=None)
    res = EXPERIMENT.part(part).run(ctx)
    assert _json(res.config) == EXPERIMENT.part(part).config_for("smoke")


def test_e1_and_e4_shards_use_the_declared_configuration(tmp_path):
    """The sharded parts (expensive): their plan, shard configurations and merged configuration come
    from ``config_for`` (no training here)."""
    from attention_theory.experiment import RunContext

    ctx = RunContext(scale="smoke", device="cpu", out=tmp_path, progress=False, options=None)
    e1 = EXPERIMENT.part("e1")
    cfg = e1.config_for("smoke")
    labels = [label for label, _ in e1.shards.plan(ctx)]
    assert labels == [f"qk-{q:g}-seed-{s}-{v}" for q in cfg["qk_stds"] for s in cfg["seeds"]
                      for v in ("residual", "none")]
    merged = e1.shards.merge(ctx, [{"eta_tuned": cfg["common_eta"], "common": {}, "tuned": {}}] * len(labels))
    assert _json(merged.config) == cfg
    e4 = EXPERIMENT.part("e4")
    cfg4 = e4.config_for("smoke")
    assert [spec for _, spec in e4.shards.plan(ctx)] == [(v, float(e)) for v in ("residual", "none")
                                                          for e in cfg4["etas"]]
    assert _json(e4.shards.merge(ctx, []).config) == cfg4


def test_the_chapter_sizes_are_the_smoke_configuration():
    """``book/qin/experiments.md`` runs E1-E3 live at these sizes (its figures' captions say so)."""
    assert EXPERIMENT.part("e1").config_for("smoke") == {
        "N": 6, "d": 12, "dk": 4, "dv": 8, "m": 16, "seeds": [0], "steps": 300, "record": 30,
        "qk_stds": [0.05], "eta_grid": [0.02, 0.05], "common_eta": 0.02}
    assert EXPERIMENT.part("e2").config_for("smoke") == {"kappas": [1.0, 3.0, 10.0, 30.0], "seeds": [0],
                                                          "steps": 200}
    assert EXPERIMENT.part("e3").config_for("smoke") == {"layers": [2], "N": 6, "d": 12, "dk": 4, "dv": 8,
                                                          "m": 16, "seeds": [0], "steps": 200}


@pytest.mark.parametrize("call, exc, name", [
    (lambda: residual_training.e4_config("Full"), ValueError, "scale"),
    (lambda: residual_training.lowrank_config(None), ValueError, "scale"),
    (lambda: residual_training.run_e3("layers=2"), TypeError, "config"),
    (lambda: residual_training.run_e2({"kappas": [1.0, 3.0, 10.0], "seeds": [0]}), TypeError, "steps"),
])
def test_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
