"""The console table of a :class:`~asymptotics.results.Result`: compact by default, chosen
columns on request, never wider than the terminal.

* default: the command's :class:`~asymptotics.results.Columns` — the grid parameters that vary
  (the fixed ones go to the title) and the quantities asked for, ``x_mean``/``x_se`` merged into
  one ``x (± s.e.)`` column;
* ``columns=["a", "b"]``: exactly those (a name may be a merged ``x``); an unknown name is a
  :class:`~asymptotics.errors.ParameterError` listing the valid ones;
* ``show_all``: every column; when that is wider than the console and there are few rows, the
  table is transposed (one line per column).

>>> from asymptotics.results import Columns, Result
>>> res = Result([{"psi1": 1.0, "psi2": 2.0, "risk_mean": 0.1234567, "risk_se": 0.0012}],
...              meta={}, columns=Columns(("psi1", "psi2"), ("risk",)))
>>> [c.header for c in plan_columns(res)]
['risk']
>>> text = render_text(res)
>>> "psi1=1 · psi2=2" in text and "0.1235 ± 0.0012" in text
True
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ParameterError

__all__ = ["plan_columns", "build_table", "render_text", "print_table", "available_columns", "fmt"]

#: Rows up to which a too-wide ``show_all`` table is transposed.
TRANSPOSE_ROWS = 12


def fmt(v, precision: int = 6) -> str:
    """A cell: floats to ``precision`` significant digits, lists shortened, None empty."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.{precision}g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x, 4) for x in v[:6]) + (", …]" if len(v) > 6 else "]")
    return str(v)


def _mean_se(m, s) -> str:
    if m is None:
        return ""
    if s is None or not isinstance(m, float) or not isinstance(s, float):
        return fmt(m, 4)
    return f"{m:.4g} ± {s:.2g}"


@dataclass(frozen=True)
class _Column:
    header: str
    keys: tuple[str, ...]  # (key,) or (mean key, se key)

    def cell(self, row: dict, precision: int) -> str:
        if len(self.keys) == 2:
            return _mean_se(row.get(self.keys[0]), row.get(self.keys[1]))
        return fmt(row.get(self.keys[0]), precision)


def _keys(rows: list[dict]) -> list[str]:
    out: dict[str, None] = {}
    for r in rows:
        for k in r:
            out.setdefault(k)
    return list(out)


def available_columns(rows: list[dict]) -> list[str]:
    """Every name ``columns`` accepts: the keys of the rows, and ``x`` for each ``x_mean``
    with an ``x_se``."""
    keys = _keys(rows)
    merged = [k[:-5] for k in keys if k.endswith("_mean") and f"{k[:-5]}_se" in keys and k[:-5] not in keys]
    return keys + merged


def _column(name: str, keys: list[str]) -> _Column | None:
    if name in keys:
        return _Column(name, (name,))
    if f"{name}_mean" in keys:
        if f"{name}_se" in keys:
            return _Column(name, (f"{name}_mean", f"{name}_se"))
        return _Column(name, (f"{name}_mean",))
    return None


def _varies(rows: list[dict], key: str) -> bool:
    first = repr(rows[0].get(key)) if rows else None
    return any(repr(r.get(key)) != first for r in rows[1:])


def plan_columns(result, columns: Sequence[str] | None = None, show_all: bool = False) -> list[_Column]:
    """The columns of the table, in order."""
    rows = result.rows
    keys = _keys(rows)
    if columns is not None:
        valid = available_columns(rows)
        bad = [c for c in columns if c not in valid]
        if bad or not columns:
            raise ParameterError("--columns", ",".join(columns), f"column names among {', '.join(valid)}",
                                 f"unknown: {', '.join(bad)}" if bad else "no column named")
        return [_column(c, keys) for c in columns]
    spec = getattr(result, "columns", None)
    if show_all or spec is None:
        return [_Column(k, (k,)) for k in keys]
    out = [_column(p, keys) for p in spec.params if p in keys and _varies(rows, p)]
    out += [_column(v, keys) for v in spec.values]
    out = [c for c in out if c is not None]
    return out or [_Column(k, (k,)) for k in keys]


def _title(result, columns: list[_Column]) -> str | None:
    spec = getattr(result, "columns", None)
    if spec is None or not result.rows:
        return None
    shown = {k for c in columns for k in c.keys}
    bits = [f"{p}={fmt(result.rows[0].get(p), 6)}" for p in spec.params
            if p in result.rows[0] and p not in shown and not _varies(result.rows, p)]
    if any(len(c.keys) == 2 for c in columns):
        seeds = result.rows[0].get("seeds")
        bits.append(f"mean ± s.e. over {seeds} seeds" if seeds else "mean ± s.e.")
    return " · ".join(bits) or None


def build_table(result, columns: Sequence[str] | None = None, show_all: bool = False, precision: int = 6,
                transpose: bool = False, title: bool = True, wrap: bool = False):
    """The rich ``Table`` of ``result`` (see the module docstring); ``title=False`` leaves the
    fixed parameters out (:func:`print_table` prints them on a line of their own); ``wrap`` lets
    cells wrap (for a console narrower than the table)."""
    from rich.table import Table

    cols = plan_columns(result, columns, show_all)
    title = _title(result, cols) if title else None
    if transpose:
        t = Table(title=title, show_header=False)
        t.add_column("column", style="bold")
        for _ in result.rows:
            t.add_column(justify="right")
        for c in cols:
            t.add_row(c.header, *[c.cell(r, precision) for r in result.rows])
        return t
    t = Table(title=title)
    for c in cols:
        if wrap:  # headers wrap, numbers are cut visibly (…), never folded onto a second line
            t.add_column(c.header, justify="right", overflow="ellipsis")
        else:
            t.add_column(c.header, justify="right", no_wrap=True, min_width=min(len(c.header), 14))
    for r in result.rows:
        t.add_row(*[c.cell(r, precision) for c in cols])
    return t


def _natural_width(table) -> int:
    from rich.console import Console

    probe = Console(width=4000, file=io.StringIO())
    return probe.measure(table).maximum


def _print(console, result, table, columns, show_all) -> None:
    caption = _title(result, plan_columns(result, columns, show_all))
    if caption:
        console.print(caption, style="italic", highlight=False, soft_wrap=False)
    console.print(table)


def render_text(result, columns: Sequence[str] | None = None, show_all: bool = False, precision: int = 6) -> str:
    """The table as plain text at its natural width (the fixed parameters on the first line)."""
    from rich.console import Console

    table = build_table(result, columns, show_all, precision, title=False)
    buf = io.StringIO()
    _print(Console(file=buf, width=min(_natural_width(table), 4000), force_terminal=False, no_color=True),
           result, table, columns, show_all)
    return buf.getvalue()


def print_table(result, columns: Sequence[str] | None = None, show_all: bool = False, precision: int = 6) -> None:
    """Print the table to stdout: as wide as the terminal at most (or ``COLUMNS``); when stdout
    is not a terminal and ``COLUMNS`` is unset, at its natural width.

    A table wider than the console is shown with 4 significant digits, then without its last
    value columns (named in a note: ``--columns`` shows them); ``show_all`` with few rows is
    transposed instead. Numbers are never folded over two lines."""
    from rich.console import Console

    table = build_table(result, columns, show_all, precision, title=False)
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=min(_natural_width(table), 4000))
        _print(console, result, table, columns, show_all)
        return
    width = console.width
    if _natural_width(table) > width and show_all:
        transpose = len(result.rows) <= TRANSPOSE_ROWS
        table = build_table(result, columns, show_all, precision, transpose=transpose, title=False, wrap=True)
        _print(console, result, table, columns, show_all)
        return
    if _natural_width(table) > width:
        table = build_table(result, columns, show_all, min(precision, 4), title=False)
    names = [c.header for c in plan_columns(result, columns, show_all)]  # a header is its column's name
    hidden: list[str] = []
    while _natural_width(table) > width and len(names) > 1:
        hidden.insert(0, names.pop())
        table = build_table(result, names, False, min(precision, 4), title=False)
    _print(console, result, table, columns, show_all)
    if hidden:
        console.print(f"(not shown for width: {', '.join(hidden)}; see --columns, --all)", style="dim",
                      highlight=False)
