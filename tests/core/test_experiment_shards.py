"""Experiments made of shards (``run ... --workers N``): the sparse-majority sweep of the authors'
protocol, one shard per length, gives the same result bit for bit on one process and on two
Dask workers, resumes shard by shard after a kill, and ``--restart`` starts every shard afresh."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from attention_theory.experiment import main

RUN = ["run", "trauger", "sparse-majority", "--protocol", "authors", "--no-progress"]


def _result(folder: Path) -> dict:
    """The merged sweep without what differs between two runs of the same computation (the
    provenance, and each shard's wall and CPU time)."""
    data = json.loads((folder / "authors-sweep-smoke.json").read_text())["data"]
    for p in data["processes"]:
        for key in ("wall_time_s", "cpu_time_s", "cpu_time_since_epoch"):
            p.pop(key)
    with np.load(folder / "authors-best-weights-smoke.npz") as z:
        data["weights"] = {k: z[k].tolist() for k in z.files}
    return data


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    out = tmp_path_factory.mktemp("one")
    assert main([*RUN, "--out", str(out)]) == 0
    return out


def test_the_sweep_is_one_shard_per_length(one_process):
    data = _result(one_process)
    assert [p["Ts"] for p in data["processes"]] == [[20], [60]]
    assert [p["checkpoint"] for p in data["processes"]] == ["T-20/checkpoint-authors-smoke.pt",
                                                             "T-60/checkpoint-authors-smoke.pt"]
    assert data["finished"] and len(data["runs"]) == 2


def test_two_workers_give_the_same_sweep_bit_for_bit(one_process, tmp_path, capsys):
    assert main([*RUN, "--out", str(tmp_path), "--workers", "2"]) == 0
    assert "local Dask cluster of 2" in capsys.readouterr().out
    assert _result(tmp_path) == _result(one_process)


def test_a_killed_sweep_resumes_shard_by_shard(tmp_path):
    longer = ["--max-epochs", "400", "--checkpoint-every", "50"]
    argv = [sys.executable, "-m", "attention_theory", *RUN, *longer]
    whole = tmp_path / "whole"
    subprocess.run(argv + ["--out", str(whole)], check=True, capture_output=True, timeout=600)
    cut = tmp_path / "cut"
    proc = subprocess.Popen(argv + ["--out", str(cut)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = cut / "shards" / "authors-sweep-smoke" / "T-20" / "checkpoint-authors-smoke.pt"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not ckpt.exists() and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (cut / "authors-sweep-smoke.json").exists(), "the sweep finished before the kill"
    from attention_theory.results import load_checkpoint

    assert 50 <= load_checkpoint(ckpt)["epoch"] < 400  # killed mid-run, with a checkpoint to resume from
    subprocess.run(argv + ["--out", str(cut)], check=True, capture_output=True, timeout=600)
    assert _result(cut) == _result(whole)


def test_restart_moves_every_shard_checkpoint_aside(one_process, tmp_path, capsys):
    for f in one_process.rglob("*"):
        target = tmp_path / f.relative_to(one_process)
        if f.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.write_bytes(f.read_bytes())
    assert main([*RUN, "--out", str(tmp_path), "--restart"]) == 0
    out = capsys.readouterr().out
    assert out.count("--restart: moved") == 2 and "T-60" in out
    assert _result(tmp_path) == _result(one_process)


def test_a_part_without_shards_says_it_runs_here(tmp_path, capsys):
    assert main(["run", "trauger", "sparse-majority", "--parts", "benchmark-structured",
                 "--benchmark-epochs", "1", "--benchmark-reps", "1", "--Ts", "20", "--seeds", "0",
                 "--no-progress", "--out", str(tmp_path), "--workers", "2"]) == 0
    assert "benchmark-structured: not made of shards, runs in this process" in capsys.readouterr().out


def test_a_result_of_another_configuration_is_not_written_over(one_process, tmp_path, capsys):
    for f in one_process.glob("authors-*"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    before = (tmp_path / "authors-sweep-smoke.json").read_bytes()
    with pytest.raises(SystemExit, match="differs in max_epochs"):
        main([*RUN, "--out", str(tmp_path), "--max-epochs", "20"])
    assert (tmp_path / "authors-sweep-smoke.json").read_bytes() == before
    aside = json.loads((tmp_path / "authors-sweep-smoke.differs.json").read_text())
    assert aside["provenance"]["config"]["max_epochs"] == 20
    assert main([*RUN, "--out", str(tmp_path), "--max-epochs", "20", "--force"]) == 0
    written = json.loads((tmp_path / "authors-sweep-smoke.json").read_text())
    assert written["provenance"]["config"]["max_epochs"] == 20


def test_skip_existing_trusts_only_an_intact_result(one_process, tmp_path, capsys):
    for f in one_process.glob("authors-*"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    assert main([*RUN, "--out", str(tmp_path), "--skip-existing"]) == 0
    assert "exists, skipped" in capsys.readouterr().out
    target = tmp_path / "authors-sweep-smoke.json"
    target.write_text(target.read_text()[:-200])  # truncated
    assert main([*RUN, "--out", str(tmp_path), "--skip-existing"]) == 0
    assert "not readable JSON" in capsys.readouterr().out and _result(tmp_path) == _result(one_process)


def test_an_empty_out_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        main([*RUN, "--out", ""])
    assert exc.value.code == 2 and "expected a folder" in capsys.readouterr().err
