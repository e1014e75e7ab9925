"""Neural-tangent features of Deora et al.'s multi-head model at the first-phase initialization.

Section 5.1 of the paper: from ``theta~(0) = 0`` one gradient step with per-head step
``alpha_h sqrt(H)`` on ``n_1`` samples gives ``W_h(1) = 0`` and ``U_h(1) = alpha_h 1_T v^T`` (every
row the same vector ``v``).  At such a point

* ``grad_{U_h} Phi~ = H^{-1/2} phi(0) X = H^{-1/2} (1/T) 1_T 1_T^T X``,
* ``grad_{W_h} Phi~ = H^{-1/2} alpha_h G(X)``,  ``G(X) = (sum_t x_t) (X^T R_0 X v)^T``,
  ``R_0 = phi'(0) = I/T - 1 1^T / T^2``.

Functions (torch float64 unless stated):

* :func:`first_step` -- the actual gradient step by autograd on
  :func:`attention_theory.deora.model.empirical_risk`;
* :func:`first_step_closed_form` -- Lemma 16's exact form;
* :func:`ntk_features` -- the Jacobian of ``Phi~`` in ``theta~`` at any point (autograd), ``(n, H p)``;
* :func:`reduced_features` -- the single-head features ``(phi(0) X, G(X))`` (closed form), ``(n, T d + d^2)``;
* :func:`target_directions` / :func:`theta_star` -- ``W_star``, ``U_star`` and the multi-head target;
* :func:`ntk_margins` -- ``y_i <grad Phi~(X_i; theta), theta_star>``.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from attention_theory.deora import model as md
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import check_bool, check_int, check_positive, refuses_overflow

__all__ = ["R0", "first_step", "first_step_closed_form", "ntk_features", "reduced_features",
           "target_directions", "theta_star", "ntk_margins", "w_part", "u_part"]


def _alphas(alphas: Any, H: int) -> torch.Tensor:
    a = md.as_tensor(alphas, "alphas", shape=(H,))
    return a


def R0(T: int) -> torch.Tensor:
    """``phi'(0) = I_T / T - 1 1^T / T^2``, shape ``(T, T)``."""
    T = check_int(T, "T")
    return torch.eye(T, dtype=VERIFICATION_DTYPE) / T - torch.ones(T, T, dtype=VERIFICATION_DTYPE) / T**2


def first_step(Xs: Any, ys: Any, H: int, alphas: Any) -> torch.Tensor:
    """``theta~(1) = theta~(0) - alpha_h sqrt(H) grad_{theta_h} L_n1(theta~(0))`` from ``theta~(0) = 0``.

    ``Xs``: ``(n1, T, d)``, ``ys``: ``(n1,)``, ``alphas``: ``(H,)``.  Returns the flat ``theta~(1)``
    (layout of :func:`attention_theory.deora.model.pack_heads`).  The gradient is autograd's.
    """
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    H = check_int(H, "H")
    a = _alphas(alphas, H)
    n, T, d = Xs.shape
    p = md.head_size(T, d)
    theta0 = torch.zeros(H * p, dtype=VERIFICATION_DTYPE)
    g = torch.func.grad(md.empirical_risk)(theta0, Xs, ys, H).reshape(H, p)
    return (theta0.reshape(H, p) - (a * math.sqrt(H))[:, None] * g).reshape(-1)


def first_step_closed_form(Xs: Any, ys: Any, H: int, alphas: Any) -> torch.Tensor:
    """Lemma 16: ``W_h(1) = 0`` and every row of ``U_h(1)`` is
    ``alpha_h/(2 n1 T) sum_i y_i sum_t x_{i,t}``."""
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    n, T, d = Xs.shape
    ys = md.as_tensor(ys, "ys", shape=(n,))
    H = check_int(H, "H")
    a = _alphas(alphas, H)
    row = torch.einsum("i,itd->d", ys, Xs) / (2 * n * T)
    Us = a[:, None, None] * row[None, None, :].expand(H, T, d)
    return md.pack_heads(Us, torch.zeros(H, d, d, dtype=VERIFICATION_DTYPE))


@refuses_overflow
def ntk_features(theta: Any, Xs: Any, H: int) -> torch.Tensor:
    """``grad_theta~ Phi~(X_i; theta~)`` for every sample, by autograd: shape ``(n, H (T d + d^2))``."""
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    H = check_int(H, "H")
    n, T, d = Xs.shape
    theta = md.as_tensor(theta, "theta", shape=(H * md.head_size(T, d),))

    def out(th: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        return md.multi_head_output_flat(th, X.unsqueeze(0), H)[0]

    return torch.vmap(torch.func.grad(out), in_dims=(None, 0))(theta, Xs)


@refuses_overflow
def reduced_features(Xs: Any, v: Any) -> torch.Tensor:
    """Single-head NTK features at ``U = 1_T v^T, W = 0``: ``concat(vec(phi(0) X), vec G(X))``,
    ``(n, T d + d^2)``.

    For ``H`` heads with ``U_h = alpha_h 1 v^T`` the max-margin over ``||theta~|| <= r`` equals the
    max-margin of these features over ``||theta|| <= r`` (Cauchy-Schwarz over heads).
    """
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    n, T, d = Xs.shape
    v = md.as_tensor(v, "v", shape=(d,))
    A = Xs.sum(1, keepdim=True).expand(n, T, d) / T                       # phi(0) X
    sx = Xs.sum(1)                                                          # (n, d)
    q = torch.einsum("ntd,ts,nse,e->nd", Xs, R0(T), Xs, v)                  # X^T R0 X v
    G = sx[:, :, None] * q[:, None, :]
    return torch.cat([A.reshape(n, T * d), G.reshape(n, d * d)], dim=1)


@refuses_overflow
def target_directions(S: float, M: int, T: int, d: int) -> dict[str, torch.Tensor]:
    """``W_star = mu_+ mu_+^T + mu_- mu_-^T + sum_l nu_l (mu_+ + mu_-)^T`` and ``U_star = 1_T u_star^T``.

    Canonical patterns (see :mod:`attention_theory.deora.dm1`).  Also returns the normalized
    ``Wbar``, ``Ubar`` and the factors ``W_K`` = ``[mu_+ mu_- nu_1..nu_M]``,
    ``W_Q`` = ``[mu_+ mu_- (mu_+ + mu_-) ...]`` as printed (``W_star = W_K W_Q^T``).
    """
    S = check_positive(S, "S")
    M, T, d = check_int(M, "M"), check_int(T, "T"), check_int(d, "d")
    if d < M + 2:
        raise ValueError(f"d must be >= M + 2 = {M + 2}, got {d}")
    E = torch.eye(d, dtype=VERIFICATION_DTYPE) * float(S)
    mp, mm, nu = E[0], E[1], E[2:2 + M]
    W = torch.outer(mp, mp) + torch.outer(mm, mm) + sum(torch.outer(nu[l], mp + mm) for l in range(M))
    U = torch.ones(T, 1, dtype=VERIFICATION_DTYPE) * (mp - mm)[None, :]
    WK = torch.stack([mp, mm, *nu], dim=1)
    WQ = torch.stack([mp, mm, *([mp + mm] * M)], dim=1)
    return {"W": W, "U": U, "Wbar": W / torch.linalg.norm(W), "Ubar": U / torch.linalg.norm(U),
            "W_K": WK, "W_Q": WQ, "u_star": mp - mm}


@refuses_overflow
def theta_star(alphas: Any, S: float, M: int, T: int, d: int, *, use_sign: bool = True) -> torch.Tensor:
    """``theta~_star = H^{-1/2} concat_h (Ubar_star, sign(alpha_h) Wbar_star)``, norm ``sqrt(2)``."""
    a = md.as_tensor(alphas, "alphas", ndim=1)
    use_sign = check_bool(use_sign, "use_sign")
    H = a.shape[0]
    tg = target_directions(S, M, T, d)
    sg = torch.sign(a) if use_sign else torch.ones_like(a)
    Us = tg["Ubar"][None].expand(H, T, d)
    Ws = sg[:, None, None] * tg["Wbar"][None]
    return md.pack_heads(Us, Ws) / math.sqrt(H)


@refuses_overflow
def ntk_margins(theta: Any, Xs: Any, ys: Any, H: int, target: Any) -> torch.Tensor:
    """``y_i <grad Phi~(X_i; theta), target>`` for every sample (autograd features), shape ``(n,)``."""
    F = ntk_features(theta, Xs, H)
    ys = md.as_tensor(ys, "ys", shape=(F.shape[0],))
    tgt = md.as_tensor(target, "target", shape=(F.shape[1],))
    return ys * (F @ tgt)


def u_part(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Eq. (106): ``y <phi(0) X, Ubar_star> = y u_star^T sum_t x_t / (S sqrt(2T))`` for ``X`` ``(n, T, d)``
    (canonical patterns, so ``u_star / S = e_1 - e_2``)."""
    X = md.as_tensor(X, "X", ndim=3)
    if X.shape[2] < 2:
        raise ValueError(f"X must have d >= 2 features (u_star = S (e_1 - e_2)), got shape {tuple(X.shape)}")
    y = md.as_tensor(y, "y", shape=(X.shape[0],))
    T = X.shape[-2]
    sx = X.sum(-2)
    return y * (sx[..., 0] - sx[..., 1]) / math.sqrt(2 * T)      # u_star = S (e_1 - e_2)


@refuses_overflow
def w_part(X: torch.Tensor, y: torch.Tensor, v: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``y <(sum_t x_t)(X^T R_0 X v)^T, W> = y (sum_t x_t)^T W X^T R_0 X v`` for ``X`` ``(n, T, d)``.

    With ``W = Wbar_star`` and ``v`` the common row of ``U(1)/alpha`` this is the ``W``-part of the
    NTK margin (Eq. (107)); differentiable in ``X``.
    """
    X = md.as_tensor(X, "X", ndim=3)
    n, T, d = X.shape
    y = md.as_tensor(y, "y", shape=(n,))
    v = md.as_tensor(v, "v", shape=(d,))
    W = md.as_tensor(W, "W", shape=(d, d))
    T = X.shape[-2]
    q = torch.einsum("ntd,ts,nse,e->nd", X, R0(T), X, v)
    return y * torch.einsum("nd,de,ne->n", X.sum(-2), W, q)
