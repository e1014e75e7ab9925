"""The training protocol of the sparse-majority experiment (Trauger & Tewari, Sec. 6), as data.

The paper's text leaves most of the protocol open; the authors' code
(``traugerjacob/Transformer-Gen-Bounds``, ``run_experiment.py``, :data:`AUTHORS_CODE`) fixes it,
and where the two differ the code is the reference.  :class:`ProtocolConfig` holds every setting
of a sweep; :data:`PROTOCOLS` names the two the book can run:

* ``"authors"``: the authors' code, with the departures listed in :func:`protocol_table` (explicit
  seeds; validation on a schedule instead of after every epoch; the gap's sign);
* ``"book-v1"``: the protocol of the book's first edition (Adam, ``key_dim = d / heads``, no
  ``ReLU``/``Dense`` block, softmax cross-entropy, ``[CLS]`` first, basis-vector embeddings),
  run by :func:`~.training.train_batched` through :meth:`ProtocolConfig.to_sweep_config`.

:func:`protocol_table` is the table the chapter prints: one row per setting with the paper's
words, what the authors' code does (with its line numbers), what this book does, what the first
edition did, and the reason of every departure.  :func:`learning_rates` reproduces the authors'
learning-rate schedule to the bit (Keras keeps the rate in float32).
Used by ``book/trauger/sparse-majority.md`` and :mod:`~.structured`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np

from attention_theory.trauger.sparse_majority.authors_model import ModelShape
from attention_theory.trauger.sparse_majority.training import SweepConfig
from attention_theory.validation import check_int, check_seeds

__all__ = ["AUTHORS_CODE", "PAPER_TS", "ProtocolConfig", "PROTOCOLS", "protocol",
           "learning_rates", "protocol_table", "format_table"]

#: The authors' code: repository, file and the commit whose line numbers the table cites.
AUTHORS_CODE = {"repository": "traugerjacob/Transformer-Gen-Bounds", "file": "run_experiment.py",
                "commit": "30e70de68a0fa09557845d6ec4cac147fccad32a"}

#: The sequence lengths of the paper: 20, 40, ..., 200.
PAPER_TS = tuple(range(20, 201, 20))

_CHOICES = {
    "embeddings": ("random-orthogonal-l1", "basis"),
    "cls_position": ("last", "first"),
    "positional": ("authors", "vaswani"),
    "init": ("keras", "glorot"),
    "loss": ("bce-two-logits", "softmax-ce"),
    "optimizer": ("sgd-momentum-keras", "adam"),
    "early_stopping": ("train-accuracy-1", "none", "val-patience"),
    "selection": ("val-loss",),
    "dtype": ("float32", "float64"),
}


@dataclasses.dataclass(frozen=True)
class ProtocolConfig:
    """Every setting of a sparse-majority sweep (Sec. 6); the defaults are the authors' code.

    Data: ``Ts``, ``seeds`` (one run per pair), ``n_train``, ``n_val``, ``k`` (``|I|``), ``d``,
    ``embeddings``, ``cls_position``, ``positional``.  Model: ``heads``, ``key_dim`` and
    ``value_dim`` per head, ``dense_units`` (``ReLU`` + ``Dense``; ``None`` for neither), ``init``.
    Training: ``loss``, ``optimizer`` with ``lr``, ``momentum``, the per-epoch decay ``lr_decay``
    floored at ``lr_floor`` (:func:`learning_rates`), ``adam_betas``/``adam_eps`` (``"adam"``),
    ``batch_size``, ``max_epochs``.  Stopping and selection: ``early_stopping``
    (``"train-accuracy-1"``: stop after the first epoch whose running training accuracy is 1;
    ``"val-patience"``: no better validation loss for ``patience`` epochs; ``"none"``),
    ``selection`` (lowest validation loss).  Evaluation: after every epoch ``<= eval_dense_until``
    and every ``eval_every`` epochs after that (:meth:`evaluates_at`).  Bookkeeping:
    ``checkpoint_every`` (epochs), ``dtype``, ``val_chunk`` (validation samples per forward).
    """

    name: str = "authors"
    Ts: tuple[int, ...] = PAPER_TS
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    n_train: int = 300
    n_val: int = 10_000
    k: int = 9
    d: int = 64
    embeddings: str = "random-orthogonal-l1"
    cls_position: str = "last"
    positional: str = "authors"
    heads: int = 2
    key_dim: int = 64
    value_dim: int = 64
    dense_units: int | None = 64
    init: str = "keras"
    loss: str = "bce-two-logits"
    optimizer: str = "sgd-momentum-keras"
    lr: float = 0.01
    momentum: float = 0.9
    lr_decay: float = 0.999
    lr_floor: float = 0.001
    adam_betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-7
    batch_size: int = 128
    max_epochs: int = 200_000
    early_stopping: str = "train-accuracy-1"
    patience: int | None = None
    selection: str = "val-loss"
    eval_every: int = 1
    eval_dense_until: int = 0
    checkpoint_every: int = 1_000
    dtype: str = "float32"
    val_chunk: int = 1_000

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        for field in ("Ts", "seeds"):
            value = getattr(self, field)
            if not isinstance(value, tuple) or not value:
                raise TypeError(f"{field} must be a non-empty tuple of integers, got {value!r}")
            if len(set(value)) != len(value):
                raise ValueError(f"{field} must not repeat a value, got {value!r}")
        k = check_int(self.k, "k", minimum=1)
        if k % 2 == 0:
            raise ValueError(f"k must be odd so that the majority has no ties, got {k}")
        for T in self.Ts:
            check_int(T, "Ts", minimum=k + 1)
        check_seeds(self.seeds, "seeds")
        for field in ("n_train", "n_val", "d", "heads", "key_dim", "value_dim", "batch_size",
                      "max_epochs", "eval_every", "checkpoint_every", "val_chunk"):
            check_int(getattr(self, field), field, minimum=1)
        check_int(self.eval_dense_until, "eval_dense_until", minimum=0)
        if self.dense_units is not None:
            check_int(self.dense_units, "dense_units", minimum=1)
        if self.patience is not None:
            check_int(self.patience, "patience", minimum=1)
        if self.early_stopping == "val-patience" and self.patience is None:
            raise ValueError("early_stopping='val-patience' needs patience")
        for field, allowed in _CHOICES.items():
            if getattr(self, field) not in allowed:
                raise ValueError(f"{field} must be one of {allowed}, got {getattr(self, field)!r}")
        for field, lo, hi in (("lr", 0.0, math.inf), ("lr_decay", 0.0, 1.0)):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo < v <= hi):
                raise ValueError(f"{field} must be a number in ({lo}, {hi}], got {v!r}")
        for field in ("momentum", "lr_floor"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v < math.inf):
                raise ValueError(f"{field} must be a finite number >= 0, got {v!r}")
        if self.momentum >= 1:
            raise ValueError(f"momentum must be < 1, got {self.momentum!r}")

    # -- derived -----------------------------------------------------------------------------
    @property
    def runs(self) -> list[tuple[int, int]]:
        """The ``(T, seed)`` pairs in the order of the run axis."""
        return [(T, s) for T in self.Ts for s in self.seeds]

    @property
    def model_shape(self) -> ModelShape:
        """The model's sizes (:class:`~.authors_model.ModelShape`)."""
        return ModelShape(d=self.d, heads=self.heads, key_dim=self.key_dim,
                          value_dim=self.value_dim, dense_units=self.dense_units)

    @property
    def steps_per_epoch(self) -> int:
        """Minibatches per epoch, ``ceil(n_train / batch_size)`` (3 for 300 / 128: 128, 128, 44)."""
        return -(-self.n_train // self.batch_size)

    def evaluates_at(self, epoch: int) -> bool:
        """Whether the validation set is evaluated after ``epoch`` (1-based count of finished
        epochs): every epoch up to ``eval_dense_until``, then every ``eval_every``, and the last."""
        return epoch <= self.eval_dense_until or epoch % self.eval_every == 0 or epoch == self.max_epochs

    def n_evaluations(self, epochs: int | None = None) -> int:
        """How many scheduled evaluations ``epochs`` (default ``max_epochs``) epochs contain."""
        E = self.max_epochs if epochs is None else check_int(epochs, "epochs", minimum=0)
        dense = min(E, self.eval_dense_until)
        sparse = E // self.eval_every - dense // self.eval_every
        return dense + sparse + (1 if E == self.max_epochs and E % self.eval_every and E > dense else 0)

    def to_dict(self) -> dict[str, Any]:
        """All settings as plain JSON-able values (recorded in provenance and checkpoints)."""
        out = dataclasses.asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out

    def to_sweep_config(self) -> SweepConfig:
        """The :class:`~.training.SweepConfig` of a ``"book-v1"``-style protocol (the trainer of the
        first edition, :func:`~.training.train_batched`, runs it); ``ValueError`` for a protocol
        that trainer cannot run."""
        fixed = {"embeddings": "basis", "cls_position": "first", "positional": "vaswani",
                 "init": "glorot", "loss": "softmax-ce", "optimizer": "adam", "dense_units": None,
                 "selection": "val-loss", "lr_decay": 1.0}
        wrong = {k: getattr(self, k) for k, v in fixed.items() if getattr(self, k) != v}
        if self.key_dim * self.heads != self.d or self.value_dim != self.key_dim:
            wrong["key_dim"] = self.key_dim
        if self.early_stopping == "train-accuracy-1":
            wrong["early_stopping"] = self.early_stopping
        if wrong:
            raise ValueError(f"train_batched cannot run this protocol; it differs from book-v1 in {wrong}")
        if self.checkpoint_every % self.eval_every or self.eval_dense_until:
            raise ValueError("train_batched evaluates every eval_every epochs only "
                             "(eval_dense_until must be 0, checkpoint_every a multiple of eval_every)")
        patience = self.patience if self.early_stopping == "val-patience" else None
        return SweepConfig(Ts=self.Ts, seeds=self.seeds, n_train=self.n_train, n_val=self.n_val,
                           k=self.k, d=self.d, heads=self.heads, batch_size=self.batch_size,
                           max_epochs=self.max_epochs, lr=self.lr, betas=tuple(self.adam_betas),
                           eps=self.adam_eps, eval_every=self.eval_every, patience=patience,
                           checkpoint_every=self.checkpoint_every, dtype=self.dtype,
                           val_chunk=self.val_chunk)


_AUTHORS = ProtocolConfig()
#: The two protocols the book can run, at full scale (see the module docstring).
PROTOCOLS: dict[str, ProtocolConfig] = {
    # the authors' code; the book validates after each of the first 500 epochs and every 50
    # epochs after that (the authors: after every epoch), see protocol_table()
    "authors": dataclasses.replace(_AUTHORS, eval_dense_until=500, eval_every=50),
    "book-v1": ProtocolConfig(
        name="book-v1", embeddings="basis", cls_position="first", positional="vaswani",
        key_dim=32, value_dim=32, dense_units=None, init="glorot", loss="softmax-ce",
        optimizer="adam", lr=1e-3, lr_decay=1.0, lr_floor=0.0, early_stopping="none",
        eval_every=500, checkpoint_every=5_000, val_chunk=500),
}

_SMOKE = {
    "authors": {"Ts": (20, 60), "seeds": (0,), "n_val": 500, "max_epochs": 40, "eval_dense_until": 10,
                "eval_every": 5, "checkpoint_every": 10, "val_chunk": 500},
    "book-v1": {"Ts": (20, 100), "seeds": (0,), "n_val": 2000, "max_epochs": 300,
                "eval_every": 10, "checkpoint_every": 100},
}


def protocol(name: str = "authors", scale: str = "full", **overrides: Any) -> ProtocolConfig:
    """The protocol ``name`` (a key of :data:`PROTOCOLS`) at ``scale`` (``"full"``: the paper's
    sizes; ``"smoke"``: a few runs and epochs, seconds on a CPU), with ``overrides`` applied."""
    if name not in PROTOCOLS:
        raise ValueError(f"name must be one of {tuple(PROTOCOLS)}, got {name!r}")
    if scale not in ("smoke", "full"):
        raise ValueError(f"scale must be 'smoke' or 'full', got {scale!r}")
    base = PROTOCOLS[name]
    if scale == "smoke":
        base = dataclasses.replace(base, **_SMOKE[name])
    return dataclasses.replace(base, **overrides) if overrides else base


@functools.lru_cache(maxsize=16)
def _rates_until_floor(lr: float, decay: float, floor: float) -> tuple[float, ...]:
    out, cur = [], float(np.float32(lr))
    for _ in range(1_000_000):
        cur = float(np.float32(max(floor, cur * decay)))
        out.append(cur)
        if cur == float(np.float32(floor)) or decay == 1.0:
            break
    return tuple(out)


def learning_rates(config: ProtocolConfig, epochs: int, *, start: int = 0) -> list[float]:
    """The learning rate of epochs ``start, ..., start + epochs - 1`` (0-based), as Keras runs it.

    Lines 139-141 and 167: ``LearningRateScheduler`` calls ``scheduler(epoch, lr)`` at the *start*
    of every epoch, so epoch ``e`` runs at ``lr_e = max(floor, decay * lr_{e-1})`` with
    ``lr_{-1} = 0.01``: the first epoch already runs at ``0.00999``, and the floor ``0.001`` is
    reached at (0-based) epoch 2,301, the 2,302nd epoch.  Keras stores the rate in a float32
    variable, so every ``lr_e`` is rounded to float32 before the next multiplication; so is this sequence.
    """
    if not isinstance(config, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(config).__name__}")
    epochs = check_int(epochs, "epochs", minimum=0)
    start = check_int(start, "start", minimum=0)
    if config.optimizer == "adam" and config.lr_decay == 1.0:
        return [float(config.lr)] * epochs
    table = _rates_until_floor(float(config.lr), float(config.lr_decay), float(config.lr_floor))
    last = table[-1]
    return [table[e] if e < len(table) else last for e in range(start, start + epochs)]


def _eval_text(c: ProtocolConfig) -> str:
    if c.eval_every == 1 or c.eval_dense_until >= c.max_epochs:
        return "after every epoch"
    dense = f"after each of the first {c.eval_dense_until:,} epochs, then " if c.eval_dense_until else ""
    return (f"{dense}every {c.eval_every:,} epochs, and after a run's stopping epoch "
            f"({c.n_evaluations():,} scheduled evaluations in {c.max_epochs:,} epochs)")


def protocol_table(config: ProtocolConfig | None = None) -> list[dict[str, str]]:
    """The protocol table of the chapter: one row per setting.

    Keys of a row: ``setting``; ``paper`` (what Sec. 6 says, ``"silent"`` when nothing);
    ``authors_code`` (what ``run_experiment.py`` does, with line numbers, ``l.`` = line of
    :data:`AUTHORS_CODE`); ``book`` (what this book runs, from ``config``, default
    ``PROTOCOLS["authors"]``); ``book_v1`` (the first edition); ``departure`` (empty when the book
    follows the authors' code, else the reason it does not).
    """
    c = PROTOCOLS["authors"] if config is None else config
    if not isinstance(c, ProtocolConfig):
        raise TypeError(f"config must be a ProtocolConfig, got {type(c).__name__}")
    a = _AUTHORS
    lrs = learning_rates(a, 3_000)
    floor_epoch = next(i for i, v in enumerate(lrs) if v == lrs[-1])
    rows = [
        ("sequence lengths T", "20, 40, ..., 200",
         "argv[1] (l. 145), one process per (T, run)", f"{list(c.Ts)}", f"{list(PAPER_TS)}", ""),
        ("runs per T", "5, a new data set each time", "argv[3] is the run id (l. 146); every "
         "process draws new data (l. 153-154)", f"seeds {list(c.seeds)}", "seeds 0-4", ""),
        ("random seeds", "silent", "none: NumPy's and TensorFlow's global generators, unseeded "
         "(l. 24-28, 43, 153)", "per run (T, seed) five independent seeded streams (index set, "
         "sequences, embeddings, initialization, shuffling)", "seeded", "the runs must be "
         "reproducible; the seeds are published with the results"),
        ("index set I", "|I| = 9 < T", "np.random.choice(T, 9, replace=False) (l. 148, 153)",
         f"uniform {c.k}-subset of the T positions, new per run", "uniform 9-subset, new per run", ""),
        ("sequences", "binary, length T", "i.i.d. uniform bits, np.random.choice([0, 1]) (l. 43)",
         "i.i.d. uniform bits", "i.i.d. uniform bits", ""),
        ("label", "1{sum_{i in I} S_i > |I|/2}", "1*(sum >= s/2) (l. 37): the same for odd s",
         "1{sum_{i in I} S_i > k/2}", "same", ""),
        ("training and validation data", "300 training samples, validation set of 10000",
         "one draw of 10,300 sequences: the first 300 train, the other 10,000 validate "
         "(l. 150-158); they are also the reported 'test' set (l. 183)",
         f"one draw of {c.n_train + c.n_val:,}: first {c.n_train} train, {c.n_val:,} validate",
         "300 training and 10,000 validation sequences, separate draws", ""),
        ("symbol embeddings", "0 and 1 embedded as orthogonal vectors of R^d",
         "0, 1 and [CLS] ~ U(-1, 1)^64, Gram-Schmidt in that order, each scaled to unit l1 norm; "
         "new per run (l. 23-34, 46)", "the same construction, seeded per run" if
         c.embeddings == "random-orthogonal-l1" else c.embeddings,
         "the first three standard basis vectors (unit l2 norm), fixed", ""),
        ("[CLS] token", "the [CLS] output is read out", "[CLS] is the last position T "
         "(l. 57); the read-out takes position -1 (l. 103)",
         "[CLS] at the last position T, read there" if c.cls_position == "last" else "[CLS] first",
         "[CLS] first (position 0)", ""),
        ("positional encoding", "Vaswani et al. (2017)", "PE[j, i] = sin(j / 10000^(i/d)) for even "
         "i, cos(j / 10000^(i/d)) for odd i (l. 77-90): an odd column uses exponent i/d, not "
         "(i-1)/d; added at every position including [CLS] (l. 58)",
         "the authors' formula" if c.positional == "authors" else "Vaswani et al.",
         "Vaswani et al. (paired frequencies)", ""),
        ("attention layer", "TensorFlow MultiHeadAttention, embedding dimension 64, 2 heads",
         "MultiHeadAttention(num_heads=2, key_dim=64) (l. 108): key_dim and value_dim 64 per head, "
         "biases, logits scaled by 1/sqrt(64), output projection to 64; self-attention over all "
         "T + 1 positions (l. 113)", f"{c.heads} heads, key_dim {c.key_dim}, value_dim "
         f"{c.value_dim}, biases; only the [CLS] query is formed (the only one read)",
         "2 heads of width 32 (64 / 2)", ""),
        ("after the attention layer", "a layer that extracts [CLS] and maps it linearly to R^2",
         "ReLU, then Dense(64) at every position (l. 109-115), then the read-out of the last "
         "position to 2 logits (l. 93-103)", "ReLU, Dense(%s), read-out" % c.dense_units
         if c.dense_units else "read-out only", "read-out only", ""),
        ("Keras version", "silent", "tf.keras of whatever TensorFlow is installed (not pinned); "
         "the rows below follow Keras 2 (TensorFlow <= 2.15, or tf_keras), the Keras of the paper's "
         "time; under Keras 3 (TensorFlow >= 2.16's default) the same script initializes "
         "differently and sums fewer norms (the initialization and weight-norm rows; measured with "
         "Keras 3.15.1)", "Keras 2's defaults and naming", "-", ""),
        ("initialization", "silent", "Keras 2 defaults: glorot_uniform kernels with Keras' fans for "
         "rank-3 kernels (query/key/value (64, 2, 64): U(-0.0377, 0.0377); output (2, 64, 64): "
         "U(-0.153, 0.153)), Dense U(-0.217, 0.217), read-out random_normal N(0, 0.05^2) (l. 97), "
         "zero biases; l1 norm of all weights at initialization about 1,540. Keras 3 takes the fans "
         "of MultiHeadAttention's four kernels from the einsum's input and output sizes (64 and "
         "128): U(-0.177, 0.177) for all four, l1 at initialization about 3,340 (2.2x)",
         "the same distributions (Keras 2)" if c.init == "keras" else c.init,
         "Glorot-uniform on every (out, in) matrix, zero biases", ""),
        ("loss", "cross-entropy", "BinaryCrossentropy(from_logits=True) of the 2 logits against "
         "one-hot labels (l. 164, 179): per sample the mean over the 2 logits of the sigmoid "
         "cross-entropy", "the same" if c.loss == "bce-two-logits" else c.loss,
         "softmax cross-entropy", ""),
        ("optimizer", "silent", "SGD(learning_rate=0.01, momentum=0.9) (l. 165): v <- 0.9 v - lr g, "
         "w <- w + v (Keras' form; torch.optim.SGD differs once lr changes)",
         "the same update" if c.optimizer == "sgd-momentum-keras" else c.optimizer,
         "Adam, lr 1e-3, betas (0.9, 0.999), eps 1e-7", ""),
        ("learning-rate schedule", "silent", "LearningRateScheduler (l. 139-141, 167): at the start "
         "of every epoch lr <- max(0.001, 0.999 lr); the first epoch runs at 0.00999, the floor is "
         f"reached at epoch {floor_epoch + 1:,}; lr is held in float32",
         "the same, float32 rounding included" if c.lr_decay < 1 else "constant", "constant", ""),
        ("batch size", "128", "argv[2] (l. 178); Keras shuffles every epoch: 128, 128, 44",
         f"{c.batch_size}, each run reshuffled every epoch by its own generator", "128", ""),
        ("epochs", "200000", "epochs=200000 (l. 179)", f"at most {c.max_epochs:,}", "200,000", ""),
        ("early stopping", "silent", "PerfectTrainAccCallback (l. 119-137, 176): stop after the "
         "first epoch whose training accuracy is 1.0; that accuracy is Keras' running mean over "
         "the epoch's minibatches, each measured before its update",
         "the same rule, from the minibatch forwards" if c.early_stopping == "train-accuracy-1"
         else c.early_stopping, "none", ""),
        ("accuracy", "silent", "metrics=['accuracy'] with 2-column one-hot targets: Keras picks "
         "categorical accuracy (arg-max) (l. 165)", "arg-max of the 2 logits (ties: class 0)",
         "arg-max", ""),
        ("validation frequency", "silent", "validation_freq=1 (l. 179): after every epoch",
         _eval_text(c), "every 500 epochs",
         "" if c.eval_every == 1 else "cost: on a CPU one validation pass (10,300 sequences per "
         "run) costs as much as 5 to 10 training epochs, so validating after every epoch would "
         "multiply the sweep's time by 6 to 11; late in training the learning rate is at its "
         "floor and the validation loss changes little over 50 epochs"),
        ("best epoch", "'the best epoch'", "ModelCheckpoint(monitor='val_loss', mode='min', "
         "save_best_only=True) (l. 168-175): the lowest validation loss, the earliest on ties, the "
         "stopping epoch included; reloaded before the report (l. 180)",
         "lowest validation loss among the evaluated epochs, earliest on ties",
         "lowest validation cross-entropy among evaluated epochs", ""),
        ("weight norm (Fig. 1)", "sum of the absolute values of all the weights",
         "sum over model.trainable_variables of tf.norm(ord=1) of the flattened tensor, biases "
         "included, after reloading the best weights (l. 180, 184-195); variables are "
         "deduplicated by name (l. 187), which under Keras 2 (full variable paths) keeps all 12; "
         "under Keras 3 the names are short ('kernel', 'bias', ...) and the sum keeps 4 of the 12 "
         "(the query kernel and bias and the read-out's two)",
         "the same, at the best epoch (also without biases)",
         "the same (also without biases)", ""),
        ("generalization gap (Fig. 2)", "cross-entropy generalization gap", "printed as train loss "
         "- test loss at the best weights (l. 200-203), losses as in the loss row",
         "validation loss - training loss at the best epoch; both losses are stored",
         "validation CE - training CE", "the sign: a positive gap means overfitting, as in the "
         "paper's wording; the authors' printed value is its negative"),
        ("validation accuracy (Fig. 3)", "validation accuracy of the best epoch",
         "test accuracy at the best weights (l. 183)", "validation accuracy at the best epoch",
         "same", ""),
        ("precision", "silent", "float32 (Keras default)", c.dtype + " (tests: float64)",
         "float32", ""),
        ("hardware and batching", "NVIDIA Tesla V100", "one process per run",
         "all runs in one process on a CPU, stacked along a run axis; each run keeps its own "
         "parameters, shuffling, stopping and best epoch", "stacked runs", ""),
    ]
    keys = ("setting", "paper", "authors_code", "book", "book_v1", "departure")
    return [dict(zip(keys, r)) for r in rows]


def format_table(rows: list[dict[str, str]], *, keys: tuple[str, ...] = ("setting", "authors_code", "book"),
                 width: int = 100) -> str:
    """Plain-text rendering of :func:`protocol_table` rows (chosen ``keys``), wrapped to ``width``
    characters; departures are marked with ``*`` and their reasons listed below."""
    import textwrap

    width = check_int(width, "width", minimum=40)
    for k in keys:
        if not rows or k not in rows[0]:
            raise ValueError(f"keys must name columns of the rows, got {k!r}")
    out, notes = [], []
    for r in rows:
        mark = "*" if r.get("departure") else " "
        head = f"{mark} {r['setting']}"
        out.append(head)
        for k in keys[1:]:
            out.extend(textwrap.wrap(f"{k}: {r[k]}", width, initial_indent="    ",
                                     subsequent_indent="      "))
        if r.get("departure"):
            notes.append(textwrap.fill(f"* {r['setting']}: {r['departure']}", width,
                                       subsequent_indent="  "))
    return "\n".join(out + ([""] + notes if notes else []))
