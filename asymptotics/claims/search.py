r"""The search for counterexamples: scrambled Sobol sampling of the domain, then a bounded local
search that minimises the relative margin from the worst samples.

**Sampling.** The continuous parameters (the domain's ranges) are the unit cube [0, 1]^k mapped
to each range (uniformly, or uniformly in log for a log range); the points are the first n of a
scrambled Sobol sequence (:class:`scipy.stats.qmc.Sobol`) whose scrambling is seeded from
``numpy.random.SeedSequence(root_seed, spawn_key=(pair, claim))``. The sequence is a prefix
sequence: a larger sample extends a smaller one, so stored points are reused. The grid
parameters are a Cartesian factor: every sample is evaluated at every grid combination.

**Adversarial search.** From the ``starts`` samples with the smallest relative margin (resolved
points only), a bounded Nelder–Mead (:func:`scipy.optimize.minimize`) in the unit-cube
coordinates minimises the relative margin, its grid combination and activation pair held fixed,
with an initial simplex the size of the sample's spacing (n^(−1/k)). Unresolved points met on the
way are recorded (never as support) and repel the search (objective +1).
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from .claim import Domain, Range

__all__ = ["sobol_units", "params_at", "units_of", "neighbour", "local_search", "seed_sequence",
           "MONOTONE_STEP", "DEFAULT_STARTS", "DEFAULT_EVALS"]

#: The relative step of a monotonicity comparison: p·(1 + h) on a log scale, p + h·(high − low)
#: on a linear one.
MONOTONE_STEP = 1e-3
#: Local searches started from the worst samples, and the evaluations each may spend.
DEFAULT_STARTS = 4
DEFAULT_EVALS = 60
#: An improvement of the relative margin smaller than this does not count (see :func:`local_search`).
STALL_TOL = 1e-9
#: Simplex rounds (k + 1 evaluations each) without such an improvement after which a start stops.
STALL_ROUNDS = 5


def seed_sequence(root_seed: int, name: str, pair_index: int) -> np.random.SeedSequence:
    """The seed of one (claim, activation pair): ``SeedSequence(root_seed, spawn_key=(pair, K))``
    with K the first 32 bits of SHA-256 of the claim's name."""
    k = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
    return np.random.SeedSequence(int(root_seed), spawn_key=(int(pair_index), k))


def sobol_units(dims: int, n: int, seed: np.random.SeedSequence) -> np.ndarray:
    """The first ``n`` points of the scrambled Sobol sequence in [0, 1]^dims (shape (n, dims))."""
    if dims == 0:
        return np.zeros((1, 0))
    from scipy.stats import qmc

    sampler = qmc.Sobol(d=dims, scramble=True, seed=np.random.default_rng(seed))
    m = max(0, math.ceil(math.log2(max(n, 1))))
    return sampler.random_base2(m)[:n]


def params_at(domain: Domain, u) -> dict:
    """The range parameters at the unit-cube point ``u`` (ordered as ``domain.ranges``)."""
    return {k: r.point(x) for (k, r), x in zip(domain.ranges.items(), np.asarray(u, float), strict=True)}


def units_of(domain: Domain, params: Mapping) -> np.ndarray:
    """The unit-cube coordinates of a point's range parameters."""
    return np.array([r.unit(float(params[k])) for k, r in domain.ranges.items()], float)


def neighbour(domain: Domain, name: str, value: float, step: float = MONOTONE_STEP) -> tuple[float, int]:
    """The neighbour of ``name = value`` for a monotonicity comparison and its direction (+1 up,
    −1 down): p·(1+h) or p + h·(high − low), stepping down instead where up leaves the range."""
    r = domain.ranges.get(name)
    value = float(value)
    if isinstance(r, Range):
        if r.scale == "log":
            up, down = value * (1 + step), value / (1 + step)
        else:
            width = (r.high - r.low) or max(abs(value), 1.0)
            up, down = value + step * width, value - step * width
        return (up, 1) if up <= r.high else (down, -1)
    return (value * (1 + step), 1) if value > 0 else (value + step, 1) if value == 0 else (value * (1 - step), 1)


def local_search(objective: Callable[[np.ndarray], float], starts: list[np.ndarray], spacing: float,
                 evals: int = DEFAULT_EVALS) -> list[tuple[np.ndarray, float]]:
    """Bounded Nelder–Mead from each start in [0, 1]^k; ``objective(u)`` is the relative margin.
    A start stops once ``STALL_ROUNDS·(k + 1)`` evaluations in a row improved its best value by less than
    :data:`STALL_TOL` (the objective is flat, or float64 noise, there). Returns the best
    (u, value) of each start."""
    from scipy.optimize import minimize

    out = []
    for u0 in starts:
        u0 = np.clip(np.asarray(u0, float), 0.0, 1.0)
        k = u0.size
        if k == 0:
            continue
        best = [u0, objective(u0), 0]

        def f(u, best=best, k=k):
            v = objective(np.clip(u, 0.0, 1.0))
            best[2] = 0 if v < best[1] - STALL_TOL else best[2] + 1
            if v < best[1]:
                best[0], best[1] = np.clip(u, 0.0, 1.0), v
            if best[2] >= STALL_ROUNDS * (k + 1):
                raise _Stalled
            return v

        simplex = np.repeat(u0[None, :], k + 1, axis=0)
        for i in range(k):  # a step toward the cube's interior in each coordinate
            simplex[i + 1, i] += spacing if u0[i] + spacing <= 1 else -spacing
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                minimize(f, u0, method="Nelder-Mead", bounds=[(0.0, 1.0)] * k,
                         options={"maxfev": int(evals), "initial_simplex": simplex, "xatol": 1e-12, "fatol": 1e-15})
            except _Stalled:
                pass
        out.append((best[0], best[1]))
    return out


class _Stalled(Exception):
    """Stops a local search that no longer improves."""
