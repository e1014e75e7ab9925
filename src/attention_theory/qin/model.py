"""The single-layer Transformer of Qin, Zhou & Zhu (2025), **as reconstructed** (torch, float64).

The source fragment lost its formulas; this model is the book's reconstruction (see
``book/qin/residual-gd.md`` and ``shared/spec/claims-qin.md``): single-head attention with
an output projection, a two-matrix feed-forward network, residual connections with on/off
switches around each sub-layer, squared loss, and the smooth activation of Assumption 1.

Shapes (``n`` sequences of ``T`` tokens, ``N = n T`` rows, width ``d``):

* ``X``, ``Y``: ``(N, d)``; rows ``jT .. jT+T-1`` are sequence ``j`` (attention is
  block-diagonal: a token attends only to tokens of its own sequence).
* parameters, a dict with the six blocks of :data:`BLOCKS`:
  ``WQ, WK``: ``(d, dk)``; ``WV``: ``(d, dv)``; ``WO``: ``(dv, d)``; ``W1``: ``(d, m)``;
  ``W2``: ``(m, d)``.
* flat parameters ``theta``: ``(p,)``, the six blocks row-major in the order of
  :data:`BLOCKS` (:func:`pack` / :func:`unpack`).

Forward pass (``tau = 1/sqrt(dk)``, ``rho1, rho2`` in ``{0, 1}``)::

    P = tau X WQ WK^T X^T  (masked outside the diagonal blocks)
    S = softmax_rows(P),   Z = rho1 X + S X WV WO          (attention output, N x d)
    U = Z W1,  H = sigma(U),  F = rho2 Z + H W2,            L = 1/2 ||F - Y||_F^2

Every function is pure and differentiable (no in-place operations).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from numbers import Real
from typing import Any, Mapping

import numpy as np
import torch

from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.validation import as_tensor, check_finite, check_int, check_positive, refuses_overflow

__all__ = [
    "BLOCKS",
    "QinConfig",
    "Dims",
    "dims_of",
    "activation",
    "activation_prime",
    "activation_second",
    "activation_beta",
    "block_mask",
    "forward",
    "output",
    "loss",
    "gradients",
    "flat_gradient_fn",
    "pack",
    "unpack",
    "n_params",
    "init_params",
    "flat_loss",
    "attention_output_singular_values",
    "stack_forward",
    "stack_loss",
]


#: The six parameter blocks, in the order used by :func:`pack` and by the Lipschitz matrices.
BLOCKS = ("WQ", "WK", "WV", "WO", "W1", "W2")


@dataclasses.dataclass(frozen=True)
class QinConfig:
    """Options of the forward pass.

    ``n_seq``: number of sequences ``n`` (``N`` must be divisible by it);
    ``rho1`` / ``rho2``: residual switch around attention / FFN (0 or 1);
    ``gamma`` in (0, 1) and ``b > 0``: the activation of Assumption 1 (reconstructed),
    ``sigma(x) = gamma x + (1 - gamma)(softplus(b x) - log 2) / b``.
    """

    n_seq: int = 1
    rho1: int = 1
    rho2: int = 1
    gamma: float = 0.2
    b: float = 4.0

    def __post_init__(self) -> None:
        check_int(self.n_seq, "n_seq")
        for name in ("rho1", "rho2"):
            v = getattr(self, name)
            if not isinstance(v, Real):
                raise TypeError(f"{name} must be 0 or 1, got {v!r}")
            if isinstance(v, bool) or v not in (0, 1):
                raise ValueError(f"{name} must be 0 or 1, got {v!r}")
        g = check_positive(self.gamma, "gamma")
        if not g < 1:
            raise ValueError(f"gamma must lie in (0, 1), got {g}")
        check_positive(self.b, "b")


@dataclasses.dataclass(frozen=True)
class Dims:
    """Sizes ``d`` (width), ``dk`` (query/key), ``dv`` (value), ``m`` (FFN width)."""

    d: int
    dk: int
    dv: int
    m: int

    def __post_init__(self) -> None:
        for name in ("d", "dk", "dv", "m"):
            check_int(getattr(self, name), name)

    def shapes(self) -> dict[str, tuple[int, int]]:
        d, dk, dv, m = self.d, self.dk, self.dv, self.m
        return {"WQ": (d, dk), "WK": (d, dk), "WV": (d, dv), "WO": (dv, d), "W1": (d, m),
                "W2": (m, d)}


def _cfg(cfg: Any) -> QinConfig:
    if cfg is None:
        return QinConfig()
    if not isinstance(cfg, QinConfig):
        raise TypeError(f"cfg must be a QinConfig, got {type(cfg).__name__}")
    return cfg


def dims_of(params: Mapping[str, Any]) -> Dims:
    """The :class:`Dims` of a parameter dict (validated: all six blocks, consistent shapes)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping with keys {BLOCKS}, got {type(params).__name__}")
    missing = [b for b in BLOCKS if b not in params]
    if missing:
        raise ValueError(f"params lacks blocks {missing}")
    WQ = as_tensor(params["WQ"], "params['WQ']", ndim=2)
    d, dk = WQ.shape
    dv = as_tensor(params["WV"], "params['WV']", ndim=2).shape[1]
    m = as_tensor(params["W1"], "params['W1']", ndim=2).shape[1]
    dims = Dims(int(d), int(dk), int(dv), int(m))
    for b, shp in dims.shapes().items():
        as_tensor(params[b], f"params['{b}']", shape=shp)
    return dims


def _params(params: Mapping[str, Any]) -> dict[str, torch.Tensor]:
    dims_of(params)
    return {b: as_tensor(params[b], f"params['{b}']") for b in BLOCKS}


# ---------------------------------------------------------------------------
# Activation of Assumption 1 (reconstructed)
# ---------------------------------------------------------------------------


def _activation_constants(gamma: Any, b: Any) -> None:
    """``gamma`` in (0, 1) and ``b > 0`` (Assumption 1, reconstructed)."""
    g = check_positive(gamma, "gamma")
    if not g < 1:
        raise ValueError(f"gamma must lie in (0, 1), got {g}")
    check_positive(b, "b")


def _elementwise_input(x: Any, name: str = "x") -> torch.Tensor:
    """A real, non-empty, finite tensor of any shape (a floating tensor keeps its dtype; other
    input becomes float64).  Finiteness is not checked inside function transforms."""
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        if x.numel() == 0:
            raise ValueError(f"{name} must not be empty (shape {tuple(x.shape)})")
        return check_finite(x, name)
    return as_tensor(x, name)


def _sigma(x: torch.Tensor, gamma: float, b: float) -> torch.Tensor:
    # logaddexp(bx, 0) = log(1 + e^{bx}) exactly (torch's softplus switches to the identity
    # above a threshold, which would make sigma' jump by ~1e-9)
    return gamma * x + (1 - gamma) * (torch.logaddexp(b * x, torch.zeros_like(x)) - math.log(2.0)) / b


def _sigma_prime(x: torch.Tensor, gamma: float, b: float) -> torch.Tensor:
    return gamma + (1 - gamma) * torch.sigmoid(b * x)


def activation(x: torch.Tensor, gamma: float = 0.2, b: float = 4.0) -> torch.Tensor:
    """``sigma(x) = gamma x + (1-gamma)(softplus(b x) - log 2)/b``, elementwise; ``sigma(0) = 0``.

    ``x``: a tensor of any shape (a floating tensor keeps its dtype); ``gamma`` in (0, 1), ``b > 0``.
    """
    x = _elementwise_input(x)
    _activation_constants(gamma, b)
    return _sigma(x, gamma, b)


def activation_prime(x: torch.Tensor, gamma: float = 0.2, b: float = 4.0) -> torch.Tensor:
    """``sigma'(x) = gamma + (1-gamma) sigmoid(b x)``, in ``(gamma, 1)``."""
    x = _elementwise_input(x)
    _activation_constants(gamma, b)
    return _sigma_prime(x, gamma, b)


def activation_second(x: torch.Tensor, gamma: float = 0.2, b: float = 4.0) -> torch.Tensor:
    """``sigma''(x) = (1-gamma) b s (1 - s)`` with ``s = sigmoid(b x)``; at most ``beta``."""
    x = _elementwise_input(x)
    _activation_constants(gamma, b)
    s = torch.sigmoid(b * x)
    return (1 - gamma) * b * s * (1 - s)


def activation_beta(gamma: float = 0.2, b: float = 4.0) -> float:
    """Lipschitz constant of ``sigma'``: ``beta = (1-gamma) b / 4`` (the maximum of ``sigma''``)."""
    _activation_constants(gamma, b)
    return (1 - gamma) * b / 4


# ---------------------------------------------------------------------------
# Forward pass
# ---------------------------------------------------------------------------


def block_mask(N: int, n_seq: int) -> torch.Tensor:
    """Boolean ``(N, N)`` mask, ``True`` inside the ``n_seq`` diagonal ``T x T`` blocks."""
    N, n_seq = check_int(N, "N"), check_int(n_seq, "n_seq")
    if N % n_seq:
        raise ValueError(f"N={N} rows cannot be split into n_seq={n_seq} equal sequences")
    T = N // n_seq
    ids = torch.arange(N) // T
    return ids[:, None] == ids[None, :]


def _check_X(X: Any, d: int, name: str = "X") -> torch.Tensor:
    return as_tensor(X, name, shape=(None, d))


@refuses_overflow
def forward(params: Mapping[str, Any], X: Any, cfg: QinConfig | None = None) -> dict[str, torch.Tensor]:
    """All intermediate quantities of the forward pass.

    Returns a dict with ``P, S`` (``(N, N)``; ``P`` is ``-inf`` outside the blocks),
    ``Z, F`` (``(N, d)``), ``U, H`` (``(N, m)``), ``V = X WV WO`` (``(N, d)``).
    """
    cfg = _cfg(cfg)
    p = _params(params)
    X = _check_X(X, p["WQ"].shape[0])
    block_mask(X.shape[0], cfg.n_seq)  # validates n_seq against N
    return _forward_t(p, X, cfg)


@functools.lru_cache(maxsize=64)
def _mask(N: int, n_seq: int) -> torch.Tensor:
    return block_mask(N, n_seq)


def _forward_t(p: Mapping[str, torch.Tensor], X: torch.Tensor, cfg: QinConfig) -> dict[str, torch.Tensor]:
    """:func:`forward` without input validation (inner loops; inputs already checked)."""
    N = X.shape[0]
    mask = _mask(N, cfg.n_seq)
    tau = 1.0 / math.sqrt(p["WQ"].shape[1])
    P = tau * (X @ p["WQ"]) @ (X @ p["WK"]).T
    P = torch.where(mask, P, torch.full_like(P, -math.inf))
    S = torch.softmax(P, dim=-1)
    V = X @ p["WV"] @ p["WO"]
    Z = cfg.rho1 * X + S @ V
    U = Z @ p["W1"]
    H = _sigma(U, cfg.gamma, cfg.b)
    F = cfg.rho2 * Z + H @ p["W2"]
    return {"P": P, "S": S, "V": V, "Z": Z, "U": U, "H": H, "F": F}


@refuses_overflow
def output(params: Mapping[str, Any], X: Any, cfg: QinConfig | None = None) -> torch.Tensor:
    """The model output ``F``, shape ``(N, d)``."""
    return forward(params, X, cfg)["F"]


@refuses_overflow
def loss(params: Mapping[str, Any], X: Any, Y: Any, cfg: QinConfig | None = None) -> torch.Tensor:
    """Squared loss ``L = 1/2 ||F - Y||_F^2`` (0-d tensor); ``Y`` has the shape of ``X``."""
    X = as_tensor(X, "X", ndim=2)
    Y = as_tensor(Y, "Y", shape=tuple(X.shape))
    return 0.5 * torch.sum((output(params, X, cfg) - Y) ** 2)


@refuses_overflow
def gradients(params: Mapping[str, Any], X: Any, Y: Any,
              cfg: QinConfig | None = None) -> dict[str, torch.Tensor]:
    """Closed-form gradients of the six blocks (the reconstructed Eq. (37)).

    With ``R = F - Y``, ``D1 = sigma'(U) * (R W2^T)``, ``GZ = rho2 R + D1 W1^T``,
    ``GS = GZ V^T`` and ``GP = S * (GS - rowsum(S * GS))`` (row-wise softmax backward)::

        dW2 = H^T R,   dW1 = Z^T D1,   dWO = (S X WV)^T GZ,   dWV = (S X)^T GZ WO^T,
        dWQ = tau X^T GP X WK,   dWK = tau X^T GP^T X WQ.

    Returns a dict keyed by :data:`BLOCKS` (plus ``"R", "D1", "GZ", "GS", "GP"``), each of the
    block's shape.
    """
    cfg = _cfg(cfg)
    p = _params(params)
    X = _check_X(X, p["WQ"].shape[0])
    Y = as_tensor(Y, "Y", shape=tuple(X.shape))
    block_mask(X.shape[0], cfg.n_seq)
    return _gradients_t(p, X, Y, cfg)


def _gradients_t(p: Mapping[str, torch.Tensor], X: torch.Tensor, Y: torch.Tensor,
                 cfg: QinConfig) -> dict[str, torch.Tensor]:
    """:func:`gradients` without input validation."""
    f = _forward_t(p, X, cfg)
    tau = 1.0 / math.sqrt(p["WQ"].shape[1])
    S = f["S"]
    R = f["F"] - Y
    D1 = _sigma_prime(f["U"], cfg.gamma, cfg.b) * (R @ p["W2"].T)
    GZ = cfg.rho2 * R + D1 @ p["W1"].T
    GS = GZ @ f["V"].T
    GP = S * (GS - torch.sum(S * GS, dim=-1, keepdim=True))
    SX = S @ X
    return {
        "WQ": tau * X.T @ GP @ X @ p["WK"],
        "WK": tau * X.T @ GP.T @ X @ p["WQ"],
        "WV": SX.T @ GZ @ p["WO"].T,
        "WO": (SX @ p["WV"]).T @ GZ,
        "W1": f["Z"].T @ D1,
        "W2": f["H"].T @ R,
        "R": R, "D1": D1, "GZ": GZ, "GS": GS, "GP": GP,
    }


# ---------------------------------------------------------------------------
# Flat parametrization
# ---------------------------------------------------------------------------


def n_params(dims: Dims) -> int:
    """Number of scalar parameters ``p``."""
    if not isinstance(dims, Dims):
        raise TypeError(f"dims must be a Dims, got {type(dims).__name__}")
    return sum(a * b for a, b in dims.shapes().values())


def pack(params: Mapping[str, Any]) -> torch.Tensor:
    """Flatten the six blocks (row-major, order :data:`BLOCKS`) into ``(p,)``."""
    p = _params(params)
    return torch.cat([p[b].reshape(-1) for b in BLOCKS])


def unpack(theta: Any, dims: Dims) -> dict[str, torch.Tensor]:
    """Inverse of :func:`pack`: ``theta`` of shape ``(p,)`` to the dict of six blocks."""
    if not isinstance(dims, Dims):
        raise TypeError(f"dims must be a Dims, got {type(dims).__name__}")
    theta = as_tensor(theta, "theta", shape=(n_params(dims),))
    return _unpack_t(theta, dims)


def _unpack_t(theta: torch.Tensor, dims: Dims) -> dict[str, torch.Tensor]:
    out, k = {}, 0
    for b, (r, c) in dims.shapes().items():
        out[b] = theta[k:k + r * c].reshape(r, c)
        k += r * c
    return out


def flat_gradient_fn(X: Any, Y: Any, dims: Dims, cfg: QinConfig | None = None):
    """``theta -> flat closed-form gradient`` (inputs validated once, differentiable)."""
    if not isinstance(dims, Dims):
        raise TypeError(f"dims must be a Dims, got {type(dims).__name__}")
    X = as_tensor(X, "X", shape=(None, dims.d))
    Y = as_tensor(Y, "Y", shape=tuple(X.shape))
    cfg = _cfg(cfg)
    block_mask(X.shape[0], cfg.n_seq)

    def grad(theta: torch.Tensor) -> torch.Tensor:
        g = _gradients_t(_unpack_t(theta, dims), X, Y, cfg)
        return torch.cat([g[b].reshape(-1) for b in BLOCKS])

    return grad


def flat_loss(X: Any, Y: Any, dims: Dims, cfg: QinConfig | None = None):
    """``theta -> L(theta)`` for :func:`attention_theory.foundations.gd.run_first_order` (inputs
    validated once; ``theta`` of shape ``(p,)``)."""
    if not isinstance(dims, Dims):
        raise TypeError(f"dims must be a Dims, got {type(dims).__name__}")
    X = as_tensor(X, "X", shape=(None, dims.d))
    Y = as_tensor(Y, "Y", shape=tuple(X.shape))
    cfg = _cfg(cfg)
    block_mask(X.shape[0], cfg.n_seq)
    return lambda theta: 0.5 * torch.sum((_forward_t(_unpack_t(theta, dims), X, cfg)["F"] - Y) ** 2)


def init_params(dims: Dims, rng: np.random.Generator, *, qk_scale: float = 1.0,
                vo_scale: float = 1.0, ffn_scale: float = 1.0,
                orthonormal_W2: bool = False) -> dict[str, torch.Tensor]:
    """Gaussian initialization (float64).

    ``WQ, WK`` entries ``N(0, qk_scale^2 / d)``; ``WV, WO`` entries ``N(0, vo_scale^2 / fan_in)``;
    ``W1`` entries ``N(0, ffn_scale^2 / d)``; ``W2`` entries ``N(0, ffn_scale^2 / m)``, or
    ``W2`` with orthonormal columns when ``orthonormal_W2`` (needs ``m >= d``).
    """
    if not isinstance(dims, Dims):
        raise TypeError(f"dims must be a Dims, got {type(dims).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy Generator")
    for name, v in (("qk_scale", qk_scale), ("vo_scale", vo_scale), ("ffn_scale", ffn_scale)):
        check_positive(v, name, allow_zero=True)
    d, dk, dv, m = dims.d, dims.dk, dims.dv, dims.m

    def g(r: int, c: int, s: float) -> torch.Tensor:
        return torch.as_tensor(rng.standard_normal((r, c)) * s, dtype=VERIFICATION_DTYPE)

    out = {"WQ": g(d, dk, qk_scale / math.sqrt(d)), "WK": g(d, dk, qk_scale / math.sqrt(d)),
           "WV": g(d, dv, vo_scale / math.sqrt(d)), "WO": g(dv, d, vo_scale / math.sqrt(dv)),
           "W1": g(d, m, ffn_scale / math.sqrt(d)), "W2": g(m, d, ffn_scale / math.sqrt(m))}
    if orthonormal_W2:
        if m < d:
            raise ValueError(f"orthonormal_W2 needs m >= d, got m={m}, d={d}")
        q, _ = np.linalg.qr(rng.standard_normal((m, d)))
        out["W2"] = torch.as_tensor(q * ffn_scale, dtype=VERIFICATION_DTYPE)
    return out


def attention_output_singular_values(params: Mapping[str, Any], X: Any,
                                     cfg: QinConfig | None = None) -> np.ndarray:
    """Singular values of the attention output ``Z`` (descending, ``min(N, d)`` of them)."""
    with torch.no_grad():
        Z = forward(params, X, cfg)["Z"]
    return np.linalg.svd(Z.numpy(), compute_uv=False)


# ---------------------------------------------------------------------------
# Multi-layer stacking (E3; outside the fragment)
# ---------------------------------------------------------------------------


@refuses_overflow
def stack_forward(layers: list[Mapping[str, Any]], X: Any,
                  cfg: QinConfig | None = None) -> list[dict[str, torch.Tensor]]:
    """``L`` blocks in sequence: ``F^(0) = X``, ``F^(l) = block_l(F^(l-1))``.

    ``layers`` is a list of parameter dicts of equal width ``d``; returns the list of each
    block's intermediates (:func:`forward`), the last ``"F"`` being the network output.
    """
    if not isinstance(layers, (list, tuple)) or len(layers) == 0:
        raise ValueError("layers must be a non-empty list of parameter dicts")
    h = as_tensor(X, "X", ndim=2)
    outs = []
    for k, lay in enumerate(layers):
        if dims_of(lay).d != h.shape[1]:
            raise ValueError(f"layers[{k}] has width {dims_of(lay).d}, input has {h.shape[1]}")
        f = forward(lay, h, cfg)
        outs.append(f)
        h = f["F"]
    return outs


@refuses_overflow
def stack_loss(layers: list[Mapping[str, Any]], X: Any, Y: Any,
               cfg: QinConfig | None = None) -> torch.Tensor:
    """``1/2 ||F^(L) - Y||_F^2`` for the stacked network (0-d tensor)."""
    X = as_tensor(X, "X", ndim=2)
    Y = as_tensor(Y, "Y", shape=tuple(X.shape))
    return 0.5 * torch.sum((stack_forward(layers, X, cfg)[-1]["F"] - Y) ** 2)
