"""Bound calculators for Trauger & Tewari, Sec. 4.3 and Appendices E-F (multi-layer covering numbers).

Every bound is a log-covering number of the form ``A / eps^2``; the functions return the
constant ``A`` (``*_constant``) or ``A / eps^2`` (``log_cover_*``).  Two readings are
implemented side by side:

* **printed**: the formulas exactly as in Theorem 4.2, Corollary 4.2.1 and Corollaries
  F.0.1 / F.0.2 (``alpha_i``, ``tau_i``, ``gamma``, ``eta``, result ``(gamma + eta)^3``);
* **proof**: what the proof in Appendix E yields.  The unrolled error bound has one term
  ``beta_j eps_j`` per covered matrix, and Lemma E.1 turns the pairs ``(C_j, beta_j)`` into
  ``gamma_pf^3 / eps^2`` with ``gamma_pf = sum_j C_j^(1/3) beta_j^(2/3)``
  (:func:`thm42_proof_pairs`).

Parameter names (all non-negative reals unless said otherwise):

``C1``     log-covering constant of every linear class on inputs with ``||x||_2 <= 1``;
``CBx``    the same on inputs with ``||x||_2 <= Bx`` (used at layer 1);
``L``      number of layers (integer >= 1);
``L_sigma`` Lipschitz constant of the activation;
``B_c2``, ``B_v2``, ``B_qk2``  spectral-norm bounds on ``W_c^T``, ``W_v^T``, ``W_QK``;
``B_w``    l2 bound on the read-out ``w``;
``Bx``     l2 bound on the input tokens.

Nothing here depends on the sequence length ``T``: that is the point of the paper.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from attention_theory.validation import as_vector, check_int, check_positive, refuses_overflow

__all__ = [
    "alphas",
    "lemma_e1_gamma",
    "lemma_e1_allocation",
    "lemma_e1_minimum",
    "thm42_printed_terms",
    "thm42_printed_constant",
    "thm42_proof_pairs",
    "thm42_proof_constant",
    "log_cover_thm42",
    "lemma36_class_constants",
    "cor421_constants",
    "cor421_printed_constant",
    "cor421_proof_constant",
    "cor421_order_printed",
    "cor421_order_corrected",
    "corf01_constants",
    "corf01_printed_constant",
    "corf01_class_constants",
    "corf01_proof_constant",
    "corf02_printed_constant",
    "dudley_rademacher",
]


def _nonneg(x: float, name: str) -> float:
    return check_positive(x, name, allow_zero=True)


def _common(L: int, L_sigma: float, B_c2: float, B_v2: float, B_qk2: float,
            B_w: float) -> tuple[int, float, float, float, float, float]:
    return (check_int(L, "L"), _nonneg(L_sigma, "L_sigma"), _nonneg(B_c2, "B_c2"),
            _nonneg(B_v2, "B_v2"), _nonneg(B_qk2, "B_qk2"), _nonneg(B_w, "B_w"))


def alphas(L: int, L_sigma: float, B_c2: float, B_v2: float, B_qk2: float, *, H: int = 1) -> np.ndarray:
    """``alpha_i = prod_{j=i+1}^{L} H L_sigma B_c2 B_v2 (1 + 4 B_qk2)`` for ``i = 1..L``, shape ``(L,)``.

    ``alpha_i`` is the factor by which an error created at layer ``i`` can be amplified by
    the layers above it (Lemma E.2 applied ``L - i`` times); ``H`` heads per layer multiply
    each layer's factor by ``H``.
    """
    L = check_int(L, "L")
    H = check_int(H, "H")
    rho = H * _nonneg(L_sigma, "L_sigma") * _nonneg(B_c2, "B_c2") * _nonneg(B_v2, "B_v2") * (
        1 + 4 * _nonneg(B_qk2, "B_qk2"))
    return np.array([rho ** (L - i) for i in range(1, L + 1)], dtype=np.float64)


# ---------------------------------------------------------------------------
# Lemma E.1
# ---------------------------------------------------------------------------


def _pairs(C: Sequence[float], beta: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    C = as_vector(C, "C", finite=False)
    beta = as_vector(beta, "beta", finite=False)
    if C.shape != beta.shape or C.size == 0:
        raise ValueError(f"C and beta must be non-empty and of equal length, got {C.size} and {beta.size}")
    if not (np.all(np.isfinite(C)) and np.all(C > 0)):
        raise ValueError("C must contain finite values > 0")
    if not (np.all(np.isfinite(beta)) and np.all(beta > 0)):
        raise ValueError("beta must contain finite values > 0")
    return C, beta


def lemma_e1_gamma(C: Sequence[float], beta: Sequence[float]) -> float:
    """``gamma = sum_i C_i^(1/3) beta_i^(2/3)`` (Lemma E.1); ``C``, ``beta`` of shape ``(n,)``, entries >
    0."""
    C, beta = _pairs(C, beta)
    return float(np.sum(np.cbrt(C) * np.cbrt(beta) ** 2))


@refuses_overflow
def lemma_e1_allocation(C: Sequence[float], beta: Sequence[float], eps: float) -> np.ndarray:
    """The minimising resolutions ``eps_i = (eps / gamma) (C_i / beta_i)^(1/3)``, shape ``(n,)``.

    They satisfy ``sum_i beta_i eps_i = eps`` and give ``sum_i C_i / eps_i^2 = gamma^3 / eps^2``.
    """
    C, beta = _pairs(C, beta)
    eps = check_positive(eps, "eps")
    return eps / lemma_e1_gamma(C, beta) * np.cbrt(C / beta)


@refuses_overflow
def lemma_e1_minimum(C: Sequence[float], beta: Sequence[float], eps: float) -> float:
    """``min { sum C_i / eps_i^2 : eps_i > 0, sum beta_i eps_i = eps } = gamma^3 / eps^2``."""
    eps = check_positive(eps, "eps")
    return lemma_e1_gamma(C, beta) ** 3 / eps ** 2


# ---------------------------------------------------------------------------
# Theorem 4.2
# ---------------------------------------------------------------------------


@refuses_overflow
def thm42_printed_terms(C1: float, CBx: float, L: int, L_sigma: float, B_c2: float, B_v2: float,
                        B_qk2: float, B_w: float) -> dict[str, object]:
    """``alpha``, ``tau`` (shape ``(L,)``), ``gamma`` and ``eta`` exactly as printed in Theorem 4.2.

    ``tau_i = alpha_i^(2/3) + (2 alpha_i L_sigma B_c2 B_v2)^(2/3) + (alpha_i L_sigma B_v2)^(2/3)``,
    ``gamma = CBx^(1/3) (2 L_sigma B_c2 B_v2 alpha_1 B_w)^(2/3) + C1^(1/3) (1 + (B_w L_sigma B_v2)^(2/3))``,
    ``eta = C1^(1/3) B_w^(2/3) sum_{i=2}^{L} tau_i``.
    """
    L, Ls, Bc, Bv, Bq, Bw = _common(L, L_sigma, B_c2, B_v2, B_qk2, B_w)
    C1, CBx = _nonneg(C1, "C1"), _nonneg(CBx, "CBx")
    a = alphas(L, Ls, Bc, Bv, Bq)
    c = np.cbrt
    tau = c(a) ** 2 + c(2 * a * Ls * Bc * Bv) ** 2 + c(a * Ls * Bv) ** 2
    gamma = float(c(CBx) * c(2 * Ls * Bc * Bv * a[0] * Bw) ** 2 + c(C1) * (1 + c(Bw * Ls * Bv) ** 2))
    eta = float(c(C1) * c(Bw) ** 2 * tau[1:].sum())
    return {"alpha": a, "tau": tau, "gamma": gamma, "eta": eta}


@refuses_overflow
def thm42_printed_constant(C1: float, CBx: float, L: int, L_sigma: float, B_c2: float, B_v2: float,
                           B_qk2: float, B_w: float) -> float:
    """Theorem 4.2 as printed: the constant ``(gamma + eta)^3`` of ``log N <= (gamma + eta)^3 / eps^2``."""
    t = thm42_printed_terms(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w)
    return (t["gamma"] + t["eta"]) ** 3


@refuses_overflow
def thm42_proof_pairs(C1: float, CBx: float, L: int, L_sigma: float, B_c2: float, B_v2: float,
                      B_qk2: float, B_w: float, *, Bx: float = 1.0, value_layer1: str = "CBx",
                      C_c: float | None = None, H: int = 1) -> list[tuple[str, float, float]]:
    """The ``(name, C_j, beta_j)`` pairs of the unrolled error bound (App. E), one per covered matrix.

    * read-out ``w``: ``(C1, 1)``;
    * layer ``i``: ``W_c``: ``(C_c, B_w alpha_i)``; ``W_v``: ``(C_(i), B_w alpha_i L_sigma B_c2)``;
      ``W_QK``: ``(C_(i), 2 B_w alpha_i L_sigma B_c2 B_v2 rho_i^2)``,

    with ``C_(1) = CBx``, ``C_(i) = C1`` for ``i >= 2``, ``rho_1 = max(1, Bx)`` and ``rho_i = 1``
    (the layer-1 factor ``rho_1^2`` is the correction of Lemma E.2 for ``Bx > 1``).
    ``value_layer1="C1"`` reproduces the text, which covers ``W_v^(1)`` on the unit ball.
    ``C_c`` (default ``C1``) is the constant for the inputs of ``W_c``, whose norms are
    at most ``L_sigma``: the default is valid for ``L_sigma <= 1``.  With ``H`` heads
    every layer pair appears ``H`` times and ``alpha`` uses :func:`alphas` with ``H``.
    """
    L, Ls, Bc, Bv, Bq, Bw = _common(L, L_sigma, B_c2, B_v2, B_qk2, B_w)
    C1, CBx, Bx = _nonneg(C1, "C1"), _nonneg(CBx, "CBx"), check_positive(Bx, "Bx")
    if value_layer1 not in ("CBx", "C1"):
        raise ValueError(f"value_layer1 must be 'CBx' or 'C1', got {value_layer1!r}")
    C_c = C1 if C_c is None else _nonneg(C_c, "C_c")
    H = check_int(H, "H")
    a = alphas(L, Ls, Bc, Bv, Bq, H=H)
    pairs: list[tuple[str, float, float]] = [("w", C1, 1.0)]
    for i in range(1, L + 1):
        Ci = CBx if i == 1 else C1
        Cv = (CBx if value_layer1 == "CBx" else C1) if i == 1 else C1
        rho2 = max(1.0, Bx) ** 2 if i == 1 else 1.0
        ai = float(a[i - 1])
        for h in range(H):
            tag = f"^({i})" if H == 1 else f"^({i},{h + 1})"
            pairs += [(f"W_c{tag}", C_c, Bw * ai),
                      (f"W_v{tag}", Cv, Bw * ai * Ls * Bc),
                      (f"W_QK{tag}", Ci, 2 * Bw * ai * Ls * Bc * Bv * rho2)]
    return pairs


@refuses_overflow
def thm42_proof_constant(C1: float, CBx: float, L: int, L_sigma: float, B_c2: float, B_v2: float,
                         B_qk2: float, B_w: float, **kwargs: object) -> float:
    """``gamma_pf^3`` with ``gamma_pf = sum_j C_j^(1/3) beta_j^(2/3)`` over :func:`thm42_proof_pairs`.

    Pairs with ``C_j = 0`` or ``beta_j = 0`` contribute nothing.  Keyword arguments are those of
    :func:`thm42_proof_pairs`.
    """
    pairs = thm42_proof_pairs(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w, **kwargs)  # type: ignore[arg-type]
    g = sum(np.cbrt(C) * np.cbrt(b) ** 2 for _, C, b in pairs)
    return float(g) ** 3


@refuses_overflow
def log_cover_thm42(eps: float, C1: float, CBx: float, L: int, L_sigma: float, B_c2: float,
                    B_v2: float, B_qk2: float, B_w: float, *, variant: str = "proof",
                    **kwargs: object) -> float:
    """Theorem 4.2's bound on ``log N_inf(G_scalar, eps, m)``: ``A / eps^2``.

    ``variant="printed"`` uses :func:`thm42_printed_constant`, ``"proof"`` uses
    :func:`thm42_proof_constant` (keyword arguments go to it).
    """
    eps = check_positive(eps, "eps")
    if variant == "printed":
        A = thm42_printed_constant(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w)
    elif variant == "proof":
        A = thm42_proof_constant(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w, **kwargs)
    else:
        raise ValueError(f"variant must be 'printed' or 'proof', got {variant!r}")
    return A / eps ** 2


# ---------------------------------------------------------------------------
# Corollaries: plugging linear covering constants into Theorem 4.2
# ---------------------------------------------------------------------------


@refuses_overflow
def lemma36_class_constants(d: int, k: int, B: float, Bx: float = 1.0) -> dict[str, float]:
    """Lemma 3.6 constants ``B^2 r^2 log(2 * in * out + 1)`` of the four linear classes.

    ``r`` is the input radius (1, or ``Bx`` with key suffix ``"_Bx"``).  Classes:
    ``W_c^T`` (k -> d), ``W_v^T`` (d -> k), ``W_QK`` (d -> d), ``w`` (d -> 1).
    """
    d, k = check_int(d, "d"), check_int(k, "k")
    B, Bx = check_positive(B, "B"), check_positive(Bx, "Bx")
    base = {"W_c": math.log(2 * d * k + 1), "W_v": math.log(2 * d * k + 1),
            "W_QK": math.log(2 * d * d + 1), "w": math.log(2 * d + 1)}
    out = {name: B * B * v for name, v in base.items()}
    out.update({f"{name}_Bx": B * B * Bx * Bx * v for name, v in base.items()})
    return out


@refuses_overflow
def cor421_constants(d: int, k: int, B: float, Bx: float) -> tuple[float, float]:
    """Corollary 4.2.1 as printed: ``C1 = B^2 ln(2dk+1)``, ``CBx = B^2 Bx^2 ln(2dk+1)``."""
    d, k = check_int(d, "d"), check_int(k, "k")
    B, Bx = check_positive(B, "B"), check_positive(Bx, "Bx")
    lg = math.log(2 * d * k + 1)
    return B * B * lg, B * B * Bx * Bx * lg


@refuses_overflow
def cor421_printed_constant(d: int, k: int, B: float, Bx: float, L: int, L_sigma: float, B_c2: float,
                            B_v2: float, B_qk2: float, B_w: float) -> float:
    """Corollary 4.2.1 as printed: Theorem 4.2's printed ``(gamma + eta)^3`` with :func:`cor421_constants`."""
    C1, CBx = cor421_constants(d, k, B, Bx)
    return thm42_printed_constant(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w)


@refuses_overflow
def cor421_proof_constant(d: int, k: int, B: float, Bx: float, L: int, L_sigma: float, B_c2: float,
                          B_v2: float, B_qk2: float, B_w: float) -> float:
    """What the proof certifies with Lemma 3.6 covers: ``C1`` and ``CBx`` the *largest* per-class
    constant (:func:`lemma36_class_constants`, so ``ln(2 d max(d, k) + 1)``), layer-1
    factor ``max(1, Bx)^2``, and ``W_v^(1)`` covered on the ``Bx`` ball."""
    cc = lemma36_class_constants(d, k, B, Bx)
    C1 = max(cc["W_c"], cc["W_v"], cc["W_QK"], cc["w"])
    CBx = max(cc["W_v_Bx"], cc["W_QK_Bx"])
    C_c = C1 * max(1.0, check_positive(L_sigma, "L_sigma")) ** 2
    return thm42_proof_constant(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w, Bx=Bx, C_c=C_c)


@refuses_overflow
def cor421_order_printed(B: float, Bx: float, B_w: float, L: int, L_sigma: float, B_c2: float,
                         B_v2: float, B_qk2: float, *, exponent_per_layer: float = 3.0,
                         constant: float = 1.0) -> float:
    """The order-of-magnitude form printed after Cor. 4.2.1, with its hidden pieces made explicit:
    ``constant * B^2 Bx^2 B_w^2 (L_sigma B_c2 B_v2 B_qk2)^(exponent_per_layer * L)``."""
    L = check_int(L, "L")
    prod = (_nonneg(L_sigma, "L_sigma") * _nonneg(B_c2, "B_c2") * _nonneg(B_v2, "B_v2")
            * _nonneg(B_qk2, "B_qk2"))
    return (check_positive(constant, "constant") * check_positive(B, "B") ** 2 * check_positive(Bx, "Bx") ** 2
            * _nonneg(B_w, "B_w") ** 2 * prod ** (check_positive(exponent_per_layer, "exponent_per_layer")
                                                  * L))


@refuses_overflow
def cor421_order_corrected(d: int, k: int, B: float, Bx: float, B_w: float, L: int, L_sigma: float,
                           B_c2: float, B_v2: float, B_qk2: float) -> float:
    """A rigorous closed-form upper bound on :func:`cor421_proof_constant` of order-of-magnitude shape:

    ``64 L^3 C_max max(1, B_w)^2 P^2 M^(2(L-1))`` with ``C_max = B^2 max(1, Bx)^2 max(1, L_sigma)^2
    ln(2 d max(d, k) + 1)``, ``P = max(1, L_sigma B_c2, 2 L_sigma B_c2 B_v2 max(1, Bx)^2)`` and
    ``M = max(1, L_sigma B_c2 B_v2 (1 + 4 B_qk2))``.  Note ``(1 + 4 B_qk2)`` and the ``max(1, .)``.
    """
    L, Ls, Bc, Bv, Bq, Bw = _common(L, L_sigma, B_c2, B_v2, B_qk2, B_w)
    d, k = check_int(d, "d"), check_int(k, "k")
    B, Bx = check_positive(B, "B"), check_positive(Bx, "Bx")
    Cmax = B * B * max(1.0, Bx) ** 2 * max(1.0, Ls) ** 2 * math.log(2 * d * max(d, k) + 1)
    P = max(1.0, Ls * Bc, 2 * Ls * Bc * Bv * max(1.0, Bx) ** 2)
    M = max(1.0, Ls * Bc * Bv * (1 + 4 * Bq))
    return 64 * L ** 3 * Cmax * max(1.0, Bw) ** 2 * P ** 2 * M ** (2 * (L - 1))


@refuses_overflow
def corf01_constants(d: int, k: int, B: float, Bx: float) -> tuple[float, float]:
    """Corollary F.0.1 as printed: ``C1 = d B^2 ln(2k+1)``, ``CBx = d B^2 Bx^2 ln(2k+1)``."""
    d, k = check_int(d, "d"), check_int(k, "k")
    B, Bx = check_positive(B, "B"), check_positive(Bx, "Bx")
    lg = math.log(2 * k + 1)
    return d * B * B * lg, d * B * B * Bx * Bx * lg


@refuses_overflow
def corf01_printed_constant(d: int, k: int, B: float, Bx: float, L: int, L_sigma: float, B_c2: float,
                            B_v2: float, B_qk2: float, B_w: float) -> float:
    """Corollary F.0.1 as printed: Theorem 4.2's printed ``(gamma + eta)^3`` with :func:`corf01_constants`."""
    C1, CBx = corf01_constants(d, k, B, Bx)
    return thm42_printed_constant(C1, CBx, L, L_sigma, B_c2, B_v2, B_qk2, B_w)


@refuses_overflow
def corf01_class_constants(d: int, k: int, B: float) -> dict[str, float]:
    """Valid Lemma 3.3 constants on the *l2* unit ball: an ``(out x in)`` class with column-l1
    bound ``B`` on inputs ``||x||_1 <= sqrt(in)`` gives ``in^2 B^2 ln(2 out + 1)``.

    ``W_c^T``: in ``k``, out ``d``; ``W_v^T``: in ``d``, out ``k``; ``W_QK``: ``d -> d``; ``w``: ``d -> 1``.
    """
    d, k = check_int(d, "d"), check_int(k, "k")
    B = check_positive(B, "B")
    return {"W_c": k * k * B * B * math.log(2 * d + 1), "W_v": d * d * B * B * math.log(2 * k + 1),
            "W_QK": d * d * B * B * math.log(2 * d + 1), "w": d * d * B * B * math.log(3)}


@refuses_overflow
def corf01_proof_constant(d: int, k: int, B: float, Bx: float, L: int, L_sigma: float, B_c2: float,
                          B_v2: float, B_qk2: float, B_w: float) -> float:
    """What the proof certifies with Lemma 3.3 covers on l2-bounded inputs: ``C1`` the largest of
    :func:`corf01_class_constants`, ``CBx = Bx^2 C1``, ``C_c = max(1, L_sigma)^2 C1``, layer-1
    factor ``max(1, Bx)^2`` (Theorem 4.2's proof constant with these inputs)."""
    C1 = max(corf01_class_constants(d, k, B).values())
    Bx = check_positive(Bx, "Bx")
    C_c = C1 * max(1.0, check_positive(L_sigma, "L_sigma")) ** 2
    return thm42_proof_constant(C1, C1 * Bx * Bx, L, L_sigma, B_c2, B_v2, B_qk2, B_w, Bx=Bx, C_c=C_c)


@refuses_overflow
def corf02_printed_constant(d: int, k: int, B: float, *, hidden_constant: float = 1.0) -> float:
    """Corollary F.0.2's ``C1 = B^2 ln(dk)`` (Lemma 3.4 hides a constant; pass it as ``hidden_constant``)."""
    d, k = check_int(d, "d"), check_int(k, "k")
    return check_positive(hidden_constant, "hidden_constant") * check_positive(B, "B") ** 2 * math.log(d * k)


# ---------------------------------------------------------------------------
# Sec. 4.3 (a): Dudley
# ---------------------------------------------------------------------------


def dudley_rademacher(A: float, m: int, R: float, *, c_D: float = 12.0) -> float:
    """Rademacher bound from ``log N(eps) <= A / eps^2`` and ``|f| <= R`` by Dudley's integral.

    ``c_D inf_{0 < delta <= R} (delta + int_delta^R sqrt(A / (m eps^2)) d eps)``, which equals
    ``c_D sqrt(A/m) (1 + ln(R sqrt(m / A)))`` when ``sqrt(A/m) <= R`` and ``c_D R`` otherwise.
    For the scalar Transformer ``R = B_w`` (the rows of the last block have norm <= 1).
    """
    A = _nonneg(A, "A")
    m = check_int(m, "m")
    R = check_positive(R, "R")
    c_D = check_positive(c_D, "c_D")
    s = math.sqrt(A / m)
    if s == 0.0:
        return 0.0
    if s >= R:
        return c_D * R
    return c_D * s * (1 + math.log(R / s))
