"""Max-margin problems solved with cvxpy: one home for every SVM the book needs.

Sections (each paper's problems in its own block):

* NTK max-margin of Deora et al. (Section 5, Proposition 2): the hard-margin
  problem over the neural-tangent features at the first-phase initialization.
* The l_p attention SVM (l_p-AttSVM) and the v-SVM of Julistiono et al.

Every solver returns the solution together with the solver's status and refuses
to return an answer when cvxpy does not report ``optimal``.
"""

from __future__ import annotations

__all__: list[str] = []


# ---------------------------------------------------------------------------
# Deora et al.: NTK max-margin (Section 5, Proposition 2)
# ---------------------------------------------------------------------------

__all__ += ["MaxMarginResult", "ntk_max_margin", "ntk_max_margin_dual"]

import dataclasses as _dataclasses  # noqa: E402
from typing import Any  # noqa: E402

import numpy as _np  # noqa: E402
import scipy.optimize as _so  # noqa: E402


@_dataclasses.dataclass
class MaxMarginResult:
    """Solution of ``max_{||theta|| <= radius} min_i y_i <f_i, theta>``.

    ``margin`` is the optimal value (negative when the data are not separable), ``theta``
    the maximizer, ``margins`` the per-sample values ``y_i <f_i, theta>``, ``status`` cvxpy's.
    """

    margin: float
    theta: _np.ndarray
    margins: _np.ndarray
    status: str
    solver: str


def ntk_max_margin(features, y, *, radius: float = 2 ** 0.5, solver: str | None = None) -> MaxMarginResult:
    """Hard-margin problem on fixed features (NTK max-margin of Deora et al., Prop. 2 / Lemma 15).

    ``features``: ``(n, p)`` (rows ``f_i = grad Phi~(X_i; theta~(1))``), ``y``: ``(n,)`` in ``{-1, +1}``.
    Solves the second-order cone program ``max gamma s.t. y_i <f_i, theta> >= gamma,
    ||theta||_2 <= radius`` (always feasible; the optimum is the largest margin any direction of
    norm ``radius`` achieves, ``radius = sqrt(2)`` as for ``theta~_star``).  Raises ``RuntimeError``
    unless cvxpy reports ``optimal``.
    """
    import cvxpy as cp

    from ._validate import as_matrix, as_vector, check_positive

    F = as_matrix(features, "features")
    yy = as_vector(y, "y")
    if yy.shape[0] != F.shape[0]:
        raise ValueError(f"y must have one entry per row of features ({F.shape[0]}), got {yy.shape[0]}")
    if not _np.all(_np.isin(yy, (-1.0, 1.0))):
        raise ValueError("y must contain only -1 and +1")
    radius = check_positive(radius, "radius")
    scale = float(_np.max(_np.abs(F))) or 1.0           # conditioning: solve on F / scale
    Fs = (yy[:, None] * F) / scale
    theta = cp.Variable(F.shape[1])
    gamma = cp.Variable()
    prob = cp.Problem(cp.Maximize(gamma), [Fs @ theta >= gamma, cp.norm(theta, 2) <= radius])
    names = [solver] if solver else [s for s in ("CLARABEL", "ECOS", "SCS") if s in cp.installed_solvers()]
    last = "no solver"
    for name in names:
        try:
            prob.solve(solver=name)
        except cp.error.SolverError as exc:  # pragma: no cover - solver-specific failures
            last = f"{name}: {exc}"
            continue
        if prob.status == cp.OPTIMAL:
            th = _np.asarray(theta.value, dtype=float)
            nrm = _np.linalg.norm(th)
            if nrm > radius:                                  # solver tolerance: project back
                th = th * (radius / nrm)
            m = yy * (F @ th)
            return MaxMarginResult(float(m.min()), th, m, str(prob.status), name)
        last = f"{name}: status {prob.status}"
    raise RuntimeError(f"ntk_max_margin: cvxpy did not report an optimal solution ({last})")


def ntk_max_margin_dual(features: Any, ys: Any, *, tol: float = 1e-13) -> dict[str, Any]:
    """Hard-margin SVM without bias on ``z_i = y_i f_i``: the unit ``w`` maximizing ``min_i <w, z_i>``.

    Solves the dual ``min_{lambda in simplex} ||Z^T lambda||^2`` (the distance from 0 to the convex
    hull of the ``z_i``).  Returns ``gamma_svm`` (the minimum margin actually attained by the
    returned unit ``w``, a certified lower bound), ``upper`` (``||Z^T lambda||``, an upper bound on
    the optimum), ``w`` and ``separable`` (``False`` when 0 lies in the hull, then ``gamma_svm <= 0``).
    """
    from .models import deora as md

    F = md.as_tensor(features, "features", ndim=2).detach().numpy()
    y = md.as_tensor(ys, "ys", shape=(F.shape[0],)).numpy()
    if not _np.all(_np.abs(y) == 1):
        raise ValueError("ys must contain only -1 and +1")
    Z = y[:, None] * F
    n = Z.shape[0]
    Q = Z @ Z.T
    lam = _np.full(n, 1.0 / n)
    res = _so.minimize(lambda l: l @ Q @ l, lam, jac=lambda l: 2 * Q @ l, method="SLSQP",
                      bounds=[(0, None)] * n,
                      constraints=[{"type": "eq", "fun": lambda l: l.sum() - 1, "jac": lambda l: _np.ones(n)}],
                      options={"ftol": tol, "maxiter": 1000})
    lam = _np.clip(res.x, 0, None)
    lam /= lam.sum()
    # polish: exact minimum-norm point of the affine hull of the support (Wolfe's step)
    for thresh in (1e-7, 1e-5, 1e-3):
        S = _np.flatnonzero(lam > thresh * lam.max())
        A = _np.block([[Q[_np.ix_(S, S)], _np.ones((len(S), 1))], [_np.ones((1, len(S))), _np.zeros((1, 1))]])
        try:
            sol = _np.linalg.solve(A, _np.concatenate([_np.zeros(len(S)), [1.0]]))
        except _np.linalg.LinAlgError:
            continue
        if _np.all(sol[:-1] > 0):
            cand = _np.zeros(n)
            cand[S] = sol[:-1]
            if cand @ Q @ cand <= lam @ Q @ lam * (1 + 1e-9):
                lam = cand
            break
    w = Z.T @ lam
    upper = float(_np.linalg.norm(w))
    if upper <= 1e-10 * max(1.0, float(_np.abs(Z).max())):
        return {"gamma_svm": 0.0, "upper": upper, "w": _np.zeros(Z.shape[1]), "separable": False}
    wu = w / upper
    gam = float((Z @ wu).min())
    return {"gamma_svm": gam, "upper": upper, "w": wu, "separable": gam > 0}


# ---------------------------------------------------------------------------
#
#
#
# ---------------------------------------------------------------------------
# Julistiono et al.: l_p attention SVM and v-SVM
# ---------------------------------------------------------------------------

# (the Julistiono chapters add their solvers here)

import dataclasses as _dc
import functools as _functools
from typing import Any as _Any

import numpy as _np

__all__ += ["AttSVMSolution", "lp_att_svm", "lp_v_svm", "svm_slacks", "support_tokens",
            "is_locally_optimal", "select_alpha"]


@_dc.dataclass
class AttSVMSolution:
    """Solution of the l_p-AttSVM: ``W`` ``(d, d)``, its l_p norm, the constraint values
    ``margins[i, t] = (x_{i alpha_i} - x_it)^T W z_i`` ``(n, T)`` (``nan`` at ``t = alpha_i``),
    the dual variables ``duals`` ``(n, T)`` (``nan`` at ``alpha_i``) and cvxpy's status."""

    W: _np.ndarray
    norm: float
    alpha: _np.ndarray
    p: float
    margins: _np.ndarray
    duals: _np.ndarray
    status: str


def _att_constraints(X: _np.ndarray, z: _np.ndarray, alpha: _np.ndarray) -> tuple[_np.ndarray, list[tuple[int, int]]]:
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


def lp_att_svm(X: _Any, z: _Any, alpha: _Any, p: float, *, tol: float = 1e-9) -> AttSVMSolution:
    """``W^mm = argmin ||vec W||_p  s.t.  (x_{i alpha_i} - x_it)^T W z_i >= 1`` for all ``t != alpha_i``.

    ``X (n, T, d)``, ``z (n, d)``, ``alpha (n,)`` token indices.  Solved with cvxpy
    (``cp.pnorm`` on the vectorised matrix, Clarabel).  Raises ``RuntimeError`` when the
    problem is infeasible or the solver does not report ``optimal``.
    """
    import cvxpy as cp

    from .models.julistiono import validate_data
    from .mirror import conjugate_exponent

    X, z, _ = validate_data(X, z)
    if X.ndim != 3:
        raise ValueError(f"X must have shape (n, T, d), got {X.shape}")
    conjugate_exponent(p)  # validates p > 1
    n, T, d = X.shape
    a = _check_alpha(alpha, n, T)
    A, idx = _att_constraints(X, z, a)
    prob, w, A_par, cons = _lp_svm_problem(float(p), A.shape[0], d * d, float(tol))
    A_par.value = A
    try:
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    except cp.error.SolverError as exc:  # pragma: no cover - depends on the solver build
        raise RuntimeError(f"l_p-AttSVM solver failed: {exc}") from None
    if prob.status != "optimal":
        raise RuntimeError(f"l_p-AttSVM not solved to optimality (status {prob.status!r}); "
                           "alpha may be infeasible")
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
                          status=prob.status)


def lp_v_svm(X: _Any, Y: _Any, alpha: _Any, p: float, *, tol: float = 1e-9) -> _np.ndarray:
    """``v^mm = argmin ||v||_p  s.t.  Y_i x_{i alpha_i}^T v >= 1`` (joint setting), shape ``(d,)``."""
    import cvxpy as cp

    from .mirror import conjugate_exponent
    from ._validate import as_array

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
    from .models.julistiono import logits, validate_data

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
    g = _np.asarray(gamma, dtype=float)
    S = _np.asarray(support, dtype=bool)
    if g.ndim != 2 or S.shape != g.shape:
        raise ValueError(f"gamma and support must both have shape (n, T), got {g.shape} and {S.shape}")
    n, T = g.shape
    a = _check_alpha(alpha, n, T)
    ga = g[_np.arange(n), a][:, None]
    return bool(_np.all((ga > g) | ~S))


def select_alpha(X: _Any, z: _Any, W: _Any) -> _np.ndarray:
    """The experiments' convention: ``alpha_i = argmax_t`` of the attention logits ``X_i W z_i``."""
    from .models.julistiono import logits

    return _np.argmax(logits(X, z, W), axis=-1).astype(int)
