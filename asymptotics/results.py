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
from .atomic import write_bytes

__all__ = [
    "Result",
    "Columns",
    "base_meta",
    "versions",
    "FORMATS",
    "to_jsonable",
    "scalar",
    "record",
    "grid_rows",
]

FORMATS = ("table", "csv", "json", "parquet")


def versions() -> dict:
    """Versions of the package and of the numerical stack."""
    out = {"asymptotics": __version__, "python": platform.python_version()}
    for mod in ("numpy", "scipy", "sympy", "mpmath", "numba"):
        m = sys.modules.get(mod)
        if m is None:
            try:
                m = __import__(mod)
            except ImportError:  # pragma: no cover
                continue
        out[mod] = getattr(m, "__version__", "?")
    return out


def base_meta(**extra) -> dict:
    """Metadata common to every result: versions and a UTC timestamp, plus ``extra``."""
    meta = {
        "versions": versions(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    meta.update(extra)
    return meta


def to_jsonable(obj):
    """Convert numpy scalars/arrays and other objects to JSON-compatible values (NaN/inf refused)."""
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
            raise ValueError(f"refusing to write a non-finite number ({v}) to a result")
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
            rows are skipped.
    """

    params: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


@dataclass
class Result:
    """Rows of computed values with their metadata (and the default columns of its table)."""

    rows: list[dict]
    meta: dict = field(default_factory=base_meta)
    columns: Columns | None = None

    def to_frame(self):
        """The rows as a pandas DataFrame (list-valued cells kept as lists)."""
        import pandas as pd

        return pd.DataFrame(to_jsonable(self.rows))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps({"meta": to_jsonable(self.meta), "rows": to_jsonable(self.rows)}, indent=indent)

    def to_csv(self) -> str:
        buf = io.StringIO()
        self.to_frame().to_csv(buf, index=False)  # shortest round-trip repr of each float
        return buf.getvalue()

    def to_parquet_bytes(self) -> bytes:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(self.to_frame(), preserve_index=False)
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
        raise ValueError(f"unknown format {fmt!r}; choose one of {FORMATS}")

    def to_text(self, precision: int = 6) -> str:
        """The console table as plain text (the default columns, natural width)."""
        from .console_table import render_text

        return render_text(self, precision=precision)

    def rich_table(self, precision: int = 6, columns: Sequence[str] | None = None, show_all: bool = False):
        """The console table (a rich ``Table``): the default :class:`Columns`, the named
        ``columns``, or every column (``show_all``)."""
        from .console_table import build_table

        return build_table(self, columns=columns, show_all=show_all, precision=precision)

    def write(self, path: str | os.PathLike, fmt: str | None = None) -> Path:
        """Write atomically to ``path`` (format from ``fmt`` or the file suffix)."""
        path = Path(path)
        fmt = fmt or {".json": "json", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(
            path.suffix.lower(), "json"
        )
        if fmt == "table":
            fmt = "json" if path.suffix.lower() == ".json" else fmt
        return write_bytes(path, self.render(fmt))

    @classmethod
    def read(cls, path: str | os.PathLike) -> Result:
        """Read a result written by :meth:`write` (json, csv or parquet)."""
        path = Path(path)
        suf = path.suffix.lower()
        if suf == ".json":
            obj = json.loads(path.read_text())
            return cls(rows=obj["rows"], meta=obj.get("meta", {}))
        if suf in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            md = (table.schema.metadata or {}).get(b"asymptotics.meta", b"{}")
            return cls(rows=table.to_pandas().to_dict("records"), meta=json.loads(md))
        if suf == ".csv":
            import pandas as pd

            return cls(rows=pd.read_csv(path).to_dict("records"), meta={})
        raise ValueError(f"cannot read results from {path} (use .json, .csv or .parquet)")
