"""Deora et al., App. G, Eq. (DM2): data labelled by a planted single-head attention teacher.

A teacher ``(W_star, U_star)`` is drawn once per trial; inputs ``X`` have i.i.d. standard
normal entries and the label is the sign of the teacher's output,
``y = sign Phi(X; W_star, U_star) = sign <U_star, softmax(X W_star X^T) X>``.  Draws whose
output is within the margin ``gamma_dm2`` of zero are discarded, so the teacher separates
the kept samples with margin ``gamma_dm2`` (0.2 in the paper, which reuses the symbol
gamma_attn for it; this book writes gamma_DM2 to keep the two apart).

The paper does not say how the teacher is drawn.  The book's documented choice: i.i.d.
standard normal entries, rescaled to ``||U_star||_F = 1`` (so gamma_DM2 is a normalized
margin) and ``||W_star||_F = 3`` (a moderately peaked teacher attention).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from attention_theory.deora.model import multi_head_sum
from attention_theory.validation import (
    as_array,
    as_matrix,
    check_int,
    check_positive,
    check_seed,
    refuses_overflow,
)

__all__ = ["Teacher", "planted_teacher", "teacher_output", "sample_dm2"]


@dataclasses.dataclass(frozen=True)
class Teacher:
    """The planted pair: ``W`` of shape ``(d, d)`` and ``U`` of shape ``(T, d)`` (float64 numpy)."""

    W: np.ndarray
    U: np.ndarray

    def __post_init__(self) -> None:
        W = as_matrix(self.W, "W")
        U = as_matrix(self.U, "U")
        if W.shape[0] != W.shape[1]:
            raise ValueError(f"W must be square (d, d), got shape {W.shape}")
        if U.shape[1] != W.shape[0]:
            raise ValueError(f"U must have shape (T, d) with d = {W.shape[0]} (the size of W), got {U.shape}")
        object.__setattr__(self, "W", W)
        object.__setattr__(self, "U", U)

    @property
    def T(self) -> int:
        return int(self.U.shape[0])

    @property
    def d(self) -> int:
        return int(self.U.shape[1])


def planted_teacher(T: int, d: int, *, W_norm: float = 3.0, U_norm: float = 1.0,
                    seed: int = 0) -> Teacher:
    """Draw the teacher: Gaussian entries rescaled to ``||W||_F = W_norm``, ``||U||_F = U_norm``."""
    T, d = check_int(T, "T"), check_int(d, "d")
    W_norm, U_norm = check_positive(W_norm, "W_norm"), check_positive(U_norm, "U_norm")
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, d))
    U = rng.standard_normal((T, d))
    return Teacher(W=W * (W_norm / np.linalg.norm(W)), U=U * (U_norm / np.linalg.norm(U)))


def _check_teacher(teacher: object) -> Teacher:
    if not isinstance(teacher, Teacher):
        raise TypeError(f"teacher must be a Teacher (planted_teacher(T, d)), got {type(teacher).__name__}")
    return teacher


@refuses_overflow
def teacher_output(Xs: np.ndarray | torch.Tensor, teacher: Teacher) -> np.ndarray:
    """``Phi(X_i; W_star, U_star)`` for a batch ``Xs`` of shape ``(n, T, d)``; returns ``(n,)``."""
    _check_teacher(teacher)
    X = torch.as_tensor(as_array(Xs, "Xs"))
    if X.ndim != 3 or tuple(X.shape[1:]) != (teacher.T, teacher.d):
        raise ValueError(f"Xs must have shape (n, {teacher.T}, {teacher.d}), got {tuple(X.shape)}")
    W = torch.as_tensor(teacher.W)
    U = torch.as_tensor(teacher.U)
    return multi_head_sum(X, W.unsqueeze(0), U.unsqueeze(0)).numpy()   # one head: Eq. (1)


@refuses_overflow
def sample_dm2(n: int, teacher: Teacher, *, gamma_dm2: float = 0.2, seed: int = 0,
               max_rounds: int = 1000) -> tuple[np.ndarray, np.ndarray, float]:
    """``n`` samples of DM2 kept by the margin filter.

    Returns ``(Xs, ys, acceptance_rate)`` with ``Xs`` of shape ``(n, T, d)``, labels ``ys`` in
    ``{-1, +1}`` of shape ``(n,)``, and the fraction of Gaussian draws that passed
    ``|Phi| > gamma_dm2``.  Raises ``RuntimeError`` if ``max_rounds`` batches of draws do not
    yield ``n`` samples (a margin the teacher almost never reaches).
    """
    n = check_int(n, "n")
    _check_teacher(teacher)
    gamma_dm2 = check_positive(gamma_dm2, "gamma_dm2", allow_zero=True)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    kept_X, kept_y, drawn, kept = [], [], 0, 0
    for _ in range(check_int(max_rounds, "max_rounds")):
        X = rng.standard_normal((max(2 * (n - kept), 16), teacher.T, teacher.d))
        out = teacher_output(X, teacher)
        mask = np.abs(out) > gamma_dm2
        drawn += X.shape[0]
        kept_X.append(X[mask])
        kept_y.append(np.sign(out[mask]))
        kept += int(mask.sum())
        if kept >= n:
            Xs, ys = np.concatenate(kept_X)[:n], np.concatenate(kept_y)[:n]
            # the acceptance rate counts draws up to the last one kept
            last_batch_needed = n - (kept - int(mask.sum()))
            used = drawn - X.shape[0] + int(np.flatnonzero(mask)[last_batch_needed - 1]) + 1
            return Xs, ys, n / used
    raise RuntimeError(f"the margin filter |Phi| > {gamma_dm2} kept only {kept} of {drawn} draws; "
                       f"lower gamma_dm2 or increase max_rounds")
