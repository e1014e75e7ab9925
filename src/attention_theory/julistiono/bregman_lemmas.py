"""Constants and trajectories of the Bregman-divergence lemmas of Julistiono et al. (App. A.2, A.4).

The values of ``p`` the checks sweep, the constants ``c_1(p)``, ``c_2(p)`` of the norm-divergence
comparisons and of Lemma 13, mirror-descent trajectories, and the outcome of Lemma 4 as it was
first transcribed (a form the source does not support). The checks of
:mod:`attention_theory.julistiono.checks.bregman` evaluate them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attention_theory.foundations.mirror import (
    bregman_entrywise,
    conjugate_exponent,
    entrywise_lp,
    grad_psi,
    md_step,
)
from attention_theory.julistiono import model as mj

P_LOW = (1.05, 1.1, 1.25, 1.5, 1.75, 1.9)


P_HIGH = (2.0, 2.5, 3.0, 4.0, 6.0)


P_ALL = P_LOW + P_HIGH


KINDS = ("gauss", "sparse", "heavy", "onehot", "constant")


def c_l1(p: float) -> float:
    return 1.0 / (p * 2.0 ** p)


def c_l2(p: float) -> float:
    return (p - 1.0) / 2.0


def lemma13_scalar_constants(p: float, grid: int = 801) -> float:
    """Best empirical constant of Lemma 13 at scalar level on ``[-1, 1]^2``:
    ``min phi_p(w, v) / |w - v|^p`` (``p >= 2``) or ``min phi_p / (w - v)^2`` (``p < 2``)."""
    t = np.linspace(-1, 1, grid)
    w, v = np.meshgrid(t, t)
    m = w != v
    phi = bregman_entrywise(w[m], v[m], p)
    den = np.abs(w[m] - v[m]) ** (p if p >= 2 else 2.0)
    return float(np.min(phi / den))


def md_trajectory(p: float, *, seed: int = 0, steps: int = 200, eta: float = 0.5, scale: float = 1.0,
                  normalized: bool = False) -> dict[str, Any]:
    """Every iterate of unnormalised l_p-AttGD on an E1 data set, with gradients and losses.

    Returns ``W (K+1, d, d)``, ``G (K+1, d, d)``, ``L (K+1,)`` and the data.
    """
    from attention_theory.julistiono.mirror_descent import lp_attgd

    data = mj.synthetic_dataset(seed, n=4, T=5, d=4)
    W0 = np.random.default_rng(seed + 1000).standard_normal((4, 4)) * scale
    tr = lp_attgd(W0, data["X"], data["z"], data["Y"], data["v"], p=p, eta=eta, steps=steps,
                  normalized=normalized)
    W = tr.iterates
    G = mj.gradient_W(W, data["X"], data["z"], data["Y"], data["v"])
    L = np.asarray(mj.objective(W, data["X"], data["z"], data["Y"], data["v"]))
    return {"W": W, "G": G, "L": L, "eta": eta, "p": p, **data}


def _l4_catalogue_factor(x: float, y: float, p: float) -> float:
    return max(x, y) ** (2 - p)


def lemma4_catalogue_outcome(*, seed: int = 13) -> Any:
    """The catalogue's first reconstruction (factor ``max(x, y)^(2-p)`` for every ``p``) on aligned
    steps at ``p = 6``: returns the failing :class:`~attention_theory.verify.Outcome` (not recorded)."""
    from attention_theory.verify import bound_outcome

    rng = np.random.default_rng(seed)
    lhs, rhs, p = [], [], 6.0
    for _ in range(200):
        W = rng.standard_normal((3, 3)) * 10 ** rng.uniform(-1, 1)
        Ga = -grad_psi(W, p)
        G = Ga / entrywise_lp(Ga, conjugate_exponent(p))
        eta = float(10 ** rng.uniform(-3, 0))
        x, y = entrywise_lp(md_step(W, G, eta, p), p), entrywise_lp(W, p)
        lhs.append(x - y)
        rhs.append(eta / (p - 1) * _l4_catalogue_factor(x, y, p))
    return bound_outcome(lhs, rhs, rtol=1e-9)
