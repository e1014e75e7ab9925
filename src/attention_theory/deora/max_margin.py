"""Max-margin problems solved with cvxpy: one home for every SVM the book needs.

Sections (each paper's problems in its own block):

* NTK max-margin of Deora et al. (Section 5, Proposition 2): the hard-margin
  problem over the neural-tangent features at the first-phase initialization.
* The l_p attention SVM (l_p-AttSVM) and the v-SVM of Julistiono et al.

Every solver returns the solution together with the solver's status and refuses
to return an answer when cvxpy does not report ``optimal``.
"""

from __future__ import annotations

from attention_theory.validation import refuses_overflow

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


@refuses_overflow
def ntk_max_margin(features, y, *, radius: float = 2 ** 0.5, solver: str | None = None) -> MaxMarginResult:
    """Hard-margin problem on fixed features (NTK max-margin of Deora et al., Prop. 2 / Lemma 15).

    ``features``: ``(n, p)`` (rows ``f_i = grad Phi~(X_i; theta~(1))``), ``y``: ``(n,)`` in ``{-1, +1}``.
    Solves the second-order cone program ``max gamma s.t. y_i <f_i, theta> >= gamma,
    ||theta||_2 <= radius`` (always feasible; the optimum is the largest margin any direction of
    norm ``radius`` achieves, ``radius = sqrt(2)`` as for ``theta~_star``).  Raises ``RuntimeError``
    unless cvxpy reports ``optimal``.
    """
    import cvxpy as cp

    from attention_theory.validation import as_matrix, as_vector, check_positive

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


@refuses_overflow
def ntk_max_margin_dual(features: Any, ys: Any, *, tol: float = 1e-13) -> dict[str, Any]:
    """Hard-margin SVM without bias on ``z_i = y_i f_i``: the unit ``w`` maximizing ``min_i <w, z_i>``.

    Solves the dual ``min_{lambda in simplex} ||Z^T lambda||^2`` (the distance from 0 to the convex
    hull of the ``z_i``).  Returns ``gamma_svm`` (the minimum margin actually attained by the
    returned unit ``w``, a certified lower bound), ``upper`` (``||Z^T lambda||``, an upper bound on
    the optimum), ``w`` and ``separable`` (``False`` when 0 lies in the hull, then ``gamma_svm <= 0``).
    """
    from attention_theory.deora import model as md

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
                      constraints=[{"type": "eq", "fun": lambda l: l.sum() - 1,
                                    "jac": lambda l: _np.ones(n)}],
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
