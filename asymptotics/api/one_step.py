r"""One gradient step at η = Θ(1) (Ba et al. 2022; ``docs/one-step.md``): ``asy.alignment``,
``asy.ck_spike``, ``asy.risk`` and ``asy.limits`` — the commands ``asymptotics theory alignment |
ck-spike | risk | limits``, with their parameters, defaults, checks and columns.

Every grid parameter (``psi1`` ψ1 = n/d, ``psi2`` ψ2 = N/d, ``eta`` η, ``lam`` λ, ``noise`` σ_ε)
takes a number, a list or 1-D array, or a grid string (``"0:10:11"``); several form a Cartesian
grid (:mod:`asymptotics.api.grid`). The formulas are vectorised over the grid.

>>> import asymptotics as asy
>>> r = asy.risk(student="tanh", teacher="softplus", psi1=[0.5, 4, 20], psi2=2, lam=1e-4, eta=4, noise=0.25)
>>> r["delta"].round(6).tolist()
[0.03443, 0.011645, 0.007205]
>>> asy.alignment(psi1=2, psi2=1.5, eta=[1, 5])["separated"].tolist()
[False, True]
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..results import Columns, Result, base_meta, grid_rows
from .checks import check_centred, checked, refuse_unused
from .errors import DegenerateNotes, check_on_failure, option, point_error, solve_in_parts, status_code
from .grid import product, values
from .progress import Progress

__all__ = ["alignment", "ck_spike", "risk", "limits", "MAX_POINTS", "ROUTE_NAMES", "ALIGNMENT_FIELDS",
           "ALIGNMENT_TABLE", "CK_FIELDS", "CK_TABLE", "RISK_FIELDS", "RISK_TABLE", "LIMITS_TABLE"]

#: Most grid points of a one-step command (the formulas are vectorised over the grid).
MAX_POINTS = 200_000
_DOCS = "docs/one-step.md"
_GRID = ("psi1", "psi2", "lam", "eta", "noise", "route", "limit")

#: The columns each command computes ({column: field of the theory's result}) and shows.
ALIGNMENT_FIELDS = {
    "theta_sq": "theta_sq", "separated": "separated", "eta_threshold": "eta_threshold",
    "overlap_beta": "overlap_beta", "overlap_a": "overlap_a", "overlap_u": "overlap_u",
    "top_sv2": "top_sv2", "teacher_energy": "teacher_energy",
}  # fmt: skip
ALIGNMENT_TABLE = Columns(_GRID, ("separated", "eta_threshold", "overlap_beta", "overlap_a", "top_sv2"))
CK_FIELDS = {
    "population_spike": "population_spike", "ck_separated": "separated", "ck_outlier": "top_eigenvalue",
    "ck_bulk_edge": "bulk_edge", "ck_gram_outlier": "gram_top_eigenvalue",
}  # fmt: skip
CK_TABLE = Columns(_GRID, ("top_sv2", "ck_separated", "ck_outlier", "ck_bulk_edge", "ck_gram_outlier"))
#: The routes of :func:`asymptotics.theory.one_step.risk` (its ROUTES), named here so that a bad
#: ``route`` is refused before the theory is imported.
ROUTE_NAMES = ("A", "B", "C")
RISK_FIELDS = ("risk0", "risk1", "delta", "kernel_bound")
RISK_TABLE = Columns(_GRID, RISK_FIELDS)
LIMITS_TABLE = Columns(_GRID, ("risk0", "risk1", "delta", "delta_ridgeless", "delta_coefficient", "ridge_slope",
                               "kernel_bound"))
LIMITS = ("psi1-inf", "psi2-inf")
#: The grid parameters each limit takes, and why it has no use for the others.
_LIMIT_TAKES = {"psi1-inf": ("psi2", "lam", "eta", "noise"), "psi2-inf": ("psi1", "eta", "noise")}
_LIMIT_WHY = {"psi1-inf": "the limits are at ψ1 = ∞", "psi2-inf": "the limits are at ψ2 = ∞, where λ drops out"}


def _activations(student, teacher, center):
    from ..activations import resolve_activation

    s = resolve_activation(student, center=center, name=option("student"))
    t = resolve_activation(teacher, center=center, name=option("teacher"))
    check_centred("the one-step theory", student=s, teacher=t)
    return s, t


def _activations_meta(s, t) -> dict:
    return {"student": s.as_dict(), "teacher": t.as_dict()}


def _groups(rows, keys):
    """Group the grid rows by the model-defining parameter (noise) and return arrays per group."""
    out = {}
    for i, r in enumerate(rows):
        out.setdefault(r.get("noise", 0.0), []).append(i)
    for noise, idx in out.items():
        yield noise, idx, {k: np.array([rows[i][k] for i in idx], dtype=float) for k in keys}


def _model(s, t, noise):
    from ..theory.one_step import OneStepModel

    return OneStepModel.from_activations(s, t, noise=noise)


def _spike_rows(s, t, grid, results, progress=None, label="theory"):
    """Rows of ``results(model, arrays)`` — a list of (result, {column: field}) — on each noise
    group of ``grid`` (vectorised over ψ1, ψ2, η); one progress step per group."""
    rows = [dict(r) for r in grid]
    groups = list(_groups(grid, ("psi1", "psi2", "eta")))
    with Progress(len(groups), label, progress) as bar:
        for nz, idx, a in groups:
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            for res, fields in results(m, a):
                for i, row in zip(idx, grid_rows(res, fields, len(idx)), strict=True):
                    rows[i].update(row)
            bar.advance()
    return rows


@checked
def alignment(*, student="tanh", teacher="tanh", center: bool = True, psi1=2.0, psi2=1.5, eta="0:10:11",
              noise=0.1, progress: bool | None = None) -> Result:
    """Spike of W₁ after one step: BBP threshold η_c (θ⁴ = ψ2), s₁(W₁)², ⟨u₁, β*⟩², ⟨v₁, a⟩²,
    ‖W₁ᵀβ*‖² (``asymptotics theory alignment``).

    Args:
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        center: centre σ and σ* (σ − E σ(z)); the theory assumes centred functions.
        psi1: ψ1 = n/d (grid).
        psi2: ψ2 = N/d (grid).
        eta: the learning rate η = Θ(1) (grid).
        noise: σ_ε, the label noise (grid).
        progress: ``None`` (automatic: a bar when the grid has several noise levels and runs
            long), ``True`` or ``False`` (:mod:`asymptotics.api.progress`).

    Returns:
        a :class:`~asymptotics.results.Result` with the columns ``theta_sq, separated,
        eta_threshold, overlap_beta, overlap_a, overlap_u, top_sv2, teacher_energy``.
    """
    grid = product(MAX_POINTS, psi1=values("psi1", psi1), psi2=values("psi2", psi2), eta=values("eta", eta),
                   noise=values("noise", noise))
    from ..theory.one_step import spike

    s, t = _activations(student, teacher, center)
    with DegenerateNotes() as caught:
        rows = _spike_rows(s, t, grid, lambda m, a: [(spike(m, a["psi1"], a["psi2"], a["eta"]), ALIGNMENT_FIELDS)],
                           progress, "theory alignment")
    meta = base_meta(command="theory alignment", **_activations_meta(s, t),
                     formulas=f"{_DOCS}, section 'The spike' (derived; rank-one algebra by asymptotics.theory.one_step.derivation)")
    return caught.finish(Result(rows=rows, meta=meta, columns=ALIGNMENT_TABLE))


@checked
def ck_spike(*, student="tanh", teacher="tanh", center: bool = True, psi1=2.0, psi2=1.5, eta="0:10:11",
             noise=0.1, progress: bool | None = None) -> Result:
    """Top eigenvalue of the trained conjugate kernel S = σ(X̃W₁)ᵀσ(X̃W₁)/n: the outlier
    (spiked-covariance map) or the bulk edge; ``ck_gram_outlier`` is the same for the n×n Gram
    matrix σσᵀ/N (``asymptotics theory ck-spike``). Parameters as :func:`alignment`."""
    grid = product(MAX_POINTS, psi1=values("psi1", psi1), psi2=values("psi2", psi2), eta=values("eta", eta),
                   noise=values("noise", noise))
    from ..theory.one_step import ck_outlier, spike

    s, t = _activations(student, teacher, center)

    def results(m, a):
        p = (a["psi1"], a["psi2"], a["eta"])
        return [(spike(m, *p), ("top_sv2",)), (ck_outlier(m, *p), CK_FIELDS)]

    with DegenerateNotes() as caught:
        rows = _spike_rows(s, t, grid, results, progress, "theory ck-spike")
    meta = base_meta(command="theory ck-spike", **_activations_meta(s, t),
                     formulas=f"{_DOCS}, section 'The trained-CK outlier' (derived; the paper's hypothesis)")
    return caught.finish(Result(rows=rows, meta=meta, columns=CK_TABLE))


def _routes(route) -> tuple[list[str], bool]:
    """The routes asked for, and whether the rows carry a ``route`` column."""
    if route is None:
        return ["B"], False
    items = route.split(",") if isinstance(route, str) else list(route) if isinstance(route, (list, tuple)) else None
    routes = [str(r).strip().upper() for r in items] if items is not None else []
    if not routes or any(r not in ROUTE_NAMES for r in routes):
        raise ParameterError(option("route"), route, "A, B, C or a comma list of them")
    return routes, True


@checked
def risk(*, student="tanh", teacher="tanh", center: bool = True, psi1=2.0, psi2=1.5, lam=1e-3, eta=1.0,
         noise=0.1, route=None, on_failure: str = "raise", progress: bool | None = None) -> Result:
    """Risks of the CK ridge before (R0) and after (R1) one step, δ = R0 − R1 ≥ 0, and the floor
    μ2*² (``asymptotics theory risk``).

    Args:
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        center: centre σ and σ*.
        psi1: ψ1 = n/d (grid).
        psi2: ψ2 = N/d (grid).
        lam: ridge λ of (1/n)‖y − Φa‖² + (λ/N)‖a‖² (grid).
        eta: the learning rate η = Θ(1) (grid).
        noise: σ_ε (grid).
        route: ``None`` (route B, no ``route`` column), ``"A"`` (Mei–Montanari, R0 only), ``"B"``
            (deterministic equivalent), ``"C"`` (linear pencil), or several (``"A,B,C"`` or a
            list; one row per route and point, with a ``route`` column).
        on_failure: ``"raise"`` (a ConvergenceError naming the first point without a solution) or
            ``"mark"`` (that point's row has its status and no numbers; every other point is
            solved) — ``--keep-going`` on the command line.
        progress: ``None`` (automatic), ``True`` or ``False``: one step per (route, noise level).

    Returns:
        a :class:`~asymptotics.results.Result` with the columns ``risk0, risk1, delta,
        kernel_bound, status`` (and ``message`` on failed points).
    """
    routes, with_route = _routes(route)
    on_failure = check_on_failure(on_failure)
    grid = product(MAX_POINTS, psi1=values("psi1", psi1), psi2=values("psi2", psi2), lam=values("lam", lam),
                   eta=values("eta", eta), noise=values("noise", noise))
    from ..solvers import Status
    from ..theory.one_step import risk as risk_fn

    s, t = _activations(student, teacher, center)
    rows, solver, failed = [], {}, 0
    groups = list(_groups(grid, ("psi1", "psi2", "lam", "eta")))
    with DegenerateNotes() as caught, Progress(len(routes) * len(groups), "theory risk", progress) as bar:
        for r in routes:
            part = [dict(g, **({"route": r} if with_route else {})) for g in grid]
            for nz, idx, a in groups:
                m = _model(s, t, nz)

                def solve(sub, m=m, a=a, r=r):
                    return risk_fn(m, a["psi1"][sub], a["psi2"][sub], a["lam"][sub], a["eta"][sub], route=r)

                parts, failures = solve_in_parts(solve, np.arange(len(idx)))
                if failures and on_failure == "raise":
                    j = min(failures)
                    raise point_error("theory risk", {"route": r, **grid[idx[j]]} if with_route else grid[idx[j]],
                                      str(failures[j]), failures[j].result)
                for sub, res in parts:
                    solver[r] = {"residual": max(solver.get(r, {}).get("residual", 0.0), float(res.residual)),
                                 "iterations": max(solver.get(r, {}).get("iterations", 0), int(res.iterations))}
                    for j, row in zip(sub, grid_rows(res, RISK_FIELDS, len(sub)), strict=True):
                        part[idx[j]].update(row, status=Status.CONVERGED.label)
                for j, exc in failures.items():  # the value columns present, without numbers
                    part[idx[j]].update({f: None for f in RISK_FIELDS}, kernel_bound=m.kernel_bound,
                                        status=Status(status_code(exc)).label, message=str(exc))
                failed += len(failures)
                bar.advance()
            rows += part
    meta = base_meta(command="theory risk", routes=routes, solver=solver, failed=failed,
                     **_activations_meta(s, t),
                     formulas=f"{_DOCS}, section 'R0, R1 and δ: three routes' (routes A, B, C)")
    table = RISK_TABLE if not failed else Columns(RISK_TABLE.params, RISK_TABLE.values + ("status",))
    return caught.finish(Result(rows=rows, meta=meta, columns=table))


@checked
def limits(*, student="tanh", teacher="tanh", center: bool = True, limit: str = "psi1-inf", psi1=None, psi2=None,
           lam=None, eta=1.0, noise=0.1, progress: bool | None = None) -> Result:
    """Limits (``asymptotics theory limits``): the best-linear floor μ2*² (``kernel_bound``);
    ``limit="psi1-inf"``: ψ1 → ∞ closed forms of R0, R1, δ (and δ at λ → 0) over (ψ2, λ, η)
    (``psi2`` default 1.5, ``lam`` default 1e-3); ``limit="psi2-inf"``: ψ2 → ∞ over (ψ1, η) (``psi1``
    default 2): R0's kernel limit and the coefficient C of δ ≈ C/ψ2. The other parameters as
    :func:`risk`; a parameter the limit removes (``psi1`` at ψ1 = ∞; ``psi2`` and ``lam`` at
    ψ2 = ∞) must be left at ``None`` (a value is refused, never ignored). ``progress``: one step
    per noise level."""
    which = limit.strip().lower() if isinstance(limit, str) else limit
    if which not in LIMITS:
        raise ParameterError(option("limit"), limit, "psi1-inf or psi2-inf")
    refuse_unused({"psi1": psi1, "psi2": psi2, "lam": lam}, _LIMIT_TAKES[which], f"{option('limit')} {which}",
                  _LIMIT_WHY[which])
    psi1 = 2.0 if psi1 is None else psi1
    psi2 = 1.5 if psi2 is None else psi2
    lam = 1e-3 if lam is None else lam
    if which == "psi1-inf":
        grid = product(MAX_POINTS, psi2=values("psi2", psi2), lam=values("lam", lam), eta=values("eta", eta),
                       noise=values("noise", noise))
        keys = ("psi2", "lam", "eta")
    else:
        grid = product(MAX_POINTS, psi1=values("psi1", psi1), eta=values("eta", eta), noise=values("noise", noise))
        keys = ("psi1", "eta")
    from ..theory.one_step import limits as L

    s, t = _activations(student, teacher, center)
    rows = [dict(g, limit=which) for g in grid]
    groups = list(_groups(grid, keys))
    with DegenerateNotes() as caught, Progress(len(groups), "theory limits", progress) as bar:
        for nz, idx, a in groups:
            m = _model(s, t, nz)
            m.warn_if_degenerate()
            floor = L.best_linear_floor(m)
            if which == "psi1-inf":
                r0 = np.atleast_1d(L.risk0_infinite_samples(m, a["psi2"], a["lam"]))
                d = np.atleast_1d(L.delta_infinite_samples(m, a["psi2"], a["lam"], a["eta"]))
                d0 = (L.delta_infinite_samples_ridgeless(m, a["psi2"], a["eta"]) if m.mu2_sq > 0 else None)
                vals = {"risk0": r0, "risk1": r0 - d, "delta": d, "delta_ridgeless": d0, "kernel_bound": floor}
            else:
                vals = {"risk0": L.risk0_infinite_width(m, a["psi1"]),
                        "delta_coefficient": L.delta_infinite_width_coefficient(m, a["psi1"], a["eta"]),
                        "ridge_slope": L.infinite_width_ridge(m, a["psi1"]), "kernel_bound": floor}
            for i, row in zip(idx, grid_rows(vals, list(vals), len(idx)), strict=True):
                rows[i].update(row)
            bar.advance()
    meta = base_meta(command="theory limits", limit=which, **_activations_meta(s, t),
                     formulas=f"{_DOCS}, section 'Limits'; ψ2 → ∞ derived in asymptotics.theory.one_step.limits",
                     notes="psi2-inf: delta ≈ delta_coefficient/ψ2; ridge_slope k = lim κ/(μ1²ψ2)")
    return caught.finish(Result(rows=rows, meta=meta, columns=LIMITS_TABLE))
