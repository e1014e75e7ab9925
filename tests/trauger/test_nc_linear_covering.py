"""Negative controls for the checks of Trauger & Tewari Sec. 3 (linear covering numbers),
plus unit tests of :mod:`attention_theory.foundations.maurey`.

Each ``test_nc_*`` runs a registered check with a deliberately wrong constant,
formula or orientation and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.foundations import maurey as mu
from attention_theory.foundations.norms import mixed_norm
from attention_theory.trauger import linear_covering
from attention_theory.trauger.checks import linear_covering as tl


def _small_K(Bw, Bx, eps):
    return max(1, math.floor((Bw * Bx / eps) ** 2 / 4))


# --- Lemma 3.1 -------------------------------------------------------------

def test_nc_maurey_greedy_printed_gamma_squared():
    with negative_control("trauger-lemma-3-1", "greedy-constructive"):
        tl.check_maurey_greedy(gamma_power=2.0)


def test_nc_maurey_printed_gamma_not_an_erratum_if_printed_is_gamma():
    with negative_control("trauger-lemma-3-1", "printed-gamma-squared", match="NOT confirmed"):
        tl.check_maurey_printed_gamma(printed_gamma_power=1.0)


def test_nc_maurey_tightness_half_rhs():
    with negative_control("trauger-lemma-3-1", "best-integer-tightness"):
        tl.check_maurey_tightness(rhs_factor=0.5)


# --- Eq. 3.1 ---------------------------------------------------------------

def test_nc_index_count_d_power_k():
    with negative_control("trauger-eq-3-1", "index-count"):
        tl.check_index_count(formula=lambda d, K: d ** K)


def test_nc_index_count_printed_replaced_by_true_bound():
    with negative_control("trauger-eq-3-1", "printed-d-power-k", match="NOT confirmed"):
        tl.check_index_count_printed(printed=lambda d, K: (d + 1) ** K)


# --- Lemma 3.2 / App. B ----------------------------------------------------

def test_nc_reduction_pointwise_shrunken_basis():
    with negative_control("trauger-lemma-3-2", "pointwise-core"):
        tl.check_reduction_pointwise(basis_scale=0.9)


def test_nc_reduction_exact_covers_shrunken_basis():
    with negative_control("trauger-lemma-3-2", "exact-covering-numbers"):
        tl.check_reduction_exact_covers(basis_scale=0.3)


def test_nc_reduction_q_one_is_not_a_gap():
    with negative_control("trauger-lemma-3-2", "q-below-one-gap", match="NOT confirmed"):
        tl.check_reduction_q_below_one(q_small=1.0)


def test_nc_app_b_chain_rows():
    with negative_control("trauger-app-b", "triangle-chain"):
        tl.check_app_b_chain(column_reading=False)


def test_nc_app_b_padding_with_stretched_points():
    with negative_control("trauger-app-b", "padded-basis"):
        tl.check_app_b_padded_basis(pad_scale=2.0)


def test_nc_app_b_column_notation_printed_as_columns():
    with negative_control("trauger-app-b", "column-notation", match="NOT confirmed"):
        tl.check_app_b_column_notation(printed_axis=0)


# --- Lemma 3.3 -------------------------------------------------------------

def test_nc_l33_greedy_cover_too_few_steps():
    with negative_control("trauger-lemma-3-3", "greedy-cover"):
        tl.check_l33_greedy_cover(K_rule=_small_K)


def test_nc_l33_explicit_cover_one_step():
    with negative_control("trauger-lemma-3-3", "explicit-cover"):
        tl.check_l33_explicit_cover(K_rule=lambda Bw, Bx, eps: 1)


def test_nc_l33_size_without_ceiling():
    with negative_control("trauger-lemma-3-3", "size-vs-bound"):
        tl.check_l33_size(bound=mu.log_cover_bound_lemma33)


def test_nc_l33_packing_rhs_too_small():
    with negative_control("trauger-lemma-3-3", "packing-lower-bound"):
        tl.check_l33_packing(rhs=lambda *a: mu.log_cover_bound_lemma33(*a) / 10)


def test_nc_l33_row_reading_with_inflated_rhs():
    with negative_control("trauger-lemma-3-3", "row-reading-control"):
        tl.check_l33_row_reading(rhs_factor=100.0)


def test_nc_l33_ceiling_in_printed():
    with negative_control("trauger-lemma-3-3", "missing-ceiling", match="NOT confirmed"):
        tl.check_l33_ceiling(printed_ceiling=True)


# --- Lemmas 3.4, 3.5 -------------------------------------------------------

def test_nc_l34_huge_hidden_constant():
    with negative_control("trauger-lemma-3-4", "column-reading-counterexample", match="NOT confirmed"):
        tl.check_l34_column_reading(hidden_constant=1e12)


def test_nc_l34_row_reading_one_step():
    with negative_control("trauger-lemma-3-4", "row-reading-via-lemma-3-3"):
        tl.check_l34_row_reading(K_rule=lambda Bw, Bx, eps: 1)


def test_nc_l35_with_output_dimension_in_log():
    with negative_control("trauger-lemma-3-5", "restated-log-dn", match="NOT confirmed"):
        tl.check_l35_restatement(printed_log_arg=lambda d, n, k: 2 * k * n + 1)


# --- Lemma 3.6 -------------------------------------------------------------

def test_nc_l36_greedy_cover_too_few_steps():
    with negative_control("trauger-lemma-3-6", "greedy-cover"):
        tl.check_l36_greedy_cover(K_rule=_small_K)


def test_nc_l36_size_without_ceiling():
    with negative_control("trauger-lemma-3-6", "size-vs-bound"):
        tl.check_l36_size(bound=mu.log_cover_bound_lemma36)


def test_nc_l36_packing_rhs_too_small():
    with negative_control("trauger-lemma-3-6", "packing-lower-bound"):
        tl.check_l36_packing(rhs=lambda *a: mu.log_cover_bound_lemma36(*a) / 10)


def test_nc_l36_transpose_with_21_norm():
    with negative_control("trauger-lemma-3-6", "transpose-invariance"):
        tl.check_l36_transpose(norm=lambda W: mixed_norm(W, 2, 1))


def test_nc_l36_ceiling_in_printed():
    with negative_control("trauger-lemma-3-6", "missing-ceiling", match="NOT confirmed"):
        tl.check_l36_ceiling(printed_ceiling=True)


# --- Sec. 3.4, App. A ------------------------------------------------------

def test_nc_sec34_half_d():
    with negative_control("trauger-sec-3-4", "p1-le-d-pinf"):
        tl.check_sec34_norm_comparison(factor=lambda d: d / 2)


def test_nc_app_a_without_k_power():
    with negative_control("trauger-app-a", "row-cover"):
        tl.check_app_a_row_cover(radius_factor=lambda k, q: 1.0)


def test_nc_app_a_printed_with_abs():
    with negative_control("trauger-app-a", "abs-power", match="NOT confirmed"):
        tl.check_app_a_abs_power(printed=lambda v, q: float(np.sum(np.abs(v) ** q)))


# --- unit tests of attention_theory.foundations.maurey --------------------------------

def test_greedy_maurey_counterexample_and_bound():
    approx, counts = mu.greedy_maurey(np.array([0.5]), np.array([[1.0]]), 1)
    assert counts.sum() <= 1 and (0.5 - approx[0]) ** 2 == pytest.approx(0.25)
    rng = np.random.default_rng(0)
    V = rng.standard_normal((6, 4))
    a = rng.dirichlet(np.ones(6)) * 0.8
    f = a @ V
    b = float(np.linalg.norm(V, axis=1).max())
    for K in (1, 5, 30):
        approx, counts = mu.greedy_maurey(f, V, K)
        assert counts.sum() <= K
        assert np.allclose(approx, counts @ V / K)
        assert np.sum((f - approx) ** 2) <= mu.maurey_rhs(0.8, b, float(np.linalg.norm(f)), K) + 1e-12


def test_counts_and_log_binomial():
    assert mu.count_index_vectors(2, 1) == 3
    assert mu.count_index_vectors(2, 1, exact_sum=True) == 2
    assert mu.enumerate_index_vectors(3, 4).shape[0] == math.comb(7, 4)
    assert mu.log_binomial(10, 3) == pytest.approx(math.log(120))


def test_maurey_K_and_bounds():
    assert mu.maurey_K(1.0, 1.0, 0.5) == 4
    assert mu.maurey_K(1.0, 1.0, 0.6) == 3
    assert mu.log_cover_bound_lemma33(2, 3, 1.0, 1.0, 0.5) == pytest.approx(8 * math.log(7))
    assert mu.log_cover_bound_lemma36(2, 3, 1.0, 1.0, 0.6, ceiling=True) == pytest.approx(3 * math.log(13))
    assert mu.log_cover_size_lemma33(2, 3, 1.0, 1.0, 0.5) == pytest.approx(2 * math.log(math.comb(10, 4)))
    assert mu.log_cover_bound_lemma34(2, 3, 1.0, 1.0, 0.5, constant=2.0) == pytest.approx(8 * math.log(6))
    assert mu.log_l2_ball_volume(2, 1.0) == pytest.approx(math.log(math.pi))


def test_covers_are_internal_and_close():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((4, 3))
    W = W / np.abs(W).sum(0, keepdims=True)
    What = mu.cover_columns_l1(W, 1.0, 1.0, 0.4)
    assert np.abs(What).sum(0).max() <= 1 + 1e-12
    assert np.linalg.norm(W - What, axis=0).max() < 0.4
    W2 = W / np.abs(W).sum()
    What2 = mu.cover_flat_l1(W2, 1.0, 2.0, 0.5)
    assert 2.0 * np.linalg.norm(W2 - What2, 2) < 0.5
    rows = mu.cover_rows(W, lambda w: np.zeros_like(w))
    assert rows.shape == W.shape and not rows.any()
    pts = mu.maurey_cover_points(2, 1.0, 2)
    assert pts.shape[0] <= math.comb(6, 2)


def test_bad_input_K_zero():
    with pytest.raises(ValueError, match="K"):
        mu.greedy_maurey(np.ones(2), np.eye(2), 0)


def test_bad_input_atoms_shape():
    with pytest.raises(ValueError, match="atoms"):
        mu.greedy_maurey(np.ones(3), np.eye(2), 2)


def test_bad_input_eps_negative():
    with pytest.raises(ValueError, match="eps"):
        mu.log_cover_bound_lemma33(2, 3, 1.0, 1.0, -0.1)


def test_bad_input_K_type():
    with pytest.raises(TypeError, match="K"):
        mu.count_index_vectors(3, 2.5)


def test_bad_input_outside_class():
    with pytest.raises(ValueError, match="W"):
        mu.cover_columns_l1(np.full((3, 2), 1.0), 1.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="gamma"):
        mu.maurey_rhs(1.5, 1.0, 0.0, 1)
    with pytest.raises(TypeError, match="scalar_cover"):
        mu.cover_rows(np.eye(2), "not callable")


# --- parts: each control breaks only the named part -------------------------

def test_nc_maurey_greedy_step_budget_one_short():
    with negative_control("trauger-lemma-3-1", "greedy-integer-form"):
        tl.check_maurey_greedy(step_budget=lambda K: K - 1)


def test_nc_index_count_upper_d_power_k():
    with negative_control("trauger-eq-3-1", "index-count-upper"):
        tl.check_index_count(upper_formula=lambda d, K: d ** K)


def test_nc_exact_sum_one_power_short():
    with negative_control("trauger-eq-3-1", "exact-sum-le-d-power-k"):
        tl.check_index_count_printed(exact_bound=lambda d, K: d ** (K - 1))


def test_nc_reduction_dominated_by_shrunken_basis():
    with negative_control("trauger-lemma-3-2", "exact-covering-numbers-dominated"):
        tl.check_reduction_exact_covers(dominated_basis_scale=0.3)


def test_nc_l33_cover_outside_half_class():
    with negative_control("trauger-lemma-3-3", "greedy-cover-internal"):
        tl.check_l33_greedy_cover(class_radius_factor=0.5)


def test_nc_l33_explicit_cover_size_halved():
    with negative_control("trauger-lemma-3-3", "explicit-cover-size"):
        tl.check_l33_explicit_cover(size_bound=lambda n, K: mu.count_index_vectors(n, K) / 2)


def test_nc_l33_packing_distance_two():
    with negative_control("trauger-lemma-3-3", "packing-distance"):
        tl.check_l33_packing(packing_distance=2.0)


def test_nc_l34_containment_column_norm():
    with negative_control("trauger-lemma-3-4", "row-reading-containment"):
        tl.check_l34_row_reading(outer_norm=lambda W: mixed_norm(W, 2, math.inf))


def test_nc_l34_packing_distance_doubled():
    with negative_control("trauger-lemma-3-4", "packing-kappa-distances"):
        tl.check_l34_packing_kappa(packing_distance=lambda s, d: 2 * math.sqrt(2) / (s * math.sqrt(d)))


def test_nc_l36_frobenius_one_more_step():
    with negative_control("trauger-lemma-3-6", "greedy-cover-frobenius"):
        tl.check_l36_greedy_cover(frobenius_K_offset=3)


def test_nc_l36_enumerated_cover_size_halved():
    with negative_control("trauger-lemma-3-6", "enumerated-cover-size"):
        tl.check_l36_explicit_cover(size_bound=lambda n, K: mu.count_index_vectors(n, K) / 2)


def test_nc_l36_packing_distance_one_and_a_half():
    with negative_control("trauger-lemma-3-6", "packing-distance"):
        tl.check_l36_packing(packing_distance=1.5)


# --- Lemma 3.4 packing table, Lemma 3.6 enumerated cover (formerly a separate file) ---

def test_nc_l34_packing_log_d_only():
    with negative_control("trauger-lemma-3-4", "packing-kappa"):
        tl.check_l34_packing_kappa(rhs=lambda d, k, Bw, Bx, eps: (Bw * Bx / eps) ** 2 * math.log(d))


def test_nc_l36_enumerated_cover_one_step():
    with negative_control("trauger-lemma-3-6", "enumerated-cover"):
        tl.check_l36_explicit_cover(K_rule=lambda Bw, Bx, eps: 1)


def test_l34_packing_family_shape_and_norm():
    P = linear_covering.l34_packing_family(3, 2, 2)
    assert P.shape == (3 * 2 ** 4, 3, 2)
    assert np.allclose(np.linalg.norm(P, axis=2).sum(axis=1), 1.0)
