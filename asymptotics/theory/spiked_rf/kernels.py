"""The compiled kernels of the spiked-RF theory, rendered from the template files of this package.

* :func:`moment_kernels` — ``_cget_template.py`` specialised to one activation by
  :meth:`asymptotics.activations.Activation.specialise` (the centred σ): the Gaussian moments of
  the cGET coefficients and target functions (:mod:`.cget`);
* :func:`linalg_kernels` — ``_linalg_template.py``: small dense linear algebra and the Anderson
  step;
* :func:`solver_kernels` — ``_solver_template.py`` with its placeholders bound to
  :func:`linalg_kernels` (it needs no activation): the fixed point of one readout type, the
  assembly of the solution, continuation and the grid driver (:mod:`.compiled`);
* :func:`block_kernels` — ``_block_template.py`` likewise: the reduced system of K readout types
  (block Marchenko–Pastur prior) with its Anderson iteration and continuation.

Each module is rendered once into the user cache and its numba machine code is kept there, so a
second process starts without compiling; a changed template or activation gets new kernels.
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from pathlib import Path

from ...activations import Activation

__all__ = ["CGET_TEMPLATE", "LINALG_TEMPLATE", "SOLVER_TEMPLATE", "BLOCK_TEMPLATE", "moment_kernels",
           "linalg_kernels", "solver_kernels", "block_kernels"]

#: The template of the σ-dependent Gaussian moments.
CGET_TEMPLATE = Path(__file__).with_name("_cget_template.py")
#: The template of the small linear algebra and the Anderson step.
LINALG_TEMPLATE = Path(__file__).with_name("_linalg_template.py")
#: The template of the fixed-point solver (placeholders bound to the linear algebra).
SOLVER_TEMPLATE = Path(__file__).with_name("_solver_template.py")
#: The template of the K-type reduced system (placeholders bound to the linear algebra).
BLOCK_TEMPLATE = Path(__file__).with_name("_block_template.py")



@lru_cache(maxsize=64)
def moment_kernels(act: Activation):
    """The moment kernels specialised to the (centred) activation ``act``."""
    return act.specialise(CGET_TEMPLATE, raw=False, prefix="srf_cget")


@lru_cache(maxsize=1)
def linalg_kernels():
    """The small linear algebra and the Anderson step (rendered and compiled on first use)."""
    from ...rendering.templates import SMALL_LINALG, load_template

    return load_template(LINALG_TEMPLATE, {}, "asymptotics.theory.spiked_rf", prefix="srf_linalg",
                         include=(SMALL_LINALG,))


def _bound(template: Path, prefix: str, definitions: str = ""):
    """Render ``template`` with its placeholders from ``_linalg_template.py`` bound to the rendered
    linear algebra (the others given by ``definitions``)."""
    from ...rendering.templates import load_template, placeholders

    mod = linalg_kernels()
    bindings = {f: (mod.__name__, f) for f in sorted(placeholders(template)) if hasattr(mod, f)}
    return load_template(template, bindings, "asymptotics.theory.spiked_rf", prefix, definitions=definitions)


@lru_cache(maxsize=1)
def solver_kernels():
    """The fixed-point kernels of one readout type (rendered and compiled on first use); the
    Marchenko–Pastur moments are defined from the source of :mod:`.prior_mp`."""
    from . import prior_mp

    moments = "\n\n".join(inspect.getsource(f) for f in (prior_mp._moments_beta_le_1, prior_mp.mp_moments))
    return _bound(SOLVER_TEMPLATE, "srf_solver", definitions=moments)


@lru_cache(maxsize=1)
def block_kernels():
    """The reduced system of K readout types (rendered and compiled on first use)."""
    return _bound(BLOCK_TEMPLATE, "srf_block")
