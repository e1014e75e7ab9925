"""Tests of :mod:`attention_theory.julistiono.figures` (the figures and tables of
``book/julistiono/experiments.md``) on the committed full-scale results of the experiment
``mirror-descent-training``."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attention_theory.julistiono import figures
from attention_theory.julistiono import mirror_descent_training as mdt
from attention_theory.results import repo_results_dir

RESULTS = repo_results_dir(figures.RESULTS_FOLDER)
pytestmark = pytest.mark.skipif(not (RESULTS / "e1.json").exists(),
                                reason="committed results not in this checkout")


@pytest.fixture(scope="module")
def committed():
    return {name: figures.full_result(name) for name in ("e1.json", "e1-book-v1.json", "e1-single.json",
                                                         "e2.json", "e3_standin.json", "e4_standin.json")}


def _closed(fig):
    assert isinstance(fig, matplotlib.figure.Figure)
    n = len(fig.axes)
    plt.close(fig)
    return n


def test_full_result_reads_the_committed_file_and_its_provenance(committed, capsys):
    res = figures.full_result("e1.json")
    assert res["provenance"]["scale"] == "full" and set(res["data"]["runs"]) == {"1.75", "2.0", "3.0"}
    assert capsys.readouterr().out.startswith("Full-scale result:")
    assert figures.full_result("missing.json") is None
    assert "not available in this checkout" in capsys.readouterr().out
    with pytest.raises(ValueError, match="name"):
        figures.full_result("../e1.json")


def test_e1_figure_and_tables(committed):
    e1, v1 = committed["e1.json"]["data"], committed["e1-book-v1.json"]["data"]
    assert _closed(figures.plot_e1_curves(e1["runs"], len(e1["seeds"]))) == 4
    lines = figures.e1_final_lines(e1["runs"])
    assert len(lines) == 4 and lines[0].startswith("   MD p")
    # the fraction of data sets whose own SVM is the closest, recomputed
    own = np.asarray(e1["runs"]["2.0"]["curves"]["2.0"]["final"])
    others = [np.asarray(c["final"]) for q, c in e1["runs"]["2.0"]["curves"].items()]
    assert lines[2].endswith(f"{np.mean(np.all([own <= o for o in others], axis=0)):.2f}")
    cmp = {"authors": mdt.e1_conclusions(e1["runs"]), "book-v1": mdt.e1_conclusions(v1["runs"])}
    lines = figures.e1_comparison_lines(cmp)
    assert len(lines) == 7 and lines[1].split()[1] == "authors" and lines[2].split()[1] == "book-v1"


def test_single_run_figure(committed):
    fig, lines = figures.plot_e1_single(committed["e1-single.json"]["data"])
    assert _closed(fig) == 3 and len(lines) == 4
    angles = [float(line.rsplit("|", 1)[1]) for line in lines[1:]]
    assert all(0 <= a < 10 for a in angles), angles   # the path ends along its SVM direction


def test_implicit_bias_figure_on_a_short_run():
    cfg = {**mdt.e1_config("smoke"), "steps": {p: 20 for p in mdt.E1_PS}}
    # 6 panels and the colour bar
    assert _closed(figures.plot_implicit_bias(mdt.run_e1_seeds(cfg, (1,)))) == 7


def test_e2_figures(committed):
    e2 = committed["e2.json"]["data"]
    fig, lines = figures.plot_e2(e2)
    assert _closed(fig) == 4 and len(lines) == 3 and lines[0].startswith("p=1.75: alpha=")
    fig, lines = figures.plot_e2_joint(e2)
    assert _closed(fig) == 6 and len(lines) == 4
    # the softmax probability at the end
    assert all(float(line.split("|")[3].split(",")[0]) > 0.999 for line in lines[1:])


def test_rescaled_keeps_the_direction_and_takes_the_length():
    v = figures.rescaled([3.0, 4.0], [0.0, 10.0])
    assert np.allclose(v, [6.0, 8.0])


def test_standin_lines_and_histograms(committed):
    e3, e4 = committed["e3_standin.json"]["data"], committed["e4_standin.json"]["data"]
    lines = figures.standin_lines(e3, e4, "full")
    assert len(lines) == 8 and "n_train=1000, 600 full-batch steps" in lines[0]
    standin = {"e3_standin.json": e3, "e4_standin.json": e4}
    assert figures.has_histograms(standin)
    assert not figures.has_histograms({"e3_standin.json": e3})
    no_hist = {k: {} for k in ("md-1.1", "adam", "gd")}
    assert not figures.has_histograms({**standin, "e4_standin.json": no_hist})
    assert _closed(figures.plot_weight_histograms(e3, e4)) == 3
    fig, ax = plt.subplots()
    figures.stairs(ax, e3["1.1"]["hist_W"], "p = 1.1", "C0")
    assert ax.get_yscale() == "log" and ax.get_xlim() == (0.0, 1.0)
    plt.close(fig)
