import os
import sys
from pathlib import Path

import pytest

# tests/_nc.py is imported as a top-level helper module.
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("ATTN_SCALE", "smoke")
os.environ.setdefault("ATTN_REGISTRY_DIR",
                      str(Path(__file__).resolve().parents[1] / "_build" / "test-registry"))


@pytest.fixture
def float64_default():
    """Run a test with float64 as torch's default dtype and restore the previous default after it
    (modules that need it opt in with ``pytestmark = pytest.mark.usefixtures("float64_default")``)."""
    import torch

    from attention_theory.foundations.tensors import default_dtype

    with default_dtype(torch.float64):
        yield


@pytest.fixture
def toy_check(monkeypatch):
    """``with toy_check(claim_id, check, parts=()):`` runs the block as the registered check
    ``(claim_id, check)``, registered for this test only, so tests of the verify API can call
    the assertions directly (outside a registered check they refuse to write a record)."""
    import contextlib

    from attention_theory.verify import contract, outcomes

    contract.registered_checks()  # register the real checks first, then copy the tables
    monkeypatch.setattr(contract, "_CHECKS", dict(contract._CHECKS))
    monkeypatch.setattr(contract, "_PARTS", dict(contract._PARTS))

    @contextlib.contextmanager
    def scope(claim_id="trauger-lemma-3-1", check="toy", parts=()):
        contract.claim_check(claim_id, check, parts=parts)(lambda: None)
        with outcomes.running_check(claim_id, check):
            yield

    return scope
