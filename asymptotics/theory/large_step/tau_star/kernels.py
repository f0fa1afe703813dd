"""The compiled kernels of τ* for one student: ``_kernel_template.py`` specialised to its σ.

:func:`student_kernels` renders the template through the activation's public accessor
:meth:`asymptotics.activations.Activation.specialise` (raw, uncentred σ: the centring offset is an
argument of the kernels, so one module serves every input scale). The rendered module is cached on
disk with its numba machine code; a changed activation or template gets new kernels.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ....activations import Activation
from ....numerics.templates import QUADRATURE

__all__ = ["TEMPLATE", "student_kernels"]

#: The template file of the σ-dependent kernels.
TEMPLATE = Path(__file__).with_name("_kernel_template.py")


@lru_cache(maxsize=64)
def student_kernels(student: Activation):
    """The kernel module specialised to the raw student σ (rendered and compiled on first use)."""
    return student.specialise(TEMPLATE, raw=True, prefix="tau_star", include=(QUADRATURE,))
