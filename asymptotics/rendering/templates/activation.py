r"""Template: an activation σ as compiled scalar, vectorised numpy and mpmath functions.

:func:`asymptotics.activations.lowering.render_source` prints σ, σ', σ'' (derived by sympy) in
place of the placeholders below — ``f, df, d2f`` with the real target of
:class:`asymptotics.rendering.printing.NumbaExprPrinter`, ``f_np, df_np, d2f_np`` for numpy/scipy,
``f_mp, df_mp`` for mpmath — and copies the lines from the marker on, which compile the scalar
functions (``numba.njit(cache=True)``: callable from other compiled kernels, kept between
processes). See :mod:`asymptotics.rendering.templates`.

The placeholders are σ = erf, with σ' = (2/√π) e^{−x²} and σ'' = −2x σ', so that this file is
a working module when imported directly (as the tests do).

``scipy.special`` (σ = erf in numpy) is reached as an attribute of ``scipy``, which imports the
submodule on first use: a module whose σ needs no special function never imports it.
"""

import math

import mpmath
import numpy
import scipy
from numba import njit


def f(x):  # placeholder: σ(x), real float64 scalar
    return float(math.erf(x))


def df(x):  # placeholder: σ'(x)
    return float(2.0 / math.sqrt(math.pi) * math.exp(-(x**2)))


def d2f(x):  # placeholder: σ''(x)
    return float(-4.0 / math.sqrt(math.pi) * x * math.exp(-(x**2)))


def f_np(x):  # placeholder: σ vectorised (float64 arrays)
    x = numpy.asarray(x, dtype=numpy.float64)
    return numpy.asarray(scipy.special.erf(x), dtype=numpy.float64) + numpy.zeros_like(x)


def df_np(x):  # placeholder: σ' vectorised
    x = numpy.asarray(x, dtype=numpy.float64)
    return numpy.asarray(2.0 / numpy.sqrt(numpy.pi) * numpy.exp(-(x**2)), dtype=numpy.float64)


def d2f_np(x):  # placeholder: σ'' vectorised
    x = numpy.asarray(x, dtype=numpy.float64)
    return numpy.asarray(-4.0 / numpy.sqrt(numpy.pi) * x * numpy.exp(-(x**2)), dtype=numpy.float64)


def f_mp(x):  # placeholder: σ in mpmath
    return mpmath.erf(x)


def df_mp(x):  # placeholder: σ' in mpmath
    return 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-(x**2))


# ---- kernels (copied into the rendered module) ----


f = njit(cache=True, fastmath=False)(f)
df = njit(cache=True, fastmath=False)(df)
d2f = njit(cache=True, fastmath=False)(d2f)
