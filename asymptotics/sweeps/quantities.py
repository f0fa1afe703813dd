r"""The quantities a sweep can compute: the registry (:mod:`.registry`) and the built-in entries.

==========================  ===================================================================
``simulate.ba``             one seed of :func:`validation.simulator.simulate` on a ``BaConfig``
``simulate.cui``            one seed of the simulator on a ``CuiConfig``
``simulate.srf``            one seed of the simulator on an ``SRFConfig``
``gaussian.moments``        E f, E z f, E He₂(z) f, E f² for f(z) = σ(a z), z ~ N(0,1), by
                            composite Gauss–Legendre quadrature (deterministic, milliseconds)
``gaussian.monte_carlo``    the same moments estimated from ``samples`` Gaussian draws seeded by
                            the task seed, with standard errors (cost ∝ ``samples``)
``theory.one_step.risk``    R0, R1, δ, μ2*² after one step (Ba et al.; deterministic)
``theory.one_step.spike``   η_c, the overlaps, s₁² after one step (deterministic)
==========================  ===================================================================

Each built-in lives with its concept (:mod:`.simulator_quantities`, :mod:`.gaussian_quantities`,
:mod:`.theory_quantities`) and registers itself when imported; importing this module (which the
package does) registers them all. Heavy code (the simulator, the theory) is imported inside the
quantity functions, on the worker that runs a task. See :func:`.registry.register_quantity` to
add one.
"""

from __future__ import annotations

from .gaussian_quantities import gaussian_moments, gaussian_monte_carlo
from .registry import REQUIRED, Param, Quantity, get_quantity, quantity_names, register_quantity
from .simulator_quantities import (
    simulate_ba,
    simulate_cui,
    simulate_srf,
    simulator_cost_estimate,
    simulator_memory_estimate,
)
from .theory_quantities import one_step_risk, one_step_spike

__all__ = [
    "gaussian_moments",
    "gaussian_monte_carlo",
    "simulate_ba",
    "simulate_cui",
    "simulate_srf",
    "simulator_memory_estimate",
    "simulator_cost_estimate",
    "one_step_risk",
    "one_step_spike",
    "register_quantity",
    "get_quantity",
    "quantity_names",
    "Quantity",
    "Param",
    "REQUIRED",
]
