"""Random-matrix building blocks (layer 4): Marchenko–Pastur transforms, numpy-vectorised with
numba scalar twins (suffix ``_nb``, in :mod:`.marchenko_pastur_numba`, imported on first use so
that the numpy transforms do not import numba)."""

from .marchenko_pastur import (
    gram_stieltjes,
    gram_stieltjes_derivative,
    mp_atom,
    mp_companion_stieltjes,
    mp_density,
    mp_edges,
    mp_stieltjes,
    mp_stieltjes_derivative,
    wtw_stieltjes,
    wtw_stieltjes_derivative,
)

_NUMBA_TWINS = (
    "mp_stieltjes_nb",
    "mp_stieltjes_derivative_nb",
    "mp_density_nb",
    "gram_stieltjes_nb",
    "gram_stieltjes_derivative_nb",
    "wtw_stieltjes_nb",
)

__all__ = [
    "mp_stieltjes",
    "mp_stieltjes_derivative",
    "mp_companion_stieltjes",
    "mp_density",
    "mp_edges",
    "mp_atom",
    "gram_stieltjes",
    "gram_stieltjes_derivative",
    "wtw_stieltjes",
    "wtw_stieltjes_derivative",
    *_NUMBA_TWINS,
]


def __getattr__(name: str):
    if name in _NUMBA_TWINS:
        from . import marchenko_pastur_numba

        return getattr(marchenko_pastur_numba, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
