"""Empirical Rademacher complexity as a computable object.

A finite class is represented by its *value matrix* ``F`` of shape ``(N, n)``:
row ``j`` holds ``(f_j(x_1), ..., f_j(x_n))`` on the sample.  Then

    Rad_n(F, S) = (1/n) E_sigma max_j sum_i sigma_i F[j, i]

(the factor ``1/n`` is always included).
"""

from __future__ import annotations

import itertools

import numpy as np

from attention_theory.foundations.norms import dual_exponent, vector_norm
from attention_theory.validation import (
    as_matrix,
    as_vector,
    check_int,
    check_order,
    check_positive,
    check_seed,
    refuses_overflow,
)

__all__ = [
    "MAX_EXACT_N",
    "rademacher_exact",
    "rademacher_mc",
    "linear_class_rademacher_mc",
    "generalization_gap",
]

#: Largest sample size for exact enumeration of the 2^n sign vectors.
MAX_EXACT_N = 20


def _all_signs(n: int) -> np.ndarray:
    return np.array(list(itertools.product((-1.0, 1.0), repeat=n)))


def rademacher_exact(F: np.ndarray) -> float:
    """Exact ``Rad_n`` of the finite class with value matrix ``F`` (N, n) by enumerating 2^n signs."""
    F = as_matrix(F, "F")
    n = F.shape[1]
    if n > MAX_EXACT_N:
        raise ValueError(f"F has n={n} sample points; exact enumeration allows n <= {MAX_EXACT_N}")
    total = 0.0
    # Chunk over the first signs to bound memory at 2^16 rows.
    head = max(0, n - 16)
    tail_signs = _all_signs(n - head) if n - head > 0 else np.zeros((1, 0))
    for prefix in itertools.product((-1.0, 1.0), repeat=head):
        base = F[:, :head] @ np.asarray(prefix) if head else np.zeros(F.shape[0])
        vals = tail_signs @ F[:, head:].T + base[None, :]
        total += float(np.sum(np.max(vals, axis=1)))
    return total / (2**n) / n


@refuses_overflow
def rademacher_mc(F: np.ndarray, n_draws: int, *, seed: int = 0) -> tuple[float, float]:
    """Monte-Carlo ``Rad_n`` of a finite class: (estimate, standard error), ``n_draws`` sign vectors."""
    F = as_matrix(F, "F")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    n = F.shape[1]
    rng = np.random.default_rng(check_seed(seed))
    sig = rng.choice((-1.0, 1.0), size=(n_draws, n))
    sups = np.max(sig @ F.T, axis=1) / n
    return float(sups.mean()), float(sups.std(ddof=1) / np.sqrt(n_draws))


@refuses_overflow
def linear_class_rademacher_mc(X: np.ndarray, B: float, p: float, n_draws: int, *,
                               seed: int = 0) -> tuple[float, float]:
    """``Rad_n`` of ``{x -> w.x : ||w||_p <= B}`` on rows of ``X`` (n, d), by Monte Carlo.

    For each sign draw the supremum is in closed form by duality:
    ``sup_w sum_i sigma_i w.x_i = B ||sum_i sigma_i x_i||_{p*}``.
    Returns (estimate, standard error).
    """
    X = as_matrix(X, "X")
    B = check_positive(B, "B")
    p = check_order(p, "p")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    rng = np.random.default_rng(check_seed(seed))
    sig = rng.choice((-1.0, 1.0), size=(n_draws, X.shape[0]))
    sups = B * vector_norm(sig @ X, dual_exponent(p), axis=1) / X.shape[0]
    return float(sups.mean()), float(sups.std(ddof=1) / np.sqrt(n_draws))


def generalization_gap(true_risk: float, sample_losses: np.ndarray) -> float:
    """``|E_D l - (1/n) sum_i l_i|`` (Trauger & Tewari, Sec. 2.2)."""
    losses = as_vector(sample_losses, "sample_losses")
    if isinstance(true_risk, bool) or not isinstance(true_risk, (int, float, np.integer, np.floating)):
        raise TypeError(f"true_risk must be a real number, got {true_risk!r}")
    if not np.isfinite(true_risk):
        raise ValueError(f"true_risk must be finite, got {true_risk}")
    return float(abs(true_risk - losses.mean()))
