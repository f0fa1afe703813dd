r"""The large step η = Θ(√N) (Ba et al. 2022, §5; ``docs/large-step.md``): ``asy.tau_star`` and
``asy.bounds``, the commands ``asymptotics theory tau-star`` and ``asymptotics theory bounds``.

* ``tau_star``: τ* = inf_κ E_ξ1[(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²] and κ* (eq. 5.1) on a grid of input
  scales σ(a x), σ*(b x) (``student_scale``, ``teacher_scale``: a Cartesian grid), with the
  kernel lower bound μ2*² and the verdict 10τ* < μ2*² (``beats_every_kernel``). ``status`` is
  the solver status, ``infimum_at`` where the infimum lies (``kappa_star`` is ``None`` when it is
  a limit κ → ±∞, see ``kappa_limit``).
* ``bounds``: the same and the paper's upper bound 10τ* + C(√τ*√(1/ψ1) + 1/ψ1) on a ``psi1`` grid
  (``constant`` C: the paper gives none; 1 is arbitrary), and ``psi1_crossover``.

>>> import asymptotics as asy
>>> t = asy.tau_star(student="tanh", teacher="tanh")
>>> t.rows[0]["infimum_at"], round(t.rows[0]["kappa_star"], 5), t.rows[0]["beats_every_kernel"]
('interior', 1.58827, True)
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ConvergenceError, DegenerateWarning, ParameterError
from ..params import check_in_range, check_int, check_positive
from ..results import Columns, Result, base_meta, record
from .checks import checked, refuse_unused
from .errors import DegenerateNotes, check_on_failure, option, point_error, status_code
from .grid import product, values
from .progress import Progress

__all__ = ["tau_star", "bounds", "SCALE_RANGE", "MAX_POINTS", "TAU_TABLE", "BOUNDS_TABLE", "METHODS"]

#: Supported input scales a, b of σ(a x), σ*(b x): the quadrature's cost grows with the scale.
SCALE_RANGE = (1e-3, 1e3)
#: Most (student scale, teacher scale) points, and (scale, ψ1) points of ``bounds``.
MAX_POINTS = 100_000
METHODS = ("auto", "closed", "compiled", "mpmath")
TAU_TABLE = Columns(("student_scale", "teacher_scale"),
                    ("tau_star", "kappa_star", "infimum_at", "status", "error", "kernel_bound", "beats_every_kernel"))
BOUNDS_TABLE = Columns(("student_scale", "teacher_scale", "psi1"),
                       ("tau_star", "kappa_star", "kernel_bound", "upper_bound", "beats_every_kernel",
                        "psi1_crossover"))


def _scale(name: str, v) -> float:
    lo, hi = SCALE_RANGE
    return check_in_range(name, check_positive(name, v), lo, hi)


def _no_closed_form(s, t) -> bool:
    return not ((s.builtin == "erf" and t.builtin == "erf") or s.builtin == "linear")


def _solve(s, t, a, b, center, fit_constant, method, dps, progress=None) -> list:
    """τ* at every (a, b) (a slowest): a :class:`TauStarResult`, or the ConvergenceError of a pair
    without an answer."""
    from ..theory.large_step import tau_star as tau_pair
    from ..theory.large_step import tau_star_grid

    if method == "compiled" or (method == "auto" and _no_closed_form(s, t)):
        grid = tau_star_grid(s, t, student_scale=np.array(a)[:, None], teacher_scale=np.array(b)[None, :],
                             center=center, fit_constant=fit_constant, on_failure="return")
        out = []
        for r in grid.results():
            if not r.converged:
                out.append(ConvergenceError(r.message or r.status.message, r))
            else:
                out.append(r)
        return out
    out = []
    with Progress(len(a) * len(b), "theory tau-star", progress) as bar:
        for ai in a:
            for bi in b:
                try:
                    out.append(tau_pair(s, t, student_scale=ai, teacher_scale=bi, center=center,
                                        fit_constant=fit_constant, method=method, dps=dps))
                except ConvergenceError as exc:
                    out.append(exc)
                bar.advance()
    return out


def _tau_rows(student, teacher, center, fit_constant, student_scale, teacher_scale, method, dps, on_failure,
              progress=None):
    a = values("student_scale", student_scale, _scale)
    b = values("teacher_scale", teacher_scale, _scale)
    product(MAX_POINTS, student_scale=a, teacher_scale=b)  # size check only
    if method not in METHODS:
        raise ParameterError(option("method"), method, "one of auto, closed, compiled, mpmath")
    if method != "mpmath":
        refuse_unused({"dps": dps}, (), f"{option('method')} {method}", "only the mpmath path has a precision")
    dps = check_int(option("dps"), 30 if dps is None else dps, 10, 200)
    on_failure = check_on_failure(on_failure)
    from ..activations import resolve_activation
    from ..solvers import Status
    from ..theory.large_step import kernel_lower_bound

    s = resolve_activation(student, center=False, name=option("student"))
    t = resolve_activation(teacher, center=False, name=option("teacher"))
    with DegenerateNotes() as caught:
        results = _solve(s, t, a, b, center, fit_constant, method, dps, progress)
    kb = {bi: kernel_lower_bound(t, teacher_scale=bi) for bi in b}
    rows = []
    for k, r in enumerate(results):
        ai, bi = a[k // len(b)], b[k % len(b)]
        if isinstance(r, ConvergenceError):
            if on_failure == "raise":
                raise point_error("theory tau-star", {"student_scale": ai, "teacher_scale": bi}, str(r), r.result)
            from ..theory.large_step import TauStarResult

            tau = r.result if isinstance(r.result, TauStarResult) else None  # the compiled path's failed point
            row = record(tau) if tau is not None else {
                "student": s.name, "teacher": t.name, "student_scale": ai, "teacher_scale": bi, "tau_star": None,
                "kappa_star": None, "status": Status(status_code(r)).label}
            row.update(tau_star=None, kappa_star=None, kernel_bound=kb[bi], beats_every_kernel=None, message=str(r))
            rows.append(row)
            continue
        row = record(r)
        row["kernel_bound"] = kb[r.teacher_scale]
        row["beats_every_kernel"] = bool(10.0 * r.tau_star < row["kernel_bound"])
        rows.append(row)
    notes = sorted({str(w.message) for w in caught.caught if issubclass(w.category, DegenerateWarning)})
    return s, t, results, rows, notes


def _meta(command, student, teacher, center, notes, **extra) -> dict:
    from ..activations import resolve_activation

    s = resolve_activation(student, center=center, name=option("student"))
    t = resolve_activation(teacher, center=center, name=option("teacher"))
    return base_meta(command=command, **extra, center=center, notes=notes, formulas="docs/large-step.md",
                     student=s.as_dict(), teacher=t.as_dict())


def _warn(notes) -> None:
    import warnings

    from ..errors import DegenerateWarning

    for note in notes:
        warnings.warn(note, DegenerateWarning, stacklevel=3)


@checked
def tau_star(*, student="tanh", teacher="tanh", center: bool = True, fit_constant: bool = False, student_scale=1.0,
             teacher_scale=1.0, method: str = "auto", dps: int | None = None, on_failure: str = "raise",
             progress: bool | None = None) -> Result:
    """τ* and κ* (Ba et al. eq. 5.1), the kernel bound μ2*² and the verdict 10τ* < μ2*²
    (``asymptotics theory tau-star``).

    Args:
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        center: centre σ and σ* by their Gaussian means (Ba et al.'s assumption).
        fit_constant: let the oracle add the best constant (τ* = inf_κ Var(σ* − E_ξ2σ)).
        student_scale: input scale a of σ(a x), in [1e-3, 1e3] (grid).
        teacher_scale: input scale b of σ*(b x) (grid).
        method: ``"auto"`` (closed form if any, else compiled), ``"closed"``, ``"compiled"`` or
            ``"mpmath"`` (one point at a time, ``dps`` digits).
        dps: decimal digits of the mpmath path, in [10, 200] (default 30; with ``method="mpmath"`` only).
        on_failure: ``"raise"`` or ``"mark"`` (a point without an answer as a row with its status).
        progress: ``None`` (automatic), ``True`` or ``False``: one step per (student scale,
            teacher scale) point of the mpmath path (the other paths solve the grid at once).

    Returns:
        a :class:`~asymptotics.results.Result` with the columns of
        :class:`~asymptotics.theory.large_step.TauStarResult` (``tau_star, kappa_star,
        kappa_limit, status, infimum_at, error, …``), ``kernel_bound`` and ``beats_every_kernel``.
    """
    _, _, _, rows, notes = _tau_rows(student, teacher, center, fit_constant, student_scale, teacher_scale, method,
                                     dps, on_failure, progress)
    _warn(notes)
    meta = _meta("theory tau-star", student, teacher, center, notes,
                 definition="tau* = inf_kappa E[(sigma*(xi1) - E_xi2 sigma(kappa xi1 + xi2))^2], Ba et al. (2022) eq. 5.1",
                 fit_constant=fit_constant, method=method)
    table = TAU_TABLE if not any(isinstance(r.get("message"), str) and r.get("status") != "converged" for r in rows) \
        else Columns(TAU_TABLE.params, TAU_TABLE.values + ("message",))
    return Result(rows=rows, meta=meta, columns=table)


@checked
def bounds(*, student="tanh", teacher="tanh", center: bool = True, fit_constant: bool = False,
           psi1=(10.0, 100.0, 1000.0), constant: float = 1.0, student_scale=1.0, teacher_scale=1.0,
           method: str = "auto", dps: int | None = None, on_failure: str = "raise",
           progress: bool | None = None) -> Result:
    """The kernel lower bound μ2*², the upper bound 10τ* + C(√τ*√(d/n) + d/n) on a ψ1 grid, and
    the verdict (``asymptotics theory bounds``).

    Args:
        psi1: ψ1 = n/d for the upper bound (grid).
        constant: the constant C ≥ 0 of the upper bound (not given by the paper; 1 is arbitrary).
        student: as in :func:`tau_star` (so are ``teacher``, ``center``, ``fit_constant``,
            ``student_scale``, ``teacher_scale``, ``method``, ``dps``, ``on_failure`` and ``progress``).

    Returns:
        a :class:`~asymptotics.results.Result`, one row per (student scale, teacher scale, ψ1):
        ``tau_star, kappa_star, kernel_bound, ten_tau_star, upper_bound, beats_every_kernel,
        margin, psi1_crossover, status, infimum_at, …``.
    """
    psi1_vals = values("psi1", psi1, check_positive)
    if isinstance(constant, bool) or not isinstance(constant, (int, float, np.number)) \
            or not (math.isfinite(constant) and constant >= 0):
        raise ParameterError(option("constant"), constant, ">= 0 and finite (the unspecified constant C of the theorem)")
    product(MAX_POINTS, scales=values("student_scale", student_scale), teacher_scale=values("teacher_scale", teacher_scale),
            psi1=psi1_vals)  # size check only
    s, t, results, tau_rows, notes = _tau_rows(student, teacher, center, fit_constant, student_scale, teacher_scale,
                                               method, dps, on_failure, progress)
    from ..theory.large_step import large_step_bounds

    rows: list[dict] = []
    caveats: list[str] = []
    for res, tr in zip(results, tau_rows, strict=True):
        if isinstance(res, ConvergenceError):
            rows += [dict(tr, psi1=p, upper_bound=None) for p in psi1_vals]
            continue
        b = large_step_bounds(s, t, psi1=psi1_vals, constant=float(constant), tau=res)
        caveats += [c for c in b.notes if c not in caveats]
        for r in b.rows():
            r.update(kappa_limit=tr["kappa_limit"], error=tr["error"])
            rows.append(r)
    _warn(notes)
    meta = _meta("theory bounds", student, teacher, center, notes + caveats,
                 upper_bound="10 tau* + C (sqrt(tau*) sqrt(1/psi1) + 1/psi1)  (Ba et al. 2022, Thm.; C not given by the paper)",
                 kernel_bound="mu2*^2 = ||P_>1 f*||^2 (Ba et al. 2022, Prop. 1)", constant=constant,
                 fit_constant=fit_constant)
    return Result(rows=rows, meta=meta, columns=BOUNDS_TABLE)

