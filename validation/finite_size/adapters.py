r"""What a finite-size study simulates: an *adapter* ``run(params, d, seed) -> {quantity: value}``.

The study runner knows nothing of the simulator. It calls an adapter with the variant's parameter
point, a dimension d and a :class:`Seed` (root entropy, seed index) and gets one number per
measured quantity. Seeds are independent and identified by their index, so a study can add seeds
at a dimension without recomputing the earlier ones.

:func:`simulator` adapts today's :mod:`validation.simulator`: seed ``index`` under root ``root``
is exactly seed ``index`` of ``simulate(cfg, seeds=K, root_seed=root)`` (the same
``SeedSequence(root, spawn_key=(index, …))`` streams; bit for bit at equal BLAS threads), so a rung
of a study at d with K seeds *is* the plain simulation of K seeds there. :func:`combined` runs
several configurations on the same seed (common random numbers, e.g. two noise levels) and
prefixes their quantities.

>>> from validation.simulator import BaConfig
>>> run = simulator(BaConfig)
>>> out = run(dict(psi1=2, psi2=1.5, eta=5, n_test=2, measure=("spike",)), 60, Seed(1, 0))
>>> "overlap_a" in out and "elapsed_s" in out
True
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from collections.abc import Callable, Mapping
from typing import NamedTuple

from asymptotics.errors import DegenerateWarning
from validation.simulator import BaConfig, CuiConfig, SRFConfig

__all__ = ["Seed", "Adapter", "simulator", "combined", "adapter_key", "BA", "CUI", "SRF"]


class Seed(NamedTuple):
    """Seed ``index`` of the streams rooted at ``root`` (``numpy.random.SeedSequence`` entropy)."""

    root: int
    index: int


#: ``run(params, d, seed) -> {name: value}``; numbers only (diagnostics that are not numbers are dropped).
Adapter = Callable[[Mapping, int, Seed], dict]


def _numbers(out: Mapping, prefix: str = "") -> dict:
    res = {}
    for k, v in out.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        res[prefix + k] = float(v)
    return res


def _run_seed(cfg, seed: Seed, threads: int | None) -> dict:
    """One seed of the simulator with the thread settings :func:`validation.simulator.simulate`
    uses in-process (BLAS, numba and RNG threads; degenerate-ridge warnings collected)."""
    import numba

    from validation.simulator.protocols import run_seed
    from validation.simulator.rng import available_cores
    from validation.simulator.threads import (
        blas_threads,
        get_blas_threads,
        set_numba_threads,
        single_thread_scipy_blas,
    )

    cores = available_cores()
    n = threads or min(cores, get_blas_threads() or cores)
    before = numba.get_num_threads()
    with blas_threads(n), warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        single_thread_scipy_blas()
        set_numba_threads(n)
        try:
            return run_seed(cfg, int(seed.root), int(seed.index), n)
        finally:
            numba.set_num_threads(before)


def simulator(config_class, *, threads: int | None = None) -> Adapter:
    """An adapter running ``config_class(d=d, **params)`` (``BaConfig``, ``CuiConfig`` or
    ``SRFConfig``) for one seed; returns every numeric measurement and ``elapsed_s``."""

    def run(params: Mapping, d: int, seed: Seed) -> dict:
        cfg = config_class(d=int(d), **dict(params))
        return _numbers(_run_seed(cfg, seed, threads))

    run.config_class = config_class
    run.describe = lambda params, d: config_class(d=int(d), **dict(params)).as_dict()
    return run


#: the adapters of the three simulated protocols (one each, shared by the family modules)
BA, CUI, SRF = simulator(BaConfig), simulator(CuiConfig), simulator(SRFConfig)


def combined(parts: Mapping[str, tuple[Adapter, Mapping]]) -> Adapter:
    """Run several adapters on the same seed: ``parts[prefix] = (adapter, params overrides)``;
    quantity ``q`` of part ``prefix`` is returned as ``prefix.q``; ``elapsed_s`` is the total."""

    def run(params: Mapping, d: int, seed: Seed) -> dict:
        out: dict = {}
        total = 0.0
        for prefix, (adapter, over) in parts.items():
            res = adapter({**dict(params), **dict(over)}, d, seed)
            total += res.get("elapsed_s", 0.0)
            out.update({f"{prefix}.{k}": v for k, v in res.items()})
        out["elapsed_s"] = total
        return out

    def describe(params, d):
        return {p: (getattr(a, "describe", None) or (lambda pp, dd: dict(pp)))({**dict(params), **dict(o)}, d)
                for p, (a, o) in parts.items()}

    run.describe = describe
    return run


def adapter_key(adapter: Adapter, params: Mapping, d: int, seed: Seed, code: str = "") -> str:
    """A stable key (SHA-256) of one adapter call: what it simulates (its ``describe`` when it has
    one, else the parameters), d, the seed and a code version string."""
    describe = getattr(adapter, "describe", None)
    what = describe(params, d) if describe is not None else {"params": dict(params), "d": int(d)}
    blob = json.dumps({"what": what, "seed": [int(seed.root), int(seed.index)], "code": code},
                      sort_keys=True, default=_jsonable)
    return hashlib.sha256(blob.encode()).hexdigest()


def _jsonable(v):
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    if isinstance(v, (tuple, set)):
        return list(v)
    return repr(v)
