"""Instances for the single-layer bounds of Trauger & Tewari (Sec. 4.1-4.2, Apps. C-D).

Sign patterns and expected Rademacher sums for exact small-``n`` complexities, the ``[CLS]`` row
of a Sec. 2.6 head, activations as numpy functions, Monte-Carlo complexity curves against the
sequence length ``T`` and the fitted rise of a curve in ``log T``. The checks of
:mod:`attention_theory.trauger.checks.single_layer` and :mod:`~attention_theory.trauger.checks.word_masking`
evaluate them; ``book/trauger/single-layer.md`` plots them.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, Callable

import numpy as np

from attention_theory._validate import (
    as_matrix,
    as_vector,
    check_bool,
    check_int,
    check_positive,
    check_seed,
    refuses_overflow,
)
from attention_theory.cluster import map_pieces
from attention_theory.config import pick
from attention_theory.foundations.trend import log_slope
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import single_layer_model as ts
from attention_theory.trauger._args import check_sequence

__all__ = ['NUMPY_ACTIVATIONS', 'all_signs', 'expected_abs_rademacher_sum', 'fitted_rise', 'mc_curve', 'sec26_head_row', 'slope_ci', 'unit', 'T_TREND_MARGIN']


def all_signs(m: int) -> np.ndarray:
    """All ``2^m`` sign vectors, shape ``(2^m, m)``."""
    m = check_int(m, "m", minimum=0)
    return np.array(list(itertools.product((-1.0, 1.0), repeat=m)))


@refuses_overflow
def sec26_head_row(X_full: np.ndarray, W_qk: np.ndarray, W_v: np.ndarray, W_c: np.ndarray,
                   row: int, sigma: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Row ``row`` of the Sec. 2.6 head ``sigma(softmax(X W_QK X^T) X W_v) W_c`` (plain numpy, (d,)).

    ``X_full`` ``(T, d)``, ``W_qk`` ``(d, d)``, ``W_v`` ``(d, k)``, ``W_c`` ``(k, d')``; ``sigma`` a
    numpy function (e.g. of :data:`NUMPY_ACTIVATIONS`)."""
    X_full = as_matrix(X_full, "X_full")
    T, d = X_full.shape
    W_qk = as_matrix(W_qk, "W_qk")
    if W_qk.shape != (d, d):
        raise ValueError(f"W_qk must have shape ({d}, {d}) to match X_full, got {W_qk.shape}")
    W_v = as_matrix(W_v, "W_v")
    if W_v.shape[0] != d:
        raise ValueError(f"W_v must have shape ({d}, k) to match X_full, got {W_v.shape}")
    W_c = as_matrix(W_c, "W_c")
    if W_c.shape[0] != W_v.shape[1]:
        raise ValueError(f"W_c must have shape ({W_v.shape[1]}, d') to match W_v, got {W_c.shape}")
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
        raise TypeError(f"row must be an integer, got {row!r}")
    if not -T <= int(row) < T:
        raise ValueError(f"row must index a row of X_full (T = {T}), got {row}")
    if not callable(sigma):
        raise TypeError(f"sigma must be a callable (a numpy activation), got {type(sigma).__name__}")
    S = X_full @ W_qk @ X_full.T
    S = S - S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    return (sigma(A @ X_full @ W_v) @ W_c)[row]


def expected_abs_rademacher_sum(m: int) -> float:
    """``E|sum_{i<=m} eps_i|`` exactly, from the binomial distribution (log-space, any ``m``)."""
    from scipy.special import gammaln

    m = check_int(m, "m", minimum=0)
    j = np.arange(m + 1)
    logp = gammaln(m + 1) - gammaln(j + 1) - gammaln(m - j + 1) - m * math.log(2.0)
    return float(np.sum(np.exp(logp) * np.abs(2 * j - m)))


NUMPY_ACTIVATIONS = {"identity": lambda z: z, "relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh}


def unit(d: int, j: int = 0) -> np.ndarray:
    """The ``j``-th standard basis vector of R^d."""
    d, j = check_int(d, "d"), check_int(j, "j", minimum=0)
    if j >= d:
        raise ValueError(f"j must be < d = {d}, got {j}")
    e = np.zeros(d)
    e[j] = 1.0
    return e


def mc_curve(*, Ts: tuple[int, ...] | None = None, m: int | None = None, d: int = 4, Bx: float = 1.0,
             B_qk: float = 1.0, B: float = 1.0, kinds: tuple[str, ...] = ts.TOKEN_KINDS,
             n_draws: int | None = None, restarts: int | None = None, steps: int | None = None,
             seed: int = 52, progress: bool = False) -> dict[str, Any]:
    """Monte-Carlo lower estimates of ``Rad_m`` of the single-layer class (``sigma = id``,
    ``||W_QK||_{1,1} <= B_qk``) for each ``T`` and token kind, with the Thm. 4.1 / Cor. 4.1.1 bound,
    the Edelman-type bound and the trivial bound ``B B_x``.  Smoke scale by default."""
    if Ts is None:
        Ts = pick((2, 8, 32, 128), (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024))
    Ts = tuple(check_sequence(Ts, "Ts"))
    for i, T in enumerate(Ts):
        check_int(T, f"Ts[{i}]")
    m = pick(256, 512) if m is None else check_int(m, "m")
    n_draws = pick(8, 16) if n_draws is None else check_int(n_draws, "n_draws", minimum=2)
    restarts = pick(3, 4) if restarts is None else check_int(restarts, "restarts")
    steps = pick(100, 200) if steps is None else check_int(steps, "steps", minimum=0)
    d = check_int(d, "d")
    for value, name in ((Bx, "Bx"), (B_qk, "B_qk"), (B, "B")):
        check_positive(value, name)
    check_sequence(kinds, "kinds")
    for kind in kinds:
        if kind not in ts.TOKEN_KINDS:
            raise ValueError(f"kinds must hold names of {ts.TOKEN_KINDS}, got {kind!r}")
    seed = check_seed(seed)
    check_bool(progress, "progress")
    x_cls = 0.999 * Bx * unit(d)
    out: dict[str, Any] = {"T": list(Ts), "m": m, "d": d, "Bx": Bx, "B_qk": B_qk, "B": B,
                           "n_draws": n_draws, "restarts": restarts, "steps": steps, "seed": seed,
                           "bound": [tb.cor411_bound(B, Bx, B_qk, m, d) for _ in Ts],
                           "edelman": [tb.edelman_type_bound(B, Bx, B_qk, m, d, T) for T in Ts],
                           "trivial": tb.trivial_bound(B, Bx), "mc": {}}
    # one piece per (kind, T), each from its own seeds: Dask sub-tasks inside a campaign task
    pieces = map_pieces(functools.partial(_mc_curve_point, m=m, d=d, Bx=Bx, B=B, B_qk=B_qk, n_draws=n_draws,
                                          restarts=restarts, steps=steps, seed=seed, x_cls=x_cls),
                        [(kind, T) for kind in kinds for T in Ts], desc="(token kind, T)" if progress else None)
    for (kind, _), point in zip([(kind, T) for kind in kinds for T in Ts], pieces):
        row = out["mc"].setdefault(kind, {"mean": [], "se": [], "max_token_norm": [], "per_draw": []})
        for name, value in point.items():
            row[name].append(value)
    return out


def _mc_curve_point(kind_T: tuple[str, int], *, m: int, d: int, Bx: float, B: float, B_qk: float,
                    n_draws: int, restarts: int, steps: int, seed: int, x_cls: np.ndarray) -> dict[str, Any]:
    """One point of :func:`mc_curve`: token kind and ``T``."""
    kind, T = kind_T
    X = ts.sample_tokens(np.random.default_rng([seed, T]), m, T, d, Bx, kind=kind)
    r = ts.rademacher_mc_identity(X, x_cls, B=B, B_qk=B_qk, n_draws=n_draws, restarts=restarts,
                                  steps=steps, seed=seed + T)
    return {"max_token_norm": float(max(np.linalg.norm(X, axis=-1).max(), np.linalg.norm(x_cls))),
            "mean": r["mean"], "se": r["se"], "per_draw": [float(v) for v in r["per_draw"]]}


#: Equivalence margin of the T-trend checks: a rise of the measured complexity per unit of ``ln T``
#: of at most 5% of the T-free bound it is compared with (over a thousand-fold range of T,
#: ``ln 1000 = 6.9``, about a third of the bound).
T_TREND_MARGIN = 0.05


def slope_ci(T: list[int], per_draw: list[list[float]], *, n_boot: int = 2000, level: float = 0.95,
             seed: int = 0) -> tuple[float, float, float]:
    """``(slope, low, high)`` of the mean of ``per_draw[j]`` against ``ln T[j]`` with its percentile
    bootstrap interval (draws resampled within each ``T``): :func:`~attention_theory.foundations.trend.log_slope`."""
    Tv = as_vector(T, "T")
    if Tv.size < 2 or len(set(Tv.tolist())) != Tv.size or np.any(Tv <= 0):
        raise ValueError(f"T must hold at least two distinct positive lengths, got {Tv.tolist()}")
    if not isinstance(per_draw, np.ndarray):
        check_sequence(per_draw, "per_draw")
    if len(per_draw) != Tv.size:
        raise ValueError(f"per_draw must hold one list of draws per length of T ({Tv.size}), got {len(per_draw)}")
    for j, draws in enumerate(per_draw):
        as_vector(draws, f"per_draw[{j}]")
    check_seed(seed)
    est = log_slope(T, per_draw, statistic="mean", n_boot=n_boot, level=level, seed=seed)
    return est.slope, est.low, est.high


def fitted_rise(T: list[int], y: list[float]) -> float:
    """Least-squares slope of ``y`` against ``log T``, times the range of ``log T`` (the fitted rise)."""
    T = as_vector(T, "T")
    if T.size < 2 or np.any(T <= 0) or np.unique(T).size < 2:
        raise ValueError(f"T must hold at least two distinct positive lengths, got {T.tolist()}")
    y = as_vector(y, "y")
    if y.shape != T.shape:
        raise ValueError(f"y must hold one value per length of T ({T.size}), got {y.size}")
    x = np.log(T)
    slope = np.polyfit(x, y, 1)[0]
    return float(slope * (x.max() - x.min()))
