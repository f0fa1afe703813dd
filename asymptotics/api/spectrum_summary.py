"""The summary of a spectrum (``asymptotics theory spectrum``, ``asy.spectrum``): the bulk's edges,
the atom at zero, the bulk mass, each outlier with its location and its eigenvector's squared
overlaps (alignments), and the solver's status — one row each, from the result's metadata.

A :class:`SpectrumResult` is the :class:`~asymptotics.results.Result` of ``asy.spectrum``: its
rows are the density ``{x, density}`` (what files hold), its ``summary`` the table the command
line prints, and its ``repr`` shows the summary with the size of the density.

>>> meta = {"matrix": "ck", "spectra": [{"point": {"eta": 6.0}, "support": [[0.5, 2.0]], "atom": 0.0, "atom_error": 1e-9,
...          "edges": [{"location": 0.5, "side": "left", "method": "fold"},
...                    {"location": 2.0, "side": "right", "method": "fold"}], "mass": 1.0,
...          "outliers": [{"location": 3.4, "order": "1", "strength": 3.2, "threshold": 1.5,
...                        "overlaps": {"labels": 0.55}}], "status": "converged", "residual": 1e-15}]}
>>> rows = summary_rows(meta)
>>> rows[0]["eta"], [(r["feature"], r["value"]) for r in rows][:4]
(6.0, [('bulk edge (left)', 0.5), ('bulk edge (right)', 2.0), ('atom at 0', 0.0), ('bulk mass ∫ρ', 1.0)])
>>> [(r["feature"], r["value"]) for r in rows][4:6]
[('outlier 1: location', 3.4), ('  alignment: labels', 0.55)]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..results import Columns, Result

__all__ = ["SpectrumResult", "summary_rows", "OVERLAP_NAMES", "SUMMARY_COLUMNS"]

#: Each overlap of an outlier's eigenvector, a squared overlap (docs/spectra.md), by matrix: W₁ᵀW₁'s
#: top singular vectors u₁ (in ℝᵈ) and v₁; the CK's top eigenvector ŷ (in ℝⁿ) and ŵ (in ℝᴺ).
OVERLAP_NAMES = {
    ("weights", "teacher"): "⟨u₁, β*⟩²",
    ("weights", "gradient"): "⟨u₁, u⟩², u the gradient's direction",
    ("weights", "readout"): "⟨v₁, a/‖a‖⟩²",
    ("ck", "spike_direction"): "⟨ŵ, v₁⟩², v₁ the weights' spike",
    ("ck", "readout"): "⟨ŵ, a/‖a‖⟩²",
    ("ck", "labels"): "⟨ŷ, ỹ/‖ỹ‖⟩², ỹ the labels",
    ("ck", "teacher"): "⟨ŷ, f*/‖f*‖⟩², f* = σ*(X̃β*)",
    ("ck", "teacher_linear"): "⟨ŷ, X̃β*/‖X̃β*‖⟩²",
}
#: How an outlier's location scales with the width.
ORDERS = {"1": "O(1) in N", "N": "grows like N"}


def _edge_rows(sp: dict) -> list[dict]:
    support = sp.get("support") or []
    several = len(support) > 1
    rows = []
    for k, e in enumerate(sp.get("edges") or []):
        interval = f" of interval {k // 2 + 1}" if several else ""
        rows.append({"feature": f"bulk edge ({e.get('side', '?')}){interval}", "value": e.get("location"),
                     "detail": f"method: {e['method']}" if e.get("method") else ""})
    if not rows:  # no edges reported: the support's intervals
        for k, (lo, hi) in enumerate(support):
            rows += [{"feature": f"bulk interval {k + 1} left edge", "value": lo, "detail": ""},
                     {"feature": f"bulk interval {k + 1} right edge", "value": hi, "detail": ""}]
    return rows


def _outlier_rows(sp: dict, matrix: str) -> list[dict]:
    rows = []
    for k, o in enumerate(sp.get("outliers") or [], start=1):
        bits = []
        if o.get("order"):
            bits.append(ORDERS.get(str(o["order"]), f"order {o['order']}"))
        if o.get("strength") is not None and o.get("threshold") is not None:
            bits.append(f"strength {o['strength']:.4g} > threshold {o['threshold']:.4g}")
        if o.get("location") is not None:
            rows.append({"feature": f"outlier {k}: location", "value": o["location"], "detail": "; ".join(bits)})
        if o.get("location_per_width") is not None:
            rows.append({"feature": f"outlier {k}: location / N", "value": o["location_per_width"],
                         "detail": "; ".join(bits) if o.get("location") is None else "λ / N"})
        for name, v in (o.get("overlaps") or {}).items():
            rows.append({"feature": f"  alignment: {name.replace('_', ' ')}", "value": v,
                         "detail": OVERLAP_NAMES.get((matrix, name), "squared overlap")})
    if not rows:
        rows.append({"feature": "outliers", "value": "none", "detail": "no spike above the detection threshold"})
    return rows


def summary_rows(meta: dict) -> list[dict]:
    """The summary's rows: for each point of ``meta["spectra"]``, the matrix, the point's parameters and
    ``feature``/``value``/``detail``: the bulk's edges, the atom at 0, the bulk mass ∫ρ, each
    outlier (location, then its alignments), the solver's status and residual."""
    spectra = meta.get("spectra") or []
    rows = []
    for sp in spectra:
        matrix = sp.get("matrix", meta.get("matrix"))
        point = {"matrix": matrix, "protocol": sp.get("protocol", meta.get("protocol")), **(sp.get("point") or {})}
        body = _edge_rows(sp)
        if sp.get("atom") is not None:
            err = sp.get("atom_error")
            body.append({"feature": "atom at 0", "value": sp["atom"], "detail": f"± {err:.2g}" if err else ""})
        if sp.get("mass") is not None:
            body.append({"feature": "bulk mass ∫ρ", "value": sp["mass"], "detail": "= 1 − atom"})
        body += _outlier_rows(sp, matrix)
        res = sp.get("residual")
        body.append({"feature": "solver", "value": sp.get("status", "?"),
                     "detail": f"residual {res:.2g}" if isinstance(res, float) else ""})
        rows += [{**point, **r} for r in body]
    return rows


#: The summary's columns after the varying parameters; none of them is dropped for width.
SUMMARY_COLUMNS = ("feature", "value", "detail")


@dataclass(repr=False)
class SpectrumResult(Result):
    """The result of ``asy.spectrum``: rows ``{x, density}`` (the density, as files hold it) and
    ``summary``, the edges, atom, mass, outliers with their alignments and status."""

    @property
    def summary(self) -> Result:
        """The summary as a :class:`Result` (one row per feature; the table the command prints)."""
        rows = summary_rows(self.meta)
        params = tuple(dict.fromkeys(k for r in rows for k in r if k not in SUMMARY_COLUMNS))
        meta = {"command": "theory spectrum (summary)",
                **{k: self.meta.get(k) for k in ("matrix", "protocol", "regime", "before")}}
        return Result(rows=rows, meta=meta, columns=Columns(params, SUMMARY_COLUMNS, keep=(*params, "feature", "value")))

    def __repr__(self) -> str:
        what = f"{self.meta.get('matrix', '?')}, {self.meta.get('protocol', '?')}"
        head = f"<SpectrumResult theory spectrum ({what}): density of {len(self.rows)} row(s) (res.rows, " \
               "res.to_frame(), res.plot(x='x')); summary (res.summary):>"
        from ..console_table import render_text

        return f"{head}\n{render_text(self.summary).rstrip()}"
