"""The sparse-majority experiment's parts run the configuration they declare
(:mod:`attention_theory.trauger.sparse_majority.experiment`, ``config=`` of each part): the
configuration recorded by a smoke run, or, for the parts that train or time for longer, the one
the part hands to its trainer, equals ``EXPERIMENT.part(name).config_for("smoke")``; and the
command trains the authors' protocol unless told otherwise."""

import argparse
import json

import pytest

from attention_theory.experiment import RunContext, run_cli
from attention_theory.results import read_result
from attention_theory.trauger.sparse_majority import experiment as ex


def _json(x):
    return json.loads(json.dumps(x))


def _options(*argv):
    ap = argparse.ArgumentParser()
    ex.EXPERIMENT.add_options(ap)
    return ap.parse_args(list(argv))


def _ctx(tmp_path, *argv):
    return RunContext(scale="smoke", device="cpu", out=tmp_path, progress=False, options=_options(*argv))


class _Stop(Exception):
    pass


def test_the_authors_protocol_is_the_default():
    assert _options().protocol == "authors"
    assert ex.EXPERIMENT.defaults(_options()) == ["authors-sweep"]
    assert ex.EXPERIMENT.defaults(_options("--protocol", "book-v1")) == ["sweep"]


def test_every_part_declares_its_configuration():
    for part in ex.EXPERIMENT.parts:
        for scale in ("smoke", "full"):
            assert isinstance(part.config_for(scale), dict) and part.config_for(scale)


def test_sweep_authors_records_its_declared_configuration(tmp_path):
    written = run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--parts", "sweep", "--out", str(tmp_path),
                                      "--no-progress"])
    recorded = read_result(written["sweep"])["provenance"]["config"]
    assert recorded == _json(ex.EXPERIMENT.part("sweep").config_for("smoke")["authors"])


def test_authors_sweep_records_its_declared_configuration(tmp_path):
    written = run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--out", str(tmp_path), "--no-progress"])
    recorded = read_result(written["authors-sweep"])["provenance"]["config"]
    assert recorded == _json(ex.EXPERIMENT.part("authors-sweep").config_for("smoke"))


def test_sweep_book_v1_trains_its_declared_configuration(tmp_path, monkeypatch):
    seen = []

    def fake(config, **kwargs):
        seen.append(config)
        raise _Stop

    monkeypatch.setattr(ex, "run_sweep", fake)
    with pytest.raises(_Stop):
        ex.EXPERIMENT.part("sweep").run(_ctx(tmp_path, "--protocol", "book-v1"))
    assert seen[0].to_dict() == ex.EXPERIMENT.part("sweep").config_for("smoke")["book-v1"]


def test_benchmark_times_its_declared_configuration(tmp_path, monkeypatch):
    seen = []

    def fake(**kwargs):
        seen.append(kwargs)
        raise _Stop

    monkeypatch.setattr(ex, "benchmark_trainers", fake)
    with pytest.raises(_Stop):
        ex.EXPERIMENT.part("benchmark-structured").run(_ctx(tmp_path))
    args = seen[0]
    declared = ex.EXPERIMENT.part("benchmark-structured").config_for("smoke")
    assert args.pop("config").to_dict() == declared.pop("config")
    assert args.pop("progress") is False
    assert args == declared


def test_collect_reads_its_declared_folders(tmp_path):
    declared = ex.EXPERIMENT.part("collect-authors").config_for("full")
    ctx = RunContext(scale="full", device="cpu", out=tmp_path, progress=False, options=_options())
    message = ex.EXPERIMENT.part("collect-authors").preflight(ctx)
    assert declared["checkpoint_name"] in message
    assert all(str(tmp_path / f) in message for f in declared["from"])
