"""Hessian spectra of a scalar loss on a flat parameter vector: exact (small) or Lanczos (large).

A loss here is any differentiable ``loss(theta) -> 0-d tensor`` of a flat float64 tensor
``theta`` of shape ``(p,)``.  Two routes to the extreme eigenvalues of ``Hess loss(theta)``:

* :func:`exact_hessian` materializes the ``(p, p)`` matrix with ``torch.func.hessian``;
  it refuses ``p > max_params`` (default 4000) so that no chapter builds a dense Hessian
  of a large model by accident;
* :func:`hessian_operator` wraps Hessian-vector products (double backward through one
  retained graph) in a ``scipy.sparse.linalg.LinearOperator``; :func:`lanczos_extreme`
  runs ARPACK's Lanczos (``eigsh``) on it from several seeded random starts.

:func:`lambda_min` and :func:`spectral_norm` pick the route (``method="auto"``: exact up
to ``exact_limit`` parameters).  Ritz values lie inside the spectrum, so Lanczos can
*miss* an extreme eigenvalue (report a ``lambda_min`` that is too large) but never
invent one; the exact route is authoritative and the unit tests compare the two.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from attention_theory.validation import check_int, check_positive, check_seed, refuses_overflow

__all__ = ["hvp_function", "hessian_operator", "exact_hessian", "lanczos_extreme",
           "lambda_min", "spectral_norm"]

Loss = Callable[[torch.Tensor], torch.Tensor]


def _check_theta(theta: torch.Tensor) -> torch.Tensor:
    if not isinstance(theta, torch.Tensor):
        raise TypeError(f"theta must be a torch.Tensor, got {type(theta).__name__}")
    if theta.is_complex():  # the float64 conversion below would drop the imaginary part
        raise TypeError(f"theta must be real-valued, got dtype {theta.dtype}")
    if theta.ndim != 1 or theta.numel() == 0:
        raise ValueError(f"theta must be a non-empty 1-d tensor of shape (p,), got {tuple(theta.shape)}")
    if not bool(torch.isfinite(theta).all()):
        raise ValueError("theta must contain only finite values")
    return theta.detach().to(torch.float64)


def _check_loss(loss: Loss) -> None:
    if not callable(loss):
        raise TypeError(f"loss must be callable, got {type(loss).__name__}")


def hvp_function(loss: Loss, theta: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """``v -> Hess loss(theta) v`` (shape ``(p,) -> (p,)``) by double backward.

    The gradient graph is built once and retained, so each product costs about one
    backward pass.
    """
    _check_loss(loss)
    th = _check_theta(theta).clone().requires_grad_(True)
    value = loss(th)
    if value.ndim != 0:
        raise ValueError(f"loss must return a scalar, got shape {tuple(value.shape)}")
    (g,) = torch.autograd.grad(value, th, create_graph=True)

    def hvp(v: torch.Tensor) -> torch.Tensor:
        (hv,) = torch.autograd.grad(g, th, grad_outputs=v, retain_graph=True)
        return hv.detach()

    return hvp


def hessian_operator(loss: Loss, theta: torch.Tensor) -> LinearOperator:
    """The Hessian of ``loss`` at ``theta`` as a symmetric float64 ``LinearOperator`` ``(p, p)``."""
    th = _check_theta(theta)
    hvp = hvp_function(loss, th)
    p = th.numel()

    def matvec(x: np.ndarray) -> np.ndarray:
        v = torch.as_tensor(np.asarray(x, dtype=np.float64).reshape(-1))
        return hvp(v).numpy()

    return LinearOperator((p, p), matvec=matvec, rmatvec=matvec, dtype=np.float64)


@refuses_overflow
def exact_hessian(loss: Loss, theta: torch.Tensor, *, max_params: int = 4000) -> torch.Tensor:
    """Dense Hessian ``(p, p)`` by ``torch.func.hessian``; raises ``ValueError`` if ``p > max_params``."""
    _check_loss(loss)
    th = _check_theta(theta)
    max_params = check_int(max_params, "max_params")
    if th.numel() > max_params:
        raise ValueError(f"theta has {th.numel()} parameters > max_params={max_params}: "
                         "use the Lanczos route (lanczos_extreme) instead of a dense Hessian")
    Hm = torch.func.hessian(loss)(th)
    return 0.5 * (Hm + Hm.T)


@refuses_overflow
def lanczos_extreme(loss: Loss, theta: torch.Tensor, *, which: str = "SA", tol: float = 1e-10,
                    starts: int = 2, seed: int = 0, ncv: int | None = None,
                    maxiter: int | None = None) -> float:
    """One extreme eigenvalue of the Hessian by Lanczos (``eigsh(k=1)``) on HVPs.

    ``which="SA"``: smallest algebraic (``lambda_min``); ``"LA"``: largest; ``"LM"``:
    largest magnitude (the spectral norm is its absolute value).  The best value over
    ``starts`` seeded random starting vectors is returned (smallest for ``"SA"``,
    largest otherwise): each run gives a Ritz value inside the spectrum.
    """
    if which not in ("SA", "LA", "LM"):
        raise ValueError(f"which must be 'SA', 'LA' or 'LM', got {which!r}")
    tol = check_positive(tol, "tol")
    starts = check_int(starts, "starts")
    th = _check_theta(theta)
    p = th.numel()
    if p < 3:  # ARPACK needs k < p - 1; tiny problems go dense
        ev = torch.linalg.eigvalsh(exact_hessian(loss, th)).numpy()
        return float(ev[0] if which == "SA" else ev[-1] if which == "LA" else ev[np.argmax(np.abs(ev))])
    op = hessian_operator(loss, th)
    rng = np.random.default_rng(check_seed(seed))
    ncv = min(p - 1, ncv or 40)
    vals = []
    for _ in range(starts):
        v0 = rng.standard_normal(p)
        try:
            w = eigsh(op, k=1, which=which, tol=tol, v0=v0, ncv=ncv,
                      maxiter=maxiter or 50 * p, return_eigenvectors=False)
            vals.append(float(w[0]))
        except ArpackNoConvergence as exc:  # keep what converged, if anything
            if len(exc.eigenvalues):
                vals.append(float(np.real(exc.eigenvalues[0])))
    if not vals:
        raise RuntimeError("Lanczos did not converge from any start; raise maxiter or ncv")
    if which == "SA":
        return min(vals)
    if which == "LA":
        return max(vals)
    return max(vals, key=abs)


@refuses_overflow
def lambda_min(loss: Loss, theta: torch.Tensor, *, method: str = "auto", exact_limit: int = 2000,
               **lanczos_kw) -> float:
    """Smallest Hessian eigenvalue: exact ``eigvalsh`` if ``p <= exact_limit`` (``method="auto"``
    or ``"exact"``), else Lanczos (``method="lanczos"``)."""
    if method not in ("auto", "exact", "lanczos"):
        raise ValueError(f"method must be 'auto', 'exact' or 'lanczos', got {method!r}")
    th = _check_theta(theta)
    if method == "exact" or (method == "auto" and th.numel() <= exact_limit):
        return float(torch.linalg.eigvalsh(exact_hessian(loss, th, max_params=max(exact_limit, 4000)))[0])
    return lanczos_extreme(loss, th, which="SA", **lanczos_kw)


@refuses_overflow
def spectral_norm(loss: Loss, theta: torch.Tensor, *, method: str = "auto", exact_limit: int = 2000,
                  **lanczos_kw) -> float:
    """``||Hess loss(theta)||_2``: exact or Lanczos (``which="LM"``), as in :func:`lambda_min`."""
    if method not in ("auto", "exact", "lanczos"):
        raise ValueError(f"method must be 'auto', 'exact' or 'lanczos', got {method!r}")
    th = _check_theta(theta)
    if method == "exact" or (method == "auto" and th.numel() <= exact_limit):
        ev = torch.linalg.eigvalsh(exact_hessian(loss, th, max_params=max(exact_limit, 4000)))
        return float(ev.abs().max())
    return abs(lanczos_extreme(loss, th, which="LM", **lanczos_kw))
