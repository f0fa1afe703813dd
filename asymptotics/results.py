"""Results with their provenance, and writing them without ever losing earlier results.

A :class:`Result` holds ``rows`` (one dict per grid point: parameters and computed values) and
``meta`` (package and library versions, activations with their constants, solver settings and
status, seeds). It renders as a rich table, CSV, JSON (``{"meta": {...}, "rows": [...]}``) or
Parquet (meta in the schema metadata). Files are written to a temporary file in the target
directory and renamed into place, so an interrupted write never leaves a half-written file.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import math
import os
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._version import __version__
from .atomic import write_bytes

__all__ = ["Result", "base_meta", "versions", "FORMATS", "to_jsonable"]

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


@dataclass
class Result:
    """Rows of computed values with their metadata."""

    rows: list[dict]
    meta: dict = field(default_factory=base_meta)

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
        from rich.console import Console

        buf = io.StringIO()
        Console(file=buf, width=200, force_terminal=False).print(self.rich_table(precision))
        return buf.getvalue()

    def rich_table(self, precision: int = 6):
        from rich.table import Table

        cols: list[str] = []
        for r in self.rows:
            for k in r:
                if k not in cols:
                    cols.append(k)
        t = Table(show_lines=False)
        for c in cols:
            t.add_column(c, justify="right")
        for r in self.rows:
            t.add_row(*[_fmt(r.get(c), precision) for c in cols])
        return t

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


def _fmt(v, precision):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.{precision}g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x, 4) for x in v[:6]) + (", …]" if len(v) > 6 else "]")
    return str(v)
