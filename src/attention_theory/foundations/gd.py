"""Full-batch first-order methods on a flat parameter vector: GD, heavy-ball momentum, Adam.

One home for the training loops that the theory chapters follow step by step
(descent lemmas, regret bounds, leave-one-out stability, linear rates).  The
loss is any differentiable function ``loss(theta) -> scalar`` of a flat float64
tensor ``theta`` of shape ``(p,)``; the loop records the loss, the gradient norm
and (optionally) every iterate, so a chapter can evaluate a theorem's hypotheses
on the actual trajectory.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import torch

from attention_theory.validation import as_tensor, check_int, refuses_overflow

__all__ = ["Trajectory", "loss_and_grad", "run_first_order"]

METHODS = ("gd", "momentum", "adam")


@dataclasses.dataclass
class Trajectory:
    """What a run of :func:`run_first_order` produced.

    ``losses[k]`` and ``grad_norms[k]`` are evaluated at iterate ``k`` (``k = 0..steps``);
    ``iterates`` has shape ``(steps + 1, p)`` when kept, else only the last iterate is
    stored in ``final``.
    """

    method: str
    losses: torch.Tensor
    grad_norms: torch.Tensor
    final: torch.Tensor
    iterates: torch.Tensor | None = None


def _check_loss_theta(loss: object, theta: object, name: str) -> None:
    """``loss`` callable; ``theta`` a flat, finite, real torch tensor (its dtype is kept)."""
    if not callable(loss):
        raise TypeError(f"loss must be callable (theta -> scalar tensor), got {type(loss).__name__}")
    if not isinstance(theta, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(theta).__name__}")
    as_tensor(theta.detach(), name, ndim=1)


@refuses_overflow
def loss_and_grad(loss: Callable[[torch.Tensor], torch.Tensor],
                  theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(loss(theta), grad loss(theta))`` for a flat ``theta`` of shape ``(p,)`` (detached)."""
    _check_loss_theta(loss, theta, "theta")
    th = theta.detach().requires_grad_(True)
    value = loss(th)
    if value.ndim != 0:
        raise ValueError(f"loss must return a scalar, got shape {tuple(value.shape)}")
    (g,) = torch.autograd.grad(value, th)
    return value.detach(), g.detach()


@refuses_overflow
def run_first_order(loss: Callable[[torch.Tensor], torch.Tensor], theta0: torch.Tensor, *,
                    steps: int, lr: float | Callable[[int], float], method: str = "gd",
                    momentum: float = 0.9, betas: tuple[float, float] = (0.9, 0.999),
                    eps: float = 1e-8, keep_iterates: bool = False,
                    progress: bool = False) -> Trajectory:
    """Run ``steps`` full-batch iterations of ``method`` from ``theta0``.

    Parameters
    ----------
    loss:
        Differentiable scalar function of a flat parameter tensor of shape ``(p,)``.
    theta0:
        Initial parameters, shape ``(p,)``; the run keeps its dtype (use float64 to verify).
    steps:
        Number of updates (``>= 0``).
    lr:
        Step size, or a function ``k -> eta_k`` of the iteration index.
    method:
        ``"gd"`` (theta <- theta - eta g), ``"momentum"`` (heavy ball:
        ``v <- momentum v + g``, ``theta <- theta - eta v``) or ``"adam"`` (bias-corrected).
    keep_iterates:
        Store every iterate (memory ``(steps + 1) p``).
    progress:
        Show a tqdm progress bar.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    _check_loss_theta(loss, theta0, "theta0")
    steps = check_int(steps, "steps", minimum=0)
    if not isinstance(theta0, torch.Tensor) or theta0.ndim != 1:
        raise ValueError("theta0 must be a 1-d torch tensor of shape (p,)")
    if not torch.isfinite(theta0).all():
        raise ValueError("theta0 must be finite")
    if not callable(lr) and not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a positive number or a callable, got {lr!r}")
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must lie in [0, 1), got {momentum}")
    step_size = lr if callable(lr) else (lambda k: float(lr))

    theta = theta0.detach().clone()
    losses, gnorms = [], []
    iterates = [theta.clone()] if keep_iterates else None
    buf = torch.zeros_like(theta)
    second = torch.zeros_like(theta)
    it = range(steps)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=method, leave=False)
    for k in it:
        value, g = loss_and_grad(loss, theta)
        losses.append(value)
        gnorms.append(torch.linalg.vector_norm(g))
        eta = step_size(k)
        if method == "gd":
            theta = theta - eta * g
        elif method == "momentum":
            buf = momentum * buf + g
            theta = theta - eta * buf
        else:
            b1, b2 = betas
            buf = b1 * buf + (1 - b1) * g
            second = b2 * second + (1 - b2) * g * g
            mhat = buf / (1 - b1 ** (k + 1))
            vhat = second / (1 - b2 ** (k + 1))
            theta = theta - eta * mhat / (vhat.sqrt() + eps)
        if keep_iterates:
            iterates.append(theta.clone())
    value, g = loss_and_grad(loss, theta)
    losses.append(value)
    gnorms.append(torch.linalg.vector_norm(g))
    return Trajectory(method=method, losses=torch.stack(losses), grad_norms=torch.stack(gnorms),
                      final=theta, iterates=torch.stack(iterates) if keep_iterates else None)
