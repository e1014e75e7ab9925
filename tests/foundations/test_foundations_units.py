"""Unit tests of the Foundations modules (values known in closed form)."""

import math

import numpy as np
import pytest

from attention_theory.foundations import covering, dudley, losses, norms, rademacher, softmax


def test_norm_orientation_example():
    W = np.zeros((5, 3))
    W[:, 0] = 1.0
    assert norms.mixed_norm(W, 1, np.inf) == 5.0
    assert norms.mixed_norm(W.T, 1, np.inf) == 1.0
    assert norms.operator_norm(W, 2, 2) == math.sqrt(5)


def test_dual_exponent():
    assert norms.dual_exponent(1) == math.inf
    assert norms.dual_exponent(np.inf) == 1.0
    assert norms.dual_exponent(2) == 2.0
    assert abs(norms.dual_exponent(3) - 1.5) < 1e-15


def test_operator_norm_inf_to_one_by_duality():
    W = np.array([[1.0, -2.0], [3.0, 4.0]])
    # sup over sign vectors x of ||W x||_1 = max(|1-2|+|3+4|, |1+2|+|3-4|) = 8
    assert norms.operator_norm(W, np.inf, 1) == 8.0
    assert norms.operator_norm(W.T, np.inf, 1) == 8.0


def test_softmax_is_stable_and_sums_to_one():
    s = softmax.softmax(np.array([1000.0, 1000.0, -1000.0]))
    assert np.allclose(s, [0.5, 0.5, 0.0])
    J = softmax.softmax_jacobian(np.zeros(4))
    assert np.allclose(J @ np.ones(4), 0)
    assert np.allclose(J, J.T)


def test_losses_known_values():
    assert abs(losses.logistic_loss(np.array(0.0)) - math.log(2)) < 1e-15
    assert abs(losses.logistic_loss_d2(np.array(0.0)) - 0.25) < 1e-15
    assert np.isfinite(losses.logistic_loss(np.array(-1000.0)))
    x = np.array([[0.0, 0.0]])
    assert np.allclose(losses.cross_entropy(x, np.array([1])), math.log(2))
    assert np.allclose(losses.cross_entropy_grad(x, np.array([1])), [[0.5, -0.5]])


def test_rademacher_of_singleton_is_zero_and_of_pm_pair():
    assert rademacher.rademacher_exact(np.ones((1, 6))) == 0.0
    # {+1, -1} constant functions: E max(sum sigma, -sum sigma)/n = E|sum sigma|/n
    n = 4
    F = np.vstack([np.ones(n), -np.ones(n)])
    exact = np.mean([abs(sum(s)) for s in np.array(np.meshgrid(*[[-1, 1]] * n)).reshape(n, -1).T]) / n
    assert abs(rademacher.rademacher_exact(F) - exact) < 1e-15


def test_covering_number_of_points_on_a_line():
    F = np.arange(5.0)[:, None]  # functions with values 0..4 at one point
    assert covering.covering_number(F, 0.5) == 5
    assert covering.covering_number(F, 1.5) == 2  # centres 1 and 3 (strict: distance 1 < 1.5)
    assert covering.covering_number(F, 10.0) == 1
    big = np.arange(20.0)[:, None]  # uses the integer-program path
    assert covering.covering_number(big, 1.5) == 7


def test_dudley_single_function_is_zero():
    assert dudley.dudley_bound(np.ones((1, 3))).value == 0.0


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0, 10.0, 100.0, 520.0, 1e3, 1e4])
@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e-20, 1.0, 1e20, 1e160, 1e300])
def test_vector_norm_against_high_precision(p, scale):
    # finite input has a finite norm at every order and magnitude (the plain sum overflows for
    # [3, 4] from p = 520 on and underflows to 0 for [0.3, 0.4] at p = 1e4)
    import mpmath

    from attention_theory.foundations.norms import entrywise_norm, vector_norm

    rng = np.random.default_rng(int(p) + int(np.log10(scale)) + 400)
    x = scale * rng.uniform(0.1, 1.0, size=7) * rng.choice([-1, 1], size=7)
    with mpmath.workdps(60):
        ref = float(mpmath.fsum(abs(mpmath.mpf(float(v))) ** p for v in x) ** (1 / mpmath.mpf(p)))
    got = vector_norm(x, p)
    assert np.isfinite(got) and abs(got - ref) <= 1e-13 * ref, (got, ref)
    assert abs(entrywise_norm(x.reshape(7, 1), p) - ref) <= 1e-13 * ref
    rows = vector_norm(np.stack([x, np.zeros(7), x / scale]), p, axis=1)
    assert rows[1] == 0.0 and abs(rows[0] - ref) <= 1e-13 * ref


def test_vector_norm_examples_that_overflowed():
    from attention_theory.foundations.norms import vector_norm

    assert vector_norm([3.0, 4.0], 520) == 4.0 * (1 + (0.75) ** 520) ** (1 / 520)
    assert abs(vector_norm([0.3, 0.4], 1e4) - 0.4) < 1e-15


def _mp_norm(v, p):
    import mpmath

    with mpmath.workdps(60):
        return mpmath.fsum(abs(mpmath.mpf(float(t))) ** p for t in v) ** (1 / mpmath.mpf(p))


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1.0, 1e150, 1e300])
@pytest.mark.parametrize("q, p", [(1.0, 3.0), (2.0, 7.0), (600.0, 1.0), (1e4, 2.0)])
def test_matrix_norms_against_high_precision(scale, q, p):
    """mixed, entrywise, Frobenius, operator (closed forms) and head norms built on the scaled
    l_p norm stay finite and accurate from 1e-300 to 1e300 (issue 30, item 5)."""
    import mpmath

    from attention_theory.foundations.norms import (
        entrywise_norm,
        frobenius_norm,
        head_max_norm,
        mixed_norm,
        operator_norm,
    )

    rng = np.random.default_rng(17)
    W = scale * rng.uniform(0.1, 1.0, size=(3, 4)) * rng.choice([-1, 1], size=(3, 4))
    with mpmath.workdps(60):
        cols = [_mp_norm(W[:, j], q) for j in range(4)]
        want_mixed = float(_mp_norm([float(c) for c in cols], p)) if math.isfinite(p) else None
        want_col_max = float(max(_mp_norm(W[:, j], p) for j in range(4)))
        qs = q / (q - 1) if q > 1 else math.inf
        want_row_max = float(max(_mp_norm(W[i], qs) for i in range(3))) if q > 1 else float(abs(W).max())
        want_fro = float(_mp_norm(W.ravel(), 2))
        want_heads = float(max(_mp_norm(W.ravel()[:6], 2), _mp_norm(W.ravel()[6:], 2)))
    rel = 1e-12
    assert abs(mixed_norm(W, q, p) - want_mixed) <= rel * want_mixed
    assert abs(entrywise_norm(W, q) - float(_mp_norm(W.ravel(), q))) <= rel * want_fro * 10
    assert abs(frobenius_norm(W) - want_fro) <= rel * want_fro
    assert abs(operator_norm(W, 1.0, p) - want_col_max) <= rel * want_col_max  # q = 1: largest column
    assert abs(operator_norm(W, q, math.inf) - want_row_max) <= rel * want_row_max  # p = inf: rows, l_{q*}
    assert abs(head_max_norm(W.ravel(), 2) - want_heads) <= rel * want_heads


def test_operator_norm_near_q_equal_1_is_finite():
    from attention_theory.foundations.norms import operator_norm

    W = np.array([[1.0, -3.0], [4.0, 0.5]])
    for q in (1.0, 1.0001, 1.0019, 1.01):
        got = operator_norm(W, q, math.inf)
        assert math.isfinite(got) and 4.0 <= got <= 4.0 * 2 ** (1 - 1 / q) + 1e-12


def test_linear_class_rademacher_is_continuous_in_p_near_1():
    from attention_theory.foundations.rademacher import linear_class_rademacher_mc

    X = np.random.default_rng(0).standard_normal((6, 3))
    at_1 = linear_class_rademacher_mc(X, 1.0, 1.0, 200)
    for p in (1.0001, 1.001, 1.01):
        est, se = linear_class_rademacher_mc(X, 1.0, p, 200)
        assert math.isfinite(est) and math.isfinite(se) and abs(est - at_1[0]) <= 0.05 * at_1[0]
