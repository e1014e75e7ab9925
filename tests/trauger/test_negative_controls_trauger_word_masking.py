"""Negative controls for the checks of Trauger & Tewari Sec. 5 (word masking)."""

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import word_masking
from attention_theory.trauger.checks import word_masking as c
from attention_theory.verify import ClaimViolation


def test_nc_ce_formula_hardmax():
    negative_control("trauger-eq-5-1", "ce-formula")
    wrong = lambda x, y: np.max(x, axis=-1) - np.sum(y * x, axis=-1)  # noqa: E731  (log-sum-exp -> max)
    with pytest.raises(ClaimViolation):
        c.check_masked_loss_formula(formula=wrong)


def test_nc_row_restriction_wrong_row():
    negative_control("trauger-thm-5-1", "row-restriction")
    with pytest.raises(ClaimViolation):
        c.check_row_restriction(row_shift=1)


def test_nc_reduction_app_c_orientation():
    negative_control("trauger-thm-5-1", "reduction-to-cls")
    with pytest.raises(ClaimViolation):
        c.check_reduction_to_cls(transpose=False)


def test_nc_maurer_tiny_bound():
    negative_control("trauger-thm-5-1", "maurer-explicit")
    res = [word_masking.loss_class_mc(K=2, m=16, T=4, n_draws=3, steps=30, seed=1)]
    with pytest.raises(ClaimViolation):
        c.check_maurer_explicit(res, bound_factor=1e-4)


def test_nc_bound_flat_edelman_type():
    negative_control("trauger-thm-5-1", "bound-flat-in-t")
    with pytest.raises(ClaimViolation):
        c.check_bound_flat_in_t(scalar_bound=lambda T: tb.edelman_type_bound(1.0, 1.0, 1.0, 64, 3, T))
