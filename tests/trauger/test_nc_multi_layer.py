"""Negative controls for the checks of Trauger & Tewari Sec. 4.3 and Appendices E-F,
plus unit tests of :mod:`attention_theory.trauger.multi_layer_bounds`.

Each ``test_nc_*`` runs a registered check with a deliberately wrong constant or formula
and requires :class:`ClaimViolation`.  The expensive adversarial searches are switched off
where the wrong variant is already caught by the random and isolated instances.
"""

import math

import numpy as np
import pytest

from _nc import negative_control
from attention_theory.trauger import multi_layer_bounds as bm
from attention_theory.trauger.checks import multi_layer as cml


def test_nc_e1_wrong_exponents():
    with negative_control("trauger-lemma-e-1", "scipy-optimum"):
        cml.check_e1_scipy(gamma=lambda C, b: float(np.sum(np.sqrt(C * b))))


def test_nc_e1_allocation_square_root():
    with negative_control("trauger-lemma-e-1", "closed-form-allocation"):
        cml.check_e1_scipy(allocation_power=0.5)


def test_nc_e1_lower_formula_too_high():
    with negative_control("trauger-lemma-e-1", "hoelder-random"):
        cml.check_e1_scipy(lower_gamma=lambda C, b: 1.05 * bm.lemma_e1_gamma(C, b))


def test_nc_e2_drop_lipschitz_term():
    with negative_control("trauger-lemma-e-2", "unit-rows"):
        cml.check_e2_unit_rows(c_delta=0.0, n_random=3, n_adversarial=0)


def test_nc_e2_drop_qk_term():
    with negative_control("trauger-lemma-e-2", "unit-rows"):
        cml.check_e2_unit_rows(c_qk=0.0, n_random=3, n_adversarial=0)


def test_nc_e2_radius_first_power():
    with negative_control("trauger-lemma-e-2", "general-radius"):
        cml.check_e2_general_radius(rho_power=1.0, n_random=1, n_adversarial=0)


def test_nc_e2_layer1_not_an_erratum_below_one():
    with negative_control("trauger-lemma-e-2", "layer1-printed", match="NOT confirmed"):
        cml.check_e2_layer1_printed(Bxs=(0.5, 1.0))


def test_nc_e3_drop_second_term():
    with negative_control("trauger-lemma-e-3", "readout-triangle"):
        cml.check_e3_readout(second_term=0.0)


def test_nc_eq_e1_row_reading():
    with negative_control("trauger-eq-e-1", "sup-identity"):
        cml.check_eq_e1_identity(transpose=True)


def test_nc_unrolled_drop_qk():
    with negative_control("trauger-eq-e-2", "unrolled"):
        cml.check_eq_e2_unrolled(c_qk=0.0, adversarial=False)


def test_nc_unrolled_layer1_not_an_erratum_below_one():
    with negative_control("trauger-eq-e-2", "layer1-printed", match="NOT confirmed"):
        cml.check_eq_e2_layer1_printed(Bx=1.0)


def test_nc_thm42_printed_replaced_by_proof():
    with negative_control("trauger-thm-4-2", "printed-vs-proof", match="NOT confirmed"):
        cml.check_thm42_printed_vs_proof(
            printed=lambda **kw: bm.thm42_proof_constant(**kw, value_layer1="C1"))


def test_nc_thm42_composite_cover_budget_too_small():
    with negative_control("trauger-thm-4-2", "composite-cover"):
        cml.check_thm42_composite_cover(eps_factor=20.0)


def test_nc_thm42_composite_cover_coarse_covers():
    with negative_control("trauger-thm-4-2", "composite-cover-per-matrix"):
        cml.check_thm42_composite_cover(cover_coarsening=3.0)


def test_nc_thm42_composite_cover_certificate_too_small():
    with negative_control("trauger-thm-4-2", "composite-cover-realised"):
        # the realised error reaches the certificate (read-out equality family): a certificate 100 times too
        # small
        cml.check_thm42_composite_cover(certificate_factor=0.01)


def test_nc_thm42_composite_cover_size_without_cubic_term():
    # the construction is far below gamma_pf^3/eps^2 (a quarter of it still holds), so the wrong
    # variant drops that term and keeps only the ceilings
    with negative_control("trauger-thm-4-2", "composite-cover-size"):
        cml.check_thm42_composite_cover(size_constant=lambda *a: 0.0)


def test_nc_cor421_class_constants_correct_log():
    with negative_control("trauger-cor-4-2-1", "class-constants", match="NOT confirmed"):
        cml.check_cor421_class_constants(printed_log=lambda d, k: math.log(2 * d * max(d, k) + 1))


def test_nc_cor421_order_exponent_zero_is_not_refuted():
    # a shape that does not vanish with B_qk2 (exponent 0) keeps a bounded ratio: no erratum
    with negative_control("trauger-cor-4-2-1", "order-of-magnitude", match="NOT confirmed"):
        cml.check_cor421_order(constant=1.0, exponents_per_layer=(1e-12,))


def test_nc_cor421_order_judged_at_the_smallest_exponent():
    # the printed side is judged at the smallest exponent tried (the largest form): with 1e-12
    # among the exponents, the steep growth at 3L must not confirm the erratum
    with negative_control("trauger-cor-4-2-1", "order-of-magnitude", match="NOT confirmed"):
        cml.check_cor421_order(exponents_per_layer=(3.0, 1e-12))


def test_nc_cor421_corrected_form_without_the_max():
    # dropping max(1, .) and (1 + 4 B_qk2) makes the "corrected" form too small somewhere
    def too_small(d, k, B, Bx, B_w, L, L_sigma, B_c2, B_v2, B_qk2):
        return 64 * L ** 3 * B * B * Bx ** 2 * L_sigma ** 2 * math.log(2 * d * max(d, k) + 1) * B_w ** 2 \
            * (L_sigma * B_c2 * B_v2 * B_qk2) ** (2 * (L - 1))

    with negative_control("trauger-cor-4-2-1", "corrected-upper-bound"):
        cml.check_cor421_order(corrected_form=too_small)


def test_nc_corf01_valid_constant():
    with negative_control("trauger-cor-f-0-1", "l1-vs-l2-inputs", match="NOT confirmed"):
        cml.check_corf01_l1_inputs(printed=lambda d, k, B: d * d * B * B * math.log(2 * k + 1))


def test_nc_corf02_absurd_constant():
    with negative_control("trauger-cor-f-0-2", "l2-inputs", match="NOT confirmed"):
        cml.check_corf02_l2_inputs(hidden_constant=1e9)


def test_nc_dudley_drop_log():
    with negative_control("trauger-sec-4-3", "dudley-closed-form"):
        cml.check_sec43_dudley(closed_form=lambda A, m, R, c_D=12.0: c_D * min(math.sqrt(A / m), R))


def test_nc_heads_linear():
    with negative_control("trauger-sec-4-3", "heads-exponent"):
        cml.check_sec43_heads(predicted_slope=1.0)


# --- unit tests of the bound calculators ------------------------------------

def test_thm42_catalogue_values():
    assert bm.thm42_printed_constant(1, 1, 1, 1, 1, 1, 0, 1) == pytest.approx(46.1679, rel=1e-4)
    assert bm.thm42_proof_constant(1, 1, 1, 1, 1, 1, 0, 1) == pytest.approx(96.5384, rel=1e-4)
    r = bm.thm42_printed_constant(1, 4, 3, 1, 2, .5, .5, 2) / bm.thm42_proof_constant(
        1, 4, 3, 1, 2, .5, .5, 2, value_layer1="C1")
    assert r == pytest.approx(0.2386, rel=1e-3)


def test_lemma_e1_allocation_feasible():
    C, b = [1.0, 8.0, 27.0], [1.0, 2.0, 3.0]
    e = bm.lemma_e1_allocation(C, b, 0.5)
    assert float(np.dot(b, e)) == pytest.approx(0.5)
    assert float(np.sum(np.array(C) / e ** 2)) == pytest.approx(bm.lemma_e1_minimum(C, b, 0.5))


def test_bounds_independent_of_T_and_monotone_in_L():
    vals = [bm.thm42_proof_constant(1.0, 1.0, L, 1.0, 1.0, 1.0, 0.5, 1.0) for L in range(1, 5)]
    assert all(a < b for a, b in zip(vals, vals[1:]))


def test_dudley_regimes():
    assert bm.dudley_rademacher(0.0, 10, 1.0) == 0.0
    assert bm.dudley_rademacher(100.0, 1, 1.0) == pytest.approx(12.0)
    assert bm.dudley_rademacher(1.0, 10_000, 1.0) == pytest.approx(12 * 0.01 * (1 + math.log(100)))


@pytest.mark.parametrize("call, exc", [
    (lambda: bm.lemma_e1_gamma([1.0, 2.0], [1.0]), ValueError),
    (lambda: bm.lemma_e1_gamma([0.0], [1.0]), ValueError),
    (lambda: bm.lemma_e1_allocation([1.0], [1.0], -1.0), ValueError),
    (lambda: bm.alphas(0, 1, 1, 1, 1), ValueError),
    (lambda: bm.alphas(1.5, 1, 1, 1, 1), TypeError),
    (lambda: bm.thm42_printed_constant(-1, 1, 1, 1, 1, 1, 1, 1), ValueError),
    (lambda: bm.thm42_proof_pairs(1, 1, 1, 1, 1, 1, 1, 1, value_layer1="x"), ValueError),
    (lambda: bm.log_cover_thm42(1.0, 1, 1, 1, 1, 1, 1, 1, 1, variant="other"), ValueError),
    (lambda: bm.log_cover_thm42(0.0, 1, 1, 1, 1, 1, 1, 1, 1), ValueError),
    (lambda: bm.cor421_constants(0, 1, 1.0, 1.0), ValueError),
    (lambda: bm.dudley_rademacher(1.0, 0, 1.0), ValueError),
    (lambda: bm.dudley_rademacher("a", 1, 1.0), TypeError),
])
def test_bounds_bad_input(call, exc):
    with pytest.raises(exc):
        call()


def test_corf01_proof_constant_exceeds_printed():
    kw = dict(L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=0.5, B_w=1.0)
    assert bm.corf01_proof_constant(64, 16, 1.0, 1.0, 2, **kw) > 64 * bm.corf01_printed_constant(
        64, 16, 1.0, 1.0, 2, **kw)
