"""Negative controls for the checks of ``book/deora/experiments.md`` (Deora et al., App. G: the
zero-initialization symmetry, the DM1 settings, Figures 2 and 3)."""

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.deora import experiment_runs, head_sweeps, heads_training
from attention_theory.deora.checks import experiments as checks


def test_nc_symmetry_random_start():
    with negative_control("deora-sec-g-symmetry", "zero-init-reduction"):
        checks.check_zero_init_symmetry(init_scale=1e-3, Hs=(4,), optimizers=("gd",), steps=10)


def test_nc_symmetry_wrong_w_step():
    with negative_control("deora-sec-g-symmetry", "zero-init-reduction"):  # W step eta instead of eta / H
        checks.check_zero_init_symmetry(w_step_factor=4.0, Hs=(4,), optimizers=("gd",), steps=10)


def test_nc_symmetry_wrong_adam_epsilon():
    # the reduction with Adam's epsilon left unscaled on W differs once gradients are small
    spec = heads_training.TrainSpec.uniform("adam", 0.01, 5, eps_U=1e-2, eps_W=1e-2)
    red = heads_training.reduced_single_head_spec(spec, 16)
    assert red.eps_W == pytest.approx(16 * 1e-2) and red.eps_U == pytest.approx(4 * 1e-2)
    assert red.lr_U == pytest.approx(4 * 0.01) and red.lr_W == pytest.approx(0.01)


def test_nc_symmetry_breaking_zero_start_does_not_break():
    with negative_control("deora-sec-g-symmetry", "random-init-breaks-symmetry"):
        checks.check_symmetry_breaking(init_scale=0.0, steps=10)


def test_nc_dm1_settings_wrong_sigma():
    with negative_control("deora-sec-g-dm1", "sampler-settings"):
        checks.check_dm1_settings(sigma=0.12, n=500)


def test_nc_dm1_settings_wrong_signal_strength():
    with negative_control("deora-sec-g-dm1", "sampler-settings"):
        checks.check_dm1_settings(S=1.0, n=200)


def test_nc_dm1_engines_disagree_at_tiny_tolerance():
    with negative_control("deora-sec-g-symmetry",
                          "engines-agree-dm1"):  # the engines agree to round-off, not bit for bit
        checks.check_dm1_engines_agree(steps=5, Hs=(4,), atol=0.0)


@pytest.fixture(scope="module")
def dm1_runs():
    return experiment_runs.smoke_dm1_runs()


def test_nc_fig2_loss_ordering_reversed(dm1_runs):
    with negative_control("deora-fig-2", "loss-increasing-in-heads"):
        checks.check_fig2_loss_increasing(runs=dm1_runs, increasing=False)


def test_nc_fig2_rate_wrong_exponent(dm1_runs):
    with negative_control("deora-fig-2", "late-loss-rate-one-over-t"):  # an O(1/t^2) claim
        checks.check_fig2_rate(runs=dm1_runs, low=-2.3, high=-1.7)


def test_nc_fig2_attention_increasing(dm1_runs):
    with negative_control("deora-fig-2", "attention-decreasing-in-heads"):
        checks.check_fig2_attention(runs=dm1_runs, increasing=True)


def test_nc_fig2_margin_largest_for_many_heads(dm1_runs):
    with negative_control("deora-fig-2", "margin-growing-largest-for-one-head"):
        checks.check_fig2_margin(runs=dm1_runs, best_H=max(dm1_runs["Hs"]))


def test_nc_fig2_full_margin_claims_gamma_attn():
    full = experiment_runs.dm1_runs_from_results(head_sweeps.load_figure("fig2"),
                                                 head_sweeps.load_figure("fig3"))
    with negative_control("deora-fig-2",
                          "full-scale-margin-near-gamma-attn"):  # "achieves gamma_attn": only approached
        checks.check_fig2_full_margin(runs=full, fraction=1.0)


def test_nc_fig3_gd_reversed(dm1_runs):
    with negative_control("deora-fig-3", "gd-sqrt-heads-faster-smaller-margin"):
        checks.check_fig3_gd(runs=dm1_runs, reverse=True)


def test_nc_fig3_adam_reversed(dm1_runs):
    with negative_control("deora-fig-3", "adam-early-loss-decreasing-in-heads"):
        checks.check_fig3_adam(runs=dm1_runs, reverse=True)


def test_nc_trajectory_agreement_wrong_w_rescaling():
    # the reduction with the W step eta / H replaced by 4 eta / H parts from the H-head model
    with negative_control("deora-sec-g-symmetry", "engines-agree-full-trajectory"):
        checks.check_dm1_trajectory_agreement(steps=40, w_step_factor=4.0)


def test_nc_trajectory_agreement_perturbed_heads_run():
    # a heads run whose loss is off by one part in 10^7 at one logged step must fail
    runs = experiment_runs.smoke_dm1_runs()["gd1"]
    heads = {H: {**r, "reduced_param_gap": np.zeros_like(r["train_loss"]),
                 "head_spread_pairs": np.zeros_like(r["train_loss"])} for H, r in runs.items()}
    H = max(heads)
    heads[H] = {**heads[H],
                "train_loss": heads[H]["train_loss"] * (1 + 1e-7
                                                        * (np.arange(len(heads[H]["step"])) == 5)[:, None])}
    with negative_control("deora-sec-g-symmetry", "engines-agree-full-trajectory"):
        checks.check_dm1_trajectory_agreement(heads=heads, reduced=runs)
