"""E4 for Qin, Zhou & Zhu (2025): stability of GD on a teacher-student problem (a proposal of this book).

The paper's own experiments are not public.  E4 is this book's test of what the reconstructed
Theorem 2 and the abstract imply at sizes larger than E1: a random *teacher* (the paper's model
class with both residual connections, fixed random weights) labels normalised Gaussian tokens;
a *student* of the same architecture, with or without the attention residual, starts from its
own random weights and is trained by full-batch GD (the paper's update (5)) at a log grid of
step sizes and several seeds.  The forward pass and the closed-form gradient are those of
:mod:`attention_theory.qin.model`; the seeds of one step size run together as a leading batch
axis (``torch.func.vmap`` over :func:`attention_theory.qin.model.gradients`), float64.

Per run it records: whether it diverged (loss non-finite or above ``diverge_factor`` times the
initial loss), the loss every ``record`` steps, the final loss, the first recorded step with
``L_t <= target * L_0``, ``sigma_N`` and ``sigma_1`` of the attention output ``Z`` at
initialisation, and ``lambda_max``, the top eigenvalue of the Hessian at initialisation
(power iteration; ``1/lambda_max`` is the local counterpart of the theorem's step-size bound
``eta <= 1/Q_1``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import torch

from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.qin import model as qm
from attention_theory.validation import as_vector, check_int, check_positive, check_seed

__all__ = ["e4_instance", "e4_runs", "window_ratios"]

VARIANTS = {"residual": 1, "none": 0}


def e4_instance(seed: int, *, N: int = 8, n_seq: int = 2, d: int = 12, dk: int = 4, dv: int = 12,
                m: int = 24, rho1: int = 1, gamma: float = 0.2):
    """The E4 teacher-student instance of ``seed``.

    Draw order (one numpy generator): the teacher's weights (:func:`qm.init_params`, both
    residuals on), the tokens ``X`` (``N x d`` Gaussian, rows normalised; ``n_seq`` sequences of
    ``N / n_seq`` tokens), the student's weights (same law).  ``Y`` is the teacher's output on
    ``X``.  The student uses the attention residual ``rho1`` (FFN residual on); the same seed
    gives the same teacher, tokens and student weights for both residual settings.  Returns a
    :class:`attention_theory.qin.residual_gd.Instance` (the student's parameters in ``params``)."""
    from attention_theory.qin.residual_gd import Instance

    check_seed(seed)
    for name, v in (("N", N), ("n_seq", n_seq), ("d", d), ("dk", dk), ("dv", dv), ("m", m)):
        check_int(v, name)
    cfg = qm.QinConfig(n_seq=n_seq, rho1=rho1, rho2=1, gamma=gamma)
    teacher_cfg = qm.QinConfig(n_seq=n_seq, rho1=1, rho2=1, gamma=gamma)
    qm.block_mask(N, n_seq)  # N must split into n_seq equal sequences
    rng = np.random.default_rng(seed)
    dims = qm.Dims(d, dk, dv, m)
    teacher = qm.init_params(dims, rng)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X = torch.as_tensor(X, dtype=VERIFICATION_DTYPE)
    student = qm.init_params(dims, rng)
    with torch.no_grad():
        Y = qm.output(teacher, X, teacher_cfg)
    return Instance(student, X, Y, cfg, dims)


def _batched_step_fn(cfg: qm.QinConfig):
    """``(params, X, Y) -> (gradient blocks, loss)`` batched over a leading axis."""

    def one(p, X, Y):
        g = qm.gradients(p, X, Y, cfg)
        return {b: g[b] for b in qm.BLOCKS}, 0.5 * torch.sum(g["R"] ** 2)

    return torch.func.vmap(one)


def e4_runs(*, seeds: Sequence[int], eta: float, variant: str, N: int, n_seq: int, d: int, dk: int,
            dv: int, m: int, steps: int, record: int, diverge_factor: float = 1e4, target: float = 1e-8,
            hessian_iters: int = 30) -> list[dict[str, Any]]:
    """GD at step size ``eta`` for the student ``variant`` (``"residual"`` or ``"none"``) of every
    seed, the seeds batched.  Returns one dict per seed (in order) with ``seed, eta, variant,
    diverged, diverge_step`` (``None`` when it did not), ``loss0, final_loss`` (the last finite
    loss), ``steps_to_target`` (first recorded step with ``L_t <= target L_0``, ``None`` if never),
    ``sigma_N_Z0, sigma_1_Z0, lambda_max`` and the curve ``step, loss`` (every ``record`` steps; a
    diverged run's curve stops at its last finite record)."""
    from attention_theory.qin.residual_gd import top_hessian

    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {list(VARIANTS)}, got {variant!r}")
    eta = check_positive(eta, "eta")
    steps, record = check_int(steps, "steps"), check_int(record, "record")
    check_positive(diverge_factor, "diverge_factor")
    check_positive(target, "target")
    check_int(hessian_iters, "hessian_iters")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        raise TypeError(f"seeds must be a sequence of integers >= 0, got {type(seeds).__name__}")
    seeds = [check_seed(s, "seeds") for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    insts = [e4_instance(s, N=N, n_seq=n_seq, d=d, dk=dk, dv=dv, m=m, rho1=VARIANTS[variant]) for s in seeds]
    out = []
    for s, inst in zip(seeds, insts):
        sv = qm.attention_output_singular_values(inst.params, inst.X, inst.cfg)
        lam, _ = top_hessian(inst, inst.theta0, iters=hessian_iters)
        out.append({"seed": s, "eta": eta, "variant": variant, "sigma_N_Z0": float(sv[min(N, d) - 1]),
                    "sigma_1_Z0": float(sv[0]), "lambda_max": float(lam), "diverged": False,
                    "diverge_step": None, "steps_to_target": None, "step": [], "loss": []})
    step_fn = _batched_step_fn(insts[0].cfg)
    P = {b: torch.stack([inst.params[b] for inst in insts]) for b in qm.BLOCKS}
    X = torch.stack([inst.X for inst in insts])
    Y = torch.stack([inst.Y for inst in insts])
    B = len(seeds)
    alive = torch.ones(B, dtype=torch.bool)
    hist, loss0 = [], None
    for t in range(steps + 1):
        G, L = step_fn(P, X, Y)
        if loss0 is None:
            loss0 = L.clone()
        alive = alive & torch.isfinite(L) & (L <= diverge_factor * loss0)
        hist.append(torch.where(alive, L, torch.full_like(L, math.nan)))
        if t == steps or not bool(alive.any()):
            break
        a = (eta * alive.to(VERIFICATION_DTYPE)).reshape(-1, 1, 1)  # a diverged run is frozen
        P = {b: P[b] - a * torch.nan_to_num(G[b]) for b in qm.BLOCKS}
    H = torch.stack(hist).numpy()  # (steps run + 1, B); NaN from a run's divergence on
    for i, o in enumerate(out):
        curve = H[:, i]
        bad = np.flatnonzero(~np.isfinite(curve))
        last = int(bad[0]) if bad.size else curve.size  # steps 0 .. last-1 are finite
        if bad.size:
            o["diverged"], o["diverge_step"] = True, int(bad[0])
        hit = np.flatnonzero(curve[:last] <= target * curve[0])
        o["steps_to_target"] = int(hit[0]) if hit.size else None
        keep = [t for t in range(last) if t % record == 0 or t == steps]
        o["step"], o["loss"] = keep, [float(curve[t]) for t in keep]
        o["loss0"], o["final_loss"] = float(loss0[i]), float(curve[last - 1])
    return out


def window_ratios(step: Sequence[int], loss: Sequence[float], *, window: int,
                  floor: float = 1e-20) -> list[float]:
    """``L(t + window) / L(t)`` for every recorded ``t`` with ``t + window`` recorded, as long as
    ``L(t + window) > floor * L(0)`` (below that the loss measures rounding, not convergence).
    ``step`` must be evenly spaced from 0 with spacing dividing ``window``."""
    st = as_vector(step, "step")
    L = as_vector(loss, "loss")
    check_int(window, "window")
    check_positive(floor, "floor", allow_zero=True)
    if st.shape != L.shape or st.size < 2 or st[0] != 0 or not np.all(st == np.round(st)):
        raise ValueError("step and loss must be curves of equal length >= 2, step integers starting at 0")
    if not np.all(L > 0):
        raise ValueError("loss must be positive")
    st = st.astype(np.int64)
    gap = int(st[1] - st[0])
    if gap <= 0:
        raise ValueError(f"step must be increasing, got spacing {gap}")
    if window % gap:
        raise ValueError(f"window={window} must be a multiple of the record spacing {gap} of step")
    k = window // gap
    if not np.all(np.diff(st[: st.size - 1]) == gap):
        raise ValueError("step must be evenly spaced (the last spacing may be shorter)")
    out = []
    for i in range(st.size - k):
        if st[i + k] - st[i] != window:
            continue
        if L[i + k] <= floor * L[0]:
            break
        ratio = float(L[i + k] / L[i])
        if not math.isfinite(ratio):
            raise ValueError(f"loss: the ratio L({st[i + k]}) / L({st[i]}) overflows float64")
        out.append(ratio)
    return out
