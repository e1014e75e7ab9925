"""The hand-written training step of the structured sparse-majority trainer (Trauger & Tewari, Sec. 6).

:mod:`~.structured_forward` computes the authors' model for every run at once with autograd; the
trainer (:class:`~.structured.StructuredTrainer`, ``method="softmax"``) instead takes every step
with the forward and backward pass of this module (:func:`hand_forward`, :func:`hand_backward`).

Training does not use autograd.  A zero at position ``t`` gets the attention weight
``k0_t = exp(s0_t - m)``, a one ``k1_t = exp(s0_t + delta - m)`` (``s0_t``: the score of a
zero, ``m = max_t s0_t + max(delta, 0)``, so every weight is at most 1), so with the 0/1 data
``X`` (``[CLS]`` column of ones) the attended input of every sample and head is ``z = N / D``
with ``[N, D] = v0 + X V``: ``V_t = k1_t [x1_t, 1] - k0_t [x0_t, 1]`` (``x0_t``/``x1_t``: the
input at ``t`` for a zero / a one), ``v0 = sum_t k0_t [x0_t, 1]``.  That is one
``(n x T)(T x H (d + 1))`` product per run and no per-sample exponential, attention matrix or
softmax pass; for ``|delta| > 8`` (where the products would lose precision) a group of runs
takes the direct softmax.  Then ``attn = [z_1 .. z_H] [A_1^T; ..; A_H^T] + bo + sum_h Wo_h bv_h``.
The hand-written backward pass goes back through the same products (one ``X^T R`` product per
run gives the gradients of ``V`` and ``v0``) and writes ``mu v - lr grad`` into the momentum
``v`` within the products (no gradient buffer, no separate pass); the parameters live
name-major (one contiguous ``(W, *shape)`` block per parameter, ``Wo`` as ``Wo_h^T``,
:func:`name_major`) so that no product copies them, and the work on tensors of one sample per
row is done per length group while it is in the cache.  The ``Dense`` layer is linear after
its ``ReLU`` and followed by 2 read-outs, so its products are taken through the ``(2 x d)``
matrix ``Wr Wd`` (rank-2 products instead of three ``(n x d)(d x 64)`` ones).  An evaluation
uses the products ``P [PE A_1^T; ..; PE A_H^T]`` instead (:func:`hand_eval_forward`, no ``z``
needed).  It agrees with autograd through :func:`~.structured_forward.structured_logits` and
with the textbook model to float64 round-off (``tests/trauger/test_structured_trainer.py``,
``tests/trauger/test_structured_speed.py``).  Used by :mod:`~.structured` (the trainer of
``book/trauger/sparse-majority.md``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import torch
import torch.nn.functional as F

from attention_theory.trauger.sparse_majority.authors_model import ModelShape, unflatten_unchecked
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig
from attention_theory.trauger.sparse_majority.structured_forward import (
    Layout,
    check_authors_config,
    check_inputs,
    make_layout,
    ones_indicator,
    per_run_loss,
)

__all__ = ["hand_consts", "hand_forward", "hand_backward", "hand_eval_consts", "hand_eval_forward",
           "logit_grad", "name_major", "flat_of"]


@dataclasses.dataclass
class _StepLayout:
    """The per-layout constants of the hand-written step (:func:`_step_layout`), so that a step
    forms no index tensor, mask or slice of them.

    The input at position ``t`` of a sequence of zeros is ``x0_t = PE_t + e0`` (``[CLS]``:
    ``PE_T + ecls``), of a one ``x1_t = PE_t + e1``.  Products with the positions are taken with the
    shared ``PE`` for all runs at once (one large product instead of one tiny product per run),
    the three embeddings per run added after: ``PEe`` ``(Lmax, d + 1)`` is ``[PE_t, 1]``, ``PEeT``
    its transpose, ``PET`` ``PE^T``; ``data1``/``cls1`` ``(W, 1, Lmax)`` the indicators of the
    data positions and of ``[CLS]``; ``Tix`` ``(W, 1, 1)`` the position of ``[CLS]``; ``E3``
    ``(W, 3, d)`` the rows ``e0, ecls, e1 - e0`` and ``E3T`` its transpose; ``e0`` and ``dc``
    ``(W, 1, d)``: ``e0`` and ``ecls - e0``; ``pad`` ``(W, 1, Lmax)``: 0, ``-inf`` past ``[CLS]``.
    ``Kx`` ``(W, Lmax + 1, d)``: the rows ``x0_t``
    (zero past ``[CLS]``) and ``e1 - e0``, for the direct softmax.  ``d1`` ``(W, 1, d + 1)``:
    ``[e1 - e0, 0] = [x1_t, 1] - [x0_t, 1]``.  Per group ``j``: ``bounds[j] = (r0, r1, T)`` (its
    rows of the work set, its length) and ``x1g[j]`` / ``x0g[j]`` ``(R_j, T, 1, d + 1)``:
    ``[x1_t, 1]`` and ``[x0_t, 1]`` at the data positions (the axis of length 1 broadcasts over
    the heads)."""

    PEe: torch.Tensor
    PEeT: torch.Tensor
    PET: torch.Tensor
    data1: torch.Tensor
    cls1: torch.Tensor
    Tix: torch.Tensor
    E3: torch.Tensor
    E3T: torch.Tensor
    e0: torch.Tensor
    dc: torch.Tensor
    pad: torch.Tensor
    Kx: torch.Tensor
    d1: torch.Tensor
    bounds: list[tuple[int, int, int]]
    x1g: list[torch.Tensor]
    x0g: list[torch.Tensor]


def _step_layout(lay: Layout) -> _StepLayout:
    """:class:`_StepLayout` of ``lay`` (built once per layout and kept on it)."""
    if lay.step is not None:
        return lay.step
    E, PE = lay.E, lay.PE
    W, Lmax, dt = E.shape[0], PE.shape[0], PE.dtype
    t = torch.arange(Lmax)[None, :]
    Tr = lay.Tr[:, None]
    valid, data = (t <= Tr)[..., None].to(dt), (t < Tr)[..., None].to(dt)       # (W, Lmax, 1)
    sym0 = torch.where((t == Tr)[..., None], E[:, None, 2], E[:, None, 0])      # e0, ecls at [CLS]
    x0 = (PE[None] + sym0) * valid
    x1e = torch.cat([(PE[None] + E[:, None, 1]) * data, data], dim=-1)
    x0e = torch.cat([x0, valid], dim=-1)
    bounds, x1g, x0g, r0 = [], [], [], 0
    for T, Rj in zip(lay.lengths, lay.sizes):
        bounds.append((r0, r0 + Rj, T))
        x1g.append(x1e[r0:r0 + Rj, :T, None].contiguous())
        x0g.append(x0e[r0:r0 + Rj, :T, None].contiguous())
        r0 += Rj
    d1 = E[:, 1] - E[:, 0]
    E3 = torch.stack([E[:, 0], E[:, 2], d1], dim=1)
    PEe = torch.cat([PE, PE.new_ones(Lmax, 1)], dim=1)
    lay.step = _StepLayout(PEe=PEe, PEeT=PEe.T.contiguous(), PET=PE.T.contiguous(),
                           data1=lay.data1[:, None], cls1=lay.cls1[:, None], Tix=lay.Tr[:, None, None],
                           E3=E3, E3T=E3.transpose(1, 2).contiguous(), e0=E[:, None, 0],
                           dc=(E[:, 2] - E[:, 0])[:, None],
                           pad=torch.zeros(W, 1, Lmax, dtype=dt).masked_fill_((t > Tr)[:, None],
                                                                               float("-inf")),
                           Kx=torch.cat([x0, d1[:, None]], dim=1),
                           d1=torch.cat([d1, d1.new_zeros(W, 1)], dim=1)[:, None], bounds=bounds,
                           x1g=x1g, x0g=x0g)
    return lay.step


#: Largest ``|delta|`` for which :func:`_attention_weights` factorizes the exponential.
_FACTOR_MAX_DELTA = 40.0


def _weight_factors(base: torch.Tensor, delta: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The per-run factors of :func:`_attention_weights` for ``base`` ``(R, H, L)`` (``-inf`` at
    positions to leave out) and ``delta`` ``(R, H)``: ``u``, ``u c0``, ``u c1`` ``(R, H, L)``,
    ``a1`` ``(R, H)`` and ``big`` ``(R,)`` (a head with ``|delta| > 40``)."""
    u = torch.exp(base - base.amax(-1, keepdim=True))
    beta = torch.exp(-delta.abs())
    neg = delta < 0
    c0 = torch.where(neg, torch.ones_like(beta), beta)
    a1 = torch.where(neg, beta, torch.ones_like(beta))
    return u, u * c0[..., None], u * (a1 - c0)[..., None], a1, (delta.abs() > _FACTOR_MAX_DELTA).any(-1)


def _attention_weights(base: torch.Tensor, delta: torch.Tensor, X: torch.Tensor,
                       factors: tuple[torch.Tensor, ...] | None = None,
                       big: bool | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax over positions of the scores ``base[r, h, t] + X[r, i, t] delta[r, h]``:
    ``P`` ``(R, n, H, L)`` from ``base`` ``(R, H, L)``, ``delta`` ``(R, H)``, 0/1 ``X``
    ``(R, n, L)``; and ``w1`` ``(R, n, H)``, the mass on the positions with ``X = 1``.

    Without a per-sample exponential: with ``u = exp(base - max_t base)`` and
    ``beta = exp(-|delta|)``, ``exp(score - max_t base - max(delta, 0)) = u (c0 + c1 X)`` where
    ``(c0, c1) = (beta, 1 - beta)`` for ``delta >= 0`` and ``(1, beta - 1)`` otherwise: every term is
    non-negative, and so is the normalizer (at least ``beta``); the mass on the ones is
    ``a1 X u^T`` (``a1 = c0 + c1``) over it, one product ``(n x L)(L x H)``.  For
    ``|delta| > 40`` (a normalizer that small would lose precision in float32) it is the direct
    softmax.  ``factors``, ``big``: :func:`_weight_factors` of these runs, if already known."""
    if factors is None:
        factors = _weight_factors(base, delta)
    if big is None:
        big = bool(factors[4].any())
    if big:
        P = torch.softmax(torch.addcmul(base[:, None], X[:, :, None, :], delta[:, None, :, None]), dim=-1)
        return P, (P * X[:, :, None, :]).sum(-1)
    u, uc0, uc1, a1 = factors[:4]
    E = torch.addcmul(uc0[:, None], X[:, :, None, :], uc1[:, None])
    Z = E.sum(-1)
    ones = torch.bmm(X, u.transpose(1, 2)).mul_(a1[:, None])               # (R, n, H)
    return E.div_(Z[..., None]), ones.div_(Z)


def _group_weights(k: "_Consts", r0: int, r1: int, L: int,
                   X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`_attention_weights` of runs ``r0:r1`` (one length, ``L`` positions) from :func:`hand_consts`
    (the evaluation; its factors are formed on first use and kept on ``k``)."""
    if k.factors is None:
        f = _weight_factors(k.base, k.delta)
        k.factors, k.big = f[:4], f[4].tolist()
    f = tuple(t[r0:r1, :, :L] for t in k.factors[:3]) + (k.factors[3][r0:r1],)
    return _attention_weights(k.base[r0:r1, :, :L], k.delta[r0:r1], X, f, any(k.big[r0:r1]))


#: Largest ``|delta|`` for which the training step forms the attention by products with the 0/1
#: data (:func:`hand_forward`); a group of runs with a larger one takes the direct softmax.  Those
#: products add the weights of the preferred symbol and subtract those of the other one, so a
#: normalizer may lose up to ``~2 eps exp(|delta|)`` of its value (``4e-4`` in float32 at 8, where
#: the per-weight form it replaces loses ``eps exp(|delta|)``); the trained models of the authors'
#: protocol have ``|delta| < 2``.
_PRODUCT_MAX_DELTA = 8.0


class _Consts:
    """The per-run, per-step terms of the hand-written step (:func:`hand_consts`).

    ``base`` ``(W, H, Lmax)``: the scores of a sequence of zeros (``-inf`` past ``[CLS]``; the key
    bias's term ``bk . q``, the same at every position, is left out: the softmax does not see it);
    ``delta`` ``(W, H)``; ``k0``/``k1`` ``(W, H, Lmax)``: the unnormalized attention weights of a
    zero / a one at each position, ``exp(score - max)`` with the maximum over positions and
    symbols (both at most 1); ``direct`` per group of the layout: its runs take the direct softmax
    (a ``|delta|`` above the products' range); ``AT`` ``(W, H d, d)`` (``A_h^T = Wv_h^T Wo_h^T``
    stacked); ``c`` ``(W, d)`` (``bo + sum_h Wo_h bv_h``); ``qs`` ``(W, H, dk)`` the query of
    ``[CLS]`` times ``1 / sqrt(dk)``; ``WoT`` ``(W, H, dv, d)`` (``Wo_h^T``, the trainer's storage).
    ``factors`` and ``big``: those of :func:`_attention_weights`, formed on first use by the
    evaluation (:func:`_group_weights`)."""

    def __init__(self, base: torch.Tensor, delta: torch.Tensor, k0: torch.Tensor, k1: torch.Tensor,
                 direct: list[bool], AT: torch.Tensor, c: torch.Tensor, qs: torch.Tensor,
                 WoT: torch.Tensor) -> None:
        self.base, self.delta, self.k0, self.k1, self.direct = base, delta, k0, k1, direct
        self.AT, self.c, self.qs, self.WoT = AT, c, qs, WoT
        self.factors: tuple[torch.Tensor, ...] | None = None
        self.big: list[bool] = []


def _wo_t(p: dict[str, torch.Tensor]) -> torch.Tensor:
    """``Wo_h^T`` of every run and head, ``(W, H, dv, d)``: the trainer keeps ``Wo`` so (key
    ``"WoT"``, :func:`name_major`); from the flat layout ``(W, d, H, dv)`` it is a copy."""
    if "WoT" in p:
        return p["WoT"]
    return p["Wo"].permute(0, 2, 3, 1).contiguous()


def hand_consts(p: dict[str, torch.Tensor], lay: Layout, shape: ModelShape) -> _Consts:
    """The terms of the attention that do not depend on the samples, for all runs at once
    (:class:`_Consts`).  ``p``: name -> ``(W, *shape)``, ``Wo`` as ``"Wo"`` (flat layout) or ``"WoT"``."""
    W = p["Wq"].shape[0]
    d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
    sl = _step_layout(lay)
    scale = 1.0 / math.sqrt(dk)
    # the query of [CLS] as a vector times a matrix, (1 x d)(d x H dk) per run: the matrix-vector
    # orientation of the same product takes several times longer; 1/sqrt(dk) rides on the product
    qs = torch.baddbmm(p["bq"].reshape(W, 1, H * dk), lay.xc[:, None, :],
                       p["Wq"].reshape(W, H * dk, d).transpose(1, 2), beta=scale, alpha=scale).view(W, H, dk)
    rv = torch.bmm(qs.view(W * H, 1, dk), p["Wk"].reshape(W * H, dk, d)).view(W, H, d)
    # every position's score of a sequence of zeros: r_h . PE_t for all runs and heads in one
    # product, plus r_h . e0 at the data positions and r_h . ecls at [CLS]; delta = r_h . (e1 - e0)
    Lmax = lay.PE.shape[0]
    re = torch.bmm(rv, sl.E3T)                                              # (W, H, 3)
    base = torch.mm(rv.view(W * H, d), sl.PET).view(W, H, Lmax)
    base.addcmul_(re[..., 0:1], sl.data1).addcmul_(re[..., 1:2], sl.cls1).add_(sl.pad)
    delta = re[..., 2]
    u = torch.sub(base, base.amax(-1, keepdim=True)).exp_()
    # a zero at t weighs u_t exp(-max(delta, 0)), a one u_t exp(min(delta, 0)): the larger of the
    # two is u_t, every weight is at most 1 and the largest is 1
    k0 = u * torch.exp(delta.clamp(min=0).neg_())[..., None]
    k1 = u.mul_(torch.exp(delta.clamp(max=0))[..., None])
    limit = min(_FACTOR_MAX_DELTA, _PRODUCT_MAX_DELTA)
    direct = [False] * len(sl.bounds)
    if float(delta.abs().max()) > limit:
        wide = (delta.abs() > limit).any(-1).tolist()
        direct = [any(wide[r0:r1]) for r0, r1, _ in sl.bounds]
    WoT = _wo_t(p)
    WoP = WoT.reshape(W * H, dv, d)
    AT = torch.bmm(p["Wv"].reshape(W * H, dv, d).transpose(1, 2), WoP).view(W, H * d, d)
    c = torch.baddbmm(p["bo"].reshape(W, 1, d), p["bv"].reshape(W, 1, H * dv), WoP.view(W, H * dv, d))[:, 0]
    return _Consts(base=base, delta=delta, k0=k0, k1=k1, direct=direct, AT=AT, c=c, qs=qs, WoT=WoT)


def hand_forward(p: dict[str, torch.Tensor], lay: Layout, shape: ModelShape, k: _Consts,
                 Xs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, dict[str, Any]]:
    """Logits ``(W, n, n_classes)`` from :func:`hand_consts` and the 0/1 data of every group
    ``Xs[j]`` ``(R_j, n, L_j)``, whose ``[CLS]`` column holds **ones** (:func:`hand_backward` reads
    the sums over samples from it).  Returns the logits and what :func:`hand_backward` needs.

    The attended input of sample ``i`` and head ``h`` is ``z = N / D`` with
    ``[N, D] = sum_t w_t [x_t, 1]``, ``w_t = k0_t`` for a zero and ``k1_t`` for a one at ``t``
    (``[CLS]``: ``k0``).  Since the data are 0/1 this is one product per run with the data:
    ``[N, D] = v0 + X V`` with the rows ``V_t = k1_t [x1_t, 1] - k0_t [x0_t, 1]`` (both heads side by
    side: ``(n x T)(T x H (d + 1))``) and ``v0 = sum_t k0_t [x0_t, 1]``, the same for every sample.
    No per-sample exponential, attention matrix or softmax pass is formed.  A group with a large
    ``|delta|`` (``k.direct``) takes the direct softmax instead (``D = 1``).  ``attn = Z A^T + c``
    with the attended inputs ``Z`` ``(W, n, H d)`` follows per group, while that group's
    ``[N, D]`` is still in the cache (a pass over a tensor of all runs costs about a millisecond
    when the data come from memory).  The ``Dense`` layer is not formed: it is linear after its
    ``ReLU`` and only ``n_classes`` read-outs follow, so the logits are
    ``relu(attn) (Wr Wd)^T + Wr bd + br``."""
    sl = _step_layout(lay)
    W, H, d = k.k0.shape[0], shape.heads, shape.d
    C, n, dt = d + 1, Xs[0].shape[1], k.k0.dtype
    # v0 = sum_t k0_t [x0_t, 1] = sum_t k0_t [PE_t, 1] + [(sum_t k0_t) e0 + k0_T (ecls - e0), 0]
    v0 = torch.mm(k.k0.view(W * H, -1), sl.PEe).view(W, H, C)
    v0[..., :d].addcmul_(v0[..., d:], sl.e0).addcmul_(k.k0.gather(-1, sl.Tix.expand(W, H, 1)), sl.dc)
    Z = torch.empty(W, n, H * d, dtype=dt)
    rho = torch.empty(W, n, H, dtype=dt)                                    # 1 / D
    attn = torch.empty(W, n, d, dtype=dt)
    Ps: list[tuple[torch.Tensor, torch.Tensor] | None] = []
    for j, X in enumerate(Xs):
        r0, r1, T = sl.bounds[j]
        Rj = r1 - r0
        Zj = Z[r0:r1].view(Rj, n, H, d)
        if k.direct[j]:
            Ps.append(_direct_forward(k, sl, r0, r1, T, X, Zj))
            rho[r0:r1] = 1
        else:
            V = torch.empty(Rj, T, H, C, dtype=dt)
            torch.mul(k.k1[r0:r1, :, :T, None].transpose(1, 2), sl.x1g[j], out=V)
            V.addcmul_(k.k0[r0:r1, :, :T, None].transpose(1, 2), sl.x0g[j], value=-1)
            Y = torch.baddbmm(v0[r0:r1].view(Rj, 1, H * C), X[:, :, :T],
                              V.view(Rj, T, H * C)).view(Rj, n, H, C)
            torch.reciprocal(Y[..., d], out=rho[r0:r1])
            torch.mul(Y[..., :d], rho[r0:r1, ..., None], out=Zj)
            Ps.append(None)
        torch.baddbmm(k.c[r0:r1, None], Z[r0:r1], k.AT[r0:r1], out=attn[r0:r1])
    if shape.dense_units is None:
        z = torch.baddbmm(p["br"][:, None], attn, p["Wr"].transpose(1, 2))
        return z, dict(Ps=Ps, Xs=Xs, Z=Z, rho=rho, h1=attn)
    # the Dense layer is linear after its ReLU and only n_classes (2) read-outs follow: the logits
    # are relu(attn) (Wr Wd)^T + Wr bd + br, a (d x 2) weight instead of an (n x d)(d x m) product
    # (the same for every gradient of the block, hand_backward)
    WrWd = torch.bmm(p["Wr"], p["Wd"])                                      # (W, n_classes, d)
    brd = torch.baddbmm(p["br"][:, None], p["bd"][:, None], p["Wr"].transpose(1, 2))
    a1 = torch.relu_(attn)
    z = torch.baddbmm(brd, a1, WrWd.transpose(1, 2))
    return z, dict(Ps=Ps, Xs=Xs, Z=Z, rho=rho, h1=a1, WrWd=WrWd)


def _direct_forward(k: _Consts, sl: _StepLayout, r0: int, r1: int, T: int, X: torch.Tensor,
                    Z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The direct softmax of runs ``r0:r1`` (length ``T``, data ``X`` with ones at ``[CLS]``):
    the attended inputs into ``Z`` ``(R_j, n, H, d)``; returns the attention ``P``
    ``(R_j, n, H, T + 1)`` and the data with a 0 at ``[CLS]``, for the backward pass."""
    Rj, n, L = X.shape
    H, d = k.k0.shape[1], Z.shape[3]
    Lmax = sl.pad.shape[2]
    X = X.clone()
    X[..., T] = 0
    P = torch.softmax(torch.addcmul(k.base[r0:r1, None, :, :L], X[:, :, None, :],
                                    k.delta[r0:r1, None, :, None]), dim=-1)
    # z = sum_t p_t x0_t + (mass on the ones) (e1 - e0)
    torch.bmm(P.view(Rj, n * H, L), sl.Kx[r0:r1, :L], out=Z.view(Rj, n * H, d))
    Z.addcmul_((P * X[:, :, None, :]).sum(-1)[..., None], sl.Kx[r0:r1, None, None, Lmax])
    return P, X


def hand_eval_consts(lay: Layout, shape: ModelShape, k: _Consts) -> tuple[list[torch.Tensor], torch.Tensor]:
    """For evaluation (many samples per run): per group ``PE A_h^T`` ``(R_j, H L_j, d)``, and
    ``Ed A_h^T`` ``(W, 3 H, d)`` (rows ``A_h (e1 - e0)``, ``A_h (ecls - e0)``, ``A_h e0``)."""
    W, H, d = k.AT.shape[0], shape.heads, shape.d
    AT = k.AT.view(W, H, d, d)
    peat, r0 = [], 0
    for T, Rj in zip(lay.lengths, lay.sizes):
        peat.append(torch.matmul(lay.PE[:T + 1], AT[r0:r0 + Rj]).view(Rj, H * (T + 1), d))
        r0 += Rj
    return peat, torch.matmul(lay.Ed[:, None], AT).view(W, 3 * H, d)


def hand_eval_forward(p: dict[str, torch.Tensor], lay: Layout, shape: ModelShape, k: _Consts,
                      ek: tuple[list[torch.Tensor], torch.Tensor],
                      Xs: Sequence[torch.Tensor]) -> torch.Tensor:
    """The logits of :func:`hand_forward` without what only the backward pass needs: the
    attention output is ``[P_1 .. P_H] [PE A_1^T; ..; PE A_H^T] + [w1, wc, 1] Ed A^T + c``
    (one ``(n x H L)(H L x d)`` product per group, :func:`hand_eval_consts`)."""
    peat, EdAT = ek
    W, H = k.base.shape[0], shape.heads
    n = Xs[0].shape[1]
    wts = torch.empty(W, n, H, 3, dtype=k.base.dtype)
    wts[..., 2] = 1
    Ps, r0 = [], 0
    for j, X in enumerate(Xs):
        Rj, L = X.shape[0], lay.lengths[j] + 1
        r1 = r0 + Rj
        P, wts[r0:r1, :, :, 0] = _group_weights(k, r0, r1, L, X)
        wts[r0:r1, :, :, 1] = P[..., L - 1]
        Ps.append(P)
        r0 = r1
    attn = torch.baddbmm(k.c[:, None], wts.view(W, n, 3 * H), EdAT)
    r0 = 0
    for j, P in enumerate(Ps):
        Rj, L = P.shape[0], lay.lengths[j] + 1
        attn[r0:r0 + Rj].baddbmm_(P.view(Rj, n, H * L), peat[j])
        r0 += Rj
    h = attn
    if shape.dense_units is not None:
        h = torch.baddbmm(p["bd"][:, None], torch.relu_(attn), p["Wd"].transpose(1, 2))
    return torch.baddbmm(p["br"][:, None], h, p["Wr"].transpose(1, 2))


def logit_grad(z: torch.Tensor, y: torch.Tensor, loss: str, *,
               with_loss: bool = False) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Gradient of the summed per-run mean losses (:func:`per_run_loss`) with respect to ``z``;
    ``with_loss``: ``(per-run losses, gradient)``, the one-hot target formed once for both."""
    target = F.one_hot(y, z.shape[-1]).to(z.dtype)
    if loss == "bce-two-logits":
        grad = (torch.sigmoid(z) - target) / (z.shape[1] * z.shape[2])
        if with_loss:     # the same operations as per_run_loss
            return F.binary_cross_entropy_with_logits(z, target, reduction="none").mean(dim=(-1, -2)), grad
        return grad
    grad = (torch.softmax(z, dim=-1) - target) / z.shape[1]
    return (per_run_loss(z, y, loss), grad) if with_loss else grad


def _momentum_add(v: torch.Tensor, grad: torch.Tensor, beta: float, alpha: float) -> None:
    """``v <- beta v + alpha grad`` for a small tensor."""
    if beta != 1.0:
        v.mul_(beta)
    v.add_(grad, alpha=alpha)


def hand_backward(p: dict[str, torch.Tensor], lay: Layout, shape: ModelShape, k: _Consts,
                  cache: dict[str, Any], gz: torch.Tensor, g: dict[str, torch.Tensor],
                  alpha: float = 1.0, beta: float = 1.0) -> None:
    """Gradients of :func:`hand_forward`'s logits against ``gz`` ``(W, n, n_classes)``:
    ``g <- beta g + alpha grad`` for every parameter (``g``: name -> contiguous ``(W, *shape)``,
    ``Wo`` as ``"WoT"``, :func:`name_major`).  Zeros, ``beta = 1`` and ``alpha = 1`` give the
    gradient; the momentum, ``beta = mu`` and ``alpha = -lr`` give Keras' update
    ``v <- mu v - lr grad`` with no gradient buffer and no separate pass over the momentum: the
    products write ``beta v + alpha (product)`` directly (GEMM's own scalars).

    Back through ``z = N / D``, ``[N, D] = v0 + X V``: ``R = [gZ / D, -(gZ . z) / D]`` per sample
    and head, then per run one product ``M = X^T R`` ``(L x n)(n x H (d + 1))`` gives the gradient
    of ``V`` (rows ``t < T``) and of ``v0`` (row ``T``: the ``[CLS]`` column of ``X`` holds ones).
    The weights enter as ``k0_t [x0_t, 1]`` (in ``v0`` and, negated, in ``V_t``) and
    ``k1_t [x1_t, 1]`` (in ``V_t``), so with ``a_t = [x1_t, 1] . M_t``, ``b_t = [x0_t, 1] . M_t``
    and ``gamma_t = [x0_t, 1] . M_T``: ``grad k1_t = a_t``, ``grad k0_t = gamma_t - b_t`` and, the
    weights being ``exp`` of the scores, ``grad base_t = k0_t (gamma_t - b_t) + k1_t a_t`` and
    ``grad delta = sum_t k1_t a_t`` (a one's score is ``base_t + delta``).  The work on tensors of
    one sample per row is done per group, while that group's rows are in the cache."""
    al, be = alpha, beta
    sl = _step_layout(lay)
    W, n = gz.shape[:2]
    d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
    C, dt = d + 1, gz.dtype
    scale = 1.0 / math.sqrt(dk)
    h1 = cache["h1"]
    gbr = gz.sum(1)
    _momentum_add(g["br"], gbr, be, al)
    if shape.dense_units is None:
        g["Wr"].baddbmm_(gz.transpose(1, 2), h1, beta=be, alpha=al)
        gattn = torch.bmm(gz, p["Wr"])
    else:
        # h = a1 Wd^T + bd (a1 = relu(attn)) is not formed: with S = gz^T a1 (n_classes x d),
        # grad Wr = S Wd^T + gbr bd^T, grad Wd = Wr^T S, grad bd = Wr^T gbr and
        # grad a1 = gz (Wr Wd): products of rank n_classes instead of three (n x d)(d x m) ones
        S = torch.bmm(gz.transpose(1, 2), h1)
        g["Wr"].baddbmm_(S, p["Wd"].transpose(1, 2), beta=be, alpha=al)
        g["Wr"].addcmul_(gbr[..., None], p["bd"][:, None], value=al)
        g["Wd"].baddbmm_(p["Wr"].transpose(1, 2), S, beta=be, alpha=al)
        _momentum_add(g["bd"], torch.bmm(gbr[:, None], p["Wr"])[:, 0], be, al)
        gattn = torch.ops.aten.threshold_backward(torch.bmm(gz, cache["WrWd"]), h1, 0)
    # attn = Z A^T + c, c = bo + sum_h Wo_h bv_h, A_h^T = Wv_h^T Wo_h^T; Z = N / D per group
    Z, rho = cache["Z"], cache["rho"]
    gc = gattn.sum(1)
    _momentum_add(g["bo"], gc, be, al)
    gAT = torch.empty(W, H * d, d, dtype=dt)
    Lmax = k.k0.shape[2]
    a = torch.zeros(W, Lmax, H, dtype=dt)                                   # a_t (0 at [CLS] and after)
    b = torch.zeros(W, Lmax, H, dtype=dt)                                   # b_t
    m0 = torch.zeros(W, H, C, dtype=dt)                                     # M_T
    direct = []
    for j, X in enumerate(cache["Xs"]):
        r0, r1, T = sl.bounds[j]
        Rj, L = r1 - r0, T + 1
        gattn_j, Zj = gattn[r0:r1], Z[r0:r1]
        torch.bmm(Zj.transpose(1, 2), gattn_j, out=gAT[r0:r1])
        gZ = torch.bmm(gattn_j, k.AT[r0:r1].transpose(1, 2)).view(Rj, n, H, d)
        if k.direct[j]:
            direct.append((j, gZ))
            continue
        R = torch.empty(Rj, n, H, C, dtype=dt)
        RN = torch.mul(gZ, rho[r0:r1, ..., None], out=R[..., :d])
        torch.sum(RN * Zj.view(Rj, n, H, d), dim=-1, out=R[..., d]).neg_()
        M = torch.bmm(X.transpose(1, 2), R.view(Rj, n, H * C)).view(Rj, L, H, C)
        # b_t = [x0_t, 1] . M_t, and a_t = b_t + (e1 - e0) . M_t as one (1 x d+1)(d+1 x T H) product
        torch.sum(M[:, :T] * sl.x0g[j], dim=-1, out=b[r0:r1, :T])
        ad = torch.bmm(sl.d1[r0:r1], M.view(Rj, L * H, C)[:, :T * H].transpose(1, 2)).view(Rj, T, H)
        torch.add(b[r0:r1, :T], ad, out=a[r0:r1, :T])
        m0[r0:r1] = M[:, T]
    # gamma_t = m0 . [x0_t, 1] = m0 . [PE_t, 1] + m0 . e0 (t < T) or m0 . ecls (t = T)
    gamma = torch.mm(m0.view(W * H, C), sl.PEeT).view(W, H, Lmax)
    ge = torch.bmm(m0[..., :d], sl.E3T[..., :2])
    gamma.addcmul_(ge[..., 0:1], sl.data1).addcmul_(ge[..., 1:2], sl.cls1)
    G2 = torch.empty(W, H, Lmax + 1, dtype=dt)                              # [grad base, grad delta]
    gbase = torch.sub(gamma, b.transpose(1, 2), out=G2[..., :Lmax]).mul_(k.k0)
    ka = a.transpose(1, 2).mul_(k.k1)
    gbase += ka
    torch.sum(ka, dim=-1, out=G2[..., Lmax])
    for j, gZ in direct:
        r0, r1, T = sl.bounds[j]
        _direct_backward(*cache["Ps"][j], gZ, sl.Kx[r0:r1], G2[r0:r1])
    WoP = k.WoT.reshape(W * H, dv, d)
    gAT = gAT.view(W * H, d, d)
    gWoT = g["WoT"]
    gWoT.view(W * H, dv, d).baddbmm_(p["Wv"].reshape(W * H, dv, d), gAT, beta=be, alpha=al)
    gWoT.addcmul_(p["bv"][..., None], gc[:, None, None, :], value=al)
    g["Wv"].view(W * H, dv, d).baddbmm_(WoP, gAT.transpose(1, 2), beta=be, alpha=al)
    g["bv"].view(W, 1, H * dv).baddbmm_(gc[:, None, :], WoP.view(W, H * dv, d).transpose(1, 2),
                                        beta=be, alpha=al)
    # scores r_h . x0_t (+ bk . q_s, equal at every position); r_h = Wk_h^T q_s; q_s = (Wq xc + bq) / sqrt(dk)
    # grad r_h = sum_t gbase_t x0_t + gdelta (e1 - e0): the PE part in one product for all runs
    gbase = G2[..., :Lmax]
    gcb = gbase.sum(-1, keepdim=True)                                       # (W, H, 1), 0 up to round-off
    gT = gbase.gather(-1, sl.Tix.expand(W, H, 1))
    grv = torch.mm(gbase.reshape(W * H, Lmax), lay.PE).view(W, H, d)
    grv.baddbmm_(torch.cat([gcb - gT, gT, G2[..., Lmax:]], dim=-1), sl.E3)
    gcb = gcb[..., 0]
    qs = k.qs
    gqs = torch.bmm(grv.view(W * H, 1, d), p["Wk"].reshape(W * H, dk, d).transpose(1, 2)).view(W, H, dk)
    gqs.addcmul_(gcb[..., None], p["bk"])
    g["Wk"].view(W * H, dk, d).baddbmm_(qs.reshape(W * H, dk, 1), grv.view(W * H, 1, d), beta=be, alpha=al)
    if be != 1.0:
        g["bk"].mul_(be)
    g["bk"].addcmul_(gcb[..., None], qs, value=al)
    g["Wq"].view(W, H * dk, d).baddbmm_(gqs.view(W, H * dk, 1), lay.xc[:, None, :], beta=be, alpha=al * scale)
    _momentum_add(g["bq"], gqs, be, al * scale)


def _direct_backward(P: torch.Tensor, X: torch.Tensor, gZ: torch.Tensor, Kx: torch.Tensor,
                     G2: torch.Tensor) -> None:
    """:func:`_direct_forward`'s backward pass for its runs (``X``: the data, ``[CLS]`` column 0):
    ``[grad base, grad delta]`` into ``G2`` ``(R_j, H, Lmax + 1)`` from ``gZ`` ``(R_j, n, H, d)``."""
    Rj, n, H, L = P.shape
    Lmax = Kx.shape[1] - 1
    gP = torch.bmm(gZ.reshape(Rj, n * H, -1), Kx[:, :L].transpose(1, 2)).view(Rj, n, H, L)
    gP.addcmul_((gZ * Kx[:, None, None, Lmax]).sum(-1)[..., None], X[:, :, None, :])
    gS = torch._softmax_backward_data(gP, P, -1, P.dtype)
    G2.zero_()
    G2[..., :L] = gS.sum(1)
    G2[..., Lmax] = (gS * X[:, :, None, :]).sum((1, 3))


def _hand_loss_grad(flat: torch.Tensor, bits: torch.Tensor, embeddings: torch.Tensor,
                    labels: torch.Tensor, config: ProtocolConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-run mean loss ``(R,)`` and its gradient ``(R, P)`` for ``R`` runs of one length, by the
    hand-written forward and backward the trainer uses (``method="softmax"``); for the tests."""
    config = check_authors_config(config)
    shape = config.model_shape
    R, n, T = check_inputs(flat, bits, embeddings, shape)
    flat = flat.detach()
    lay = make_layout([T] * R, embeddings, shape.d, flat.dtype)
    p = unflatten_unchecked(flat, shape)
    k = hand_consts(p, lay, shape)
    X = ones_indicator(bits, flat.dtype)
    X[..., T] = 1                                       # the [CLS] column of ones (hand_forward)
    z, cache = hand_forward(p, lay, shape, k, [X])
    y = labels.long()
    _, grads = name_major(torch.zeros_like(flat), shape, wo_t=True)
    hand_backward(p, lay, shape, k, cache, logit_grad(z, y, config.loss), grads)
    return per_run_loss(z, y, config.loss), flat_of(grads, R)


# ------------------------------------------------------------------------ name-major parameters
def name_major(flat: torch.Tensor, shape: ModelShape, *,
               wo_t: bool = False) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``flat`` ``(W, P)`` -> a 1-d buffer holding every parameter as a contiguous ``(W, *shape)``
    block, and those blocks (views of it) by name.  ``wo_t``: ``Wo`` is kept as ``"WoT"``
    ``(W, H, dv, d)`` (``Wo_h^T``), the layout every product of the hand-written step reads and
    writes it in (no per-step permute copy); :func:`flat_of` turns it back."""
    W = flat.shape[0]
    parts = unflatten_unchecked(flat, shape)
    if wo_t:
        parts = {("WoT" if k == "Wo" else k): (v.permute(0, 2, 3, 1) if k == "Wo" else v)
                 for k, v in parts.items()}
    buf = torch.cat([v.reshape(-1) for v in parts.values()]) if W else flat.new_zeros(0)
    views, pos = {}, 0
    for k, v in parts.items():
        views[k] = buf[pos:pos + v.numel()].view(v.shape)
        pos += v.numel()
    return buf, views


def flat_of(views: dict[str, torch.Tensor], W: int) -> torch.Tensor:
    """The inverse of :func:`name_major`: ``(W, P)``."""
    return torch.cat([(v.detach().permute(0, 3, 1, 2) if k == "WoT" else v.detach()).reshape(W, -1)
                      for k, v in views.items()], dim=1)
