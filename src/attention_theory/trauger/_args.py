"""Argument checks of the Trauger & Tewari modules that :mod:`attention_theory.validation` lacks.

Non-string sequences, integer (label/token) tensors and floating tensors kept as they are.  Like the shared
helpers, each raises ``TypeError`` for the wrong kind of
object and ``ValueError`` for a wrong value, and names the argument.  No ``__all__``: private.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch


def check_sequence(x: Any, name: str, *, non_empty: bool = True) -> Sequence:
    """A list/tuple-like sequence (not a string), non-empty unless ``non_empty=False``."""
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise TypeError(f"{name} must be a sequence (list or tuple), got {type(x).__name__}")
    if non_empty and len(x) == 0:
        raise ValueError(f"{name} must not be empty")
    return x


_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool)


def check_int_tensor(x: Any, name: str, *, ndim: int | None = None, low: int | None = None,
                     high: int | None = None) -> torch.Tensor:
    """A non-empty integer (or bool) torch tensor, optionally of ``ndim`` dimensions with every
    entry in ``[low, high]`` (one reduction over the tensor)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be an integer torch tensor, got {type(x).__name__}")
    if x.dtype not in _INT_DTYPES:
        raise TypeError(f"{name} must be an integer torch tensor, got dtype {x.dtype}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(x.shape)})")
    if low is not None and int(x.min()) < low:
        raise ValueError(f"{name} must take values >= {low}, got {int(x.min())}")
    if high is not None and int(x.max()) > high:
        raise ValueError(f"{name} must take values <= {high}, got {int(x.max())}")
    return x


def check_float_tensor(x: Any, name: str, *, ndim: int | None = None, min_ndim: int | None = None,
                       finite: bool = True) -> torch.Tensor:
    """A non-empty real floating-point torch tensor (returned as is: dtype, device and autograd
    are kept), optionally of ``ndim`` (or at least ``min_ndim``) dimensions, finite unless
    ``finite=False``."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    if x.is_complex() or not x.is_floating_point():
        raise TypeError(f"{name} must be a real floating-point tensor, got dtype {x.dtype}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(x.shape)}")
    if min_ndim is not None and x.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(x.shape)})")
    if finite and not bool(torch.isfinite(x.detach()).all()):
        raise ValueError(f"{name} must contain only finite values")
    return x
