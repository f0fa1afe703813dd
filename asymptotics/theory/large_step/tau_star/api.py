r"""The public functions of τ*: one pair (:func:`tau_star`), a grid of input scales
(:func:`tau_star_grid`), the objective (:func:`tau_objective`) and its limits (:func:`tau_limits`)."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from ....errors import ConvergenceError, DegenerateWarning, ExpressionError, ParameterError
from ....params import check_int, check_positive
from .closed_forms import closed_form
from .compiled import CompiledObjective, solve_compiled
from .config import METHODS, TauStarConfig
from .mp import solve_mp
from .problem import TauProblem, degeneracy_notes, make_problem
from .results import TauObjective, TauStarGrid, TauStarResult

__all__ = ["tau_star", "tau_star_grid", "tau_objective", "tau_limits"]


def _config(config) -> TauStarConfig:
    cfg = TauStarConfig() if config is None else config
    if not isinstance(cfg, TauStarConfig):
        raise ParameterError("config", cfg, "a TauStarConfig")
    return cfg


def _solve_grid(prob: TauProblem, cfg: TauStarConfig, on_failure: str) -> tuple[TauStarGrid, str]:
    """The compiled path with the degeneracy remarks (μ1 μ1* = 0) added; raises on failure when
    asked. Returns the grid and the first remark (to be warned about by the caller)."""
    grid = solve_compiled(prob, cfg)
    notes = degeneracy_notes(prob)
    for p, text in notes.items():
        grid.messages[p] = f"{grid.messages[p]}; {text}" if grid.messages.get(p) else text
    failed = np.flatnonzero(~grid.converged.ravel())
    if failed.size and on_failure == "raise":
        first = int(failed[0])
        raise ConvergenceError(
            f"τ* did not converge at {failed.size} of {prob.size} point(s); first: student_scale={prob.a[first]:g}, "
            f"teacher_scale={prob.b[first]:g}: {grid.messages.get(first, '')}",
            grid,
        )
    return grid, next(iter(notes.values()), "")


def tau_star_grid(
    student,
    teacher,
    *,
    student_scale=1.0,
    teacher_scale=1.0,
    center: bool = True,
    fit_constant: bool = False,
    config: TauStarConfig | None = None,
    on_failure: str = "raise",
) -> TauStarGrid:
    r"""τ* by the compiled path over a grid of input scales (σ(a x), σ*(b x)).

    ``student_scale`` and ``teacher_scale`` are broadcast against each other (e.g. a column and
    a row give a Cartesian grid). One generated, cached kernel module per student does all points.
    ``on_failure="return"`` keeps failed points (a ``status`` other than ``"converged"``, with a
    message) instead of raising :class:`~asymptotics.errors.ConvergenceError`.

    >>> g = tau_star_grid("tanh", "tanh", student_scale=[[1.0], [2.0]], teacher_scale=[1.0, 2.0])
    >>> g.shape, [str(s) for s in g.status.ravel()], [str(s) for s in g.infimum_at.ravel()]
    ((2, 2), ['converged', 'converged', 'converged', 'converged'], ['interior', 'interior', 'interior', 'interior'])
    """
    cfg = _config(config)
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    prob = make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale)
    grid, note = _solve_grid(prob, cfg, on_failure)
    if note:
        warnings.warn(note, DegenerateWarning, stacklevel=2)
    return grid


def tau_star(
    student,
    teacher,
    *,
    student_scale: float = 1.0,
    teacher_scale: float = 1.0,
    center: bool = True,
    fit_constant: bool = False,
    method: str = "auto",
    dps: int = 30,
    config: TauStarConfig | None = None,
) -> TauStarResult:
    r"""τ* = inf_κ E_ξ1[(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²] and κ* for one pair (σ, σ*).

    Args:
        student: σ — a built-in name, an expression in ``x`` or an :class:`Activation`.
        teacher: σ* — likewise.
        student_scale, teacher_scale: input scales a, b in [1e-3, 1e3]: σ(a x), σ*(b x).
        center: centre σ and σ* by their Gaussian means (Ba et al.'s assumption; default).
        fit_constant: let the oracle add the best constant (τ* = inf_κ Var(σ* − E_ξ2σ)).
        method: ``"auto"`` (closed form if any, else compiled), ``"closed"``, ``"compiled"`` or
            ``"mpmath"`` (high precision at ``dps`` digits, started from the compiled answer).
        dps: decimal digits of the mpmath path.
        config: :class:`TauStarConfig` of the compiled path.

    Returns:
        :class:`TauStarResult` (``status`` ``Status.CONVERGED``; ``infimum_at`` says where the infimum
        is). Raises :class:`~asymptotics.errors.ConvergenceError` when the compiled path cannot
        meet its tolerance, :class:`~asymptotics.errors.ParameterError` on bad input,
        :class:`~asymptotics.errors.ExpressionError` for ``method="closed"`` without a closed form.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")      # μ1(x²) = 0: a DegenerateWarning
    ...     r = tau_star("x**2", "tanh")        # even σ, odd σ*: κ* = 0 by symmetry, τ* = E tanh²
    >>> r.status.label, r.infimum_at, r.kappa_star, f"{r.tau_star:.12f}"
    ('converged', 'zero', 0.0, '0.394294490398')
    """
    if method not in METHODS:
        raise ParameterError("method", method, f"one of {', '.join(METHODS)}")
    dps = check_int("dps", dps, 10)
    if dps > 200:
        raise ParameterError("dps", dps, "an integer in [10, 200]")
    a = check_positive("student_scale", student_scale)
    b = check_positive("teacher_scale", teacher_scale)
    prob = make_problem(student, teacher, center, fit_constant, a, b)
    res = closed_form(prob, a, b) if method in ("auto", "closed") else None
    if res is None:
        if method == "closed":
            raise ExpressionError(
                f"no closed form for τ* with student {prob.student.name!r} and teacher {prob.teacher.name!r}"
                " (closed forms: erf/erf, linear student, even student with odd teacher)"
            )
        grid, note = _solve_grid(prob, _config(config), "raise")
        res = grid.result(())
    else:
        note = degeneracy_notes(prob).get(0, "")
        if note:
            res = replace(res, message=f"{res.message}; {note}")
    if note:
        warnings.warn(note, DegenerateWarning, stacklevel=2)
    if method == "mpmath":
        res = solve_mp(prob, a, b, dps, res)
    return res


def tau_objective(
    kappa,
    student,
    teacher,
    *,
    student_scale: float = 1.0,
    teacher_scale: float = 1.0,
    center: bool = True,
    fit_constant: bool = False,
    config: TauStarConfig | None = None,
    level: int = 1,
) -> TauObjective:
    r"""τ(κ), τ'(κ), τ''(κ) on an array of κ, with an error estimate (difference from the rule of
    the next level). Same conventions as :func:`tau_star`.

    >>> v = tau_objective([0.0, 1.6], "tanh", "tanh")
    >>> f"{v.value[0]:.6f}", f"{v.value[1]:.3e}"          # τ(0) = E tanh² = 1 − μ1
    ('0.394294', '1.007e-04')
    """
    cfg = _config(config)
    level = check_int("level", level, 0)
    k = np.asarray(kappa, dtype=float)
    if not np.all(np.isfinite(k)):
        raise ParameterError("kappa", kappa, "finite real numbers")
    obj = CompiledObjective(make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale), cfg)
    flat = k.ravel()
    v = obj.values(0, flat, level)
    v2 = obj.values(0, flat, level + 1)
    err = np.abs(v[:, 0] - v2[:, 0])
    return TauObjective(
        v2[:, 0].reshape(k.shape), v2[:, 1].reshape(k.shape), v2[:, 2].reshape(k.shape), err.reshape(k.shape)
    )


def tau_limits(student, teacher, *, student_scale=1.0, teacher_scale=1.0, center=True, fit_constant=False):
    """(τ(+∞), τ(−∞)) — the limits of τ(κ) as κ → ±∞ (``inf`` when the student has no finite
    limits σ(±∞), in which case τ(κ) → ∞)."""
    prob = make_problem(student, teacher, center, fit_constant, student_scale, teacher_scale)
    vals, _ = CompiledObjective(prob, TauStarConfig()).limit_values()
    return float(vals[0, 0]), float(vals[0, 1])
