"""Unit tests of the figures and tables of ``book/trauger/sparse-majority.md``
(:mod:`attention_theory.trauger.sparse_majority.figures`), on synthetic runs and on the committed
results in ``results/trauger-sparse-majority``."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_theory.results import read_result
from attention_theory.trauger.checks import sparse_majority as checks
from attention_theory.trauger.sparse_majority import (
    authors_model,
    collect,
    evaluation,
    experiment,
    figures,
    protocol,
    theory,
)

TS = (20, 40, 60, 80, 100, 120, 140, 160, 180, 200)
RESULTS = experiment.results_dir()


@pytest.fixture(autouse=True)
def _agg():
    plt.switch_backend("Agg")


def _runs(seeds=8, noise=0.05):
    rng = np.random.default_rng(0)
    return [{"T": T, "seed": s, "weight_l1": 100.0 * (1 + noise * rng.standard_normal()),
             "gen_gap": 0.2 * (1 + noise * rng.standard_normal()),
             "val_acc": 0.85 * (1 + noise * rng.standard_normal())}
            for T in TS for s in range(seeds)]


def test_figures_show_the_paper_seeds_beside_all_seeds():
    runs = _runs()
    fig, ax = plt.subplots()
    figures.plot_per_seed(ax, runs, "val_acc", ylabel="acc", title="t", paper_seeds=range(5))
    all_max, paper_max = (line.get_ydata() for line in ax.get_lines())
    for T, a, p in zip(TS, all_max, paper_max):
        assert a == max(r["val_acc"] for r in runs if r["T"] == T)
        assert p == max(r["val_acc"] for r in runs if r["T"] == T and r["seed"] < 5) <= a
    ests = evaluation.slopes_by_seed_count(runs, "val_acc", [5, 8], T_min=100)
    figures.plot_interval_by_seeds(ax, [5, 8], ests, margin=0.02, label="max")
    with pytest.raises(ValueError, match="same length"):
        figures.plot_interval_by_seeds(ax, [5], ests, margin=0.02, label="max")
    plt.close(fig)


def test_per_seed_and_sweep_figures_on_the_committed_sweeps():
    runs = read_result(RESULTS / "authors-sweep.json")["data"]["runs"]
    fig = figures.per_seed_figure(runs, "weight_l1", ylabel="w", title="t", paper_seeds=range(5))
    (ax,) = fig.axes
    best = ax.get_lines()[0].get_ydata()
    assert list(best) == [max(r["weight_l1"] for r in runs if r["T"] == T) for T in TS]
    plt.close(fig)
    v1 = read_result(RESULTS / "runs-full.json")["data"]["runs"]
    fig = figures.sweep_figure(v1)
    assert len(fig.axes) == 3
    for ax, key in zip(fig.axes, ("weight_l1", "gen_gap", "val_acc")):
        assert list(ax.get_lines()[0].get_ydata()) == [max(r[key] for r in v1 if r["T"] == T) for T in TS]
    plt.close(fig)


def test_protocol_markdown_has_one_escaped_row_per_setting():
    rows = protocol.protocol_table()
    text = figures.protocol_markdown(rows)
    lines = text.strip().split("\n")
    assert lines[0].startswith("| setting | paper | authors' code |") and len(lines) == len(rows) + 2
    marked = [line for line in lines[2:] if line.startswith("| ✱ ")]
    assert len(marked) == sum(bool(r["departure"]) for r in rows) > 0
    assert all(line.count(" | ") == 5 for line in lines[2:])      # every | inside a cell is escaped
    with pytest.raises(ValueError, match="rows"):
        figures.protocol_markdown([{"setting": "x"}])


def test_benchmark_summary_of_the_committed_benchmark():
    data = read_result(RESULTS / "benchmark-structured.json")["data"]
    out = figures.benchmark_summary(data)
    table = out["table"].split("\n")
    assert len(table) == 5 and table[2].startswith("| naive | ") and table[4].startswith("| structured | ")
    assert len(out["lines"]) == 5 and out["lines"][0].startswith("structured / naive: ")
    glue = out["glue"]
    assert glue["sm_speedup_naive"] == data["speedup"]["structured_over_naive"]["cpu"]["median"]
    assert glue["sm_steps_cpu"] == data["trainers"]["structured"]["steps_per_cpu_s"]["median"]
    assert set(glue) == {"sm_speedup_naive", "sm_speedup_batched", "sm_fraction_limit", "sm_fraction_peak",
                         "sm_steps_cpu"}


def test_bound_table_takes_the_largest_value_per_length():
    rows = [{"T": T, "seed": s, "B_w": 1.0 + s, "B_Wc": 2.0, "B_Wv": 3.0, "B_QK": 4.0, "B_x": 0.05,
             "gap_bound": 10.0 * (1 + s)} for T in (20, 40) for s in range(2)]
    runs = [{"T": T, "gen_gap": 0.1 * s} for T in (20, 40) for s in range(3)]
    lines = figures.bound_table(rows, runs).split("\n")
    assert len(lines) == 3 and lines[0].startswith("  T   B_w")
    assert lines[1].split() == ["20", "2.00", "2.00", "3.00", "4.00", "0.050", "20", "0.2000"]


def test_bound_table_on_the_committed_weights():
    sweep = read_result(RESULTS / "authors-sweep.json")
    weights = collect.read_weights(RESULTS / sweep["data"]["weights_file"])
    keep = np.asarray(weights["T"]) <= 40
    weights = {k: np.asarray(v)[keep] for k, v in weights.items()}
    runs = [r for r in sweep["data"]["runs"] if r["T"] <= 40]
    rows = theory.bound_per_run(weights, m=sweep["provenance"]["config"]["n_train"])
    lines = figures.bound_table(rows, runs).split("\n")
    assert [int(line.split()[0]) for line in lines[1:]] == [20, 40]
    assert float(lines[1].split()[-1]) == pytest.approx(max(r["gen_gap"] for r in runs if r["T"] == 20),
                                                       abs=5e-5)


def test_trend_test_prints_the_verdict_on_committed_files(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    path = RESULTS / "authors-sweep.json"
    runs = read_result(path)["data"]["runs"]
    holds = figures.trend_test(lambda: checks.check_norm_no_increasing_trend(runs=runs), "Figure 1",
                               files=(path,))
    out = capsys.readouterr().out
    assert isinstance(holds, bool)
    assert out.startswith(f"Figure 1 (the paper's 5 seeds): {'HOLDS' if holds else 'FAILS'}:")
    with pytest.raises(TypeError, match="run_check"):
        figures.trend_test(None, "Figure 1", files=(path,))


def test_initial_weight_l1_is_the_norm_at_initialization():
    shape = protocol.protocol("authors", "full").model_shape
    flat = authors_model.init_authors_params(shape, generator=authors_model.run_generator(20, 3, "init"))
    assert figures.initial_weight_l1(20, 3) == float(flat.abs().sum()) > 0
    assert figures.initial_weight_l1(20, 3) != figures.initial_weight_l1(20, 4)
