"""Checks of ``book/deora/planted-teacher.md`` (Deora et al., App. G): the planted-teacher data
model DM2 (its margin filter) and the paper's qualitative claims about Figures 4 and 5, with
operational definitions.

The runs they read are the live runs of :mod:`attention_theory.deora.experiment_runs` (the smoke
configuration of the experiment :mod:`attention_theory.deora.head_sweeps`) or the committed
full-scale results (:func:`full_scale_report`).  Negative controls in
``tests/deora/test_nc_planted_teacher.py``.  Sizes follow ``ATTN_SCALE``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from attention_theory.config import pick
from attention_theory.deora import head_sweeps
from attention_theory.deora.dm2 import planted_teacher, sample_dm2, teacher_output
from attention_theory.deora.experiment_runs import (
    FULL_NO_SEARCH,
    ORDER_FAMILY,
    RUNS_NO_SEARCH,
    dm2_runs_from_results,
    ordered_in_H,
    runs_family,
    smoke_dm2_runs,
    value_at,
)
from attention_theory.verify import CheckRecord, check_bound, claim_check

__all__ = ['check_dm2_margin', 'check_dm2_margin_filter', 'check_dm2_recovery', 'check_fig4_loss_decreasing',
           'check_fig4_more_heads_lower_loss', 'check_fig5_momentum_faster_than_gd',
           'check_fig5_more_heads_lower_loss']


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
                       params={"gamma_dm2": gamma_dm2, "n": n, "seeds": list(seeds)}, seed=seeds[0],
                       families=[f"every kept DM2 sample of seeds {list(seeds)} ({n} each; planted teacher T "
                                 f"= 10, d = 5, gamma_DM2 = {gamma_dm2})",
                                 "the rejection threshold itself: kept margins come arbitrarily close to "
                                 "gamma_DM2 as the number of samples grows"],
                       no_search="a property of the DM2 sampler's output (rejection at the margin), checked "
                       "on every kept sample of three seeds; the statement is about what the sampler "
                       "returns, not an inequality over a continuous space of inputs")


def _loss_at(run: dict[str, Any], step: int) -> np.ndarray:
    return run["train_loss"][list(run["step"]).index(step)]


@claim_check("deora-fig-4", "more-heads-lower-final-loss", shares="deora-smoke-dm2-runs")
def check_fig4_more_heads_lower_loss(*, runs: dict[str, Any] | None = None,
                                     larger_is_better: bool = True) -> CheckRecord:
    """GD with eta = sqrt(H): final train loss at the largest H <= at H = 1, every trial.

    ``larger_is_better=False`` asserts the opposite ordering (negative control).
    """
    runs = runs or smoke_dm2_runs()
    lo, hi = runs["gd"][min(runs["Hs"])], runs["gd"][max(runs["Hs"])]
    K = runs["steps"]
    a, b = (_loss_at(hi, K), _loss_at(lo, K)) if larger_is_better else (_loss_at(lo, K), _loss_at(hi, K))
    return check_bound(a, b,
                       f"train loss at step {K}: H={max(runs['Hs'])} <= H={min(runs['Hs'])} (GD, eta=sqrt H)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0,
                       families=[runs_family({H: runs["gd"][H] for H in (min(runs["Hs"]), max(runs["Hs"]))},
                                              "DM2 GD (eta = sqrt H)", K), ORDER_FAMILY],
                       no_search=RUNS_NO_SEARCH)


@claim_check("deora-fig-5", "momentum-faster-than-gd", shares="deora-smoke-dm2-runs")
def check_fig5_momentum_faster_than_gd(*, runs: dict[str, Any] | None = None, step: int = 100,
                                       swap: bool = False) -> CheckRecord:
    """At equal H and step 100, heavy-ball momentum has lower train loss than GD (eta = sqrt H)."""
    runs = runs or smoke_dm2_runs()
    mom = np.concatenate([_loss_at(runs["momentum"][H], step) for H in runs["Hs"]])
    gd = np.concatenate([_loss_at(runs["gd"][H], step) for H in runs["Hs"]])
    a, b = (gd, mom) if swap else (mom, gd)
    return check_bound(a, b, f"train loss at step {step}: momentum <= GD, every H and trial",
                       params={"Hs": list(runs["Hs"]), "step": step}, seed=0,
                       families=[runs_family(runs["momentum"], "DM2 heavy-ball momentum (eta = sqrt H)",
                                             step),
                                 runs_family(runs["gd"], "DM2 GD (eta = sqrt H)", step), ORDER_FAMILY],
                       no_search=RUNS_NO_SEARCH)


@claim_check("deora-fig-5", "more-heads-lower-final-loss", shares="deora-smoke-dm2-runs")
def check_fig5_more_heads_lower_loss(*, runs: dict[str, Any] | None = None,
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
                       f"train loss at step {K}: H={max(runs['Hs'])} <= H={min(runs['Hs'])} "
                       f"({', '.join(optimizers)})",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0,
                       families=[runs_family({H: runs[opt][H] for H in (min(runs["Hs"]), max(runs["Hs"]))},
                                              f"DM2 {opt}", K) for opt in optimizers] + [ORDER_FAMILY],
                       no_search=RUNS_NO_SEARCH)


@claim_check("deora-fig-4", "full-scale-planted-model-recovered")
def check_dm2_recovery(*, runs: dict[str, Any], align_W: float = 0.95, align_U: float = 0.9,
                       optimizers: tuple[str, ...] = ("gd", "momentum", "adam")) -> CheckRecord:
    """Full scale only: at the last step every optimizer, H and trial has alignment with the
    planted teacher at least ``align_W`` (``W``) and ``align_U`` (``U``)."""
    K = runs["steps"]
    lhs, rhs = [], []
    for opt in optimizers:
        for H in runs["Hs"]:
            for key, thr in (("align_W", align_W), ("align_U", align_U)):
                a = value_at(runs[opt][H], key, K)
                lhs.append(np.full(a.shape, thr))
                rhs.append(a)
    return check_bound(np.concatenate(lhs), np.concatenate(rhs),
                       f"alignment with the teacher at step {K}: W >= {align_W}, U >= {align_U} "
                       f"({', '.join(optimizers)}; every H, trial)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0, no_search=FULL_NO_SEARCH,
                       families=[runs_family(runs[opt], f"full-scale DM2 {opt}", K) for opt in optimizers]
                       + [f"loose by design: the alignment thresholds {align_W} (W) and {align_U} (U) are "
                          "the book's operational reading of 'recovers the planted model'"])


@claim_check("deora-fig-4", "full-scale-margin-reached")
def check_dm2_margin(*, runs: dict[str, Any], fraction: float = 0.9, gamma_dm2: float = 0.2,
                     optimizers: tuple[str, ...] = ("gd", "momentum", "adam")) -> CheckRecord:
    """Full scale only: at the last step the normalized train margin is at least
    ``fraction * gamma_DM2`` for every optimizer, H and trial ("all models reach the margin")."""
    K = runs["steps"]
    got = np.concatenate([value_at(runs[opt][H], "margin_min", K) for opt in optimizers for H in runs["Hs"]])
    return check_bound(np.full(got.shape, fraction * gamma_dm2), got,
                       f"normalized train margin at step {K} >= {fraction} gamma_DM2 = "
                       f"{fraction * gamma_dm2:.3f}",
                       params={"Hs": list(runs["Hs"]), "steps": K, "optimizers": list(optimizers)}, seed=0,
                       no_search=FULL_NO_SEARCH,
                       families=[runs_family(runs[opt], f"full-scale DM2 {opt}", K) for opt in optimizers]
                       + [f"loose by design: the fraction {fraction} of gamma_DM2 is the book's operational "
                          "reading of 'all models reach the margin'"])


@claim_check("deora-fig-4", "full-scale-loss-decreasing-in-heads")
def check_fig4_loss_decreasing(*, runs: dict[str, Any], reverse: bool = False) -> CheckRecord:
    """Full scale: GD with eta = sqrt(H), the train loss at the last step is strictly decreasing
    in H on every trial."""
    K = runs["steps"]
    a, b = ordered_in_H(runs["gd"], ("train_loss",), K, reverse)
    return check_bound(a, b,
                       f"train loss at step {K} strictly {'increasing' if reverse else 'decreasing'} in H "
                       "(GD, eta=sqrt H)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0, no_search=FULL_NO_SEARCH,
                       families=[runs_family(runs["gd"], "full-scale DM2 GD (eta = sqrt H)", K),
                                 ORDER_FAMILY])


def full_scale_report() -> tuple[list[tuple[str, str, bool, str]], dict[str, Any]]:
    """Every operational statement of the DM2 figures (4 and 5) evaluated on the committed full-scale
    results: ``(rows, runs)`` with rows ``(claim, statement, holds, summary)``.

    The evaluation runs inside :func:`attention_theory.verify.on_results` on the committed files
    (:func:`attention_theory.deora.head_sweeps.full_scale_files`), so every statement writes a record
    at scale ``full`` naming them: ``verified`` when it holds, ``fails`` when it does not
    (:func:`attention_theory.verify.evaluate`).  A statement shown per optimizer is recorded once, for
    all optimizers together (the per-optimizer rows are display only), so a passing optimizer cannot
    overwrite another one's failure.  Used by ``book/deora/planted-teacher.md``."""
    from attention_theory.verify import evaluate, evaluate_only, on_results

    runs = dm2_runs_from_results(head_sweeps.load_figure("fig4"), head_sweeps.load_figure("fig5"))
    items = [("deora-fig-4", "GD sqrt(H): loss at K lower for the largest H than for H=1",
              check_fig4_more_heads_lower_loss),
             ("deora-fig-4", "GD sqrt(H): loss at K strictly decreasing in H", check_fig4_loss_decreasing)]
    per_optimizer: list[tuple[str, str, Any]] = []
    for opt in ("gd", "momentum", "adam"):
        per_optimizer += [("deora-fig-4", f"{opt}: margin >= 0.9 gamma_DM2 at K, every H and trial",
                           functools.partial(check_dm2_margin, optimizers=(opt,))),
                          ("deora-fig-4", f"{opt}: alignment W >= 0.95, U >= 0.9 at K, every H and trial",
                           functools.partial(check_dm2_recovery, optimizers=(opt,)))]
    per_optimizer += [("deora-fig-5", "momentum: loss at K lower for the largest H than for H=1",
                       functools.partial(check_fig5_more_heads_lower_loss, optimizers=("momentum",))),
                      ("deora-fig-5", "Adam: loss at K lower for the largest H than for H=1",
                       functools.partial(check_fig5_more_heads_lower_loss, optimizers=("adam",)))]
    items += [("deora-fig-4", "every optimizer: margin >= 0.9 gamma_DM2 at K, every H and trial",
               check_dm2_margin),
              ("deora-fig-4", "every optimizer: alignment W >= 0.95, U >= 0.9 at K", check_dm2_recovery),
              ("deora-fig-5", "momentum below GD at step 100, every H and trial",
               check_fig5_momentum_faster_than_gd),
              ("deora-fig-5", "momentum and Adam: loss at K lower for the largest H than for H=1",
               check_fig5_more_heads_lower_loss)]
    with evaluate_only():   # display rows of statements recorded below for all optimizers together
        rows = [(cid, text, *evaluate(fn, runs=runs)) for cid, text, fn in per_optimizer]
    with on_results(*head_sweeps.full_scale_files("dm2")):
        rows += [(cid, text, *evaluate(fn, runs=runs)) for cid, text, fn in items]
    return rows, runs
