"""Drawing a :class:`~asymptotics.results.Result`: its quantities against the varying grid
parameter, both axes and the legend labelled with the quantities' names and symbols
(:mod:`asymptotics.labels`); simulated ``name_mean``/``name_se`` columns as error bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .errors import ParameterError
from .labels import axis_label, symbol

__all__ = ["plot_result", "is_number", "varies"]


def is_number(v) -> bool:
    """Whether ``v`` is a real number (not a bool)."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def varies(rows: list[dict], key: str) -> bool:
    """Whether the column ``key`` takes more than one value over ``rows``."""
    first = repr(rows[0].get(key)) if rows else None
    return any(repr(r.get(key)) != first for r in rows[1:])


def plot_result(result, y: str | Sequence[str] | None = None, *, x: str | None = None, ax=None,
                logx: bool | None = None, logy: bool = False, se: float = 2.0, **kwargs):
    """:meth:`Result.plot` (its docstring has the arguments); returns the matplotlib ``Axes``."""
    rows = result.rows
    params = list(result.columns.params) if result.columns is not None else []
    varying = [p for p in params if any(p in r for r in rows) and varies(rows, p)]
    if x is None:
        if not varying:
            raise ParameterError("x", None, "a column that varies across the rows (no grid parameter varies: "
                                 "a single point has no curve)")
        x = varying[0]
    if not any(x in r for r in rows):
        raise ParameterError("x", x, "a column of the result")
    if y is None:
        values = result.columns.values if result.columns is not None else tuple(k for k in rows[0] if k != x)
        y = [v for v in values if any(is_number(r.get(v)) or is_number(r.get(f"{v}_mean")) for r in rows)]
    ys = [y] if isinstance(y, str) else list(y)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    others = [p for p in varying if p != x]
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r.get(p) for p in others), []).append(r)
    xs_all = result[x] if all(is_number(r.get(x)) for r in rows) else None
    for key, grp in groups.items():
        grp = sorted(grp, key=lambda r: r.get(x) if is_number(r.get(x)) else 0.0)
        xv = type(result)(grp)[x]
        suffix = ", ".join(f"{symbol(p)} = {v:g}" if is_number(v) else f"{symbol(p)} = {v}"
                           for p, v in zip(others, key, strict=True))
        for name in ys:
            label = f"{axis_label(name)} ({suffix})" if suffix else axis_label(name)
            sub = type(result)(grp)
            if any(name in r for r in grp):
                ax.plot(xv, sub[name], marker="o" if len(grp) < 30 else None, label=label, **kwargs)
            elif any(f"{name}_mean" in r for r in grp):
                err = se * sub[f"{name}_se"] if any(f"{name}_se" in r for r in grp) else None
                ax.errorbar(xv, sub[f"{name}_mean"], yerr=err, marker="o", capsize=3, label=label, **kwargs)
            else:
                raise ParameterError("y", name, "a column of the result (or a simulated name with name_mean)")
    if logx is None and xs_all is not None:
        finite = xs_all[np.isfinite(xs_all)]
        logx = bool(finite.size and np.all(finite > 0) and finite.max() >= 50 * finite.min())
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(axis_label(x))  # the quantities' names and symbols (asymptotics.labels)
    ylabel = "; ".join(axis_label(name) for name in ys)
    ax.set_ylabel(ylabel if len(ylabel) <= 60 else ", ".join(symbol(name) for name in ys))
    if len(ys) > 1 or others:
        ax.legend()
    title = result.meta.get("command") if isinstance(result.meta, Mapping) else None
    if title:
        ax.set_title(title)
    return ax

