"""Instances for the multi-layer covering bound of Trauger & Tewari (Sec. 4.3, Apps. E-F).

The terms of Lemma E.2 (as printed and as unrolled), the layer-1 counterexample to the printed
form, sample inputs and l_{1,1} balls, and the composite cover of Theorem 4.2 built layer by
layer. The checks of :mod:`attention_theory.trauger.checks.multi_layer` evaluate them.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch

from attention_theory._validate import (
    as_tensor,
    check_bool,
    check_int,
    check_mapping,
    check_positive,
    check_real,
    check_rng,
    refuses_overflow,
)
from attention_theory.foundations.maurey import cover_flat_l1, log_binomial, maurey_K
from attention_theory.trauger import model as tm
from attention_theory.trauger._args import check_sequence
from attention_theory.trauger.linear_covering import random_l1_ball

__all__ = ['composite_cover', 'l11_ball', 'layer1_counterexample', 'lemma_e2_rhs', 'lemma_e2_terms', 'samples', 'unrolled_rhs', 'unrolled_terms']


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


def layer1_counterexample(Bx: float, eta: float = 1e-3, d: int = 2) -> tuple[tm.Layer, tm.Layer, torch.Tensor]:
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
        raise ValueError(f"layers_h must have one layer per layer of layers ({len(layers)}), got {len(layers_h)}")
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
    sp = lambda attr: torch.stack([torch.maximum(_spec(getattr(p, attr)), _spec(getattr(q, attr)))  # noqa: E731
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
