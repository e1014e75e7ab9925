"""The word-masking pre-training loss of Trauger & Tewari (Sec. 5, App. G).

The loss as printed, the masked logits it is built from, and a Monte-Carlo estimate of the
loss class's complexity; the checks of :mod:`attention_theory.trauger.checks.word_masking`
evaluate them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attention_theory.foundations.softmax import softmax
from attention_theory.trauger import single_layer_model as ts
from attention_theory.validation import (
    as_array,
    as_matrix,
    check_int,
    check_positive,
    check_seed,
    refuses_overflow,
)

__all__ = ['loss_class_mc', 'masked_logits', 'printed_masked_loss']


@refuses_overflow
def printed_masked_loss(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Eq. 5.1 literally: ``-sum_c y_c log softmax(x)_c`` with one-hot ``y`` (shapes ``(..., K)``)."""
    x = as_array(x, "x")
    y = as_array(y, "y")
    if x.ndim == 0 or y.shape != x.shape:
        raise ValueError(f"x and y must have the same shape (..., K), got x {x.shape} and y {y.shape}")
    return -np.sum(y * np.log(softmax(x)), axis=-1)


def masked_logits(W: Any, Y_tau: Any) -> np.ndarray:
    """Vocabulary scores ``W (Y_L)_tau``: ``W`` ``(K, d)``, ``Y_tau`` ``(..., d)`` -> ``(..., K)``."""
    W = as_matrix(W, "W")
    Y_tau = as_array(Y_tau, "Y_tau")
    if Y_tau.ndim == 0 or Y_tau.shape[-1] != W.shape[1]:
        raise ValueError(f"W must be (K, d) and Y_tau (..., d); got {W.shape} and {Y_tau.shape}")
    return Y_tau @ W.T


def loss_class_mc(*, K: int, m: int, T: int, d: int = 3, k: int = 2, Bx: float = 1.0, B_w: float = 1.0,
                  B_qk: float = 1.0, clip: float = 10.0, n_draws: int = 12, restarts: int = 2,
                  steps: int = 80, seed: int = 0) -> dict[str, Any]:
    """Monte-Carlo lower estimate of ``Rad_m`` of the clipped masked-word loss class
    ``{(X, c) -> min(CE(W (Y_1)_tau, c), clip)}`` with rows ``||W_s||_1 <= B_w``, column-wise
    ``||W_c||, ||W_v|| <= 1`` (ReLU), ``||W_QK||_{1,1} <= B_qk``; batched Adam, sup over all weights."""
    from attention_theory.foundations.gd import run_first_order

    K, m, T, d, k = (check_int(v, name) for v, name in ((K, "K"), (m, "m"), (T, "T"), (d, "d"), (k, "k")))
    for value, name in ((Bx, "Bx"), (B_w, "B_w"), (B_qk, "B_qk"), (clip, "clip")):
        check_positive(value, name)
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    restarts = check_int(restarts, "restarts")
    steps = check_int(steps, "steps", minimum=0)
    seed = check_seed(seed)
    r_w, r_qk = float(B_w), float(B_qk)  # the radii (validated) of the inner loop
    rng = np.random.default_rng(seed)
    X = torch.as_tensor(ts.sample_tokens(rng, m, T, d, Bx))
    x_mask = torch.as_tensor(ts.sample_tokens(rng, 1, 1, d, Bx)[0, 0])
    labels = torch.as_tensor(rng.integers(0, K, size=m))
    eps = torch.as_tensor(rng.choice([-1.0, 1.0], size=(n_draws, m)))
    sizes = [K * d, k * d, d * k, d * d]
    total = sum(sizes)
    Z0 = rng.standard_normal((n_draws, restarts, total))

    def values(z: torch.Tensor) -> torch.Tensor:
        parts = torch.split(z.reshape(n_draws, restarts, total), sizes, dim=-1)
        W = ts._into_l1_ball(parts[0].reshape(n_draws, restarts, K, d), r_w)  # validated above
        W_c = ts._into_l1_columns(parts[1].reshape(n_draws, restarts, k, d), 1.0)
        W_v = ts._into_l1_columns(parts[2].reshape(n_draws, restarts, d, k), 1.0)
        W_qk = ts._into_l1_ball(parts[3], r_qk).reshape(n_draws, restarts, d, d)
        q = W_qk.transpose(-1, -2) @ x_mask
        p = torch.softmax(torch.einsum("mtd,nrd->nrmt", X, q), dim=-1)
        v = torch.einsum("nrmt,mtd->nrmd", p, X)
        y = torch.relu(v @ W_v) @ W_c  # (n, r, m, d)
        logits = torch.einsum("nrmd,nrKd->nrmK", y, W)
        ce = (torch.logsumexp(logits, -1)
              - torch.gather(logits, -1, labels.expand(n_draws, restarts, m)[..., None])[..., 0])
        return torch.einsum("nrm,nm->nr", torch.clamp(ce, max=clip), eps)

    traj = run_first_order(lambda z: -values(z).sum(), torch.as_tensor(Z0.ravel()), steps=steps, lr=0.05,
                           method="adam")
    with torch.no_grad():
        per = values(traj.final).max(dim=1).values.numpy() / m
    return {"mean": float(per.mean()), "se": float(per.std(ddof=1) / math.sqrt(n_draws)), "K": K, "m": m,
            "T": T,
            "per_draw": [float(v) for v in per],
            "d": d, "Bx": Bx, "B_w": B_w, "B_qk": B_qk}
