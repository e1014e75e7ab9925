"""Objectives of the adversarial searches of the single-layer checks (Trauger & Tewari, Sec. 4.1-4.2, Apps.
C-D).

Each ``*_objective`` function validates the variant it is given (the statement's constant, formula
or orientation, which a negative control replaces) and returns ``objective(size, z)`` for
:func:`~attention_theory.search.maximize_over_sizes`: ``size`` is a tuple of small integers (an
activation name, a scale) chosen by the check, ``z`` a flat float64 vector (a torch tensor when
the search takes gradients, a numpy vector for the ``numpy`` objectives, which the check wraps in
:func:`~attention_theory.search.numpy_objective`) that the objective maps onto the constraint
set; the value is the ratio LHS/RHS of the statement, at most 1 when it holds.
:func:`small_m_rad_search` runs (and caches) the search shared by three Monte-Carlo checks.
The checks are in :mod:`attention_theory.trauger.checks.single_layer` (chapter
``book/trauger/single-layer.md``); the model in :mod:`~attention_theory.trauger.single_layer_model`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import cached_per_scale, pick
from attention_theory.foundations.rademacher import rademacher_exact
from attention_theory.search import SizedSearch, maximize_over_sizes
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import single_layer_model as ts
from attention_theory.trauger.single_layer import all_signs
from attention_theory.validation import check_bool, check_callable, check_positive, check_real, check_seed

__all__ = ['RAD_SIZES', 'chain_cover_objective', 'contraction_objective', 'duality_objective',
           'dudley_clipped_objective', 'log_relaxation_objective', 'multihead_objective',
           'peeling_identity_objective', 'peeling_relu_objective', 'pointwise_objective',
           'sign_removal_objective', 'small_m_rad_search', 'small_m_ratios', 'whole_chain_objective']

Objective = Callable[[Any, Any], Any]


def _t(z: Any) -> torch.Tensor:
    return torch.as_tensor(z, dtype=torch.float64)


def pointwise_objective() -> Objective:
    """``|f_theta(X)| / max_t ||x_t||_inf`` over tokens, ``x_cls``, ``W_QK`` and the weights mapped onto
    unit budgets, sizes ``(d, k, T, sigma)``; ``z`` holds ``X`` (``T x d``), ``w``, ``W_c``
    (``k x d``), ``W_v`` (``d x k``), ``W_QK``, ``x_cls``.  Check ``pointwise-bound`` of Def. 4.1."""

    def ratio(size: tuple[int, int, int, str], z: Any) -> torch.Tensor:
        d, k, T, sig = size
        X, w, W_c, W_v, W_qk, x_cls = torch.split(_t(z), [T * d, d, k * d, d * k, d * d, d])
        X = X.reshape(T, d)
        # f = w^T W_c^T sigma(W_v^T v) (the model's formula, checked against the Sec. 2.6 head by
        # cls-row-of-head), written out around pooled_tokens to keep the objective cheap
        h = ts.activation(sig)(ts.pooled_tokens(X, W_qk.reshape(d, d), x_cls)
                               @ ts.into_l1_columns(W_v.reshape(d, k), 1.0))
        f = h @ ts.into_l1_columns(W_c.reshape(k, d), 1.0) @ ts.into_l1_ball(w, 1.0)
        return f.abs() / X.abs().max()

    return ratio


def duality_objective() -> Objective:
    """``v^T u / ||u||_inf`` with ``v`` in the unit l1 ball, size ``n``; ``z = (v, u)``.  Eq. C.1."""

    def ratio(n: int, z: Any) -> torch.Tensor:  # v^T u / ||u||_inf, v in the unit l1 ball
        z = _t(z)
        return (ts.into_l1_ball(z[:n], 1.0) @ z[n:]) / z[n:].abs().max()

    return ratio


def sign_removal_objective(*, include_zero: bool = True,
                           factor: float = 2.0) -> Callable[[Any, np.ndarray], float]:
    """``Rad(F u -F) / (factor Rad(F))`` (numpy, exact on both sides) over the values of ``N`` functions
    on ``m`` points (0 added when ``include_zero``), sizes ``(m, N)``; a zero denominator counts as
    ``1e12``.  Eq. C.2."""
    include_zero = check_bool(include_zero, "include_zero")
    factor = check_real(factor, "factor")

    def ratio(size: tuple[int, int], z: np.ndarray) -> float:
        m, N = size
        F = z.reshape(N, m)
        if include_zero:
            F = np.vstack([F, np.zeros((1, m))])
        top = rademacher_exact(np.vstack([F, -F]))
        return top / (factor * rademacher_exact(F) + 1e-12 * top + 1e-300)

    return ratio


def contraction_objective(*, L_factor: float = 1.0) -> Callable[[Any, np.ndarray], float]:
    """``Rad(phi(T)) / (L_factor L Rad(T))`` (numpy, exact) over a set of ``N`` vectors in R^m and a
    piecewise-linear ``phi`` (3 knots, 4 slopes, ``L`` the largest ``|slope|``), sizes ``(m, N)``;
    sets whose points nearly coincide give 0 (both sides rounding noise).  Eq. C.3."""
    L_factor = check_real(L_factor, "L_factor")

    def ratio(size: tuple[int, int], z: np.ndarray) -> float:
        m, N = size
        Tset, knots, slopes = z[:N * m].reshape(N, m), np.sort(z[N * m:N * m + 3]), z[N * m + 3:]
        phi = slopes[0] * Tset + sum((slopes[j + 1] - slopes[j]) * np.maximum(Tset - knots[j], 0)
                                     for j in range(3))
        rad = rademacher_exact(Tset)
        # a set whose points nearly coincide makes both sides rounding noise (the full-scale
        # campaign's Nelder-Mead drove the ratio of two such noises to 4.45): not an instance
        if rad <= 1e-4 * float(np.abs(Tset).max(initial=0.0)):  # beyond it, noise is ~1e-12 relative
            return 0.0
        den = L_factor * float(np.abs(slopes).max()) * rad
        return rademacher_exact(phi) / den if den > 0 else 0.0

    return ratio


def peeling_identity_objective(*, seed: int, B_w: float, B_Wc: float, B_Wv: float) -> Objective:
    """``sum eps_i f / (B ||sum eps_i v_i||_inf)`` (``sigma = id``, ``B = B_w B_Wc B_Wv``) over tokens,
    ``x_cls``, ``W_QK`` and the outer weights on their budgets, one fixed sign vector per size
    ``(m, T, d, k)`` (drawn from ``[seed, m]``).  Check ``identity-activation-exact`` of eq. C.4."""
    seed = check_seed(seed)
    Bw, Bc, Bv = (check_positive(b, name) for b, name in ((B_w, "B_w"), (B_Wc, "B_Wc"), (B_Wv, "B_Wv")))
    B = Bw * Bc * Bv

    def ratio(size: tuple[int, int, int, int], z: Any) -> torch.Tensor:
        m_, T_, d_, k_ = size
        e = torch.as_tensor(np.random.default_rng([seed, m_]).choice([-1.0, 1.0], size=m_))
        Xz, Wq, xc, w, W_c, W_v = torch.split(_t(z), [m_ * T_ * d_, d_ * d_, d_, d_, k_ * d_, d_ * k_])
        Xz, Wq = Xz.reshape(m_, T_, d_), Wq.reshape(d_, d_)
        # f = w^T W_c^T W_v^T v_i (sigma = id; the model's formula, checked against the Sec. 2.6 head
        # by cls-row-of-head), written out to keep the objective cheap
        v = ts.pooled_tokens(Xz, Wq, xc)
        f = v @ ts.into_l1_columns(W_v.reshape(d_, k_), Bv) @ ts.into_l1_columns(W_c.reshape(k_, d_), Bc) \
            @ ts.into_l1_ball(w, Bw)
        return (e @ f) / (ts.outer_sup_identity(e, Xz, Wq, xc, B=B) + 1e-300)

    return ratio


def peeling_relu_objective(*, B_w: float, B_Wc: float, B_Wv: float) -> Objective:
    """``Rad_m / ((2B/m) E)`` with ``sigma = ReLU``: tokens, ``x_cls`` and ``W_QK`` free, one set of outer
    weights per sign vector (all ``2^m`` enumerated, so the mean is a lower estimate of ``Rad_m``,
    exact in the signs), sizes ``(m, T, d, k)`` with ``m <= 3``.  Check ``relu-chain`` of eq. C.4."""
    Bw, Bc, Bv = (check_positive(b, name) for b, name in ((B_w, "B_w"), (B_Wc, "B_Wc"), (B_Wv, "B_Wv")))
    B = Bw * Bc * Bv
    signs = {m_: torch.as_tensor(all_signs(m_)) for m_ in (1, 2, 3)}

    def ratio(size: tuple[int, int, int, int], z: Any) -> torch.Tensor:
        m_, T_, d_, k_ = size
        E = signs[m_]
        n = E.shape[0]
        Xz, Wq, xc, th = torch.split(_t(z), [m_ * T_ * d_, d_ * d_, d_, n * (d_ + 2 * k_ * d_)])
        Xz, Wq, th = Xz.reshape(m_, T_, d_), Wq.reshape(d_, d_), th.reshape(n, d_ + 2 * k_ * d_)
        v = ts.pooled_tokens(Xz, Wq, xc)  # (m, d)
        w = ts.into_l1_ball(th[:, :d_], Bw)
        W_c = ts.into_l1_columns(th[:, d_:d_ + k_ * d_].reshape(n, k_, d_), Bc)
        W_v = ts.into_l1_columns(th[:, d_ + k_ * d_:].reshape(n, d_, k_), Bv)
        f = torch.einsum("nmk,nkd,nd->nm", torch.relu(torch.einsum("md,ndk->nmk", v, W_v)), W_c, w)
        rad = (E * f).sum(1).mean()
        return rad / (2 * B * ts.outer_sup_identity(E, Xz, Wq, xc, B=1.0).mean() + 1e-300)

    return ratio


def whole_chain_objective(*, softmax_lip: float = 2.0) -> Objective:
    """The whole chain of eq. C.5, ``|X^T (p - p^)|_inf / (softmax_lip ||(W - W^)^T x_cls||_2)``, with
    ``d = 2``, ``x_cls = e_1``, ``T`` tokens in the unit ball (size ``T``); ``z = (X, W, W^)``."""
    softmax_lip = check_real(softmax_lip, "softmax_lip")

    # the whole chain's ratio, d = 2, T tokens, B_x = 1
    def whole_ratio(T: int, v: torch.Tensor) -> torch.Tensor:
        z = _t(v)
        Xz = z[:2 * T].reshape(T, 2)
        Xz = Xz / torch.clamp(Xz.norm(dim=1, keepdim=True), min=1.0)
        W, What = z[2 * T:2 * T + 4].reshape(2, 2), z[2 * T + 4:2 * T + 8].reshape(2, 2)
        xc = torch.tensor([1.0, 0.0], dtype=torch.float64)
        p, ph = torch.softmax(Xz @ (W.T @ xc), 0), torch.softmax(Xz @ (What.T @ xc), 0)
        return (Xz.T @ (p - ph)).abs().max() / (softmax_lip * ((W - What).T @ xc).norm() + 1e-12)

    return whole_ratio


def chain_cover_objective(*, seed: int, cover: Callable[..., np.ndarray]) -> Objective:
    """``|X^T (p - p^)|_inf / eps`` for one random ``W_QK`` (``d = 3``, in the (1,1) ball of a random
    ``B_QK``) and its cover element ``cover(W^T, B_QK, 1, eps / 2)^T`` per size ``T`` in
    ``{1, 2, 4}`` (drawn from ``[seed, 1]``); ``z`` holds the tokens and ``x_cls`` (mapped into the
    unit ball).  Part ``maurey-cover`` of eq. C.5."""
    seed = check_seed(seed)
    check_callable(cover, "cover")
    crng = np.random.default_rng([seed, 1])
    cases = {}
    for T in (1, 2, 4):
        Bqk, W = float(crng.uniform(0.5, 2)), crng.laplace(size=(3, 3))
        W *= Bqk * crng.uniform(0.5, 1) / np.abs(W).sum()
        eps_c = float(10 ** crng.uniform(-2, -1))
        cases[T] = (torch.as_tensor(W), torch.as_tensor(cover(W.T, Bqk, 1.0, eps_c / 2).T), eps_c)

    def cover_ratio(T: int, v: Any) -> torch.Tensor:
        W, What, eps_c = cases[T]
        z = _t(v)
        Xz, xc = z[:3 * T].reshape(T, 3), z[3 * T:]
        Xz = Xz / torch.clamp(Xz.norm(dim=1, keepdim=True), min=1.0)
        xc = xc / torch.clamp(xc.norm(), min=1.0)
        diff = Xz.T @ (ts.attention_weights(Xz, W, xc) - ts.attention_weights(Xz, What, xc))
        return diff.abs().max() / eps_c

    return cover_ratio


def dudley_clipped_objective(*, clipped_form: Callable[[float, float, int, int],
                                                       float] = tb.dudley_inf_printed
                             ) -> Callable[[Any, np.ndarray], float]:
    """``clipped_form / (numerical inf h less the margin)`` over ``(B_x, C)`` parametrised onto
    ``delta* >= 1.001 B_x`` (numpy), sizes ``(d, m)``.  Part ``below-when-clipped`` of eq. C.6."""
    check_callable(clipped_form, "clipped_form")

    def ratio(size: tuple[int, int], z: np.ndarray) -> float:
        d, m = size
        x0, x1 = np.clip(z, -20.0, 20.0)
        Bx = math.exp(x0)
        sqrt_C = (1.001 + math.exp(x1)) * (math.sqrt(m) - math.sqrt(math.log(2 * d))) / (2 * Bx)
        num = tb.dudley_inf_numeric(Bx, sqrt_C**2, m, d)
        return clipped_form(Bx, sqrt_C**2, m, d) / (num * (1 - 1e-9))

    return ratio


def log_relaxation_objective(*, minus_log: bool = True) -> Callable[[Any, np.ndarray], float]:
    """The proof's ``h(delta*)`` (or, ``minus_log=False``, the printed form shifted up by ``1e-3``) over
    the printed form of Cor. 4.1.1, with ``(B_x, B_QK)`` parametrised onto the region where the
    relaxation applies (numpy), sizes ``(d, m)``.  Check ``log-relaxation``."""
    minus_log = check_bool(minus_log, "minus_log")

    # B_x = e^{x_0}, B_x^2 B_QK = sigmoid(x_1) (sqrt m - sqrt ln 2d) / (2 sqrt ln(2d^2+1))
    # (i.e. sqrt m > sqrt ln 2d + 2 B_x sqrt C); the ratio (proof or shifted printed) / printed
    def ratio(size: tuple[int, int], z: np.ndarray) -> float:
        d, m = size
        x0, x1 = np.clip(z, -20.0, 20.0)
        Bx = math.exp(x0)
        room = (math.sqrt(m) - math.sqrt(math.log(2 * d))) / (2 * math.sqrt(math.log(2 * d * d + 1)))
        C = tb.C_lemma36(Bx, room / (1 + math.exp(-x1)) / Bx**2, d)
        printed = tb.thm41_printed_expression(1.0, Bx, C, m, d)
        return (tb.dudley_inf_printed(Bx, C, m, d) if minus_log else printed + 1e-3) / printed

    return ratio


def multihead_objective() -> Objective:
    """Joint over separate expected sups, ``E max_w sum_j max_p F[w, j, p] / sum_j E max_{w, p}``, over
    arbitrary finite families ``F[w, j, p, i]`` of shape ``size = (n_w, H, n_p, m)`` with
    ``m <= 3`` (all sign vectors exact).  Part ``optimized-w`` of Sec. 4.2."""
    signs = {mm: torch.as_tensor(all_signs(mm)) for mm in (1, 2, 3)}

    def ratio(size: tuple[int, int, int, int], z: Any) -> torch.Tensor:
        S = torch.einsum("em,whpm->ewhp", signs[size[3]], _t(z).reshape(size))
        per = S.amax(-1)  # (signs, w, heads): max over each head's parameters
        return per.sum(-1).amax(-1).mean() / (per.amax(1).mean(0).sum() + 1e-300)

    return ratio


#: (m, T, d) of the adversarial small-sample searches of Rad_m (every sign vector enumerated)
RAD_SIZES = ((1, 1, 1), (2, 2, 2), (3, 1, 1))


def small_m_rad_search(tokens: str, seed: int = 57) -> SizedSearch:
    """Adversarial lower estimates of ``Rad_m`` (``sigma = id``, ``B = B_x = B_QK = 1``) at small ``m``.

    The outer weights are eliminated exactly
    (:func:`~attention_theory.trauger.single_layer_model.outer_sup_identity`),
    every one of the ``2^m`` sign vectors gets its own ``W_QK`` (in the ``||.||_{1,1}`` unit ball,
    inside the column- and row-l1 balls too), and the tokens and ``x_cls`` lie in the unit ``tokens``
    ball (``"l2"``: Thm 4.1 / Cor 4.1.1; ``"l1"``: Cor D.0.1); the objective is the exact mean over
    the signs, so its value is a lower estimate of ``Rad_m`` on that sample.  L-BFGS and Nelder-Mead
    maximize it over the tokens, ``x_cls`` and the ``W_QK``'s jointly, for each ``(m, T, d)`` of
    :data:`RAD_SIZES`.  Cached per scale (three checks of ``book/trauger/single-layer.md`` share it).
    """
    if not isinstance(tokens, str) or tokens not in ("l1", "l2"):
        raise ValueError(f"tokens must be 'l1' or 'l2', got {tokens!r}")
    return _small_m_rad_search(tokens, check_seed(seed))


@cached_per_scale()
def _small_m_rad_search(tokens: str, seed: int) -> SizedSearch:
    """:func:`small_m_rad_search` for validated arguments, cached per scale."""
    signs = {m: torch.as_tensor(all_signs(m)) for m, _, _ in RAD_SIZES}

    def into(a: torch.Tensor) -> torch.Tensor:
        if tokens == "l1":
            return ts.into_l1_ball(a, 1.0)
        return a / torch.clamp(torch.linalg.vector_norm(a, dim=-1, keepdim=True), min=1.0)

    def rad(size: tuple[int, int, int], z: Any) -> torch.Tensor:
        m, T, d = size
        E = signs[m]
        X, xc, W = torch.split(_t(z), [m * T * d, d, len(E) * d * d])
        W = ts.into_l1_ball(W.reshape(len(E), d * d), 1.0).reshape(len(E), d, d)
        return ts.outer_sup_identity(E, into(X.reshape(m, T, d)), W, into(xc), B=1.0).mean() / m

    return maximize_over_sizes(rad, lambda s,
                               g: g.standard_normal(s[0] * s[1] * s[2] + s[2] + 2**s[0] * s[2]**2),
                               RAD_SIZES, restarts=pick(3, 12), steps=pick(12, 150), seed=seed)


def small_m_ratios(res: SizedSearch, bound: Callable[[int, int], float]) -> list[float]:
    """The per-size best ``Rad_m`` of :func:`small_m_rad_search` divided by ``bound(m, d)``, in the
    order of :data:`RAD_SIZES`."""
    if not isinstance(res, SizedSearch):
        raise TypeError(f"res must be a SizedSearch (from small_m_rad_search), got {type(res).__name__}")
    check_callable(bound, "bound")
    return [res.per_size[str(size)] / bound(size[0], size[2]) for size in RAD_SIZES]
