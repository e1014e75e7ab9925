"""Negative controls for the checks of Deora et al.'s loss landscape (Lemma 6, Corollary 1,
Eqs. (14)-(16), Proposition 4), plus unit tests of the helpers and bound calculators.

Each negative control runs a registered check with a deliberately wrong variant of its
statement and requires :class:`ClaimViolation`.
"""

import math

import numpy as np
import pytest
import torch

from _nc import negative_control
from attention_theory.deora import bounds as bd
from attention_theory.deora import landscape
from attention_theory.deora import model as md
from attention_theory.deora.checks import landscape as checks
from attention_theory.verify import evaluate_only

pytestmark = pytest.mark.usefixtures("float64_default")


def test_nc_decomposition_without_gauss_newton_term():
    with negative_control("deora-lemma-6", "decomposition-65"):
        checks.check_lemma6_decomposition(terms=(True, False))


def test_nc_lemma6_gradient_bound_halved():
    with negative_control("deora-lemma-6", "random-and-adversarial"):
        checks.check_lemma6_bounds(scales={"1": 0.5})


def test_nc_lemma6_convexity_instead_of_weak_convexity():
    with negative_control("deora-lemma-6",
                          "random-and-adversarial"):  # lower bound 0: lambda_min < 0 occurs at H = 1
        checks.check_lemma6_bounds(scales={"3": 0.0})


def test_nc_cor1_beta1_halved():
    with negative_control("deora-cor-1", "random-and-adversarial"):
        checks.check_cor1_bounds(scales={"1": 0.5})


def test_nc_cor1_segment_max_with_nonconvex_norm():
    smallest_head = lambda th, H, T, d: float(
        torch.linalg.norm(torch.as_tensor(th).reshape(H, -1), dim=1).min())
    with negative_control("deora-cor-1", "segment-maximum"):  # min_h ||theta_h|| is not convex
        checks.check_cor1_segment_max(norm=smallest_head)


#: The smallest instances of the large-H check that its controls need: H in {1, 4, 16} and a small
#: identical-head search (the chapter's check runs H up to 256 / 4096 and the full search budget).
_SMALL_H = {"heads": (1, 4, 16), "identical_search": (1, 10)}


def test_nc_cor1_large_h_with_one_over_H_decay():
    # a 1/H law calibrated to hold at H = 1 on every instance (IID and identical heads) of the
    # same small run: its constant is 1.01 x the largest ratio at H = 1, where 1/H and 1/sqrt(H)
    # agree, so the violation can only come from the decay at H = 4 or 16
    with evaluate_only():
        rec = checks.check_cor1_large_h(**_SMALL_H)
    i, j = rec.params["H"].index(1), rec.params["identical_heads"]["H"].index(1)
    c = 1.01 * max(rec.detail["ratio"][i], rec.detail["ratio_identical_heads"][j])
    assert c < 1.0  # so 1/H (with c) is below 1/sqrt(H) at every H > 1
    with negative_control("deora-cor-1", "weak-convexity-large-h"):
        checks.check_cor1_large_h(kappa_of_H=lambda H: c / H, **_SMALL_H)


def test_nc_cor1_large_h_wrong_power_of_H():
    with negative_control("deora-cor-1", "weak-convexity-large-h"):  # beta3/H instead of beta3/sqrt(H)
        checks.check_cor1_large_h(kappa_of_H=lambda H: 1.0 / H, **_SMALL_H)


def test_nc_cor1_lanczos_largest_eigenvalue():
    with negative_control("deora-cor-1", "lanczos-vs-exact"):  # lambda_max instead of lambda_min
        checks.check_cor1_large_h(lanczos_which="LA", **_SMALL_H)


def test_nc_cor1_no_improvement_with_heads():
    with negative_control("deora-cor-1", "h-scaling"):
        checks.check_cor1_h_scaling(low=-0.1, high=0.1)   # "no improvement with H"


def test_nc_eq14_reversed_direction():
    with negative_control("deora-eq-14", "taylor-lower-bound"):
        checks.check_eq14(direction="le")


def test_nc_eq14_remainder_without_kernel():
    with negative_control("deora-eq-14", "integral-remainder"):  # int D^T Hess D ds, without (1 - s)
        checks.check_eq14(kernel=lambda s: 1.0)


def test_nc_eq14_published_direction_is_not_an_erratum():
    with negative_control("deora-eq-14", "review-direction"):
        checks.check_eq14_review(printed="ge")


def test_nc_eq15_convexity():
    with negative_control("deora-eq-15", "segment-weak-convexity"):
        checks.check_eq15(kappa_scale=0.0)


def test_nc_eq15_max_form_convexity():
    with negative_control("deora-eq-15", "max-form"):
        checks.check_eq15(max_form_scale=0.0)


def test_nc_eq16_without_curvature_term():
    with negative_control("deora-eq-16", "combined-lower-bound"):
        checks.check_eq16(curvature=0.0)


def test_nc_glqc_quasi_convexity():
    with negative_control("deora-prop-4", "glqc-boundary"):
        checks.check_prop4(constant=1.0)


def test_nc_glqc_segments_beyond_hypothesis_18():
    with negative_control("deora-prop-4", "hypothesis-18"):  # factor 1 instead of 2: c up to 1
        checks.check_prop4(boundary_factor=1.0)


def test_nc_glqc_sharp_constant_one():
    with negative_control("deora-prop-4", "sharp-constant"):  # quasi-convexity in place of 1/cos(sqrt(c)/2)
        checks.check_prop4(sharp_constant=lambda c: 1.0)


def test_nc_glqc_1d_hypothesis_violated():
    with negative_control("deora-prop-4", "one-dimensional"):  # c = 8 gives 1/cos(sqrt(2)) ~ 6.3 > 4/3
        checks.check_prop4_1d(c_max=8.0)


def test_nc_glqc_1d_sharp_constant_second_order():
    with negative_control("deora-prop-4",
                          "one-dimensional-sharp"):  # 1 + c/8 under-estimates 1/cos(sqrt(c)/2)
        checks.check_prop4_1d(sharp_constant=lambda c: 1.0 + c / 8)


# --- unit tests ----------------------------------------------------------------------


def test_risk_batch_matches_empirical_risk():
    rng = np.random.default_rng(0)
    H, T, d = 3, 3, 2
    Xs, ys = md.sample_bounded_tokens(5, T, d, 1.0, seed=0)
    ths = torch.stack([landscape.random_heads(rng, H, T, d) for _ in range(4)])
    ref = torch.stack([md.empirical_risk(t, Xs, ys, H) for t in ths])
    assert torch.allclose(landscape.risk_batch(ths, Xs, ys, H), ref, atol=1e-14)


def test_norms_and_segment_max():
    th = md.pack_heads(np.ones((2, 2, 2)), np.zeros((2, 2, 2)))
    assert landscape.norm_2inf(th, 2, 2, 2) == pytest.approx(2.0)
    assert landscape.max_U_norm(th, 2, 2, 2) == pytest.approx(2.0)
    val, arg = landscape.segment_max(lambda a: -(a - 0.3) ** 2)
    assert val == pytest.approx(0.0, abs=1e-12) and arg == pytest.approx(0.3, abs=1e-6)


def test_glqc_1d_extremal_case():
    c = 0.5
    r = landscape.glqc_1d_ratio(c, np.zeros(2001), 1.0, 1.0)
    assert r == pytest.approx(1 / math.cos(math.sqrt(c) / 2), rel=1e-6)


def test_bound_calculators():
    assert bd.glqc_sharp_constant(0.5) == pytest.approx(1 / math.cos(1 / (2 * math.sqrt(2))))
    s = bd.glqc_distance(0.5, 2, 2, 1.0, 16)
    assert 2 * bd.beta3(0.5, 2, 2, 1.0) * s**2 == pytest.approx(4.0)
    with pytest.raises(ValueError, match="c"):
        bd.glqc_sharp_constant(10.0)
    with pytest.raises(ValueError, match="H"):
        bd.glqc_distance(0.5, 2, 2, 1.0, 0)
