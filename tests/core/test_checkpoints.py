"""Checkpoints detect corruption: a killed writer leaves the previous checkpoint loadable; an
empty, truncated, zeroed, garbled or foreign-configuration file stops the run with one line that
names the file and says how to restart; ``--restart`` moves checkpoints aside; stale temporary
files are removed; an unwritable output folder stops the run before any work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from attention_theory import results as rs
from attention_theory.experiment import Experiment, Part, PartResult, run_cli


def assert_one_line_naming(exc: BaseException, path) -> str:
    msg = str(exc)
    assert "\n" not in msg, msg
    assert str(path) in msg, msg
    assert "--restart" in msg and f"delete {path}" in msg, msg
    return msg


@pytest.fixture
def ckpt(tmp_path):
    import torch

    path = tmp_path / "checkpoint-smoke.pt"
    rs.save_checkpoint(path, {"epoch": 7, "w": torch.arange(4096, dtype=torch.float64)},
                       config={"lr": 0.1, "T": [20, 40]})
    return path


def test_checksum_detects_a_change_the_archive_would_accept(ckpt):
    """Bytes changed consistently (CRC-32 updated, as a buggy writer could) still fail the SHA-256."""
    import io
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(ckpt.read_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("data/0"):
                data = data[:-8] + bytes(8)
            dst.writestr(info, data)
    ckpt.write_bytes(out.getvalue())
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(ckpt)
    assert "SHA-256" in assert_one_line_naming(exc.value, ckpt)


def test_plain_torch_load_still_reads_a_checkpoint(ckpt):
    import torch

    assert torch.load(ckpt, weights_only=False)["epoch"] == 7


def test_round_trip_with_config(ckpt):
    import torch

    state = rs.load_checkpoint(ckpt, config={"T": [20, 40], "lr": 0.1})
    assert state["epoch"] == 7 and torch.equal(state["w"], torch.arange(4096, dtype=torch.float64))
    assert rs.load_checkpoint(ckpt)["epoch"] == 7                  # no config given: not compared
    assert rs.load_checkpoint(ckpt.parent / "none.pt") is None       # fresh start
    assert not list(ckpt.parent.glob(".tmp-*"))


# --- damaged files ------------------------------------------------------------------------------

def test_truncated_checkpoint(ckpt):
    data = ckpt.read_bytes()
    for keep in (len(data) // 2, len(data) - 1, 10):
        ckpt.write_bytes(data[:keep])
        with pytest.raises(rs.CorruptCheckpoint) as exc:
            rs.load_checkpoint(ckpt)
        assert "truncated" in assert_one_line_naming(exc.value, ckpt)


def test_zeroed_bytes_in_the_middle(ckpt):
    data = bytearray(ckpt.read_bytes())
    mid = len(data) // 2
    data[mid:mid + 64] = bytes(64)
    ckpt.write_bytes(bytes(data))
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(ckpt)
    msg = assert_one_line_naming(exc.value, ckpt)
    assert "checksum" in msg or "CRC" in msg


@pytest.mark.parametrize("where", [30, -200, -40])     # first record, checksum record, directory
def test_zeroed_bytes_elsewhere(ckpt, where):
    data = bytearray(ckpt.read_bytes())
    start = where % len(data)
    data[start:start + 64] = bytes(64)
    ckpt.write_bytes(bytes(data))
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(ckpt)
    assert_one_line_naming(exc.value, ckpt)


def test_garbage_bytes(ckpt):
    ckpt.write_bytes(os.urandom(5000))
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(ckpt)
    assert_one_line_naming(exc.value, ckpt)


def test_legacy_plain_torch_file_is_refused(tmp_path):
    import torch

    path = tmp_path / "checkpoint-old.pt"
    torch.save({"epoch": 1}, path)
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(path)
    assert "no checksum record" in assert_one_line_naming(exc.value, path)


def test_empty_file(tmp_path):
    path = tmp_path / "checkpoint-smoke.pt"
    path.write_bytes(b"")
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_checkpoint(path)
    assert "empty" in assert_one_line_naming(exc.value, path)
    assert isinstance(exc.value, ValueError)


def test_config_mismatch(ckpt):
    with pytest.raises(rs.CheckpointMismatch) as exc:
        rs.load_checkpoint(ckpt, config={"lr": 0.2, "T": [20, 40]})
    msg = assert_one_line_naming(exc.value, ckpt)
    assert "was written for another configuration" in msg and "lr" in msg
    assert isinstance(exc.value, ValueError)


def test_config_given_but_none_saved(tmp_path):
    path = tmp_path / "c.pt"
    rs.save_checkpoint(path, {"epoch": 1})
    with pytest.raises(rs.CheckpointMismatch) as exc:
        rs.load_checkpoint(path, config={"lr": 0.1})
    assert_one_line_naming(exc.value, path)


# --- JSON checkpoints (the SST-2 substitute) -----------------------------------------------------

@pytest.fixture
def json_ckpt(tmp_path):
    path = tmp_path / ".fig6_substitute_smoke.checkpoint.json"
    rs.save_json_checkpoint(path, {"config": {"epochs": 1}, "runs": {"1-0": {"loss": [0.5, 0.25]}}},
                            config={"epochs": 1})
    return path


def test_json_checkpoint_round_trip(json_ckpt):
    assert rs.load_json_checkpoint(json_ckpt, config={"epochs": 1})["runs"]["1-0"]["loss"] == [0.5, 0.25]
    assert rs.load_json_checkpoint(json_ckpt.parent / "none.json") is None


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage", "edited", "zeroed", "no-checksum"])
def test_damaged_json_checkpoint(json_ckpt, damage):
    text = json_ckpt.read_text()
    if damage == "empty":
        json_ckpt.write_text("")
    elif damage == "truncated":
        json_ckpt.write_text(text[: len(text) // 2])
    elif damage == "garbage":
        json_ckpt.write_bytes(os.urandom(300))
    elif damage == "edited":                         # valid JSON, a number changed
        json_ckpt.write_text(text.replace("0.25", "0.26"))
    elif damage == "zeroed":
        mid = len(text) // 2
        json_ckpt.write_bytes(text.encode()[:mid] + bytes(64) + text.encode()[mid + 64:])
    else:                                            # the layout written before checksums
        json_ckpt.write_text(json.dumps({"config": {}, "runs": {}}))
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        rs.load_json_checkpoint(json_ckpt)
    assert_one_line_naming(exc.value, json_ckpt)


def test_json_checkpoint_config_mismatch(json_ckpt):
    with pytest.raises(rs.CheckpointMismatch) as exc:
        rs.load_json_checkpoint(json_ckpt, config={"epochs": 5})
    assert "another configuration" in assert_one_line_naming(exc.value, json_ckpt)


def test_substitute_run_refuses_a_damaged_checkpoint(tmp_path):
    from attention_theory.deora import sst2 as ds

    path = tmp_path / ".fig6_substitute_smoke.checkpoint.json"
    path.write_text('{"config": {}, "runs": {')
    with pytest.raises(rs.CorruptCheckpoint) as exc:
        ds.run_substitute(ds.substitute_config("smoke"), progress=False, checkpoint=path)
    assert_one_line_naming(exc.value, path)


# --- a writer killed mid-write --------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys, torch
    from attention_theory.results import save_checkpoint
    path = sys.argv[1]
    for i in range(1, 10_000):
        print("writing", i, flush=True)
        save_checkpoint(path, {"i": i, "w": torch.full((4_000_000,), float(i), dtype=torch.float64)},
                        config={"run": "kill-test"})
        print("saved", i, flush=True)
""")


def test_sigkill_during_a_large_write_leaves_the_previous_checkpoint(tmp_path):
    import torch

    path = tmp_path / "checkpoint-smoke.pt"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True,
                            env=env)
    saved = 0
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            word, i = line.split()
            if word == "saved":
                saved = int(i)
            elif word == "writing" and int(i) >= 3:
                time.sleep(0.01 * int(i))          # somewhere inside the third and later writes
                break
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL and saved >= 2
    state = rs.load_checkpoint(path, config={"run": "kill-test"})   # verified: checksum and size
    assert state["i"] >= saved
    assert torch.equal(state["w"], torch.full((4_000_000,), float(state["i"]), dtype=torch.float64))
    # a half-written temporary file may be left behind: it is never the target, and is cleaned
    left = list(tmp_path.glob(".tmp-*"))
    assert rs.clean_temporary_files(tmp_path, older_than_s=0) == sorted(left)
    assert not list(tmp_path.glob(".tmp-*")) and path.exists()


def test_a_failed_write_removes_its_temporary_file(tmp_path, monkeypatch):
    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(rs.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        rs.save_checkpoint(tmp_path / "c.pt", {"epoch": 1})
    with pytest.raises(OSError, match="disk full"):
        rs.atomic_write_json(tmp_path / "r.json", {"a": 1})
    assert list(tmp_path.iterdir()) == []


def test_an_unpicklable_state_leaves_nothing(tmp_path):
    with pytest.raises(Exception):
        rs.save_checkpoint(tmp_path / "c.pt", {"f": lambda x: x})
    assert list(tmp_path.iterdir()) == []


# --- the experiment command ---------------------------------------------------------------------

def _exp(calls, *, loads=None):
    def run(ctx):
        calls.append(sorted(p.name for p in ctx.out.iterdir()))
        if loads is not None:
            rs.load_checkpoint(ctx.out / loads, config={"n": 3})
        return PartResult({"n": 3}, {"values": [1]})

    return Experiment(paper="qin", name="toy", description="toy", results="qin", parts=(Part("a", run),))


def test_read_only_output_folder_fails_before_any_work(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o500)
    try:
        if os.access(out, os.W_OK):
            # root ignores permission bits: make the write probe fail the way a read-only
            # folder (or file system) makes it fail for everyone else
            import tempfile

            from attention_theory import experiment as experiment_module

            real = tempfile.NamedTemporaryFile

            def denied(*args, **kwargs):
                if str(kwargs.get("dir")) == str(out):
                    raise PermissionError(13, "Permission denied", str(out))
                return real(*args, **kwargs)

            monkeypatch.setattr(experiment_module.tempfile, "NamedTemporaryFile", denied)
        calls = []
        with pytest.raises(SystemExit) as exc:
            run_cli(_exp(calls), ["--out", str(out), "--no-progress"])
        msg = str(exc.value)
        assert "\n" not in msg and str(out) in msg and "not writable" in msg
        assert calls == []
    finally:
        out.chmod(0o700)


def test_restart_moves_checkpoints_aside(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "checkpoint-smoke.pt").write_bytes(b"old state")
    (out / ".fig6_substitute_smoke.checkpoint.json").write_text("{}")
    (out / "a-smoke.json").write_text("{}")                       # a result: not a checkpoint
    calls = []
    run_cli(_exp(calls), ["--out", str(out), "--no-progress", "--restart"])
    printed = capsys.readouterr().out
    assert not (out / "checkpoint-smoke.pt").exists()
    assert not (out / ".fig6_substitute_smoke.checkpoint.json").exists()
    moved = sorted(p.name for p in out.iterdir() if ".moved-" in p.name)
    assert len(moved) == 2 and any(m.startswith("checkpoint-smoke.pt.moved-") for m in moved)
    assert (out / [m for m in moved if m.startswith("checkpoint")][0]).read_bytes() == b"old state"
    assert "checkpoint-smoke.pt" not in calls[0] and str(out / "checkpoint-smoke.pt") in printed
    assert "--restart: moved" in printed
    # a second restart leaves the moved files alone
    run_cli(_exp([]), ["--out", str(out), "--no-progress", "--restart"])
    assert "no checkpoint" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir() if ".moved-" in p.name) == moved


def test_a_corrupt_checkpoint_stops_the_command_with_one_line(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "checkpoint-smoke.pt"
    path.write_bytes(b"\0" * 64)
    with pytest.raises(SystemExit) as exc:
        run_cli(_exp([], loads="checkpoint-smoke.pt"), ["--out", str(out), "--no-progress"])
    assert_one_line_naming(exc.value, path)
    # --restart moves it aside and the run starts afresh
    run_cli(_exp([], loads="checkpoint-smoke.pt"), ["--out", str(out), "--no-progress", "--restart"])
    assert not path.exists()


def test_a_foreign_checkpoint_stops_the_command_with_one_line(tmp_path):
    out = tmp_path / "out"
    path = out / "checkpoint-smoke.pt"
    rs.save_checkpoint(path, {"epoch": 1}, config={"n": 4})
    with pytest.raises(SystemExit) as exc:
        run_cli(_exp([], loads="checkpoint-smoke.pt"), ["--out", str(out), "--no-progress"])
    assert "another configuration" in assert_one_line_naming(exc.value, path)


def test_stale_temporary_files_are_cleaned(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    stale, fresh = out / ".tmp-abc123.pt", out / ".tmp-def456.json"
    stale.write_bytes(b"half a checkpoint")
    fresh.write_bytes(b"being written now")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    calls = []
    run_cli(_exp(calls), ["--out", str(out), "--no-progress"])
    assert not stale.exists() and fresh.exists()                 # a write in progress is left alone
    assert ".tmp-abc123.pt" not in calls[0]
    assert str(stale) in capsys.readouterr().out
    assert rs.clean_temporary_files(out, older_than_s=0) == [fresh] and not fresh.exists()
    assert rs.clean_temporary_files(tmp_path / "missing") == []
    with pytest.raises(ValueError, match="older_than_s"):
        rs.clean_temporary_files(out, older_than_s=-1)


class _Marker:
    """Unpickling this writes a marker file: what a planted checkpoint could do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_planted_checkpoint_that_would_run_code_is_refused(tmp_path):
    # whoever writes the file can recompute its checksum: the loader itself must refuse code
    from attention_theory.results import CorruptCheckpoint, load_checkpoint, save_checkpoint

    marker = tmp_path / "ran"
    path = save_checkpoint(tmp_path / "checkpoint-authors-full.pt", {"epoch": 3, "payload": _Marker(marker)})
    assert not marker.exists()
    with pytest.raises(CorruptCheckpoint, match="refuses to load"):
        load_checkpoint(path)
    assert not marker.exists()


def test_a_dead_writers_temporary_file_is_removed_at_once(tmp_path, capsys):
    """A temporary file names its host and writer: one left by a process that no longer runs is
    removed at the next start, however young; one of a running writer stays (issue 30, item 8)."""
    out = tmp_path / "out"
    shard = out / "shards" / "part-smoke" / "a"
    shard.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = rs.temporary_prefix().split("-")[1]
    left = [out / f".tmp-{host}-{dead.pid}-x1.json", shard / f".tmp-{host}-{dead.pid}-x2.pt"]
    live = out / f"{rs.temporary_prefix()}x3.json"            # this process: still writing
    other_host = out / f".tmp-elsewhere-{dead.pid}-x4.json"    # cannot tell: the age rule
    for f in (*left, live, other_host):
        f.write_bytes(b"half")
    calls = []
    run_cli(_exp(calls), ["--out", str(out), "--no-progress"])
    assert not any(f.exists() for f in left) and live.exists() and other_host.exists()
    printed = capsys.readouterr().out
    assert all(str(f) in printed for f in left)


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    import errno

    def full(fd):  # a full disk shows at the latest when the data are flushed to it
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "result.json"
    with pytest.raises(OSError, match=r"cannot write .*result\.json \(No space left on device\)") as exc:
        rs.atomic_write_text(target, "x" * 100_000)
    assert exc.value.errno == errno.ENOSPC
    assert not list(tmp_path.glob(".tmp-*")) and not target.exists()
