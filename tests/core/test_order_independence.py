"""Results do not depend on what was imported first: the same sparse-majority smoke sweep and the
same checks, run in fresh interpreters after importing the package in different orders, give
identical numbers (no module changes torch's default dtype or a global seed when imported)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = r"""
import importlib, json, sys
order = sys.argv[1]
if order == "checks-first":
    from attention_theory import papers
    papers.check_modules()
elif order == "models-first":
    import attention_theory.deora.model, attention_theory.qin.model, attention_theory.julistiono.model
import torch
torch.set_num_threads(1)
from attention_theory.trauger.sparse_majority import experiment as ex
cfg = ex.sweep_config("smoke", Ts=(12,), seeds=(0,), n_train=64, n_val=64, max_epochs=6, eval_every=3,
                      checkpoint_every=3)
res = ex.run_sweep(cfg, scale="smoke", progress=False)
runs = res["data"]["runs"]
from attention_theory.foundations.checks import softmax
from attention_theory.verify import evaluate_only
with evaluate_only():
    rec = softmax.check_softmax_lipschitz()
print(json.dumps({"runs": runs, "check": [rec.worst, rec.n_instances],
                  "dtype": str(torch.get_default_dtype())}, sort_keys=True))
"""


def _run(order: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, order], capture_output=True, text=True, timeout=600,
                         env={"ATTN_SCALE": "smoke", "ATTN_REGISTRY_DIR": "", "OMP_NUM_THREADS": "1",
                              "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_numbers_do_not_depend_on_import_order():
    plain, checks_first, models_first = _run("plain"), _run("checks-first"), _run("models-first")
    assert plain["dtype"] == checks_first["dtype"] == models_first["dtype"] == "torch.float32"
    assert plain == checks_first == models_first
