"""The papers' catalogue: ``PAPERS[name]()`` returns that paper's testable claims.

``ba2022``: Ba, Erdogdu, Suzuki, Wang, Wu, Yang (2022), "High-dimensional asymptotics of feature
learning: how one gradient step improves the representation". ``cui2024``: Cui, Pesce, Dandi,
Krzakala, Lu, Zdeborová, Loureiro (2024), "Asymptotics of feature learning in two-layer networks
after one gradient-step". A paper whose module is absent is not listed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["PAPERS", "paper_claims"]

_MODULES = ("ba2022", "cui2024")


def _load() -> dict[str, Callable[[], tuple]]:
    out = {}
    for name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        out[name] = module.claims
    return out


#: {paper: function returning that paper's claims (a tuple of Claim)}.
PAPERS: dict[str, Callable[[], tuple]] = _load()


def paper_claims(name: str) -> tuple:
    """The claims of paper ``name`` (a ParameterError naming the known papers otherwise, and the
    option as the caller spelled it: ``paper`` in Python, ``--paper`` on the command line)."""
    from ...api.errors import option
    from ...errors import ParameterError

    if name not in PAPERS:
        raise ParameterError(option("paper"), name, "one of " + (", ".join(PAPERS) or "(none installed)"))
    return tuple(PAPERS[name]())
