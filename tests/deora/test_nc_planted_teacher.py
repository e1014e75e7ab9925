"""Negative controls for the checks of ``book/deora/planted-teacher.md`` (Deora et al., App. G: the
planted teacher DM2, Figures 4 and 5)."""

import numpy as np

from _nc import negative_control
from attention_theory.deora.checks import planted_teacher as checks


def test_nc_dm2_margin_filter_larger_claimed_margin():
    with negative_control("deora-def-dm2", "margin-filter"):
        checks.check_dm2_margin_filter(claimed_margin=0.3, n=500, seeds=(0,))


def _toy_runs():
    """Hand-made logs in the layout of smoke_dm2_runs: H=4 trains faster than H=1."""
    steps = np.array([0, 100, 200])

    def run(scale):
        return {"step": steps, "train_loss": np.array([[0.7, 0.7], [0.1 * scale, 0.2 * scale],
                                                       [0.01 * scale, 0.02 * scale]])}

    return {"steps": 200, "Hs": (1, 4),
            "gd": {1: run(1.0), 4: run(0.5)},
            "momentum": {1: run(0.3), 4: run(0.1)},
            "adam": {1: run(0.4), 4: run(0.2)}}


def test_nc_fig4_reversed_ordering():
    checks.check_fig4_more_heads_lower_loss(runs=_toy_runs())
    with negative_control("deora-fig-4", "more-heads-lower-final-loss"):
        checks.check_fig4_more_heads_lower_loss(runs=_toy_runs(), larger_is_better=False)


def test_nc_fig5_gd_faster_than_momentum():
    checks.check_fig5_momentum_faster_than_gd(runs=_toy_runs())
    with negative_control("deora-fig-5", "momentum-faster-than-gd"):
        checks.check_fig5_momentum_faster_than_gd(runs=_toy_runs(), swap=True)


def test_nc_fig5_reversed_ordering():
    checks.check_fig5_more_heads_lower_loss(runs=_toy_runs())
    with negative_control("deora-fig-5", "more-heads-lower-final-loss"):
        checks.check_fig5_more_heads_lower_loss(runs=_toy_runs(), larger_is_better=False)


def test_evaluate_reports_and_records_failures(tmp_path, monkeypatch):
    from attention_theory.verify import evaluate, evaluate_only, load_registry

    monkeypatch.setenv("ATTN_REGISTRY_DIR", str(tmp_path))
    runs = _toy_runs()
    with evaluate_only():  # display only: nothing recorded
        ok, msg = evaluate(checks.check_fig4_more_heads_lower_loss, runs=runs)
    assert ok and "worst ratio" in msg and list(tmp_path.iterdir()) == []
    bad, why = evaluate(checks.check_fig4_more_heads_lower_loss, runs=runs, larger_is_better=False)
    assert not bad and "deora-fig-4" in why
    (rec,) = load_registry(tmp_path)  # a statement that fails is recorded as failing
    assert rec["status"] == "fails" and rec["claim_id"] == "deora-fig-4"


def _toy_dm2_full(align=0.99, margin=0.25):
    steps = np.array([0, 100, 500])

    def run(scale):
        return {"step": steps, "train_loss": np.array([[0.7, 0.7], [0.1 * scale] * 2, [0.01 * scale] * 2]),
                "align_W": np.array([[0, 0], [0.5, 0.5], [align, align]]),
                "align_U": np.array([[0, 0], [0.5, 0.5], [align, align]]),
                "margin_min": np.array([[0, 0], [0.1, 0.1], [margin, margin]])}

    return {"steps": 500, "Hs": (1, 4, 16),
            **{opt: {1: run(1.0), 4: run(0.5), 16: run(0.25)} for opt in ("gd", "momentum", "adam")}}


def test_dm2_full_checks_pass_on_toy():
    runs = _toy_dm2_full()
    checks.check_dm2_recovery(runs=runs)
    checks.check_dm2_margin(runs=runs)
    checks.check_fig4_loss_decreasing(runs=runs)


def test_nc_dm2_recovery_low_alignment():
    with negative_control("deora-fig-4", "full-scale-planted-model-recovered"):
        checks.check_dm2_recovery(runs=_toy_dm2_full(align=0.8))


def test_nc_dm2_margin_not_reached():
    with negative_control("deora-fig-4", "full-scale-margin-reached"):
        checks.check_dm2_margin(runs=_toy_dm2_full(margin=0.1))


def test_nc_fig4_loss_decreasing_reversed():
    with negative_control("deora-fig-4", "full-scale-loss-decreasing-in-heads"):
        checks.check_fig4_loss_decreasing(runs=_toy_dm2_full(), reverse=True)
