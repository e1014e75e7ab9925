"""Adversarial search: maximize a ratio (or any objective) over instances, in float64.

Checks use :func:`maximize` to look for the instance where a bound is tightest (LHS/RHS
largest) or an identity is worst; the best value found is a lower bound on the supremum,
reported with its budget (restarts, steps, method).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np

from attention_theory.validation import check_int, check_seed

__all__ = ["SearchResult", "SizedSearch", "maximize", "maximize_over_sizes", "numpy_objective", "NO_INSTANCE"]

#: The value :func:`numpy_objective` gives a point where the formula is not finite (no instance):
#: finite, so that a restart whose every point overflowed still reports a value, and far below
#: any ratio a check can record.
NO_INSTANCE = -1e300



@dataclasses.dataclass
class SearchResult:
    """Best point found by :func:`maximize` and the value at each restart's end."""

    best_value: float
    best_x: np.ndarray
    values: np.ndarray
    starts: np.ndarray

    def __str__(self) -> str:
        return (f"SearchResult(best={self.best_value:.6g} over {len(self.values)} restarts; "
                f"median restart {np.median(self.values):.6g})")


def maximize(objective: Callable[[Any], Any], init: Callable[[np.random.Generator], np.ndarray], *,
             restarts: int = 8, steps: int = 200, method: str = "lbfgs", seed: int = 0,
             project: Callable[[np.ndarray], np.ndarray] | None = None,
             lr: float = 0.05) -> SearchResult:
    """Maximize ``objective`` from ``restarts`` random starts, in float64.

    Parameters
    ----------
    objective
        ``f(x) -> scalar``. For ``method="lbfgs"`` and ``"adam"`` it receives a
        float64 ``torch.Tensor`` of shape ``(n,)`` and must return a 0-d tensor
        (gradients by autograd); for ``"nelder-mead"`` it receives a numpy array.
    init
        ``init(rng) -> np.ndarray`` of shape ``(n,)``: one random starting point.
    method
        ``"lbfgs"`` (scipy L-BFGS-B with autograd gradients), ``"adam"`` (torch
        Adam, optionally with ``project`` after each step), or ``"nelder-mead"``
        (derivative-free; good for the max/abs kinks of l1/l-inf norms).
    project
        Map back into the feasible set (applied to the final point for every
        method and after each Adam step).

    Returns the best value *re-evaluated* at the best point, so a reported
    tightness is always an actual value of the objective.
    """
    import scipy.optimize as so
    import torch

    restarts = check_int(restarts, "restarts")
    steps = check_int(steps, "steps")
    if method not in {"lbfgs", "adam", "nelder-mead"}:
        raise ValueError(f"method must be 'lbfgs', 'adam' or 'nelder-mead', got {method!r}")
    if not callable(objective):
        raise TypeError(f"objective must be callable, got {type(objective).__name__}")
    if not callable(init):
        raise TypeError(f"init must be callable (rng -> start point), got {type(init).__name__}")
    rng = np.random.default_rng(check_seed(seed))
    proj = project or (lambda z: z)

    def f_np(z: np.ndarray) -> float:
        if method == "nelder-mead":
            return float(objective(z))
        with torch.no_grad():
            return float(objective(torch.as_tensor(z, dtype=torch.float64)))

    best_x, best_v, vals, starts = None, -math.inf, [], []
    for _ in range(restarts):
        x0 = np.asarray(init(rng), dtype=np.float64).ravel()
        starts.append(x0)
        if method == "nelder-mead":
            res = so.minimize(lambda z: -f_np(z), x0, method="Nelder-Mead",
                              options={"maxiter": steps * len(x0), "xatol": 1e-10, "fatol": 1e-13})
            x = res.x
        elif method == "lbfgs":
            def fg(z: np.ndarray) -> tuple[float, np.ndarray]:
                t = torch.as_tensor(z, dtype=torch.float64).requires_grad_(True)
                v = objective(t)
                (g,) = torch.autograd.grad(v, t)
                val, grad = -float(v.detach()), -g.detach().numpy()
                if not np.isfinite(val):
                    return 1e300, np.zeros_like(z)
                return val, np.nan_to_num(grad)

            res = so.minimize(fg, x0, jac=True, method="L-BFGS-B", options={"maxiter": steps})
            x = res.x
        else:
            t = torch.as_tensor(x0, dtype=torch.float64).clone().requires_grad_(True)
            opt = torch.optim.Adam([t], lr=lr)
            for _ in range(steps):
                opt.zero_grad()
                loss = -objective(t)
                loss.backward()
                opt.step()
                with torch.no_grad():
                    t.copy_(torch.as_tensor(proj(t.detach().numpy().copy())))
            x = t.detach().numpy()
        x = proj(np.asarray(x, dtype=np.float64))
        v = f_np(x)
        if not math.isfinite(v):
            v = -math.inf
        vals.append(v)
        if v > best_v:
            best_v, best_x = v, x.copy()
    if best_x is None:  # every restart produced -inf (or none ran): report the first start
        if not starts:
            raise ValueError("restarts must be at least 1")
        best_x = starts[0]
    return SearchResult(float(best_v), best_x, np.asarray(vals), np.asarray(starts))


@dataclasses.dataclass
class SizedSearch:
    """Result of :func:`maximize_over_sizes`: the best value over every size and method, where
    it was found, the best value per size, and the budget that found it (for the record)."""

    best_value: float
    best_size: Any
    best_method: str
    best_x: np.ndarray
    per_size: dict[str, float]
    budget: dict[str, Any]

    def record(self) -> dict[str, Any]:
        """What a check stores in its record's ``extra``: the budget, the best value per size,
        and the best instance (size, method, point)."""
        return {"search": {**self.budget, "best_value": self.best_value,
                           "best_per_size": self.per_size,
                           "best_instance": {"size": str(self.best_size), "method": self.best_method,
                                             "x": [float(v) for v in self.best_x]}}}


def _check_size(size: Any, name: str) -> None:
    """Sizes are opaque to the search (ints, tuples, labels, widths, norm orders such as inf), but
    a number in one must be a real number that is not NaN."""
    if isinstance(size, (tuple, list)):
        for k, part in enumerate(size):
            _check_size(part, f"{name}[{k}]")
    elif isinstance(size, (complex, np.complexfloating)):
        raise TypeError(f"{name} must be real, got {size!r}")
    elif isinstance(size, (float, np.floating)) and math.isnan(size):
        raise ValueError(f"{name} must not be NaN, got {size!r}")


def maximize_over_sizes(objective: Callable[[Any, Any], Any],
                        init: Callable[[Any, np.random.Generator], np.ndarray],
                        sizes: Any, *, methods: tuple[str, ...] = ("lbfgs", "nelder-mead"),
                        restarts: int = 8, steps: int = 200, seed: int = 0,
                        project: Callable[[Any, np.ndarray], np.ndarray] | None = None) -> SizedSearch:
    """Maximize ``objective(size, x)`` over every size in ``sizes`` (the smallest included: the
    worst case often sits there) with every method in ``methods`` (at least one gradient-based,
    ``"lbfgs"``/``"adam"``, and one derivative-free, ``"nelder-mead"``), ``restarts`` random
    starts each (:func:`maximize`).

    ``objective(size, x)`` follows :func:`maximize`'s rules for the method (a torch tensor for
    the gradient methods, a numpy array for Nelder-Mead); ``init(size, rng)`` draws a start and
    ``project(size, x)`` maps back into the feasible set.  The best value is a lower bound on
    the supremum over the sizes searched, reported with its budget.
    """
    if not callable(objective):
        raise TypeError(f"objective must be callable (size, x) -> value, got {type(objective).__name__}")
    if not callable(init):
        raise TypeError(f"init must be callable (size, rng) -> start point, got {type(init).__name__}")
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
        raise TypeError(f"sizes must be a sequence of sizes, got {type(sizes).__name__}")
    sizes = list(sizes)
    if not sizes:
        raise ValueError("sizes must name at least one size")
    for i, size in enumerate(sizes):
        _check_size(size, f"sizes[{i}]")
    if isinstance(methods, (str, bytes)) or not isinstance(methods, (tuple, list)):
        raise TypeError(f"methods must be a tuple of method names, got {methods!r}")
    methods = tuple(methods)
    if not methods:
        raise ValueError("methods must name at least one method")
    check_seed(seed)
    if not ({"lbfgs", "adam"} & set(methods)) or "nelder-mead" not in methods:
        raise ValueError("methods must include a gradient method (lbfgs/adam) and nelder-mead, "
                         f"got {methods}")
    best: tuple[float, Any, str, np.ndarray] | None = None
    per_size: dict[str, float] = {}
    for i, size in enumerate(sizes):
        for j, method in enumerate(methods):
            res = maximize(functools.partial(objective, size), functools.partial(init, size),
                           restarts=restarts, steps=steps, method=method, seed=seed + 1000 * i + j,
                           project=None if project is None else functools.partial(project, size))
            key = str(size)
            per_size[key] = max(per_size.get(key, -math.inf), res.best_value)
            if best is None or res.best_value > best[0]:
                best = (res.best_value, size, method, res.best_x)
    assert best is not None
    budget = {"sizes": [str(z) for z in sizes], "methods": list(methods), "restarts": restarts,
              "steps": steps, "seed": seed,
              "evaluated_starts": len(sizes) * len(methods) * restarts}
    return SizedSearch(best[0], best[1], best[2], best[3], per_size, budget)


def numpy_objective(f: Callable[[Any, np.ndarray], float], *, difference: str = "central",
                    rel_step: float = 1e-6, max_grad_norm: float = 1e8) -> Callable[[Any, Any], Any]:
    """``objective(size, x)`` for :func:`maximize_over_sizes` from a float function
    ``f(size, z)`` written with numpy or ``math`` (the very formula a check tests, which its
    negative controls replace by another numpy callable).

    Nelder-Mead calls ``f`` itself; the gradient methods receive a torch value whose gradient is a
    ``difference`` (``"central"`` or ``"forward"``) finite difference with step
    ``rel_step * max(1, |z_i|)``, non-finite entries set to 0 and the norm clipped at
    ``max_grad_norm`` (a violation's huge ratio must not throw the optimizer to infinity).  A
    non-finite point or value gives :data:`NO_INSTANCE`.
    """
    import torch

    if not callable(f):
        raise TypeError(f"f must be callable (size, x) -> float, got {type(f).__name__}")
    if difference not in ("central", "forward"):
        raise ValueError(f"difference must be 'central' or 'forward', got {difference!r}")
    if not (isinstance(rel_step, float) and 0 < rel_step < 1):
        raise ValueError(f"rel_step must be a float in (0, 1), got {rel_step!r}")

    def safe(size: Any, z: np.ndarray) -> float:
        z = np.asarray(z, dtype=np.float64)
        if not np.all(np.isfinite(z)):
            return NO_INSTANCE
        with np.errstate(all="ignore"):
            v = float(f(size, z))
        return v if math.isfinite(v) else NO_INSTANCE

    class _Value(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor, size: Any) -> torch.Tensor:  # type: ignore[override]
            value = safe(size, x.detach().numpy().copy())
            ctx.size, ctx.value = size, value
            ctx.save_for_backward(x)
            return torch.tensor(value, dtype=torch.float64)

        @staticmethod
        def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
            (x,) = ctx.saved_tensors
            z = x.detach().numpy().astype(np.float64)
            grad = np.zeros_like(z)
            for i in range(z.size):
                h = rel_step * max(1.0, abs(float(z[i])))
                zp = z.copy()
                zp[i] += h
                if difference == "forward":
                    grad[i] = (safe(ctx.size, zp) - ctx.value) / h
                else:
                    zm = z.copy()
                    zm[i] -= h
                    grad[i] = (safe(ctx.size, zp) - safe(ctx.size, zm)) / (2 * h)
            grad = np.nan_to_num(grad, nan=0.0, posinf=0.0, neginf=0.0)
            grad[np.abs(grad) > 1e250] = 0.0    # a difference across NO_INSTANCE
            norm = float(np.linalg.norm(grad))
            if norm > max_grad_norm:
                grad *= max_grad_norm / norm
            return g * torch.as_tensor(grad, dtype=torch.float64), None

    def objective(size: Any, x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            return _Value.apply(x, size)
        return safe(size, x)

    return objective
