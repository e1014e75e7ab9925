"""Float64 tensors for verification, without touching torch's process-wide defaults.

Verification runs in float64 (see the book's conventions). Library code passes
``dtype=torch.float64`` explicitly or converts with :func:`f64`; code that builds tensors
with torch's *default* dtype (``torch.randn(...)``, ``nn.Linear``) can be run inside
:func:`default_dtype`, a context manager that restores the previous default on exit. Every
registered check runs inside ``default_dtype(torch.float64)``
(:func:`attention_theory.verify.claim_check`); nothing changes the default at import.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np
import torch

__all__ = ["VERIFICATION_DTYPE", "f64", "default_dtype"]

#: The dtype of every verification (the one home of ``torch.float64`` as a named constant).
VERIFICATION_DTYPE = torch.float64


def f64(a: Any) -> torch.Tensor:
    """``a`` (array-like or tensor) as a float64 tensor; no validation (internal numerics)."""
    return torch.as_tensor(np.asarray(a) if not isinstance(a, torch.Tensor) else a, dtype=VERIFICATION_DTYPE)


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype) -> Iterator[None]:
    """Make ``dtype`` torch's default inside the block and restore the previous default after it."""
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype, got {dtype!r}")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)
