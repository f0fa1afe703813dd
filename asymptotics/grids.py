"""Parameter grids from the command-line syntax.

A value is a number (``0.5``), a comma list (``1,2,4``), a linear range ``start:stop:num``
(``0:1:5`` → 0, 0.25, 0.5, 0.75, 1) or a log range ``log:start:stop:num`` with *values* as ends
(``log:1e-4:10:6`` → 1e-4, 1e-3, …, 10). Several grid parameters form a Cartesian grid.

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

__all__ = ["parse_values", "cartesian"]

_MAX_POINTS = 10_000_000


def parse_values(name: str, text: str | float | int | list) -> list[float]:
    """Parse one parameter's value or grid into a list of floats (validation of ranges is separate)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return [as_float(name, text)]
    if isinstance(text, (list, tuple)):
        return [as_float(name, v) for v in text]
    s = str(text).strip()
    syntax = "a number, a list 'a,b,c', a range 'start:stop:num' or 'log:start:stop:num'"
    if not s:
        raise ParameterError(name, text, syntax)
    if s.startswith("log:"):
        parts = s[4:].split(":")
        if len(parts) != 3:
            raise ParameterError(name, text, syntax)
        lo, hi = as_float(name, parts[0]), as_float(name, parts[1])
        num = check_int(f"{name} (number of points)", parts[2], 1)
        if lo <= 0 or hi <= 0:
            raise ParameterError(name, text, "a log range with positive ends", "log:start:stop:num")
        if num > _MAX_POINTS:
            raise ParameterError(f"{name} (number of points)", num, f"<= {_MAX_POINTS}")
        vals = np.geomspace(lo, hi, num)
        return [float(round(v, 15 - max(0, int(math.floor(math.log10(abs(v))))))) if v else 0.0 for v in vals]
    if ":" in s:
        parts = s.split(":")
        if len(parts) != 3:
            raise ParameterError(name, text, syntax)
        lo, hi = as_float(name, parts[0]), as_float(name, parts[1])
        num = check_int(f"{name} (number of points)", parts[2], 1)
        if num > _MAX_POINTS:
            raise ParameterError(f"{name} (number of points)", num, f"<= {_MAX_POINTS}")
        return [float(v) for v in np.linspace(lo, hi, num)]
    if "," in s:
        return [as_float(name, p) for p in s.split(",") if p.strip()]
    return [as_float(name, s)]


def cartesian(**grids: list) -> list[dict]:
    """All combinations of the given value lists, as a list of ``{name: value}`` rows
    (the first parameter varies slowest)."""
    names = list(grids)
    total = math.prod(len(v) for v in grids.values())
    if total > _MAX_POINTS:
        raise ParameterError("grid", total, f"at most {_MAX_POINTS} points")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grids.values())]
