"""Importing any module of the package changes no process-wide state: torch's default dtype,
``os.environ``, the global RNGs of torch, numpy and ``random``, matplotlib's rcParams, warning
filters, torch's thread count. Checked in a fresh interpreter, one module at a time, after the
third-party libraries the package uses are imported (their own import-time effects are theirs)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import importlib, json, os, pkgutil, random, warnings
import numpy as np, torch, scipy.optimize, cvxpy, matplotlib, matplotlib.pyplot, tqdm.auto
import sphinx.application, docutils.nodes
import attention_theory


def snapshot():
    return {
        "dtype": str(torch.get_default_dtype()),
        "environ": dict(os.environ),
        "torch_rng": torch.get_rng_state().tolist(),
        "numpy_rng": np.random.get_state()[1].tolist(),
        "random": repr(random.getstate()),
        "rcParams": {k: repr(v) for k, v in matplotlib.rcParams.items()},
        "warnings": repr(warnings.filters),
        "threads": torch.get_num_threads(),
    }


names = sorted(m.name for m in pkgutil.walk_packages(attention_theory.__path__, "attention_theory."))
before = snapshot()
changed = {}
for name in names:
    importlib.import_module(name)
    after = snapshot()
    diff = [k for k in before if before[k] != after[k]]
    if diff:
        changed[name] = diff
        before = after
print(json.dumps({"n": len(names), "changed": changed}))
"""


def test_importing_any_module_changes_no_global_state():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["n"] > 50, res
    assert not res["changed"], f"modules that change global state when imported: {res['changed']}"


def test_checks_restore_the_callers_default_dtype():
    import torch

    from attention_theory.foundations.checks import norms

    before = torch.get_default_dtype()
    norms.check_spectral_le_frobenius()
    assert torch.get_default_dtype() == before


def test_scale_dependent_caches_key_on_scale_and_dtype():
    import torch

    from attention_theory.config import cached_per_scale, use_scale
    from attention_theory.foundations.tensors import default_dtype

    calls = []

    @cached_per_scale(maxsize=8)
    def f(x):
        calls.append(x)
        return torch.zeros(1).dtype

    with use_scale("smoke"):
        assert f(1) == torch.get_default_dtype() and f(1) == torch.get_default_dtype()
    with use_scale("full"):
        f(1)
    with default_dtype(torch.float64), use_scale("smoke"):
        assert f(1) == torch.float64
    assert calls == [1, 1, 1]
