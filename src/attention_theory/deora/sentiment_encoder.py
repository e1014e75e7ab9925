"""A small Transformer encoder classifier, trained from scratch, for the lexicon-sentiment
substitute of Deora et al.'s Figure 6 (SST-2 with RoBERTa).

Token embedding plus learned position embedding (both initialized N(0, 0.02^2), RoBERTa's
initializer range; with PyTorch's default N(0, 1) embeddings the model learns markedly slower), ``n_layers``
pre-norm encoder layers
(:class:`torch.nn.TransformerEncoderLayer`, no dropout, GELU feed-forward of width ``d_ff``)
with ``H`` heads of size ``d_model / H``, a final layer norm and a linear read-out of the
``[CLS]`` position into two logits. Padding positions are masked out of attention.

As in the RoBERTa experiment, the head count only changes how the ``d_model``-dimensional
query/key/value projections are *partitioned* into heads: the parameter shapes, and with the
same seed the initial parameter values, are identical for every ``H`` dividing ``d_model``
(:func:`build_encoder` checks this in :func:`parameter_count`).
"""

from __future__ import annotations

import torch
from torch import nn

from attention_theory.validation import check_int, check_seed, seed_torch_default

__all__ = ["SentimentEncoder", "build_encoder", "parameter_count"]


class SentimentEncoder(nn.Module):
    """``logits = W_out LN(Encoder(E[tokens] + P))[:, 0]`` with ``H`` heads per layer."""

    def __init__(self, vocab_size: int, *, n_heads: int, d_model: int = 64, n_layers: int = 2,
                 d_ff: int = 128, max_len: int = 25, n_classes: int = 2, pad_id: int = 0):
        super().__init__()
        vocab_size = check_int(vocab_size, "vocab_size", minimum=2)
        n_heads = check_int(n_heads, "n_heads")
        d_model = check_int(d_model, "d_model")
        n_layers = check_int(n_layers, "n_layers")
        d_ff = check_int(d_ff, "d_ff")
        max_len = check_int(max_len, "max_len")
        n_classes = check_int(n_classes, "n_classes", minimum=2)
        if d_model % n_heads:
            raise ValueError(f"n_heads={n_heads} must divide d_model={d_model} (head size d_model/H)")
        self.n_heads, self.d_model, self.max_len, self.pad_id = n_heads, d_model, max_len, pad_id
        self.embed = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embed.weight, std=0.02)  # RoBERTa's initializer range
        self.pos = nn.Parameter(torch.zeros(max_len, d_model))
        nn.init.normal_(self.pos, std=0.02)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=d_ff, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if ids.dim() != 2:
            raise ValueError(f"ids must have shape (batch, length), got {tuple(ids.shape)}")
        if ids.shape[1] > self.max_len:
            raise ValueError(f"sequence length {ids.shape[1]} exceeds max_len={self.max_len}")
        pad = ids == self.pad_id
        x = self.embed(ids) + self.pos[: ids.shape[1]]
        x = self.encoder(x, src_key_padding_mask=pad)
        return self.head(self.norm(x[:, 0]))


def build_encoder(vocab_size: int, n_heads: int, *, seed: int = 0, dtype: torch.dtype = torch.float32,
                  **kwargs) -> SentimentEncoder:
    """A freshly initialized :class:`SentimentEncoder` (seeded; same values for every ``n_heads``).

    The parameters are drawn directly in ``dtype`` whatever torch's default dtype is (several
    check modules set it to float64), so the same call gives the same model in every process.
    """
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")
    check_seed(seed, "seed")
    gen_state = torch.random.get_rng_state()
    default = torch.get_default_dtype()
    try:
        torch.set_default_dtype(dtype)
        seed_torch_default(seed)
        model = SentimentEncoder(vocab_size, n_heads=n_heads, **kwargs)
    finally:
        torch.set_default_dtype(default)
        torch.random.set_rng_state(gen_state)
    return model


def parameter_count(model: nn.Module) -> int:
    """Number of trainable scalars (independent of the head count)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
