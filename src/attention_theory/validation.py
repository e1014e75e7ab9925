"""Input validation shared by every public function.

Each helper raises ``TypeError`` for the wrong kind of object and ``ValueError``
for a value that is out of range; the message always names the argument, so a
reader who passes a bad shape to ``mixed_norm`` learns which argument was bad.
"""

from __future__ import annotations

import contextvars
import dataclasses
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # torch is imported lazily: numpy-only callers do not pay for it
    import torch

__all__ = [
    "check_bool",
    "check_real",
    "check_callable",
    "reject_complex",
    "reject_masked",
    "as_tensor",
    "as_array",
    "as_matrix",
    "as_vector",
    "check_order",
    "check_positive",
    "check_probability",
    "check_int",
    "check_path",
    "check_rng",
    "check_seed",
    "check_seeds",
    "torch_generator",
    "refuses_overflow",
    "Unrepresentable",
    "seed_torch_default",
    "real_values",
    "check_finite",
    "check_mapping",
    "config_dict",
]


def as_array(x: Any, name: str, *, ndim: int | tuple[int, ...] | None = None,
             finite: bool = True) -> np.ndarray:
    """Convert ``x`` to a float64 array, validating dimension and finiteness."""
    arr = real_values(x, name)
    if not isinstance(arr, np.ndarray):  # a tensor
        arr = arr.detach().cpu().double().numpy()
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if arr.ndim not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise ValueError(f"{name} must have {want} dimension(s), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty (shape {arr.shape})")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values")
    return arr


def reject_masked(x: Any, name: str) -> None:
    """A NumPy masked array would lose its mask silently in a conversion to a plain array (and
    its masked values would be used)."""
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array: its mask would be ignored; pass {name}.filled(value) "
                        f"or {name}.compressed() instead")


def reject_complex(x: Any, name: str) -> None:
    """Complex input would lose its imaginary part silently in a float64 conversion (a masked
    array, its mask: refused too)."""
    reject_masked(x, name)
    try:
        is_complex = np.iscomplexobj(x)
    except (TypeError, ValueError):  # ragged or non-numeric: the float64 conversion reports it
        is_complex = False
    if is_complex:
        raise TypeError(f"{name} must be real-valued, got complex values")


def as_matrix(x: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """A 2-D float64 array."""
    return as_array(x, name, ndim=2, finite=finite)


def as_vector(x: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """A 1-D float64 array."""
    return as_array(x, name, ndim=1, finite=finite)


def check_order(p: Any, name: str, *, minimum: float = 1.0, allow_inf: bool = True,
                strict: bool = False) -> float:
    """Validate a norm order ``p`` (``p >= minimum``, optionally ``inf``)."""
    if isinstance(p, bool) or not isinstance(p, Real):
        if isinstance(p, str) and p.lower() in {"inf", "infinity"} and allow_inf:
            return math.inf
        raise TypeError(f"{name} must be a real number (or inf), got {p!r}")
    p = float(p)
    if math.isnan(p):
        raise ValueError(f"{name} must not be NaN")
    if math.isinf(p):
        if not allow_inf or p < 0:
            raise ValueError(f"{name} must be finite, got {p}")
        return p
    if p < minimum or (strict and p == minimum):
        rel = ">" if strict else ">="
        raise ValueError(f"{name} must be {rel} {minimum}, got {p}")
    return p


def check_positive(x: Any, name: str, *, allow_zero: bool = False) -> float:
    """A finite real number > 0 (or >= 0 with ``allow_zero``)."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if x < 0 or (x == 0 and not allow_zero):
        rel = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {rel}, got {x}")
    return x


def check_probability(x: Any, name: str, *, open_interval: bool = True) -> float:
    """A real number in (0, 1) (or [0, 1])."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    ok = (0 < x < 1) if open_interval else (0 <= x <= 1)
    if not ok:
        interval = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval}, got {x}")
    return x


def check_int(x: Any, name: str, *, minimum: int = 1) -> int:
    """An integer >= minimum."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    x = int(x)
    if x < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {x}")
    return x


def check_path(path: Any, name: str = "path") -> os.PathLike[str] | str:
    """A file-system path: a ``str`` or ``os.PathLike`` (returned unchanged)."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    if isinstance(path, str) and not path.strip():
        raise ValueError(f"{name} must not be an empty path")
    return path


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` (the package never falls back to global random state)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return rng


#: Seeds are integers in ``[0, SEED_LIMIT)``: every seed fits a signed 64-bit integer (what
#: ``torch`` and JSON readers in other languages can hold).
SEED_LIMIT = 2 ** 63


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed for ``np.random.default_rng`` or :func:`torch_generator`: an integer in ``[0, 2**63)``."""
    seed = check_int(seed, name, minimum=0)
    if seed >= SEED_LIMIT:
        raise ValueError(f"{name} must be < 2**63 = {SEED_LIMIT}, got {seed}")
    return seed


def check_seeds(seeds: Any, name: str = "seeds") -> tuple[int, ...]:
    """A non-empty sequence of distinct seeds (each as :func:`check_seed`); two runs with one
    seed would carry one label and different numbers."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of integers, got {type(seeds).__name__}")
    out = tuple(check_seed(s, f"{name}[{i}]") for i, s in enumerate(seeds))
    if not out:
        raise ValueError(f"{name} must not be empty")
    seen: set[int] = set()
    for s in out:
        if s in seen:
            raise ValueError(f"{name} must be distinct: {s} appears more than once")
        seen.add(s)
    return out


#: Byte layout of a CPU ``torch.Generator`` state: initial seed (u64), ``left`` and ``seeded``
#: (i32), ``next`` (u64), then the 624 Mersenne Twister words, each stored as a u64.
_MT_WORDS_AT = 24
_MT_WORDS = 624


def torch_generator(seed: int) -> torch.Generator:
    """A CPU ``torch.Generator`` determined by the whole integer ``seed`` (>= 0).

    ``torch.Generator.manual_seed`` keeps only the low 32 bits of its seed (its Mersenne Twister
    takes a 32-bit seed), so seeds ``s`` and ``s + 2**32`` would draw the same numbers. Below
    ``2**32`` this is ``manual_seed(seed)`` exactly (so every committed result is unchanged); from
    ``2**32`` on, the twister's 624 state words come from ``numpy.random.SeedSequence(seed)``,
    which uses every bit of the integer.
    """
    import torch

    seed = check_int(seed, "seed", minimum=0)
    g = torch.Generator()
    g.manual_seed(seed & 0xFFFF_FFFF)
    if seed < 2 ** 32:
        return g
    words = np.random.MT19937(np.random.SeedSequence(seed)).state["state"]["key"]
    state = g.get_state().numpy().copy()
    state[:8] = np.frombuffer(np.uint64(seed % 2 ** 64).tobytes(), dtype=np.uint8)
    block = state[_MT_WORDS_AT:_MT_WORDS_AT + 8 * _MT_WORDS].view(np.uint64)
    block[:] = words.astype(np.uint64)
    g.set_state(torch.from_numpy(state))
    return g


def seed_torch_default(seed: int) -> None:
    """Seed torch's default generators (CPU and any accelerator) from the whole integer ``seed``,
    for code that draws from them (module initialisation, dropout); callers restore the state
    after (``torch.random.fork_rng``). Below ``2**32`` this is ``torch.manual_seed(seed)``."""
    import torch

    seed = check_int(seed, "seed", minimum=0)
    torch.manual_seed(seed & 0xFFFF_FFFF)
    if seed >= 2 ** 32:
        torch.random.set_rng_state(torch_generator(seed).get_state())


def as_tensor(x: Any, name: str, *, ndim: int | None = None,
              shape: tuple[int | None, ...] | None = None) -> torch.Tensor:
    """Validate ``x`` and return it as a float64 torch tensor (gradients are kept).

    Raises ``TypeError`` for non-numeric input and ``ValueError`` for a wrong number
    of dimensions, a wrong shape, an empty array or non-finite entries; the message
    names the argument.
    """
    import torch

    v = real_values(x, name)
    t = v.to(torch.float64) if isinstance(v, torch.Tensor) else torch.as_tensor(v, dtype=torch.float64)
    if ndim is not None and t.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(t.shape)}")
    if shape is not None:
        if t.dim() != len(shape) or any(s is not None and s != ts for s, ts in zip(shape, t.shape)):
            want = tuple("*" if s is None else s for s in shape)
            raise ValueError(f"{name} must have shape {want}, got {tuple(t.shape)}")
    if t.numel() == 0:
        raise ValueError(f"{name} must not be empty (shape {tuple(t.shape)})")
    return check_finite(t, name)


def real_values(x: Any, name: str, what: str = "an array of numbers") -> Any:
    """``x`` as real numbers, before any check of shape or value: a real torch tensor is returned
    as it is (dtype, device and graph kept), anything else as a float64 numpy array.

    Raises ``TypeError`` for ``None``, strings, bools, complex or bool tensors, complex arrays,
    masked arrays (their mask would be ignored) and non-numeric input; ``what`` completes the
    message ("``name`` must be ``what``").
    """
    import torch

    if x is None or isinstance(x, (str, bytes, bool)):
        raise TypeError(f"{name} must be {what}, got {type(x).__name__}")
    reject_masked(x, name)
    if isinstance(x, torch.Tensor):
        if x.is_complex() or x.dtype == torch.bool:
            raise TypeError(f"{name} must be real-valued, got dtype {x.dtype}")
        return x
    reject_complex(x, name)
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be {what}: {exc}") from None


def check_finite(x: Any, name: str) -> Any:
    """``x`` (a torch tensor or a numpy array) unchanged, or ``ValueError`` if an entry is NaN or
    infinite.  Inside ``torch.func`` transforms (vmap, grad) the values are not inspectable and
    the check is skipped: the tensor was checked where it entered."""
    import torch

    if isinstance(x, torch.Tensor):
        try:
            finite = bool(torch.isfinite(x).all())
        except RuntimeError:  # data-dependent control flow inside vmap/grad transforms
            finite = True
    elif isinstance(x, np.ndarray):
        reject_masked(x, name)
        finite = bool(np.isfinite(x).all()) if x.dtype.kind in "fc" else True
    else:
        raise TypeError(f"{name} must be a torch tensor or a numpy array, got {type(x).__name__}")
    if not finite:
        raise ValueError(f"{name} must contain only finite values")
    return x


def check_mapping(x: Any, name: str, keys: Sequence[str] = ()) -> Mapping:
    """A mapping (a dict) holding at least ``keys``."""
    if not isinstance(x, Mapping):
        raise TypeError(f"{name} must be a mapping (dict), got {type(x).__name__}")
    missing = [k for k in keys if k not in x]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {missing}")
    return x


def config_dict(cfg: Any, default: Callable[[], Mapping] | None, keys: Sequence[str],
                name: str = "cfg") -> dict[str, Any]:
    """A copy of a configuration dict holding ``keys``; ``default()`` when ``cfg`` is ``None`` and
    a default exists.  The copy lets a caller complete it without touching the reader's dict."""
    if cfg is None and default is not None:
        return dict(default())
    return dict(check_mapping(cfg, name, keys))


def check_bool(x: Any, name: str) -> bool:
    """``True`` or ``False`` (a numpy bool too)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)


def check_real(x: Any, name: str) -> float:
    """A finite real number of either sign (e.g. a margin or an angle)."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{name} must be a real number, got {x!r}")
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def check_callable(f: Any, name: str) -> Any:
    """A callable (a function, a class, an object with ``__call__``)."""
    if not callable(f):
        raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    return f


class Unrepresentable(ValueError):
    """The answer of a formula is not representable in float64 for arguments of extreme magnitude
    (raised by functions decorated with :func:`refuses_overflow`)."""


#: True inside a call of a :func:`refuses_overflow` function: the guarded functions it calls (a
#: training loop's forward passes) run unchecked, at no cost.
_INSIDE_GUARD: contextvars.ContextVar[bool] = contextvars.ContextVar("inside_refuses_overflow", default=False)

#: Magnitudes beyond which an argument counts as extreme in :func:`refuses_overflow`'s message.
EXTREME_LARGE, EXTREME_SMALL = 1e100, 1e-100


def _extreme_magnitudes(x: Any) -> str | None:
    """``x``'s extreme magnitude (above 1e100, or nonzero below 1e-100), as text, or None."""
    try:
        a = np.abs(np.asarray(x.detach().cpu() if hasattr(x, "detach") else x, dtype=np.float64))
    except (TypeError, ValueError, RuntimeError):
        return None
    if a.size == 0 or not np.all(np.isfinite(a)):
        return None
    big, small = float(a.max()), float(a[a > 0].min()) if np.any(a > 0) else 0.0
    if big > EXTREME_LARGE:
        return f"{big:.3g}" if a.size == 1 else f"entries up to {big:.3g}"
    if 0 < small < EXTREME_SMALL:
        return f"{small:.3g}" if a.size == 1 else f"entries down to {small:.3g}"
    return None


def _all_finite(out: Any, depth: int = 0) -> bool:
    if depth > 4:
        return True
    if isinstance(out, (bool, np.bool_, int, np.integer, str)) or out is None:
        return True
    if isinstance(out, (float, np.floating)):
        return math.isfinite(out)
    if isinstance(out, np.ndarray):
        return out.dtype.kind not in "fc" or bool(np.isfinite(out).all())
    if hasattr(out, "detach") and hasattr(out, "dtype"):
        import torch

        if not (out.dtype.is_floating_point or out.is_complex()):
            return True
        try:
            if out.device.type == "cpu" and out.dtype in (torch.float64, torch.float32):
                return bool(np.isfinite(out.detach().numpy()).all())  # numpy: no per-operation dispatch
            return bool(torch.isfinite(out.detach()).all())
        except RuntimeError:  # inside torch.func transforms the values are not inspectable
            return True
    if isinstance(out, Mapping):
        return all(_all_finite(v, depth + 1) for v in out.values())
    if isinstance(out, (list, tuple)):
        return all(_all_finite(v, depth + 1) for v in out)
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        return all(_all_finite(getattr(out, f.name), depth + 1) for f in dataclasses.fields(out))
    return True


def refuses_overflow(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a formula so that an answer float64 cannot hold is refused, not returned.

    A closed-form bound of high powers of its arguments overflows, and a division by an argument
    near ``1e-310`` divides by zero, long before its inputs are invalid. Decorated, the function
    raises ``ValueError`` naming the arguments of extreme magnitude (above 1e100 or below 1e-100)
    when the formula raises ``OverflowError``/``ZeroDivisionError``, or returns NaN or infinity
    while such an argument is present; with ordinary arguments nothing changes (a documented
    infinite answer stays)."""
    import functools
    import inspect

    sig = inspect.signature(fn)

    def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            return dict(sig.bind(*args, **kwargs).arguments)
        except TypeError:
            return {}

    def refuse(args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> ValueError:
        bound = arguments(args, kwargs)
        extreme = [f"{k}={m}" for k, v in bound.items() if (m := _extreme_magnitudes(v)) is not None]
        where = (f"for the argument(s) of extreme magnitude {', '.join(extreme)}" if extreme
                 else f"for the arguments {', '.join(bound)}")
        return Unrepresentable(f"{fn.__name__}: the {what} is not representable in float64 {where}; rescale "
                          f"the problem (units) so that its values lie within 1e-100 .. 1e100")

    def has_extreme(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        bound = arguments(args, kwargs)
        return bound if any(_extreme_magnitudes(v) is not None for v in bound.values()) else None

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if _INSIDE_GUARD.get():  # the outermost guarded call checks (and names its own arguments)
            return fn(*args, **kwargs)
        token = _INSIDE_GUARD.set(True)
        try:
            out = fn(*args, **kwargs)
        except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
            raise refuse(args, kwargs, f"result ({type(exc).__name__}: {exc})") from None
        except (ValueError, RuntimeError, IndexError, np.linalg.LinAlgError) as exc:
            # with arguments of extreme magnitude, a failure about some intermediate quantity (an
            # inner formula's refusal, "eta must be > 0, got 0", a solver that did not converge)
            # is this function's answer not being representable: say so, naming its arguments
            bound = has_extreme(args, kwargs)
            named = bound is not None and any(  # the message names an argument of extreme magnitude
                _extreme_magnitudes(v) is not None
                and re.search(rf"(?<![A-Za-z0-9_]){re.escape(k)}(?![A-Za-z0-9_])", str(exc))
                for k, v in bound.items())
            if bound is None or (named and type(exc) is ValueError):
                raise
            what = ("result" if isinstance(exc, Unrepresentable)
                    else f"result ({type(exc).__name__}: {str(exc)[:120]})")
            raise refuse(args, kwargs, what) from None
        finally:
            _INSIDE_GUARD.reset(token)
        if not _all_finite(out) and has_extreme(args, kwargs) is not None:
            raise refuse(args, kwargs, "result (NaN or infinite)")
        return out

    return guarded
