"""Deora et al., App. G: the multi-head model of Eq. (2) trained by full-batch GD with
hand-derived gradients, every head of every head count on one batch axis.

The engine ``"heads-batched"`` of :mod:`attention_theory.deora.head_sweeps`.  Unlike the reduced
engine it trains the ``H``-head model itself (each head its own ``U_h``, ``W_h``); unlike the
autograd ``"heads"`` engine one GD step of all head counts is a handful of batched tensor
operations per trial (the trials, independent, are taken one after another so that the tensors
of one step stay small; everything is float64 and in place where possible).

Model (one trial, sample ``X_i`` ``(T, d)``, label ``y_i``)::

    G_hi = X_i W_h X_i^T,  S_hi = softmax_rows(G_hi),  Z_hi = U_h X_i^T,
    o_hi = <U_h, S_hi X_i> = sum_t r_hit,  r_hit = sum_j S_hi[t, j] Z_hi[t, j],
    Phi_i = H^{-1/2} sum_h o_hi,   L = (1/n) sum_i log(1 + exp(-y_i Phi_i)).

With ``c_i = dL/dPhi_i = -y_i sigmoid(-y_i Phi_i) / n`` and ``c'_i = c_i / sqrt(H)``::

    dL/dU_h = sum_i c'_i S_hi X_i,
    dL/dW_h = sum_i X_i^T D_hi X_i,   D_hi = c'_i S_hi * (Z_hi - r_hi 1^T)   (softmax backward).

Layout: ``Us`` ``(B, K, T, d)``, ``Ws`` ``(B, K, d, d)`` with ``B`` trials and ``K`` heads per
trial, the heads of all groups (one group per head count) one after another; data
``(B, n, T, d)``.  Alongside each ``H``-head group the engine can train a companion: the exact
single-head reduction of ``deora-sec-g-symmetry`` (``V = sqrt(H) U``, GD steps ``(eta, eta / H)``),
so that the parameters of the two can be compared at every logged step.
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np
import torch

from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import as_array, check_bool, check_int, check_positive, refuses_overflow

__all__ = ["train_heads_batched"]


class _Groups:
    """Head groups on the head axis: sizes, output scales, per-head step sizes."""

    def __init__(self, sizes: list[int], scales: list[float], lr_U: list[float], lr_W: list[float]):
        self.sizes = sizes
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        K, G = int(self.starts[-1]), len(sizes)
        member = torch.zeros(G, K, dtype=VERIFICATION_DTYPE)
        lrU, lrW = torch.zeros(K, dtype=VERIFICATION_DTYPE), torch.zeros(K, dtype=VERIFICATION_DTYPE)
        for g, (a, b) in enumerate(zip(self.starts[:-1], self.starts[1:])):
            member[g, a:b] = scales[g]
            lrU[a:b], lrW[a:b] = lr_U[g], lr_W[g]
        self.member = member                          # (G, K): 1/sqrt(H) on the group's heads
        self.lr_U = lrU.view(1, K, 1, 1)
        self.lr_W = lrW.view(1, K, 1, 1)

    def slice(self, g: int) -> slice:
        return slice(int(self.starts[g]), int(self.starts[g + 1]))


class _Data:
    """One stack of data sets ``X`` ``(B, n, T, d)``, ``y`` ``(B, n)`` in the layouts of the
    batched products: ``XX[b, (t, i, j), (a, c)] = X[b, i, t, a] X[b, i, j, c]`` (so that the
    scores of every head are one product ``W XX^T``) and ``Xf[b, (i, j), a] = X[b, i, j, a]``."""

    def __init__(self, X: torch.Tensor, y: torch.Tensor):
        B, n, T, d = X.shape
        self.shape = (B, n, T, d)
        self.y = y
        self.Xf = X.reshape(B, n * T, d)
        xt = X.permute(0, 2, 1, 3)                                  # (B, t, i, a)
        self.XX = (xt[:, :, :, None, :, None] * X[:, None, :, :, None, :]).reshape(B, T * n * T, d * d)
        self.XXt = self.XX.transpose(1, 2).contiguous()
        self.xmax2 = float((X * X).sum(-1).max())


def _forward(data: _Data, Us: torch.Tensor, Ws: torch.Tensor,
             member: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``(outputs (B, G, n), S)``; ``S`` ``(B, K, T, n, T)`` indexed ``[b, h, t, i, j]`` (attention
    of query ``t`` of sample ``i`` on token ``j``).  For the logged steps (a softmax with the
    row maximum subtracted)."""
    B, n, T, d = data.shape
    K = Us.shape[1]
    G = (Ws.reshape(B, K, d * d) @ data.XX.transpose(1, 2)).view(B, K, T, n, T)
    S = torch.softmax(G, dim=-1)
    Z = (Us.reshape(B, K * T, d) @ data.Xf.transpose(1, 2)).view(B, K, T, n, T)
    out = torch.matmul(member, (S * Z).sum(dim=(-1, 2)))          # (B, G, n)
    return out, S


def _grads(data: _Data, Us: torch.Tensor, Ws: torch.Tensor,
           member: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(dL/dUs, dL/dWs, outputs (B, G, n), losses (B, G))``, ``L`` the mean logistic loss of each
    group.  One trial at a time (the trials are independent; the tensors of one trial stay small),
    in place; the softmax subtracts the row maximum only when the scores could overflow
    (``|x_t^T W x_j| <= ||W||_F max ||x||^2``)."""
    B, n, T, d = data.shape
    K = Us.shape[1]
    gU, gW = torch.empty_like(Us), torch.empty_like(Ws)
    outs, losses = [], []
    shift = bool(Ws.flatten(2).norm(dim=2).max() * data.xmax2 > 300.0)
    for b in range(B):
        XXt, XX, Xf, y = data.XXt[b], data.XX[b], data.Xf[b], data.y[b]
        E = (Ws[b].reshape(K, d * d) @ XXt).view(K, T, n, T)     # scores, then exp(scores)
        if shift:
            E.sub_(E.amax(-1, keepdim=True))
        E.exp_()
        inv = E.sum(-1, keepdim=True).reciprocal_()               # S = E * inv, (K, T, n, 1)
        EZ = (Us[b].reshape(K * T, d) @ Xf.T).view(K, T, n, T)    # Z[h, t, i, j] = <u_t, x_ij>
        EZ.mul_(E)
        r = EZ.sum(-1, keepdim=True).mul_(inv)                    # r = sum_j S Z
        out = member @ r.sum(dim=(1, 3))                          # (G, n)
        margin = y * out
        losses.append(torch.nn.functional.softplus(-margin).mean(-1))
        outs.append(out)
        a = (member.T @ (-y * torch.sigmoid(-margin) / n)).view(K, 1, n, 1) * inv   # c_i / sqrt(H) / sum E
        E.mul_(a)                                                 # c S
        gU[b] = (E.reshape(K * T, n * T) @ Xf).view(K, T, d)
        EZ.mul_(a).addcmul_(E, r, value=-1.0)                     # D = c S Z - c S r (softmax backward)
        gW[b] = (EZ.reshape(K, T * n * T) @ XX).view(K, d, d)
    return gU, gW, torch.stack(outs), torch.stack(losses)


def _grads_batched(X: torch.Tensor, y: torch.Tensor, Us: torch.Tensor, Ws: torch.Tensor,
                  sizes: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Hand-derived ``(dL/dUs, dL/dWs, losses (B, G))`` of the groups ``sizes`` (``H`` heads each,
    output scale ``1/sqrt(H)``) on the head axis of ``Us`` ``(B, K, T, d)``, ``Ws`` ``(B, K, d, d)``;
    data ``X`` ``(B, n, T, d)``, ``y`` ``(B, n)`` (tensors, float64).  For tests and checks."""
    sizes = [int(h) for h in sizes]
    grp = _Groups(sizes, [1 / math.sqrt(h) for h in sizes], [1.0] * len(sizes), [1.0] * len(sizes))
    gU, gW, _, losses = _grads(_Data(X, y), Us, Ws, grp.member)
    return gU, gW, losses


def _sequence(value: Any, name: str) -> list[Any]:
    """A non-empty list from a 1-d sequence argument (``TypeError``/``ValueError`` naming it)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence, got {type(value).__name__}")
    items = list(value)
    if any(isinstance(v, (str, bytes)) or hasattr(v, "__len__") for v in items):
        raise TypeError(f"{name} must be a 1-d sequence of numbers")
    if not items:
        raise ValueError(f"{name} must not be empty")
    return items


def _steps_arg(record_at: Any, steps: int) -> list[int]:
    """The logged steps: integers in ``[0, steps]`` (whole finite numbers), at least one."""
    items = _sequence(record_at, "record_at")
    out = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"record_at must contain integers, got {type(v).__name__}")
        if not math.isfinite(float(v)) or float(v) != round(float(v)):
            raise ValueError(f"record_at must contain whole finite numbers, got {v!r}")
        if not 0 <= int(v) <= steps:
            raise ValueError(f"record_at must contain steps in [0, {steps}], got {int(v)}")
        out.append(int(v))
    return sorted(set(out))


@refuses_overflow
def train_heads_batched(Xtr: Any, ytr: Any, Xte: Any, yte: Any, *, Hs: Sequence[int], etas: Sequence[float],
                        steps: int, record_at: Any, relevant: Any = None, companions: bool = True,
                        progress: bool = False) -> dict[int, dict[str, Any]]:
    """Full-batch GD of the ``H``-head model from zero for every ``H`` in ``Hs`` (step ``etas[i]``).

    ``Xtr`` ``(B, n, T, d)``, ``ytr`` ``(B, n)`` (``B`` trials), test data likewise, ``relevant``
    ``(B, n, T)`` (optional) the relevant-token mask of the attention score.  Returns ``{H: logs}``
    with the quantities of :func:`attention_theory.deora.head_sweeps.train_heads` (arrays
    ``(len(record_at), B)``; no teacher alignments, and the attention score only with
    ``relevant``) plus ``head_spread_pairs`` (the largest entry-wise difference between
    any two heads) and, with ``companions``, ``reduced_param_gap`` (the largest entry-wise
    difference between any head and the companion reduction ``(V / sqrt(H), W)``) and
    ``reduced_train_loss``.  The returned ``Us``/``Ws`` are the final parameters ``(B, H, ...)``.
    """
    Xtr, Xte = as_array(Xtr, "Xtr", ndim=4), as_array(Xte, "Xte", ndim=4)
    B, n, T, d = Xtr.shape
    ytr, yte = as_array(ytr, "ytr", ndim=2), as_array(yte, "yte", ndim=2)
    if ytr.shape != (B, n) or Xte.shape[0] != B or Xte.shape[2:] != (T, d) or yte.shape != Xte.shape[:2]:
        raise ValueError(f"inconsistent shapes: Xtr {Xtr.shape}, ytr {ytr.shape}, Xte {Xte.shape}, yte "
                         f"{yte.shape}")
    Hs = [check_int(H, f"Hs[{i}]") for i, H in enumerate(_sequence(Hs, "Hs"))]
    etas = [check_positive(e, f"etas[{i}]") for i, e in enumerate(_sequence(etas, "etas"))]
    if len(etas) != len(Hs):
        raise ValueError(f"etas must hold one step size per head count: {len(Hs)} Hs, {len(etas)} etas")
    steps = check_int(steps, "steps", minimum=0)
    rec = set(_steps_arg(record_at, steps))
    companions, progress = check_bool(companions, "companions"), check_bool(progress, "progress")
    mask = None
    if relevant is not None:
        rel = as_array(relevant, "relevant", ndim=3)
        if rel.shape != (B, n, T):
            raise ValueError(f"relevant must have shape {(B, n, T)}, got {rel.shape}")
        mask = torch.as_tensor(np.asarray(relevant, dtype=bool)).to(VERIFICATION_DTYPE)
    sizes, scales, lrU, lrW = [], [], [], []
    for H, eta in zip(Hs, etas):
        sizes.append(H), scales.append(1 / math.sqrt(H)), lrU.append(eta), lrW.append(eta)
    if companions:   # the reduction: one head V, output scale 1, steps (eta, eta / H)
        for H, eta in zip(Hs, etas):
            sizes.append(1), scales.append(1.0), lrU.append(eta), lrW.append(eta / H)
    grp = _Groups(sizes, scales, lrU, lrW)
    K = int(grp.starts[-1])
    X, y = torch.as_tensor(Xtr, dtype=VERIFICATION_DTYPE), torch.as_tensor(ytr, dtype=VERIFICATION_DTYPE)
    Xe, ye = torch.as_tensor(Xte, dtype=VERIFICATION_DTYPE), torch.as_tensor(yte, dtype=VERIFICATION_DTYPE)
    train, test = _Data(X, y), _Data(Xe, ye)
    Us = torch.zeros(B, K, T, d, dtype=VERIFICATION_DTYPE)
    Ws = torch.zeros(B, K, d, d, dtype=VERIFICATION_DTYPE)
    nG = len(Hs)
    keys = ("step", "train_loss", "test_loss", "train_acc", "test_acc", "avg_W_norm", "avg_U_norm",
            "margin_min", "margin_mean", "head_spread", "head_spread_pairs", "attn_score")
    keys += ("reduced_param_gap", "reduced_train_loss") if companions else ()
    logs: list[dict[str, list]] = [{k: [] for k in keys} for _ in Hs]
    it = range(steps + 1)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc="heads-batched", leave=False)
    t0, c0 = time.perf_counter(), time.process_time()
    with torch.no_grad():
        for k in it:
            gU, gW, out, losses = _grads(train, Us, Ws, grp.member)
            if k in rec:
                out_te = _forward(test, Us, Ws, grp.member)[0]
                S = _forward(train, Us, Ws, grp.member)[1]
                for g, H in enumerate(Hs):
                    sl = grp.slice(g)
                    U, W = Us[:, sl], Ws[:, sl]
                    lg = logs[g]
                    lg["step"].append(k)
                    lg["train_loss"].append(losses[:, g].numpy().copy())
                    lg["test_loss"].append(torch.nn.functional.softplus(-ye * out_te[:, g]).mean(1).numpy())
                    lg["train_acc"].append((y * out[:, g] > 0).double().mean(1).numpy())
                    lg["test_acc"].append((ye * out_te[:, g] > 0).double().mean(1).numpy())
                    lg["avg_W_norm"].append(W.flatten(2).norm(dim=2).mean(1).numpy())
                    lg["avg_U_norm"].append((U.flatten(2).norm(dim=2).sum(1) / math.sqrt(H)).numpy())
                    margins = y * out[:, g] / U.flatten(1).norm(dim=1).clamp_min(1e-300).unsqueeze(1)
                    lg["margin_min"].append(margins.min(1).values.numpy())
                    lg["margin_mean"].append(margins.mean(1).numpy())
                    lg["head_spread"].append(((U - U[:, :1]).flatten(2).norm(dim=2)
                                              + (W - W[:, :1]).flatten(2).norm(dim=2)).max(1).values.numpy())
                    pairs = torch.maximum((U.amax(1) - U.amin(1)).flatten(1).amax(1),
                                          (W.amax(1) - W.amin(1)).flatten(1).amax(1))
                    lg["head_spread_pairs"].append(pairs.numpy())
                    if mask is not None:
                        attn = (S[:, sl] * mask[:, None, None, :, :]).sum(-1)
                        lg["attn_score"].append(attn.mean(dim=(1, 2, 3)).numpy())
                    if companions:
                        c = grp.slice(nG + g)
                        gap = torch.maximum((U - Us[:, c] / math.sqrt(H)).abs().flatten(1).amax(1),
                                            (W - Ws[:, c]).abs().flatten(1).amax(1))
                        lg["reduced_param_gap"].append(gap.numpy())
                        lg["reduced_train_loss"].append(losses[:, nG + g].numpy().copy())
            if k == steps:
                break
            Us = Us - grp.lr_U * gU
            Ws = Ws - grp.lr_W * gW
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    result = {}
    if mask is None:
        for lg in logs:
            del lg["attn_score"]
    for g, (H, eta) in enumerate(zip(Hs, etas)):
        r: dict[str, Any] = {k: np.asarray(v) for k, v in logs[g].items()}
        sl = grp.slice(g)
        r.update(H=H, optimizer="gd", lr_U=eta, lr_W=eta, engine="heads-batched", wall_time_s=wall,
                 cpu_time_s=cpu, Us=Us[:, sl].clone(), Ws=Ws[:, sl].clone())
        result[H] = r
    return result
