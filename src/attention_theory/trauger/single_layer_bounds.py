"""Closed-form calculators for Trauger & Tewari, Thm. 4.1, its corollaries and Sec. 4.2 / Thm. 5.1.

The theorems are stated with ``O(.)``; these functions evaluate the *explicit pre-O
expression* of the proof in App. C, with Dudley's constant fixed at ``c_D = 12`` (the
book's choice, justified in the Foundations chapter, ``trauger-eq-2-4``).  Notation:

* ``B = B_w B_Wc L_sigma B_Wv`` (the product of the outer norm bounds),
* ``C``: the constant of a linear covering bound ``log N(eps) <= C / eps^2`` for
  ``x -> W_QK x`` on inputs of norm ``<= B_x``,
* ``a = sqrt(ln(2d)/m)``, ``b = 2 B_x^2 sqrt(C/m)``, and for ``0 < delta <= B_x``
  ``h(delta) = delta + (B_x - delta) a + b ln(B_x / delta)``  (App. C, Dudley step).

The proof gives ``Rad_m <= 2 c_D B inf_{0 < delta <= B_x} h(delta)`` (the factor 2 is the
sign removal of eq. C.2).  ``h`` is convex, so the infimum is at
``min(delta*, B_x)`` with ``delta* = b / (1 - a)`` (and at ``B_x`` when ``a >= 1``).  The paper
always plugs in ``delta*``; :func:`dudley_inf_printed` does the same, and can be negative.

No function here depends on the sequence length ``T`` (except :func:`edelman_type_bound`,
which illustrates a bound whose covering step does).  :func:`dudley_grid`,
:func:`dudley_closed_form_values` and :func:`dudley_quadrature_values` evaluate the closed forms
on the grid of the checks of eq. C.6 (:mod:`attention_theory.trauger.checks.single_layer`).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from attention_theory.config import pick
from attention_theory.validation import (
    check_callable,
    check_int,
    check_positive,
    check_real,
    refuses_overflow,
)

__all__ = [
    "C_DUDLEY",
    "dudley_a_b",
    "dudley_h",
    "delta_star",
    "dudley_inf",
    "dudley_inf_printed",
    "dudley_inf_numeric",
    "thm41_bound",
    "thm41_printed_expression",
    "trivial_bound",
    "C_lemma36",
    "C_lemma33",
    "C_lemma34",
    "cor411_bound",
    "cord01_bound",
    "cord01_printed_expression",
    "multihead_bound",
    "edelman_type_bound",
    "thm51_maurer_bound",
    "dudley_grid",
    "dudley_closed_form_values",
    "dudley_quadrature_values",
]

#: Dudley's constant used for every explicit bound in the book (see ``trauger-eq-2-4``).
C_DUDLEY = 12.0


def _common(Bx: float, C: float, m: int, d: int) -> tuple[float, float, int, int]:
    Bx = check_positive(Bx, "Bx")
    C = check_positive(C, "C", allow_zero=True)
    m = check_int(m, "m")
    d = check_int(d, "d")
    return Bx, C, m, d


@refuses_overflow
def dudley_a_b(Bx: float, C: float, m: int, d: int) -> tuple[float, float]:
    """``(a, b) = (sqrt(ln(2d)/m), 2 B_x^2 sqrt(C/m))``."""
    Bx, C, m, d = _common(Bx, C, m, d)
    return math.sqrt(math.log(2 * d) / m), 2 * Bx**2 * math.sqrt(C / m)


@refuses_overflow
def dudley_h(delta: float, Bx: float, C: float, m: int, d: int) -> float:
    """``h(delta) = delta + (B_x - delta) a + b ln(B_x/delta)`` for ``0 < delta <= B_x``."""
    delta = check_positive(delta, "delta")
    a, b = dudley_a_b(Bx, C, m, d)
    if delta > Bx * (1 + 1e-12):
        raise ValueError(f"delta must be <= Bx = {Bx}, got {delta}")
    return delta + (Bx - delta) * a + b * math.log(Bx / delta)


@refuses_overflow
def delta_star(Bx: float, C: float, m: int, d: int) -> float:
    """Unconstrained minimiser ``b / (1 - a) = 2 B_x^2 sqrt(C) / (sqrt(m) - sqrt(ln 2d))``; needs ``m >
    ln(2d)``."""
    a, b = dudley_a_b(Bx, C, m, d)
    if a >= 1:
        raise ValueError(f"delta* needs m > ln(2d); got m={m}, ln(2d)={math.log(2 * d):.4g}")
    return b / (1 - a)


@refuses_overflow
def dudley_inf(Bx: float, C: float, m: int, d: int) -> float:
    """``inf_{0 < delta <= B_x} h(delta)`` exactly: ``h(min(delta*, B_x))`` (``B_x`` when ``a >= 1`` or ``C =
    0``)."""
    Bx, C, m, d = _common(Bx, C, m, d)
    a, b = dudley_a_b(Bx, C, m, d)
    if b == 0:  # h(delta) = delta (1 - a) + B_x a: infimum at delta -> 0 if a < 1
        return Bx * a if a < 1 else Bx
    if a >= 1:
        return Bx
    return dudley_h(min(b / (1 - a), Bx), Bx, C, m, d)


@refuses_overflow
def dudley_inf_printed(Bx: float, C: float, m: int, d: int) -> float:
    """App. C's closed form ``b + B_x a + b ln((sqrt m - sqrt ln 2d) / (2 B_x sqrt C))`` = ``h(delta*)``.

    Valid only when ``delta* <= B_x``; otherwise it lies below the infimum and can be negative.
    """
    Bx, C, m, d = _common(Bx, C, m, d)
    check_positive(C, "C")
    a, b = dudley_a_b(Bx, C, m, d)
    if a >= 1:
        raise ValueError(f"the closed form needs m > ln(2d); got m={m}")
    return b + Bx * a + b * math.log((math.sqrt(m) - math.sqrt(math.log(2 * d))) / (2 * Bx * math.sqrt(C)))


@refuses_overflow
def dudley_inf_numeric(Bx: float, C: float, m: int, d: int) -> float:
    """Numerical ``inf h`` on ``(0, B_x]`` (bounded scalar minimisation in ``log delta``, plus the
    endpoint)."""
    from scipy.optimize import minimize_scalar

    Bx, C, m, d = _common(Bx, C, m, d)
    a, b = dudley_a_b(Bx, C, m, d)

    def h(s: float) -> float:
        delta = Bx * math.exp(s)
        return delta + (Bx - delta) * a + b * (-s)

    res = minimize_scalar(h, bounds=(-60.0, 0.0), method="bounded",
                          options={"xatol": 1e-12, "maxiter": 1000})
    return float(min(res.fun, h(0.0)))


@refuses_overflow
def thm41_bound(B: float, Bx: float, C: float, m: int, d: int, *, c_D: float = C_DUDLEY) -> float:
    """Theorem 4.1, explicit form of the proof: ``2 c_D B inf_{0<delta<=B_x} h(delta)``.

    ``B = B_w B_Wc L_sigma B_Wv`` (corrected, column-wise hypotheses on ``W_c, W_v``).
    Valid for every ``m >= 1``; independent of the sequence length ``T``.
    """
    B = check_positive(B, "B")
    c_D = check_positive(c_D, "c_D")
    return 2 * c_D * B * dudley_inf(Bx, C, m, d)


@refuses_overflow
def thm41_printed_expression(B: float, Bx: float, C: float, m: int, d: int) -> float:
    """The expression inside Theorem 4.1's ``O(.)``, as printed:

    ``B (2 B_x^2 sqrt(C)/sqrt(m) (1 + ln(sqrt(m) / (2 B_x sqrt C))) + B_x sqrt(ln(2d)/m))``.
    """
    B = check_positive(B, "B")
    Bx, C, m, d = _common(Bx, C, m, d)
    check_positive(C, "C")
    lead = 2 * Bx**2 * math.sqrt(C) / math.sqrt(m)
    return B * (lead * (1 + math.log(math.sqrt(m) / (2 * Bx * math.sqrt(C))))
                + Bx * math.sqrt(math.log(2 * d) / m))


def trivial_bound(B: float, Bx: float) -> float:
    """``|f| <= B B_x`` pointwise (``||x||_inf <= ||x||_2 <= B_x``), hence ``Rad_m <= B B_x``."""
    return check_positive(B, "B") * check_positive(Bx, "Bx")


@refuses_overflow
def C_lemma36(Bx: float, B_qk: float, d: int) -> float:
    """Cor. 4.1.1: Lemma 3.6 with ``k = d``: ``C = B_x^2 B_QK^2 ln(2 d^2 + 1)`` (``||W_QK||_{1,1} <=
    B_QK``)."""
    Bx, B_qk, d = check_positive(Bx, "Bx"), check_positive(B_qk, "B_qk"), check_int(d, "d")
    return Bx**2 * B_qk**2 * math.log(2 * d**2 + 1)


@refuses_overflow
def C_lemma33(Bx: float, B_qk: float, d: int) -> float:
    """Cor. D.0.1: Lemma 3.3 with ``k = d``: ``C = d B_QK^2 B_x^2 ln(2d + 1)`` (l1 inputs, column-l1
    ``W_QK``)."""
    d = check_int(d, "d")
    return d * check_positive(Bx, "Bx")**2 * check_positive(B_qk, "B_qk")**2 * math.log(2 * d + 1)


@refuses_overflow
def C_lemma34(Bx: float, B_qk: float, d: int, *, constant: float = 1.0) -> float:
    """Cor. D.0.2: Lemma 3.4 with ``k = d`` and its hidden constant explicit: ``constant * 2 B_QK^2 B_x^2 ln
    d``."""
    d = check_int(d, "d", minimum=2)
    return (check_positive(constant, "constant") * 2 * check_positive(B_qk, "B_qk")**2
            * check_positive(Bx, "Bx")**2 * math.log(d))


def _printed_alpha_form(B: float, Bx: float, alpha: float, m: int, d: int, *, minus_log: bool) -> float:
    B = check_positive(B, "B")
    Bx = check_positive(Bx, "Bx")
    m, d = check_int(m, "m"), check_int(d, "d")
    num = math.sqrt(m) - (math.sqrt(math.log(2 * d)) if minus_log else 0.0)
    return B * (Bx**3 * alpha / math.sqrt(m) * (1 + math.log(num / (Bx**2 * alpha)))
                + Bx * math.sqrt(math.log(2 * d) / m))


@refuses_overflow
def cor411_bound(B: float, Bx: float, B_qk: float, m: int, d: int, *, c_D: float = C_DUDLEY) -> float:
    """Corollary 4.1.1 (``||W_QK||_{1,1} <= B_QK``, l2 tokens), explicit: :func:`thm41_bound` with
    :func:`C_lemma36`."""
    return thm41_bound(B, Bx, C_lemma36(Bx, B_qk, d), m, d, c_D=c_D)


@refuses_overflow
def cord01_bound(B: float, Bx: float, B_qk: float, m: int, d: int, *, c_D: float = C_DUDLEY) -> float:
    """Corollary D.0.1 (``||x||_1 <= B_x``, column-l1 ``W_QK``), explicit, with :func:`C_lemma33`.

    With l1-bounded tokens ``||x||_2 <= ||x||_1 <= B_x``, so the Thm 4.1 chain applies verbatim.
    """
    return thm41_bound(B, Bx, C_lemma33(Bx, B_qk, d), m, d, c_D=c_D)


@refuses_overflow
def cord01_printed_expression(B: float, Bx: float, B_qk: float, m: int, d: int) -> float:
    """Cor. D.0.1 as printed, ``alpha = 2 B_QK sqrt(d ln(2d+1))`` and ``ln((sqrt m - sqrt ln 2d)/(B_x^2
    alpha))``."""
    d = check_int(d, "d")
    alpha = 2 * check_positive(B_qk, "B_qk") * math.sqrt(d * math.log(2 * d + 1))
    return _printed_alpha_form(B, Bx, alpha, m, d, minus_log=True)


def multihead_bound(H: int, single_head_bound: float) -> float:
    """Sec. 4.2: ``H`` heads with identical norm bounds cost at most ``H`` times one head."""
    return check_int(H, "H") * check_positive(single_head_bound, "single_head_bound")


def edelman_type_bound(B: float, Bx: float, B_qk: float, m: int, d: int, T: int, *,
                       c_D: float = C_DUDLEY) -> float:
    """A bound with the *shape* of Edelman et al. (2022): the same chain, but the attention scores
    are covered on the ``m T`` token points with a point-count-dependent linear cover,
    ``log N(eps) <= B_x^2 B_QK^2 ln(2 m T + 1) / eps^2`` (Zhang 2002), instead of Lemma 3.6.

    It grows like ``sqrt(log T)``.  Their published constants and norm classes differ; this
    calculator isolates the one feature the comparison is about.
    """
    T = check_int(T, "T")
    m = check_int(m, "m")
    C = check_positive(Bx, "Bx")**2 * check_positive(B_qk, "B_qk")**2 * math.log(2 * m * T + 1)
    return thm41_bound(B, Bx, C, m, d, c_D=c_D)


def thm51_maurer_bound(K: int, scalar_bound: float, *, lipschitz_l2: float = math.sqrt(2.0)) -> float:
    """Word masking, fully explicit: ``Rad(loss o F) <= sqrt(2) L_2 K max_s Rad(F_s)``.

    Maurer's vector contraction with the l2-Lipschitz constant ``L_2 = sqrt 2`` of the
    cross-entropy in its logits (``||softmax(x) - e_y||_2 <= sqrt 2``), followed by
    ``sup of a sum <= sum of sups`` over the ``K`` rows.  Foster & Rakhlin's
    l_inf contraction (used by the paper) replaces ``K`` by ``O~(sqrt K)`` with unstated constants.
    """
    K = check_int(K, "K")
    return math.sqrt(2.0) * check_positive(lipschitz_l2, "lipschitz_l2") * K \
        * check_positive(scalar_bound, "scalar_bound")


# ------------------------------------------- the grid of the Dudley checks of eq. C.6 (App. C)

def dudley_grid() -> list[tuple[float, float, int, int]]:
    """The ``(B_x, C, m, d)`` grid of the Dudley checks of eq. C.6: ``B_x`` in ``{0.5, 1, 2}``, ``C``
    geometric in ``[1e-3, 1e4]`` (8 values at smoke scale, 30 at full), ``m`` in ``{3, 10, 100, 1e4,
    1e6}``, ``d`` in ``{2, 8, 64}``, where ``m > ln 2d``."""
    out = []
    for Bx in (0.5, 1.0, 2.0):
        for C in np.geomspace(1e-3, 1e4, pick(8, 30)):
            for m in (3, 10, 100, 10_000, 1_000_000):
                for d in (2, 8, 64):
                    if m > math.log(2 * d):
                        out.append((Bx, float(C), m, d))
    return out

def dudley_closed_form_values(closed_form: Callable[[float, float, int, int], float],
                              clipped_form: Callable[[float, float, int, int], float]
                              ) -> dict[str, list[float]]:
    """App. C's closed form against the numerical ``inf_{0<delta<=B_x} h`` on :func:`dudley_grid`: keys
    ``closed``, ``numeric`` where ``delta* <= B_x``, and ``clipped`` (``clipped_form``), ``below``
    (the numerical infimum less ``1e-9`` relative) where ``delta* > B_x``."""
    check_callable(closed_form, "closed_form")
    check_callable(clipped_form, "clipped_form")
    comp, ref, below_l, below_r = [], [], [], []
    for Bx, C, m, d in dudley_grid():
        num = dudley_inf_numeric(Bx, C, m, d)
        if delta_star(Bx, C, m, d) <= Bx:
            comp.append(closed_form(Bx, C, m, d))
            ref.append(num)
        else:
            below_l.append(clipped_form(Bx, C, m, d))
            below_r.append(num * (1 - 1e-9) if num > 0 else num - 1e-12)
    return {"closed": comp, "numeric": ref, "clipped": below_l, "below": below_r}

def dudley_quadrature_values(*, integrand_b_factor: float = 1.0) -> tuple[list[float], list[float]]:
    """``delta + int_delta^Bx (a + integrand_b_factor b / eps) d eps`` (quadrature, ``delta = 0.3 B_x``)
    and ``h(delta)`` on every 17th (smoke) or 5th (full) point of :func:`dudley_grid`."""
    from scipy.integrate import quad

    integrand_b_factor = check_real(integrand_b_factor, "integrand_b_factor")
    q_c, q_r = [], []
    for Bx, C, m, d in dudley_grid()[:: pick(17, 5)]:
        a, b = dudley_a_b(Bx, C, m, d)
        delta = Bx * 0.3
        q_c.append(delta + quad(lambda e: a + integrand_b_factor * b / e, delta, Bx, epsabs=1e-13,
                                epsrel=1e-12)[0])
        q_r.append(dudley_h(delta, Bx, C, m, d))
    return q_c, q_r
