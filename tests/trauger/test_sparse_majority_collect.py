"""Collecting the authors'-protocol sweep from its checkpoints, and the Cor. 4.1.1 bound on the
collected weights (``trauger/sparse_majority/collect.py``, ``theory.py``)."""

import math

import numpy as np
import pytest
import torch

from attention_theory.trauger.sparse_majority import collect
from attention_theory.trauger.sparse_majority import theory as th
from attention_theory.trauger.sparse_majority.authors_model import ModelShape
from attention_theory.trauger.sparse_majority.protocol import protocol
from attention_theory.trauger.sparse_majority.structured import train_structured

NAME = "checkpoint-authors-smoke.pt"


def _half(folder, Ts, *, stop_at=None):
    folder.mkdir()
    cfg = protocol("authors", "smoke", Ts=Ts, seeds=(0,), max_epochs=6, eval_dense_until=2,
                   eval_every=2, checkpoint_every=2, n_val=50)
    return cfg, train_structured(cfg, checkpoint=folder / NAME, progress=False, stop_at_epoch=stop_at)


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    base = tmp_path_factory.mktemp("sweep")
    (_, a), (_, b) = _half(base / "a", (60,)), _half(base / "b", (20,))
    return base, a, b


def test_collect_merges_the_halves_in_order(halves, tmp_path):
    base, a, b = halves
    res = collect.collect_authors_sweep([base / "a", base / "b"], checkpoint_name=NAME)
    runs = res["data"]["runs"]
    assert [(r["T"], r["seed"]) for r in runs] == [(20, 0), (60, 0)]
    assert res["config"]["Ts"] == [20, 60]
    by_T = {r["T"]: r for r in runs}
    for T, src in ((20, b), (60, a)):
        (want,) = src["runs"]
        assert by_T[T]["val_loss"] == want["val_loss"] and by_T[T]["best_epoch"] == want["best_epoch"]
    w = res["weights"]
    assert w["flat"].dtype == np.float32 and w["flat"].shape == (2, ModelShape().size)
    np.testing.assert_array_equal(w["flat"][0], b["best_params"][0].numpy().astype(np.float32))
    np.testing.assert_array_equal(w["flat"][1], a["best_params"][0].numpy().astype(np.float32))
    assert sorted(res["data"]["curves"]) == ["20/0", "60/0"]
    path, sha = collect.write_weights(tmp_path / "w.npz", w)
    back = collect.read_weights(path)
    assert len(sha) == 64 and np.array_equal(back["flat"], w["flat"]) and back["T"].tolist() == [20, 60]


def test_collect_reports_a_partial_sweep(tmp_path):
    _half(tmp_path / "p", (20,), stop_at=3)
    res = collect.collect_authors_sweep([tmp_path / "p"], checkpoint_name=NAME)
    (r,) = res["data"]["runs"]
    assert not res["data"]["finished"] and r["stop_reason"] == "still-training"
    assert r["epochs_reached"] == res["data"]["processes"][0]["epoch"] == 3


def test_collect_rejects_bad_folders(halves):
    base, _, _ = halves
    with pytest.raises(ValueError, match="two checkpoints"):
        collect.collect_authors_sweep([base / "a", base / "a"], checkpoint_name=NAME)
    with pytest.raises(FileNotFoundError):
        collect.collect_authors_sweep([base / "missing"], checkpoint_name=NAME)
    with pytest.raises(ValueError, match="non-empty list"):
        collect.collect_authors_sweep(str(base / "a"), checkpoint_name=NAME)


def test_bound_per_run_is_finite_and_grows_with_the_norms(halves):
    base, _, _ = halves
    w = collect.collect_authors_sweep([base / "a", base / "b"], checkpoint_name=NAME)["weights"]
    rows = th.bound_per_run(w)
    assert [r["T"] for r in rows] == [20, 60]
    for r in rows:
        keys = ("B_w", "B_Wc", "B_Wv", "B_QK", "B_x", "gap_bound")
        assert all(math.isfinite(r[k]) and r[k] > 0 for k in keys)
    big = dict(w, flat=w["flat"] * 2)
    rows2 = th.bound_per_run(big)
    assert all(r2["gap_bound"] > r["gap_bound"] for r, r2 in zip(rows, rows2))


def test_gap_bound_rejects_bad_input():
    norms = {"B_w": 1.0, "B_Wc": 1.0, "B_Wv": 1.0, "B_QK": 1.0, "c_max": 0.0, "H": 2}
    ok = th.gap_bound(norms, 1.0, m=300, d=64)
    assert ok["gap_bound"] == pytest.approx(2 * ok["rad_logit"] + ok["confidence_term"])
    with pytest.raises(ValueError, match="delta"):
        th.gap_bound(norms, 1.0, m=300, d=64, delta=1.5)
    with pytest.raises(ValueError, match="B_QK"):
        th.gap_bound({**norms, "B_QK": -1.0}, 1.0, m=300, d=64)
    with pytest.raises(ValueError, match="flat"):
        th.class_parameters(torch.zeros(5), ModelShape())
    with pytest.raises(ValueError, match="finite"):
        th.class_parameters(torch.full((ModelShape().size,), float("nan")), ModelShape())


# --- merging later batches of seeds (Figure 3 decided with more seeds) ---------------------------

def _split_committed(seed_sets):
    """The committed sweep cut into batches of seeds, each in the form collect_authors_sweep returns."""
    from attention_theory.results import read_result
    from attention_theory.trauger.sparse_majority.experiment import results_dir

    res = read_result(results_dir() / "authors-sweep.json")
    w = collect.read_weights(results_dir() / res["data"]["weights_file"])
    parts = []
    for seeds in seed_sets:
        keep = np.isin(w["seed"], seeds)
        runs = [r for r in res["data"]["runs"] if r["seed"] in seeds]
        parts.append({"config": {**res["provenance"]["config"], "seeds": list(seeds)},
                      "data": {**res["data"], "runs": runs,
                               "curves": {k: v for k, v in res["data"]["curves"].items()
                                          if int(k.split("/")[1]) in seeds}},
                      "weights": {k: v[keep] for k, v in w.items()}})
    return res, w, parts


def test_merging_batches_of_seeds_restores_the_sweep():
    res, w, parts = _split_committed([(3, 4), (0, 1, 2)])
    merged = collect.merge_authors_sweeps(parts)
    assert merged["data"]["runs"] == res["data"]["runs"]
    assert merged["config"] == res["provenance"]["config"]
    for key in ("T", "seed", "best_epoch", "flat"):
        np.testing.assert_array_equal(merged["weights"][key], w[key])
    assert merged["data"]["curves"] == res["data"]["curves"]
    assert len(merged["data"]["processes"]) == 2 * len(res["data"]["processes"])


def test_merging_refuses_overlapping_seeds_and_other_protocols():
    _, _, parts = _split_committed([(0, 1), (1, 2)])
    with pytest.raises(ValueError, match="seed=1 appears in parts"):
        collect.merge_authors_sweeps(parts)
    _, _, (a, b) = _split_committed([(0, 1), (2, 3)])
    b = {**b, "config": {**b["config"], "lr": 0.02}}
    with pytest.raises(ValueError, match=r"differs from parts\[0\] in \['lr'\]"):
        collect.merge_authors_sweeps([a, b])
    c = {**a, "config": {**a["config"], "Ts": [20, 40]}}
    with pytest.raises(ValueError, match=r"differs from parts\[0\] in \['Ts'\]"):
        collect.merge_authors_sweeps([a, c])
    with pytest.raises(ValueError, match="non-empty list"):
        collect.merge_authors_sweeps([])


def test_read_authors_sweeps_finds_the_seed_batches(tmp_path):
    from attention_theory.results import provenance, write_result

    res, w, (a, b) = _split_committed([(0, 1, 2), (3, 4)])
    for folder, part in ((tmp_path, a), (tmp_path / collect.SEED_BATCHES / "seeds-3-4", b)):
        folder.mkdir(parents=True, exist_ok=True)
        path, _ = collect.write_weights(folder / "authors-best-weights.npz", part["weights"])
        write_result(folder / "authors-sweep.json", {**part["data"], "weights_file": path.name},
                     provenance(part["config"], wall_time_s=1.0))
    both = collect.read_authors_sweeps(tmp_path)
    assert [f.relative_to(tmp_path).as_posix() for f in both["files"]] == [
        "authors-sweep.json", "seed-batches/seeds-3-4/authors-sweep.json"]
    assert both["data"]["runs"] == res["data"]["runs"] and both["config"]["seeds"] == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(both["weights"]["flat"], w["flat"])
    assert len(both["provenance"]) == 2
