"""Adversarial search over instances of the data model DM1 (Deora et al., Sec. 4), shared by the
checks of the tokenized-mixture, NTK-margin and attention-margin chapters
(:mod:`attention_theory.deora.checks.tokenized_mixture`, :mod:`attention_theory.deora.checks.ntk_margin`,
:mod:`attention_theory.deora.checks.attention_margin`).

A search point is the noise of the noise tokens of one DM1 sample, mapped into Assumption 3
(:func:`dm1_instance`); :func:`dm1_search` maximizes the largest :func:`bound_ratio` of a family of
statements ``lhs <= rhs`` with L-BFGS and Nelder-Mead over several configurations
(:func:`dm1_sizes`, the smallest first).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.deora import dm1
from attention_theory.deora.calculus import box, into_ball, maximize_each, search_tensor, search_value
from attention_theory.deora.landscape import search_point
from attention_theory.foundations.tensors import VERIFICATION_DTYPE, f64
from attention_theory.search import SizedSearch
from attention_theory.validation import as_tensor, real_values

__all__ = ["SMALLEST", "DM1Size", "dm1_sizes", "dm1_dim", "dm1_instance", "bound_ratio", "dm1_noise",
           "dm1_relevant", "dm1_budget", "PartsFn", "dm1_search"]

#: The smallest DM1 configuration: ``T = 2`` (one relevant and one noise token), ``M = 1``,
#: ``d = M + 3`` (one orthogonal noise direction); signal and noise levels of regime B.
SMALLEST = dm1.DM1Config(T=2, d=4, M=1, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3)


@dataclasses.dataclass(frozen=True)
class DM1Size:
    """One "size" of the DM1 searches: a configuration ``cfg`` (named ``name``), a label ``y`` and, for a
    statement with several parts searched one at a time, the ``part`` maximized (``""``: all parts)."""

    name: str
    cfg: dm1.DM1Config
    y: float = 1.0
    part: str = ""

    def __str__(self) -> str:
        c = self.cfg
        return (f"{self.name} (T={c.T}, d={c.d}, M={c.M}, y={self.y:+.0f})"
                + (f" [{self.part}]" if self.part else ""))


def dm1_sizes(configs: dict[str, dm1.DM1Config], labels: tuple[float, ...] = (1.0,),
              parts: tuple[str, ...] = ("",)) -> list[DM1Size]:
    """:data:`SMALLEST` first, then ``configs``, each with every label in ``labels`` and every part in
    ``parts``."""
    if not isinstance(configs, Mapping):
        raise TypeError(f"configs must be a mapping of names to DM1Config, got {type(configs).__name__}")
    for k, c in configs.items():
        if not isinstance(c, dm1.DM1Config):
            raise TypeError(f"configs[{k!r}] must be a DM1Config, got {type(c).__name__}")
    named = [("smallest", SMALLEST)] + [(k, c) for k, c in configs.items()]
    return [DM1Size(name, cfg, float(y), part) for name, cfg in named for y in labels for part in parts]


def _check_size(size: Any) -> DM1Size:
    if not isinstance(size, DM1Size):
        raise TypeError(f"size must be a DM1Size, got {type(size).__name__}")
    return size


def dm1_dim(size: DM1Size) -> int:
    """Search variables of a size: ``d`` per noise token (``M + 2`` coefficients, ``d - M - 2``
    orthogonal)."""
    _check_size(size)
    return (size.cfg.T - size.cfg.n_relevant) * size.cfg.d


@functools.lru_cache(maxsize=64)
def _dm1_frame(size: DM1Size) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Noise-free tokens ``(1, T, d)`` of a size (relevant tokens first, ``j_t`` cyclic), the label
    ``(1,)`` and the coefficient bounds."""
    cfg = size.cfg
    k = cfg.n_relevant
    rel = np.zeros((1, cfg.T), dtype=bool)
    rel[0, :k] = True
    j = np.full((1, cfg.T), -1)
    j[0, k:] = np.arange(cfg.T - k) % cfg.M
    base = dm1.assemble(cfg, np.array([size.y]), rel, j, np.zeros((1, cfg.T, cfg.d)))
    return f64(base), f64(np.array([size.y])), f64(cfg.coef_bounds)


def _side(v: Any, name: str) -> None:
    """One side of :func:`bound_ratio`: a finite real number (a float, a one-element array or tensor)."""
    a = real_values(v, name, "a real number")
    if (a.numel() if torch.is_tensor(a) else a.size) != 1:
        raise ValueError(f"{name} must be a single number, got shape {tuple(a.shape)}")
    value = float(a.detach().reshape(())) if torch.is_tensor(a) else float(a.reshape(()))
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")


def dm1_instance(size: DM1Size, z: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """The DM1 sample ``(X (1, T, d), y (1,))`` of a search point: relevant tokens first (the checked
    quantities are permutation invariant), noise tokens on the patterns ``nu_{j_t}`` with ``j_t`` cyclic,
    coefficients ``box(z)`` within their Assumption-3 bounds and the orthogonal part pulled into the
    ball of radius ``Z_perp`` (:func:`into_ball`): every point satisfies Assumption 3 exactly."""
    cfg = _check_size(size).cfg
    k, M = cfg.n_relevant, cfg.M
    search_point(z, "z", (cfg.T - k) * cfg.d)
    base, y, bnd = _dm1_frame(size)
    t = search_tensor(z).reshape(cfg.T - k, cfg.d)
    coef = box(t[:, :M + 2], -1.0, 1.0) * bnd
    noise = torch.cat([coef, into_ball(t[:, M + 2:], cfg.Z_perp)], dim=1) if cfg.d > M + 2 else coef
    return base + torch.cat([torch.zeros(k, cfg.d, dtype=VERIFICATION_DTYPE), noise])[None], y


def bound_ratio(lhs: Any, rhs: Any) -> Any:
    """``lhs / rhs`` (the ratio :func:`~attention_theory.verify.check_bound` records) where it is at most
    2, continued monotonically beyond (``2 + (lhs - 2 rhs)/lhs``), so that a search of a lower bound
    ``lhs <= rhs(x)`` meets no pole at ``rhs = 0``; ``1 + (lhs - rhs)/(|lhs| + |rhs|)`` when both
    sides are ``<= 0``.  Every form exceeds 1 exactly on a violation.  A 0-d tensor if either side
    is a tensor that needs gradients, a float otherwise."""
    _side(lhs, "lhs")
    _side(rhs, "rhs")
    if not any(torch.is_tensor(v) and v.requires_grad for v in (lhs, rhs)):
        lf, rf = float(lhs), float(rhs)
        if rf > 0 and lf <= 2 * rf:
            return lf / rf
        return 2 + (lf - 2 * rf) / lf if lf > 0 else 1 + (lf - rf) / (abs(lf) + abs(rf) + 1e-300)
    lhs = torch.as_tensor(lhs, dtype=VERIFICATION_DTYPE).reshape(())
    rhs = torch.as_tensor(rhs, dtype=VERIFICATION_DTYPE).reshape(())
    safe_r = torch.where(rhs > 0, rhs, torch.ones_like(rhs))
    safe_l = torch.where(lhs > 0, lhs, torch.ones_like(lhs))
    plain = lhs / safe_r
    beyond = 2 + (lhs - 2 * rhs) / safe_l
    both = 1 + (lhs - rhs) / (lhs.abs() + rhs.abs() + 1e-300)
    return torch.where((rhs > 0) & (lhs <= 2 * rhs), plain, torch.where(lhs > 0, beyond, both))


def dm1_noise(size: DM1Size, X: torch.Tensor) -> torch.Tensor:
    """The noise ``z`` of :func:`dm1_instance`'s tokens (``X`` minus the noise-free tokens; zero on
    relevant rows)."""
    cfg = _check_size(size).cfg
    X = as_tensor(X, "X", shape=(None, cfg.T, cfg.d))
    return X - _dm1_frame(size)[0]


def dm1_relevant(size: DM1Size) -> np.ndarray:
    """The relevant set of :func:`dm1_instance`'s sample: the first ``zeta T`` positions, ``(1, T)`` bool."""
    _check_size(size)
    rel = np.zeros((1, size.cfg.T), dtype=bool)
    rel[0, :size.cfg.n_relevant] = True
    return rel


def dm1_budget() -> dict[str, int]:
    """Restarts and steps of :func:`dm1_search` per size and method: 1 start of 6 steps at smoke scale,
    6 starts of 40 steps at full scale (40 times the smoke budget)."""
    return {"restarts": pick(1, 6), "steps": pick(6, 40)}


PartsFn = Callable[[DM1Size, torch.Tensor, torch.Tensor], dict[str, tuple[Any, Any]]]


def dm1_search(sides: PartsFn, sizes: list[DM1Size], *, restarts: int, steps: int, seed: int
               ) -> tuple[SizedSearch, dict[str, tuple[Any, Any]],
                          dict[DM1Size, tuple[torch.Tensor, torch.Tensor]]]:
    """Adversarial search over Assumption-3 noise for the statements ``lhs <= rhs`` returned by
    ``sides(size, X, y)`` (``{part: (lhs, rhs)}``, differentiable in ``X``): maximizes the largest
    :func:`bound_ratio` of the parts (of the part ``size.part`` when it is set) over :func:`dm1_instance`
    with L-BFGS (autograd) and Nelder-Mead, ``restarts`` starts each, one size at a time
    (:func:`maximize_each`).

    Returns the search, the parts at each size's best instance evaluated again by ``sides``
    (``"{part} @ search {size}"``, float arrays, to be appended to the check's parts; only the part
    searched when ``size.part`` is set), and the best instances ``{size: (X, y)}`` themselves."""

    def objective(size: DM1Size, z: Any) -> Any:
        X, y = dm1_instance(size, z)
        ratios = [bound_ratio(lv, rv) for name, (lv, rv) in sides(size, X, y).items()
                  if not size.part or name == size.part]
        if not torch.is_tensor(z):          # Nelder-Mead: floats
            return max(float(r) for r in ratios)
        stacked = torch.stack([torch.as_tensor(r, dtype=VERIFICATION_DTYPE).reshape(()) for r in ratios])
        return search_value(stacked.max(), z)

    res, best = maximize_each(objective, lambda size, g: g.normal(0.0, 2.0, dm1_dim(size)), sizes,
                              restarts=restarts, steps=steps, seed=seed)
    parts: dict[str, tuple[Any, Any]] = {}
    points = {}
    with torch.no_grad():
        for size, (_, z) in best.items():
            X, y = dm1_instance(size, z)
            points[size] = (X, y)
            for name, (lv, rv) in sides(size, X, y).items():
                if size.part and name != size.part:
                    continue
                parts[f"{name} @ search {size}"] = (np.asarray(torch.as_tensor(lv).detach(), dtype=float),
                                                    np.asarray(torch.as_tensor(rv).detach(), dtype=float))
    return res, parts, points
