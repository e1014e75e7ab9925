"""Deora et al., App. G: multi-head attention trained from zero initialization, varying H.

One trainer serves Figures 2-5: the multi-head model of Eq. (2) on a stack of independent
trials (leading batch axis ``B``: each trial has its own data and parameters, and because the
total loss is the sum of the trials' losses, one backward pass gives every trial its own
gradient).  Optimizers are full-batch GD, heavy-ball momentum (PyTorch SGD semantics) and
Adam, with separate step sizes (and Adam epsilons) for the ``U`` and ``W`` blocks so that the
zero-initialization reduction of ``deora-sec-g-symmetry`` can be run with the same code.

Shapes: ``Xs`` ``(B, n, T, d)``, ``ys`` ``(B, n)``, ``Us`` ``(B, H, T, d)``, ``Ws`` ``(B, H, d, d)``.

Run from the command line::

    python -m attention_theory.experiments.deora_heads --scale full --out results/deora-experiments/
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .._validate import check_int, check_positive
from ..data.dm2 import Teacher, planted_teacher, sample_dm2

__all__ = ["TrainSpec", "heads_output", "heads_risk", "init_heads", "train_heads",
           "reduced_single_head_spec", "dm2_trials", "dm2_sweep", "log_steps", "main"]

OPTIMIZERS = ("gd", "momentum", "adam")
DTYPE = torch.float64


@dataclasses.dataclass(frozen=True)
class TrainSpec:
    """How to train: optimizer, per-block step sizes and Adam epsilons, number of steps.

    ``lr_U``/``lr_W`` are the step sizes of the ``U`` and ``W`` blocks (the paper uses one
    step size ``eta`` for both); ``eps_U``/``eps_W`` Adam's epsilons.
    """

    optimizer: str
    steps: int
    lr_U: float
    lr_W: float
    eps_U: float = 1e-8
    eps_W: float = 1e-8
    momentum: float = 0.9
    betas: tuple[float, float] = (0.9, 0.999)

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        check_int(self.steps, "steps", minimum=0)
        for name in ("lr_U", "lr_W", "eps_U", "eps_W"):
            check_positive(getattr(self, name), name)
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum}")

    @classmethod
    def uniform(cls, optimizer: str, lr: float, steps: int, **kw: Any) -> "TrainSpec":
        """The paper's setting: one step size for both blocks."""
        return cls(optimizer=optimizer, steps=steps, lr_U=lr, lr_W=lr, **kw)


def heads_output(Us: torch.Tensor, Ws: torch.Tensor, Xs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. (2) for every trial and sample: ``(outputs (B, n), attention (B, n, H, T, T))``."""
    H = Ws.shape[1]
    Xh = Xs.unsqueeze(2)  # (B, n, 1, T, d), broadcast over heads
    # batched matmuls rather than one 3-operand einsum: about 1.4x faster forward + backward
    S = torch.softmax(torch.einsum("bntd,bhde->bnhte", Xs, Ws) @ Xh.transpose(-1, -2), dim=-1)
    return ((S @ Xh) * Us.unsqueeze(1)).sum(dim=(2, 3, 4)) / math.sqrt(H), S


def heads_risk(Us: torch.Tensor, Ws: torch.Tensor, Xs: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
    """Logistic empirical risk per trial, shape ``(B,)``."""
    out, _ = heads_output(Us, Ws, Xs)
    return torch.nn.functional.softplus(-ys * out).mean(dim=1)


def init_heads(B: int, H: int, T: int, d: int, *, scale: float = 0.0,
               seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Initial ``(Us, Ws)``: zero (the paper) or i.i.d. ``N(0, scale^2)`` (symmetry breaking)."""
    B, H, T, d = (check_int(v, k) for k, v in (("B", B), ("H", H), ("T", T), ("d", d)))
    if scale == 0:
        return torch.zeros(B, H, T, d, dtype=DTYPE), torch.zeros(B, H, d, d, dtype=DTYPE)
    check_positive(scale, "scale")
    g = torch.Generator().manual_seed(seed)
    return (scale * torch.randn(B, H, T, d, generator=g, dtype=DTYPE),
            scale * torch.randn(B, H, d, d, generator=g, dtype=DTYPE))


def reduced_single_head_spec(spec: TrainSpec, H: int) -> TrainSpec:
    """The single-head run that H identical heads from zero reproduce (``deora-sec-g-symmetry``).

    With ``V = sqrt(H) U``: GD and momentum take steps ``(eta, eta / H)`` on ``(V, W)``; Adam
    takes ``(sqrt(H) eta, eta)`` with epsilons ``(sqrt(H) eps, H eps)``.
    """
    H = check_int(H, "H")
    if spec.optimizer == "adam":
        return dataclasses.replace(spec, lr_U=math.sqrt(H) * spec.lr_U, eps_U=math.sqrt(H) * spec.eps_U,
                                   lr_W=spec.lr_W, eps_W=H * spec.eps_W)
    return dataclasses.replace(spec, lr_U=spec.lr_U, lr_W=spec.lr_W / H)


def log_steps(steps: int, count: int = 60) -> np.ndarray:
    """About ``count`` log-spaced iteration indices in ``[0, steps]``, always with 0, 1, 10, 100 and ``steps``."""
    steps = check_int(steps, "steps", minimum=0)
    pts = np.unique(np.concatenate([np.round(np.logspace(0, math.log10(max(steps, 1)), count)),
                                    [0, 1, 10, 100, steps]]).astype(int))
    return pts[pts <= steps]


def _alignment(A: torch.Tensor, A_star: torch.Tensor) -> torch.Tensor:
    """Cosine between each trial's stacked heads ``A`` ``(B, H, ...)`` and H copies of ``A_star`` ``(B, ...)``."""
    stacked = A_star.unsqueeze(1).expand_as(A)
    num = (A * stacked).flatten(1).sum(1)
    den = A.flatten(1).norm(dim=1) * stacked.flatten(1).norm(dim=1)
    return torch.where(den > 0, num / den.clamp_min(1e-300), torch.zeros_like(num))


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
    Xtr, ytr, Xte, yte = (torch.as_tensor(np.asarray(a, dtype=np.float64)) for a in (Xtr, ytr, Xte, yte))
    if Xtr.ndim != 4 or Xte.ndim != 4 or ytr.shape != Xtr.shape[:2] or yte.shape != Xte.shape[:2]:
        raise ValueError("Xtr/Xte must be (B, n, T, d) and ytr/yte (B, n)")
    B, _, T, d = Xtr.shape
    H = check_int(H, "H")
    Us, Ws = init if init is not None else init_heads(B, H, T, d)
    if tuple(Us.shape) != (B, H, T, d) or tuple(Ws.shape) != (B, H, d, d):
        raise ValueError(f"init must have shapes {(B, H, T, d)} and {(B, H, d, d)}")
    Us, Ws = Us.clone().to(DTYPE), Ws.clone().to(DTYPE)
    rec = set(int(k) for k in (record_at if record_at is not None else log_steps(spec.steps)))
    mask = None if relevant is None else torch.as_tensor(np.asarray(relevant, dtype=bool))
    tW = tU = None
    if teacher is not None:
        tW, tU = (torch.as_tensor(np.asarray(a, dtype=np.float64)) for a in teacher)
    state = {k: torch.zeros_like(v) for k, v in (("mU", Us), ("vU", Us), ("mW", Ws), ("vW", Ws))}
    logs: dict[str, list] = {k: [] for k in ("step", "train_loss", "test_loss", "train_acc", "test_acc",
                                             "avg_W_norm", "avg_U_norm", "margin_min", "margin_mean",
                                             "head_spread", "attn_score", "align_W", "align_U")}
    it = range(spec.steps + 1)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=f"H={H} {spec.optimizer}", leave=False)
    t0 = time.perf_counter()
    for k in it:
        Us.requires_grad_(True)
        Ws.requires_grad_(True)
        out, S = heads_output(Us, Ws, Xtr)
        losses = torch.nn.functional.softplus(-ytr * out).mean(dim=1)
        if k in rec:
            with torch.no_grad():
                out_te, _ = heads_output(Us, Ws, Xte)
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
                Us, Ws = Us - spec.lr_U * gU, Ws - spec.lr_W * gW
            elif spec.optimizer == "momentum":
                state["mU"] = spec.momentum * state["mU"] + gU
                state["mW"] = spec.momentum * state["mW"] + gW
                Us, Ws = Us - spec.lr_U * state["mU"], Ws - spec.lr_W * state["mW"]
            else:
                b1, b2 = spec.betas
                c1, c2 = 1 - b1 ** (k + 1), 1 - b2 ** (k + 1)
                for blk, g, lr, eps in (("U", gU, spec.lr_U, spec.eps_U), ("W", gW, spec.lr_W, spec.eps_W)):
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


def dm2_trials(trials: int, n_train: int, n_test: int, *, T: int = 10, d: int = 5,
               W_norm: float = 3.0, gamma_dm2: float = 0.2, seed: int = 0) -> dict[str, Any]:
    """Stacked DM2 data sets, one planted teacher per trial (seeds ``seed + trial``)."""
    Xtr, ytr, Xte, yte, Wst, Ust, acc = [], [], [], [], [], [], []
    for j in range(check_int(trials, "trials")):
        teacher: Teacher = planted_teacher(T, d, W_norm=W_norm, seed=seed + j)
        X, y, a = sample_dm2(n_train, teacher, gamma_dm2=gamma_dm2, seed=10_000 + seed + j)
        Xt, yt, _ = sample_dm2(n_test, teacher, gamma_dm2=gamma_dm2, seed=20_000 + seed + j)
        Xtr.append(X), ytr.append(y), Xte.append(Xt), yte.append(yt)
        Wst.append(teacher.W), Ust.append(teacher.U), acc.append(a)
    return dict(Xtr=np.stack(Xtr), ytr=np.stack(ytr), Xte=np.stack(Xte), yte=np.stack(yte),
                W_star=np.stack(Wst), U_star=np.stack(Ust), acceptance=np.array(acc))


def dm2_sweep(data: dict[str, Any], Hs: list[int], optimizer: str, *, steps: int,
              lr_rule: str = "sqrtH", lr: float = 1.0, progress: bool = False) -> dict[int, dict[str, Any]]:
    """Train every ``H`` in ``Hs`` on the stacked DM2 trials; step size ``lr * sqrt(H)`` or ``lr``."""
    if lr_rule not in ("sqrtH", "constant"):
        raise ValueError(f"lr_rule must be 'sqrtH' or 'constant', got {lr_rule!r}")
    out = {}
    for H in Hs:
        eta = lr * math.sqrt(H) if lr_rule == "sqrtH" else lr
        spec = TrainSpec.uniform(optimizer, eta, steps)
        out[H] = train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=H, spec=spec,
                             teacher=(data["W_star"], data["U_star"]), progress=progress)
    return out


# ---------------------------------------------------------------------------
# Command line: the full DM2 sweeps (Figures 4-5) with provenance.
# ---------------------------------------------------------------------------

FIGURE_SETTINGS = {
    # figure: list of (optimizer, lr_rule, lr)
    "fig4": [("gd", "sqrtH", 1.0)],
    "fig5": [("momentum", "sqrtH", 1.0), ("adam", "constant", 0.01)],
}


def _summarize(run: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in run.items()
            if k not in ("Us", "Ws")}


def main(argv: list[str] | None = None) -> None:
    """Run the DM2 experiments (Figures 4-5) and write ``<out>/dm2_<figure>.json`` with provenance."""
    from ..results import provenance, write_result

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--scale", choices=("smoke", "full"), default="smoke")
    ap.add_argument("--out", default="results/deora-experiments/")
    ap.add_argument("--figures", nargs="+", default=sorted(FIGURE_SETTINGS))
    args = ap.parse_args(argv)
    full = args.scale == "full"
    cfg = dict(trials=5 if full else 2, n_train=1000 if full else 200, n_test=3000 if full else 600,
               T=10, d=5, W_norm=3.0, gamma_dm2=0.2, Hs=[1, 2, 4, 8, 16, 32] if full else [1, 4, 16],
               steps=5000 if full else 300, seed=0)
    data = dm2_trials(cfg["trials"], cfg["n_train"], cfg["n_test"], T=cfg["T"], d=cfg["d"],
                      W_norm=cfg["W_norm"], gamma_dm2=cfg["gamma_dm2"], seed=cfg["seed"])
    for fig in args.figures:
        t0 = time.perf_counter()
        runs = {f"{opt}:{rule}:{lr}": {str(H): _summarize(r) for H, r in
                                        dm2_sweep(data, cfg["Hs"], opt, steps=cfg["steps"], lr_rule=rule,
                                                  lr=lr, progress=True).items()}
                for opt, rule, lr in FIGURE_SETTINGS[fig]}
        prov = provenance({**cfg, "figure": fig, "settings": FIGURE_SETTINGS[fig]},
                          wall_time_s=time.perf_counter() - t0, scale=args.scale)
        path = write_result(Path(args.out) / f"dm2_{fig}.json",
                            {"runs": runs, "acceptance": data["acceptance"].tolist()}, prov)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
