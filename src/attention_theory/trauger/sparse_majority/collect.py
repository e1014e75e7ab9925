"""Collect the authors'-protocol sweep from its checkpoints into the committed result.

The full sweep runs as several processes, each on some of the lengths with its own checkpoint
(``--Ts ... --out <folder> --keep-checkpoint``; two processes use the two cores of a small
machine).  :func:`collect_authors_sweep` reads every checkpoint, finished or not, and returns one
result: every run at its best epoch (with the epoch its training reached and why it stopped),
the per-``T`` summary, the training time of each process, and, for every run, its evaluation
curve (subsampled) and the best-epoch weights (float32) for :func:`write_weights`.

A checkpoint of a sweep still in progress gives a partial result, marked as such
(``finished`` false, each run's ``epochs_reached``, each process's ``epoch``); nothing is trained.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from attention_theory.results import atomic_write_bytes, load_checkpoint
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig
from attention_theory.trauger.sparse_majority.structured import StructuredTrainer
from attention_theory.validation import check_int, check_mapping, check_path

__all__ = ["CHECKPOINT_NAME", "CURVE_KEYS", "SEED_BATCHES", "collect_authors_sweep", "write_weights",
           "read_weights", "merge_authors_sweeps", "read_authors_sweeps"]

#: File name of an authors'-protocol checkpoint at full scale.
CHECKPOINT_NAME = "checkpoint-authors-full.pt"
#: Sub-folder of the sweep's results folder holding later batches of seeds of the same protocol, one
#: folder each (``seed-batches/<name>/authors-sweep.json`` and its weights), merged with the
#: sweep by :func:`read_authors_sweeps`.
SEED_BATCHES = "seed-batches"
#: Quantities of the evaluation curve kept per run.
CURVE_KEYS = ("train_loss", "train_acc", "val_loss", "val_acc", "l1")


def _trainer_from(path: Path) -> StructuredTrainer:
    state = load_checkpoint(path)
    if state is None:
        raise FileNotFoundError(f"no checkpoint at {path}")
    if not isinstance(state, dict) or "protocol" not in state:
        raise ValueError(f"{path} is not a structured-trainer checkpoint")
    saved = state["protocol"]
    try:
        cfg = ProtocolConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in saved.items()})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: its protocol settings are not valid ({exc})") from None
    if cfg.to_dict() != saved:
        raise ValueError(f"{path}: its protocol settings do not round-trip")
    trainer = StructuredTrainer(cfg, method=state.get("method", "softmax"))
    trainer.load_state_dict(state)
    return trainer


def _curves(trainer: StructuredTrainer, max_points: int) -> dict[tuple[int, int], dict[str, list[float]]]:
    """Per run ``(T, seed)``: the evaluation history, subsampled to at most ``max_points`` points
    (every evaluation of the first 500 epochs is kept for runs that stopped early)."""
    out: dict[tuple[int, int], dict[str, list[float]]] = {}
    rows: dict[int, list[tuple[int, dict[str, float]]]] = {}
    for row in trainer.history:
        for j, i in enumerate(row["runs"]):
            rows.setdefault(i, []).append((row["epoch"], {k: row[k][j] for k in CURVE_KEYS}))
    for i, r in enumerate(trainer.data):
        pts = rows.get(i, [])
        keep = np.unique(np.linspace(0, len(pts) - 1, min(max_points, len(pts))).round().astype(int)) \
            if pts else np.array([], dtype=int)
        out[(r.T, r.seed)] = {"epoch": [pts[k][0] for k in keep],
                              **{key: [pts[k][1][key] for k in keep] for key in CURVE_KEYS}}
    return out


def collect_authors_sweep(folders: Sequence[str | Path], *, max_curve_points: int = 200,
                          checkpoint_name: str = CHECKPOINT_NAME) -> dict[str, Any]:
    """Merge the checkpoints ``<folder>/<checkpoint_name>`` of ``folders`` (their protocol
    settings are read from each checkpoint; only the lengths and seeds may differ between them).

    Returns ``{"config", "data", "weights"}``: ``config`` the protocol with every length and seed;
    ``data`` the result body (``runs``, each with its ``epochs_reached``; ``processes``, ``finished``,
    ``curves``);
    ``weights`` ``{"T", "seed", "best_epoch", "flat"}`` (numpy; ``flat`` float32 ``(R, P)``).
    """
    if isinstance(folders, (str, Path)) or not folders:
        raise ValueError("folders must be a non-empty list of checkpoint folders")
    max_curve_points = check_int(max_curve_points, "max_curve_points", minimum=2)
    runs, processes, curves, flats, keys = [], [], {}, [], []
    base = None
    for folder in folders:
        path = Path(folder) / checkpoint_name
        trainer = _trainer_from(path)
        cfg = trainer.config.to_dict()
        rest = {k: v for k, v in cfg.items() if k not in ("Ts", "seeds")}
        if base is None:
            base = rest
        elif rest != base:
            raise ValueError(f"{path}: its protocol differs from the other checkpoints' in more than "
                             "Ts/seeds")
        evaluated = sorted({row["epoch"] for row in trainer.history})
        for rec in trainer.records():
            key = (rec["T"], rec["seed"])
            if key in curves:
                raise ValueError(f"run T={key[0]}, seed={key[1]} appears in two checkpoints")
            reached = rec["stop_epoch"] if rec["stop_epoch"] >= 0 else trainer.epoch
            rec.update({"epochs_reached": int(reached),
                        "stop_reason": rec["stop_reason"] or "still-training",
                        "best_is_last_evaluation": bool(evaluated) and rec["best_epoch"] == max(
                            e for e in evaluated if e <= reached)})
            runs.append(rec)
        curves.update(_curves(trainer, max_curve_points))
        flats.append(trainer.best_flat.to(torch.float32).numpy())
        keys += [(r.T, r.seed) for r in trainer.data]
        processes.append({"checkpoint": f"{path.parent.name}/{path.name}", "Ts": list(trainer.config.Ts),
                          "seeds": list(trainer.config.seeds), "epoch": trainer.epoch,
                          "runs_still_training": int(trainer.n_training),
                          "wall_time_s": trainer.wall_time_s,
                          "cpu_time_s": getattr(trainer, "cpu_time_s", None),
                          "cpu_time_since_epoch": getattr(trainer, "cpu_time_since_epoch", None),
                          "softmax_fallbacks": trainer.fallbacks})
    assert base is not None
    order = sorted(range(len(runs)), key=lambda i: (runs[i]["T"], runs[i]["seed"]))
    runs = [runs[i] for i in order]
    flat = np.concatenate(flats)[[keys.index((r["T"], r["seed"])) for r in runs]]
    Ts = sorted({r["T"] for r in runs})
    seeds = sorted({r["seed"] for r in runs})
    config = {**base, "Ts": Ts, "seeds": seeds}
    finished = all(p["runs_still_training"] == 0 for p in processes)
    data = {"protocol": base["name"], "runs": runs, "processes": processes,
            "finished": finished,
            "curves": {f"{T}/{s}": curves[(T, s)] for T, s in ((r["T"], r["seed"]) for r in runs)}}
    weights = {"T": np.array([r["T"] for r in runs]), "seed": np.array([r["seed"] for r in runs]),
               "best_epoch": np.array([r["best_epoch"] for r in runs]), "flat": flat.astype(np.float32)}
    return {"config": config, "data": data, "weights": weights}


def write_weights(path: str | Path, weights: dict[str, np.ndarray]) -> tuple[Path, str]:
    """Write the best-epoch weights as a compressed ``.npz`` atomically; returns the path and the
    SHA-256 of its bytes (recorded in the result's provenance)."""
    import io

    check_path(path, "path")
    check_mapping(weights, "weights")
    for key in weights:
        if not isinstance(key, str) or not key:
            raise TypeError(f"weights must be keyed by array names (non-empty strings), got {key!r}")
    buf = io.BytesIO()
    np.savez_compressed(buf, **weights)
    data = buf.getvalue()
    return atomic_write_bytes(path, data), hashlib.sha256(data).hexdigest()


def read_weights(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays written by :func:`write_weights` (``T``, ``seed``, ``best_epoch``, ``flat``)."""
    with np.load(Path(path)) as z:
        return {k: z[k] for k in z.files}


def _protocol_without_seeds(config: Any, where: str) -> dict[str, Any]:
    check_mapping(config, f"{where} config")
    if "seeds" not in config or "Ts" not in config:
        raise ValueError(f"{where}: its config has no Ts/seeds (not an authors'-protocol sweep)")
    return {k: v for k, v in config.items() if k != "seeds"}


def merge_authors_sweeps(parts: Sequence[Any]) -> dict[str, Any]:
    """Merge sweeps of one protocol run on disjoint seeds (the committed sweep and later batches).

    Each part is ``{"config", "data", "weights"}`` as returned by :func:`collect_authors_sweep`
    (``config`` the protocol settings, ``data`` with ``runs``, ``processes``, ``finished``,
    ``curves``; ``weights`` as read by :func:`read_weights`).  The protocols must agree in every
    setting but the seeds, lengths included, so that every length has runs of every seed.
    Returns the same form: runs sorted by ``(T, seed)``, weights in the same order, every part's
    processes, ``finished`` only if every part finished.
    """
    if isinstance(parts, Mapping) or not isinstance(parts, Sequence) or not parts:
        raise ValueError("parts must be a non-empty list of {'config', 'data', 'weights'} sweeps")
    base: dict[str, Any] | None = None
    runs: list[dict[str, Any]] = []
    curves: dict[str, Any] = {}
    processes: list[Any] = []
    rows: dict[tuple[int, int], tuple[int, int]] = {}
    seeds: set[int] = set()
    for i, part in enumerate(parts):
        check_mapping(part, f"parts[{i}]")
        missing = {"config", "data", "weights"} - set(part)
        if missing:
            raise ValueError(f"parts[{i}] lacks {sorted(missing)}")
        rest = _protocol_without_seeds(part["config"], f"parts[{i}]")
        if base is None:
            base = rest
        elif rest != base:
            diff = sorted(k for k in set(rest) | set(base) if rest.get(k) != base.get(k))
            raise ValueError(f"parts[{i}]: its protocol differs from parts[0] in {diff} (only the seeds "
                             "may differ)")
        w = part["weights"]
        keys = list(zip(np.asarray(w["T"]).tolist(), np.asarray(w["seed"]).tolist()))
        for j, (T, seed) in enumerate(keys):
            if (T, seed) in rows:
                raise ValueError(f"run T={T}, seed={seed} appears in parts[{rows[(T, seed)][0]}] and "
                                 f"parts[{i}]")
            rows[(T, seed)] = (i, j)
        if sorted(keys) != sorted((r["T"], r["seed"]) for r in part["data"]["runs"]):
            raise ValueError(f"parts[{i}]: its weights and runs name different (T, seed) pairs")
        runs += [dict(r) for r in part["data"]["runs"]]
        curves.update(part["data"].get("curves", {}))
        processes += list(part["data"].get("processes", []))
        seeds |= set(part["config"]["seeds"])
    assert base is not None
    runs.sort(key=lambda r: (r["T"], r["seed"]))
    order = [rows[(r["T"], r["seed"])] for r in runs]
    weights = {key: np.stack([np.asarray(parts[i]["weights"][key])[j] for i, j in order])
               for key in ("T", "seed", "best_epoch", "flat")}
    data = {"protocol": parts[0]["data"].get("protocol"), "runs": runs, "processes": processes,
            "finished": all(bool(p["data"].get("finished")) for p in parts),
            "curves": {f"{r['T']}/{r['seed']}": curves[f"{r['T']}/{r['seed']}"] for r in runs
                       if f"{r['T']}/{r['seed']}" in curves}}
    return {"config": {**base, "seeds": sorted(seeds)}, "data": data, "weights": weights}


def read_authors_sweeps(folder: str | Path, *, sweep: str = "authors-sweep.json") -> dict[str, Any]:
    """The committed authors'-protocol sweep of ``folder`` merged with every later batch of seeds in
    ``folder/seed-batches/*/`` (:data:`SEED_BATCHES`): :func:`merge_authors_sweeps`'s result plus
    ``files`` (the result files read, the sweep first) and ``provenance`` (theirs, same order)."""
    from attention_theory.results import read_result

    folder = Path(check_path(folder, "folder"))
    files = [folder / sweep, *sorted((folder / SEED_BATCHES).glob(f"*/{sweep}"))]
    parts, provs = [], []
    for f in files:
        res = read_result(f)
        data = res["data"]
        if "weights_file" not in data:
            raise ValueError(f"{f}: names no weights file (not an authors'-protocol sweep)")
        parts.append({"config": res["provenance"]["config"], "data": data,
                      "weights": read_weights(f.parent / data["weights_file"])})
        provs.append(res["provenance"])
    return {**merge_authors_sweeps(parts), "files": files, "provenance": provs}
