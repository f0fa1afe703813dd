"""The code-generation infrastructure (layer 0): every layer may import it, it imports no layer
above the infrastructure.

* :mod:`asymptotics.rendering.printing` — the one printer, :class:`~asymptotics.rendering.printing.NumbaExprPrinter`
  (sympy expressions and ``sympy.codegen.ast`` statements → Python; targets generic, real, numpy,
  mpmath);
* :mod:`asymptotics.rendering.templates` — the template renderer (placeholders bound, defined or
  included) and the templates that specialise code to a problem; the algorithm templates they
  include are the numerics layer's (``asymptotics/numerics/templates/``);
* :mod:`asymptotics.rendering.modules` — the on-disk module cache (one header, one cache key, the
  derivation index).

The equation-system lowering that uses them (layer 3, it needs :mod:`asymptotics.symbolic`) is
:mod:`asymptotics.codegen`.
"""
