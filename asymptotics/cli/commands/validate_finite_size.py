"""``asymptotics validate --finite-size``: finite-size studies of the validation cases, verdicts without allowance.

:func:`run_finite_size` is the command's body; ``validate`` calls it when ``--finite-size`` is
given. It selects variants (:mod:`validation.finite_size.catalogue`: by variant or registry case
name, family, or the quick subset), runs their studies with a per-seed store in the user cache
(an interrupted run resumes; ``--no-cache`` recomputes), prints one row per quantity and exits 1
when a verdict fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ...results import Columns, Result, base_meta, to_jsonable
from ..common import check_output, emit

__all__ = ["run_finite_size", "study_mode", "TABLE_COLUMNS"]

#: Columns of the printed table (json/csv/parquet carry every column, per-d lists included).
TABLE_COLUMNS = ("case", "variant", "quantity", "theory", "limit", "limit_se", "z", "omega", "chi2_dof", "p_value",
                 "verdict", "dims", "passed", "beside")
#: The console table: the study (its variant name, which starts with its case's), the quantity, the
#: theory, the limit ± s.e., z and the verdict are never dropped for width; the others go first.
TABLE = Columns((), ("variant", "quantity", "theory", "limit±limit_se", "z", "passed", "verdict", "case", "omega",
                     "chi2_dof", "p_value", "dims", "beside"),
                keep=("variant", "quantity", "theory", "limit±limit_se", "z", "passed"))


def study_mode(quick: bool, full: bool, size: str | None = None) -> str:
    """``quick``, ``default`` or ``full`` from the flags (``size`` wins; also ``toy`` for tests)."""
    from validation.finite_size.ladder import MODES

    from ...errors import ParameterError

    if size is not None:
        if size not in MODES:
            raise ParameterError("--size", size, "one of " + ", ".join(MODES))
        return size
    if quick and full:
        raise ParameterError("--quick/--full", "both", "at most one of --quick and --full")
    return "quick" if quick else "full" if full else "default"


def run_finite_size(*, quick: bool = False, full: bool = False, size: str | None = None, cases=None,
                    family: str | None = None, list_cases: bool = False, seed: int = 20260101,
                    budget_s: float | None = None, fmt: str = "table", out: Path | None = None,
                    studies_out: Path | None = None, cache_dir: Path | None = None, use_cache: bool = True,
                    progress: bool = True, columns: str | None = None, show_all: bool = False) -> list:
    """Run the finite-size studies and emit their rows; raises ``typer.Exit(1)`` when one fails.

    Args:
        quick, full, size: the mode (quick: d ≈ 200–800; default: up to 4000; full: up to 8000).
        cases: variant or registry case names (``--case``, repeatable); default all (quick: the quick subset).
        family: only this family.
        list_cases: list the selected variants and exit.
        seed: root seed of every simulation.
        budget_s: simulation seconds per variant (overrides the mode's budget).
        fmt, out: output format and file (``--format``, ``--out``).
        studies_out: also write every study (per-seed values, fits, plan) as JSON there.
        cache_dir, use_cache: the per-seed store (default ``<user cache>/finite-size``).
        progress: a progress line on stderr.
        columns, show_all: the table's columns (``--columns``, ``--all``).

    Returns the list of :class:`~validation.finite_size.results.StudyResult`.
    """
    from validation.finite_size.catalogue import variants
    from validation.finite_size.study import run_studies

    mode = study_mode(quick, full, size)
    selected = variants(cases, family, quick=(mode == "quick"))
    if list_cases:
        rows = [{"variant": v.name, "case": v.case, "family": v.family, "quick": v.quick,
                 "quantities": ", ".join(q.name for q in v.quantities), "description": v.description}
                for v in selected]
        emit(Result(rows=rows, meta=base_meta(command="validate --finite-size --list")), fmt, out)
        return []
    if not selected:
        typer.echo("no finite-size variant selected", err=True)
        raise typer.Exit(1)
    check_output(fmt, out)  # the output files are checked before the studies run (minutes)
    if studies_out is not None:
        from ...atomic import check_file_target

        check_file_target(studies_out, "--studies-out")
    store, code = _seed_store(cache_dir) if use_cache else (None, "")
    say, live = _progress_line(progress)
    studies = run_studies(selected, mode, root_seed=seed, budget_s=budget_s, store=store, code_version=code,
                          progress=say)
    if progress and live:
        typer.echo("\r\033[K", err=True, nl=False)
    rows = [r for s in studies for r in s.rows()]
    failed = [r for r in rows if not r["passed"]]
    meta = _meta(studies, mode, seed, budget_s, store, failed=len(failed), total=len(rows))
    shown = rows if fmt != "table" or out is not None else [{k: r.get(k) for k in TABLE_COLUMNS} for r in rows]
    emit(Result(rows=shown, meta=meta, columns=TABLE), fmt, out, columns, show_all)
    for r in failed:  # why each failed verdict failed (the table has no room for it)
        typer.echo(f"failed: {r.get('variant')} {r.get('quantity')}: {r.get('reason') or r.get('verdict')}", err=True)
    if studies_out is not None:
        from ...atomic import write_text

        write_text(studies_out, json.dumps(to_jsonable({"meta": meta, "studies": [s.as_dict() for s in studies]}),
                                           indent=1) + "\n", name="--studies-out")
        typer.echo(f"wrote {len(studies)} studies to {studies_out}", err=True)
    typer.echo(f"{len(rows) - len(failed)} passed, {len(failed)} failed ({mode} finite-size study)", err=True)
    if failed:
        raise typer.Exit(1)
    return studies


def _seed_store(cache_dir: Path | None):
    """The per-seed store (default ``<user cache>/finite-size``) and the simulator's fingerprint
    its entries are keyed by."""
    from validation.finite_size.store import SeedStore

    from ..._cache import cache_dir as user_cache
    from ...reproduce.cache import simulator_fingerprint

    store = SeedStore(Path(cache_dir) if cache_dir else user_cache("finite-size"))
    return store, simulator_fingerprint()


def _progress_line(progress: bool):
    """``(say, live)``: ``say(text)`` shows the progress on stderr — one status line rewritten in
    place on a terminal (``live``), else one log line per study (not per seed); nothing without
    ``progress``."""
    import sys

    live = sys.stderr.isatty()

    def say(text: str) -> None:
        if not progress:
            return
        if live:  # one status line, rewritten in place
            typer.echo(f"\r\033[K{text}", err=True, nl=False)
        elif ": d = " not in text:  # a log: one line per study, not per seed
            typer.echo(f"finite-size study: {text}", err=True)

    return say, live


def _meta(studies, mode: str, seed: int, budget_s, store, *, failed: int, total: int) -> dict:
    """``meta`` of the result: the mode, seed and budget, the variants with their times and plans,
    the store, the rule of the verdicts and the counts."""
    return base_meta(command="validate --finite-size", mode=mode, seed=seed, budget_s=budget_s,
                     variants=[s.variant for s in studies],
                     timings={s.variant: s.timings.get("total_s") for s in studies},
                     plans={s.variant: s.plan.note for s in studies if s.plan is not None},
                     store=str(store.root) if store is not None else None,
                     rules=("no allowance: |L − theory| ≤ 3·se(L) with a fit of p ≥ 0.01 (extrapolation), or the "
                            "combined χ² of every d against a finite-width theory with p ≥ 0.01; see docs/finite-size.md"),
                     failed=failed, total=total)


def register(app: typer.Typer) -> None:
    """Nothing to register: this is the body of ``validate --finite-size`` (the ``validate`` command)."""
