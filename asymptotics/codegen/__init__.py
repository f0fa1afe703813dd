"""Generated code (the layer after the symbolic derivation): equation systems lowered to compiled modules on disk.

The code-generation infrastructure every layer may use (the printer, the template files and their
renderer, the module cache) is the layer-0 package :mod:`asymptotics.rendering`; this package
imports it, never the reverse. Its names are forwarded here for convenience.

* :func:`lower` — an :class:`~asymptotics.symbolic.EquationSystem` rendered to a compiled module
  on disk (:mod:`asymptotics.codegen.systems`): its printed functions compiled by the template
  ``rendering/templates/system_solvers.py``, with the numerics layer's Newton and continuation
  (``numerics/templates/{newton,continuation}.py``) included;
* :class:`NumbaExprPrinter`, :func:`prepare`, :func:`safe_name` — the one printer
  (:mod:`asymptotics.rendering.printing`; targets generic, real, numpy, mpmath), which prints the
  ``sympy.codegen.ast`` statements of :mod:`asymptotics.codegen.expressions`;
* :mod:`asymptotics.rendering.templates` — real template files and their rendering;
* :mod:`asymptotics.codegen.newton_map` — elementwise two-unknown Newton maps (route C);
* :mod:`asymptotics.rendering.modules` — the on-disk module cache (one header, one cache key).

Names are imported lazily: importing :mod:`asymptotics.codegen` loads neither the symbolic
systems nor any numba kernel until :func:`lower` is asked for.
"""

from __future__ import annotations

__all__ = ["lower", "render_module", "LoweredSystem", "NumbaExprPrinter", "prepare", "safe_name",
           "MARKER", "render_template", "load_template", "load_generated_module"]


def __getattr__(name):
    if name in ("lower", "render_module", "LoweredSystem"):
        from . import systems

        value = getattr(systems, name)
    elif name in ("NumbaExprPrinter", "prepare", "safe_name"):
        from ..rendering import printing

        value = getattr(printing, name)
    elif name in ("MARKER", "render_template", "load_template"):
        from ..rendering import templates

        value = getattr(templates, name)
    elif name == "load_generated_module":
        from ..rendering.modules import load_generated_module as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
