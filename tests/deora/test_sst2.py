"""The experiment ``sst2`` (attention_theory.deora.sst2, Figure 6 of Deora et al.): each part declares
its configuration, a run records exactly that configuration, and the chapter's live substitute run is
the declared one."""

import pytest

from attention_theory.config import use_scale
from attention_theory.deora import sst2, sst2_reports, sst2_substitute
from attention_theory.experiment import run_cli
from attention_theory.results import read_result


def test_every_part_declares_its_config():
    for scale in ("smoke", "full"):
        substitute = sst2.EXPERIMENT.part("substitute").config_for(scale)
        assert substitute == sst2_substitute.substitute_config(scale)
        assert sst2.EXPERIMENT.part("sst2").config_for(scale) == sst2.sst2_config(scale)
    assert sst2.sst2_config("full")["heads"] == [1, 2, 3, 4, 6, 12]
    assert sst2.sst2_config("smoke")["n_train"] == 64
    with pytest.raises(ValueError, match="scale"):
        sst2.sst2_config("huge")


def _fake_substitute(config, *, progress=False, checkpoint=None):
    runs = {H: [{"H": H, "seed": s, "steps_per_epoch": 1, "step_loss": [0.7], "eval_step": [0, 1],
                 "eval_epoch": [0.0, 1.0], "test_loss": [0.7, 0.6], "test_acc": [0.5, 0.6]}
                for s in config["seeds"]] for H in config["heads"]}
    return {"config": dict(config), "runs": runs}


def test_the_substitute_part_records_the_declared_config(tmp_path, monkeypatch):
    # the training itself is replaced: the configuration that reaches it is what is compared
    seen = []
    monkeypatch.setattr(sst2, "run_substitute",
                        lambda config, **kw: seen.append(config) or _fake_substitute(config))
    run_cli(sst2.EXPERIMENT, ["--parts", "substitute", "--scale", "smoke", "--out", str(tmp_path),
                              "--no-progress"])
    declared = sst2.EXPERIMENT.part("substitute").config_for("smoke")
    assert seen == [declared]
    assert read_result(tmp_path / "fig6_substitute_smoke.json")["provenance"]["config"] == declared


def test_the_sst2_part_records_the_declared_config(tmp_path, monkeypatch):
    seen = []

    def fake_run(config, *, data=None, device=None, progress=True):
        seen.append(dict(config))
        return {"heads": list(config["heads"]), "runs": {}, "n_train": 64, "n_val": 64, "device": "cpu"}

    monkeypatch.setattr(sst2, "missing_assets", lambda model=None, data=None: [])
    monkeypatch.setattr(sst2, "run_sst2", fake_run)
    run_cli(sst2.EXPERIMENT, ["--parts", "sst2", "--scale", "smoke", "--out", str(tmp_path), "--no-progress"])
    declared = sst2.EXPERIMENT.part("sst2").config_for("smoke")
    assert seen == [declared]
    assert read_result(tmp_path / "fig6_sst2_smoke.json")["provenance"]["config"] == declared


def test_the_chapters_live_substitute_run_uses_the_declared_config(monkeypatch):
    seen = []
    monkeypatch.setattr(sst2_reports, "run_substitute", lambda config, **kw: seen.append(config) or {"x": 1})
    monkeypatch.setattr(sst2_reports, "_CACHE", {})
    with use_scale("smoke"):
        sst2_reports.smoke_substitute()
    assert seen == [sst2.EXPERIMENT.part("substitute").config_for("smoke")]
