"""Negative controls for the checks of Trauger & Tewari Sec. 5 (word masking)."""

import numpy as np

from _nc import negative_control
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import word_masking
from attention_theory.trauger.checks import word_masking as c


def test_nc_ce_formula_hardmax():
    wrong = lambda x, y: np.max(x, axis=-1) - np.sum(y * x, axis=-1)  # noqa: E731  (log-sum-exp -> max)
    with negative_control("trauger-eq-5-1", "ce-formula"):
        c.check_masked_loss_formula(formula=wrong)


def test_nc_row_restriction_wrong_row():
    with negative_control("trauger-thm-5-1", "row-restriction"):
        c.check_row_restriction(row_shift=1)


def test_nc_reduction_app_c_orientation():
    with negative_control("trauger-thm-5-1", "reduction-to-cls"):
        c.check_reduction_to_cls(transpose=False)


def test_nc_maurer_tiny_bound():
    res = [word_masking.loss_class_mc(K=2, m=16, T=4, n_draws=3, steps=30, seed=1)]
    with negative_control("trauger-thm-5-1", "maurer-explicit"):
        c.check_maurer_explicit(results=res, bound_factor=1e-4)


def test_nc_ce_torch_labels_shifted():
    with negative_control("trauger-eq-5-1", "torch-agreement"):
        c.check_masked_loss_formula(torch_label_shift=1)


def test_nc_bound_flat_edelman_type():
    res = [word_masking.loss_class_mc(K=2, m=16, T=T, n_draws=3, steps=30, seed=1) for T in (4, 32)]
    c.check_bound_flat_in_t(results=res)  # the measured estimates pass
    # noqa: E731
    grows = lambda K, T: tb.thm51_maurer_bound(K, tb.edelman_type_bound(1.0, 1.0, 1.0, 64, 3, T))
    with negative_control("trauger-thm-5-1", "bound-flat-in-t"):
        c.check_bound_flat_in_t(results=res, quantity=grows)
