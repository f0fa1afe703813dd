"""The catalogue of figures and tables that ``asymptotics reproduce`` regenerates.

Each entry is an :class:`Item`: a name, the paper reference, one sentence on what it checks, sizes for
the presets ``toy`` (tests only), ``quick`` (≈ 2 min for everything on 2 cores), ``default``
(≈ 10 min) and ``full`` (the papers' sizes), a ``compute`` function returning
:class:`~asymptotics.reproduce.data.FigureData` (theory curves from :mod:`asymptotics.theory`,
simulation markers from :mod:`validation.simulator`) and, for figures, a ``plot`` function.

Items are defined one per module in :mod:`asymptotics.reproduce.catalog` and discovered on first use.
An item whose theory has not been implemented yet stays registered and reports what it needs
(``requires``: ``"module:attribute"`` strings) instead of drawing a fake curve.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import ParameterError

__all__ = ["SIZES", "Item", "register", "items", "get", "missing_requirements", "resolve"]

#: Size presets, smallest first. ``toy`` exists for the test-suite only.
SIZES = ("toy", "quick", "default", "full")


@dataclass(frozen=True)
class Item:
    """One reproducible figure or table.

    Attributes:
        name: identifier used on the command line (``asymptotics figure NAME``).
        title: the title drawn on the figure / shown in the report.
        paper: the reference it reproduces (paper, figure or table number, section of the notes).
        checks: one sentence: what agreement (or phenomenon) the item demonstrates.
        kind: ``"figure"`` or ``"table"``.
        sizes: preset name → parameters of that size (``d``, ``seeds``, grids…).
        compute: ``compute(ctx) -> FigureData``.
        plot: ``plot(data, ctx) -> matplotlib Figure`` (None for tables).
        requires: ``"module:attribute"`` needed for the item at all.
        order: position in the report.
    """

    name: str
    title: str
    paper: str
    checks: str
    kind: str
    sizes: Mapping[str, Mapping]
    compute: Callable
    plot: Callable | None = None
    requires: tuple[str, ...] = ()
    order: int = 100
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if self.kind not in ("figure", "table"):
            raise ValueError(f"item {self.name}: kind must be 'figure' or 'table'")
        missing = [s for s in SIZES if s not in self.sizes]
        if missing:
            raise ValueError(f"item {self.name}: sizes {missing} not defined")
        if self.kind == "figure" and self.plot is None:
            raise ValueError(f"figure {self.name} has no plot function")

    def size(self, size: str) -> Mapping:
        if size not in SIZES:
            raise ParameterError("size", size, f"one of {', '.join(SIZES)}")
        return self.sizes[size]


_ITEMS: dict[str, Item] = {}
_DISCOVERED = False


def register(item: Item) -> Item:
    """Add ``item`` to the catalogue (a name can be registered once)."""
    if item.name in _ITEMS and _ITEMS[item.name] is not item:
        raise ValueError(f"reproduce item {item.name!r} registered twice")
    _ITEMS[item.name] = item
    return item


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    from . import catalog

    for info in sorted(pkgutil.iter_modules(catalog.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{catalog.__name__}.{info.name}")
    _DISCOVERED = True


def items(names=None, kind: str | None = None) -> list[Item]:
    """Registered items in report order, optionally only ``names`` (checked) or one ``kind``."""
    _discover()
    if names:
        unknown = [n for n in names if n not in _ITEMS]
        if unknown:
            raise ParameterError("NAME", ", ".join(unknown), f"one of {', '.join(sorted(_ITEMS))}")
        out = [_ITEMS[n] for n in names]
    else:
        out = sorted(_ITEMS.values(), key=lambda it: (it.order, it.name))
    if kind:
        out = [it for it in out if it.kind == kind]
    return out


def get(name: str) -> Item:
    """The item called ``name`` (a :class:`ParameterError` lists the valid names)."""
    return items([name])[0]


def resolve(target: str):
    """Import ``"module:attribute"`` and return the attribute; ``None`` if it does not exist (yet).

    Only a missing module or attribute counts as "not there": an error raised while importing an
    existing module propagates (a broken module is a bug to see, not a missing feature).
    """
    mod_name, _, attr = target.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        # missing iff the module itself (or a parent package) is what was not found
        if exc.name and (mod_name == exc.name or mod_name.startswith(exc.name + ".")):
            return None
        raise
    if not attr:
        return mod
    obj = mod
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def missing_requirements(item: Item) -> list[str]:
    """The ``requires`` entries of ``item`` that cannot be imported yet."""
    return [t for t in item.requires if resolve(t) is None]
