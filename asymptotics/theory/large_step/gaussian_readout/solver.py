r"""The fixed point of a tabulated :class:`~.model.GaussianReadoutModel` at Ba's ridge λ.

The solve is reduced like the sRF solver's (``docs/large-step-exact.md``): (1) the responses
(V(κ), τ(u)) form a closed system, solved by Anderson acceleration on their logarithms; (2) the
spike–mean block (ω0, t) is linear given V and is solved exactly (the equations of
:mod:`..spike_mean_block`); (3) the variances q(κ) solve a linear system whose spectral radius must
be < 1. Every equation is then evaluated once at the solution; the largest violation is
``residual``. All of it runs in one compiled kernel (:mod:`.compiled`; the numpy functions of
:mod:`..typed_prior` and :mod:`..spike_mean_block` are the readable reference it is tested
against), which also walks a list of ridges with continuation:
:func:`solve_gaussian_readout_path`.
"""

from __future__ import annotations

import math

import numpy as np

from ....errors import ConvergenceError, ParameterError
from ....params import check_int, check_nonnegative
from ....solvers import SolverResult, Status
from ....solvers.result import STATUS_MESSAGES
from ...spiked_rf.solution import MIN_STABILITY_MARGIN  # one threshold for both variance maps
from ..column_norms import COLUMN_NODES
from .compiled import PathSolution, kernels, solve_path
from .model import GaussianReadoutModel, check_width
from .result import GaussianReadoutRisk

__all__ = ["solve_gaussian_readout", "solve_gaussian_readout_path", "MIN_STABILITY_MARGIN"]




def _check_common(model: GaussianReadoutModel, tol, max_steps, on_failure):
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    if not (isinstance(tol, float) and 1e-16 <= tol < 1):
        raise ParameterError("tol", tol, "a float in [1e-16, 1)")
    return check_int("max_steps", max_steps, 1)


def _lam_cui(model: GaussianReadoutModel, lam) -> float:
    """λ_C = λψ1/ψ2, with the checks of Ba's ridge λ."""
    lam = check_nonnegative("lam", lam)
    lam_c = lam * model.psi1 / model.psi2
    f = model.features
    if lam_c == 0.0 and float(np.max(f.mu2_sq)) <= 1e-12 * max(1.0, float(np.max(f.mu1**2))):
        raise ParameterError("lam", lam, "> 0 when the student has no nonlinear part (μ2 ≡ 0)")
    return lam_c


def _solver_result(sol: PathSolution, p: int, iterations: int) -> SolverResult:
    st = int(sol.status[p])
    return SolverResult(value=sol.x[p].copy(), converged=st == Status.CONVERGED, iterations=int(iterations),
                        residual=float(sol.solve_residual[p]), method="anderson", message=STATUS_MESSAGES[st],
                        status=st)


def _not_converged_message(model, lam, res: SolverResult) -> str:
    msg = (f"large-step fixed point did not converge at ψ1 = {model.psi1:g}, ψ2 = {model.psi2:g}, λ = {lam:g}: "
           f"{res.message} after {res.iterations} iterations (residual {res.residual:.3g})")
    if lam == 0.0:
        msg += "; with λ = 0 the responses diverge unless n/N is large enough — use λ > 0"
    return msg


def _assembly_outcome(model, lam, code: int, rad: float) -> tuple[Status, str]:
    """The one reading of the kernel's assembly codes (``ASSEMBLED`` … ``SINGULAR_SYSTEM`` of
    ``_kernel_template.py``, at a converged response solve): the :class:`Status` reported (every
    failed assembly is ``SINGULAR``: no physical solution at this point) and the message."""
    k = kernels()
    if code == k.ASSEMBLED:
        return Status.CONVERGED, Status.CONVERGED.message
    messages = {
        k.UNSTABLE: (f"large-step fixed point: the variance equations have no stable solution at ψ1 = "
                     f"{model.psi1:g}, ψ2 = {model.psi2:g}, λ = {lam:g} (spectral radius of the variance map "
                     f"{rad:.12g}; the risk diverges — interpolation threshold with λ → 0?)"),
        k.NONFINITE_RISK: "large-step fixed point: non-finite risk",
        k.NONFINITE_TRAIN: "large-step fixed point: non-finite training error",
        k.NEGATIVE_VARIANCE: "large-step fixed point: negative variance at the solution (no physical solution)",
    }
    return Status.SINGULAR, messages.get(code, "large-step fixed point: singular linear system (Singular matrix)")


def _readout_types(model: GaussianReadoutModel) -> int:
    """K, the number of readout types (the model has K × COLUMN_NODES types with Gaussian columns)."""
    return model.K if math.isinf(model.dimension) else model.K // COLUMN_NODES


def _failed(model, lam, width, lam_c, res: SolverResult, message, status: Status) -> GaussianReadoutRisk:
    """A result with converged=False and NaN numbers (status: the response solver's when it failed,
    else ``Status.SINGULAR``: the responses converged but the variance or mean equations have no
    physical solution)."""
    n, K = model.kappa.size, model.K
    nan_n, nan_K = np.full(n, math.nan), np.full(K, math.nan)
    return GaussianReadoutRisk(
        risk1=math.nan, train_error=math.nan, spike_error=math.nan, width=width, psi1=model.psi1, psi2=model.psi2,
        lam=lam, noise=model.noise, c=model.c, lam_cui=lam_c, r=model.r, gamma=model.gamma,
        kernel_bound=model.kernel_bound, kappa=model.kappa, kappa_weights=model.channel.weights, V=nan_n, q=nan_n,
        omega_bar=nan_n, omega0=nan_n, t=nan_n, psi=nan_n, conditional_error=nan_n, h=model.channel.h,
        h1t=model.channel.h1t, h2t=model.channel.h2t, readout=model.readout.kind, types=_readout_types(model),
        readout_values=model.readout.values, readout_weights=model.readout.weights, bulk=model.features.bulk,
        self_energy=nan_K, type_error=None, type_sequence=(), kappa_nodes=n,
        quadrature_error=model.channel.quadrature_error, mean_rank=0, converged=False,
        status=status, message=message,
        iterations=res.iterations, residual=res.residual, stability_margin=math.nan, initial_columns=model.initial_columns, gradient=model.gradient)


def _result(model, lam, width, lam_c, sol: PathSolution, p: int, k: int) -> GaussianReadoutRisk:
    """The result at ridge index p and width index k of a path solution (raises nothing)."""
    res = _solver_result(sol, p, sol.width_iterations[p, k])
    if not res.converged:
        return _failed(model, lam, width, lam_c, res, _not_converged_message(model, lam, res), res.status)
    sc = sol.scalars(p, k)
    status, message = _assembly_outcome(model, lam, int(sc.code), sc.spectral_radius)
    if status != Status.CONVERGED:
        return _failed(model, lam, width, lam_c, res, message, status)
    ch, f = model.channel, model.features
    n = ch.weights.size
    x = sol.x[p]
    vec = sol.vectors(p, k)
    return GaussianReadoutRisk(
        risk1=sc.risk1, train_error=sc.train_error, spike_error=sc.spike_error, width=width, psi1=model.psi1,
        psi2=model.psi2, lam=lam, noise=model.noise, c=model.c, lam_cui=lam_c, r=model.r, gamma=model.gamma,
        kernel_bound=model.kernel_bound, kappa=ch.kappa, kappa_weights=ch.weights, **vec._asdict(),
        h=ch.h, h1t=ch.h1t, h2t=ch.h2t, readout=model.readout.kind,
        types=_readout_types(model),
        readout_values=model.readout.values, readout_weights=model.readout.weights, bulk=f.bulk,
        self_energy=np.exp(x[n:]), type_error=None, type_sequence=(), kappa_nodes=n,
        quadrature_error=ch.quadrature_error, mean_rank=int(sc.mean_rank), converged=True, status=status,
        message=message, iterations=res.iterations, residual=sc.residual,
        stability_margin=1.0 - sc.spectral_radius, start=x.copy(), initial_columns=model.initial_columns, gradient=model.gradient)


def solve_gaussian_readout_path(model: GaussianReadoutModel, lams, widths=(math.inf,), *, tol: float = 1e-12,
                                max_steps: int = 3000, start=None, starts=None, continuation: bool = True,
                                on_failure: str = "return") -> tuple[tuple[GaussianReadoutRisk, ...], ...]:
    r"""Solve the fixed point at every ridge of ``lams`` (in order) and every width, in one compiled call.

    The responses do not depend on N: each λ is solved once and every width assembled from it.
    Each λ starts from ``start`` (a previous solution's ``start``, used as given) when given, else
    from its entry of ``starts`` (warm starts, e.g. from a coarser resolution: :func:`~.compiled.
    transfer_start`), else — with ``continuation`` — from the previous converged λ, else cold. A
    warm or continued start that fails is retried cold, so no point fails because of its start
    (a converged one differs from the cold solve within the fixed point's tolerance). Returns, for
    each λ, a tuple of results (one per width). ``on_failure="raise"`` raises
    :class:`~asymptotics.errors.ConvergenceError` for the first failed point.
    """
    steps = _check_common(model, tol, max_steps, on_failure)
    lam_list = [check_nonnegative("lam", v) for v in np.atleast_1d(np.asarray(lams, dtype=float))]
    lam_cs = np.array([_lam_cui(model, v) for v in lam_list], dtype=float)
    wlist = [check_width(w) for w in widths]
    if not wlist:
        raise ParameterError("width", widths, "a non-empty list of widths")
    n = model.kappa.size
    if start is not None:
        start = np.asarray(start, dtype=float)
        if start.shape != (n + model.K,):
            raise ParameterError("start", f"shape {start.shape}", f"a previous solution's start, shape ({n + model.K},)")
    if starts is not None:
        starts = list(starts)
        if len(starts) != lam_cs.size or any(x is not None and np.shape(x) != (n + model.K,) for x in starts):
            raise ParameterError("starts", "list", f"one start of shape ({n + model.K},) or None per ridge")
    sol = solve_path(model, lam_cs, np.array(wlist, dtype=float), tol=tol, max_steps=steps, start=start,
                     starts=starts, continuation=continuation, min_margin=MIN_STABILITY_MARGIN)
    out = []
    for p, lam in enumerate(lam_list):
        row = tuple(_result(model, lam, w, float(lam_cs[p]), sol, p, k) for k, w in enumerate(wlist))
        if on_failure == "raise":
            for k, r in enumerate(row):
                if not r.converged:
                    raise ConvergenceError(r.message, _solver_result(sol, p, sol.width_iterations[p, k]))
        out.append(row)
    return tuple(out)


def solve_gaussian_readout(model: GaussianReadoutModel, lam: float, width=math.inf, *, tol: float = 1e-12,
                           max_steps: int = 3000, start=None, on_failure: str = "raise") -> GaussianReadoutRisk:
    r"""Solve the fixed point of a tabulated :class:`GaussianReadoutModel` at Ba's ridge λ.

    Parameters
    ----------
    model : from :func:`gaussian_readout_model`.
    lam : λ ≥ 0, Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² (λ_C = λψ1/ψ2 internally).
    width : N ≥ 1 for the finite-width prediction, ``math.inf`` (default) for the proportional limit.
    tol : residual tolerance of the response system.
    max_steps : iteration limit of the response system (Anderson acceleration).
    start : a previous solution's ``start`` (warm start; the responses do not depend on N).
    on_failure : ``"raise"`` (:class:`~asymptotics.errors.ConvergenceError`) or ``"return"``
        (a result with ``converged=False`` whose numbers are NaN and are written as null).
    """
    (r,), = solve_gaussian_readout_path(model, [lam], [width], tol=tol, max_steps=max_steps, start=start,
                                        continuation=False, on_failure=on_failure)
    return r
