"""Moved: the Marchenko–Pastur transforms live in the numerics layer,
:mod:`asymptotics.numerics.marchenko_pastur` (numpy) and
:mod:`asymptotics.numerics.marchenko_pastur_numba` (the same formulas compiled). No module of the
package imports this name any more; it stays only while ``docs/architecture.md``'s layer table
lists it, and goes with that entry."""

from ..numerics.marchenko_pastur import (  # noqa: F401
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
