"""The l_p attention SVM (l_p-AttSVM) and the v-SVM of Julistiono et al., solved with cvxpy.

Every solver returns the solution with the solver's status and refuses to answer when cvxpy
does not report ``optimal``.
"""

from __future__ import annotations

__all__: list[str] = []
# ---------------------------------------------------------------------------

# (the Julistiono chapters add their solvers here)

import dataclasses as _dc
import functools as _functools
import warnings as _warnings
from typing import Any as _Any

import numpy as _np

from attention_theory.validation import refuses_overflow
from attention_theory.validation import reject_masked as _reject_masked

__all__ += ["AttSVMSolution", "lp_att_svm", "lp_v_svm", "svm_slacks", "support_tokens",
            "is_locally_optimal", "select_alpha"]


@_dc.dataclass
class AttSVMSolution:
    """Solution of the l_p-AttSVM: ``W`` ``(d, d)``, its l_p norm, the constraint values
    ``margins[i, t] = (x_{i alpha_i} - x_it)^T W z_i`` ``(n, T)`` (``nan`` at ``t = alpha_i``),
    the dual variables ``duals`` ``(n, T)`` (``nan`` at ``alpha_i``), cvxpy's status and the
    solver tolerance ``tol`` that reached it (see :func:`lp_att_svm`)."""

    W: _np.ndarray
    norm: float
    alpha: _np.ndarray
    p: float
    margins: _np.ndarray
    duals: _np.ndarray
    status: str
    tol: float = 1e-9


def _att_constraints(X: _np.ndarray, z: _np.ndarray,
                     alpha: _np.ndarray) -> tuple[_np.ndarray, list[tuple[int, int]]]:
    """Rows ``vec((x_{i alpha_i} - x_it) z_i^T)`` (C order) for every ``t != alpha_i``."""
    rows, idx = [], []
    n, T, _ = X.shape
    for i in range(n):
        for t in range(T):
            if t != alpha[i]:
                rows.append(_np.outer(X[i, alpha[i]] - X[i, t], z[i]).ravel())
                idx.append((i, t))
    return _np.asarray(rows), idx


def _check_alpha(alpha: _Any, n: int, T: int) -> _np.ndarray:
    _reject_masked(alpha, "alpha")
    a = _np.asarray(alpha)
    if a.shape != (n,) or not _np.issubdtype(a.dtype, _np.integer):
        raise ValueError(f"alpha must be an integer array of shape ({n},), got {a.shape} {a.dtype}")
    if _np.any(a < 0) or _np.any(a >= T):
        raise ValueError(f"alpha entries must lie in [0, {T - 1}]")
    return a.astype(int)


@_functools.lru_cache(maxsize=32)
def _lp_svm_problem(p: float, m: int, D: int, tol: float):
    """A parametrised (DPP) cvxpy problem ``min ||w||_p s.t. A w >= 1``, compiled once per shape:
    later solves only refill ``A`` (the experiments solve hundreds of these)."""
    import cvxpy as cp

    w = cp.Variable(D)
    A = cp.Parameter((m, D))
    con = A @ w >= 1
    return cp.Problem(cp.Minimize(cp.pnorm(w, p)), [con]), w, A, con


@refuses_overflow
def lp_att_svm(X: _Any, z: _Any, alpha: _Any, p: float, *, tol: float = 1e-9) -> AttSVMSolution:
    """``W^mm = argmin ||vec W||_p  s.t.  (x_{i alpha_i} - x_it)^T W z_i >= 1`` for all ``t != alpha_i``.

    ``X (n, T, d)``, ``z (n, d)``, ``alpha (n,)`` token indices.  Solved with cvxpy
    (``cp.pnorm`` on the vectorised matrix, Clarabel).  Raises ``RuntimeError`` when the
    problem is infeasible or the solver does not report ``optimal``.
    """
    import cvxpy as cp

    from attention_theory.foundations.mirror import conjugate_exponent
    from attention_theory.julistiono.model import validate_data

    X, z, _ = validate_data(X, z)
    if X.ndim != 3:
        raise ValueError(f"X must have shape (n, T, d), got {X.shape}")
    conjugate_exponent(p)  # validates p > 1
    n, T, d = X.shape
    a = _check_alpha(alpha, n, T)
    A, idx = _att_constraints(X, z, a)
    prob, w, A_par, cons = _lp_svm_problem(float(p), A.shape[0], d * d, float(tol))
    A_par.value = A
    # Clarabel may stop just short of a tolerance of 1e-9 on a well-posed problem ("optimal_inaccurate":
    # E1 at full scale, p = 2, n = 6, d = 10, solved at 1e-8 with norm 3.04 and margins 1 - 1e-10);
    # a tolerance ten and a hundred times looser is tried before giving up, and the solution says
    # which one it reached
    for used in (tol, 10 * tol, 100 * tol):
        try:
            # warm_start=False: the compiled problem is cached per shape, and a warm-started Clarabel
            # solve would depend on the previous solve of that shape (W moved by ~5e-7 with the history)
            with _warnings.catch_warnings():
                _warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                prob.solve(solver=cp.CLARABEL, warm_start=False, tol_gap_abs=used, tol_gap_rel=used,
                           tol_feas=used)
        except cp.error.SolverError as exc:  # pragma: no cover - depends on the solver build
            raise RuntimeError(f"l_p-AttSVM solver failed: {exc}") from None
        if prob.status != "optimal_inaccurate":
            break
    if prob.status != "optimal":
        raise RuntimeError(f"l_p-AttSVM not solved to optimality (status {prob.status!r} at tolerance "
                           f"{used:g}); alpha may be infeasible")
    W = _np.asarray(w.value).reshape(d, d)
    margins = _np.full((n, T), _np.nan)
    duals = _np.full((n, T), _np.nan)
    lam = _np.asarray(cons.dual_value).ravel()
    vals = A @ w.value
    for k, (i, t) in enumerate(idx):
        margins[i, t] = vals[k]
        duals[i, t] = lam[k]
    norm = float(_np.sum(_np.abs(W) ** p) ** (1 / p))
    return AttSVMSolution(W=W, norm=norm, alpha=a, p=float(p), margins=margins, duals=duals,
                          status=prob.status, tol=used)


@refuses_overflow
def lp_v_svm(X: _Any, Y: _Any, alpha: _Any, p: float, *, tol: float = 1e-9) -> _np.ndarray:
    """``v^mm = argmin ||v||_p  s.t.  Y_i x_{i alpha_i}^T v >= 1`` (joint setting), shape ``(d,)``."""
    import cvxpy as cp

    from attention_theory.foundations.mirror import conjugate_exponent
    from attention_theory.validation import as_array

    X = as_array(X, "X", ndim=3)
    Y = as_array(Y, "Y", ndim=1)
    n, T, d = X.shape
    if Y.shape != (n,) or not _np.all(_np.abs(Y) == 1):
        raise ValueError(f"Y must have shape ({n},) with entries +-1")
    conjugate_exponent(p)
    a = _check_alpha(alpha, n, T)
    rows = Y[:, None] * X[_np.arange(n), a]
    v = cp.Variable(d)
    prob = cp.Problem(cp.Minimize(cp.pnorm(v, p)), [rows @ v >= 1])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    if prob.status != "optimal":
        raise RuntimeError(f"v-SVM not solved to optimality (status {prob.status!r})")
    return _np.asarray(v.value)


def svm_slacks(X: _Any, z: _Any, alpha: _Any, W: _Any) -> _np.ndarray:
    """``(x_{i alpha_i} - x_it)^T W z_i`` for all ``(i, t)``, shape ``(n, T)`` (``nan`` at ``alpha_i``)."""
    from attention_theory.julistiono.model import logits, validate_data

    X, z, _ = validate_data(X, z)
    n, T, _ = X.shape
    a = _check_alpha(alpha, n, T)
    h = logits(X, z, W)
    out = h[_np.arange(n), a][:, None] - h
    out[_np.arange(n), a] = _np.nan
    return out


def support_tokens(sol: AttSVMSolution, X: _Any, z: _Any, *, tol: float = 1e-6) -> _np.ndarray:
    """Definition 3: ``T_i = {t != alpha_i : (x_{i alpha_i} - x_it)^T W^mm z_i = 1}`` as an ``(n, T)`` mask
    (primal slack below ``tol``)."""
    m = svm_slacks(X, z, sol.alpha, sol.W)
    return _np.nan_to_num(m - 1.0, nan=_np.inf) <= tol


def is_locally_optimal(gamma: _Any, alpha: _Any, support: _Any) -> bool:
    """``alpha`` is locally optimal when ``gamma_{i alpha_i} > gamma_it`` for every support token ``t``."""
    from attention_theory.validation import as_array, as_matrix

    g = as_matrix(gamma, "gamma")
    S = _np.asarray(support)
    if S.dtype != bool:
        S = as_array(support, "support")
        if not _np.all((S == 0) | (S == 1)):
            raise ValueError("support must be a boolean mask (entries 0/1 or True/False)")
        S = S.astype(bool)
    if S.shape != g.shape:
        raise ValueError(f"gamma and support must both have shape (n, T), got {g.shape} and {S.shape}")
    n, T = g.shape
    a = _check_alpha(alpha, n, T)
    ga = g[_np.arange(n), a][:, None]
    return bool(_np.all((ga > g) | ~S))


def select_alpha(X: _Any, z: _Any, W: _Any) -> _np.ndarray:
    """The experiments' convention: ``alpha_i = argmax_t`` of the attention logits ``X_i W z_i``."""
    from attention_theory.julistiono.model import logits

    return _np.argmax(logits(X, z, W), axis=-1).astype(int)
