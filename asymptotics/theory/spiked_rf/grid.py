r"""The sRF fixed point on a grid: many models × β × λ × α in one compiled call.

:func:`spiked_rf_grid` solves every curve α ↦ solution (continuation along increasing α, as
:func:`~.fixed_point.spiked_rf_curve`) for every tabulated model (one per (c, r, γ), i.e. per
(η̃, α0) of the network) and every (β, λ), with the compiled curve kernel of
``_solver_template.py``, which releases the GIL: the curves run on ``threads`` threads, each curve
sequential, so the numbers do not depend on the number of threads and equal those of
:func:`~.fixed_point.spiked_rf_curve` point by point. A progress callback is called as curves
finish.

One readout type with the Marchenko–Pastur prior (the default); K types and finite spectra go
through :func:`~.fixed_point.spiked_rf_curve`.

>>> import numpy as np
>>> from asymptotics.theory.spiked_rf import channel_model, cui_to_srf, spiked_rf_grid
>>> ms = [channel_model(cui_to_srf(e, 1.0, "tanh", "tanh"), "tanh", "tanh") for e in (0.0, 5.0)]
>>> g = spiked_rf_grid(ms, alphas=[0.5, 1.5, 3.0], betas=[1.0], lams=[0.01])
>>> np.round(g.test_error[:, 0, 0, :], 3)                   # RF row, then η̃ = 5 (docs/spiked-rf.md)
array([[0.412, 0.254, 0.167],
       [0.316, 0.319, 0.191]])
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from ...errors import ParameterError
from ...params import check_nonnegative, check_positive
from ...solvers import Anderson
from .channel import ChannelModel
from .compiled import kernel_tables, point_solution, solver_options
from .kernels import solver_kernels
from .priors import MarchenkoPastur
from .solution import SCALAR_KEYS, SpikedRFSolution

__all__ = ["SpikedRFGrid", "spiked_rf_grid"]


@dataclass(frozen=True)
class SpikedRFGrid:
    r"""Solutions of the sRF fixed point on models × β × λ × α.

    Arrays are indexed ``[model, beta, lam, alpha]`` in the order given.

    Attributes:
        models: the tabulated models (:class:`~.channel.ChannelModel`, one readout type).
        alphas, betas, lams: the grid axes.
        test_error, train_error: ε_g and the training loss (NaN where there is no solution).
        converged: whether a solution exists (solver converged and the assembly succeeded).
        status: the solver's :class:`~asymptotics.solvers.Status` code.
        iterations, residual: Anderson iterations; largest violation of the full fixed point.
        rows, irows: the kernel's rows (every order parameter; see ``_solver_template.py``).
    """

    models: tuple
    alphas: np.ndarray
    betas: np.ndarray
    lams: np.ndarray
    test_error: np.ndarray
    train_error: np.ndarray
    converged: np.ndarray
    status: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray
    rows: np.ndarray
    irows: np.ndarray

    @property
    def shape(self) -> tuple:
        return self.test_error.shape

    def solution(self, i: int, j: int, k: int, a: int, on_failure: str = "return") -> SpikedRFSolution:
        """The :class:`~.solution.SpikedRFSolution` of model i, β_j, λ_k, α_a (as
        :func:`~.fixed_point.solve_spiked_rf` would return it)."""
        return point_solution(self.models[i], float(self.alphas[a]), float(self.betas[j]), float(self.lams[k]),
                              MarchenkoPastur(), self.rows[i, j, k, a], self.irows[i, j, k, a], on_failure)

    def point_values(self) -> dict[str, np.ndarray]:
        """The quantities of :meth:`SpikedRFSolution.as_dict` that vary from point to point, as
        arrays ``[model, beta, lam, alpha]`` under the row names (``alpha, beta, lam, test_error,
        train_error``, the order parameters ``V1 … psihat``, ``iterations, residual,
        stability_margin``): at every point where :attr:`converged` is True, element for element
        the values of ``solution(i, j, k, a).as_dict()`` (elsewhere meaningless). A large grid's
        rows are built from these without a solution object per point."""
        k = solver_kernels()
        M, B, L, A = self.shape
        out = {"alpha": np.broadcast_to(self.alphas, (M, B, L, A)),
               "beta": np.broadcast_to(self.betas[:, None, None], (M, B, L, A)),
               "lam": np.broadcast_to(self.lams[:, None], (M, B, L, A)),
               "test_error": self.rows[..., k.OUT_TEST], "train_error": self.rows[..., k.OUT_TRAIN]}
        for name, key in SCALAR_KEYS:  # the kernel's row index of each order parameter
            out[key] = self.rows[..., getattr(k, "OUT_" + name.upper())]
        out.update(iterations=self.irows[..., 1], residual=self.rows[..., k.OUT_RESIDUAL],
                   stability_margin=self.rows[..., k.OUT_MARGIN])
        return out

    def solutions(self, on_failure: str = "return") -> list[SpikedRFSolution]:
        """Every solution, model-major then β, λ, α (the order of a nested loop)."""
        M, B, L, A = self.shape
        return [self.solution(i, j, k, a, on_failure) for i in range(M) for j in range(B) for k in range(L)
                for a in range(A)]


def spiked_rf_grid(models, alphas, betas, lams, *, tol: float = 1e-12, solver: Anderson | None = None,
                   progress=None, threads: int | None = None) -> SpikedRFGrid:
    r"""Solve the sRF fixed point for every model × β × λ × α (compiled, one thread per curve).

    Parameters
    ----------
    models : :class:`~.channel.ChannelModel` objects of one readout type (e.g. one per η̃).
    alphas, betas, lams : the α = n/d (solved by continuation in increasing order), β = p/d > 0 and
        ridge λ ≥ 0 values.
    tol : residual tolerance (Anderson, ``atol = rtol = tol``), or ``solver`` an Anderson
        configuration.
    progress : optional callable ``progress(done, total)`` called as curves finish (from the
        calling thread).
    threads : number of threads (default: numba's thread count, ``NUMBA_NUM_THREADS``); 1 runs
        the curves in the calling thread.

    Failed points are not raised: ``converged`` is False there and :meth:`SpikedRFGrid.solution`
    gives the reason.
    """
    models = tuple(models)
    for m in models:
        if not isinstance(m, ChannelModel) or m.K != 1:
            raise ParameterError("models", type(m).__name__, "channel models of one readout type (K = 1)")
        if float(np.max(m.mu2_sq)) <= 1e-12 * max(1.0, float(np.max(m.mu1**2))) and 0.0 in np.asarray(lams):
            raise ParameterError("lam", 0.0, "> 0 when the student has no nonlinear part (μ2 ≡ 0)")
    alphas = np.array([check_positive("alpha", a) for a in np.atleast_1d(alphas).tolist()], dtype=float)
    betas = np.array([check_positive("beta", b) for b in np.atleast_1d(betas).tolist()], dtype=float)
    lams = np.array([check_nonnegative("lam", v) for v in np.atleast_1d(lams).tolist()], dtype=float)
    solver = solver or Anderson(memory=4, atol=tol, rtol=tol, max_steps=3000)
    k = solver_kernels()
    M, B, L, A = len(models), betas.size, lams.size, alphas.size
    order = np.argsort(alphas, kind="stable")
    path = np.ascontiguousarray(alphas[order])
    cm, cb, cl = (g.ravel() for g in np.meshgrid(np.arange(M), np.arange(B), np.arange(L), indexing="ij"))
    out = np.empty((cm.size, A, k.N_OUT))
    iout = np.empty((cm.size, A, k.N_IOUT), dtype=np.int64)
    tables = [kernel_tables(m) for m in models]
    options = solver_options(solver)
    empty = np.empty(0)
    mp_prior = (0, empty, empty, empty)

    def curve(j):
        k.solve_curve_scalar(path, float(betas[cb[j]]), float(lams[cl[j]]), tables[cm[j]].kernel_input, mp_prior,
                             empty, False, options, out[j], iout[j])

    total = cm.size
    nthreads = max(1, min(int(threads or numba.get_num_threads()), total))
    if nthreads == 1:
        for j in range(total):
            curve(j)
            if progress is not None:
                progress(j + 1, total)
    else:
        with ThreadPoolExecutor(nthreads) as pool:
            for done, _ in enumerate(pool.map(curve, range(total)), start=1):
                if progress is not None:
                    progress(done, total)
    inv = np.empty_like(order)
    inv[order] = np.arange(A)
    rows = out[:, inv].reshape(M, B, L, A, k.N_OUT)
    irows = iout[:, inv].reshape(M, B, L, A, k.N_IOUT)
    ok = (irows[..., 0] == 0) & (irows[..., 2] == k.ASSEMBLY_OK)
    test = np.where(ok, rows[..., k.OUT_TEST], np.nan)
    train = np.where(ok, rows[..., k.OUT_TRAIN], np.nan)
    resid = np.where(ok, rows[..., k.OUT_RESIDUAL], rows[..., k.OUT_SOLVER_RESIDUAL])
    return SpikedRFGrid(models, alphas, betas, lams, test, train, ok, irows[..., 0].copy(), irows[..., 1].copy(),
                        resid, rows, irows)
