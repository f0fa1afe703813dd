r"""Confirmation on the network: is a counterexample the network's, or only the theory's?

At a point where the theory violates a claim, the network itself is simulated
(:func:`asymptotics.api.simulate`, the project's Monte-Carlo simulator) and the claim's margin is
measured on it. A :class:`NetworkProbe` says how: which simulations to run at the point (several
runs share their seeds, so a margin that is a difference — "the step helps against random features",
"R1 ≥ μ2*²" — is measured seed by seed, paired) and how to form the margin from one seed's rows.

**Seeds.** At each width the probe starts with 8 seeds and doubles them until the standard error of
the mean margin is at most a third of the margin's size (``target_se`` from the theory's margin, or
|network margin|/3), or the cap (64 seeds) is reached. Seeds are the simulator's: seed k is the same
network at every call, so adding seeds reuses the first ones.

**Finite size.** With one width the margin is the finite-d network's. With a ladder of widths
(default d = 250, 500, 1000, scaled down so that no matrix side n, N, p exceeds 2000) the margin
is extrapolated to d → ∞ by the project's finite-size fit
(:func:`validation.finite_size.fit.extrapolate`: weighted least squares of L + b·d^{-ω}, ω ∈ {1/2,
1}, Akaike-averaged, unconditional standard error; docs/finite-size.md), which removes the O(d^{-ω})
bias of a single width.

**Verdict.** z = margin/se; ``"network violates"`` when z < −3, ``"network holds"`` when z > 3
(then the violation is the theory's only), ``"inconclusive"`` otherwise.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .claim import Claim, ConfirmResult

__all__ = [
    "NetworkProbe",
    "network_confirm",
    "scaled_ladder",
    "measure_margin",
    "verdict_from_z",
    "confirm_with",
    "ba_probe",
    "ba_monotone_probe",
    "step_vs_random_features_probe",
    "Z_DECIDE",
    "DEFAULT_LADDER",
]

#: |z| beyond which the network decides.
Z_DECIDE = 3.0
#: the widths simulated by default (a √2 ladder, extrapolated to d → ∞).
DEFAULT_LADDER = (250, 500, 1000)
START_SEEDS = 8
MAX_SEEDS = 64


@dataclass(frozen=True)
class NetworkProbe:
    """How to measure a claim's margin on the network at a point.

    Attributes:
        runs: ``runs(point) -> {name: simulate kwargs}`` (without ``d``, ``seeds``, ``seed``):
            the simulations to run at the point; they share their seeds.
        margin: ``margin({name: row of one seed}) -> float``: the claim's margin from one seed's
            simulated values (positive = the claim holds on that network).
        describe: one line saying what is measured.
        ladder: the widths d; several are extrapolated to d → ∞ (docs/finite-size.md).
        max_seeds: the cap on seeds per width.
    """

    runs: Callable[[dict], Mapping[str, dict]]
    margin: Callable[[Mapping[str, dict]], float]
    describe: str = ""
    ladder: tuple[int, ...] = DEFAULT_LADDER
    max_seeds: int = MAX_SEEDS


def verdict_from_z(z: float) -> str:
    """The network's verdict from the z-score of its margin."""
    if not math.isfinite(z):
        return "inconclusive"
    if z < -Z_DECIDE:
        return "network violates"
    if z > Z_DECIDE:
        return "network holds"
    return "inconclusive"


def _per_seed_margins(
    probe: NetworkProbe, runs: Mapping[str, dict], d: int, seeds: int, root_seed: int
) -> np.ndarray:
    from ..api import simulate

    rows = {}
    for name, kwargs in runs.items():
        res = simulate(
            **{
                **kwargs,
                "d": int(d),
                "seeds": int(seeds),
                "seed": int(root_seed),
                "per_seed": True,
                "progress": False,
            }
        )
        rows[name] = {int(r.get("seed", i)): r for i, r in enumerate(res.rows)}
    common = sorted(set.intersection(*(set(v) for v in rows.values())))
    return np.array([probe.margin({name: rows[name][s] for name in rows}) for s in common], dtype=float)


def measure_margin(
    probe: NetworkProbe,
    point: dict,
    d: int,
    root_seed: int = 0,
    target_se: float | None = None,
    amplification: float = 1.0,
):
    """(mean margin, s.e., seeds) at width ``d``: seeds doubled from 8 until s.e. ≤ target (or
    |mean|/3) divided by ``amplification`` (the growth of the error in the d → ∞ extrapolation), or
    the cap."""
    runs = probe.runs(dict(point))
    seeds = START_SEEDS
    while True:
        m = _per_seed_margins(probe, runs, d, seeds, root_seed)
        m = m[np.isfinite(m)]
        if m.size < 2:
            return math.nan, math.nan, int(m.size)
        mean, se = float(m.mean()), float(m.std(ddof=1) / math.sqrt(m.size))
        goal = (
            target_se if target_se is not None and target_se > 0 else abs(mean) / Z_DECIDE
        ) / amplification
        if se <= goal or seeds >= probe.max_seeds:
            return mean, se, int(m.size)
        seeds = min(2 * seeds, probe.max_seeds)


def _extrapolated(dims, means, ses):
    from validation.finite_size.fit import extrapolate

    ex = extrapolate(
        np.asarray(dims, float),
        np.asarray(means, float),
        np.asarray(ses, float),
        omegas=(0.5, 1.0),
        max_terms=1,
    )
    return ex.limit, ex.limit_se, ex.best.model.label


#: the largest matrix side (n, N or p) a confirmation simulates: the ladder is scaled down so that
#: max(ψ1, ψ2, α, α0, β)·d stays below it
MAX_SIDE = 2000
_RATIOS = ("psi1", "psi2", "alpha", "alpha0", "beta")


def scaled_ladder(ladder: tuple[int, ...], runs: Mapping[str, dict]) -> tuple[int, ...]:
    """``ladder`` scaled by a common factor ≤ 1 so that its top rung's largest matrix side
    (max ratio × d) is at most :data:`MAX_SIDE`; rungs stay ≥ 50 and distinct."""
    ratios = [float(kw[k]) for kw in runs.values() for k in _RATIOS if isinstance(kw.get(k), (int, float))]
    ratio = max([1.0] + [r for r in ratios if math.isfinite(r)])
    f = min(1.0, MAX_SIDE / (ratio * max(ladder)))
    return tuple(sorted({max(50, int(round(d * f))) for d in ladder}))


def network_confirm(
    probe: NetworkProbe, point: dict, root_seed: int = 0, target_se: float | None = None
) -> ConfirmResult:
    """Measure the claim's margin on the network at ``point`` (see the module docstring)."""
    t0 = time.perf_counter()
    dims, means, ses, nseeds = [], [], [], 0
    ladder = scaled_ladder(probe.ladder, probe.runs(dict(point)))
    # a d^-1/2 extrapolation over a 4× ladder multiplies the error by about 2.5
    amplification = 2.5 if len(ladder) >= 3 else 1.0
    for d in ladder:
        mean, se, k = measure_margin(probe, point, d, root_seed, target_se, amplification)
        if math.isfinite(mean) and math.isfinite(se):
            dims.append(int(d))
            means.append(mean)
            ses.append(max(se, 1e-300))
            nseeds += k
    if not dims:
        return ConfirmResult(
            math.nan,
            math.nan,
            math.nan,
            0,
            ladder,
            "inconclusive",
            "no simulation gave a finite margin",
        )
    if len(dims) >= 3:
        margin, se, model = _extrapolated(dims, means, ses)
        how = f"extrapolated to d → ∞ ({model}) from d = {', '.join(map(str, dims))}"
    else:
        margin, se = means[-1], ses[-1]
        how = f"at d = {dims[-1]} (no finite-size extrapolation)"
    z = margin / se if se > 0 else math.copysign(math.inf, margin)
    per_d = "; ".join(f"d={d}: {m:.4g} ± {s:.2g}" for d, m, s in zip(dims, means, ses, strict=True))
    note = f"{probe.describe}: {how}; {per_d}; {time.perf_counter() - t0:.0f} s"
    return ConfirmResult(
        float(margin), float(se), float(z), int(nseeds), tuple(dims), verdict_from_z(z), note
    )


def confirm_with(probe: NetworkProbe):
    """A :attr:`Claim.confirm` callable ``(claim, point, root_seed, target_se) -> ConfirmResult`` that
    measures ``probe`` at the point merged with the claim's fixed parameters."""

    def confirm(
        claim: Claim, point: dict, root_seed: int = 0, target_se: float | None = None
    ) -> ConfirmResult:
        if not isinstance(point, Mapping):
            raise ParameterError("point", point, "a mapping of parameters")
        full = {**dict(claim.fixed), **dict(point)}
        return network_confirm(probe, full, root_seed, target_se)

    confirm.probe = probe
    return confirm


# ---------------------------------------------------------------- probes used by the catalogue
_BA_KEYS = ("psi1", "psi2", "eta", "lam", "noise")
_CUI_KEYS = ("alpha", "alpha0", "beta", "eta_tilde", "lam", "noise")


def _pick(point, keys):
    return {k: float(point[k]) for k in keys if point.get(k) is not None}


def ba_probe(
    margin: Callable[[Mapping[str, dict]], float], describe: str, measure: str = "risk,spike"
) -> NetworkProbe:
    """A probe of the Ba network (exact gradient, true features) at a point of ``risk`` /
    ``alignment``; ``margin`` reads the run ``"net"``."""

    def runs(point):
        return {
            "net": {
                "protocol": "ba",
                "student": point.get("student", "tanh"),
                "teacher": point.get("teacher", "tanh"),
                "measure": measure,
                **_pick(point, _BA_KEYS),
            }
        }

    return NetworkProbe(runs, margin, describe)


def ba_monotone_probe(
    column: str, param: str, factor: float = 2.0, increasing: bool = True, measure: str = "spike"
) -> NetworkProbe:
    """A monotonicity claim on the Ba network: ``column`` at the point (run ``"lo"``) and at
    ``param`` × ``factor`` (run ``"hi"``); margin = hi − lo for ``increasing`` (lo − hi otherwise).
    The theory's counterexample is a finite difference over the same factor."""

    def runs(point):
        base = {
            "protocol": "ba",
            "student": point.get("student", "tanh"),
            "teacher": point.get("teacher", "tanh"),
            "measure": measure,
            **_pick(point, _BA_KEYS),
        }
        return {"lo": base, "hi": {**base, param: float(base[param]) * factor}}

    sign = 1.0 if increasing else -1.0
    return NetworkProbe(
        runs,
        lambda r: sign * (r["hi"][column] - r["lo"][column]),
        f"{column} at {param}×{factor:g} minus at {param} (Ba network, exact gradient)",
    )


def step_vs_random_features_probe() -> NetworkProbe:
    """Cui et al.'s network after one large step against the same network without the step (η̃ = 0,
    random features), paired seed by seed: margin = ε_RF − ε_step (positive = the step helps)."""

    def runs(point):
        base = {
            "protocol": "cui",
            "student": point.get("student", "tanh"),
            "teacher": point.get("teacher", "tanh"),
            "measure": "risk",
            **_pick(point, _CUI_KEYS),
        }
        return {"step": base, "rf": {**base, "eta_tilde": 0.0}}

    return NetworkProbe(
        runs,
        lambda r: r["rf"]["test_error"] - r["step"]["test_error"],
        "test error of random features minus that after the step, paired seeds (Cui protocol)",
    )
