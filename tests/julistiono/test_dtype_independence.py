"""The numbers of :mod:`attention_theory.julistiono` and :mod:`attention_theory.qin` do not depend
on torch's global default dtype: every tensor they create has an explicit dtype (float64) or takes
that of its input, so a run under ``torch.set_default_dtype(torch.float32)`` gives the very same
numbers (bit for bit) as one under ``torch.float64``.

The cone trajectory (:func:`attention_theory.julistiono.attention.cone_trajectory`) is pure numpy
plus one cvxpy solve of the l_p-AttSVM.  It is cached per default dtype, so a second call under
another default computes it again; that second SVM solve reuses the compiled cvxpy problem, and
:func:`~attention_theory.julistiono.svm.lp_att_svm` solves it without a warm start, so a solve
does not depend on the previous one (the last test).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from attention_theory.julistiono import attention as ja
from attention_theory.julistiono import model as mj
from attention_theory.julistiono import svm
from attention_theory.qin import model as qm
from attention_theory.qin import residual_gd as rg
from attention_theory.qin import residual_training as eq


def _under(dtype: torch.dtype, fn: Callable[[], Any]) -> Any:
    """``fn()`` with torch's default dtype set to ``dtype`` (the previous default restored)."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return fn()
    finally:
        torch.set_default_dtype(previous)


def _as_numpy(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach().numpy()
    if isinstance(obj, dict):
        return {k: _as_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_as_numpy(v) for v in obj)
    return obj


def _assert_identical(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _assert_identical(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} != {b.dtype}"
        assert np.array_equal(a, b, equal_nan=True), f"{where}: values differ"
    elif isinstance(a, ja.ConeInstance):
        _assert_identical(a.sol.W, b.sol.W, f"{where}.sol.W")
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


def _both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    return _as_numpy(_under(torch.float32, fn)), _as_numpy(_under(torch.float64, fn))


def _fresh_cone_trajectory() -> dict[str, Any]:
    svm._lp_svm_problem.cache_clear()
    ja.cone_instance.cache_clear()
    ja.cone_trajectory.cache_clear()
    try:
        return ja.cone_trajectory(2.0, "global", "cone", steps=20)
    finally:
        svm._lp_svm_problem.cache_clear()
        ja.cone_instance.cache_clear()
        ja.cone_trajectory.cache_clear()


def test_cone_trajectory_does_not_depend_on_the_default_dtype():
    a, b = _both(_fresh_cone_trajectory)
    for key in ("W", "G", "num", "den", "norms", "D", "R0"):
        _assert_identical(a[key], b[key], key)
    assert a["W"].dtype == np.float64


def test_julistiono_autograd_reference_does_not_depend_on_the_default_dtype():
    d = mj.synthetic_dataset(1)
    W = np.random.default_rng(0).standard_normal((10, 10))
    a, b = _both(lambda: ja.grad_autograd(W, d["X"], d["z"], d["Y"], d["v"], "logistic"))
    _assert_identical(a, b)
    assert a.dtype == np.float64
    lists = {k: d[k].tolist() for k in ("X", "z", "Y", "v")}  # Python lists: converted to float64
    a, b = _both(lambda: float(mj.objective_torch(W.tolist(), **lists)))
    _assert_identical(a, b)


def test_qin_instances_and_training_do_not_depend_on_the_default_dtype():
    def run() -> dict[str, Any]:
        inst = eq.e1_instance(0, N=4, d=6, dk=2, dv=4, m=8)
        rec = eq.train_recording(inst, eta=0.02, steps=6, record=3)
        near, consts = rg.near_target_instance(0)
        rnd = rg.random_instance(1)
        x = [[-1.0, 0.0, 2.5]]  # a Python list: converted to float64
        return {"theta0": inst.theta0, "X": inst.X, "Y": inst.Y, "rec": rec,
                "grad": inst.grad(inst.theta0), "near": near.theta0, "consts": consts,
                "rnd_loss": rnd.loss(rnd.theta0),
                "act": [qm.activation(x), qm.activation_prime(x), qm.activation_second(x)]}

    a, b = _both(run)
    _assert_identical(a, b)
    assert a["theta0"].dtype == np.float64 and a["act"][0].dtype == np.float64


def test_lp_att_svm_does_not_depend_on_earlier_solves():
    def data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = mj.synthetic_dataset(seed, 6, 8, 10)
        return d["X"], d["z"], ja.global_alpha(mj.scores(d["X"], d["Y"], d["v"]))

    svm._lp_svm_problem.cache_clear()
    try:
        first = svm.lp_att_svm(*data(1), 2.0).W
        svm.lp_att_svm(*data(2), 2.0)
        again = svm.lp_att_svm(*data(1), 2.0).W
    finally:
        svm._lp_svm_problem.cache_clear()
    assert np.array_equal(first, again)
