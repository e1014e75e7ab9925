"""Negative controls for the checks of ``book/foundations/norms.md``
(:mod:`attention_theory.foundations.checks.norms`).

Each test runs a registered check on a deliberately wrong variant of its
statement (wrong constant, wrong formula, wrong orientation) and requires the
check to reject it.  A check that accepted these variants could not fail.
"""

import numpy as np

from _nc import negative_control
from attention_theory.foundations.checks import norms as checks
from attention_theory.foundations.norms import mixed_norm, operator_norm, vector_norm


def test_nc_mixed_norm_rows_instead_of_columns():
    with negative_control("trauger-def-2-1", "mixed-operator-identities"):
        checks.check_mixed_operator_identities(read=lambda W, q, p: mixed_norm(W.T, q, p))


def test_nc_operator_norm_without_dual_exponent():

    def wrong(W, q, p):  # forgets the Hoelder conjugate in the q -> inf formula
        if np.isinf(p) and q not in (1, np.inf):
            return float(np.max(vector_norm(W, q, axis=1)))
        if np.isinf(q) and p == 1:
            return float(np.max(np.abs(W).sum(axis=1)))  # row sums instead of the sign sup
        return operator_norm(W, q, p)

    with negative_control("trauger-def-2-1", "operator-norm-closed-forms"):
        checks.check_operator_norm_closed_forms(closed_form=wrong)


def test_nc_operator_norm_q2_overestimated():

    def wrong(W, q, p):  # 1% too large for q = 2: still an upper bound, but not attained
        return operator_norm(W, q, p) * (1.01 if q == 2 else 1.0)

    with negative_control("trauger-def-2-1", "operator-norm-q2-attained"):
        checks.check_operator_norm_closed_forms(closed_form=wrong)


def test_nc_frobenius_le_spectral_reversed():
    from attention_theory.foundations.norms import frobenius_norm, spectral_norm

    with negative_control("trauger-def-2-1", "spectral-le-frobenius"):
        checks.check_spectral_le_frobenius(lhs_norm=frobenius_norm, rhs_norm=spectral_norm)


def test_nc_deora_norms_rows_and_columns_swapped():
    wrong = {
        "2,inf": lambda A: float(np.max(np.linalg.norm(A, axis=0))),
        "1,2": lambda A: float(np.max(np.linalg.norm(A, axis=1))),
        "1,inf": lambda A: float(np.max(np.abs(A))),
    }
    # random unit vectors exceed the swapped formulas on the non-square matrices
    with negative_control("deora-sec-2", "induced-norm-random-search"):
        checks.check_deora_induced_norms(formulas=wrong)


def test_nc_deora_norms_1inf_as_row_sum():
    wrong = {
        "2,inf": lambda A: float(np.max(np.linalg.norm(A, axis=1))),
        "1,2": lambda A: float(np.max(np.linalg.norm(A, axis=0))),
        "1,inf": lambda A: float(np.max(np.abs(A).sum(axis=1))),  # the (inf,inf) norm, too large
    }
    with negative_control("deora-sec-2", "induced-norm-formulas"):
        checks.check_deora_induced_norms(formulas=wrong)


def test_nc_review_norm_slip_needs_a_wrong_printed_formula():
    with negative_control("deora-sec-2", "review-norm-slip", match="NOT confirmed"):
        checks.check_review_norm_slip(printed=lambda A: float(np.max(np.linalg.norm(A, axis=0))))


def test_nc_head_max_norm_uses_sum():
    with negative_control("deora-sec-2", "head-max-norm"):
        checks.check_head_max_norm(norm=lambda th, H: float(np.linalg.norm(th)))

