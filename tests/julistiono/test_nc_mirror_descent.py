"""Negative controls for the checks of ``book/julistiono/mirror-descent.md``
(:mod:`attention_theory.julistiono.checks.mirror_descent`; Julistiono, Tarzanagh & Azizan,
reconstructed statements).

Each test runs a registered check with a deliberately wrong variant (a swapped argument, a
flipped sign, a wrong constant) and requires :class:`ClaimViolation`.  Sizes are reduced (fewer
``p`` values or steps) so the whole file stays within the CI time budget; the variants are the
catalogue's.
"""

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.foundations.mirror import bregman, md_step
from attention_theory.julistiono import bregman_lemmas
from attention_theory.julistiono.checks import mirror_descent


@pytest.fixture
def few_p(monkeypatch):
    monkeypatch.setattr(mirror_descent, "P_ALL", (1.5, 3.0))


def test_nc_def1_arguments_swapped(few_p):
    with negative_control("julistiono-def-1", "closed-form"):
        mirror_descent.check_def1_closed_form(closed_form=lambda W, V, p: bregman(V, W, p))


def test_nc_def1_closed_form_negated(few_p):
    with negative_control("julistiono-def-1", "closed-form-nonnegative"):
        mirror_descent.check_def1_closed_form(closed_form=lambda W, V, p: -bregman(W, V, p))


def test_nc_def1_inverse_map_is_the_forward_map(few_p):
    with negative_control("julistiono-def-1", "mirror-map"):
        mirror_descent.check_def1_mirror_map(inverse=lambda U, p: np.sign(U) * np.abs(U) ** (p - 1))


def test_nc_def1_md_step_ascends(few_p):
    with negative_control("julistiono-def-1", "md-step-argmin"):
        mirror_descent.check_def1_md_step(step=lambda W, G, eta, p: md_step(W, -G, eta, p))


def test_nc_def1_md_step_minimises_swapped_divergence(few_p):
    with negative_control("julistiono-def-1", "md-step-numerical"):
        mirror_descent.check_def1_md_step(divergence=lambda V, W, p: bregman(W, V, p))


def test_nc_eq11_sign_flipped(few_p):
    with negative_control("julistiono-eq-11", "entrywise-term"):
        mirror_descent.check_eq11(phi=lambda w, v, p: np.abs(w) ** p / p - np.abs(v) ** p / p
                      + np.sign(v) * np.abs(v) ** (p - 1) * (w - v))


def test_nc_eq11_monotonicity_cases_exchanged(few_p):
    with negative_control("julistiono-eq-11", "entrywise-sign"):
        mirror_descent.check_eq11(increasing_for_p_at_least_2=False)


def test_nc_lemma12_exponent_inverted():
    with negative_control("julistiono-lemma-12", "norm-interval"):
        mirror_descent.check_lemma12(exponent=lambda p: 0.5 - 1.0 / p)


def test_nc_lemma13_L2_constant_times_1_1(monkeypatch):
    monkeypatch.setattr(mirror_descent, "P_ALL", (1.75,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        mirror_descent.check_lemma13(c_L2=lambda p: 1.1 * (p - 1) / 2)


def test_nc_lemma13_L2_outside_the_ball(monkeypatch):
    monkeypatch.setattr(mirror_descent, "P_ALL", (1.75,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        mirror_descent.check_lemma13(radius=11.0)


def test_nc_lemma13_L1_constant_times_10(monkeypatch):
    monkeypatch.setattr(mirror_descent, "P_ALL", (3.0,))
    with negative_control("julistiono-lemma-13", "bregman-dominates-norm"):
        mirror_descent.check_lemma13(c_L1=lambda p: 10.0 / (p * 2 ** p))


def test_nc_lemma14_x_and_y_exchanged(few_p):
    with negative_control("julistiono-lemma-14", "power-difference"):
        mirror_descent.check_lemma14(
            bounds=lambda x, y, p: (p * x ** (p - 1) * (x - y), p * y ** (p - 1) * (x - y)))


def test_nc_lemma15_cases_swapped(few_p):

    def swapped(x, y, p):  # the p >= 2 case used for p < 2 and vice versa
        big, small = (p - 1) * x ** (p - 2) * (x - y), (p - 1) * y ** (p - 2) * (x - y)
        return (big, small) if p >= 2 else (small, big)

    with negative_control("julistiono-lemma-15", "power-minus-one-difference"):
        mirror_descent.check_lemma15(bounds=swapped)


def test_nc_lemma26_sign_flipped(few_p):
    with negative_control("julistiono-lemma-26", "cosine-law"):
        mirror_descent.check_lemma26(sign=1.0)


def test_nc_eq22_sign_flipped(few_p, monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-22", "inner-product-identity"):
        mirror_descent.check_lemma22(sign=1.0)


def test_nc_lemma22_dual_norm_power(few_p, monkeypatch):
    # Hoelder with the wrong power: divide the growth term by ||W||^(p-1) instead of ||W||;
    # (22) itself stays right, so the wrong variant reaches the lemma's inequality
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-22", "norm-growth"):
        mirror_descent.check_lemma22(denominator_exponent=lambda p: p - 1)


def test_nc_lemma23_sign_flipped(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-23", "md-identities"):
        mirror_descent.check_lemma23(sign=-1.0)


def test_nc_eq23_sign_flipped(few_p, monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-23", "three-point-forms"):
        mirror_descent.check_lemma23(generic_sign=-1.0)


def test_nc_lemma24_step_too_large(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "one-step-descent"):
        mirror_descent.check_lemma24(require_relative_smoothness=False, etas=(500.0,))


def test_nc_eq24_coefficient_one_over_p(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-eq-24", "descent-identities"):
        mirror_descent.check_lemma24(etas=(0.3,), norm_coefficient=lambda p: 1.0 / p)


def test_nc_lemma24_smoothness_constant_too_small(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "smoothness-constant"):
        mirror_descent.check_lemma24(smoothness_factor=0.01)


def test_nc_lemma24_large_step_is_small(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-24", "large-step-breaks-descent"):
        mirror_descent.check_lemma24(large_eta=0.1)


def test_nc_lemma25_sign_flipped(monkeypatch):
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.75,))
    with negative_control("julistiono-lemma-25", "azizan-hassibi"):
        mirror_descent.check_lemma25(sign=-1.0)


def test_nc_lemma4_factor_dropped(monkeypatch):
    monkeypatch.setattr(mirror_descent, "P_ALL", (1.25,))
    monkeypatch.setattr(mirror_descent, "_traj_ps", lambda: (1.25,))
    with negative_control("julistiono-lemma-4", "norm-increment"):
        mirror_descent.check_lemma4(factor=lambda x, y, p: 1.0)


def test_lemma4_catalogue_form_fails_for_large_p():
    assert not bregman_lemmas.lemma4_catalogue_outcome().passed
