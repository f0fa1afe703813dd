"""One place that checks physical and numerical parameters.

Each check returns the value converted to ``float`` (or ``int``) and raises
:class:`~asymptotics.errors.ParameterError` naming the parameter, the value and the valid range.
The simulator in :mod:`validation` uses these checks too (they contain no theory).

Scalars (:func:`as_float`, :func:`check_positive`, :func:`check_nonnegative`,
:func:`check_in_range`, :func:`check_int`, :func:`check_choice`) and arrays (:func:`check_array`,
elementwise, naming the first offending element) give the same message for the same rule.
:func:`available_memory` (the default of every ``max_memory`` limit) lives here too, for the same
reason: the simulator may import it.

Conventions (Ba et al.): ψ1 = n/d (``psi1``), ψ2 = N/d (``psi2``), λ (``lam``), η (``eta``),
σ_ε (``noise``). Cui et al.: α = n/d (``alpha``), α0 = n0/d (``alpha0``), β = p/d (``beta``),
η̃ (``eta_tilde``).
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping

import numpy as np

from .errors import ParameterError

__all__ = [
    "as_float",
    "check_positive",
    "check_nonnegative",
    "check_in_range",
    "check_int",
    "check_choice",
    "check_array",
    "check_probability_vector",
    "check_parameters",
    "RULES",
    "available_memory",
]


def as_float(name: str, value: object, valid: str = "a finite real number") -> float:
    """Convert ``value`` to a finite float, or raise a :class:`ParameterError` naming ``name``
    and the ``valid`` range."""
    if isinstance(value, bool) or value is None:
        raise ParameterError(name, value, valid, "not a number")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ParameterError(name, value, valid, "not numeric") from None
    if not isinstance(value, numbers.Real):
        try:
            value = float(value)  # numpy scalars, 0-d arrays
        except (TypeError, ValueError):
            raise ParameterError(name, value, valid, "not numeric") from None
    v = float(value)
    if not math.isfinite(v):
        raise ParameterError(name, value, valid, "not finite")
    return v


POSITIVE = "> 0 (valid range: (0, inf))"
NONNEGATIVE = ">= 0 (valid range: [0, inf))"


def check_positive(name: str, value: object) -> float:
    """Check ``0 < value < inf``."""
    valid = POSITIVE
    v = as_float(name, value, valid)
    if not v > 0:
        raise ParameterError(name, value, valid)
    return v


def check_nonnegative(name: str, value: object) -> float:
    """Check ``0 <= value < inf``."""
    valid = NONNEGATIVE
    v = as_float(name, value, valid)
    if not v >= 0:
        raise ParameterError(name, value, valid)
    return v


def check_in_range(name: str, value: object, lo: float, hi: float, *, lo_open=False, hi_open=False) -> float:
    """Check ``lo <= value <= hi`` (ends open when asked)."""
    rng = f"in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    v = as_float(name, value, rng)
    ok_lo = v > lo if lo_open else v >= lo
    ok_hi = v < hi if hi_open else v <= hi
    if not (ok_lo and ok_hi):
        raise ParameterError(name, value, rng)
    return v


def check_int(name: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
    """Check that ``value`` is an integer ``>= minimum`` (and ``<= maximum`` when given; floats
    must be integral, e.g. ``1000.0`` or ``"1e3"``)."""
    valid = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, bool) or value is None:
        raise ParameterError(name, value, valid)
    if isinstance(value, str):
        try:
            value = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            raise ParameterError(name, value, valid, "not numeric") from None
    if isinstance(value, numbers.Integral):
        iv = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        iv = int(value)
    else:
        raise ParameterError(name, value, valid)
    if iv < minimum or (maximum is not None and iv > maximum):
        raise ParameterError(name, value, valid)
    return iv


def check_choice(name: str, value: object, choices) -> str:
    """Check that ``value`` is one of ``choices`` (strings, compared as given).

    >>> check_choice("--method", "auto", ("auto", "mpmath"))
    'auto'
    """
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(name, value, "one of " + ", ".join(choices))
    return value


_ARRAY_RULES = {
    "finite": ("a finite real number", lambda a: np.ones(a.shape, dtype=bool)),
    "positive": (POSITIVE, lambda a: a > 0),
    "nonnegative": (NONNEGATIVE, lambda a: a >= 0),
}


def check_array(name: str, value: object, kind: str = "positive", *, within: tuple[float, float] | None = None,
                why: str = "") -> np.ndarray:
    """``value`` (a number or an array) as a float64 array whose every element is finite and
    ``positive``, ``nonnegative`` or just ``finite`` — or, with ``within=(lo, hi)``, in the closed
    interval [lo, hi] (``why``: the reason for the range, added to the message); otherwise the
    scalar check's message, naming the first offending element.

    >>> check_array("psi1", [1, 2]).tolist()
    [1.0, 2.0]
    >>> check_array("lam", [0.1, -1], "nonnegative")
    Traceback (most recent call last):
    ...
    asymptotics.errors.ParameterError: invalid lam=-1.0: lam must be >= 0 (valid range: [0, inf))
    >>> check_array("scale", [1, 2e3], within=(1e-3, 1e3))
    Traceback (most recent call last):
    ...
    asymptotics.errors.ParameterError: invalid scale=2000.0: scale must be in [0.001, 1000]
    """
    if within is None:
        valid, ok = _ARRAY_RULES[kind]
    else:
        lo, hi = within
        valid, ok = f"in [{lo:g}, {hi:g}]", lambda a: (a >= lo) & (a <= hi)
    if why:
        valid = f"{valid} ({why})"
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        raise ParameterError(name, value, valid, "not numeric")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(name, value, valid, "not numeric") from None
    if arr.size == 0:
        raise ParameterError(name, value, valid, "no values")
    finite = np.isfinite(arr)
    bad = ~finite | ~ok(np.where(finite, arr, 0.0))
    if np.any(bad):
        v = float(arr[bad].ravel()[0])
        raise ParameterError(name, v, valid, "not finite" if not math.isfinite(v) else "")
    return arr


def check_probability_vector(name: str, values, *, atol: float = 1e-9) -> list[float]:
    """Check a list of proportions: each in (0, 1], summing to 1."""
    vals = [check_in_range(f"{name}[{i}]", v, 0.0, 1.0, lo_open=True) for i, v in enumerate(values)]
    if not vals or abs(sum(vals) - 1.0) > atol:
        raise ParameterError(name, values, "non-empty proportions summing to 1")
    return vals


# Rules for the named physical parameters shared by the library, the simulator and the CLI.
RULES: Mapping[str, tuple] = {
    "psi1": (check_positive,),
    "psi2": (check_positive,),
    "alpha": (check_positive,),
    "alpha0": (check_positive,),
    "beta": (check_positive,),
    "lam": (check_nonnegative,),
    "eta": (check_nonnegative,),
    "eta_tilde": (check_nonnegative,),
    "noise": (check_nonnegative,),
    "d": (check_int, 2),
    "n": (check_int, 2),
    "N": (check_int, 1),
    "p": (check_int, 1),
    "seeds": (check_int, 1),
    "steps": (check_int, 1),
    "n_test": (check_int, 1),
}


def check_parameters(**params) -> dict:
    """Validate named parameters with the shared rules; unknown names are an error.

    >>> check_parameters(psi1=2, psi2=1.5, lam=0.0)
    {'psi1': 2.0, 'psi2': 1.5, 'lam': 0.0}
    """
    out = {}
    for name, value in params.items():
        if name not in RULES:
            raise ParameterError(name, value, f"one of the known parameters {sorted(RULES)}", "unknown parameter")
        rule, *args = RULES[name]
        out[name] = rule(name, value, *args)
    return out


# ---- the default of a memory limit ------------------------------------------------------------
# The one reading of the machine's free memory, here (layer 0) so that the simulator, which imports
# only activations, params and errors, and asymptotics.memory (which re-exports it) share it.
def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (``MemAvailable`` on Linux, psutil
    elsewhere when installed), or ``None`` when it cannot be told."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:  # pragma: no cover - non-Linux
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # pragma: no cover
        pass
    try:  # pragma: no cover
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return None
