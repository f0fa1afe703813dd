"""Registry of validation cases: theory against simulation with statistically sized tolerances.

A case is a named function that runs simulations at one parameter point (or a small grid),
evaluates the theory there, and returns :class:`Check` rows. A check passes when

    |simulation − theory| ≤ z_max · s.e. + allowance,

where s.e. is the standard error over seeds (and test points) and ``allowance`` a stated
finite-size allowance (absolute), documented with the case. Cases live in the modules of
:mod:`validation.cases` (one per family, imported by that package, whose :func:`validation.cases.cases`
selects among them) and register themselves with :func:`case`; this module imports none of them.

>>> @case("demo", family="demo", description="a toy", quick=True)   # doctest: +SKIP
... def demo(cfg): return [Check("demo", "x", {}, theory=1.0, simulation=1.01, se=0.01)]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

__all__ = ["Check", "Case", "CaseConfig", "case", "run_cases", "REGISTRY"]


@dataclass(frozen=True)
class Check:
    """One theory-vs-simulation comparison.

    Attributes:
        case: name of the case that produced it.
        quantity: what is compared (``risk1``, ``overlap_beta``, …).
        params: the parameter point.
        theory: the d → ∞ prediction.
        simulation: the simulated mean.
        se: its standard error (over seeds).
        allowance: finite-size allowance added to the tolerance (absolute), 0 if none.
        z_max: number of standard errors allowed.
        d: the simulated dimension.
        note: what the allowance stands for, or other remarks.
    """

    case: str
    quantity: str
    params: dict
    theory: float
    simulation: float
    se: float
    allowance: float = 0.0
    z_max: float = 3.0
    d: int | None = None
    note: str = ""

    @property
    def tolerance(self) -> float:
        return self.z_max * self.se + self.allowance

    @property
    def z(self) -> float:
        """(simulation − theory)/s.e. (±inf when s.e. is 0 and they differ)."""
        diff = self.simulation - self.theory
        if self.se > 0:
            return diff / self.se
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)

    @property
    def passed(self) -> bool:
        ok = all(math.isfinite(v) for v in (self.theory, self.simulation, self.se))
        return ok and abs(self.simulation - self.theory) <= self.tolerance

    def as_row(self) -> dict:
        row = asdict(self)
        params = row.pop("params")
        row["params"] = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        row["z"] = self.z if math.isfinite(self.z) else None
        row["tolerance"] = self.tolerance
        row["passed"] = self.passed
        return row


@dataclass(frozen=True)
class CaseConfig:
    """How to run cases: ``quick`` shrinks sizes and seeds; ``workers`` parallel seeds; ``seed`` the
    root of every ``SeedSequence``."""

    quick: bool = False
    workers: int = 1
    seed: int = 20260101
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """A registered validation case."""

    name: str
    family: str
    description: str
    run: Callable[[CaseConfig], list[Check]]
    quick: bool = False


REGISTRY: dict[str, Case] = {}


def case(name: str, *, family: str, description: str, quick: bool = False):
    """Register the decorated function ``fn(cfg: CaseConfig) -> list[Check]`` as a case."""

    def deco(fn):
        if name in REGISTRY and REGISTRY[name].run is not fn:
            raise ValueError(f"validation case {name!r} registered twice")
        REGISTRY[name] = Case(name, family, description, fn, quick)
        return fn

    return deco


def run_cases(selected: list[Case], cfg: CaseConfig, progress: Callable[[str], None] | None = None):
    """Run the cases; returns ``(checks, timings)``. A case that raises yields a failed check
    naming the error rather than stopping the run."""
    checks: list[Check] = []
    timings: dict[str, float] = {}
    for c in selected:
        if progress:
            progress(c.name)
        t0 = time.perf_counter()
        try:
            checks.extend(c.run(cfg))
        except Exception as exc:  # recorded, not swallowed: it fails the run
            checks.append(Check(c.name, "error", {}, math.nan, math.nan, math.nan, note=f"{type(exc).__name__}: {exc}"))
        timings[c.name] = time.perf_counter() - t0
    return checks, timings
