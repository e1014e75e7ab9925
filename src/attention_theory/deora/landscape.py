"""The empirical risk of Deora et al.'s multi-head model and the tools to probe its landscape.

The logistic risk of Eq. (2) as a function of the flat parameters (:func:`risk_fn`) and at many
parameter points at once (:func:`risk_batch`), the norms the bounds use (``||theta||_{2,inf}``,
``max_h ||U_h||_F``), random heads, the maximum of a function along a segment, the Gauss-Newton /
curvature split of the risk Hessian (Eq. (65)), the weak-convexity constant as ``H`` grows and
the one-dimensional GLQC ratio.  The checks of Lemma 6, Corollary 1, Eqs. (14)-(16) and
Proposition 4 in :mod:`attention_theory.deora.checks.landscape` evaluate them (chapter
``book/deora/landscape.md``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import scipy.optimize as so
import torch

from attention_theory.compute_cache import cached_on_disk
from attention_theory.config import cached_per_scale, pick, scale
from attention_theory.deora import model as md
from attention_theory.foundations import hessian as hs
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.search import SizedSearch
from attention_theory.validation import (
    as_tensor,
    as_vector,
    check_bool,
    check_finite,
    check_int,
    check_positive,
    check_real,
    check_rng,
    check_seed,
    real_values,
    refuses_overflow,
)

__all__ = ['glqc_1d_ratio', 'heads_grid', 'identical_head_ratio', 'identical_heads_grid',
           'identical_heads_weak_convexity', 'loss_and_grad', 'loss_hessian_decomposition', 'max_U_norm',
           'norm_2inf', 'random_heads', 'risk_batch', 'risk_closed_form', 'risk_fn', 'segment_max',
           'weak_convexity_vs_heads']


def _data(Xs: Any, ys: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Validated data ``Xs (n, T, d)``, ``ys (n,)`` as float64 tensors (a float64 tensor is kept as it
    is, with its autograd graph)."""
    Xs = as_tensor(Xs, "Xs", ndim=3)
    ys = as_tensor(ys, "ys", shape=(Xs.shape[0],))
    return Xs, ys


def _flat_params(theta: Any, name: str, H: int, T: int, d: int) -> torch.Tensor:
    """A flat parameter vector of ``H (T d + d^2)`` entries as a float64 tensor (graph kept)."""
    theta = as_tensor(theta, name, ndim=1)
    p = H * md.head_size(T, d)
    if theta.shape[0] != p:
        raise ValueError(f"{name} must have H (T d + d^2) = {p} entries, got {theta.shape[0]}")
    return theta


def search_point(z: Any, name: str, dim: int) -> None:
    """A search point: a real vector of ``dim`` finite entries, a numpy array (Nelder-Mead) or a tensor
    (L-BFGS, its graph untouched).  O(dim) checks, once per objective call."""
    t = real_values(z, name, "a vector of numbers")
    if tuple(t.shape) != (dim,):
        raise ValueError(f"{name} must have shape ({dim},), got {tuple(t.shape)}")
    check_finite(t, name)


def _size_td(size: Any) -> tuple[int, int]:
    """A size ``(T, d)`` of positive integers."""
    if isinstance(size, (str, bytes)) or not isinstance(size, (tuple, list)):
        raise TypeError(f"size must be a pair (T, d) of positive integers, got {size!r}")
    if len(size) != 2:
        raise ValueError(f"size must be a pair (T, d) of positive integers, got {size!r}")
    for v in size:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"size must be a pair (T, d) of positive integers, got {size!r}")
        if v < 1:
            raise ValueError(f"size must be a pair (T, d) of positive integers, got {size!r}")
    return int(size[0]), int(size[1])


def _head_counts(Hs: Any) -> tuple[int, ...]:
    """A non-empty sequence of head counts ``>= 1``, as a tuple of ints."""
    if isinstance(Hs, (str, bytes)) or not isinstance(Hs, (tuple, list, np.ndarray)):
        raise TypeError(f"Hs must be a sequence of head counts, got {type(Hs).__name__}")
    if len(Hs) == 0:
        raise ValueError("Hs must not be empty")
    out = []
    for H in Hs:
        if isinstance(H, bool) or not isinstance(H, (int, np.integer)):
            raise TypeError(f"Hs must contain integers (head counts), got {H!r}")
        if H < 1:
            raise ValueError(f"Hs must contain head counts >= 1, got {H}")
        out.append(int(H))
    return tuple(out)


def risk_fn(Xs: Any, ys: Any, H: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """``theta -> L^(theta)`` (logistic empirical risk of Eq. (2)) for fixed data ``Xs (n,T,d)``, ``ys
    (n,)``."""
    Xs, ys = _data(Xs, ys)
    H = check_int(H, "H")
    return lambda th: md.empirical_risk(th, Xs, ys, H)


@refuses_overflow
def risk_batch(thetas: torch.Tensor, Xs: Any, ys: Any, H: int) -> torch.Tensor:
    """Empirical risk at many parameter vectors at once: ``thetas (m, p) -> (m,)``."""
    Xs, ys = _data(Xs, ys)
    H = check_int(H, "H")
    thetas = as_tensor(thetas, "thetas", ndim=2)
    p = H * md.head_size(Xs.shape[1], Xs.shape[2])
    if thetas.shape[1] != p:
        raise ValueError(f"thetas must have H (T d + d^2) = {p} columns, got {thetas.shape[1]}")
    out = md.multi_head_output_flat(thetas, Xs, H)     # data (n, T, d) against (m, p): (m, n)
    return torch.nn.functional.softplus(-ys * out).mean(dim=1)


@refuses_overflow
def risk_closed_form(theta: torch.Tensor, Xs: torch.Tensor, ys: torch.Tensor, H: int, *,
                     hessian: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """``(L^, grad L^, Hess L^)`` at ``theta`` from the closed forms of Lemma 1 and Eq. (65), head by
    head and sample by sample (differentiable; much cheaper than ``torch.func.hessian`` at the small
    sizes the adversarial searches use).  ``Xs (n, T, d)``, ``ys (n,)``; ``hessian=False`` skips the
    Hessian (returned as ``None``)."""
    Xs, ys = _data(Xs, ys)
    H = check_int(H, "H")
    hessian = check_bool(hessian, "hessian")
    n, T, d = Xs.shape
    theta = _flat_params(theta, "theta", H, T, d)
    Us, Ws = md.unpack_heads(theta, H, T, d)
    s = 1.0 / math.sqrt(H)
    L = torch.zeros((), dtype=VERIFICATION_DTYPE)
    G = torch.zeros(theta.shape[0], dtype=VERIFICATION_DTYPE)
    Hs = torch.zeros(theta.shape[0], theta.shape[0], dtype=VERIFICATION_DTYPE)
    for i in range(n):
        X = Xs[i]
        out = s * sum(md.single_head(X, Ws[h], Us[h]) for h in range(H))
        g = s * torch.cat([torch.cat([md.grad_U(X, Ws[h]).reshape(-1),
                                      md.grad_W(X, Ws[h], Us[h]).reshape(-1)])
                           for h in range(H)])
        z = ys[i] * out
        l1, l2 = -torch.sigmoid(-z), torch.sigmoid(z) * torch.sigmoid(-z)
        L = L + torch.nn.functional.softplus(-z)
        G = G + l1 * ys[i] * g
        if hessian:
            hess = s * torch.block_diag(*[md.hessian_closed_form(X, Ws[h], Us[h]) for h in range(H)])
            Hs = Hs + l2 * torch.outer(g, g) + l1 * ys[i] * hess
    return L / n, G / n, (Hs / n if hessian else None)


@refuses_overflow
def norm_2inf(theta: Any, H: int, T: int, d: int) -> float:
    """``||theta~||_{2,inf} = max_h ||theta_h||``."""
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    th = _flat_params(theta, "theta", H, T, d).reshape(H, md.head_size(T, d))
    return float(torch.linalg.norm(th, dim=1).max())


@refuses_overflow
def max_U_norm(theta: Any, H: int, T: int, d: int) -> float:
    """``m_U = max_h ||U_h||_F`` (Lemma 6; the footnote's sharper choice)."""
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    Us, _ = md.unpack_heads(_flat_params(theta, "theta", H, T, d), H, T, d)
    return float(torch.linalg.norm(Us.reshape(H, -1), dim=1).max())


def random_heads(rng: np.random.Generator, H: int, T: int, d: int, *, u_scale: float = 1.0,
                 w_scale: float = 1.0) -> torch.Tensor:
    """IID heads: ``U_h`` entries ``N(0, u_scale^2/(T d))``, ``W_h`` entries ``N(0, w_scale^2/d^2)``,
    so ``E ||U_h||_F^2 = u_scale^2`` and ``E ||W_h||_F^2 = w_scale^2``; flat ``(H (Td + d^2),)``."""
    rng = check_rng(rng)
    H, T, d = check_int(H, "H"), check_int(T, "T"), check_int(d, "d")
    u_scale = check_positive(u_scale, "u_scale", allow_zero=True)
    w_scale = check_positive(w_scale, "w_scale", allow_zero=True)
    Us = rng.standard_normal((H, T, d)) * u_scale / math.sqrt(T * d)
    Ws = rng.standard_normal((H, d, d)) * w_scale / d
    return md.pack_heads(Us, Ws)


def segment_max(values_at: Callable[[np.ndarray], np.ndarray], *, grid: int = 201,
                refine: bool = True) -> tuple[float, float]:
    """Maximum of a scalar function of ``alpha in [0, 1]``: grid plus bounded refinement.

    ``values_at(alphas (m,)) -> (m,)``.  Returns ``(max value, argmax alpha)``.
    """
    if not callable(values_at):
        raise TypeError(f"values_at must be callable (alphas -> values), got {type(values_at).__name__}")
    grid = check_int(grid, "grid", minimum=2)
    refine = check_bool(refine, "refine")
    al = np.linspace(0.0, 1.0, grid)
    v = np.asarray(values_at(al), dtype=np.float64)
    if v.shape != (grid,):
        raise ValueError(f"values_at must return one value per alpha, shape ({grid},), got {v.shape}")
    i = int(np.argmax(v))
    best, arg = float(v[i]), float(al[i])
    if refine and 0 < i < grid - 1:
        res = so.minimize_scalar(lambda a: -float(values_at(np.array([a]))[0]),
                                 bounds=(al[i - 1], al[i + 1]), method="bounded",
                                 options={"xatol": 1e-12})
        if -res.fun > best:
            best, arg = float(-res.fun), float(res.x)
    return best, arg


@refuses_overflow
def loss_hessian_decomposition(theta: torch.Tensor, Xs: Any, ys: Any, H: int, *,
                               terms: tuple[bool, bool] = (True, True),
                               curvature_sign: float = 1.0) -> torch.Tensor:
    """Eq. (65): ``(1/n) sum_i [l''_i grad Phi_i grad Phi_i^T + l'_i y_i Hess Phi_i]``, ``(p, p)``.

    ``terms`` switches the Gauss-Newton and the curvature term on or off and
    ``curvature_sign`` multiplies the second (for negative controls).
    """
    Xs, ys = _data(Xs, ys)
    H = check_int(H, "H")
    if isinstance(terms, (str, bytes)) or not isinstance(terms, (tuple, list)) or len(terms) != 2:
        raise TypeError(f"terms must be a pair of booleans (Gauss-Newton, curvature), got {terms!r}")
    terms = (check_bool(terms[0], "terms"), check_bool(terms[1], "terms"))
    curvature_sign = check_real(curvature_sign, "curvature_sign")
    n, T, d = Xs.shape
    theta = _flat_params(theta, "theta", H, T, d)

    def phi(th: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        Us, Ws = md.unpack_heads(th, H, T, d)
        return md.multi_head(X, Ws, Us)

    p = theta.numel()
    out = torch.zeros(p, p, dtype=VERIFICATION_DTYPE)
    for i in range(n):
        z = ys[i] * phi(theta, Xs[i])
        l1 = -torch.sigmoid(-z)                       # l'(z)
        l2 = torch.sigmoid(z) * torch.sigmoid(-z)     # l''(z)
        g = torch.func.grad(phi)(theta, Xs[i])
        if terms[0]:
            out = out + l2 * torch.outer(g, g)
        if terms[1]:
            out = out + curvature_sign * l1 * ys[i] * torch.func.hessian(phi)(theta, Xs[i])
    return out / n


def loss_and_grad(loss: Callable[[torch.Tensor], torch.Tensor], th: torch.Tensor
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(loss(th), grad loss(th))`` (both detached) at a flat parameter vector ``th`` (a real
    floating-point tensor, its dtype kept)."""
    if not callable(loss):
        raise TypeError(f"loss must be callable (theta -> scalar tensor), got {type(loss).__name__}")
    if not isinstance(th, torch.Tensor):
        raise TypeError(f"th must be a torch.Tensor (flat parameters), got {type(th).__name__}")
    if not th.is_floating_point():
        raise TypeError(f"th must be a real floating-point tensor, got dtype {th.dtype}")
    if th.dim() != 1 or th.numel() == 0:
        raise ValueError(f"th must be a non-empty flat vector, got shape {tuple(th.shape)}")
    if not math.isfinite(float(th.detach().sum())) and not bool(torch.isfinite(th.detach()).all()):
        raise ValueError("th must contain only finite values")
    t = th.detach().clone().requires_grad_(True)
    v = loss(t)
    (g,) = torch.autograd.grad(v, t)
    return v.detach(), g.detach()


@refuses_overflow
def weak_convexity_vs_heads(Hs: tuple[int, ...], T: int = 3, d: int = 2, n: int = 8,
                            u_scale: float = 2.0, w_scale: float = 3.0, seed: int = 104,
                            exact_limit: int = 160) -> dict[str, list]:
    """``lambda_min(Hess L)`` and ``L`` at IID random heads of fixed norms (``||U_h||_F = u_scale``,
    ``||W_h||_F = w_scale``) for each ``H`` (fixed data).

    Heads are drawn once for the largest ``H`` and the first ``H`` are used, so the
    per-head norms are comparable across ``H``.  Exact Hessians up to ``exact_limit``
    parameters, Lanczos beyond; at every ``H`` with an exact value whose size allows it,
    Lanczos is also run, for validation.  Returns lists keyed ``H``, ``lam``, ``L``,
    ``b`` (``||theta||_{2,inf}``), ``method``, ``lanczos`` (Lanczos value or None).
    """
    Hs = _head_counts(Hs)
    T, d, n = check_int(T, "T"), check_int(d, "d"), check_int(n, "n")
    u_scale = check_positive(u_scale, "u_scale", allow_zero=True)
    w_scale = check_positive(w_scale, "w_scale", allow_zero=True)
    seed = check_seed(seed)
    exact_limit = check_int(exact_limit, "exact_limit", minimum=0)
    return _weak_convexity_vs_heads(Hs, T, d, n, u_scale, w_scale, seed, exact_limit)


@cached_per_scale(maxsize=4)
@cached_on_disk()  # shared by the chapter (its figure and two checks) and the negative controls
def _weak_convexity_vs_heads(Hs: tuple[int, ...], T: int, d: int, n: int, u_scale: float, w_scale: float,
                             seed: int, exact_limit: int) -> dict[str, list]:
    rng = np.random.default_rng(seed)
    Xs, ys = md.sample_bounded_tokens(n, T, d, 1.0, seed=seed)
    Hmax = max(Hs)
    Us = rng.standard_normal((Hmax, T, d))
    Ws = rng.standard_normal((Hmax, d, d))
    Us *= u_scale / np.linalg.norm(Us.reshape(Hmax, -1), axis=1)[:, None, None]   # fixed per-head norms
    Ws *= w_scale / np.linalg.norm(Ws.reshape(Hmax, -1), axis=1)[:, None, None]
    full = md.pack_heads(Us, Ws)
    p1 = md.head_size(T, d)
    out: dict[str, list] = {k: [] for k in ("H", "lam", "L", "b", "method", "lanczos")}
    from tqdm import tqdm  # plain bars: tqdm.auto warns in kernels without ipywidgets

    for H in tqdm(Hs, desc="heads", leave=False, disable=scale() == "smoke"):
        th = full[:H * p1].clone()
        loss = risk_fn(Xs, ys, H)
        L = float(loss(th))
        exact = th.numel() <= exact_limit
        lam = hs.lambda_min(loss, th, method="exact" if exact else "lanczos", seed=seed, ncv=100)
        lz = (hs.lambda_min(loss, th, method="lanczos", seed=seed, ncv=100)
              if exact and th.numel() >= 30 else None)
        for k, v in (("H", H), ("lam", lam), ("L", L), ("b", norm_2inf(th, H, T, d)),
                     ("method", "exact" if exact else "lanczos"), ("lanczos", lz)):
            out[k].append(v)
    out["T"], out["d"] = [T], [d]
    return out


weak_convexity_vs_heads.cache_clear = _weak_convexity_vs_heads.cache_clear  # type: ignore[attr-defined]


def _identical_head_parts(size: tuple[int, int], z: Any, R: float = 1.0) -> tuple[Any, Any]:
    """``z = (tokens of one sample, one head)``; the tokens are pulled into the ball ``||x_t|| <= R``."""
    T, d = _size_td(size)
    search_point(z, "z", T * d + md.head_size(T, d))
    z = torch.as_tensor(z, dtype=torch.float64)
    X = z[:T * d].reshape(1, T, d)
    X = X / torch.clamp(torch.linalg.vector_norm(X, dim=2, keepdim=True) / R, min=1.0)
    return X, z[T * d:]


def identical_head_ratio(size: tuple[int, int], z: Any, H: int = 1, R: float = 1.0) -> torch.Tensor:
    """``max(0, -lambda_min(Hess L)) / (beta3(||theta||_{2,inf}) L / sqrt(H))`` for ``H`` identical
    copies of the head in ``z`` on one sample (label ``+1``; exact Hessian, differentiable)."""
    T, d = _size_td(size)
    H = check_int(H, "H")
    R = check_positive(R, "R")
    X, head = _identical_head_parts(size, z, R)
    y = torch.ones(1, dtype=torch.float64)
    th = head.repeat(H)
    f = lambda t: md.empirical_risk(t, X, y, H)  # noqa: E731
    lam = torch.linalg.eigvalsh(torch.func.hessian(f)(th))[0]
    b = torch.linalg.vector_norm(head)
    b3 = 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)
    return torch.clamp(-lam, min=0.0) / (b3 * f(th) / math.sqrt(H))


def identical_heads_weak_convexity(Hs: tuple[int, ...], sizes: tuple[tuple[int, int], ...] = ((2, 1), (2, 2)),
                                   *, restarts: int = 3, steps: int = 60, seed: int = 105,
                                   exact_limit: int = 160) -> dict[str, Any]:
    """Adversarial instances for the ``H``-dependence of Corollary 1 (3).

    One head and one sample (tokens in the unit ball, label ``+1``) are searched to maximize the
    single-head ratio ``-lambda_min / (beta3 L)`` (:func:`identical_head_ratio`, sizes ``(T, d)``
    in ``sizes``, L-BFGS and Nelder-Mead, ``restarts`` starts each); the head is then copied ``H``
    times for every ``H`` in ``Hs``.  For identical heads the curvature term of the Hessian scales
    like ``H^{-1/2}`` while ``||theta||_{2,inf}`` stays fixed, so the ratio against ``beta3 L / sqrt(H)``
    stays of order one: a bound decaying like ``1/H`` is exceeded once ``H`` is large.  Returns
    lists keyed ``H``, ``lam``, ``L``, ``b``, ``method``, ``lanczos`` plus ``T``, ``d``, ``search``
    (the search's budget and best instance), ``search_result`` (the
    :class:`~attention_theory.search.SizedSearch` itself) and the instance, ``X`` and ``head``.
    """
    Hs = _head_counts(Hs)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (tuple, list)):
        raise TypeError(f"sizes must be a sequence of pairs (T, d), got {sizes!r}")
    if len(sizes) == 0:
        raise ValueError("sizes must not be empty")
    try:
        sizes = tuple(_size_td(s) for s in sizes)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"sizes: {exc}") from None
    restarts, steps = check_int(restarts, "restarts"), check_int(steps, "steps")
    seed = check_seed(seed)
    exact_limit = check_int(exact_limit, "exact_limit", minimum=0)
    return _identical_heads_weak_convexity(Hs, sizes, restarts, steps, seed, exact_limit)


@cached_per_scale(maxsize=2)
@cached_on_disk(allowed=(SizedSearch,))  # shared by the chapter and its negative controls
def _identical_heads_weak_convexity(Hs: tuple[int, ...], sizes: tuple[tuple[int, int], ...], restarts: int,
                                    steps: int, seed: int, exact_limit: int) -> dict[str, Any]:
    from attention_theory.search import maximize_over_sizes

    def obj(size: tuple[int, int], z: Any) -> Any:
        r = identical_head_ratio(size, z)
        return r if torch.is_tensor(z) else float(r)

    def init(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        T, d = size
        return np.concatenate([rng.standard_normal(T * d),
                               rng.standard_normal(md.head_size(T, d)) * 10.0 ** rng.uniform(-1, 1)])

    res = maximize_over_sizes(obj, init, list(sizes), restarts=restarts, steps=steps, seed=seed)
    T, d = res.best_size
    X, head = _identical_head_parts(res.best_size, res.best_x)
    X, head = X.detach(), head.detach()
    y = torch.ones(1, dtype=torch.float64)
    out: dict[str, Any] = {k: [] for k in ("H", "lam", "L", "b", "method", "lanczos")}
    for H in Hs:
        th = head.repeat(H)
        loss = risk_fn(X, y, H)
        exact = th.numel() <= exact_limit
        lam = hs.lambda_min(loss, th, method="exact" if exact else "lanczos", seed=seed, ncv=100)
        lz = (hs.lambda_min(loss, th, method="lanczos", seed=seed, ncv=100)
              if exact and th.numel() >= 30 else None)
        for k, v in (("H", H), ("lam", lam), ("L", float(loss(th))),
                     ("b", float(torch.linalg.vector_norm(head))),
                     ("method", "exact" if exact else "lanczos"), ("lanczos", lz)):
            out[k].append(v)
    out["T"], out["d"], out["search"], out["search_result"] = T, d, res.record()["search"], res
    out["X"], out["head"] = X, head
    return out


identical_heads_weak_convexity.cache_clear = (  # type: ignore[attr-defined]
    _identical_heads_weak_convexity.cache_clear)


def identical_heads_grid() -> tuple[int, ...]:
    """Head counts of the identical-heads family (Corollary 1 (3) at large ``H``)."""
    return pick((1, 4, 16, 64, 256), (1, 4, 16, 64, 256, 1024))


def heads_grid() -> tuple[int, ...]:
    return pick((1, 2, 4, 8, 16, 32, 64, 128, 256),
                (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096))


@refuses_overflow
def glqc_1d_ratio(c: float, f: np.ndarray, g0: float, g1: float) -> float:
    """Solve ``g'' = -c g + f`` on ``[0, 1]`` with ``g(0) = g0``, ``g(1) = g1`` (finite
    differences on the grid of ``f``) and return ``max g / (g0 v g1)``, or NaN when ``g`` is not
    positive on the grid (not an instance of the comparison).  ``g0, g1 > 0``, ``f`` at least 3 points."""
    import scipy.linalg as sl

    c = check_real(c, "c")
    f = as_vector(f, "f")
    if f.size < 3:
        raise ValueError(f"f must have at least 3 grid points, got {f.size}")
    g0, g1 = check_positive(g0, "g0"), check_positive(g1, "g1")

    N = f.size
    h = 1.0 / (N - 1)
    m = N - 2
    ab = np.empty((3, m))                      # the tridiagonal matrix in banded storage
    ab[0, :], ab[1, :], ab[2, :] = 1.0 / h**2, -2.0 / h**2 + c, 1.0 / h**2
    rhs = f[1:-1].copy()
    rhs[0] -= g0 / h**2
    rhs[-1] -= g1 / h**2
    g = np.concatenate([[g0], sl.solve_banded((1, 1), ab, rhs), [g1]])
    return float(g.max() / max(g0, g1)) if g.min() > 0 else float("nan")
