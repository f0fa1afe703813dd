"""The generated module of a built-in activation, found without sympy.

:func:`~.lowering.lower_activation` keys the derivation index on ``sympy.srepr`` of the expression,
so finding a module that way needs the sympy expression, hence sympy itself (≈ 0.6 s of imports).
A built-in is identified without sympy by its name and its centring offset, so its module is
recorded in the same index under a second key made of those; the module file is the same one
(named by the hash of its source, which is rendered from the same expression), only the way to
it is cheaper. On a miss the expression is built and lowered as usual.

>>> from asymptotics.activations import activation
>>> from asymptotics.activations.lowering import lower_activation
>>> act = activation("relu")
>>> act._module.__file__ == lower_activation(act.expr).__file__
True
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..rendering.modules import DerivationIndex, code_hash, package_files

__all__ = ["builtin_module"]

_INDEX = DerivationIndex()


@lru_cache(maxsize=64)
def _key(builtin: str, offset: str) -> str:
    return code_hash(package_files("activations", "rendering"), extra=f"activation-builtin|{builtin}|{offset}")


def builtin_module(builtin: str, offset: str, expression: Callable[[], object]):
    """The module of the built-in ``builtin`` shifted by ``offset`` (its text: ``"0"`` when not
    shifted, else the 30-digit centring constant), rendered from ``expression()`` on a miss."""

    def render() -> str:
        from .lowering import render_source

        return render_source(expression())

    return _INDEX.load(_key(builtin, offset), "act", render)[0]
