"""Deora et al., App. G, Figures 2-5: the experiment ``head-sweeps`` (multi-head attention trained
from zero initialization, varying the number of heads ``H``).

Each figure is one part, which declares its configuration at each scale (:func:`fig2_config`,
:func:`fig2_heads_config`, :func:`fig2_random_config`, :func:`fig3_config`, :func:`fig4_config`,
:func:`fig5_config`, all :func:`figure_config`); :func:`run_config` trains exactly that
configuration with the trainer of :mod:`attention_theory.deora.heads_training`.  The chapters'
live runs (:mod:`attention_theory.deora.experiment_runs`) call it with the smoke configuration, so
that ``book/deora/experiments.md``, ``book/deora/planted-teacher.md`` and
``python -m attention_theory run deora head-sweeps --scale smoke`` compute the same thing.

Every figure declares the engine it runs (``--engine`` overrides it): the exact reduction
(``"reduced"``) for Figures 2 and 3, the ``H``-head model itself (``"heads"``) for Figures 4 and 5
at smoke scale and the reduction at full scale (as in the committed files), the hand-derived
batched ``H``-head model for ``fig2-heads`` and the autograd ``H``-head model for the random start
``fig2-random`` (where the reduction does not apply).

Run from the command line (one result file per figure, in ``results/deora-head-sweeps/``)::

    python -m attention_theory run deora head-sweeps --scale full --verify-prefix 100 --parts fig2 fig3
    python -m attention_theory run deora head-sweeps --scale full --parts fig2-heads   # heads-batched
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from attention_theory.deora.heads_training import (
    app_g_dm1_config,
    dm1_trials,
    dm2_trials,
    gamma_attn_dm1,
    log_steps,
    prefix_agreement,
    sweep,
)
from attention_theory.experiment import (
    Experiment,
    Part,
    PartResult,
    RunContext,
    Shards,
    nonnegative_int,
    shard_output,
)
from attention_theory.validation import check_bool, check_int, check_path

__all__ = ["FIGURE_SETTINGS", "FULL_SCALE_FILES", "EXPERIMENT", "as_runs", "figure_config", "fig2_config",
           "fig2_heads_config", "fig2_random_config", "fig3_config", "fig4_config", "fig5_config",
           "figure_data", "run_config", "run_figure", "load_figure", "results_dir",
           "full_scale_files"]

ENGINES = ("heads", "reduced", "heads-batched")

#: figure -> data model, the engine it runs at each scale and its list of
#: (optimizer, lr_rule, lr, steps at full scale, steps at smoke scale)
FIGURE_SETTINGS: dict[str, dict[str, Any]] = {
    "fig2": {"data": "dm1", "engine": {"smoke": "reduced", "full": "reduced"},
             "runs": [("gd", "constant", 1.0, 20_000, 500)]},
    # Figure 2's run with the H-head model itself (heads-batched engine, the reduction alongside),
    # for the whole-trajectory comparison with fig2.json (its own file: fig2-heads.json)
    "fig2-heads": {"data": "dm1", "engine": {"smoke": "heads-batched", "full": "heads-batched"},
                   "fixed_engine": True, "runs": [("gd", "constant", 1.0, 20_000, 500)],
                   "help": "Figure 2 (GD, eta = 1) with the H-head model, hand-derived batched gradients"},
    # the book's variant (not in the paper): Figure 2's GD from a small random start, heads engine
    # (logged on Figure 2's step grid, so that the two runs can be compared step by step)
    "fig2-random": {"data": "dm1", "engine": {"smoke": "heads", "full": "heads"}, "init_scale": 0.01,
                    "Hs": [1, 4, 16, 64], "grid_of": "fig2", "runs": [("gd", "constant", 1.0, 2000, 300)]},
    "fig3": {"data": "dm1", "engine": {"smoke": "reduced", "full": "reduced"},
             "runs": [("gd", "sqrtH", 1.0, 20_000, 500), ("adam", "constant", 0.06, 2000, 300)]},
    "fig4": {"data": "dm2", "engine": {"smoke": "heads", "full": "reduced"},
             "runs": [("gd", "sqrtH", 1.0, 3000, 200)]},
    "fig5": {"data": "dm2", "engine": {"smoke": "heads", "full": "reduced"},
             "runs": [("momentum", "sqrtH", 1.0, 3000, 200), ("adam", "constant", 0.01, 3000, 200)]},
}

SCALES = {
    "dm1": {"full": dict(trials=5, n_train=100, n_test=300, Hs=[1, 2, 4, 8, 16, 32, 64]),
            "smoke": dict(trials=2, n_train=100, n_test=300, Hs=[1, 4, 16])},
    "dm2": {"full": dict(trials=5, n_train=1000, n_test=3000, Hs=[1, 2, 4, 8, 16, 32]),
            "smoke": dict(trials=2, n_train=100, n_test=300, Hs=[1, 4, 16])},
}


def run_key(optimizer: str, lr_rule: str, lr: float) -> str:
    """The key of one optimizer setting in a result file, e.g. ``"gd:sqrtH:1.0"``."""
    return f"{optimizer}:{lr_rule}:{float(lr)}"


def _summarize(run: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in run.items()
            if k not in ("Us", "Ws")}


def _engine_cost(data: dict[str, Any], Hs: list[int], opt: str, rule: str, lr: float, *,
                 reps: int = 3, steps_heads: int = 2, steps_batched: int = 10) -> dict[str, Any]:
    """CPU seconds per GD step of the autograd ``"heads"`` engine (every ``H`` of ``Hs`` one after
    another) and of ``"heads-batched"`` (all at once) on ``data``, interleaved repetitions in this
    process: ``{engine: {"min", "median", "max", "reps", "steps"}}`` (one logged step included)."""
    times: dict[str, list[float]] = {"heads": [], "heads-batched": []}
    for _ in range(reps):
        for engine, k in (("heads", steps_heads), ("heads-batched", steps_batched)):
            c0 = time.process_time()
            sweep(data, Hs, opt, steps=k, lr_rule=rule, lr=lr, engine=engine, record_at=[k])
            times[engine].append((time.process_time() - c0) / k)
    return {e: {"min": min(v), "median": float(np.median(v)), "max": max(v), "reps": reps,
                "steps": steps_heads if e == "heads" else steps_batched} for e, v in times.items()}


def _check_figure(fig: Any) -> None:
    if not isinstance(fig, str):
        raise TypeError(f"fig must be a figure name (one of {sorted(FIGURE_SETTINGS)}), got {fig!r}")
    if fig not in FIGURE_SETTINGS:
        raise ValueError(f"fig must be a figure name, one of {sorted(FIGURE_SETTINGS)}, got {fig!r}")


def _check_scale(scale: Any) -> str:
    if scale not in ("smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    return scale


def _engine(fig: str, scale: str, engine: str | None) -> str:
    """The engine a part runs: its declared one unless ``engine`` overrides it (``fig2-heads`` and
    the random start ``fig2-random`` run only their own)."""
    settings = FIGURE_SETTINGS[fig]
    if engine is not None and engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES} or None, got {engine!r}")
    if settings.get("fixed_engine") or settings.get("init_scale", 0.0) > 0 or engine is None:
        return settings["engine"][scale]
    if engine == "heads-batched":
        raise ValueError("the heads-batched engine writes its own part (fig2-heads), not " + fig)
    return engine


def figure_config(fig: str, scale: str, engine: str | None = None) -> dict[str, Any]:
    """The configuration of the part ``fig`` at ``scale`` (``"smoke"``/``"full"``), as its result
    file records it: the trials and sizes of its data model (:data:`SCALES`), the seed of the data
    (0), the engine (the figure's own at this scale unless ``engine`` overrides it), the initial
    scale, the data model's parameters and one setting per optimizer run (optimizer, step-size
    rule, step size, steps).  Used by the parts' ``config`` functions and by
    :mod:`attention_theory.deora.experiment_runs` (the chapters' live runs)."""
    _check_figure(fig)
    scale = _check_scale(scale)
    settings = FIGURE_SETTINGS[fig]
    model = settings["data"]
    cfg = dict(SCALES[model][scale], data_model=model, seed=0, engine=_engine(fig, scale, engine),
               figure=fig, init_scale=settings.get("init_scale", 0.0))
    cfg["Hs"] = list(settings["Hs"] if scale == "full" and "Hs" in settings else cfg["Hs"])
    if model == "dm1":
        cfg.update(dm1=dataclasses.asdict(app_g_dm1_config()), gamma_attn=gamma_attn_dm1(app_g_dm1_config()))
    else:
        cfg.update(T=10, d=5, W_norm=3.0, gamma_dm2=0.2)
    cfg["settings"] = [dict(optimizer=opt, lr_rule=rule, lr=lr, steps=k_full if scale == "full" else k_smoke)
                       for opt, rule, lr, k_full, k_smoke in settings["runs"]]
    return cfg


def fig2_config(scale: str) -> dict[str, Any]:
    """Figure 2 (DM1, GD with ``eta = 1``): :func:`figure_config` of ``"fig2"``."""
    return figure_config("fig2", scale)


def fig2_heads_config(scale: str) -> dict[str, Any]:
    """Figure 2 with the ``H``-head model (heads-batched engine): :func:`figure_config` of
    ``"fig2-heads"``."""
    return figure_config("fig2-heads", scale)


def fig2_random_config(scale: str) -> dict[str, Any]:
    """Figure 2 from a small random start: :func:`figure_config` of ``"fig2-random"``."""
    return figure_config("fig2-random", scale)


def fig3_config(scale: str) -> dict[str, Any]:
    """Figure 3 (DM1, GD with ``eta = sqrt(H)`` and Adam): :func:`figure_config` of ``"fig3"``."""
    return figure_config("fig3", scale)


def fig4_config(scale: str) -> dict[str, Any]:
    """Figure 4 (DM2, GD with ``eta = sqrt(H)``): :func:`figure_config` of ``"fig4"``."""
    return figure_config("fig4", scale)


def fig5_config(scale: str) -> dict[str, Any]:
    """Figure 5 (DM2, momentum and Adam): :func:`figure_config` of ``"fig5"``."""
    return figure_config("fig5", scale)


_CONFIGS: dict[str, Callable[[str], dict[str, Any]]] = {
    "fig2": fig2_config, "fig2-heads": fig2_heads_config, "fig2-random": fig2_random_config,
    "fig3": fig3_config, "fig4": fig4_config, "fig5": fig5_config}

_CONFIG_KEYS = ("trials", "n_train", "n_test", "Hs", "data_model", "seed", "engine", "figure", "init_scale",
                "settings")


def _checked_config(config: Any) -> dict[str, Any]:
    """A configuration of :func:`figure_config` (a mapping with its keys; the figure's name known)."""
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (from figure_config), got {type(config).__name__}")
    missing = [k for k in _CONFIG_KEYS if k not in config]
    if missing:
        raise ValueError(f"config lacks the keys {missing} (see figure_config)")
    _check_figure(config["figure"])
    if config["engine"] not in ENGINES:
        raise ValueError(f"config's engine must be one of {ENGINES}, got {config['engine']!r}")
    return dict(config)


def figure_data(config: Mapping[str, Any]) -> dict[str, Any]:
    """The stacked training and test sets of a configuration (:func:`figure_config`): DM1 trials
    (:func:`~attention_theory.deora.heads_training.dm1_trials`) or DM2 trials with one planted
    teacher each (:func:`~attention_theory.deora.heads_training.dm2_trials`), drawn from the
    configuration's seed."""
    cfg = _checked_config(config)
    if cfg["data_model"] == "dm1":
        return dm1_trials(cfg["trials"], cfg["n_train"], cfg["n_test"], seed=cfg["seed"])
    return dm2_trials(cfg["trials"], cfg["n_train"], cfg["n_test"], T=cfg["T"], d=cfg["d"],
                      W_norm=cfg["W_norm"], gamma_dm2=cfg["gamma_dm2"], seed=cfg["seed"])


def _groups(cfg: Mapping[str, Any]) -> list[tuple[int, tuple[int, ...]]]:
    """The independent pieces of one configuration's sweeps: ``(setting index, head counts)``. The
    reduced engine trains all ``H`` of a setting in one batch (its numbers depend, in round-off, on
    the batch), so one piece per setting; the heads engines train each ``H`` alone, one piece each
    (so that an interrupted full run keeps the head counts it finished)."""
    n = len(cfg["settings"])
    if cfg["engine"] in ("heads", "heads-batched"):
        return [(i, (H,)) for i in range(n) for H in cfg["Hs"]]
    return [(i, tuple(cfg["Hs"])) for i in range(n)]


def _scale_of(cfg: Mapping[str, Any]) -> str:
    """The scale whose step counts a configuration of :func:`figure_config` has (every figure has
    different step counts at the two scales)."""
    full = [run[3] for run in FIGURE_SETTINGS[cfg["figure"]]["runs"]]
    return "full" if [s["steps"] for s in cfg["settings"]] == full else "smoke"


def _piece(cfg: Mapping[str, Any], data: dict[str, Any], index: int, Hs: tuple[int, ...], *,
           verify_prefix: int = 0, progress: bool = False) -> dict[str, Any]:
    """One piece of :func:`_groups`: the setting ``index`` of ``cfg`` trained for the head counts
    ``Hs``; ``{"runs": {H: logs}, "agreement": ...}`` (the engines' prefix agreement, with
    ``engine="reduced"`` and ``verify_prefix > 0``; else ``None``)."""
    fig, s = cfg["figure"], cfg["settings"][index]
    opt, rule, lr, steps = s["optimizer"], s["lr_rule"], s["lr"], s["steps"]
    agreement = None
    if cfg["engine"] == "reduced" and verify_prefix:
        agreement = prefix_agreement(data, list(Hs), opt, rule, lr, min(verify_prefix, steps))
        if progress:
            print(f"{fig} {run_key(opt, rule, lr)}: engines agree on the first {verify_prefix} steps: "
                  f"{agreement}")
    if cfg["engine"] == "heads-batched" and _scale_of(cfg) == "full" and Hs[0] == min(cfg["Hs"]):
        # the per-step cost of both multi-head engines on the whole configuration, once
        agreement = {"cpu_s_per_step": _engine_cost(data, list(cfg["Hs"]), opt, rule, lr)}
        if progress:
            print(f"{fig}: CPU seconds per step: {agreement}")
    record_at = None
    if "grid_of" in FIGURE_SETTINGS[fig]:
        other = FIGURE_SETTINGS[FIGURE_SETTINGS[fig]["grid_of"]]["runs"][0]
        grid = log_steps(other[3] if _scale_of(cfg) == "full" else other[4])
        record_at = np.union1d(grid[grid <= steps], log_steps(steps))
    runs = {str(H): _summarize(r) for H, r in
            sweep(data, list(Hs), opt, steps=steps, lr_rule=rule, lr=lr, engine=cfg["engine"],
                  init_scale=cfg["init_scale"], record_at=record_at, progress=progress).items()}
    return {"runs": runs, "agreement": agreement}


def _result(cfg: Mapping[str, Any], data: dict[str, Any],
            pieces: list[tuple[tuple[int, tuple[int, ...]], dict[str, Any]]]) -> dict[str, Any]:
    """The data block of one configuration from its pieces ``((index, Hs), _piece output)``."""
    runs: dict[str, Any] = {}
    checks: dict[str, Any] = {}
    for (index, _Hs), piece in pieces:
        s = cfg["settings"][index]
        key = run_key(s["optimizer"], s["lr_rule"], s["lr"])
        runs.setdefault(key, {}).update(piece["runs"])
        if piece["agreement"] is not None:
            checks[key] = piece["agreement"]
    Hs = [str(H) for H in cfg["Hs"]]
    runs = {key: {H: per_h[H] for H in Hs} for key, per_h in runs.items()}
    block = {"runs": runs, "engine_agreement": checks}
    if cfg["data_model"] == "dm2":
        block["acceptance"] = data["acceptance"].tolist()
    return block


def run_config(config: Mapping[str, Any], *, verify_prefix: int = 0,
               progress: bool = False) -> dict[str, Any]:
    """Train one part's configuration (:func:`figure_config`) in this process and return its data
    block for :func:`~attention_theory.results.write_result` (``run deora head-sweeps`` computes
    the same pieces as shards): ``{"runs": {run_key: {H: logs}}, "engine_agreement", ...}``, the
    logs as JSON lists.  ``verify_prefix > 0`` compares the engines on that many first steps (reduced
    engine only).  Used by :func:`run_figure` and by the chapters' live runs
    (:mod:`attention_theory.deora.experiment_runs`)."""
    cfg = _checked_config(config)
    verify_prefix = check_int(verify_prefix, "verify_prefix", minimum=0)
    progress = check_bool(progress, "progress")
    data = figure_data(cfg)
    pieces = [((i, Hs), _piece(cfg, data, i, Hs, verify_prefix=verify_prefix, progress=progress))
              for i, Hs in _groups(cfg)]
    return _result(cfg, data, pieces)


def run_figure(fig: str, *, scale: str = "smoke", engine: str | None = None, verify_prefix: int = 0,
               progress: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one figure's sweeps in this process at ``scale``; returns ``(data block, config)``
    (:func:`run_config` of :func:`figure_config`; ``engine`` overrides the figure's own)."""
    cfg = figure_config(fig, scale, engine)
    return run_config(cfg, verify_prefix=verify_prefix, progress=progress), cfg


def results_dir() -> Path:
    """The committed full-scale results: ``<repository>/results/deora-head-sweeps``."""
    from attention_theory.results import repo_results_dir

    return repo_results_dir("deora-head-sweeps")


#: The committed result files read by the full-scale statements of the DM1 and DM2 figures.
FULL_SCALE_FILES = {"dm1": ("fig2", "fig3"), "dm2": ("fig4", "fig5")}


def full_scale_files(kind: str) -> list[Path]:
    """The committed result files the full-scale statements of ``kind`` (``"dm1"``/``"dm2"``) read."""
    if kind not in FULL_SCALE_FILES:
        raise ValueError(f"kind must be 'dm1' or 'dm2', got {kind!r}")
    return [results_dir() / f"{fig}.json" for fig in FULL_SCALE_FILES[kind]]


def as_runs(block: Mapping[str, Any]) -> dict[str, dict[int, dict[str, Any]]]:
    """The runs of a data block of :func:`run_config` (or of a result file) as arrays:
    ``{run_key: {H: logs}}`` with integer ``H`` and every logged list an array of shape
    ``(n_logged, trials)``.  Used by :func:`load_figure` and
    :mod:`attention_theory.deora.experiment_runs` (the chapters' live runs)."""
    if not isinstance(block, Mapping) or not isinstance(block.get("runs"), Mapping):
        raise TypeError(f"block must be a data block with a 'runs' mapping, got {type(block).__name__}")
    return {key: {int(H): {k: (np.asarray(v, dtype=float) if isinstance(v, list) else v)
                           for k, v in r.items()}
                  for H, r in per_h.items()}
            for key, per_h in block["runs"].items()}


def load_figure(fig: str, path: str | Path | None = None) -> dict[str, Any]:
    """A result file of this experiment as arrays: ``{"runs": {key: {H: logs}}, "provenance", "config",
    ...}``.

    ``logs`` hold arrays of shape ``(n_logged, trials)`` as
    :func:`~attention_theory.deora.heads_training.train_heads` returns them.
    """
    from attention_theory.results import read_result

    _check_figure(fig)
    if path is not None:
        check_path(path, "path")
    obj = read_result(Path(path) if path is not None else results_dir() / f"{fig}.json")
    return {"runs": as_runs(obj["data"]), "provenance": obj["provenance"],
            "config": obj["provenance"].get("config", {}),
            **{k: v for k, v in obj["data"].items() if k != "runs"}}


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--engine", choices=ENGINES, default=None,
                    help="the engine of the parts (default: each figure's own: 'reduced' for fig2 and fig3, "
                    "'heads' for fig4 and fig5 at smoke scale and 'reduced' at full scale); 'heads' trains "
                    "the H-head model, 'reduced' its exact single-head reduction; fig2-heads "
                    "('heads-batched', the H-head model with batched hand-derived gradients) and "
                    "fig2-random ('heads') run only their own")
    ap.add_argument("--verify-prefix", type=nonnegative_int, default=0,
                    help="with the reduced engine: compare both engines on this many first steps")


def _figure_plan(fig: str) -> Callable[[RunContext], list[tuple[str, Any]]]:
    def plan(ctx: RunContext) -> list[tuple[str, Any]]:
        cfg = figure_config(fig, ctx.scale, ctx.options.engine)
        out = []
        for i, Hs in _groups(cfg):
            s = cfg["settings"][i]
            label = f"{s['optimizer']}-{s['lr_rule']}-{s['lr']:g}" + (f"-H-{Hs[0]}" if len(Hs) == 1 else "")
            out.append((label, (fig, label, i, Hs)))
        return out

    return plan


def _figure_shard(ctx: RunContext, spec: tuple[str, str, int, tuple[int, ...]]) -> dict[str, Any]:
    """One piece of a figure (:func:`_piece`) as a shard, kept in its shard folder."""
    fig, label, index, Hs = spec
    o = ctx.options
    cfg = figure_config(fig, ctx.scale, o.engine)
    config = {"figure": fig, "setting": index, "Hs": list(Hs), "engine": cfg["engine"],
              "verify_prefix": o.verify_prefix}
    return shard_output(ctx, fig, label, config,
                        lambda: _piece(cfg, figure_data(cfg), index, Hs, verify_prefix=o.verify_prefix,
                                       progress=ctx.progress))


def _figure_merge(fig: str) -> Callable[[RunContext, list[Any]], PartResult]:
    def merge(ctx: RunContext, outputs: list[Any]) -> PartResult:
        cfg = figure_config(fig, ctx.scale, ctx.options.engine)
        specs = [spec for _, spec in _figure_plan(fig)(ctx)]
        block = _result(cfg, figure_data(cfg), [((i, Hs), out) for (_, _, i, Hs), out in zip(specs, outputs)])
        return PartResult(cfg, block)

    return merge


EXPERIMENT = Experiment(
    paper="deora", name="head-sweeps",
    description="Deora et al., App. G: multi-head attention trained from zero, varying H (Figures 2-5).",
    results="deora-head-sweeps",
    parts=tuple(Part(fig, None, FIGURE_SETTINGS[fig].get("help", ""), config=_CONFIGS[fig],
                     shards=Shards(_figure_plan(fig), _figure_shard, _figure_merge(fig)))
                for fig in sorted(FIGURE_SETTINGS)),
    add_options=_options,
)
