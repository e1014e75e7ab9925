"""Unit tests of the batched multi-head engine (``heads-batched``) of Deora et al., App. G."""

import numpy as np
import pytest
import torch

from attention_theory.deora import head_sweeps, heads_training
from attention_theory.deora import heads_engine as he
from attention_theory.deora.model import multi_head_output_bmm


def test_hand_derived_gradients_match_autograd():
    # random, non-symmetric parameters: every head different, three head counts on one head axis
    g = torch.Generator().manual_seed(3)
    B, n, T, d, sizes = 2, 7, 10, 4, [1, 3, 2]
    K = sum(sizes)
    X = torch.randn(B, n, T, d, generator=g, dtype=torch.float64)
    y = torch.where(torch.rand(B, n, generator=g) > 0.5, 1.0, -1.0).double()
    U = torch.randn(B, K, T, d, generator=g, dtype=torch.float64).requires_grad_(True)
    W = torch.randn(B, K, d, d, generator=g, dtype=torch.float64).requires_grad_(True)
    gU, gW, losses = he._grads_batched(X, y, U.detach(), W.detach(), sizes)
    ref, a = [], 0
    for H in sizes:
        out, _ = multi_head_output_bmm(X, W[:, a:a + H], U[:, a:a + H])
        ref.append(torch.nn.functional.softplus(-y * out).mean(1))
        a += H
    ref = torch.stack(ref, 1)
    aU, aW = torch.autograd.grad(ref.sum(), (U, W))
    assert float((losses - ref.detach()).abs().max()) <= 1e-12
    assert float((gU - aU).abs().max()) <= 1e-12
    assert float((gW - aW).abs().max()) <= 1e-12
    assert float(aW.abs().max()) > 0.1   # not a vacuous comparison


def test_batched_engine_equals_autograd_engine():
    data = heads_training.dm1_trials(2, 20, 30)
    a = heads_training.sweep(data, [1, 4], "gd", steps=15, lr_rule="constant", engine="heads-batched",
                             record_at=range(16))
    b = heads_training.sweep(data, [1, 4], "gd", steps=15, lr_rule="constant", engine="heads",
                             record_at=range(16))
    for H in (1, 4):
        for key in ("train_loss", "test_loss", "margin_mean", "avg_W_norm", "head_spread"):
            np.testing.assert_allclose(a[H][key], b[H][key], rtol=1e-11, atol=1e-14)
        assert float((a[H]["Ws"] - b[H]["Ws"]).abs().max()) <= 1e-13
        assert np.nanmax(a[H]["reduced_param_gap"]) <= 1e-13


def test_batched_engine_refuses_other_settings():
    data = heads_training.dm1_trials(1, 10, 10)
    with pytest.raises(ValueError, match="GD only"):
        heads_training.sweep(data, [1], "adam", steps=2, engine="heads-batched")
    with pytest.raises(ValueError, match="zero initialization"):
        heads_training.sweep(data, [1], "gd", steps=2, engine="heads-batched", init_scale=0.1)
    with pytest.raises(ValueError, match="fig2-heads"):
        head_sweeps.run_figure("fig2", engine="heads-batched")


def test_fig2_heads_part_writes_its_own_file_and_agrees(tmp_path, monkeypatch):
    from attention_theory.deora.checks import experiments as checks
    from attention_theory.experiment import run_cli

    for fig in ("fig2", "fig2-heads"):
        monkeypatch.setitem(head_sweeps.FIGURE_SETTINGS, fig,
                            dict(head_sweeps.FIGURE_SETTINGS[fig],
                                 runs=[("gd", "constant", 1.0, 20_000, 12)]))
    run_cli(head_sweeps.EXPERIMENT,
            ["--parts", "fig2-heads", "--scale", "smoke", "--out", str(tmp_path), "--no-progress"])
    assert not (tmp_path / "fig2-smoke.json").exists()
    back = head_sweeps.load_figure("fig2-heads", tmp_path / "fig2-heads-smoke.json")
    assert back["config"]["engine"] == "heads-batched"
    heads = back["runs"]["gd:constant:1.0"]
    block, _ = head_sweeps.run_figure("fig2", scale="smoke", engine="reduced")
    reduced = {int(H): {k: (np.asarray(v, dtype=float) if isinstance(v, list) else v) for k, v in r.items()}
               for H, r in block["runs"]["gd:constant:1.0"].items()}
    rec = checks.check_dm1_trajectory_agreement(heads=heads, reduced=reduced)
    assert rec.params["steps"] == 12 and rec.params["max_head_spread"] == 0.0
