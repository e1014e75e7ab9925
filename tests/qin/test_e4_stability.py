"""E4 (teacher-student stability) of Qin et al.: units of :mod:`attention_theory.qin.stability`
(the negative controls of its check are in ``test_nc_experiments.py``)."""

import math

import numpy as np
import pytest
import torch

from attention_theory.qin.checks import experiments as checks
from attention_theory.qin.stability import e4_instance, e4_runs, window_ratios

pytestmark = pytest.mark.usefixtures("float64_default")

TINY = dict(N=4, n_seq=2, d=6, dk=2, dv=6, m=8)


def test_teacher_student_shares_everything_but_the_residual():
    a, b = e4_instance(3, rho1=1, **TINY), e4_instance(3, rho1=0, **TINY)
    assert torch.equal(a.X, b.X) and torch.equal(a.Y, b.Y) and torch.equal(a.theta0, b.theta0)
    assert (a.cfg.rho1, b.cfg.rho1) == (1, 0)
    assert torch.allclose(a.X.norm(dim=1), torch.ones(4))


def test_batched_runs_match_one_seed_at_a_time():
    both = e4_runs(seeds=(0, 1), eta=0.05, variant="residual", steps=20, record=5, hessian_iters=5, **TINY)
    for s, r in zip((0, 1), both):
        inst = e4_instance(s, rho1=1, **TINY)
        theta, losses = inst.theta0, []
        for _ in range(21):
            losses.append(float(inst.loss(theta)))
            theta = theta - 0.05 * inst.grad(theta)
        assert r["step"] == [0, 5, 10, 15, 20]
        np.testing.assert_allclose(r["loss"], np.asarray(losses)[::5], rtol=1e-10)
        assert not r["diverged"] and r["final_loss"] == r["loss"][-1]
        assert r["sigma_N_Z0"] > 0 and r["lambda_max"] > 0


def test_divergence_is_detected_and_frozen():
    (r,) = e4_runs(seeds=(0,), eta=50.0, variant="residual", steps=30, record=1, hessian_iters=3, **TINY)
    assert r["diverged"] and r["diverge_step"] <= 30
    assert len(r["loss"]) == r["diverge_step"] and all(math.isfinite(v) for v in r["loss"])


def test_window_ratios():
    assert window_ratios([0, 10, 20, 30], [1.0, 0.5, 0.25, 0.1], window=20) == [0.25, 0.2]
    # stops at the rounding floor
    assert window_ratios([0, 1, 2], [1.0, 1e-3, 1e-30], window=1) == [1e-3]
    with pytest.raises(ValueError):
        window_ratios([0, 10, 20], [1.0, 0.5, 0.25], window=15)


def test_e4_check_holds_on_given_data():
    runs = e4_runs(seeds=(0,), eta=0.02, variant="residual", N=8, n_seq=2, d=12, dk=4, dv=12, m=24,
                   steps=300, record=10)
    config = {"record": 10, "seeds": [0], "N": 8, "n_seq": 2, "d": 12, "dk": 4, "dv": 12, "m": 24,
              "steps": 300}
    rec = checks.check_e4_linear_rate(data={"config": config, "runs": runs})
    assert rec.worst <= 1
