"""Deora et al., App. G, Figure 6: the offline substitute the book runs instead of SST-2.

The lexicon-sentiment task of :mod:`attention_theory.deora.lexicon_sentiment` and the
from-scratch encoder of :mod:`attention_theory.deora.sentiment_encoder`, trained with AdamW (lr
``1e-3``, weight decay 0.01, batch 32) for ``H`` in ``{1, 2, 4, 8, 16}``
(:func:`train_substitute`, :func:`run_substitute`; sizes per scale: :func:`substitute_config`,
the configuration of the part ``substitute`` of the experiment
:mod:`attention_theory.deora.sst2`).  It is a different task and an untrained model; it cannot
confirm or refute the SST-2 claim.  Used by ``book/deora/sst2.md``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.deora import lexicon_sentiment as ls
from attention_theory.deora.sentiment_encoder import build_encoder
from attention_theory.results import load_json_checkpoint, save_json_checkpoint
from attention_theory.validation import check_int, check_positive, torch_generator

__all__ = ["substitute_config", "train_substitute", "run_substitute", "summarize_substitute"]


def substitute_config(scale: str | None = None) -> dict[str, Any]:
    """Sizes of the substitute run at ``scale`` (default: ``ATTN_SCALE``)."""
    full = (scale == "full") if scale is not None else (pick(False, True))
    if scale not in (None, "smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    base = {"d_model": 64, "n_layers": 2, "d_ff": 128, "lr": 1e-3, "weight_decay": 0.01, "batch_size": 32,
            "max_len": 24, "min_valence": 1.5, "n_polar": ls.DEFAULT_N_POLAR, "p_negate": 0.3,
            "dtype": "float32"}
    if full:
        base.update(n_train=20000, n_test=2000, epochs=5, heads=[1, 2, 4, 8, 16], seeds=[0, 1, 2],
                    evals_per_epoch=4)
    else:
        # 1k sentences for one epoch (32 steps) do not get a from-scratch model past chance;
        # 4k sentences for two epochs (250 steps) do (test accuracy about 0.7)
        base.update(n_train=4000, n_test=500, epochs=2, heads=[1, 4], seeds=[0], evals_per_epoch=2)
    return base


@torch.no_grad()
def _eval_encoder(model: torch.nn.Module, X: torch.Tensor, y: torch.Tensor,
                  batch: int = 500) -> tuple[float, float]:
    model.eval()
    loss, correct = 0.0, 0
    for i in range(0, len(y), batch):
        logits = model(X[i:i + batch])
        loss += float(torch.nn.functional.cross_entropy(logits, y[i:i + batch], reduction="sum"))
        correct += int((logits.argmax(-1) == y[i:i + batch]).sum())
    model.train()
    return loss / len(y), correct / len(y)


def train_substitute(data: dict[str, Any], H: int, *, seed: int = 0, epochs: int = 1, batch_size: int = 32,
                     lr: float = 1e-3, weight_decay: float = 0.01, evals_per_epoch: int = 1,
                     d_model: int = 64, n_layers: int = 2, d_ff: int = 128, dtype: str = "float32",
                     progress: bool = True, **_: Any) -> dict[str, Any]:
    """Train the from-scratch encoder with ``H`` heads on a
    :func:`~attention_theory.deora.lexicon_sentiment.lexicon_dataset`.

    Returns ``step_loss`` (train loss of every mini-batch), and at ``evals_per_epoch`` points
    per epoch (and at step 0) the test loss and accuracy (``eval_step``, ``eval_epoch``,
    ``test_loss``, ``test_acc``).
    """
    H = check_int(H, "H")
    epochs = check_int(epochs, "epochs")
    batch_size = check_int(batch_size, "batch_size")
    evals_per_epoch = check_int(evals_per_epoch, "evals_per_epoch")
    lr = check_positive(lr, "lr")
    weight_decay = check_positive(weight_decay, "weight_decay", allow_zero=True)
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
    tdtype = getattr(torch, dtype)
    Xtr, ytr = torch.as_tensor(data["Xtr"]), torch.as_tensor(data["ytr"])
    Xte, yte = torch.as_tensor(data["Xte"]), torch.as_tensor(data["yte"])
    model = build_encoder(len(data["vocab"]), H, seed=seed, dtype=tdtype, d_model=d_model, n_layers=n_layers,
                          d_ff=d_ff, max_len=Xtr.shape[1])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch_generator(10_000 + seed)
    n = len(ytr)
    per_epoch = math.ceil(n / batch_size)
    eval_at = {round(per_epoch * e / evals_per_epoch) + k * per_epoch
               for k in range(epochs) for e in range(1, evals_per_epoch + 1)}
    from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

    step_loss, eval_step, test_loss, test_acc = [], [0], [], []
    l0, a0 = _eval_encoder(model, Xte, yte)
    test_loss.append(l0)
    test_acc.append(a0)
    bar = tqdm(total=epochs * per_epoch, desc=f"substitute H={H} seed={seed}", disable=not progress,
               leave=False)
    step = 0
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        for i in range(0, n, batch_size):
            idx = order[i:i + batch_size]
            loss = torch.nn.functional.cross_entropy(model(Xtr[idx]), ytr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            step_loss.append(float(loss.detach()))
            bar.update(1)
            if step in eval_at:
                tl, ta = _eval_encoder(model, Xte, yte)
                eval_step.append(step)
                test_loss.append(tl)
                test_acc.append(ta)
    bar.close()
    return {"H": H, "seed": seed, "steps_per_epoch": per_epoch, "step_loss": np.asarray(step_loss),
            "eval_step": np.asarray(eval_step), "eval_epoch": np.asarray(eval_step) / per_epoch,
            "test_loss": np.asarray(test_loss), "test_acc": np.asarray(test_acc)}


def run_substitute(config: dict[str, Any] | None = None, *, progress: bool = True,
                   checkpoint: str | os.PathLike | None = None) -> dict[str, Any]:
    """Every ``(H, seed)`` run of the substitute; ``runs[H]`` is the list over seeds.

    The data of seed ``s`` (train and test) is shared by all head counts, so the comparison
    across ``H`` is paired. With ``checkpoint``, finished runs are saved after each run (with a
    SHA-256 checksum, :func:`attention_theory.results.save_json_checkpoint`) and reused when the
    same configuration is started again (resume after an interruption); a damaged checkpoint
    raises :class:`attention_theory.results.CorruptCheckpoint` naming the file.
    """
    cfg = dict(config or substitute_config())
    done: dict[str, Any] = {}
    ck = load_json_checkpoint(checkpoint) if checkpoint is not None else None
    if ck is not None and _same_runs(ck.get("config", {}), _jsonable_cfg(cfg)):
        done = ck["runs"]
    runs: dict[int, list[dict[str, Any]]] = {H: [] for H in cfg["heads"]}
    for s in cfg["seeds"]:
        data = ls.lexicon_dataset(cfg["n_train"], cfg["n_test"], seed=s, max_len=cfg["max_len"],
                                  min_valence=cfg["min_valence"], n_polar=cfg["n_polar"],
                                  p_negate=cfg["p_negate"])
        for H in cfg["heads"]:
            key = f"{H}-{s}"
            if key in done:
                runs[H].append({k: (np.asarray(v) if isinstance(v, list) else v)
                                for k, v in done[key].items()})
                continue
            r = train_substitute(data, H, seed=s, progress=progress, **cfg)
            runs[H].append(r)
            if checkpoint is not None:
                done[key] = r
                save_json_checkpoint(checkpoint, {"config": _jsonable_cfg(cfg), "runs": done})
    return {"config": cfg, "runs": runs}


def _same_runs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two configurations whose (H, seed) runs are interchangeable (heads and seeds may differ)."""
    strip = lambda c: {k: v for k, v in c.items() if k not in ("heads", "seeds")}  # noqa: E731
    return strip(a) == strip(b)


def _jsonable_cfg(cfg: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(cfg))


def _smooth(x: np.ndarray, w: int) -> np.ndarray:
    w = max(1, min(w, len(x)))
    return np.convolve(x, np.ones(w) / w, mode="valid")


def summarize_substitute(result: dict[str, Any], *, loss_threshold: float = 0.3) -> dict[str, Any]:
    """Per ``H`` (mean over seeds): test accuracy after the first evaluation point and at the end,
    the step at which the smoothed train loss (window = 1/10 epoch) first falls below
    ``loss_threshold`` (``None`` if never), and the mean train loss over the first epoch."""
    if not isinstance(result, dict) or not isinstance(result.get("runs"), dict):
        raise TypeError("result must be the dict of run_substitute (with a 'runs' dict), got "
                        f"{type(result).__name__}")
    check_positive(loss_threshold, "loss_threshold")
    out = {}
    for H, rs in result["runs"].items():
        per = int(rs[0]["steps_per_epoch"])
        hit = []
        for r in rs:
            sm = _smooth(np.asarray(r["step_loss"], dtype=float), max(1, per // 10))
            below = np.flatnonzero(sm < loss_threshold)
            hit.append(int(below[0]) + max(1, per // 10) if below.size else None)
        out[int(H)] = {
            "first_eval_acc": float(np.mean([r["test_acc"][1] for r in rs])),
            "final_test_acc": float(np.mean([r["test_acc"][-1] for r in rs])),
            "final_test_loss": float(np.mean([r["test_loss"][-1] for r in rs])),
            "epoch1_train_loss": float(np.mean([np.mean(np.asarray(r["step_loss"])[:per]) for r in rs])),
            "steps_to_loss_threshold": (None if any(h is None for h in hit) else float(np.mean(hit))),
            "n_seeds": len(rs),
        }
    return out
