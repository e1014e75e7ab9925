"""Negative controls for the checks of Trauger & Tewari Sec. 6 (sparse-majority experiment).

Each test runs a registered check with a deliberately wrong rule, constant or data and
requires :class:`ClaimViolation`.
"""


import pytest

from _nc import negative_control
from attention_theory.trauger.checks import sparse_majority as te
from attention_theory.trauger.sparse_majority import evaluation
from attention_theory.trauger.sparse_majority.training import SweepConfig, train_batched
from attention_theory.verify import ClaimViolation

TS = (20, 40, 60, 80, 100, 120, 140, 160, 180, 200)


def _summary(l1, gap, acc):
    return {str(T): {"max_weight_l1": l1[i], "max_gen_gap": gap[i], "max_val_acc": acc[i]}
            for i, T in enumerate(TS)}


FLAT = _summary([100.0, 98, 103, 99, 101, 97, 102, 100, 99, 101],
                [0.2, 0.25, 0.18, 0.22, 0.21, 0.19, 0.24, 0.2, 0.23, 0.2],
                [0.9, 0.88, 0.86, 0.85, 0.84, 0.85, 0.84, 0.85, 0.84, 0.85])
RISING = _summary([10.0 * (i + 1) for i in range(10)], [0.05 * (i + 1) for i in range(10)],
                  [0.95 - 0.04 * i for i in range(10)])


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
    negative_control("trauger-sec-6", "label-rule")
    with pytest.raises(ClaimViolation):
        te.check_label_rule(threshold=1 / 3, Ts=(20,), seeds=(0,), n=200)


def test_nc_label_rule_wrong_index_set_size():
    with pytest.raises(ClaimViolation):
        te.check_label_rule(index_set_size=7, threshold=9 / 14, Ts=(20,), seeds=(0,), n=200)


def test_nc_forward_without_logit_scaling():
    negative_control("trauger-sec-6", "forward-equals-mha")
    with pytest.raises(ClaimViolation):
        te.check_forward_matches_mha(scale_power=0.0, d=16, weight_scales=(1.0,), Ts=(20,), n=3)


def test_nc_l1_record_without_biases(tiny_run):
    negative_control("trauger-fig-1", "l1-record")
    cfg, res = tiny_run
    te.check_l1_records(res["runs"], res["best_params"])  # the right variant passes
    with pytest.raises(ClaimViolation):
        te.check_l1_records(res["runs"], res["best_params"], include_biases=False)


def test_nc_gap_record_wrong_sign(tiny_run):
    negative_control("trauger-fig-2", "gap-record")
    cfg, res = tiny_run
    te.check_gap_records(res["runs"], cfg, res["best_params"])
    with pytest.raises(ClaimViolation):
        te.check_gap_records(res["runs"], cfg, res["best_params"], sign=-1.0)


def test_nc_accuracy_record_on_training_set(tiny_run):
    negative_control("trauger-fig-3", "accuracy-record")
    cfg, res = tiny_run
    te.check_accuracy_records(res["runs"], cfg, res["best_params"])
    with pytest.raises(ClaimViolation):
        te.check_accuracy_records(res["runs"], cfg, res["best_params"], split="train")


def test_nc_norm_trend_rising():
    negative_control("trauger-fig-1", "no-increasing-trend")
    with pytest.raises(ClaimViolation):
        te.check_norm_no_increasing_trend(RISING)


def test_nc_gap_trend_rising():
    negative_control("trauger-fig-2", "no-increasing-trend")
    with pytest.raises(ClaimViolation):
        te.check_gap_no_increasing_trend(RISING)


def test_nc_plateau_falling_accuracy():
    negative_control("trauger-fig-3", "plateau")
    with pytest.raises(ClaimViolation):
        te.check_accuracy_plateau(RISING)
    with pytest.raises(ClaimViolation):
        te.check_accuracy_plateau(FLAT, min_acc=0.95)


def test_trend_needs_three_lengths():
    with pytest.raises(ValueError):
        evaluation.kendall_trend({"20": {"x": 1.0}, "40": {"x": 2.0}}, "x")
