"""What the benchmark scripts share: the best of repeated timings, and publishing a report (printed,
then written atomically). The scripts run as ``python benchmarks/bench_<name>.py``, so this folder is
on their path and they import this module as ``_common``."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence


def best_of(fn: Callable, repeats: int) -> tuple[float, object]:
    """(the best wall-clock seconds, the last value) of ``repeats`` calls of ``fn``."""
    best, value = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def publish(lines: Sequence[str], out) -> str:
    """Print the report ``lines`` and write them to ``out`` (atomically, its folder created);
    returns the text."""
    from asymptotics.atomic import write_bytes

    text = "\n".join(lines)
    print(text)
    write_bytes(out, text.encode(), create_parents=True)
    return text
