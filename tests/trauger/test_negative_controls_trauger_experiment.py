"""Negative controls for the checks of Trauger & Tewari Sec. 6 (sparse-majority experiment).

Each test runs a registered check with a deliberately wrong rule, constant or data and
requires :class:`ClaimViolation`.
"""


import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.trauger.checks import sparse_majority as te
from attention_theory.trauger.sparse_majority import evaluation
from attention_theory.trauger.sparse_majority.training import SweepConfig, train_batched

TS = (20, 40, 60, 80, 100, 120, 140, 160, 180, 200)


def _runs(l1, gap, acc, seeds=5, noise=0.01):
    """Five runs per length: the given per-T curves times (1 +- noise) (deterministic jitter)."""
    rng = np.random.default_rng(0)
    return [{"T": T, "seed": s, "weight_l1": l1(T) * (1 + noise * rng.standard_normal()),
             "gen_gap": gap(T) * (1 + noise * rng.standard_normal()),
             "val_acc": acc(T) * (1 + noise * rng.standard_normal())}
            for T in TS for s in range(seeds)]


FLAT = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85)
SQRT_T_NORM = _runs(lambda T: 100.0 * math.sqrt(T / 20), lambda T: 0.2, lambda T: 0.85)
LOG_T_NORM = _runs(lambda T: 100.0 * math.log(T), lambda T: 0.2, lambda T: 0.85)
LOG_T_GAP = _runs(lambda T: 100.0, lambda T: 0.07 * math.log2(T), lambda T: 0.85)
FALLING_ACC = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.9 - 0.04 * math.log2(T / 20))
LOW_ACC = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.55)


@pytest.fixture(scope="module")
def tiny_run():
    cfg = SweepConfig(Ts=(10, 14), seeds=(0,), n_train=40, n_val=60, d=8, heads=2, batch_size=16,
                      max_epochs=6, eval_every=2, checkpoint_every=2, dtype="float64",
                      val_chunk=30, lr=1e-2)
    res = train_batched(cfg, progress=False)
    return cfg, res


def test_flat_fixture_passes(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    te.check_norm_no_increasing_trend(FLAT)
    te.check_gap_no_increasing_trend(FLAT)
    te.check_accuracy_plateau(FLAT)


def test_nc_label_rule_wrong_threshold():
    with negative_control("trauger-sec-6", "label-rule"):
        te.check_label_rule(threshold=1 / 3, Ts=(20,), seeds=(0,), n=200)


def test_nc_label_rule_wrong_index_set_size():
    with negative_control("trauger-sec-6", "label-rule"):
        te.check_label_rule(index_set_size=7, threshold=9 / 14, Ts=(20,), seeds=(0,), n=200)


def test_nc_forward_without_logit_scaling():
    with negative_control("trauger-sec-6", "forward-equals-mha"):
        te.check_forward_matches_mha(scale_power=0.0, d=16, weight_scales=(1.0,), Ts=(20,), n=3)


def test_nc_l1_record_without_biases(tiny_run):
    cfg, res = tiny_run
    te.check_l1_records(res["runs"], res["best_params"])  # the right variant passes
    with negative_control("trauger-fig-1", "l1-record"):
        te.check_l1_records(res["runs"], res["best_params"], include_biases=False)


def test_nc_gap_record_wrong_sign(tiny_run):
    cfg, res = tiny_run
    te.check_gap_records(res["runs"], cfg, res["best_params"])
    with negative_control("trauger-fig-2", "gap-record"):
        te.check_gap_records(res["runs"], cfg, res["best_params"], sign=-1.0)


def test_nc_accuracy_record_on_training_set(tiny_run):
    cfg, res = tiny_run
    te.check_accuracy_records(res["runs"], cfg, res["best_params"])
    with negative_control("trauger-fig-3", "accuracy-record"):
        te.check_accuracy_records(res["runs"], cfg, res["best_params"], split="train")


def test_nc_norm_trend_sqrt_t():
    with negative_control("trauger-fig-1", "no-increasing-trend"):
        te.check_norm_no_increasing_trend(SQRT_T_NORM)


def test_nc_norm_trend_log_t():
    with negative_control("trauger-fig-1", "no-increasing-trend"):
        te.check_norm_no_increasing_trend(LOG_T_NORM)


def test_nc_gap_trend_log_t():
    with negative_control("trauger-fig-2", "no-increasing-trend"):
        te.check_gap_no_increasing_trend(LOG_T_GAP)


def test_nc_plateau_falling_accuracy():
    with negative_control("trauger-fig-3", "plateau"):
        te.check_accuracy_plateau(FALLING_ACC)


def test_nc_plateau_near_chance():
    with negative_control("trauger-fig-3", "plateau"):
        te.check_accuracy_plateau(LOW_ACC)


def test_doubling_slope_recovers_a_known_slope():
    runs = _runs(lambda T: 1.0 + 0.3 * math.log2(T), lambda T: 0.2, lambda T: 0.85, noise=0.0)
    est = evaluation.doubling_slope(runs, "weight_l1")
    assert est.slope == pytest.approx(0.3) and est.low == pytest.approx(0.3) and est.high == pytest.approx(0.3)
    noisy = evaluation.doubling_slope(_runs(lambda T: 1.0, lambda T: 0.2, lambda T: 0.85, noise=0.2), "weight_l1")
    assert noisy.low < noisy.slope < noisy.high


def test_doubling_slope_rejects_bad_input():
    with pytest.raises(ValueError, match="3 lengths"):
        evaluation.doubling_slope(FLAT, "weight_l1", T_min=190)
    with pytest.raises(ValueError, match="2 runs per length"):
        evaluation.doubling_slope([r for r in FLAT if r["seed"] == 0], "weight_l1")
    with pytest.raises(ValueError, match="statistic"):
        evaluation.doubling_slope(FLAT, "weight_l1", statistic="median")




def test_equivalence_decision_reads_the_interval_against_the_margin():
    assert evaluation.equivalence_decision(-0.01, 0.015, 0.02) == "inside"
    assert evaluation.equivalence_decision(-0.02, 0.02, 0.02) == "inside"
    assert evaluation.equivalence_decision(-0.087, 0.025, 0.02) == "undecided"
    assert evaluation.equivalence_decision(-0.01, 0.03, 0.02) == "undecided"
    assert evaluation.equivalence_decision(-0.09, -0.03, 0.02) == "outside"
    assert evaluation.equivalence_decision(0.021, 0.05, 0.02) == "outside"
    with pytest.raises(ValueError, match="finite interval"):
        evaluation.equivalence_decision(0.1, -0.1, 0.02)
    with pytest.raises(ValueError, match="margin"):
        evaluation.equivalence_decision(-0.1, 0.1, 0.0)


def test_more_seeds_narrow_the_interval_and_decide():
    """Noisy seeds on a flat accuracy: the interval with 40 seeds per length is much narrower than
    with the first 5 (about 1/sqrt(8)), and a falling curve is decided 'outside' with enough seeds."""
    flat = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85, seeds=40, noise=0.03)
    few, many = evaluation.slopes_by_seed_count(flat, "val_acc", [5, 40], T_min=100, statistic="mean")
    assert many.n_draws == 240 and few.n_draws == 30
    assert many.high - many.low < 0.6 * (few.high - few.low)
    assert evaluation.equivalence_decision(many.low, many.high, 0.02) == "inside"
    falling = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.9 - 0.06 * math.log2(T / 20), seeds=10, noise=0.01)
    (est,) = evaluation.slopes_by_seed_count(falling, "val_acc", [10], T_min=100)
    assert evaluation.equivalence_decision(est.low, est.high, 0.02) == "outside"
    with pytest.raises(ValueError, match="counts"):
        evaluation.slopes_by_seed_count(flat, "val_acc", [41])


def test_figures_show_the_paper_seeds_beside_all_seeds():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attention_theory.trauger.sparse_majority import figures

    runs = _runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85, seeds=8, noise=0.05)
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
