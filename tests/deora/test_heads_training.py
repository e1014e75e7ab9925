"""Unit tests of the App. G trainer (attention_theory.deora.heads_training): the DM1 and DM2 trials,
the multi-head trainer, the reduction of identical heads and the sweep over H."""

import math

import numpy as np
import pytest
import torch

from attention_theory.deora import heads_training
from attention_theory.deora.dm2 import planted_teacher, sample_dm2, teacher_output


def test_teacher_norms_and_sampler_determinism():
    t = planted_teacher(10, 5, seed=3)
    assert np.linalg.norm(t.W) == pytest.approx(3.0) and np.linalg.norm(t.U) == pytest.approx(1.0)
    X1, y1, a1 = sample_dm2(50, t, seed=1)
    X2, y2, a2 = sample_dm2(50, t, seed=1)
    assert X1.shape == (50, 10, 5) and np.array_equal(X1, X2) and np.array_equal(y1, y2) and a1 == a2
    assert 0 < a1 <= 1 and set(np.unique(y1)) <= {-1.0, 1.0}
    assert np.all(y1 * teacher_output(X1, t) > 0.2)


def test_heads_output_matches_the_reference_model():
    from attention_theory.deora.model import multi_head

    g = torch.Generator().manual_seed(0)
    X = torch.randn(1, 3, 4, 2, generator=g, dtype=torch.float64)
    Us = torch.randn(1, 5, 4, 2, generator=g, dtype=torch.float64)
    Ws = torch.randn(1, 5, 2, 2, generator=g, dtype=torch.float64)
    out, S = heads_training.heads_output(Us, Ws, X)
    ref = torch.stack([multi_head(X[0, i], Ws[0], Us[0]) for i in range(3)])
    assert torch.allclose(out[0], ref, atol=1e-13) and S.shape == (1, 3, 5, 4, 4)


def test_reduced_spec_for_gd_and_log_steps():
    spec = heads_training.TrainSpec.uniform("momentum", 2.0, 10)
    red = heads_training.reduced_single_head_spec(spec, 4)
    assert (red.lr_U, red.lr_W) == (2.0, 0.5)
    steps = heads_training.log_steps(1000)
    assert steps[0] == 0 and steps[-1] == 1000 and 100 in steps and np.all(np.diff(steps) > 0)


@pytest.mark.parametrize("kwargs,match", [
    (dict(optimizer="sgd"), "optimizer"), (dict(lr_U=-1.0), "lr_U"), (dict(momentum=1.5), "momentum"),
])
def test_bad_train_spec(kwargs, match):
    base = dict(optimizer="gd", steps=1, lr_U=0.1, lr_W=0.1)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        heads_training.TrainSpec(**base)


def test_bad_data_shapes_and_teacher():
    with pytest.raises(ValueError, match="Xtr"):
        heads_training.train_heads(np.zeros((3, 4, 2)), np.ones(3), np.zeros((3, 4, 2)), np.ones(3), H=1,
                       spec=heads_training.TrainSpec.uniform("gd", 0.1, 1))
    with pytest.raises(ValueError, match="W_norm"):
        planted_teacher(4, 2, W_norm=0.0)
    with pytest.raises(ValueError, match="Xs"):
        teacher_output(np.zeros((2, 3, 3)), planted_teacher(4, 2))
    with pytest.raises(RuntimeError, match="margin filter"):
        sample_dm2(10, planted_teacher(4, 2), gamma_dm2=1e6, max_rounds=2)


def test_trainer_reaches_low_loss_on_separable_toy_data():
    data = heads_training.dm2_trials(1, 40, 40, seed=5)
    run = heads_training.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=2,
                         spec=heads_training.TrainSpec.uniform("gd", math.sqrt(2), 40), record_at=[0, 40])
    assert run["train_loss"][-1, 0] < 0.5 * run["train_loss"][0, 0]
    assert run["train_loss"][0, 0] == pytest.approx(math.log(2))


def test_gamma_attn_app_g():
    assert heads_training.gamma_attn_dm1(heads_training.app_g_dm1_config()) == pytest.approx(2 * math.sqrt(5))


def test_dm1_trials_shapes_and_seeds():
    a = heads_training.dm1_trials(2, 7, 5, seed=3)
    assert a["Xtr"].shape == (2, 7, 10, 4) and a["rel_te"].shape == (2, 5, 10)
    assert np.all(a["rel_tr"].sum(-1) == 1)
    b = heads_training.dm1_trials(2, 7, 5, seed=3)
    assert np.array_equal(a["Xtr"], b["Xtr"]) and not np.array_equal(a["Xtr"][0], a["Xtr"][1])


def test_reduced_engine_matches_heads_engine_on_dm2():
    data = heads_training.dm2_trials(2, 20, 20)
    for opt, rule, lr in (("gd", "sqrtH", 1.0), ("momentum", "sqrtH", 0.5), ("adam", "constant", 0.01)):
        gap = heads_training.prefix_agreement(data, [1, 3], opt, rule, lr, 8)
        assert gap["max_log_gap"] < 1e-12 and gap["max_param_gap"] < 1e-12


def test_sweep_bad_input():
    data = heads_training.dm1_trials(1, 5, 5)
    with pytest.raises(ValueError, match="lr_rule"):
        heads_training.sweep(data, [1], "gd", steps=1, lr_rule="linear")
    with pytest.raises(ValueError, match="engine"):
        heads_training.sweep(data, [1], "gd", steps=1, engine="fast")
    with pytest.raises(ValueError, match="zero initialization"):
        heads_training.sweep(data, [2], "gd", steps=1, engine="reduced", init_scale=0.1)
    with pytest.raises(ValueError, match="empty"):
        heads_training.sweep(data, [], "gd", steps=1)
    with pytest.raises(ValueError, match="per-trial"):
        heads_training.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=1,
                       spec=heads_training.TrainSpec("gd", 1, lr_U=(1.0, 2.0), lr_W=1.0))
    with pytest.raises(ValueError, match="lr_U"):
        heads_training.TrainSpec("gd", 1, lr_U=(1.0, -2.0), lr_W=1.0)
    with pytest.raises(TypeError, match="scalar"):
        heads_training.reduced_single_head_spec(heads_training.TrainSpec("gd", 1, lr_U=(1.0,), lr_W=1.0), 2)
