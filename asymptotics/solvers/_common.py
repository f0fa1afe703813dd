"""Helpers shared by the Python solvers: packing of scalar/array problems, the residual test
(|r_i| ≤ atol + rtol·s_i, s_i the size of the terms of component i; see
:mod:`asymptotics.solvers.result`) and failure handling."""

from __future__ import annotations

import numpy as np

from ..errors import ConvergenceError, ParameterError
from .result import CONVERGED, FLOOR_MESSAGE, STATUS_MESSAGES, SolverResult, scaled_residual

__all__ = ["Packed", "pack", "converged", "finish", "scale_function"]


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


def converged(r, s, atol, rtol) -> bool:
    """The residual test: every component ``|r_i| <= atol + rtol·s_i`` (False if non-finite;
    ``s ≥ 0``, as :func:`scale_function` gives it)."""
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(r) <= atol + rtol * s))


def scale_function(packed, scale, args):
    """``s(x)`` on the flat vector: the user's ``scale(x, *args)`` (sizes of the terms of each
    component, checked finite and of the right size), or |x| when ``scale`` is None."""
    if scale is None:
        return np.abs
    if not callable(scale):
        raise ParameterError("scale", scale, "a callable scale(x, *args) or None")
    flat = packed.wrap(scale, args)

    def s(x):
        return np.abs(flat(x)).astype(np.float64)

    return s


def finish(packed, x, r, status, iterations, method, on_failure, s=None, at_floor=False) -> SolverResult:
    """The :class:`SolverResult` of a Python solver (``s``: the scales at ``x``, default |x|);
    raises :class:`ConvergenceError` on failure unless ``on_failure="return"``."""
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    scale = np.abs(x) if s is None else s
    res = SolverResult(
        value=packed.unpack(x),
        converged=status == CONVERGED,
        iterations=int(iterations),
        residual=scaled_residual(r, scale) if r is not None else float("inf"),
        method=method,
        message=FLOOR_MESSAGE if at_floor else STATUS_MESSAGES[status],
        status=int(status),
        at_roundoff_floor=bool(at_floor),
    )
    if status != CONVERGED and on_failure == "raise":
        raise ConvergenceError(
            f"{method} did not converge after {iterations} iteration(s): {res.message}; "
            f"residual {res.residual:.3g}",
            res,
        )
    return res
