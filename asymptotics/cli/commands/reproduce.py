"""``asymptotics reproduce``: every figure and table of both papers, in one command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...errors import ParameterError

QuickOpt = Annotated[bool, typer.Option("--quick", help="Small sizes: about 2.5 minutes on 2 cores with empty caches (159 s measured).")]
FullOpt = Annotated[bool, typer.Option("--full", help="The papers' sizes (d = 512, many seeds for Ba; d = 2000 for Cui): hours.")]
SizeOpt = Annotated[
    str | None, typer.Option("--size", help="Size preset: quick, default, full (or toy, for tests); overrides --quick/--full.")
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Root seed of every simulation (numpy SeedSequence).")]
WorkersOpt = Annotated[int, typer.Option("--workers", min=1, help="Parallel workers for the simulations.")]
CacheDirOpt = Annotated[
    Path | None, typer.Option("--cache-dir", help="Simulation cache folder (default: the user cache, ~/.cache/asymptotics/simulations).")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Ignore cached simulations and do not store new ones.")]
NoProgressOpt = Annotated[bool, typer.Option("--no-progress", help="No progress bars.")]


def choose_size(quick: bool, full: bool, size: str | None) -> str:
    """The size preset from the flags (``--size`` wins; ``--quick`` and ``--full`` exclude each other)."""
    if size is not None:
        from ...reproduce.registry import SIZES

        if size not in SIZES:
            raise ParameterError("--size", size, f"one of {', '.join(SIZES)}")
        return size
    if quick and full:
        raise ParameterError("--quick/--full", "both", "at most one of --quick and --full")
    return "quick" if quick else "full" if full else "default"


def summarise(manifest: dict, out: Path, strict: bool = False) -> int:
    """Print one line per item and return the exit status: 1 if an item errored, or (``strict``) if a
    judged comparison failed or a computed verdict does not hold (a finding); else 0."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"reproduce ({manifest['size']}) → {out}")
    for col in ("item", "status", "judged", "passed", "failed", "not judged", "max |z|", "time (s)", "note"):
        t.add_column(col)
    for name, rec in manifest["items"].items():
        comp = rec.get("comparisons") or {}
        mz = comp.get("max_abs_z")
        cnt = [str(comp.get(k, 0)) if comp.get("total") else "—" for k in ("judged", "passed", "failed", "not_judged")]
        t.add_row(name, rec["status"], *cnt, f"{mz:.2f}" if mz is not None else "—",
                  f"{rec['timings'].get('total_s', 0):.1f}",
                  rec.get("reason", "")[:90])
    console = Console(stderr=True)
    console.print(t)
    c = manifest["cache"]
    console.print(f"simulations: {c['misses']} computed, {c['hits']} from the cache ({c['dir']}); "
                  f"report: {out / 'report.md'}")
    s = manifest.get("summary", {})
    console.print(f"{s.get('total', 0)} comparisons: {s.get('judged', 0)} judged ({s.get('passed', 0)} passed, "
                  f"{s.get('failed', 0)} failed), {s.get('not_judged', 0)} not judged; items with findings: "
                  f"{s.get('finding', 0)}, with errors: {s.get('error', 0)}"
                  + ("" if strict or not s.get("finding") else " (findings do not change the exit status without --strict)"))
    bad = {"error", "finding"} if strict else {"error"}
    return 1 if any(r["status"] in bad for r in manifest["items"].values()) else 0


def reproduce_command(
    quick: QuickOpt = False,
    full: FullOpt = False,
    size: SizeOpt = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("reproduce-out"),
    only: Annotated[list[str] | None, typer.Option("--only", help="Only this figure/table (repeatable).")] = None,
    seed: SeedOpt = 20260101,
    workers: WorkersOpt = 1,
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    docs_dir: Annotated[
        Path | None, typer.Option("--docs-dir", help="Also copy the PNG figures here (e.g. docs/figures).")
    ] = None,
    no_progress: NoProgressOpt = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when a judged comparison fails or a computed verdict does not hold (by default these are reported as findings, exit 0).")] = False,
) -> None:
    """Regenerate every figure and table of Ba et al. (2022) and Cui et al. (2024) into --out: PNG + PDF figures, CSV/Parquet/LaTeX/Markdown tables, report.md and manifest.json.

    Simulations are cached (parameters + seeds + code version), so a rerun, or a run resumed after Ctrl-C, recomputes only what changed. No comparison has an allowance: each is judged against the theory at the simulated size or by the d → ∞ extrapolation of a ladder of d (≥ 8 seeds), or reported as not judged with its reason. Exit status 1 if an item errors, or with --strict if a judged comparison fails or a verdict does not hold.
    """
    from ...params import check_int
    from ...reproduce import reproduce

    check_int("--seed", seed, 0)  # a SeedSequence entropy: a non-negative integer, checked before any item runs
    sz = choose_size(quick, full, size)
    manifest = reproduce(out, sz, names=only or None, seed=seed, workers=workers, cache_dir=cache_dir,
                         use_cache=not no_cache, progress=not no_progress, docs_dir=docs_dir)
    code = summarise(manifest, out, strict=strict)
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("reproduce")(reproduce_command)
