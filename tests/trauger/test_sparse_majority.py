"""Unit tests of the sparse-majority data, model, batched trainer and experiment (Trauger Sec. 6)."""

import math

import pytest
import torch

from attention_theory.results import read_result
from attention_theory.trauger.sparse_majority import data
from attention_theory.trauger.sparse_majority import model as sm
from attention_theory.trauger.sparse_majority import training as batched

# ---------------------------------------------------------------------------- data


def test_shapes_and_cls():
    ds = data.make_sparse_majority(40, seed=3, n_train=50, n_val=70)
    assert ds.train_tokens.shape == (50, 41) and ds.val_tokens.shape == (70, 41)
    assert ds.train_labels.shape == (50,) and ds.val_labels.shape == (70,)
    assert (ds.train_tokens[:, 0] == data.CLS).all() and (ds.val_tokens[:, 0] == data.CLS).all()
    assert set(ds.train_tokens[:, 1:].unique().tolist()) <= {0, 1}
    assert ds.index_set.numel() == 9 and len(set(ds.index_set.tolist())) == 9
    assert int(ds.index_set.max()) < 40
    X = data.embed(ds.train_tokens, 64)
    assert X.shape == (50, 41, 64) and X.dtype == torch.float64


def test_label_rule_by_brute_force():
    ds = data.make_sparse_majority(20, seed=1, n_train=200, n_val=10)
    S = ds.train_tokens[:, 1:]
    for i in range(S.shape[0]):
        ones = sum(int(S[i, j]) for j in ds.index_set.tolist())
        assert int(ds.train_labels[i]) == int(ones >= 5)
    assert 0.35 < ds.train_labels.double().mean() < 0.65


def test_labels_ignore_positions_outside_the_index_set():
    ds = data.make_sparse_majority(30, seed=2, n_train=100, n_val=10)
    S = ds.train_tokens[:, 1:].clone()
    outside = [j for j in range(30) if j not in ds.index_set.tolist()]
    S[:, outside] = 1 - S[:, outside]
    assert torch.equal(data.majority_labels(S, ds.index_set), ds.train_labels)


def test_embeddings_orthonormal():
    E = data.token_embeddings(64)
    assert torch.allclose(E @ E.T, torch.eye(3, dtype=torch.float64))


def test_positional_encoding_closed_form():
    pe = data.positional_encoding(50, 64)
    for t in (0, 7, 49):
        for i in (0, 5, 31):
            w = 1.0 / 10000 ** (2 * i / 64)
            assert math.isclose(pe[t, 2 * i].item(), math.sin(t * w), abs_tol=1e-12)
            assert math.isclose(pe[t, 2 * i + 1].item(), math.cos(t * w), abs_tol=1e-12)


def test_determinism_by_seed():
    a = data.make_sparse_majority(60, seed=4, n_train=30, n_val=30)
    b = data.make_sparse_majority(60, seed=4, n_train=30, n_val=30)
    c = data.make_sparse_majority(60, seed=5, n_train=30, n_val=30)
    assert torch.equal(a.train_tokens, b.train_tokens) and torch.equal(a.index_set, b.index_set)
    assert torch.equal(a.val_tokens, b.val_tokens)
    assert not torch.equal(a.train_tokens, c.train_tokens)
    assert not torch.equal(a.train_tokens, a.val_tokens[:30])


@pytest.mark.parametrize("call", [
    lambda: data.make_sparse_majority(9, seed=0),            # k >= T
    lambda: data.sample_index_set(20, 4, seed=0),            # even k
    lambda: data.make_sparse_majority(20, seed=-1),          # negative seed
    lambda: data.positional_encoding(10, 7),                  # odd d
    lambda: data.token_embeddings(2),                         # d < 3
    lambda: data.majority_labels(torch.zeros(3), torch.tensor([0])),
    lambda: data.majority_labels(torch.zeros(3, 4), torch.tensor([5])),
    lambda: data.embed(torch.full((2, 3), 7), 8),
])
def test_data_bad_input(call):
    with pytest.raises((ValueError, TypeError)):
        call()


def test_data_bad_type():
    with pytest.raises(TypeError):
        data.make_sparse_majority(20.5, seed=0)

# ---------------------------------------------------------------------------- model


def _params64(seed=0, d=16):
    p = sm.init_params(d, seed=seed, dtype=torch.float64)
    g = torch.Generator().manual_seed(seed + 100)
    return {k: v + 0.3 * torch.randn(v.shape, generator=g, dtype=torch.float64) for k, v in p.items()}


def test_token_forward_equals_dense_and_torch_mha():
    p = _params64(d=16)
    ds = data.make_sparse_majority(12, seed=0, n_train=20, n_val=5)
    z = sm.logits(p, ds.train_tokens, heads=2)
    X = data.embed(ds.train_tokens, 16)
    zd = sm.logits_dense(p, X, heads=2)
    mha, head = sm.to_torch_modules(p, heads=2)
    out, _ = mha(X[:, :1], X, X, need_weights=False)
    zt = head(out[:, 0])
    assert z.shape == (20, 2)
    assert torch.allclose(z, zd, atol=1e-12) and torch.allclose(z, zt.detach(), atol=1e-12)


def test_padding_is_invisible_and_runs_stack():
    p1, p2 = _params64(1), _params64(2)
    a = data.make_sparse_majority(10, seed=0, n_train=8, n_val=2).train_tokens
    b = data.make_sparse_majority(15, seed=0, n_train=8, n_val=2).train_tokens
    L = 16
    pad = lambda t: torch.cat([t, torch.full((t.shape[0], L - t.shape[1]), data.PAD)], 1)
    stacked = sm.stack_params([p1, p2])
    z = sm.logits(stacked, torch.stack([pad(a), pad(b)]), heads=2)
    assert torch.allclose(z[0], sm.logits(p1, a, heads=2), atol=1e-12)
    assert torch.allclose(z[1], sm.logits(p2, b, heads=2), atol=1e-12)
    zv = torch.func.vmap(lambda p, t: sm.logits(p, t, heads=2, shared_padding=False,
                                                   validate=False))(stacked, torch.stack([pad(a), pad(b)]))
    assert torch.allclose(z, zv, atol=1e-12)


def test_param_count_and_l1():
    p = sm.init_params(64, seed=0)
    assert sm.param_count(p) == 4 * 64 * 64 + 4 * 64 + 2 * 64 + 2
    st = sm.stack_params([p, sm.init_params(64, seed=1)])
    assert sm.param_count(st) == sm.param_count(p)
    l1 = sm.weight_l1(st)
    assert l1.shape == (2,)
    assert math.isclose(l1[0].item(), sum(v.abs().sum().item() for v in p.values()), rel_tol=1e-5)
    # zero biases at init: with and without biases agree
    assert torch.allclose(sm.weight_l1(st, include_biases=False), l1)


@pytest.mark.parametrize("call", [
    lambda: sm.logits({"Wq": torch.zeros(4, 4)}, torch.zeros(1, 3, dtype=torch.long)),
    lambda: sm.logits(sm.init_params(8, seed=0), torch.zeros(1, 3), heads=2),
    lambda: sm.logits(sm.init_params(8, seed=0), torch.zeros(1, 3, dtype=torch.long), heads=3),
    lambda: sm.logits(sm.init_params(8, seed=0), torch.zeros(3, dtype=torch.long)),
    lambda: sm.cross_entropy(torch.zeros(3, 2), torch.zeros(4)),
    lambda: sm.stack_params([]),
    lambda: sm.init_params(8, seed=-3),
    lambda: sm.logits([1, 2], torch.zeros(1, 3, dtype=torch.long)),
    lambda: sm.logits(sm.init_params(8, seed=0), torch.zeros(1, 3, dtype=torch.long)),  # no CLS
])
def test_model_bad_input(call):
    with pytest.raises((ValueError, TypeError)):
        call()

# ---------------------------------------------------------------------------- trainer


def _tiny(**kw):
    base = dict(Ts=(10, 14), seeds=(0, 1), n_train=40, n_val=60, d=8, heads=2, batch_size=16,
                max_epochs=12, eval_every=2, checkpoint_every=4, dtype="float64", val_chunk=25)
    base.update(kw)
    return batched.SweepConfig(**base)


def test_batched_single_run_matches_naive_torch_loop():
    """R = 1: the stacked trainer (token forward, own Adam) follows the textbook loop
    (nn.MultiheadAttention on embedded inputs, torch.optim.Adam) step for step."""
    cfg = _tiny(Ts=(12,), seeds=(3,), max_epochs=5, eval_every=5, checkpoint_every=5)
    res = batched.train_batched(cfg, progress=False)   # one evaluation: best = final
    naive = batched.train_naive(cfg, epochs=5)
    assert naive["optimizer_steps"] == res["runs"][0]["optimizer_steps"] == 15
    for k, v in naive["final_params"][0].items():
        assert torch.allclose(res["best_params"][k][0], v, atol=1e-8), k
    moved = sum((res["best_params"][k][0] - p).abs().sum()
                for k, p in sm.init_params(8, seed=1000 * 12 + 3, dtype=torch.float64).items())
    assert moved > 1e-3


def test_training_lowers_the_loss_and_records_are_complete():
    res = batched.train_batched(_tiny(max_epochs=20, lr=1e-2), progress=False)
    first = res["history"][0]
    for r, rec in enumerate(res["runs"]):
        assert rec["train_loss"] < math.log(2) + 0.05
        assert math.isclose(rec["gen_gap"], rec["val_loss"] - rec["train_loss"])
        assert rec["best_epoch"] % 2 == 0 and rec["best_epoch"] > 0
        h = [row for row in res["history"] if row["epoch"] == rec["best_epoch"]][0]
        assert h["val_loss"][r] == min(row["val_loss"][r] for row in res["history"])
    assert min(row["train_loss"][0] for row in res["history"]) < first["train_loss"][0]


def test_resume_is_bit_identical(tmp_path):
    cfg = _tiny()
    full = batched.train_batched(cfg, checkpoint=tmp_path / "a.pt", progress=False)
    assert batched.train_batched(cfg, checkpoint=tmp_path / "b.pt", stop_at_epoch=6,
                                 progress=False) is None
    resumed = batched.train_batched(cfg, checkpoint=tmp_path / "b.pt", progress=False)
    assert full["runs"] == resumed["runs"]
    assert full["history"] == resumed["history"]
    for k in full["best_params"]:
        assert torch.equal(full["best_params"][k], resumed["best_params"][k])
    a = torch.load(tmp_path / "a.pt", weights_only=False)
    b = torch.load(tmp_path / "b.pt", weights_only=False)
    for k in a["params"]:
        assert torch.equal(a["params"][k], b["params"][k]) and torch.equal(a["v"][k], b["v"][k])


def test_resume_refuses_other_config(tmp_path):
    batched.train_batched(_tiny(), checkpoint=tmp_path / "c.pt", stop_at_epoch=4, progress=False)
    with pytest.raises(ValueError, match="different config"):
        batched.train_batched(_tiny(lr=0.5), checkpoint=tmp_path / "c.pt", progress=False)


def test_early_stopping_freezes_runs():
    res = batched.train_batched(_tiny(max_epochs=40, lr=5e-2, patience=4), progress=False)
    stopped = [rec for rec in res["runs"] if rec["stopped_epoch"] >= 0]
    assert stopped, "this configuration is chosen so that runs stop early"
    assert len({rec["stopped_epoch"] for rec in stopped}) > 1  # runs stop independently
    for rec in stopped:
        assert rec["stopped_epoch"] - rec["best_epoch"] >= 4
        assert rec["optimizer_steps"] == rec["stopped_epoch"] * 3
    assert res["epochs"] == max(rec["stopped_epoch"] for rec in stopped)


@pytest.mark.parametrize("kw", [dict(Ts=()), dict(Ts=(5,)), dict(lr=-1.0), dict(dtype="int8"),
                                dict(checkpoint_every=3), dict(patience=0), dict(batch_size=0)])
def test_config_bad_input(kw):
    with pytest.raises((ValueError, TypeError)):
        _tiny(**kw)


def test_trainer_bad_input():
    with pytest.raises(TypeError):
        batched.train_batched({"Ts": (10,)})
    with pytest.raises(ValueError):
        batched.train_batched(_tiny(), stop_at_epoch=3)


def _adam_args(R=2, d=8):
    p = sm.stack_params([sm.init_params(d, seed=s, dtype=torch.float64) for s in range(R)])
    return dict(params=p, grads=[torch.full_like(t, 0.5) for t in p.values()],
                m={k: torch.zeros_like(t) for k, t in p.items()},
                v={k: torch.zeros_like(t) for k, t in p.items()},
                step=torch.zeros(R, dtype=torch.long), active=torch.tensor([True, False]), lr=1e-3,
                betas=(0.9, 0.999), eps=1e-7)


def test_adam_step_is_the_trainers_step_and_checks_its_input():
    """The public (validated) step and the trainer's inner step do the same update; the bool mask
    ``active`` (not fuzzed: the fuzz suite cannot negate a bool tensor) is checked by name."""
    a, b = _adam_args(), _adam_args()
    batched.adam_step(**a)
    batched._adam_step(**b)
    for k in a["params"]:
        assert torch.equal(a["params"][k], b["params"][k]) and torch.equal(a["v"][k], b["v"][k])
        assert torch.equal(a["params"][k][1], _adam_args()["params"][k][1])  # inactive run untouched
    assert a["step"].tolist() == b["step"].tolist() == [1, 0]
    for active, err in ((torch.ones(2), TypeError), (None, TypeError), ([True, True], TypeError),
                        (torch.ones(3, dtype=torch.bool), ValueError),
                        (torch.ones(1, 2, dtype=torch.bool), ValueError)):
        with pytest.raises(err, match="active"):
            batched.adam_step(**{**_adam_args(), "active": active})
    with pytest.raises(ValueError, match="step"):
        batched.adam_step(**{**_adam_args(), "step": torch.tensor([-1, 0])})

# ---------------------------------------------------------------------------- experiment


def test_experiment_cli_writes_result_with_provenance(tmp_path):
    from attention_theory.experiment import run_cli
    from attention_theory.trauger.sparse_majority import experiment as ex

    written = run_cli(ex.EXPERIMENT, ["--scale", "smoke", "--protocol", "book-v1", "--out", str(tmp_path),
                                      "--max-epochs", "4",
                                      "--eval-every", "2", "--checkpoint-every", "2", "--n-val", "50",
                                      "--Ts", "12", "--no-progress", "--device", "cpu"])
    assert written == {"sweep": tmp_path / "runs-smoke.json"}
    obj = read_result(tmp_path / "runs-smoke.json")
    assert obj["provenance"]["scale"] == "smoke" and obj["provenance"]["config"]["max_epochs"] == 4
    (rec,) = obj["data"]["runs"]
    for key in ("T", "seed", "best_epoch", "train_loss", "val_loss", "train_acc", "val_acc",
                "weight_l1", "gen_gap"):
        assert key in rec
    assert not (tmp_path / "checkpoint-smoke.pt").exists()
    assert set(obj["data"]["summary"]) == {"12"}
