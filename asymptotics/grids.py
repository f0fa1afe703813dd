"""Parameter grids from the command-line syntax.

A value is a number (``0.5``), a comma list (``1,2,4``), a linear range ``start:stop:num``
(``0:1:5`` → 0, 0.25, 0.5, 0.75, 1) or a log range ``log:start:stop:num`` with *values* as ends
(``log:1e-4:10:6`` → 1e-4, 1e-3, …, 10). Several grid parameters form a Cartesian grid.
A grid has at most :data:`MAX_POINTS` points (a command may allow fewer); an empty item
(``1,,2``), a malformed range or a non-finite number is an error naming the parameter.

>>> parse_values("psi1", "1,2,4")
[1.0, 2.0, 4.0]
>>> parse_values("lam", "log:1e-2:1:3")
[0.01, 0.1, 1.0]
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .errors import ParameterError
from .params import as_float, check_int

__all__ = ["parse_values", "cartesian", "MAX_POINTS", "SYNTAX"]

#: Most points of one parameter's grid and of a Cartesian grid.
MAX_POINTS = 1_000_000
_MAX_POINTS = MAX_POINTS  # the former private name
#: The grid syntax, as error messages and help texts state it.
SYNTAX = "a number, a list 'a,b,c', a range 'start:stop:num' or 'log:start:stop:num'"


def _count(name: str, text: str) -> int:
    return check_int(f"{name} (number of points)", text, 1, MAX_POINTS)


def parse_values(name: str, text: str | float | int | list) -> list[float]:
    """Parse one parameter's value or grid into a list of floats (validation of ranges is separate)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return [as_float(name, text)]
    if isinstance(text, (list, tuple)):
        if not text:
            raise ParameterError(name, text, SYNTAX, "no values")
        return [as_float(name, v) for v in text]
    s = str(text).strip()
    if not s:
        raise ParameterError(name, text, SYNTAX, "empty")
    if s.startswith("log:"):
        parts = s[4:].split(":")
        if len(parts) != 3:
            raise ParameterError(name, text, SYNTAX, "log:start:stop:num has three parts")
        lo, hi = as_float(name, parts[0], SYNTAX), as_float(name, parts[1], SYNTAX)
        num = _count(name, parts[2])
        if lo <= 0 or hi <= 0:
            raise ParameterError(name, text, "a log range with positive ends", "log:start:stop:num")
        vals = np.geomspace(lo, hi, num)
        return [float(round(v, 15 - max(0, int(math.floor(math.log10(abs(v))))))) if v else 0.0 for v in vals]
    if ":" in s:
        parts = s.split(":")
        if len(parts) != 3:
            raise ParameterError(name, text, SYNTAX, "start:stop:num has three parts")
        lo, hi = as_float(name, parts[0], SYNTAX), as_float(name, parts[1], SYNTAX)
        num = _count(name, parts[2])
        return [float(v) for v in np.linspace(lo, hi, num)]
    if "," in s:
        items = s.split(",")
        if any(not p.strip() for p in items):
            raise ParameterError(name, text, SYNTAX, "empty item in the list")
        if len(items) > MAX_POINTS:
            raise ParameterError(f"{name} (number of points)", len(items), f"<= {MAX_POINTS}")
        return [as_float(name, p, SYNTAX) for p in items]
    return [as_float(name, s, SYNTAX)]


def cartesian(max_points: int = MAX_POINTS, **grids: list) -> list[dict]:
    """All combinations of the given value lists, as a list of ``{name: value}`` rows
    (the first parameter varies slowest); at most ``max_points`` of them.

    >>> cartesian(a=[1, 2], b=[3])
    [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    """
    names = list(grids)
    total = math.prod(len(v) for v in grids.values())
    if total > max_points:
        sizes = " × ".join(f"{len(v)} ({k})" for k, v in grids.items() if len(v) > 1)
        raise ParameterError("grid", total, f"at most {max_points} points", f"{sizes} points")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grids.values())]
