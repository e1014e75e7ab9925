"""Negative controls for the checks of ``book/julistiono/convergence.md``
(:mod:`attention_theory.julistiono.checks.convergence`; Julistiono, Tarzanagh & Azizan,
reconstructed statements).

Each test runs a registered check with a deliberately wrong variant (a non-locally-optimal token
selection, a start outside the cone, a wrong rate, the naive softmax backward) and requires
:class:`ClaimViolation`.  Sizes are reduced (fewer ``p`` values or seeds) so the whole file stays
within the CI time budget; the variants are the catalogue's.
"""

import numpy as np

from _nc import negative_control
from attention_theory.julistiono.checks import convergence


def test_nc_lemma27_not_locally_optimal():
    with negative_control("julistiono-lemma-27", "per-step-progress"):
        convergence.check_lemma27(alpha_rule="worst", ps=(2.0,))


def test_nc_eq25_without_the_large_norm_hypothesis():
    with negative_control("julistiono-eq-25", "per-step-ratio"):
        convergence.check_lemma27(ps=(2.0,), eq25_R0_min=1.0)


def test_nc_lemma27_eps_increasing_in_R0():
    with negative_control("julistiono-lemma-27", "eps-decreasing-in-r0"):
        convergence.check_lemma27(ps=(2.0,), eps_trend=-1.0)


def test_nc_lemma28_start_outside_the_cone():
    with negative_control("julistiono-lemma-28", "cone-invariance"):
        convergence.check_lemma28(alpha_rule="global", init="random", ps=(2.0,))


def test_nc_eq26_norm_power_p():
    with negative_control("julistiono-eq-26", "divergence-identity"):
        convergence.check_lemma28(ps=(1.75,), eq26_exponent=lambda p: p)


def test_nc_eq27_eps_halved():
    with negative_control("julistiono-eq-27", "divergence-recursion"):
        convergence.check_lemma28(ps=(2.0,), eq27_eps_factor=0.5)


def test_nc_lemma28_norms_non_increasing():
    with negative_control("julistiono-lemma-28", "monotone-norm"):
        convergence.check_lemma28(ps=(2.0,), norm_trend=-1.0)


def test_nc_lemma30_sqrt_growth():
    with negative_control("julistiono-lemma-30", "log-norm-growth"):
        convergence.check_lemma30(growth=np.sqrt, ps=(2.0,))


def test_nc_lemma30_thin_cone_start_does_not_decrease():
    with negative_control("julistiono-lemma-30", "random-start-norm-decreases"):
        convergence.check_lemma30(ps=(2.0,), variant_start="thin-cone")


def test_nc_fig4_naive_softmax_backward():
    with negative_control("julistiono-fig-4", "own-svm-closest"):
        convergence.check_fig4(stable=False, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_fig4_svm_with_another_q():
    with negative_control("julistiono-fig-4", "own-svm-closest"):
        convergence.check_fig4(q_for_svm=lambda p: 3.0, ps=(1.75,), seeds=(1, 2, 3))


def test_nc_lemma29_naive_softmax_backward():
    with negative_control("julistiono-lemma-29", "directional-convergence"):
        convergence.check_lemma29(stable=False, ps=(1.75,), seeds=(1, 2, 3))
