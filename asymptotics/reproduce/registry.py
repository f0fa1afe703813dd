"""The catalogue of figures and tables that ``asymptotics reproduce`` regenerates.

Each entry is an :class:`Item`, a small frozen declaration: a name, the paper reference, one
sentence on what it checks, sizes for the presets ``toy`` (tests only), ``quick``, ``default`` and
``full`` (the papers' sizes), a **data function** ``data(ctx) -> FigureData`` (theory curves from
:mod:`asymptotics.theory`, simulation markers from :mod:`validation.simulator`), and either a
**plot spec** (:class:`~asymptotics.reproduce.plot.PlotSpec`: the panels, their labels and scales)
for a figure or a **table spec** (:class:`TableSpec`) for a table. One skeleton
(:func:`asymptotics.reproduce.runner.run_item`) computes, exports and draws every item.

The catalogue's items are listed in :mod:`asymptotics.reproduce.catalog` (plain imports: a renamed
theory function fails at import, and the toy-size test runs every item); :func:`register` adds
one more.
"""

from __future__ import annotations

from ..errors import ParameterError
from .item import COMPARISON_COLUMNS, SIZES, Item, TableSpec, sizes

__all__ = ["SIZES", "COMPARISON_COLUMNS", "Item", "TableSpec", "sizes", "register", "items", "get"]

_ITEMS: dict[str, Item] = {}
_CATALOGUE_LOADED = False


def register(item: Item) -> Item:
    """Add ``item`` to the catalogue (a name can be registered once)."""
    if item.name in _ITEMS and _ITEMS[item.name] is not item:
        raise ValueError(f"reproduce item {item.name!r} registered twice")
    _ITEMS[item.name] = item
    return item


def _load_catalogue() -> None:
    global _CATALOGUE_LOADED
    if not _CATALOGUE_LOADED:
        from .catalog import ITEMS

        for it in ITEMS:
            register(it)
        _CATALOGUE_LOADED = True


def items(names=None, kind: str | None = None) -> list[Item]:
    """Registered items in report order, optionally only ``names`` (checked) or one ``kind``."""
    _load_catalogue()
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
