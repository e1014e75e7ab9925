"""The shared first-order loop: exact GD on a quadratic, momentum/Adam decrease, bad input."""

import pytest
import torch

from attention_theory.foundations.gd import run_first_order

pytestmark = pytest.mark.usefixtures("float64_default")


def _quadratic(theta):
    return 0.5 * (theta ** 2 * torch.tensor([1.0, 4.0])).sum()


def test_gd_matches_closed_form_on_a_quadratic():
    theta0 = torch.tensor([1.0, 1.0])
    tr = run_first_order(_quadratic, theta0, steps=5, lr=0.1, keep_iterates=True)
    expected = theta0 * torch.tensor([0.9, 0.6]) ** 5
    assert torch.allclose(tr.final, expected, atol=1e-15, rtol=0)
    assert tr.iterates.shape == (6, 2) and tr.losses.shape == (6,)
    assert torch.allclose(tr.losses[-1], _quadratic(expected))


@pytest.mark.parametrize("method", ["momentum", "adam"])
def test_other_methods_decrease_the_loss(method):
    tr = run_first_order(_quadratic, torch.tensor([1.0, -2.0]), steps=200, lr=0.05, method=method)
    assert tr.losses[-1] < 1e-3 * tr.losses[0]


def test_step_size_schedule_is_called_with_the_index():
    seen = []
    run_first_order(_quadratic, torch.tensor([1.0, 1.0]), steps=3, lr=lambda k: seen.append(k) or 0.1)
    assert seen == [0, 1, 2]


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="newton"), "method"), (dict(lr=-1.0), "lr"), (dict(momentum=1.0), "momentum"),
    (dict(steps=-1), "steps"),
])
def test_bad_input(kwargs, match):
    base = dict(steps=1, lr=0.1)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        run_first_order(_quadratic, torch.tensor([1.0, 1.0]), **base)
    with pytest.raises(ValueError, match="theta0"):
        run_first_order(_quadratic, torch.ones(2, 2), steps=1, lr=0.1)
