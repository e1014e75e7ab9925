"""Instances and differentiable closed forms for the single-head calculus of Deora et al.

Random single-head instances ``(X, W, U)`` with a prescribed ``||W||_F``, the gradient and
Hessian norms of Eq. (1) from Lemma 1's closed forms (:func:`model_norms`), the right-hand sides
of Proposition 1 as torch tensors (:func:`rhs_torch`), and the adversarial search that maximizes
the ratio of the Proposition-1 items over sizes and inputs (:func:`adversarial_prop1`).
The checks of Eqs. (1)-(2), Lemma 1, Proposition 1 and Lemma 5 in
:mod:`attention_theory.deora.checks.model_and_calculus` evaluate them (chapter
``book/deora/model-and-calculus.md``).

It also holds the small tools every Deora check uses to search adversarially with
:func:`attention_theory.search.maximize_over_sizes`: :func:`search_tensor` / :func:`search_value`
(the point a method hands the objective, a torch tensor for L-BFGS / Adam or a numpy array for
Nelder-Mead, and the value it expects back), :func:`box` / :func:`log_box` (smooth maps of an
unconstrained coordinate into a check's parameter range), :func:`into_ball` (tokens into the
``R``-ball of Assumption 1), :func:`attention_theory.search.numpy_objective` (a float formula, such as the
numpy
calculators that negative controls replace, made searchable by L-BFGS with finite-difference
gradients) and :func:`maximize_each` (the search size by size, with the best point of each size).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.search import SizedSearch, maximize_over_sizes
from attention_theory.validation import as_vector, check_int, check_positive, check_seed


def rand_instance(rng: np.random.Generator, T: int, d: int, wnorm: float | None = None,
                   R: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``X (T, d)``, ``W (d, d)`` (Frobenius norm ``wnorm`` if given), ``U (T, d)``."""
    X = rng.standard_normal((T, d))
    if R is not None:
        X *= R / np.linalg.norm(X, axis=1).max()
    W = rng.standard_normal((d, d))
    if wnorm is not None:
        W = W * (wnorm / np.linalg.norm(W)) if wnorm > 0 else np.zeros((d, d))
    U = rng.standard_normal((T, d)) * 10.0 ** rng.uniform(-1, 1)
    return X, W, U


def model_norms(X: torch.Tensor, W: torch.Tensor, U: torch.Tensor,
                which: tuple[str, ...] | None = None) -> dict[str, torch.Tensor]:
    """Differentiable ``||grad_U||_F``, ``||grad_W||_F``, ``||grad||``, ``||Hessian||_2`` (closed forms).

    ``which`` restricts the keys computed (``"gU"``, ``"gW"``, ``"g"``, ``"H"``); the Hessian, the
    expensive one, is formed only when ``"H"`` is asked for.
    """
    keys = ("gU", "gW", "g", "H") if which is None else tuple(which)
    out: dict[str, torch.Tensor] = {}
    if {"gU", "gW", "g"} & set(keys):
        gU = md.grad_U(X, W)
        gW = md.grad_W(X, W, U) if {"gW", "g"} & set(keys) else None
        if "gU" in keys:
            out["gU"] = torch.linalg.norm(gU)
        if "gW" in keys:
            out["gW"] = torch.linalg.norm(gW)
        if "g" in keys:
            out["g"] = torch.sqrt(torch.sum(gU**2) + torch.sum(gW**2))
    if "H" in keys:
        ev = torch.linalg.eigvalsh(md.hessian_closed_form(X, W, U))
        out["H"] = torch.max(torch.abs(ev))
    return out


def rhs_torch(X: torch.Tensor, U: torch.Tensor, R: float | None) -> dict[str, torch.Tensor]:
    """Proposition 1 right-hand sides as differentiable tensors (same formulas as bounds.deora)."""
    T, d = X.shape
    r2i = torch.linalg.norm(X, dim=1).max()
    r1i = X.abs().max()
    s = (U @ X.T).abs().max(dim=1).values.sum()
    out = {"1": math.sqrt(T) * r2i, "2": 2 * r2i**2 * s, "3": 2 * r2i**2 * s + math.sqrt(T) * r2i,
           "4": 6 * d * r2i**2 * r1i**2 * s + 2 * math.sqrt(T * d) * r2i**2 * r1i,
           "sharp": 2 * r2i**4 * s + math.sqrt(T) * r2i**3}
    if R is not None:
        uf = torch.linalg.norm(U)
        out["5"] = math.sqrt(T) * R * (2 * R**2 * uf + 1)
        out["6"] = 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * uf + 1)
    return out


LHS_OF = {"1": "gU", "2": "gW", "3": "g", "4": "H", "5": "g", "6": "H", "sharp": "H"}


RhsFn = Callable[[torch.Tensor, torch.Tensor, "float | None"], dict]


def prop1_sizes(items: tuple[str, ...], sizes: list[tuple[int, int]], Rs: list[float]
                ) -> list[tuple[str, int, int, float | None]]:
    """Search sizes ``(item, T, d, R)`` of :func:`adversarial_prop1`: ``R`` only for items 5-6; the
    items on ``grad_W`` or the Hessian (2, 4, 6, ``"sharp"``) from ``T = 2`` on, since with one
    token attention is constant and their left sides vanish."""
    return [(k, T, d, R) for k in items for (T, d) in sizes
            if T > 1 or k not in ("2", "4", "6", "sharp")
            for R in (Rs if k in ("5", "6") else [None])]


def prop1_point(size: tuple[str, int, int, float | None], z: Any
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(X, U, W)`` of a search point: ``z = (X, U, W)`` flat; for items 5-6 the tokens are pulled
    into the ball ``||x_t|| <= R`` (:func:`into_ball`), so every point the search sees is feasible."""
    _, T, d, R = size
    z = search_tensor(z)
    X, U, W = z[:T * d].reshape(T, d), z[T * d:2 * T * d].reshape(T, d), z[2 * T * d:].reshape(d, d)
    if R is not None:
        X = into_ball(X, R)
    return X, U, W


def prop1_ratio(size: tuple[str, int, int, float | None], z: Any, rhs: RhsFn = rhs_torch) -> Any:
    """``LHS/RHS`` of Proposition-1 item ``size[0]`` at the search point ``z`` (see :func:`prop1_point`)."""
    item, _, _, R = size
    X, U, W = prop1_point(size, z)
    key = LHS_OF[item]
    return search_value(model_norms(X, W, U, (key,))[key] / rhs(X, U, R if R is not None else 1.0)[item], z)


def _prop1_init(size: tuple[str, int, int, float | None], rng: np.random.Generator) -> np.ndarray:
    """Tokens on or inside the ball, ``U`` from 0.1 to 3, ``W`` up to saturation (``||W||`` up to 100)."""
    _, T, d, R = size
    X = rng.standard_normal((T, d))
    X *= (R or 1.0) / np.linalg.norm(X, axis=1).max() * rng.uniform(0.7, 1.0)
    U = rng.standard_normal((T, d)) * 10.0 ** rng.uniform(-1, 0.5)
    W = rng.standard_normal((d, d)) * 10.0 ** rng.uniform(-1, 2) / max(d, 1)
    return np.concatenate([X.ravel(), U.ravel(), W.ravel()])


def adversarial_prop1(sizes: list[tuple[str, int, int, float | None]], *, rhs: RhsFn = rhs_torch,
                      restarts: int = 2, steps: int = 30, seed: int = 0
                      ) -> tuple[SizedSearch, dict[Any, tuple[float, np.ndarray]]]:
    """Maximize ``LHS/RHS`` of Proposition-1 items over ``(X, U, W)``, size by size.

    ``sizes``: ``(item, T, d, R)`` (:func:`prop1_sizes`).  L-BFGS (autograd) and Nelder-Mead from
    ``restarts`` starts each, including saturated attention; items 5-6 keep the tokens in the
    ``R``-ball through :func:`into_ball`, items 1-4 and ``"sharp"`` are scale-free in ``X`` and
    unconstrained.  Returns the merged search and ``{size: (best ratio, point)}``
    (:func:`maximize_each`).
    """
    return maximize_each(lambda size, z: prop1_ratio(size, z, rhs), _prop1_init, sizes,
                         restarts=restarts, steps=steps, seed=seed)


def hessian_ratio_curve(wnorms: Any, *, T: int = 3, d: int = 2, count: int = 40, R: float = 1.0,
                        seed: int = 7) -> tuple[list[float], list[float]]:
    """For each Frobenius norm ``||W||_F`` in ``wnorms``, the largest ratio over ``count`` random
    instances (:func:`rand_instance`, token norms at most ``R``) of the single-head Hessian norm
    ``||Hess Phi||_2`` to Proposition 1's item 4 and to the book's sharper bound: ``(ratios to item 4,
    ratios to the sharper bound)``, one per norm (instances drawn in order from one generator of
    ``seed``).  Used by ``book/deora/model-and-calculus.md`` (figure ``fig-dmc-hessian-ratio``)."""
    wn = as_vector(wnorms, "wnorms")
    if np.any(wn < 0):
        raise ValueError(f"wnorms must be norms (>= 0), got {wn.min()}")
    T, d, count = check_int(T, "T"), check_int(d, "d"), check_int(count, "count")
    R = check_positive(R, "R")
    rng = np.random.default_rng(check_seed(seed, "seed"))
    r4, rs = [], []
    for w in wn:
        a, b = [], []
        for _ in range(count):
            X, W, U = rand_instance(rng, T, d, wnorm=float(w), R=R)
            h = float(model_norms(*map(torch.as_tensor, (X, W, U)))["H"])
            a.append(h / bd.prop1_rhs(X, U)["4"])
            b.append(h / bd.prop1_sharper_hessian_rhs(X, U))
        r4.append(max(a))
        rs.append(max(b))
    return r4, rs


# --- tools shared by the adversarial searches of the Deora checks -------------------------


def search_tensor(x: Any) -> torch.Tensor:
    """The search point as a float64 tensor (a tensor keeps its autograd graph)."""
    return x if torch.is_tensor(x) else torch.as_tensor(np.asarray(x), dtype=VERIFICATION_DTYPE)


def search_value(value: torch.Tensor, x: Any) -> Any:
    """The objective's value in the form the method expects: a tensor when the point is a tensor
    (L-BFGS, Adam), a float for Nelder-Mead."""
    return value if torch.is_tensor(x) else float(value)


def box(x: Any, lo: float, hi: float) -> Any:
    """Smooth map of the real line onto ``(lo, hi)``: ``lo + (hi - lo) sigmoid(x)`` (tensor or array)."""
    if torch.is_tensor(x):
        return lo + (hi - lo) * torch.sigmoid(x)
    from scipy.special import expit

    return lo + (hi - lo) * expit(np.asarray(x, dtype=np.float64))


def log_box(x: Any, lo: float, hi: float) -> Any:
    """``10 ** box(x, lo, hi)``: the log-uniform range ``(10^lo, 10^hi)``."""
    return 10.0 ** box(x, lo, hi)


def into_ball(X: torch.Tensor, R: float) -> torch.Tensor:
    """Rows of ``X`` (last axis) radially projected into ``||x_t|| <= R`` (identity inside the ball)."""
    n = torch.linalg.vector_norm(X, dim=-1, keepdim=True)
    return X / torch.clamp(n / R, min=1.0)


def maximize_each(objective: Callable[[Any, Any], Any],
                  init: Callable[[Any, np.random.Generator], np.ndarray],
                  sizes: Any, **kw: Any) -> tuple[SizedSearch, dict[Any, tuple[float, np.ndarray]]]:
    """:func:`~attention_theory.search.maximize_over_sizes` one size at a time (seed ``seed + 1000 i``
    for the ``i``-th size, as it does itself), for checks that evaluate each size's best point
    again: returns the merged :class:`~attention_theory.search.SizedSearch` (best value and
    instance over all sizes, best value per size, total budget) and ``{size: (best value, point)}``."""
    sizes = list(sizes)
    seed = kw.pop("seed", 0)
    parts, points = [], {}
    for i, size in enumerate(sizes):
        r = maximize_over_sizes(objective, init, [size], seed=seed + 1000 * i, **kw)
        parts.append(r)
        points[size] = (r.best_value, r.best_x)
    best = max(parts, key=lambda r: r.best_value)
    per_size: dict[str, float] = {}
    for r in parts:
        per_size.update(r.per_size)
    budget = dict(parts[0].budget)
    budget.update(sizes=[str(z) for z in sizes], seed=seed,
                  evaluated_starts=sum(r.budget["evaluated_starts"] for r in parts))
    return SizedSearch(best.best_value, best.best_size, best.best_method, best.best_x, per_size,
                       budget), points


def search_sides(sides: Callable[[Any, np.ndarray], tuple[np.ndarray, np.ndarray]], dim: int, sizes: Any, *,
                 restarts: int, steps: int, seed: int) -> tuple[SizedSearch, np.ndarray, np.ndarray]:
    """Adversarial search for a family of inequalities ``lhs <= rhs`` given as
    ``sides(size, z) -> (lhs, rhs)`` (numpy arrays, ``z`` of length ``dim`` in unconstrained
    coordinates): :func:`maximize_each` of the largest ``lhs / rhs`` (finite differences, starts
    ``N(0, 2^2)``), then the sides at every size's best point, to be appended to the checked
    arrays.  Returns ``(search, lhs_found, rhs_found)``."""
    from attention_theory.search import numpy_objective

    res, points = maximize_each(numpy_objective(lambda size, z: float(np.max(np.divide(*sides(size, z))))),
                                lambda size, g: g.normal(0.0, 2.0, dim), sizes,
                                restarts=restarts, steps=steps, seed=seed)
    found = [sides(size, z) for size, (_, z) in points.items()]
    return (res, np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a, _ in found]),
            np.concatenate([np.asarray(b, dtype=np.float64).ravel() for _, b in found]))
