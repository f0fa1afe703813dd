"""The result of a simulation: per-seed numbers, their mean and standard errors, provenance."""

from __future__ import annotations

import math
import platform
import sys
from dataclasses import dataclass, field

import numpy as np

from .measurements import RISK_MEASUREMENTS

__all__ = ["SimulationResult", "aggregate", "versions"]


def versions() -> dict:
    """Versions of the package and the numerical stack."""
    from asymptotics._version import __version__

    out = {"asymptotics": __version__, "python": platform.python_version()}
    for mod in ("numpy", "scipy", "numba"):
        m = sys.modules.get(mod) or __import__(mod)
        out[mod] = getattr(m, "__version__", "?")
    return out


def aggregate(per_seed: list[dict], names) -> tuple[dict, dict, dict]:
    """Mean, standard error of the mean over seeds (sample s.d./√k; NaN for one seed), and the
    test-set part of that standard error, √(Σₖ test_seₖ²)/k, for the test-set quantities."""
    mean, se, test_se = {}, {}, {}
    k = len(per_seed)
    for name in names:
        vals = np.array([ps[name] for ps in per_seed if ps.get(name) is not None], dtype=float)
        if vals.size == 0:
            continue
        mean[name] = float(vals.mean())
        se[name] = float(vals.std(ddof=1) / math.sqrt(vals.size)) if vals.size > 1 else math.nan
        if name in RISK_MEASUREMENTS:
            ts = np.array([ps.get(f"{name}_test_se", math.nan) for ps in per_seed], dtype=float)
            test_se[name] = float(math.sqrt(np.sum(ts**2)) / k)
    return mean, se, test_se


@dataclass(frozen=True)
class SimulationResult:
    """Monte-Carlo estimates at one parameter point.

    Attributes:
        config: the (validated) configuration.
        per_seed: one dict per seed: every measurement, the test-set standard errors
            ``<name>_test_se`` of the test-set quantities, and diagnostics (``ridge_form*``,
            ``ridge_solver*``, ``ridge_rcond*``, ``elapsed_s``).
        mean: measurement → mean over seeds.
        se: measurement → standard error of that mean (seed-to-seed spread, which includes the
            test-set error; NaN with a single seed).
        test_se: test-set quantity → the part of its standard error due to the finite test set.
        meta: provenance: versions, root seed, seed spawn keys, activations with constants,
            sizes, thread budgets, timings.
    """

    config: object
    per_seed: list[dict]
    mean: dict
    se: dict
    test_se: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    @property
    def seeds(self) -> int:
        return len(self.per_seed)

    @property
    def seed_indices(self) -> list[int]:
        """The seed indices, in the order of :attr:`per_seed`."""
        return [ps["seed"] for ps in self.per_seed]

    def values(self, name: str) -> np.ndarray:
        """The per-seed values of one measurement (NaN where a seed has none), for fits of
        finite-size trends.

        >>> from validation.simulator import BaConfig, simulate
        >>> res = simulate(BaConfig(d=40, measure=("risk",)), seeds=3)
        >>> res.values("delta").shape
        (3,)
        """
        return np.array([math.nan if ps.get(name) is None else float(ps[name]) for ps in self.per_seed])

    @property
    def names(self) -> tuple[str, ...]:
        """The measurement names of this result."""
        return tuple(self.mean)

    def as_row(self) -> dict:
        """One flat row: parameters, then ``<name>_mean``, ``<name>_se`` (None with one seed) and,
        for test-set quantities, ``<name>_test_se``."""
        row = dict(self.config.as_dict())
        row["seeds"] = self.seeds
        row["root_seed"] = self.meta.get("root_seed")
        for name in self.mean:
            row[f"{name}_mean"] = _clean(self.mean[name])
            row[f"{name}_se"] = _clean(self.se.get(name))
            if name in self.test_se:
                row[f"{name}_test_se"] = _clean(self.test_se[name])
        return row

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v:.4g}±{self.se.get(k, math.nan):.2g}" for k, v in self.mean.items())
        return f"SimulationResult({self.config.protocol}, d={self.config.d}, seeds={self.seeds}: {body})"


def _clean(v):
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None
