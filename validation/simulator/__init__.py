r"""Monte-Carlo simulator of the one-step network: the ground truth the theory is checked against.

Three protocols, each a small validated configuration:

* :class:`BaConfig`  — Ba et al. (2022): Gaussian W₀ and a, W₁ = W₀ + η√N G₀ with the exact first
  gradient, ridge on a fresh set; risk0, risk1, delta on common random numbers;
* :class:`CuiConfig` — Cui et al. (2024): spherical W⁰, readout types, step η̃·p, ridge with λ
  not rescaled; test_error, train_error and the measured sRF parameters r, c, gamma;
* :class:`SRFConfig` — the spiked random-features model itself.

Risks are by default the **exact population risk** of the trained network
(:func:`population_risk`: from the Gram matrix WᵀW, no test set, a truncation bound ≤ 10⁻¹⁰·E σ*²
reported per seed); ``test_risk="monte-carlo"`` with ``n_test`` samples a test set instead.
Threads and processes are chosen by problem size, :func:`memory_estimate` is checked before a run
starts, and ``store=`` keeps every seed on disk so that a study extends (:class:`SeedStore`).

>>> from validation.simulator import BaConfig, simulate
>>> res = simulate(BaConfig(d=80, psi1=2, psi2=1.5, eta=5, n_test=1000), seeds=2)
>>> sorted(res.mean)[:4]
['beta_energy', 'bulk_edge_sv2', 'ck_label_alignment', 'ck_outlier']
>>> row = res.as_row(); row["risk1_mean"] > 0
True

This package imports only :mod:`asymptotics.activations`, :mod:`asymptotics.params` and
:mod:`asymptotics.errors` from the library (plus the generated-module cache): it shares no code
with the theory it checks.
"""

import os as _os

# Idle OpenBLAS threads spin ~0.1 s after each call and halve the speed of the numba kernels that
# follow a GEMM; 2⁴ cycles removes that (see validation.simulator.threads). Effective only when
# numpy's OpenBLAS is not loaded yet; a value set by the user is kept.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

from .config import (
    BATCHES,
    FEATURES,
    GRADIENTS,
    MEASURE_GROUPS,
    PROTOCOLS,
    TEST_RISKS,
    BaConfig,
    CuiConfig,
    SRFConfig,
    config_class,
    memory_estimate,
)
from .engine import NonFiniteError
from .measurements import MEASUREMENTS, RISK_MEASUREMENTS, measurement_names
from .parallel import simulate, simulate_many
from .population import PopulationRisk, population_risk
from .result import SimulationResult
from .store import SeedStore
from .threads import choose_parallelism

__all__ = [
    # configurations (validation.simulator.config)
    "BaConfig",
    "CuiConfig",
    "SRFConfig",
    "config_class",
    "memory_estimate",
    "BATCHES",
    "FEATURES",
    "GRADIENTS",
    "MEASURE_GROUPS",
    "PROTOCOLS",
    "TEST_RISKS",
    # running and results
    "simulate",
    "simulate_many",
    "SimulationResult",
    "SeedStore",
    "choose_parallelism",
    "NonFiniteError",
    # measurements
    "MEASUREMENTS",
    "RISK_MEASUREMENTS",
    "measurement_names",
    "population_risk",
    "PopulationRisk",
]
