"""Unit and bad-input tests of the DM1 generator, the NTK features, the NTK max-margin solver and the
closed forms of Section 5 (``deora/dm1.py``, ``deora/ntk.py``, ``deora/max_margin.py``,
``deora/mixture_bounds.py``)."""

import math

import numpy as np
import pytest
import torch

from attention_theory.deora import dm1, ntk
from attention_theory.deora import mixture_bounds as bm
from attention_theory.deora import model as md
from attention_theory.deora.max_margin import ntk_max_margin

pytestmark = pytest.mark.usefixtures("float64_default")
CFG = dm1.DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3)


@pytest.mark.parametrize("mode", ["uniform", "corner", "gaussian", "none"])
def test_sample_shapes_and_relevant_rows(mode):
    cfg = CFG.replace(sigma=0.1)
    s = dm1.sample(cfg, 50, seed=1, noise=mode)
    assert s.X.shape == (50, 8, 9) and s.y.shape == (50,) and len(s) == 50
    assert np.all(s.relevant.sum(1) == 2) and set(np.unique(s.y)) <= {-1.0, 1.0}
    pt = dm1.patterns(cfg)
    mu = np.where(s.y[:, None] > 0, pt["mu_plus"], pt["mu_minus"])
    assert np.array_equal(s.X[s.relevant], mu[np.nonzero(s.relevant)[0]])
    assert np.all(s.j[s.relevant] == -1) and np.all((s.j[~s.relevant] >= 0) & (s.j[~s.relevant] < 3))
    if mode in ("uniform", "corner", "none"):
        assert dm1.noise_bounds_ok(cfg, s.z).all()


def test_sample_is_deterministic_and_seeded():
    a, b, c = dm1.sample(CFG, 10, seed=3), dm1.sample(CFG, 10, seed=3), dm1.sample(CFG, 10, seed=4)
    assert np.array_equal(a.X, b.X) and not np.array_equal(a.X, c.X)


def test_corner_noise_hurts_the_linear_margin_and_attains_Z():
    s = dm1.sample(CFG, 20, seed=0, noise="corner")
    us = dm1.patterns(CFG)["u_star"]
    val = s.y[:, None] * (s.z @ us)
    assert np.allclose(val[~s.relevant], -2 * CFG.Z_mu)
    assert np.allclose(np.linalg.norm(s.z[~s.relevant], axis=-1), CFG.Z)


def test_first_positions_and_fixed_labels():
    s = dm1.sample(CFG.replace(relevant="first"), 5, seed=0, y=[1, -1, 1, 1, -1])
    assert s.relevant[:, :2].all() and not s.relevant[:, 2:].any()
    assert list(s.y) == [1, -1, 1, 1, -1]


def test_radius_formula_and_bounds():
    assert math.isclose(CFG.R, math.sqrt(CFG.S**2 + CFG.Z**2 + 2 * CFG.Z_nu / CFG.M))
    assert math.isclose(CFG.Z, bm.noise_norm_bound(CFG.S, CFG.M, CFG.Z_mu, CFG.Z_nu, CFG.Z_perp))
    assert math.isclose(CFG.R, bm.radius_dm1(CFG.S, CFG.Z, CFG.Z_nu, CFG.M))
    bad = np.zeros((1, 1, 9))
    bad[..., 0] = 2 * CFG.Z_mu / CFG.S
    assert not dm1.noise_bounds_ok(CFG, bad).any()


def test_assemble_torch_is_differentiable():
    s = dm1.sample(CFG, 3, seed=0)
    z = torch.tensor(s.z, requires_grad=True)
    X = dm1.assemble(CFG, s.y, s.relevant, s.j, z)
    X.sum().backward()
    assert torch.allclose(X.detach(), torch.as_tensor(s.X))
    assert np.array_equal(z.grad.numpy()[s.relevant], np.zeros((6, 9)))


@pytest.mark.parametrize("kw, exc", [
    (dict(T=1), ValueError), (dict(T=8.0), TypeError), (dict(d=4), ValueError),
    (dict(zeta=0.3), ValueError), (dict(zeta=1.0), ValueError), (dict(S=-1.0), ValueError),
    (dict(Z_mu=-0.1), ValueError), (dict(noise="laplace"), ValueError), (dict(relevant="last"), ValueError),
    (dict(d=5, Z_perp=0.3), ValueError), (dict(S="big"), TypeError),
])
def test_config_bad_input(kw, exc):
    with pytest.raises(exc):
        CFG.replace(**kw)


def test_sample_bad_input():
    with pytest.raises(TypeError):
        dm1.sample({"T": 8}, 3)
    with pytest.raises(ValueError):
        dm1.sample(CFG, 0)
    with pytest.raises(TypeError):
        dm1.sample(CFG, 3, seed=1.5)
    with pytest.raises(ValueError):
        dm1.sample(CFG, 3, noise="cauchy")
    with pytest.raises(ValueError):
        dm1.sample(CFG, 2, y=[1, 0])
    s = dm1.sample(CFG, 2, seed=0)
    with pytest.raises(ValueError):
        dm1.assemble(CFG, s.y, s.relevant[:, :4], s.j, s.z)
    with pytest.raises(ValueError):
        dm1.coefficients_to_noise(CFG, np.zeros(3), np.zeros(4))


def test_first_step_closed_form_and_reduced_features():
    s = dm1.sample(CFG, 40, seed=2)
    alphas = np.array([1.0, -1.0, 0.5])
    th = ntk.first_step(s.X, s.y, 3, alphas)
    assert torch.allclose(th, ntk.first_step_closed_form(s.X, s.y, 3, alphas), atol=1e-14)
    v = md.unpack_heads(th, 3, 8, 9)[0][0, 0]
    F1 = ntk.ntk_features(md.pack_heads(md.unpack_heads(th, 3, 8, 9)[0][:1], torch.zeros(1, 9, 9)),
                          s.X[:5], 1)
    assert torch.allclose(F1, ntk.reduced_features(s.X[:5], v), atol=1e-13)
    assert math.isclose(float(torch.linalg.norm(ntk.theta_star([1.0, -1.0], 1.5, 3, 8, 9))), math.sqrt(2))


def test_ntk_bad_input():
    with pytest.raises(ValueError):
        ntk.first_step(np.zeros((4, 8, 9)), np.ones(4), 2, [1.0])
    with pytest.raises(ValueError):
        ntk.reduced_features(np.zeros((4, 8, 9)), np.zeros(3))
    with pytest.raises(ValueError):
        ntk.target_directions(1.0, 5, 8, 4)


def test_max_margin_solver_on_a_known_problem():
    F = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0])
    res = ntk_max_margin(F, y, radius=1.0)
    assert res.status == "optimal" and abs(res.margin - 1 / math.sqrt(2)) < 1e-6
    assert np.linalg.norm(res.theta) <= 1 + 1e-9
    # not separable: the optimum is negative... or zero
    res2 = ntk_max_margin(np.array([[1.0], [1.0]]), np.array([1.0, -1.0]))
    assert res2.margin <= 1e-7


def test_max_margin_bad_input():
    with pytest.raises(ValueError):
        ntk_max_margin(np.ones((3, 2)), np.ones(2))
    with pytest.raises(ValueError):
        ntk_max_margin(np.ones((2, 2)), np.array([1.0, 2.0]))
    with pytest.raises(ValueError):
        ntk_max_margin(np.ones((2, 2)), np.ones(2), radius=0.0)
    with pytest.raises(TypeError):
        ntk_max_margin("features", np.ones(2))


def test_closed_forms():
    # regime A of the catalogue
    assert abs(bm.gamma_star(8, 0.25, 1.5, 3, 0.05, 0.05, CFG.Z, 0.0) - 0.709) < 5e-3
    assert math.isclose(bm.gamma_attn(10, 2.0, 0.0), 2 * math.sqrt(5))
    A, B = bm.score_gap(2.0, 0.5, 0.5)
    assert A >= 0.75 * 16 and 2 * B < A
    assert abs(bm.ordering_crossover(10, 0.5, 2) - 2.06) < 0.01
    assert bm.prop3_threshold(1.0, 2, 0.5, 2.0) == 0.0
    assert bm.sec53_lp(0.5, math.log(math.log(1000))).status == 2
    with pytest.raises(ValueError):
        bm.gamma_star(8, 1.5, 1.5, 3, 0.05, 0.05, 0.3, 0.0)
    with pytest.raises(ValueError):
        bm.saturation_threshold(0.0, 4, 1, 0.1)
    with pytest.raises(TypeError):
        bm.gamma_lin(8.5, 0.25, 1.5, 0.0)
