"""Checks of Deora et al., App. G (experiments): the DM1 and DM2 samplers, the zero-initialization
symmetry, and the paper's qualitative claims about Figures 2-5 with operational definitions.

Called by ``book/deora/experiments.md`` and ``book/deora/planted-teacher.md``; negative controls in
``tests/deora/test_negative_controls_deora_experiments.py``.  Sizes follow ``ATTN_SCALE``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np

from attention_theory.config import pick
from attention_theory.deora import head_sweeps as dh
from attention_theory.deora.dm2 import planted_teacher, sample_dm2, teacher_output
from attention_theory.deora.experiment_runs import (
    adjacent_in_H,
    dm1_runs_from_results,
    dm2_runs_from_results,
    smoke_dm1_runs,
    smoke_dm2_runs,
    value_at,
)
from attention_theory.verify import CheckRecord, check_bound, check_identity, claim_check

_RUNS = ("an empirical statement about the App. G training runs (every H and trial of the smoke runs, "
         "or of the committed full-scale results): the runs are the instances, there is no continuous "
         "instance space to search")
_FULL = ("an empirical statement about the committed full-scale App. G results (every optimizer, H and "
         "trial): the runs are the instances, there is nothing to search")

_ORDER = ("loose by design: an operational ordering between runs (lhs below rhs); the ratio measures the "
          "effect size, there is no constant of the paper to tighten")


def _runs_family(by_H: dict[int, dict[str, Any]], label: str, steps: Any) -> str:
    """Family phrase of the runs ``by_H`` (``{H: run}``) read at ``steps``."""
    Hs = sorted(by_H)
    trials = int(np.asarray(by_H[Hs[0]]["train_loss"]).shape[-1])
    return f"{label} runs, H in {{{', '.join(map(str, Hs))}}}, {trials} trials each, read at step {steps}"


__all__ = ['check_dm1_engines_agree', 'check_dm1_trajectory_agreement', 'check_dm1_settings', 'check_dm2_margin', 'check_dm2_margin_filter', 'check_dm2_recovery', 'check_fig2_attention', 'check_fig2_full_margin', 'check_fig2_loss_increasing', 'check_fig2_margin', 'check_fig2_rate', 'check_fig3_adam', 'check_fig3_gd', 'check_fig4_loss_decreasing', 'check_fig4_more_heads_lower_loss', 'check_fig5_momentum_faster_than_gd', 'check_fig5_more_heads_lower_loss', 'check_symmetry_breaking', 'check_zero_init_symmetry']


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
                       families=[f"every kept DM2 sample of seeds {list(seeds)} ({n} each; planted teacher T = 10, "
                                 f"d = 5, gamma_DM2 = {gamma_dm2})",
                                 "the rejection threshold itself: kept margins come arbitrarily close to gamma_DM2 "
                                 "as the number of samples grows"],
                       no_search="a property of the DM2 sampler's output (rejection at the margin), checked "
                       "on every kept sample of three seeds; the statement is about what the sampler "
                       "returns, not an inequality over a continuous space of inputs")


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
                       params={"init_scale": init_scale, "H": H, "steps": steps}, seed=7,
                       families=[f"one GD run (eta = sqrt H) on DM2 (60 samples) from a random start of scale "
                                 f"{init_scale:g}, H = {H}, {steps} steps",
                                 f"loose by design: min_spread = {min_spread:g} is a detection threshold for 'the "
                                 "heads differ', not a constant of the paper"],
                       no_search="an empirical statement about one GD run from a small random start (the "
                       "heads' spread after training); the run is the instance, there is nothing to search")


def _loss_at(run: dict[str, Any], step: int) -> np.ndarray:
    return run["train_loss"][list(run["step"]).index(step)]


@claim_check("deora-fig-4", "more-heads-lower-final-loss", shares="deora-smoke-dm2-runs")
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
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0,
                       families=[_runs_family({H: runs["gd"][H] for H in (min(runs["Hs"]), max(runs["Hs"]))},
                                              "DM2 GD (eta = sqrt H)", K), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-5", "momentum-faster-than-gd", shares="deora-smoke-dm2-runs")
def check_fig5_momentum_faster_than_gd(runs: dict[str, Any] | None = None, *, step: int = 100,
                                       swap: bool = False) -> CheckRecord:
    """At equal H and step 100, heavy-ball momentum has lower train loss than GD (eta = sqrt H)."""
    runs = runs or smoke_dm2_runs()
    mom = np.concatenate([_loss_at(runs["momentum"][H], step) for H in runs["Hs"]])
    gd = np.concatenate([_loss_at(runs["gd"][H], step) for H in runs["Hs"]])
    a, b = (gd, mom) if swap else (mom, gd)
    return check_bound(a, b, f"train loss at step {step}: momentum <= GD, every H and trial",
                       params={"Hs": list(runs["Hs"]), "step": step}, seed=0,
                       families=[_runs_family(runs["momentum"], "DM2 heavy-ball momentum (eta = sqrt H)", step),
                                 _runs_family(runs["gd"], "DM2 GD (eta = sqrt H)", step), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-5", "more-heads-lower-final-loss", shares="deora-smoke-dm2-runs")
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
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0,
                       families=[_runs_family({H: runs[opt][H] for H in (min(runs["Hs"]), max(runs["Hs"]))},
                                              f"DM2 {opt}", K) for opt in optimizers] + [_ORDER],
                       no_search=_RUNS)


@claim_check("deora-sec-g-dm1", "sampler-settings")
def check_dm1_settings(*, sigma: float = 0.1, S: float = 2.0, n: int | None = None,
                       seed: int = 0) -> CheckRecord:
    """The DM1 sampler draws App. G's data: one relevant token ``mu_y`` (norm ``S``) per sample and
    Gaussian noise of standard deviation ``sigma`` on the other tokens.

    ``sigma`` and ``S`` are the claimed values; a wrong claim (negative control) fails either
    the exact token identity or the ``5 SE`` interval on the noise standard deviation.
    """
    from attention_theory.deora import dm1

    n = n or pick(2000, 20000)
    cfg = dh.app_g_dm1_config()
    smp = dm1.sample(cfg, n, seed=seed)
    pt = dm1.patterns(cfg)
    mu = np.where(smp.y[:, None] > 0, pt["mu_plus"], pt["mu_minus"]) * (S / cfg.S)
    rel_tokens = smp.X[smp.relevant]                       # (n, d): one relevant token each
    noise = (smp.X - np.where(smp.relevant[..., None], 0.0, pt["nu"][np.clip(smp.j, 0, cfg.M - 1)]))[~smp.relevant]
    sd = float(noise.std())
    se = sd / math.sqrt(2 * (noise.size - 1))              # standard error of a Gaussian SD
    counts_ok = float(np.all(smp.relevant.sum(1) == round(cfg.zeta * cfg.T)))
    computed = np.concatenate([rel_tokens.ravel(), [counts_ok, abs(sd - sigma) <= 5 * se]])
    reference = np.concatenate([mu.ravel(), [1.0, 1.0]])
    return check_identity(computed, reference,
                          f"App. G DM1: zeta T = 1 relevant token equal to mu_y with ||mu|| = {S}, noise sd {sigma} (5 SE)",
                          atol=0.0, params={"n": n, "empirical_sd": sd, "se": se, "T": cfg.T, "d": cfg.d,
                                            "M": cfg.M, "gamma_attn": dh.gamma_attn_dm1(cfg)}, seed=seed)


@claim_check("deora-sec-g-symmetry", "engines-agree-dm1")
def check_dm1_engines_agree(*, steps: int | None = None, Hs: tuple[int, ...] = (1, 4, 16),
                            atol: float = 1e-10) -> CheckRecord:
    """On DM1 (App. G settings) the H-head model and the batched reduction log the same numbers
    at every step (loss, margins, norms, attention score) for Figures 2-3's three optimizers."""
    steps = steps or pick(30, 200)
    data = dh.dm1_trials(1, 100, 300)
    gaps = [dh._prefix_agreement(data, list(Hs), opt, rule, lr, steps)
            for opt, rule, lr in (("gd", "constant", 1.0), ("gd", "sqrtH", 1.0), ("adam", "constant", 0.06))]
    worst = np.array([[g["max_log_gap"], g["max_param_gap"], g["max_head_spread"]] for g in gaps])
    return check_bound(worst.ravel(), np.full(worst.size, atol),
                       f"|H-head - reduced| <= {atol} over {steps} steps, every logged quantity and parameter",
                       params={"Hs": list(Hs), "steps": steps}, seed=0,
                       families=[f"DM1 (App. G settings, one trial, 100 training / 300 test samples) runs of GD eta = 1, "
                                 f"GD eta = sqrt H and Adam 0.06, H in {{{', '.join(map(str, Hs))}}}, every step up to "
                                 f"{steps}: logged quantities, parameters and head spread",
                                 f"loose by design: the agreement tolerance atol = {atol:g} (round-off of two "
                                 "implementations of one computation), not an inequality of the paper"],
                       no_search="agreement of two implementations (the H-head model and the batched "
                       "reduction) along the same DM1 training runs, every step and logged quantity; the "
                       "runs are the instance, the identity is exercised on every quantity they log")


#: the logged quantities compared step by step between the H-head model and the reduction
_TRAJECTORY_KEYS = ("train_loss", "test_loss", "train_acc", "test_acc", "avg_W_norm", "avg_U_norm",
                    "margin_min", "margin_mean", "attn_score")


def _trajectory_gaps(heads: dict[int, dict[str, Any]], reduced: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Step-by-step gaps between an H-head run and a reduced run of the same configuration:
    ``{"computed", "reference"}`` (every logged quantity, step, H and trial, concatenated),
    ``{"steps", "rel_gap", "param_gap", "spread"}`` per ``H`` (largest over trials and quantities,
    one value per logged step; ``rel_gap`` is ``|a - b| / max(|b|, 1e-300)``)."""
    computed, reference, per_H = [], [], {}
    for H in sorted(heads):
        a, b = heads[H], reduced[H]
        steps = np.asarray(a["step"], dtype=int)
        if not np.array_equal(steps, np.asarray(b["step"], dtype=int)):
            raise ValueError(f"H = {H}: the two runs are logged at different steps")
        rel = np.zeros(len(steps))
        for key in _TRAJECTORY_KEYS:
            x, y = np.asarray(a[key], dtype=float), np.asarray(b[key], dtype=float)
            computed.append(x.ravel())
            reference.append(y.ravel())
            rel = np.maximum(rel, (np.abs(x - y) / np.maximum(np.abs(y), 1e-300)).max(axis=1))
        per_H[H] = {"steps": steps.tolist(), "rel_gap": rel.tolist(),
                    "param_gap": np.asarray(a["reduced_param_gap"], dtype=float).max(axis=1).tolist(),
                    "spread": np.asarray(a["head_spread_pairs"], dtype=float).max(axis=1).tolist()}
    return {"computed": np.concatenate(computed), "reference": np.concatenate(reference), "per_H": per_H}


@claim_check("deora-sec-g-symmetry", "engines-agree-full-trajectory")
def check_dm1_trajectory_agreement(heads: dict[int, dict[str, Any]] | None = None,
                                   reduced: dict[int, dict[str, Any]] | None = None, *,
                                   steps: int | None = None, w_step_factor: float = 1.0,
                                   rtol: float = 1e-9, atol: float = 1e-12) -> CheckRecord:
    """Figure 2's GD run (DM1, eta = 1) of the H-head model itself (``heads-batched`` engine: every
    head its own parameters) equals the reduced run at every logged step of the whole trajectory:
    every logged quantity (losses, accuracies, norms, margins, attention score), every H and trial;
    the heads stay equal (largest entry-wise difference between two heads) and equal the reduction
    trained alongside (``V / sqrt(H)``, ``W``) to round-off.

    Full scale: the committed ``fig2-heads.json`` against the committed reduced ``fig2.json``
    (2 x 10^4 steps, H up to 64, five trials).  Smoke: both engines live on the smoke
    configuration.  ``w_step_factor != 1`` trains the reduced reference with its W step multiplied
    by it (a wrong rescaling: negative control).
    """
    from attention_theory.config import scale

    if heads is None or reduced is None:
        if scale() == "full" and steps is None and w_step_factor == 1.0:
            heads = dh.load_figure("fig2-heads")["runs"]["gd:constant:1.0"]
            reduced = dh.load_figure("fig2")["runs"]["gd:constant:1.0"]
        else:
            base = smoke_dm1_runs()
            K = steps or base["steps"]["gd1"]
            data, Hs = base["data"], list(base["Hs"])
            heads = dh.sweep(data, Hs, "gd", steps=K, lr_rule="constant", engine="heads-batched")
            if w_step_factor == 1.0 and K == base["steps"]["gd1"]:
                reduced = base["gd1"]
            else:
                reduced = {}
                for H in Hs:
                    spec = dh.reduced_single_head_spec(dh.TrainSpec.uniform("gd", 1.0, K), H)
                    spec = dataclasses.replace(spec, lr_W=spec.lr_W * w_step_factor)
                    reduced[H] = dh.train_heads(data["Xtr"], data["ytr"], data["Xte"], data["yte"], H=1,
                                                spec=spec, relevant=data["rel_tr"], record_at=dh.log_steps(K))
    gaps = _trajectory_gaps(heads, reduced)
    per_H = gaps["per_H"]
    param = np.array([max(g["param_gap"]) for g in per_H.values()])
    spread = np.array([max(g["spread"]) for g in per_H.values()])
    Hs = sorted(per_H)
    K = int(max(per_H[Hs[0]]["steps"]))
    trials = int(np.asarray(heads[Hs[0]]["train_loss"]).shape[-1])
    computed = np.concatenate([gaps["computed"], param, spread])
    reference = np.concatenate([gaps["reference"], np.zeros(param.size + spread.size)])
    worst = {H: {"rel_gap": max(g["rel_gap"]), "param_gap": max(g["param_gap"]), "spread": max(g["spread"])}
             for H, g in per_H.items()}
    return check_identity(computed, reference,
                          f"H-head model = reduction at every logged step of {K} GD steps (DM1, eta = 1): "
                          "logged quantities, parameters, heads equal",
                          atol=atol, rtol=rtol,
                          params={"Hs": Hs, "steps": K, "trials": trials, "w_step_factor": w_step_factor,
                                  "max_rel_gap": max(w["rel_gap"] for w in worst.values()),
                                  "max_param_gap": float(param.max()), "max_head_spread": float(spread.max())},
                          extra={"per_H": {str(H): g for H, g in per_H.items()}}, seed=0)


def _ordered_in_H(runs: dict[int, dict[str, Any]], keys: tuple[str, ...], step: int,
                  increasing: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(lhs, rhs)`` with ``lhs < rhs`` meaning every key is strictly monotone in H, every trial."""
    lo, hi = [], []
    for key in keys:
        for _, _, va, vb in adjacent_in_H(runs, key, step):
            lo.append(va if increasing else vb)
            hi.append(vb if increasing else va)
    # strict: lhs must be below rhs by at least one unit in the last place
    return np.concatenate(lo), np.nextafter(np.concatenate(hi), -np.inf)


@claim_check("deora-fig-2", "loss-increasing-in-heads", shares="deora-smoke-dm1-runs")
def check_fig2_loss_increasing(runs: dict[str, Any] | None = None, *, increasing: bool = True) -> CheckRecord:
    """GD with eta = 1: at steps 10, 100 and K the train loss is strictly increasing in H, every trial."""
    runs = runs or smoke_dm1_runs()
    K = runs["steps"]["gd1"]
    pairs = [_ordered_in_H(runs["gd1"], ("train_loss",), k, increasing) for k in (10, 100, K)]
    return check_bound(np.concatenate([a for a, _ in pairs]), np.concatenate([b for _, b in pairs]),
                       f"train loss strictly {'increasing' if increasing else 'decreasing'} in H at steps 10, 100, {K} (GD, eta=1)",
                       params={"Hs": list(runs["Hs"]), "K": K}, seed=0,
                       families=[_runs_family(runs["gd1"], "DM1 GD (eta = 1)", f"10, 100 and {K}"), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-2", "late-loss-rate-one-over-t", shares="deora-smoke-dm1-runs")
def check_fig2_rate(runs: dict[str, Any] | None = None, *, low: float = -1.3, high: float = -0.7) -> CheckRecord:
    """GD with eta = 1, H = 1: the exponent of the mean train loss against the step over the
    last decade of steps, with its whole 95% interval, lies in ``[low, high]`` (an O(1/t) regime)."""
    from attention_theory.foundations.trend import power_exponent
    from attention_theory.verify import check_interval

    runs = runs or smoke_dm1_runs()
    K = runs["steps"]["gd1"]
    r = runs["gd1"][min(runs["Hs"])]
    s = np.asarray(r["step"], dtype=float)
    m = s >= K / 10
    est = power_exponent(s[m], np.asarray(r["train_loss"]).mean(1)[m])
    return check_interval(est.exponent, low, high,
                          f"exponent of train loss in the step over [{K // 10}, {K}], H=1 (95% interval inside)",
                          params={"K": K, "slope": est.exponent}, seed=0, value_interval=(est.low, est.high),
                          extra={"exponent": est.to_dict()})


@claim_check("deora-fig-2", "attention-decreasing-in-heads", shares="deora-smoke-dm1-runs")
def check_fig2_attention(runs: dict[str, Any] | None = None, *, increasing: bool = False) -> CheckRecord:
    """GD with eta = 1: at step K the attention score on the relevant token and the average
    ``||W_h||`` are strictly decreasing in H, every trial."""
    runs = runs or smoke_dm1_runs()
    K = runs["steps"]["gd1"]
    return check_bound(*_ordered_in_H(runs["gd1"], ("attn_score", "avg_W_norm"), K, increasing),
                       f"attention score and average ||W|| strictly {'increasing' if increasing else 'decreasing'} in H at step {K}",
                       params={"Hs": list(runs["Hs"]), "K": K}, seed=0,
                       families=[_runs_family(runs["gd1"], "DM1 GD (eta = 1)", K), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-2", "margin-growing-largest-for-one-head", shares="deora-smoke-dm1-runs")
def check_fig2_margin(runs: dict[str, Any] | None = None, *, best_H: int | None = None) -> CheckRecord:
    """GD with eta = 1: the normalized margin of H = 1 does not decrease over the last decade of
    steps (logged points), and at step K it is the largest over H, every trial.

    ``best_H`` names the H claimed to have the largest margin (default the smallest).
    """
    runs = runs or smoke_dm1_runs()
    K = runs["steps"]["gd1"]
    Hs = sorted(runs["gd1"])
    best = best_H or Hs[0]
    r = runs["gd1"][Hs[0]]
    s = np.asarray(r["step"])
    late = np.asarray(r["margin_min"])[s >= K / 10]
    lhs = [late[:-1].ravel(), np.concatenate([value_at(runs["gd1"][H], "margin_min", K) for H in Hs if H != best])]
    rhs = [late[1:].ravel() + 1e-12, np.concatenate([value_at(runs["gd1"][best], "margin_min", K)] * (len(Hs) - 1))]
    return check_bound(np.concatenate(lhs), np.concatenate(rhs),
                       f"H=1 margin non-decreasing over steps [{K // 10}, {K}]; at step {K} H={best} has the largest margin",
                       params={"Hs": Hs, "K": K, "gamma_attn": dh.gamma_attn_dm1(dh.app_g_dm1_config()),
                               "margin_H1_at_K": value_at(r, "margin_min", K).tolist()}, seed=0,
                       families=[_runs_family({Hs[0]: r}, "DM1 GD (eta = 1)", f"every logged step in [{K // 10}, {K}]"),
                                 _runs_family(runs["gd1"], "DM1 GD (eta = 1)", K), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-2", "full-scale-margin-near-gamma-attn")
def check_fig2_full_margin(runs: dict[str, Any], *, fraction: float = 0.8, step: int = 10_000) -> CheckRecord:
    """Full scale only: with one head, GD (eta = 1) reaches ``fraction * gamma_attn`` of normalized
    margin by ``step`` in every trial (the paper's "achieves gamma_attn" is only approached)."""
    r = runs["gd1"][1]
    s = np.asarray(r["step"])
    at = np.asarray(r["margin_min"])[s >= step][0]
    g = dh.gamma_attn_dm1(dh.app_g_dm1_config())
    return check_bound(np.full(at.shape, fraction * g), at,
                       f"H=1 normalized margin >= {fraction} gamma_attn = {fraction * g:.3f} by step {step}",
                       params={"step": int(s[s >= step][0]), "margin": at.tolist(), "gamma_attn": g}, seed=0,
                       families=[f"every trial of the full-scale DM1 GD (eta = 1) run with H = 1, at step {step}",
                                 f"loose by design: the fraction {fraction} of gamma_attn is the book's operational "
                                 "reading of 'achieves gamma_attn' (approached, not reached)"],
                       no_search=_FULL)


@claim_check("deora-fig-3", "gd-sqrt-heads-faster-smaller-margin", shares="deora-smoke-dm1-runs")
def check_fig3_gd(runs: dict[str, Any] | None = None, *, reverse: bool = False) -> CheckRecord:
    """GD with eta = sqrt(H): at step K the train loss and the normalized margin are strictly
    decreasing in H, every trial (faster training, margin further from gamma_attn)."""
    runs = runs or smoke_dm1_runs()
    K = runs["steps"]["gd_sqrtH"]
    return check_bound(*_ordered_in_H(runs["gd_sqrtH"], ("train_loss", "margin_min"), K, reverse),
                       f"train loss and margin strictly {'increasing' if reverse else 'decreasing'} in H at step {K} (GD, eta=sqrt H)",
                       params={"Hs": list(runs["Hs"]), "K": K}, seed=0,
                       families=[_runs_family(runs["gd_sqrtH"], "DM1 GD (eta = sqrt H)", K), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-3", "adam-early-loss-decreasing-in-heads", shares="deora-smoke-dm1-runs")
def check_fig3_adam(runs: dict[str, Any] | None = None, *, step: int = 10, reverse: bool = False) -> CheckRecord:
    """Adam (eta = 0.06): at step 10 the train loss is strictly decreasing in H, every trial
    (compared early: later the loss reaches Adam's epsilon floor)."""
    runs = runs or smoke_dm1_runs()
    a, b = _ordered_in_H(runs["adam"], ("train_loss",), step, reverse)
    return check_bound(a, b, f"train loss strictly {'increasing' if reverse else 'decreasing'} in H at step {step} (Adam 0.06)",
                       params={"Hs": list(runs["Hs"]), "step": step}, seed=0,
                       families=[_runs_family(runs["adam"], "DM1 Adam (eta = 0.06)", step), _ORDER],
                       no_search=_RUNS)


@claim_check("deora-fig-4", "full-scale-planted-model-recovered")
def check_dm2_recovery(runs: dict[str, Any], *, align_W: float = 0.95, align_U: float = 0.9,
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
                       f"alignment with the teacher at step {K}: W >= {align_W}, U >= {align_U} ({', '.join(optimizers)}; every H, trial)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0, no_search=_FULL,
                       families=[_runs_family(runs[opt], f"full-scale DM2 {opt}", K) for opt in optimizers]
                       + [f"loose by design: the alignment thresholds {align_W} (W) and {align_U} (U) are the book's "
                          "operational reading of 'recovers the planted model'"])


@claim_check("deora-fig-4", "full-scale-margin-reached")
def check_dm2_margin(runs: dict[str, Any], *, fraction: float = 0.9, gamma_dm2: float = 0.2,
                     optimizers: tuple[str, ...] = ("gd", "momentum", "adam")) -> CheckRecord:
    """Full scale only: at the last step the normalized train margin is at least
    ``fraction * gamma_DM2`` for every optimizer, H and trial ("all models reach the margin")."""
    K = runs["steps"]
    got = np.concatenate([value_at(runs[opt][H], "margin_min", K) for opt in optimizers for H in runs["Hs"]])
    return check_bound(np.full(got.shape, fraction * gamma_dm2), got,
                       f"normalized train margin at step {K} >= {fraction} gamma_DM2 = {fraction * gamma_dm2:.3f}",
                       params={"Hs": list(runs["Hs"]), "steps": K, "optimizers": list(optimizers)}, seed=0,
                       no_search=_FULL,
                       families=[_runs_family(runs[opt], f"full-scale DM2 {opt}", K) for opt in optimizers]
                       + [f"loose by design: the fraction {fraction} of gamma_DM2 is the book's operational reading "
                          "of 'all models reach the margin'"])


def full_scale_report(kind: str) -> tuple[list[tuple[str, str, bool, str]], dict[str, Any]]:
    """Every operational statement of the DM1 (``"dm1"``) or DM2 (``"dm2"``) figures evaluated on
    the committed full-scale results: ``(rows, runs)`` with rows ``(claim, statement, holds,
    summary)``.

    The evaluation runs inside :func:`attention_theory.verify.on_results` on the committed files
    (:func:`attention_theory.deora.head_sweeps.full_scale_files`), so every statement writes a record at scale ``full`` naming them:
    ``verified`` when it holds, ``fails`` when it does not (:func:`attention_theory.verify.evaluate`).
    A statement shown per optimizer is recorded once, for all optimizers together (the per-optimizer
    rows are display only), so a passing optimizer cannot overwrite another one's failure."""
    from attention_theory.verify import evaluate, evaluate_only, on_results

    if kind == "dm1":
        runs = dm1_runs_from_results(dh.load_figure("fig2"), dh.load_figure("fig3"))
        items = [("deora-fig-2", "(a) loss increasing in H at 10, 100, K", check_fig2_loss_increasing),
                 ("deora-fig-2", "(b) late slope of the H=1 loss in [-1.3, -0.7]", check_fig2_rate),
                 ("deora-fig-2", "(c) attention and avg ||W|| decreasing in H at K", check_fig2_attention),
                 ("deora-fig-2", "(d) H=1 margin growing late, largest at K", check_fig2_margin),
                 ("deora-fig-2", "(e) H=1 margin >= 0.8 gamma_attn by step 10^4", check_fig2_full_margin),
                 ("deora-fig-3", "GD sqrt(H): loss and margin decreasing in H at K", check_fig3_gd),
                 ("deora-fig-3", "Adam: loss decreasing in H at step 10", check_fig3_adam)]
        per_optimizer: list[tuple[str, str, Any]] = []
    elif kind == "dm2":
        runs = dm2_runs_from_results(dh.load_figure("fig4"), dh.load_figure("fig5"))
        items = [("deora-fig-4", "GD sqrt(H): loss at K lower for the largest H than for H=1",
                  check_fig4_more_heads_lower_loss),
                 ("deora-fig-4", "GD sqrt(H): loss at K strictly decreasing in H", check_fig4_loss_decreasing)]
        per_optimizer = []
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
                  ("deora-fig-5", "momentum below GD at step 100, every H and trial", check_fig5_momentum_faster_than_gd),
                  ("deora-fig-5", "momentum and Adam: loss at K lower for the largest H than for H=1",
                   check_fig5_more_heads_lower_loss)]
    else:
        raise ValueError(f"kind must be 'dm1' or 'dm2', got {kind!r}")
    with evaluate_only():   # display rows of statements recorded below for all optimizers together
        rows = [(cid, text, *evaluate(fn, runs)) for cid, text, fn in per_optimizer]
    with on_results(*dh.full_scale_files(kind)):
        rows += [(cid, text, *evaluate(fn, runs)) for cid, text, fn in items]
    return rows, runs


@claim_check("deora-fig-4", "full-scale-loss-decreasing-in-heads")
def check_fig4_loss_decreasing(runs: dict[str, Any], *, reverse: bool = False) -> CheckRecord:
    """Full scale: GD with eta = sqrt(H), the train loss at the last step is strictly decreasing
    in H on every trial."""
    K = runs["steps"]
    a, b = _ordered_in_H(runs["gd"], ("train_loss",), K, reverse)
    return check_bound(a, b, f"train loss at step {K} strictly {'increasing' if reverse else 'decreasing'} in H (GD, eta=sqrt H)",
                       params={"Hs": list(runs["Hs"]), "steps": K}, seed=0, no_search=_FULL,
                       families=[_runs_family(runs["gd"], "full-scale DM2 GD (eta = sqrt H)", K), _ORDER])
