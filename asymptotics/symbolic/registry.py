r"""Named systems of the library: ``asymptotics derive <name>`` prints them and
:func:`asymptotics.codegen.lower` compiles them.

A system is registered with a builder (a function of no arguments returning an
:class:`EquationSystem`); builders run once per process (cached), so registration is cheap.

>>> "rf_ridge_traces" in list_systems()
True

Adding a system (e.g. in a theory module)::

    from asymptotics.symbolic import register_system, dyson_system, eliminate, Pencil, Gaussian

    @register_system("my_pencil", "what it computes")
    def _build():
        return eliminate(dyson_system(my_pencil(), outputs={...}), keep=[...])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import sympy as sp

from ..errors import ParameterError
from .differentiate import implicit_derivatives
from .dyson import dyson_system
from .eliminate import eliminate
from .pencils import lam, mp_pencil, phi, rf_ridge_pencil, s, z
from .system import EquationSystem

__all__ = ["register_system", "get_system", "get_entry", "list_systems", "SystemEntry"]


@dataclass(frozen=True)
class SystemEntry:
    """A registered system: its name, a one-line description, its builder and (optionally) the
    builder of the pencil it is derived from."""

    name: str
    description: str
    build: Callable[[], EquationSystem]
    pencil: Callable | None = None


_REGISTRY: dict[str, SystemEntry] = {}


def register_system(name: str, description: str = "", pencil: Callable | None = None):
    """Decorator registering ``builder() -> EquationSystem`` under ``name`` (``pencil``: a function
    returning the :class:`Pencil` it derives from, shown by ``asymptotics derive``)."""

    def deco(builder):
        if name in _REGISTRY and _REGISTRY[name].build.__qualname__ != builder.__qualname__:
            raise ParameterError("name", name, "a name not already registered")
        _REGISTRY[name] = SystemEntry(
            name, description or (builder.__doc__ or "").strip().split("\n")[0], builder, pencil
        )
        return builder

    return deco


def get_entry(name: str) -> SystemEntry:
    """The registry entry of ``name``."""
    if name not in _REGISTRY:
        raise ParameterError("system", name, f"one of {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def list_systems() -> dict:
    """``{name: description}`` of the registered systems."""
    return {k: v.description for k, v in _REGISTRY.items()}


@cache
def get_system(name: str) -> EquationSystem:
    """Build (once per process) and return the registered system ``name``."""
    if name not in _REGISTRY:
        raise ParameterError("system", name, f"one of {', '.join(sorted(_REGISTRY))}")
    sysm = _REGISTRY[name].build()
    return sysm.with_(name=name)


# --------------------------------------------------------------------------- the library
g11, g22, g55 = sp.symbols("g11 g22 g55")


@register_system(
    "mp_gram",
    pencil=mp_pencil,
    description="matrix Dyson equations of the 2×2 Marchenko–Pastur pencil of W0 W0^T (g11 = mbar)",
)
def _mp_gram():
    return dyson_system(mp_pencil(), outputs={"mbar": g11, "m": g22 / z}, homotopy=(z, -1e3))


@register_system(
    "mp_gram_reduced", pencil=mp_pencil, description="the MP pencil reduced to one equation for mbar = g11"
)
def _mp_gram_reduced():
    return eliminate(get_system("mp_gram"), keep=[g11])


@register_system(
    "mp_gram_dz", pencil=mp_pencil, description="mbar and its z-derivative by implicit differentiation"
)
def _mp_gram_dz():
    return implicit_derivatives(get_system("mp_gram_reduced"), z, outputs=["mbar"])


@register_system(
    "rf_ridge_dyson",
    pencil=rf_ridge_pencil,
    description="matrix Dyson equations of the 5-block random-features ridge pencil with source s",
)
def _rf_dyson():
    return dyson_system(rf_ridge_pencil(source=True), outputs={"tau1": g11, "g55": g55}, homotopy=(lam, 1e3))


@register_system(
    "rf_ridge_source",
    pencil=rf_ridge_pencil,
    description="the RF ridge pencil reduced to (g11, g22), source parameter s kept",
)
def _rf_source():
    return eliminate(get_system("rf_ridge_dyson"), keep=[g11, g22])


@register_system(
    "rf_ridge",
    pencil=rf_ridge_pencil,
    description="RF ridge traces at s = 0: tau1 = tr(K + lam)^{-1}/n from (g11, g22)",
)
def _rf_ridge():
    red = get_system("rf_ridge_source").subs({s: 0})
    return red.with_(outputs={"tau1": g11}, description=red.description + "; at s = 0")


@register_system(
    "rf_ridge_traces",
    pencil=rf_ridge_pencil,
    description="tau1 and tau2 = tr[(X^T X/d)(K + lam)^{-1}]/n = -phi dg55/ds at s = 0 (implicit differentiation)",
)
def _rf_traces():
    src = get_system("rf_ridge_source")
    d = implicit_derivatives(src, s, outputs=["g55"])
    d = d.subs({s: 0})
    outs = {"tau1": g11, "tau2": sp.factor(sp.cancel(-phi * d.outputs["dg55_ds"]))}
    return d.with_(outputs=outs)
