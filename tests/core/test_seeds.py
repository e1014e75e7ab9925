"""Seeds: one validator (integers in [0, 2**63), distinct in a list) and generators that use the
whole integer (issue 30, item 7)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from attention_theory.deora.stability import init_heads
from attention_theory.trauger.sparse_majority.model import init_params
from attention_theory.validation import check_seed, check_seeds, seed_torch_default, torch_generator


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1])
def test_small_seeds_draw_what_manual_seed_draws(seed):
    # every committed result was drawn with manual_seed(seed), seed < 2**32: unchanged
    want = torch.randn(500, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    assert torch.equal(torch.randn(500, generator=torch_generator(seed), dtype=torch.float64), want)


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_seeds_apart_by_2_to_the_32_draw_different_numbers(seed):
    # the negative control: torch's own manual_seed aliases them
    alias = torch.Generator().manual_seed(seed + 2**32)
    assert torch.equal(torch.rand(8, generator=alias),
                       torch.rand(8, generator=torch.Generator().manual_seed(seed)))
    a = torch.rand(2000, generator=torch_generator(seed))
    b = torch.rand(2000, generator=torch_generator(seed + 2**32))
    c = torch.rand(2000, generator=torch_generator(seed + 2**33))
    assert not torch.equal(a, b) and not torch.equal(b, c)


def test_large_seeds_are_reproducible_and_uniform():
    for seed in (2**32, 2**62 + 3, 2**63 - 1):
        a = torch.rand(100_000, generator=torch_generator(seed), dtype=torch.float64)
        assert torch.equal(a, torch.rand(100_000, generator=torch_generator(seed), dtype=torch.float64))
        assert abs(float(a.mean()) - 0.5) < 0.01 and abs(float(a.var()) - 1 / 12) < 0.01
        assert torch_generator(seed).initial_seed() == seed


def test_seed_torch_default_matches_manual_seed_and_tells_large_seeds_apart():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(5)
        want = torch.rand(10)
        seed_torch_default(5)
        assert torch.equal(torch.rand(10), want)
        seed_torch_default(5 + 2**32)
        assert not torch.equal(torch.rand(10), want)


def test_package_functions_tell_seeds_apart():
    a = init_heads(2, 3, 4, 1.0, 3)
    b = init_heads(2, 3, 4, 1.0, 3 + 2**32)
    assert not torch.equal(a, b)
    p, q = init_params(8, seed=1), init_params(8, seed=1 + 2**32)
    assert any(not torch.equal(p[k], q[k]) for k in p)


@pytest.mark.parametrize("bad, kind, words", [
    (2**63, ValueError, "my_seed must be < 2**63"),
    (-1, ValueError, "my_seed must be >= 0"),
    (1.5, TypeError, "my_seed must be an integer"),
    (True, TypeError, "my_seed must be an integer"),
])
def test_check_seed_names_the_argument(bad, kind, words):
    with pytest.raises(kind, match=words.replace("*", r"\*")):
        check_seed(bad, "my_seed")


def test_check_seeds():
    assert check_seeds([0, 2**63 - 1, np.int64(5)]) == (0, 2**63 - 1, 5)
    with pytest.raises(ValueError, match="distinct: 3 appears more than once"):
        check_seeds([3, 4, 3])
    with pytest.raises(ValueError, match=r"seeds\[1\] must be < 2\*\*63"):
        check_seeds([0, 2**63])
    with pytest.raises(ValueError, match="must not be empty"):
        check_seeds([])
    with pytest.raises(TypeError, match="sequence of integers"):
        check_seeds("012")


@pytest.mark.parametrize("args, words", [
    (["--seeds", "0", "0"], "each seed at most once, repeated: [0]"),
    (["--seeds", str(2**63)], "expected a seed < 2**63"),
    (["--seeds", "-3"], "expected a seed"),
])
def test_cli_refuses_bad_seeds(args, words):
    cmd = [sys.executable, "-m", "attention_theory", "run", "trauger", "sparse-majority", "--scale", "smoke",
           "--out", "unused-folder", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr
    assert "Traceback" not in proc.stderr
