"""The code-generation infrastructure (layer 0): every layer may import it, it imports no layer
above the infrastructure.

* :mod:`asymptotics.rendering.printing` — the one printer (sympy expressions → scalar numba code);
* :mod:`asymptotics.rendering.templates` — the real template files of the package and their
  renderer (placeholders bound, defined or included);
* :mod:`asymptotics.rendering.modules` — the on-disk module cache (one header, one cache key, the
  derivation index).

The equation-system lowering that uses them (layer 3, it needs :mod:`asymptotics.symbolic`) is
:mod:`asymptotics.codegen`.
"""
