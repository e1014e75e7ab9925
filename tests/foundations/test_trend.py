"""The bootstrap slope behind the book's "no trend" equivalence tests."""

import math

import numpy as np
import pytest

from attention_theory.foundations.trend import log_slope


def test_exact_slope_has_a_zero_width_interval():
    Ts = [2, 4, 8, 16]
    est = log_slope(Ts, [[3.0 + 0.5 * math.log2(T)] * 3 for T in Ts], base=2)
    assert est.slope == pytest.approx(0.5) and est.low == pytest.approx(0.5) and est.high == pytest.approx(0.5)


def test_interval_covers_the_slope_and_shrinks_with_more_draws():
    rng = np.random.default_rng(1)
    Ts = [10, 20, 40, 80]
    few = log_slope(Ts, [1.0 + rng.normal(0, 0.1, 5) for _ in Ts])
    many = log_slope(Ts, [1.0 + rng.normal(0, 0.1, 500) for _ in Ts])
    assert few.low <= few.slope <= few.high
    assert many.high - many.low < few.high - few.low
    assert abs(many.slope) < 0.05


def test_relative_and_max():
    Ts = [1, 2, 4]
    est = log_slope(Ts, [[1.0, 2.0 * T] for T in Ts], statistic="max", base=2, relative=True)
    # maxima 2, 4, 8 at log2 T = 0, 1, 2: slope 3 per doubling, mean 14/3
    assert est.slope == pytest.approx(9 / 14, rel=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"Ts": [1], "groups": [[1.0]]}, "Ts"),
    ({"Ts": [1, 2], "groups": [[1.0]]}, "one group"),
    ({"Ts": [1, 2], "groups": [[1.0], [math.nan]]}, "finite"),
    ({"Ts": [1, 2], "groups": [[1.0], []]}, "finite"),
    ({"Ts": [1, 2], "groups": [[1.0], [2.0]], "statistic": "median"}, "statistic"),
    ({"Ts": [1, 2], "groups": [[1.0], [2.0]], "n_boot": 5}, "n_boot"),
    ({"Ts": [1, 2], "groups": [[1.0], [2.0]], "base": 1.0}, "base"),
    ({"Ts": [1, 2], "groups": [[-1.0], [-2.0]], "relative": True}, "positive"),
])
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        log_slope(**kwargs)
