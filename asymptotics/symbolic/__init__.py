"""Symbolic derivation engine (layer 2): linear pencils → matrix Dyson equations → reduced
scalar systems → implicit derivatives → LaTeX (docs/engine.md).

* :class:`Pencil`, :class:`Gaussian` — describe a pencil (blocks 1-based, as in the mathematics);
* :func:`dyson_system` — the matrix Dyson rule applied symbolically (an :class:`EquationSystem`);
* :func:`eliminate`, :func:`polynomial_reduce` — elimination (linear substitution, resultants,
  Gröbner bases);
* :func:`implicit_derivatives` — derivatives with respect to z, λ or a source parameter;
* :func:`register_system`, :func:`get_system`, :func:`list_systems` — named systems
  (``asymptotics derive <name>``); construction code in :mod:`asymptotics.symbolic.pencils`.
"""

from .differentiate import implicit_derivatives, tangent_symbol
from .dyson import dyson_system, self_energy, support, trace_matrix, trace_symbol
from .eliminate import eliminate, numerator, polynomial_reduce
from .pencil import Gaussian, Pencil
from .pencils import LATEX_NAMES, SYMBOLS, mp_pencil, rf_ridge_pencil
from .registry import SystemEntry, get_system, list_systems, register_system
from .system import EquationSystem

__all__ = [
    "Pencil",
    "Gaussian",
    "EquationSystem",
    "dyson_system",
    "self_energy",
    "support",
    "trace_matrix",
    "trace_symbol",
    "eliminate",
    "numerator",
    "polynomial_reduce",
    "implicit_derivatives",
    "tangent_symbol",
    "register_system",
    "get_system",
    "list_systems",
    "SystemEntry",
    "mp_pencil",
    "rf_ridge_pencil",
    "SYMBOLS",
    "LATEX_NAMES",
]
