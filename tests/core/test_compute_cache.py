"""The on-disk compute cache (attention_theory.compute_cache): one computation per key across
processes, keys that change with everything a value depends on, and files that are checked
before they are trusted."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_theory import compute_cache as cc
from attention_theory.config import scale, use_scale

CALLS: list[tuple] = []


@dataclasses.dataclass
class Found:
    value: float
    x: np.ndarray


@cc.cached_on_disk(allowed=(Found,))
def _expensive(n: int, sizes: tuple = (1, 2)) -> dict:
    CALLS.append((n, sizes))
    return {"t": torch.arange(n, dtype=torch.float64), "found": Found(0.5 * n, np.arange(n) * 1.5),
            "sizes": sizes, "label": "x"}


@cc.cached_on_disk()
def _undeclared(n: int) -> dict:
    return {"found": Found(1.0, np.zeros(n))}


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_COMPUTE_CACHE", str(tmp_path / "cache"))
    CALLS.clear()
    return tmp_path / "cache"


def test_a_value_is_computed_once_and_read_back_equal(folder):
    a = _expensive(3)
    b = _expensive(3)
    assert CALLS == [(3, (1, 2))]
    assert torch.equal(a["t"], b["t"]) and b["t"].dtype == torch.float64
    assert isinstance(b["found"], Found) and np.array_equal(a["found"].x, b["found"].x)
    assert b["sizes"] == (1, 2) and b["label"] == "x"
    assert len(list(folder.glob("_expensive-*.pt"))) == 1


def test_the_key_covers_arguments_scale_threads_and_types(folder):
    _expensive(3)
    _expensive(4)
    _expensive(3, sizes=[1, 2])  # a list is not the tuple
    with use_scale("full" if scale() == "smoke" else "smoke"):
        _expensive(3)
    before = torch.get_num_threads()
    torch.set_num_threads(before + 1)
    try:
        _expensive(3)
    finally:
        torch.set_num_threads(before)
    assert len(CALLS) == 5
    assert cc.cache_key("f", (np.float64(1.0),), {}) is None  # not plain JSON data: not cached
    assert cc.cache_key("f", (float("nan"),), {}) is None
    assert cc.cache_key("f", (1,), {}) != cc.cache_key("g", (1,), {})


def test_calls_with_other_arguments_are_computed_every_time(folder):
    calls = []

    @cc.cached_on_disk()
    def f(x):
        calls.append(1)
        return {"v": float(x.sum())}

    f(np.ones(2))
    f(np.ones(2))
    assert len(calls) == 2 and f.disk_cache_info()["uncached"] == 2
    assert not folder.exists() or not list(folder.glob("*.pt"))


def test_the_cache_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("ATTN_COMPUTE_CACHE", "0")
    assert cc.cache_folder() is None
    CALLS.clear()
    _expensive(2)
    _expensive(2)
    assert len(CALLS) == 2
    assert cc.cache_folder({"ATTN_COMPUTE_CACHE": "/x/y"}) == Path("/x/y")


def test_a_damaged_file_is_computed_again(folder, capsys):
    _expensive(3)
    (path,) = folder.glob("_expensive-*.pt")
    path.write_bytes(path.read_bytes()[:-100])  # truncated
    out = _expensive(3)
    assert len(CALLS) == 2 and torch.equal(out["t"], torch.arange(3, dtype=torch.float64))
    assert "computing it again" in capsys.readouterr().err
    _expensive(3)
    assert len(CALLS) == 2  # replaced by a good file


def test_a_planted_file_cannot_run_code(folder, tmp_path, capsys):
    _expensive(3)
    (path,) = folder.glob("_expensive-*.pt")
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    # a torch archive whose pickle calls os.system, under the right name and key, with the
    # checksum record recomputed by whoever planted it
    from attention_theory.results import save_checkpoint

    name = f"{_expensive.__module__}.{_expensive.__qualname__}"
    save_checkpoint(path, {"value": Payload()},
                    config={"function": name, "key": cc.cache_key(name, (3,), {})})
    out = _expensive(3)
    assert not marker.exists()
    assert torch.equal(out["t"], torch.arange(3, dtype=torch.float64)) and len(CALLS) == 2
    err = capsys.readouterr().err
    assert "computing it again" in err and "could run code" in err


def test_an_undeclared_class_is_a_clear_error(folder):
    with pytest.raises(TypeError, match="allowed"):
        _undeclared(2)
    assert not list(folder.glob("_undeclared-*.pt"))


def test_two_processes_asking_at_once_compute_once(tmp_path):
    module = tmp_path / "slowmod.py"
    log = tmp_path / "calls.log"
    module.write_text(textwrap.dedent(f"""\
        import time
        from attention_theory.compute_cache import cached_on_disk

        @cached_on_disk()
        def slow(n):
            with open({str(log)!r}, "a") as f:
                f.write("call\\n")
            time.sleep(2.0)
            return {{"n": n}}
        """))
    env = dict(os.environ, ATTN_COMPUTE_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = "import slowmod; print(slowmod.slow(7))"
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert all("{'n': 7}" in o for o in outs)
    assert log.read_text().count("call") == 1
