r"""Template: an activation σ as compiled scalar, vectorised numpy and mpmath functions.

:func:`asymptotics.activations.lowering.render_source` prints σ, σ', σ'' (derived by sympy) in
place of the placeholders below — each ``expr_<name>(x)`` returns one expression, printed by
the one printer :class:`asymptotics.rendering.printing.NumbaExprPrinter` with the target of its
kind: ``expr_f, expr_df, expr_d2f`` (``"real"``: ``math``, for numba), ``expr_f_np, expr_df_np,
expr_d2f_np`` (``"numpy"``: vectorised, ``scipy.special`` for erf), ``expr_f_mp, expr_df_mp``
(``"mpmath"``: exact literals) — and copies the lines from the marker on, which make the
module's functions out of them, the same for every activation:

* ``f, df, d2f`` — scalar ``numba.njit(cache=True)`` functions returning a float64 (callable
  from other compiled kernels, kept between processes);
* ``f_np, df_np, d2f_np`` — float64 arrays of the shape of ``x`` (a constant σ'' broadcast);
* ``f_mp, df_mp`` — mpmath numbers.

See :mod:`asymptotics.rendering.templates`. The placeholders are σ = erf, with
σ' = (2/√π) e^{−x²} and σ'' = −2x σ', so that this file is a working module when imported
directly (as the tests do).

``scipy.special`` (σ = erf in numpy) is reached as an attribute of ``scipy``, which imports the
submodule on first use: a module whose σ needs no special function never imports it.
"""

import math

import mpmath
import numpy
import scipy
from numba import njit


def expr_f(x):  # placeholder: σ(x), real float64 scalar
    return math.erf(x)


def expr_df(x):  # placeholder: σ'(x)
    return 2.0 / math.sqrt(math.pi) * math.exp(-(x**2))


def expr_d2f(x):  # placeholder: σ''(x)
    return -4.0 / math.sqrt(math.pi) * x * math.exp(-(x**2))


def expr_f_np(x):  # placeholder: σ vectorised (float64 arrays)
    return scipy.special.erf(x)


def expr_df_np(x):  # placeholder: σ' vectorised
    return 2.0 / numpy.sqrt(numpy.pi) * numpy.exp(-(x**2))


def expr_d2f_np(x):  # placeholder: σ'' vectorised
    return -4.0 / numpy.sqrt(numpy.pi) * x * numpy.exp(-(x**2))


def expr_f_mp(x):  # placeholder: σ in mpmath
    return mpmath.erf(x)


def expr_df_mp(x):  # placeholder: σ' in mpmath
    return 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-(x**2))


# ---- kernels (copied into the rendered module) ----


expr_f = njit(cache=True, fastmath=False, inline="always")(expr_f)
expr_df = njit(cache=True, fastmath=False, inline="always")(expr_df)
expr_d2f = njit(cache=True, fastmath=False, inline="always")(expr_d2f)


@njit(cache=True, fastmath=False)
def f(x):
    """σ(x), a float64."""
    return float(expr_f(x))


@njit(cache=True, fastmath=False)
def df(x):
    """σ'(x), a float64."""
    return float(expr_df(x))


@njit(cache=True, fastmath=False)
def d2f(x):
    """σ''(x), a float64 (0 at a kink's distributional part)."""
    return float(expr_d2f(x))


def _vectorised(expr, x):
    """``expr`` at the float64 array ``x``, as a float64 array of its shape."""
    x = numpy.asarray(x, dtype=numpy.float64)
    return numpy.asarray(expr(x), dtype=numpy.float64) + numpy.zeros_like(x)


def f_np(x):
    """σ vectorised."""
    return _vectorised(expr_f_np, x)


def df_np(x):
    """σ' vectorised."""
    return _vectorised(expr_df_np, x)


def d2f_np(x):
    """σ'' vectorised."""
    return _vectorised(expr_d2f_np, x)


f_mp = expr_f_mp
df_mp = expr_df_mp
