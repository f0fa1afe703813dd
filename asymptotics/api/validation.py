r"""``asy.validate``: the theory-vs-simulation cases of :mod:`validation.registry` and their
verdicts, the command ``asymptotics validate``.

Each row is one comparison: ``case, quantity, params, theory, simulation, se, z, tolerance,
passed`` (|simulation − theory| ≤ z_max·s.e. + a stated finite-size allowance). The result's
``meta`` holds ``failed`` and ``total``; ``Result.failures`` is not used here (``passed`` is the
verdict).

>>> import asymptotics as asy
>>> cases = asy.validate(list_cases=True, quick=True)
>>> {"case", "family", "quick", "description"} <= set(cases.rows[0])
True
"""

from __future__ import annotations

from ..errors import ParameterError
from ..params import check_int
from ..results import Columns, Result, base_meta
from .checks import checked, refuse_unused
from .errors import option
from .progress import Progress

__all__ = ["validate", "TABLE"]

TABLE = Columns(("d",), ("case", "quantity", "theory", "simulation±se", "z", "allowance", "tolerance", "passed"),
                keep=("case", "quantity", "theory", "simulation±se", "z", "passed"))


@checked
def validate(*, quick: bool = False, case=None, family: str | None = None, list_cases: bool = False,
             workers: int | None = None, seed: int | None = None, progress: bool | None = None) -> Result:
    """Theory vs simulation: theory, simulation ± s.e., z-score, tolerance, pass/fail
    (``asymptotics validate``).

    Args:
        quick: only the quick cases, at reduced sizes (minutes on 2 cores).
        case: run only this case or these cases (a name or a list).
        family: only the cases of this family.
        list_cases: list the selected cases (name, family, quick, description) instead of running them.
        workers: parallel workers for the simulations (default 1; not with ``list_cases``).
        seed: the root seed (numpy SeedSequence; default 20260101; not with ``list_cases``).
        progress: ``None`` (automatic), ``True`` or ``False``.

    Returns:
        a :class:`~asymptotics.results.Result`: one row per check (``meta["failed"]`` of
        ``meta["total"]`` failed), or one row per case with ``list_cases``.
    """
    from validation.cases import cases
    from validation.registry import CaseConfig, run_cases

    if list_cases:
        refuse_unused({"workers": workers, "seed": seed, "progress": progress}, (), option("list_cases"),
                      "a list runs nothing")
    workers = check_int(option("workers"), 1 if workers is None else workers, 1, 1024)
    seed = check_int(option("seed"), 20260101 if seed is None else seed, 0)
    names = [case] if isinstance(case, str) else list(case) if case else None
    if family is not None:
        families = sorted({c.family for c in cases()})
        if family not in families:
            raise ParameterError(option("family"), family, f"one of {', '.join(families)}")
    selected = cases(names, family, quick)
    if list_cases:
        rows = [{"case": c.name, "family": c.family, "quick": c.quick, "description": c.description} for c in selected]
        return Result(rows=rows, meta=base_meta(command="validate --list"))
    if not selected:  # nothing to run: no rows (the command line says so and exits with status 1)
        return Result(rows=[], meta=base_meta(command="validate", quick=quick, seed=seed, workers=workers, timings={},
                                              failed=0, total=0), columns=TABLE)
    with Progress(len(selected), "validating", progress, min_total=0) as bar:
        started = []

        def step(name):
            if started:
                bar.advance()
            started.append(name)
            bar.describe(f"case {name}")

        checks, timings = run_cases(selected, CaseConfig(quick=quick, workers=workers, seed=seed), progress=step)
        bar.advance()
    rows = [c.as_row() for c in checks]
    failed = [c for c in checks if not c.passed]
    meta = base_meta(command="validate", quick=quick, seed=seed, workers=workers, timings=timings, failed=len(failed),
                     total=len(checks))
    return Result(rows=rows, meta=meta, columns=TABLE)
