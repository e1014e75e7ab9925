"""Negative controls for the checks of Julistiono, Tarzanagh & Azizan (reconstructed statements).

Each test runs a registered check with a deliberately wrong variant (a swapped argument, a
flipped sign, a wrong constant, a non-locally-optimal token selection, the naive softmax backward)
and requires :class:`ClaimViolation`.  Sizes are reduced (fewer ``p`` values, seeds or steps) so
the whole file stays within the CI time budget; the variants are the catalogue's.
"""

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.foundations.mirror import bregman, md_step
from attention_theory.julistiono import bregman_lemmas
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.checks import attention as ja
from attention_theory.julistiono.checks import bregman as jb
from attention_theory.verify import ClaimViolation


@pytest.fixture
def few_p(monkeypatch):
    monkeypatch.setattr(jb, "P_ALL", (1.5, 3.0))


def test_nc_def1_arguments_swapped(few_p):
    negative_control("julistiono-def-1", "closed-form")
    with pytest.raises(ClaimViolation):
        jb.check_def1_closed_form(closed_form=lambda W, V, p: bregman(V, W, p))


def test_nc_def1_inverse_map_is_the_forward_map(few_p):
    negative_control("julistiono-def-1", "mirror-map")
    with pytest.raises(ClaimViolation):
        jb.check_def1_mirror_map(inverse=lambda U, p: np.sign(U) * np.abs(U) ** (p - 1))


def test_nc_def1_md_step_ascends(few_p):
    negative_control("julistiono-def-1", "md-step-argmin")
    with pytest.raises(ClaimViolation):
        jb.check_def1_md_step(step=lambda W, G, eta, p: md_step(W, -G, eta, p))


def test_nc_eq11_sign_flipped(few_p):
    negative_control("julistiono-eq-11", "entrywise-term")
    with pytest.raises(ClaimViolation):
        jb.check_eq11(phi=lambda w, v, p: np.abs(w) ** p / p - np.abs(v) ** p / p
                      + np.sign(v) * np.abs(v) ** (p - 1) * (w - v))


def test_nc_lemma12_exponent_inverted():
    negative_control("julistiono-lemma-12", "norm-interval")
    with pytest.raises(ClaimViolation):
        jb.check_lemma12(exponent=lambda p: 0.5 - 1.0 / p)


def test_nc_lemma13_L2_constant_times_1_1(monkeypatch):
    negative_control("julistiono-lemma-13", "bregman-dominates-norm")
    monkeypatch.setattr(jb, "P_ALL", (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma13(c_L2=lambda p: 1.1 * (p - 1) / 2)


def test_nc_lemma13_L2_outside_the_ball(monkeypatch):
    negative_control("julistiono-lemma-13", "bregman-dominates-norm")
    monkeypatch.setattr(jb, "P_ALL", (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma13(radius=11.0)


def test_nc_lemma13_L1_constant_times_10(monkeypatch):
    negative_control("julistiono-lemma-13", "bregman-dominates-norm")
    monkeypatch.setattr(jb, "P_ALL", (3.0,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma13(c_L1=lambda p: 10.0 / (p * 2 ** p))


def test_nc_lemma14_x_and_y_exchanged(few_p):
    negative_control("julistiono-lemma-14", "power-difference")
    with pytest.raises(ClaimViolation):
        jb.check_lemma14(bounds=lambda x, y, p: (p * x ** (p - 1) * (x - y), p * y ** (p - 1) * (x - y)))


def test_nc_lemma15_cases_swapped(few_p):
    negative_control("julistiono-lemma-15", "power-minus-one-difference")

    def swapped(x, y, p):  # the p >= 2 case used for p < 2 and vice versa
        big, small = (p - 1) * x ** (p - 2) * (x - y), (p - 1) * y ** (p - 2) * (x - y)
        return (big, small) if p >= 2 else (small, big)

    with pytest.raises(ClaimViolation):
        jb.check_lemma15(bounds=swapped)


def test_nc_lemma26_sign_flipped(few_p):
    negative_control("julistiono-lemma-26", "cosine-law")
    with pytest.raises(ClaimViolation):
        jb.check_lemma26(sign=1.0)


def test_nc_lemma22_sign_flipped(few_p, monkeypatch):
    negative_control("julistiono-lemma-22", "norm-growth")
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma22(sign=1.0)


def test_nc_lemma23_sign_flipped(monkeypatch):
    negative_control("julistiono-lemma-23", "md-identities")
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma23(sign=-1.0)


def test_nc_lemma24_step_too_large(monkeypatch):
    negative_control("julistiono-lemma-24", "one-step-descent")
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma24(require_relative_smoothness=False, etas=(500.0,))


def test_nc_lemma25_sign_flipped(monkeypatch):
    negative_control("julistiono-lemma-25", "azizan-hassibi")
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.75,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma25(sign=-1.0)


def test_nc_lemma4_factor_dropped(monkeypatch):
    negative_control("julistiono-lemma-4", "norm-increment")
    monkeypatch.setattr(jb, "P_ALL", (1.25,))
    monkeypatch.setattr(jb, "_traj_ps", lambda: (1.25,))
    with pytest.raises(ClaimViolation):
        jb.check_lemma4(factor=lambda x, y, p: 1.0)


def test_lemma4_catalogue_form_fails_for_large_p():
    assert not bregman_lemmas.lemma4_catalogue_outcome().passed


def test_nc_assumption_A_increasing_loss():
    negative_control("julistiono-assum-a", "loss-properties")
    with pytest.raises(ClaimViolation):
        ja.check_assumption_A(losses={"exp-up": (np.exp, np.exp)})


def test_nc_def3_kkt_with_nonsupport_rows(monkeypatch):
    negative_control("julistiono-def-3", "support-kkt")
    with pytest.raises(ClaimViolation):
        ja.check_def3(kkt_rows="nonsupport", p=2.0)


def test_nc_lemma16_max_and_min_exchanged():
    negative_control("julistiono-lemma-16", "objective-bounds")
    with pytest.raises(ClaimViolation):
        ja.check_lemma16(lower_fn=np.min, upper_fn=np.max)


def test_nc_lemma17_transposed_gradient():
    negative_control("julistiono-lemma-17", "gradient-formula")
    with pytest.raises(ClaimViolation):
        ja.check_lemma17(grad_fn=lambda W, X, z, Y, v, loss: mj.gradient_W(W, X, z, Y, v, loss=loss).T)


def test_nc_lemma17_jacobian_without_outer_term():
    negative_control("julistiono-lemma-17", "gradient-formula")

    def no_outer(W, X, z, Y, v, loss):
        g = mj.scores(X, Y, v)
        s = mj.attention(X, z, W)
        u = np.sum(s * g, axis=-1)
        lp = mj.loss_derivative(u, loss)
        return np.einsum("n,ntd,nt,ne->de", lp, X, s * g, z) / X.shape[0]

    with pytest.raises(ClaimViolation):
        ja.check_lemma17(grad_fn=no_outer)


def test_nc_lemma18_bound_times_0_1():
    negative_control("julistiono-lemma-18", "gradient-bound")
    with pytest.raises(ClaimViolation):
        ja.check_lemma18(scale=0.1)


def test_nc_lemma19_radius_100_mu0():
    negative_control("julistiono-lemma-19", "cone-margins")
    with pytest.raises(ClaimViolation):
        ja.check_lemma19(mu_factor=100.0, ps=(2.0,))


def test_nc_lemma20_not_locally_optimal():
    negative_control("julistiono-lemma-20", "positive-correlation")
    with pytest.raises(ClaimViolation):
        ja.check_lemma20(alpha_rule="worst", p=2.0)


def test_nc_lemma21_not_locally_optimal():
    negative_control("julistiono-lemma-21", "svm-direction-beats-current")
    with pytest.raises(ClaimViolation):
        ja.check_lemma21(alpha_rule="worst", p=2.0, eps_list=(0.2,))


def test_nc_lemma27_not_locally_optimal():
    negative_control("julistiono-lemma-27", "per-step-progress")
    with pytest.raises(ClaimViolation):
        ja.check_lemma27(alpha_rule="worst", ps=(2.0,))


def test_nc_lemma28_start_outside_the_cone():
    negative_control("julistiono-lemma-28", "cone-invariance")
    with pytest.raises(ClaimViolation):
        ja.check_lemma28(alpha_rule="global", init="random", ps=(2.0,))


def test_nc_lemma30_sqrt_growth():
    negative_control("julistiono-lemma-30", "log-norm-growth")
    with pytest.raises(ClaimViolation):
        ja.check_lemma30(growth=np.sqrt, ps=(2.0,))


def test_nc_fig4_naive_softmax_backward():
    negative_control("julistiono-fig-4", "own-svm-closest")
    with pytest.raises(ClaimViolation):
        ja.check_fig4(stable=False, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_fig4_svm_with_another_q():
    negative_control("julistiono-fig-4", "own-svm-closest")
    with pytest.raises(ClaimViolation):
        ja.check_fig4(q_for_svm=lambda p: 3.0, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_lemma29_naive_softmax_backward():
    negative_control("julistiono-lemma-29", "directional-convergence")
    with pytest.raises(ClaimViolation):
        ja.check_lemma29(stable=False, ps=(1.75,), seeds=(1, 2, 3))
