"""Numba scalar twins of the Marchenko–Pastur transforms of :mod:`.marchenko_pastur` (same
branch and conventions; no input checks: validate in Python first), for compiled code.

They live apart from the numpy versions so that importing the theory does not import numba;
``asymptotics.random_matrix`` exports them (its ``_NUMBA_TWINS``) on first use.
"""

from __future__ import annotations

import cmath
import math

from numba import njit, types
from numba.extending import overload


def _like(z, m):  # pragma: no cover - replaced by the overload in compiled code
    raise NotImplementedError


@overload(_like)
def _like_ov(z, m):
    if isinstance(z, types.Complex):
        return lambda z, m: m
    return lambda z, m: m.real


@njit(cache=True)
def _m_c_nb(z, g):
    r = math.sqrt(g)
    lo = (1.0 - r) ** 2
    hi = (1.0 + r) ** 2
    s = cmath.sqrt(z - lo) * cmath.sqrt(z - hi)
    a = 1.0 - g - z + s
    b = 1.0 - g - z - s
    if abs(a) >= abs(b):
        return a / (2.0 * g * z)
    return 2.0 / b


@njit(cache=True)
def mp_stieltjes_nb(z, ratio):
    """Scalar twin of :func:`mp_stieltjes` (float z → float, complex z → complex)."""
    return _like(z, _m_c_nb(complex(z), ratio))


@njit(cache=True)
def mp_stieltjes_derivative_nb(z, ratio):
    """Scalar twin of :func:`mp_stieltjes_derivative`."""
    zc = complex(z)
    m = _m_c_nb(zc, ratio)
    return _like(z, -(ratio * m * m + m) / (2.0 * ratio * zc * m + zc + ratio - 1.0))


@njit(cache=True)
def mp_density_nb(x, ratio):
    """Scalar twin of :func:`mp_density`."""
    r = math.sqrt(ratio)
    lo = (1.0 - r) ** 2
    hi = (1.0 + r) ** 2
    if x <= lo or x >= hi or x <= 0.0:
        return 0.0
    return math.sqrt((x - lo) * (hi - x)) / (2.0 * math.pi * ratio * x)


@njit(cache=True)
def gram_stieltjes_nb(z, psi2):
    """Scalar twin of :func:`gram_stieltjes`."""
    g = 1.0 / psi2
    return _like(z, _m_c_nb(complex(z) / psi2, g) * g)


@njit(cache=True)
def gram_stieltjes_derivative_nb(z, psi2):
    """Scalar twin of :func:`gram_stieltjes_derivative`."""
    g = 1.0 / psi2
    w = complex(z) / psi2
    m = _m_c_nb(w, g)
    return _like(z, -(g * m * m + m) / (2.0 * g * w * m + w + g - 1.0) * g * g)


@njit(cache=True)
def wtw_stieltjes_nb(z, psi2):
    """Scalar twin of :func:`wtw_stieltjes`."""
    return _like(z, _m_c_nb(complex(z), psi2))
