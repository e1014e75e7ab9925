"""Instances for the multi-layer covering bound of Trauger & Tewari (Sec. 4.3, Apps. E-F).

The terms of Lemma E.2 (as printed and as unrolled), the layer-1 counterexample to the printed
form, sample inputs and l_{1,1} balls, the composite cover of Theorem 4.2 built layer by layer,
and the random and constructed instances of each check of
:mod:`attention_theory.trauger.checks.multi_layer` (chapter ``book/trauger/multi-layer.md``),
which evaluates them; the adversaries' objectives are in
:mod:`~attention_theory.trauger.multi_layer_search`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
import torch

from attention_theory.foundations.maurey import cover_flat_l1, log_binomial, maurey_K
from attention_theory.foundations.norms import mixed_norm
from attention_theory.trauger import model as tm
from attention_theory.trauger import multi_layer_bounds as bm
from attention_theory.trauger._args import check_sequence
from attention_theory.trauger.linear_covering import random_l1_ball
from attention_theory.validation import (
    as_tensor,
    as_vector,
    check_bool,
    check_callable,
    check_int,
    check_mapping,
    check_positive,
    check_real,
    check_rng,
    check_seed,
    refuses_overflow,
)

__all__ = ['SIGMA_LIPSCHITZ', 'composite_cover', 'cor421_regimes', 'dudley_rademacher_numeric', 'e2_init',
           'e2_unpack', 'l11_ball', 'layer1_counterexample', 'layer1_values', 'lemma_e1_instances',
           'lemma_e1_slsqp_minimum', 'lemma_e2_equality', 'lemma_e2_instances', 'lemma_e2_rhs',
           'lemma_e2_terms', 'log_cube_l1_cover_lower', 'perturbed_network', 'readout_instances', 'samples',
           'sec43_dudley_values', 'sup_identity_values', 'unrolled_instances', 'unrolled_rhs',
           'unrolled_terms']


def _rownorm_max(M: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(M, dim=-1).max()


def _spec(M: torch.Tensor) -> torch.Tensor:
    return torch.linalg.matrix_norm(M, ord=2)


@refuses_overflow
def lemma_e2_terms(p: tm.Layer, ph: tm.Layer, Z: torch.Tensor, Zh: torch.Tensor,
                   sigma: str = "relu") -> dict[str, torch.Tensor]:
    """The quantities of Lemma E.2 for one block layer, as 0-d tensors.

    ``p``, ``ph``: the layer's parameters and their perturbation; ``Z``, ``Zh`` (shape
    ``(T, d)``): ``g^(i)`` and ``hat g^(i)``.  Keys: ``lhs = ||(g^(i+1) - hat g^(i+1))^T||_{2,inf}``
    (largest row l2 distance), ``e_c``, ``e_qk``, ``e_v`` (the three matrix terms, largest row l2
    norm of ``sigma(Pi(f(hat Z))) (W_c - hat W_c)``, ``hat Z (W_QK - hat W_QK)``,
    ``hat Z (W_v - hat W_v)``), ``delta = ||(Z - hat Z)^T||_{2,inf}``, the spectral norms
    ``B_c``, ``B_v``, ``B_qk`` (largest over ``p`` and ``ph``) and ``rho`` (largest row norm of
    ``Z`` and ``hat Z``).
    """
    Z = as_tensor(Z, "Z", ndim=2)
    Zh = as_tensor(Zh, "Zh", shape=tuple(Z.shape))
    p, ph = tm._layer(p, Z.shape[1], "p"), tm._layer(ph, Z.shape[1], "ph")
    act = tm.activation(sigma)
    lhs = _rownorm_max(tm.block_layer(p, Z, sigma) - tm.block_layer(ph, Zh, sigma))
    inner = act(tm.proj_norm(tm.layer_f(ph, Zh)))
    return {
        "lhs": lhs,
        "e_c": _rownorm_max(inner @ (p.W_c - ph.W_c)),
        "e_qk": _rownorm_max(Zh @ (p.W_QK - ph.W_QK)),
        "e_v": _rownorm_max(Zh @ (p.W_v - ph.W_v)),
        "delta": _rownorm_max(Z - Zh),
        "B_c": torch.maximum(_spec(p.W_c), _spec(ph.W_c)),
        "B_v": torch.maximum(_spec(p.W_v), _spec(ph.W_v)),
        "B_qk": torch.maximum(_spec(p.W_QK), _spec(ph.W_QK)),
        "rho": torch.maximum(_rownorm_max(Z), _rownorm_max(Zh)),
    }


_E2_KEYS = ("e_c", "e_qk", "e_v", "delta", "B_c", "B_v", "B_qk")
_UNROLLED_KEYS = ("e_w", "e_c", "e_v", "e_qk", "B_c", "B_v", "B_qk", "B_w", "Bx")


def _check_rho(rho: Any) -> float | torch.Tensor:
    """A row-norm bound: a finite number >= 0, or a 0-d tensor of one (returned as given)."""
    if isinstance(rho, torch.Tensor):
        if rho.is_complex() or not rho.is_floating_point() or rho.numel() != 1:
            raise TypeError(f"rho must be a real number or a one-element real tensor, got {rho!r}")
        if not (bool(torch.isfinite(rho.detach()).all()) and float(rho.detach()) >= 0):
            raise ValueError(f"rho must be a finite number >= 0, got {float(rho.detach())}")
        return rho
    return check_positive(rho, "rho", allow_zero=True)


@refuses_overflow
def lemma_e2_rhs(t: dict[str, torch.Tensor], L_sigma: float, *, rho: float | torch.Tensor = 1.0,
                 rho_power: float = 2.0, c_delta: float = 1.0, c_delta_qk: float = 4.0,
                 c_qk: float = 2.0) -> torch.Tensor:
    """Right side of Lemma E.2 with row-norm bound ``rho`` (printed: ``rho = 1``):

    ``e_c + L_s B_c B_v (c_delta + c_delta_qk rho^p B_qk) delta + c_qk L_s B_c B_v rho^p e_qk
    + L_s B_c e_v`` with ``p = rho_power``.  The book's correction for layer 1 takes
    ``rho = max(1, Bx)``.
    """
    check_mapping(t, "t", _E2_KEYS)  # validated only: the values are used as given
    check_positive(L_sigma, "L_sigma", allow_zero=True)
    _check_rho(rho)
    check_real(rho_power, "rho_power")
    for value, name in ((c_delta, "c_delta"), (c_delta_qk, "c_delta_qk"), (c_qk, "c_qk")):
        check_positive(value, name, allow_zero=True)
    r = rho ** rho_power
    return (t["e_c"] + L_sigma * t["B_c"] * t["B_v"] * (c_delta + c_delta_qk * r * t["B_qk"]) * t["delta"]
            + c_qk * L_sigma * t["B_c"] * t["B_v"] * r * t["e_qk"] + L_sigma * t["B_c"] * t["e_v"])


def layer1_counterexample(Bx: float, eta: float = 1e-3,
                          d: int = 2) -> tuple[tm.Layer, tm.Layer, torch.Tensor]:
    """Erratum #7: tokens ``+-Bx u``; ``W_QK = 0``, ``hat W_QK = -eta u u^T``; ``W_v = W_c = I``.

    Returns ``(p, p_hat, X)``; with ``sigma = id`` and ``eta`` small no projection is active
    and Lemma E.2 at layer 1 has LHS/RHS ``~ Bx^2 / 2``.
    """
    check_positive(Bx, "Bx")
    check_real(eta, "eta")
    d = check_int(d, "d")
    u = torch.zeros(d, dtype=torch.float64)
    u[0] = 1.0
    eye = torch.eye(d, dtype=torch.float64)
    X = torch.stack([Bx * u, -Bx * u])
    return (tm.Layer(torch.zeros(d, d, dtype=torch.float64), eye, eye),
            tm.Layer(-eta * torch.outer(u, u), eye.clone(), eye.clone()), X)


@refuses_overflow
def unrolled_terms(layers: Sequence[tm.Layer], layers_h: Sequence[tm.Layer], w: torch.Tensor,
                   w_h: torch.Tensor, Xs: Sequence[torch.Tensor], sigma: str = "relu",
                   cls_index: int = 0) -> dict[str, torch.Tensor]:
    """The quantities of the unrolled bound (App. E) over samples ``Xs`` (each ``(T, d)``).

    Per-layer resolutions are the realised errors on the tokens each matrix sees along the
    *hatted* forward pass: ``e_c``, ``e_v``, ``e_qk`` (shape ``(L,)``), ``e_w = max |(w - hat w)^T
    hat a|``; ``lhs = max_samples |g_scalar - hat g_scalar|``; spectral norms ``B_c``, ``B_v``,
    ``B_qk`` (largest over layers and both parameter sets), ``B_w = ||w||_2``, ``Bx`` (largest
    input row norm).
    """
    check_sequence(layers, "layers")
    check_sequence(layers_h, "layers_h")
    if len(layers_h) != len(layers):
        raise ValueError(f"layers_h must have one layer per layer of layers ({len(layers)}), got "
                         f"{len(layers_h)}")
    check_sequence(Xs, "Xs")
    Xs = [as_tensor(X, f"Xs[{j}]", ndim=2) for j, X in enumerate(Xs)]
    d = Xs[0].shape[1]
    for j, X in enumerate(Xs):
        if X.shape[1] != d:
            raise ValueError(f"Xs[{j}] must have {d} columns like Xs[0], got shape {tuple(X.shape)}")
    layers = [tm._layer(p, d, f"layers[{i}]") for i, p in enumerate(layers)]
    layers_h = [tm._layer(p, d, f"layers_h[{i}]") for i, p in enumerate(layers_h)]
    w = as_tensor(w, "w", shape=(d,))
    w_h = as_tensor(w_h, "w_h", shape=(d,))
    if isinstance(cls_index, bool) or not isinstance(cls_index, (int, np.integer)):
        raise TypeError(f"cls_index must be an integer, got {cls_index!r}")
    T_min = min(X.shape[0] for X in Xs)
    if not -T_min <= int(cls_index) < T_min:
        raise ValueError(f"cls_index must index a row of every X in Xs (T >= {T_min}), got {cls_index}")
    L = len(layers)
    act = tm.activation(sigma)
    lhs, e_w = [], []
    e_c = [[] for _ in range(L)]
    e_v = [[] for _ in range(L)]
    e_qk = [[] for _ in range(L)]
    for X in Xs:
        Zh = X
        for i in range(L):
            ph, p = layers_h[i], layers[i]
            e_v[i].append(_rownorm_max(Zh @ (p.W_v - ph.W_v)))
            e_qk[i].append(_rownorm_max(Zh @ (p.W_QK - ph.W_QK)))
            inner = act(tm.proj_norm(tm.layer_f(ph, Zh)))
            e_c[i].append(_rownorm_max(inner @ (p.W_c - ph.W_c)))
            Zh = tm.proj_norm(inner @ ph.W_c)
        a_h = Zh[cls_index]
        e_w.append(torch.abs((w - w_h) @ a_h))
        lhs.append(torch.abs(tm.block(layers, X, sigma)[cls_index] @ w - a_h @ w_h))
    mx = lambda xs: torch.stack(xs).max()  # noqa: E731
    # noqa: E731
    sp = lambda attr: torch.stack([torch.maximum(_spec(getattr(p, attr)), _spec(getattr(q, attr)))
                                   for p, q in zip(layers, layers_h)]).max()
    return {"lhs": mx(lhs), "e_w": mx(e_w), "e_c": torch.stack([mx(e) for e in e_c]),
            "e_v": torch.stack([mx(e) for e in e_v]), "e_qk": torch.stack([mx(e) for e in e_qk]),
            "B_c": sp("W_c"), "B_v": sp("W_v"), "B_qk": sp("W_QK"), "B_w": torch.linalg.vector_norm(w),
            "Bx": torch.stack([_rownorm_max(X) for X in Xs]).max()}


def unrolled_rhs(t: dict[str, torch.Tensor], L_sigma: float, *, layer1_rho_power: float = 2.0,
                 correct_layer1: bool = True, c_qk: float = 2.0,
                 alpha_qk: float = 4.0) -> torch.Tensor:
    """``e_w + B_w sum_i alpha_i (e_c^(i) + L_s B_c e_v^(i) + c_qk L_s B_c B_v rho_i^2 e_qk^(i))``.

    ``alpha_i = (L_s B_c B_v (1 + alpha_qk B_qk))^(L-i)``; ``rho_1 = max(1, Bx)`` when
    ``correct_layer1`` (the book's correction, erratum #7) and ``rho_i = 1`` otherwise (as printed).
    """
    check_mapping(t, "t", _UNROLLED_KEYS)  # validated only: the values are used as given
    check_positive(L_sigma, "L_sigma", allow_zero=True)
    check_real(layer1_rho_power, "layer1_rho_power")
    check_bool(correct_layer1, "correct_layer1")
    check_positive(c_qk, "c_qk", allow_zero=True)
    check_positive(alpha_qk, "alpha_qk", allow_zero=True)
    if not isinstance(t["e_c"], torch.Tensor) or t["e_c"].ndim != 1 or t["e_c"].shape[0] == 0:
        raise ValueError("t['e_c'] must be a tensor of shape (L,) with L >= 1")
    L = t["e_c"].shape[0]
    rate = L_sigma * t["B_c"] * t["B_v"] * (1 + alpha_qk * t["B_qk"])
    total = t["e_w"]
    for i in range(L):
        a = rate ** (L - 1 - i)
        r = torch.clamp(t["Bx"], min=1.0) ** layer1_rho_power if (i == 0 and correct_layer1) else 1.0
        total = total + t["B_w"] * a * (t["e_c"][i] + L_sigma * t["B_c"] * t["e_v"][i]
                                        + c_qk * L_sigma * t["B_c"] * t["B_v"] * r * t["e_qk"][i])
    return total


def samples(rng: np.random.Generator, m: int, T: int, d: int, Bx: float) -> list[torch.Tensor]:
    rng = check_rng(rng)
    m, T, d = check_int(m, "m"), check_int(T, "T"), check_int(d, "d")
    Bx = check_positive(Bx, "Bx")
    out = []
    for _ in range(m):
        X = rng.standard_normal((T, d))
        X = Bx * X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0.2, 1, (T, 1))
        out.append(torch.as_tensor(X))
    return out


def l11_ball(rng: np.random.Generator, shape: tuple[int, int], B: float) -> np.ndarray:
    """A random ``shape`` matrix with entrywise l1 norm ``<= B``."""
    rng, B = check_rng(rng), check_positive(B, "B")
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (rows, columns), got {shape!r}")
    shape = (check_int(shape[0], "shape[0]"), check_int(shape[1], "shape[1]"))
    return random_l1_ball(rng, shape[0] * shape[1], B * float(rng.uniform(0.5, 1.0)), 1)[0].reshape(shape)


def composite_cover(layers: Sequence[tm.Layer], w: np.ndarray, B: float, eps_alloc: dict[str, float],
                    radius: dict[str, float]) -> tuple[list[tm.Layer], np.ndarray, float, dict[str, float]]:
    """Replace every matrix by its Lemma 3.6 (flattened Maurey) cover element at its resolution.

    ``eps_alloc`` maps pair names (``"w"``, ``"W_c^(i)"``, ``"W_v^(i)"``, ``"W_QK^(i)"``) to
    resolutions; ``radius`` gives each matrix's input radius.  Returns ``(hat layers, hat w,
    log-size of the product cover, sup errors)``: the log-size is ``sum_j log binom(2 n_j + K_j, K_j)``
    and ``sup errors[name] = radius * sigma_max(M - hat M)``, the exact worst error of that cover
    element over its input ball.
    """
    hat, logsize, sup_err = [], 0.0, {}
    for i, p in enumerate(layers, start=1):
        mats = []
        for name, M in (("W_QK", p.W_QK), ("W_v", p.W_v), ("W_c", p.W_c)):
            key = f"{name}^({i})"
            A = M.detach().numpy()
            K = maurey_K(B, radius[key], eps_alloc[key])
            Ah = cover_flat_l1(A, B, radius[key], eps_alloc[key], K=K)
            sup_err[key] = radius[key] * float(np.linalg.norm(A - Ah, 2))
            mats.append(torch.as_tensor(Ah))
            logsize += log_binomial(2 * A.size + K, K)
        hat.append(tm.Layer(*mats))
    K = maurey_K(B, 1.0, eps_alloc["w"])
    w_hat = cover_flat_l1(w[None, :], B, 1.0, eps_alloc["w"], K=K)[0]
    sup_err["w"] = float(np.linalg.norm(w - w_hat))
    logsize += log_binomial(2 * w.size + K, K)
    return hat, w_hat, logsize, sup_err


# ------------------------------------------------------------ instances of the multi-layer checks
# (each draws from its own seed, or from a generator it is handed, in a fixed order: the checks'
# instances are the same on every run)

#: Lipschitz constants of the activations the multi-layer checks use
SIGMA_LIPSCHITZ = {"identity": 1.0, "relu": 1.0, "tanh": 1.0, "2tanh": 2.0}


@refuses_overflow
def lemma_e1_slsqp_minimum(C: np.ndarray, beta: np.ndarray, eps: float, x0: np.ndarray) -> float:
    """SLSQP minimum of ``sum C_i / eps_i^2`` s.t. ``sum beta_i eps_i = eps``, ``eps_i > 0`` (Lemma E.1).

    ``C``, ``beta``, ``x0`` have shape ``(n,)``; ``x0`` is a feasible start on the simplex (the
    fractions ``beta_i eps_i / eps``).  Variables ``y_i = log(beta_i eps_i / eps)`` (so the
    constraint reads ``sum exp(y) = 1`` and positivity is automatic); the objective is divided by
    ``sum_i a_i`` for conditioning.  The value returned is that of an exactly feasible point.
    """
    import scipy.optimize as so

    C, beta, x0 = as_vector(C, "C"), as_vector(beta, "beta"), as_vector(x0, "x0")
    for a, name in ((C, "C"), (beta, "beta"), (x0, "x0")):
        if a.shape != C.shape or np.any(a <= 0):
            raise ValueError(f"{name} must hold {C.size} entries > 0 (the shape of C)")
    eps = check_positive(eps, "eps")
    a = C * beta ** 2 / eps ** 2
    s = a.sum()
    res = so.minimize(lambda y: float(np.sum(a * np.exp(-2 * y)) / s), np.log(x0),
                      jac=lambda y: -2 * a * np.exp(-2 * y) / s, method="SLSQP",
                      bounds=[(-40.0, 0.0)] * len(C),
                      constraints=[{"type": "eq", "fun": lambda y: float(np.exp(y).sum() - 1.0),
                                    "jac": lambda y: np.exp(y)}],
                      options={"ftol": 1e-15, "maxiter": 2000})
    x = np.exp(res.x)
    x = x / x.sum()  # exactly feasible: the value reported is that of a feasible point
    return float(np.sum(a / x ** 2))


def lemma_e1_instances(seed: int, count: int, *, gamma: Callable[[np.ndarray, np.ndarray], float],
                       lower_gamma: Callable[[np.ndarray, np.ndarray], float],
                       allocation_power: float = 1.0 / 3.0) -> dict[str, list[float]]:
    """Lemma E.1 on ``count`` random ``(C, beta, eps)`` (``n`` in 1..20, entries log-uniform on
    ``[1e-2, 1e2]``): keys ``closed`` (``gamma^3/eps^2``), ``numeric`` (the best of 2 SLSQP runs,
    :func:`lemma_e1_slsqp_minimum`), ``feasibility`` / ``feasibility_ref`` (constraint and value of
    the closed-form allocation ``eps/gamma (C/beta)^allocation_power`` against ``eps`` and the
    minimum), ``random_low`` (the smallest value over 500 Dirichlet(1/2) feasible allocations),
    ``lower`` (``lower_gamma^3/eps^2``) and ``solver_low`` (the SLSQP minimum again)."""
    check_callable(gamma, "gamma")
    check_callable(lower_gamma, "lower_gamma")
    allocation_power = check_real(allocation_power, "allocation_power")
    rng = np.random.default_rng(check_seed(seed))
    closed, numeric, feas, feas_ref, rand_lo, rand_closed = [], [], [], [], [], []
    for _ in range(check_int(count, "count", minimum=0)):
        n = int(rng.integers(1, 21))
        C, beta = 10 ** rng.uniform(-2, 2, n), 10 ** rng.uniform(-2, 2, n)
        eps = float(10 ** rng.uniform(-2, 1))
        g = gamma(C, beta)
        best = min(lemma_e1_slsqp_minimum(C, beta, eps, rng.dirichlet(np.ones(n))) for _ in range(2))
        closed.append(g ** 3 / eps ** 2)
        numeric.append(best)
        alloc = eps / bm.lemma_e1_gamma(C, beta) * (C / beta) ** allocation_power
        feas += [float(beta @ alloc), float(np.sum(C / alloc ** 2))]
        feas_ref += [eps, bm.lemma_e1_minimum(C, beta, eps)]
        x = rng.dirichlet(np.full(n, 0.5), size=500)
        vals = np.sum(C * beta ** 2 / eps ** 2 / x ** 2, axis=1)
        rand_lo.append(float(vals.min()))
        rand_closed.append(lower_gamma(C, beta) ** 3 / eps ** 2)
    return {"closed": closed, "numeric": numeric, "feasibility": feas, "feasibility_ref": feas_ref,
            "random_low": rand_lo, "lower": rand_closed, "solver_low": list(numeric)}


def e2_unpack(v: torch.Tensor, T: int, d: int, k: int,
              rho: float) -> tuple[tm.Layer, tm.Layer, torch.Tensor, torch.Tensor]:
    """Split a flat vector (``2 (d^2 + 2dk) + 2 T d`` entries) into two layers and two inputs
    ``(T, d)`` with rows in the ``rho`` ball: ``(p, p_hat, Z, Z_hat)`` of Lemma E.2."""
    T, d, k = check_int(T, "T"), check_int(d, "d"), check_int(k, "k")
    rho = check_positive(rho, "rho")
    v = as_tensor(v, "v", ndim=1)
    n = 2 * (d * d + 2 * d * k) + 2 * T * d
    if v.shape[0] != n:
        raise ValueError(f"v must hold 2 (d^2 + 2dk) + 2 T d = {n} entries, got {v.shape[0]}")
    sizes = [d * d, d * k, k * d]
    out, o = [], 0
    for _ in range(2):
        mats = []
        for s, shp in zip(sizes, [(d, d), (d, k), (k, d)]):
            mats.append(v[o:o + s].reshape(shp))
            o += s
        out.append(tm.Layer(*mats))
    Z = rho * tm.proj_norm(v[o:o + T * d].reshape(T, d))
    Zh = rho * tm.proj_norm(v[o + T * d:o + 2 * T * d].reshape(T, d))
    return out[0], out[1], Z, Zh


def e2_init(T: int, d: int, k: int, g: np.random.Generator) -> np.ndarray:
    """A start for the Lemma E.2 adversary (the layout of :func:`e2_unpack`): ``hat W = W + small``
    and ``hat Z = Z + small``."""
    T, d, k, g = check_int(T, "T"), check_int(d, "d"), check_int(k, "k"), check_rng(g, "g")
    n = 2 * (d * d + 2 * d * k) + 2 * T * d
    base = g.standard_normal(n) * g.uniform(0.2, 2)
    m = d * d + 2 * d * k
    scale = 10 ** g.uniform(-4, 0)
    base[m:2 * m] = base[:m] + scale * g.standard_normal(m)  # hat W = W + small
    base[2 * m + T * d:] = base[2 * m:2 * m + T * d] + scale * g.standard_normal(T * d)
    return base


def lemma_e2_instances(rng: np.random.Generator, count: int, *,
                       rho_of: Callable[[np.random.Generator], float],
                       rhs_rho: Callable[[float], float], rhs_kwargs: dict[str, Any]
                       ) -> tuple[list[float], list[float]]:
    """Lemma E.2 on ``count`` random configurations (``T`` in ``{2, 4, 8}``, ``d, k`` in ``{2, 3}``,
    the four activations in turn, row radius ``rho_of(rng)``), 9 draws each: everything perturbed,
    or only ``W_c``, ``W_v``, ``W_QK``, or the input (``W_QK = 0``).  Returns LHS and
    :func:`lemma_e2_rhs` with ``rho = rhs_rho(rho)`` and ``rhs_kwargs``."""
    rng = check_rng(rng)
    check_callable(rho_of, "rho_of")
    check_callable(rhs_rho, "rhs_rho")
    check_mapping(rhs_kwargs, "rhs_kwargs")
    lhs, rhs = [], []
    configs = []
    for j in range(check_int(count, "count", minimum=0)):
        T, d, k = int(rng.choice([2, 4, 8])), int(rng.integers(2, 4)), int(rng.integers(2, 4))
        sigma = ("identity", "relu", "tanh", "2tanh")[j % 4]
        configs.append((T, d, k, sigma, rho_of(rng)))
    for j, (T, d, k, sigma, rho) in enumerate(configs):
        Ls = SIGMA_LIPSCHITZ[sigma]
        m = d * d + 2 * d * k
        for r in range(9):
            v = torch.as_tensor(e2_init(T, d, k, rng))
            if r >= 5:  # isolate one perturbation: W_c, W_v, W_QK, or the input (with W_QK = 0)
                v[m:2 * m] = v[:m]
                v[2 * m + T * d:] = v[2 * m:2 * m + T * d]
                lo, hi = {5: (m - k * d, m), 6: (d * d, d * d + d * k), 7: (0, d * d), 8: (None, None)}[r]
                if lo is not None:
                    scale = 10 ** rng.uniform(-3, 0)
                    v[m + lo:m + hi] += scale * torch.as_tensor(rng.standard_normal(hi - lo))
                else:
                    v[:d * d] = 0.0
                    v[m:m + d * d] = 0.0
                    scale = 10 ** rng.uniform(-3, 0)
                    v[2 * m + T * d:] += scale * torch.as_tensor(rng.standard_normal(T * d))
            with torch.no_grad():
                p, ph, Z, Zh = e2_unpack(v, T, d, k, rho)
                t = lemma_e2_terms(p, ph, Z, Zh, sigma)
                lhs.append(float(t["lhs"]))
                rhs.append(float(lemma_e2_rhs(t, Ls, rho=rhs_rho(rho), **rhs_kwargs)))
    return lhs, rhs


def lemma_e2_equality(rng: np.random.Generator, *, c_delta: float = 1.0, c_delta_qk: float = 4.0,
                      c_qk: float = 2.0) -> tuple[float, float]:
    """Lemma E.2's equality case: ``W_QK = 0`` (uniform attention), identity ``W_v = W_c``, every token
    of 4 random ones (``d = 3``, scale 0.1) shifted by the same small vector, ``sigma = id``: LHS =
    ``delta`` = RHS.  Returns ``(lhs, rhs)``."""
    rng = check_rng(rng)
    eye = torch.eye(3, dtype=torch.float64)
    Z = 0.1 * torch.as_tensor(rng.standard_normal((4, 3)))
    p = tm.Layer(torch.zeros(3, 3, dtype=torch.float64), eye, eye)
    t = lemma_e2_terms(p, p, Z, Z + 1e-3 * torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64), "identity")
    return float(t["lhs"]), float(lemma_e2_rhs(t, 1.0, c_delta=c_delta, c_delta_qk=c_delta_qk, c_qk=c_qk))


@refuses_overflow
def layer1_values(Bxs: Sequence[float], *, rho_power: float = 2.0) -> dict[str, list[float]]:
    """Lemma E.2 on :func:`layer1_counterexample` (``eta = 1e-3/Bx^3``) for each ``Bx``: keys ``lhs``,
    ``printed`` (the RHS with ``rho = 1``) and ``corrected`` (``rho = max(1, Bx)``, power ``rho_power``)."""
    check_sequence(Bxs, "Bxs")
    for i, Bx in enumerate(Bxs):
        check_positive(Bx, f"Bxs[{i}]")
    rho_power = check_real(rho_power, "rho_power")
    lhs, pr, co = [], [], []
    for Bx in Bxs:
        p, ph, X = layer1_counterexample(Bx, eta=1e-3 / Bx ** 3)
        t = lemma_e2_terms(p, ph, X, X, "identity")
        lhs.append(float(t["lhs"]))
        pr.append(float(lemma_e2_rhs(t, 1.0, rho=1.0, rho_power=rho_power)))
        co.append(float(lemma_e2_rhs(t, 1.0, rho=max(1.0, Bx), rho_power=rho_power)))
    return {"lhs": lhs, "printed": pr, "corrected": co}


def readout_instances(seed: int, count: int, *, second_term: float = 1.0) -> tuple[list[float], list[float]]:
    """Lemma E.3 on ``count`` random perturbed blocks (``T`` in 2..5, ``d, k`` in 2..4, ``L`` in
    ``{1, 2}``, ``B_qk = 2``, perturbations ``10^U(-3, 0)``): ``|w^T a - hat w^T hat a|`` and
    ``||w|| ||a - hat a|| + second_term |(w - hat w)^T hat a|`` (``a`` the [CLS] outputs)."""
    second_term = check_real(second_term, "second_term")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for i in range(check_int(count, "count", minimum=0)):
        T, d, k = int(rng.integers(2, 6)), int(rng.integers(2, 5)), int(rng.integers(2, 5))
        L = int(rng.integers(1, 3))
        X = torch.as_tensor(rng.standard_normal((T, d)))
        layers = tm.random_block(rng, L, d, k, B_qk=2.0)
        s = 10 ** rng.uniform(-3, 0)
        layers_h = [tm.Layer(*[M + s * torch.as_tensor(rng.standard_normal(M.shape)) for M in p])
                    for p in layers]
        w = torch.as_tensor(rng.standard_normal(d))
        wh = w + s * torch.as_tensor(rng.standard_normal(d))
        a, ah = tm.block(layers, X)[0], tm.block(layers_h, X)[0]
        lhs.append(float(torch.abs(w @ a - wh @ ah)))
        rhs.append(float(torch.linalg.vector_norm(w) * torch.linalg.vector_norm(a - ah)
                         + second_term * torch.abs((w - wh) @ ah)))
    return lhs, rhs


def sup_identity_values(seed: int, count: int, *, transpose: bool = False) -> tuple[list[float], list[float]]:
    """Eq. E.1 on ``count`` random ``D`` (``k, d`` in 1..5) and ``m`` in 1..4 token matrices ``C``
    (``d x T``): ``max_i ||D C^(i)||_{2,inf}`` (Sec. 2.1's column-wise norm, or row-wise when
    ``transpose``) and ``max_{i,t} ||D C^(i)_{:,t}||_2``."""
    transpose = check_bool(transpose, "transpose")
    rng = np.random.default_rng(check_seed(seed))
    comp, ref = [], []
    for _ in range(check_int(count, "count", minimum=0)):
        k, d, T, m = (int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(1, 9)),
                      int(rng.integers(1, 5)))
        D = rng.standard_normal((k, d))
        Cs = rng.standard_normal((m, d, T))
        comp.append(max(mixed_norm((D @ C).T if transpose else D @ C, 2, math.inf) for C in Cs))
        ref.append(max(float(np.linalg.norm(D @ C[:, t])) for C in Cs for t in range(T)))
    return comp, ref


def perturbed_network(rng: np.random.Generator, L: int, d: int, k: int, scale: float,
                      bounds: tuple[float, float, float]
                      ) -> tuple[list[tm.Layer], list[tm.Layer], torch.Tensor, torch.Tensor]:
    """A random ``L``-layer block with spectral norms ``bounds = (B_qk, B_v, B_c)`` and read-out ``w``
    (``(d,)``), and the same with Gaussian noise of scale ``scale`` on every matrix and on ``w``:
    ``(layers, layers_hat, w, w_hat)``."""
    rng, scale = check_rng(rng), check_positive(scale, "scale", allow_zero=True)
    check_sequence(bounds, "bounds")
    if len(bounds) != 3:
        raise ValueError(f"bounds must be (B_qk, B_v, B_c), got {bounds!r}")
    for i, b in enumerate(bounds):
        check_positive(b, f"bounds[{i}]", allow_zero=True)
    Bq, Bv, Bc = bounds
    layers = tm.random_block(rng, L, d, k, B_qk=Bq, B_v=Bv, B_c=Bc)
    layers_h = [tm.Layer(*[M + scale * torch.as_tensor(rng.standard_normal(M.shape)) for M in p])
                for p in layers]
    w = torch.as_tensor(rng.standard_normal(d))
    return layers, layers_h, w, w + scale * torch.as_tensor(rng.standard_normal(d))


@refuses_overflow
def unrolled_instances(seed: int, count: int, *, c_qk: float = 2.0, alpha_qk: float = 4.0
                       ) -> tuple[list[float], list[float]]:
    """The unrolled bound of App. E on ``count`` random networks (``L`` in 1..3, ``d, k`` in 2..4,
    ``T`` in ``{2, 4, 8}``, relu / tanh / identity, 3 samples with rows of norm ``<= U(0.3, 1)``),
    perturbation ``10^U(-4, 0)`` of everything or of only ``w``, one ``W_c``, ``W_v`` or ``W_QK``:
    LHS and :func:`unrolled_rhs` (``L_sigma = 1``)."""
    c_qk, alpha_qk = check_real(c_qk, "c_qk"), check_real(alpha_qk, "alpha_qk")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for j in range(check_int(count, "count", minimum=0)):
        L, d, k = int(rng.integers(1, 4)), int(rng.integers(2, 5)), int(rng.integers(2, 5))
        T = int(rng.choice([2, 4, 8]))
        sigma = ("relu", "tanh", "identity")[j % 3]
        Xs = samples(rng, 3, T, d, float(rng.uniform(0.3, 1.0)))
        scale = float(10 ** rng.uniform(-4, 0))
        net = perturbed_network(rng, L, d, k, scale, tuple(float(b) for b in rng.uniform(0.3, 2.5, 3)))
        mode = j % 5  # 0: everything perturbed; 1-4: only w, or one W_c / W_v / W_QK
        if mode:
            layers, _, w, w_h = net
            layers_h = [tm.Layer(*[M.clone() for M in p]) for p in layers]
            if mode == 1:
                w_h = w + scale * torch.as_tensor(rng.standard_normal(d))
            else:
                i, field = int(rng.integers(L)), ("W_c", "W_v", "W_QK")[mode - 2]
                M = getattr(layers_h[i], field)
                noise = scale * torch.as_tensor(rng.standard_normal(M.shape))
                layers_h[i] = layers_h[i]._replace(**{field: M + noise})
                w_h = w.clone()
            net = (layers, layers_h, w, w_h)
        with torch.no_grad():
            t = unrolled_terms(*net, Xs, sigma)
            lhs.append(float(t["lhs"]))
            rhs.append(float(unrolled_rhs(t, 1.0, c_qk=c_qk, alpha_qk=alpha_qk)))
    return lhs, rhs








def cor421_regimes(seed: int, count: int) -> list[dict[str, Any]]:
    """Parameter sets of Cor. 4.2.1's constants: a grid (``d = 16``, ``k = 8``, ``L = 1..6``, ``B_qk2``
    in ``{1e-3, 0.1, 1, 3}``, ``Bx`` in ``{0.5, 1, 2}``, other norms 1), then ``count`` random regimes
    (``d, k`` in 1..99, norms in ``10^U(-1, 1)``, ``L`` in 1..6, ``L_sigma`` in ``{1, 2}``, ``B_qk2``
    in ``10^U(-3, 1)``): keyword arguments of
    :func:`~attention_theory.trauger.multi_layer_bounds.cor421_proof_constant`."""
    rng = np.random.default_rng(check_seed(seed))
    grid = []
    for L in range(1, 7):
        for Bq in (1e-3, 1e-1, 1.0, 3.0):
            for Bx in (0.5, 1.0, 2.0):
                grid.append(dict(d=16, k=8, B=1.0, Bx=Bx, B_w=1.0, L=L, L_sigma=1.0, B_c2=1.0, B_v2=1.0,
                                 B_qk2=Bq))
    for _ in range(check_int(count, "count", minimum=0)):
        grid.append(dict(d=int(rng.integers(1, 100)), k=int(rng.integers(1, 100)),
                         B=float(10 ** rng.uniform(-1, 1)),
                         Bx=float(10 ** rng.uniform(-1, 1)), B_w=float(10 ** rng.uniform(-1, 1)),
                         L=int(rng.integers(1, 7)), L_sigma=float(rng.choice([1.0, 2.0])),
                         B_c2=float(10 ** rng.uniform(-1, 1)), B_v2=float(10 ** rng.uniform(-1, 1)),
                         B_qk2=float(10 ** rng.uniform(-3, 1))))
    return grid


@refuses_overflow
def log_cube_l1_cover_lower(d: int, B: float, eps: float) -> float:
    """Volume lower bound for covering ``[-B, B]^d`` by l1 balls of radius ``eps sqrt(d)``:
    ``log d! + d log(B / (eps sqrt d))`` (erratum #9, Cor. F.0.1)."""
    from scipy.special import gammaln

    d, B, eps = check_int(d, "d"), check_positive(B, "B"), check_positive(eps, "eps")
    return float(gammaln(d + 1) + d * math.log(B / (eps * math.sqrt(d))))


@refuses_overflow
def dudley_rademacher_numeric(A: float, m: int, R: float, *, c_D: float = 12.0) -> float:
    """``c_D inf_delta (delta + int_delta^R sqrt(A/(m eps^2)) d eps)`` by quadrature and bounded
    minimisation: the numerical Dudley bound for ``log N <= A/eps^2`` and range ``R`` (Sec. 4.3)."""
    import scipy.optimize as so
    from scipy.integrate import quad

    A, m, R = check_positive(A, "A"), check_int(m, "m"), check_positive(R, "R")
    c_D = check_positive(c_D, "c_D")

    def h(delta: float) -> float:
        if delta >= R:
            return delta
        integral, _ = quad(lambda e: math.sqrt(A / m) / e, delta, R)
        return delta + integral

    res = so.minimize_scalar(h, bounds=(1e-12, R), method="bounded", options={"xatol": 1e-13})
    return c_D * min(res.fun, h(R))


def sec43_dudley_values(seed: int, count: int, *, closed_form: Callable[..., float] = bm.dudley_rademacher
                        ) -> tuple[list[float], list[float]]:
    """``closed_form(A, m, R, c_D=12)`` and :func:`dudley_rademacher_numeric` on ``count`` random
    ``A`` in ``10^U(-2, 4)``, ``m`` in ``10^U(0, 6)``, ``R`` in ``10^U(-1, 1)`` (Sec. 4.3 (a))."""
    check_callable(closed_form, "closed_form")
    rng = np.random.default_rng(check_seed(seed))
    comp, ref = [], []
    for _ in range(check_int(count, "count", minimum=0)):
        A, m = float(10 ** rng.uniform(-2, 4)), int(10 ** rng.uniform(0, 6))
        R = float(10 ** rng.uniform(-1, 1))
        ref.append(dudley_rademacher_numeric(A, m, R, c_D=12.0))
        comp.append(closed_form(A, m, R, c_D=12.0))
    return comp, ref
