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

__all__ += ["MaxMarginResult", "ntk_max_margin"]

import dataclasses as _dataclasses  # noqa: E402

import numpy as _np  # noqa: E402


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


# ---------------------------------------------------------------------------
#
#
#
# ---------------------------------------------------------------------------
# Julistiono et al.: l_p attention SVM and v-SVM
# ---------------------------------------------------------------------------

# (the Julistiono chapters add their solvers here)
