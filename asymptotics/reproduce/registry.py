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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ParameterError
from .plot import PlotSpec

__all__ = ["SIZES", "Item", "TableSpec", "sizes", "register", "items", "get"]

#: Size presets, smallest first. ``toy`` exists for the test-suite only.
SIZES = ("toy", "quick", "default", "full")

#: The columns of a figure's theory-vs-simulation table.
COMPARISON_COLUMNS = ("quantity", "point", "d", "seeds", "method", "theory", "simulation", "se", "z", "status",
                      "reason")


def sizes(**columns: Sequence) -> dict[str, dict]:
    """An item's size presets written by parameter: each keyword a parameter, with its values at
    the presets ``toy``, ``quick``, ``default`` and ``full``, in that order. ``sizes()`` (no
    parameter): a theory-only item, the same at every size.

    >>> sizes(d=(100, 200, 500, 2000), seeds=(2, 2, 3, 4))["quick"]
    {'d': 200, 'seeds': 2}
    """
    for name, values in columns.items():
        if len(values) != len(SIZES):
            raise ValueError(f"sizes: {name} has {len(values)} values for the presets {', '.join(SIZES)}")
    return {s: {name: values[i] for name, values in columns.items()} for i, s in enumerate(SIZES)}


@dataclass(frozen=True)
class TableSpec:
    """How an item's table is rendered (LaTeX and Markdown; CSV and Parquet keep every column).

    Attributes:
        columns: the columns shown (``None``: every column of the data's table rows; a figure's
            table is its theory-vs-simulation comparison, :data:`COMPARISON_COLUMNS`).
        precision: significant digits.
    """

    columns: tuple[str, ...] | None = None
    precision: int = 4


@dataclass(frozen=True)
class Item:
    """One reproducible figure or table.

    Attributes:
        name: identifier used on the command line (``asymptotics figure NAME``).
        title: the title shown in the report.
        paper: the reference it reproduces (paper, figure or table number, section of the docs).
        checks: one sentence: what agreement (or phenomenon) the item demonstrates.
        sizes: preset name → parameters of that size (``d``, ``seeds``, grids…).
        data: ``data(ctx) -> FigureData``: everything the item shows.
        plot: how a figure is drawn (``None`` for a table).
        table: how its table is rendered.
        order: position in the report.
        only_sizes: the sizes at which a full ``reproduce`` includes the item (``None``: every
            size); an item named explicitly (``reproduce --only``, ``figure NAME``) runs at any size.
    """

    name: str
    title: str
    paper: str
    checks: str
    sizes: Mapping[str, Mapping]
    data: Callable
    plot: PlotSpec | None = None
    table: TableSpec = TableSpec()
    order: int = 100
    only_sizes: tuple[str, ...] | None = None

    def __post_init__(self):
        missing = [s for s in SIZES if s not in self.sizes]
        if missing:
            raise ValueError(f"item {self.name}: sizes {missing} not defined")

    @property
    def kind(self) -> str:
        """``"figure"`` (it has a plot spec) or ``"table"``."""
        return "figure" if self.plot is not None else "table"

    def size(self, size: str) -> Mapping:
        if size not in SIZES:
            raise ParameterError("size", size, f"one of {', '.join(SIZES)}")
        return self.sizes[size]

    def table_columns(self, has_table_rows: bool) -> list[str] | None:
        """The columns of the rendered table: the spec's, else all (table rows) or the comparison's."""
        if self.table.columns is not None:
            return list(self.table.columns)
        return None if has_table_rows else list(COMPARISON_COLUMNS)


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
