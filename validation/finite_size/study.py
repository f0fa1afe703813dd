r"""Running a finite-size study: pilot → variance → seed allocation → simulations → fit → verdict.

:func:`run_study` takes a :class:`~validation.finite_size.spec.Variant` and a mode
(:mod:`~validation.finite_size.ladder`) and

1. simulates ``pilot`` seeds at every d of the ladder (seed indices 0 … pilot − 1);
2. estimates every quantity's seed-to-seed variance σ²(d), pooled over the ladder
   (:mod:`~validation.finite_size.variance`), and the time of one seed at each d;
3. allocates seeds for the quantities' target standard errors within the mode's budget
   (:mod:`~validation.finite_size.allocation`) and simulates the extra seeds (indices pilot, …);
4. per quantity: mean ± s.e. at each d, the weighted fit of the d → ∞ limit
   (:mod:`~validation.finite_size.fit`), and the verdict without allowance
   (:mod:`~validation.finite_size.verdict`) — against a finite-width theory at each d when one is
   given (in the variant, or in ``finite_theories`` keyed by ``(variant, quantity)``: a theory of
   another module plugs in without editing the descriptions).

Seeds are numbered per d from 0 under one root, so every rung with K seeds equals
``simulate(cfg, seeds=K, root_seed=root)``; with a :class:`~validation.finite_size.store.SeedStore`
each finished seed is kept and a rerun resumes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .adapters import Seed, adapter_key
from .allocation import allocate_seeds
from .fit import extrapolate
from .ladder import StudyMode
from .ladder import mode as get_mode
from .results import QuantityResult, StudyResult
from .spec import Variant
from .store import SeedStore
from .variance import fit_variance_model, standard_errors
from .verdict import Verdict, extrapolation_verdict, finite_width_verdict

__all__ = ["run_study", "run_studies", "DEFAULT_SEED"]

DEFAULT_SEED = 20260101


def run_study(variant: Variant, mode: str | StudyMode = "default", *, root_seed: int = DEFAULT_SEED,
              budget_s: float | None = None, store: SeedStore | None = None, code_version: str = "",
              finite_theories: Mapping[tuple[str, str], Callable[[int], float]] | None = None,
              progress: Callable[[str], None] | None = None, adapter=None) -> StudyResult:
    """The finite-size study of ``variant`` in ``mode`` (see the module docstring).

    Args:
        variant: what to study.
        mode: ``toy``, ``quick``, ``default``, ``full`` or a :class:`StudyMode`.
        root_seed: root of every seed.
        budget_s: overrides the mode's time budget (seconds of simulation, pilot included).
        store: keeps per-seed results (resume); ``code_version`` enters its keys.
        finite_theories: ``{(variant name, quantity name): theory(d)}`` added to (or replacing)
            the variants' finite-width theories.
        progress: called with a short text after each seed.
        adapter: replaces the variant's adapter (e.g. a synthetic one in tests).
    """
    m = get_mode(mode) if isinstance(mode, str) else mode
    dims = variant.ladder(m)
    params = variant.point()
    run = adapter or variant.adapter
    budget = m.budget_s if budget_s is None else float(budget_s)
    t_start = time.perf_counter()
    outputs: dict[int, list[dict]] = {d: [] for d in dims}
    seconds: dict[int, list[float]] = {d: [] for d in dims}

    def simulate(d: int, index: int) -> None:
        seed = Seed(int(root_seed), int(index))
        key = adapter_key(run, params, d, seed, code_version) if store is not None else None
        out = store.get(key) if store is not None else None
        if out is None:
            t0 = time.perf_counter()
            out = run(params, d, seed)
            out.setdefault("elapsed_s", time.perf_counter() - t0)
            if store is not None:
                store.put(key, out)
        outputs[d].append(out)
        seconds[d].append(float(out.get("elapsed_s", 0.0)))
        if progress:
            progress(f"{variant.name}: d = {d}, seed {index + 1}")

    dims, dropped = _pilot(dims, m.pilot, budget, simulate, seconds)
    for d in dropped:
        del outputs[d], seconds[d]
    pilot_s = float(sum(sum(v) for v in seconds.values()))

    theories = {q.name: float(q.theory()) for q in variant.quantities}
    plan = _plan(variant, m, dims, outputs, seconds, theories, budget, pilot_s)
    for d, k in zip(dims, plan.seeds, strict=True):
        for i in range(m.pilot, k):
            simulate(d, i)

    extra = dict(finite_theories or {})
    results = []
    for q in variant.quantities:
        per_seed = [np.array([q.value(o) for o in outputs[d]]) for d in dims]
        finite = extra.get((variant.name, q.name), q.finite_theory)
        refs = tuple((name, float(ref())) for name, ref in q.references)
        results.append(_analyse(q, theories[q.name], dims, per_seed, finite, refs))
    total = time.perf_counter() - t_start
    meta = {"store": {"hits": store.hits, "misses": store.misses} if store is not None else None,
            "note": variant.note, "dropped_dims": list(dropped), "mode": vars(m), "budget_s": budget,
            "rules": {"verdict": "no allowance: |L − theory| ≤ 3·se(L) and fit p ≥ 0.01, or the finite-width χ² p ≥ 0.01",
                      "se": "Birge ratio: se × √(χ²/dof) when χ²/dof > 1"}}
    timings = {"pilot_s": pilot_s, "total_s": total,
               "seconds_per_seed": {str(d): float(np.mean(seconds[d])) for d in dims},
               "simulated_s": float(sum(sum(v) for v in seconds.values()))}
    return StudyResult(variant.name, variant.case, variant.family, variant.description, params, m.name,
                       int(root_seed), plan, tuple(results), timings, meta)


def _plan(variant: Variant, m: StudyMode, dims, outputs: dict, seconds: dict, theories: dict, budget: float,
          pilot_s: float):
    """The seeds per dimension after the pilot (:func:`allocate_seeds`): each quantity's variance
    per d — the fitted variance model where it is acceptable, else the pilot's sample variances —
    its target standard error (``q.target(theory, m.target_factor)``), and the pilot's seconds per
    seed."""
    variances, targets = {}, {}
    for q in variant.quantities:
        vals = [np.array([q.value(o) for o in outputs[d]]) for d in dims]
        svar = np.array([v.var(ddof=1) for v in vals])
        if np.all(svar > 0):
            vm = fit_variance_model(dims, svar, [v.size for v in vals])
            variances[q.name] = vm.variance(dims) if vm.acceptable else svar
        else:
            variances[q.name] = np.maximum(svar, 0.0)
        targets[q.name] = q.target(theories[q.name], m.target_factor)
    t_per_seed = np.array([np.mean(seconds[d]) for d in dims])
    return allocate_seeds(dims, m.pilot, variances, targets, t_per_seed, max_seeds=m.max_seeds,
                          budget_s=budget, spent_s=pilot_s)


#: The pilot may spend at most this fraction of the budget; larger rungs whose pilot would not fit
#: are dropped (stated in the result's ``meta["dropped_dims"]``), keeping at least :data:`MIN_RUNGS`.
PILOT_FRACTION = 0.5
MIN_RUNGS = 3


def _pilot(dims, pilot: int, budget: float, simulate, seconds) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Simulate the pilot rung by rung (increasing d); before each rung predict its time from the
    last ones (t ∝ d^p, p from the last two rungs clipped to [1, 4]; p = 3 after one rung) and
    drop it and every larger one when the pilot would exceed ``PILOT_FRACTION·budget``."""
    order = sorted(dims)
    done: list[int] = []
    spent = 0.0
    for j, d in enumerate(order):
        if len(done) >= MIN_RUNGS and done:
            t_last = float(np.mean(seconds[done[-1]]))
            if len(done) >= 2:
                t_prev = float(np.mean(seconds[done[-2]]))
                p = math.log(max(t_last, 1e-9) / max(t_prev, 1e-9)) / math.log(done[-1] / done[-2])
                p = min(max(p, 1.0), 4.0)
            else:
                p = 3.0
            if spent + pilot * t_last * (d / done[-1]) ** p > PILOT_FRACTION * budget:
                return tuple(done), tuple(order[j:])
        for i in range(pilot):
            simulate(d, i)
        done.append(d)
        spent = float(sum(sum(seconds[x]) for x in done))
    return tuple(done), ()


def _analyse(q, theory: float, dims: Sequence[int], per_seed: list[np.ndarray], finite,
             references: tuple[tuple[str, float], ...] = ()) -> QuantityResult:
    means, ses, method, vm = standard_errors(dims, per_seed)
    counts = np.array([v.size for v in per_seed])
    # degrees of freedom of the errors: the pooled seeds less the variance model's parameters, or the
    # fewest seeds at one d less one (conservative) for per-d errors
    nu = float(np.sum(counts - 1) - (len(dims) - vm.dof)) if method == "pooled" else float(np.min(counts) - 1)
    try:
        ex = extrapolate(dims, means, ses, q.omegas, q.max_terms, variance_dof=nu)
    except ValueError as exc:  # e.g. too few dimensions, zero spread: stated, the verdict fails
        ex = None
        limit_v = Verdict("extrapolation", False, math.nan, math.nan, f"no extrapolation: {exc}")
    else:
        limit_v = extrapolation_verdict(theory, ex.limit, ex.limit_se, ex.best.p_value)
    finite_vals = None
    verdict = limit_v
    if finite is not None:
        finite_vals = tuple(float(finite(int(d))) for d in dims)
        verdict = finite_width_verdict(means, ses, finite_vals, variance_dof=nu)
    return QuantityResult(q.name, q.label or q.name, theory, tuple(int(d) for d in dims),
                          tuple(int(c) for c in counts), tuple(float(v) for v in means),
                          tuple(float(v) for v in ses), method, nu, ex, limit_v, finite_vals, verdict,
                          q.omega_reason, tuple(tuple(float(x) for x in v) for v in per_seed), references)


def run_studies(variants: Sequence[Variant], mode: str | StudyMode = "default", *,
                progress: Callable[[str], None] | None = None, **kw) -> list[StudyResult]:
    """:func:`run_study` of each variant; a variant that raises gives a result carrying the error
    (its row fails) rather than stopping the others."""
    out = []
    m = get_mode(mode) if isinstance(mode, str) else mode
    for v in variants:
        if progress:
            progress(v.name)
        try:
            out.append(run_study(v, m, progress=progress, **kw))
        except Exception as exc:  # recorded, not swallowed: the row fails
            out.append(StudyResult(v.name, v.case, v.family, v.description, {}, m.name,
                                   int(kw.get("root_seed", DEFAULT_SEED)), None, (), {}, {},
                                   error=f"{type(exc).__name__}: {exc}"))
    return out
