r"""Spiked random features after one large step (Cui et al. 2024; ``docs/spiked-rf.md``):
``asy.spiked_rf``, the command ``asymptotics theory srf``.

Two ways to give the model (every numeric parameter is a grid; several form a Cartesian product):
the one-step network, ``eta_tilde`` η̃ and ``alpha0`` α0 = n0/d (``inf`` for the isotropic limit),
mapped to (c, r, γ); or the sRF model itself, ``c``, ``r``, ``gamma``. Common: ``alpha`` α = n/d,
``beta`` β = p/d, ``lam`` λ (Cui's ridge Σ(y − ŷ)² + λ‖a‖², not rescaled), ``noise`` σ_ε,
``readout`` (readout-initialisation types). Curves along α are solved by continuation.

The solving is one function, :func:`solve_grid` (the seam where a vectorised grid solver plugs
in); the rest — checks, rows, metadata — is shared by every solver.

>>> import asymptotics as asy
>>> r = asy.spiked_rf(alpha=[0.5, 1.5], alpha0=1, eta_tilde=5, lam=0.01)
>>> r["test_error"].round(4).tolist(), r.rows[0]["c"] == r.rows[1]["c"]
([0.3161, 0.3187], True)
"""

from __future__ import annotations

import functools
import gc
import math
from dataclasses import dataclass

from ..errors import ParameterError
from ..memory import check_memory, parse_memory
from ..params import check_int
from ..results import Columns, Result, base_meta, record
from .checks import checked, refuse_unused
from .errors import check_on_failure, option, point_error
from .grid import product, values
from .progress import Progress
from .srf_structured import BULKS, STRUCTURED_TOL_FLOOR, check_structured, structured_rows

__all__ = ["spiked_rf", "solve_grid", "SRFGrid", "parse_readout", "readout_parts", "finite_d_memory", "MAX_POINTS", "TABLE"]

#: Most points of one computation (each solves a fixed point: about 3 ms a point on one core).
MAX_POINTS = 20_000
#: The table's default columns (every column of the result stays in csv/json/parquet).
TABLE = Columns(("eta_tilde", "alpha0", "c", "r", "gamma", "noise", "beta", "lam", "alpha", "width"),
                ("test_error", "test_error_infinite", "train_error", "r", "c", "gamma", "status"))
#: The table's columns with ``bulk="structured"``.
STRUCTURED_TABLE = Columns(("eta_tilde", "alpha0", "beta", "lam", "alpha"),
                           ("test_error", "test_error_isotropic", "train_error", "train_error_isotropic", "kappa_c",
                            "status"))
NETWORK_TABLE = Columns(("eta_tilde", "alpha0", "beta", "lam", "alpha"),
                        ("test_error", "test_error_structured", "test_error_isotropic", "train_error", "self_term",
                         "kappa_c", "status"))
SELF_TERM_TABLE = Columns(("eta_tilde", "alpha0", "beta", "lam", "alpha"),
                          ("test_error", "test_error_isotropic", "train_error", "train_error_isotropic", "self_term",
                           "bulk_excess", "status"))


def readout_parts(readout, parse):
    """The parts of a readout given as ``"VALUES[:PROPORTIONS]"`` (``"0.3,1.7:0.5,0.5"``), a list
    of values or ``(values, proportions)``: ``(values, proportions)``, each part read by
    ``parse(part, text)`` (``part`` is ``"values"`` or ``"proportions"``), proportions ``None``
    when omitted; ``None`` for the uniform readout (``None`` or an empty string)."""
    if readout is None or (isinstance(readout, str) and not readout.strip()):
        return None
    if isinstance(readout, str):
        parts = readout.split(":")
        if len(parts) > 2:
            raise ParameterError(option("readout"), readout, "VALUES or VALUES:PROPORTIONS, e.g. 0.3,1.7:0.5,0.5")
        return parse("values", parts[0]), parse("proportions", parts[1]) if len(parts) == 2 else None
    if isinstance(readout, tuple) and len(readout) == 2 and all(isinstance(p, (list, tuple)) for p in readout):
        return parse("values", list(readout[0])), parse("proportions", list(readout[1]))
    return parse("values", readout), None


def parse_readout(readout):
    """Readout types from ``"VALUES[:PROPORTIONS]"`` (``"0.3,1.7:0.5,0.5"``), a list of values
    (equal proportions) or ``(values, proportions)``; ``None`` is the uniform readout.
    Returns a :class:`~asymptotics.theory.spiked_rf.ReadoutTypes` or ``None``."""
    if readout is None or (isinstance(readout, str) and not readout.strip()):
        return None
    from ..theory.spiked_rf import ReadoutTypes, readout_types

    if isinstance(readout, ReadoutTypes):
        return readout
    name = option("readout")
    return readout_types(*readout_parts(readout, lambda part, text: values(f"{name} {part}", text)))


def finite_d_memory(d: int, p: int) -> int:
    """Bytes of the sampled bulk at (d, p): the p×d Gaussian, normalised and projected copies,
    two d×d identity factors of ``Spectrum.from_weights``, and the p×p eigendecomposition."""
    return 8 * (4 * p * d + 2 * d * d + 3 * p * p) + 256 * 2**20


@dataclass(frozen=True)
class SRFGrid:
    """Everything :func:`solve_grid` needs (checked): the activations, the model points (dicts of
    ``eta_tilde, alpha0, noise`` or ``c, r, gamma, noise``), the β, λ and α values, the readout
    types (or ``None``), the tolerance, and the sampled bulk (``finite_d`` d and ``seed``) or the
    Marchenko–Pastur limit (``finite_d=None``), and the finite widths p of the finite-width theory
    (``widths``, empty: p = ∞ only). Solutions come back in the order model point × β × λ (slowest
    first) × α."""

    student: object
    teacher: object
    models: list
    betas: list
    lams: list
    alphas: list
    readout: object
    srf_mode: bool
    tol: float
    finite_d: int | None
    seed: int
    widths: tuple = ()

    @property
    def size(self) -> int:
        return len(self.models) * len(self.betas) * len(self.lams) * len(self.alphas)


def solve_grid(spec: SRFGrid, step=lambda n=1: None) -> list:
    """Solve the sRF fixed point at every point of ``spec``; returns ``(solution, finite)`` per point:
    the p = ∞ :class:`~asymptotics.theory.spiked_rf.SpikedRFSolution` (``converged`` False with its
    status and message on failure, never an exception for a point) and, per width of
    ``spec.widths``, the :class:`~asymptotics.theory.spiked_rf.finite_width.FiniteWidthSolution`
    (or the :class:`~asymptotics.errors.ConvergenceError` of that width), in the order of
    :class:`SRFGrid`. ``step(n)`` reports progress (one step per (model, β, λ) curve).

    One readout type with the Marchenko–Pastur prior: the whole grid in one compiled call
    (continuation along α inside compiled code, curves on threads); readout types or a sampled
    bulk (``finite_d``): one continuation along α per (model, β, λ).
    """
    return _solve(spec, step, rows=False)


def _solve(spec: SRFGrid, step, rows: bool) -> list:
    """:func:`solve_grid`; with ``rows`` (no widths), each point of the compiled grid that has a
    solution comes back as its finished row (:func:`_row`) instead of ``(solution, finite)``: a
    large grid then needs no solution object per point."""
    from ..theory.spiked_rf import channel_model, cui_to_srf, sample_spectrum, spiked_rf_curve, srf_parameters

    models = []
    for mp in spec.models:
        if spec.srf_mode:
            params = srf_parameters(mp["c"], mp["r"], mp["gamma"], spec.readout)
        else:
            params = cui_to_srf(mp["eta_tilde"], mp["alpha0"], spec.student, spec.teacher, mp["noise"], spec.readout)
        models.append((params, channel_model(params, spec.student, spec.teacher, mp["noise"])))
    if spec.finite_d is None and all(m.K == 1 for _, m in models):
        grid = _compiled_grid([m for _, m in models], spec, step)
        if grid is not None and rows and not spec.widths:
            return _grid_rows(grid, spec)
        if grid is not None:
            sols, k = grid.solutions(on_failure="return"), 0
            out = []
            for _, model in models:
                for _ in range(len(spec.betas) * len(spec.lams) * len(spec.alphas)):
                    out.append((sols[k], _finite_widths(model, sols[k], spec)))
                    k += 1
            return out
    sols, spectra = [], {}
    for params, model in models:
        for beta in spec.betas:
            for lam in spec.lams:
                prior = None
                if spec.finite_d is not None:
                    p_ = max(1, round(beta * spec.finite_d))
                    key = (p_, params.c)
                    if key not in spectra:  # the same draw for every λ (same seed)
                        spectra[key] = sample_spectrum(spec.finite_d, p_, params.c, seed=spec.seed)
                    prior = spectra[key]
                curve = spiked_rf_curve(model, spec.alphas, beta, lam, tol=spec.tol, on_failure="return", prior=prior)
                sols += [(sol, _finite_widths(model, sol, spec)) for sol in curve]
                step()
    return sols


def _compiled_grid(models, spec: SRFGrid, step):
    """The whole grid in one compiled call (:func:`~asymptotics.theory.spiked_rf.grid.spiked_rf_grid`:
    one readout type, the Marchenko–Pastur prior), or ``None`` where it does not apply (it refuses
    λ = 0 with a purely linear student; the curve-by-curve path then names the failing points)."""
    from ..theory.spiked_rf.grid import spiked_rf_grid

    done = [0]

    def advance(d, total):
        step(d - done[0])
        done[0] = d

    try:
        return spiked_rf_grid(models, spec.alphas, spec.betas, spec.lams, tol=spec.tol, progress=advance)
    except ParameterError:
        return None


def _grid_rows(grid, spec: SRFGrid) -> list:
    """The points of the compiled ``grid`` in order: the row of each point with a solution (the
    row of its model's first such point, :func:`_row`, with the values that vary from point to
    point, :meth:`~asymptotics.theory.spiked_rf.grid.SpikedRFGrid.point_values`), or
    ``(solution, [])`` where there is none."""
    import numpy as np

    values_of = grid.point_values()
    keys = tuple(values_of)
    cols = []
    for arr in values_of.values():
        col = np.ascontiguousarray(arr).reshape(-1).tolist()
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():  # as results.scalar: non-finite → None
            col = [v if math.isfinite(v) else None for v in col]
        cols.append(col)
    ok = grid.converged.reshape(-1).tolist()
    M, B, L, A = grid.shape
    per_model = B * L * A
    out = []
    template = None
    for n, vals in enumerate(zip(*cols, strict=True)):
        i, rest = divmod(n, per_model)
        if rest == 0:
            template = None
        if not ok[n]:
            out.append((grid.solution(i, *np.unravel_index(rest, (B, L, A))), []))
            continue
        if template is None:
            template = _row(spec.models[i], grid.solution(i, *np.unravel_index(rest, (B, L, A))), spec.srf_mode)
        row = template.copy()
        row.update(zip(keys, vals, strict=True))
        out.append(row)
    return out


def _finite_widths(model, sol, spec: SRFGrid) -> list:
    """The finite-width theory at each width of ``spec`` (docs/spiked-rf-finite-width.md), reusing
    the p = ∞ solution ``sol``; a width without a solution gives its ConvergenceError."""
    if not spec.widths or not sol.converged:
        return []
    from ..errors import ConvergenceError
    from ..theory.spiked_rf.finite_width import solve_finite_width

    out = []
    for w in spec.widths:
        try:
            out.append(solve_finite_width(model, sol.alpha, sol.beta, sol.lam, w, infinite=sol, tol=spec.tol))
        except ConvergenceError as exc:
            out.append(exc)
    return out


def _row(mp: dict, sol, srf_mode: bool) -> dict:
    from ..solvers import Status

    row = {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in mp.items() if k != "noise"}
    row.update(record(sol))
    if srf_mode:
        row.pop("eta_tilde", None)
        row.pop("alpha0", None)
    row["noise"] = mp["noise"]
    code = Status(int(sol.status))
    if not sol.converged and code == Status.CONVERGED:  # the responses converged, the rest has no solution
        code = Status.SINGULAR
    label = code.label
    if row.get("status") != label:  # the solver's sentence moves to ``message``; status is the label
        row["message"] = row.get("status")
        row["status"] = label
    return row


def _without_cycle_collection(fn):
    """``fn`` run with Python's cyclic garbage collector paused (and restored as it was, also on an
    exception). A first call imports sympy and numba and initialises numba's lowering registries,
    and a large grid builds one dict per row: ~10^6 new long-lived objects, over which the
    collector's generation-2 passes walk again and again (≈0.2 s of a 10^4-point warm ``theory srf``,
    a tenth of it). Nothing of this work is cyclic garbage (reference counting frees the rest);
    the collector resumes at the end."""

    @functools.wraps(fn)
    def paused(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused


@_without_cycle_collection
@checked
def spiked_rf(*, alpha, student="tanh", teacher="tanh", beta=1.0, lam=0.01, eta_tilde=None, alpha0=None, c=None,
              r=None, gamma=None, noise=0.0, readout=None, center: bool = True, tol: float = 1e-12,
              finite_d: int | None = None, width=None, seed: int | None = None, max_memory=None, bulk: str = "isotropic",
              on_failure: str = "raise", progress: bool | None = None) -> Result:
    """Exact asymptotic test and training error of ridge on spiked random features after one large
    step (``asymptotics theory srf``).

    Args:
        alpha: α = n/d, samples of the ridge per dimension (grid).
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        beta: β = p/d, width per dimension (grid).
        lam: ridge λ ≥ 0 in Cui's convention Σ(y − ŷ)² + λ‖a‖² (grid).
        eta_tilde: η̃ ≥ 0, the one-step learning rate (η̃·p on the plain gradient) (grid).
        alpha0: α0 = n0/d of the first step, or ``inf`` (grid).
        c: the sRF bulk variance c > 0 (grid); with ``r`` and ``gamma`` instead of
            ``eta_tilde`` and ``alpha0``.
        r: the sRF spike strength (grid).
        gamma: the sRF spike–target overlap γ ∈ [−1, 1] (grid).
        noise: σ_ε, the label noise (grid).
        readout: readout-initialisation types: ``"0.3,1.7:0.5,0.5"``, ``[0.3, 1.7]`` (equal
            proportions) or ``([0.3, 1.7], [0.5, 0.5])``; ``None`` is the uniform readout.
        center: centre σ and σ*.
        tol: residual tolerance of the fixed point, in [1e-16, 1).
        finite_d: instead of the Marchenko–Pastur limit, the spectrum of one sampled bulk at this d
            (p = round(βd); uniform readout only).
        width: finite widths p (number of neurons; a grid): the deterministic finite-p theory of
            the readout's mean directions (docs/spiked-rf-finite-width.md) beside p = ∞. The rows
            then carry ``width``, ``test_error``/``train_error`` at p and
            ``test_error_infinite``/``train_error_infinite``; one row per width.
        seed: seed of the sampled bulk (with ``finite_d`` only; default 0).
        bulk: ``"isotropic"`` (Cui et al.'s network → sRF map), ``"structured"``: the trained
            bulk's weighted-Wishart covariance (:mod:`asymptotics.api.srf_structured`; one-step
            network, odd student, uniform readout, no label noise; rows then carry
            ``test_error_isotropic``, ``train_error_isotropic``, ``kappa_c`` and the structured
            prior's traces beside the errors), or ``"self-term"``: the isotropic map with the step's
            self term w⁰ⱼ(1 + k⟨w⁰ⱼ, v⟩) (:mod:`asymptotics.theory.spiked_rf.self_term`; same coverage,
            α0 = ∞ allowed; rows carry ``self_term`` k, ``bulk_excess`` c − 1 and the isotropic
            values beside), or ``"network"``: the network map, both together (the one-step network's
            own theory, :mod:`asymptotics.theory.spiked_rf.network_map`; same coverage as
            ``"structured"``, α0 = ∞ allowed; rows carry ``test_error_structured`` and
            ``test_error_isotropic`` beside). The default ``"isotropic"`` is the paper's sRF model, not
            the network's test error (5–17 % below the network at strong steps, docs/spiked-rf.md).
        max_memory: memory the sampled bulk may use (bytes or ``"8GiB"``; default 80 % of what is
            available; with ``finite_d`` only).
        on_failure: ``"raise"`` or ``"mark"`` (failed points as rows with their status).
        progress: ``None`` (automatic), ``True`` or ``False`` (:mod:`asymptotics.api.progress`).

    Returns:
        a :class:`~asymptotics.results.Result` with the columns ``test_error, train_error``, the
        sRF parameters ``r, c, gamma, rho``, the order parameters (``V1, V2, q1, q2, m, t, psi``
        and their conjugates; ``Q1, Q2`` as K×K blocks for K readout types) and the solver's
        ``status, iterations, residual, prior, quadrature_error, stability_margin``.
    """
    srf_mode, on_failure = _check_model_choice(tol, on_failure, eta_tilde, alpha0, c, r, gamma)
    alphas, betas, lams, noises = values("alpha", alpha), values("beta", beta), values("lam", lam), values("noise", noise)
    models = _model_points(srf_mode, noises, eta_tilde=eta_tilde, alpha0=alpha0, c=c, r=r, gamma=gamma)
    product(MAX_POINTS, model=models, beta=betas, lam=lams, alpha=alphas)  # size check only
    ro = parse_readout(readout)
    seed = _check_sampling_options(finite_d, seed, max_memory, bulk)
    if bulk in ("structured", "self-term", "network"):
        return _structured(models, betas, lams, alphas, student, teacher, center, tol, on_failure, progress,
                           srf_mode=srf_mode, readout=ro, noises=noises, finite_d=finite_d, width=width, kind=bulk)
    finite_d = _check_finite_d(finite_d, ro, betas, max_memory)
    widths = _check_widths(width, finite_d)
    from ..activations import resolve_activation

    spec = SRFGrid(resolve_activation(student, center=center, name=option("student")),
                   resolve_activation(teacher, center=center, name=option("teacher")),
                   models, betas, lams, alphas, ro, srf_mode, float(tol), finite_d, check_int(option("seed"), seed, 0),
                   widths)
    with Progress(len(models) * len(betas) * len(lams), "theory srf", progress) as bar:
        sols = _solve(spec, bar.advance, rows=True)
    rows, n_failed = _point_rows(sols, spec, on_failure)
    return Result(rows=rows, meta=_srf_meta(spec, tol, seed, n_failed), columns=TABLE)


def _check_model_choice(tol, on_failure, eta_tilde, alpha0, c, r, gamma) -> tuple[bool, str]:
    """``tol`` and ``on_failure`` checked, and the way the model is given: the sRF model (all of ``c``,
    ``r``, ``gamma``) or the network (``eta_tilde`` and ``alpha0``), never both. Returns (sRF model?,
    on_failure)."""
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and 1e-16 <= tol < 1):
        raise ParameterError(option("tol"), tol, "in [1e-16, 1)")
    on_failure = check_on_failure(on_failure)
    srf_mode = any(v is not None for v in (c, r, gamma))
    net_mode = any(v is not None for v in (eta_tilde, alpha0))
    srf_names = "/".join(option(n) for n in ("c", "r", "gamma"))
    net_names = "/".join(option(n) for n in ("eta_tilde", "alpha0"))
    if srf_mode and net_mode:
        raise ParameterError(srf_names, (c, r, gamma),
                             f"not combined with {net_names} (choose the sRF model or the network)")
    if srf_mode and any(v is None for v in (c, r, gamma)):
        raise ParameterError(srf_names, (c, r, gamma), "all three given for the sRF model")
    if not srf_mode and any(v is None for v in (eta_tilde, alpha0)):
        raise ParameterError(net_names, (eta_tilde, alpha0),
                             f"both given (or {' '.join(option(n) for n in ('c', 'r', 'gamma'))} for the sRF model)")
    return srf_mode, on_failure


def _model_points(srf_mode: bool, noises: list, *, eta_tilde, alpha0, c, r, gamma) -> list[dict]:
    """The model points, a Cartesian product: ``c, r, gamma, noise`` (sRF model) or ``eta_tilde, alpha0,
    noise`` (the network; α0 may be ``inf``)."""
    if srf_mode:
        return product(c=values("c", c), r=values("r", r), gamma=values("gamma", gamma), noise=noises)
    return product(eta_tilde=values("eta_tilde", eta_tilde), alpha0=values("alpha0", alpha0, allow_inf=True),
                   noise=noises)


def _check_sampling_options(finite_d, seed, max_memory, bulk) -> int:
    """``max_memory`` checked; ``seed`` and ``max_memory`` refused without a sampled bulk; ``bulk`` one of
    :data:`~asymptotics.api.srf_structured.BULKS`. Returns the seed (default 0)."""
    if max_memory is not None:
        parse_memory(max_memory, option("max_memory"))
    if finite_d is None:
        refuse_unused({"seed": seed, "max_memory": max_memory}, (), f"no {option('finite_d')}",
                      f"only the sampled bulk of {option('finite_d')} uses it")
    seed = 0 if seed is None else seed
    if bulk not in BULKS:
        raise ParameterError(option("bulk"), bulk, "one of " + ", ".join(BULKS))
    return seed


def _check_finite_d(finite_d, ro, betas: list, max_memory) -> int | None:
    """The sampled bulk's d (uniform readout only), after the memory pre-flight of its largest p."""
    if finite_d is None:
        return None
    finite_d = check_int(option("finite_d"), finite_d, 2)
    if ro is not None and not ro.is_uniform:
        raise ParameterError(option("finite_d"), finite_d, "used with the uniform readout only (no readout types)")
    p_max = max(max(1, round(b * finite_d)) for b in betas)
    check_memory(f"{option('finite_d')} {finite_d} (p = {p_max})", finite_d_memory(finite_d, p_max), max_memory,
                 option("max_memory"))
    return finite_d


def _check_widths(width, finite_d) -> tuple:
    """The finite widths p ≥ 1 of the finite-width theory (empty: p = ∞ only); not with a sampled bulk."""
    if width is None:
        return ()
    if finite_d is not None:
        raise ParameterError(option("width"), width, f"not combined with {option('finite_d')}")
    widths = tuple(values("width", width))
    for w in widths:
        if not (math.isfinite(w) and w >= 1):
            raise ParameterError(option("width"), w, "a finite number of neurons p ≥ 1")
    return widths


def _point_rows(sols: list, spec: SRFGrid, on_failure: str) -> tuple[list, int]:
    """The rows of the solved points (one per width with ``spec.widths``) and the number of failures; a
    failure raises the point's error with ``on_failure="raise"``."""
    rows, n_failed = [], 0
    keys = [(mp, b, lm) for mp in spec.models for b in spec.betas for lm in spec.lams]
    for k, item in enumerate(sols):
        if isinstance(item, dict):  # a solved point of the compiled grid: its row is ready
            rows.append(item)
            continue
        sol, finite = item
        mp, b, lm = keys[k // len(spec.alphas)]
        row = _row(mp, sol, spec.srf_mode)
        point = {**{n: v for n, v in mp.items()}, "beta": b, "lam": lm, "alpha": sol.alpha}
        if not sol.converged:
            n_failed += 1
            if on_failure == "raise":
                raise point_error("theory srf", point, sol.message)
        if not spec.widths:
            rows.append(row)
            continue
        width_rows, width_failed = _width_rows(row, point, finite, spec.widths, on_failure)
        rows += width_rows
        n_failed += width_failed
    return rows, n_failed


def _width_rows(row: dict, point: dict, finite, widths: tuple, on_failure: str) -> tuple[list, int]:
    """One row per finite width p: the p = ∞ row ``row`` with its errors moved to ``*_infinite`` and the
    finite-width theory's (``finite``: a solution, its ConvergenceError, or ``None`` when p = ∞ failed)."""
    out, n_failed = [], 0
    for w, fw in zip(widths, finite or [None] * len(widths), strict=True):
        wrow = {**row, "width": w, "test_error_infinite": row.get("test_error"),
                "train_error_infinite": row.get("train_error")}
        if fw is None or isinstance(fw, Exception):
            if fw is not None:
                n_failed += 1
                if on_failure == "raise":
                    raise point_error("theory srf", {**point, "width": w}, str(fw))
                wrow.update(status="singular", message=str(fw))
            wrow.update(test_error=None, train_error=None)
        else:
            d = fw.as_dict()
            wrow.update(test_error=fw.test_error, train_error=fw.train_error, m=d["m"],
                        mean_response=d["mean_response"], residual=max(fw.residual, row.get("residual") or 0.0),
                        status=fw.status.label)
        out.append(wrow)
    return out, n_failed


def _srf_meta(spec: SRFGrid, tol, seed, n_failed: int) -> dict:
    """The metadata of ``theory srf``: the model, activations, readout, tolerance, prior and conventions."""
    return base_meta(
        command="theory srf",
        model="srf" if spec.srf_mode else ("Cui et al.'s sRF model of the one-step network (isotropic map; "
                                           "the network itself: bulk='network')"),
        activations={"student": spec.student.as_dict(), "teacher": spec.teacher.as_dict()},
        readout=None if spec.readout is None else spec.readout.as_dict(),
        tolerance=tol,
        prior="Marchenko–Pastur closed form" if spec.finite_d is None else
              f"sampled bulk, d = {spec.finite_d}, seed = {seed}",
        conventions="Cui et al.: alpha = n/d, beta = p/d, lam not rescaled (sum of squares + lam |a|^2); "
                    "test_error excludes the label noise, train_error includes it",
        formulas="docs/spiked-rf.md" + (", docs/spiked-rf-finite-width.md" if spec.widths else ""),
        widths=list(spec.widths) or None,
        failed=n_failed,
    )


def _structured(models, betas, lams, alphas, student, teacher, center, tol, on_failure, progress, *, kind,
                **what) -> Result:
    """``bulk="structured"`` or ``"self-term"``: checked, solved point by point
    (:mod:`asymptotics.api.srf_structured`)."""
    from ..activations import resolve_activation
    from ..theory.spiked_rf.structured_map import require_odd_student

    check_structured(alpha0s=[m["alpha0"] for m in models if "alpha0" in m], alphas=alphas, lams=lams, size=len(models) * len(betas) * len(lams) * len(alphas),
                     kind=kind, **what)
    s_act = resolve_activation(student, center=center, name=option("student"))
    t_act = resolve_activation(teacher, center=center, name=option("teacher"))
    require_odd_student(s_act, option("student"), {"structured": "the structured map", "self-term": "the self term",
                                                   "network": "the network map"}[kind])
    with Progress(len(models) * len(betas) * len(lams), f"theory srf --bulk {kind}", progress) as bar:
        rows, n_failed = structured_rows(models, betas, lams, alphas, s_act, t_act, tol=float(tol),
                                         on_failure=on_failure, step=bar.advance, kind=kind)
    structured = kind in ("structured", "network")
    meta = base_meta(
        command=f"theory srf --bulk {kind}",
        model="one-step network (Cui et al. 2024), " + {"structured": "structured-bulk map",
                                                        "self-term": "isotropic map with the step's self term",
                                                        "network": "network map (structured bulk + self term)"}[kind],
        activations={"student": s_act.as_dict(), "teacher": t_act.as_dict()},
        tolerance=max(float(tol), STRUCTURED_TOL_FLOOR),
        prior=("structured bulk N(0, (I + κ_c C)/d), d → ∞ (deterministic equivalents)"
               + ("; self term on W⁰ only, k = r E[σ⁽³⁾]/E[σ']" if kind == "network" else "") if structured
               else "Marchenko–Pastur (c·MP(β)), d → ∞; self term k = η̃ E[σ⁽³⁾] ‖ĝ‖ = r E[σ⁽³⁾]/E[σ']"),
        conventions="Cui et al.: alpha = n/d, beta = p/d, lam not rescaled (sum of squares + lam |a|^2); "
                    "test_error excludes the label noise",
        formulas="docs/spiked-rf-finite-width.md (a better network → sRF map)",
        failed=n_failed,
    )
    return Result(rows=rows, meta=meta, columns={"structured": STRUCTURED_TABLE, "self-term": SELF_TERM_TABLE,
                                                 "network": NETWORK_TABLE}[kind])
