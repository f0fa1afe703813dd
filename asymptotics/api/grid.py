"""Parameter values of the Python API: the command line's grids, and numbers, lists and arrays.

Each grid parameter of an API function takes

* a number: ``psi1=2``;
* a list, tuple or 1-D array: ``psi1=[0.5, 4, 20]``, ``psi1=np.geomspace(0.3, 30, 200)``;
* a grid string, exactly as on the command line: ``"0.5,4,20"``, ``"0:10:11"``,
  ``"log:1e-4:1:5"``.

**Several grid parameters form a Cartesian grid** (every combination, the first parameter of the
function varying slowest), as on the command line; they are *not* broadcast against each other.
For paired values (a path through parameter space) call the theory functions of
:mod:`asymptotics.theory`, which broadcast numpy arrays.

Every value is checked by the shared rule of its name (:data:`asymptotics.params.RULES`) with the
command line's message.

>>> values("psi1", "log:1:100:3")
[1.0, 10.0, 100.0]
>>> values("lam", np.array([0.0, 1e-3]))
[0.0, 0.001]
>>> product(10, psi1=[1, 2], eta=[0.5])
[{'psi1': 1, 'eta': 0.5}, {'psi1': 2, 'eta': 0.5}]
>>> values("psi1", [[1, 2]])
Traceback (most recent call last):
...
asymptotics.errors.ParameterError: invalid psi1=[[1, 2]]: psi1 must be a number, a 1-D list or array, or a grid string like '0:1:5' (2-D)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from ..errors import ParameterError
from ..grids import MAX_POINTS, cartesian, parse_values
from ..params import RULES

__all__ = ["values", "product", "is_infinite", "VALUE_KINDS"]

#: What a grid parameter accepts (the text of the error for anything else).
VALUE_KINDS = "a number, a 1-D list or array, or a grid string like '0:1:5'"


def _plain(name: str, value):
    """``value`` as ``parse_values`` takes it: a number, a string or a flat list."""
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise ParameterError(name, value.tolist(), VALUE_KINDS, f"{value.ndim}-D")
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, bytes, int, float, list, tuple)) or value is None:
        if isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple, np.ndarray)) for v in value):
            raise ParameterError(name, value, VALUE_KINDS, f"{np.ndim(value)}-D")
        return value
    if isinstance(value, Iterable):  # range, pandas Series, …
        return _plain(name, np.asarray(list(value)))
    return value


def is_infinite(value) -> bool:
    """Whether ``value`` is ``inf``/``math.inf``/``"inf"`` (parameters that allow the limit)."""
    if isinstance(value, str):
        return value.strip().lower() in ("inf", "infinity")
    return isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and math.isinf(value) \
        and value > 0


def values(name: str, value, rule: Callable | None = None, *, allow_inf: bool = False) -> list[float] | None:
    """One parameter's values as floats, each checked by ``rule`` (default: the shared rule of
    ``name``, if any); ``None`` stays ``None``. ``allow_inf``: ``inf`` (alone or as an item of a
    list, ``"1,inf"``) is the limit, kept as ``math.inf`` and not checked by ``rule``."""
    if value is None:
        return None
    if allow_inf:
        plain = _plain(name, value)
        items = plain.split(",") if isinstance(plain, str) and ":" not in plain else plain
        if isinstance(items, (list, tuple)) and any(is_infinite(v) for v in items):
            return [v for item in items for v in ([math.inf] if is_infinite(item) else values(name, item, rule))]
        if is_infinite(plain):
            return [math.inf]
    vals = parse_values(name, _plain(name, value))
    if rule is None and name in RULES:
        rule, *args = RULES[name]
        return [rule(name, v, *args) for v in vals]
    return [rule(name, v) for v in vals] if rule else vals


def product(max_points: int = MAX_POINTS, **grids: list) -> list[dict]:
    """The Cartesian grid of the value lists (``None`` lists skipped), at most ``max_points``."""
    return cartesian(max_points=max_points, **{k: v for k, v in grids.items() if v is not None})
