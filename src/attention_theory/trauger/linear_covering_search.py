"""Objectives of the adversarial searches of the linear covering checks (Trauger & Tewari, Sec. 3, Apps. A-B).

Each ``*_objective`` function validates the variant it is given (the statement's constant or
formula, which a negative control replaces) and returns ``objective(size, v)`` for
:func:`~attention_theory.search.maximize_over_sizes`: ``size`` is a tuple of small integers (and
a scale) chosen by the check, ``v`` a flat float64 vector (a torch tensor when the search takes
gradients) that the objective maps onto the constraint set; the value is the ratio LHS/RHS of the
statement, at most 1 when it holds.  The checks are in
:mod:`attention_theory.trauger.checks.linear_covering` (chapter ``book/trauger/linear-covering.md``);
their instances in :mod:`attention_theory.trauger.linear_covering`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.foundations.maurey import (
    cover_columns_l1,
    cover_flat_l1,
    cover_rows,
    enumerate_index_vectors,
    greedy_maurey,
    l1_maurey_approx,
    maurey_cover_points,
    maurey_K,
)
from attention_theory.foundations.norms import mixed_norm
from attention_theory.trauger.linear_covering import random_l1_ball
from attention_theory.validation import check_bool, check_callable, check_int, check_real

__all__ = ['app_a_row_cover_objective', 'app_b_chain_objective', 'column_cover_objective',
           'enumerated_cover_objective', 'flat_cover_objectives', 'maurey_greedy_objective',
           'maurey_tightness_objective', 'packing_objective', 'reduction_pointwise_objective',
           'row_sum_containment_objective', 'row_sum_cover_objective', 'sec34_objective']

Objective = Callable[[Any, Any], torch.Tensor]


def _t(v: object) -> torch.Tensor:
    return torch.as_tensor(v, dtype=torch.float64)


def _lq_t(v: torch.Tensor, q: float, dim: int = -1) -> torch.Tensor:
    """l_q (quasi-)norm in torch (differentiable almost everywhere)."""
    a = v.abs()
    return a.amax(dim=dim) if math.isinf(q) else (a ** q).sum(dim=dim) ** (1.0 / q)


def _into_l1_t(z: torch.Tensor, radius: float, dim: int | None = None) -> torch.Tensor:
    """Scale ``z`` (every slice along ``dim``, or all of it) into the l1 ball of ``radius``."""
    s = z.abs().sum() if dim is None else z.abs().sum(dim=dim, keepdim=True)
    return z / torch.clamp(s / radius, min=1.0)


class _CentralDifference(torch.autograd.Function):
    """A float-valued ``f(numpy vector)`` (a closed form written with ``math``) as a torch function whose
    gradient is the central difference, so the gradient adversary can search it."""

    @staticmethod
    # type: ignore[override]
    def forward(ctx, x: torch.Tensor, f: Callable[[np.ndarray], float]) -> torch.Tensor:
        ctx.f = f
        ctx.save_for_backward(x)
        return torch.as_tensor(float(f(x.detach().numpy().copy())), dtype=torch.float64)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        (x,) = ctx.saved_tensors
        z = x.detach().numpy().copy()
        out = np.zeros_like(z)
        for i in range(z.size):
            h = 1e-6 * max(1.0, abs(z[i]))
            up, dn = z.copy(), z.copy()
            up[i] += h
            dn[i] -= h
            out[i] = (ctx.f(up) - ctx.f(dn)) / (2 * h)
        return grad * torch.as_tensor(out), None


def _numeric(f: Callable[[np.ndarray], float], v: object) -> torch.Tensor:
    """``f(v)`` as a 0-d tensor; for a torch ``v`` that requires grad, with a central-difference gradient."""
    if isinstance(v, torch.Tensor) and v.requires_grad:
        return _CentralDifference.apply(v, f)
    return _t(float(f(np.asarray(v, dtype=np.float64))))


def _sigmoid(z: float) -> float:
    return 0.5 * (1.0 + math.tanh(0.5 * z))


def maurey_greedy_objective(*, gamma_power: float = 1.0) -> Objective:
    """Greedy Maurey error over ``(gamma^gamma_power b^2 - ||f||^2)/K`` (``b = 1``), sizes ``(n, m, K)``:
    ``v`` holds ``m`` atoms in R^n (mapped into the unit ball) and ``m + 1`` logits whose softmax
    (less the slack) is ``alpha``.  Check ``greedy-constructive`` of Lemma 3.1."""
    gamma_power = check_real(gamma_power, "gamma_power")

    def ratio(size: tuple[int, int, int], v: object) -> torch.Tensor:
        n, m, K = size
        v = _t(v)
        V = v[:m * n].reshape(m, n)
        V = V / torch.clamp(torch.linalg.vector_norm(V, dim=1, keepdim=True), min=1.0)
        a = torch.softmax(v[m * n:], 0)[:m]
        gamma = a.sum()
        f = a @ V
        _, counts = greedy_maurey(f.detach().numpy(), V.detach().numpy(), K)
        err = torch.sum((f - _t(counts) @ V / K) ** 2)
        return err / ((gamma ** gamma_power - f @ f) / K + 1e-12)  # <= 1 iff err <= RHS + atol

    return ratio


def maurey_tightness_objective(*, rhs_factor: float = 1.0) -> Objective:
    """Best integer approximant error over ``rhs_factor (gamma - ||f||^2)/K``, sizes ``(d, K, n)``:
    ``v`` holds ``alpha`` (``d``, into the simplex) and ``d`` atoms in R^n (normalised, ``b = 1``).
    Check ``best-integer-tightness`` of Lemma 3.1."""
    rhs_factor = check_real(rhs_factor, "rhs_factor")

    def ratio(size: tuple[int, int, int], v: object) -> torch.Tensor:
        d, K, n = size
        v = _t(v)
        a = v[:d].abs() / torch.clamp(v[:d].abs().sum(), min=1.0)
        V = v[d:].reshape(d, n)
        V = V / torch.linalg.vector_norm(V, dim=1, keepdim=True)  # unit atoms: b = 1
        f = a @ V
        err = torch.min(torch.sum((_t(enumerate_index_vectors(d, K)) @ V / K - f) ** 2, dim=1))
        return err / (rhs_factor * (a.sum() - f @ f) / K + 1e-12)  # <= 1 iff err <= RHS + atol

    return ratio


def reduction_pointwise_objective(*, basis_scale: float = 1.0) -> Objective:
    """``||D x||_q / max_i ||D (basis_scale e_i)||_q`` with ``x`` in the unit l1 ball, sizes ``(k, d, q)``
    (``v`` holds ``D``, ``k x d``, then ``x``).  Check ``pointwise-core`` of Lemma 3.2."""
    basis_scale = check_real(basis_scale, "basis_scale")

    def ratio(size: tuple[int, int, float], v: object) -> torch.Tensor:
        k, d, q = size
        v = _t(v)
        D, x = v[:k * d].reshape(k, d), _into_l1_t(v[k * d:], 1.0)  # Bx = 1: the ratio is scale-free
        return _lq_t(D @ x, q) / (torch.max(_lq_t(D * basis_scale, q, dim=0)) + 1e-300)

    return ratio


def app_b_chain_objective(*, column_reading: bool = True) -> Objective:
    """The larger of the two link ratios of App. B's chain, sizes ``(d, q)`` (square ``D`` then ``x``
    in the unit l1 ball); rows of ``D`` instead of columns when ``column_reading=False``."""
    column_reading = check_bool(column_reading, "column_reading")

    def ratio(size: tuple[int, float], v: object) -> torch.Tensor:
        d, q = size
        v = _t(v)
        D, x = v[:d * d].reshape(d, d), _into_l1_t(v[d * d:], 1.0)  # Bx = 1: both ratios are scale-free
        parts = _lq_t(D, q, dim=0) if column_reading else _lq_t(D, q, dim=1)
        middle = x.abs() @ parts
        return torch.maximum(_lq_t(D @ x, q) / (middle + 1e-300), middle / (parts.max() + 1e-300))

    return ratio


def column_cover_objective(*, K_rule: Callable[[float, float, float], int] = maurey_K) -> Objective:
    """Lemma 3.3's cover error over ``eps``, sizes ``(k, d, eps)`` (``Bw = Bx = 1``): ``v`` is a ``k x d``
    matrix whose columns are mapped into the unit l1 ball; the sup over the inputs is at a basis
    vector, so the value is the largest column error over ``eps``."""
    check_callable(K_rule, "K_rule")

    def ratio(size: tuple[int, int, float], v: object) -> torch.Tensor:
        k, d, t = size  # Bw = Bx = 1, eps = t: the error over eps is scale-free
        W = _into_l1_t(_t(v).reshape(k, d), 1.0, dim=0)
        What = cover_columns_l1(W.detach().numpy(), 1.0, 1.0, t, K=int(K_rule(1.0, 1.0, t)))
        return torch.max(torch.linalg.vector_norm(W - _t(What), dim=0)) / t  # the sup is at a basis input

    return ratio


def enumerated_cover_objective(cases: list, *, K_rule: Callable[[float, float, float], int] = maurey_K,
                               matrix: bool = False) -> tuple[Objective, dict]:
    """Distance to the enumerated Maurey cover over ``eps`` (``Bw = Bx = 1``), one size per case.

    ``matrix=False`` (Lemma 3.3, one column): a case is ``(k, eps)``, ``v`` a point of R^k mapped
    into the unit l1 ball, the distance l2.  ``matrix=True`` (Lemma 3.6): a case is ``((k, d), eps)``,
    ``v`` a ``k x d`` matrix in the unit ``||.||_{1,1}`` ball, the distance spectral.  Returns
    ``(objective, covers)``: ``covers[case]`` is the enumerated cover (shape ``(N, k)`` or ``(N, k, d)``).
    """
    matrix = check_bool(matrix, "matrix")
    check_callable(K_rule, "K_rule")
    _check_cases(cases, matrix)
    Bw, Bx = 1.0, 1.0
    if matrix:
        covers = {c: _t(maurey_cover_points(c[0][0] * c[0][1], Bw, int(K_rule(Bw, Bx, c[1] * Bw * Bx)))
                        .reshape(-1, *c[0])) for c in cases}
    else:
        covers = {(k, ratio): maurey_cover_points(k, Bw, int(K_rule(Bw, Bx, ratio * Bw * Bx))) for k, ratio in
                  cases}

    def dist(size: Any, z: object) -> torch.Tensor:
        if matrix:
            (k, d), ratio = size
            W = _into_l1_t(_t(z), Bw).reshape(k, d)
            return Bx * torch.min(torch.linalg.matrix_norm(covers[size] - W[None], ord=2)) / (ratio * Bw * Bx)
        w = _into_l1_t(_t(z), Bw)
        return Bx * torch.min(torch.linalg.vector_norm(_t(covers[size]) - w[None, :],
                                                       dim=1)) / (size[1] * Bw * Bx)

    return dist, covers


def _check_cases(cases: Any, matrix: bool) -> None:
    """``cases``: a non-empty list of ``(k, eps)`` (or ``((k, d), eps)`` when ``matrix``) pairs."""
    if isinstance(cases, (str, bytes)) or not isinstance(cases, (list, tuple)) or not cases:
        raise TypeError(f"cases must be a non-empty list of (shape, eps) pairs, got {cases!r}")
    for i, case in enumerate(cases):
        if not isinstance(case, tuple) or len(case) != 2:
            raise TypeError(f"cases[{i}] must be a pair (shape, eps), got {case!r}")
        shape = case[0] if matrix else (case[0],)
        if not isinstance(shape, tuple) or len(shape) != (2 if matrix else 1):
            raise TypeError(f"cases[{i}] must hold a shape {'(k, d)' if matrix else 'k'}, got {case[0]!r}")
        for n in shape:
            check_int(n, f"cases[{i}]")
        check_real(case[1], f"cases[{i}]")
        if not 0 < case[1]:
            raise ValueError(f"cases[{i}] must hold a scale eps > 0, got {case[1]}")


def packing_objective(*, rhs: Callable[..., float], lower: Callable[[int, int], float],
                      divisor: float) -> Objective:
    """``lower(d, k) / rhs(d, k, 1, 1, eps)`` with ``eps = sigmoid(v_0) / divisor`` ranging over
    ``(0, 1/divisor]``, sizes ``(d, k)``; the gradient is a central difference.  The packing checks
    of Lemmas 3.3 (``divisor = sqrt 2``) and 3.6 (``divisor = 2``)."""
    check_callable(rhs, "rhs")
    check_callable(lower, "lower")
    divisor = check_real(divisor, "divisor")
    if divisor <= 0:
        raise ValueError(f"divisor must be > 0, got {divisor}")

    def ratio(size: tuple[int, int], v: object) -> torch.Tensor:
        d, k = size
        # eps = Bw Bx sigmoid(z) / divisor ranges over (0, Bw Bx / divisor] (Bw = Bx = 1: RHS is scale-free)
        return _numeric(lambda z: lower(d, k) / rhs(d, k, 1.0, 1.0, _sigmoid(z[0]) / divisor), v)

    return ratio


def row_sum_containment_objective(*, outer_norm: Callable[[np.ndarray], float] | None = None) -> Objective:
    """``||W||_{1,inf} / outer_norm(W)`` (default ``||W^T||_{2,1}``), sizes ``(k, d)``, ``v`` a ``k x d``
    matrix.  Part ``row-reading-containment`` of Lemma 3.4."""
    if outer_norm is None:
        outer_norm = lambda W: mixed_norm(W.T, 2, 1)  # noqa: E731
    check_callable(outer_norm, "outer_norm")

    def containment(size: tuple[int, int], v: object) -> torch.Tensor:
        k, d = size
        W = _t(v).reshape(k, d)
        return W.abs().sum(dim=0).max() / _numeric(lambda z: outer_norm(z.reshape(k, d)), _t(v))

    return containment


def row_sum_cover_objective(*, K_rule: Callable[[float, float, float], int] = maurey_K) -> Objective:
    """Lemma 3.3's cover error over ``eps`` on the row-sum (2,1) ball, sizes ``(k, d, eps)``
    (``Bw = Bx = 1``).  Check ``row-reading-via-lemma-3-3`` of Lemma 3.4."""
    check_callable(K_rule, "K_rule")

    def cover_ratio(size: tuple[int, int, float], v: object) -> torch.Tensor:
        k, d, t = size  # Bw = Bx = 1, eps = t: the error over eps is scale-free
        Z = _t(v).reshape(k, d)
        W = Z / torch.clamp(torch.linalg.vector_norm(Z, dim=1).sum(), min=1.0)  # into the row-sum (2,1) ball
        What = cover_columns_l1(W.detach().numpy(), 1.0, 1.0, t, K=int(K_rule(1.0, 1.0, t)))
        return torch.max(torch.linalg.vector_norm(W - _t(What), dim=0)) / t  # the sup is at a basis input

    return cover_ratio


def flat_cover_objectives(*, K_rule: Callable[[float, float, float], int] = maurey_K,
                          frobenius_K_offset: int = 0) -> tuple[Objective, Objective]:
    """Lemma 3.6's flattened cover on the unit ``||.||_{1,1}`` ball, sizes ``(k, d, eps)``
    (``Bw = Bx = 1``): ``(spectral, frobenius)``, the ratios ``sigma_max(W - hat W) / eps`` and
    ``||W - hat W||_F^2 / ((||W||_{1,1} - ||W||_F^2)/(K + frobenius_K_offset))``."""
    check_callable(K_rule, "K_rule")
    frobenius_K_offset = check_int(frobenius_K_offset, "frobenius_K_offset", minimum=-1)

    def cover(size: tuple[int, int, float], v: object) -> tuple[torch.Tensor, torch.Tensor, int]:
        k, d, t = size  # Bw = Bx = 1, eps = t: both ratios are scale-free
        W = _into_l1_t(_t(v).reshape(k, d), 1.0)
        K = int(K_rule(1.0, 1.0, t))
        return W, _t(cover_flat_l1(W.detach().numpy(), 1.0, 1.0, t, K=K)), K

    def spectral(size: tuple[int, int, float], v: object) -> torch.Tensor:
        W, What, _ = cover(size, v)
        return torch.linalg.matrix_norm(W - What, ord=2) / size[2]

    def frobenius(size: tuple[int, int, float], v: object) -> torch.Tensor:
        W, What, K = cover(size, v)
        bound = (W.abs().sum() - torch.sum(W ** 2)) / (K + frobenius_K_offset)
        return torch.sum((W - What) ** 2) / (bound + 1e-12)  # <= 1 iff the error <= bound + atol

    return spectral, frobenius


def sec34_objective(*, factor: Callable[[int], float] = float) -> Objective:
    """``||W||_{p,1} / (factor(d) ||W||_{p,inf})``, sizes ``(k, d, p)``, ``v`` a ``k x d`` matrix (Sec.
    3.4)."""
    check_callable(factor, "factor")

    def ratio(size: tuple[int, int, int], v: object) -> torch.Tensor:
        k, d, p = size
        cols = _lq_t(_t(v).reshape(k, d), float(p), dim=0)
        return cols.sum() / (factor(d) * cols.max() + 1e-300)

    return ratio


def app_a_row_cover_objective(*, radius_factor: Callable[[int, float], float] = lambda k, q: k ** (1 / q)
                              ) -> tuple[Objective, Callable[[Any, np.random.Generator], np.ndarray]]:
    """App. A's row-cover error ``||(W - hat W) x||_q / (radius_factor(k, q) eps)``, sizes
    ``(k, d, eps, q, tied)`` (``Bw = Bx = 1``): ``v`` holds the rows (one shared row when ``tied``,
    mapped into the l1 ball) and ``x`` (into the l2 ball).  Returns ``(objective, init)``, ``init``
    the search's start (rows uniform in the l1 ball, a Gaussian ``x``)."""
    check_callable(radius_factor, "radius_factor")

    def ratio(size: tuple[int, int, float, float, bool], v: object) -> torch.Tensor:
        k, d, t, q, tied = size  # Bw = Bx = 1, eps = t: the ratio is scale-free
        v = _t(v)
        n = d if tied else k * d  # tied: all k rows equal one searched row
        W = _into_l1_t(v[:n].reshape(-1, d), 1.0, dim=1)  # every row in the l1 ball
        x = v[n:] / torch.clamp(torch.linalg.vector_norm(v[n:]), min=1.0)  # in the l2 ball
        K = maurey_K(1.0, 1.0, t)
        What = _t(cover_rows(W.detach().numpy(), lambda w: l1_maurey_approx(w, 1.0, K)))
        return _lq_t(((W - What) @ x).expand(k), q) / (radius_factor(k, q) * t)

    def init(size: tuple[int, int, float, float, bool], g: np.random.Generator) -> np.ndarray:
        k, d, tied = size[0], size[1], size[4]
        return np.concatenate([random_l1_ball(g, d, 1.0, 1 if tied else k).ravel(), g.standard_normal(d)])

    return ratio, init
