"""Generated code (layer 3, and the code-generation infrastructure every layer may use).

* :func:`lower` — an :class:`~asymptotics.symbolic.EquationSystem` rendered to a compiled module
  on disk (:mod:`asymptotics.codegen.systems`), from the template
  ``templates/system_solvers.py``;
* :class:`NumbaExprPrinter`, :func:`prepare`, :func:`safe_name` — the one printer
  (:mod:`asymptotics.codegen.printing`);
* :mod:`asymptotics.codegen.templates` — real template files and their rendering;
* :mod:`asymptotics.codegen.newton_map` — elementwise two-unknown Newton maps (route C);
* :mod:`asymptotics.codegen.modules` — the on-disk module cache (one header, one cache key).

Names are imported lazily: importing :mod:`asymptotics.codegen.printing` or
:mod:`asymptotics.codegen.templates` (as the activations do) loads neither the symbolic systems
nor any numba kernel.
"""

from __future__ import annotations

__all__ = ["lower", "render_module", "LoweredSystem", "NumbaExprPrinter", "prepare", "safe_name",
           "MARKER", "render_template", "load_template", "load_generated_module"]


def __getattr__(name):
    if name in ("lower", "render_module", "LoweredSystem"):
        from . import systems

        value = getattr(systems, name)
    elif name in ("NumbaExprPrinter", "prepare", "safe_name"):
        from . import printing

        value = getattr(printing, name)
    elif name in ("MARKER", "render_template", "load_template"):
        from . import templates

        value = getattr(templates, name)
    elif name == "load_generated_module":
        from .modules import load_generated_module as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
