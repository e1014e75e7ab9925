"""Fuzz suite over every public callable of the package (issue 17).

Every name in every ``__all__`` of every module of ``attention_theory`` is collected (walked
with :mod:`pkgutil`, so a new public function is included automatically). Each callable needs
either ONE valid example call in ``tests/fuzz/examples.py`` (``EXAMPLES``) or a reason to be
left out (``EXCLUDED`` there, or one of the automatic exclusions below); a public callable in
neither fails :func:`test_every_public_callable_has_a_fuzz_example`.

From the example and the function's signature, invalid inputs are derived argument by argument
(:func:`mutations_of`): NaN, +inf, a complex value, a negative value, an empty array, an array
of the wrong rank, ``None``, a string. Hypothesis draws from them (``derandomize=True``: the run
is the same every time). By default nothing is left to chance: every (argument, kind) pair of
every function runs, with the NaN/inf/negative entry of an array argument put at each of the
positions ``EXHAUSTIVE_POSITIONS`` (all eight under ``ATTN_SCALE=full``); about 33,000 mutated
calls take half a minute on two cores. ``ATTN_FUZZ_EXAMPLES=N`` instead lets Hypothesis draw N
(pair, position) examples per function, for quick experiments.

The oracle: a mutated call must raise ``ValueError`` or ``TypeError`` whose message names the
mutated argument (the user's parameter name). Accepted instead are mutations listed in
``ALLOWED`` (examples.py) with a reason (e.g. a negative value of a signed input), and ``None``
for an argument whose signature default is ``None``: those may return, but never NaN/inf. Any
other exception, a silent return for a NaN/inf/complex/None/string/empty/wrong-rank input, or a
NaN/inf in the result of finite input fails. The valid example itself must return finite
numbers, except for the NaN entries a function documents as a marker (``NAN_BY_DESIGN`` in
examples.py: a function that asserts those entries are NaN exactly where documented and returns
the rest of the result, which must be finite).

Functions that still fail are listed in ``KNOWN_FAILURES`` below (xfail, strict: an entry must
be removed once its function is fixed).

Left out of the walk (with the reason):

* ``attention_theory.sphinx`` (the Sphinx extension of the book: its functions take Sphinx
  application/docutils objects, which are not user input, and are tested in tests/core);
* ``__main__`` modules (the command-line entry points; importing them runs the CLI).

Left out automatically (with the reason):

* registered checks (``claim_check``): they take no user input and are covered by the
  negative-control tests that ``tests/core/test_contract.py`` requires for every one;
* exception classes (nothing to validate: they only carry a message);
* typing aliases (``Callable[...]``, ``Protocol``): not callable with data.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import math
import os
import pkgutil
import re
import shutil
import sys
import tempfile
import time
import typing
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention_theory
from attention_theory.verify.outcomes import Outcome

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_fuzz_examples", _HERE / "examples.py")
EX = importlib.util.module_from_spec(_spec)
sys.modules["_fuzz_examples"] = EX
_spec.loader.exec_module(EX)

#: Functions whose fuzzing still finds a failure: {"module.function": "which mutation fails and
#: why it is not fixed yet"}. Each is an xfail(strict=True): once fixed, remove the entry.
KNOWN_FAILURES: dict[str, str] = {
}

SKIPPED_PACKAGES = {
    "attention_theory.sphinx": "the Sphinx extension of the book (takes Sphinx/docutils objects)",
}

FULL = os.environ.get("ATTN_SCALE", "smoke").strip() == "full"
N_EXAMPLES = int(os.environ.get("ATTN_FUZZ_EXAMPLES", "0") or 0)
EXHAUSTIVE = N_EXAMPLES == 0
#: where a NaN/inf/negative entry is put in an array argument (modulo its size)
EXHAUSTIVE_POSITIONS = tuple(range(8)) if FULL else (0, 1, 7)
#: seconds one call may take before it counts as a hang
CALL_TIMEOUT = 60.0

KINDS = ("nan", "inf", "complex", "negative", "empty", "wrong_rank", "none", "string", "masked",
         "huge", "tiny", "float16", "float32", "list", "seed_2_63", "seed_alias")
#: kinds added by issue 30 (extreme but valid input): "huge"/"tiny" put 1e300 / 1e-310 (a
#: subnormal) in one entry of a float argument (or as the number); "float16"/"float32" pass a float
#: array in that dtype; "list" passes an array as a nested Python list, which must give the same
#: numbers as the array or be refused; "seed_2_63" passes 2**63 to an integer argument named
#: ``*seed*`` (must be refused); "seed_alias" calls with seed + 2**32, which must not give the
#: example's result (torch's manual_seed keeps only 32 bits). The oracle for huge/tiny/float16/
#: float32: a ValueError/TypeError naming the argument, or a finite result.
EXTREME_KINDS = ("huge", "tiny", "float16", "float32", "list")
#: kinds whose mutation depends on the position of the changed entry
POSITIONAL_KINDS = {"nan", "inf", "negative", "masked", "huge", "tiny"}
#: a silent return is a failure for these mutations (unless ALLOWED); "masked": a NumPy masked
#: array (one entry masked), whose mask a float64 conversion would silently drop
MUST_RAISE = {"nan", "inf", "complex", "empty", "wrong_rank", "none", "string", "masked", "seed_2_63"}


# --------------------------------------------------------------------------------- collection

def _public_modules() -> list[str]:
    names = ["attention_theory"]
    for m in pkgutil.walk_packages(attention_theory.__path__, "attention_theory."):
        if any(m.name == p or m.name.startswith(p + ".") for p in SKIPPED_PACKAGES):
            continue
        if m.name.rsplit(".", 1)[-1] == "__main__":  # the CLI: importing it runs it
            continue
        names.append(m.name)
    return names


def canonical(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _auto_excluded(obj: Any) -> str | None:
    if hasattr(obj, "claim_id") and hasattr(obj, "check_name"):
        return "registered check: covered by its negative-control test"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return "exception class"
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return "not a function or class (typing alias)"
    if inspect.isclass(obj) and getattr(obj, "_is_protocol", False):
        return "typing Protocol"
    return None


def public_callables() -> dict[str, Any]:
    """Canonical name -> object, for every callable in every ``__all__``."""
    out: dict[str, Any] = {}
    for name in _public_modules():
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", ()):
            obj = getattr(mod, attr)
            if callable(obj) and not isinstance(obj, typing.TypeVar):
                try:
                    key = canonical(obj)
                except AttributeError:  # typing aliases have no __qualname__
                    key = f"{name}.{attr}"
                out.setdefault(key, obj)
    return out


PUBLIC = public_callables()
AUTO_EXCLUDED = {k: r for k, o in PUBLIC.items() if (r := _auto_excluded(o))}
FUZZED = sorted(k for k in PUBLIC if k in EX.EXAMPLES)


def test_every_public_callable_has_a_fuzz_example():
    missing = sorted(k for k in PUBLIC if k not in EX.EXAMPLES and k not in EX.EXCLUDED
                     and k not in AUTO_EXCLUDED)
    assert not missing, ("new public function without a fuzz example (add one to "
                         "tests/fuzz/examples.py, or an EXCLUDED entry with a reason):\n  "
                         + "\n  ".join(missing))
    both = sorted(set(EX.EXAMPLES) & set(EX.EXCLUDED))
    assert not both, f"both an example and an exclusion: {both}"


def test_no_stale_entries():
    known = set(PUBLIC)
    stale = {
        "EXAMPLES": sorted(set(EX.EXAMPLES) - known),
        "EXCLUDED": sorted(set(EX.EXCLUDED) - known),
        "ALLOWED": sorted(set(EX.ALLOWED) - set(EX.EXAMPLES) - {"*"}),
        "NOT_FUZZED_ARGS": sorted(set(EX.NOT_FUZZED_ARGS) - set(EX.EXAMPLES)),
        "NAN_BY_DESIGN": sorted(set(EX.NAN_BY_DESIGN) - set(EX.EXAMPLES)),
        "KNOWN_FAILURES": sorted(set(KNOWN_FAILURES) - set(EX.EXAMPLES)),
    }
    stale = {k: v for k, v in stale.items() if v}
    assert not stale, f"entries for names that are not fuzzed public callables: {stale}"
    empty = [k for k, v in {**EX.EXCLUDED, **KNOWN_FAILURES,
                            **{n: r for n, (_f, r) in EX.NAN_BY_DESIGN.items()}}.items()
             if not str(v).strip()]
    assert not empty, f"entries without a reason: {empty}"


# --------------------------------------------------------------------------------- mutations

def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _as_numeric_array(v: Any) -> np.ndarray | None:
    """``v`` as a numeric ndarray when it is a (nested) list/tuple of numbers, else None."""
    if isinstance(v, (list, tuple)) and v and not isinstance(v, str):
        try:
            a = np.asarray(v)
        except (ValueError, TypeError, RuntimeError):  # ragged, or tensors that require grad
            return None
        if a.dtype.kind in "iuf" and a.ndim >= 1:
            return a
    return None


def _n_entries(value: Any) -> int:
    return value.numel() if isinstance(value, torch.Tensor) else int(np.size(value))


def applicable(value: Any) -> tuple[str, ...]:
    """The mutation kinds that make sense for an argument whose valid value is ``value``."""
    if isinstance(value, (bool, np.bool_)):
        return ("none", "string")
    if _is_num(value):
        extreme = ("huge", "tiny") if isinstance(value, (float, np.floating)) else ()
        return ("nan", "inf", "complex", "negative", "wrong_rank", "none", "string") + extreme
    if isinstance(value, (np.ndarray, torch.Tensor)) or _as_numeric_array(value) is not None:
        a = _as_numeric_array(value)
        kind = (a if a is not None else value).dtype
        is_int = (kind.kind in "iu") if isinstance(kind, np.dtype) else not kind.is_floating_point
        base = ("nan", "inf", "complex", "empty", "wrong_rank", "none", "string")
        masked = ("masked",) if isinstance(value, np.ndarray) and value.size else ()
        is_float = not is_int and (kind.kind == "f" if isinstance(kind, np.dtype) else kind.is_floating_point)
        arrayish = isinstance(value, (np.ndarray, torch.Tensor))
        extreme = ((("huge", "tiny") if is_float else ())
                   + (("float16", "float32") if is_float and arrayish else ())
                   + (("list",) if arrayish and 0 < _n_entries(value) <= 10_000 else ()))
        return base + (("negative",) if is_int else ()) + masked + extreme
    if isinstance(value, str):
        return ("nan", "none", "string")
    return ("none", "string")


def _nan_like(a: np.ndarray, pos: int, fill: float) -> np.ndarray:
    b = np.array(a, dtype=np.float64, copy=True)
    b.reshape(-1)[pos % b.size] = fill
    return b


def mutate(value: Any, kind: str, pos: int = 0) -> Any:
    """``value`` with the mutation ``kind`` applied (``pos``: which entry of an array)."""
    if kind == "none":
        return None
    if kind == "string":
        return "__not_a_valid_value__"
    if isinstance(value, str):
        return math.nan  # a number where a string is expected
    if _is_num(value):
        if kind == "nan":
            return math.nan
        if kind == "inf":
            return math.inf
        if kind == "complex":
            return complex(float(value), 1.0)
        if kind == "negative":
            return -abs(value) if value != 0 else type(value)(-1)
        if kind == "wrong_rank":
            return np.array([value, value])
        if kind == "huge":
            return math.copysign(1e300, float(value) or 1.0)
        if kind == "tiny":
            return math.copysign(1e-310, float(value) or 1.0)
        if kind == "seed_2_63":
            return 2**63
        if kind == "seed_alias":
            return int(value) + 2**32
    is_torch = isinstance(value, torch.Tensor)
    listy = _as_numeric_array(value)
    if is_torch:
        a = value.detach().cpu().numpy()
    elif listy is not None:
        a = listy
    else:
        a = np.asarray(value)

    def back(b: np.ndarray) -> Any:
        if is_torch:
            return torch.from_numpy(np.ascontiguousarray(b))
        if listy is not None:
            return b.tolist()
        return b

    if kind == "nan":
        return back(_nan_like(a, pos, math.nan))
    if kind == "inf":
        return back(_nan_like(a, pos, math.inf))
    if kind == "complex":
        return back(a.astype(np.complex128) + 1j)
    if kind == "negative":
        b = np.array(a, copy=True)
        b.reshape(-1)[pos % b.size] = -abs(b.reshape(-1)[pos % b.size]) - 1
        return back(b)
    if kind == "empty":
        return back(a[:0] if a.ndim else np.zeros((0,), dtype=a.dtype))
    if kind == "wrong_rank":
        return back(a[None] if a.ndim < 2 else a.reshape(-1))
    if kind in ("huge", "tiny"):
        b = np.array(a, dtype=np.float64, copy=True)
        flat = b.reshape(-1)
        i = pos % b.size
        flat[i] = math.copysign(1e300 if kind == "huge" else 1e-310, flat[i] or 1.0)
        return back(b)
    if kind in ("float16", "float32"):
        if is_torch:
            return value.detach().to(getattr(torch, kind))
        return np.asarray(a, dtype=kind)
    if kind == "list":
        return a.tolist()
    if kind == "masked":
        mask = np.zeros(a.shape, dtype=bool)
        mask.reshape(-1)[pos % a.size] = True
        return np.ma.masked_array(a, mask=mask)
    raise AssertionError(kind)


def mutations_of(name: str, example: dict[str, Any]) -> list[tuple[str, str]]:
    """Every (argument, kind) pair to try for the function ``name`` (``*args``/``**kwargs`` are
    not mutated as a whole)."""
    skip = set(EX.NOT_FUZZED_ARGS.get(name, ()))
    try:
        params = inspect.signature(PUBLIC[name]).parameters
        skip |= {p.name for p in params.values() if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    except (TypeError, ValueError):
        pass
    pairs = [(arg, kind) for arg, value in example.items() if arg not in skip for kind in applicable(value)]
    pairs += [(arg, kind) for arg, value in example.items() if arg not in skip and "seed" in arg.lower()
              and isinstance(value, (int, np.integer)) and not isinstance(value, bool)
              for kind in ("seed_2_63", "seed_alias")]
    return pairs


# ----------------------------------------------------------------------------------- oracle

def _nonfinite(obj: Any, depth: int = 0) -> str | None:
    """A description of the first NaN/inf inside ``obj`` (numbers, arrays, tensors, containers,
    dataclasses), or None."""
    if depth > 6:
        return None
    if isinstance(obj, (bool, np.bool_, str, bytes)) or obj is None:
        return None
    if isinstance(obj, (int, np.integer)):
        return None
    if isinstance(obj, (float, np.floating)):
        return None if math.isfinite(obj) else repr(obj)
    if isinstance(obj, (complex, np.complexfloating)):
        return None if np.isfinite(obj) else repr(obj)
    if isinstance(obj, torch.Tensor):
        if obj.dtype.is_floating_point or obj.is_complex():
            try:
                ok = bool(torch.isfinite(obj.detach()).all())
            except RuntimeError:
                return None
            return None if ok else f"tensor of shape {tuple(obj.shape)} with NaN/inf"
        return None
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            return None if np.all(np.isfinite(obj)) else f"array of shape {obj.shape} with NaN/inf"
        if obj.dtype == object:
            for x in obj.reshape(-1)[:1000]:
                if (r := _nonfinite(x, depth + 1)):
                    return r
        return None
    if isinstance(obj, dict):
        for k, v in list(obj.items())[:1000]:
            if (r := _nonfinite(v, depth + 1)):
                return f"[{k!r}] {r}"
        return None
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj[:1000]):
            if (r := _nonfinite(v, depth + 1)):
                return f"[{i}] {r}"
        return None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if (r := _nonfinite(getattr(obj, f.name, None), depth + 1)):
                return f".{f.name} {r}"
        return None
    return None


def _names_argument(msg: str, arg: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", msg) is not None


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """A call that takes longer than ``seconds`` counts as a hang, measured after it returns.

    No signal interrupts the call: an exception raised asynchronously inside torch (e.g. in the
    middle of a ``torch.func.vmap``) leaves the transform stack of the process corrupted, and every
    later test in the same worker fails with functorch errors."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    if elapsed > seconds:
        raise _Hang(f"no answer within {seconds} s (took {elapsed:.1f} s)")


_SCRATCH = tempfile.mkdtemp(prefix="attn-fuzz-cwd-")
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)


@contextlib.contextmanager
def _isolated():
    """Restore the process-wide state a call may change (default dtype, RNGs, cwd); calls run at
    smoke scale even under ``ATTN_SCALE=full`` (which only widens the fuzzing: a ``cfg=None``
    would otherwise start a full-scale experiment)."""
    scale = os.environ.get("ATTN_SCALE")
    os.environ["ATTN_SCALE"] = "smoke"
    dtype = torch.get_default_dtype()
    trng = torch.get_rng_state()
    nrng = np.random.get_state()
    cwd = os.getcwd()
    os.chdir(_SCRATCH)  # a relative path made of a mutated string lands here, not in the repository
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if scale is None:
            os.environ.pop("ATTN_SCALE", None)
        else:
            os.environ["ATTN_SCALE"] = scale
        torch.set_default_dtype(dtype)
        torch.set_rng_state(trng)
        np.random.set_state(nrng)
        os.chdir(cwd)
        # what a call wrote under a relative path must not change a later call (a folder named by
        # a mutated string made a later write to that name fail with IsADirectoryError)
        for entry in os.scandir(_SCRATCH):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def invoke(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Call ``fn`` with the example's arguments (positional-only and ``*args`` honoured)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(**kwargs)
    args: list[Any] = []
    kw: dict[str, Any] = {}
    for p in sig.parameters.values():
        if p.name not in kwargs:
            continue
        if p.kind is p.POSITIONAL_ONLY:
            args.append(kwargs[p.name])
        elif p.kind is p.VAR_POSITIONAL:
            args.extend(kwargs[p.name])
        elif p.kind is p.VAR_KEYWORD:
            kw.update(kwargs[p.name])
        else:
            kw[p.name] = kwargs[p.name]
    extra = set(kwargs) - set(sig.parameters)
    if extra:
        raise AssertionError(f"example has arguments the signature lacks: {sorted(extra)}")
    out = fn(*args, **kw)
    if isinstance(out, contextlib._GeneratorContextManager):  # a @contextmanager: run its setup
        with out as value:
            return value
    return out


def _none_allowed(fn: Callable[..., Any], arg: str) -> bool:
    try:
        p = inspect.signature(fn).parameters[arg]
    except (TypeError, ValueError, KeyError):
        return False
    if p.default is None:
        return True
    ann = p.annotation if isinstance(p.annotation, str) else repr(p.annotation)
    return bool(re.search(r"\bNone\b|Optional", ann))


def _allowed(name: str, arg: str, kind: str) -> bool:
    """Whether ``ALLOWED`` (for this function, or ``"*"``: for every function) accepts the mutation."""
    keys = (f"{arg}:{kind}", f"{arg}:*", f"*:{kind}")
    return any(k in EX.ALLOWED.get(n, {}) for n in (name, "*") for k in keys)


def judge(name: str, fn: Callable[..., Any], example: dict[str, Any], arg: str, kind: str,
          pos: int) -> str | None:
    """Run one mutated call; a failure description, or None when the call behaved."""
    kwargs = dict(example)
    kwargs[arg] = mutate(example[arg], kind, pos)
    if kind in ("list", "seed_alias"):
        return _judge_same_or_different(fn, example, kwargs, arg, kind)
    allowed = _allowed(name, arg, kind) or (kind == "none" and _none_allowed(fn, arg))
    try:
        with _isolated(), _time_limit(CALL_TIMEOUT):
            out = invoke(fn, kwargs)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if allowed or _names_argument(msg, arg):
            return None
        return f"{arg}={kind}: unhelpful {type(exc).__name__} (does not name {arg!r}): {msg[:160]}"
    except _Hang as exc:
        return f"{arg}={kind}: hang ({exc})"
    except Exception as exc:  # noqa: BLE001 - any other exception type is what we look for
        return f"{arg}={kind}: {type(exc).__name__} (not ValueError/TypeError): {str(exc)[:160]}"
    if allowed:
        bad = (_nonfinite_outside_design(name, out, kwargs)
               if kind in ("negative", "none", "string", "empty", "wrong_rank") else None)
        return f"{arg}={kind}: allowed, but the result has {bad}" if bad else None
    if kind in ("nan", "inf", "none", "huge", "tiny") and isinstance(out, Outcome) and not out.passed:
        return None  # a failing verdict is not silent: the check raises ClaimViolation with it
    if kind in MUST_RAISE:
        return f"{arg}={kind}: silent result (no error)"
    bad = _nonfinite_outside_design(name, out, kwargs)
    return f"{arg}={kind}: NaN/inf from finite input: {bad}" if bad else None


def _numbers(obj: Any, depth: int = 0) -> list[np.ndarray]:
    """The numbers inside ``obj`` (arrays, tensors, numbers, containers, dataclasses, generators'
    states), in order, as float64/complex arrays: what two results are compared on."""
    if depth > 6 or obj is None or isinstance(obj, (str, bytes)):
        return []
    if isinstance(obj, torch.Generator):
        return [obj.get_state().numpy().astype(np.float64)]
    if isinstance(obj, np.random.Generator):
        return [np.asarray([hash(str(obj.bit_generator.state))], dtype=np.float64)]
    if isinstance(obj, torch.Tensor):
        t = obj.detach().cpu()
        return [t.numpy().astype(np.complex128 if t.is_complex() else np.float64)]
    if isinstance(obj, (bool, np.bool_, int, float, complex, np.number)):
        return [np.asarray([obj], dtype=np.complex128 if isinstance(obj, complex) else np.float64)]
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "biufc":
            return [obj.astype(np.complex128 if obj.dtype.kind == "c" else np.float64)]
        return [x for v in obj.reshape(-1)[:1000] for x in _numbers(v, depth + 1)]
    if isinstance(obj, dict):  # durations ("wall_time_s", ...) differ between any two calls
        return [x for k in sorted(obj, key=str) if "time" not in str(k)
                for x in _numbers(obj[k], depth + 1)]
    if isinstance(obj, (list, tuple)):
        return [x for v in obj[:1000] for x in _numbers(v, depth + 1)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [x for f in dataclasses.fields(obj) for x in _numbers(getattr(obj, f.name), depth + 1)]
    return []


def _same_numbers(a: Any, b: Any) -> bool:
    """The same numbers in the same order (a list of rows and a matrix hold the same numbers)."""
    na, nb = _numbers(a), _numbers(b)
    fa = np.concatenate([x.ravel() for x in na]) if na else np.zeros(0)
    fb = np.concatenate([x.ravel() for x in nb]) if nb else np.zeros(0)
    return fa.shape == fb.shape and np.array_equal(fa, fb, equal_nan=True)


def _judge_same_or_different(fn: Callable[..., Any], example: dict[str, Any], kwargs: dict[str, Any],
                             arg: str, kind: str) -> str | None:
    """"list": the list must give the array's numbers, or be refused naming the argument;
    "seed_alias": seed + 2**32 must not give the seed's numbers (unless the seed changes nothing)."""
    try:
        with _isolated(), _time_limit(CALL_TIMEOUT):
            out = invoke(fn, kwargs)
    except (ValueError, TypeError) as exc:
        if kind == "list" and _names_argument(str(exc), arg):
            return None
        return f"{arg}={kind}: {type(exc).__name__}: {str(exc)[:160]}"
    except _Hang as exc:
        return f"{arg}={kind}: hang ({exc})"
    except Exception as exc:  # noqa: BLE001
        return f"{arg}={kind}: {type(exc).__name__} (not ValueError/TypeError): {str(exc)[:160]}"
    with _isolated(), _time_limit(CALL_TIMEOUT):
        base = invoke(fn, dict(example))
    if kind == "list":
        return (None if _same_numbers(out, base)
                else f"{arg}={kind}: the list gave other numbers than the array")
    if not _same_numbers(out, base):
        return None
    with _isolated(), _time_limit(CALL_TIMEOUT):
        next_seed = invoke(fn, {**example, arg: int(example[arg]) + 1})
    if _same_numbers(next_seed, base):
        return None  # the seed does not change this example's result
    return f"{arg}={kind}: seeds s and s + 2**32 give the same result"


def _nonfinite_outside_design(name: str, out: Any, kwargs: dict[str, Any]) -> str | None:
    """:func:`_nonfinite` of the result, after the function's ``NAN_BY_DESIGN`` entry (if any)
    has checked the documented NaN entries and removed them: a NaN anywhere else still fails."""
    entry = EX.NAN_BY_DESIGN.get(name)
    if entry is None:
        return _nonfinite(out)
    finite_part, _reason = entry
    try:
        rest = finite_part(out, kwargs)
    except AssertionError as exc:
        return f"documented NaN entries not where the documentation says: {exc}"
    return _nonfinite(rest)


# ------------------------------------------------------------------------------------ tests

def _params():
    out = []
    for name in FUZZED:
        marks = []
        if name in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True))
        out.append(pytest.param(name, marks=marks, id=name.removeprefix("attention_theory.")))
    return out


@pytest.mark.parametrize("name", _params())
def test_fuzz_public_callable(name: str):
    fn = PUBLIC[name]
    make = EX.EXAMPLES[name]
    with _isolated(), _time_limit(CALL_TIMEOUT):
        example = make()
        out = invoke(fn, example)
    bad = _nonfinite_outside_design(name, out, example)
    if bad is not None and os.environ.get("ATTN_FUZZ_REPORT"):
        import json

        with open(os.environ["ATTN_FUZZ_REPORT"], "a") as fh:
            fh.write(json.dumps({"name": name, "arg": "", "kind": "example", "msg": bad}) + "\n")
    assert bad is None, f"the valid example returned a non-finite value: {bad}"

    pairs = mutations_of(name, make())
    if not pairs:
        return
    failures: dict[tuple[str, str], str] = {}

    @settings(max_examples=max(N_EXAMPLES, 1), deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False)
    @given(pair=st.sampled_from(pairs), pos=st.integers(min_value=0, max_value=7))
    def run(pair: tuple[str, str], pos: int) -> None:
        if pair in failures:
            return
        res = judge(name, fn, make(), pair[0], pair[1], pos)
        if res is not None:
            failures[pair] = res

    if EXHAUSTIVE:
        for pair in pairs:
            for pos in (EXHAUSTIVE_POSITIONS if pair[1] in POSITIONAL_KINDS else (0,)):
                run.hypothesis.inner_test(pair, pos)
    else:
        run()
    if os.environ.get("ATTN_FUZZ_REPORT"):  # a JSON-lines log of every failure, for triage
        import json

        with open(os.environ["ATTN_FUZZ_REPORT"], "a") as fh:
            for (arg, kind), msg in failures.items():
                fh.write(json.dumps({"name": name, "arg": arg, "kind": kind, "msg": msg}) + "\n")
    assert not failures, f"{name}: {len(failures)} failing mutation(s):\n  " + "\n  ".join(
        failures.values())
