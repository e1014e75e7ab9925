"""Instances for the single-layer bounds of Trauger & Tewari (Sec. 4.1-4.2, Apps. C-D).

Sign patterns and expected Rademacher sums for exact small-``n`` complexities, the ``[CLS]`` row
of a Sec. 2.6 head, activations as numpy functions, Monte-Carlo complexity curves against the
sequence length ``T`` and the fitted rise of a curve in ``log T``, and the random and constructed
instances of each check of :mod:`attention_theory.trauger.checks.single_layer` (the adversaries'
objectives are in :mod:`~attention_theory.trauger.single_layer_search`). The checks of
:mod:`~attention_theory.trauger.checks.single_layer` and :mod:`~attention_theory.trauger.checks.word_masking`
evaluate them; ``book/trauger/single-layer.md`` plots them.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, Callable

import numpy as np

from attention_theory.cluster import map_pieces
from attention_theory.config import pick
from attention_theory.foundations.rademacher import rademacher_exact
from attention_theory.foundations.trend import log_slope
from attention_theory.trauger import single_layer_bounds as tb
from attention_theory.trauger import single_layer_model as ts
from attention_theory.trauger._args import check_sequence
from attention_theory.validation import (
    as_array,
    as_matrix,
    as_vector,
    check_bool,
    check_callable,
    check_int,
    check_positive,
    check_real,
    check_rng,
    check_seed,
    refuses_overflow,
)

__all__ = ['NUMPY_ACTIVATIONS', 'PEELING_IDENTITY', 'PEELING_RELU', 'T_TREND_MARGIN', 'all_signs',
           'chain_cover_values', 'chain_deep_hole_values', 'chain_link_instances', 'chain_links',
           'cls_row_instances', 'contraction_values', 'duality_values', 'expected_abs_rademacher_sum',
           'fitted_rise', 'log_relaxation_grid', 'mc_curve', 'multihead_values', 'orientation_wc_values',
           'orientation_wv_ratios', 'peeling_identity_values', 'peeling_relu_values',
           'pointwise_bound_values', 'printed_feasible_rad', 'printed_pointwise_values',
           'rad_uniform_attention_exact', 'sec26_head_row', 'sign_removal_values', 'slope_ci', 'unit']


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
                        [(kind,
                          T) for kind in kinds for T in Ts], desc="(token kind, T)" if progress else None)
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
    bootstrap interval (draws resampled within each ``T``):
    :func:`~attention_theory.foundations.trend.log_slope`."""
    Tv = as_vector(T, "T")
    if Tv.size < 2 or len(set(Tv.tolist())) != Tv.size or np.any(Tv <= 0):
        raise ValueError(f"T must hold at least two distinct positive lengths, got {Tv.tolist()}")
    if not isinstance(per_draw, np.ndarray):
        check_sequence(per_draw, "per_draw")
    if len(per_draw) != Tv.size:
        raise ValueError(f"per_draw must hold one list of draws per length of T ({Tv.size}), got "
                         f"{len(per_draw)}")
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


# ------------------------------------------------------------ instances of the single-layer checks
# (each draws from its own seed, or from a generator it is handed, in a fixed order: the checks'
# instances are the same on every run)

def cls_row_instances(seed: int, count: int, *, transpose: bool = True,
                      printed_transpose: bool = False) -> dict[str, list[Any]]:
    """``count`` random heads (``d`` in 2..5, ``k`` in 1..4, ``T + 1`` tokens with the [CLS] row anywhere,
    identity / relu / tanh): keys ``model`` (``Y_cls`` of
    :func:`~attention_theory.trauger.single_layer_model.cls_output` with
    ``transpose``), ``head`` (the [CLS] row of the Sec. 2.6 head,
    :func:`sec26_head_row`), ``printed`` and ``corrected`` (``Y_cls`` with ``printed_transpose`` and
    with ``transpose=True``), each the concatenated entries, and ``instances``.  Check
    ``cls-row-of-head`` of Def. 4.1."""
    transpose = check_bool(transpose, "transpose")
    printed_transpose = check_bool(printed_transpose, "printed_transpose")
    rng = np.random.default_rng(check_seed(seed))
    comp, ref, alts, cor, inst = [], [], [], [], []
    for _ in range(check_int(count, "count", minimum=0)):
        d, k, T = int(rng.integers(2, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 40))
        Xf = rng.standard_normal((T + 1, d))
        c = int(rng.integers(0, T + 1))  # the [CLS] row may sit anywhere
        W_qk, W_v, W_c = rng.standard_normal((d, d)), rng.standard_normal((d, k)), rng.standard_normal((k, d))
        sig = str(rng.choice(["identity", "relu", "tanh"]))
        y = ts.cls_output(Xf, W_c, W_v, W_qk, Xf[c], sigma=sig, transpose=transpose).numpy()
        comp.extend(y)
        ref.extend(sec26_head_row(Xf, W_qk, W_v, W_c, c, NUMPY_ACTIVATIONS[sig]))
        alts.extend(ts.cls_output(Xf, W_c, W_v, W_qk, Xf[c], sigma=sig, transpose=printed_transpose).numpy())
        cor.extend(ts.cls_output(Xf, W_c, W_v, W_qk, Xf[c], sigma=sig, transpose=True).numpy())
        inst.append([Xf, c, W_qk, W_v, W_c, sig])
    return {"model": comp, "head": ref, "printed": alts, "corrected": cor, "instances": inst}


def pointwise_bound_values(seed: int, count: int, *, factor: float = 1.0) -> tuple[list[float], list[float]]:
    """``|f_theta(X)|`` and ``factor B_w B_Wc B_Wv max_t ||x_t||_inf`` for ``count`` random feasible
    parameters on the budgets' boundary (``d`` in 1..6, ``k`` in 1..5, ``T`` in 1..29), identity /
    relu / tanh, then the extremal instance (equal tokens, ``w = B_w e_1``, ``W_c = B_Wc e_1 e_1^T``,
    ``W_v = B_Wv e_1 e_1^T``, ratio exactly 1).  Check ``pointwise-bound`` of Def. 4.1."""
    factor = check_real(factor, "factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for _ in range(check_int(count, "count", minimum=0)):
        d, k, T = int(rng.integers(1, 7)), int(rng.integers(1, 6)), int(rng.integers(1, 30))
        Bs = 10 ** rng.uniform(-1, 1, size=4)
        p = ts.random_feasible_params(rng, d, k, B_w=Bs[0], B_Wc=Bs[1], B_Wv=Bs[2], B_qk=Bs[3])
        X = rng.standard_normal((T, d)) * 10 ** rng.uniform(-1, 1)
        for sig in ("identity", "relu", "tanh"):
            f = float(ts.single_layer_scalar(X, p["w"], p["W_c"], p["W_v"], p["W_qk"], X[0], sigma=sig))
            lhs.append(abs(f))
            rhs.append(factor * Bs[0] * Bs[1] * Bs[2] * np.abs(X).max())
    d, k = 3, 2
    X = np.tile([0.7, -0.2, 0.1], (5, 1))
    f = float(ts.single_layer_scalar(X, 2 * unit(d), 3 * np.outer(unit(k), unit(d)),
                                     0.5 * np.outer(unit(d), unit(k)), np.eye(d), X[0], sigma="relu"))
    lhs.append(abs(f))
    rhs.append(factor * 2 * 3 * 0.5 * 0.7)
    return lhs, rhs


def printed_pointwise_values(d: int, seed: int, count: int) -> dict[str, Any]:
    """Erratum #5 (pointwise): ``|f|`` of the printed-feasible ``W_v`` (rows of l1 norm 1, ``W_v =
    sign(v) e_1^T``) on ``4`` equal tokens ``1/sqrt d``, and of ``count`` random parameters feasible
    under the column-wise hypotheses on the same tokens.  Keys ``printed`` (one value), ``bound``
    (``max |x|``), ``corrected`` and ``X`` (the tokens, ``(4, d)``)."""
    d = check_int(d, "d")
    Bx = 1.0
    k = 2
    X = np.full((4, d), Bx / math.sqrt(d))
    lhs_p, rhs, lhs_c = [], [], []
    w, W_c = unit(d), np.outer(unit(k), unit(d))
    v = ts.pooled_tokens(X, np.zeros((d, d)), X[0]).numpy()
    W_v_printed = np.outer(np.sign(v), unit(k))  # every row has l1 norm 1: printed-feasible
    lhs_p.append(abs(float(ts.single_layer_scalar(X, w, W_c, W_v_printed, np.zeros((d, d)), X[0],
                                                  sigma="identity"))))
    rhs.append(np.abs(X).max())
    rng = np.random.default_rng(check_seed(seed))
    for _ in range(check_int(count, "count", minimum=0)):  # corrected (column) hypotheses on the same tokens
        p = ts.random_feasible_params(rng, d, k, B_w=1, B_Wc=1, B_Wv=1, B_qk=1)
        lhs_c.append(abs(float(ts.single_layer_scalar(X, p["w"], p["W_c"], p["W_v"], p["W_qk"], X[0],
                                                      sigma="identity"))))
    return {"printed": lhs_p, "bound": rhs, "corrected": lhs_c, "X": X}


def duality_values(seed: int, count: int, *, factor: float = 1.0,
                   vertex_sign: bool = True) -> dict[str, list]:
    """Eq. C.1 on ``count`` random ``u`` (``n`` in 1..29) and ``B_v``: keys ``lhs`` (``v^T u`` for a
    random ``v`` in the l1 ball and for the vertex ``v* = B_v sign(u_j*) e_j*``, the sign dropped when
    ``vertex_sign=False``), ``rhs`` (``factor B_v ||u||_inf``), ``attained`` (``v*^T u``) and
    ``sup`` (``B_v max_{j,s} s u_j``)."""
    factor = check_real(factor, "factor")
    vertex_sign = check_bool(vertex_sign, "vertex_sign")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs, att, ref = [], [], [], []
    for _ in range(check_int(count, "count", minimum=0)):
        n = int(rng.integers(1, 30))
        u = rng.standard_normal(n) * 10 ** rng.uniform(-2, 2)
        Bv = float(10 ** rng.uniform(-1, 1))
        z = rng.laplace(size=n)
        v = Bv * z / np.abs(z).sum() * rng.uniform(0, 1)
        j = int(np.argmax(np.abs(u)))
        vstar = Bv * (np.sign(u[j]) if vertex_sign else 1.0) * unit(n, j)
        for vv in (v, vstar):
            lhs.append(float(vv @ u))
            rhs.append(factor * Bv * np.abs(u).max())
        att.append(float(vstar @ u))
        ref.append(Bv * max(s * uj for uj in u for s in (-1, 1)))
    return {"lhs": lhs, "rhs": rhs, "attained": att, "sup": ref}


def sign_removal_values(seed: int, count: int, *, include_zero: bool = True,
                        factor: float = 2.0) -> tuple[list[float], list[float]]:
    """``Rad(F u -F)`` and ``factor Rad(F)`` (exact) for the singleton ``{f}`` (``m = 6``) and ``count``
    random classes of ``N`` in 1..8 functions on ``m`` in 2..10 points, 0 added when
    ``include_zero``.  Eq. C.2."""
    include_zero = check_bool(include_zero, "include_zero")
    factor = check_real(factor, "factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    classes = [rng.standard_normal((1, 6))]
    for _ in range(check_int(count, "count", minimum=0)):
        m, N = int(rng.integers(2, 11)), int(rng.integers(1, 9))
        classes.append(rng.standard_normal((N, m)) * rng.uniform(0.1, 3, size=(N, 1)))
    for F in classes:
        if include_zero:
            F = np.vstack([F, np.zeros((1, F.shape[1]))])
        lhs.append(rademacher_exact(np.vstack([F, -F])))
        rhs.append(factor * rademacher_exact(F))
    return lhs, rhs


def _contraction_phis(rng: np.random.Generator
                      ) -> list[tuple[str, Callable[[np.ndarray], np.ndarray], float]]:
    knots = np.sort(rng.uniform(-3, 3, size=5))
    slopes = rng.uniform(-1, 1, size=6)

    def pwl(t: np.ndarray) -> np.ndarray:
        out = slopes[0] * np.minimum(t, knots[0])
        for i, kn in enumerate(knots):
            hi = knots[i + 1] if i + 1 < len(knots) else np.inf
            out = out + slopes[i + 1] * np.clip(t, kn, hi) - slopes[i + 1] * kn
        return out

    return [("relu", lambda t: np.maximum(t, 0), 1.0), ("tanh", np.tanh, 1.0),
            ("leaky", lambda t: np.where(t > 0, t, 0.1 * t), 1.0), ("2tanh", lambda t: 2 * np.tanh(t), 2.0),
            ("abs", np.abs, 1.0), ("pwl", pwl, float(np.abs(slopes).max()))]


def contraction_values(seed: int, count: int, *, L_factor: float = 1.0) -> tuple[list[float], list[float]]:
    """``Rad(phi(T))`` and ``L_factor L Rad(T)`` (exact, ``m <= 10``) for ``count`` random sets and six
    ``L``-Lipschitz ``phi`` (ReLU, tanh, leaky, 2 tanh, ``|.|``, a random piecewise-linear one), then
    ``phi = id`` on a one-point set (equality).  Eq. C.3."""
    L_factor = check_real(L_factor, "L_factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for _ in range(check_int(count, "count", minimum=0)):
        m, N = int(rng.integers(2, 11)), int(rng.integers(2, 40))
        Tset = rng.standard_normal((N, m)) * rng.uniform(0.1, 3)
        base = rademacher_exact(Tset)
        for _, phi, L in _contraction_phis(rng):
            lhs.append(rademacher_exact(phi(Tset)))
            rhs.append(L_factor * L * base)
    # an instance where the contraction is an equality: phi = identity on a symmetric set
    lhs.append(rademacher_exact(np.array([[1.0, -2.0, 0.5]])))
    rhs.append(L_factor * rademacher_exact(np.array([[1.0, -2.0, 0.5]])))
    return lhs, rhs


#: the sample of the identity-activation peeling check (eq. C.4): sizes and the outer budgets
PEELING_IDENTITY = {"m": 12, "T": 6, "d": 4, "k": 3, "B_w": 1.5, "B_Wc": 0.7, "B_Wv": 2.0}


def peeling_identity_values(seed: int, n_signs: int) -> dict[str, Any]:
    """Eq. C.4 with ``sigma = id`` on one sample of :data:`PEELING_IDENTITY` (random ``W_QK``) and
    ``n_signs`` random sign vectors: keys ``closed`` (``B ||sum eps_i v_i||_inf``, shape
    ``(n_signs,)``), ``attained`` (the explicit maximiser's ``sum eps_i f``), and the sample ``X``
    (``(m, T, d)``), ``x_cls``, ``W_qk`` and signs ``eps`` (``(n_signs, m)``) for the check's Adam
    run (:func:`~attention_theory.trauger.single_layer_model.sup_full_class`)."""
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    m, T, d, k = (PEELING_IDENTITY[n] for n in ("m", "T", "d", "k"))
    Bw, Bc, Bv = (PEELING_IDENTITY[n] for n in ("B_w", "B_Wc", "B_Wv"))
    B = Bw * Bc * Bv
    X = ts.sample_tokens(rng, m, T, d, 1.0)
    x_cls = unit(d)
    W_qk = rng.standard_normal((d, d))
    eps = rng.choice([-1.0, 1.0], size=(check_int(n_signs, "n_signs"), m))
    closed = ts.outer_sup_identity(eps, X, W_qk, x_cls, B=B).numpy()
    v = ts.pooled_tokens(X, W_qk, x_cls).numpy()
    attained = []
    for e in eps:
        u = e @ v
        j = int(np.argmax(np.abs(u)))
        W_v = Bv * np.sign(u[j]) * np.outer(unit(d, j), unit(k))
        f = ts.single_layer_scalar(X, Bw * unit(d), Bc * np.outer(unit(k), unit(d)), W_v, W_qk, x_cls,
                                   sigma="identity").numpy()
        attained.append(float(e @ f))
    return {"closed": closed, "attained": attained, "X": X, "x_cls": x_cls, "W_qk": W_qk, "eps": eps}


#: the sample of the ReLU peeling check (eq. C.4): sizes (``m`` by scale) and the outer budgets
PEELING_RELU = {"T": 4, "d": 3, "k": 2, "B_w": 1.0, "B_Wc": 2.0, "B_Wv": 0.5}


def peeling_relu_values(seed: int, m: int, steps: int) -> dict[str, float]:
    """Eq. C.4 with ``sigma = ReLU`` on one positive-orthant sample of :data:`PEELING_RELU` with ``m``
    samples, ``W_QK`` in ``{0, a random one}``, all ``2^m`` sign vectors: keys ``rad`` (the lower
    estimate of ``Rad_m``: batched Adam over ``(w, W_c, W_v)``, 2 restarts of ``steps`` steps) and
    ``E`` (the exact ``E ||sum eps_i v_i||_inf``, largest over the ``W_QK``)."""
    seed = check_seed(seed)
    m = check_int(m, "m")
    rng = np.random.default_rng(seed)
    T, d, k = (PEELING_RELU[n] for n in ("T", "d", "k"))
    Bw, Bc, Bv = (PEELING_RELU[n] for n in ("B_w", "B_Wc", "B_Wv"))
    X = np.abs(ts.sample_tokens(rng, m, T, d, 1.0))
    x_cls = unit(d)
    Ws = [np.zeros((d, d)), 2 * rng.standard_normal((d, d))]
    eps = all_signs(m)
    lhs_draw = np.max([ts.sup_full_class(eps, X, x_cls, k=k, B_w=Bw, B_Wc=Bc, B_Wv=Bv, B_qk=1.0,
                                         sigma="relu", restarts=2, steps=check_int(steps, "steps"),
                                         seed=seed + i,
                                         W_qk_fixed=W) for i, W in enumerate(Ws)], axis=0)
    E_draw = np.max([ts.outer_sup_identity(eps, X, W, x_cls, B=1.0).numpy() for W in Ws], axis=0)
    return {"rad": float(lhs_draw.mean()) / m, "E": float(E_draw.mean())}


@refuses_overflow
def chain_links(X: np.ndarray, W: np.ndarray, What: np.ndarray, x_cls: np.ndarray,
                softmax_lip: float = 2.0) -> tuple[list[float], list[float]]:
    """LHS and RHS of the four links of eq. C.5 (scores ``X W^T x_cls``): tokens ``X`` ``(T, d)``,
    ``W``, ``What`` ``(d, d)``, ``x_cls`` ``(d,)``; ``softmax_lip`` is the softmax link's constant
    (2 in the paper).  Returns ``([|X^T dp|_inf, |X^T dp|_2, |dp|_1, |X dW^T x|_inf],
    [|X^T dp|_2, B_x |dp|_1, softmax_lip |X dW^T x|_inf, B_x |dW^T x|_2])``, ``B_x`` the largest
    token norm."""
    X = as_matrix(X, "X")
    d = X.shape[1]
    W, What = as_matrix(W, "W"), as_matrix(What, "What")
    for M, name in ((W, "W"), (What, "What")):
        if M.shape != (d, d):
            raise ValueError(f"{name} must have shape ({d}, {d}) to match X, got {M.shape}")
    x_cls = as_vector(x_cls, "x_cls")
    if x_cls.shape != (d,):
        raise ValueError(f"x_cls must have shape ({d},) to match X, got {x_cls.shape}")
    softmax_lip = check_real(softmax_lip, "softmax_lip")
    p = ts.attention_weights(X, W, x_cls).numpy()
    ph = ts.attention_weights(X, What, x_cls).numpy()
    diff = X.T @ (p - ph)
    Bx_emp = float(np.linalg.norm(X, axis=1).max())  # ||X^T||_{2,inf}: largest token l2 norm
    dscore = X @ ((W - What).T @ x_cls)
    dq = float(np.linalg.norm((W - What).T @ x_cls))
    lhs = [float(np.abs(diff).max()), float(np.linalg.norm(diff)), float(np.abs(p - ph).sum()),
           float(np.abs(dscore).max())]
    rhs = [float(np.linalg.norm(diff)), Bx_emp * float(np.abs(p - ph).sum()),
           softmax_lip * float(np.abs(dscore).max()), Bx_emp * dq]
    return lhs, rhs


def chain_link_instances(rng: np.random.Generator, count: int, *,
                         softmax_lip: float = 2.0) -> dict[str, list[float]]:
    """Eq. C.5 on ``count`` random instances per ``T`` in ``{2, 16, 256}`` (``d`` in 2..5, every token
    kind, ``x_cls`` of norm ``0.999 B_x``, perturbation ``10^U(-4, 0)``), then two tokens ``+-e_1``
    with ``x_cls = e_1``, ``W = 0``, ``W^ = t E_11`` (``t`` in ``{1e-3, 1e-5}``).  Keys ``lhs``,
    ``rhs`` (every link, :func:`chain_links`) and ``whole``, ``whole_rhs`` (the whole chain
    ``|X^T dp|_inf <= softmax_lip B_x^2 ||dW^T x_cls||_2`` of the random instances)."""
    rng = check_rng(rng)
    softmax_lip = check_real(softmax_lip, "softmax_lip")
    lhs, rhs, whole_l, whole_r = [], [], [], []
    for T in (2, 16, 256):
        for _ in range(check_int(count, "count", minimum=0)):
            d = int(rng.integers(2, 6))
            Bx = float(10 ** rng.uniform(-0.5, 0.5))
            X = ts.sample_tokens(rng, 1, T, d, Bx, kind=str(rng.choice(ts.TOKEN_KINDS)))[0]
            x_cls = Bx * 0.999 * rng.standard_normal(d)
            x_cls *= Bx * 0.999 / np.linalg.norm(x_cls)
            W = rng.standard_normal((d, d)) * rng.uniform(0.1, 3)
            What = W + rng.standard_normal((d, d)) * 10 ** rng.uniform(-4, 0)
            a, b = chain_links(X, W, What, x_cls, softmax_lip)
            lhs += a
            rhs += b
            whole_l.append(a[0])
            whole_r.append(softmax_lip * Bx**2 * float(np.linalg.norm((W - What).T @ x_cls)))
    # adversarial: two tokens +-e_1, x_cls = e_1, tiny perturbation of W_11 (softmax link ratio -> 1/2 of 2)
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    for t in (1e-3, 1e-5):
        a, b = chain_links(X, np.zeros((2, 2)), t * np.outer(unit(2), unit(2)), unit(2), softmax_lip)
        lhs += a
        rhs += b
    return {"lhs": lhs, "rhs": rhs, "whole": whole_l, "whole_rhs": whole_r}


def chain_cover_values(rng: np.random.Generator, count: int, *,
                       cover: Callable[..., np.ndarray]) -> tuple[list[float], list[float]]:
    """The cover of eq. C.5's reduced class: ``count`` random ``W_QK`` (``d = 3``, Laplace entries in
    the (1,1) ball of ``B_QK`` in ``[0.5, 2]``), covered by ``cover(W^T, B_QK, B_x, eps / (2 B_x^2))^T``
    (``B_x = 1``, ``eps`` in ``10^U(-2, -1)``), on random tokens and ``x_cls`` for ``T`` in ``{2, 16,
    256}``: the errors ``|X^T (p - p^)|_inf`` and ``strictly below eps``.  Part ``maurey-cover``."""
    rng = check_rng(rng)
    check_callable(cover, "cover")
    cov_l, cov_r = [], []
    for _ in range(check_int(count, "count", minimum=0)):
        d, Bqk, Bx, eps_c = 3, float(rng.uniform(0.5, 2)), 1.0, float(10 ** rng.uniform(-2, -1))
        W = rng.laplace(size=(d, d))
        W *= Bqk * rng.uniform(0.5, 1) / np.abs(W).sum()
        What = cover(W.T, Bqk, Bx, eps_c / (2 * Bx**2)).T  # cover the map x -> W^T x
        for T in (2, 16, 256):
            X = ts.sample_tokens(rng, 1, T, d, Bx)[0]
            x_cls = ts.sample_tokens(rng, 1, 1, d, Bx)[0, 0]
            cov_l.append(float(np.abs(X.T @ (ts.attention_weights(X, W, x_cls).numpy()
                                             - ts.attention_weights(X, What, x_cls).numpy())).max()))
            cov_r.append(float(np.nextafter(eps_c, 0)))
    return cov_l, cov_r


def chain_deep_hole_values(*, cover: Callable[..., np.ndarray]
                           ) -> tuple[list[float], list[float], dict[str, float]]:
    """The ``K = 1`` deep hole of the cover of eq. C.5 (``d = 2``, ``B_x = 1``): ``W^T = (B_QK/2)(E_11 +
    E_12)`` at resolution just above ``B_QK`` is ``B_QK/sqrt 2`` from every cover element; ``x_cls``
    along the top singular direction of the difference, tokens ``+-e_j`` on its axis, ``B_QK`` in
    ``{1, 0.1, 0.01, 0.001}``.  Returns the errors, ``strictly below eps`` and the error over ``eps``
    by ``B_QK`` (it tends to ``1/(2 sqrt 2)``)."""
    check_callable(cover, "cover")
    cov_l, cov_r, deep = [], [], {}
    for Bqk in (1.0, 0.1, 0.01, 1e-3):
        W = np.zeros((2, 2))
        W[0, 0] = W[1, 0] = Bqk / 2
        eps_c = 2 * Bqk * (1 + 1e-9)  # resolution eps/(2 B_x^2) just above B_QK B_x: K = 1
        What = cover(W.T, Bqk, 1.0, eps_c / 2).T
        x_cls = np.linalg.svd(W - What)[0][:, 0]
        j = int(np.argmax(np.abs((W - What).T @ x_cls)))
        X = np.zeros((2, 2))
        X[0, j], X[1, j] = 1.0, -1.0
        cov_l.append(float(np.abs(X.T @ (ts.attention_weights(X, W, x_cls).numpy()
                                         - ts.attention_weights(X, What, x_cls).numpy())).max()))
        cov_r.append(float(np.nextafter(eps_c, 0)))
        deep[f"{Bqk:g}"] = cov_l[-1] / eps_c
    return cov_l, cov_r, deep





def rad_uniform_attention_exact(X: np.ndarray, B: float = 1.0) -> float:
    """Exact ``Rad_m`` of the sub-class ``W_QK = 0`` with ``sigma = id``: ``(B/m) E ||sum eps_i mean_t
    X_i||_inf``,
    all ``2^m`` signs (``X``: ``(m, T, d)``, ``m <= 20``).  A positive lower bound on the complexity
    of the single-layer class (errata of eq. C.6 and Thm 4.1)."""
    X = as_array(X, "X", ndim=3)
    B = check_positive(B, "B")
    m = X.shape[0]
    if m > 20:
        raise ValueError(f"X must hold at most 20 samples (2^m sign vectors are enumerated), got {m}")
    eps = all_signs(m)
    return float(np.mean(B * np.abs(eps @ X.mean(axis=1)).max(axis=1)) / m)


@refuses_overflow
def orientation_wv_ratios(d: int, m: int, *, printed_gain: float = 0.5) -> dict[str, Any]:
    """Erratum #5 (c1) along ``d = 4, 16, ..., d`` with ``m = d + 1`` (the last ``m`` as given): the
    complexity of the printed-feasible construction, ``0.999 B d^printed_gain E|R_m| / m``, and
    Massart's bound under the column-wise hypotheses, ``0.999 B sqrt(2 ln(2d)/m)``, each over the
    explicit Thm 4.1 bound (Lemma 3.6's ``C``, ``B = B_x = 1``).  Keys ``d``, ``m`` (the sequences),
    ``printed``, ``corrected`` (the ratios) and ``bound`` (the explicit bound at the last ``d``)."""
    d, m = check_int(d, "d", minimum=16), check_int(m, "m", minimum=2)
    printed_gain = check_real(printed_gain, "printed_gain")
    B, Bx = 1.0, 1.0
    d_seq = sorted({4 ** k for k in range(1, 40) if 4 ** k < d} | {d})
    m_seq = [dd + 1 for dd in d_seq[:-1]] + [m]

    def bound_at(dd: int, mm: int) -> float:
        return tb.thm41_bound(B, Bx, tb.C_lemma36(Bx, 1e-9, dd), mm, dd)

    ratio_printed = [0.999 * B * dd ** printed_gain * expected_abs_rademacher_sum(mm) / mm / bound_at(dd, mm)
                     for dd, mm in zip(d_seq, m_seq)]
    ratio_corrected = [0.999 * B * math.sqrt(2 * math.log(2 * dd) / mm) / bound_at(dd, mm)
                       for dd, mm in zip(d_seq, m_seq)]
    return {"d": d_seq, "m": m_seq, "printed": ratio_printed, "corrected": ratio_corrected,
            "bound": bound_at(d, m)}


def printed_feasible_rad(seed: int) -> dict[str, Any]:
    """Exact ``Rad`` of the printed-feasible construction (``W_v = sign(u) e_1^T``, rows of l1 norm 1)
    on a small instance (``d = 3``, ``m = 6``, equal tokens ``0.999 s_i / sqrt d`` with random signs
    ``s_i``), by enumerating all sign vectors: ``0.999 sqrt(d) E|R_m| / m`` in closed form, whatever
    the ``s_i`` (part ``c1-closed-form``).  Keys ``rad`` and ``signs`` (the ``s_i``, ``(6, 3)``)."""
    rng = np.random.default_rng(check_seed(seed))
    ds, ms, k = 3, 6, 2
    S = rng.choice([-1.0, 1.0], size=(ms, ds))
    X = np.repeat((0.999 * S / math.sqrt(ds))[:, None, :], 3, axis=1)
    vals = []
    for e in all_signs(ms):
        u = e @ X[:, 0, :]
        W_v = np.outer(np.sign(u), unit(k))  # rows of l1 norm 1
        f = ts.single_layer_scalar(X, unit(ds), np.outer(unit(k), unit(ds)), W_v, np.zeros((ds, ds)),
                                   unit(ds), sigma="identity").numpy()
        vals.append(float(e @ f))
    return {"rad": np.mean(vals) / ms, "signs": S}


def orientation_wc_values(*, k: int, d: int, m: int, seed: int, n_signs: int,
                          construction_gain: bool = True) -> dict[str, Any]:
    """Erratum #5 (c2): ``m`` samples of equal tokens ``0.999 s_i / sqrt d``; ``rad_one`` is the lower
    4-SE limit of the Monte Carlo (``n_signs`` sign vectors) of ``E ||sum eps_i v_i||_inf / m`` (``k``
    times it is the complexity under the printed row-wise ``W_c``), ``bound`` the explicit Thm 4.1
    bound, ``model`` and ``construction`` the model's output of ``W_c = 1_k e_1^T``, ``W_v = u 1_k^T``
    on three samples and ``k u^T v`` (``u^T v`` when ``construction_gain=False``), ``V`` the tokens."""
    k, d, m, n_signs = check_int(k, "k"), check_int(d, "d"), check_int(m, "m"), check_int(n_signs, "n_signs")
    construction_gain = check_bool(construction_gain, "construction_gain")
    B, Bx = 1.0, 1.0
    rng = np.random.default_rng(check_seed(seed))
    S = rng.choice([-1.0, 1.0], size=(m, d))
    V = 0.999 * S / math.sqrt(d)
    eps = rng.choice([-1.0, 1.0], size=(n_signs, m))
    sups = np.abs(eps @ V).max(axis=1) / m
    one = float(sups.mean()) - 4 * float(sups.std(ddof=1) / math.sqrt(len(sups)))
    bound = tb.thm41_bound(B, Bx, tb.C_lemma36(Bx, 1e-9, d), m, d)
    # the construction: f = k B u^T v with ||u||_1 <= 1; check the value on one sample by the model
    kk = min(k, 8)
    W_c = np.outer(np.ones(kk), unit(d))
    u = unit(d, 2)
    W_v = np.outer(u, np.ones(kk))
    Xs = np.repeat(V[:3, None, :], 2, axis=1)
    f = ts.single_layer_scalar(Xs, unit(d), W_c, W_v, np.zeros((d, d)), unit(d), sigma="identity").numpy()
    return {"rad_one": one, "bound": bound, "model": f,
            "construction": (kk if construction_gain else 1) * V[:3] @ u,
            "V": V}


def log_relaxation_grid(*, minus_log: bool = True) -> tuple[list[float], list[float]]:
    """The proof's ``h(delta*)`` (``minus_log=False``: the printed form plus ``1e-3``) and the printed
    form of Cor. 4.1.1 on the grid ``B_x`` in ``{0.5, 1, 2}``, ``B_QK`` in ``{0.1, 1, 5}``, ``m`` in
    ``{10, 100, 1e4, 1e6}``, ``d`` in ``{2, 8, 64}`` where ``sqrt m > sqrt(ln 2d) + 2 B_x sqrt C``."""
    minus_log = check_bool(minus_log, "minus_log")
    lhs, rhs = [], []
    for Bx in (0.5, 1.0, 2.0):
        for Bq in (0.1, 1.0, 5.0):
            for m in (10, 100, 10_000, 10**6):
                for d in (2, 8, 64):
                    C = tb.C_lemma36(Bx, Bq, d)
                    if math.sqrt(m) > math.sqrt(math.log(2 * d)) + 2 * Bx * math.sqrt(C):
                        proof = tb.dudley_inf_printed(Bx, C, m, d)
                        printed = tb.thm41_printed_expression(1.0, Bx, C, m, d)
                        lhs.append(proof if minus_log else printed + 1e-3)
                        rhs.append(printed)
    return lhs, rhs


def multihead_values(seed: int, m: int, *, rhs_scale: float = 1.0,
                     separate_scale: float = 1.0) -> dict[str, Any]:
    """Sec. 4.2 on model heads: ``H = 3`` heads, 20 feasible parameter draws each (ReLU, ``B_QK = 3``),
    ``m`` token samples, 4 random ``w``, all ``2^m`` signs.  Keys ``product`` and ``sum`` (fixed ``w``:
    ``E sup`` over the product set, and ``rhs_scale`` times the sum of the per-head ``E sup``),
    ``joint`` and ``separate`` (``w`` optimised too: one value each, the second times
    ``separate_scale``) and ``gap`` (``separate - joint`` before scaling)."""
    rhs_scale = check_real(rhs_scale, "rhs_scale")
    separate_scale = check_real(separate_scale, "separate_scale")
    rng = np.random.default_rng(check_seed(seed))
    H, n_par, m, T, d, k = 3, 20, check_int(m, "m"), 5, 3, 2
    X = ts.sample_tokens(rng, m, T, d, 1.0)
    x_cls = unit(d)
    ws = [rng.standard_normal(d) for _ in range(4)]
    heads = []  # heads[j][p] = Y_j(X_i; theta_jp), shape (m, d)
    for _ in range(H):
        vals = []
        for _ in range(n_par):
            p = ts.random_feasible_params(rng, d, k, B_w=1, B_Wc=1, B_Wv=1, B_qk=3)
            vals.append(ts.cls_output(X, p["W_c"], p["W_v"], p["W_qk"], x_cls, sigma="relu").numpy())
        heads.append(np.array(vals))
    eps = all_signs(m)
    lhs, rhs = [], []
    for w in ws:
        F = [hj @ w for hj in heads]  # (n_par, m) per head
        G = np.zeros((1,) * H + (m,))
        for j in range(H):  # every element of the product set, by broadcasting
            shape = [1] * H + [m]
            shape[j] = n_par
            G = G + F[j].reshape(shape)
        G = G.reshape(-1, m)  # (n_par^H, m)
        lhs.append(float(np.mean(np.max(eps @ G.T, axis=1))))  # brute force over the product set
        rhs.append(rhs_scale * float(sum(np.mean(np.max(eps @ Fj.T, axis=1)) for Fj in F)))
    # w optimized over the finite set: E max_w sum_j max_theta <= sum_j E max_{w, theta_j}
    joint = np.mean(np.max([sum(np.max(eps @ (hj @ w).T, axis=1) for hj in heads) for w in ws], axis=0))
    sep = sum(np.mean(np.max([np.max(eps @ (hj @ w).T, axis=1) for w in ws], axis=0)) for hj in heads)
    return {"product": lhs, "sum": rhs, "joint": float(joint), "separate": float(separate_scale * sep),
            "gap": float(sep - joint)}
