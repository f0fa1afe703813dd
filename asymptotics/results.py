"""Results with their provenance, and writing them without ever losing earlier results.

A :class:`Result` holds ``rows`` (one dict per grid point: parameters and computed values) and
``meta`` (package and library versions, activations with their constants, solver settings and
status, seeds). It renders as CSV, JSON (``{"meta": {...}, "rows": [...]}``) or Parquet (meta in
the schema metadata), which keep every column, and as a console table, which shows the compact
set of :class:`Columns` its command declares (see :mod:`asymptotics.console_table`). Files are written
to a temporary file in the target directory and renamed into place, so an interrupted write
never leaves a half-written file.

The one conversion from result objects to rows: :func:`record` (one object → one flat row, via
its ``as_dict()`` or its dataclass fields) and :func:`grid_rows` (an object whose fields are
arrays over a grid → one row per grid point); both pass every value through :func:`scalar`
(numpy → Python, ±inf and NaN → ``None``, so that no silent non-finite number reaches a file).

**In a notebook** a :class:`Result` shows itself: a compact ``repr`` (the first and last rows of
the console table), an HTML table of the same compact columns (``_repr_html_``), ``.to_frame()``
(pandas, one row per point, the command's column names, the metadata in ``.attrs``),
``.plot()`` (the quantities against the varying grid parameter), ``res["risk1"]`` (a column as
a numpy array, ``None`` → NaN) and ``.failures`` (the rows of grid points that did not converge,
each with its :class:`~asymptotics.solvers.Status` label in ``status``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import io
import json
import math
import os
import platform
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._version import __version__
from .atomic import check_file_target, path_error, write_bytes
from .result_plot import is_number as _is_number

__all__ = [
    "Result",
    "Columns",
    "base_meta",
    "versions",
    "FORMATS",
    "SUFFIXES",
    "file_format",
    "to_jsonable",
    "scalar",
    "record",
    "grid_rows",
]

FORMATS = ("table", "csv", "json", "parquet")
#: The file formats, by the suffix that names each (``Result.write``, ``--out FILE``).
SUFFIXES = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


def file_format(path: str | os.PathLike, fmt: str | None = None, name: str = "--out") -> str:
    """The file format of ``path``: ``fmt`` when it is a file format (csv, json, parquet), else the
    one its suffix names; anything else, or a ``fmt`` that another known suffix contradicts
    (``r.json`` as csv), is refused naming the formats and ``name``.

    >>> file_format("r.CSV"), file_format("r.txt", "json")
    ('csv', 'json')
    """
    option = "--format" if name == "--out" else "fmt"
    suffix = Path(path).suffix.lower()
    if fmt is not None and fmt != "table":
        if fmt not in FORMATS:
            raise _format_error(option, fmt)
        if SUFFIXES.get(suffix, fmt) != fmt:  # r.json written as csv would not read back
            raise path_error(name, path, f"a file whose suffix agrees with {option} {fmt}",
                             f"the suffix {suffix} names {SUFFIXES[suffix]}; rename the file or give "
                             f"{option} {SUFFIXES[suffix]}")
        return fmt
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    how = "--format csv|json|parquet" if name == "--out" else "fmt='csv', 'json' or 'parquet'"
    raise path_error(name, path, "a file ending in .csv, .json, .parquet or .pq",
                     (f"the suffix {suffix} names no format" if suffix else "the name has no suffix")
                     + f"; rename the file or give {how}")


def _format_error(name: str, fmt):
    from .errors import ParameterError

    return ParameterError(name, fmt, "one of csv, json, parquet")


def versions() -> dict:
    """Versions of the package and of the numerical stack."""
    out = {"asymptotics": __version__, "python": platform.python_version()}
    for mod in ("numpy", "scipy", "sympy", "mpmath", "numba"):
        m = sys.modules.get(mod)
        if m is not None:
            out[mod] = getattr(m, "__version__", "?")
            continue
        from importlib.metadata import PackageNotFoundError, version

        try:  # the installed version, without importing the package (numba alone takes ~0.3 s)
            out[mod] = version(mod)
        except PackageNotFoundError:  # pragma: no cover
            continue
    return out


def base_meta(**extra) -> dict:
    """Metadata common to every result: versions and a UTC timestamp, plus ``extra``."""
    meta = {
        "versions": versions(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    meta.update(extra)
    return meta


def _refuse_non_finite(value: float):
    """The one refusal of a NaN or ±inf on its way into a result file."""
    raise ValueError(f"refusing to write a non-finite number ({value}) to a result")


def to_jsonable(obj):
    """Convert numpy scalars/arrays and other objects to JSON-compatible values (NaN/inf refused)."""
    t = type(obj)
    if t is float:  # the common cases first (rows of large grids)
        if not math.isfinite(obj):
            _refuse_non_finite(obj)
        return obj
    if t is str or t is int or t is bool or obj is None:
        return obj
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        if not math.isfinite(v):
            _refuse_non_finite(v)
        return v
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if hasattr(obj, "as_dict"):
        return to_jsonable(obj.as_dict())
    return str(obj)


def scalar(v):
    """A JSON-ready scalar: numpy numbers → Python, non-finite floats → ``None``; other values
    unchanged."""
    t = type(v)
    if t is float:  # the common case first (rows of large grids)
        return v if math.isfinite(v) else None
    if t is int or t is str or t is bool or v is None:
        return v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    return v


def _fields(obj) -> dict:
    if hasattr(obj, "as_dict"):
        return dict(obj.as_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(f"cannot make a row of a {type(obj).__name__}")


def _select(fields: Sequence[str] | Mapping[str, str] | None, available) -> dict[str, str]:
    if fields is None:
        return {k: k for k in available}
    return dict(fields) if isinstance(fields, Mapping) else {k: k for k in fields}


def record(obj, fields: Sequence[str] | Mapping[str, str] | None = None) -> dict:
    """One result object as one flat row.

    ``obj`` is anything with ``as_dict()``, a dataclass or a mapping; ``fields`` picks (a
    sequence of names) or renames (``{column: field}``) its fields, default all. Values pass
    through :func:`scalar`.

    >>> record({"a": np.float64(1.5), "b": float("inf"), "c": np.bool_(True)})
    {'a': 1.5, 'b': None, 'c': True}
    """
    values = _fields(obj)
    return {col: scalar(values[name]) for col, name in _select(fields, values).items() if name in values}


def grid_rows(obj, fields: Sequence[str] | Mapping[str, str], count: int) -> list[dict]:
    """Rows of a result whose fields are arrays over ``count`` grid points (scalars broadcast):
    row j holds element j of each field (``{column: field}`` renames; a field that is ``None``
    gives no column). Values pass through :func:`scalar`.

    >>> from types import SimpleNamespace as NS
    >>> grid_rows(NS(r=np.array([0.1, 0.2]), bound=0.5, skip=None), ["r", "bound", "skip"], 2)
    [{'r': 0.1, 'bound': 0.5}, {'r': 0.2, 'bound': 0.5}]
    """
    cols = {}
    for col, name in _select(fields, ()).items():
        v = getattr(obj, name) if not isinstance(obj, Mapping) else obj.get(name)
        if v is None:
            continue
        arr = np.asarray(v)
        cols[col] = np.broadcast_to(arr.reshape(-1) if arr.size == count else arr, (count,))
    return [{c: scalar(a[j]) for c, a in cols.items()} for j in range(count)]


@dataclass(frozen=True)
class Columns:
    """The columns a command's console table shows by default (files keep every column).

    Attributes:
        params: the grid parameters: shown as columns when they vary across the rows, in the
            table's title when they do not.
        values: the computed quantities, in order; ``x`` shows the column ``x``, or
            ``x_mean ± x_se`` as one column when the rows carry those. Names absent from the
            rows are skipped. ``"x±y"`` shows the columns ``x`` and ``y`` (its standard error)
            as one column ``x ± s.e.``.
        keep: the names among these that a table too wide for the console never drops (it
            abbreviates headers, wraps text and drops the others first); default: the varying
            parameters and the first value.
    """

    params: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()


#: Rows an HTML table shows (the first and last half of them); ``repr`` shows fewer.
HTML_ROWS = 40
REPR_ROWS = 10
#: Status labels of a point that has a number (every other label marks a failed point).
OK_STATUS = ("converged",)




def _failed(row: dict) -> bool:
    status = row.get("status")
    return isinstance(status, str) and status not in OK_STATUS


def _shown_rows(rows: list[dict], limit: int) -> tuple[list[dict], int]:
    """The rows a display shows (first and last ``limit // 2``) and how many it leaves out."""
    if len(rows) <= limit:
        return rows, 0
    half = limit // 2
    return rows[:half] + rows[-half:], len(rows) - 2 * half


_PLAIN = frozenset((float, int, str, bool, type(None)))
_INT64 = (-(2**63), 2**63 - 1)


def _plain_csv(rows: list[dict]) -> str | None:
    """The text ``Result.to_csv`` writes through pandas (``DataFrame(rows).to_csv(index=False)``),
    column by column as pandas types and prints it, for rows whose values are all plain Python
    scalars (float, int, str, bool, None); ``None`` for anything else (pandas then writes it).
    Numbers only or with gaps: float64, each printed by its shortest round-trip repr (an int
    among them as a float, ``7.0``); ints only: as ints; gaps (``None`` or a missing key): empty.
    A non-finite float is refused as :func:`to_jsonable` refuses it."""
    if not rows:
        return None
    import csv

    names = list(dict.fromkeys(k for r in rows for k in r))
    columns = []
    for name in names:
        vals = [r.get(name) for r in rows]
        kinds = set(map(type, vals))
        if not kinds <= _PLAIN:
            return None
        if float in kinds:
            for v in vals:
                if type(v) is float and not math.isfinite(v):
                    _refuse_non_finite(v)
        if int in kinds and any(type(v) is int and not _INT64[0] <= v <= _INT64[1] for v in vals):
            return None
        if kinds == {int}:
            columns.append([str(v) for v in vals])
        elif kinds <= {int, float, type(None)} and kinds != {type(None)}:
            # float64 (None → NaN → empty); the csv module prints a float by repr, which is
            # numpy's shortest round-trip string of a float64
            columns.append(["" if v is None else float(v) for v in vals])
        else:  # bool, str, mixed or empty: each value as the csv module prints it
            columns.append(["" if v is None else v for v in vals])
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(zip(*columns, strict=True))
    return buf.getvalue()


@dataclass(repr=False)
class Result:
    """Rows of computed values with their metadata (and the default columns of its table).

    Attributes:
        rows: one dict per grid point: its parameters and the computed values, under the names
            of the command line's columns (``status`` holds a :class:`~asymptotics.solvers.Status`
            label where the command reports one).
        meta: provenance: command, versions, activations with their constants, solver settings,
            seeds, warnings.
        columns: the compact columns of the console and HTML tables (files keep every column).
    """

    rows: list[dict]
    meta: dict = field(default_factory=base_meta)
    columns: Columns | None = None

    # ---- looking at it ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, name: str) -> np.ndarray:
        """The column ``name`` over the rows as a numpy array (float where every value is a number
        or ``None``, ``None`` → NaN; otherwise an object array)."""
        if not isinstance(name, str):
            raise TypeError("a Result is indexed by a column name, e.g. res['risk1'] (res.rows[i] is a row)")
        if not any(name in r for r in self.rows):
            from .console_table import available_columns
            from .errors import ParameterError

            raise ParameterError("column", name, f"one of {', '.join(available_columns(self.rows))}")
        vals = [r.get(name) for r in self.rows]
        if all(v is None or _is_number(v) for v in vals):
            return np.array([math.nan if v is None else float(v) for v in vals])
        return np.array(vals, dtype=object)

    @property
    def failures(self) -> list[dict]:
        """The rows of points that failed (a ``status`` other than ``"converged"``)."""
        return [r for r in self.rows if _failed(r)]

    def _title_line(self) -> str:
        what = self.meta.get("command", "result") if isinstance(self.meta, Mapping) else "result"
        ncol = len({k for r in self.rows for k in r})
        bad = len(self.failures)
        return f"{what}: {len(self.rows)} row(s) × {ncol} column(s)" + (f", {bad} failed" if bad else "")

    def __repr__(self) -> str:
        """The title and the compact table of the first and last rows."""
        head = f"<Result {self._title_line()}>"
        if not self.rows:
            return head
        from .console_table import plan_columns, render_text

        cols = plan_columns(self)
        rows, skipped = _shown_rows(self.rows, REPR_ROWS)
        if skipped:  # a row of ellipses where the rows left out are
            gap = {**rows[0], **{k: "…" for c in cols for k in c.keys}}
            rows = rows[:REPR_ROWS // 2] + [gap] + rows[REPR_ROWS // 2:]
        text = render_text(Result(rows, self.meta, self.columns), columns=[c.id for c in cols]).rstrip("\n")
        more = f"\n({skipped} more row(s): res.rows, res.to_frame())" if skipped else ""
        return f"{head}\n{text}{more}"

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """An HTML table of the compact columns (the notebook display)."""
        import html

        from .console_table import _title, plan_columns

        esc = html.escape
        cols = plan_columns(self) if self.rows else []
        rows, skipped = _shown_rows(self.rows, HTML_ROWS)
        caption = _title(self, cols) if self.rows else None
        parts = ["<div class='asymptotics-result'>",
                 f"<p style='margin:0.2em 0'><b>{esc(self._title_line())}</b>"
                 + (f" · {esc(caption)}" if caption else "") + "</p>"]
        cell = "style='text-align:right;font-family:monospace;padding:0 0.6em'"
        if len(rows) == 1 and len(cols) > 8:  # one wide row: one line per column
            parts.append("<table><tbody>")
            for c in cols:
                parts.append(f"<tr><th style='text-align:left'>{esc(c.header)}</th><td {cell}>"
                             f"{esc(c.cell(rows[0], 6))}</td></tr>")
        else:
            parts.append("<table><thead><tr>" + "".join(f"<th {cell}>{esc(c.header)}</th>" for c in cols)
                         + "</tr></thead><tbody>")
            for i, r in enumerate(rows):
                if skipped and i == HTML_ROWS // 2:
                    parts.append(f"<tr><td colspan='{len(cols)}' style='text-align:center'>… {skipped} more row(s)"
                                 " …</td></tr>")
                style = " style='color:#b00020'" if _failed(r) else ""
                parts.append(f"<tr{style}>" + "".join(f"<td {cell}>{esc(c.cell(r, 6))}</td>" for c in cols) + "</tr>")
        parts.append("</tbody></table>")
        hidden = len({k for r in self.rows for k in r}) - len({k for c in cols for k in c.keys})
        if hidden > 0:
            parts.append(f"<p style='margin:0.2em 0;color:#666'>{hidden} more column(s): .to_frame() or .rows</p>")
        parts.append("</div>")
        return "".join(parts)

    def to_frame(self):
        """The rows as a tidy pandas DataFrame: one row per point, the command line's column names,
        ``None`` → NaN in numeric columns, list-valued cells kept as lists, and the metadata in
        ``DataFrame.attrs``."""
        import copy

        import pandas as pd

        df = pd.DataFrame(self.rows)  # the rows hold Python scalars already (record, grid_rows); None → NaN
        try:
            attrs = to_jsonable(self.meta)
        except ValueError:  # a non-finite number in the metadata: keep it as it is
            attrs = copy.deepcopy(self.meta)
        df.attrs.update(attrs)
        return df

    def plot(self, y: str | Sequence[str] | None = None, *, x: str | None = None, ax=None,
             logx: bool | None = None, logy: bool = False, se: float = 2.0, **kwargs):
        """Plot ``y`` against ``x`` and return the matplotlib ``Axes``; both axes and the legend are
        labelled with the quantities' names and symbols (:mod:`asymptotics.labels`).

        Args:
            y: a column or a list of columns (default: the table's value columns that hold numbers);
                a simulated ``name`` with ``name_mean`` and ``name_se`` is drawn with error bars.
            x: the horizontal axis (default: the first grid parameter of the table that varies).
                The other varying grid parameters give one line each.
            ax: draw into these axes (default: a new figure).
            logx: logarithmic x axis (default: when x is positive and spans a factor ≥ 50).
            logy: logarithmic y axis.
            se: error bars of ``se`` standard errors.
            **kwargs: passed to ``Axes.plot`` / ``Axes.errorbar``.
        """
        from .result_plot import plot_result

        return plot_result(self, y, x=x, ax=ax, logx=logx, logy=logy, se=se, **kwargs)

    # ---- files ------------------------------------------------------------------------------
    def _table_frame(self):
        """The rows as written to csv and parquet (list-valued cells kept as lists)."""
        import pandas as pd

        return pd.DataFrame(to_jsonable(self.rows))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps({"meta": to_jsonable(self.meta), "rows": to_jsonable(self.rows)}, indent=indent)

    def to_csv(self) -> str:
        text = _plain_csv(self.rows)  # rows of plain Python scalars (the usual case): no pandas
        if text is not None:
            return text
        buf = io.StringIO()
        self._table_frame().to_csv(buf, index=False)  # shortest round-trip repr of each float
        return buf.getvalue()

    def to_parquet_bytes(self) -> bytes:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(self._table_frame(), preserve_index=False)
        md = dict(table.schema.metadata or {})
        md[b"asymptotics.meta"] = json.dumps(to_jsonable(self.meta)).encode()
        table = table.replace_schema_metadata(md)
        buf = io.BytesIO()
        pq.write_table(table, buf)
        return buf.getvalue()

    def render(self, fmt: str) -> bytes:
        """The result in ``fmt`` (csv, json, parquet) as bytes; ``table`` gives plain text."""
        if fmt == "json":
            return (self.to_json() + "\n").encode()
        if fmt == "csv":
            return self.to_csv().encode()
        if fmt == "parquet":
            return self.to_parquet_bytes()
        if fmt == "table":
            return self.to_text().encode()
        raise _format_error("fmt", fmt)

    def to_text(self, precision: int = 6) -> str:
        """The console table as plain text (the default columns, natural width)."""
        from .console_table import render_text

        return render_text(self, precision=precision)

    def rich_table(self, precision: int = 6, columns: Sequence[str] | None = None, show_all: bool = False):
        """The console table (a rich ``Table``): the default :class:`Columns`, the named
        ``columns``, or every column (``show_all``)."""
        from .console_table import build_table

        return build_table(self, columns=columns, show_all=show_all, precision=precision)

    def write(self, path: str | os.PathLike, fmt: str | None = None, *, name: str = "path") -> Path:
        """Write atomically to ``path`` in ``fmt`` (csv, json or parquet), by default the one its
        suffix names (``.csv``, ``.json``, ``.parquet`` or ``.pq``). Any other suffix without
        ``fmt``, or a location that cannot be written, raises
        :class:`~asymptotics.errors.ParameterError` naming ``name``."""
        path = Path(path)
        check_file_target(path, name)
        fmt = file_format(path, fmt, name)
        return write_bytes(path, self.render(fmt), name=name)

    @classmethod
    def read(cls, path: str | os.PathLike) -> Result:
        """Read a result written by :meth:`write` (json, csv or parquet); a missing file, a
        directory, another suffix or content that is not such a result raises
        :class:`~asymptotics.errors.ParameterError` naming ``path``."""
        from .inputs import input_file

        what = "a .json, .csv or .parquet result file"
        path = input_file(path, "path", what)
        suf = path.suffix.lower()
        if suf not in SUFFIXES:
            raise path_error("path", path, what, f"cannot read results from a {suf or 'suffix-less'} file")
        try:
            return cls._read(path, suf)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise path_error("path", path, "a result written by asymptotics",
                             f"{type(exc).__name__}: {exc}") from None

    @classmethod
    def _read(cls, path: Path, suf: str) -> Result:
        if suf == ".json":
            obj = json.loads(path.read_text(encoding="utf-8"))
            return cls(rows=obj["rows"], meta=obj.get("meta", {}))
        if suf in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            md = (table.schema.metadata or {}).get(b"asymptotics.meta", b"{}")
            return cls(rows=table.to_pandas().to_dict("records"), meta=json.loads(md))
        if suf == ".csv":
            import pandas as pd

            return cls(rows=pd.read_csv(path).to_dict("records"), meta={})
        raise AssertionError(suf)  # pragma: no cover (read() checked the suffix)
