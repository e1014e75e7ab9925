"""The scalar single-layer Transformer of Trauger & Tewari, Sec. 4.1 (pure torch functions, float64).

This is the Sec. 4.1 specialization of the Sec. 2.6 block: one attention head, the [CLS]
row only, no normalization, read out by a vector ``w``:

    f_theta(X) = w^T W_c^T sigma( W_v^T X^T softmax(X W_QK^T x_cls) ),

with ``theta = (w, W_c, W_v, W_QK)``, ``w`` of shape ``(d,)``, ``W_c`` ``(k, d)``, ``W_v``
``(d, k)``, ``W_QK`` ``(d, d)``, tokens ``X`` of shape ``(T, d)`` (or a batch ``(m, T, d)``)
and a *fixed* query vector ``x_cls`` of shape ``(d,)``.  Transposed,
``Y_cls = W_c^T sigma(W_v^T X^T p)`` is the [CLS] row of the Sec. 2.6 head
``sigma(softmax(X W_QK X^T) X W_v) W_c`` when the query row is ``x_cls``.
Appendix C writes the scores as ``X W_QK x_cls`` (no transpose); ``transpose=False``
selects that reading.

Norm constraints (the ones the proof of Theorem 4.1 uses; Sec. 2.1's column convention):
``||w||_1 <= B_w``, every **column** of ``W_c`` has l1 norm ``<= B_Wc`` (``||W_c||_{1,inf}``),
every **column** of ``W_v`` has l1 norm ``<= B_Wv`` (``||W_v||_{1,inf}``).  The paper prints
the same bounds on the transposes (rows); :func:`constraint_norms` reports both readings.

Every function accepts numpy arrays or torch tensors and returns torch float64 tensors.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from attention_theory.trauger._args import check_float_tensor
from attention_theory.validation import (
    as_array,
    check_bool,
    check_int,
    check_positive,
    check_rng,
    check_seed,
    refuses_overflow,
    reject_complex,
)

__all__ = [
    "ACTIVATIONS",
    "activation",
    "as_t",
    "attention_weights",
    "pooled_tokens",
    "cls_output",
    "single_layer_scalar",
    "constraint_norms",
    "into_l1_ball",
    "into_l1_columns",
    "project_l1_ball",
    "random_feasible_params",
    "TOKEN_KINDS",
    "sample_tokens",
    "outer_sup_identity",
    "rademacher_mc_identity",
    "sup_full_class",
]

#: Activations with their Lipschitz constants; each satisfies sigma(0) = 0.
ACTIVATIONS: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], float]] = {
    "identity": (lambda z: z, 1.0),
    "relu": (torch.relu, 1.0),
    "tanh": (torch.tanh, 1.0),
    "leaky_relu": (lambda z: torch.nn.functional.leaky_relu(z, 0.1), 1.0),
}


def activation(sigma: str | Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
    """The activation function named ``sigma`` (a key of :data:`ACTIVATIONS`) or ``sigma`` itself."""
    if callable(sigma):
        return sigma
    if not isinstance(sigma, str):
        raise TypeError(f"sigma must be a name or a callable, got {sigma!r}")
    if sigma not in ACTIVATIONS:
        raise ValueError(f"sigma must be one of {sorted(ACTIVATIONS)}, got {sigma!r}")
    return ACTIVATIONS[sigma][0]


def as_t(x: Any, name: str, *, ndim: int | tuple[int, ...] | None = None) -> torch.Tensor:
    """A float64 tensor with the given number of dimensions and finite entries (keeps autograd)."""
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}")
    if isinstance(x, torch.Tensor):
        if x.is_complex():
            raise TypeError(f"{name} must be real-valued, got dtype {x.dtype}")
        t = x if x.dtype == torch.float64 else x.double()
    else:
        reject_complex(x, name)
        try:
            t = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if t.ndim not in allowed:
            raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape "
                             f"{tuple(t.shape)}")
    if t.numel() == 0:
        raise ValueError(f"{name} must not be empty")
    if not torch.isfinite(t.detach()).all():
        raise ValueError(f"{name} must contain only finite values")
    return t


def _xq(X: Any, W_qk: Any, x_cls: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    X = as_t(X, "X", ndim=(2, 3))
    d = X.shape[-1]
    W_qk = as_t(W_qk, "W_qk", ndim=2)
    x_cls = as_t(x_cls, "x_cls", ndim=1)
    if W_qk.shape != (d, d):
        raise ValueError(f"W_qk must have shape ({d}, {d}) to match X, got {tuple(W_qk.shape)}")
    if x_cls.shape != (d,):
        raise ValueError(f"x_cls must have shape ({d},), got {tuple(x_cls.shape)}")
    return X, W_qk, x_cls


def attention_weights(X: Any, W_qk: Any, x_cls: Any, *, transpose: bool = True) -> torch.Tensor:
    """``softmax(X W_QK^T x_cls)`` (Sec. 4.1; ``transpose=False``: App. C's ``X W_QK x_cls``).

    ``X`` is ``(T, d)`` or ``(m, T, d)``; returns ``(T,)`` or ``(m, T)``.
    """
    X, W_qk, x_cls = _xq(X, W_qk, x_cls)
    transpose = check_bool(transpose, "transpose")
    q = (W_qk.T if transpose else W_qk) @ x_cls
    return torch.softmax(X @ q, dim=-1)


def pooled_tokens(X: Any, W_qk: Any, x_cls: Any, *, transpose: bool = True) -> torch.Tensor:
    """``v = X^T softmax(X W_QK^T x_cls)``: the attention-weighted token, ``(d,)`` or ``(m, d)``.

    This is the vector ``v_i(W_QK)`` of App. C; its l2 norm is at most ``max_t ||x_t||_2``.
    """
    X = as_t(X, "X", ndim=(2, 3))
    p = attention_weights(X, W_qk, x_cls, transpose=transpose)
    return (p.unsqueeze(-2) @ X).squeeze(-2)


def _check_params(d: int, w: Any, W_c: Any, W_v: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    w = as_t(w, "w", ndim=1)
    W_c = as_t(W_c, "W_c", ndim=2)
    W_v = as_t(W_v, "W_v", ndim=2)
    if w.shape != (d,):
        raise ValueError(f"w must have shape ({d},), got {tuple(w.shape)}")
    k = W_v.shape[1]
    if W_v.shape != (d, k):
        raise ValueError(f"W_v must have shape ({d}, k), got {tuple(W_v.shape)}")
    if W_c.shape != (k, d):
        raise ValueError(f"W_c must have shape ({k}, {d}) (k x d with k from W_v), got {tuple(W_c.shape)}")
    return w, W_c, W_v


def cls_output(X: Any, W_c: Any, W_v: Any, W_qk: Any, x_cls: Any, *,
               sigma: str | Callable = "relu", transpose: bool = True) -> torch.Tensor:
    """``Y_cls = W_c^T sigma(W_v^T X^T softmax(X W_QK^T x_cls))``, shape ``(d,)`` or ``(m, d)``."""
    X, W_qk, x_cls = _xq(X, W_qk, x_cls)
    d = X.shape[-1]
    _, W_c, W_v = _check_params(d, torch.zeros(d, dtype=torch.float64), W_c, W_v)
    v = pooled_tokens(X, W_qk, x_cls, transpose=transpose)
    return activation(sigma)(v @ W_v) @ W_c


def single_layer_scalar(X: Any, w: Any, W_c: Any, W_v: Any, W_qk: Any, x_cls: Any, *,
                        sigma: str | Callable = "relu", transpose: bool = True) -> torch.Tensor:
    """``f_theta(X) = w^T Y_cls``: shape ``()`` for ``X`` ``(T, d)``, ``(m,)`` for ``(m, T, d)``."""
    X = as_t(X, "X", ndim=(2, 3))
    w, _, _ = _check_params(X.shape[-1], w, W_c, W_v)
    return cls_output(X, W_c, W_v, W_qk, x_cls, sigma=sigma, transpose=transpose) @ w


@refuses_overflow
def constraint_norms(w: Any, W_c: Any, W_v: Any, W_qk: Any) -> dict[str, float]:
    """Both readings of the Sec. 4.1 hypotheses, and the W_QK norms of Cor. 4.1.1 / D.0.1 / D.0.2.

    ``*_col`` = largest column l1 norm (what the proof uses), ``*_row`` = largest row l1
    norm (the printed ``||W^T||_{1,inf}``).
    """
    w, W_c, W_v = (as_t(a, n, ndim=nd).detach().numpy() for a, n, nd in ((w, "w", 1), (W_c, "W_c", 2),
                                                                            (W_v, "W_v", 2)))
    W_qk = as_t(W_qk, "W_qk", ndim=2).detach().numpy()
    return {
        "w_l1": float(np.abs(w).sum()),
        "W_c_col": float(np.abs(W_c).sum(0).max()), "W_c_row": float(np.abs(W_c).sum(1).max()),
        "W_v_col": float(np.abs(W_v).sum(0).max()), "W_v_row": float(np.abs(W_v).sum(1).max()),
        "W_qk_11": float(np.abs(W_qk).sum()),
        "W_qk_1inf": float(np.abs(W_qk).sum(0).max()),
        "W_qk_21": float(np.linalg.norm(W_qk, axis=0).sum()),
    }


def _into_l1_ball(Z: torch.Tensor, radius: float) -> torch.Tensor:
    """:func:`into_l1_ball` without validation (the optimizers' inner loops; ``radius`` checked)."""
    n = Z.abs().sum(-1, keepdim=True)
    return radius * Z / torch.clamp(n, min=1.0)


def _into_l1_columns(Z: torch.Tensor, radius: float) -> torch.Tensor:
    """:func:`into_l1_columns` without validation."""
    return _into_l1_ball(Z.transpose(-1, -2), radius).transpose(-1, -2)


def into_l1_ball(Z: torch.Tensor, radius: float) -> torch.Tensor:
    """Differentiable surjection onto the l1 ball over the last axis: ``radius z / max(1, ||z||_1)``.

    ``Z``: a real floating-point tensor of any shape ``(..., n)``.  Optimizing over an
    unconstrained ``Z`` through this map searches exactly the ball.
    """
    radius = check_positive(radius, "radius")
    Z = check_float_tensor(Z, "Z", min_ndim=1)
    return _into_l1_ball(Z, radius)


def into_l1_columns(Z: torch.Tensor, radius: float) -> torch.Tensor:
    """:func:`into_l1_ball` applied to every column of ``Z`` (``(..., r, c)``)."""
    radius = check_positive(radius, "radius")
    Z = check_float_tensor(Z, "Z", min_ndim=2)
    return _into_l1_columns(Z, radius)


@refuses_overflow
def project_l1_ball(v: Any, radius: float) -> np.ndarray:
    """Euclidean projection of ``v`` (any shape, flattened) onto ``{||v||_1 <= radius}``.

    Sort-based algorithm (Duchi et al. 2008); returns an array of the shape of ``v``.
    """
    radius = check_positive(radius, "radius")
    a = as_array(v, "v")
    x = a.ravel()
    if np.abs(x).sum() <= radius:
        return a.copy()
    u = np.sort(np.abs(x))[::-1]
    css = np.cumsum(u)
    rho = np.nonzero(u * np.arange(1, u.size + 1) > css - radius)[0][-1]
    theta = (css[rho] - radius) / (rho + 1.0)
    return (np.sign(x) * np.maximum(np.abs(x) - theta, 0.0)).reshape(a.shape)


def random_feasible_params(rng: np.random.Generator, d: int, k: int, *, B_w: float, B_Wc: float,
                           B_Wv: float, B_qk: float, boundary: bool = True) -> dict[str, np.ndarray]:
    """Random ``(w, W_c, W_v, W_qk)`` satisfying the corrected hypotheses (on the boundary if asked)."""
    rng = check_rng(rng)
    d, k = check_int(d, "d"), check_int(k, "k")
    for value, name in ((B_w, "B_w"), (B_Wc, "B_Wc"), (B_Wv, "B_Wv"), (B_qk, "B_qk")):
        check_positive(value, name)
    boundary = check_bool(boundary, "boundary")

    def scale(Z: np.ndarray, r: float, axis: int | None) -> np.ndarray:
        n = np.abs(Z).sum(axis=axis, keepdims=axis is not None)
        f = r / n if boundary else r * rng.uniform(0, 1, size=np.shape(n)) / n
        return Z * f

    return {
        "w": scale(rng.laplace(size=d), B_w, None),
        "W_c": scale(rng.laplace(size=(k, d)), B_Wc, 0),
        "W_v": scale(rng.laplace(size=(d, k)), B_Wv, 0),
        "W_qk": scale(rng.laplace(size=(d, d)), B_qk, None),
    }


# ---------------------------------------------------------------------------
# Samples and Monte-Carlo estimates of the empirical Rademacher complexity of the class
# ---------------------------------------------------------------------------

TOKEN_KINDS = ("sphere", "signed-basis")


def sample_tokens(rng: np.random.Generator, m: int, T: int, d: int, Bx: float, *,
                  kind: str = "sphere", r: int | None = None, shrink: float = 0.999) -> np.ndarray:
    """``m`` sequences of ``T`` tokens in ``R^d`` with ``||x_t||_2 = shrink * Bx < Bx``; shape ``(m, T, d)``.

    ``kind="sphere"``: uniform on the sphere.  ``kind="signed-basis"``: each token is
    ``+-e_j`` for ``j < r`` (default ``r = d``), uniformly: a small alphabet of orthogonal
    tokens, the adversarial choice of the catalogue (attention can *select* a token type).
    """
    rng = check_rng(rng)
    m, T, d = check_int(m, "m"), check_int(T, "T"), check_int(d, "d")
    Bx = check_positive(Bx, "Bx")
    check_positive(shrink, "shrink")
    if kind not in TOKEN_KINDS:
        raise ValueError(f"kind must be one of {TOKEN_KINDS}, got {kind!r}")
    if kind == "sphere":
        X = rng.standard_normal((m, T, d))
        X /= np.linalg.norm(X, axis=-1, keepdims=True)
    else:
        r = d if r is None else check_int(r, "r")
        if r > d:
            raise ValueError(f"r must be <= d = {d}, got {r}")
        idx = rng.integers(0, r, size=(m, T))
        sgn = rng.choice([-1.0, 1.0], size=(m, T))
        X = np.zeros((m, T, d))
        np.put_along_axis(X, idx[..., None], sgn[..., None], axis=-1)
    return shrink * Bx * X


def outer_sup_identity(eps: Any, X: Any, W_qk: Any, x_cls: Any, *, B: float = 1.0,
                       transpose: bool = True) -> torch.Tensor:
    """For ``sigma = identity``: ``sup_{w, W_c, W_v} sum_i eps_i f_theta(X_i) = B ||sum_i eps_i
    v_i(W_QK)||_inf``.

    ``eps`` has shape ``(..., m)``, ``X`` ``(m, T, d)``, ``W_qk`` ``(..., d, d)`` (batched);
    returns shape ``(...)``.  The supremum is attained by ``w = B_w e_1``,
    ``W_c = B_Wc e_1 e_1^T``, ``W_v = B_Wv s e_j e_1^T`` (see ``trauger-eq-c-4``).
    """
    X = as_t(X, "X", ndim=3)
    m, _, d = X.shape
    eps = as_t(eps, "eps")
    if eps.ndim < 1 or eps.shape[-1] != m:
        raise ValueError(f"eps must have shape (..., {m}) (m = {m} samples of X), got {tuple(eps.shape)}")
    W_qk = as_t(W_qk, "W_qk")
    if W_qk.ndim < 2 or tuple(W_qk.shape[-2:]) != (d, d):
        raise ValueError(f"W_qk must have shape (..., {d}, {d}) to match X, got {tuple(W_qk.shape)}")
    try:
        torch.broadcast_shapes(eps.shape[:-1], W_qk.shape[:-2])
    except RuntimeError:
        raise ValueError(f"the batch shapes of eps {tuple(eps.shape[:-1])} and W_qk {tuple(W_qk.shape[:-2])} "
                         f"do not broadcast") from None
    x_cls = as_t(x_cls, "x_cls", ndim=1)
    if x_cls.shape != (d,):
        raise ValueError(f"x_cls must have shape ({d},), got {tuple(x_cls.shape)}")
    B = check_positive(B, "B")
    transpose = check_bool(transpose, "transpose")
    return _outer_sup_identity(eps, X, W_qk, x_cls, B, transpose)


def _outer_sup_identity(eps: torch.Tensor, X: torch.Tensor, W_qk: torch.Tensor, x_cls: torch.Tensor,
                        B: float, transpose: bool) -> torch.Tensor:
    """:func:`outer_sup_identity` on validated float64 tensors (the optimizers' inner loops)."""
    q = (W_qk.transpose(-1, -2) if transpose else W_qk) @ x_cls  # (..., d)
    scores = torch.einsum("mtd,...d->...mt", X, q)
    v = torch.einsum("...mt,mtd->...md", torch.softmax(scores, dim=-1), X)
    u = torch.einsum("...m,...md->...d", eps, v)
    return B * u.abs().amax(-1)


@refuses_overflow
def rademacher_mc_identity(X: Any, x_cls: Any, *, B: float, B_qk: float, n_draws: int,
                           restarts: int = 4, steps: int = 150, lr: float = 0.05,
                           seed: int = 0, transpose: bool = True) -> dict[str, Any]:
    """Monte-Carlo *lower* estimate of ``Rad_m`` of the class with ``sigma = identity`` and
    ``||W_QK||_{1,1} <= B_qk`` (outer weights eliminated exactly by :func:`outer_sup_identity`).

    For each of ``n_draws`` sign vectors the supremum over ``W_QK`` is searched by Adam
    (:func:`attention_theory.foundations.gd.run_first_order`) from ``restarts`` starts (the first
    is ``W_QK = 0``), through the surjection :func:`into_l1_ball`; all runs are batched.
    Every value is attained by a feasible ``theta``, so each per-draw value is a lower
    bound on that draw's supremum.  Returns ``{"mean", "se", "per_draw", "eps"}`` (``Rad``
    includes ``1/m``).
    """
    from attention_theory.foundations.gd import run_first_order

    X = as_t(X, "X", ndim=3)
    m, _, d = X.shape
    x_cls = as_t(x_cls, "x_cls", ndim=1)
    if x_cls.shape != (d,):
        raise ValueError(f"x_cls must have shape ({d},), got {tuple(x_cls.shape)}")
    B = check_positive(B, "B")
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    restarts = check_int(restarts, "restarts")
    steps = check_int(steps, "steps", minimum=0)
    B_qk = check_positive(B_qk, "B_qk")
    check_positive(lr, "lr")
    seed = check_seed(seed)
    transpose = check_bool(transpose, "transpose")
    rng = np.random.default_rng(seed)
    eps = torch.as_tensor(rng.choice([-1.0, 1.0], size=(n_draws, m)))
    Z0 = rng.laplace(size=(n_draws, restarts, d * d))
    Z0 *= (B_qk * rng.uniform(0.2, 2.0, size=(n_draws, restarts, 1))) / np.abs(Z0).sum(-1, keepdims=True)
    Z0[:, 0] = 0.0
    shape = (n_draws, restarts, d, d)
    e = eps[:, None, :]

    def values(z: torch.Tensor) -> torch.Tensor:  # inputs validated above: no checks per step
        W = _into_l1_ball(z.reshape(n_draws, restarts, d * d), B_qk).reshape(shape)
        return _outer_sup_identity(e, X, W, x_cls, B, transpose)

    traj = run_first_order(lambda z: -values(z).sum(), torch.as_tensor(Z0.ravel()),
                           steps=steps, lr=lr, method="adam")
    with torch.no_grad():
        start = values(torch.as_tensor(Z0.ravel()))
        final = torch.maximum(values(traj.final), start)
    per_draw = final.max(dim=1).values.numpy() / m
    return {"mean": float(per_draw.mean()), "se": float(per_draw.std(ddof=1) / np.sqrt(n_draws)),
            "per_draw": per_draw, "eps": eps.numpy()}


def sup_full_class(eps: Any, X: Any, x_cls: Any, *, k: int, B_w: float, B_Wc: float, B_Wv: float,
                   B_qk: float, sigma: str = "relu", restarts: int = 4, steps: int = 200,
                   lr: float = 0.05, seed: int = 0, W_qk_fixed: Any = None) -> np.ndarray:
    """Lower estimates of ``sup_theta sum_i eps_i f_theta(X_i)`` for each sign vector in ``eps``
    (shape ``(n, m)``), optimizing all of ``theta`` (or only the outer weights when
    ``W_qk_fixed`` is given) with batched Adam through :func:`into_l1_ball` /
    :func:`into_l1_columns`.  Returns shape ``(n,)`` (no ``1/m``).
    """
    from attention_theory.foundations.gd import run_first_order

    X = as_t(X, "X", ndim=3)
    eps = as_t(eps, "eps", ndim=2)
    n, m = eps.shape
    d = X.shape[-1]
    if m != X.shape[0]:
        raise ValueError(f"eps must have shape (n, {X.shape[0]}) (one sign per sample of X), got "
                         f"{tuple(eps.shape)}")
    k, restarts = check_int(k, "k"), check_int(restarts, "restarts")
    x_cls = as_t(x_cls, "x_cls", ndim=1)
    if x_cls.shape != (d,):
        raise ValueError(f"x_cls must have shape ({d},), got {tuple(x_cls.shape)}")
    B_w, B_Wc, B_Wv, B_qk = (check_positive(v, name) for v, name in
                             ((B_w, "B_w"), (B_Wc, "B_Wc"), (B_Wv, "B_Wv"), (B_qk, "B_qk")))
    act = activation(sigma)
    steps = check_int(steps, "steps", minimum=0)
    check_positive(lr, "lr")
    seed = check_seed(seed)
    if W_qk_fixed is not None:
        W_qk_fixed = as_t(W_qk_fixed, "W_qk_fixed", ndim=2)
        if W_qk_fixed.shape != (d, d):
            raise ValueError(f"W_qk_fixed must have shape ({d}, {d}), got {tuple(W_qk_fixed.shape)}")
    rng = np.random.default_rng(seed)
    sizes = [d, k * d, d * k] + ([] if W_qk_fixed is not None else [d * d])
    total = sum(sizes)
    Z0 = rng.standard_normal((n, restarts, total))

    def unpack(z: torch.Tensor):  # inputs validated above: no checks per step
        z = z.reshape(n, restarts, total)
        parts = torch.split(z, sizes, dim=-1)
        w = _into_l1_ball(parts[0], B_w)
        W_c = _into_l1_columns(parts[1].reshape(n, restarts, k, d), B_Wc)
        W_v = _into_l1_columns(parts[2].reshape(n, restarts, d, k), B_Wv)
        if W_qk_fixed is not None:
            W_qk = W_qk_fixed.expand(n, restarts, d, d)
        else:
            W_qk = _into_l1_ball(parts[3], B_qk).reshape(n, restarts, d, d)
        return w, W_c, W_v, W_qk

    def values(z: torch.Tensor) -> torch.Tensor:
        w, W_c, W_v, W_qk = unpack(z)
        q = W_qk.transpose(-1, -2) @ x_cls
        p = torch.softmax(torch.einsum("mtd,nrd->nrmt", X, q), dim=-1)
        v = torch.einsum("nrmt,mtd->nrmd", p, X)
        h = act(v @ W_v)  # (n, r, m, k)
        y = h @ W_c  # (n, r, m, d)
        f = torch.einsum("nrmd,nrd->nrm", y, w)
        return torch.einsum("nrm,nm->nr", f, eps)

    traj = run_first_order(lambda z: -values(z).sum(), torch.as_tensor(Z0.ravel()),
                           steps=steps, lr=lr, method="adam")
    with torch.no_grad():
        return values(traj.final).max(dim=1).values.numpy()
