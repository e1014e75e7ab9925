"""Tests of the experiment module :mod:`attention_theory.julistiono.mirror_descent_training`: the
data behind the authors' synthetic plot kinds (Julistiono et al., ``plotter.ipynb``), the single E1
run from ``W(0) = 0`` (directional paths of two pairs of entries of ``W``) and the two probability
curves of joint ``(W, v)`` training (E2); and each part's declared configuration, which its run
records (so the chapter's live runs at ``config_for("smoke")`` compute what ``--scale smoke``
writes)."""

import argparse
import math
from pathlib import Path

import numpy as np
import pytest

from attention_theory.experiment import RunContext
from attention_theory.julistiono import mirror_descent_training as mdt
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.mirror_descent import joint_lp_md
from attention_theory.results import read_result, repo_results_dir

pytestmark = pytest.mark.usefixtures("float64_default")

SHORT = {1.75: 100, 2.0: 100, 3.0: 100}


@pytest.fixture(scope="module")
def e2_short():
    """E2 over the first 100 steps (a second or two). Every second step is recorded: ``W(1) = 0``
    (``v(0) = 0`` gives ``W`` no gradient at step 0) has no direction to compare."""
    return mdt.run_e2({**mdt.e2_config("smoke"), "steps": SHORT}, record_every=2)


# --- E2: the logistic and softmax probabilities -------------------------------------------


def test_e2_probabilities_are_probabilities_and_saturate(e2_short):
    for p, r in e2_short.items():
        sfx, lgt = np.asarray(r["softmax_prob"]), np.asarray(r["logistic_prob"])
        assert np.array_equal(r["prob_steps"], np.arange(mdt.E2_PROB_STEPS)), p
        assert sfx.shape == lgt.shape == (mdt.E2_PROB_STEPS,)
        assert np.all((sfx >= 1 / 3 - 1e-15) & (sfx <= 1)), p     # largest of T = 3 weights
        assert np.all((lgt > 0) & (lgt <= 1)), p
        # W(0) = 0: uniform attention over the 3 tokens
        assert sfx[0] == pytest.approx(1 / 3, abs=1e-15)
        # the top token takes all the attention and is classified with certainty after 100 steps
        assert sfx[-1] > 0.999 and lgt[-1] > 0.99, (p, sfx[-1], lgt[-1])
        assert r["softmax_prob_end"] > 0.999 and r["logistic_prob_end"] > 0.99
        # the softmax curve rises from 1/3 to ~1 (first value far below the last)
        assert sfx[-1] - sfx[0] > 0.6


def test_e2_probabilities_follow_the_authors_definition(e2_short):
    """Recompute ``full_train``'s two numbers sample by sample from the recorded iterates:
    ``sfx_prob[k]`` = mean over samples of the largest entry of softmax(X_i W(k) z_i), and
    ``log_prob[k]`` = mean of 1 / (1 + exp(-Y_i x_{i,top}^T v(k+1))) with that top token."""
    ex = mj.two_sample_example()
    X, z, Y = ex["X"], ex["z"], ex["Y"]
    for p, r in e2_short.items():
        tr = joint_lp_md(np.zeros((2, 2)), np.zeros(2), X, z, Y, p=float(p), eta=0.1, steps=100)
        Wp, vp = tr.W, tr.v                                        # every step
        for k in (0, 3, 10, 57, 99):
            sfx, lgt = 0.0, 0.0
            for i in range(2):
                h = [float(X[i, t] @ Wp[k] @ z[i]) for t in range(3)]
                m = max(h)
                e = [math.exp(x - m) for x in h]
                top = int(np.argmax(h))
                sfx += e[top] / sum(e) / 2
                lgt += 1 / (1 + math.exp(-Y[i] * float(X[i, top] @ vp[k + 1]))) / 2
            assert r["softmax_prob"][k] == pytest.approx(sfx, rel=1e-12, abs=1e-15), (p, k)
            assert r["logistic_prob"][k] == pytest.approx(lgt, rel=1e-12), (p, k)


def test_e2_probability_head_is_the_start_of_the_recorded_run(e2_short):
    """The per-step rerun of the first steps follows the same path as the recorded run."""
    ex = mj.two_sample_example()
    for p, r in e2_short.items():
        tr = joint_lp_md(np.zeros((2, 2)), np.zeros(2), ex["X"], ex["z"], ex["Y"], p=float(p), eta=0.1,
                         steps=100)
        assert np.array_equal(np.asarray(r["W_path"]), tr.W[::2].reshape(-1, 4)), p
        assert np.array_equal(np.asarray(r["v_path"]), tr.v[::2]), p


# --- E1: the single run from zero ---------------------------------------------------------


@pytest.fixture(scope="module")
def single():
    return {p: mdt.run_e1_single(p) for p in (1.75, 2.0)}


def test_e1_single_starts_at_zero_and_records_the_plotted_entries(single):
    for p, r in single.items():
        steps, path = np.asarray(r["steps"]), np.asarray(r["path"])
        assert steps[0] == 0 and steps[-1] == mdt.E_STEPS[p]
        assert np.all(np.diff(steps) == 5)
        assert path.shape == (len(steps), 2)
        assert np.array_equal(path[0], [0.0, 0.0])               # W(0) = 0 (the authors' --std 0)
        (a, b), (c, d) = mdt.E1_SINGLE_ENTRIES
        W = np.asarray(r["W_final"])
        assert np.array_equal(path[-1], [W[a, b], W[c, d]])
        assert r["arrows"] == list(mdt.E1_SINGLE_ARROWS[p])
        assert set(r["arrows"]) <= set(steps.tolist())
        assert r["stopped"] == -1


def test_e1_single_converges_in_direction_to_its_svm(single):
    for p, r in single.items():
        D = np.asarray(r["D"])
        assert D.shape == (len(r["steps"]) - 1,)
        assert np.all(D >= -1e-12)
        assert D[-1] < 2e-3 and D[-1] < 1e-2 * D[0], (p, D[0], D[-1])
        assert r["lp_dist"] < 0.1, (p, r["lp_dist"])
        assert r["max_prob"][-1] > 0.999
        # the plotted pair of entries points the way of the SVM's pair at the end
        (a, b), (c, d) = mdt.E1_SINGLE_ENTRIES
        S = np.asarray(r["svm"])
        s2, w2 = np.array([S[a, b], S[c, d]]), np.asarray(r["path"][-1])
        cos = s2 @ w2 / np.linalg.norm(s2) / np.linalg.norm(w2)
        assert cos > 0.999, (p, cos)


def test_e1_single_is_deterministic_and_depends_on_p():
    a = mdt.run_e1_single(2.0, steps=60, record_every=10)
    b = mdt.run_e1_single(2.0, steps=60, record_every=10)
    c = mdt.run_e1_single(3.0, steps=60, record_every=10)
    assert np.array_equal(a["path"], b["path"]) and a["alpha"] == b["alpha"]
    assert not np.allclose(a["path"][1:], c["path"][1:])
    assert a["arrows"] == []                                    # the arrows lie beyond step 60


@pytest.mark.parametrize("kw, match", [
    (dict(p=2.5), "p must be one of"), (dict(p=True), "p must be one of"), (dict(p="2"), "p must be one of"),
    (dict(p=2.0, steps=0), "steps"), (dict(p=2.0, record_every=0), "record_every"),
    (dict(p=2.0, seed=-1), "seed")])
def test_e1_single_rejects_bad_input(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        mdt.run_e1_single(**kw)


def test_e1_single_part_is_registered():
    assert "e1-single" in mdt.EXPERIMENT.defaults()
    part = mdt.EXPERIMENT.part("e1-single")
    assert part.filename("full") == "e1-single.json" and part.filename("smoke") == "e1-single-smoke.json"


def test_committed_full_results_carry_the_plot_data():
    """The committed full-scale files (when present) hold what the chapter's figures draw."""
    d = repo_results_dir("julistiono-mirror-descent-training")
    if (d / "e1-single.json").exists():
        data = read_result(d / "e1-single.json")["data"]
        assert set(data) == {"1.75", "2.0", "3.0"}
        for p, r in data.items():
            assert r["D"][-1] < 1e-2 and np.asarray(r["path"])[0].tolist() == [0.0, 0.0], p
    if (d / "e2.json").exists():
        data = read_result(d / "e2.json")["data"]
        if all("softmax_prob" in r for r in data.values()):
            for p, r in data.items():
                assert len(r["softmax_prob"]) == len(r["logistic_prob"]) == mdt.E2_PROB_STEPS
                assert r["softmax_prob"][-1] > 0.999, p


# --- the parts' declared configurations ---------------------------------------------------


def _ctx(scale: str, tmp: Path) -> RunContext:
    return RunContext(scale=scale, device="cpu", out=tmp, progress=False, options=argparse.Namespace())


def _json(x):
    from attention_theory.provenance import json_data

    return json_data(x)


def test_every_part_declares_its_configuration():
    for part in mdt.EXPERIMENT.parts:
        for scale in ("smoke", "full"):
            assert isinstance(part.config_for(scale), dict), (part.name, scale)
    assert mdt.EXPERIMENT.name == "mirror-descent-training"
    assert mdt.EXPERIMENT.results == "julistiono-mirror-descent-training"
    with pytest.raises(ValueError, match="scale"):
        mdt.e2_config("medium")


def test_full_configurations_are_those_of_the_committed_results():
    """Running a part at full scale records the configuration its committed file was written with."""
    d = repo_results_dir("julistiono-mirror-descent-training")
    for part in mdt.EXPERIMENT.parts:
        f = d / part.file_for("full")
        if f.exists():
            assert _json(part.config_for("full")) == read_result(f)["provenance"]["config"], part.name


@pytest.mark.parametrize("name", ["e2", "e3"])
def test_a_smoke_run_records_config_for_smoke(name, tmp_path):
    """The cheapest parts run at smoke scale (seconds) and record exactly ``config_for("smoke")``."""
    part = mdt.EXPERIMENT.part(name)
    res = part.run(_ctx("smoke", tmp_path))
    assert res.config == part.config_for("smoke")
    assert res.data


@pytest.mark.parametrize("name, entry", [("e1-single", "run_e1_single"), ("e2", "run_e2"),
                                         ("e3", "run_e3_standin"), ("e4", "run_e4_standin")])
def test_parts_pass_their_configuration_to_the_entry_point(name, entry, tmp_path, monkeypatch):
    """The entry point of each part receives the configuration the part records (a spy in place of
    the training, at both scales); e1-single's runs take seed, steps and record_every from it."""
    for scale in ("smoke", "full"):
        calls = []
        monkeypatch.setattr(mdt, entry, lambda *a, **kw: calls.append((a, kw)) or {"spy": 1})
        part = mdt.EXPERIMENT.part(name)
        res = part.run(_ctx(scale, tmp_path))
        cfg = part.config_for(scale)
        assert res.config == cfg
        if name == "e1-single":
            assert calls == [((p,), {"seed": cfg["seed"], "steps": cfg["steps"][p],
                                     "record_every": cfg["record_every"][p]}) for p in mdt.E1_PS]
        else:
            assert calls == [((cfg,), {})]


def test_e1_records_config_for_without_training(monkeypatch, tmp_path):
    """E1 (minutes at smoke scale) is checked without training: its plan covers the configuration's
    seeds, each shard trains at the configuration's eta, steps and data generator, and the merge
    records the configuration."""
    calls = []
    monkeypatch.setattr(mdt, "_e1_block", lambda p, seeds, **kw: calls.append((p, seeds, kw)) or {})
    monkeypatch.setattr(mdt, "_e1_summary", lambda blocks: {})
    monkeypatch.setattr(mdt, "shard_output", lambda ctx, part, label, cfg, compute: compute())
    for name, data in (("e1", "authors"), ("e1-book-v1", "book-v1")):
        part = mdt.EXPERIMENT.part(name)
        cfg = part.config_for("smoke")
        ctx = _ctx("smoke", tmp_path)
        plan = part.shards.plan(ctx)
        seeds = sorted(s for _, (_, _, block) in plan for s in block)
        assert seeds == sorted(list(range(1, cfg["n_seeds"] + 1)) * len(mdt.E1_PS))
        calls.clear()
        outputs = [part.shards.run(ctx, spec) for _, spec in plan]
        for p, _, kw in calls:
            assert kw == {"record_every": 50, "steps": cfg["steps"][p], "eta": cfg["eta"], "data": data}
        assert part.shards.merge(ctx, outputs).config == cfg


def test_live_e1_seed_runs_use_the_configuration(monkeypatch):
    import attention_theory.julistiono.attention as attention

    calls = []
    monkeypatch.setattr(attention, "e1_run", lambda *a, **kw: calls.append((a, kw)) or {})
    cfg = mdt.e1_config("smoke")
    out = mdt.run_e1_seeds(cfg, (1,))
    assert set(out) == set(mdt.E1_PS)
    for (seeds, p, stable, record_every), kw in calls:
        assert seeds == (1,) and stable and record_every == 50
        assert kw == {"steps": cfg["steps"][p], "eta": cfg["eta"], "data": cfg["data"]}
