"""Negative controls for the checks of ``book/trauger/sparse-majority.md`` (Trauger & Tewari,
Sec. 6, the sparse-majority experiment; :mod:`attention_theory.trauger.checks.sparse_majority`).

Each test runs a registered check with a deliberately wrong rule, constant, embedding piece or
data and requires :class:`ClaimViolation`; the class-embedding controls each drop one piece of
the embedding behind the Cor. 4.1.1 panel.
"""

import math

import pytest

from _nc import negative_control
from _synthetic_sweeps import synthetic_runs
from attention_theory.trauger.checks import sparse_majority as checks
from attention_theory.trauger.sparse_majority import theory
from attention_theory.trauger.sparse_majority.training import SweepConfig, train_batched

FLAT = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.85)
SQRT_T_NORM = synthetic_runs(lambda T: 100.0 * math.sqrt(T / 20), lambda T: 0.2, lambda T: 0.85)
LOG_T_NORM = synthetic_runs(lambda T: 100.0 * math.log(T), lambda T: 0.2, lambda T: 0.85)
LOG_T_GAP = synthetic_runs(lambda T: 100.0, lambda T: 0.07 * math.log2(T), lambda T: 0.85)
FALLING_ACC = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.9 - 0.04 * math.log2(T / 20))
LOW_ACC = synthetic_runs(lambda T: 100.0, lambda T: 0.2, lambda T: 0.55)


@pytest.fixture(scope="module")
def tiny_run():
    cfg = SweepConfig(Ts=(10, 14), seeds=(0,), n_train=40, n_val=60, d=8, heads=2, batch_size=16,
                      max_epochs=6, eval_every=2, checkpoint_every=2, dtype="float64",
                      val_chunk=30, lr=1e-2)
    res = train_batched(cfg, progress=False)
    return cfg, res


def test_flat_fixture_passes(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    checks.check_norm_no_increasing_trend(runs=FLAT)
    checks.check_gap_no_increasing_trend(runs=FLAT)
    checks.check_accuracy_plateau(runs=FLAT)


def test_nc_label_rule_wrong_threshold():
    with negative_control("trauger-sec-6", "label-rule"):
        checks.check_label_rule(threshold=1 / 3, Ts=(20,), seeds=(0,), n=200)


def test_nc_label_rule_wrong_index_set_size():
    with negative_control("trauger-sec-6", "label-rule"):
        checks.check_label_rule(index_set_size=7, threshold=9 / 14, Ts=(20,), seeds=(0,), n=200)


def test_nc_forward_without_logit_scaling():
    with negative_control("trauger-sec-6", "forward-equals-mha"):
        checks.check_forward_matches_mha(scale_power=0.0, d=16, weight_scales=(1.0,), Ts=(20,), n=3)


def _without(key):
    """:func:`~attention_theory.trauger.sparse_majority.theory.class_parameters` with one piece
    of the class embedding dropped (or, for ``"sqrt-dk"``, the logit scale left out)."""
    def embed(flat, shape):
        p = theory.class_parameters(flat, shape)
        if key == "c":
            p["c"] = p["c"] * 0
        elif key == "query-bias":
            p["W_qk"][:, -1, :] = 0
        elif key == "value-bias":
            p["W_v"][:, -1, :] = 0
        elif key == "sqrt-dk":
            p["W_qk"] = p["W_qk"] * 8.0
        return p
    return embed


@pytest.mark.parametrize("key", ["c", "query-bias", "value-bias", "sqrt-dk"])
def test_class_embedding_without_a_piece_fails(key):
    with negative_control("trauger-sec-6", "authors-model-in-class"):
        checks.check_authors_model_in_class(embed=_without(key), Ts=(10,), weight_scales=(0.3,))


def test_class_embedding_holds():
    rec = checks.check_authors_model_in_class(Ts=(10,), weight_scales=(0.3,))
    assert rec.status == "verified"


def test_nc_l1_record_without_biases(tiny_run):
    cfg, res = tiny_run
    checks.check_l1_records(runs=res["runs"], best_params=res["best_params"])  # the right variant passes
    with negative_control("trauger-fig-1", "l1-record"):
        checks.check_l1_records(runs=res["runs"], best_params=res["best_params"], include_biases=False)


def test_nc_gap_record_wrong_sign(tiny_run):
    cfg, res = tiny_run
    checks.check_gap_records(runs=res["runs"], config=cfg, best_params=res["best_params"])
    with negative_control("trauger-fig-2", "gap-record"):
        checks.check_gap_records(runs=res["runs"], config=cfg, best_params=res["best_params"], sign=-1.0)


def test_nc_accuracy_record_on_training_set(tiny_run):
    cfg, res = tiny_run
    checks.check_accuracy_records(runs=res["runs"], config=cfg, best_params=res["best_params"])
    with negative_control("trauger-fig-3", "accuracy-record"):
        checks.check_accuracy_records(runs=res["runs"], config=cfg, best_params=res["best_params"],
                                      split="train")


def test_nc_norm_trend_sqrt_t():
    with negative_control("trauger-fig-1", "no-increasing-trend"):
        checks.check_norm_no_increasing_trend(runs=SQRT_T_NORM)


def test_nc_norm_trend_log_t():
    with negative_control("trauger-fig-1", "no-increasing-trend"):
        checks.check_norm_no_increasing_trend(runs=LOG_T_NORM)


def test_nc_gap_trend_log_t():
    with negative_control("trauger-fig-2", "no-increasing-trend"):
        checks.check_gap_no_increasing_trend(runs=LOG_T_GAP)


def test_nc_plateau_falling_accuracy():
    with negative_control("trauger-fig-3", "plateau"):
        checks.check_accuracy_plateau(runs=FALLING_ACC)


def test_nc_plateau_near_chance():
    with negative_control("trauger-fig-3", "plateau"):
        checks.check_accuracy_plateau(runs=LOW_ACC)
