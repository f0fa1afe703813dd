"""Tables for papers and notes: LaTeX (booktabs) and Markdown renderings of result rows.

Every ``theory``, ``simulate``, ``validate`` and ``reproduce`` result is a list of rows (dicts); these
functions render chosen columns with a chosen number of **significant digits**. Known parameter
names get their paper symbols in the header (``psi1`` → ψ₁ / ``$\\psi_1$``) unless ``symbols=False``.
A pair of columns ``X_mean`` and ``X_se`` (a simulated mean and its standard error) is merged into one
column ``X`` shown as ``mean ± se`` unless ``merge_se=False``.

>>> rows = [{"psi1": 2.0, "risk1": 0.12345678}, {"psi1": 4.0, "risk1": 0.0871}]
>>> print(to_markdown(rows, precision=3))
| ψ₁ | R₁ |
|---:|---:|
| 2 | 0.123 |
| 4 | 0.0871 |
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path

from ..atomic import write_bytes
from ..errors import ParameterError
from ..labels import SYMBOLS as LABEL_SYMBOLS
from ..results import Result

__all__ = [
    "SYMBOLS",
    "select_columns",
    "format_value",
    "to_latex",
    "to_markdown",
    "write_table",
    "TABLE_FORMATS",
]

TABLE_FORMATS = ("csv", "parquet", "latex", "markdown")

#: column name → (Markdown/Unicode header, LaTeX header), from the one home of the column labels
SYMBOLS = LABEL_SYMBOLS


def select_columns(rows: Sequence[dict], columns: Sequence[str] | None = None) -> list[str]:
    """The columns to show: ``columns`` (checked to exist) or every key in order of appearance."""
    present: list[str] = []
    for r in rows:
        for k in r:
            if k not in present:
                present.append(k)
    if not columns:
        return present
    missing = [c for c in columns if c not in present]
    if missing:
        raise ParameterError("--columns", ",".join(missing), f"columns of the result: {', '.join(present)}")
    return list(columns)


def _is_missing(v) -> bool:
    if v is None:
        return True
    return isinstance(v, float) and math.isnan(v)


def format_value(v, precision: int = 4, *, latex: bool = False) -> str:
    """One cell: numbers with ``precision`` significant digits, booleans as yes/no (✓/✗ in
    Markdown), missing values as an em dash, other values as text."""
    if _is_missing(v):
        return "---" if latex else "—"
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        if latex:
            return "yes" if v else "no"
        return "✓" if v else "✗"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        x = float(v)
        if math.isinf(x):
            return (r"$\infty$" if x > 0 else r"$-\infty$") if latex else ("∞" if x > 0 else "−∞")
        s = f"{x:.{precision}g}"
        if "e" in s:
            mant, exp = s.split("e")
            exp = int(exp)
            return f"${mant} \\times 10^{{{exp}}}$" if latex else f"{mant}e{exp}"
        return s
    if isinstance(v, (list, tuple)):
        inner = ", ".join(format_value(x, precision, latex=latex) for x in v[:8])
        return "[" + inner + (", …]" if len(v) > 8 else "]")
    s = str(v)
    return _latex_escape(s) if latex else s.replace("|", "\\|")


def _latex_escape(s: str) -> str:
    out = []
    for ch in s:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        elif ch == "\\":
            out.append(r"\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


def _plan(rows, columns, merge_se):
    """Columns to render, with (mean, se) pairs merged: list of (header_key, mean_key, se_key|None)."""
    cols = select_columns(rows, columns)
    plan = []
    used = set()
    for c in cols:
        if c in used:
            continue
        if merge_se and c.endswith("_mean") and (c[:-5] + "_se") in cols:
            base = c[:-5]
            plan.append((base, c, base + "_se"))
            used.update({c, base + "_se"})
        elif merge_se and c.endswith("_se") and (c[:-3] + "_mean") in cols:
            continue  # rendered with its mean
        else:
            plan.append((c, c, None))
            used.add(c)
    return plan


def _sim(rows, base, se_key) -> bool:
    """A merged mean ± se column next to a ``<base>_theory`` column is labelled as simulated."""
    return se_key is not None and any(f"{base}_theory" in r for r in rows)


def _is_numeric_column(rows, key) -> bool:
    vals = [r.get(key) for r in rows if not _is_missing(r.get(key))]
    return bool(vals) and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals)


def _header(key: str, latex: bool, symbols: bool, simulated: bool = False) -> str:
    if symbols and key in SYMBOLS:
        h = SYMBOLS[key][1 if latex else 0]
    else:
        h = _latex_escape(key) if latex else key
    return f"{h} (sim.)" if simulated and "(sim.)" not in h else h


def _cell(row, mean_key, se_key, precision, latex):
    v = row.get(mean_key)
    if se_key is None:
        return format_value(v, precision, latex=latex)
    se = row.get(se_key)
    if _is_missing(v):
        return format_value(None, precision, latex=latex)
    if _is_missing(se):
        return format_value(v, precision, latex=latex)
    m = format_value(v, precision, latex=latex).strip("$")
    s = format_value(se, 2, latex=latex).strip("$")
    return f"${m} \\pm {s}$" if latex else f"{m} ± {s}"


def to_markdown(rows: Sequence[dict], columns: Sequence[str] | None = None, precision: int = 4, *,
                symbols: bool = True, merge_se: bool = True) -> str:
    """A GitHub-flavoured Markdown pipe table (numeric columns right-aligned)."""
    _check_precision(precision)
    rows = list(rows)
    plan = _plan(rows, columns, merge_se)
    head = "| " + " | ".join(_header(h, False, symbols, _sim(rows, h, s)) for h, _, s in plan) + " |"
    align = "|" + "|".join("---:" if (_is_numeric_column(rows, m) or s) else ":---" for _, m, s in plan) + "|"
    body = ["| " + " | ".join(_cell(r, m, s, precision, False) for _, m, s in plan) + " |" for r in rows]
    return "\n".join([head, align, *body])


def to_latex(rows: Sequence[dict], columns: Sequence[str] | None = None, precision: int = 4, *,
             caption: str | None = None, label: str | None = None, symbols: bool = True,
             merge_se: bool = True, float_env: bool = True) -> str:
    r"""A booktabs table (``\toprule``/``\midrule``/``\bottomrule``; needs ``\usepackage{booktabs}``).

    With ``float_env`` the tabular is wrapped in a ``table`` environment with ``caption``/``label``.
    """
    _check_precision(precision)
    rows = list(rows)
    plan = _plan(rows, columns, merge_se)
    spec = "".join("r" if (_is_numeric_column(rows, m) or s) else "l" for _, m, s in plan)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(_header(h, True, symbols, _sim(rows, h, s)) for h, _, s in plan) + r" \\")
    lines.append(r"\midrule")
    for r in rows:
        lines.append(" & ".join(_cell(r, m, s, precision, True) for _, m, s in plan) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if not float_env:
        return "\n".join(lines) + "\n"
    out = [r"\begin{table}[t]", r"\centering"]
    if caption:
        out.append(rf"\caption{{{_latex_escape(caption)}}}")
    if label:
        out.append(rf"\label{{{label}}}")
    out += lines + [r"\end{table}"]
    return "\n".join(out) + "\n"


def _check_precision(precision):
    if isinstance(precision, bool) or not isinstance(precision, numbers.Integral) or not 1 <= precision <= 17:
        raise ParameterError("--precision", precision, "an integer in [1, 17] (significant digits)")


def write_table(rows: Sequence[dict], stem: str | os.PathLike, *, meta: dict | None = None,
                formats: Sequence[str] = TABLE_FORMATS, columns: Sequence[str] | None = None,
                precision: int = 4, caption: str | None = None, label: str | None = None) -> list[Path]:
    """Write ``stem.csv``, ``stem.parquet`` (full precision, all columns, meta in the schema),
    ``stem.tex`` and ``stem.md`` (``columns`` at ``precision`` digits), each atomically."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)  # the output tree is ours to create
    res = Result(rows=list(rows), meta=dict(meta or {}))
    paths = []
    for fmt in formats:
        if fmt == "csv":
            paths.append(res.write(stem.with_suffix(".csv"), "csv"))
        elif fmt == "parquet":
            paths.append(res.write(stem.with_suffix(".parquet"), "parquet"))
        elif fmt == "latex":
            text = to_latex(res.rows, columns, precision, caption=caption, label=label)
            paths.append(write_bytes(stem.with_suffix(".tex"), text.encode(), create_parents=True))
        elif fmt == "markdown":
            text = to_markdown(res.rows, columns, precision)
            if caption:
                text = f"{text}\n\n: {caption}\n"
            else:
                text += "\n"
            paths.append(write_bytes(stem.with_suffix(".md"), text.encode(), create_parents=True))
        else:
            raise ParameterError("format", fmt, f"one of {', '.join(TABLE_FORMATS)}")
    return paths
