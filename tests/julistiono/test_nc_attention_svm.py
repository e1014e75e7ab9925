"""Negative controls for the checks of ``book/julistiono/attention-svm.md``
(:mod:`attention_theory.julistiono.checks.attention_svm`; Julistiono, Tarzanagh & Azizan,
reconstructed statements).

Each test runs a registered check with a deliberately wrong variant (a wrong constant, a
non-locally-optimal token selection, a wrong formula) and requires :class:`ClaimViolation`.
Sizes are reduced (fewer ``p`` values or seeds) so the whole file stays within the CI time
budget; the variants are the catalogue's.
"""

import numpy as np

from _nc import negative_control
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.checks import attention_svm


def test_nc_assumption_A_increasing_loss():
    with negative_control("julistiono-assum-a", "loss-properties"):
        attention_svm.check_assumption_A(losses={"exp-up": (np.exp, np.exp)})


def test_nc_assumption_A_derivative_doubled():
    f, df = attention_svm._LOSS_FNS["logistic"]
    with negative_control("julistiono-assum-a", "loss-derivative"):
        attention_svm.check_assumption_A(losses={"logistic": (f, lambda u: 2.0 * df(u))})


def test_nc_def3_kkt_with_nonsupport_rows(monkeypatch):
    with negative_control("julistiono-def-3", "support-kkt"):
        attention_svm.check_def3(kkt_rows="nonsupport", p=2.0)


def test_nc_lemma16_max_and_min_exchanged():
    with negative_control("julistiono-lemma-16", "objective-bounds"):
        attention_svm.check_lemma16(lower_fn=np.min, upper_fn=np.max)


def test_nc_lemma17_transposed_gradient():
    with negative_control("julistiono-lemma-17", "gradient-formula"):
        attention_svm.check_lemma17(
            grad_fn=lambda W, X, z, Y, v, loss: mj.gradient_W(W, X, z, Y, v, loss=loss).T)


def test_nc_lemma17_jacobian_without_outer_term():

    def no_outer(W, X, z, Y, v, loss):
        g = mj.scores(X, Y, v)
        s = mj.attention(X, z, W)
        u = np.sum(s * g, axis=-1)
        lp = mj.loss_derivative(u, loss)
        return np.einsum("n,ntd,nt,ne->de", lp, X, s * g, z) / X.shape[0]

    with negative_control("julistiono-lemma-17", "gradient-formula"):
        attention_svm.check_lemma17(grad_fn=no_outer)


def test_nc_lemma18_bound_times_0_1():
    with negative_control("julistiono-lemma-18", "gradient-bound"):
        attention_svm.check_lemma18(scale=0.1)


def test_nc_lemma18_bound_times_0_99():
    # G is sharp (ratio -> 1 along the tight family x = (a, -a), W = -a^(-3/2)): 1% less must fail
    with negative_control("julistiono-lemma-18", "gradient-bound"):
        attention_svm.check_lemma18(scale=0.99)


def test_nc_lemma18_jacobian_bound_one_quarter():
    with negative_control("julistiono-lemma-18", "softmax-jacobian-norm"):
        attention_svm.check_lemma18(jacobian_bound=0.25)


def test_nc_lemma19_radius_100_mu0():
    with negative_control("julistiono-lemma-19", "cone-margins"):
        attention_svm.check_lemma19(mu_factor=100.0, ps=(2.0,))


def test_nc_eq12_margin_5_over_2():
    with negative_control("julistiono-eq-12", "three-inequalities"):
        attention_svm.check_lemma19(margin=2.5, ps=(2.0,))


def test_nc_lemma20_not_locally_optimal():
    with negative_control("julistiono-lemma-20", "positive-correlation"):
        attention_svm.check_lemma20(alpha_rule="worst", p=2.0)


def test_nc_eq13_sum_instead_of_mean():
    with negative_control("julistiono-eq-13", "correlation-formula"):
        attention_svm.check_lemma20(eq13_average=np.sum)


def test_nc_eq14_product_of_means_dropped():
    with negative_control("julistiono-eq-14", "covariance-identity"):
        attention_svm.check_lemma20(eq14_product_term=0.0)


def test_nc_eq16_support_ratios_exactly_e_minus_rho():
    with negative_control("julistiono-eq-16", "softmax-ratios"):
        attention_svm.check_lemma20(eq16_band=0.0)


def test_nc_eq17_square_root_of_the_softmax_ratio():
    with negative_control("julistiono-eq-17", "combined-lower-bound"):
        attention_svm.check_lemma20(eq17_rate=0.5)


def test_nc_eq18_support_by_exact_equality():
    with negative_control("julistiono-eq-18", "c-plus-positive"):
        attention_svm.check_lemma20(eq18_support_tol=0.0)


def test_nc_lemma21_not_locally_optimal():
    with negative_control("julistiono-lemma-21", "svm-direction-beats-current"):
        attention_svm.check_lemma21(alpha_rule="worst", p=2.0, eps_list=(0.2,))


def test_nc_eq19_one_plus_eps():
    with negative_control("julistiono-eq-19", "rescaled-inequality"):
        attention_svm.check_lemma21(eps_list=(0.2,), eq19_eps_sign=-1.0)


def test_nc_eq20_product_of_means_dropped():
    with negative_control("julistiono-eq-20", "per-sample-decomposition"):
        attention_svm.check_lemma21(eps_list=(0.2,), eq20_product_term=0.0)


def test_nc_eq21_square_root_of_the_softmax_ratio():
    with negative_control("julistiono-eq-21", "lower-bound"):
        attention_svm.check_lemma21(eps_list=(0.2,), eq21_rate=0.5)
