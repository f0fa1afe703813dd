"""Random-matrix building blocks (layer 4): Marchenko–Pastur transforms, numpy-vectorised with
numba scalar twins (suffix ``_nb``)."""

from .marchenko_pastur import (
    gram_stieltjes,
    gram_stieltjes_derivative,
    gram_stieltjes_derivative_nb,
    gram_stieltjes_nb,
    mp_atom,
    mp_companion_stieltjes,
    mp_density,
    mp_density_nb,
    mp_edges,
    mp_stieltjes,
    mp_stieltjes_derivative,
    mp_stieltjes_derivative_nb,
    mp_stieltjes_nb,
    wtw_stieltjes,
    wtw_stieltjes_derivative,
    wtw_stieltjes_nb,
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
    "mp_stieltjes_nb",
    "mp_stieltjes_derivative_nb",
    "mp_density_nb",
    "gram_stieltjes_nb",
    "gram_stieltjes_derivative_nb",
    "wtw_stieltjes_nb",
]
