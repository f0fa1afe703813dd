"""One item of ``asymptotics reproduce``: its declaration (:class:`Item`, :class:`TableSpec`), the size
presets and the columns of its theory-vs-simulation table. The catalogue's modules import this module,
and the loader (:mod:`asymptotics.reproduce.registry`) imports the catalogue: no cycle."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ParameterError
from .plot import PlotSpec

__all__ = ["SIZES", "COMPARISON_COLUMNS", "Item", "TableSpec", "sizes"]

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
