r"""The compiled path of the sRF fixed point: tables in, solution objects out.

One readout type with the Marchenko–Pastur prior or a finite spectrum (the default prior of a
uniform readout) is solved entirely by the kernels of ``_solver_template.py``
(:func:`~.kernels.solver_kernels`): the reduced response system handed to the numerics layer's
Anderson solve, the assembly of every order parameter, the full-system residual, and
continuation along α — the same equations and the same arithmetic as the plain-Python path of
:mod:`.fixed_point`, which remains for K readout types and for other solver configurations.
This module only packs a :class:`~.channel.ChannelModel` into arrays (once per model) and turns
the kernels' rows into :class:`~.solution.SpikedRFSolution` objects with the library's status
codes and messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...solvers import Anderson, SolverResult
from ...solvers.result import CONVERGED, STATUS_MESSAGES, Status
from .channel import ChannelModel, response_conjugates
from .kernels import block_kernels, solver_kernels
from .priors import BlockMarchenkoPastur, FiniteSpectrum, MarchenkoPastur
from .solution import SpikedRFSolution, failed_solution, not_converged_message

__all__ = ["KernelTables", "kernel_tables", "supports", "supports_block", "solve_path", "point_solution",
           "block_path"]


@dataclass(frozen=True, eq=False)
class KernelTables:
    """A one-type :class:`~.channel.ChannelModel` as contiguous float64 arrays on the κ nodes.

    Attributes: w (weights), kappa (nodes), mu0, mu1, mu2 (μ2²), h, h1t, h2t; c the bulk variance,
    noise_var σ_ε².
    """

    w: np.ndarray
    kappa: np.ndarray
    mu0: np.ndarray
    mu1: np.ndarray
    mu2: np.ndarray
    h: np.ndarray
    h1t: np.ndarray
    h2t: np.ndarray
    c: float
    noise_var: float

    @property
    def n(self) -> int:
        return self.w.shape[0]

    @cached_property
    def kernel_input(self) -> tuple:
        """The kernels' ``tables`` input: (w, κ, μ0, μ1, μ2², h, h̃1, h̃2, c, σ_ε²)."""
        return (self.w, self.kappa, self.mu0, self.mu1, self.mu2, self.h, self.h1t, self.h2t, self.c, self.noise_var)


_TABLES: dict[int, tuple[ChannelModel, KernelTables]] = {}


def kernel_tables(model: ChannelModel) -> KernelTables:
    """The arrays of ``model`` (kept for as long as the model lives)."""
    hit = _TABLES.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]

    def flat(a):
        return np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(-1))

    t = KernelTables(flat(model.weights), flat(model.kappa), flat(model.mu0[0]), flat(model.mu1[0]),
                     flat(model.mu2_sq[0]), flat(model.h), flat(model.h1t), flat(model.h2t),
                     float(model.params.bulk[0]), float(model.noise_var))
    if len(_TABLES) > 256:
        _TABLES.clear()
    _TABLES[id(model)] = (model, t)
    return t


def supports(model: ChannelModel, prior, solver) -> bool:
    """Whether the compiled path solves this problem (one type, MP or finite prior, Anderson)."""
    return model.K == 1 and isinstance(prior, (MarchenkoPastur, FiniteSpectrum)) and isinstance(solver, Anderson)


def _prior_arrays(prior) -> tuple:
    """The kernels' ``prior`` input: (kind: 0 MP, 1 finite; eigenvalues, F, H of a finite spectrum)."""
    if isinstance(prior, FiniteSpectrum):
        sp = prior.spectrum
        return (1, np.ascontiguousarray(sp.eigenvalues, dtype=float), np.ascontiguousarray(sp.spike_weights, dtype=float),
                np.ascontiguousarray(sp.orthogonal_weights, dtype=float))
    e = np.empty(0)
    return 0, e, e, e


def solver_options(solver: Anderson) -> tuple:
    """(atol, rtol, min_steps, max_steps, memory, damping, restart) of an Anderson configuration."""
    return (float(solver.atol), float(solver.rtol), int(solver.min_steps), int(solver.max_steps), int(solver.memory),
            float(solver.damping), float(solver.restart_factor))


def solve_path(model: ChannelModel, path, beta: float, lam: float, prior, solver: Anderson, start=None):
    """Solve along the α values ``path`` in the order given (continuation). Returns the kernel's
    rows ``(out, iout)``: floats (N_OUT per point) and (status, iterations, assembly code)."""
    k = solver_kernels()
    t = kernel_tables(model)
    alphas = np.ascontiguousarray(path, dtype=float)
    out = np.empty((alphas.size, k.N_OUT))
    iout = np.empty((alphas.size, k.N_IOUT), dtype=np.int64)
    x0 = np.zeros(2) if start is None else np.ascontiguousarray(start, dtype=float).reshape(2)
    k.solve_curve_scalar(alphas, float(beta), float(lam), t.kernel_input, _prior_arrays(prior), x0, start is not None,
                         solver_options(solver), out, iout)
    return out, iout


def _result(row, irow) -> SolverResult:
    k = solver_kernels()
    status = int(irow[0])
    return SolverResult(value=np.array([row[k.OUT_X0], row[k.OUT_X1]]), converged=status == CONVERGED,
                        iterations=int(irow[1]), residual=float(row[k.OUT_SOLVER_RESIDUAL]), method="anderson",
                        message=STATUS_MESSAGES[status], status=status)


def _assembly_message(code: int, row, alpha, beta, lam) -> str:
    k = solver_kernels()
    if code == k.ASSEMBLY_NEGATIVE_RESPONSE:
        return "sRF fixed point: negative response V(κ) at the solution"
    if code == k.ASSEMBLY_UNSTABLE:
        rad = 1.0 - float(row[k.OUT_MARGIN])
        return (f"sRF fixed point: the variance equations have no stable solution at α = {alpha:g}, β = {beta:g}, "
                f"λ = {lam:g} (spectral radius of the variance map {rad:.12g}; the test error diverges — "
                f"interpolation threshold with λ → 0?)")
    if code == k.ASSEMBLY_NONFINITE:
        name = "test error" if not math.isfinite(row[k.OUT_TEST]) else "training error"
        return f"sRF fixed point: non-finite {name}"
    if code == k.ASSEMBLY_NEGATIVE_VARIANCE:
        return "sRF fixed point: negative variance at the solution (no physical solution)"
    return f"sRF fixed point: singular linear system at α = {alpha:g} (Singular matrix)"


def point_solution(model: ChannelModel, alpha, beta, lam, prior, row, irow, on_failure: str) -> SpikedRFSolution:
    """The :class:`~.solution.SpikedRFSolution` of one kernel row (or its failure: raised as
    :class:`~asymptotics.errors.ConvergenceError` when ``on_failure="raise"``)."""
    k = solver_kernels()
    res = _result(row, irow)
    if not res.converged:
        msg = not_converged_message(alpha, beta, lam, res)
        if on_failure == "raise":
            raise ConvergenceError(msg, res)
        return failed_solution(model, alpha, beta, lam, res, prior, "anderson", msg)
    code = int(irow[2])
    if code == k.ASSEMBLY_SINGULAR_PRIOR:
        raise ParameterError("lam", lam, "> 0 when the student has no nonlinear part (μ2 ≡ 0)",
                             "the prior operator λ + V̂1 Ω + V̂2 is singular")
    if code != k.ASSEMBLY_OK:
        msg = _assembly_message(code, row, alpha, beta, lam)
        if on_failure == "raise":
            raise ConvergenceError(msg, res)
        return failed_solution(model, alpha, beta, lam, res, prior, "anderson", msg)
    one = np.empty((1, 1))

    def vec(j):
        return np.array([row[j]])

    def mat(j):
        m = one.copy()
        m[0, 0] = row[j]
        return m

    return SpikedRFSolution(
        test_error=float(row[k.OUT_TEST]), train_error=float(row[k.OUT_TRAIN]), alpha=alpha, beta=beta, lam=lam,
        noise=math.sqrt(model.noise_var), params=model.params, V1=mat(k.OUT_V1), V2=vec(k.OUT_V2),
        Q1=mat(k.OUT_Q1), Q2=vec(k.OUT_Q2), m=vec(k.OUT_M), t=vec(k.OUT_T), psi=vec(k.OUT_PSI),
        V1hat=mat(k.OUT_V1HAT), V2hat=vec(k.OUT_V2HAT), Q1hat=mat(k.OUT_Q1HAT), q2hat=vec(k.OUT_Q2HAT),
        that=vec(k.OUT_THAT), psihat=vec(k.OUT_PSIHAT), converged=True, status=Status.CONVERGED,
        message=STATUS_MESSAGES[CONVERGED], iterations=res.iterations, residual=float(row[k.OUT_RESIDUAL]),
        method="anderson", prior=prior.name, quadrature_error=model.quadrature_error,
        stability_margin=float(row[k.OUT_MARGIN]), start=res.value,
    )


def supports_block(model: ChannelModel, prior, solver) -> bool:
    """Whether the compiled reduced iteration of K types applies (block MP prior, Anderson)."""
    return isinstance(prior, BlockMarchenkoPastur) and isinstance(solver, Anderson)


def _block_arrays(model: ChannelModel) -> tuple:
    """The block kernel's ``types`` input: (c, π, w, μ1, μ2²)."""
    return (np.ascontiguousarray(model.params.bulk, dtype=float),
            np.ascontiguousarray(model.params.readout.proportions, dtype=float),
            np.ascontiguousarray(model.weights, dtype=float), np.ascontiguousarray(model.mu1, dtype=float),
            np.ascontiguousarray(model.mu2_sq, dtype=float))


def block_path(model: ChannelModel, path, beta: float, lam: float, solver: Anderson, start=None) -> list[SolverResult]:
    """The reduced block system solved along ``path`` by continuation (compiled): one
    :class:`~asymptotics.solvers.SolverResult` per α (value: the packed reduced point). A failed
    start of a solve (the exact block prior at V = 0) raises as the Python path does."""
    k = block_kernels()
    K = model.K
    m = 2 * K + K * (K - 1) // 2
    alphas = np.ascontiguousarray(path, dtype=float)
    X = np.full((alphas.size, m), np.nan)
    iout = np.empty((alphas.size, 3), dtype=np.int64)
    fres = np.empty(alphas.size)
    x0 = np.zeros(m) if start is None else np.ascontiguousarray(start, dtype=float).reshape(m)
    k.solve_curve_block(alphas, float(beta), float(lam), _block_arrays(model), x0, start is not None,
                        solver_options(solver), X, iout, fres)
    out = []
    for p, a in enumerate(alphas):
        st0 = int(iout[p, 2])
        if st0 == k.BAD_PRIOR:
            _, V2h = response_conjugates(model.rule, model.mu1, model.mu2_sq, np.full(model.rule.nodes.size, a / beta))
            raise ParameterError("D", (lam + V2h).tolist(), "> 0 (ridge plus V̂2 of every type)")
        if st0 != CONVERGED:
            inner = SolverResult(value=None, converged=False, iterations=int(iout[p, 1]), residual=float(fres[p]),
                                 method="anderson", message=STATUS_MESSAGES[st0], status=st0)
            raise ConvergenceError(f"anderson did not converge after {inner.iterations} iteration(s): "
                                   f"{inner.message}; residual {inner.residual:.3g}", inner)
        status = int(iout[p, 0])
        out.append(SolverResult(value=X[p].copy(), converged=status == CONVERGED, iterations=int(iout[p, 1]),
                                residual=float(fres[p]), method="anderson", message=STATUS_MESSAGES[status],
                                status=status))
    return out
