"""Results with provenance: atomic writes, complete provenance, checkpoints."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_theory import results as rs


def test_write_and_read_result_round_trip(tmp_path):
    prov = rs.provenance({"T": [20, 40], "seed": 0}, wall_time_s=1.5, scale="smoke")
    for key in rs.PROVENANCE_KEYS:
        assert key in prov
    path = rs.write_result(tmp_path / "a" / "r.json", {"acc": [0.5, 0.75]}, prov)
    obj = rs.read_result(path)
    assert obj["data"]["acc"] == [0.5, 0.75] and obj["provenance"]["config"]["T"] == [20, 40]
    assert "smoke scale" in rs.describe_provenance(obj["provenance"])
    assert not list(path.parent.glob(".tmp-*"))


def test_commit_label_for_captions():
    assert rs.commit_label({"commit": "abc123", "uncommitted_source_changes": False}) == "abc123"
    assert rs.commit_label({"commit": "abc123", "uncommitted_source_changes": True}) == \
        "abc123 (with uncommitted changes)"
    assert rs.commit_label({}) == "unknown"


def test_bad_provenance_is_refused(tmp_path):
    with pytest.raises(ValueError, match="provenance"):
        rs.write_result(tmp_path / "r.json", {}, {"commit": "x"})
    with pytest.raises(TypeError, match="config"):
        rs.provenance([1, 2], wall_time_s=1.0)
    with pytest.raises(ValueError, match="wall_time_s"):
        rs.provenance({}, wall_time_s=-1.0)
    (tmp_path / "bad.json").write_text(json.dumps({"data": {}}))
    with pytest.raises(ValueError, match="not a result"):
        rs.read_result(tmp_path / "bad.json")
    with pytest.raises(FileNotFoundError):
        rs.read_result(tmp_path / "missing.json")


def test_checkpoint_round_trip(tmp_path):
    import torch

    assert rs.load_checkpoint(tmp_path / "none.pt") is None
    rs.save_checkpoint(tmp_path / "c.pt", {"epoch": 3, "w": torch.ones(2)})
    state = rs.load_checkpoint(tmp_path / "c.pt")
    assert state["epoch"] == 3 and torch.equal(state["w"], torch.ones(2))


def test_no_environment_variable_sets_the_recorded_commit(tmp_path):
    # the package copied out of its repository: git finds no commit, and ATTN_COMMIT (once read
    # as a fallback) must not be able to forge one
    from attention_theory import provenance

    pkg = tmp_path / "attention_theory"
    shutil.copytree(Path(provenance.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "ATTN_COMMIT": "0123456789ab",
           "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", "from attention_theory.provenance import git_commit, "
                          "source_tree_hash; print(git_commit()); print(source_tree_hash())"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    commit, tree = out.stdout.split("\n")[:2]
    assert "0123456789ab" not in commit
    assert commit == f"unknown (source {tree})" and len(tree) == 12
    assert tree == provenance.source_tree_hash()  # the same files give the same hash


def test_a_result_whose_data_changed_is_refused_with_its_name(tmp_path):
    prov = rs.provenance({"seed": 0}, wall_time_s=1.0, scale="smoke")
    path = rs.write_result(tmp_path / "r.json", {"acc": [0.5, 0.75]}, prov)
    assert len(rs.read_result(path)["provenance"]["data_sha256"]) == 64
    path.write_text(path.read_text().replace("0.75", "0.76"))  # a one-digit change
    with pytest.raises(ValueError, match=r"r\.json: its data fail their SHA-256 checksum"):
        rs.read_result(path)
    path.write_text('{"provenance": ')
    with pytest.raises(ValueError, match=r"r\.json: not readable JSON"):
        rs.read_result(path)
