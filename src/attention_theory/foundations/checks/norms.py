"""Checks of the chapter ``book/foundations/norms.md``: vector, mixed and operator norms, the
induced norms of Deora et al. and the review copy's norm slip.

Every function here is a registered check (:func:`~attention_theory.verify.claim_check`) with
keyword-only arguments. They carry the statement's constant or formula, so the chapter calls
the check with the paper's version and ``tests/foundations/test_nc_norms.py`` calls it with a
wrong one, which must raise :class:`~attention_theory.verify.ClaimViolation`.  Sizes follow
``ATTN_SCALE``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from attention_theory.config import pick
from attention_theory.foundations.norms import (
    frobenius_norm,
    head_max_norm,
    mixed_norm,
    operator_norm,
    operator_norm_lower_bound,
    spectral_norm,
    vector_norm,
)
from attention_theory.search import maximize_over_sizes, numpy_objective
from attention_theory.verify import (
    CheckRecord,
    check_bound,
    check_identity,
    claim_check,
    confirm_erratum,
    identity_outcome,
)


def _test_matrices(seed: int, count: int) -> list[np.ndarray]:
    """Gaussian, low-rank, rank-one and sparse matrices of assorted shapes (<= 12 columns)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        r, d = int(rng.integers(1, 9)), int(rng.integers(1, 13))
        kind = i % 4
        if kind == 0:
            W = rng.standard_normal((r, d))
        elif kind == 1:
            k = int(rng.integers(1, min(r, d) + 1))
            W = rng.standard_normal((r, k)) @ rng.standard_normal((k, d))
        elif kind == 2:
            W = np.outer(rng.standard_normal(r), rng.standard_normal(d))
        else:
            W = rng.standard_normal((r, d)) * (rng.random((r, d)) < 0.3)
        out.append(W * 10.0 ** rng.uniform(-2, 2))
    return out


@claim_check("trauger-def-2-1", "mixed-operator-identities")
def check_mixed_operator_identities(*, read: Callable[[np.ndarray, float, float], float] = mixed_norm,
                                    seed: int = 0) -> CheckRecord:
    """The four identities between column-wise mixed norms and operator norms (catalogue 0.1).

    ``||W||_{1,inf} = ||W||_{1->1}``, ``||W^T||_{1,inf} = ||W||_{inf->inf}``,
    ``||W||_{2,inf} = ||W||_{1->2}``, ``||W^T||_{2,inf} = ||W||_{2->inf}``, plus the
    orientation example ``W = 1_k e_1^T``: ``||W||_{1,inf} = k``, ``||W^T||_{1,inf} = 1``.
    ``read`` is the implementation of Trauger's ``||.||_{q,p}`` under test.
    """
    comp, ref = [], []
    for W in _test_matrices(seed, pick(40, 400)):
        comp += [read(W, 1, np.inf), read(W.T, 1, np.inf), read(W, 2, np.inf), read(W.T, 2, np.inf)]
        ref += [operator_norm(W, 1, 1), operator_norm(W, np.inf, np.inf),
                operator_norm(W, 1, 2), operator_norm(W, 2, np.inf)]
    for k in (2, 5, 9):
        W = np.zeros((k, 4))
        W[:, 0] = 1.0
        comp += [read(W, 1, np.inf), read(W.T, 1, np.inf)]
        ref += [float(k), 1.0]
    return check_identity(comp, ref, "column-wise mixed norms equal the stated operator norms",
                          rtol=1e-12, atol=1e-300, seed=seed)


@claim_check("trauger-def-2-1", "operator-norm-closed-forms", parts=("operator-norm-q2-attained",))
def check_operator_norm_closed_forms(*, closed_form: Callable[[np.ndarray, float, float],
                                                              float] = operator_norm,
                                     seed: int = 1) -> CheckRecord:
    """Closed-form operator norms against their definition ``sup ||Wx||_p / ||x||_q``.

    Exact brute force where the sup sits at vertices: ``q = 1`` (``+-e_j``) and
    ``q = inf`` (all sign vectors, <= 12 columns).  For ``q = 2`` the closed form must
    dominate a local maximization (L-BFGS, restarts) and agree with it to 1e-6 (p = 2), and be
    attained by the largest row (p = inf, where a smaller row can be a local maximum).
    """
    comp, ref = [], []
    opt_lhs, opt_rhs = [], []
    rng = np.random.default_rng(seed)
    for W in _test_matrices(seed, pick(8, 200)):
        d = W.shape[1]
        E = np.eye(d)
        for p in (1.0, 2.0, np.inf):
            comp.append(closed_form(W, 1, p))
            ref.append(max(float(vector_norm(W @ E[j], p)) for j in range(d)))
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T
        for p in (1.0, 2.0, np.inf):
            comp.append(closed_form(W, np.inf, p))
            ref.append(float(np.max(vector_norm(signs @ W.T, p, axis=1))))
        # p = 2: the Rayleigh quotient has no local maximum but the global one, so a local
        # maximization must reach the closed form.  p = inf: a smaller row's direction can be a local
        # maximum of ||Wx||_inf / ||x||_2 (the full-scale campaign found L-BFGS stuck on a smaller
        # row), so the attained value is that of the explicit maximizer, the largest row.
        lower = operator_norm_lower_bound(W, 2, 2.0, restarts=3, seed=int(rng.integers(1 << 30)))
        opt_lhs.append(lower)
        opt_rhs.append(closed_form(W, 2, 2.0))
        x_star = W[int(np.argmax(np.linalg.norm(W, axis=1)))]
        nx = float(np.linalg.norm(x_star))
        opt_lhs.append(float(vector_norm(W @ x_star, np.inf)) / nx if nx > 0 else 0.0)
        opt_rhs.append(closed_form(W, 2, np.inf))
    # adversary: ||W x||_p / (||x||_2 closed_form(W, 2, p)) over W and x jointly (the closed form
    # under test is the denominator), for the smallest shapes and both p
    def ratio(size: tuple[int, int, float], z: np.ndarray) -> float:
        r, d, p = size
        W, x = z[:r * d].reshape(r, d), z[r * d:]
        den = float(np.linalg.norm(x)) * closed_form(W, 2, p)
        return float(vector_norm(W @ x, p)) / den if den > 0 else 0.0

    res = maximize_over_sizes(numpy_objective(ratio, difference="forward", rel_step=1e-7), lambda size,
                              g: g.standard_normal(size[0] * size[1] + size[1]),
                              [(r, d, p) for r, d in ((1, 1), (1, 2), (2, 2), (3, 2)) for p in (2.0, np.inf)],
                              restarts=pick(3, 12), steps=pick(40, 200), seed=seed)
    check_bound(opt_lhs + list(res.per_size.values()), opt_rhs + [1.0] * len(res.per_size),
                "local maximization never exceeds the closed form (q = 2); adversarial ||Wx||_p / "
                "(||x||_2 closed form) <= 1", rtol=1e-9, seed=seed, search=res,
                families=[f"{len(opt_lhs) // 2} test matrices (Gaussian, low-rank, rank-one, sparse; <= 8 x "
                          "12, scale 10^U(-2, 2)): L-BFGS local maximum of ||Wx||_2 / ||x||_2 (3 restarts), "
                          "p = 2",
                          "the same matrices at x = their largest row, p = inf: the explicit maximizer "
                          "(ratio 1 exactly)",
                          "adversarial L-BFGS + Nelder-Mead over W and x jointly, (r, d) in {(1, 1), (1, 2), "
                          "(2, 2), (3, 2)}, p in {2, inf}"])
    check_identity(opt_lhs, opt_rhs, "local maximization reaches the closed form (q = 2)",
                   rtol=1e-6, atol=1e-12, seed=seed, check="operator-norm-q2-attained")
    return check_identity(comp, ref, "closed forms equal vertex enumeration (q = 1, inf)",
                          rtol=1e-10, atol=1e-300, seed=seed)


@claim_check("trauger-def-2-1", "spectral-le-frobenius")
def check_spectral_le_frobenius(*, lhs_norm: Callable[[np.ndarray], float] = spectral_norm,
                                rhs_norm: Callable[[np.ndarray], float] = frobenius_norm,
                                seed: int = 2) -> CheckRecord:
    """``||W||_2 <= ||W||_F``; equality exactly at rank one (tightness 1).  The adversary maximizes
    ``lhs_norm(W) / rhs_norm(W)`` over ``W`` of shapes 1x1 to 3x4."""
    mats = _test_matrices(seed, pick(200, 2000))

    def ratio(size: tuple[int, int], z: np.ndarray) -> float:
        W = z.reshape(size)
        den = rhs_norm(W)
        return lhs_norm(W) / den if den > 0 else 0.0

    res = maximize_over_sizes(numpy_objective(ratio, difference="forward", rel_step=1e-7), lambda size,
                              g: g.standard_normal(size[0] * size[1]),
                              ((1, 1), (1, 2), (2, 2), (2, 3), (3, 4)), restarts=pick(3, 12),
                              steps=pick(30, 200), seed=seed)
    return check_bound([lhs_norm(W) for W in mats] + list(res.per_size.values()),
                       [rhs_norm(W) for W in mats] + [1.0] * len(res.per_size),
                       "spectral norm <= Frobenius norm (Gaussian, low-rank, rank-one, sparse; adversarial "
                       "ratio)", rtol=1e-12, seed=seed, search=res,
                       families=[f"{len(mats)} test matrices, shapes <= 8 x 12, scale 10^U(-2, 2): Gaussian, "
                                 "low-rank, sparse, and rank-one (equality ||W||_2 = ||W||_F, attained "
                                 "exactly)",
                                 "adversarial L-BFGS + Nelder-Mead over W, shapes 1x1, 1x2, 2x2, 2x3, 3x4"])


@claim_check("deora-sec-2", "induced-norm-formulas", parts=("induced-norm-random-search",))
def check_deora_induced_norms(*, formulas: dict[str, Callable[[np.ndarray], float]] | None = None,
                              seed: int = 3) -> CheckRecord:
    """Deora's induced norms ``||A||_{p,q} = max_{||v||_p = 1} ||Av||_q`` in row/column form.

    ``||A||_{2,inf}`` = largest row l2 norm, ``||A||_{1,2}`` = largest column l2 norm,
    ``||A||_{1,inf}`` = largest entry in absolute value.  The reference is the
    definition, computed by exact vertex enumeration (``p = 1``) or at the Hoelder
    maximizer ``v = A_i / ||A_i||`` (``p = 2``); random unit vectors must never exceed it.
    """
    f = formulas or {
        "2,inf": lambda A: float(np.max(np.linalg.norm(A, axis=1))),
        "1,2": lambda A: float(np.max(np.linalg.norm(A, axis=0))),
        "1,inf": lambda A: float(np.max(np.abs(A))),
    }
    rng = np.random.default_rng(seed)
    comp, ref, rand_lhs, rand_rhs = [], [], [], []
    for _ in range(pick(40, 400)):
        n, m = int(rng.integers(2, 7)), int(rng.integers(2, 7))
        if n == m:
            m += 1  # non-square, so rows and columns cannot be confused silently
        A = rng.standard_normal((n, m))
        E = np.eye(m)
        i = int(np.argmax(np.linalg.norm(A, axis=1)))
        v_star = A[i] / np.linalg.norm(A[i])
        defs = {
            "2,inf": float(np.max(np.abs(A @ v_star))),
            "1,2": max(float(np.linalg.norm(A @ E[j])) for j in range(m)),
            "1,inf": max(float(np.max(np.abs(A @ E[j]))) for j in range(m)),
        }
        for key in ("2,inf", "1,2", "1,inf"):
            comp.append(f[key](A))
            ref.append(defs[key])
        V = rng.standard_normal((200, m))
        rand_lhs.append(float(np.max(np.abs(V @ A.T).max(1) / np.linalg.norm(V, axis=1))))
        rand_rhs.append(f["2,inf"](A))
        U1 = V / np.abs(V).sum(1, keepdims=True)
        rand_lhs.append(float(np.max(np.linalg.norm(U1 @ A.T, axis=1))))
        rand_rhs.append(f["1,2"](A))
        # the maximizers of the definition (Hoelder's v = A_i / ||A_i||, the vertex e_j of the
        # largest column): the formulas are attained there, ratio 1
        rand_lhs += [defs["2,inf"], defs["1,2"]]
        rand_rhs += [f["2,inf"](A), f["1,2"](A)]
    # adversary: ||A v||_q / (||v||_p formula(A)) over A and v jointly, the formula under test
    # in the denominator, for the smallest shapes (n rows, m columns) of both norms
    norms = {"2,inf": (2.0, np.inf), "1,2": (1.0, 2.0)}

    def ratio(size: tuple[str, int, int], z: np.ndarray) -> float:
        key, n, m = size
        A, v = z[:n * m].reshape(n, m), z[n * m:]
        p, q = norms[key]
        den = float(np.linalg.norm(v, p)) * f[key](A)
        return float(np.linalg.norm(A @ v, q)) / den if den > 0 else 0.0

    res = maximize_over_sizes(numpy_objective(ratio, difference="forward", rel_step=1e-7), lambda size,
                              g: g.standard_normal(size[1] * size[2] + size[2]),
                              [(key, n, m) for key in norms for n, m in ((1, 1), (1, 2), (2, 3))],
                              restarts=pick(3, 12), steps=pick(30, 200), seed=seed)
    rand_lhs += list(res.per_size.values())
    rand_rhs += [1.0] * len(res.per_size)
    check_bound(rand_lhs, rand_rhs, "random and adversarial unit vectors never exceed the formulas",
                seed=seed,
                check="induced-norm-random-search", search=res,
                families=[f"{pick(40, 400)} Gaussian A, n x m with n, m in 2..6 and n != m: 200 random l2 "
                          "unit vectors ((2, inf)) and 200 random l1 unit vectors ((1, 2)) each",
                          "the same A at the maximizers v = A_i / ||A_i|| (largest row) and v = e_j (largest "
                          "column): equality, attained exactly",
                          "adversarial L-BFGS + Nelder-Mead over A and v jointly, (n, m) in {(1, 1), (1, 2), "
                          "(2, 3)}, both norms"])
    return check_identity(comp, ref, "row/column formulas equal the induced-norm definition",
                          rtol=1e-12, atol=1e-300, seed=seed)


@claim_check("deora-sec-2", "review-norm-slip")
def check_review_norm_slip(*, printed: Callable[[np.ndarray], float] | None = None,
                           seed: int = 4) -> CheckRecord:
    """Review copy [R]: ``||A||_{1,2} = max_j ||A_{i,j}||`` read as rows fails; columns pass."""
    printed = printed or (lambda A: float(np.max(np.linalg.norm(A, axis=1))))
    rng = np.random.default_rng(seed)
    mats = [rng.standard_normal((3, 5)) for _ in range(pick(20, 200))]
    truth = [operator_norm(A, 1, 2) for A in mats]
    return confirm_erratum(
        identity_outcome([printed(A) for A in mats], truth, rtol=1e-12, instances=mats),
        identity_outcome([float(np.max(np.linalg.norm(A, axis=0))) for A in mats], truth, rtol=1e-12,
                         instances=mats),
        description="the (1,2) induced norm is the largest column norm, not the largest row norm",
        printed_text="[R] Sec. 2: ||A||_{1,2} = max_j ||A_{i,j}|| (row index i; a row reading)",
        corrected_text="[T] Sec. 2: ||A||_{1,2} = max_j ||A_{:,j}|| (columns)",
        printed_tex=r"\|A\|_{1,2}=\max_j\|A_{i,j}\|\quad\text{(row index } i\text{)}",
        corrected_tex=r"\|A\|_{1,2}=\max_j\|A_{:,j}\|\quad\text{(columns)}",
        source="Deora et al., review copy (seed 003), Sec. 2 Notation; fixed in the TMLR version",
        kind="typo", where="statement", version="review-copy", seed=seed)


@claim_check("deora-sec-2", "head-max-norm")
def check_head_max_norm(*, norm: Callable[[np.ndarray, int], float] = head_max_norm,
                        seed: int = 5) -> CheckRecord:
    """``||theta~||_{2,inf} = max_h ||theta_h||`` against a loop over heads."""
    rng = np.random.default_rng(seed)
    comp, ref = [], []
    for _ in range(pick(50, 500)):
        H, T, d = (int(rng.integers(1, 6)) for _ in range(3))
        heads = [rng.standard_normal(d * T + d * d) * rng.uniform(0.1, 3) for _ in range(H)]
        comp.append(norm(np.concatenate(heads), H))
        ref.append(max(float(np.sqrt(np.sum(h * h))) for h in heads))
    return check_identity(comp, ref, "flat-vector helper equals the per-head maximum",
                          rtol=1e-13, atol=1e-300, seed=seed,
                          implementation="the package's flat-vector head_max_norm against a loop over the "
                          "heads: a test of the book's code for the norm that Sec. 2 defines")

