"""plot_sweep: one panel per quantity, one line per sweep value, clear errors."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from attention_theory.deora.plotting import plot_sweep


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
