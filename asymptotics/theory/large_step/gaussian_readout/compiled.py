r"""The compiled kernels of the large-step fixed point and the call into them.

:func:`kernels` renders the two template files of this package through
:func:`asymptotics.codegen.templates.load_template`: ``_dense_template.py`` (small dense linear
algebra) and ``_kernel_template.py`` (the response map, its Anderson loop, the spike–mean block, the
variance equations and a path over λ with continuation), whose placeholders are bound to the first
module. Both live in the user cache with their numba machine code, so a second process starts
without compiling. :func:`solve_path` packs a tabulated model and runs the path kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import numpy as np

from ....codegen.templates import load_template
from .model import GaussianReadoutModel

__all__ = ["kernels", "solve_path", "PathSolution", "DENSE_TEMPLATE", "KERNEL_TEMPLATE"]

#: the template of the dense linear algebra (no placeholders)
DENSE_TEMPLATE = Path(__file__).with_name("_dense_template.py")
#: the template of the fixed point (placeholders bound to the dense module)
KERNEL_TEMPLATE = Path(__file__).with_name("_kernel_template.py")

_DENSE_NAMES = ("cholesky_upper", "forward_rows", "lu_factor", "lu_solve_vec", "lu_solve_rows", "weighted_gram",
                "gram_rows", "matmul", "matmul_tn", "matvec", "rmatvec", "spectral_radius_symmetric",
                "truncated_svd", "spd_solve")

#: singular-value cut of the mean span at N = ∞ (relative to the largest singular value)
MEAN_SPAN_RCOND = 1e-13


@lru_cache(maxsize=1)
def kernels() -> ModuleType:
    """The rendered fixed-point module (compiled on first use, then loaded from the cache)."""
    dense = load_template(DENSE_TEMPLATE, {}, "large-step dense linear algebra", prefix="ls_dense")
    bindings = {name: (dense.__name__, name) for name in _DENSE_NAMES}
    return load_template(KERNEL_TEMPLATE, bindings, "large-step Gaussian-readout fixed point", prefix="ls_fixed")


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


def _c(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def solve_path(model: GaussianReadoutModel, lam_cui, widths, *, tol: float, max_steps: int, start=None,
               continuation: bool = True, min_margin: float) -> PathSolution:
    """Run the compiled fixed point at each Cui ridge λ_C of ``lam_cui`` (in order) and each width."""
    mod = kernels()
    ch, f = model.channel, model.features
    n, K = ch.weights.size, f.K
    x_start = np.zeros(n + K) if start is None else _c(start)
    par = np.array([model.psi1, model.psi2, ch.noise_var], dtype=float)
    out = mod.solve_path(x_start, start is not None, bool(continuation), _c(ch.weights), _c(model.kappa), _c(ch.mu0),
                         _c(f.mu1), _c(f.mu2_sq), _c(ch.h), _c(ch.h1t), _c(ch.h2t), _c(f.bulk), _c(f.weights), par,
                         _c(lam_cui), _c(widths), float(tol), float(tol), int(max_steps), MEAN_SPAN_RCOND,
                         float(min_margin))
    return PathSolution(*out)
