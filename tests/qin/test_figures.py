"""The figure and summary helpers of ``book/qin/experiments.md`` (:mod:`attention_theory.qin.figures`),
on the committed full-scale results of the experiment ``residual-training``."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_theory.qin import figures, residual_training
from attention_theory.results import read_result


@pytest.fixture(autouse=True)
def _agg_backend():
    plt.switch_backend("Agg")


@pytest.fixture(scope="module")
def results():
    folder = residual_training.results_dir()
    return {name: read_result(folder / f"{name}.json") for name in ("lowrank", "e1", "e2", "e3", "e4")}


def test_lowrank_plot_and_summary(results):
    data = results["lowrank"]["data"]
    fig, axes = plt.subplots(2, 2)
    figures.plot_lowrank(data, axes)
    seeds = len(results["lowrank"]["provenance"]["config"]["seeds"])
    assert [len(ax.lines) for ax in axes.ravel()] == [3 * seeds] * 4
    assert [t.get_text() for t in axes[0, 0].get_legend().get_texts()] == ["Z, residual", "Z, no residual",
                                                                           "S"]
    plt.close(fig)
    s = figures.lowrank_summary(data)
    # zero query/key weights, no residual: rank one, the other singular values at rounding level
    assert s["zero_rest_max"] < 1e-12
    assert 0 < s["std1_min"] <= s["std1_max"] < 0.1


def test_e1_plot_ranges_and_divergence(results):
    e1 = results["e1"]
    runs = e1["data"]["runs"]
    seeds = e1["provenance"]["config"]["seeds"]
    fig, axes = plt.subplots(2, 2)
    figures.plot_e1(runs["0.25"], "title", axes.ravel())
    # two variants x two step-size modes x seeds; sigma_1 dotted and kappa on the next panels
    assert len(axes[0, 0].lines) == 4 * len(seeds) and len(axes[0, 1].lines) == 8 * len(seeds)
    assert not axes[1, 1].axison and axes[0, 0].get_title() == "title"
    plt.close(fig)
    r = figures.e1_ranges(e1["data"], list(runs))
    assert len(r["res_loss"]) == len(r["none_loss"]) == 2 * len(seeds)
    assert max(r["res_loss"]) < 1e-6 < min(r["none_loss"])  # the residual trains, the other stalls
    assert figures.e1_diverged(e1["data"], seeds) == "std 0.025, seed 2"
    final = figures.e1_final_losses(runs["0.25"], "tuned")
    assert set(final) == {"residual", "none"} and all(len(v) == len(seeds) for v in final.values())
    assert all(float(x) < 1e-10 for x in final["residual"])


def test_e2_plot_and_summary(results):
    d2 = results["e2"]["data"]
    fig, axes = plt.subplots(1, 2)
    figures.plot_e2(d2, "full scale", axes)
    assert [len(ax.lines[0].get_xdata()) for ax in axes] == [len(d2["kappa"])] * 2
    plt.close(fig)
    s = figures.e2_summary(d2)
    assert s["n_holds"] == int(np.sum(d2["holds"])) >= 1
    assert 1 < s["gap_min"] <= s["gap_max"]  # the measured rate exceeds the guaranteed one


def test_e3_table_and_summary(results):
    data = results["e3"]["data"]
    lines = figures.e3_table(data).splitlines()
    assert [line.split()[0] for line in lines] == list(data)
    s = figures.e3_summary(data)
    assert list(s)[:2] == [f"{next(iter(data))}_loss0", f"{next(iter(data))}_loss"]
    assert s["none_l1_max"] < 1e-6 < s["res_min"] <= s["res_max"] < 1  # rank-deficient without the residual
    assert s["none_l2_max"] < s["none_l1_min"]


def test_e4_table_plot_and_summary(results):
    e4 = results["e4"]
    c4, runs = e4["provenance"]["config"], e4["data"]["runs"]
    table = figures.e4_settings_table(c4)
    assert table.startswith("| setting | value |\n|---|---|\n") and table.count("\n") == 11
    assert f"| seeds | {len(c4['seeds'])} (" in table
    fig, axes = plt.subplots(1, 3)
    figures.plot_e4(c4, runs, axes)
    assert len(axes[0].containers) == 2 and axes[1].get_yscale() == "log"
    plt.close(fig)
    s = figures.e4_summary(c4, runs)
    assert s["residual_n"] == s["none_n"] == len(c4["seeds"]) * len(c4["etas"])
    assert s["full_nruns"] > 0 and s["full_worst"] <= 0.5  # the statement of e4-linear-rate-with-residual
    assert s["none_worst_min"] > 0.5 and math.isfinite(s["none_worst_min"])
    assert s["residual_div"].startswith("0/8 at 0.003")
