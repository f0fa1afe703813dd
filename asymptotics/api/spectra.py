"""The spectrum of the learned features after one gradient step (``asymptotics theory spectrum``):
the limiting eigenvalue density of the trained weights W₁ᵀW₁ (``matrix="weights"``) or of the
conjugate kernel (1/n)FᵀF (``matrix="ck"``), with the support's edges, the atom at zero and each
outlier's location and eigenvector overlaps (``docs/spectra.md``).

>>> s = spectrum(matrix="weights", psi1=2, psi2=2, eta=5, points=40)
>>> len(s.rows), sorted(s.rows[0])
(40, ['density', 'x'])
>>> [round(e, 6) for e in s.meta["support"][0]]   # Marchenko–Pastur edges (1 ± √ψ2)²
[0.171573, 5.828427]
>>> round(s.meta["atom"], 9), len(s.meta["outliers"])   # atom 1 − 1/ψ2, one outlier
(0.5, 1)
"""

from __future__ import annotations

import math

from ..errors import ParameterError
from ..results import Columns, base_meta
from .checks import check_centred, checked, refuse_unused
from .errors import option
from .grid import is_infinite, product, values
from .progress import Progress
from .spectrum_summary import SpectrumResult

__all__ = ["spectrum", "MATRICES", "PROTOCOLS", "SCALAR_KEYS"]

MATRICES = ("weights", "ck")
PROTOCOLS = ("ba", "cui")
#: Entries of each point's metadata that the result's ``meta`` also holds when the grid has one point.
SCALAR_KEYS = ("support", "atom", "atom_error", "outliers", "edges", "mass", "status", "residual", "height")


def _width(width, d, ratio: float) -> float:
    """N for the large-step outliers: ``d`` (N = round(ψ2·d)), ``width``, or ∞."""
    if d is not None:
        if width is not None:
            raise ParameterError(option("d"), d, f"not given together with {option('width')}")
        dv = values(option("d"), d, lambda n, v: v)
        if len(dv) != 1 or not (dv[0] >= 2 and float(dv[0]).is_integer()):
            raise ParameterError(option("d"), d, "one integer dimension d >= 2")
        return float(round(ratio * dv[0]))
    if width is None or is_infinite(width):
        return math.inf
    wv = values(option("width"), width, lambda n, v: v)
    if len(wv) != 1 or not (math.isfinite(wv[0]) and wv[0] >= 1):
        raise ParameterError(option("width"), width, "one number of neurons N >= 1, or inf")
    return float(wv[0])


def _or(value, default):
    return default if value is None else value


def _refuse_unused(matrix, protocol, regime, before, given: dict) -> None:
    """Refuse the parameters that this protocol, regime and matrix do not use (one rule:
    :func:`~asymptotics.api.checks.refuse_unused`)."""
    if given["x"] is not None:
        refuse_unused({"points": given["points"]}, (), option("x"), f"the density is evaluated on {option('x')}")
    grids = ("psi1", "psi2", "eta", "alpha", "beta", "eta_tilde", "alpha0")
    takes = ("psi1", "psi2", "eta") if protocol == "ba" else ("alpha", "beta", "eta_tilde", "alpha0")
    refuse_unused({k: given[k] for k in grids}, takes, f"{option('protocol')} {protocol}")
    small = before or (protocol == "ba" and regime == "small")
    if small:
        mode = f"{option('before')}" if before else f"{option('regime')} small"
        refuse_unused({k: given[k] for k in ("width", "d", "types", "kappa_nodes", "equivalence")}, (), mode,
                      "it sets the large step's outliers, bulk or equivalence")
        return
    large = []
    if protocol == "ba":
        large.append("types")
    if matrix == "ck":
        large += ["kappa_nodes", "equivalence"]
    refuse_unused({k: given[k] for k in ("types", "kappa_nodes", "equivalence")}, large,
                  f"{option('matrix')} {matrix} {option('protocol')} {protocol}")


@checked
def spectrum(*, matrix: str = "ck", protocol: str = "ba", regime: str = "small", student="tanh", teacher="tanh",
             center: bool = True, psi1=None, psi2=None, eta=None, alpha=None, beta=None, eta_tilde=None, alpha0=None,
             noise=0.1, before: bool = False, equivalence: str | None = None, width=None, d=None, x=None,
             points: int | None = None, types: int | None = None, kappa_nodes: int | None = None,
             progress: bool | None = None) -> SpectrumResult:
    """Limiting eigenvalue density, edges, atom and outliers (with eigenvector overlaps) of W₁ᵀW₁
    or of the conjugate kernel after one gradient step (``asymptotics theory spectrum``).

    Args:
        matrix: ``"weights"`` (W₁ᵀW₁) or ``"ck"`` ((1/n)FᵀF).
        protocol: ``"ba"`` (Ba et al.: ``psi1, psi2, eta, noise``) or ``"cui"`` (Cui et al.:
            ``alpha, beta, eta_tilde, alpha0, noise``; always a large step).
        regime: ``"ba"`` only: ``"small"`` (η = Θ(1)) or ``"large"`` (η = c√N, ``eta`` is c).
        student: σ, a built-in name or an expression in ``x`` (or an Activation).
        teacher: σ*, likewise.
        center: centre σ and σ*.
        psi1, psi2, eta: Ba et al.'s ψ1 = n/d, ψ2 = N/d and learning rate (grids).
        alpha, beta, eta_tilde, alpha0: Cui et al.'s α = n/d of the CK data, β = p/d, η̃ and
            α0 = n0/d of the step (or ``inf``) (grids).
        noise: σ_ε, the label noise (grid).
        before: the matrix before the step (W₀, the random-features CK).
        equivalence: CK at the large step: ``"conditional"`` (cGET) or ``"gaussian"`` (the GE
            hypothesis).
        width: large step: N for the outlier locations (or ``inf``: only ``location_per_width``).
        d: large step: N = round(ψ2·d) instead of ``width``.
        x: the density grid (numbers or a grid string, ``"0:5:1001"``); default ``points`` points
            over the support.
        points: points of the default density grid, in [2, 1000000].
        types: large step (ba): readout types (Gauss–Hermite nodes in u).
        kappa_nodes: large step: Gauss–Hermite nodes in κ.
        progress: ``None`` (automatic), ``True`` or ``False``.

    A parameter the chosen protocol, regime or matrix does not use must be left at ``None`` (a
    value is refused, naming what does use it); those left at ``None`` take the defaults above
    (``psi1=2, psi2=1.5, eta=5``; ``alpha=2, beta=1, eta_tilde=3, alpha0=2``;
    ``equivalence="conditional"``, ``points=1000``, ``types=8`` (``64`` for the weights),
    ``kappa_nodes=32``).

    Returns:
        a :class:`~asymptotics.api.spectrum_summary.SpectrumResult` (a ``Result``; its ``repr`` and
        ``summary`` show the edges, atom, bulk mass, outliers with their alignments and the solver
        status, the table the command prints) with rows ``{x, density}`` (plus the parameters when
        the grid has several points; ``plot(x="x")`` draws one curve per point) and metadata
        ``spectra`` (one entry per point: ``support``, ``atom``, ``outliers`` with their
        ``overlaps``, ``edges``, ``mass``, ``status``, ``residual``, ``notes``), these entries at the
        top level too when the grid has one point.
    """
    _check_choices(matrix, protocol, regime)
    _refuse_unused(matrix, protocol, regime, before, {
        "x": x, "points": points, "psi1": psi1, "psi2": psi2, "eta": eta, "alpha": alpha, "beta": beta,
        "eta_tilde": eta_tilde, "alpha0": alpha0, "width": width, "d": d, "types": types, "kappa_nodes": kappa_nodes,
        "equivalence": equivalence})
    psi1, psi2, eta = (_or(psi1, 2.0), _or(psi2, 1.5), _or(eta, 5.0))
    alpha, beta, eta_tilde, alpha0 = (_or(alpha, 2.0), _or(beta, 1.0), _or(eta_tilde, 3.0), _or(alpha0, 2.0))
    equivalence, points = _or(equivalence, "conditional"), _or(points, 1000)
    types, kappa_nodes = _or(types, 64 if matrix == "weights" else 8), _or(kappa_nodes, 32)
    _check_density_options(equivalence, points)
    s, t = _activations(student, teacher, center, protocol)
    xs = None if x is None else values(option("x"), x, lambda n, v: v)
    grid = _grid(protocol, psi1=psi1, psi2=psi2, eta=eta, alpha=alpha, beta=beta, eta_tilde=eta_tilde, alpha0=alpha0,
                 noise=noise)
    rows, spectra = [], []
    with Progress(len(grid), "theory spectrum", progress) as bar:
        for g in grid:
            step = _step(s, t, protocol, g, regime, center)
            res = _matrix_spectrum(matrix, step, _width(width, d, step.width_ratio), xs=xs, points=points,
                                   before=before, types=types, kappa_nodes=kappa_nodes, equivalence=equivalence)
            params = {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in g.items()}
            rows += [{**params, **r} if len(grid) > 1 else r for r in res.rows()]
            spectra.append({"point": params, **res.meta()})
            bar.advance()
    return _spectrum_result(rows, spectra, grid, s, t, matrix=matrix, protocol=protocol, regime=regime, before=before)


def _spectrum_result(rows: list, spectra: list, grid: list, s, t, *, matrix, protocol, regime, before) -> SpectrumResult:
    """The result: the density rows, the per-point metadata (at the top level too for one point) and
    the table (the grid's parameters when it has several points, ``x``, ``density``)."""
    meta = base_meta(command="theory spectrum", matrix=matrix, protocol=protocol,
                     regime="large" if protocol == "cui" else regime, before=before,
                     student=s.as_dict(), teacher=t.as_dict(), spectra=spectra,
                     formulas="docs/spectra.md (status of each formula there)")
    if len(spectra) == 1:
        meta.update({k: spectra[0][k] for k in SCALAR_KEYS})
    keys = tuple(grid[0]) if len(grid) > 1 else ()
    return SpectrumResult(rows=rows, meta=meta, columns=Columns((*keys, "x"), ("density",)))


def _check_choices(matrix, protocol, regime) -> None:
    """The matrix, the protocol and the regime (the Cui protocol is always a large step)."""
    if matrix not in MATRICES:
        raise ParameterError(option("matrix"), matrix, "weights or ck")
    if protocol not in PROTOCOLS:
        raise ParameterError(option("protocol"), protocol, "ba or cui")
    if regime not in ("small", "large"):
        raise ParameterError(option("regime"), regime, "small or large")
    if protocol == "cui" and regime != "small":
        raise ParameterError(option("regime"), regime, f"not given with {option('protocol')} cui (always a large step)")


def _check_density_options(equivalence, points) -> None:
    """The CK equivalence and the number of points of the default density grid."""
    if equivalence not in ("conditional", "gaussian"):
        raise ParameterError(option("equivalence"), equivalence, "conditional or gaussian")
    if not (isinstance(points, int) and not isinstance(points, bool) and 2 <= points <= 1_000_000):
        raise ParameterError(option("points"), points, "an integer in [2, 1000000]")


def _activations(student, teacher, center: bool, protocol: str) -> tuple:
    """σ and σ* resolved (centred activations required by Ba et al.'s step)."""
    from ..activations import resolve_activation

    s = resolve_activation(student, center=center, name=option("student"))
    t = resolve_activation(teacher, center=center, name=option("teacher"))
    if protocol == "ba":
        check_centred("Ba et al.'s step", student=s, teacher=t)
    return s, t


def _grid(protocol: str, *, psi1, psi2, eta, alpha, beta, eta_tilde, alpha0, noise) -> list[dict]:
    """The Cartesian grid of the protocol's parameters (Ba: ψ1, ψ2, η, σ_ε; Cui: α, β, η̃, σ_ε, α0)."""
    if protocol == "ba":
        return product(psi1=values("psi1", psi1), psi2=values("psi2", psi2), eta=values("eta", eta),
                       noise=values("noise", noise))
    return product(alpha=values("alpha", alpha), beta=values("beta", beta), eta_tilde=values("eta_tilde", eta_tilde),
                   noise=values("noise", noise), alpha0=values("alpha0", alpha0, allow_inf=True))


def _step(s, t, protocol: str, g: dict, regime: str, center: bool):
    """The one gradient step at the grid point ``g`` (:func:`~asymptotics.theory.spectra.ba_step` or
    :func:`~asymptotics.theory.spectra.cui_step`)."""
    from ..theory.spectra import ba_step, cui_step

    if protocol == "ba":
        return ba_step(s, t, psi1=g["psi1"], psi2=g["psi2"], eta=g["eta"], noise=g["noise"], regime=regime,
                       center=center)
    return cui_step(s, t, alpha=g["alpha"], beta=g["beta"], eta_tilde=g["eta_tilde"], alpha0=g["alpha0"],
                    noise=g["noise"], center=center)


def _matrix_spectrum(matrix: str, step, w: float, *, xs, points, before, types, kappa_nodes, equivalence):
    """The spectrum of W₁ᵀW₁ (``weights``) or of the conjugate kernel (``ck``) after ``step``, the
    large step's outliers at width ``w``."""
    from ..theory.spectra import ck_spectrum, weights_spectrum

    if matrix == "weights":
        return weights_spectrum(step, x=xs, points=points, before=before, width=w, types=types)
    return ck_spectrum(step, x=xs, points=points, before=before, width=w, equivalence=equivalence, types=types,
                       kappa_nodes=kappa_nodes)
