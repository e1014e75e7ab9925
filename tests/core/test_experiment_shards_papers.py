"""Shards of the other experiments (issue 29, item 4): Qin's E1 (one qk_std, seed and residual
setting per shard), Julistiono's E1 (a value of p and a block of seeds per shard) and Deora's head
sweeps (one optimizer setting per shard, or one (setting, H) with the heads engine) merge into the
result the sequential computation gives, bit for bit, with one process or two Dask workers; a
finished shard is kept and not computed again; a damaged one is computed again."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from attention_theory.config import use_scale
from attention_theory.experiment import RunContext, main, shard_output
from attention_theory.provenance import jsonable


def _data(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text())["data"]


def _canonical(obj) -> str:
    return json.dumps(json.loads(json.dumps(jsonable(obj))), sort_keys=True)


@pytest.fixture(scope="module")
def qin_e1_sharded(tmp_path_factory):
    out = tmp_path_factory.mktemp("qin")
    assert main(["run", "qin", "residual-training", "--parts", "e1", "--out", str(out), "--no-progress"]) == 0
    return out


def test_qin_e1_shards_equal_the_sequential_run(qin_e1_sharded):
    from attention_theory.qin.residual_training import EXPERIMENT, run_e1

    with use_scale("smoke"):
        want = run_e1(EXPERIMENT.part("e1").config_for("smoke"))
    assert _canonical(_data(qin_e1_sharded, "e1-smoke.json")) == _canonical(want)
    labels = sorted(p.name for p in (qin_e1_sharded / "shards" / "e1-smoke").iterdir())
    assert labels == ["qk-0.05-seed-0-none", "qk-0.05-seed-0-residual"]


def test_qin_e1_on_two_workers_is_the_same(qin_e1_sharded, tmp_path):
    assert main(["run", "qin", "residual-training", "--parts", "e1", "--out", str(tmp_path), "--no-progress",
                 "--workers", "2"]) == 0
    assert _data(tmp_path, "e1-smoke.json") == _data(qin_e1_sharded, "e1-smoke.json")


def test_julistiono_e1_blocks_merge_to_the_whole(monkeypatch):
    from attention_theory.julistiono import mirror_descent_training as je

    seeds = (1, 2, 3, 4)
    whole = {p: json.loads(json.dumps(jsonable(je._e1_block(p, seeds, steps=60)))) for p in je.E1_PS}
    parts = {p: [json.loads(json.dumps(jsonable(je._e1_block(p, b, steps=60)))) for b in ((1, 2), (3, 4))]
             for p in je.E1_PS}
    for p in je.E1_PS:
        assert _canonical(je._e1_summary(parts[p])) == _canonical(je._e1_summary([whole[p]]))
    # the negative control: blocks merged out of order are a different result
    p = je.E1_PS[0]
    assert _canonical(je._e1_summary(parts[p][::-1])) != _canonical(je._e1_summary([whole[p]]))


def test_julistiono_e1_plan_covers_every_seed_once():
    from attention_theory.julistiono import mirror_descent_training as je

    for scale, n in (("smoke", 10), ("full", 100)):
        ctx = RunContext(scale=scale, device="cpu", out=Path("."), progress=False,
                         options=argparse.Namespace())
        plan = je._e1_plan(ctx)
        for p in je.E1_PS:
            seeds = [s for _, (_, pp, block) in plan if pp == p for s in block]
            assert seeds == list(range(1, n + 1))
        assert len(plan) == 3 * n // je.E1_BLOCK[scale]


def test_deora_figure_shards_equal_run_figure(monkeypatch, tmp_path):
    from attention_theory.deora import head_sweeps as hs

    fast = {"fig3": {**hs.FIGURE_SETTINGS["fig3"], "runs": [("gd", "sqrtH", 1.0, 20_000, 15),
                                                            ("adam", "constant", 0.06, 2000, 10)]}}
    monkeypatch.setattr(hs, "FIGURE_SETTINGS", {**hs.FIGURE_SETTINGS, **fast})
    for engine in ("heads", "reduced"):
        out = tmp_path / engine
        assert main(["run", "deora", "head-sweeps", "--parts", "fig3", "--engine", engine, "--out", str(out),
                     "--no-progress"]) == 0
        got = _data(out, "fig3-smoke.json")
        with use_scale("smoke"):
            want, _ = hs.run_figure("fig3", scale="smoke", engine=engine)
        for per_h in (*got["runs"].values(), *want["runs"].values()):
            for logs in per_h.values():
                logs.pop("wall_time_s", None)
        assert _canonical(got) == _canonical(want)
        n_shards = len(list((out / "shards" / "fig3-smoke").iterdir()))
        assert n_shards == (2 * 3 if engine == "heads" else 2)


def _ctx(tmp_path: Path) -> RunContext:
    return RunContext(scale="smoke", device="cpu", out=tmp_path, progress=False, options=argparse.Namespace())


def test_a_finished_shard_is_not_computed_again(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"x": np.arange(3.0), "bad": float("nan")}

    first = shard_output(_ctx(tmp_path), "part", "a", {"k": 1}, compute)
    again = shard_output(_ctx(tmp_path), "part", "a", {"k": 1}, compute)
    assert first == again == {"x": [0.0, 1.0, 2.0], "bad": "nan"} and len(calls) == 1
    shard_output(_ctx(tmp_path), "part", "a", {"k": 2}, compute)  # another configuration
    assert len(calls) == 2


def test_a_damaged_shard_is_computed_again(tmp_path, capsys):
    shard_output(_ctx(tmp_path), "part", "a", {}, lambda: {"v": 1})
    path = tmp_path / "shards" / "part-smoke" / "a" / "checkpoint-output.json"
    path.write_text(path.read_text().replace('"v":1', '"v":2').replace('"v": 1', '"v": 2'))
    assert shard_output(_ctx(tmp_path), "part", "a", {}, lambda: {"v": 1}) == {"v": 1}
    assert "computing it again" in capsys.readouterr().err


def test_shard_output_refuses_a_non_callable(tmp_path):
    with pytest.raises(TypeError, match="compute must be callable"):
        shard_output(_ctx(tmp_path), "part", "a", {}, {"v": 1})
