"""The simulator's compiled kernels for a given student activation.

:func:`student_kernels` specialises ``_kernel_template.py`` to the student through the
activation's public accessor :meth:`asymptotics.activations.Activation.specialise`: the rendered
module binds ``sigma`` and ``dsigma`` to the activation's compiled σ and σ', lives in the user
cache, and its kernels are compiled once per activation and machine (``numba.njit(cache=True)``)
and reused by every later process. A changed activation or template gets new kernels.

Static kernels that do not depend on σ live in :mod:`validation.simulator.static_kernels`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from types import ModuleType

from asymptotics.activations import Activation
from asymptotics.numerics.templates import QUADRATURE

__all__ = ["student_kernels", "population_kernels", "TEMPLATE", "POPULATION_TEMPLATE"]

#: The template file of the σ-dependent kernels.
TEMPLATE = Path(__file__).with_name("_kernel_template.py")
#: The template file of the kernels of the exact population risk.
POPULATION_TEMPLATE = Path(__file__).with_name("_population_template.py")


@lru_cache(maxsize=64)
def student_kernels(act: Activation) -> ModuleType:
    """The kernel module for the student ``act`` (residual_gradient, network_output,
    apply_sigma, predict_blocks)."""
    return act.specialise(TEMPLATE, prefix="simkern")


@lru_cache(maxsize=64)
def population_kernels(act: Activation) -> ModuleType:
    """The kernel module of the exact population risk for the student ``act``
    (conditional_hermite, sigma_values)."""
    return act.specialise(POPULATION_TEMPLATE, prefix="simpop", include=(QUADRATURE,))
