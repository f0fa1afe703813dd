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

__all__ = ["plan_columns", "build_table", "fit_table", "render_text", "print_table", "available_columns", "fmt",
           "wrap_text"]

#: Rows up to which a too-wide ``show_all`` table is transposed.
TRANSPOSE_ROWS = 12
#: In a column name, joins a value column and its standard error into one ``value ± s.e.`` column
#: (``"simulation±se"``).
PAIR = "±"


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
    name: str = ""  # the name ``columns`` and ``Columns.keep`` give it (default: the header)

    @property
    def id(self) -> str:
        return self.name or self.header

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
    if PAIR in name:  # "value±se": two columns of the rows shown as one, "value ± s.e."
        value, se = name.split(PAIR, 1)
        if value in keys:
            return _Column(f"{value} ± s.e.", (value, se) if se in keys else (value,), name)
        return None
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
        bad = [c for c in columns if c not in valid and not (PAIR in c and _column(c, keys))]
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
    if any(len(c.keys) == 2 and c.keys[0].endswith("_mean") for c in columns):
        seeds = result.rows[0].get("seeds")
        bits.append(f"mean ± s.e. over {seeds} seeds" if seeds else "mean ± s.e.")
    return " · ".join(bits) or None


def build_table(result, columns: Sequence[str] | None = None, show_all: bool = False, precision: int = 6,
                transpose: bool = False, title: bool = True, wrap: bool = False):
    """The rich ``Table`` of ``result`` (see the module docstring); ``title=False`` leaves the
    fixed parameters out (:func:`print_table` prints them on a line of their own); ``wrap`` lets
    cells wrap (for a console narrower than the table)."""
    cols = plan_columns(result, columns, show_all)
    return _table(result, cols, precision, title=_title(result, cols) if title else None, transpose=transpose,
                  wrap=wrap)


def _table(result, cols: list[_Column], precision: int, *, title: str | None = None, transpose: bool = False,
           wrap: bool = False, headers: dict[str, str] | None = None, widths: dict[str, int] | None = None):
    """The rich ``Table`` of ``cols``: ``headers`` replaces headers (abbreviations), ``widths``
    wraps the text of those columns to that many characters (:func:`wrap_text`)."""
    from rich.table import Table

    headers, widths = headers or {}, widths or {}

    def cells(c: _Column) -> list[str]:
        out = [c.cell(r, precision) for r in result.rows]
        w = widths.get(c.id)
        return [wrap_text(t, w) for t in out] if w else out

    if transpose:
        t = Table(title=title, show_header=False)
        t.add_column("column", style="bold")
        for _ in result.rows:
            t.add_column(justify="right")
        for c in cols:
            t.add_row(headers.get(c.id, c.header), *cells(c))
        return t
    t = Table(title=title)
    for c in cols:
        header = headers.get(c.id, c.header)
        if wrap:  # headers wrap, numbers are cut visibly (…), never folded onto a second line
            t.add_column(header, justify="left" if _is_text(result, c) else "right", overflow="ellipsis")
        elif c.id in widths:  # text wrapped at word, hyphen or underscore boundaries; the header too
            t.add_column(header, justify="left", min_width=min(len(header), widths[c.id]))
        elif _is_text(result, c):
            t.add_column(header, justify="left", no_wrap=True, min_width=min(len(header), 14))
        else:
            t.add_column(header, justify="right", no_wrap=True, min_width=min(len(header), 14))
    columns = [cells(c) for c in cols]
    for j in range(len(result.rows)):
        t.add_row(*[col[j] for col in columns])
    return t


def wrap_text(text: str, width: int) -> str:
    """``text`` on lines of at most ``width`` characters, broken after a space, ``-``, ``_``, ``/``
    or ``,`` where it can be, inside a word only where a word is longer than a line.

    >>> wrap_text("large-step-exact-quick", 12).splitlines()
    ['large-step-', 'exact-quick']
    """
    if width < 1 or len(text) <= width:
        return text
    import re

    lines, line = [], ""
    for token in re.findall(r"[^\s\-_/,]*[\-_/,]*\s*", text):
        if not token:
            continue
        if len(line) + len(token.rstrip()) <= width:
            line += token
            continue
        if line.strip():
            lines.append(line.rstrip())
        line = token
        while len(line.rstrip()) > width:  # a word longer than a line: folded
            lines.append(line[:width])
            line = line[width:]
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


#: Shorter headers for a table too wide for the console (a note names them).
ABBREVIATIONS = {"simulation": "sim.", "tolerance": "tol.", "allowance": "allow.", "quantity": "qty",
                 "variant": "var.", "chi2_dof": "χ²/dof", "p_value": "p"}
#: A text column keeps at least this many characters per line before an optional column is dropped
#: (the kept columns are then wrapped down to ``HARD_FLOOR``).
SOFT_FLOOR, HARD_FLOOR = 16, 6


def _abbreviate(header: str) -> str:
    """``header`` with each of its words (split at spaces) that has an abbreviation abbreviated."""
    return " ".join(ABBREVIATIONS.get(word, word) for word in header.split(" "))


def _natural_width(table) -> int:
    from rich.console import Console

    probe = Console(width=4000, file=io.StringIO())
    return probe.measure(table).maximum


def _is_text(result, c: _Column) -> bool:
    """A column of strings (not numbers, not mean ± s.e.), which may wrap."""
    vals = [r.get(c.keys[0]) for r in result.rows if r.get(c.keys[0]) is not None]
    return len(c.keys) == 1 and bool(vals) and all(isinstance(v, str) for v in vals)


def _fit_text(result, cols: list[_Column], precision: int, headers: dict, width: int, floor: int):
    """The table of ``cols`` with its text columns wrapped (widest first, down to ``floor``
    characters) to fit ``width``; ``None`` when they cannot be narrowed enough."""
    table = _table(result, cols, precision, headers=headers)
    excess = _natural_width(table) - width
    if excess <= 0:
        return table
    natural = {c.id: max((len(line) for r in result.rows for line in c.cell(r, precision).splitlines()), default=0)
               for c in cols if _is_text(result, c)}
    level = max(natural.values(), default=0)
    while level > floor:
        level -= 1
        widths = {k: level for k, w in natural.items() if w > level}
        if sum(natural[k] - level for k in widths) < excess:
            continue
        table = _table(result, cols, precision, headers=headers, widths=widths)
        if _natural_width(table) <= width:
            return table
    return None


def fit_table(result, cols: list[_Column], width: int, keep: Sequence[str] = (), precision: int = 4):
    """The table of ``cols`` narrowed to ``width``: headers abbreviated, text wrapped, then the
    columns not in ``keep`` dropped from the last; the kept ones are never dropped.

    Returns ``(table, hidden, abbreviated)``: the rich ``Table``, the names of the dropped columns
    and ``{header: abbreviation}`` of the headers shortened."""
    if not keep:  # the rows' identity (the grid parameters shown) and the first value
        keep = [c.id for c in cols if len(c.keys) == 1 and c.keys[0] in _params(result)] or [cols[0].id]
        values = [c.id for c in cols if c.id not in keep]
        keep = [*keep, *values[:1]]
    headers = {}  # a header wider than its column's cells is abbreviated
    for c in cols:
        cells = max((len(line) for r in result.rows for line in c.cell(r, precision).splitlines()), default=0)
        if len(c.header) > cells and _abbreviate(c.header) != c.header:
            headers[c.id] = _abbreviate(c.header)
    optional = [c for c in cols if c.id not in keep]
    for n in range(len(optional) + 1):
        dropped = {c.id for c in optional[len(optional) - n:]}
        shown = [c for c in cols if c.id not in dropped]
        table = _fit_text(result, shown, precision, headers, width, SOFT_FLOOR if len(shown) > 1 else HARD_FLOOR)
        if table is not None:
            break
    else:
        table = _fit_text(result, shown, precision, headers, width, HARD_FLOOR)
        if table is None:  # the kept columns alone are wider than the console: rich squeezes them
            table = _table(result, shown, precision, headers=headers, wrap=True)
    shown_ids = {c.id for c in shown}
    hidden = [c.id for c in cols if c.id not in shown_ids]
    abbreviated = {c.header: headers[c.id] for c in shown if c.id in headers}
    return table, hidden, abbreviated


def _params(result) -> tuple[str, ...]:
    spec = getattr(result, "columns", None)
    return spec.params if spec is not None else ()


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


def print_table(result, columns: Sequence[str] | None = None, show_all: bool = False, precision: int = 6,
                console=None) -> None:
    """Print the table to stdout (or ``console``): as wide as the terminal at most (or ``COLUMNS``);
    when stdout is not a terminal and ``COLUMNS`` is unset, at its natural width.

    A table wider than the console is shown with 4 significant digits and abbreviated headers
    (named in a note), its text columns wrapped, then without its last optional columns (named in
    a note: ``--columns`` shows them): the columns of the command's ``Columns.keep`` (default: the
    varying grid parameters and the first value) are never dropped. ``show_all`` with few rows is
    transposed instead. Numbers are never folded over two lines."""
    from rich.console import Console

    table = build_table(result, columns, show_all, precision, title=False)
    if console is None:
        console = Console()
        if not console.is_terminal and "COLUMNS" not in os.environ:
            console = Console(width=min(_natural_width(table), 4000))
            _print(console, result, table, columns, show_all)
            return
    width = console.width
    if _natural_width(table) <= width:
        _print(console, result, table, columns, show_all)
        return
    if show_all:
        transpose = len(result.rows) <= TRANSPOSE_ROWS
        table = build_table(result, columns, show_all, precision, transpose=transpose, title=False, wrap=True)
        _print(console, result, table, columns, show_all)
        return
    cols = plan_columns(result, columns, show_all)
    spec = getattr(result, "columns", None)
    keep = [c.id for c in cols] if columns is not None else list(getattr(spec, "keep", ()) or ())
    table, hidden, abbreviated = fit_table(result, cols, width, keep, min(precision, 4))
    _print(console, result, table, columns, show_all)
    notes = []
    if abbreviated:
        notes.append("; ".join(f"{short} = {long}" for long, short in abbreviated.items()))
    if hidden:
        notes.append(f"not shown for width: {', '.join(hidden)}; see --columns, --all")
    if notes:
        console.print(f"({'; '.join(notes)})", style="dim", highlight=False)
