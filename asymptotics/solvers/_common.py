"""Helpers shared by the Python solvers: packing of scalar/array problems, the residual test and
failure handling."""

from __future__ import annotations

import numpy as np

from ..errors import ConvergenceError, ParameterError
from .result import CONVERGED, STATUS_MESSAGES, SolverResult, scaled_residual

__all__ = ["Packed", "pack", "converged", "finish"]


class Packed:
    """A problem variable as a flat numpy vector, remembering how to give it back to the user."""

    def __init__(self, x0):
        arr = np.asarray(x0)
        if arr.dtype.kind not in "biufc":
            raise ParameterError("x0", x0, "a real or complex number or array")
        self.scalar = arr.ndim == 0
        self.shape = arr.shape
        self.complex = arr.dtype.kind == "c"
        self.x = arr.astype(np.complex128 if self.complex else np.float64).ravel().copy()
        if not np.all(np.isfinite(self.x)):
            raise ParameterError("x0", x0, "finite (no NaN or inf)")

    def promote(self, v):
        v = np.asarray(v)
        if v.dtype.kind == "c" and not self.complex:
            self.complex = True
        return v.astype(np.complex128 if self.complex else np.float64).ravel()

    def wrap(self, fun, args):
        """``fun(x, *args)`` on the flat vector, returning a flat vector of the same size."""

        def flat(x):
            xu = x.reshape(self.shape) if not self.scalar else x[0]
            out = self.promote(fun(xu, *args))
            if out.size != x.size:
                raise ParameterError("function output", out.shape, f"the shape of x0, {self.shape}")
            return out

        return flat

    def unpack(self, x):
        if self.scalar:
            v = x[0]
            return complex(v) if self.complex else float(np.real(v))
        return x.reshape(self.shape).copy()


def pack(x0) -> Packed:
    return Packed(x0)


def converged(r, x, atol, rtol) -> bool:
    """The residual test: every component ``|r_i| <= atol + rtol·|x_i|`` (False if non-finite)."""
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(r) <= atol + rtol * np.abs(x)))


def finish(packed, x, r, status, iterations, method, on_failure) -> SolverResult:
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    res = SolverResult(
        value=packed.unpack(x),
        converged=status == CONVERGED,
        iterations=int(iterations),
        residual=scaled_residual(r, x) if r is not None else float("inf"),
        method=method,
        message=STATUS_MESSAGES[status],
        status=int(status),
    )
    if status != CONVERGED and on_failure == "raise":
        raise ConvergenceError(
            f"{method} did not converge after {iterations} iteration(s): {res.message}; "
            f"residual {res.residual:.3g}",
            res,
        )
    return res
