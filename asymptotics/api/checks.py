"""The checks every API function shares: arguments of the wrong kind, and parameters a mode does
not use.

**Kinds** (:func:`checked`, a decorator on every function of :mod:`asymptotics.api`): ``None``
for a parameter that has a non-``None`` default (or none at all) is refused, naming the parameter
(``asy.risk(psi1=None)`` would otherwise lose the grid axis); so are a non-bool for a flag
(``center``, ``before``, ``progress``…), a non-integer for an ``int`` parameter, a non-number for
a ``float`` one and a non-string for a ``str`` one. Everything finer (ranges, choices, grids) is
the function's own check; this one only makes sure that a wrong *kind* of value is a
:class:`~asymptotics.errors.ParameterError`, never a ``KeyError`` or ``AttributeError`` deep in
the theory.

**Unused parameters** (:func:`refuse_unused`): a parameter that the chosen mode does not use
(``psi1`` of ``limits`` at ψ1 = ∞, ``alpha`` of ``spectrum`` with ``protocol="ba"``) must be left
at ``None``; a value is refused, naming the parameter, the mode and what the mode takes. The
command line passes only the options the user gave (its defaults are ``None`` there too), so
``theory limits --psi1 7`` is refused with the same rule and message (spelled ``--psi1``).

>>> @checked
... def f(*, psi1=2.0, center: bool = True, points: int = 10):
...     return psi1
>>> f(psi1=None)
Traceback (most recent call last):
...
asymptotics.errors.ParameterError: invalid psi1=None: psi1 must be a value, not None (omit it for the default 2.0)
>>> f(center="yes")
Traceback (most recent call last):
...
asymptotics.errors.ParameterError: invalid center='yes': center must be True or False
>>> refuse_unused({"psi1": 7, "psi2": 1.5}, ("psi2",), "limit psi1-inf", "the limit is at ψ1 = ∞")
Traceback (most recent call last):
...
asymptotics.errors.ParameterError: invalid psi1=7: psi1 must be omitted with limit psi1-inf (the limit is at ψ1 = ∞; it takes psi2)
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Iterable, Mapping

import numpy as np

from ..errors import ParameterError
from .errors import in_cli, option

__all__ = ["checked", "check_argument", "refuse_unused", "check_centred", "CENTRED_TOL"]

#: |μ0| above which an activation is not centred (the one-step theory's own tolerance).
CENTRED_TOL = 1e-10


def _annotation(p: inspect.Parameter) -> str:
    ann = p.annotation
    if ann is inspect.Parameter.empty:
        return ""
    return ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))


def _kinds(ann: str) -> set[str]:
    return {part.strip() for part in ann.split("|")} if ann else set()


def check_argument(name: str, value, p: inspect.Parameter) -> None:
    """Refuse ``value`` for the parameter ``p`` when it is of the wrong kind (module docstring)."""
    kinds = _kinds(_annotation(p))
    default = p.default
    if value is None:
        if default is inspect.Parameter.empty:
            raise ParameterError(option(name), None, "given a value (it has no default)")
        if default is not None and "None" not in kinds:
            raise ParameterError(option(name), None, f"a value, not None (omit it for the default {default!r})")
        return
    if "bool" in kinds or isinstance(default, bool):
        if not isinstance(value, (bool, np.bool_)):
            raise ParameterError(option(name), value, "True or False" + (" (or None)" if "None" in kinds else ""))
        return
    if "int" in kinds:  # an integral float (1000.0) passes, as with check_int
        integral = isinstance(value, (numbers.Integral, np.integer)) or (
            isinstance(value, (numbers.Real, np.floating)) and math.isfinite(value) and float(value).is_integer())
        if isinstance(value, (bool, np.bool_)) or not integral:
            raise ParameterError(option(name), value, "an integer")
        return
    if "float" in kinds:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)):
            raise ParameterError(option(name), value, "a number")
        return
    if kinds == {"str"} or kinds == {"str", "None"}:
        if not isinstance(value, str):
            raise ParameterError(option(name), value, "a string")


def checked(fn):
    """Decorate an API function: its arguments are checked by :func:`check_argument` first
    (unknown names and positional arguments stay Python's ``TypeError``)."""
    sig = inspect.signature(fn)
    params = sig.parameters

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            check_argument(name, value, params[name])
        return fn(*args, **kwargs)

    wrapper.__signature__ = sig
    return wrapper


def refuse_unused(given: Mapping[str, object], takes: Iterable[str], mode: str, why: str = "") -> None:
    """The one rule for parameters a mode does not use: each of ``given`` (name → value) that is
    not ``None`` and not in ``takes`` is refused, naming the ``mode`` (``"protocol ba"``, already
    spelled) and the parameters it takes; ``why`` says why the mode has no use for it."""
    takes = tuple(takes)
    for name, value in given.items():
        if value is not None and name not in takes:
            notes = [why] if why else []
            if takes:
                notes.append(f"it takes {', '.join(map(option, takes))}")
            detail = f" ({'; '.join(notes)})" if notes else ""
            raise ParameterError(option(name), value, f"omitted with {mode}{detail}")


def check_centred(theory: str, **activations) -> None:
    """Refuse an uncentred activation (μ0 = E σ(z) ≠ 0, i.e. ``center=False`` on a non-centred
    function) for a theory that assumes centred σ, σ*, naming the role and saying the fix in the
    caller's words (``--no-center`` on the command line, ``center=True`` in Python)."""
    for role, act in activations.items():
        mu0 = act.constants().mu0
        if abs(mu0) > CENTRED_TOL:
            fix = "leave out --no-center (--center is the default)" if in_cli() else "use center=True"
            raise ParameterError(option(role), act.name, "a centred activation (μ0 = E σ(z) = 0)",
                                 f"μ0 = {mu0:.6g}; {theory} assumes centred σ, σ*: {fix}")
