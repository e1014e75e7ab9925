"""Instances for the linear covering lemmas of Trauger & Tewari (Sec. 3, Apps. A-B).

Strict ``<`` on instance arrays, uniform draws from l_1 balls, the packing family of Lemma 3.4,
the deep holes of the greedy Maurey covers, and the random and constructed instances each check
of :mod:`attention_theory.trauger.checks.linear_covering` (chapter ``book/trauger/linear-covering.md``)
evaluates.  The adversaries' objectives are in :mod:`attention_theory.trauger.linear_covering_search`;
:func:`strictly_below` and :func:`random_l1_ball` also serve :mod:`~attention_theory.trauger.multi_layer`.

The instance functions return plain lists of floats (one entry per instance), the left and right
sides that a check hands to :func:`~attention_theory.verify.check_bound` or
:func:`~attention_theory.verify.check_identity`; each draws from its own ``seed`` in a fixed
order, so its instances are the same on every run.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import numpy as np
from scipy.special import gammaln

from attention_theory.foundations.covering import covering_number
from attention_theory.foundations.maurey import (
    cover_columns_l1,
    cover_flat_l1,
    cover_rows,
    enumerate_index_vectors,
    greedy_maurey,
    l1_ball_atoms,
    l1_maurey_approx,
    maurey_cover_points,
    maurey_K,
    maurey_rhs,
)
from attention_theory.foundations.norms import mixed_norm
from attention_theory.validation import (
    as_array,
    check_bool,
    check_callable,
    check_int,
    check_order,
    check_positive,
    check_real,
    check_rng,
    check_seed,
    refuses_overflow,
)
from attention_theory.verify import bound_outcome

__all__ = ['DEEP_HOLES', 'PACKING_SIZES', 'T_K', 'app_a_deep_hole_errors', 'app_a_row_cover_instances',
           'app_b_chain_instances', 'ceiling_outcomes', 'construction_size_grid', 'covering_number_any_q',
           'deep_hole', 'deep_hole_cover_errors', 'deep_hole_enumerated_distances',
           'flat_atom_packing_distances', 'l1_atom_packing_distances', 'l33_greedy_cover_instances',
           'l33_test_matrices', 'l34_kappa_grid', 'l34_packing_distances', 'l34_packing_family',
           'l36_greedy_cover_instances', 'maurey_greedy_errors', 'maurey_instances',
           'maurey_tightness_instances', 'packing_grid', 'padded_basis_cover_numbers', 'random_l1_ball',
           'reduction_cover_numbers', 'reduction_pointwise_instances', 'row_sum_instances',
           'sec34_instances', 'strictly_below']


def strictly_below(eps: float) -> float:
    """The largest float64 below ``eps``: ``lhs <= strictly_below(eps)`` means ``lhs < eps``."""
    eps = check_positive(eps, "eps", allow_zero=True)
    return float(np.nextafter(eps, -np.inf))


def random_l1_ball(rng: np.random.Generator, n: int, radius: float, size: int) -> np.ndarray:
    """``size`` points uniform in the l1 ball of radius ``radius`` in R^n, shape ``(size, n)``."""
    rng, n, size = check_rng(rng), check_int(n, "n"), check_int(size, "size")
    radius = check_positive(radius, "radius", allow_zero=True)
    e = rng.exponential(size=(size, n + 1))  # Dirichlet(1..1) on n+1 coordinates, drop the slack
    return radius * (e[:, :n] / e.sum(1, keepdims=True)) * rng.choice([-1.0, 1.0], size=(size, n))


def l34_packing_family(k: int, d: int, s: int, Bw: float = 1.0) -> np.ndarray:
    """All ``k x d`` matrices with ``s`` nonzero rows, each ``(Bw / s) v`` with ``v in {+-1/sqrt d}^d``.

    Shape ``(binom(k, s) 2^(s d), k, d)``.  Each has row-sum (2,1) norm ``Bw``; two distinct
    members are at least ``sqrt(2) Bw / (s sqrt d)`` apart in the largest column l2 norm of
    the difference (the sup metric on the scaled basis ``Bx e_i``, divided by ``Bx``).
    """
    k, d, s = check_int(k, "k"), check_int(d, "d"), check_int(s, "s")
    Bw = check_positive(Bw, "Bw")
    if s > k:
        raise ValueError(f"s must be <= k = {k}, got {s}")
    out = []
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=s * d))).reshape(-1, s, d)
    for S in itertools.combinations(range(k), s):
        for sg in signs:
            W = np.zeros((k, d))
            W[list(S)] = Bw / s * sg / math.sqrt(d)
            out.append(W)
    return np.array(out)


# ------------------------------------------------------------------ helpers and deep holes

def _lq(v: np.ndarray, q: float, axis: int = -1) -> np.ndarray:
    """l_q (quasi-)norm for any q > 0, including inf."""
    a = np.abs(v)
    return np.max(a, axis=axis) if np.isinf(q) else np.sum(a ** q, axis=axis) ** (1.0 / q)


def _scale_into_columns_l1(W: np.ndarray, Bw: float) -> np.ndarray:
    s = np.abs(W).sum(axis=0)
    return W * np.minimum(1.0, Bw / np.maximum(s, 1e-300))[None, :]


def _scale_into_l1(W: np.ndarray, Bw: float) -> np.ndarray:
    s = float(np.abs(W).sum())
    return W * min(1.0, Bw / max(s, 1e-300))


def _count(count: Any) -> int:
    return check_int(count, "count", minimum=0)


#: eps / (Bw Bx) just above 1/sqrt(K): r = (Bw Bx / eps)^2 is just below the integer K, so K = ceil(r) Maurey
#: steps leave the least slack (the greedy covers are tightest there); the cover adversaries use these scales
T_K = {K: round(1.0 / math.sqrt(K - 0.01), 4) for K in (2, 3, 4, 5)}

#: the deep-hole family of the cover checks: ``(K, eps / (Bw Bx))`` with ``K = ceil((Bw Bx / eps)^2)``
DEEP_HOLES = ((1, 1.0), (2, T_K[2]))

#: sizes ``(d, k)`` of the adversaries over eps in the packing checks (the smallest first)
PACKING_SIZES = ((1, 1), (1, 2), (2, 16), (1, 1024), (100, 2), (10, 1024))


def deep_hole(K: int) -> np.ndarray:
    """The deep hole of the ``K``-average lattice for ``Bw = 1``: ``1_{2K} / (2K)``, shape ``(2K,)``.

    Its ``2K`` equal entries sit halfway between multiples of ``1/K``, so every average of ``K``
    atoms ``+-e_j`` is at least ``1/sqrt(2K)`` away (checks of ``book/trauger/linear-covering.md``).
    """
    K = check_int(K, "K")
    return np.full(2 * K, 1.0 / (2 * K))


def deep_hole_cover_errors(*, K_rule: Callable[[float, float, float], int] = maurey_K,
                           orientation: str = "column") -> tuple[list[float], list[float]]:
    """Errors of the greedy Maurey cover at the deep holes of :data:`DEEP_HOLES` (``Bw = Bx = 1``).

    ``orientation="column"``: one column (``(2K, 1)``), error ``||W - hat W||_2`` of
    :func:`~attention_theory.foundations.maurey.cover_columns_l1` (Lemmas 3.3 and 3.4);
    ``"row"``: one row (``(1, 2K)``), ``sigma_max(W - hat W)`` of
    :func:`~attention_theory.foundations.maurey.cover_flat_l1` (Lemma 3.6).  Returns
    ``(errors, strictly_below(eps))``, one entry per deep hole; ``K_rule(Bw, Bx, eps)`` is the
    number of Maurey steps.
    """
    check_callable(K_rule, "K_rule")
    if orientation not in ("column", "row"):
        raise ValueError(f"orientation must be 'column' or 'row', got {orientation!r}")
    err, eps_list = [], []
    for K, t in DEEP_HOLES:
        if orientation == "column":
            W = deep_hole(K)[:, None]
            K_steps = int(K_rule(1.0, 1.0, t))
            err.append(float(np.linalg.norm(W - cover_columns_l1(W, 1.0, 1.0, t, K=K_steps))))
        else:
            W = deep_hole(K)[None, :]
            K_steps = int(K_rule(1.0, 1.0, t))
            err.append(float(np.linalg.norm(W - cover_flat_l1(W, 1.0, 1.0, t, K=K_steps), 2)))
        eps_list.append(strictly_below(t))
    return err, eps_list


def deep_hole_enumerated_distances(*, K_rule: Callable[[float, float, float], int] = maurey_K
                                   ) -> tuple[list[float], list[float]]:
    """Distance of each deep hole (``Bw = Bx = 1``) to the nearest point of the enumerated Maurey
    cover (all averages of ``K`` atoms, :func:`~attention_theory.foundations.maurey.maurey_cover_points`),
    and ``strictly_below(eps)``: the explicit-cover checks of Lemmas 3.3 and 3.6."""
    check_callable(K_rule, "K_rule")
    Bw, Bx = 1.0, 1.0
    rad, eps_list = [], []
    for K, t in DEEP_HOLES:
        pts = maurey_cover_points(2 * K, Bw, int(K_rule(Bw, Bx, t * Bw * Bx)))
        rad.append(Bx * float(np.min(np.linalg.norm(pts - Bw * deep_hole(K)[None, :], axis=1))))
        eps_list.append(strictly_below(t * Bw * Bx))
    return rad, eps_list


# ------------------------------------------------------------------------- Lemma 3.1, eq. 3.1

def maurey_instances(seed: int, count: int) -> list[tuple[np.ndarray, np.ndarray, float, int]]:
    """Random ``(alpha, atoms, b, K)`` in R^n, n <= 10, <= 12 atoms, K <= 50; plus the 1-d extreme.

    ``alpha`` has shape ``(m,)`` (``gamma = sum alpha <= 1``), ``atoms`` ``(m, n)`` with norms in
    ``[0.2 b, b]``; the first instance is ``H = R``, ``f = V/2``, ``K = 1`` (Lemma 3.1's checks).
    """
    rng = np.random.default_rng(check_seed(seed))
    out = [(np.array([0.5]), np.array([[1.0]]), 1.0, 1)]  # H = R, f = V/2, K = 1
    for _ in range(_count(count)):
        n, m, K = int(rng.integers(1, 11)), int(rng.integers(1, 13)), int(rng.integers(1, 51))
        b = float(10 ** rng.uniform(-1, 1))
        V = rng.standard_normal((m, n))
        V *= (b * rng.uniform(0.2, 1.0, size=m) / np.linalg.norm(V, axis=1))[:, None]
        a = rng.exponential(size=m) * (rng.random(m) < 0.7)
        if a.sum() == 0:
            a[0] = 1.0
        gamma = float(rng.uniform(0.05, 1.0))
        out.append((a / a.sum() * gamma, V, b, K))
    return out


def maurey_greedy_errors(seed: int, count: int, *, gamma_power: float = 1.0,
                         step_budget: Callable[[int], int] | None = None
                         ) -> tuple[list[float], list[float], list[float]]:
    """Greedy Maurey approximants of :func:`maurey_instances`: ``(error^2, RHS, counts_ok)``.

    ``RHS = (gamma^gamma_power b^2 - ||f||^2)/K``; ``counts_ok`` is 1 where the approximant is
    ``(1/K) sum k_i V_i`` with ``sum k_i <= step_budget(K)`` (default ``K``), else 0.
    Check ``greedy-constructive`` of Lemma 3.1.
    """
    gamma_power = check_real(gamma_power, "gamma_power")
    step_budget = (lambda K: K) if step_budget is None else check_callable(step_budget, "step_budget")
    lhs, rhs, counts_ok = [], [], []
    for a, V, b, K in maurey_instances(seed, count):
        f = a @ V
        approx, counts = greedy_maurey(f, V, K)
        counts_ok.append(float(counts.sum() <= step_budget(K) and np.allclose(approx, counts @ V / K)))
        lhs.append(float(np.sum((f - approx) ** 2)))
        rhs.append(maurey_rhs(float(a.sum()), b, float(np.linalg.norm(f)), K, gamma_power=gamma_power))
    return lhs, rhs, counts_ok


def maurey_tightness_instances(seed: int, count: int, *, rhs_factor: float = 1.0
                               ) -> tuple[list[float], list[float]]:
    """Best integer approximant error (exhaustive) and ``rhs_factor (gamma - ||f||^2)/K``.

    ``count`` random sets of ``d <= 3`` unit atoms in ``R^n`` (``n <= 3``, ``K <= 4``, so ``b = 1``),
    5 random ``alpha`` each: ``5 count`` pairs.  Check ``best-integer-tightness`` of Lemma 3.1.
    """
    rhs_factor = check_real(rhs_factor, "rhs_factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for trial in range(_count(count)):
        d, K, n = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 4))
        V = rng.standard_normal((d, n))
        V /= np.linalg.norm(V, axis=1, keepdims=True)  # b = 1
        idx = enumerate_index_vectors(d, K)
        for z in rng.uniform(0, 1, size=(5, d)):
            a = z / max(1.0, z.sum())
            f = a @ V
            lhs.append(float(np.min(np.sum((idx @ V / K - f[None, :]) ** 2, axis=1))))
            rhs.append(rhs_factor * maurey_rhs(float(a.sum()), 1.0, float(np.linalg.norm(f)), K))
    return lhs, rhs


# ----------------------------------------------------------------------- Lemma 3.2, App. B

def covering_number_any_q(F: np.ndarray, eps: float, q: float) -> int:
    """Exact internal covering number (brute force) of the values ``F`` (shape ``(M, n, k)``: ``M``
    functions on ``n`` points in ``R^k``) at scale ``eps`` (strict ``<``) in the sup over points of
    the l_q distance, for any ``q > 0`` (a quasi-norm below 1; erratum #3 of Lemma 3.2)."""
    F = as_array(F, "F", ndim=3)
    eps = check_positive(eps, "eps")
    q = check_order(q, "q", minimum=0.0, strict=True)
    M = F.shape[0]
    D = np.max(_lq(F[:, None] - F[None, :], q), axis=-1)
    A = D < eps
    for size in range(1, M + 1):
        for combo in itertools.combinations(range(M), size):
            if np.all(np.any(A[list(combo)], axis=0)):
                return size
    return M  # pragma: no cover


@refuses_overflow
def reduction_pointwise_instances(seed: int, count: int, *, basis_scale: float = 1.0
                                  ) -> tuple[list[float], list[float]]:
    """``sup ||D x||_q`` over the vertices ``+-Bx e_i`` and 20 random points of the l1 ball, against
    ``max_i ||D (basis_scale Bx e_i)||_q``, for ``count`` random Gaussian ``D`` (``k <= 4``,
    ``d <= 5``, ``Bx`` in ``[0.1, 10]``) and ``q`` in ``{1, 1.5, 2, 3, inf}``: ``5 count`` pairs.
    Check ``pointwise-core`` of Lemma 3.2."""
    basis_scale = check_real(basis_scale, "basis_scale")
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    rng_x = np.random.default_rng(seed + 1)
    lhs, rhs = [], []
    for trial in range(_count(count)):
        k, d = int(rng.integers(1, 5)), int(rng.integers(1, 6))
        Bx = float(10 ** rng.uniform(-1, 1))
        D = rng.standard_normal((k, d))
        pts = np.vstack([Bx * np.eye(d), -Bx * np.eye(d), random_l1_ball(rng_x, d, Bx, 20)])
        for q in (1.0, 1.5, 2.0, 3.0, math.inf):
            lhs.append(float(np.max(_lq(D @ pts.T, q, axis=0))))
            rhs.append(float(np.max(_lq(D * basis_scale * Bx, q, axis=0))))
    return lhs, rhs


def reduction_cover_numbers(seed: int, count: int, *, basis_scale: float = 1.0,
                            dominated_basis_scale: float = 1.0) -> dict[str, list[float]]:
    """Exact covering numbers of ``count`` random finite classes (``M`` in 4..12 Gaussian ``2 x 3``
    matrices, ``Bx`` in ``[0.5, 2]``) on samples of 3, 10, 50 points of the l1 ball, at three scales
    and ``q`` in ``{1, 2, inf}``.  Keys: ``sample`` (``N`` on the sample) and ``basis`` (on the basis
    scaled by ``dominated_basis_scale``), ``basis_only`` (on the basis scaled by ``basis_scale``) and
    ``union`` (on that basis plus the sample).  Check ``exact-covering-numbers`` of Lemma 3.2."""
    basis_scale = check_real(basis_scale, "basis_scale")
    dominated_basis_scale = check_real(dominated_basis_scale, "dominated_basis_scale")
    rng = np.random.default_rng(check_seed(seed))
    ge_lhs, ge_rhs, eq_c, eq_r = [], [], [], []
    for _ in range(_count(count)):
        M, Bx = int(rng.integers(4, 13)), float(rng.uniform(0.5, 2))
        Ws = rng.standard_normal((M, 2, 3))
        basis = basis_scale * Bx * np.eye(3)
        for q in (1.0, 2.0, math.inf):
            Fb = np.einsum("mkd,nd->mnk", Ws, basis)
            Fd = np.einsum("mkd,nd->mnk", Ws, dominated_basis_scale * Bx * np.eye(3))
            scale = float(np.median(np.max(_lq(Fb[:, None] - Fb[None, :], q), -1)))
            for n in (3, 10, 50):
                S = random_l1_ball(rng, 3, Bx, n)
                FS = np.einsum("mkd,nd->mnk", Ws, S)
                FU = np.concatenate([Fb, FS], axis=1)
                for eps in (0.4 * scale, 0.8 * scale, 1.2 * scale):
                    nb = covering_number(Fb, eps, q)
                    ge_lhs.append(covering_number(FS, eps, q))
                    ge_rhs.append(covering_number(Fd, eps, q))
                    eq_c.append(nb)
                    eq_r.append(covering_number(FU, eps, q))
    return {"sample": ge_lhs, "basis": ge_rhs, "basis_only": eq_c, "union": eq_r}


def app_b_chain_instances(seed: int, count: int, *, column_reading: bool = True
                          ) -> tuple[list[float], list[float], list[float]]:
    """The two links of App. B's chain, ``||Dx||_q <= sum_i |x_i| ||D_i||_q <= Bx max_i ||D_i||_q``
    (``D_i`` the columns, or the rows when ``column_reading=False``), for ``count`` random square
    ``D`` (``d`` in 2..5) and ``x`` in the l1 ball, ``q`` in ``{1, 2, 3, inf}``: returns the three
    sides ``(left, middle, right)``, ``4 count`` entries each.  Check ``triangle-chain``."""
    column_reading = check_bool(column_reading, "column_reading")
    rng = np.random.default_rng(check_seed(seed))
    lhs, mid, rhs = [], [], []
    for _ in range(_count(count)):
        k = d = int(rng.integers(2, 6))  # square, so a row reading is well defined
        D = rng.standard_normal((k, d)) * rng.uniform(0.1, 10)
        Bx = float(rng.uniform(0.1, 5))
        x = random_l1_ball(rng, d, Bx, 1)[0]
        for q in (1.0, 2.0, 3.0, math.inf):
            parts = _lq(D, q, axis=0) if column_reading else _lq(D, q, axis=1)
            lhs.append(float(_lq(D @ x, q)))
            mid.append(float(np.abs(x) @ parts))
            rhs.append(float(Bx * parts.max()))
    return lhs, mid, rhs


def padded_basis_cover_numbers(seed: int, count: int, *, pad_scale: float = 1.0
                               ) -> tuple[list[int], list[int]]:
    """Exact covering numbers on the basis and on the basis padded with 4 repeats (scaled by
    ``pad_scale``), for ``count`` random classes of ``M`` in 4..11 Gaussian ``2 x d`` matrices,
    three scales, ``q`` in ``{1, 2, inf}``.  Check ``padded-basis`` of App. B."""
    pad_scale = check_real(pad_scale, "pad_scale")
    rng = np.random.default_rng(check_seed(seed))
    a, b = [], []
    for _ in range(_count(count)):
        M, d = int(rng.integers(4, 12)), int(rng.integers(2, 4))
        Ws = rng.standard_normal((M, 2, d))
        basis = np.eye(d)
        pad = np.vstack([basis, pad_scale * basis[rng.integers(0, d, size=4)]])
        for q in (1.0, 2.0, math.inf):
            Fb = np.einsum("mkd,nd->mnk", Ws, basis)
            Fp = np.einsum("mkd,nd->mnk", Ws, pad)
            for eps in (0.5, 1.0, 2.0):
                a.append(covering_number(Fb, eps, q))
                b.append(covering_number(Fp, eps, q))
    return a, b


# ------------------------------------------------------------------------- Lemmas 3.3 - 3.6

def l33_test_matrices(rng: np.random.Generator, k: int, d: int, Bw: float, count: int) -> list[np.ndarray]:
    """``count`` ``k x d`` matrices with column l1 norms ``<= Bw``, in turn: columns uniform in the
    l1 ball, vertices, sparse columns, and columns of equal l1 norm (Lemma 3.3's cover checks)."""
    rng, k, d = check_rng(rng), check_int(k, "k"), check_int(d, "d")
    Bw = check_positive(Bw, "Bw")
    out = []
    for i in range(_count(count)):
        kind = i % 4
        if kind == 0:
            W = random_l1_ball(rng, k, Bw, d).T
        elif kind == 1:
            W = np.zeros((k, d))
            W[rng.integers(0, k, size=d), np.arange(d)] = Bw * rng.choice([-1.0, 1.0], size=d)
        elif kind == 2:
            W = rng.standard_normal((k, d)) * (rng.random((k, d)) < 0.4)
            W = _scale_into_columns_l1(W * 10, Bw)
        else:
            W = rng.standard_normal((k, d))
            W = W * Bw * rng.uniform(0.3, 1.0) / np.abs(W).sum(0, keepdims=True)
        out.append(W)
    return out


def l33_greedy_cover_instances(seed: int, count: int, *,
                               K_rule: Callable[[float, float, float], int] = maurey_K,
                               class_radius_factor: float = 1.0) -> dict[str, list[float]]:
    """Lemma 3.3's greedy cover (:func:`~attention_theory.foundations.maurey.cover_columns_l1`) on
    ``count`` random draws of ``(k, d, Bw, Bx, eps)``, 8 :func:`l33_test_matrices` each.  Keys:
    ``error`` (largest ``||(W - hat W)x||_2`` over the basis ``Bx e_i`` and 20 random l1-ball
    inputs), ``eps`` (``strictly_below(eps)``) and ``member`` (1 where every column of ``hat W``
    has l1 norm ``<= class_radius_factor Bw``).  Check ``greedy-cover`` of Lemma 3.3."""
    check_callable(K_rule, "K_rule")
    class_radius_factor = check_real(class_radius_factor, "class_radius_factor")
    rng = np.random.default_rng(check_seed(seed))
    err, eps_list, member = [], [], []
    for trial in range(_count(count)):
        k, d = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        Bw, Bx = float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))
        eps = Bw * Bx * float(rng.uniform(0.15, 0.9))
        K = int(K_rule(Bw, Bx, eps))
        for W in l33_test_matrices(rng, k, d, Bw, 8):
            What = cover_columns_l1(W, Bw, Bx, eps, K=K)
            member.append(float(np.abs(What).sum(0).max() <= class_radius_factor * Bw * (1 + 1e-12)))
            X = np.vstack([Bx * np.eye(d), random_l1_ball(rng, d, Bx, 20)])
            err.append(float(np.max(np.linalg.norm((W - What) @ X.T, axis=0))))
            eps_list.append(strictly_below(eps))
        # the draws of a former per-trial slot: the random instances stay the same
        random_l1_ball(rng, d, Bx, 20)
    return {"error": err, "eps": eps_list, "member": member}


def construction_size_grid(size: Callable[..., float], bound: Callable[..., float],
                           printed: Callable[..., float]) -> tuple[list[float], list[float], list[float]]:
    """``size``, ``bound`` and ``printed`` (each ``f(d, k, Bw, Bx, eps)``) on the grid ``d in
    {1, 3, 10, 100}``, ``k in {1, 2, 8, 64, 1024}``, 25 values of ``eps`` in ``[0.05, 1]``
    (``Bw = Bx = 1``, so ``K = 1..400``): the size-vs-bound checks of Lemmas 3.3 and 3.6."""
    for f, name in ((size, "size"), (bound, "bound"), (printed, "printed")):
        check_callable(f, name)
    lhs, rhs, printed_rhs = [], [], []
    for d in (1, 3, 10, 100):
        for k in (1, 2, 8, 64, 1024):
            for t in np.linspace(0.05, 1.0, 25):
                args = (d, k, 1.0, 1.0, float(t))
                lhs.append(size(*args))
                rhs.append(bound(*args))
                printed_rhs.append(printed(*args))
    return lhs, rhs, printed_rhs


def l1_atom_packing_distances() -> list[float]:
    """Smallest sup-column distance between the ``(2k)^d`` matrices with columns in ``{+-e_j}``,
    ``(k, d)`` in ``{(2, 1), (2, 2), (3, 2)}`` (all pairs; Lemma 3.3's packing, ``sqrt 2``)."""
    dmin = []
    for k, d in [(2, 1), (2, 2), (3, 2)]:
        cols = l1_ball_atoms(k, 1.0)
        mats = [np.column_stack(c) for c in itertools.product(cols, repeat=d)]
        dist = [np.max(np.linalg.norm(A - B, axis=0)) for A, B in itertools.combinations(mats, 2)]
        dmin.append(float(min(dist)))
    return dmin


def flat_atom_packing_distances() -> list[float]:
    """Smallest spectral distance between the ``2dk`` matrices ``+-E_ij``, ``(k, d)`` in
    ``{(1, 2), (2, 2), (3, 2)}`` (all pairs; Lemma 3.6's packing, ``1``)."""
    dmin = []
    for k, d in [(1, 2), (2, 2), (3, 2)]:
        atoms = [a.reshape(k, d) for a in l1_ball_atoms(k * d, 1.0)]
        dmin.append(min(float(np.linalg.norm(A - B, 2)) for A, B in itertools.combinations(atoms, 2)))
    return dmin


@refuses_overflow
def packing_grid(rhs: Callable[..., float], lower: Callable[[int, int], float],
                 eps_grid: tuple[float, ...]) -> tuple[list[float], list[float]]:
    """A packing lower bound ``lower(d, k)`` and ``rhs(d, k, 1, 1, eps)`` on ``d`` in
    ``{1, 2, 10, 100}``, ``k`` in ``{1, 2, 16, 1024}`` and ``eps`` in ``eps_grid``: the packing
    checks of Lemmas 3.3 and 3.6."""
    check_callable(rhs, "rhs")
    check_callable(lower, "lower")
    grid = as_array(eps_grid, "eps_grid", ndim=1)
    if np.any(grid <= 0):
        raise ValueError(f"eps_grid must hold scales > 0, got {grid.tolist()}")
    eps_grid = tuple(float(t) for t in grid)
    lhs, r = [], []
    for d in (1, 2, 10, 100):
        for k in (1, 2, 16, 1024):
            for t in eps_grid:
                lhs.append(lower(d, k))
                r.append(rhs(d, k, 1.0, 1.0, t))
    return lhs, r


def ceiling_outcomes(size: Callable[..., float], bound: Callable[..., float], printed_ceiling: bool) -> tuple:
    """Constructed log cover size against the bound without / with the ceiling (erratum #18).

    Returns the (printed, corrected) outcomes over d in {1, 4}, k in {2, 8, 64} and 40 values
    of eps in [0.3, 0.99] with B_w = B_x = 1; ``bound(d, k, Bw, Bx, eps, ceiling=...)``.
    """
    check_callable(size, "size")
    check_callable(bound, "bound")
    printed_ceiling = check_bool(printed_ceiling, "printed_ceiling")
    lhs, pr, co = [], [], []
    for d in (1, 4):
        for k in (2, 8, 64):
            for t in np.linspace(0.3, 0.99, 40):
                args = (d, k, 1.0, 1.0, float(t))
                lhs.append(size(*args))
                pr.append(bound(*args, ceiling=printed_ceiling))
                co.append(bound(*args, ceiling=True))
    grid = [(d, k, float(t)) for d in (1, 4) for k in (2, 8, 64) for t in np.linspace(0.3, 0.99, 40)]
    return bound_outcome(lhs, pr, instances=grid), bound_outcome(lhs, co, instances=grid)


def row_sum_instances(seed: int, count: int, *, K_rule: Callable[[float, float, float], int] = maurey_K,
                      outer_norm: Callable[[np.ndarray], float] | None = None) -> dict[str, list[float]]:
    """``count`` random sparse ``W`` (``k`` in 2..6, ``d`` in 1..4) scaled to row-sum (2,1) norm in
    ``[0.2, 1] Bw``.  Keys: ``inner`` (``||W||_{1,inf}``) and ``outer`` (``outer_norm(W)``, default
    ``||W^T||_{2,1}``); ``error`` (largest ``||(W - hat W)x||_2`` of Lemma 3.3's cover over the
    basis and 10 random l1-ball inputs) and ``eps``.  Check ``row-reading-via-lemma-3-3`` of Lemma 3.4."""
    check_callable(K_rule, "K_rule")
    if outer_norm is None:
        outer_norm = lambda W: mixed_norm(W.T, 2, 1)  # noqa: E731
    check_callable(outer_norm, "outer_norm")
    rng = np.random.default_rng(check_seed(seed))
    inner, outer, err, eps_list = [], [], [], []
    for _ in range(_count(count)):
        k, d = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        Bw, Bx = float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))
        W = rng.standard_normal((k, d)) * (rng.random((k, d)) < 0.6)
        s = mixed_norm(W.T, 2, 1)
        W = W * Bw * rng.uniform(0.2, 1.0) / max(s, 1e-12)
        inner.append(mixed_norm(W, 1, math.inf))
        outer.append(outer_norm(W))
        eps = Bw * Bx * float(rng.uniform(0.2, 0.9))
        What = cover_columns_l1(W, Bw, Bx, eps, K=int(K_rule(Bw, Bx, eps)))
        X = np.vstack([Bx * np.eye(d), random_l1_ball(rng, d, Bx, 10)])
        err.append(float(np.max(np.linalg.norm((W - What) @ X.T, axis=0))))
        eps_list.append(strictly_below(eps))
    return {"inner": inner, "outer": outer, "error": err, "eps": eps_list}


def l34_packing_distances(packing_distance: Callable[[int, int], float]) -> tuple[list[float], list[float]]:
    """Smallest pairwise distance (largest column l2 norm of the difference) within
    :func:`l34_packing_family` for six small ``(k, d, s)``, and ``packing_distance(s, d)``."""
    check_callable(packing_distance, "packing_distance")
    dist, dist_ref = [], []
    for k, d, s in [(2, 1, 1), (3, 2, 1), (3, 2, 2), (4, 2, 2), (4, 3, 1), (5, 1, 2)]:
        P = l34_packing_family(k, d, s)
        diff = P[:, None] - P[None, :]
        D = np.linalg.norm(diff, axis=2).max(axis=-1)  # largest column l2 norm, shape (n, n)
        D[np.eye(len(P), dtype=bool)] = np.inf
        dist.append(float(D.min()))
        dist_ref.append(packing_distance(s, d))
    return dist, dist_ref


def l34_kappa_grid(rhs: Callable[[int, int, float, float, float], float]
                   ) -> tuple[list[float], list[float], list[tuple[int, int, int, float]]]:
    """Log packing number ``log binom(k, s) + s d log 2`` of :func:`l34_packing_family` at its scale
    ``eps = 1/(sqrt 2 s sqrt d)`` against ``rhs(d, k, 1, 1, eps)``, on ``k`` up to ``2^20``, ``d`` up
    to 1024, ``s`` in ``{1, 2, 8}``: ``(packing, rhs, [(k, d, s, kappa)])``."""
    check_callable(rhs, "rhs")
    lhs, rhs_v, table = [], [], []
    for k in (2, 16, 256, 4096, 2 ** 20):
        for d in (1, 4, 64, 1024):
            for s in (1, 2, 8):
                if s > k:
                    continue
                eps = 1.0 / (math.sqrt(2) * s * math.sqrt(d))
                pack = float(gammaln(k + 1) - gammaln(s + 1) - gammaln(k - s + 1)) + s * d * math.log(2)
                r = rhs(d, k, 1.0, 1.0, eps)
                lhs.append(pack)
                rhs_v.append(r)
                table.append((k, d, s, pack / r if r > 0 else math.inf))
    return lhs, rhs_v, table


def l36_greedy_cover_instances(seed: int, count: int, *,
                               K_rule: Callable[[float, float, float], int] = maurey_K,
                               frobenius_K_offset: int = 0) -> dict[str, list[float]]:
    """Lemma 3.6's flattened cover (:func:`~attention_theory.foundations.maurey.cover_flat_l1`) on
    ``count`` random draws of ``(k, d, Bw, Bx, eps)``, 5 matrices each (3 uniform in the (1,1) ball,
    a vertex, a sparse one).  Keys: ``frobenius`` (``||W - hat W||_F^2``), ``frobenius_rhs``
    (``(Bw ||W||_{1,1} - ||W||_F^2)/(K + frobenius_K_offset)``), ``error`` (the larger of
    ``Bx sigma_max(W - hat W)`` and the error on 20 random l2-ball inputs) and ``eps``."""
    check_callable(K_rule, "K_rule")
    frobenius_K_offset = check_int(frobenius_K_offset, "frobenius_K_offset", minimum=-1)
    rng = np.random.default_rng(check_seed(seed))
    fro, fro_rhs, err, eps_list = [], [], [], []
    for trial in range(_count(count)):
        k, d = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        Bw, Bx = float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))
        eps = Bw * Bx * float(rng.uniform(0.2, 0.9))
        K = int(K_rule(Bw, Bx, eps))
        mats = [random_l1_ball(rng, k * d, Bw, 1)[0].reshape(k, d) for _ in range(3)]
        V = np.zeros(k * d)
        V[rng.integers(0, k * d)] = Bw
        mats.append(V.reshape(k, d))
        S = rng.standard_normal((k, d)) * (rng.random((k, d)) < 0.3)
        mats.append(_scale_into_l1(S * 10, Bw))
        for W in mats:
            What = cover_flat_l1(W, Bw, Bx, eps, K=K)
            fro.append(float(np.sum((W - What) ** 2)))
            fro_rhs.append((Bw * float(np.abs(W).sum()) - float(np.sum(W ** 2))) / (K + frobenius_K_offset))
            Z = rng.standard_normal((20, d))
            Z = Bx * Z / np.linalg.norm(Z, axis=1, keepdims=True) * rng.uniform(0, 1, (20, 1)) ** (1 / d)
            err.append(max(float(Bx * np.linalg.norm(W - What, 2)),
                           float(np.max(np.linalg.norm((W - What) @ Z.T, axis=0)))))
            eps_list.append(strictly_below(eps))
        # the draws of a former per-trial slot: same instances
        rng.standard_normal((20, d)), rng.uniform(0, 1, (20, 1))
    return {"frobenius": fro, "frobenius_rhs": fro_rhs, "error": err, "eps": eps_list}


# ----------------------------------------------------------------------------- Sec. 3.4, App. A

def sec34_instances(seed: int, count: int, *, factor: Callable[[int], float] = float
                    ) -> tuple[list[float], list[float]]:
    """``||W||_{p,1}`` and ``factor(d) ||W||_{p,inf}`` for ``count`` random Gaussian ``W`` (``k`` in
    1..6, ``d`` in 1..8, every 5th with unit columns), ``p`` in ``{1, 2}`` (Sec. 3.4)."""
    check_callable(factor, "factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs = [], []
    for i in range(_count(count)):
        k, d = int(rng.integers(1, 7)), int(rng.integers(1, 9))
        W = rng.standard_normal((k, d))
        if i % 5 == 0:
            W = W / np.linalg.norm(W, axis=0, keepdims=True)
        for p in (1, 2):
            lhs.append(mixed_norm(W, p, 1))
            rhs.append(factor(d) * mixed_norm(W, p, math.inf))
    return lhs, rhs


def app_a_row_cover_instances(seed: int, count: int, *,
                              radius_factor: Callable[[int, float], float] = lambda k, q: k ** (1 / q)
                              ) -> dict[str, Any]:
    """App. A's row-by-row cover (each row covered by the scalar Maurey cover, ``Bw = Bx = 1``) on
    ``count`` random draws (``k`` in 2..5 rows uniform in the l1 ball, ``d`` in 2..3, 8 unit points,
    ``eps`` in ``[0.4, 0.9]``), ``q`` in ``{1, 2, inf}``.  Keys: ``error`` (largest ``||(W - hat W)
    x_t||_q``), ``bound`` (``strictly_below(radius_factor(k, q) eps)``), ``log_sizes`` (``k log``
    of the scalar cover's size, one per draw) and ``tightness`` (the largest error over
    ``radius_factor(k, q) eps``)."""
    check_callable(radius_factor, "radius_factor")
    rng = np.random.default_rng(check_seed(seed))
    lhs, rhs, sizes, tight = [], [], [], 0.0
    for trial in range(_count(count)):
        k, d, n = int(rng.integers(2, 6)), int(rng.integers(2, 4)), 8
        Bw, Bx = 1.0, 1.0
        eps = Bw * Bx * float(rng.uniform(0.4, 0.9))
        K = maurey_K(Bw, Bx, eps)
        X = rng.standard_normal((n, d))
        X = Bx * X / np.linalg.norm(X, axis=1, keepdims=True)
        W = random_l1_ball(rng, d, Bw, k)
        What = cover_rows(W, lambda w: l1_maurey_approx(w, Bw, K))
        for q in (1.0, 2.0, math.inf):
            e = float(np.max(_lq((W - What) @ X.T, q, axis=0)))
            lhs.append(e)
            rhs.append(strictly_below(radius_factor(k, q) * eps))
            tight = max(tight, e / (radius_factor(k, q) * eps))
        sizes.append(k * math.log(maurey_cover_points(d, Bw, K).shape[0]))
    return {"error": lhs, "bound": rhs, "log_sizes": sizes, "tightness": tight}


def app_a_deep_hole_errors(*, radius_factor: Callable[[int, float], float] = lambda k, q: k ** (1 / q)
                           ) -> tuple[list[float], list[float]]:
    """App. A's row cover at the deep holes: ``k = 2`` equal rows :func:`deep_hole` (``d = 2K``),
    ``x`` along the row's error (``Bw = Bx = 1``), ``q`` in ``{1, 2, inf}``: the errors and
    ``strictly_below(radius_factor(2, q) eps)``."""
    check_callable(radius_factor, "radius_factor")
    lhs, rhs = [], []
    for K, t in DEEP_HOLES:
        w = deep_hole(K)
        diff = w - l1_maurey_approx(w, 1.0, maurey_K(1.0, 1.0, t))
        x = diff / np.linalg.norm(diff)
        for q in (1.0, 2.0, math.inf):
            lhs.append(float(_lq(np.full(2, diff @ x), q)))
            rhs.append(strictly_below(radius_factor(2, q) * t))
    return lhs, rhs
