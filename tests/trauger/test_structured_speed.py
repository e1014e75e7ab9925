"""The optimized training step of the structured trainer (``method="softmax"``: attention by products
with the 0/1 data, ``Wo`` kept transposed, the momentum scaled inside the products) trains exactly
as the autograd path of the same trainer (``method="factorized"``, autograd through
:func:`~attention_theory.trauger.sparse_majority.structured_forward.batched_logits`) over a few
hundred SGD steps in float64, with either way of forming the attention (products or direct
softmax, also mixed within one step); deliberately wrong variants fail the same comparison;
float32 stays within round-off of float64."""

from __future__ import annotations

import math
import types

import pytest
import torch

from attention_theory.trauger.sparse_majority import protocol as pr
from attention_theory.trauger.sparse_majority import structured as st
from attention_theory.trauger.sparse_majority import structured_step

EPOCHS = 25          # 12 steps per epoch: 300 steps


def config(dtype="float64"):
    """Two lengths x two seeds; 96 samples in minibatches of 8 (12 steps per epoch, the last one
    full); a learning rate high enough that the weights move by ~40% of their norm."""
    return pr.protocol("authors", "full", Ts=(10, 13), seeds=(0, 1), n_train=96, n_val=20, batch_size=8,
                       max_epochs=1000, eval_dense_until=0, eval_every=1000, checkpoint_every=1000,
                       early_stopping="none", lr=0.2, lr_decay=0.99, dtype=dtype)


def trajectory(method, dtype="float64", epochs=EPOCHS, snapshot=3):
    """Per-epoch running losses and correct counts, the initial and final weights ``(R, P)`` and
    the weights after ``snapshot`` epochs."""
    tr = st.StructuredTrainer(config(dtype), method=method)
    flat0, losses, correct = tr.flat.clone(), [], []
    for e in range(epochs):
        run = tr.run_epoch()
        losses.append(run["loss"].clone())
        correct.append(run["correct"].clone())
        if e + 1 == snapshot:
            early = tr.state_dict()["flat"]
    return {"loss": torch.stack(losses), "correct": torch.stack(correct), "flat": tr.state_dict()["flat"],
            "flat0": flat0, "early": early}


def prefix(ref, epochs=3):
    """The reference cut after its snapshot (``epochs`` epochs)."""
    return {"loss": ref["loss"][:epochs], "correct": ref["correct"][:epochs], "flat": ref["early"]}


@pytest.fixture(scope="module")
def reference():
    ref = trajectory("factorized")
    # the run is not trivial: the weights move and the accuracy changes
    assert float((ref["flat"] - ref["flat0"]).norm() / ref["flat0"].norm()) > 0.2
    assert len(set(map(tuple, ref["correct"].tolist()))) > 1
    return ref


def differences(got, ref):
    """Largest relative differences of the losses and of the weights (per run, against the run's
    largest weight), and whether every correct count agrees."""
    loss = float(((got["loss"] - ref["loss"]).abs() / ref["loss"].abs()).max())
    scale = ref["flat"].abs().max(dim=1, keepdim=True).values
    weights = float(((got["flat"] - ref["flat"]).abs() / scale).max())
    return loss, weights, bool(torch.equal(got["correct"], ref["correct"]))


def agrees(got, ref, tol=1e-10):
    loss, weights, correct = differences(got, ref)
    return loss < tol and weights < tol and correct


def test_hand_step_trains_like_autograd_float64(reference):
    cfg = config()
    tr = st.StructuredTrainer(cfg)
    k = structured_step.hand_consts(tr._leaves, tr._lay, tr.shape)
    assert not any(k.direct)                     # every group takes the products with the data
    got = trajectory("softmax")
    loss, weights, correct = differences(got, reference)
    assert correct
    assert loss < 1e-10 and weights < 1e-10, (loss, weights)


def test_direct_softmax_groups_train_alike(reference, monkeypatch):
    # every group by the direct softmax (the path of a large |delta|) ...
    monkeypatch.setattr(structured_step, "_PRODUCT_MAX_DELTA", 0.0)
    assert agrees(trajectory("softmax"), reference)
    monkeypatch.undo()
    # ... and one group direct, the other by products, in the same step
    consts = structured_step.hand_consts

    def first_direct(p, lay, shape):
        k = consts(p, lay, shape)
        k.direct = [True] + k.direct[1:]
        return k

    monkeypatch.setattr(st, "hand_consts", first_direct)
    assert agrees(trajectory("softmax"), reference)


def transposed_wo(p):
    return (p["WoT"] if "WoT" in p else p["Wo"].permute(0, 2, 3, 1)).transpose(-1, -2).contiguous()


@pytest.mark.parametrize("broken", ["no 1/sqrt(dk)", "Wo transposed", "no momentum"])
def test_wrong_variants_fail_the_comparison(reference, monkeypatch, broken):
    # the comparison above can fail: each variant changes one detail of the step
    if broken == "no 1/sqrt(dk)":
        fake = types.SimpleNamespace(**{k: getattr(math, k) for k in dir(math) if not k.startswith("_")})
        fake.sqrt = lambda x: 1.0
        monkeypatch.setattr(structured_step, "math", fake)
    elif broken == "Wo transposed":
        monkeypatch.setattr(structured_step, "_wo_t", transposed_wo)
    else:
        backward = structured_step.hand_backward
        monkeypatch.setattr(st, "hand_backward", lambda *a, beta=1.0, **kw: backward(*a, beta=1.0, **kw))
    loss, weights, _ = differences(trajectory("softmax", epochs=3), prefix(reference))
    assert max(loss, weights) > 1e-6, (broken, loss, weights)
    monkeypatch.undo()
    assert agrees(trajectory("softmax", epochs=3), prefix(reference))     # and without the change, passes


def test_float32_step_stays_within_round_off_of_float64(reference):
    # float32 against float64 over 10 epochs (120 steps): the hand-written step and the autograd
    # path depart from float64 by the same order (round-off amplified by the training dynamics)
    hand = trajectory("softmax", "float32", epochs=10)
    auto = trajectory("factorized", "float32", epochs=10)
    ref = trajectory("factorized", epochs=10)
    _, w_hand, _ = differences({k: v.double() for k, v in hand.items()}, ref)
    _, w_auto, _ = differences({k: v.double() for k, v in auto.items()}, ref)
    assert w_hand < 1e-4 and w_hand < 10 * w_auto + 1e-6, (w_hand, w_auto)


def test_wo_is_stored_transposed_and_round_trips():
    cfg = config()
    flat = st.StructuredTrainer(cfg).flat
    buf, views = structured_step.name_major(flat, cfg.model_shape, wo_t=True)
    s = cfg.model_shape
    assert "Wo" not in views and views["WoT"].shape == (flat.shape[0], s.heads, s.value_dim, s.d)
    assert views["WoT"].is_contiguous() and views["WoT"].data_ptr() >= buf.data_ptr()
    a, b = s.offsets()["Wo"]
    wo = flat[:, a:b].reshape(flat.shape[0], s.d, s.heads, s.value_dim)
    assert torch.equal(views["WoT"], wo.permute(0, 2, 3, 1))
    assert torch.equal(structured_step.flat_of(views, flat.shape[0]), flat)
