import os
import sys
from pathlib import Path

import pytest

# tests/_nc.py is imported as a top-level helper module.
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("ATTN_SCALE", "smoke")
os.environ.setdefault("ATTN_REGISTRY_DIR", str(Path(__file__).resolve().parents[1] / "_build" / "test-registry"))


@pytest.fixture
def float64_default():
    """Run a test with float64 as torch's default dtype and restore the previous default after it
    (modules that need it opt in with ``pytestmark = pytest.mark.usefixtures("float64_default")``)."""
    import torch

    from attention_theory.foundations.tensors import default_dtype

    with default_dtype(torch.float64):
        yield
