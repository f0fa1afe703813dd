"""Reproduce the papers' figures and tables in one command.

>>> from asymptotics.reproduce import reproduce, items      # doctest: +SKIP
>>> manifest = reproduce("out", size="quick")                # doctest: +SKIP

See :mod:`asymptotics.reproduce.runner` for the output layout, :mod:`asymptotics.reproduce.cache`
for the simulation cache, :mod:`asymptotics.reproduce.registry` and :mod:`asymptotics.reproduce.plot`
for what an item declares, and :mod:`asymptotics.reproduce.catalog` for the figures themselves.
"""

from .cache import SimulationCache
from .data import Curve, FigureData, Points, RefLine, compare
from .plot import Panel, PlotSpec
from .registry import SIZES, Item, TableSpec, get, items, register
from .runner import DEFAULT_SEED, reproduce

__all__ = [
    "reproduce",
    "items",
    "get",
    "register",
    "Item",
    "PlotSpec",
    "Panel",
    "TableSpec",
    "SIZES",
    "SimulationCache",
    "FigureData",
    "Curve",
    "Points",
    "RefLine",
    "compare",
    "DEFAULT_SEED",
]
