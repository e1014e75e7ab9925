"""The experiment ``residual-training`` of Qin, Zhou & Zhu (2025): training the book's
**reconstructed** model with and without residual connections (``book/qin/experiments.md``).

The paper's experimental settings are not public; every size, step size and initialization
below is a documented choice of this book (``shared/spec/claims-qin.md``, section 3).

* E1 — residual vs no residual: loss curves and ``sigma_N, sigma_1, kappa`` of the attention
  output ``Z`` over training, several seeds, a common and a tuned step size.
* E2 — measured linear rate against ``sigma_N(Z0)^2`` and ``sigma_N^2 / sigma_1^2`` over a sweep
  of the conditioning of ``X``.
* E3 — multi-layer stacks (report only).
* ``lowrank`` — singular values of the softmax attention output with and without the residual.
* E4 — teacher-student stability over a step-size grid (:mod:`attention_theory.qin.stability`).

Run ``python -m attention_theory run qin residual-training --scale {smoke,full}``; the results go
to ``results/qin-residual-training/``. Each part declares its configuration at each scale
(:func:`lowrank_config`, :func:`e1_config`, :func:`e2_config`, :func:`e3_config`,
:func:`e4_config`), and its entry point (:func:`run_lowrank`, :func:`run_e1`, :func:`run_e2`,
:func:`run_e3`; E4 runs as shards of :func:`attention_theory.qin.stability.e4_runs`) computes
exactly that configuration, so the chapter's live smoke runs, which call the same entry points with
``EXPERIMENT.part(name).config_for("smoke")``, compute what ``--scale smoke`` writes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from attention_theory.experiment import Experiment, Part, PartResult, RunContext, Shards, shard_output
from attention_theory.foundations.gd import run_first_order
from attention_theory.foundations.tensors import VERIFICATION_DTYPE
from attention_theory.qin import model as qm
from attention_theory.validation import as_vector, check_int, check_positive, check_seed, refuses_overflow

__all__ = ["SIZES", "e1_instance", "train_recording", "run_e1", "rate_sweep", "run_e2",
           "empirical_rate", "results_dir", "spearman", "run_e3", "lowrank_spectrum", "run_lowrank",
           "lowrank_config", "e1_config", "e2_config", "e3_config", "e4_config", "EXPERIMENT"]

#: Sizes of each scale and part (read through the parts' ``config`` functions).  The "full" scale
#: here is a modest CPU scale: it was sized to finish in under twenty minutes at nice 19 on a
#: heavily shared two-core machine without a GPU.  Larger sizes (N=32, d=64, m=256, 10 seeds, 2e4
#: steps) were not run.  The smoke sizes of E1-E3 are those the chapter runs live (seconds).
SIZES: dict[str, dict[str, Any]] = {
    "smoke": {"lowrank": dict(seeds=(0, 1, 2)),
              "e1": dict(N=6, d=12, dk=4, dv=8, m=16, seeds=(0,), steps=300, record=30,
                         qk_stds=(0.05,), eta_grid=(0.02, 0.05), common_eta=0.02),
              "e2": dict(kappas=(1.0, 3.0, 10.0, 30.0), seeds=(0,), steps=200),
              "e3": dict(layers=(2,), N=6, d=12, dk=4, dv=8, m=16, seeds=(0,), steps=200)},
    "full": {"lowrank": dict(seeds=(0, 1, 2, 3, 4)),
             "e1": dict(N=8, d=16, dk=16, dv=16, m=32, seeds=(0, 1, 2), steps=1000, record=40,
                        qk_stds=(0.025, 0.25), eta_grid=(0.01, 0.03, 0.1), common_eta=0.03),
             "e2": dict(kappas=(1.0, 2.0, 5.0, 10.0, 20.0, 30.0), seeds=(0,), steps=300),
             "e3": dict(layers=(1, 2, 4), N=8, d=16, dk=16, dv=16, m=32, seeds=(0,),
                        steps=300)},
}
# E4 (teacher-student stability, :mod:`attention_theory.qin.stability`): sized from a measured
# cost of about 1.2 ms of one idle CPU core per run and GD step at the full sizes (seeds batched),
# 2-3 times more on the loaded shared machine; a first full run with ten seeds and 3000 steps was
# stopped as too slow there.
SIZES["smoke"]["e4"] = dict(N=8, n_seq=2, d=12, dk=4, dv=12, m=24, seeds=(0, 1, 2), steps=300, record=10,
                            etas=(0.01, 0.03, 0.1, 1.0), diverge_factor=1e4, target=1e-8)
SIZES["full"]["e4"] = dict(N=32, n_seq=2, d=64, dk=16, dv=64, m=256, seeds=tuple(range(8)), steps=1500,
                           record=10, etas=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0), diverge_factor=1e4,
                           target=1e-8)


def _config(scale: str, part: str) -> dict[str, Any]:
    """``SIZES[scale][part]`` with tuples as lists (the configuration as recorded in a result)."""
    if not isinstance(scale, str) or scale not in ("smoke", "full"):
        raise ValueError(f"scale: expected 'smoke' or 'full', got {scale!r}")
    return {k: list(v) if isinstance(v, tuple) else v for k, v in SIZES[scale][part].items()}


def lowrank_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``lowrank`` at ``scale`` (``"smoke"`` or ``"full"``): ``seeds``."""
    return _config(scale, "lowrank")


def e1_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e1`` at ``scale``: sizes ``N, d, dk, dv, m``, ``seeds``,
    ``steps``, ``record``, ``qk_stds``, ``eta_grid``, ``common_eta`` (the arguments of :func:`run_e1`)."""
    return _config(scale, "e1")


def e2_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e2`` at ``scale``: ``kappas``, ``seeds``, ``steps``."""
    return _config(scale, "e2")


def e3_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e3`` at ``scale``: ``layers``, sizes, ``seeds``, ``steps``."""
    return _config(scale, "e3")


def e4_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e4`` at ``scale``: the sizes and ``seeds``, ``steps``, ``record``,
    the step-size grid ``etas``, ``diverge_factor`` and ``target`` of
    :func:`attention_theory.qin.stability.e4_runs`."""
    return _config(scale, "e4")


def e1_instance(seed: int, *, N: int = 6, d: int = 12, dk: int = 4, dv: int = 8, m: int = 16,
                rho1: int = 1, rho2: int = 1, qk_std: float = 0.05, gamma: float = 0.2):
    """E1 data and initialization: rows of ``X`` Gaussian then normalized, ``Y`` Gaussian,
    ``WQ, WK`` entries of std ``qk_std``, ``WV, WO, W1`` entries ``N(0, 1/fan_in)``, ``W2``
    entries ``N(0, 1/m)``.  The same seed gives the same data and weights for both residual
    settings.  Returns a :class:`attention_theory.qin.residual_gd.Instance`."""
    from attention_theory.qin.residual_gd import Instance

    check_seed(seed)
    for name, v in (("N", N), ("d", d), ("dk", dk), ("dv", dv), ("m", m)):
        check_int(v, name)
    check_positive(qk_std, "qk_std", allow_zero=True)
    qm.QinConfig(rho1=rho1, rho2=rho2, gamma=gamma)  # validates rho1, rho2, gamma before any draw
    rng = np.random.default_rng(seed)
    dims = qm.Dims(d, dk, dv, m)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = rng.standard_normal((N, d))
    p = qm.init_params(dims, rng)
    p["WQ"] = torch.as_tensor(rng.standard_normal((d, dk)) * qk_std, dtype=VERIFICATION_DTYPE)
    p["WK"] = torch.as_tensor(rng.standard_normal((d, dk)) * qk_std, dtype=VERIFICATION_DTYPE)
    return Instance(p, torch.as_tensor(X, dtype=VERIFICATION_DTYPE), torch.as_tensor(Y,
                                                                                     dtype=VERIFICATION_DTYPE),
                    qm.QinConfig(rho1=rho1, rho2=rho2, gamma=gamma), dims)


def _z_svals(inst, theta: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        return np.linalg.svd(inst.Z(theta).numpy(), compute_uv=False)


def train_recording(inst, *, eta: float, steps: int, record: int) -> dict[str, np.ndarray]:
    """GD (``optim.gd``) in chunks of ``record`` steps; returns ``step, loss, sigma_N, sigma_1``
    at every chunk boundary (GD has no state, so chunking changes nothing)."""
    steps, record = check_int(steps, "steps"), check_int(record, "record")
    check_positive(eta, "eta")
    N = inst.X.shape[0]
    theta = inst.theta0
    out = {"step": [0], "loss": [float(inst.loss(theta))]}
    s = _z_svals(inst, theta)
    out["sigma_N"], out["sigma_1"] = [float(s[N - 1])], [float(s[0])]
    done = 0
    while done < steps:
        k = min(record, steps - done)
        tr = run_first_order(inst.loss, theta, steps=k, lr=eta)
        theta = tr.final
        done += k
        L = float(tr.losses[-1])
        s = _z_svals(inst, theta) if math.isfinite(L) else np.full(2, np.nan)
        out["step"].append(done)
        out["loss"].append(L)
        out["sigma_N"].append(float(s[min(N, s.size) - 1]))
        out["sigma_1"].append(float(s[0]))
        if not math.isfinite(L):
            break
    return {k: np.asarray(v) for k, v in out.items()}


def _e1_cell(*, q: float, seed: int, variant: str, N: int, d: int, dk: int, dv: int, m: int, steps: int,
            record: int, eta_grid: Sequence[float], common_eta: float) -> dict[str, Any]:
    """One cell of E1: ``qk_std = q``, one seed, one residual setting (``"residual"``/``"none"``);
    full-length GD runs at every step size of ``eta_grid``.  Returns the *common* run (at
    ``common_eta``), the *tuned* run (the grid value with the lowest final finite loss) and its
    step size ``eta_tuned``; each run as lists ``{step, loss, sigma_N, sigma_1}``."""
    if variant not in ("residual", "none"):
        raise ValueError(f"variant must be 'residual' or 'none', got {variant!r}")
    grid = [float(e) for e in eta_grid]
    if float(common_eta) not in grid:
        raise ValueError(f"common_eta={common_eta} must be one of eta_grid={grid}")
    inst = e1_instance(seed, N=N, d=d, dk=dk, dv=dv, m=m, rho1=1 if variant == "residual" else 0, qk_std=q)
    recs = {eta: train_recording(inst, eta=eta, steps=steps, record=record) for eta in grid}
    final = {eta: float(r["loss"][-1]) if r["step"][-1] == steps else math.inf for eta, r in recs.items()}
    final = {eta: (v if math.isfinite(v) else math.inf) for eta, v in final.items()}
    eta_t = min(grid, key=lambda e: final[e])
    return {"eta_tuned": eta_t,
            "common": {k: v.tolist() for k, v in recs[float(common_eta)].items()},
            "tuned": {k: v.tolist() for k, v in recs[eta_t].items()}}


def _e1_cells(qk_stds: Sequence[float], seeds: Sequence[int]) -> list[tuple[float, int, str]]:
    """The cells of E1 in the order of its result: ``(qk_std, seed, variant)``."""
    return [(float(q), int(s), v) for q in qk_stds for s in seeds for v in ("residual", "none")]


def _e1_assemble(cells: Sequence[tuple[float, int, str]], outputs: Sequence[dict[str, Any]],
                common_eta: float) -> dict[str, Any]:
    """``{"runs", "etas"}`` of E1 from its cells' :func:`_e1_cell` outputs (same order):
    ``runs[qk_std][variant][mode]`` a list over seeds, ``etas[qk_std]`` the step sizes."""
    runs: dict[str, Any] = {}
    etas: dict[str, Any] = {}
    for (q, _seed, variant), out in zip(cells, outputs):
        key = f"{q:g}"
        if key not in runs:
            runs[key] = {"residual": {"common": [], "tuned": []}, "none": {"common": [], "tuned": []}}
            etas[key] = {"common": float(common_eta), "tuned": {"residual": [], "none": []}}
        etas[key]["tuned"][variant].append(out["eta_tuned"])
        runs[key][variant]["common"].append(out["common"])
        runs[key][variant]["tuned"].append(out["tuned"])
    return {"runs": runs, "etas": etas}


def run_e1(config: Mapping[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """E1 in this process, for ``config`` (:func:`e1_config`; used by ``book/qin/experiments.md``):
    for each ``qk_std``, seed and residual setting, :func:`_e1_cell`.  Returns
    ``{"runs": runs, "etas": etas}`` with ``runs[qk_std][variant][mode]`` a list over seeds of
    ``{step, loss, sigma_N, sigma_1}`` (``run qin residual-training --parts e1`` computes the same
    cells as shards and merges them into the same result)."""
    return _e1_sequential(**_mapping(config, "config"), progress=progress)


def _mapping(config: Any, name: str) -> dict[str, Any]:
    if not isinstance(config, Mapping):
        raise TypeError(f"{name} must be a mapping of configuration keys, got {type(config).__name__}")
    return dict(config)


def _e1_sequential(*, N: int, d: int, dk: int, dv: int, m: int, seeds: Sequence[int], steps: int,
                   record: int, qk_stds: Sequence[float], eta_grid: Sequence[float], common_eta: float,
                   progress: bool = False) -> dict[str, Any]:
    grid = [float(e) for e in eta_grid]
    if float(common_eta) not in grid:
        raise ValueError(f"common_eta={common_eta} must be one of eta_grid={grid}")
    cells = _e1_cells(qk_stds, seeds)
    it = cells
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(cells, desc="E1", leave=False)
    outputs = [_e1_cell(q=q, seed=s, variant=v, N=N, d=d, dk=dk, dv=dv, m=m, steps=steps, record=record,
                       eta_grid=grid, common_eta=common_eta) for q, s, v in it]
    return _e1_assemble(cells, outputs, common_eta)


def _e1_plan(ctx: RunContext) -> list[tuple[str, Any]]:
    sizes = e1_config(ctx.scale)
    return [(f"qk-{q:g}-seed-{s}-{v}", (f"qk-{q:g}-seed-{s}-{v}", q, s, v))
            for q, s, v in _e1_cells(sizes["qk_stds"], sizes["seeds"])]


def _e1_shard(ctx: RunContext, spec: tuple[str, float, int, str]) -> dict[str, Any]:
    """One E1 cell as a shard, kept in its shard folder."""
    label, q, s, v = spec
    sizes = {k: v_ for k, v_ in e1_config(ctx.scale).items() if k not in ("seeds", "qk_stds")}
    config = {"qk_std": q, "seed": s, "variant": v, **sizes}
    return shard_output(ctx, "e1", label, config,
                        lambda: _e1_cell(q=q, seed=s, variant=v, **{k: x for k, x in sizes.items()}))


def _e1_merge(ctx: RunContext, outputs: list[dict[str, Any]]) -> PartResult:
    cfg = e1_config(ctx.scale)
    return PartResult(cfg, _e1_assemble(_e1_cells(cfg["qk_stds"], cfg["seeds"]), outputs, cfg["common_eta"]))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    x, y = as_vector(x, "x"), as_vector(y, "y")  # float64, finite, 1-d, non-empty
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must have equal length >= 3, got {x.size} and {y.size}")

    def ranks(v: np.ndarray) -> np.ndarray:
        order = np.argsort(v, kind="mergesort")
        r = np.empty(v.size)
        r[order] = np.arange(v.size, dtype=np.float64)
        for u in np.unique(v):  # average ranks of ties
            tie = v == u
            r[tie] = r[tie].mean()
        return r

    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry / den) if den > 0 else 0.0


@refuses_overflow
def empirical_rate(losses: Sequence[float], floor: float = 1e-16) -> float:
    """``-(1/K) log(L_K / L_0)``, with ``K`` the last step or the first step whose loss is below
    ``floor * L_0`` (past that point the loss measures rounding, not convergence)."""
    L = as_vector(losses, "losses", finite=False)
    floor = check_positive(floor, "floor", allow_zero=True)
    if L.size < 2 or not L[0] > 0:
        raise ValueError("losses must be a 1-d curve of >= 2 values starting above 0")
    below = np.flatnonzero(L < floor * L[0])
    K = int(below[0]) if below.size else L.size - 1
    if not np.all(np.isfinite(L[:K + 1])):
        raise ValueError(f"losses must be finite up to step {K} (the run diverged?)")
    return float(-math.log(L[K] / L[0]) / K)


def _check_seeds(seeds: Any) -> None:
    """A non-empty sequence of seeds (integers >= 0)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        raise TypeError(f"seeds must be a sequence of integers >= 0, got {type(seeds).__name__}")
    if len(seeds) == 0:
        raise ValueError("seeds must not be empty")
    for s in seeds:
        check_seed(s, "seeds")


@refuses_overflow
def rate_sweep(*, kappas: Sequence[float], seeds: Sequence[int], steps: int,
               loss0: float = 1e-8, eta_fixed: float = 0.05, hess_factor: float = 0.5,
               hessian: bool = True, progress: bool = False) -> dict[str, np.ndarray]:
    """E2: Theorem 2 instances (residuals on, ``Z0 ~ X``) with ``kappa(X)`` in ``kappas`` and
    ``L(theta0) = loss0``; measured rate at ``eta_fixed`` and at ``hess_factor / lambda_max``.
    Returns arrays over (kappa, seed): ``kappa, seed, sigma_N, sigma_1, eta_fixed, rate_fixed,
    eta_hess, rate_hess, Q0, Q1, guaranteed`` (``-log(1 - Q0/Q1)``) and ``holds`` (star).
    With ``hessian=False`` no Hessian run is made: ``eta_hess`` is NaN and ``rate_hess`` 0."""
    from attention_theory.qin.residual_gd import near_target_instance, top_hessian

    k_arr = as_vector(kappas, "kappas")
    if not np.all(k_arr > 0):
        raise ValueError(f"kappas must be positive condition numbers, got {k_arr.tolist()}")
    _check_seeds(seeds)
    check_int(steps, "steps")
    check_positive(loss0, "loss0")
    check_positive(eta_fixed, "eta_fixed")
    check_positive(hess_factor, "hess_factor")
    for name, flag in (("hessian", hessian), ("progress", progress)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    rows: dict[str, list] = {k: [] for k in ("kappa", "seed", "sigma_N", "sigma_1", "eta_fixed",
                                             "rate_fixed", "eta_hess", "rate_hess", "Q0", "Q1",
                                             "guaranteed", "holds")}
    it = [(k, s) for k in kappas for s in seeds]
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc="E2", leave=False)
    for kap, s in it:
        inst, c = near_target_instance(s, kappa=float(kap), loss0=loss0)
        rf = run_first_order(inst.loss, inst.theta0, steps=steps, lr=eta_fixed).losses.numpy()
        if hessian:
            lam, _ = top_hessian(inst, inst.theta0, iters=30)
            eta_h = hess_factor / lam
            rh = run_first_order(inst.loss, inst.theta0, steps=steps, lr=eta_h).losses.numpy()
        else:
            eta_h, rh = math.nan, np.array([1.0, 1.0])
        vals = dict(kappa=kap, seed=s, sigma_N=c["sigma_N_Z0"], sigma_1=c["sigma_1_Z0"],
                    eta_fixed=eta_fixed, rate_fixed=empirical_rate(rf), eta_hess=eta_h,
                    rate_hess=empirical_rate(rh),
                    Q0=c["Q0"], Q1=c["Q1"], guaranteed=-math.log1p(-c["Q0"] / c["Q1"]),
                    holds=c["holds"])
        for k, v in vals.items():
            rows[k].append(v)
    return {k: np.asarray(v) for k, v in rows.items()}


def _stack_init(L: int, seed: int, N: int, d: int, dk: int, dv: int, m: int, qk_std: float):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = rng.standard_normal((N, d))
    dims = qm.Dims(d, dk, dv, m)
    layers = []
    for _ in range(L):
        p = qm.init_params(dims, rng, vo_scale=1 / math.sqrt(L), ffn_scale=1 / math.sqrt(L))
        p["WQ"] = torch.as_tensor(rng.standard_normal((d, dk)) * qk_std, dtype=VERIFICATION_DTYPE)
        p["WK"] = torch.as_tensor(rng.standard_normal((d, dk)) * qk_std, dtype=VERIFICATION_DTYPE)
        layers.append(p)
    X = torch.as_tensor(X, dtype=VERIFICATION_DTYPE)
    return X, torch.as_tensor(Y, dtype=VERIFICATION_DTYPE), dims, layers


def run_e3(config: Mapping[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """E3 (report only) for ``config`` (:func:`e3_config`; used by ``book/qin/experiments.md``):
    stacks of ``L`` blocks (``L`` in ``config["layers"]``) with/without the attention residual,
    trained by GD at ``eta`` (default 0.01) from ``WQ, WK`` entries of std ``qk_std`` (0.05).
    Returns ``{"L<L>_<residual|none>": {"loss", "sigma_N_init", "sigma_N_final"}}``, one list
    entry per seed: the loss curve (about 100 points and the last), and ``sigma_N(Z^(l))`` of
    every layer at initialization and after training."""
    return _e3_stacks(**_mapping(config, "config"), progress=progress)


def _e3_stacks(*, layers: Sequence[int], N: int, d: int, dk: int, dv: int, m: int,
               seeds: Sequence[int], steps: int, eta: float = 0.01, qk_std: float = 0.05,
               progress: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    it = [(L, s, r) for L in layers for s in seeds for r in (1, 0)]
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc="E3", leave=False)
    n_one = qm.n_params(qm.Dims(d, dk, dv, m))
    for L, s, rho in it:
        X, Y, dims, lays = _stack_init(L, s, N, d, dk, dv, m, qk_std)
        cfg = qm.QinConfig(rho1=rho)
        theta0 = torch.cat([qm.pack(p) for p in lays])

        def unflat(th):
            return [qm.unpack(th[i * n_one:(i + 1) * n_one], dims) for i in range(L)]

        loss = lambda th: qm.stack_loss(unflat(th), X, Y, cfg)  # noqa: E731
        tr = run_first_order(loss, theta0, steps=steps, lr=eta)

        def sig(th):
            with torch.no_grad():
                return [float(np.linalg.svd(f["Z"].numpy(), compute_uv=False)[N - 1])
                        for f in qm.stack_forward(unflat(th), X, cfg)]

        key = f"L{L}_{'residual' if rho else 'none'}"
        rec = out.setdefault(key, {"loss": [], "sigma_N_init": [], "sigma_N_final": []})
        losses = tr.losses.numpy()
        rec["loss"].append(losses[:: max(1, steps // 100)].tolist() + [float(losses[-1])])
        rec["sigma_N_init"].append(sig(theta0))
        rec["sigma_N_final"].append(sig(tr.final) if math.isfinite(float(losses[-1])) else [math.nan] * L)
    return out


def lowrank_spectrum(seeds: Sequence[int] = (0, 1, 2), *, N: int = 8, d: int = 16, dk: int = 16,
                     dv: int = 16, m: int = 16,
                     qk_stds: Sequence[float] = (0.0, 0.05, 0.25, 1.0)) -> dict[str, Any]:
    """Singular values (descending) of ``Z = rho1 X + S X WV WO`` for ``rho1 in {0, 1}`` and of the
    attention matrix ``S`` at initialization, per ``qk_std`` and seed."""
    out: dict[str, Any] = {}
    for q in qk_stds:
        rec = {"residual": [], "none": [], "S": []}
        for s in seeds:
            for variant, rho in (("residual", 1), ("none", 0)):
                inst = e1_instance(s, N=N, d=d, dk=dk, dv=dv, m=m, rho1=rho, qk_std=q)
                rec[variant].append(_z_svals(inst, inst.theta0).tolist())
            with torch.no_grad():
                S = qm.forward(inst.params, inst.X, inst.cfg)["S"].numpy()
            rec["S"].append(np.linalg.svd(S, compute_uv=False).tolist())
        out[f"{q:g}"] = rec
    return out


def run_lowrank(config: Mapping[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """The part ``lowrank`` for ``config`` (:func:`lowrank_config`): :func:`lowrank_spectrum` of
    ``config["seeds"]`` (``progress`` is accepted for a uniform signature; the part is quick)."""
    return lowrank_spectrum(_mapping(config, "config")["seeds"])


def run_e2(config: Mapping[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """E2 for ``config`` (:func:`e2_config`; used by ``book/qin/experiments.md``):
    :func:`rate_sweep` as lists, with the Spearman correlations ``spearman_rate_vs_sigmaN2``
    (``rate_fixed`` against ``sigma_N^2``) and ``spearman_ratehess_vs_ratio`` (``rate_hess``
    against ``sigma_N^2 / sigma_1^2``)."""
    data = {k: v.tolist() for k, v in rate_sweep(**_mapping(config, "config"), progress=progress).items()}
    data["spearman_rate_vs_sigmaN2"] = spearman(np.asarray(data["sigma_N"]) ** 2,
                                                np.asarray(data["rate_fixed"]))
    data["spearman_ratehess_vs_ratio"] = spearman(
        (np.asarray(data["sigma_N"]) / np.asarray(data["sigma_1"])) ** 2,
        np.asarray(data["rate_hess"]))
    return data


def results_dir() -> Path:
    """``results/qin-residual-training`` of the repository holding this package (or above the working
    directory)."""
    from attention_theory.results import repo_results_dir

    return repo_results_dir("qin-residual-training")


def _run_part(config: Any, entry: Any) -> Any:
    """``ctx -> PartResult`` running ``entry(config(ctx.scale))`` and recording that configuration."""

    def run(ctx: RunContext) -> PartResult:
        cfg = config(ctx.scale)
        return PartResult(cfg, entry(cfg, progress=ctx.progress))

    return run


def _e4_plan(ctx: RunContext) -> list[tuple[str, Any]]:
    """One E4 shard per (student variant, step size), its seeds batched."""
    etas = e4_config(ctx.scale)["etas"]
    return [(f"{v}-eta-{e:g}", (v, float(e))) for v in ("residual", "none") for e in etas]


def _e4_shard(ctx: RunContext, spec: tuple[str, float]) -> dict[str, Any]:
    """The runs of one E4 shard (every seed at one step size and variant), kept in its shard folder."""
    from attention_theory.qin.stability import e4_runs

    variant, eta = spec
    sizes = {k: v for k, v in e4_config(ctx.scale).items() if k != "etas"}
    config = {"variant": variant, "eta": eta, **sizes}
    return shard_output(ctx, "e4", f"{variant}-eta-{eta:g}", config,
                        lambda: {"runs": e4_runs(eta=eta, variant=variant, **sizes)})


def _e4_merge(ctx: RunContext, outputs: list[dict[str, Any]]) -> PartResult:
    cfg = e4_config(ctx.scale)
    runs = [r for out in outputs for r in out["runs"]]
    table = {v: {f"{e:g}": sum(bool(r["diverged"]) for r in runs
                               if r["variant"] == v and r["eta"] == float(e))
                 for e in cfg["etas"]} for v in ("residual", "none")}
    summary = "; ".join(f"{v} diverged " + ", ".join(f"{k}/{len(cfg['seeds'])} at eta {e}" for e,
                                                     k in t.items())
                        for v, t in table.items())
    return PartResult(cfg, {"runs": runs, "diverged_count": table}, summary=summary)


EXPERIMENT = Experiment(
    paper="qin", name="residual-training",
    description="Qin, Zhou & Zhu: training with and without residual connections; convergence rate vs "
                "the spectrum of the attention output (E1-E4, low rank).",
    results="qin-residual-training",
    parts=(Part("lowrank", _run_part(lowrank_config, run_lowrank),
                "singular values of the attention output at initialization", config=lowrank_config),
           Part("e2", _run_part(e2_config, run_e2), "linear rate against sigma_min", config=e2_config),
           Part("e3", _run_part(e3_config, run_e3), "residual vs no residual", config=e3_config),
           Part("e1", None, "loss curves of the reconstructed Theorem 2 (shards: one qk_std, seed and "
                "residual setting each)", shards=Shards(_e1_plan, _e1_shard, _e1_merge), config=e1_config),
           Part("e4", None, "teacher-student stability: divergence and final loss over a step-size grid, "
                            "with "
                "and without the attention residual (shards: one variant and step size each, seeds batched)",
                shards=Shards(_e4_plan, _e4_shard, _e4_merge), config=e4_config)),
)
