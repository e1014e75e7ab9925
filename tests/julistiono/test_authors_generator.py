"""The E1 data sets drawn as the authors' public generator draws them.

``fixtures/authors_generator.json`` holds the values that the authors' ``data_generator`` (their
repository aaronk2002/AttentionMD at ff5fdf5, ``synthetic-data/tools/generate_data.py``) returned
with torch 2.13.0+cpu for three ``(n, T, d, seed)``; see its ``how_produced`` entry.
:func:`authors_synthetic_dataset` is an independent implementation and must give the same float32
numbers exactly.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_theory.julistiono import attention as ja
from attention_theory.julistiono import mirror_descent_training as je
from attention_theory.julistiono import model as mj

pytestmark = pytest.mark.usefixtures("float64_default")

FIXTURE = Path(__file__).parent / "fixtures" / "authors_generator.json"
#: the authors' names of the returned tensors -> the keys of ``synthetic_dataset``
KEYS = {"X": "X", "Z": "z", "Y": "Y", "v": "v"}


def _cases():
    return json.loads(FIXTURE.read_text())["cases"]


def test_fixture_says_how_it_was_produced():
    how = json.loads(FIXTURE.read_text())["how_produced"]
    assert how["commit"] == "ff5fdf5778852ce4740bdfa6c362e41aa6719d82"
    assert how["file"] == "synthetic-data/tools/generate_data.py"
    assert how["cases_n_T_d_seed"] == [[c["n"], c["T"], c["d"], c["seed"]] for c in _cases()]


@pytest.mark.parametrize("default", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"n{c['n']}-T{c['T']}-d{c['d']}-seed{c['seed']}")
def test_reproduces_the_authors_values_exactly(case, default):
    from attention_theory.foundations.tensors import default_dtype

    with default_dtype(default):        # the authors' code ran with float32; ours must not depend on it
        got = mj.authors_synthetic_dataset(case["seed"], case["n"], case["T"], case["d"])
    assert set(got) == set(mj.synthetic_dataset(1, 2, 2, 2))
    for theirs, ours in KEYS.items():
        assert got[ours].dtype == np.float64
        want = np.asarray(case[theirs], dtype=np.float32)
        assert got[ours].shape == want.shape
        np.testing.assert_array_equal(got[ours].astype(np.float32), want)
        # the float64 values are the float32 ones cast (what the authors' .double() gives)
        np.testing.assert_array_equal(got[ours], want.astype(np.float64))


def test_a_wrong_generator_does_not_reproduce_the_fixture():
    # negative control: the book's earlier draw, or the authors' draws in another order, differ
    case = _cases()[-1]
    old = mj.synthetic_dataset(case["seed"], case["n"], case["T"], case["d"])
    assert not np.array_equal(old["X"].astype(np.float32), np.asarray(case["X"], dtype=np.float32))
    g = torch.Generator()
    g.manual_seed(case["seed"])
    X = torch.randn(case["n"], case["T"], case["d"], generator=g, dtype=torch.float32)   # X drawn first
    X = X / torch.linalg.vector_norm(X, dim=-1, keepdim=True)
    assert not np.array_equal(X.numpy(), np.asarray(case["X"], dtype=np.float32))


def test_shapes_norms_labels_and_determinism():
    d = mj.authors_synthetic_dataset(5)
    assert d["X"].shape == (6, 8, 10) and d["z"].shape == (6, 10)
    assert d["Y"].shape == (6,) and d["v"].shape == (10,)
    np.testing.assert_allclose(np.linalg.norm(d["X"], axis=-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(d["z"], axis=-1), 1.0, atol=1e-6)
    assert abs(np.linalg.norm(d["v"]) - 1.0) < 1e-6
    assert set(np.unique(d["Y"])) <= {-1.0, 1.0}
    again = mj.authors_synthetic_dataset(5)
    assert all(np.array_equal(d[k], again[k]) for k in d)
    assert not np.array_equal(d["X"], mj.authors_synthetic_dataset(6)["X"])


def test_leaves_the_global_torch_generator_alone():
    torch.manual_seed(123)
    a = torch.randn(3)
    torch.manual_seed(123)
    mj.authors_synthetic_dataset(1)
    assert torch.equal(torch.randn(3), a)


@pytest.mark.parametrize("kwargs, exc", [
    (dict(seed=-1), ValueError), (dict(seed=1.5), TypeError), (dict(seed=2 ** 63), ValueError),
    (dict(seed=1, n=0), ValueError), (dict(seed=1, T=1), ValueError), (dict(seed=1, d=0), ValueError),
    (dict(seed=1, n=True), TypeError),
])
def test_bad_input(kwargs, exc):
    with pytest.raises(exc):
        mj.authors_synthetic_dataset(**kwargs)


def test_e1_data_variants():
    for s in (1, 2):
        for name, fn in (("authors", mj.authors_synthetic_dataset), ("book-v1", mj.synthetic_dataset)):
            got, want = ja.e1_dataset(s, name), fn(s)
            assert all(np.array_equal(got[k], want[k]) for k in want)
    assert ja.e1_dataset(1)["X"].tolist() == mj.authors_synthetic_dataset(1)["X"].tolist()
    with pytest.raises(ValueError, match="data"):
        ja.e1_dataset(1, "book-v2")
    assert je.E1_PARTS == {"e1": "authors", "e1-book-v1": "book-v1"}
    assert "e1-book-v1" not in je.EXPERIMENT.defaults()


def test_e1_run_uses_the_authors_data_by_default():
    a = ja.e1_run((1,), 2.0, True, 1, steps=2)
    b = ja.e1_run((1,), 2.0, True, 1, steps=2, data="authors")
    c = ja.e1_run((1,), 2.0, True, 1, steps=2, data="book-v1")
    assert np.array_equal(a["final"], b["final"])
    assert not np.array_equal(a["final"], c["final"])
    # the same W(0) for both data variants: the first recorded iterate is W(0) itself
    assert np.array_equal(a["norms"][0], c["norms"][0])
