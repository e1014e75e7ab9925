"""The bootstrap slope behind the book's "no trend" equivalence tests."""

import math

import numpy as np
import pytest

from attention_theory.foundations.trend import log_slope


def test_exact_slope_has_a_zero_width_interval():
    Ts = [2, 4, 8, 16]
    est = log_slope(Ts, [[3.0 + 0.5 * math.log2(T)] * 3 for T in Ts], base=2)
    assert est.slope == pytest.approx(0.5) and est.low == pytest.approx(0.5)
    assert est.high == pytest.approx(0.5)


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


def test_power_exponent_recovers_an_exact_power_law():
    from attention_theory.foundations.trend import power_exponent

    x = np.array([1.0, 10.0, 100.0, 1e4])
    est = power_exponent(x, 3 * x ** 0.5)
    assert est.exponent == pytest.approx(0.5, abs=1e-12)
    assert est.low == pytest.approx(0.5, abs=1e-9) and est.high == pytest.approx(0.5, abs=1e-9)
    assert est.growth == pytest.approx(100.0)


def test_power_exponent_interval_widens_with_noise():
    from attention_theory.foundations.trend import power_exponent

    rng = np.random.default_rng(0)
    x = np.logspace(0, 4, 12)
    est = power_exponent(x, x ** 0.3 * np.exp(0.2 * rng.standard_normal(12)))
    assert est.low < 0.3 < est.high and est.high - est.low > 0.01


@pytest.mark.parametrize("bad, match", [({"x": [1.0, 1.0, 2.0]}, "x"), ({"x": [1.0, 2.0]}, "x"),
                                        ({"ratio": [1.0, -1.0, 2.0]}, "ratio"),
                                        ({"ratio": [1.0, float("nan"), 2.0]}, "ratio")])
def test_power_exponent_rejects_bad_input(bad, match):
    from attention_theory.foundations.trend import power_exponent

    args = {"x": [1.0, 2.0, 4.0], "ratio": [1.0, 2.0, 3.0], **bad}
    with pytest.raises(ValueError, match=match):
        power_exponent(args["x"], args["ratio"])


def test_exponent_outcome_refutes_growth_and_supports_boundedness():
    from attention_theory.foundations.trend import exponent_outcome

    x = np.logspace(0, 6, 7)
    grows, flat = x ** 0.5, 2 + 0 * x
    assert not exponent_outcome(x, grows).passed          # a printed O(1) refuted by growth
    assert exponent_outcome(x, flat).passed
    assert exponent_outcome(x, flat, claim="support").passed
    assert not exponent_outcome(x, x ** 0.2, claim="support").passed
    out = exponent_outcome(x, grows)
    assert out.detail["exponent"]["exponent"] == pytest.approx(0.5)
    assert out.detail["exponent"]["claim"] == "refute"
    with pytest.raises(ValueError, match="margin"):
        exponent_outcome(x, flat, margin=0.0)
    with pytest.raises(ValueError, match="claim"):
        exponent_outcome(x, flat, claim="maybe")
