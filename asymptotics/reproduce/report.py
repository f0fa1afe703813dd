"""``report.md``: the totals, the findings, a summary table, then every item with its computed verdicts,
caption and theory-vs-simulation table.

No comparison carries an allowance: each is judged by its method (the theory at the simulated size,
or the d → ∞ extrapolation of a ladder of d), |simulation − theory| ≤ 3 s.e., or reported as
*not judged* with the reason (:mod:`asymptotics.reproduce.data`). A judged comparison that fails and
a verdict that does not hold are **findings**: listed at the top with their size and z.
"""

from __future__ import annotations

import math

from .export import to_markdown

__all__ = ["build_report", "comparison_rows", "comparison_counts", "verdict_counts", "findings"]

_STATUS = {
    "ok": "✓ complete",
    "finding": "⚠ complete, with findings",
    "error": "✗ error",
}


def comparison_rows(data) -> list[dict]:
    """The theory-vs-simulation rows of one item, as flat dicts for tables."""
    rows = []
    for c in data.comparisons:
        z = c.z
        rows.append({
            "figure": data.name,
            "quantity": c.quantity,
            "point": ", ".join(f"{k}={_short(v)}" for k, v in c.params.items()),
            "d": c.d,
            "seeds": c.seeds,
            "method": c.method,
            "theory": _finite(c.theory),
            "simulation": _finite(c.simulation),  # missing (None), never NaN: e.g. a ladder too short to fit
            "se": _finite(c.se),
            "z": _finite(z),
            "status": c.status,
            "reason": c.reason,
            "note": c.note,
        })
    return rows


def comparison_counts(comparisons) -> dict:
    """``total``, ``judged``, ``passed``, ``failed``, ``not_judged``, the largest judged |z| and the
    methods of the judged comparisons."""
    judged = [c for c in comparisons if c.judged]
    zs = [abs(c.z) for c in judged if math.isfinite(c.z)]
    return {"total": len(comparisons), "judged": len(judged), "passed": sum(c.status == "passed" for c in judged),
            "failed": sum(c.status == "failed" for c in judged), "not_judged": len(comparisons) - len(judged),
            "max_abs_z": max(zs) if zs else None, "methods": sorted({c.method for c in judged})}


def verdict_counts(verdicts) -> dict:
    """How many verdicts hold, do not hold, are undecided."""
    return {"holds": sum(v.holds is True for v in verdicts), "does_not_hold": sum(v.holds is False for v in verdicts),
            "undecided": sum(v.holds is None for v in verdicts)}


def findings(datas: dict) -> list[dict]:
    """Every failed comparison and every verdict that does not hold, as rows."""
    out = []
    for name, data in datas.items():
        for c in data.comparisons:
            if c.status == "failed":
                where = ", ".join(f"{k}={_short(v)}" for k, v in c.params.items())
                out.append({"item": name, "what": f"{c.quantity} at {where}",
                            "method": c.method, "theory": c.theory, "simulation": c.simulation, "se": c.se,
                            "|Δ|": abs(c.simulation - c.theory), "z": c.z})
        for v in data.verdicts:
            if v.holds is False:
                out.append({"item": name, "what": v.sentence, "method": "verdict", "theory": None, "simulation": None,
                            "se": None, "|Δ|": v.size, "z": v.z})
    return out


def _finite(v):
    return float(v) if v is not None and math.isfinite(v) else None


def _short(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _totals(manifest: dict, datas: dict) -> list[str]:
    recs = manifest["items"].values()
    c = {k: sum((r.get("comparisons") or {}).get(k, 0) for r in recs) for k in ("total", "judged", "passed", "failed",
                                                                             "not_judged")}
    v = {k: sum((r.get("verdicts") or {}).get(k, 0) for r in recs) for k in ("holds", "does_not_hold", "undecided")}
    errors = sum(r["status"] == "error" for r in recs)
    return [
        f"**{c['total']} comparisons: {c['judged']} judged — {c['passed']} passed, {c['failed']} failed; "
        f"{c['not_judged']} not judged** (each with its reason). **{sum(v.values())} computed verdicts: "
        f"{v['holds']} hold, {v['does_not_hold']} do not hold, {v['undecided']} undecided.** "
        f"{len(findings(datas))} finding(s); {errors} item(s) with an error; 0 allowances.",
    ]


def _intro(manifest: dict) -> list[str]:
    return [
        "# Reproduction report",
        "",
        f"Size preset **{manifest['size']}**, root seed {manifest['seed']}, asymptotics "
        f"{manifest['versions'].get('asymptotics', '?')}, total time {manifest.get('total_s', 0):.0f} s "
        f"(simulations: {manifest['cache']['misses']} computed, {manifest['cache']['hits']} read from the cache).",
        "",
        "Lines are theory; markers are Monte-Carlo simulations of the network (mean over seeds, error bars ± 2 "
        "standard errors; the legend states d and the seeds). **No comparison has an allowance.** A comparison "
        "is *judged* only when the theory is evaluated at the simulated size (method *finite-width theory*) or "
        "when the d → ∞ limit is extrapolated from a ladder of d (method *extrapolation d → ∞*, the weighted fit "
        "of `validate --finite-size`), with at least 8 seeds; it passes when |simulation − theory| ≤ 3 s.e. "
        "A d → ∞ theory at a single d is shown but *not judged* (its reason says where its limit is judged). "
        "Every claim of an item is a computed *verdict*: it holds (beyond 3 s.e.), does not hold here (beyond "
        "3 s.e. the other way), or is undecided. Failed comparisons and verdicts that do not hold are findings.",
        "",
    ]


def _summary_rows(manifest: dict, datas: dict, items) -> list[dict]:
    rows = []
    for it in items:
        rec = manifest["items"].get(it.name)
        if rec is None:
            continue
        comp = rec.get("comparisons") or {}
        ver = rec.get("verdicts") or {}
        has = comp.get("total", 0) > 0
        rows.append({
            "item": f"[{it.name}](#{it.name.lower()})",
            "status": _STATUS.get(rec["status"], rec["status"]),
            "judged": comp.get("judged", 0) if has else "—",
            "passed": comp.get("passed", 0) if has else "—",
            "failed": comp.get("failed", 0) if has else "—",
            "not judged": comp.get("not_judged", 0) if has else "—",
            "max |z| (judged)": comp.get("max_abs_z"),
            "method": ", ".join(comp.get("methods", [])) or ("theory only" if not has else "—"),
            "verdicts (hold / not / undecided)": (f"{ver.get('holds', 0)} / {ver.get('does_not_hold', 0)} / "
                                                  f"{ver.get('undecided', 0)}") if sum(ver.values()) else "—",
            "time (s)": rec.get("timings", {}).get("total_s"),
        })
    return rows


def build_report(manifest: dict, datas: dict, items) -> str:
    """The Markdown report for a ``reproduce`` run (figures referenced relative to the report)."""
    lines = _intro(manifest) + ["## Summary", ""] + _totals(manifest, datas) + [""]
    found = findings(datas)
    if found:
        lines += ["### Findings", "", "Judged comparisons that fail and claims that do not hold here (size |Δ| and "
                  "z in standard errors):", "", to_markdown(found, precision=4, symbols=False), ""]
    lines += [to_markdown(_summary_rows(manifest, datas, items), precision=3, symbols=False), ""]
    for it in items:
        rec = manifest["items"].get(it.name)
        if rec is None:
            continue
        lines += _item_section(it, rec, datas.get(it.name))
    return "\n".join(lines) + "\n"


def _item_section(it, rec: dict, data) -> list[str]:
    lines = [f"## {it.name}", "", f"**{it.title}** — {it.paper}.", "", f"*What it checks:* {it.checks}", ""]
    status = rec["status"]
    if status == "error":
        return lines + [f"**{_STATUS[status]}:** {rec.get('reason', '')}", ""]
    if it.kind == "figure":
        png = rec["outputs"].get("png")
        if png:
            lines += [f"![{it.title}]({png})", ""]
    if data is not None and data.caption:
        lines += [f"*{data.caption}*", ""]
    if data is not None and data.verdicts:
        marks = {True: "✓", False: "✗", None: "·"}
        lines += ["Verdicts (computed):", ""] + [f"- {marks[v.holds]} {v.sentence}" for v in data.verdicts] + [""]
    for note in (data.notes if data is not None else []):
        lines += [f"- {note}"]
    if data is not None and data.notes:
        lines.append("")
    if data is not None and data.table:
        lines += [to_markdown(data.table, precision=4), ""]
    if data is not None and data.comparisons:
        rows = comparison_rows(data)
        lines += ["Theory vs simulation:", "",
                  to_markdown(rows, ["quantity", "point", "d", "seeds", "method", "theory", "simulation", "se", "z",
                                     "status", "reason"], precision=4, symbols=False), ""]
    outs = rec.get("outputs", {})
    files = ", ".join(f"[{k}]({v})" for k, v in outs.items())
    if files:
        lines += [f"Files: {files}", ""]
    return lines
