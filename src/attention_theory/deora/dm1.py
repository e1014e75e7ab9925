"""The tokenized-mixture data model DM1 of Deora et al. (Section 5) with Assumption 3 noise.

Patterns (canonical choice, Assumption 3 (ii)): ``mu_+ = S e_1``, ``mu_- = S e_2`` and
``nu_l = S e_{2+l}``, ``l = 1..M``; coordinates ``M+3..d`` carry only noise.  A sample
``(X, y)`` has ``y`` uniform on ``{-1, +1}``, a set ``R`` of ``zeta T`` label-relevant
positions (uniform among subsets of that size, or the first ones), ``x_t = mu_y`` for
``t in R`` and ``x_t = nu_{j_t} + z_t`` otherwise with ``j_t`` uniform on ``[M]``.

Noise (``noise=``):

* ``"uniform"``  bounded noise satisfying Assumption 3 *exactly*: in pattern coordinates
  ``z = (a, b, c_1..c_M, w)`` with ``|a|, |b| <= Z_mu/S``, ``|c_l| <= Z_nu/(M S)`` uniform and
  ``w`` uniform in the ball of radius ``Z_perp`` of the orthogonal complement; then
  ``|<z, mu_pm>| <= Z_mu``, ``|<z, nu_l>| <= Z_nu/M`` and ``||z|| <= Z`` (:attr:`DM1Config.Z`);
* ``"corner"``   every coefficient at a bound, ``||w|| = Z_perp``; the signs of ``a, b`` hurt the
  label (``y <u_star, z> = -2 Z_mu``), the signs of ``c`` are random;
* ``"gaussian"`` ``z ~ N(0, sigma^2 I_d)`` as in the experiments of App. G (violates Assumption 3);
* ``"none"``     ``z = 0``.

The adversarial mode of the book's checks optimizes the coefficients directly; use
:func:`coefficients_to_noise` (numpy or torch) and :func:`assemble` for that.
All arrays are float64; every draw is seeded.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from attention_theory.validation import (
    as_array,
    check_int,
    check_positive,
    check_probability,
    check_seed,
    reject_complex,
)

__all__ = ["NOISE_MODES", "DM1Config", "DM1Sample", "patterns", "sample", "assemble",
           "coefficients_to_noise", "noise_bounds_ok"]

NOISE_MODES = ("uniform", "corner", "gaussian", "none")


@dataclasses.dataclass(frozen=True)
class DM1Config:
    """Parameters of DM1 + Assumption 3.

    ``T`` tokens, ``d >= M + 2`` features, ``M`` irrelevant patterns, signal strength ``S``,
    sparsity ``zeta`` (``zeta T`` must be an integer in ``[1, T-1]``), noise bounds ``Z_mu``,
    ``Z_nu``, ``Z_perp`` (bounded modes) or ``sigma`` (``"gaussian"``), ``relevant`` in
    ``{"uniform", "first"}`` (law of the set ``R``).
    """

    T: int = 8
    d: int = 9
    M: int = 3
    S: float = 1.5
    zeta: float = 0.25
    Z_mu: float = 0.05
    Z_nu: float = 0.05
    Z_perp: float = 0.3
    noise: str = "uniform"
    sigma: float = 0.0
    relevant: str = "uniform"

    def __post_init__(self) -> None:
        T = check_int(self.T, "T", minimum=2)
        M = check_int(self.M, "M")
        d = check_int(self.d, "d")
        if d < M + 2:
            raise ValueError(f"d must be >= M + 2 = {M + 2} (orthogonal patterns), got {d}")
        check_positive(self.S, "S")
        zeta = check_probability(self.zeta, "zeta")
        k = zeta * T
        if abs(k - round(k)) > 1e-9 or not 1 <= round(k) <= T - 1:
            raise ValueError(f"zeta * T must be an integer in [1, T-1], got zeta={zeta}, T={T}")
        for name in ("Z_mu", "Z_nu", "Z_perp", "sigma"):
            check_positive(getattr(self, name), name, allow_zero=True)
        if self.Z_perp > 0 and d == M + 2:
            raise ValueError("Z_perp must be 0 when d == M + 2 (no orthogonal complement)")
        if self.noise not in NOISE_MODES:
            raise ValueError(f"noise must be one of {NOISE_MODES}, got {self.noise!r}")
        if self.relevant not in ("uniform", "first"):
            raise ValueError(f"relevant must be 'uniform' or 'first', got {self.relevant!r}")

    @property
    def n_relevant(self) -> int:
        """``|R| = zeta T``."""
        return int(round(self.zeta * self.T))

    @property
    def Z(self) -> float:
        """Largest noise norm of the bounded modes: ``sqrt(2 Z_mu^2/S^2 + Z_nu^2/(M S^2) + Z_perp^2)``."""
        return math.sqrt(2 * self.Z_mu**2 / self.S**2 + self.Z_nu**2 / (self.M * self.S**2)
                         + self.Z_perp**2)

    @property
    def Zbar(self) -> float:
        """``max(Z_mu, Z_nu)``."""
        return max(self.Z_mu, self.Z_nu)

    @property
    def R(self) -> float:
        """Token radius of Assumption 3: ``sqrt(S^2 + Z^2 + 2 Z_nu / M)``."""
        return math.sqrt(self.S**2 + self.Z**2 + 2 * self.Z_nu / self.M)

    @property
    def coef_bounds(self) -> np.ndarray:
        """Bounds on the pattern coefficients ``(a, b, c_1..c_M)``, shape ``(M + 2,)``."""
        return np.array([self.Z_mu / self.S] * 2 + [self.Z_nu / (self.M * self.S)] * self.M)

    def replace(self, **kw: Any) -> "DM1Config":
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **kw)


@dataclasses.dataclass
class DM1Sample:
    """``X`` ``(n, T, d)``, ``y`` ``(n,)`` in ``{-1, +1}``, ``relevant`` ``(n, T)`` bool,
    ``j`` ``(n, T)`` pattern index of irrelevant tokens (``-1`` on relevant ones), ``z`` ``(n, T, d)``
    noise (zero on relevant tokens)."""

    X: np.ndarray
    y: np.ndarray
    relevant: np.ndarray
    j: np.ndarray
    z: np.ndarray
    config: DM1Config

    def __len__(self) -> int:
        return int(self.y.shape[0])


def _check_cfg(cfg: Any) -> DM1Config:
    if not isinstance(cfg, DM1Config):
        raise TypeError(f"cfg must be a DM1Config, got {type(cfg).__name__}")
    return cfg


def _noise_arg(x: Any, name: str, *, empty_ok: bool = False) -> Any:
    """A real noise array of at least one dimension: a torch tensor is checked and returned as it is
    (dtype and autograd graph kept), anything else is returned as a validated float64 numpy array.
    ``empty_ok``: a zero-size array is valid (the orthogonal part ``w`` when ``d == M + 2``)."""
    try:
        import torch

        if isinstance(x, torch.Tensor):
            if x.is_complex() or not x.is_floating_point():
                raise TypeError(f"{name} must be a real floating-point tensor, got dtype {x.dtype}")
            if x.dim() == 0 or (x.numel() == 0 and not empty_ok):
                raise ValueError(f"{name} must be a non-empty array of at least one dimension, "
                                 f"got shape {tuple(x.shape)}")
            try:
                finite = bool(torch.isfinite(x.detach()).all())
            except RuntimeError:  # inside a function transform: no value can be read
                finite = True
            if not finite:
                raise ValueError(f"{name} must contain only finite values")
            return x
    except ImportError:  # pragma: no cover
        pass
    if empty_ok and isinstance(x, np.ndarray) and x.size == 0 and x.ndim > 0:
        reject_complex(x, name)
        return np.asarray(x, dtype=np.float64)
    arr = as_array(x, name)
    if arr.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension, got a scalar")
    return arr


def patterns(cfg: DM1Config) -> dict[str, np.ndarray]:
    """``{"mu_plus": (d,), "mu_minus": (d,), "nu": (M, d), "u_star": (d,)}`` (canonical, norm ``S``)."""
    _check_cfg(cfg)
    E = np.eye(cfg.d) * cfg.S
    return {"mu_plus": E[0], "mu_minus": E[1], "nu": E[2:2 + cfg.M], "u_star": E[0] - E[1]}


def coefficients_to_noise(cfg: DM1Config, coef: Any, w: Any) -> Any:
    """Noise ``z`` from pattern coefficients ``coef`` ``(..., M+2)`` and orthogonal part ``w``
    ``(..., d-M-2)``.

    With canonical patterns the coordinates of ``z`` are ``(coef, w)``; works for numpy arrays
    and torch tensors (differentiable), no validation of the bounds (see :func:`noise_bounds_ok`).
    """
    _check_cfg(cfg)
    coef = _noise_arg(coef, "coef")
    w = _noise_arg(w, "w", empty_ok=cfg.d == cfg.M + 2)
    if isinstance(coef, np.ndarray) != isinstance(w, np.ndarray):
        raise TypeError(f"w must be of the kind of coef (both numpy arrays or both torch tensors), "
                        f"got {type(w).__name__} and {type(coef).__name__}")
    if coef.shape[-1] != cfg.M + 2:
        raise ValueError(f"coef must have last dimension M + 2 = {cfg.M + 2}, got {coef.shape}")
    if w.shape[-1] != cfg.d - cfg.M - 2:
        raise ValueError(f"w must have last dimension d - M - 2 = {cfg.d - cfg.M - 2}, got {w.shape}")
    if tuple(coef.shape[:-1]) != tuple(w.shape[:-1]):
        raise ValueError(f"w must have the leading dimensions of coef {tuple(coef.shape[:-1])}, "
                         f"got shape {tuple(w.shape)}")
    try:
        import torch

        if isinstance(coef, torch.Tensor):
            return torch.cat([coef, w.to(coef.dtype)], dim=-1)
    except ImportError:  # pragma: no cover
        pass
    return np.concatenate([np.asarray(coef, float), np.asarray(w, float)], axis=-1)


def assemble(cfg: DM1Config, y: Any, relevant: Any, j: Any, z: Any) -> Any:
    """Tokens ``X`` ``(n, T, d)`` from labels ``(n,)``, mask ``(n, T)``, indices ``(n, T)``, noise
    ``(n, T, d)``.

    ``x_t = mu_y`` on relevant positions and ``nu_{j_t} + z_t`` elsewhere (noise on relevant
    positions is ignored).  Works with numpy arrays and torch tensors (for ``z``).
    """
    _check_cfg(cfg)
    y = as_array(y, "y", ndim=1)
    rel_values = as_array(relevant, "relevant", ndim=2)
    if not np.all((rel_values == 0) | (rel_values == 1)):
        raise ValueError("relevant must be a boolean mask (entries True/False or 0/1)")
    rel = rel_values.astype(bool)
    j_values = as_array(j, "j", ndim=2)
    if not np.all(j_values == np.round(j_values)):
        raise ValueError("j must contain integer pattern indices")
    jj = j_values.astype(np.int64)
    n = y.shape[0]
    if rel.shape != (n, cfg.T) or jj.shape != (n, cfg.T):
        raise ValueError(f"relevant and j must have shape (n, T) = {(n, cfg.T)}, got {rel.shape}, {jj.shape}")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must contain only -1 and +1")
    if not np.all(rel.sum(1) == cfg.n_relevant):
        raise ValueError(f"every row of relevant must have zeta T = {cfg.n_relevant} entries")
    if np.any((jj[~rel] < 0) | (jj[~rel] >= cfg.M)):
        raise ValueError(f"j must lie in 0..M-1 = 0..{cfg.M - 1} on irrelevant positions")
    pt = patterns(cfg)
    mu = np.where(y[:, None] > 0, pt["mu_plus"][None, :], pt["mu_minus"][None, :])      # (n, d)
    nu = pt["nu"][np.clip(jj, 0, cfg.M - 1)]                                                # (n, T, d)
    base = np.where(rel[:, :, None], mu[:, None, :], nu)
    mask = (~rel)[:, :, None].astype(float)
    try:
        import torch

        if isinstance(z, torch.Tensor):
            z = _noise_arg(z, "z")
            if tuple(z.shape) != (n, cfg.T, cfg.d):
                raise ValueError(f"z must have shape (n, T, d) = {(n, cfg.T, cfg.d)}, got {tuple(z.shape)}")
            return torch.as_tensor(base, dtype=z.dtype) + torch.as_tensor(mask, dtype=z.dtype) * z
    except ImportError:  # pragma: no cover
        pass
    z = as_array(z, "z")
    if z.shape != (n, cfg.T, cfg.d):
        raise ValueError(f"z must have shape (n, T, d) = {(n, cfg.T, cfg.d)}, got {z.shape}")
    return base + mask * z


def _ball(rng: np.random.Generator, shape: tuple[int, ...], k: int, radius: float,
          surface: bool) -> np.ndarray:
    if k == 0:
        return np.zeros(shape + (0,))
    g = rng.standard_normal(shape + (k,))
    g /= np.maximum(np.linalg.norm(g, axis=-1, keepdims=True), 1e-300)
    r = np.ones(shape + (1,)) if surface else rng.random(shape + (1,)) ** (1.0 / k)
    return radius * r * g


def _noise(cfg: DM1Config, rng: np.random.Generator, y: np.ndarray, mode: str) -> np.ndarray:
    n, T, M, d = y.shape[0], cfg.T, cfg.M, cfg.d
    if mode == "none":
        return np.zeros((n, T, d))
    if mode == "gaussian":
        return cfg.sigma * rng.standard_normal((n, T, d))
    bnd = cfg.coef_bounds
    k = d - M - 2
    if mode == "uniform":
        coef = rng.uniform(-1.0, 1.0, size=(n, T, M + 2)) * bnd
        w = _ball(rng, (n, T), k, cfg.Z_perp, surface=False)
    else:  # corner: y <u_star, z> = y (a - b) S = -2 Z_mu
        s = rng.choice([-1.0, 1.0], size=(n, T, M + 2))
        s[:, :, 0] = -y[:, None]
        s[:, :, 1] = y[:, None]
        coef = s * bnd
        w = _ball(rng, (n, T), k, cfg.Z_perp, surface=True)
    return coefficients_to_noise(cfg, coef, w)


def sample(cfg: DM1Config, n: int, seed: int = 0, *, noise: str | None = None,
           y: Any = None) -> DM1Sample:
    """``n`` i.i.d. draws of DM1 (seeded). ``noise`` overrides ``cfg.noise``; ``y`` fixes the labels."""
    _check_cfg(cfg)
    n = check_int(n, "n")
    seed = check_seed(seed)
    mode = cfg.noise if noise is None else noise
    if mode not in NOISE_MODES:
        raise ValueError(f"noise must be one of {NOISE_MODES}, got {mode!r}")
    rng = np.random.default_rng(seed)
    if y is None:
        yy = rng.choice([-1.0, 1.0], size=n)
    else:
        yy = np.asarray(y, dtype=float)
        if yy.shape != (n,) or not np.all(np.isin(yy, (-1.0, 1.0))):
            raise ValueError(f"y must have shape ({n},) with entries in {{-1, +1}}")
    k = cfg.n_relevant
    if cfg.relevant == "first":
        rel = np.zeros((n, cfg.T), dtype=bool)
        rel[:, :k] = True
    else:
        order = np.argsort(rng.random((n, cfg.T)), axis=1)
        rel = np.zeros((n, cfg.T), dtype=bool)
        np.put_along_axis(rel, order[:, :k], True, axis=1)
    j = rng.integers(0, cfg.M, size=(n, cfg.T))
    j[rel] = -1
    z = _noise(cfg, rng, yy, mode)
    z[rel] = 0.0
    X = assemble(cfg, yy, rel, j, z)
    return DM1Sample(X=X, y=yy, relevant=rel, j=j, z=z, config=cfg)


def noise_bounds_ok(cfg: DM1Config, z: Any, *, rtol: float = 1e-12) -> np.ndarray:
    """Per token, whether ``z`` satisfies Assumption 3 (iv): ``(n, T)`` bool.

    ``|<z, mu_pm>| <= Z_mu``, ``|<z, nu_l>| <= Z_nu / M`` for every ``l`` and ``||z|| <= Z``.
    """
    _check_cfg(cfg)
    z = as_array(z, "z", ndim=3)
    if z.shape[-1] != cfg.d:
        raise ValueError(f"z must have shape (n, T, d) with d = {cfg.d}, got {z.shape}")
    rtol = check_positive(rtol, "rtol", allow_zero=True)
    pt = patterns(cfg)
    tol = 1 + rtol
    ok = (np.abs(z @ pt["mu_plus"]) <= cfg.Z_mu * tol + 1e-15)
    ok &= (np.abs(z @ pt["mu_minus"]) <= cfg.Z_mu * tol + 1e-15)
    ok &= np.all(np.abs(z @ pt["nu"].T) <= cfg.Z_nu / cfg.M * tol + 1e-15, axis=-1)
    ok &= np.linalg.norm(z, axis=-1) <= cfg.Z * tol + 1e-15
    return ok
