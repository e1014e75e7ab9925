"""Deora et al., App. G: the trainer of the multi-head model that every figure of the appendix uses.

One trainer serves Figures 2-5: the multi-head model of Eq. (2) on a stack of independent
trials (leading batch axis ``B``: each trial has its own data and parameters, and because the
total loss is the sum of the trials' losses, one backward pass gives every trial its own
gradient).  Optimizers are full-batch GD, heavy-ball momentum (PyTorch SGD semantics) and
Adam, with separate step sizes (and Adam epsilons) for the ``U`` and ``W`` blocks so that the
zero-initialization reduction of ``deora-sec-g-symmetry`` can be run with the same code.

Shapes: ``Xs`` ``(B, n, T, d)``, ``ys`` ``(B, n)``, ``Us`` ``(B, H, T, d)``, ``Ws`` ``(B, H, d, d)``.

Three engines run a sweep over ``H`` (:func:`sweep`):

* ``"heads"`` trains the ``H``-head model itself (autograd, one ``H`` at a time);
* ``"heads-batched"`` trains the same ``H``-head model with hand-derived gradients, every head of
  every ``H`` and trial in one batch (:mod:`attention_theory.deora.heads_engine`; GD only), with
  the reduction trained alongside for a step-by-step parameter comparison;
* ``"reduced"`` trains the single-head recursion that ``H`` heads from zero reproduce exactly
  (``deora-sec-g-symmetry``), every ``H`` and trial in one batch with per-trial step sizes.
  Every quantity the figures plot is the same for both (the heads are equal); the experiment
  :mod:`attention_theory.deora.head_sweeps` checks the agreement on a prefix of every
  configuration before trusting it (:func:`prefix_agreement`).

The data of the appendix: DM1 with App. G's settings (:func:`app_g_dm1_config`,
:func:`dm1_trials`) and the planted teacher DM2 (:func:`dm2_trials`).  Used by the experiment
:mod:`attention_theory.deora.head_sweeps`, the checks of ``book/deora/experiments.md`` and
``book/deora/planted-teacher.md`` and those chapters themselves.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Mapping

import numpy as np
import torch

from attention_theory.deora import dm1
from attention_theory.deora.dm2 import Teacher, planted_teacher, sample_dm2
from attention_theory.deora.heads_engine import train_heads_batched
from attention_theory.deora.model import multi_head_output_bmm, multi_head_output_bmm_unchecked
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import (
    as_array,
    as_tensor,
    check_bool,
    check_int,
    check_positive,
    check_seed,
    refuses_overflow,
    torch_generator,
)

__all__ = ["TrainSpec", "heads_output", "init_heads", "train_heads", "reduced_single_head_spec",
           "app_g_dm1_config", "dm1_trials", "dm2_trials", "sweep", "dm2_sweep", "gamma_attn_dm1",
           "log_steps", "prefix_agreement"]

OPTIMIZERS = ("gd", "momentum", "adam")

@dataclasses.dataclass(frozen=True)
class TrainSpec:
    """How to train: optimizer, per-block step sizes and Adam epsilons, number of steps.

    ``lr_U``/``lr_W`` are the step sizes of the ``U`` and ``W`` blocks (the paper uses one
    step size ``eta`` for both); ``eps_U``/``eps_W`` Adam's epsilons.  Each may also be a tuple
    with one value per trial (the batch axis ``B``), which the reduced engine of :func:`sweep`
    uses to train every ``H`` at once.
    """

    optimizer: str
    steps: int
    lr_U: float | tuple[float, ...]
    lr_W: float | tuple[float, ...]
    eps_U: float | tuple[float, ...] = 1e-8
    eps_W: float | tuple[float, ...] = 1e-8
    momentum: float = 0.9
    betas: tuple[float, float] = (0.9, 0.999)

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        check_int(self.steps, "steps", minimum=0)
        for name in ("lr_U", "lr_W", "eps_U", "eps_W"):
            value = getattr(self, name)
            if isinstance(value, (tuple, list)):
                if not value:
                    raise ValueError(f"{name} must not be an empty tuple")
                object.__setattr__(self, name, tuple(check_positive(v, name) for v in value))
            else:
                check_positive(value, name)
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum}")

    @classmethod
    def uniform(cls, optimizer: str, lr: float, steps: int, **kw: Any) -> "TrainSpec":
        """The paper's setting: one step size for both blocks."""
        return cls(optimizer=optimizer, steps=steps, lr_U=lr, lr_W=lr, **kw)


@refuses_overflow
def heads_output(Us: torch.Tensor, Ws: torch.Tensor, Xs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (2) for every trial and sample: ``(outputs (B, n), attention (B, n, H, T, T))``.

    ``Us`` ``(B, H, T, d)``, ``Ws`` ``(B, H, d, d)``, ``Xs`` ``(B, n, T, d)``: the batched-matmul
    forward :func:`attention_theory.deora.model.multi_head_output_bmm` (faster here than the
    ``einsum`` of :func:`~attention_theory.deora.model.multi_head_output`).
    """
    return multi_head_output_bmm(Xs, Ws, Us)


def init_heads(B: int, H: int, T: int, d: int, *, scale: float = 0.0,
               seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Initial ``(Us, Ws)``: zero (the paper) or i.i.d. ``N(0, scale^2)`` (symmetry breaking)."""
    B, H, T, d = (check_int(v, k) for k, v in (("B", B), ("H", H), ("T", T), ("d", d)))
    check_seed(seed, "seed")
    if scale == 0:
        return torch.zeros(B, H, T, d, dtype=VERIFICATION_DTYPE), torch.zeros(B, H, d, d,
                                                                              dtype=VERIFICATION_DTYPE)
    check_positive(scale, "scale")
    g = torch_generator(seed)
    return (scale * torch.randn(B, H, T, d, generator=g, dtype=VERIFICATION_DTYPE),
            scale * torch.randn(B, H, d, d, generator=g, dtype=VERIFICATION_DTYPE))


def reduced_single_head_spec(spec: TrainSpec, H: int) -> TrainSpec:
    """The single-head run that H identical heads from zero reproduce (``deora-sec-g-symmetry``).

    With ``V = sqrt(H) U``: GD and momentum take steps ``(eta, eta / H)`` on ``(V, W)``; Adam
    takes ``(sqrt(H) eta, eta)`` with epsilons ``(sqrt(H) eps, H eps)``.
    """
    if not isinstance(spec, TrainSpec):
        raise TypeError(f"spec must be a TrainSpec, got {type(spec).__name__}")
    H = check_int(H, "H")
    if not all(isinstance(v, (int, float)) for v in (spec.lr_U, spec.lr_W, spec.eps_U, spec.eps_W)):
        raise TypeError("reduced_single_head_spec needs scalar step sizes and epsilons")
    if spec.optimizer == "adam":
        return dataclasses.replace(spec, lr_U=math.sqrt(H) * spec.lr_U, eps_U=math.sqrt(H) * spec.eps_U,
                                   lr_W=spec.lr_W, eps_W=H * spec.eps_W)
    return dataclasses.replace(spec, lr_U=spec.lr_U, lr_W=spec.lr_W / H)


def _per_trial(value: float | tuple[float, ...], B: int, name: str) -> float | torch.Tensor:
    """A scalar, or a ``(B, 1, 1, 1)`` tensor broadcasting over each trial's parameter block."""
    if isinstance(value, tuple):
        if len(value) != B:
            raise ValueError(f"{name} has {len(value)} per-trial values for B = {B} trials")
        return torch.tensor(value, dtype=VERIFICATION_DTYPE).view(B, 1, 1, 1)
    return float(value)


def log_steps(steps: int, count: int = 60) -> np.ndarray:
    """About ``count`` log-spaced iteration indices in ``[0, steps]``, always with 0, 1, 10, 100 and
    ``steps``."""
    steps = check_int(steps, "steps", minimum=0)
    count = check_int(count, "count")
    pts = np.unique(np.concatenate([np.round(np.logspace(0, math.log10(max(steps, 1)), count)),
                                    [0, 1, 10, 100, steps]]).astype(int))
    return pts[pts <= steps]


def _record_steps(record_at: Any) -> set[int]:
    """The step indices of ``record_at``: a non-empty 1-d sequence of integers ``>= 0``."""
    if isinstance(record_at, (str, bytes)):
        raise TypeError(f"record_at must be a sequence of step indices, got {record_at!r}")
    try:
        arr = np.asarray(record_at)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TypeError(f"record_at must be a sequence of step indices: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"record_at must contain integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"record_at must be a non-empty 1-d sequence of steps, got shape {arr.shape}")
    if arr.dtype.kind == "f" and not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
        raise ValueError("record_at must contain integers (finite, whole numbers)")
    if np.any(arr < 0):
        raise ValueError(f"record_at must contain steps >= 0, got {arr.min()}")
    return set(int(k) for k in arr)


def _alignment(A: torch.Tensor, A_star: torch.Tensor) -> torch.Tensor:
    """Cosine between each trial's stacked heads ``A`` ``(B, H, ...)`` and H copies of ``A_star`` ``(B,
    ...)``."""
    stacked = A_star.unsqueeze(1).expand_as(A)
    num = (A * stacked).flatten(1).sum(1)
    den = A.flatten(1).norm(dim=1) * stacked.flatten(1).norm(dim=1)
    return torch.where(den > 0, num / den.clamp_min(1e-300), torch.zeros_like(num))


@refuses_overflow
def train_heads(Xtr: Any, ytr: Any, Xte: Any, yte: Any, *, H: int, spec: TrainSpec,
                init: tuple[torch.Tensor, torch.Tensor] | None = None, record_at: Any = None,
                relevant: Any = None, teacher: tuple[Any, Any] | None = None,
                progress: bool = False) -> dict[str, Any]:
    """Train ``B`` independent trials of the ``H``-head model; log the figures' quantities.

    ``Xtr`` ``(B, n, T, d)``, ``ytr`` ``(B, n)`` in ``{-1, +1}``; test data likewise.
    ``relevant`` (optional) ``(B, n, T)`` boolean mask of label-relevant tokens (DM1) for the
    attention score; ``teacher`` (optional) ``(W_star (B, d, d), U_star (B, T, d))`` for the
    alignments (DM2).  Returns a dict of arrays of shape ``(len(record_at), B)`` plus the final
    parameters; ``record_at`` defaults to :func:`log_steps`.
    """
    # every argument is checked here, once: the training loop below runs unchecked kernels
    Xtr, Xte = as_array(Xtr, "Xtr", ndim=4), as_array(Xte, "Xte", ndim=4)
    B, n, T, d = Xtr.shape
    ytr, yte = as_array(ytr, "ytr", ndim=2), as_array(yte, "yte", ndim=2)
    if ytr.shape != (B, n):
        raise ValueError(f"ytr must have shape (B, n) = {(B, n)} like Xtr, got {ytr.shape}")
    if Xte.shape[2:] != (T, d):
        raise ValueError(f"Xte must have shape (B, n', {T}, {d}) like Xtr, got {Xte.shape}")
    if yte.shape != Xte.shape[:2]:
        raise ValueError(f"yte must have shape (B, n') = {Xte.shape[:2]} like Xte, got {yte.shape}")
    Xtr, ytr, Xte, yte = (torch.as_tensor(a) for a in (Xtr, ytr, Xte, yte))
    H = check_int(H, "H")
    if not isinstance(spec, TrainSpec):
        raise TypeError(f"spec must be a TrainSpec, got {type(spec).__name__}")
    if init is None:
        Us, Ws = init_heads(B, H, T, d)
    else:
        if isinstance(init, (str, bytes)) or not isinstance(init, (tuple, list)) or len(init) != 2:
            raise TypeError(f"init must be a pair (Us, Ws) of tensors, got {type(init).__name__}")
        Us, Ws = as_tensor(init[0], "init[0] (Us)"), as_tensor(init[1], "init[1] (Ws)")
    if tuple(Us.shape) != (B, H, T, d) or tuple(Ws.shape) != (B, H, d, d):
        raise ValueError(f"init must have shapes {(B, H, T, d)} and {(B, H, d, d)}")
    Us, Ws = Us.clone().to(VERIFICATION_DTYPE), Ws.clone().to(VERIFICATION_DTYPE)
    rec = _record_steps(record_at if record_at is not None else log_steps(spec.steps))
    mask = None
    if relevant is not None:
        rel = as_array(relevant, "relevant", ndim=3)
        if rel.shape != (B, n, T):
            raise ValueError(f"relevant must have shape (B, n, T) = {(B, n, T)}, got {rel.shape}")
        mask = torch.as_tensor(np.asarray(relevant, dtype=bool))
    tW = tU = None
    if teacher is not None:
        if isinstance(teacher, (str, bytes)) or not isinstance(teacher, (tuple, list)) or len(teacher) != 2:
            raise TypeError("teacher must be a pair (W_star, U_star) of arrays, got "
                            f"{type(teacher).__name__}")
        tW = as_array(teacher[0], "teacher[0] (W_star)", ndim=3)
        tU = as_array(teacher[1], "teacher[1] (U_star)", ndim=3)
        if tW.shape[0] not in (1, B) or tW.shape[1:] != (d, d):
            raise ValueError(f"teacher[0] (W_star) must have shape (B, {d}, {d}) with B = {B}, "
                             f"got {tW.shape}")
        if tU.shape[0] not in (1, B) or tU.shape[1:] != (T, d):
            raise ValueError(f"teacher[1] (U_star) must have shape (B, {T}, {d}) with B = {B}, "
                             f"got {tU.shape}")
        tW, tU = torch.as_tensor(tW), torch.as_tensor(tU)
    progress = check_bool(progress, "progress")
    lr_U, lr_W, eps_U, eps_W = (_per_trial(getattr(spec, k), B, k)
                                for k in ("lr_U", "lr_W", "eps_U", "eps_W"))
    state = {k: torch.zeros_like(v) for k, v in (("mU", Us), ("vU", Us), ("mW", Ws), ("vW", Ws))}
    logs: dict[str, list] = {k: [] for k in ("step", "train_loss", "test_loss", "train_acc", "test_acc",
                                             "avg_W_norm", "avg_U_norm", "margin_min", "margin_mean",
                                             "head_spread", "attn_score", "align_W", "align_U")}
    it = range(spec.steps + 1)
    if progress:
        from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

        it = tqdm(it, desc=f"H={H} {spec.optimizer}", leave=False)
    t0 = time.perf_counter()
    for k in it:
        Us.requires_grad_(True)
        Ws.requires_grad_(True)
        out, S = multi_head_output_bmm_unchecked(Xtr, Ws, Us)
        losses = torch.nn.functional.softplus(-ytr * out).mean(dim=1)
        if k in rec:
            with torch.no_grad():
                out_te, _ = multi_head_output_bmm_unchecked(Xte, Ws, Us)
                Unorm = Us.flatten(1).norm(dim=1)
                margins = ytr * out / Unorm.clamp_min(1e-300).unsqueeze(1)
                logs["step"].append(k)
                logs["train_loss"].append(losses.detach().numpy().copy())
                logs["test_loss"].append(torch.nn.functional.softplus(-yte * out_te).mean(1).numpy())
                logs["train_acc"].append((ytr * out > 0).double().mean(1).numpy())
                logs["test_acc"].append((yte * out_te > 0).double().mean(1).numpy())
                logs["avg_W_norm"].append(Ws.flatten(2).norm(dim=2).mean(1).numpy())
                logs["avg_U_norm"].append((Us.flatten(2).norm(dim=2).sum(1) / math.sqrt(H)).numpy())
                logs["margin_min"].append(margins.min(1).values.numpy())
                logs["margin_mean"].append(margins.mean(1).numpy())
                spread = ((Us - Us[:, :1]).flatten(2).norm(dim=2) + (Ws - Ws[:, :1]).flatten(2).norm(dim=2))
                logs["head_spread"].append(spread.max(1).values.numpy())
                logs["attn_score"].append(
                    np.full(B, np.nan) if mask is None else
                    (S * mask[:, :, None, None, :]).sum(-1).mean(dim=(1, 2, 3)).numpy())
                logs["align_W"].append(np.full(B, np.nan) if tW is None else _alignment(Ws, tW).numpy())
                logs["align_U"].append(np.full(B, np.nan) if tU is None else _alignment(Us, tU).numpy())
        if k == spec.steps:
            break
        gU, gW = torch.autograd.grad(losses.sum(), (Us, Ws))
        with torch.no_grad():
            Us, Ws = Us.detach(), Ws.detach()
            if spec.optimizer == "gd":
                Us, Ws = Us - lr_U * gU, Ws - lr_W * gW
            elif spec.optimizer == "momentum":
                state["mU"] = spec.momentum * state["mU"] + gU
                state["mW"] = spec.momentum * state["mW"] + gW
                Us, Ws = Us - lr_U * state["mU"], Ws - lr_W * state["mW"]
            else:
                b1, b2 = spec.betas
                c1, c2 = 1 - b1 ** (k + 1), 1 - b2 ** (k + 1)
                for blk, g, lr, eps in (("U", gU, lr_U, eps_U), ("W", gW, lr_W, eps_W)):
                    state["m" + blk] = b1 * state["m" + blk] + (1 - b1) * g
                    state["v" + blk] = b2 * state["v" + blk] + (1 - b2) * g * g
                    step = lr * (state["m" + blk] / c1) / ((state["v" + blk] / c2).sqrt() + eps)
                    if blk == "U":
                        Us = Us - step
                    else:
                        Ws = Ws - step
    result = {k: np.asarray(v) for k, v in logs.items()}
    result.update(H=H, optimizer=spec.optimizer, lr_U=spec.lr_U, lr_W=spec.lr_W,
                  wall_time_s=time.perf_counter() - t0, Us=Us.detach(), Ws=Ws.detach())
    return result


def app_g_dm1_config(**overrides: Any) -> dm1.DM1Config:
    """DM1 as in App. G: ``T=10, zeta=0.1, d=4, M=2, S=2``, Gaussian noise ``sigma=0.1``.

    The canonical basis of ``R^4`` scaled to norm ``S`` gives ``mu_+, mu_-, nu_1, nu_2``; the
    Gaussian noise is unbounded, so Assumption 3 holds only approximately (erratum E17).
    """
    base = dict(T=10, d=4, M=2, S=2.0, zeta=0.1, Z_mu=0.0, Z_nu=0.0, Z_perp=0.0,
                noise="gaussian", sigma=0.1, relevant="uniform")
    base.update(overrides)
    return dm1.DM1Config(**base)


def gamma_attn_dm1(cfg: dm1.DM1Config) -> float:
    """``gamma_attn = S sqrt(T / 2)`` (``deora-eq-9``, one relevant token); ``2 sqrt 5`` in App. G."""
    if not isinstance(cfg, dm1.DM1Config):
        raise TypeError(f"cfg must be a DM1Config, got {type(cfg).__name__}")
    return cfg.S * math.sqrt(cfg.T / 2)


def dm1_trials(trials: int, n_train: int, n_test: int, *, cfg: dm1.DM1Config | None = None,
               seed: int = 0) -> dict[str, Any]:
    """Stacked DM1 data sets (train seeds ``seed + trial``, test seeds ``20_000 + seed + trial``).

    Returns ``Xtr (B, n, T, d)``, ``ytr (B, n)``, ``rel_tr (B, n, T)`` and the same for the test set.
    """
    trials, n_train = check_int(trials, "trials"), check_int(n_train, "n_train")
    n_test = check_int(n_test, "n_test")
    check_seed(seed, "seed")
    if cfg is not None and not isinstance(cfg, dm1.DM1Config):
        raise TypeError(f"cfg must be a DM1Config or None, got {type(cfg).__name__}")
    cfg = cfg or app_g_dm1_config()
    tr = [dm1.sample(cfg, n_train, seed=seed + j) for j in range(trials)]
    te = [dm1.sample(cfg, n_test, seed=20_000 + seed + j) for j in range(trials)]
    return dict(Xtr=np.stack([s.X for s in tr]), ytr=np.stack([s.y for s in tr]),
                rel_tr=np.stack([s.relevant for s in tr]), Xte=np.stack([s.X for s in te]),
                yte=np.stack([s.y for s in te]), rel_te=np.stack([s.relevant for s in te]),
                config=dataclasses.asdict(cfg))


def dm2_trials(trials: int, n_train: int, n_test: int, *, T: int = 10, d: int = 5,
               W_norm: float = 3.0, gamma_dm2: float = 0.2, seed: int = 0) -> dict[str, Any]:
    """Stacked DM2 data sets, one planted teacher per trial (seeds ``seed + trial``)."""
    trials, n_train = check_int(trials, "trials"), check_int(n_train, "n_train")
    n_test = check_int(n_test, "n_test")
    check_seed(seed, "seed")
    Xtr, ytr, Xte, yte, Wst, Ust, acc = [], [], [], [], [], [], []
    for j in range(trials):
        teacher: Teacher = planted_teacher(T, d, W_norm=W_norm, seed=seed + j)
        X, y, a = sample_dm2(n_train, teacher, gamma_dm2=gamma_dm2, seed=10_000 + seed + j)
        Xt, yt, _ = sample_dm2(n_test, teacher, gamma_dm2=gamma_dm2, seed=20_000 + seed + j)
        Xtr.append(X), ytr.append(y), Xte.append(Xt), yte.append(yt)
        Wst.append(teacher.W), Ust.append(teacher.U), acc.append(a)
    return dict(Xtr=np.stack(Xtr), ytr=np.stack(ytr), Xte=np.stack(Xte), yte=np.stack(yte),
                W_star=np.stack(Wst), U_star=np.stack(Ust), acceptance=np.array(acc))


LR_RULES = ("sqrtH", "constant")
ENGINES = ("heads", "reduced", "heads-batched")


def _eta(lr_rule: str, lr: float, H: int) -> float:
    return lr * math.sqrt(H) if lr_rule == "sqrtH" else lr


@refuses_overflow
def sweep(data: dict[str, Any], Hs: list[int], optimizer: str, *, steps: int,
          lr_rule: str = "sqrtH", lr: float = 1.0, engine: str = "heads", record_at: Any = None,
          init_scale: float = 0.0, progress: bool = False) -> dict[int, dict[str, Any]]:
    """Train every ``H`` in ``Hs`` from zero on the stacked trials of ``data``; step ``lr sqrt(H)`` or ``lr``.

    ``data`` comes from :func:`dm1_trials` (the attention score on relevant tokens is logged) or
    :func:`dm2_trials` (the alignments with the teacher are logged).  ``engine="reduced"`` runs
    the exact single-head reduction of ``deora-sec-g-symmetry`` for all ``H`` in one batch; its
    logs equal the ``H``-head logs (same loss, margins, average norms, attention, alignments; the
    head spread is 0 by construction) and its returned ``Us`` are ``V / sqrt(H)`` repeated ``H`` times.
    ``engine="heads-batched"`` (GD on DM1 only) trains the ``H``-head model with hand-derived
    gradients (:func:`attention_theory.deora.heads_engine.train_heads_batched`), all ``H`` at once,
    and logs in addition ``head_spread_pairs`` and the gap to the reduction trained alongside.
    ``init_scale > 0`` starts the ``"heads"`` engine from i.i.d. ``N(0, init_scale^2)`` entries
    (seed ``H``), the symmetry-breaking variant; the reduction does not apply there.
    """
    if lr_rule not in LR_RULES:
        raise ValueError(f"lr_rule must be one of {LR_RULES}, got {lr_rule!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if not isinstance(data, Mapping):
        raise TypeError(f"data must be a dict (from dm1_trials or dm2_trials), got {type(data).__name__}")
    missing = [k for k in ("Xtr", "ytr", "Xte", "yte") if k not in data]
    if missing:
        raise ValueError(f"data lacks the entries {missing} (see dm1_trials, dm2_trials)")
    if isinstance(Hs, (str, bytes)) or not hasattr(Hs, "__iter__"):
        raise TypeError(f"Hs must be a sequence of head counts, got {Hs!r}")
    Hs = list(Hs)
    if not Hs:
        raise ValueError("Hs must not be empty")
    Hs = [check_int(H, f"Hs[{i}]") for i, H in enumerate(Hs)]
    check_positive(lr, "lr")
    check_positive(init_scale, "init_scale", allow_zero=True)
    progress = check_bool(progress, "progress")
    if engine in ("reduced", "heads-batched") and init_scale > 0:
        raise ValueError(f"the {engine} engine starts only from the zero initialization (init_scale = 0)")
    if engine == "heads-batched":
        if optimizer != "gd" or "W_star" in data:
            raise ValueError("the heads-batched engine trains DM1 data with GD only")
        return train_heads_batched(data["Xtr"], data["ytr"], data["Xte"], data["yte"], Hs=Hs,
                                   etas=[_eta(lr_rule, lr, H) for H in Hs],
                                   steps=check_int(steps, "steps", minimum=0),
                                   record_at=record_at if record_at is not None else log_steps(steps),
                                   relevant=data.get("rel_tr"), progress=progress)
    teacher = (data["W_star"], data["U_star"]) if "W_star" in data else None
    relevant = data.get("rel_tr")
    if engine == "heads":
        B, _, T, d = np.shape(data["Xtr"])
        return {H: train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=H,
                               spec=TrainSpec.uniform(optimizer, _eta(lr_rule, lr, H), steps),
                               init=init_heads(B, H, T, d, scale=init_scale, seed=H), relevant=relevant,
                               teacher=teacher, record_at=record_at, progress=progress)
                for H in Hs}
    B = data["Xtr"].shape[0]
    specs = [reduced_single_head_spec(TrainSpec.uniform(optimizer, _eta(lr_rule, lr, H), steps), H)
             for H in Hs]
    per_trial = {k: tuple(float(getattr(sp, k)) for sp in specs for _ in range(B))
                 for k in ("lr_U", "lr_W", "eps_U", "eps_W")}
    stacked = dataclasses.replace(specs[0], **per_trial)
    rep = len(Hs)
    tile = (lambda a: None if a is None else np.concatenate([np.asarray(a)] * rep))  # noqa: E731
    run = train_heads(tile(data["Xtr"]), tile(data["ytr"]), tile(data["Xte"]), tile(data["yte"]), H=1,
                      spec=stacked, relevant=tile(relevant), record_at=record_at, progress=progress,
                      teacher=None if teacher is None else (tile(teacher[0]), tile(teacher[1])))
    out = {}
    for i, (H, sp) in enumerate(zip(Hs, specs)):
        sl = slice(i * B, (i + 1) * B)
        r = {k: (v[:, sl] if isinstance(v, np.ndarray) and v.ndim == 2 else v) for k, v in run.items()}
        r.update(H=H, lr_U=sp.lr_U, lr_W=sp.lr_W, engine="reduced",
                 Us=(run["Us"][sl] / math.sqrt(H)).expand(-1, H, -1, -1),
                 Ws=run["Ws"][sl].expand(-1, H, -1, -1))
        out[H] = r
    return out


def dm2_sweep(data: dict[str, Any], Hs: list[int], optimizer: str, *, steps: int,
              lr_rule: str = "sqrtH", lr: float = 1.0, progress: bool = False) -> dict[int, dict[str, Any]]:
    """:func:`sweep` with the ``"heads"`` engine (kept for the DM2 chapter)."""
    return sweep(data, Hs, optimizer, steps=steps, lr_rule=lr_rule, lr=lr, progress=progress)


def prefix_agreement(data: dict[str, Any], Hs: list[int], opt: str, rule: str, lr: float,
                     steps: int) -> dict[str, float]:
    """Largest gaps between the ``"heads"`` and ``"reduced"`` engines of :func:`sweep` over the first
    ``steps`` steps of one optimizer setting on ``data`` (every logged quantity, the parameters and the
    spread between heads): ``{"steps", "max_log_gap", "max_param_gap", "max_head_spread"}``.  Used by
    the experiment :mod:`attention_theory.deora.head_sweeps` (``--verify-prefix``) and the checks of
    ``book/deora/experiments.md``."""
    rec = list(range(steps + 1))
    a = sweep(data, Hs, opt, steps=steps, lr_rule=rule, lr=lr, engine="heads", record_at=rec)
    b = sweep(data, Hs, opt, steps=steps, lr_rule=rule, lr=lr, engine="reduced", record_at=rec)
    keys = ("train_loss", "test_loss", "avg_W_norm", "avg_U_norm", "margin_mean", "attn_score", "align_W")
    gap = max(float(np.nanmax(np.abs(a[H][k] - b[H][k]), initial=0.0)) for H in Hs for k in keys)
    params = max(max(float((a[H]["Us"] - b[H]["Us"]).abs().max()),
                     float((a[H]["Ws"] - b[H]["Ws"]).abs().max()))
                 for H in Hs)
    spread = max(float(a[H]["head_spread"].max()) for H in Hs)
    return {"steps": steps, "max_log_gap": gap, "max_param_gap": params, "max_head_spread": spread}
