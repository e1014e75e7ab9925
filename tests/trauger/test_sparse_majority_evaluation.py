"""Unit tests of the trend statistics behind the sparse-majority figure checks
(:mod:`attention_theory.trauger.sparse_majority.evaluation`): the change per doubling of ``T``,
its equivalence decision and its interval as seeds are added."""

import math

import pytest

from _synthetic_sweeps import synthetic_runs
from attention_theory.trauger.sparse_majority import evaluation

FLAT = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85)


def test_doubling_slope_recovers_a_known_slope():
    runs = synthetic_runs(lambda T: 1.0 + 0.3 * math.log2(T), lambda T: 0.2, lambda T: 0.85, noise=0.0)
    est = evaluation.doubling_slope(runs, "weight_l1")
    assert est.slope == pytest.approx(0.3) and est.low == pytest.approx(0.3)
    assert est.high == pytest.approx(0.3)
    noisy = evaluation.doubling_slope(synthetic_runs(lambda T: 1.0, lambda T: 0.2, lambda T: 0.85, noise=0.2),
                                      "weight_l1")
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
    flat = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85, seeds=40, noise=0.03)
    few, many = evaluation.slopes_by_seed_count(flat, "val_acc", [5, 40], T_min=100, statistic="mean")
    assert many.n_draws == 240 and few.n_draws == 30
    assert many.high - many.low < 0.6 * (few.high - few.low)
    assert evaluation.equivalence_decision(many.low, many.high, 0.02) == "inside"
    falling = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.9 - 0.06 * math.log2(T / 20),
                             seeds=10, noise=0.01)
    (est,) = evaluation.slopes_by_seed_count(falling, "val_acc", [10], T_min=100)
    assert evaluation.equivalence_decision(est.low, est.high, 0.02) == "outside"
    with pytest.raises(ValueError, match="counts"):
        evaluation.slopes_by_seed_count(flat, "val_acc", [41])
