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

# (the Deora part-2 chapter adds its solver here)


# ---------------------------------------------------------------------------
#
#
#
# ---------------------------------------------------------------------------
# Julistiono et al.: l_p attention SVM and v-SVM
# ---------------------------------------------------------------------------

# (the Julistiono chapters add their solvers here)
