"""``report.md``: every figure with what it checks, its caption, and the theory-vs-simulation table."""

from __future__ import annotations

import math

from .export import to_markdown

__all__ = ["build_report", "comparison_rows"]

_STATUS = {
    "ok": "✓ complete",
    "error": "✗ error",
    "failed": "✗ theory and simulation disagree",
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
            "theory": c.theory,
            "simulation": c.simulation,
            "se": c.se,
            "z": z if math.isfinite(z) else None,
            "allowance": c.allowance,
            "tolerance": c.tolerance,
            "passed": c.passed,
            "by_allowance": _by_allowance(c),
            "note": c.note,
        })
    return rows


def _by_allowance(c) -> bool:
    """Whether ``c`` passes only because of its finite-size allowance (|z| > z_max but within tolerance)."""
    return bool(c.passed and c.allowance > 0 and abs(c.simulation - c.theory) > c.z_max * c.se)


def _short(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _count_by_allowance(data):
    """How many comparisons of ``data`` pass only through their allowance (``—`` without comparisons)."""
    comps = data.comparisons if data is not None else []
    return sum(_by_allowance(c) for c in comps) if comps else "—"


def build_report(manifest: dict, datas: dict, items) -> str:
    """The Markdown report for a ``reproduce`` run (figures referenced relative to the report)."""
    lines = [
        "# Reproduction report",
        "",
        f"Size preset **{manifest['size']}**, root seed {manifest['seed']}, asymptotics "
        f"{manifest['versions'].get('asymptotics', '?')}, total time {manifest.get('total_s', 0):.0f} s "
        f"(simulations: {manifest['cache']['misses']} computed, {manifest['cache']['hits']} read from the cache).",
        "",
        "Lines are d → ∞ theory; markers are Monte-Carlo simulations of the network (mean over seeds, "
        "error bars ± 2 standard errors); dashed horizontal lines are kernel lower bounds (μ2*²); dotted "
        "vertical lines are BBP thresholds. A comparison passes when |simulation − theory| ≤ z_max·s.e. + a "
        "stated finite-size allowance (its own column; \"by allowance\" counts the comparisons that pass "
        "only through it). `asymptotics validate --finite-size` checks the d → ∞ limit without any "
        "allowance (docs/finite-size.md).",
        "",
        "## Summary",
        "",
    ]
    summary = []
    for it in items:
        rec = manifest["items"].get(it.name)
        if rec is None:
            continue
        comp = rec.get("comparisons", {})
        summary.append({
            "item": f"[{it.name}](#{it.name})",
            "reproduces": it.paper,
            "status": _STATUS.get(rec["status"], rec["status"]),
            "comparisons passed": f"{comp.get('passed', 0)}/{comp.get('total', 0)}" if comp.get("total") else "—",
            "max |z|": comp.get("max_abs_z"),
            "by allowance": _count_by_allowance(datas.get(it.name)),
            "time (s)": rec.get("timings", {}).get("total_s"),
        })
    lines += [to_markdown(summary, precision=3, symbols=False), ""]
    for it in items:
        rec = manifest["items"].get(it.name)
        if rec is None:
            continue
        data = datas.get(it.name)
        lines += [f"## {it.name}", "", f"**{it.title}** — {it.paper}.", "", f"*What it checks:* {it.checks}", ""]
        status = rec["status"]
        if status == "error":
            lines += [f"**{_STATUS[status]}:** {rec.get('reason', '')}", ""]
            continue
        if it.kind == "figure":
            png = rec["outputs"].get("png")
            if png:
                lines += [f"![{it.title}]({png})", ""]
        if data is not None and data.caption:
            lines += [f"*{data.caption}*", ""]
        for note in (data.notes if data is not None else []):
            lines += [f"- {note}"]
        if data is not None and data.notes:
            lines.append("")
        if data is not None and data.table:
            lines += [to_markdown(data.table, precision=4), ""]
        if data is not None and data.comparisons:
            rows = comparison_rows(data)
            lines += ["Theory vs simulation:", "",
                      to_markdown(rows, ["quantity", "point", "d", "theory", "simulation", "se", "z", "allowance",
                                         "tolerance", "passed"],
                                  precision=4, symbols=False), ""]
        outs = rec.get("outputs", {})
        files = ", ".join(f"[{k}]({v})" for k, v in outs.items())
        if files:
            lines += [f"Files: {files}", ""]
    return "\n".join(lines) + "\n"
