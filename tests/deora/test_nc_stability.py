"""Negative controls for the stability checks of Deora et al. (Chapter 5), and unit / bad-input
tests of the leave-one-out machinery and of the Chapter-5 calculators in ``bounds.deora``."""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora import stability
from attention_theory.deora.checks import stability as checks
from attention_theory.foundations.gd import run_first_order

pytestmark = pytest.mark.usefixtures("float64_default")


# --- negative controls -------------------------------------------------------------


def test_nc_eq19_non_expansive_factor():
    with negative_control("deora-eq-19", "expansiveness"):  # factor 1 fails along negative curvature
        checks.check_eq19(factor=lambda eta, b3, b2, L, H: torch.ones(()), reps=1)


def test_nc_eq19_mechanism_shrunk():
    with negative_control("deora-eq-19", "expansiveness-mechanism"):  # attained along negative curvature
        checks.check_eq19(mechanism_scale=0.9, reps=1)


def test_nc_eq20_without_drift_term():
    with negative_control("deora-eq-20", "loo-recursion"):
        checks.check_eq20(drift_scale=0.0)


def test_nc_eq21_printed_parentheses_fail():
    with negative_control("deora-eq-21", "simplified-recursion"):
        checks.check_eq21(factor=checks._printed_21)


def test_nc_eq21_erratum_refuted_when_printed_is_correct():
    with negative_control("deora-eq-21", "printed-parentheses"):
        checks.check_eq21_parentheses(printed=checks._corrected_21)


def test_nc_eq22_without_drift_term():
    with negative_control("deora-eq-22", "alpha-recursion"):
        checks.check_eq22(drift_scale=0.0)


def test_nc_lemma11_trajectory_scaled_below_ratio():
    with negative_control("deora-lemma-11", "trajectory-intermediate"):
        checks.check_lemma11_trajectory(scale=0.01)


def test_nc_lemma11_erratum_refuted_with_corrected_form():
    with negative_control("deora-lemma-11", "eq87-and-eq89"):
        checks.check_lemma11_errata(printed_89=lambda eta, b3, H,
                                    ssum: 1 + 4 * eta * b3 * ssum / (3 * math.sqrt(H)))


def test_nc_lemma11_certified_scaled():
    with negative_control("deora-lemma-11", "certified"):
        checks.check_lemma11_certified(scale=0.01)


def test_nc_lemma11_iterates_radius_shrunk():
    with negative_control("deora-lemma-11", "certified-iterates"):
        checks.check_lemma11_certified(iterate_radius=0.01)


def test_nc_lemma3_lipschitz_constant_too_small():
    with negative_control("deora-lemma-3", "monte-carlo"):
        checks.check_lemma3(G_scale=0.0, z=0.0)


def test_nc_thm2_certified_scaled():
    with negative_control("deora-thm-2", "certified"):
        checks.check_thm2_certified(scale=1e-8, z=0.0)


def test_nc_thm2_rho_with_shrunk_a():
    with negative_control("deora-thm-2", "rho-dominates"):
        checks.check_thm2_rho(rho=lambda *a: 0.09 * stability.rho_vec(*a))


def test_nc_thm2_scalar_rho_with_one_over_H():
    with negative_control("deora-thm-2", "rho-calculator"):  # a calculator reading 1/H for 1/sqrt(H)
        checks.check_thm2_rho(scalar_rho=lambda D, B, T, d, R, H: bd.rho(D, B, T, d, R, H * H))


def test_nc_cor4_constant_16():
    with negative_control("deora-cor-4", "formula-implication"):
        checks.check_cor4(constant=16.0)


# --- unit tests ----------------------------------------------------------------------


def test_noisy_lin_tokens_bounded_and_flin_limit():
    Xs, ys = stability.noisy_lin_tokens(50, 4, 3, signal=0.3, R=2.0, seed=1)
    assert Xs.shape == (50, 4, 3) and np.linalg.norm(Xs, axis=2).max() <= 2.0 + 1e-12
    X1, y1 = stability.noisy_lin_tokens(5, 3, 2, signal=1.0, seed=2)
    assert np.allclose(X1, y1[:, None, None] * np.array([1.0, 0.0]))


def test_sample_losses_matches_empirical_risk():
    Xs, ys = stability.noisy_lin_tokens(7, 3, 2, seed=3)
    th = stability.init_heads(4, 3, 2, 0.7, 4)
    L = stability.sample_losses(th.unsqueeze(0), Xs, ys, 4)
    assert float(L.mean()) == pytest.approx(float(md.empirical_risk(th, Xs, ys, 4)), rel=1e-13)
    assert float(stability.norm_2inf_batch(th.unsqueeze(0), 4)[0]) == pytest.approx(0.7)


def test_stacked_loo_runs_equal_separate_runs():
    Xs, ys = stability.noisy_lin_tokens(5, 2, 2, seed=5)
    Xt, yt = torch.as_tensor(Xs), torch.as_tensor(ys)
    th0 = stability.init_heads(3, 2, 2, 0.5, 6)
    runs = stability.loo_runs(th0, Xs, ys, 3, eta=0.3, steps=15)
    for i in (0, 3):
        keep = torch.ones(5)
        keep[i] = 0.0
        loss = lambda th: (keep
                           * stability.sample_losses(th.unsqueeze(0), Xt, yt, 3)[0]).sum() / 5  # noqa: E731
        tr = run_first_order(loss, th0, steps=15, lr=0.3)
        assert torch.allclose(runs.final[i + 1], tr.final, atol=1e-13, rtol=0)
    full = run_first_order(lambda th: md.empirical_risk(th, Xt, yt, 3), th0, steps=15, lr=0.3)
    assert torch.allclose(runs.final[0], full.final, atol=1e-13, rtol=0)
    assert runs.stability() > 0


def test_bounds_calculators():
    tb = bd.tilde_betas(0.2, 0.1, 2, 1, 1.0, 4)
    assert tb["b"] == pytest.approx(0.7) and tb["beta1"] == pytest.approx(math.sqrt(2) * 2.4)
    H = bd.lemma11_heads(0.2, 0.1, 2, 1, 1.0)
    s = 256 * math.sqrt(2) * (3 * 0.7 + 1) * 0.04
    assert math.sqrt(H) >= s > math.sqrt(H - 1)
    assert bd.min_heads(3.0) == 9 and bd.min_heads(0.0) == 1 and bd.min_heads(2.5) == 7
    huge = bd.min_heads(1e16)  # head counts of 1e32 must not loop over float rounding steps
    assert abs(huge - 10**32) <= 10**17
    assert bd.thm2_rhs(10, 5, 0.1, 0.3, 0.01) == pytest.approx(0.4 * (1.0 + 9 * 0.09 / 0.04))
    assert bd.cor4_rhs(2.0, 0.5, 4) == pytest.approx(17 * 4 / 2)
    rho = bd.rho(0.3, 0.2, 2, 1, 1.0, 100)
    assert bd.thm2_max_step(0.3, 0.2, 2, 1, 1.0, 100, 5, 0.5,
                            0.7) == pytest.approx(min(1, 1 / rho, 0.09 / 2.5, 0.09 / 0.7))
    assert bd.lemma11_rhs(0.01, 10, 5, 0.1, 0.3, 0.2, 2, 1, 1.0) > 0


def test_bad_inputs():
    with pytest.raises(ValueError, match="signal"):
        stability.noisy_lin_tokens(3, 2, 2, signal=1.5)
    with pytest.raises(ValueError, match="label_noise"):
        stability.noisy_lin_tokens(3, 2, 2, label_noise=2.0)
    with pytest.raises(ValueError, match="thetas"):
        stability.sample_losses(torch.zeros(1, 7), np.zeros((2, 2, 2)), np.ones(2), 1)
    with pytest.raises(ValueError, match="eta"):
        stability.loo_runs(torch.zeros(8), np.zeros((2, 2, 2)), np.ones(2), 1, eta=-1.0, steps=2)
    with pytest.raises(ValueError, match="theta0"):
        stability.loo_runs(torch.zeros(5), np.zeros((2, 2, 2)), np.ones(2), 1, eta=0.1, steps=2)
    with pytest.raises(ValueError, match="D"):
        bd.tilde_betas(-1.0, 0.1, 2, 1, 1.0, 1)
    with pytest.raises(TypeError, match="K"):
        bd.thm2_rhs(10, 2.5, 0.1, 0.3, 0.01)
    with pytest.raises(ValueError, match="iterates"):
        stability.LOORuns(n=1, H=1, eta=0.1, final=torch.zeros(2, 3), losses=torch.zeros(1, 2),
                   iterates=None).stability(0)
