"""Unit and bad-input tests for the Julistiono et al. modules: the l_p potential, the attention
model and its stable gradient, l_p mirror descent, the l_p attention SVM and the real-data loaders."""

import math

import numpy as np
import pytest
import torch

from attention_theory.foundations import mirror
from attention_theory.julistiono import mirror_descent as md
from attention_theory.julistiono import model as mj
from attention_theory.julistiono import svm

pytestmark = pytest.mark.usefixtures("float64_default")


def _data(seed=1, n=4, T=5, d=3):
    return mj.synthetic_dataset(seed, n, T, d)


# --- mirror -------------------------------------------------------------------------------


def test_mirror_round_trip_and_bregman_basics():
    rng = np.random.default_rng(0)
    W, V = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for p in (1.1, 1.5, 2.0, 3.0):
        assert np.allclose(mirror.grad_psi_inv(mirror.grad_psi(W, p), p), W, rtol=1e-12)
        assert mirror.bregman(W, W, p) == pytest.approx(0.0, abs=1e-12)
        assert mirror.bregman(W, V, p) > 0
    assert mirror.bregman(W, V, 2.0) == pytest.approx(0.5 * np.sum((W - V) ** 2))
    assert np.allclose(mirror.md_step(W, V, 0.3, 2.0), W - 0.3 * V)
    assert mirror.conjugate_exponent(3.0) == pytest.approx(1.5)


def test_entrywise_lp_no_overflow_and_batches():
    W = np.full((2, 2), 1e200)
    assert mirror.entrywise_lp(W, 3.0) == pytest.approx(1e200 * 4 ** (1 / 3))
    B = np.stack([np.eye(2), 2 * np.eye(2)])
    assert np.allclose(mirror.entrywise_lp(B, 2.0, batch_dims=1), [math.sqrt(2), 2 * math.sqrt(2)])
    assert np.allclose(mirror.directional_bregman(np.eye(2), B, 1.5, batch_dims=1), 0.0, atol=1e-15)


@pytest.mark.parametrize("bad", [1.0, 0.5, float("inf"), float("nan"), "2"])
def test_mirror_bad_p(bad):
    with pytest.raises((ValueError, TypeError)):
        mirror.grad_psi(np.ones(3), bad)


def test_mirror_bad_shapes_and_values():
    with pytest.raises(ValueError, match="same shape"):
        mirror.bregman(np.ones((2, 2)), np.ones(3), 2.0)
    with pytest.raises(ValueError, match="finite"):
        mirror.psi(np.array([np.nan]), 2.0)
    with pytest.raises(ValueError, match="eta"):
        mirror.md_step(np.ones(2), np.ones(2), -1.0, 2.0)
    with pytest.raises(ValueError, match="non-zero"):
        mirror.directional_bregman(np.zeros((2, 2)), np.ones((2, 2)), 2.0)
    with pytest.raises(TypeError):
        mirror.psi("abc", 2.0)


# --- model --------------------------------------------------------------------------------


def test_model_output_matches_definition():
    d = _data()
    W = np.random.default_rng(1).standard_normal((3, 3))
    f = mj.attention_output(d["X"], d["z"], W, d["v"])
    for i in range(4):
        h = d["X"][i] @ W @ d["z"][i]
        s = np.exp(h - h.max()) / np.exp(h - h.max()).sum()
        assert f[i] == pytest.approx(d["v"] @ d["X"][i].T @ s)


def test_stable_gradient_matches_autograd_and_naive_at_moderate_norm():
    d = _data(2, 6, 8, 10)
    W = np.random.default_rng(2).standard_normal((10, 10))
    Wt = torch.tensor(W, requires_grad=True)
    val = mj.objective_torch(Wt, *(torch.as_tensor(d[k]) for k in ("X", "z", "Y", "v")))
    (g,) = torch.autograd.grad(val, Wt)
    stable = mj.gradient_W(W, d["X"], d["z"], d["Y"], d["v"])
    naive = mj.gradient_W(W, d["X"], d["z"], d["Y"], d["v"], stable=False)
    assert np.abs(stable - g.numpy()).max() <= 1e-12 * np.abs(g.numpy()).max()
    assert np.abs(naive - stable).max() <= 1e-12 * np.abs(stable).max()


def test_stable_gradient_keeps_relative_accuracy_when_saturated():
    import mpmath as mp

    mp.mp.dps = 50
    X = np.array([[[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]])
    z, Y, v = np.array([[1.0, 0.0]]), np.array([1.0]), np.array([0.3, -1.0])
    W = 200.0 * np.eye(2)                     # logits (200, 0, 120): s_1 = 1 - O(e^-80)
    h = [mp.mpf(200), mp.mpf(0), mp.mpf(120)]
    gam = [mp.mpf(float(g)) for g in (X[0] @ v)]
    e = [mp.e ** (x - h[0]) for x in h]
    s = [x / sum(e) for x in e]
    u = sum(a * b for a, b in zip(s, gam))
    c = [s[t] * (gam[t] - u) for t in range(3)]
    lp = -1 / (1 + mp.e ** u)
    ref = np.array([[float(lp * sum(c[t] * mp.mpf(X[0, t, j]) for t in range(3)) * mp.mpf(z[0, k]))
                     for k in range(2)] for j in range(2)])
    stable = mj.gradient_W(W, X, z, Y, v)
    naive = mj.gradient_W(W, X, z, Y, v, stable=False)
    assert np.abs(stable - ref).max() <= 1e-12 * np.abs(ref).max()
    assert np.abs(naive - ref).max() > 1e-3 * np.abs(ref).max()   # autograd's form lost the top token


def test_batched_gradient_equals_loop():
    d = _data()
    Ws = np.random.default_rng(3).standard_normal((4, 3, 3))
    G = mj.gradient_W(Ws, d["X"], d["z"], d["Y"], d["v"])
    for k in range(4):
        assert np.allclose(G[k], mj.gradient_W(Ws[k], d["X"], d["z"], d["Y"], d["v"]), rtol=1e-13)


def test_model_bad_inputs():
    d = _data()
    with pytest.raises(ValueError, match="X"):
        mj.logits(np.ones((3, 3)), d["z"], np.eye(3))
    with pytest.raises(ValueError, match="z"):
        mj.logits(d["X"], np.ones((2, 3)), np.eye(3))
    with pytest.raises(ValueError, match="W"):
        mj.logits(d["X"], d["z"], np.eye(4))
    with pytest.raises(ValueError, match="Y"):
        mj.objective(np.eye(3), d["X"], d["z"], np.array([1.0, 0.0, 1.0, 1.0]), d["v"])
    with pytest.raises(ValueError, match="v"):
        mj.objective(np.eye(3), d["X"], d["z"], d["Y"], np.ones(4))
    with pytest.raises(ValueError, match="loss"):
        mj.loss_value(np.ones(2), "hinge")
    with pytest.raises(ValueError, match="seed"):
        mj.synthetic_dataset(-1)


# --- mirror descent -----------------------------------------------------------------------


def test_lp_attgd_p2_is_gradient_descent():
    d = _data()
    W0 = np.random.default_rng(4).standard_normal((3, 3))
    tr = md.lp_attgd(W0, d["X"], d["z"], d["Y"], d["v"], p=2.0, eta=0.5, steps=3)
    W = W0.copy()
    for _ in range(3):
        W = W - 0.5 * mj.gradient_W(W, d["X"], d["z"], d["Y"], d["v"])
    assert np.allclose(tr.final, W, rtol=1e-12)
    assert tr.iterates.shape == (4, 3, 3) and tr.losses.shape == (4,)


def test_normalized_step_has_unit_dual_norm():
    G = np.random.default_rng(5).standard_normal((2, 3, 3)) * 1e-200
    Gn = md.normalize_dual(G, 1.5, batch_dims=1)
    assert np.allclose(mirror.entrywise_lp(Gn, 1.5, batch_dims=1), 1.0)
    assert np.all(md.normalize_dual(np.zeros((2, 2)), 3.0) == 0)


def test_joint_training_runs_and_stops_cleanly():
    ex = mj.two_sample_example()
    tr = md.joint_lp_md(np.zeros((2, 2)), np.zeros(2), ex["X"], ex["z"], ex["Y"], p=2.0, eta=0.1, steps=50,
                        record_every=10)
    assert tr.W.shape[1:] == (2, 2) and tr.v.shape[1:] == (2,)
    assert tr.losses[-1] < tr.losses[0]


def test_md_bad_inputs():
    d = _data()
    with pytest.raises(ValueError, match="W0"):
        md.lp_attgd(np.eye(4), d["X"], d["z"], d["Y"], d["v"], p=2.0, eta=0.1, steps=1)
    with pytest.raises(ValueError, match="eta"):
        md.lp_attgd(np.eye(3), d["X"], d["z"], d["Y"], d["v"], p=2.0, eta=0.0, steps=1)
    with pytest.raises(ValueError):
        md.lp_attgd(np.eye(3), d["X"], d["z"], d["Y"], d["v"], p=1.0, eta=0.1, steps=1)
    with pytest.raises(TypeError, match="steps"):
        md.lp_attgd(np.eye(3), d["X"], d["z"], d["Y"], d["v"], p=2.0, eta=0.1, steps=1.5)
    with pytest.raises(ValueError, match="v0"):
        md.joint_lp_md(np.eye(3), np.ones(2), d["X"], d["z"], d["Y"], p=2.0, eta=0.1, steps=1)


# --- SVM ----------------------------------------------------------------------------------


def test_lp_att_svm_feasible_and_support():
    d = mj.synthetic_dataset(3)
    gamma = mj.scores(d["X"], d["Y"], d["v"])
    alpha = np.argmax(gamma, axis=1)
    sol = svm.lp_att_svm(d["X"], d["z"], alpha, 2.0)
    assert np.nanmin(sol.margins) >= 1 - 1e-7
    sup = svm.support_tokens(sol, d["X"], d["z"])
    assert sup.any() and not sup[np.arange(6), alpha].any()
    assert svm.is_locally_optimal(gamma, alpha, sup)
    worst = np.argmin(gamma, axis=1)
    worst_support = svm.support_tokens(svm.lp_att_svm(d["X"], d["z"], worst, 2.0), d["X"], d["z"])
    assert not svm.is_locally_optimal(gamma, worst, worst_support)
    v = svm.lp_v_svm(d["X"], d["Y"], alpha, 2.0)
    assert np.all(d["Y"] * np.einsum("nd,d->n", d["X"][np.arange(6), alpha], v) >= 1 - 1e-7)
    assert np.array_equal(svm.select_alpha(d["X"], d["z"], 50 * sol.W), alpha)


def test_svm_bad_inputs():
    d = mj.synthetic_dataset(3)
    with pytest.raises(ValueError, match="alpha"):
        svm.lp_att_svm(d["X"], d["z"], np.zeros(5, dtype=int), 2.0)
    with pytest.raises(ValueError, match="alpha"):
        svm.lp_att_svm(d["X"], d["z"], np.full(6, 9), 2.0)
    with pytest.raises(ValueError):
        svm.lp_att_svm(d["X"], d["z"], np.zeros(6, dtype=int), 1.0)
    with pytest.raises(ValueError, match="Y"):
        svm.lp_v_svm(d["X"], np.zeros(6), np.zeros(6, dtype=int), 2.0)
    with pytest.raises(ValueError, match="shape"):
        svm.is_locally_optimal(np.ones((2, 3)), np.zeros(2, dtype=int), np.ones((2, 2), dtype=bool))


# --- real-data loaders (tiny local fixtures) ------------------------------------------------


def test_imdb_loader_on_fixture():
    from pathlib import Path

    from attention_theory.julistiono import real_data as jr

    root = Path(__file__).parent / "fixtures"
    ids, y = jr.load_imdb(root / "aclImdb", root / "vocab.txt", "train", max_len=12)
    assert ids.shape == (3, 12) and list(y) == [1, 1, 0]
    vocab = jr.load_vocab(root / "vocab.txt")
    first = jr.tokenize("A wonderful, moving film. Loved it.", vocab, 12)
    words = ("[CLS]", "a", "wonder", "##ful", "moving", "film", "loved", "it", "[SEP]")
    assert list(first[:9]) == [vocab[t] for t in words]
    with pytest.raises(FileNotFoundError):
        jr.load_imdb(root / "missing", root / "vocab.txt")
    with pytest.raises(ValueError, match="split"):
        jr.load_imdb(root / "aclImdb", root / "vocab.txt", "dev")


def test_cifar_loader_on_fixture():
    from pathlib import Path

    from attention_theory.julistiono import real_data as jr

    root = Path(__file__).parent / "fixtures" / "cifar-100-python"
    X, y = jr.load_cifar100(root, "train")
    assert X.shape == (4, 32, 32, 3) and X.dtype == np.uint8 and y.shape == (4,)
    with pytest.raises(TypeError):
        jr.load_cifar100(3)


#: the labels of the committed CIFAR-10 fixture: one image in each training batch, two in the test batch
CIFAR10_FIXTURE_LABELS = {"train": [3, 8, 0, 6, 1], "test": [9, 2]}


def cifar10_pixel(k, row, col, channel):
    """The pixel value of the ``k``-th image (training images first) of a fixture written by
    :func:`write_cifar10_fixture`."""
    return (50 * k + 7 * channel + row + 3 * col) % 256


def write_cifar10_fixture(root, labels=None):
    """Writes a python-version CIFAR-10 folder at ``root`` in the layout of the real one (pickles of
    dicts with bytes keys; ``b"data"`` channel-major uint8 rows of 3072 values) with the given
    labels per split (default: :data:`CIFAR10_FIXTURE_LABELS`); returns ``root``."""
    import pickle
    from pathlib import Path

    labels = CIFAR10_FIXTURE_LABELS if labels is None else labels
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    c, r, col = np.meshgrid(np.arange(3), np.arange(32), np.arange(32), indexing="ij")
    k = 0

    def batch(name, labs):
        nonlocal k
        rows = []
        for _ in labs:
            rows.append(cifar10_pixel(k, r, col, c).astype(np.uint8).ravel())
            k += 1
        obj = {b"batch_label": name.encode(), b"labels": list(labs), b"data": np.stack(rows),
               b"filenames": [f"img_{i}.png".encode() for i in range(len(labs))]}
        (root / name).write_bytes(pickle.dumps(obj, protocol=4))

    for i, lab in enumerate(labels["train"], start=1):
        batch(f"data_batch_{i}", [lab])
    batch("test_batch", labels["test"])
    names = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse", b"ship",
             b"truck"]
    (root / "batches.meta").write_bytes(pickle.dumps({b"label_names": names, b"num_vis": 3072}, protocol=4))
    return root


def test_cifar10_loader_on_the_committed_fixture(tmp_path):
    from pathlib import Path

    from attention_theory.julistiono import real_data as jr

    root = Path(__file__).parent / "fixtures" / "cifar-10-batches-py"
    X, y = jr.load_cifar10(root, "train")
    assert X.shape == (5, 32, 32, 3) and X.dtype == np.uint8
    assert y.dtype == np.int64 and y.tolist() == CIFAR10_FIXTURE_LABELS["train"]  # batches 1..5 in order
    Xt, yt = jr.load_cifar10(root, "test")
    assert Xt.shape == (2, 32, 32, 3) and yt.tolist() == CIFAR10_FIXTURE_LABELS["test"]
    # channel-major rows become (row, column, channel) images: spot values and the whole array
    assert X[0, 0, 0].tolist() == [0, 7, 14] and X[1, 2, 5].tolist() == [67, 74, 81]
    k, row, col, ch = np.meshgrid(np.arange(7), np.arange(32), np.arange(32), np.arange(3), indexing="ij")
    assert np.array_equal(np.concatenate([X, Xt]), cifar10_pixel(k, row, col, ch))
    # the committed fixture holds what the writer writes
    fresh = write_cifar10_fixture(tmp_path)
    for split in ("train", "test"):
        assert all(np.array_equal(a, b)
                   for a, b in zip(jr.load_cifar10(fresh, split), jr.load_cifar10(root, split)))


def test_cifar10_loader_errors(tmp_path):
    import pickle

    from attention_theory.julistiono import real_data as jr

    root = write_cifar10_fixture(tmp_path / "cifar-10-batches-py")
    with pytest.raises(ValueError, match="split"):
        jr.load_cifar10(root, "valid")
    with pytest.raises(TypeError, match="root"):
        jr.load_cifar10(None)
    with pytest.raises(FileNotFoundError, match="not a directory"):
        jr.load_cifar10(tmp_path / "absent")
    (root / "data_batch_3").unlink()
    with pytest.raises(FileNotFoundError, match="data_batch_3 missing"):
        jr.load_cifar10(root, "train")
    assert jr.load_cifar10(root, "test")[0].shape == (2, 32, 32, 3)  # the test split does not need it
    good = (root / "test_batch").read_bytes()
    (root / "test_batch").write_bytes(good[: len(good) // 2])  # truncated
    with pytest.raises(ValueError, match="damaged"):
        jr.load_cifar10(root, "test")
    (root / "test_batch").write_bytes(b"not a pickle at all")
    with pytest.raises(ValueError, match="damaged"):
        jr.load_cifar10(root, "test")

    def put(obj, name="test_batch"):
        (root / name).write_bytes(pickle.dumps(obj, protocol=4))

    rows = np.zeros((2, 3072), np.uint8)
    put({b"data": rows, b"fine_labels": [1, 2]})  # a CIFAR-100 pickle where CIFAR-10 is expected
    with pytest.raises(ValueError, match="no data / labels"):
        jr.load_cifar10(root, "test")
    put({b"data": rows[:, :3000], b"labels": [1, 2]})
    with pytest.raises(ValueError, match="3072"):
        jr.load_cifar10(root, "test")
    put({b"data": rows.astype(np.float64), b"labels": [1, 2]})
    with pytest.raises(ValueError, match="uint8"):
        jr.load_cifar10(root, "test")
    put({b"data": rows, b"labels": [1]})
    with pytest.raises(ValueError, match="2 integer labels"):
        jr.load_cifar10(root, "test")
    put({b"data": rows, b"labels": [1, 10]})
    with pytest.raises(ValueError, match=r"0\.\.9"):
        jr.load_cifar10(root, "test")
    put({b"data": rows, b"labels": [1, 2]})
    assert jr.load_cifar10(root, "test")[1].tolist() == [1, 2]
    put({b"label_names": [b"a"] * 9}, "batches.meta")
    with pytest.raises(ValueError, match="10 label_names"):
        jr.load_cifar10(root, "test")
    (root / "batches.meta").unlink()
    with pytest.raises(FileNotFoundError, match="batches.meta missing"):
        jr.load_cifar10(root, "test")


def test_a_cifar10_pickle_that_names_code_is_refused_unloaded(tmp_path):
    import pickle

    from attention_theory.julistiono import real_data as jr

    root = write_cifar10_fixture(tmp_path)
    marker = tmp_path / "ran"
    (root / "test_batch").write_bytes(pickle.dumps({b"data": _Marker(marker), b"labels": [0]}))
    with pytest.raises(ValueError, match="names io.open"):
        jr.load_cifar10(root, "test")
    assert not marker.exists()


class _Marker:
    """Unpickling this writes a marker file: what a planted pickle could do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_cifar_pickle_that_names_code_is_refused_unloaded(tmp_path):
    import pickle

    from attention_theory.julistiono import real_data as jr

    marker = tmp_path / "ran"
    (tmp_path / "train").write_bytes(pickle.dumps({b"data": _Marker(marker), b"fine_labels": [0]}))
    with pytest.raises(ValueError, match="names io.open"):
        jr.load_cifar100(tmp_path, "train")
    assert not marker.exists()


def test_standins_are_seeded_and_labelled():
    from attention_theory.julistiono import real_data as jr

    X1, y1 = jr.planted_sentiment(20, seed=3)
    X2, y2 = jr.planted_sentiment(20, seed=3)
    assert np.array_equal(X1, X2) and set(np.unique(y1)) <= {0, 1}
    im, lab = jr.synthetic_shapes(10, seed=1)
    assert im.shape == (10, 8, 8) and set(np.unique(lab)) <= {0, 1, 2, 3}
    with pytest.raises(ValueError):
        jr.planted_sentiment(0)


def test_e1_conclusions_and_what_changes():
    from attention_theory.julistiono import mirror_descent_training as ej

    runs = {p: {"curves": {q: {"final": [1e-3 if q == p else 1e-1, 3e-2 if q == p else 2e-1]}
                           for q in ("2.0", "3.0")},
                "max_prob_median": [0.5, 0.98, 0.995], "steps": [0, 50, 100]} for p in ("2.0", "3.0")}
    c = ej.e1_conclusions(runs)
    assert c["2.0"]["closest_q"] == "2.0" and c["2.0"]["own_closest"] == 1.0
    assert c["2.0"]["own_small"] == 0.5 and c["2.0"]["step_099"] == 100
    assert abs(c["3.0"]["saturation"] - 0.005) < 1e-12
    assert ej.e1_conclusions_changed(c, c) == []
    other = {p: dict(v, closest_q="3.0", step_099=None) for p, v in c.items()}
    assert ej.e1_conclusions_changed(c, other) == [
        "p=2: closest q", "p=2: softmax saturated (median top prob >= 0.99)",
        "p=3: softmax saturated (median top prob >= 0.99)"]
    with pytest.raises(ValueError, match="own SVM"):
        ej.e1_conclusions({"1.75": runs["2.0"]})
