"""Instances for the linear covering lemmas of Trauger & Tewari (Sec. 3, Apps. A-B).

Strict ``<`` on instance arrays, uniform draws from l_1 balls, and the packing family of
Lemma 3.4; the checks of :mod:`attention_theory.trauger.checks.linear_covering` and
:mod:`~attention_theory.trauger.checks.multi_layer` use them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from attention_theory._validate import check_int, check_positive, check_rng

__all__ = ['l34_packing_family', 'random_l1_ball', 'strictly_below']


def strictly_below(eps: float) -> float:
    """The largest float64 below ``eps``: ``lhs <= strictly_below(eps)`` means ``lhs < eps``."""
    eps = check_positive(eps, "eps", allow_zero=True)
    return float(np.nextafter(eps, -np.inf))


def random_l1_ball(rng: np.random.Generator, n: int, radius: float, size: int) -> np.ndarray:
    """``size`` points uniform in the l1 ball of radius ``radius`` in R^n, shape ``(size, n)``."""
    rng, n, size = check_rng(rng), check_int(n, "n"), check_int(size, "size")
    radius = check_positive(radius, "radius", allow_zero=True)
    e = rng.exponential(size=(size, n + 1))  # Dirichlet(1..1) on n+1 coordinates, drop the slack
    return radius * (e[:, :n] / e.sum(1, keepdims=True)) * rng.choice([-1.0, 1.0], size=(size, n))


def l34_packing_family(k: int, d: int, s: int, Bw: float = 1.0) -> np.ndarray:
    """All ``k x d`` matrices with ``s`` nonzero rows, each ``(Bw / s) v`` with ``v in {+-1/sqrt d}^d``.

    Shape ``(binom(k, s) 2^(s d), k, d)``.  Each has row-sum (2,1) norm ``Bw``; two distinct
    members are at least ``sqrt(2) Bw / (s sqrt d)`` apart in the largest column l2 norm of
    the difference (the sup metric on the scaled basis ``Bx e_i``, divided by ``Bx``).
    """
    k, d, s = check_int(k, "k"), check_int(d, "d"), check_int(s, "s")
    Bw = check_positive(Bw, "Bw")
    if s > k:
        raise ValueError(f"s must be <= k = {k}, got {s}")
    out = []
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=s * d))).reshape(-1, s, d)
    for S in itertools.combinations(range(k), s):
        for sg in signs:
            W = np.zeros((k, d))
            W[list(S)] = Bw / s * sg / math.sqrt(d)
            out.append(W)
    return np.array(out)
