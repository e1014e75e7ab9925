"""Sparse-majority sequences (Trauger & Tewari, Sec. 6).

A sample is a binary sequence ``S in {0, 1}^T``; its label is the majority vote of the
symbols at a fixed hidden index set ``I`` of odd size ``k`` (9 in the paper):
``y = 1{ sum_{i in I} S_i > k / 2 }``.  The model sees the sequence with a ``[CLS]``
symbol prepended at position 0, each symbol embedded as one of three orthonormal vectors
of ``R^d`` plus the sinusoidal positional encoding of Vaswani et al. (2017).

Sequences are stored as *tokens* (``0``, ``1`` and :data:`CLS` ``= 2``) of shape
``(n, T + 1)``; :func:`embed` turns tokens into the ``(n, T + 1, d)`` model input.  The
model in :mod:`attention_theory.trauger.sparse_majority.model` works on tokens directly (it
projects the 3 symbol vectors and the ``T + 1`` position vectors once instead of every
one of the ``n (T + 1)`` inputs), which is what makes the paper's sweep cheap.

Every draw is seeded: the same ``seed`` gives the same index set, the same training and
the same validation sequences.
"""

from __future__ import annotations

import dataclasses

import torch

from attention_theory.trauger._args import check_int_tensor
from attention_theory.validation import check_int, check_seed, torch_generator

__all__ = [
    "check_index_set_size",
    "CLS",
    "PAD",
    "token_embeddings",
    "positional_encoding",
    "sample_index_set",
    "majority_labels",
    "sample_sequences",
    "with_cls",
    "embed",
    "SparseMajority",
    "make_sparse_majority",
]

#: Token id of the ``[CLS]`` symbol (0 and 1 are the data symbols).
CLS = 2
#: Token id used for padding positions beyond a run's length in a padded batch.
PAD = 3


def _generator(seed: int) -> torch.Generator:
    seed = check_seed(seed)
    g = torch_generator(seed)
    return g


def token_embeddings(d: int, *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The three symbol embeddings (rows for 0, 1, ``[CLS]``): orthonormal, shape ``(3, d)``.

    They are the first three standard basis vectors of ``R^d`` (``d >= 3``): orthogonal as
    the paper asks, unit length, and fixed (not trained).  Row :data:`PAD` does not exist;
    padded positions are masked out by the model and never embedded.
    """
    d = check_int(d, "d", minimum=3)
    return torch.eye(3, d, dtype=dtype)


def positional_encoding(length: int, d: int, *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Sinusoidal positional encoding of Vaswani et al. (2017), shape ``(length, d)``.

    ``PE[t, 2i] = sin(t / 10000^(2i/d))`` and ``PE[t, 2i+1] = cos(t / 10000^(2i/d))`` for
    positions ``t = 0..length-1``; ``d`` must be even.
    """
    length = check_int(length, "length", minimum=1)
    d = check_int(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"d must be even for the sinusoidal encoding, got {d}")
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    freq = torch.pow(10000.0, -torch.arange(0, d, 2, dtype=torch.float64) / d)[None, :]
    pe = torch.empty(length, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe.to(dtype)


def check_index_set_size(T: int, k: int) -> tuple[int, int]:
    """Validate a sequence length ``T >= 2`` and an index-set size ``k``: odd (the majority has no
    ties) and smaller than ``T`` (the paper's ``|I| < T``); returns them as ints."""
    T = check_int(T, "T", minimum=2)
    k = check_int(k, "k", minimum=1)
    if k % 2 == 0:
        raise ValueError(f"k must be odd so that the majority has no ties, got {k}")
    if k >= T:
        raise ValueError(f"k must be smaller than T, got k={k}, T={T}")
    return T, k


def sample_index_set(T: int, k: int = 9, *, seed: int) -> torch.Tensor:
    """The hidden index set ``I``: ``k`` distinct positions of ``{0, ..., T-1}``, sorted.

    ``k`` must be odd (no ties) and smaller than ``T`` (the paper's ``|I| < T``).
    """
    T, k = check_index_set_size(T, k)
    perm = torch.randperm(T, generator=_generator(seed))
    return torch.sort(perm[:k]).values


def _check_bits(S: object, name: str) -> torch.Tensor:
    """A non-empty 2-d tensor of binary symbols (integer, bool or floating dtype, values 0 and 1)."""
    if not isinstance(S, torch.Tensor):
        raise TypeError(f"{name} must be a 2-d tensor of shape (n, T), got {type(S).__name__}")
    if S.is_complex():
        raise TypeError(f"{name} must be real, got dtype {S.dtype}")
    if S.ndim != 2:
        raise ValueError(f"{name} must be a 2-d tensor of shape (n, T), got shape {tuple(S.shape)}")
    if S.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(S.shape)})")
    if not bool(((S == 0) | (S == 1)).all()):
        raise ValueError(f"{name} must hold the symbols 0 and 1 only")
    return S


def majority_labels(S: torch.Tensor, index_set: torch.Tensor) -> torch.Tensor:
    """Labels ``y = 1{ sum_{i in I} S_i > |I| / 2 }`` of sequences ``S`` of shape ``(n, T)``."""
    _check_bits(S, "S")
    check_int_tensor(index_set, "index_set", ndim=1)
    if int(index_set.min()) < 0 or int(index_set.max()) >= S.shape[1]:
        raise ValueError(f"index_set must lie in [0, T) with T={S.shape[1]}")
    votes = S[:, index_set].to(torch.int64).sum(dim=1)
    return (2 * votes > index_set.numel()).to(torch.int64)


def sample_sequences(n: int, T: int, *, seed: int) -> torch.Tensor:
    """``n`` i.i.d. uniform binary sequences of length ``T``, shape ``(n, T)``, dtype int64."""
    n = check_int(n, "n", minimum=1)
    T = check_int(T, "T", minimum=1)
    return torch.randint(0, 2, (n, T), generator=_generator(seed))


def with_cls(S: torch.Tensor) -> torch.Tensor:
    """Prepend the ``[CLS]`` token: ``(n, T)`` -> tokens ``(n, T + 1)`` with column 0 = :data:`CLS`."""
    _check_bits(S, "S")
    if S.dtype == torch.bool:  # True/False cannot hold the symbol 2: [CLS] would become a 1
        raise TypeError("S must have an integer or floating dtype to take the [CLS] symbol 2, got torch.bool "
                        "(convert with S.long())")
    cls = torch.full((S.shape[0], 1), CLS, dtype=S.dtype)
    return torch.cat([cls, S], dim=1)


def embed(tokens: torch.Tensor, d: int, *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Model input ``X[n, t] = E[tokens[n, t]] + PE[t]``, shape ``(n, L, d)`` for tokens ``(n, L)``."""
    check_int_tensor(tokens, "tokens", ndim=2)
    if int(tokens.min()) < 0 or int(tokens.max()) > CLS:
        raise ValueError("tokens must take values in {0, 1, 2 (CLS)}")
    E = token_embeddings(d, dtype=dtype)
    return E[tokens] + positional_encoding(tokens.shape[1], d, dtype=dtype)[None]


@dataclasses.dataclass(frozen=True)
class SparseMajority:
    """One run's data set: tokens with ``[CLS]`` at position 0, labels and the index set.

    ``train_tokens``: ``(n_train, T + 1)``; ``val_tokens``: ``(n_val, T + 1)``; labels int64.
    """

    T: int
    seed: int
    index_set: torch.Tensor
    train_tokens: torch.Tensor
    train_labels: torch.Tensor
    val_tokens: torch.Tensor
    val_labels: torch.Tensor


def make_sparse_majority(T: int, *, seed: int, n_train: int = 300, n_val: int = 10_000,
                         k: int = 9) -> SparseMajority:
    """A fresh sparse-majority data set for one run (index set, training and validation data).

    The index set, the training sequences and the validation sequences use three
    independent streams derived from ``seed``, so the same ``seed`` always gives the same
    data and different seeds give independent data sets (the paper's "new data set each
    time").
    """
    T = check_int(T, "T", minimum=2)
    seed = check_seed(seed)
    n_train = check_int(n_train, "n_train")
    n_val = check_int(n_val, "n_val")
    base = 1_000_003 * seed + 7919 * T
    index_set = sample_index_set(T, k, seed=base)
    S_tr = sample_sequences(n_train, T, seed=base + 1)
    S_va = sample_sequences(n_val, T, seed=base + 2)
    return SparseMajority(T=T, seed=seed, index_set=index_set,
                          train_tokens=with_cls(S_tr), train_labels=majority_labels(S_tr, index_set),
                          val_tokens=with_cls(S_va), val_labels=majority_labels(S_va, index_set))

