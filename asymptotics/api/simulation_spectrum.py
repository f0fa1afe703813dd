r"""The empirical spectra of the simulated networks (``asymptotics simulate --measure spectrum``).

For each grid point and seed the simulator draws the same network as its risk run of that seed
(:func:`validation.simulator.spectrum.measure_spectrum`) and diagonalises

- ``weights``: the N×N Gram W₁ᵀW₁ of the trained first layer (squared singular values);
- ``ck_true`` / ``ck_ge``: the conjugate-kernel Gram FᵀF/n on fresh data, F = σ(X̃W₁) (true
  features) or μ1X̃W₁ + μ⊥Z (Gaussian-equivalent features);
- with ``before``: the same with W₀.

The rows are the density on the bins (``x`` the bin centre, ``density`` the mean over seeds of
counts/(N·width), ``density_se`` its standard error) or, without bins, every eigenvalue. The meta
carries the top eigenvalues with the squared overlaps of their eigenvectors (mean ± s.e. over
seeds). The theory of the same matrices is ``asymptotics theory spectrum`` (docs/spectra.md).

>>> import asymptotics as asy
>>> res = asy.simulate(d=60, psi1=2, psi2=1, eta=6, measure="spectrum", matrix="weights", bins="0:20:40",
...                    seeds=2, progress=False)
>>> sorted(res.rows[0])[:4]
['d', 'density', 'density_se', 'eta']
>>> res.meta["outliers"][0]["matrix"], res.meta["outliers"][0]["rank"]
('weights', 1)
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from ..memory import check_memory
from ..results import Columns, Result, base_meta
from .errors import option
from .progress import Progress

__all__ = ["simulate_spectrum", "parse_bins", "SPECTRUM_TABLE"]

#: The default table: the point, the matrix, the bin and its density ± s.e.
SPECTRUM_TABLE = Columns(("matrix",), ("x", "density", "density_se", "eigenvalue"))
#: Most bins of one histogram.
MAX_BINS = 100_000


def parse_bins(bins) -> np.ndarray | None:
    """Bin edges from ``"LO:HI:COUNT"`` (COUNT equal bins), a list of increasing edges, or ``None``."""
    if bins is None:
        return None
    valid = "LO:HI:COUNT with LO < HI and 1 ≤ COUNT ≤ 100000, or increasing edges"
    if isinstance(bins, str):
        parts = bins.split(":")
        try:
            lo, hi, count = float(parts[0]), float(parts[1]), int(parts[2])
        except (IndexError, ValueError):
            raise ParameterError(option("bins"), bins, valid) from None
        if len(parts) != 3 or not (math.isfinite(lo) and math.isfinite(hi) and lo < hi and 1 <= count <= MAX_BINS):
            raise ParameterError(option("bins"), bins, valid)
        return np.linspace(lo, hi, count + 1)
    edges = np.asarray(bins, dtype=float)
    if edges.ndim != 1 or edges.size < 2 or edges.size > MAX_BINS + 1 or not np.all(np.isfinite(edges)) \
            or np.any(np.diff(edges) <= 0):
        raise ParameterError(option("bins"), bins, valid)
    return edges


def _mean_se(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan)


def simulate_spectrum(configs, points, *, seeds: int, root_seed: int, matrix="weights,ck", features="true,ge",
                      before: bool = False, top: int = 3, bins=None, eigenvalues: bool = False, max_memory=None,
                      progress: bool | None = None, protocol: str = "ba") -> Result:
    """The spectra of the networks of ``configs`` (one per grid point ``points``), ``seeds`` seeds
    each: see the module. Called by :func:`asymptotics.api.simulation.simulate` with
    ``measure="spectrum"``, which builds and checks the configurations."""
    from validation.simulator.spectrum import measure_spectrum, pooled_histogram, spectrum_memory_bytes

    mats = tuple(m.strip() for m in matrix.split(",")) if isinstance(matrix, str) else tuple(matrix)
    feats = tuple(f.strip() for f in features.split(",")) if isinstance(features, str) else tuple(features)
    top = int(top)
    edges = parse_bins(bins)
    keep = edges is None or bool(eigenvalues)
    need = max(spectrum_memory_bytes(cfg, before) for cfg in configs)
    check_memory(f"simulate --measure spectrum at d = {max(c.d for c in configs)}", need, max_memory,
                 option("max_memory"))
    rows, outliers, elapsed, first = [], [], 0.0, None
    with Progress(len(configs) * seeds, f"spectra {protocol}", progress, min_total=0) as bar:
        for cfg, point in zip(configs, points, strict=True):
            ms = []
            for k in range(seeds):
                try:
                    ms.append(measure_spectrum(cfg, root_seed, k, matrices=mats, features=feats, before=before,
                                               top=top, bins=edges, keep_eigenvalues=keep,
                                               memory_limit=None if max_memory is None else need + 1))
                except ParameterError as exc:  # name the user's option, not the simulator's argument
                    user = {"matrices": "matrix", "features": "ck_features", "top": "top", "bins": "bins"}
                    raise ParameterError(option(user[exc.name]) if exc.name in user else exc.name, exc.value,
                                         exc.valid) from None
                bar.advance()
            first = first or ms[0]
            elapsed += sum(m.elapsed_s for m in ms)
            for name in ms[0].spectra:
                if edges is not None:
                    mean, se = pooled_histogram(ms, name, edges)
                    centres = 0.5 * (edges[1:] + edges[:-1])
                    rows += [{**point, "matrix": name, "x": float(x), "density": float(a),
                              "density_se": None if not math.isfinite(b) else float(b)}
                             for x, a, b in zip(centres, mean, se, strict=True)]
                    if eigenvalues:
                        rows += [{**point, "matrix": name, "seed": k, "eigenvalue": float(v)}
                                 for k, m in enumerate(ms) for v in m[name].eigenvalues]
                else:
                    rows += [{**point, "matrix": name, "seed": k, "eigenvalue": float(v)}
                             for k, m in enumerate(ms) for v in m[name].eigenvalues]
                for rank in range(len(ms[0][name].top)):
                    tops = [m[name].top[rank] for m in ms if len(m[name].top) > rank]
                    loc, loc_se = _mean_se([t.location for t in tops])
                    ov = {key: _mean_se([t.overlaps[key] for t in tops]) for key in tops[0].overlaps}
                    outliers.append({**point, "matrix": name, "rank": rank + 1, "location": loc,
                                     "location_se": None if math.isnan(loc_se) else loc_se,
                                     "overlaps": {k: v[0] for k, v in ov.items()},
                                     "overlaps_se": {k: (None if math.isnan(v[1]) else v[1]) for k, v in ov.items()},
                                     "below": [m[name].below for m in ms], "above": [m[name].above for m in ms]})
    meta = base_meta(command="simulate", measure="spectrum", protocol=protocol, regime=first.regime, seeds=seeds,
                     root_seed=root_seed, matrices=list(first.spectra), bins=None if edges is None else edges.tolist(),
                     outliers=outliers, memory_bytes=need, elapsed_s=elapsed, simulator_versions=first.versions,
                     formulas="docs/spectra.md (theory: asymptotics theory spectrum)")
    cols = Columns(tuple(points[0]) + SPECTRUM_TABLE.params, SPECTRUM_TABLE.values + (("seed",) if keep else ()))
    return Result(rows=rows, meta=meta, columns=cols)
