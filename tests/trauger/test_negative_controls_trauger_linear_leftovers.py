"""Negative controls for the two Ch. 2 additions (Lemma 3.4 packing table, Lemma 3.6 enumerated cover)."""

import math

import numpy as np

from _nc import negative_control
from attention_theory.trauger import linear_covering
from attention_theory.trauger.checks import linear_covering as tl


def test_nc_l34_packing_log_d_only():
    with negative_control("trauger-lemma-3-4", "packing-kappa"):
        tl.check_l34_packing_kappa(rhs=lambda d, k, Bw, Bx, eps: (Bw * Bx / eps) ** 2 * math.log(d))


def test_nc_l36_enumerated_cover_one_step():
    with negative_control("trauger-lemma-3-6", "enumerated-cover"):
        tl.check_l36_explicit_cover(K_rule=lambda Bw, Bx, eps: 1)


def test_l34_packing_family_shape_and_norm():
    P = linear_covering.l34_packing_family(3, 2, 2)
    assert P.shape == (3 * 2 ** 4, 3, 2)
    assert np.allclose(np.linalg.norm(P, axis=2).sum(axis=1), 1.0)
