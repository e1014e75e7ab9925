"""Objectives of the adversarial searches of the multi-layer checks (Trauger & Tewari, Sec. 4.3, Apps. E-F).

Each ``*_objective`` function validates the variant it is given (the statement's constant or
formula, which a negative control replaces) and returns ``objective(size, v)`` for
:func:`~attention_theory.search.maximize_over_sizes`: ``size`` is a tuple of small integers (an
activation, a radius) chosen by the check, ``v`` a flat float64 vector (a torch tensor when the
search takes gradients) that the objective maps onto the constraint set; the value is the ratio
LHS/RHS of the statement, at most 1 when it holds.  The checks are in
:mod:`attention_theory.trauger.checks.multi_layer` (chapter ``book/trauger/multi-layer.md``); the
instances in :mod:`~attention_theory.trauger.multi_layer` and
:mod:`~attention_theory.trauger.multi_layer_cover`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.foundations.maurey import cover_flat_l1, log_binomial, maurey_K
from attention_theory.trauger import model as tm
from attention_theory.trauger.multi_layer import (
    SIGMA_LIPSCHITZ,
    e2_unpack,
    lemma_e2_rhs,
    lemma_e2_terms,
    unrolled_rhs,
    unrolled_terms,
)
from attention_theory.trauger.multi_layer_cover import thm42_allocation
from attention_theory.validation import check_callable, check_int, check_mapping, check_positive, check_real

__all__ = ['composite_input_objective', 'composite_matrix_objective', 'composite_size_objective',
           'hoelder_objective', 'lemma_e2_objective', 'readout_objective', 'unrolled_objective']

Objective = Callable[[Any, Any], torch.Tensor]


def _t(v: Any) -> torch.Tensor:
    return torch.as_tensor(v, dtype=torch.float64)


def hoelder_objective(*, lower_gamma: Callable[[np.ndarray, np.ndarray], float]) -> Objective:
    """``lower_gamma^3 / sum C_i / eps_i^2`` over ``C, beta > 0`` and a feasible allocation ``eps_i =
    x_i eps / beta_i`` (``x`` on the simplex, ``eps = 1``: the ratio does not depend on it), size ``n``;
    ``v`` holds ``log C``, ``log beta`` and the logits of ``x``.  Part ``hoelder-random`` of Lemma E.1."""
    check_callable(lower_gamma, "lower_gamma")

    def hoelder(n: int, v: torch.Tensor) -> torch.Tensor:
        v = torch.clamp(_t(v), -25.0, 25.0)
        C, beta, x = torch.exp(v[:n]), torch.exp(v[n:2 * n]), torch.softmax(v[2 * n:], 0)
        g = torch.sum(C ** (1 / 3) * beta ** (2 / 3))
        # its value, g's slope
        g_low = g * (lower_gamma(C.detach().numpy(), beta.detach().numpy()) / g.detach())
        return g_low ** 3 / torch.sum(C * beta ** 2 / x ** 2)

    return hoelder


def lemma_e2_objective(*, rhs_rho: Callable[[float], float], rhs_kwargs: dict[str, Any]) -> Objective:
    """Lemma E.2's LHS / :func:`~attention_theory.trauger.multi_layer.lemma_e2_rhs` (with ``rho =
    rhs_rho(rho)`` and ``rhs_kwargs``) over both layers and both inputs, sizes ``(T, d, k, sigma,
    rho)`` (the layout of :func:`~attention_theory.trauger.multi_layer.e2_unpack`)."""
    check_callable(rhs_rho, "rhs_rho")
    check_mapping(rhs_kwargs, "rhs_kwargs")

    def ratio(size: tuple, v: torch.Tensor) -> torch.Tensor:
        T, d, k, sigma, rho = size
        p, ph, Z, Zh = e2_unpack(_t(v), T, d, k, rho)
        t = lemma_e2_terms(p, ph, Z, Zh, sigma)
        return t["lhs"] / (lemma_e2_rhs(t, SIGMA_LIPSCHITZ[sigma], rho=rhs_rho(rho), **rhs_kwargs) + 1e-300)

    return ratio


def readout_objective(*, second_term: float = 1.0) -> Objective:
    """Lemma E.3: ``|w^T a - hat w^T hat a| / (||w|| ||a - hat a|| + second_term |(w - hat w)^T hat a|)``,
    size ``d``, ``v = (w, hat w, a, hat a)``."""
    second_term = check_real(second_term, "second_term")

    def ratio(d: int, v: torch.Tensor) -> torch.Tensor:
        w, wh, a, ah = _t(v).reshape(4, d)
        return torch.abs(w @ a - wh @ ah) / (torch.linalg.vector_norm(w) * torch.linalg.vector_norm(a - ah)
                                             + second_term * torch.abs((w - wh) @ ah) + 1e-300)

    return ratio


def _unrolled_build(L: int, d: int, k: int, T: int,
                    v: torch.Tensor) -> tuple[list, list, torch.Tensor, torch.Tensor, torch.Tensor]:
    o, mats = 0, []
    for _ in range(2 * L):
        ms = []
        for shp in ((d, d), (d, k), (k, d)):
            ms.append(v[o:o + shp[0] * shp[1]].reshape(shp))
            o += shp[0] * shp[1]
        mats.append(tm.Layer(*ms))
    X = tm.proj_norm(v[o + 2 * d:o + 2 * d + T * d].reshape(T, d))  # rows in the unit ball (Bx <= 1)
    return mats[:L], mats[L:], v[o:o + d], v[o + d:o + 2 * d], X


def unrolled_objective(*, c_qk: float = 2.0, alpha_qk: float = 4.0
                       ) -> tuple[Objective, Callable[[Any, np.random.Generator], np.ndarray]]:
    """The unrolled bound of App. E: LHS / :func:`~attention_theory.trauger.multi_layer.unrolled_rhs`
    over all weights (both networks), both read-outs and the input (rows in the unit ball), sizes
    ``(L, d, k, T, sigma)``.  Returns ``(objective, init)``, ``init`` a start with ``hat W = W +
    10^U(-3, -1)`` noise."""
    c_qk, alpha_qk = check_real(c_qk, "c_qk"), check_real(alpha_qk, "alpha_qk")

    def ratio(size: tuple, v: torch.Tensor) -> torch.Tensor:
        L, d, k, T, sigma = size
        layers, layers_h, w, w_h, X = _unrolled_build(L, d, k, T, _t(v))
        t = unrolled_terms(layers, layers_h, w, w_h, [X], sigma)
        return t["lhs"] / (unrolled_rhs(t, 1.0, c_qk=c_qk, alpha_qk=alpha_qk) + 1e-300)

    def init(size: tuple, g: np.random.Generator) -> np.ndarray:
        L, d, k, T, _ = size
        per = L * (d * d + 2 * d * k)
        base = g.standard_normal(per + d) * 0.8
        return np.concatenate([base[:per], base[:per] + 10 ** g.uniform(-3, -1) * g.standard_normal(per),
                               base[per:], base[per:] + 1e-2 * g.standard_normal(d),
                               g.standard_normal(T * d)])

    return ratio, init


def composite_matrix_objective(*, B: float = 1.0, cover_coarsening: float = 1.0) -> Objective:
    """Theorem 4.2's cover, one class: ``sigma_max(W - hat W) / eps_j`` for ``W`` in the (1,1) ball of
    ``B`` and ``hat W`` its flattened Maurey cover element at ``cover_coarsening eps_j``, sizes
    ``(rows, columns, eps_j)``.  Part ``composite-cover-per-matrix``."""
    B = check_positive(B, "B")
    cover_coarsening = check_positive(cover_coarsening, "cover_coarsening")

    def cover_ratio(size: tuple, v: torch.Tensor) -> torch.Tensor:
        r, c, a = size
        z = _t(v).reshape(r, c)
        W = z / torch.clamp(z.abs().sum() / B, min=1.0)
        K = maurey_K(B, 1.0, cover_coarsening * a)
        W_hat = torch.as_tensor(cover_flat_l1(W.detach().numpy(), B, 1.0, cover_coarsening * a, K=K))
        return torch.linalg.matrix_norm(W - W_hat, ord=2) / a

    return cover_ratio


def composite_input_objective(*, nets: list, d: int, certificate_factor: float = 1.0) -> Objective:
    """Theorem 4.2's cover, realised error: ``|g - hat g| / (certificate_factor certificate)`` over the
    inputs (``T x d``, rows projected on the unit ball) of the networks ``nets`` (as returned by
    :func:`~attention_theory.trauger.multi_layer_cover.composite_cover_trials`), sizes ``(trial, T)``.
    Part ``composite-cover-realised``."""
    if isinstance(nets, (str, bytes)) or not isinstance(nets, (list, tuple)) or not nets:
        raise TypeError(f"nets must be a non-empty list of trial networks, got {type(nets).__name__}")
    d = check_int(d, "d")
    certificate_factor = check_real(certificate_factor, "certificate_factor")

    def gap(size: tuple, v: torch.Tensor) -> torch.Tensor:
        j, T = size
        layers, w_t, hat, wh_t, sigma, _, cert, _ = nets[j]
        X = tm.proj_norm(_t(v).reshape(T, d))
        diff = tm.scalar_output(layers, w_t, X, sigma) - tm.scalar_output(hat, wh_t, X, sigma)
        return torch.abs(diff) / (certificate_factor * cert + 1e-300)

    return gap


def composite_size_objective(*, B: float = 1.0, eps_factor: float = 1.0, cover_coarsening: float = 1.0,
                             size_constant: Callable[..., float]) -> Objective:
    """Theorem 4.2's cover, size: log-size of the product of the Maurey covers over ``size_constant(C1,
    ...)/(eps_factor eps)^2 + ceilings``, over ``log eps`` in ``[-3, 3]`` (the size does not depend
    on the weights), sizes ``(L, d, k)``.  Part ``composite-cover-size``."""
    B = check_positive(B, "B")
    eps_factor = check_positive(eps_factor, "eps_factor")
    cover_coarsening = check_positive(cover_coarsening, "cover_coarsening")
    check_callable(size_constant, "size_constant")

    def size_ratio(size: tuple, v: torch.Tensor) -> torch.Tensor:
        L, dd, kk = size
        eps = torch.exp(torch.clamp(_t(v)[0], -3.0, 3.0))
        C1, pairs, alloc = thm42_allocation(L, dd, kk, B, float(eps.detach()) * eps_factor)
        n_entries = {"w": dd, "W_c": kk * dd, "W_v": dd * kk, "W_QK": dd * dd}
        logsize = 0.0
        for n, _, _ in pairs:
            K = maurey_K(B, 1.0, cover_coarsening * alloc[n])
            logsize += log_binomial(2 * n_entries[n.split("^")[0]] + K, K)
        ceilings = sum(math.log(2 * n + 1) for n in [dd] + [dd * dd, dd * kk, kk * dd] * L)
        return logsize / (size_constant(C1, C1, L, 1.0, B, B, B, B) / (eps * eps_factor) ** 2 + ceilings)

    return size_ratio
