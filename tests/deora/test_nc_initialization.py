"""Negative controls for the good-initialization checks of Deora et al. (Chapter 6), and unit /
bad-input tests of the NTK-margin helpers and the Chapter-6 calculators in ``bounds.deora``."""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.deora import bounds as bd
from attention_theory.deora import initialization, stability
from attention_theory.deora.checks import initialization as checks

pytestmark = pytest.mark.usefixtures("float64_default")


def _mean_direction_solver(F, ys):
    Z = (ys[:, None] * F).numpy()
    w = Z.mean(0) / np.linalg.norm(Z.mean(0))
    g = float((Z @ w).min())
    return {"gamma_svm": g, "upper": g, "w": w, "separable": g > 0}


def test_nc_def1_suboptimal_solver():
    with negative_control("deora-def-1", "constants-helper"):
        checks.check_def1(solver=_mean_direction_solver)


def test_nc_def1_theta_star_not_normalized():

    def scaled(F, y):  # theta_star of norm 1.1 sqrt(2)
        s = dict(checks.ntk_margin(F, y))
        s["w"] = 1.1 * np.asarray(s["w"])
        return s

    with negative_control("deora-def-1", "constants-identities"):
        checks.check_def1(solver=scaled)


def test_nc_prop7_counterexample_not_confirmed_at_eps_1e_2():
    with negative_control("deora-prop-7",
                          "flin-counterexample"):  # at eps = 1e-2 the printed g0 still suffices (ratio 0.985)
        checks.check_prop7_counterexample(eps=1e-2)


def test_nc_prop7_closed_form_without_sqrt_T():
    with negative_control("deora-prop-7", "flin-closed-form"):  # l(radius) instead of l(radius sqrt T)
        checks.check_prop7_counterexample(T=2, closed_form=lambda r, T: math.log1p(math.exp(-r)))


def test_nc_prop7_random_points_outside_the_ball():
    with negative_control("deora-prop-7", "flin-closed-form-random"):  # points at 3 g0 do better
        checks.check_prop7_counterexample(random_radius=3.0)


def test_nc_prop7_instance_half_step():
    with negative_control("deora-prop-7", "certified-instance"):
        checks.check_prop7_instance(witness_scale=0.5)


def test_nc_prop7_witness_at_printed_distance():
    with negative_control("deora-prop-7", "witness-geometry"):  # distance g0 (printed) instead of sqrt 2 g0
        checks.check_prop7_instance(distance_factor=1.0)


def test_nc_cor2_head_constant_one():
    with negative_control("deora-cor-2", "formula-implication"):
        checks.check_cor2(head_const=1.0)


def test_nc_cor2_inherited_refuted_with_corrected_printed():
    corr = lambda T, d, R, B2, g0: 256 * np.sqrt(T * d) * R**3 * B2 * (  # noqa: E731
        3 * np.sqrt(d) * R**2 * (4 * math.sqrt(2) * g0 + B2) + 1) * 2 * g0**2
    with negative_control("deora-cor-2", "inherited-sqrt2"):
        checks.check_cor2_inherited(printed_heads=corr)


def test_nc_cor2_orders_with_huge_constant():
    with negative_control("deora-cor-2", "main-text-orders"):
        checks.check_cor2_orders(C=1e15)


# --- unit tests ----------------------------------------------------------------------


def test_ntk_margin_simple_geometry():
    F = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    r = checks.ntk_margin(F, torch.tensor([1.0, 1.0]))
    assert r["gamma_svm"] == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    assert np.allclose(r["w"], [1 / math.sqrt(2)] * 2)
    r = checks.ntk_margin(torch.tensor([[1.0], [1.0]]), torch.tensor([1.0, -1.0]))
    assert not r["separable"] and r["gamma_svm"] <= 0


def test_flin_constants():
    Xs, ys = initialization.flin_tokens(4, 3, 2, seed=0)
    gi = initialization.good_init_constants(torch.zeros(2 * 10), Xs, ys, 2)
    assert gi["gamma"] == pytest.approx(math.sqrt(6), rel=1e-9)
    assert gi["B2"] == 1.0 and gi["B_phi"] == 1.0
    assert float(torch.linalg.vector_norm(gi["theta_star"])) == pytest.approx(math.sqrt(2))
    assert initialization.flin_min_loss_within(0.0, 3) == pytest.approx(math.log(2))


def test_model_outputs_and_features_shapes():
    Xs, ys = stability.noisy_lin_tokens(3, 2, 2, seed=1)
    th = stability.init_heads(2, 2, 2, 0.5, 2)
    out = initialization.model_outputs(th, Xs, 2)
    assert out.shape == (3,)
    F = checks.ntk_features(th, Xs, 2)
    assert F.shape == (3, th.shape[0])


def test_cor2_calculators():
    g0 = bd.cor2_g0(100, 1.0, 2.0)
    assert g0 == pytest.approx((2 + math.log(100)) / 2)
    assert bd.cor2_g0(100, 1.0, 2.0, corrected=True) == pytest.approx(math.sqrt(2) * g0)
    b = bd.cor2_bounds(100, 50, 0.01, 1.0, 2.0)
    assert b["gap"] == pytest.approx(17 * g0**2 / 0.5)
    bc = bd.cor2_bounds(100, 50, 0.01, 1.0, 2.0, corrected=True)
    assert bc["gap"] == pytest.approx(34 * g0**2 / 0.5)
    rep = bd.cor2_report(2, 1, 1.0, 1.0, 1.0, 2.0, 100, 50)
    assert rep["H"] >= bd.cor2_heads(100, 2, 1, 1.0, 1.0, 1.0, 2.0) and rep["eta"] <= 1
    assert bd.prop7_heads(1e-3, 1, 1, 1.0, 1.0, 1.0, math.sqrt(2)) > 2e7


def test_bad_inputs_init():
    with pytest.raises(ValueError, match="ys"):
        checks.ntk_margin(torch.ones(2, 2), torch.tensor([1.0, 0.5]))
    with pytest.raises(ValueError, match="eps"):
        bd.prop7_g0(2.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="gamma"):
        bd.prop7_g0(0.1, 1.0, -1.0)
    with pytest.raises(TypeError, match="K"):
        bd.cor2_g0(1.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="theta"):
        initialization.model_outputs(torch.zeros(5), np.zeros((2, 2, 2)), 1)


def test_prop7_scan_rejects_bad_head_count():
    with pytest.raises(ValueError, match="H"):
        initialization.prop7_scan([0])
