r"""Sweep quantities of the simulator: ``simulate.ba``, ``simulate.cui``, ``simulate.srf`` — one seed
of :func:`validation.simulator.simulate` on a ``BaConfig``, ``CuiConfig`` or ``SRFConfig``.

``validation.simulator`` (numba kernels, a second or so to import) is imported inside the
functions: on the worker that runs a task, and in the driver only when the schema is first read.
The parameter schema is the configuration class's fields (their defaults are the quantity's).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from functools import cache

from .registry import REQUIRED, Param, register_quantity
from .tasks import task_threads

__all__ = ["simulate_ba", "simulate_cui", "simulate_srf", "simulator_memory_estimate", "simulator_cost_estimate"]

_CLASS_NAMES = {"ba": "BaConfig", "cui": "CuiConfig", "srf": "SRFConfig"}


def _config_class(kind: str):
    from validation.simulator import BaConfig, CuiConfig, SRFConfig

    return {"ba": BaConfig, "cui": CuiConfig, "srf": SRFConfig}[kind]


_ANNOTATION_KINDS = {"float": "float", "int": "int", "str": "str", "bool": "bool"}


def _kind_of(f: dataclasses.Field) -> str:
    ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
    if ann in _ANNOTATION_KINDS:
        return _ANNOTATION_KINDS[ann]
    if ann:  # unions, tuples, ...: the config class checks the value
        return "any"
    default = f.default if f.default is not dataclasses.MISSING else None
    for typ in (bool, float, int, str):
        if isinstance(default, typ):
            return typ.__name__
    return "any"


@cache
def _schema(kind: str) -> dict:
    schema = {}
    for f in dataclasses.fields(_config_class(kind)):
        if not f.init or f.name.startswith("_"):
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:
            default = REQUIRED
        if isinstance(default, tuple):
            default = list(default)
        schema[f.name] = Param(_kind_of(f), default)
    return schema


def _config(kind: str, params: dict):
    kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()}
    return _config_class(kind)(**kw)


def _simulate(kind: str, params: dict, seed: int) -> dict:
    """One seed of the simulator: its measurements, their test-set standard errors
    ``<name>_test_se`` and its diagnostics (``ridge_form0``, ``ridge_rcond0``, ...)."""
    from validation.simulator import simulate

    with warnings.catch_warnings():
        # the sweep replicates tasks itself; a single seed per task is intended
        warnings.filterwarnings("ignore", message="one seed")
        res = simulate(_config(kind, params), seeds=1, root_seed=int(seed), blas_threads=task_threads())
    out = {}
    for k, v in dict(res.per_seed[0]).items():
        if k in ("seed", "elapsed_s"):  # the simulator's seed index (0) and its own timer
            continue
        if isinstance(v, (bool, int, float, str)) or v is None:
            out[k] = v
        else:
            try:
                out[k] = float(v)
            except (TypeError, ValueError):
                continue
    return out


def simulate_ba(params: dict, seed: int) -> dict:
    """One seed of the one-step simulator (Ba et al. protocol) at ``BaConfig(**params)``."""
    return _simulate("ba", params, seed)


def simulate_cui(params: dict, seed: int) -> dict:
    """One seed of the simulator (Cui et al. protocol) at ``CuiConfig(**params)``."""
    return _simulate("cui", params, seed)


def simulate_srf(params: dict, seed: int) -> dict:
    """One seed of the spiked random-features simulator at ``SRFConfig(**params)``."""
    return _simulate("srf", params, seed)


def _rounded(x: float) -> int:
    return max(1, int(round(x)))


def _sizes(kind: str, params: dict) -> tuple[int, int, int, int, int]:
    """(d, n, N, n_step, n_test): dimension, readout samples, width, first-step samples, test points."""
    d = int(params["d"])
    n_test = int(params.get("n_test", 10_000))
    if kind == "ba":
        n, N = _rounded(float(params["psi1"]) * d), _rounded(float(params["psi2"]) * d)
        return d, n, N, n, n_test
    n, N = _rounded(float(params["alpha"]) * d), _rounded(float(params["beta"]) * d)
    n_step = _rounded(float(params["alpha0"]) * d) if kind == "cui" else 0
    return d, n, N, n_step, n_test


def simulator_memory_estimate(kind: str, params: dict) -> int:
    r"""A conservative estimate, in bytes, of the memory one simulator task needs.

    With n training samples (two batches in Ba's protocol: one for the step, one for the ridge
    fit), input dimension d, width N (p in Cui's notation) and ``n_test`` test points, the float64
    arrays alive at the peak are the data (n·d per batch, n_test·d), the weights before and after
    the step and the gradient (3·d·N), the features and their derivatives on a batch (2·n·N), the
    test features (n_test·N) and the ridge Gram matrix (min(n, N)²). The estimate is 1.5× their size
    (numpy temporaries) plus 256 MiB for the interpreter, numpy, scipy and numba.
    """
    d, n, N, n_step, n_test = _sizes(kind, params)
    if kind == "ba":
        batches = 2 * n * d
    elif kind == "cui":
        batches = (n + n_step) * d + 2 * n_step * N
    else:
        batches = n * d
    floats = batches + 3 * d * N + 2 * n * N + min(n, N) ** 2 + n_test * (d + N)
    return int(math.ceil(1.5 * 8 * floats)) + 256 * 2**20


def simulator_cost_estimate(kind: str, params: dict) -> float:
    r"""The floating-point operations of one simulator task (the leading matrix products).

    Features of the first-step batch and of the readout batch (2·n·d·N each), the gradient
    (2·n_step·d·N), the test features (2·n_test·d·N) and the ridge solve (2·n·N·min(n, N)); the
    spectral measurements are of the same order. Only the size matters here: it decides whether
    BLAS threads can pay off (:func:`asymptotics.sweeps.executors.default_threads`).
    """
    d, n, N, n_step, n_test = _sizes(kind, params)
    return 2.0 * d * N * (n + 2 * n_step + n_test) + 2.0 * n * N * min(n, N)


def _register(kind: str, fn) -> None:
    register_quantity(
        f"simulate.{kind}",
        fn,
        parameters=lambda: _schema(kind),
        check=lambda p: _config(kind, p) and None,
        memory=lambda p: simulator_memory_estimate(kind, p),
        cost=lambda p: simulator_cost_estimate(kind, p),
        seeded=True,
        description=f"one seed of validation.simulator.simulate on a {_CLASS_NAMES[kind]}",
    )


_register("ba", simulate_ba)
_register("cui", simulate_cui)
_register("srf", simulate_srf)
