"""Memory sizes: parsing (``"8GiB"``), printing, the default limit, and the pre-flight check that
refuses a computation estimated above a limit before it starts. The machine's available memory
is read by :func:`asymptotics.params.available_memory` (re-exported here), the one home that the
simulator, which may import only ``activations``, ``params`` and ``errors``, shares.

>>> parse_memory("1.5GiB"), parse_memory("2GB"), parse_memory(1024)
(1610612736, 2000000000, 1024)
>>> format_bytes(1610612736)
'1.50 GiB'
"""

from __future__ import annotations

import math
import re

from .errors import ParameterError, ResourceError
from .params import available_memory

__all__ = [
    "parse_memory",
    "format_bytes",
    "available_memory",
    "default_memory_limit",
    "check_memory",
    "MEMORY_HELP",
]

_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
}  # fmt: skip

#: Fraction of the available memory a command may use by default.
DEFAULT_FRACTION = 0.8

MEMORY_HELP = (
    "Memory this command may use, e.g. 8GiB, 512MiB (default: 80% of the memory available now); "
    "a run estimated above it is refused before it starts."
)


def parse_memory(value: object, name: str = "max_memory") -> int:
    """Bytes from ``4294967296``, ``"4GiB"``, ``"4G"`` (binary), ``"4GB"`` (decimal), ``"512MiB"``."""
    valid = "a positive size in bytes or with a unit, e.g. '512MiB', '8GiB', '8G', '8GB'"
    if isinstance(value, bool):
        raise ParameterError(name, value, valid)
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value <= 0:
            raise ParameterError(name, value, valid)
        return int(value)
    if not isinstance(value, str):
        raise ParameterError(name, value, valid)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", value)
    if not m or m.group(2).lower() not in _UNITS:
        raise ParameterError(name, value, valid)
    v = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not (v >= 1 and math.isfinite(v)):
        raise ParameterError(name, value, valid)
    return int(v)


def format_bytes(n: int | float | None) -> str:
    """``1610612736`` → ``'1.50 GiB'`` (``None`` → ``'unbounded'``)."""
    if n is None:
        return "unbounded"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


def default_memory_limit() -> int | None:
    """The default limit: :data:`DEFAULT_FRACTION` of :func:`available_memory`."""
    avail = available_memory()
    return None if avail is None else int(DEFAULT_FRACTION * avail)


def check_memory(what: str, needed: float, limit: int | str | None = None, option: str = "--max-memory") -> None:
    """Refuse, before any work, a computation estimated to need ``needed`` bytes when that is
    above ``limit`` (bytes or ``"8GiB"``; ``None`` = :func:`default_memory_limit`).

    >>> check_memory("a test", 2**30, "2GiB")
    >>> check_memory("simulate", 9.3 * 2**30, "4GiB")
    Traceback (most recent call last):
    ...
    asymptotics.errors.ResourceError: simulate needs about 9.30 GiB (limit 4.00 GiB; --max-memory)
    """
    lim = default_memory_limit() if limit is None else parse_memory(limit, option)
    if lim is not None and needed > lim:
        raise ResourceError(f"{what} needs about {format_bytes(needed)} (limit {format_bytes(lim)}; {option})")
