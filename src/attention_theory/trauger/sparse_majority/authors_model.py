"""The sparse-majority data and model exactly as the authors' code builds them (Trauger & Tewari,
Sec. 6; repository ``traugerjacob/Transformer-Gen-Bounds``, file ``run_experiment.py``).

Where the paper's text is silent the authors' code decides (:mod:`~.protocol` lists every setting
with its line in that file).  In short, for one run of length ``T``:

* **Data** (lines 36-58, 145-158).  ``n_train + n_val`` i.i.d. uniform binary sequences of length
  ``T`` are drawn at once; the first ``n_train`` train, the other ``n_val`` validate (and are the
  "test" set the authors report).  The label is the majority over a uniform ``k``-subset ``I``.
* **Embeddings** (lines 23-34).  Three vectors of ``U(-1, 1)^d`` (for ``0``, ``1`` and ``[CLS]``),
  made orthogonal by Gram-Schmidt in that order, each scaled to unit **l1** norm; drawn anew per run.
* **Layout** (lines 49-58, 77-90).  The symbols sit at positions ``0..T-1`` and ``[CLS]`` at the
  **last** position ``T``; every position ``j`` gets the positional vector
  ``PE[j, i] = sin(j / 10000^(i/d))`` for even ``i`` and ``cos(j / 10000^(i/d))`` for odd ``i``
  (the exponent of an odd column is ``i/d``, not ``(i-1)/d`` as in Vaswani et al.).
* **Model** (lines 93-116, 160-162).  Keras ``MultiHeadAttention(num_heads=2, key_dim=64)``: per
  head ``key_dim = value_dim = 64`` (not ``64 / 2``), biases on, logits scaled by
  ``1/sqrt(key_dim)``, an output projection back to ``d``; then ``ReLU`` and ``Dense(64)`` at every
  position; the read-out takes the last position (``[CLS]``) to 2 logits.

Parameters of one model are one flat vector (``(P,)``; many runs: ``(R, P)``) in the order of
:meth:`ModelShape.shapes`, which uses the PyTorch ``(out, in)`` convention:

========  =====================  =====================================================
name      shape                  Keras weight it stands for
========  =====================  =====================================================
``Wq``    ``(H, dk, d)``         ``query/kernel`` ``(d, H, dk)``, ``Wq[h, j, i] = K[i, h, j]``
``bq``    ``(H, dk)``            ``query/bias``
``Wk``    ``(H, dk, d)``         ``key/kernel``
``bk``    ``(H, dk)``            ``key/bias`` (no effect on the output: it shifts all logits)
``Wv``    ``(H, dv, d)``         ``value/kernel``
``bv``    ``(H, dv)``            ``value/bias``
``Wo``    ``(d, H, dv)``         ``attention_output/kernel`` ``(H, dv, d)``
``bo``    ``(d,)``               ``attention_output/bias``
``Wd``    ``(m, d)``             ``dense/kernel`` ``(d, m)`` (absent when ``dense_units=None``)
``bd``    ``(m,)``               ``dense/bias``
``Wr``    ``(2, m)``             ``linear_matrix`` ``(m, 2)`` of the read-out
``br``    ``(2,)``               ``linear_bias``
========  =====================  =====================================================

:class:`TextbookModel` is the same model written with ``torch.nn`` layers (the reference of the
tests and the naive baseline of the benchmark); :mod:`~.structured` trains many of them at once.
Used by ``book/trauger/sparse-majority.md``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

from attention_theory.trauger._args import check_float_tensor, check_int_tensor
from attention_theory.trauger.sparse_majority.data import check_index_set_size
from attention_theory.validation import check_int, check_seed

__all__ = [
    "STREAMS",
    "run_generator",
    "ModelShape",
    "random_orthogonal_embeddings",
    "authors_positional_encoding",
    "AuthorsRun",
    "make_authors_run",
    "embed_authors",
    "init_authors_params",
    "unflatten",
    "bias_mask",
    "TextbookModel",
]

#: Independent random streams of one run, by purpose (the index is part of the stream's seed).
STREAMS = {"index_set": 0, "sequences": 1, "embeddings": 2, "init": 3, "shuffle": 4}


def run_generator(T: int, seed: int, stream: str) -> torch.Generator:
    """A fresh CPU generator for one purpose (a key of :data:`STREAMS`) of run ``(T, seed)``.

    The seed is ``numpy.random.SeedSequence([seed, T, STREAMS[stream]])``'s first 64-bit word, so
    the streams of one run are independent of each other and of every other run, and a run draws
    the same numbers whether it is trained alone or in a sweep. (The whole ``seed`` enters the
    SeedSequence, so seeds ``s`` and ``s + 2**32`` differ; torch's twister then keeps the word's
    low 32 bits, as it did when the committed sweeps were drawn.)
    """
    T = check_int(T, "T", minimum=1)
    seed = check_seed(seed)
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {tuple(STREAMS)}, got {stream!r}")
    word = np.random.SeedSequence([seed, T, STREAMS[stream]]).generate_state(1, dtype=np.uint64)[0]
    g = torch.Generator()
    g.manual_seed(int(word) & 0x7FFF_FFFF_FFFF_FFFF)
    return g


@dataclasses.dataclass(frozen=True)
class ModelShape:
    """Sizes of the authors' model: ``d`` model width, ``heads``, ``key_dim`` and ``value_dim`` per
    head, ``dense_units`` of the ``ReLU`` + ``Dense`` block (``None``: no such block, the read-out
    acts on the attention output), ``n_classes`` logits."""

    d: int = 64
    heads: int = 2
    key_dim: int = 64
    value_dim: int = 64
    dense_units: int | None = 64
    n_classes: int = 2

    def __post_init__(self) -> None:
        for name in ("d", "heads", "key_dim", "value_dim"):
            check_int(getattr(self, name), name, minimum=1)
        check_int(self.n_classes, "n_classes", minimum=2)
        if self.dense_units is not None:
            check_int(self.dense_units, "dense_units", minimum=1)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Name -> shape of every parameter, in the order of the flat vector."""
        d, H, dk, dv = self.d, self.heads, self.key_dim, self.value_dim
        out = {"Wq": (H, dk, d), "bq": (H, dk), "Wk": (H, dk, d), "bk": (H, dk),
               "Wv": (H, dv, d), "bv": (H, dv), "Wo": (d, H, dv), "bo": (d,)}
        m = d
        if self.dense_units is not None:
            m = self.dense_units
            out.update({"Wd": (m, d), "bd": (m,)})
        out.update({"Wr": (self.n_classes, m), "br": (self.n_classes,)})
        return out

    @property
    def size(self) -> int:
        """Number of trainable scalars ``P`` of one model (37,506 for the paper's sizes)."""
        return sum(math.prod(s) for s in self.shapes().values())

    def offsets(self) -> dict[str, tuple[int, int]]:
        """Name -> ``(start, stop)`` of the parameter in the flat vector."""
        out, pos = {}, 0
        for name, shape in self.shapes().items():
            out[name] = (pos, pos + math.prod(shape))
            pos += math.prod(shape)
        return out


def random_orthogonal_embeddings(d: int, *, generator: torch.Generator,
                                 dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The authors' symbol embeddings, rows ``0``, ``1``, ``[CLS]``: shape ``(3, d)``.

    Lines 23-34 of ``run_experiment.py``: ``e0, e1, ecls ~ U(-1, 1)^d``; ``e1 -= proj_{e0} e1``;
    ``ecls -= proj_{e0} ecls``; ``ecls -= proj_{e1} ecls``; then each is divided by its l1 norm.
    The three rows are orthogonal with unit l1 norm (their l2 norms are about ``0.15`` for
    ``d = 64``).  Drawn in float64 and cast to ``dtype``.
    """
    d = check_int(d, "d", minimum=3)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    e0 = torch.rand(d, generator=generator, dtype=torch.float64) * 2 - 1
    e1 = torch.rand(d, generator=generator, dtype=torch.float64) * 2 - 1
    e1 = e1 - (e1 @ e0) * e0 / (e0 @ e0)
    ec = torch.rand(d, generator=generator, dtype=torch.float64) * 2 - 1
    ec = ec - (ec @ e0) * e0 / (e0 @ e0)
    ec = ec - (ec @ e1) * e1 / (e1 @ e1)
    E = torch.stack([e0, e1, ec])
    return (E / E.abs().sum(dim=1, keepdim=True)).to(dtype)


def authors_positional_encoding(length: int, d: int, *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The authors' positional vectors (lines 77-90), shape ``(length, d)``.

    ``PE[j, i] = sin(j / 10000^(i/d))`` for even ``i`` and ``cos(j / 10000^(i/d))`` for odd ``i``:
    an odd column uses its own index in the exponent, so its frequency differs from that of the
    sine before it (Vaswani et al. pair them).  Computed in float64, cast to ``dtype``.
    """
    length = check_int(length, "length", minimum=1)
    d = check_int(d, "d", minimum=1)
    j = torch.arange(length, dtype=torch.float64)[:, None]
    i = torch.arange(d, dtype=torch.float64)[None, :]
    angle = j / torch.pow(torch.tensor(10000.0, dtype=torch.float64), i / d)
    pe = torch.where(torch.arange(d)[None, :] % 2 == 0, torch.sin(angle), torch.cos(angle))
    return pe.to(dtype)


@dataclasses.dataclass(frozen=True)
class AuthorsRun:
    """One run's data, as the authors' script draws it.

    ``train_bits`` ``(n_train, T)`` and ``val_bits`` ``(n_val, T)`` (uint8, values 0/1; ``[CLS]`` is
    not stored: it is always at position ``T``); labels int64; ``index_set`` ``(k,)`` sorted;
    ``embeddings`` ``(3, d)`` float64 (rows ``0``, ``1``, ``[CLS]``).
    """

    T: int
    seed: int
    index_set: torch.Tensor
    embeddings: torch.Tensor
    train_bits: torch.Tensor
    train_labels: torch.Tensor
    val_bits: torch.Tensor
    val_labels: torch.Tensor


def make_authors_run(T: int, *, seed: int, n_train: int = 300, n_val: int = 10_000, k: int = 9,
                     d: int = 64) -> AuthorsRun:
    """Draw the data of run ``(T, seed)`` as lines 145-158 do, from seeded streams.

    The index set is a uniform ``k``-subset of ``{0..T-1}`` (line 153); the ``n_train + n_val``
    sequences are one draw of i.i.d. uniform bits (line 43), split first ``n_train`` / rest
    (lines 155-158); labels ``1{sum_{i in I} S_i >= k/2}`` (line 37; ``k`` odd, so no ties); the
    embeddings are :func:`random_orthogonal_embeddings`.  Streams: :func:`run_generator`.
    """
    T, k = check_index_set_size(T, k)
    seed = check_seed(seed)
    n_train = check_int(n_train, "n_train", minimum=1)
    n_val = check_int(n_val, "n_val", minimum=1)
    index_set = torch.sort(torch.randperm(T, generator=run_generator(T, seed, "index_set"))[:k]).values
    S = torch.randint(0, 2, (n_train + n_val, T), generator=run_generator(T, seed, "sequences"))
    labels = (2 * S[:, index_set].sum(dim=1) > k).to(torch.int64)
    E = random_orthogonal_embeddings(d, generator=run_generator(T, seed, "embeddings"))
    S = S.to(torch.uint8)
    return AuthorsRun(T=T, seed=seed, index_set=index_set, embeddings=E,
                      train_bits=S[:n_train].clone(), train_labels=labels[:n_train].clone(),
                      val_bits=S[n_train:].clone(), val_labels=labels[n_train:].clone())


def embed_authors(bits: torch.Tensor, embeddings: torch.Tensor, *,
                  dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The model input of lines 49-58: ``X[n, j] = E[bits[n, j]] + PE[j]`` for ``j < T`` and
    ``X[n, T] = E[CLS] + PE[T]``; ``bits`` ``(n, T)`` -> ``X`` ``(n, T + 1, d)``."""
    check_int_tensor(bits, "bits", ndim=2, low=0, high=1)
    check_float_tensor(embeddings, "embeddings", ndim=2)
    if embeddings.shape[0] != 3:
        raise ValueError(f"embeddings must be a tensor of shape (3, d), got {tuple(embeddings.shape)}")
    n, T = bits.shape
    d = embeddings.shape[1]
    E = embeddings.to(dtype)
    tok = torch.cat([bits.to(torch.int64), torch.full((n, 1), 2, dtype=torch.int64)], dim=1)
    return E[tok] + authors_positional_encoding(T + 1, d, dtype=dtype)[None]


def _glorot(shape: tuple[int, ...], fan_in: int, fan_out: int, g: torch.Generator) -> torch.Tensor:
    a = math.sqrt(6.0 / (fan_in + fan_out))
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * a


def init_authors_params(shape: ModelShape, *, generator: torch.Generator,
                        dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A flat ``(P,)`` parameter vector drawn from the Keras defaults the authors' model uses.

    Keras ``glorot_uniform`` draws ``U(-a, a)``, ``a = sqrt(6 / (fan_in + fan_out))``, with fans
    computed from the *Keras kernel shape*; a kernel of rank 3 is treated like a convolution
    kernel (fans multiplied by the product of the leading dimensions).  So the query, key and
    value kernels ``(d, H, dk)`` get ``fan_in = H d``, ``fan_out = dk d`` (``a = 0.0377`` for the
    paper's sizes), the output kernel ``(H, dv, d)`` gets ``fan_in = H dv``, ``fan_out = H d``
    (``a = 0.153``), the ``Dense`` kernel ``(d, m)`` ``a = sqrt(6 / (d + m))``; the read-out is
    ``random_normal`` (``N(0, 0.05^2)``, line 97); every bias is zero.
    """
    if not isinstance(shape, ModelShape):
        raise TypeError(f"shape must be a ModelShape, got {type(shape).__name__}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
    p: dict[str, torch.Tensor] = {}
    for name, width in (("q", dk), ("k", dk), ("v", dv)):
        p[f"W{name}"] = _glorot((H, width, d), H * d, width * d, generator)
        p[f"b{name}"] = torch.zeros(H, width, dtype=torch.float64)
    p["Wo"] = _glorot((d, H, dv), H * dv, H * d, generator)
    p["bo"] = torch.zeros(d, dtype=torch.float64)
    m = d
    if shape.dense_units is not None:
        m = shape.dense_units
        p["Wd"] = _glorot((m, d), d, m, generator)
        p["bd"] = torch.zeros(m, dtype=torch.float64)
    p["Wr"] = torch.randn(shape.n_classes, m, generator=generator, dtype=torch.float64) * 0.05
    p["br"] = torch.zeros(shape.n_classes, dtype=torch.float64)
    return torch.cat([p[name].reshape(-1) for name in shape.shapes()]).to(dtype)


def _check_shape(shape: object) -> ModelShape:
    if not isinstance(shape, ModelShape):
        raise TypeError(f"shape must be a ModelShape, got {type(shape).__name__}")
    return shape


def unflatten(flat: torch.Tensor, shape: ModelShape) -> dict[str, torch.Tensor]:
    """Views of a flat parameter tensor ``(*B, P)`` (real, finite) as named tensors
    ``(*B, *shape)`` (no copy)."""
    _check_shape(shape)
    check_float_tensor(flat, "flat", min_ndim=1)
    if flat.shape[-1] != shape.size:
        raise ValueError(f"flat must be a tensor of shape (..., {shape.size}), got {tuple(flat.shape)}")
    return unflatten_unchecked(flat, shape)


def unflatten_unchecked(flat: torch.Tensor, shape: ModelShape) -> dict[str, torch.Tensor]:
    """:func:`unflatten` with a shape check only (the trainers' inner loops)."""
    if not isinstance(flat, torch.Tensor) or flat.ndim < 1 or flat.shape[-1] != shape.size:
        raise ValueError(f"flat must be a tensor of shape (..., {shape.size}), "
                         f"got {tuple(getattr(flat, 'shape', ()))}")
    lead = tuple(flat.shape[:-1])
    return {name: flat[..., a:b].reshape(*lead, *shape.shapes()[name])
            for name, (a, b) in shape.offsets().items()}


def bias_mask(shape: ModelShape) -> torch.Tensor:
    """Boolean ``(P,)``: ``True`` at the biases (for the weight norm without biases)."""
    _check_shape(shape)
    mask = torch.zeros(shape.size, dtype=torch.bool)
    for name, (a, b) in shape.offsets().items():
        if name.startswith("b"):
            mask[a:b] = True
    return mask


class TextbookModel(torch.nn.Module):
    """The authors' model written with ``torch.nn`` layers, one run at a time.

    ``attention="linear"``: ``nn.Linear`` projections ``d -> H dk`` (query, key), ``d -> H dv``
    (value), softmax of ``q k^T / sqrt(dk)`` over all ``T + 1`` keys for all ``T + 1`` queries (as
    Keras computes it), ``nn.Linear`` ``H dv -> d``; then ``nn.ReLU``, ``nn.Linear(d, m)`` and the
    read-out ``nn.Linear(m, 2)`` of the last position.  ``attention="mha"``: the same function with
    ``torch.nn.MultiheadAttention``, which ties the head width to ``embed_dim / heads``; it is
    used with ``embed_dim = H dk`` (``dv = dk`` required), ``kdim = vdim = d``, the query input
    padded with zeros to ``H dk`` and the output's first ``d`` features kept (the padded query
    columns and output rows are zero and get zero gradient).

    ``forward(X)``: ``X`` ``(n, T + 1, d)`` (``[CLS]`` last, :func:`embed_authors`) -> logits
    ``(n, 2)``.  The layers are built without drawing random numbers (every parameter starts at
    zero); set them with :meth:`load_flat` (e.g. from :func:`init_authors_params`).
    :meth:`load_flat` / :meth:`flat` / :meth:`flat_grad` convert to the flat layout of
    :class:`ModelShape`.  The reference of ``tests/trauger/test_structured_trainer.py`` and the
    naive loop of :func:`~.benchmark.benchmark_trainers`.
    """

    def __init__(self, shape: ModelShape, *, attention: str = "linear",
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        if not isinstance(shape, ModelShape):
            raise TypeError(f"shape must be a ModelShape, got {type(shape).__name__}")
        if attention not in ("linear", "mha"):
            raise ValueError(f"attention must be 'linear' or 'mha', got {attention!r}")
        self.shape, self.attention = shape, attention
        d, H, dk, dv = shape.d, shape.heads, shape.key_dim, shape.value_dim
        m = shape.dense_units if shape.dense_units is not None else d
        skip = torch.nn.utils.skip_init      # no draw from the global generator
        kw = {"dtype": dtype}
        if attention == "linear":
            self.q = skip(torch.nn.Linear, d, H * dk, **kw)
            self.k = skip(torch.nn.Linear, d, H * dk, **kw)
            self.v = skip(torch.nn.Linear, d, H * dv, **kw)
            self.o = skip(torch.nn.Linear, H * dv, d, **kw)
        else:
            if dv != dk or H * dk < d:
                raise ValueError("attention='mha' needs value_dim == key_dim and heads * key_dim >= d")
            self.mha = skip(torch.nn.MultiheadAttention, H * dk, H, bias=True, batch_first=True,
                            kdim=d, vdim=d, **kw)
        self.relu = torch.nn.ReLU() if shape.dense_units is not None else torch.nn.Identity()
        self.dense = (skip(torch.nn.Linear, d, m, **kw) if shape.dense_units is not None
                      else torch.nn.Identity())
        self.readout = skip(torch.nn.Linear, m, shape.n_classes, **kw)
        with torch.no_grad():
            for t in self.parameters():
                t.zero_()

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        sh = self.shape
        d, H, dk, dv = sh.d, sh.heads, sh.key_dim, sh.value_dim
        if not isinstance(X, torch.Tensor) or X.ndim != 3 or X.shape[-1] != d:
            raise ValueError(f"X must have shape (n, T + 1, {d}), got {tuple(getattr(X, 'shape', ()))}")
        n, L, _ = X.shape
        if self.attention == "linear":
            q = self.q(X).reshape(n, L, H, dk).transpose(1, 2)
            k = self.k(X).reshape(n, L, H, dk).transpose(1, 2)
            v = self.v(X).reshape(n, L, H, dv).transpose(1, 2)
            p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dk), dim=-1)
            out = self.o((p @ v).transpose(1, 2).reshape(n, L, H * dv))
        else:
            Xq = torch.nn.functional.pad(X, (0, H * dk - d))
            out = self.mha(Xq, X, X, need_weights=False)[0][..., :d]
        h = self.dense(self.relu(out))
        return self.readout(h[:, -1])

    def _blocks(self) -> dict[str, tuple[torch.Tensor, tuple[slice, ...]]]:
        """Name -> (torch parameter, index of the block that holds the flat parameter)."""
        sh = self.shape
        d, H, dk = sh.d, sh.heads, sh.key_dim
        E = H * dk
        if self.attention == "linear":
            out = {"Wq": (self.q.weight, ()), "bq": (self.q.bias, ()), "Wk": (self.k.weight, ()),
                   "bk": (self.k.bias, ()), "Wv": (self.v.weight, ()), "bv": (self.v.bias, ()),
                   "Wo": (self.o.weight, ()), "bo": (self.o.bias, ())}
        else:
            a = self.mha
            out = {"Wq": (a.q_proj_weight, (slice(None), slice(0, d))),
                   "bq": (a.in_proj_bias, (slice(0, E),)),
                   "Wk": (a.k_proj_weight, ()), "bk": (a.in_proj_bias, (slice(E, 2 * E),)),
                   "Wv": (a.v_proj_weight, ()), "bv": (a.in_proj_bias, (slice(2 * E, 3 * E),)),
                   "Wo": (a.out_proj.weight, (slice(0, d),)), "bo": (a.out_proj.bias, (slice(0, d),))}
        if sh.dense_units is not None:
            out.update({"Wd": (self.dense.weight, ()), "bd": (self.dense.bias, ())})
        out.update({"Wr": (self.readout.weight, ()), "br": (self.readout.bias, ())})
        return out

    @torch.no_grad()
    def load_flat(self, flat: torch.Tensor) -> "TextbookModel":
        """Set every parameter from a flat ``(P,)`` vector (padding blocks of ``"mha"`` set to 0)."""
        views = unflatten_unchecked(flat, self.shape)
        if self.attention == "mha":
            for t in (self.mha.q_proj_weight, self.mha.in_proj_bias, self.mha.out_proj.weight,
                      self.mha.out_proj.bias):
                t.zero_()
        for name, (param, idx) in self._blocks().items():
            block = param[idx] if idx else param
            block.copy_(views[name].reshape(block.shape))
        return self

    def _gather(self, grads: bool) -> torch.Tensor:
        parts = []
        for name, (param, idx) in self._blocks().items():
            t = param.grad if grads else param
            if t is None:
                t = torch.zeros_like(param)
            parts.append((t[idx] if idx else t).detach().reshape(-1))
        return torch.cat(parts)

    def flat(self) -> torch.Tensor:
        """The parameters as a flat ``(P,)`` vector (a copy)."""
        return self._gather(False)

    def flat_grad(self) -> torch.Tensor:
        """The gradients (``.grad``) as a flat ``(P,)`` vector; zeros where there is none."""
        return self._gather(True)
