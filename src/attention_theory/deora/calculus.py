"""Instances and differentiable closed forms for the single-head calculus of Deora et al.

Random single-head instances ``(X, W, U)`` with a prescribed ``||W||_F``, the gradient and
Hessian norms of Eq. (1) from Lemma 1's closed forms (:func:`model_norms`), the right-hand sides
of Proposition 1 as torch tensors (:func:`rhs_torch`), and the adversarial search that maximizes
the ratio of one Proposition-1 item over inputs in the ``R``-ball (:func:`adversarial_prop1`).
The checks of Eqs. (1)-(2), Lemma 1, Proposition 1 and Lemma 5 in
:mod:`attention_theory.deora.checks.calculus` evaluate them (chapter
``book/deora/model-and-calculus.md``).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from attention_theory.deora import model as md
from attention_theory.search import maximize

DT = torch.float64


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


def model_norms(X: torch.Tensor, W: torch.Tensor, U: torch.Tensor) -> dict[str, torch.Tensor]:
    """Differentiable ``||grad_U||_F``, ``||grad_W||_F``, ``||grad||``, ``||Hessian||_2`` (closed forms)."""
    gU = md.grad_U(X, W)
    gW = md.grad_W(X, W, U)
    Hs = md.hessian_closed_form(X, W, U)
    ev = torch.linalg.eigvalsh(Hs)
    return {"gU": torch.linalg.norm(gU), "gW": torch.linalg.norm(gW),
            "g": torch.sqrt(torch.sum(gU**2) + torch.sum(gW**2)),
            "H": torch.max(torch.abs(ev))}


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


def _project_ball(T: int, d: int, R: float) -> Callable[[np.ndarray], np.ndarray]:
    def proj(z: np.ndarray) -> np.ndarray:
        z = z.copy()
        X = z[:T * d].reshape(T, d)
        n = np.linalg.norm(X, axis=1, keepdims=True)
        X *= np.minimum(1.0, R / np.maximum(n, 1e-300))
        z[:T * d] = X.ravel()
        return z
    return proj


RhsFn = Callable[[torch.Tensor, torch.Tensor, "float | None"], dict]


def adversarial_prop1(item: str, T: int, d: int, R: float | None = 1.0, *,
                      rhs: RhsFn = rhs_torch, restarts: int = 4, steps: int = 150,
                      seed: int = 0) -> tuple[float, np.ndarray]:
    """Maximize ``LHS/RHS`` of one Proposition-1 item over ``(X, W, U)``.

    Items ``"5"``, ``"6"`` (Assumption 1): Adam with tokens projected into ``||x_t|| <= R``
    after every step; others: L-BFGS without constraint (the ratios are scale-free in X).
    Starts include saturated attention (``||W||`` up to 100).  Returns (best ratio, point).
    """
    key = LHS_OF[item]

    def obj(z: torch.Tensor) -> torch.Tensor:
        X, U, W = z[:T * d].reshape(T, d), z[T * d:2 * T * d].reshape(T, d), z[2 * T * d:].reshape(d, d)
        return model_norms(X, W, U)[key] / rhs(X, U, R)[item]

    def init(rng: np.random.Generator) -> np.ndarray:
        X = rng.standard_normal((T, d))
        X *= (R or 1.0) / np.linalg.norm(X, axis=1).max()
        U = rng.standard_normal((T, d)) * 10.0 ** rng.uniform(-1, 0.5)
        W = rng.standard_normal((d, d)) * 10.0 ** rng.uniform(-1, 2) / max(d, 1)
        return np.concatenate([X.ravel(), U.ravel(), W.ravel()])

    if item in ("5", "6"):
        assert R is not None
        res = maximize(obj, init, restarts=restarts, steps=2 * steps, method="adam", lr=0.03,
                       seed=seed, project=_project_ball(T, d, R))
    else:
        res = maximize(obj, init, restarts=restarts, steps=steps, method="lbfgs", seed=seed)
    return res.best_value, res.best_x
