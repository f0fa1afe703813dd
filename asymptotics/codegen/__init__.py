"""Generated code (layer 3): equation systems lowered to compiled modules on disk
(:func:`lower`), precision-aware printing (:mod:`asymptotics.codegen.printing`)."""

from .lower import LoweredSystem, lower, render_module
from .printing import NumbaExprPrinter, prepare, safe_name

__all__ = ["lower", "render_module", "LoweredSystem", "NumbaExprPrinter", "prepare", "safe_name"]
