"""The benchmark of the sparse-majority trainers (``trauger/sparse_majority/benchmark.py``): its
output, the FLOP count of the product recorder against hand counts (and a wrong formula that the
hand count rejects), the replay of the recorded products, and the steady-state epoch of the first
edition's trainer against ``train_batched`` itself.  Tiny configurations: seconds on one thread."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from attention_theory.trauger.sparse_majority import benchmark as bm
from attention_theory.trauger.sparse_majority import protocol as pr
from attention_theory.trauger.sparse_majority.structured import StructuredTrainer
from attention_theory.trauger.sparse_majority.training import BatchedEpochs, SweepConfig, train_batched


def tiny(**over):
    """Two lengths x one seed, 20 samples in batches of 8 (3 steps per epoch: 8, 8, 4)."""
    base = dict(Ts=(10, 12), seeds=(0,), n_train=20, n_val=10, batch_size=8)
    base.update(over)
    return pr.protocol("authors", "full", **base)


@pytest.fixture(scope="module")
def result():
    # 3 epochs per block (not 1): a block of a few milliseconds could be stretched past the
    # others by one preemption of this process on a loaded machine
    return bm.benchmark_trainers(config=tiny(), epochs=3, reps=2, peak_n=128, peak_reps=1)


# --------------------------------------------------------------------------------- the output
def test_output_structure(result):
    json.dumps(result)                                    # JSON-able: no tensors
    assert {"config", "trainers", "limit", "speedup", "flops", "throughput", "fraction_exceeds_one",
            "machine", "load_average", "order", "note"} <= set(result)
    assert result["config"]["epochs_per_block"] == 3 and result["config"]["reps"] == 2
    # one step of one run counts 1: 2 runs x 3 steps x 3 epochs (every trainer; naive: 2 runs)
    for name in ("structured", "batched", "naive"):
        t = result["trainers"][name]
        assert t["steps_per_block"] == 18 and len(t["wall_s_per_rep"]) == len(t["cpu_s_per_rep"]) == 2
        for key in ("wall_s", "cpu_s", "steps_per_wall_s", "steps_per_cpu_s"):
            s = t[key]
            assert 0 < s["min"] <= s["median"] <= s["max"] and all(isinstance(v, float) for v in s.values())
    assert result["trainers"]["naive"]["runs"] == [[10, 0], [12, 0]]
    # each repetition times every block once, the order rotated by one
    assert result["order"] == [["structured", "batched", "naive", "limit"],
                               ["batched", "naive", "limit", "structured"]]
    for pair in ("structured_over_batched", "structured_over_naive", "batched_over_naive"):
        for clock in ("cpu", "wall"):
            s = result["speedup"][pair][clock]
            assert 0 < s["min"] <= s["median"] <= s["max"]
    m = result["machine"]
    assert m["torch_threads"] == torch.get_num_threads() and m["cpu_count"] >= 1
    assert len(result["load_average"]["before"]) == len(result["load_average"]["after"]) == 3
    assert "no evaluation" in result["note"]


def test_speedups_are_paired_ratios(result):
    tr = result["trainers"]
    per_step = {k: [c / tr[k]["steps_per_block"] for c in tr[k]["cpu_s_per_rep"]] for k in tr}
    ratios = [b / s for b, s in zip(per_step["batched"], per_step["structured"])]
    assert result["speedup"]["structured_over_batched"]["cpu"]["min"] == pytest.approx(min(ratios))
    assert result["speedup"]["structured_over_batched"]["cpu"]["max"] == pytest.approx(max(ratios))


def test_fractions_at_most_one(result):
    th = result["throughput"]
    for clock in ("cpu", "wall"):
        fr = th["fraction_of_limit_per_rep"][clock]
        assert len(fr) == 2 and all(0 < f <= 1 for f in fr)
        assert all(0 < v <= 1 for v in th["achieved_fraction_of_peak"][clock].values())
    assert th["exceeding_one"] == [] and result["fraction_exceeds_one"] is False
    # the fraction is (limit time) / (structured time), repetition by repetition
    lim, st = result["limit"]["cpu_s_per_rep"], result["trainers"]["structured"]["cpu_s_per_rep"]
    assert th["fraction_of_limit_per_rep"]["cpu"] == pytest.approx([a / b for a, b in zip(lim, st)])


def test_flops_from_issued_products(result):
    f = result["flops"]
    assert f["issued_per_epoch"] == sum(g["flops"] for g in f["products"])
    assert sum(g["calls"] for g in f["products"]) == f["products_per_epoch"] == sum(f["calls_by_op"].values())
    assert f["issued_per_step"] == pytest.approx(f["issued_per_epoch"] / 6)   # 2 runs x 3 steps
    # torch's counter omits the in-place baddbmm_, so it can only count less
    assert 0 < f["flop_counter_mode_per_step"] <= f["issued_per_step"]
    assert f["formula_over_issued"] == pytest.approx(f["formula_per_step"] / f["issued_per_step"])


# ------------------------------------------------------------------------ FLOPs by hand count
#: (op, factor shapes, FLOPs counted by hand: one multiply and one add per term)
HAND = [("mm", ((3, 4), (4, 5)), 2 * 3 * 5 * 4),
        ("bmm", ((2, 3, 4), (2, 4, 6)), 2 * 2 * 3 * 6 * 4),
        ("addbmm", ((2, 3, 4), (2, 4, 5)), 2 * 3 * 5 * (2 * 4)),
        ("mv", ((3, 4), (4,)), 2 * 3 * 4),
        ("dot", ((7,), (7,)), 2 * 7),
        ("addr", ((3,), (5,)), 2 * 3 * 5)]


def hand_count_agrees(flops) -> bool:
    """Whether ``flops(op, shapes)`` gives the hand counts of :data:`HAND`."""
    return all(flops(op, shapes) == n for op, shapes, n in HAND)


def test_product_flops_is_the_hand_count():
    assert hand_count_agrees(bm.product_flops)


def test_negative_control_wrong_formulas_fail_the_hand_count():
    def multiply_adds(op, shapes):                        # 1 FLOP per multiply-add: half of it
        return bm.product_flops(op, shapes) // 2

    def forgets_the_batch(op, shapes):                    # a bmm counted as one matrix product
        a, b = shapes
        return 2 * a[-2] * b[-1] * a[-1] if len(a) == 3 else bm.product_flops(op, shapes)

    assert not hand_count_agrees(multiply_adds)
    assert not hand_count_agrees(forgets_the_batch)


def test_recorder_counts_a_matmul_and_a_bmm_exactly():
    g = torch.Generator().manual_seed(0)
    a, b = torch.rand(3, 4, generator=g), torch.rand(4, 5, generator=g)
    x, y = torch.rand(2, 3, 4, generator=g), torch.rand(2, 4, 6, generator=g)
    w, c = torch.rand(5, 4, generator=g), torch.rand(5, generator=g)
    M, z = torch.rand(3, 5, generator=g), torch.rand(2, 4, 5, generator=g)

    def fn():
        a @ b                                             # matmul -> aten.mm
        torch.bmm(x, y)
        torch.nn.functional.linear(a, w, c)               # -> aten.addmm(c, a, w^T)
        torch.addbmm(M, x, z)                             # sums the batch: (3, 5), K = 2 * 4

    rec = bm.record_products(fn)
    assert [(p["product"], p["flops"]) for p in rec] == [
        ("mm", 2 * 3 * 5 * 4), ("bmm", 2 * 2 * 3 * 6 * 4), ("addmm", 2 * 3 * 5 * 4),
        ("addbmm", 2 * 3 * 5 * 8)]
    assert rec[0]["op"] == "aten.mm.default" and rec[0]["shapes"] == [[3, 4], [4, 5]]
    assert rec[2]["shapes"][0] == [5] and rec[2]["strides"][2] == [1, 4]   # the bias; w^T's strides
    # torch's own counter agrees on the products it knows (it has no formula for addbmm)
    with FlopCounterMode(display=False) as fc:
        a @ b
        torch.bmm(x, y)
        torch.nn.functional.linear(a, w, c)
    assert fc.get_total_flops() == sum(p["flops"] for p in rec[:3])


def test_recorder_sees_in_place_and_out_products():
    a, b, out = torch.ones(3, 4), torch.ones(4, 5), torch.empty(3, 5)
    acc, x, y = torch.zeros(2, 3, 5), torch.ones(2, 3, 4), torch.ones(2, 4, 5)

    def fn():
        torch.mm(a, b, out=out)
        acc.baddbmm_(x, y, alpha=0.5)

    rec = bm.record_products(fn)
    assert [p["op"] for p in rec] == ["aten.mm.out", "aten.baddbmm_.default"]
    assert rec[0]["kwargs"] == {"out": {"tensor": 2}} and rec[1]["kwargs"] == {"alpha": 0.5}
    assert [p["flops"] for p in rec] == [2 * 3 * 5 * 4, 2 * 2 * 3 * 5 * 4]


# ------------------------------------------------------------------------------- the replay
def signature(products):
    return [(p["op"], p["shapes"], p["strides"], p["dtypes"]) for p in products]


def test_replay_issues_the_recorded_products():
    trainer = StructuredTrainer(dataclasses.replace(tiny(), early_stopping="none"))
    trainer.run_epoch()
    products = bm.record_products(trainer.run_epoch)
    assert len(products) > 10
    replayed = bm.record_products(bm.replay_products(products))
    assert signature(replayed) == signature(products)
    assert [p["flops"] for p in replayed] == [p["flops"] for p in products]
    # negative control: a replay that drops one product is told apart
    assert signature(bm.record_products(bm.replay_products(products[1:]))) != signature(products)


def test_replay_refuses_what_is_not_a_product():
    rec = bm.record_products(lambda: torch.ones(2, 3) @ torch.ones(3, 4))
    with pytest.raises(ValueError, match=r"products\[0\]\['op'\]"):
        bm.replay_products([dict(rec[0], op="aten.add.Tensor")])
    with pytest.raises(ValueError, match="products"):
        bm.replay_products([])
    with pytest.raises(ValueError, match="strides"):
        bm.replay_products([dict(rec[0], strides=[[1], [4, 1]])])
    with pytest.raises(ValueError, match="tensor"):
        bm.replay_products([dict(rec[0], args=[{"tensor": 5}, {"tensor": 1}])])


# -------------------------------------------------------------- the first edition's trainer
def test_batched_epochs_are_train_batched():
    cfg = SweepConfig(Ts=(10, 12), seeds=(0, 1), n_train=20, n_val=10, d=8, heads=2, batch_size=8,
                      max_epochs=3, eval_every=3, checkpoint_every=3)
    b = BatchedEpochs(cfg)
    steps = [b.run_epoch() for _ in range(3)]
    assert steps == [4 * 3] * 3                           # 4 runs x 3 batches
    # evaluated only after the last epoch: the best parameters are the final ones
    ref = train_batched(cfg, progress=False)["best_params"]
    assert set(ref) == set(b.state["params"])
    for k, t in b.state["params"].items():
        assert torch.equal(t.detach(), ref[k]), k
    # negative control: one epoch fewer does not give train_batched's parameters
    c = BatchedEpochs(cfg)
    for _ in range(2):
        c.run_epoch()
    assert not all(torch.equal(t.detach(), ref[k]) for k, t in c.state["params"].items())


def test_naive_epoch_steps_and_learning_rate():
    cfg = tiny()
    from attention_theory.trauger.sparse_majority.structured import build_authors_data

    run = build_authors_data(cfg)[0]
    r = bm._naive_setup(cfg, run)
    before = r.model.flat().clone()
    assert bm._naive_epoch(r) == cfg.steps_per_epoch and bm._naive_epoch(r) == cfg.steps_per_epoch
    assert r.opt.param_groups[0]["lr"] == pr.learning_rates(cfg, 2)[1]
    assert not torch.equal(r.model.flat(), before)


# ------------------------------------------------------------------------------ arguments
def test_arguments_are_checked():
    with pytest.raises(ValueError, match="op"):
        bm.product_flops("conv", ((2, 2), (2, 2)))
    with pytest.raises(ValueError, match="shapes"):
        bm.product_flops("mm", ((3, 4), (5, 6)))
    with pytest.raises(ValueError, match="shapes"):
        bm.product_flops("bmm", ((3, 4), (4, 6)))
    with pytest.raises(TypeError, match="fn"):
        bm.record_products(3)
    with pytest.raises(ValueError, match="epochs"):
        bm.benchmark_trainers(config=tiny(), epochs=0)
    with pytest.raises(ValueError, match="method"):
        bm.benchmark_trainers(config=tiny(), method="fast")
    with pytest.raises(TypeError, match="naive_runs"):
        bm.benchmark_trainers(config=tiny(), naive_runs=[10])
    with pytest.raises(TypeError, match="config"):
        bm.benchmark_trainers(config={"Ts": (10,)})
    with pytest.raises(ValueError, match="n"):
        bm.sgemm_peak(n=0)


def test_sgemm_peak_restores_the_thread_count():
    before = torch.get_num_threads()
    out = bm.sgemm_peak(n=64, reps=2, threads=1)
    assert torch.get_num_threads() == before
    assert out["gflops"] >= out["gflops_median"] > 0 and len(out["seconds"]) == 2


# ---------------------------------------------------------------------------- the command
def test_part_writes_a_smoke_file_outside_results(tmp_path):
    from attention_theory.experiment import run_cli
    from attention_theory.results import read_result
    from attention_theory.trauger.sparse_majority import experiment as ex

    written = run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--out", str(tmp_path),
                                      "--parts", "benchmark-structured", "--Ts", "10", "12", "--seeds", "0",
                                      "--benchmark-epochs", "1", "--benchmark-reps", "2", "--no-progress"])
    path = written["benchmark-structured"]
    assert str(path).startswith(str(tmp_path)) and str(path).endswith("benchmark-structured-smoke.json")
    data = read_result(path)["data"]
    assert isinstance(data["fraction_exceeds_one"], bool) and len(data["order"]) == 2
    assert data["trainers"]["structured"]["steps_per_block"] == 2 * 3
