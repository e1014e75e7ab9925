"""Checks of Deora et al., App. G (experiments): the DM2 sampler, the zero-initialization
symmetry, and the paper's qualitative claims about Figures 4-5 with operational definitions.

Called by ``book/deora/experiments.md``; negative controls in
``tests/test_negative_controls_deora_experiments.py``.  Sizes follow ``ATTN_SCALE``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ..config import pick
from ..data.dm2 import planted_teacher, sample_dm2, teacher_output
from ..experiments import deora_heads as dh
from ..verify import CheckRecord, check_bound, check_identity, claim_check

__all__ = ["check_dm2_margin_filter", "check_zero_init_symmetry", "check_symmetry_breaking",
           "check_fig4_more_heads_lower_loss", "check_fig5_momentum_faster_than_gd",
           "check_fig5_more_heads_lower_loss", "smoke_dm2_runs"]


@claim_check("deora-def-dm2", "margin-filter")
def check_dm2_margin_filter(*, claimed_margin: float = 0.2, gamma_dm2: float = 0.2,
                            seeds: tuple[int, ...] = (0, 1, 2), n: int | None = None) -> CheckRecord:
    """Every kept DM2 sample has ``y Phi(X; W*, U*) / ||U*||_F > claimed_margin`` (teacher norm 1)."""
    n = n or pick(2000, 20000)
    lhs, rhs = [], []
    for s in seeds:
        teacher = planted_teacher(10, 5, seed=s)
        Xs, ys, _ = sample_dm2(n, teacher, gamma_dm2=gamma_dm2, seed=100 + s)
        margin = ys * teacher_output(Xs, teacher) / np.linalg.norm(teacher.U)
        lhs.append(np.full(n, claimed_margin))
        rhs.append(margin)
    return check_bound(np.concatenate(lhs), np.nextafter(np.concatenate(rhs), -np.inf),
                       f"kept DM2 samples have normalized teacher margin > {claimed_margin}",
                       params={"gamma_dm2": gamma_dm2, "n": n, "seeds": list(seeds)}, seed=seeds[0])


def _dm2_small(trials: int, n: int, seed: int = 0) -> dict[str, Any]:
    return dh.dm2_trials(trials, n, n, seed=seed)


@claim_check("deora-sec-g-symmetry", "zero-init-reduction")
def check_zero_init_symmetry(*, Hs: tuple[int, ...] = (1, 4, 16),
                             optimizers: tuple[str, ...] = ("gd", "momentum", "adam"),
                             steps: int | None = None, init_scale: float = 0.0,
                             w_step_factor: float = 1.0) -> CheckRecord:
    """H heads from zero stay identical and equal the reduced single-head run to round-off.

    ``init_scale > 0`` (random start) or ``w_step_factor != 1`` (a wrong reduction, W step
    multiplied by it) must break the agreement (negative controls).
    """
    steps = steps or pick(60, 2000)
    data = _dm2_small(1, 60)
    lr = {"gd": 1.0, "momentum": 0.5, "adam": 0.01}
    computed, reference, spreads = [], [], []
    for opt in optimizers:
        for H in Hs:
            spec = dh.TrainSpec.uniform(opt, lr[opt], steps)
            init = dh.init_heads(1, H, 10, 5, scale=init_scale, seed=H)
            multi = dh.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=H, spec=spec,
                                   init=init, record_at=[steps])
            red = dh.reduced_single_head_spec(spec, H)
            red = dataclasses.replace(red, lr_W=red.lr_W * w_step_factor)
            single = dh.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=1, spec=red,
                                    record_at=[steps])
            computed += [multi["train_loss"].ravel(), math.sqrt(H) * multi["Us"][:, 0].numpy().ravel(),
                         multi["Ws"][:, 0].numpy().ravel()]
            reference += [single["train_loss"].ravel(), single["Us"][:, 0].numpy().ravel(),
                          single["Ws"][:, 0].numpy().ravel()]
            spreads.append(float(multi["head_spread"].max()))
    if max(spreads) > 1e-12:
        computed.append(np.array(spreads))
        reference.append(np.zeros(len(spreads)))
    return check_identity(np.concatenate(computed), np.concatenate(reference),
                          "H heads from zero equal one head with rescaled steps (GD, momentum, Adam)",
                          atol=1e-10, rtol=1e-8,
                          params={"Hs": list(Hs), "optimizers": list(optimizers), "steps": steps,
                                  "max_head_spread": max(spreads), "init_scale": init_scale},
                          seed=0)


@claim_check("deora-sec-g-symmetry", "random-init-breaks-symmetry")
def check_symmetry_breaking(*, init_scale: float = 1e-2, H: int = 4, steps: int | None = None,
                            min_spread: float = 1e-6) -> CheckRecord:
    """The converse the book adds: a small random start makes the heads differ (spread grows)."""
    steps = steps or pick(60, 2000)
    data = _dm2_small(1, 60)
    spec = dh.TrainSpec.uniform("gd", math.sqrt(H), steps)
    init = dh.init_heads(1, H, 10, 5, scale=init_scale, seed=7) if init_scale > 0 else None
    run = dh.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=H, spec=spec, init=init,
                         record_at=[0, steps])
    spread = float(run["head_spread"][-1].max())
    return check_bound([min_spread], [spread], f"heads differ after {steps} GD steps from a random start",
                       params={"init_scale": init_scale, "H": H, "steps": steps}, seed=7)


def smoke_dm2_runs(*, steps: int | None = None, Hs: tuple[int, ...] = (1, 4, 16)) -> dict[str, Any]:
    """The DM2 sweeps the chapter plots and the qualitative checks read (cached per arguments)."""
    steps = steps or pick(200, 5000)
    key = (steps, Hs)
    if key not in _CACHE:
        data = dh.dm2_trials(pick(2, 5), pick(100, 1000), pick(300, 3000))
        _CACHE[key] = {"data": data, "steps": steps, "Hs": Hs,
                       "gd": dh.dm2_sweep(data, list(Hs), "gd", steps=steps, lr_rule="sqrtH"),
                       "momentum": dh.dm2_sweep(data, list(Hs), "momentum", steps=steps, lr_rule="sqrtH"),
                       "adam": dh.dm2_sweep(data, list(Hs), "adam", steps=steps, lr_rule="constant",
                                            lr=0.01)}
    return _CACHE[key]


_CACHE: dict[Any, dict[str, Any]] = {}


def _loss_at(run: dict[str, Any], step: int) -> np.ndarray:
    return run["train_loss"][list(run["step"]).index(step)]


@claim_check("deora-fig-4", "more-heads-lower-final-loss")
def check_fig4_more_heads_lower_loss(runs: dict[str, Any] | None = None, *,
                                     larger_is_better: bool = True) -> CheckRecord:
    """GD with eta = sqrt(H): final train loss at the largest H <= at H = 1, every trial.

    ``larger_is_better=False`` asserts the opposite ordering (negative control).
    """
    runs = runs or smoke_dm2_runs()
    lo, hi = runs["gd"][min(runs["Hs"])], runs["gd"][max(runs["Hs"])]
    K = runs["steps"]
    a, b = (_loss_at(hi, K), _loss_at(lo, K)) if larger_is_better else (_loss_at(lo, K), _loss_at(hi, K))
    return check_bound(a, b, f"train loss at step {K}: H={max(runs['Hs'])} <= H={min(runs['Hs'])} (GD, eta=sqrt H)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0)


@claim_check("deora-fig-5", "momentum-faster-than-gd")
def check_fig5_momentum_faster_than_gd(runs: dict[str, Any] | None = None, *, step: int = 100,
                                       swap: bool = False) -> CheckRecord:
    """At equal H and step 100, heavy-ball momentum has lower train loss than GD (eta = sqrt H)."""
    runs = runs or smoke_dm2_runs()
    mom = np.concatenate([_loss_at(runs["momentum"][H], step) for H in runs["Hs"]])
    gd = np.concatenate([_loss_at(runs["gd"][H], step) for H in runs["Hs"]])
    a, b = (gd, mom) if swap else (mom, gd)
    return check_bound(a, b, f"train loss at step {step}: momentum <= GD, every H and trial",
                       params={"Hs": list(runs["Hs"]), "step": step}, seed=0)


@claim_check("deora-fig-5", "more-heads-lower-final-loss")
def check_fig5_more_heads_lower_loss(runs: dict[str, Any] | None = None, *,
                                     optimizers: tuple[str, ...] = ("momentum", "adam"),
                                     larger_is_better: bool = True) -> CheckRecord:
    """Momentum and Adam: final train loss at the largest H <= at H = 1, every trial."""
    runs = runs or smoke_dm2_runs()
    K = runs["steps"]
    lhs, rhs = [], []
    for opt in optimizers:
        lo, hi = _loss_at(runs[opt][min(runs["Hs"])], K), _loss_at(runs[opt][max(runs["Hs"])], K)
        lhs.append(hi if larger_is_better else lo)
        rhs.append(lo if larger_is_better else hi)
    return check_bound(np.concatenate(lhs), np.concatenate(rhs),
                       f"train loss at step {K}: H={max(runs['Hs'])} <= H={min(runs['Hs'])} ({', '.join(optimizers)})",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0)
