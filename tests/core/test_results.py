"""Results with provenance: atomic writes, complete provenance, checkpoints."""

import json

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
