"""The compiled kernels of the spiked-RF theory, rendered from the template files of this package.

* :func:`moment_kernels` — ``_cget_template.py`` specialised to one activation by
  :meth:`asymptotics.activations.Activation.specialise` (the centred σ): the Gaussian moments of
  the cGET coefficients and target functions (:mod:`.cget`);
* :func:`solver_kernels` — ``_solver_template.py`` (it needs no activation) with the
  Marchenko–Pastur moments bound to the numerics layer's compiled ones: the problem of the
  Anderson solve for one readout type, the assembly of the solution, continuation and the grid
  driver (:mod:`.compiled`);
* :func:`block_kernels` — ``_block_template.py``: the reduced system of K readout types (block
  Marchenko–Pastur prior), its start and continuation.

The two solver templates *include* the numerics layer's templates (:data:`NUMERICS`: the small
dense linear algebra and the one compiled Anderson solve), whose kernels are copied into the
rendered module in front of the template's own (``render_template(..., include=...)``). Each module
is rendered once into the user cache and its numba machine code is kept there, so a second process
starts without compiling; a changed template gets new kernels.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ...activations import Activation
from ...numerics.templates import ANDERSON, DENSE_LINALG, QUADRATURE

__all__ = ["CGET_TEMPLATE", "SOLVER_TEMPLATE", "BLOCK_TEMPLATE", "NUMERICS", "moment_kernels",
           "solver_kernels", "block_kernels"]

#: The template of the σ-dependent Gaussian moments.
CGET_TEMPLATE = Path(__file__).with_name("_cget_template.py")
#: The template of the one-type fixed point (the Anderson problem, assembly, continuation).
SOLVER_TEMPLATE = Path(__file__).with_name("_solver_template.py")
#: The template of the K-type reduced system.
BLOCK_TEMPLATE = Path(__file__).with_name("_block_template.py")
#: The numerics templates included by both solver templates (dense linear algebra, Anderson).
NUMERICS = (DENSE_LINALG, ANDERSON)

_ORIGIN = "asymptotics.theory.spiked_rf"


@lru_cache(maxsize=64)
def moment_kernels(act: Activation):
    """The moment kernels specialised to the (centred) activation ``act``."""
    return act.specialise(CGET_TEMPLATE, raw=False, prefix="srf_cget", include=(QUADRATURE,))


@lru_cache(maxsize=1)
def solver_kernels():
    """The fixed-point kernels of one readout type (rendered and compiled on first use); the
    placeholder ``mp_moments`` is bound to the numerics layer's compiled Marchenko–Pastur moments.

    numba's machine code of the rendered module embeds the bound function, so the hash of its
    source files is a note of the header: a changed formula renders a new module."""
    from ...numerics import marchenko_pastur, marchenko_pastur_numba
    from ...rendering.modules import code_hash, load_generated_module
    from ...rendering.templates import render_template

    bound = marchenko_pastur_numba.__name__
    sources = code_hash([Path(marchenko_pastur.__file__), Path(marchenko_pastur_numba.__file__)])
    src = render_template(SOLVER_TEMPLATE, {"mp_moments": (bound, "mp_moments_nb")}, _ORIGIN, include=NUMERICS,
                          notes=(f"mp_moments bound to {bound}.mp_moments_nb (sources {sources})",))
    return load_generated_module(src, prefix="srf_solver")


@lru_cache(maxsize=1)
def block_kernels():
    """The reduced system of K readout types (rendered and compiled on first use)."""
    from ...rendering.templates import load_template

    return load_template(BLOCK_TEMPLATE, {}, _ORIGIN, "srf_block", include=NUMERICS)
