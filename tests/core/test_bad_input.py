"""Public functions reject bad input with errors that name the argument."""

import math

import numpy as np
import pytest

from attention_theory.foundations import covering, dudley, losses, norms, rademacher, softmax, thresholds


@pytest.mark.parametrize("call, exc, name", [
    (lambda: norms.mixed_norm(np.ones(3), 2, 2), ValueError, "W"),
    (lambda: norms.mixed_norm(np.ones((2, 2)), 0.5, 2), ValueError, "q"),
    (lambda: norms.mixed_norm(np.ones((2, 2)), 2, "two"), TypeError, "p"),
    (lambda: norms.mixed_norm(np.full((2, 2), np.nan), 2, 2), ValueError, "W"),
    (lambda: norms.operator_norm(np.ones((2, 2)), math.nan, 2), ValueError, "q"),
    (lambda: norms.operator_norm(np.ones((2, 2)), 3, 4), ValueError, "no exact formula"),
    (lambda: norms.operator_norm(np.ones((2, 30)), np.inf, 2), ValueError, "columns"),
    (lambda: norms.head_max_norm(np.ones(7), 2), ValueError, "H=2"),
    (lambda: norms.head_max_norm(np.ones(8), 0), ValueError, "H"),
    (lambda: norms.head_max_norm(np.ones(8), 2.0), TypeError, "H"),
    (lambda: norms.entrywise_norm("abc", 2), TypeError, "W"),
    (lambda: softmax.softmax(np.array([1.0, np.inf])), ValueError, "v"),
    (lambda: softmax.softmax(np.zeros((0,))), ValueError, "v"),
    (lambda: softmax.softmax_second_derivative(np.zeros(3), np.zeros(4)), ValueError, "delta"),
    (lambda: losses.cross_entropy(np.zeros((2, 3)), np.array([0, 3])), ValueError, "y"),
    (lambda: losses.cross_entropy(np.zeros((2, 3)), np.array([0.0, 1.0])), TypeError, "y"),
    (lambda: losses.cross_entropy(np.zeros((2, 3)), np.array([0])), ValueError, "y"),
    (lambda: losses.clipped_cross_entropy(np.zeros(3), np.array(0), -1.0), ValueError, "clip"),
    (lambda: losses.logistic_loss(None), TypeError, "z"),
    (lambda: rademacher.rademacher_exact(np.ones((3, 25))), ValueError, "n=25"),
    (lambda: rademacher.rademacher_mc(np.ones((3, 5)), 1), ValueError, "n_draws"),
    (lambda: rademacher.linear_class_rademacher_mc(np.ones((3, 2)), -1.0, 2, 10), ValueError, "B"),
    (lambda: rademacher.generalization_gap(0.1, np.ones((2, 2))), ValueError, "sample_losses"),
    (lambda: covering.covering_number(np.ones((3, 4)), 0.0), ValueError, "eps"),
    (lambda: covering.covering_number(np.ones(4), 0.5), ValueError, "F"),
    (lambda: dudley.dudley_bound(np.ones((3, 4)), c=0), ValueError, "c"),
    (lambda: thresholds.threshold_true_risks(m=1), ValueError, "m"),
    (lambda: thresholds.threshold_true_risks(flip=1.5), ValueError, "flip"),
    (lambda: thresholds.threshold_sample(0, np.random.default_rng(0)), ValueError, "n"),
])
def test_bad_input_is_rejected_with_a_named_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
