"""The structured trainer of the authors' sparse-majority protocol (Trauger & Tewari, Sec. 6)
against a textbook ``torch.nn`` model of the same architecture, in float64 and float32; its early
stopping, best-epoch selection, checkpoint resume and argument checks; the protocol table."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from attention_theory.trauger.sparse_majority import authors_model as am
from attention_theory.trauger.sparse_majority import protocol as pr
from attention_theory.trauger.sparse_majority import structured as st
from attention_theory.trauger.sparse_majority import structured_forward, structured_step

F64 = torch.float64


def small(**over):
    """A float64 protocol small enough for exact comparisons (runs of lengths 10 and 13)."""
    base = dict(Ts=(10, 13), seeds=(0, 1, 2), n_train=40, n_val=50, batch_size=16, max_epochs=6,
                eval_dense_until=0, eval_every=1, checkpoint_every=2, dtype="float64", val_chunk=20)
    base.update(over)
    return pr.protocol("authors", "full", **base)


def init_flat(cfg, scale=1.0):
    """Initial parameters of every run of ``cfg`` (times ``scale``, to sharpen the attention)."""
    dt = {"float32": torch.float32, "float64": F64}[cfg.dtype]
    return torch.stack([am.init_authors_params(cfg.model_shape, generator=am.run_generator(T, s, "init"),
                                               dtype=dt) for T, s in cfg.runs]) * scale


def textbook(flat, cfg, attention="linear", dtype=F64):
    return am.TextbookModel(cfg.model_shape, attention=attention, dtype=dtype).load_flat(flat.to(dtype))


def bce(z, y):
    return torch.nn.functional.binary_cross_entropy_with_logits(
        z, torch.nn.functional.one_hot(y, 2).to(z.dtype))


def deltas(flat, runs, cfg):
    """``delta_h = (e1 - e0) . Wk_h^T q_h / sqrt(dk)`` of every run and head (its sign picks the
    indicator of the factorized softmax)."""
    out = []
    for f, r in zip(flat, runs):
        p = am.unflatten(f, cfg.model_shape)
        E = r.embeddings.to(f.dtype)
        x = E[2] + am.authors_positional_encoding(r.T + 1, cfg.d, dtype=f.dtype)[r.T]
        q = torch.einsum("hkd,d->hk", p["Wq"], x) + p["bq"]
        out.append(torch.einsum("hkd,hk,d->h", p["Wk"], q, E[1] - E[0]) / math.sqrt(cfg.key_dim))
    return torch.stack(out)


# ------------------------------------------------------------------ forward and gradients, float64
@pytest.fixture(scope="module")
def case():
    cfg = small()
    runs = st.build_authors_data(cfg)
    flat = init_flat(cfg, scale=25.0)     # large weights: sharp, non-uniform attention
    return cfg, runs, flat


@pytest.mark.parametrize("method", structured_forward.METHODS)
@pytest.mark.parametrize("attention", ["linear", "mha"])
def test_forward_matches_textbook_float64(case, method, attention):
    cfg, runs, flat = case
    d = deltas(flat, runs, cfg)
    assert (d > 0).any() and (d < 0).any()           # both indicators of the factorized form
    worst = 0.0
    for T in cfg.Ts:
        idx = [i for i, r in enumerate(runs) if r.T == T]
        bits = torch.stack([runs[i].train_bits for i in idx])
        E = torch.stack([runs[i].embeddings for i in idx])
        z = structured_forward.structured_logits(flat[idx], bits, E, cfg, method=method)
        for k, i in enumerate(idx):
            X = am.embed_authors(runs[i].train_bits, runs[i].embeddings)
            ref = textbook(flat[i], cfg, attention).requires_grad_(False)(X)
            worst = max(worst, float((z[k] - ref).abs().max() / ref.abs().max()))
    assert worst < 1e-12


VARIANTS = {"authors": {}, "no dense block, softmax CE, key_dim 32": dict(dense_units=None, loss="softmax-ce",
                                                                          key_dim=32, value_dim=32)}


@pytest.mark.parametrize("method", structured_forward.METHODS)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_gradients_match_textbook_float64(case, method, variant):
    cfg, runs, flat = case
    if VARIANTS[variant]:
        cfg = dataclasses.replace(cfg, **VARIANTS[variant])
        flat = init_flat(cfg, scale=25.0)
    T = cfg.Ts[1]
    idx = [i for i, r in enumerate(runs) if r.T == T]
    f = flat[idx].clone().requires_grad_(True)
    loss = structured_forward.structured_loss(f, torch.stack([runs[i].train_bits for i in idx]),
                              torch.stack([runs[i].embeddings for i in idx]),
                              torch.stack([runs[i].train_labels for i in idx]), cfg, method=method)
    (g,) = torch.autograd.grad(loss.sum(), f)
    offsets = cfg.model_shape.offsets()
    for k, i in enumerate(idx):
        m = textbook(flat[i], cfg)
        z = m(am.embed_authors(runs[i].train_bits, runs[i].embeddings))
        ref_loss = (bce(z, runs[i].train_labels) if cfg.loss == "bce-two-logits"
                    else torch.nn.functional.cross_entropy(z, runs[i].train_labels))
        ref_loss.backward()
        ref = m.flat_grad()
        assert math.isclose(loss[k].item(), ref_loss.item(), rel_tol=1e-12)
        scale = float(ref.abs().max())
        for name, (a, b) in offsets.items():
            err = float((g[k, a:b] - ref[a:b]).abs().max())
            # the key bias shifts every score of a head equally: its true gradient is 0
            tol = 1e-13 * scale if name == "bk" else 1e-10 * float(ref[a:b].abs().max())
            assert err <= tol, (name, err, tol)


@pytest.mark.parametrize("factorize", [True, False])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_hand_backward_matches_autograd_float64(case, variant, factorize, monkeypatch):
    # the trainer's hand-written forward and backward (method "softmax") against autograd through
    # the structured forward and against the textbook model; factorize=False: the direct softmax
    cfg, runs, flat = case
    if VARIANTS[variant]:
        cfg = dataclasses.replace(cfg, **VARIANTS[variant])
        flat = init_flat(cfg, scale=25.0)
    if not factorize:
        monkeypatch.setattr(structured_step, "_FACTOR_MAX_DELTA", 0.0)
    offsets = cfg.model_shape.offsets()
    for T in cfg.Ts:
        idx = [i for i, r in enumerate(runs) if r.T == T]
        bits = torch.stack([runs[i].train_bits for i in idx])
        E = torch.stack([runs[i].embeddings for i in idx])
        y = torch.stack([runs[i].train_labels for i in idx])
        f = flat[idx].clone().requires_grad_(True)
        loss = structured_forward.structured_loss(f, bits, E, y, cfg)
        (g,) = torch.autograd.grad(loss.sum(), f)
        hl, hg = structured_step._hand_loss_grad(flat[idx], bits, E, y, cfg)
        assert torch.allclose(hl, loss.detach(), rtol=1e-12, atol=0)
        for k, i in enumerate(idx):
            m = textbook(flat[i], cfg)
            z = m(am.embed_authors(runs[i].train_bits, runs[i].embeddings))
            ref_loss = (bce(z, runs[i].train_labels) if cfg.loss == "bce-two-logits"
                        else torch.nn.functional.cross_entropy(z, runs[i].train_labels))
            ref_loss.backward()
            ref = m.flat_grad()
            scale = float(ref.abs().max())
            for name, (a, b) in offsets.items():
                tol = 1e-13 * scale if name == "bk" else 1e-10 * float(ref[a:b].abs().max())
                assert float((hg[k, a:b] - g[k, a:b]).abs().max()) <= tol, (name, "autograd")
                assert float((hg[k, a:b] - ref[a:b]).abs().max()) <= tol, (name, "textbook")
        # the evaluation forward (one product with PE A^T per group) gives the same logits
        lay = structured_forward.make_layout([T] * len(idx), E, cfg.d, F64)
        p = am.unflatten(flat[idx], cfg.model_shape)
        k = structured_step.hand_consts(p, lay, cfg.model_shape)
        ek = structured_step.hand_eval_consts(lay, cfg.model_shape, k)
        ze = structured_step.hand_eval_forward(p, lay, cfg.model_shape, k, ek,
                                               [structured_forward.ones_indicator(bits, F64)])
        zr = structured_forward.structured_logits(flat[idx], bits, E, cfg)
        assert float((ze - zr).abs().max() / zr.abs().max()) < 1e-12


def test_factorized_weights_equal_the_softmax():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(3, 2, 17, generator=g, dtype=F64) * 5
    X = (torch.rand(3, 11, 17, generator=g) > 0.5).to(F64)
    for delta in (torch.tensor([[0.0, 3.0], [-7.0, 39.0], [-39.0, 1e-9]], dtype=F64),):
        ref = torch.softmax(base[:, None] + X[:, :, None, :] * delta[:, None, :, None], dim=-1)
        got, w1 = structured_step._attention_weights(base, delta, X)
        assert float((got - ref).abs().max()) < 1e-14
        assert float((w1 - (ref * X[:, :, None, :]).sum(-1)).abs().max()) < 1e-14
    # beyond the factorization's range: the direct softmax
    big = torch.tensor([[0.0, 300.0], [-300.0, 1.0], [2.0, 3.0]], dtype=F64)
    ref = torch.softmax(base[:, None] + X[:, :, None, :] * big[:, None, :, None], dim=-1)
    got, w1 = structured_step._attention_weights(base, big, X)
    assert float((got - ref).abs().max()) < 1e-15
    assert float((w1 - (ref * X[:, :, None, :]).sum(-1)).abs().max()) < 1e-15


def textbook_sgd(cfg, run, flat0, epochs):
    """The authors' loop for one run with the textbook model: Keras' SGD with momentum,
    ``learning_rates`` per epoch, the run's own shuffling generator."""
    m = textbook(flat0, cfg)
    X = am.embed_authors(run.train_bits, run.embeddings)
    gen = am.run_generator(run.T, run.seed, "shuffle")
    flat, mom = flat0.clone(), torch.zeros_like(flat0)
    for e, lr in enumerate(pr.learning_rates(cfg, epochs)):
        perm = torch.randperm(cfg.n_train, generator=gen)
        for s in range(0, cfg.n_train, cfg.batch_size):
            idx = perm[s:s + cfg.batch_size]
            m.zero_grad()
            bce(m(X[idx]), run.train_labels[idx]).backward()
            mom = cfg.momentum * mom - lr * m.flat_grad()
            flat = flat + mom
            m.load_flat(flat)
    return flat


@pytest.mark.parametrize("method", structured_forward.METHODS)
def test_sgd_momentum_steps_match_textbook_float64(method):
    # a fast-decaying learning rate, so that Keras' momentum form (v <- mu v - lr g) differs from
    # PyTorch's (v <- mu v + g, w <- w - lr v): the comparison checks the form too
    cfg = small(lr=0.5, lr_decay=0.5, lr_floor=0.01, early_stopping="none", max_epochs=3)
    tr = st.StructuredTrainer(cfg, method=method)
    flat0 = tr.flat.clone()
    for _ in range(3):
        tr.run_epoch()
    tr.end_epoch()
    got = tr.state_dict()["flat"]
    assert not torch.equal(got, flat0)
    for i, run in enumerate(tr.data):
        ref = textbook_sgd(cfg, run, flat0[i], 3)
        rel = float((got[i] - ref).norm() / (ref - flat0[i]).norm())
        assert rel < 1e-10, (i, rel)


def test_a_run_trains_the_same_alone_and_in_a_sweep():
    cfg = small(early_stopping="none", max_epochs=2)
    sweep = st.StructuredTrainer(cfg)
    alone = st.StructuredTrainer(dataclasses.replace(cfg, Ts=(13,), seeds=(1,)))
    for tr in (sweep, alone):
        tr.run_epoch()
        tr.run_epoch()
    i = cfg.runs.index((13, 1))
    a, b = sweep.state_dict()["flat"][i], alone.state_dict()["flat"][0]
    assert float((a - b).abs().max()) <= 1e-13 * float(b.abs().max())


def test_float32_matches_float64_reference():
    # float32 structured computation vs the float64 textbook model, at the authors' sizes
    cfg = pr.protocol("authors", "full", Ts=(60,), seeds=(0, 1), n_train=64, n_val=10, dtype="float32")
    runs = st.build_authors_data(cfg)
    flat = init_flat(cfg, scale=10.0)
    bits = torch.stack([r.train_bits for r in runs])
    E = torch.stack([r.embeddings for r in runs])
    y = torch.stack([r.train_labels for r in runs])
    f = flat.clone().requires_grad_(True)
    loss = structured_forward.structured_loss(f, bits, E, y, cfg)
    (g,) = torch.autograd.grad(loss.sum(), f)
    z = structured_forward.structured_logits(flat, bits, E, cfg)
    for i, r in enumerate(runs):
        m = textbook(flat[i].double(), cfg)
        X = am.embed_authors(r.train_bits, r.embeddings)
        ref = m(X)
        assert float((z[i].double() - ref.detach()).abs().max() / ref.detach().abs().max()) < 2e-5
        bce(ref, r.train_labels).backward()
        gr = m.flat_grad()
        assert float((g[i].double() - gr).norm() / gr.norm()) < 2e-5


# ------------------------------------------------------------------ stopping, selection, resume
def test_early_stopping_at_the_first_epoch_with_all_training_samples_right():
    # runs of seed 0 get constant labels (learned in a few epochs); the others keep the real task
    cfg = small(n_train=12, batch_size=5, lr=0.05, lr_decay=1.0, eval_every=1000, max_epochs=40,
                checkpoint_every=1000)
    data = [dataclasses.replace(r, train_labels=torch.full_like(r.train_labels, r.T % 2))
            if r.seed == 0 else r for r in st.build_authors_data(cfg)]
    tr = st.StructuredTrainer(cfg, data=data)
    seen, frozen = {}, {}
    while tr.epoch < cfg.max_epochs and tr.n_training:
        ids = tr.training_runs
        running = tr.run_epoch()
        for i, f in frozen.items():                  # a stopped run is not updated any more
            assert torch.equal(tr.flat[i], f)
        ev = tr.end_epoch()
        for j, i in enumerate(ids):
            full = int(running["correct"][j]) == cfg.n_train
            assert (i in ev["stopped"]) == (full or tr.epoch == cfg.max_epochs)
            if full:
                seen[i] = tr.epoch
                assert i in ev["evaluated"]          # the stopping epoch is evaluated (off schedule)
                frozen[i] = tr.flat[i].clone()
    assert {i for i, r in enumerate(data) if r.seed == 0} <= set(seen)
    assert tr.n_training or len(seen) < len(data)
    for i, e in seen.items():
        assert tr.stop_reason[i] == "train-accuracy-1" and int(tr.stop_epoch[i]) == e
        assert int(tr.steps[i]) == e * cfg.steps_per_epoch and 1 <= int(tr.best_epoch[i]) <= e


def test_best_epoch_is_the_lowest_validation_loss_and_its_weights_are_kept():
    cfg = small(early_stopping="none", max_epochs=8, lr=0.3, lr_decay=0.9)
    res = st.train_structured(cfg, progress=False)
    hist = res["history"]
    assert [h["epoch"] for h in hist] == list(range(1, 9))
    tr = st.StructuredTrainer(cfg)
    for r, rec in enumerate(res["runs"]):
        curve = [h["val_loss"][h["runs"].index(r)] for h in hist]
        assert rec["best_epoch"] == hist[int(np.argmin(curve))]["epoch"]      # argmin: first on ties
        assert rec["val_loss"] == min(curve)
        assert rec["gen_gap"] == rec["val_loss"] - rec["train_loss"]
        assert rec["stop_reason"] == "max-epochs" and rec["stop_epoch"] == 8
    # the kept weights reproduce the recorded best-epoch metrics
    m = tr.evaluate(res["best_params"])
    for i, rec in enumerate(res["runs"]):
        assert math.isclose(float(m["val_loss"][i]), rec["val_loss"], rel_tol=1e-12)
        assert math.isclose(float(m["train_acc"][i]), rec["train_acc"], rel_tol=1e-12)
        assert math.isclose(float(m["l1"][i]), rec["weight_l1"], rel_tol=1e-12)


def test_validation_patience_stops_a_run_without_progress():
    cfg = small(early_stopping="val-patience", patience=2, max_epochs=30, lr=0.3, lr_decay=0.9)
    res = st.train_structured(cfg, progress=False)
    for rec in res["runs"]:
        if rec["stop_reason"] == "val-patience":
            assert rec["stop_epoch"] - rec["best_epoch"] == 2
        else:
            assert rec["stop_reason"] == "max-epochs" and rec["stop_epoch"] == 30
    assert any(r["stop_reason"] == "val-patience" for r in res["runs"])


def test_resume_is_bit_identical(tmp_path):
    cfg = small(dtype="float32", n_train=12, batch_size=5, lr=0.1, lr_decay=0.8, lr_floor=0.01,
                eval_dense_until=2, eval_every=3, max_epochs=12, checkpoint_every=4)
    full = st.train_structured(cfg, progress=False)
    ck = tmp_path / "checkpoint-test.pt"
    assert st.train_structured(cfg, checkpoint=ck, stop_at_epoch=5, progress=False) is None
    assert ck.exists()
    resumed = st.train_structured(cfg, checkpoint=ck, progress=False)
    assert resumed["runs"] == full["runs"] and resumed["history"] == full["history"]
    assert torch.equal(resumed["best_params"], full["best_params"])
    assert resumed["epochs"] == full["epochs"]
    # a finished checkpoint is read back without training
    again = st.train_structured(cfg, checkpoint=ck, progress=False)
    assert again["runs"] == full["runs"]
    # a checkpoint of another protocol is refused
    with pytest.raises(ValueError, match="another protocol"):
        st.train_structured(dataclasses.replace(cfg, lr=0.2), checkpoint=ck, progress=False)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("call, exc, name", [
    (lambda: pr.protocol("authors", k=8), ValueError, "k"),
    (lambda: pr.protocol("authors", Ts=(5,)), ValueError, "Ts"),
    (lambda: pr.protocol("authors", Ts=[20, 40]), TypeError, "Ts"),
    (lambda: pr.protocol("authors", loss="mse"), ValueError, "loss"),
    (lambda: pr.protocol("authors", momentum=1.0), ValueError, "momentum"),
    (lambda: pr.protocol("nope"), ValueError, "name"),
    (lambda: pr.protocol("authors", scale="medium"), ValueError, "scale"),
    (lambda: st.StructuredTrainer(pr.protocol("book-v1", "smoke")), ValueError, "config"),
    (lambda: st.StructuredTrainer({"Ts": (20,)}), TypeError, "config"),
    (lambda: st.StructuredTrainer(small(), method="dense"), ValueError, "method"),
    (lambda: st.train_structured(small(), stop_at_epoch=0, progress=False), ValueError, "stop_at_epoch"),
    (lambda: st.train_structured(small(), max_wall_s=-1, progress=False), ValueError, "max_wall_s"),
    (lambda: structured_forward.structured_logits(torch.zeros(2, 5), torch.zeros(2, 3, 10, dtype=torch.long),
                                                  torch.zeros(2, 3, 64), small()), ValueError, "flat"),
    (lambda: structured_forward.structured_logits([[0.0]], torch.zeros(2, 3, 10, dtype=torch.long),
                                                  torch.zeros(2, 3, 64), small()), TypeError, "flat"),
    (lambda: structured_forward.structured_logits(init_flat(small())[:2], torch.zeros(2, 3, 10),
                                                  torch.zeros(2, 3, 64), small()), TypeError, "bits"),
    (lambda: structured_forward.structured_logits(init_flat(small())[:2], torch.full((2, 3, 10), 2),
                                                  torch.zeros(2, 3, 64), small()), ValueError, "bits"),
    (lambda: structured_forward.structured_logits(init_flat(small())[:2],
                                                  torch.zeros(2, 3, 10, dtype=torch.long),
                                                  torch.zeros(2, 64), small()), ValueError, "embeddings"),
    (lambda: am.make_authors_run(8, seed=0, k=9), ValueError, "k"),
    (lambda: am.run_generator(20, -1, "init"), ValueError, "seed"),
    (lambda: am.run_generator(20, 0, "weights"), ValueError, "stream"),
    (lambda: am.TextbookModel(small().model_shape, attention="flash"), ValueError, "attention"),
    (lambda: pr.learning_rates(small(), -1), ValueError, "epochs"),
    (lambda: st.structured_flops(small(), 0), ValueError, "T"),
])
def test_bad_input_names_the_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


# ------------------------------------------------------------------ data, initialization, protocol
def test_authors_data_embeddings_and_positions():
    r = am.make_authors_run(40, seed=3, n_train=30, n_val=70)
    assert r.train_bits.shape == (30, 40) and r.val_bits.shape == (70, 40)
    S = torch.cat([r.train_bits, r.val_bits]).long()
    assert torch.equal(torch.cat([r.train_labels, r.val_labels]), (S[:, r.index_set].sum(1) >= 5).long())
    E = r.embeddings
    G = E @ E.T
    assert float((G - torch.diag(torch.diag(G))).abs().max()) < 1e-15
    assert torch.allclose(E.abs().sum(1), torch.ones(3, dtype=F64), atol=1e-15)
    pe = am.authors_positional_encoding(41, 64)
    assert math.isclose(float(pe[7, 5]), math.cos(7 / 10000 ** (5 / 64)), abs_tol=1e-15)
    assert math.isclose(float(pe[7, 4]), math.sin(7 / 10000 ** (4 / 64)), abs_tol=1e-15)
    X = am.embed_authors(r.train_bits, r.embeddings)
    assert torch.equal(X[:, -1], (E[2] + pe[40]).expand(30, 64))
    again = am.make_authors_run(40, seed=3, n_train=30, n_val=70)
    assert torch.equal(again.val_bits, r.val_bits) and torch.equal(again.embeddings, r.embeddings)
    other = am.make_authors_run(40, seed=4, n_train=30, n_val=70)
    assert not torch.equal(other.train_bits, r.train_bits)


def test_keras_initialization():
    shape = pr.protocol("authors").model_shape
    assert shape.size == 37_506
    flat = am.init_authors_params(shape, generator=am.run_generator(20, 0, "init"), dtype=F64)
    p = am.unflatten(flat, shape)
    limits = {"Wq": math.sqrt(6 / 4224), "Wk": math.sqrt(6 / 4224), "Wv": math.sqrt(6 / 4224),
              "Wo": math.sqrt(6 / 256), "Wd": math.sqrt(6 / 128)}
    for name, a in limits.items():
        assert float(p[name].abs().max()) <= a and float(p[name].abs().max()) > 0.9 * a
    assert 0.03 < float(p["Wr"].std()) < 0.07
    assert all(float(p[b].abs().max()) == 0 for b in ("bq", "bk", "bv", "bo", "bd", "br"))
    assert int(am.bias_mask(shape).sum()) == 3 * 128 + 64 + 64 + 2


def test_learning_rates_and_evaluation_schedule():
    a = pr.protocol("authors")
    lrs = pr.learning_rates(a, 3000)
    assert lrs[0] == float(np.float32(0.01 * 0.999)) and lrs[1] < lrs[0]
    assert lrs[-1] == float(np.float32(0.001)) and lrs.index(lrs[-1]) == 2301
    assert pr.learning_rates(a, 2, start=5000) == [lrs[-1]] * 2
    for c in (small(), small(eval_dense_until=3, eval_every=4, max_epochs=14), a):
        for E in {1, 5, 13, min(c.max_epochs, 6000)}:
            assert c.n_evaluations(E) == sum(c.evaluates_at(e) for e in range(1, E + 1))
    c = small(eval_dense_until=3, eval_every=4, max_epochs=14)
    # epochs 1, 2, 3 (dense), 4, 8, 12 (every 4) and the last, 14
    assert c.n_evaluations() == sum(c.evaluates_at(e) for e in range(1, 15)) == 7


def test_protocol_table_and_variants():
    rows = pr.protocol_table()
    keys = {"setting", "paper", "authors_code", "book", "book_v1", "departure"}
    assert rows and all(set(r) == keys and all(isinstance(v, str) for v in r.values()) for r in rows)
    departures = [r["setting"] for r in rows if r["departure"]]
    assert {"random seeds", "validation frequency", "generalization gap (Fig. 2)"} <= set(departures)
    assert sum("l. " in r["authors_code"] for r in rows) >= 20
    text = pr.format_table(rows)
    assert "* validation frequency" in text and max(len(line) for line in text.splitlines()) <= 100
    # the table says which Keras it follows, and what Keras 3 changes
    by = {r["setting"]: r for r in rows}
    assert "Keras 2" in by["Keras version"]["authors_code"]
    assert "Keras 3" in by["initialization"]["authors_code"]
    assert "4 of the 12" in by["weight norm (Fig. 1)"]["authors_code"]
    freq = {r["setting"]: r for r in pr.protocol_table(pr.protocol("authors", eval_every=1))}
    assert freq["validation frequency"]["book"] == "after every epoch"
    assert not freq["validation frequency"]["departure"]
    sweep = pr.protocol("book-v1").to_sweep_config()
    assert sweep.lr == 1e-3 and sweep.patience is None and sweep.eval_every == 500
    with pytest.raises(ValueError, match="book-v1"):
        pr.protocol("authors").to_sweep_config()


def test_flops_count():
    cfg = pr.protocol("authors")
    f = st.structured_flops(cfg, 200)
    g = st.structured_flops(cfg, 200, batch=256)
    assert f["total"] == f["forward"] + f["backward"] > 0
    assert g["forward"] - f["forward"] == 128 * f["per_sample_forward"]
    # the hand-written step, per sample: the 0/1 inputs against the table, Z A^T, the folded read-out
    d, H = cfg.d, cfg.heads
    assert f["per_sample_forward"] == 2 * 200 * H * (d + 1) + 2 * H * d * d + 2 * d * 2
    fac = st.structured_flops(cfg, 200, method="factorized")
    assert fac["total"] == fac["forward"] + fac["backward"] > 0


@pytest.mark.parametrize("method", ["softmax", "factorized"])
@pytest.mark.parametrize("dense, Ts, n_train", [(13, (11,), 12), (None, (11,), 12), (13, (11, 13, 20), 10)])
def test_flops_count_equals_the_products_the_steps_issue(method, dense, Ts, n_train):
    """Every dimension different (d=8, H=3, d_k=5, d_v=6, Dense 13, T=11, batch 4), so a term with
    a wrong dimension or a missing product cannot match by coincidence; with several lengths and a
    last batch of 2, the positional products' span and the batch sizes count too."""
    from attention_theory.trauger.sparse_majority.benchmark import record_products

    cfg = dataclasses.replace(pr.protocol("authors", "smoke"), Ts=Ts, seeds=(0, 1), n_train=n_train,
                              batch_size=4, early_stopping="none", d=8, heads=3, key_dim=5, value_dim=6,
                              dense_units=dense)
    trainer = st.StructuredTrainer(cfg, method=method)
    trainer.run_epoch()
    issued = sum(p["flops"] for p in record_products(trainer.run_epoch))
    batches = [min(4, n_train - s) for s in range(0, n_train, 4)]
    assert issued == sum(st.structured_flops(cfg, T, batch=b, method=method)["total"]
                         for T, _ in cfg.runs for b in batches)


def test_experiment_runs_the_authors_protocol(tmp_path):
    from attention_theory.experiment import run_cli
    from attention_theory.results import read_result
    from attention_theory.trauger.sparse_majority import experiment as ex

    # the single-trainer path (--parts sweep); without --parts, --protocol authors runs the
    # sharded authors-sweep (tests/core/test_experiment_shards.py)
    written = run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--out", str(tmp_path), "--protocol", "authors",
                                      "--max-epochs", "3", "--n-val", "40", "--Ts", "12", "--no-progress",
                                      "--parts", "sweep"])
    obj = read_result(written["sweep"])
    assert obj["provenance"]["config"]["name"] == "authors" and obj["data"]["protocol"] == "authors"
    assert obj["provenance"]["config"]["max_epochs"] == 3
    (rec,) = obj["data"]["runs"]
    assert rec["T"] == 12 and rec["stop_reason"] in ("max-epochs", "train-accuracy-1")
    assert set(obj["data"]["summary"]) == {"12"}
    assert not list(tmp_path.glob("checkpoint-*"))
    # a first-edition sweep in the same folder is not overwritten by the authors' protocol
    (tmp_path / "runs-smoke.json").write_text('{"provenance": {}, "data": {"runs": []}}')
    with pytest.raises(SystemExit):
        run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--out", str(tmp_path), "--protocol", "authors",
                                "--max-epochs", "3", "--Ts", "12", "--no-progress", "--parts", "sweep"])
