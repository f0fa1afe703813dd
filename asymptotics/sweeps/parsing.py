r"""Small parsers of sweep settings: memory sizes, byte counts for humans, scheduler specs.

Memory sizes are bytes or strings with a unit: ``"512MiB"``, ``"8GiB"``, ``"8G"`` (single letters
are binary, as in Slurm), ``"8GB"`` (= 8·10⁹).
"""

from __future__ import annotations

import math
import os
import re

from ..errors import ParameterError

__all__ = ["parse_memory", "format_bytes", "parse_scheduler"]

_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
}


def parse_memory(value: object, name: str = "max_memory") -> int:
    """Bytes from ``4294967296``, ``"4GiB"``, ``"4G"`` (binary), ``"4GB"`` (decimal), ``"512MiB"``.

    >>> parse_memory("1.5GiB"), parse_memory("2GB"), parse_memory(1024)
    (1610612736, 2000000000, 1024)
    """
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
    if not v >= 1:
        raise ParameterError(name, value, valid)
    return int(v)


def format_bytes(n: int | None) -> str:
    """``1610612736`` → ``'1.50 GiB'``."""
    if n is None:
        return "unbounded"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def parse_scheduler(spec: object) -> tuple[str, object]:
    """Parse an executor spec without starting anything.

    Returns ``("inprocess", None)``, ``("processes", n)``, ``("local", n)`` (a Dask
    ``LocalCluster``), ``("address", "tcp://…")`` (an existing Dask scheduler) or
    ``("client", client)`` for a ``distributed.Client`` object.
    """
    valid = "'in-process', 'processes[:N]', 'local[:N]' (Dask LocalCluster) or a Dask scheduler address tcp://host:port"
    if spec is None:
        return ("inprocess", None)
    if not isinstance(spec, str):
        if type(spec).__name__ == "Client" and hasattr(spec, "submit"):
            return ("client", spec)
        raise ParameterError("scheduler", spec, valid)
    s = spec.strip()
    low = s.lower()
    if low in ("", "inprocess", "in-process", "sync", "serial"):
        return ("inprocess", None)
    for kind in ("processes", "local"):
        if low == kind or low.startswith(kind + ":"):
            n_text = s[len(kind) + 1:] if ":" in s else ""
            if n_text == "":
                n = os.cpu_count() or 1
            else:
                try:
                    n = int(n_text)
                except ValueError:
                    raise ParameterError("scheduler", spec, valid, f"{kind}:N needs an integer N >= 1") from None
            if n < 1:
                raise ParameterError("scheduler", spec, valid, f"{kind}:N needs an integer N >= 1")
            return (kind, n)
    if re.match(r"^(tcp|tls|ucx|ws|wss|inproc)://\S+$", s):
        return ("address", s)
    raise ParameterError("scheduler", spec, valid)
