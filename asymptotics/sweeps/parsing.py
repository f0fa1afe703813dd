r"""Small parsers of sweep settings: memory sizes, byte counts for humans, scheduler specs.

Memory sizes are bytes or strings with a unit: ``"512MiB"``, ``"8GiB"``, ``"8G"`` (single letters
are binary, as in Slurm), ``"8GB"`` (= 8·10⁹).
"""

from __future__ import annotations

import os
import re

from ..errors import ParameterError
from ..memory import parse_memory  # the one parser of sizes (re-exported here)

__all__ = ["parse_memory", "format_bytes", "parse_scheduler"]

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
