"""Instances and constants of a good initialization (Deora et al., Definition 1, Proposition 7).

The model outputs at a flat parameter vector (:func:`model_outputs`), the constants ``B_2``,
``B_Phi``, the NTK margin ``gamma`` and the direction ``theta_star`` of Definition 1
(:func:`good_init_constants`), the ``F-lin`` fixture with the smallest loss reachable within a
given radius, and the certified instance of Proposition 7 whose head count meets the corrected
condition (98) (:func:`prop7_instance`, with the exploratory :func:`prop7_scan`).  The checks of
Definition 1, Proposition 7 and Corollary 2 in :mod:`attention_theory.deora.checks.initialization`
evaluate them (chapter ``book/deora/initialization.md``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.max_margin import ntk_max_margin_dual as ntk_margin
from attention_theory.deora.ntk import ntk_features
from attention_theory.deora.stability import init_heads, noisy_lin_tokens
from attention_theory.validation import check_int, check_positive, check_seed, config_dict, refuses_overflow

__all__ = ['flin_min_loss_within', 'flin_tokens', 'good_init_constants', 'model_outputs', 'prop7_instance',
           'prop7_instance_config', 'prop7_scan']


def model_outputs(theta: Any, Xs: Any, H: int) -> torch.Tensor:
    """``Phi~(X_i; theta)`` for every sample, ``(n,)``; ``theta`` flat, ``Xs`` ``(n, T, d)``.

    Evaluated one sample at a time, so memory stays at ``H T^2`` per sample.
    """
    theta = md.as_tensor(theta, "theta", ndim=1)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    H = check_int(H, "H")
    n, T, d = Xs.shape
    Us, Ws = md.unpack_heads(theta, H, T, d)
    return torch.cat([md.multi_head_output(Xs[i:i + 1], Ws, Us) for i in range(n)])


@refuses_overflow
def good_init_constants(theta0: Any, Xs: Any, ys: Any, H: int, *,
                        star_norm: float = math.sqrt(2)) -> dict[str, Any]:
    """The constants of Definition 1 for ``theta_0``: ``B_2 = max(1, ||theta_0||_{2,inf})``,
    ``B_Phi = max(1, max_i |Phi~(X_i; theta_0)|)``, and P3's ``theta_star`` (norm ``sqrt 2``) with
    ``gamma = min_i y_i <grad Phi~(X_i; theta_0), theta_star>`` (``= sqrt 2 gamma_svm``)."""
    theta0 = md.as_tensor(theta0, "theta0", ndim=1)
    Xs = md.as_tensor(Xs, "Xs", ndim=3)
    ys = md.as_tensor(ys, "ys", shape=(Xs.shape[0],))
    H = check_int(H, "H")
    F = ntk_features(theta0, Xs, H)
    svm = ntk_margin(F, ys)
    star = star_norm * torch.as_tensor(svm["w"])
    with torch.no_grad():
        out = model_outputs(theta0, Xs, H)
    B2 = max(1.0, float(torch.linalg.vector_norm(theta0.reshape(H, -1), dim=1).max()))
    margins = ys * (F @ star)
    return {"B2": B2, "B_phi": max(1.0, float(out.abs().max())), "gamma": float(margins.min()),
            "theta_star": star, "separable": svm["separable"], "gamma_upper": star_norm * svm["upper"],
            "features": F, "outputs": out}


def flin_tokens(n: int, T: int, d: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixture ``F-lin``: ``X_i = 1_T (y_i e_1)^T`` (identical unit tokens), random labels."""
    seed = check_seed(seed)
    return noisy_lin_tokens(n, T, d, signal=1.0, seed=seed)


def flin_min_loss_within(radius: float, T: int) -> float:
    """On ``F-lin`` the margin of every sample is the linear functional ``<c, theta>`` with
    ``||c|| = sqrt(T)`` (from ``theta_0 = 0``), so the smallest loss within distance ``radius`` of 0 is
    ``l(radius sqrt(T)) = log(1 + exp(-radius sqrt(T)))``."""
    radius = check_positive(radius, "radius", allow_zero=True)
    T = check_int(T, "T")
    return math.log1p(math.exp(-radius * math.sqrt(T)))


def prop7_instance_config() -> dict[str, Any]:
    """A non-degenerate certified instance for Proposition 7 (corrected head condition)."""
    return dict(T=pick(32, 64), d=1, n=pick(6, 12), eps=0.25, signal=0.85, init_scale=1.0, seed=71)


_P7_CACHE: dict[tuple, dict[str, Any]] = {}
_P7_KEYS = ("T", "d", "n", "eps", "signal", "init_scale", "seed")


def prop7_instance(cfg: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the certified instance: constants of Definition 1 at ``H`` heads, where ``H`` meets the
    corrected (98) for the constants measured at that ``H`` (fixed point over a few rounds)."""
    cfg = config_dict(cfg, prop7_instance_config, _P7_KEYS)
    key = tuple(sorted(cfg.items()))
    if key in _P7_CACHE:
        return _P7_CACHE[key]
    T, d, n, eps = cfg["T"], cfg["d"], cfg["n"], cfg["eps"]
    Xs, ys = noisy_lin_tokens(n, T, d, signal=cfg["signal"], seed=cfg["seed"])
    Xt, yt = torch.as_tensor(Xs), torch.as_tensor(ys)
    H = 64
    for _ in range(6):
        th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"] + 1)
        gi = good_init_constants(th0, Xt, yt, H)
        need = bd.prop7_heads(eps, T, d, 1.0, gi["B2"], gi["B_phi"], gi["gamma"], corrected=True)
        if need <= H:
            break
        H = int(math.ceil(need * 1.02))
    out = dict(cfg=cfg, H=H, need=need, theta0=th0, Xs=Xt, ys=yt, **gi)
    _P7_CACHE[key] = out
    return out


def prop7_scan(Hs: list[int], cfg: dict[str, Any] | None = None) -> list[dict[str, float]]:
    """Exploratory: Proposition 7's witness ``theta_0 + g_0 theta_star`` for several head counts on the
    data of the certified instance (fresh random heads of the same norm for each ``H``), whether or
    not the head condition holds.  Returns per ``H`` the measured constants, the witness loss, its
    smallest margin and the head count the corrected (98) would require."""
    if isinstance(Hs, (str, bytes)) or not isinstance(Hs, (list, tuple, np.ndarray)):
        raise TypeError(f"Hs must be a list of head counts, got {type(Hs).__name__}")
    if len(Hs) == 0:
        raise ValueError("Hs must not be empty")
    for H in Hs:
        if isinstance(H, bool) or not isinstance(H, (int, np.integer)):
            raise TypeError(f"Hs must contain integers (head counts), got {H!r}")
        if H < 1:
            raise ValueError(f"Hs must contain head counts >= 1, got {H}")
    cfg = config_dict(cfg, prop7_instance_config, _P7_KEYS)
    T, d, n, eps = cfg["T"], cfg["d"], cfg["n"], cfg["eps"]
    Xs, ys = noisy_lin_tokens(n, T, d, signal=cfg["signal"], seed=cfg["seed"])
    Xt, yt = torch.as_tensor(Xs), torch.as_tensor(ys)
    out = []
    for H in Hs:
        H = check_int(H, "H")
        th0 = init_heads(H, T, d, cfg["init_scale"], cfg["seed"] + 1)
        gi = good_init_constants(th0, Xt, yt, H)
        if gi["gamma"] <= 0:
            out.append({"H": H, "gamma": gi["gamma"], "loss": float("nan"), "min_margin": float("nan"),
                        "need": float("inf")})
            continue
        g0 = bd.prop7_g0(eps, gi["B_phi"], gi["gamma"])
        with torch.no_grad():
            marg = yt * model_outputs(th0 + g0 * gi["theta_star"], Xt, H)
        out.append({"H": H, "B2": gi["B2"], "B_phi": gi["B_phi"], "gamma": gi["gamma"], "g0": g0,
                    "loss": float(torch.nn.functional.softplus(-marg).mean()),
                    "min_margin": float(marg.min()),
                    "need": bd.prop7_heads(eps, T, d, 1.0, gi["B2"], gi["B_phi"], gi["gamma"],
                                           corrected=True)})
    return out
