"""Loaders for the real data sets of Julistiono et al.'s experiments (IMDb, CIFAR-10) and the
offline stand-ins used when they are not available.

The real files cannot be downloaded on the machines that build this book; these loaders read
the standard on-disk layouts when a copy is present and are tested on tiny fixtures:

* IMDb (``aclImdb``): ``<root>/{train,test}/{pos,neg}/<id>_<rating>.txt``; labels ``pos -> 1``,
  ``neg -> 0``.  Tokenisation with a BERT-style ``vocab.txt`` (one token per line, line number =
  id) by lower-casing, splitting on non-alphanumerics and greedy longest-match word pieces.
* CIFAR-10 (python version, the data set of the authors' ViT experiment since their commit
  ``fa92e99``): ``<root>/data_batch_1`` ... ``data_batch_5`` (training) and ``<root>/test_batch``
  pickles with ``b"data"`` (``(N, 3072)`` uint8, channel-major) and ``b"labels"``, and
  ``<root>/batches.meta`` with the ten ``b"label_names"`` (:func:`load_cifar10`).
* CIFAR-100 (python version; the authors' ViT script used it for three days, commits ``4caf288``
  to ``fa92e99``, January 2025): ``<root>/{train,test}`` pickles with ``b"data"`` and
  ``b"fine_labels"`` (:func:`load_cifar100`).

The stand-ins (:func:`planted_sentiment`, :func:`synthetic_shapes`) are generated, labelled as
such wherever they are used, and exercise the same model and optimiser code.
"""

from __future__ import annotations

import os
import pickle
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from attention_theory.validation import check_int, check_positive, check_seed

__all__ = ["load_vocab", "tokenize", "load_imdb", "load_cifar10", "load_cifar100", "planted_sentiment",
           "synthetic_shapes"]


def _dir(root: str | os.PathLike, name: str) -> Path:
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path, got {type(root).__name__}")
    p = Path(root)
    if not p.is_dir():
        raise FileNotFoundError(f"{name} {p} is not a directory (the data set is not available offline)")
    return p


def load_vocab(path: str | os.PathLike) -> dict[str, int]:
    """A BERT-style vocabulary: token -> line number."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"vocabulary file {p} not found")
    toks = p.read_text(encoding="utf-8").splitlines()
    if "[UNK]" not in toks:
        raise ValueError("vocabulary must contain [UNK]")
    return {t: i for i, t in enumerate(toks)}


def tokenize(text: str, vocab: dict[str, int], max_len: int = 512) -> np.ndarray:
    """Ids of ``[CLS] pieces... [SEP]`` (greedy longest-match word pieces, ``##`` continuation),
    padded with ``[PAD]`` (or 0) to ``max_len``; shape ``(max_len,)`` int64."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a mapping token -> id, got {type(vocab).__name__}")
    if "[UNK]" not in vocab:
        raise ValueError("vocab must contain [UNK]")
    max_len = check_int(max_len, "max_len", minimum=2)
    unk = vocab["[UNK]"]
    ids = [vocab.get("[CLS]", unk)]
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    pieces.append(vocab[piece])
                    break
                end -= 1
            if end == start:
                pieces = [unk]
                break
            start = end
        ids.extend(pieces)
    ids = ids[: max_len - 1] + [vocab.get("[SEP]", unk)]
    pad = vocab.get("[PAD]", 0)
    return np.asarray(ids + [pad] * (max_len - len(ids)), dtype=np.int64)


def load_imdb(root: str | os.PathLike, vocab_path: str | os.PathLike, split: str = "train",
              max_len: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """``(ids (N, max_len), labels (N,))`` from an ``aclImdb`` folder, files in sorted order."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    base = _dir(root, "root") / split
    vocab = load_vocab(vocab_path)
    ids, labels = [], []
    for lab, name in ((1, "pos"), (0, "neg")):
        folder = base / name
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} missing: expected aclImdb/{split}/{{pos,neg}}")
        for f in sorted(folder.glob("*.txt")):
            ids.append(tokenize(f.read_text(encoding="utf-8"), vocab, max_len))
            labels.append(lab)
    if not ids:
        raise ValueError(f"no reviews found under {base}")
    return np.stack(ids), np.asarray(labels, dtype=np.int64)


#: What the CIFAR pickles may name besides builtins' plain containers: numpy's array
#: reconstruction (the images are one uint8 array).  Anything else is refused unloaded.
_PICKLE_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
                   ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
                   ("numpy._core.multiarray", "scalar")}


class _PlainDataUnpickler(pickle.Unpickler):
    """Unpickles plain data (dicts, lists, strings, numbers, numpy arrays) and refuses any other
    global a pickle names, so a planted file cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PICKLE_ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"it names {module}.{name}, which is not plain data")


def _read_pickle(f: Path, layout: str) -> Any:
    """The plain-data content of the pickle ``f`` (``layout`` names the expected folder layout in
    the error messages)."""
    if not f.is_file():
        raise FileNotFoundError(f"{f} missing: expected {layout}")
    with open(f, "rb") as fh:
        try:
            return _PlainDataUnpickler(fh, encoding="bytes").load()
        except pickle.UnpicklingError as exc:
            if "not plain data" in str(exc):
                raise ValueError(f"{f}: not a CIFAR pickle of plain data ({exc}); refused without "
                                 "loading it (a pickle can run code)") from None
            raise ValueError(f"{f}: damaged pickle ({exc})") from None
        except (EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ValueError(f"{f}: damaged pickle ({type(exc).__name__}: {exc})") from None


def _cifar_batch(f: Path, layout: str, label_key: bytes, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(images (N, 32, 32, 3) uint8, labels (N,) int64)`` of one CIFAR pickle, validated."""
    obj = _read_pickle(f, layout)
    if not isinstance(obj, dict) or b"data" not in obj or label_key not in obj:
        raise ValueError(f"{f}: not a CIFAR pickle (no data / {label_key.decode()} entries)")
    data = np.asarray(obj[b"data"])
    if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
        raise ValueError(f"{f}: CIFAR data must be uint8 of shape (N, 3072), got {data.dtype} {data.shape}")
    labels = np.asarray(obj[label_key])
    if labels.shape != (data.shape[0],) or labels.dtype.kind not in "iu":
        raise ValueError(f"{f}: expected {data.shape[0]} integer labels, got {labels.dtype} {labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"{f}: labels must lie in 0..{n_classes - 1}, got {labels.min()}..{labels.max()}")
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), labels.astype(np.int64)


#: the training and test pickles of the python-version CIFAR-10
_CIFAR10_FILES = {"train": tuple(f"data_batch_{i}" for i in range(1, 6)), "test": ("test_batch",)}


def load_cifar10(root: str | os.PathLike, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """``(images (N, 32, 32, 3) uint8, labels (N,) int64 in 0..9)`` from the python-version CIFAR-10
    folder ``root`` (``cifar-10-batches-py``): ``split="train"`` concatenates ``data_batch_1`` ...
    ``data_batch_5`` in that order, ``"test"`` reads ``test_batch``.  ``batches.meta`` must name the
    ten classes (``b"label_names"``).  A missing file raises ``FileNotFoundError``, a damaged or
    malformed one ``ValueError``; a pickle that names anything but plain data is refused unloaded."""
    if split not in _CIFAR10_FILES:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    base = _dir(root, "root")
    layout = "cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta}"
    meta = _read_pickle(base / "batches.meta", layout)
    names = meta.get(b"label_names") if isinstance(meta, dict) else None
    if not isinstance(names, list) or len(names) != 10:
        raise ValueError(f"{base / 'batches.meta'}: expected a list of 10 label_names, got {names!r:.80}")
    parts = [_cifar_batch(base / name, layout, b"labels", 10) for name in _CIFAR10_FILES[split]]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def load_cifar100(root: str | os.PathLike, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """``(images (N, 32, 32, 3) uint8, fine labels (N,))`` from the python-version pickles (the data
    set of an earlier version of the authors' ViT script; the experiment uses :func:`load_cifar10`)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    return _cifar_batch(_dir(root, "root") / split, f"cifar-100-python/{split}", b"fine_labels", 100)


def planted_sentiment(n: int, *, seed: int = 0, vocab: int = 200, length: int = 32,
                      n_signal: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """IMDb stand-in (synthetic): sequences of random "noise" tokens; each sequence carries one or two
    *sentiment* tokens drawn from ``n_signal`` positive or ``n_signal`` negative ids (ids 1 ...
    2 n_signal) at random positions; token 0 is a ``[CLS]`` slot at position 0.  Label 1 = positive."""
    n = check_int(n, "n")
    check_seed(seed)
    n_signal = check_int(n_signal, "n_signal")
    length = check_int(length, "length", minimum=2)
    vocab = check_int(vocab, "vocab", minimum=2 * n_signal + 2)
    rng = np.random.default_rng(seed)
    X = rng.integers(2 * n_signal + 1, vocab, size=(n, length))
    X[:, 0] = 0
    y = rng.integers(0, 2, n)
    for i in range(n):
        for _ in range(int(rng.integers(1, 3))):
            pos = int(rng.integers(1, length))
            X[i, pos] = 1 + int(rng.integers(n_signal)) + (0 if y[i] == 1 else n_signal)
    return X, y


def synthetic_shapes(n: int, *, seed: int = 0, size: int = 8,
                     noise: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """CIFAR-10 stand-in (synthetic): ``size x size`` grey images of one of four shapes (horizontal bar,
    vertical bar, diagonal, square) at a random position plus Gaussian noise; labels 0-3."""
    n = check_int(n, "n")
    check_seed(seed)
    size = check_int(size, "size", minimum=4)
    check_positive(noise, "noise", allow_zero=True)
    rng = np.random.default_rng(seed)
    imgs = noise * rng.standard_normal((n, size, size))
    y = rng.integers(0, 4, n)
    for i in range(n):
        r, c = (int(a) for a in rng.integers(0, size - 3, 2))
        if y[i] == 0:
            imgs[i, r + 1, c:c + 4] += 1
        elif y[i] == 1:
            imgs[i, r:r + 4, c + 1] += 1
        elif y[i] == 2:
            imgs[i, np.arange(r, r + 4), np.arange(c, c + 4)] += 1
        else:
            imgs[i, r:r + 3, c:c + 3] += 1
    return imgs, y
