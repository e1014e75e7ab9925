"""l_p mirror descent on attention: l_p-AttGD (plain and normalized) and joint (W, v) training.

The update of Julistiono, Tarzanagh & Azizan is

    grad_psi(W(k+1)) = grad_psi(W(k)) - eta * G(k),      psi = ||.||_p^p / p,

with ``G(k) = grad L(W(k))`` (the algorithm of the theory) or, in the *normalized* variant that
the authors' synthetic experiments use, ``G(k) = grad L(W(k)) / ||grad L(W(k))||_q``
(``q = p / (p - 1)``).  ``p = 2`` is gradient descent.

All loops run on numpy arrays with optional leading batch axes (``W0 (..., d, d)`` with data
``X (..., n, T, d)``), so many seeds advance together.  Gradients are the numerically stable
ones of :func:`attention_theory.julistiono.model.gradient_W` unless ``stable=False``; a batch
member whose gradient underflows to exactly zero simply stops moving (``stopped`` records the
step), which is how a saturated run ends cleanly.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from attention_theory.foundations.mirror import (
    conjugate_exponent,
    entrywise_lp,
    grad_psi,
    grad_psi_inv,
)
from attention_theory.julistiono import model as mj
from attention_theory.validation import as_array, check_int, check_order, check_positive, refuses_overflow

__all__ = ["MDTrajectory", "normalize_dual", "lp_attgd", "JointTrajectory", "joint_lp_md", "torch_md_step_"]


def normalize_dual(G: Any, q: float, *, batch_dims: int = 0) -> np.ndarray:
    """``G / ||G||_q`` computed as ``(G / max|G|) / ||G / max|G|||_q`` (no underflow); zeros stay zero."""
    G = as_array(G, "G")
    q = check_order(q, "q", minimum=1.0, allow_inf=False)
    batch_dims = check_int(batch_dims, "batch_dims", minimum=0)
    if batch_dims >= G.ndim:
        raise ValueError(f"batch_dims={batch_dims} leaves no axis of G (shape {G.shape}) to normalize")
    ax = tuple(range(batch_dims, G.ndim))
    m = np.max(np.abs(G), axis=ax, keepdims=True)
    safe = np.where(m > 0, m, 1.0)
    Gn = G / safe
    nq = np.sum(np.abs(Gn) ** q, axis=ax, keepdims=True) ** (1.0 / q)
    return np.where(m > 0, Gn / np.where(nq > 0, nq, 1.0), 0.0)


def _normalize_fast(G: np.ndarray, q: float) -> np.ndarray:
    m = np.max(np.abs(G), axis=(-2, -1), keepdims=True)
    safe = np.where(m > 0, m, 1.0)
    Gn = G / safe
    nq = np.sum(np.abs(Gn) ** q, axis=(-2, -1), keepdims=True) ** (1.0 / q)
    return np.where(m > 0, Gn / np.where(nq > 0, nq, 1.0), 0.0)


@dataclasses.dataclass
class MDTrajectory:
    """A run of :func:`lp_attgd`.

    ``steps[j]`` is the iteration index of record ``j``; ``iterates[j]`` ``(..., d, d)``,
    ``losses[j]``, ``norms[j]`` (``||W||_p``) and ``max_prob[j]`` (mean over samples of the
    largest attention weight) are taken there.  ``stopped`` ``(...)`` is the step at which the
    gradient underflowed to zero (``-1`` if never).
    """

    p: float
    eta: float
    normalized: bool
    stable: bool
    steps: np.ndarray
    iterates: np.ndarray
    losses: np.ndarray
    norms: np.ndarray
    max_prob: np.ndarray
    stopped: np.ndarray

    @property
    def final(self) -> np.ndarray:
        return self.iterates[-1]


def _record_steps(steps: int, record_every: int) -> np.ndarray:
    rec = np.arange(0, steps + 1, record_every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    return rec


def _check_batch(batch: tuple[int, ...], **others: tuple[int, ...]) -> None:
    """Every argument's leading batch axes must broadcast to ``W0``'s (the iterates keep W0's shape)."""
    for name, shape in others.items():
        try:
            ok = np.broadcast_shapes(shape, batch) == tuple(batch)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{name} has batch axes {shape} that do not broadcast to the batch axes "
                             f"{tuple(batch)} of W0")


@refuses_overflow
def lp_attgd(W0: Any, X: Any, z: Any, Y: Any, v: Any, *, p: float, eta: float, steps: int,
             normalized: bool = False, loss: str = "logistic", stable: bool = True,
             record_every: int = 1, progress: bool = False) -> MDTrajectory:
    """Run ``steps`` iterations of l_p-AttGD on ``W`` with the decoder ``v`` fixed.

    Parameters
    ----------
    W0:
        Initial key-query matrix ``(..., d, d)``; leading axes are independent runs.
    X, z, Y, v:
        Data ``(..., n, T, d)``, ``(..., n, d)``, ``(..., n)`` and decoder ``(..., d)``
        (broadcast against ``W0``'s batch axes).
    p:
        Potential exponent ``p > 1``.
    eta:
        Step size.
    normalized:
        Divide each gradient by its dual norm ``||.||_q`` (the experiments' variant).
    stable:
        Use the top-token-centred gradient (``False``: autograd's formula, for demonstrations).
    record_every:
        Keep iterate, loss, norm and attention every this many steps (and at the end).
    """
    W = as_array(W0, "W0").copy()
    X, z, Y = mj.validate_data(X, z, as_array(Y, "Y"))
    if W.ndim < 2 or W.shape[-1] != W.shape[-2] or W.shape[-1] != X.shape[-1]:
        raise ValueError(f"W0 must have shape (..., d, d) with d = {X.shape[-1]}, got {W.shape}")
    for name, flag in (("normalized", normalized), ("stable", stable), ("progress", progress)):
        mj._check_flag(flag, name)
    v_shape = mj._check_v(v, X.shape[-1]).shape
    _check_batch(W.shape[:-2], X=X.shape[:-3], z=z.shape[:-2], Y=Y.shape[:-1], v=v_shape[:-1])
    q = conjugate_exponent(p)
    eta = check_positive(eta, "eta")
    steps = check_int(steps, "steps", minimum=0)
    record_every = check_int(record_every, "record_every")
    rec = _record_steps(steps, record_every)
    rec_set = set(int(r) for r in rec)
    its: list[np.ndarray] = []
    stopped = np.full(W.shape[:-2], -1, dtype=np.int64)

    def record(Wk: np.ndarray) -> None:
        its.append(Wk.copy())

    it = range(steps)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=f"l_{p:g}-AttGD", leave=False)
    U = grad_psi(W, p)
    gradf = mj.make_gradient(X, z, Y, v, loss=loss, stable=stable)
    for k in it:
        if k in rec_set:
            record(W)
        G, _ = gradf(W)
        zero = ~np.any(G != 0, axis=(-2, -1))
        stopped = np.where(zero & (stopped < 0), k, stopped)
        if normalized:
            G = _normalize_fast(G, q)
        U = U - eta * G
        W = np.sign(U) * np.abs(U) ** (1.0 / (p - 1.0))
    record(W)
    Ws = np.stack(its)                                   # (records, ..., d, d): evaluated in one batch
    losses = np.asarray(mj.objective(Ws, X, z, Y, v, loss=loss))
    norms = np.asarray(entrywise_lp(Ws, p, batch_dims=Ws.ndim - 2))
    maxp = np.mean(np.max(mj.attention(X, z, Ws), axis=-1), axis=-1)
    return MDTrajectory(p=float(p), eta=eta, normalized=bool(normalized), stable=bool(stable),
                        steps=rec, iterates=Ws, losses=losses, norms=norms, max_prob=maxp, stopped=stopped)


def _joint_grads(W: np.ndarray, v: np.ndarray, X: np.ndarray, z: np.ndarray, Y: np.ndarray,
                 loss: str) -> tuple[np.ndarray, np.ndarray]:
    """``(grad_W L, grad_v L)`` without validation (inner loop of :func:`joint_lp_md`; stable form)."""
    n = X.shape[0]
    h = X @ W @ z.T                                   # (n, T, n): take the diagonal blocks
    h = h[np.arange(n), :, np.arange(n)]              # (n, T)
    gamma = Y[:, None] * (X @ v)
    c, s, u = mj._sjt(h, gamma, True)
    lp = mj.loss_derivative_fast(u, loss)
    GW = np.einsum("ntd,nt,ne->de", X, lp[:, None] * c, z) / n
    Gv = np.einsum("ntd,nt->d", X, (lp * Y)[:, None] * s) / n
    return GW, Gv


@dataclasses.dataclass
class JointTrajectory:
    """A run of :func:`joint_lp_md`: iterates of ``W`` ``(K, d, d)`` and ``v`` ``(K, d)`` at ``steps``."""

    p: float
    eta: float
    steps: np.ndarray
    W: np.ndarray
    v: np.ndarray
    losses: np.ndarray
    stopped: int


def joint_lp_md(W0: Any, v0: Any, X: Any, z: Any, Y: Any, *, p: float, eta: float, steps: int,
                normalized: bool = True, loss: str = "logistic", record_every: int = 1) -> JointTrajectory:
    """l_p-JointGD: the same (optionally normalized) MD step on ``W`` and on ``v`` (no batch axes).

    Each block is normalized by its own dual norm.  Stops when both gradients are exactly zero.
    """
    W = as_array(W0, "W0").copy()
    v = as_array(v0, "v0").copy()
    X, z, Y = mj.validate_data(X, z, as_array(Y, "Y"))
    if X.ndim != 3:
        raise ValueError(f"X must have shape (n, T, d) (no batch axes), got {X.shape}")
    if z.shape != (X.shape[0], X.shape[2]):
        raise ValueError(f"z must have shape {(X.shape[0], X.shape[2])}, got {z.shape}")
    if Y.shape != (X.shape[0],):
        raise ValueError(f"Y must have shape ({X.shape[0]},), got {Y.shape}")
    mj._check_flag(normalized, "normalized")
    d = X.shape[-1]
    if W.shape != (d, d):
        raise ValueError(f"W0 must have shape ({d}, {d}), got {W.shape}")
    if v.shape != (d,):
        raise ValueError(f"v0 must have shape ({d},), got {v.shape}")
    q = conjugate_exponent(p)
    eta = check_positive(eta, "eta")
    steps = check_int(steps, "steps", minimum=0)
    record_every = check_int(record_every, "record_every")
    rec = set(int(r) for r in _record_steps(steps, record_every))
    Ws, vs, ls, ks = [], [], [], []
    UW, Uv = grad_psi(W, p), grad_psi(v, p)
    stopped = -1
    for k in range(steps + 1):
        if k in rec:
            Ws.append(W.copy()), vs.append(v.copy()), ks.append(k)
            ls.append(mj.objective(W, X, z, Y, v, loss=loss))
        if k == steps:
            break
        GW, Gv = _joint_grads(W, v, X, z, Y, loss)
        if not np.any(GW) and not np.any(Gv):
            stopped = k
            if k not in rec:
                Ws.append(W.copy()), vs.append(v.copy()), ks.append(k)
                ls.append(mj.objective(W, X, z, Y, v, loss=loss))
            break
        if normalized:
            GW, Gv = normalize_dual(GW, q), normalize_dual(Gv, q)
        UW, Uv = UW - eta * GW, Uv - eta * Gv
        W, v = grad_psi_inv(UW, p), grad_psi_inv(Uv, p)
    return JointTrajectory(p=float(p), eta=eta, steps=np.asarray(ks), W=np.stack(Ws), v=np.stack(vs),
                           losses=np.asarray(ls), stopped=stopped)


def torch_md_step_(params, p: float, lr: float) -> None:
    """In-place l_p mirror-descent step on torch parameters with populated ``.grad``:
    ``w <- (grad psi)^-1(grad psi(w) - lr * grad)`` entrywise (``p = 2``: SGD).  Used by the
    real-data stand-ins, where the authors apply MD to every parameter of a Transformer."""
    import torch

    if params is None or isinstance(params, (str, bytes, torch.Tensor)) or not hasattr(params, "__iter__"):
        raise TypeError(f"params must be an iterable of torch tensors, got {type(params).__name__}")
    params = list(params)
    for i, w in enumerate(params):
        if not isinstance(w, torch.Tensor):
            raise TypeError(f"params[{i}] must be a torch tensor, got {type(w).__name__}")
    conjugate_exponent(p)
    check_positive(lr, "lr")
    with torch.no_grad():
        for w in params:
            if w.grad is None:
                continue
            U = torch.sign(w) * w.abs() ** (p - 1) - lr * w.grad
            w.copy_(torch.sign(U) * U.abs() ** (1.0 / (p - 1)))
