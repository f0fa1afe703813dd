"""Compiled scalar twins of the Marchenko–Pastur transforms: the formulas of
:mod:`.marchenko_pastur`, compiled from that very source (same branch and conventions; no input
checks: validate in Python first).

Each formula there is plain arithmetic on numpy functions; here :func:`numba.extending.register_jitable`
makes them callable from compiled code and :func:`~.marchenko_pastur.select` is overloaded by a
scalar ``if``, so ``numba.njit`` compiles the numpy source for scalars. They live apart from the
numpy transforms so that importing the theory does not import numba.
"""

from __future__ import annotations

from numba import njit, types
from numba.extending import overload, register_jitable

from . import marchenko_pastur as mp

__all__ = [
    "mp_stieltjes_nb",
    "mp_stieltjes_derivative_nb",
    "mp_density_nb",
    "gram_stieltjes_nb",
    "gram_stieltjes_derivative_nb",
    "wtw_stieltjes_nb",
    "mp_moments_nb",
]

#: compiled with numpy's error model: a division by zero in the branch not taken gives inf/nan
JIT = {"cache": True, "error_model": "numpy"}


@overload(mp.select)
def _select_scalar(condition, if_true, if_false):
    return lambda condition, if_true, if_false: if_true if condition else if_false


for _formula in (mp.stieltjes_root, mp.stieltjes_root_derivative, mp.gram_root, mp.gram_root_derivative,
                 mp.density_root, mp._moments_beta_le_1, mp.mp_moments):
    register_jitable(**JIT)(_formula)


def _like(z, m):  # pragma: no cover - replaced by the overload in compiled code
    raise NotImplementedError


@overload(_like)
def _like_ov(z, m):
    if isinstance(z, types.Complex):
        return lambda z, m: m
    return lambda z, m: m.real


@njit(**JIT)
def mp_stieltjes_nb(z, ratio):
    """Scalar twin of :func:`~.marchenko_pastur.mp_stieltjes` (float z → float, complex z → complex)."""
    return _like(z, mp.stieltjes_root(complex(z), ratio))


@njit(**JIT)
def mp_stieltjes_derivative_nb(z, ratio):
    """Scalar twin of :func:`~.marchenko_pastur.mp_stieltjes_derivative`."""
    zc = complex(z)
    return _like(z, mp.stieltjes_root_derivative(zc, ratio, mp.stieltjes_root(zc, ratio)))


@njit(**JIT)
def mp_density_nb(x, ratio):
    """Scalar twin of :func:`~.marchenko_pastur.mp_density`."""
    return mp.density_root(float(x), ratio)


@njit(**JIT)
def gram_stieltjes_nb(z, psi2):
    """Scalar twin of :func:`~.marchenko_pastur.gram_stieltjes`."""
    return _like(z, mp.gram_root(complex(z), psi2))


@njit(**JIT)
def gram_stieltjes_derivative_nb(z, psi2):
    """Scalar twin of :func:`~.marchenko_pastur.gram_stieltjes_derivative`."""
    return _like(z, mp.gram_root_derivative(complex(z), psi2))


@njit(**JIT)
def wtw_stieltjes_nb(z, psi2):
    """Scalar twin of :func:`~.marchenko_pastur.wtw_stieltjes`."""
    return _like(z, mp.stieltjes_root(complex(z), psi2))


@njit(**JIT)
def mp_moments_nb(u, beta):
    """Scalar twin of :func:`~.marchenko_pastur.mp_moments`: (A0, A1, B0, B1, B2) at u ≥ 0."""
    return mp.mp_moments(u, beta)
