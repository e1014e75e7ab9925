"""The figures of the Deora experiment chapters (attention_theory.deora.figures): plot_sweep (one panel
per quantity, one line per sweep value, clear errors) and the figures and numbers drawn from the
committed results."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_theory.deora import experiment_runs, figures, head_sweeps, sst2, sst2_substitute
from attention_theory.deora.figures import plot_sweep
from attention_theory.results import read_result


def _runs():
    steps = np.array([0, 1, 10, 100])
    return {H: {"step": steps, "train_loss": np.array([[0.7, 0.7], [0.5, 0.4], [0.1, 0.2], [0.01, 0.02]]) / H,
                "margin_min": np.array([[0.0, 0.0], [-1.0, -1.2], [0.5, 0.4], [1.0, 1.1]])} for H in (1, 4)}


def test_plot_sweep_draws_one_line_per_H_and_skips_step_zero():
    fig = plot_sweep(_runs(), ["train_loss", "margin_min"], reference={"margin_min": 2.0})
    ax_loss, ax_margin = fig.axes
    assert len(ax_loss.lines) == 2 and ax_loss.get_yscale() == "log"
    assert np.array_equal(ax_loss.lines[0].get_xdata(), [1, 10, 100])
    assert any(np.allclose(line.get_ydata(), 2.0) for line in ax_margin.lines)  # the reference line


def test_plot_sweep_masks_non_positive_values_on_a_log_axis():
    runs = _runs()
    runs[1]["train_loss"][-1] = 0.0  # an exact zero at the last step
    fig = plot_sweep(runs, ["train_loss"])
    y = fig.axes[0].lines[0].get_ydata()
    assert np.isnan(y[-1]) and np.all(y[:-1] > 0)
    assert fig.axes[0].get_legend().get_texts()[0].get_fontsize() >= 9


def test_plot_sweep_bad_input():
    with pytest.raises(ValueError, match="empty"):
        plot_sweep({}, ["train_loss"])
    with pytest.raises(KeyError, match="align_W"):
        plot_sweep(_runs(), ["align_W"])


# --- the figures and quoted numbers of the experiment chapters, on the committed results ------------

@pytest.fixture(scope="module")
def dm1_full():
    fig2, fig3 = head_sweeps.load_figure("fig2"), head_sweeps.load_figure("fig3")
    return experiment_runs.dm1_runs_from_results(fig2, fig3)


@pytest.fixture(scope="module")
def dm2_full():
    fig4, fig5 = head_sweeps.load_figure("fig4"), head_sweeps.load_figure("fig5")
    return experiment_runs.dm2_runs_from_results(fig4, fig5)


def test_engine_costs_and_trajectory_from_the_committed_runs():
    f2h, red = head_sweeps.load_figure("fig2-heads"), head_sweeps.load_figure("fig2")
    text = figures.engine_cost_text(f2h)
    assert "heads-batched engine" in text and "CPU minutes" in text
    assert "missing" in figures.engine_cost_text(None)
    assert figures.trajectory_source(f2h, red).startswith("full scale: committed results/deora-head-sweeps/")
    live = {"Hs": [1, 4], "trials": 2, "steps": 9}
    assert "smoke scale" in figures.trajectory_source(None, None, live=live)
    heads, reduced = f2h["runs"]["gd:constant:1.0"], red["runs"]["gd:constant:1.0"]
    per_H = experiment_runs.trajectory_gaps(heads, reduced)["per_H"]
    nums = figures.trajectory_numbers(per_H)
    assert nums["dex_traj_rel"] < 1e-9 and nums["dex_traj_spread"] == 0.0 and "step" in nums["dex_traj_trend"]
    assert len(figures.trajectory_lines(per_H)) == 4
    assert math.isnan(figures.trajectory_numbers({})["dex_traj_rel"])
    fig = figures.plot_trajectory_gaps(per_H)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == len(per_H) + 1   # a line per H and the tolerance
    plt.close(fig)


def test_figures_2_and_3_at_full_scale(dm1_full):
    g = 2 * math.sqrt(5)
    f2 = figures.fig2_numbers(dm1_full, g)
    assert f2["dex_f2_lossK_ratio"] > 1 and f2["dex_f2_attn_h1"] > f2["dex_f2_attn_h64"]
    assert 0 < f2["dex_f2_margin_frac"] < 1 and all(isinstance(v, float) for v in f2.values())
    f3 = figures.fig3_numbers(dm1_full)
    assert f3["dex_f3_fast_of"] == 10 and isinstance(f3["dex_f3_gd_inv"], int)
    assert f3["dex_f3_margin_h1"] > f3["dex_f3_margin_h8"]
    lines = figures.ordering_lines([("GD loss", dm1_full["gd_sqrtH"], "train_loss", 10, False)])
    assert lines[0].startswith("GD loss at step 10: ")
    fig = figures.plot_fig3(dm1_full, "full scale", g)
    assert len(fig.axes) == 6 and fig.axes[0].get_title() == r"GD, $\eta=\sqrt{H}$ (full scale)"
    plt.close(fig)


def test_the_random_start_against_the_zero_start(dm1_full):
    rnd = head_sweeps.load_figure("fig2-random")["runs"]["gd:constant:1.0"]
    nums = figures.random_start_numbers(dm1_full["gd1"], rnd)
    assert set(nums) >= {"dex_rand_spread", "dex_rand_dev100", "dex_rand_inv10"}
    assert nums["dex_rand_spread"] > 0
    assert nums["dex_rand_dev1000"] <= nums["dex_rand_dev100"]
    lines = figures.random_start_lines(dm1_full["gd1"], rnd)
    assert lines[0].startswith("at step ") and len(lines) == 2 + len(rnd)
    fig = figures.plot_random_start(rnd, dm1_full["gd1"])
    assert len(fig.axes) == 4
    plt.close(fig)


def test_figures_4_and_5_at_full_scale(dm2_full):
    nums = figures.dm2_numbers(dm2_full)
    assert nums["dpt_gd_align_W_min"] > 0.95 and nums["dpt_mom_bad_align_W_h16"] < 0
    assert nums["dpt_mom_good_trials"] == 4 and nums["dpt_mom_eff_step"] == pytest.approx(40.0)
    for opt in ("gd", "momentum", "adam"):
        fig = figures.plot_dm2_full(dm2_full, opt)
        assert len(fig.axes) == 4
        plt.close(fig)
    with pytest.raises(ValueError, match="opt"):
        figures.plot_dm2_full(dm2_full, "sgd")
    fig = figures.plot_dm2_smoke(dm2_full)
    assert len(fig.axes) == 6 and len(fig.axes[0].lines) == len(dm2_full["Hs"])
    plt.close(fig)


def test_the_substitute_at_full_scale():
    full = read_result(sst2.results_dir() / "fig6_substitute.json")
    res = {"config": full["provenance"]["config"],
           "runs": {int(H): rs for H, rs in sorted(full["data"]["runs"].items(),
                                                   key=lambda kv: int(kv[0]))}}
    summary = sst2_substitute.summarize_substitute(res)
    table = figures.substitute_table(res, summary)
    assert table[0].split()[0] == "H" and len(table) == 1 + len(summary)
    nums = figures.substitute_numbers(res, summary)
    assert nums["dsst_final_acc_h16"] > nums["dsst_final_acc_h1"]
    assert 0 < nums["dsst_first_acc_lo"] <= 1
    fig = figures.plot_substitute(res, "substitute, full scale")
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == len(summary)
    plt.close(fig)
