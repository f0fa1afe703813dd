r"""The compiled kernels of the large-step fixed point and the call into them.

:func:`kernels` renders ``_kernel_template.py`` (the response map as the problem of the numerics
layer's Anderson, the variance equations and a path over λ with continuation) through
:func:`asymptotics.rendering.templates.load_template` into one module that *includes* the templates
its placeholders name (:data:`INCLUDED`): the numerics layer's small dense linear algebra and
Anderson acceleration, ``_dense_template.py`` (row-blocked dense linear algebra),
``_spectral_template.py`` (extreme eigenvalues, truncated SVD) and ``_mean_block_template.py`` (the
spike–mean block). The module lives in the user cache with its numba machine code, so a second
process starts without compiling; a change in any of these files renames it.
:func:`solve_path` packs a tabulated model and runs the path kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ....numerics.templates import ANDERSON, DENSE_LINALG
from ....rendering.templates import load_template
from .model import GaussianReadoutModel

__all__ = ["kernels", "solve_path", "transfer_start", "PathSolution", "PointScalars", "PointVectors",
           "INCLUDED", "KERNEL_TEMPLATE"]

_HERE = Path(__file__).resolve().parent
#: the template of the fixed point, rendered with :data:`INCLUDED`
KERNEL_TEMPLATE = _HERE / "_kernel_template.py"
#: the templates whose kernels the rendered module includes (each placeholder of the fixed-point
#: template and of these is a kernel or constant of one of them): small dense linear algebra and
#: Anderson acceleration (numerics), row-blocked dense algebra, eigenvalues and truncated SVD, the
#: spike–mean block
INCLUDED = (DENSE_LINALG, ANDERSON, _HERE / "_dense_template.py",
            _HERE / "_spectral_template.py", _HERE / "_mean_block_template.py")

#: singular-value cut of the mean span at N = ∞ (relative to the largest singular value)
MEAN_SPAN_RCOND = 1e-13


@lru_cache(maxsize=1)
def kernels() -> ModuleType:
    """The rendered fixed-point module (compiled on first use, then loaded from the cache)."""
    return load_template(KERNEL_TEMPLATE, {}, "large-step Gaussian-readout fixed point", prefix="ls_fixed",
                         include=INCLUDED)


class PointScalars(NamedTuple):
    """The kernel's scalar output at one (λ, width) point, ``scal[p, k]``, by name (the kernel writes
    them in this order: ``_kernel_template.py``, ``SCAL_SIZE`` entries)."""

    risk1: float
    train_error: float
    spike_error: float
    mean_rank: float
    residual: float
    spectral_radius: float
    #: the assembly outcome (``ASSEMBLED`` … ``SINGULAR_SYSTEM`` of the kernel module)
    code: float


class PointVectors(NamedTuple):
    """The kernel's per-node output at one (λ, width) point, ``vec[p, k]``, by name (rows in this
    order, ``VEC_ROWS`` of them)."""

    V: np.ndarray
    q: np.ndarray
    omega_bar: np.ndarray
    omega0: np.ndarray
    t: np.ndarray
    psi: np.ndarray
    conditional_error: np.ndarray


@dataclass(frozen=True)
class PathSolution:
    """The raw output of the path kernel for P values of λ and W widths.

    Attributes:
        x: the responses (log V, log τ) at each λ, shape (P, n + K).
        status: :class:`~asymptotics.solvers.Status` code of the response solve (P,).
        iterations: its iterations (P,); width_iterations: those reported per width (P, W).
        solve_residual: its scaled residual (P,).
        vec: (P, W, 7, n): V, q, ω̄, ω0, t, ψ, E(κ) (NaN where not assembled).
        scal: (P, W, 7): R1, train error, spike error, mean rank, residual, spectral radius, code.
    """

    x: np.ndarray
    status: np.ndarray
    iterations: np.ndarray
    solve_residual: np.ndarray
    vec: np.ndarray
    scal: np.ndarray
    width_iterations: np.ndarray

    def scalars(self, p: int, k: int) -> PointScalars:
        """The scalar output at ridge index p and width index k, by name."""
        return PointScalars(*(float(v) for v in self.scal[p, k]))

    def vectors(self, p: int, k: int) -> PointVectors:
        """The per-node output at ridge index p and width index k, by name (copies)."""
        return PointVectors(*(row.copy() for row in self.vec[p, k]))


def _c(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def solve_path(model: GaussianReadoutModel, lam_cui, widths, *, tol: float, max_steps: int, start=None,
               starts=None, continuation: bool = True, min_margin: float) -> PathSolution:
    """Run the compiled fixed point at each Cui ridge λ_C of ``lam_cui`` (in order) and each width.

    ``start``: one start for every point, used as given; ``starts``: one warm start (or ``None``)
    per point, retried from the cold start when it fails."""
    mod = kernels()
    ch, f = model.channel, model.features
    n, K = ch.weights.size, f.K
    lam_cui = _c(lam_cui)
    P = lam_cui.size
    x_start = np.zeros((P, n + K))
    kind = np.zeros(P, dtype=np.int64)
    if start is not None:
        x_start[:] = _c(start)
        kind[:] = 1
    elif starts is not None:
        for p, xs in enumerate(starts):
            if xs is not None:
                x_start[p] = xs
                kind[p] = 2
    par = np.array([model.psi1, model.psi2, ch.noise_var], dtype=float)
    out = mod.solve_path(x_start, kind, bool(continuation), _c(ch.weights), _c(model.kappa), _c(ch.mu0),
                         _c(f.mu1), _c(f.mu2_sq), _c(ch.h), _c(ch.h1t), _c(ch.h2t), _c(f.bulk), _c(f.weights), par,
                         lam_cui, _c(widths), float(tol), float(tol), int(max_steps), MEAN_SPAN_RCOND,
                         float(min_margin))
    return PathSolution(*out)


def transfer_start(x, old: GaussianReadoutModel, new: GaussianReadoutModel, lam_cui: float) -> np.ndarray:
    """A warm start for ``new`` from the solution ``x`` of ``old`` (the same ψ1, ψ2, c, σ_ε): new
    readout types get τ(u) from one step of the self-energy map at the old solution (the κ nodes
    must then agree); new κ nodes get log V(κ) interpolated linearly (constant beyond the old nodes)."""
    n_old = old.kappa.size
    x = np.asarray(x, dtype=float)
    if old.K != new.K or not np.array_equal(old.readout.values, new.readout.values):
        if n_old != new.kappa.size:
            raise ValueError("transfer_start: change the readout types and the κ nodes one at a time")
        f, fn = old.features, new.features
        x = kernels().transfer_types(x, _c(old.channel.weights), old.psi1 / old.psi2, float(lam_cui), _c(f.mu1),
                                     _c(f.mu2_sq), _c(f.bulk), _c(f.weights), old.psi2, _c(fn.mu1), _c(fn.bulk))
    if n_old != new.kappa.size:
        x = np.concatenate([np.interp(new.kappa, old.kappa, x[:n_old]), x[n_old:]])
    return x
