"""Negative controls for the Figure 6 checks (SST-2 with RoBERTa; fixture pipeline and substitute)."""

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from _nc import negative_control  # noqa: E402
from attention_theory.deora import sst2 as ds  # noqa: E402
from attention_theory.deora import sst2_substitute  # noqa: E402
from attention_theory.deora.checks import sst2 as checks  # noqa: E402


def _ignores_heads(path, H):
    """A broken 'pipeline' that always loads the checkpoint's own head count."""
    return ds.build_model(path, 4)


def _reinitializes(path, H):
    """A broken 'pipeline' that builds a fresh random model per H instead of loading the weights."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    cfg = AutoConfig.from_pretrained(path, num_attention_heads=H, local_files_only=True)
    torch.manual_seed(H)
    return AutoModelForSequenceClassification.from_config(cfg)


def test_fixture_pipeline_passes():
    rec = checks.check_fixture_pipeline(heads=(1, 4))
    assert rec.status == "verified"
    assert rec.detail["state_dict_diff"] == {4: 0.0}
    assert rec.detail["output_diff"][4] > 1e-3


def test_nc_fixture_pipeline_heads_ignored():
    with negative_control("deora-fig-6", "fixture-pipeline"):
        checks.check_fixture_pipeline(heads=(1, 8), builder=_ignores_heads)


def test_nc_fixture_pipeline_weights_not_loaded():
    with negative_control("deora-fig-6", "fixture-pipeline"):
        checks.check_fixture_pipeline(heads=(2, 4), builder=_reinitializes)


def _toy(losses, accs):
    return {"config": {"n_train": 10, "n_test": 10, "epochs": 1, "heads": [1, 4], "seeds": [0], "lr": 1e-3,
                       "batch_size": 32, "n_polar": 25},
            "runs": {H: [{"seed": 0, "step_loss": np.asarray(l), "test_acc": np.asarray([0.5, a])}]
                     for H, l, a in zip((1, 4), losses, accs)}}


def test_nc_substitute_claimed_accuracy_too_high():
    learning = _toy([np.linspace(0.7, 0.2, 50)] * 2, [0.8, 0.85])
    checks.check_substitute_learns(result=learning)
    with negative_control("deora-fig-6", "substitute-learns"):
        checks.check_substitute_learns(result=learning, min_accuracy=0.99)


def test_nc_substitute_loss_not_decreasing():
    flat_then_up = _toy([np.linspace(0.6, 0.7, 50)] * 2, [0.8, 0.85])
    with negative_control("deora-fig-6", "substitute-learns"):
        checks.check_substitute_learns(result=flat_then_up)


def test_nc_substitute_real_tiny_run_at_chance():
    cfg = sst2_substitute.substitute_config("smoke") | {"n_train": 128, "n_test": 100, "epochs": 1,
                                                        "heads": [2]}
    res = sst2_substitute.run_substitute(cfg, progress=False)
    with negative_control("deora-fig-6",
                          "substitute-learns"):  # 4 steps from scratch do not reach 99 % accuracy
        checks.check_substitute_learns(result=res, min_accuracy=0.99)
