"""Unit tests of :mod:`attention_theory.foundations.hessian`: HVPs and Lanczos against dense ``eigvalsh``."""

import numpy as np
import pytest
import torch

from attention_theory.deora import model as md
from attention_theory.deora.landscape import random_heads, risk_fn
from attention_theory.foundations import hessian as hs

pytestmark = pytest.mark.usefixtures("float64_default")


def _quadratic(p, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((p, p))
    A = torch.as_tensor(A + A.T)
    return A, (lambda th: 0.5 * th @ A @ th + torch.sin(th).sum() * 0.0)


def test_hvp_matches_dense_quadratic():
    A, loss = _quadratic(30)
    th = torch.randn(30)
    v = torch.randn(30)
    assert torch.allclose(hs.hvp_function(loss, th)(v), A @ v, atol=1e-12)


@pytest.mark.parametrize("p", [5, 40, 200])
def test_lanczos_extremes_match_eigvalsh(p):
    A, loss = _quadratic(p, seed=p)
    ev = torch.linalg.eigvalsh(A).numpy()
    th = torch.zeros(p)
    assert hs.lanczos_extreme(loss, th, which="SA") == pytest.approx(ev[0], abs=1e-8)
    assert hs.lanczos_extreme(loss, th, which="LA") == pytest.approx(ev[-1], abs=1e-8)
    assert hs.spectral_norm(loss, th, method="lanczos") == pytest.approx(np.abs(ev).max(), abs=1e-8)
    assert hs.lambda_min(loss, th, method="exact") == pytest.approx(ev[0], abs=1e-10)


def test_lanczos_on_attention_loss_matches_exact():
    rng = np.random.default_rng(3)
    H, T, d = 6, 3, 2
    Xs, ys = md.sample_bounded_tokens(5, T, d, 1.0, seed=3)
    loss = risk_fn(Xs, ys, H)
    th = random_heads(rng, H, T, d, u_scale=3.0, w_scale=4.0)
    ev = torch.linalg.eigvalsh(hs.exact_hessian(loss, th)).numpy()
    assert hs.lambda_min(loss, th, method="lanczos") == pytest.approx(ev[0], abs=1e-9, rel=1e-8)
    assert hs.spectral_norm(loss, th, method="lanczos") == pytest.approx(np.abs(ev).max(), rel=1e-8)
    assert hs.lambda_min(loss, th) == pytest.approx(ev[0], abs=1e-12)   # auto -> exact


def test_tiny_problem_goes_dense():
    A, loss = _quadratic(2, seed=1)
    assert hs.lanczos_extreme(loss, torch.zeros(2)) == pytest.approx(float(torch.linalg.eigvalsh(A)[0]))


def test_exact_hessian_refuses_large():
    with pytest.raises(ValueError, match="max_params"):
        hs.exact_hessian(lambda th: (th**2).sum(), torch.zeros(50), max_params=10)


def test_bad_inputs():
    with pytest.raises(TypeError, match="theta"):
        hs.lambda_min(lambda th: th.sum(), np.zeros(3))
    with pytest.raises(ValueError, match="theta"):
        hs.hvp_function(lambda th: th.sum(), torch.zeros(2, 2))
    with pytest.raises(ValueError, match="theta"):
        hs.hvp_function(lambda th: th.sum(), torch.tensor([1.0, float("nan")]))
    with pytest.raises(TypeError, match="loss"):
        hs.hvp_function("not callable", torch.zeros(3))
    with pytest.raises(ValueError, match="which"):
        hs.lanczos_extreme(lambda th: (th**2).sum(), torch.zeros(5), which="XX")
    with pytest.raises(ValueError, match="method"):
        hs.spectral_norm(lambda th: (th**2).sum(), torch.zeros(5), method="dense")
    with pytest.raises(ValueError, match="scalar"):
        hs.hvp_function(lambda th: th * 2, torch.zeros(3))
