"""Validation of array-valued parameters (the scalar checks of :mod:`asymptotics.params`, applied
elementwise, naming the first offending value)."""

from __future__ import annotations

import numpy as np

from ...errors import ParameterError

_RANGES = {
    "positive": ("> 0 (valid range: (0, inf))", lambda a: a > 0),
    "nonnegative": (">= 0 (valid range: [0, inf))", lambda a: a >= 0),
}


def as_param_array(name: str, value, kind: str = "positive") -> np.ndarray:
    """``value`` as a float64 array, every element finite and in the range ``kind``
    (``positive``, ``nonnegative``); otherwise :class:`ParameterError` naming ``name``."""
    valid, ok = _RANGES[kind]
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(name, value, f"a real number {valid}", "not numeric") from None
    bad = ~(np.isfinite(arr) & ok(arr))
    if np.any(bad):
        v = arr[bad].ravel()[0] if arr.ndim else float(arr)
        raise ParameterError(name, float(v), valid, "not finite" if not np.isfinite(v) else "")
    return arr


def broadcast_params(**arrays):
    """Broadcast the validated arrays to a common shape (a ParameterError on incompatible shapes)."""
    try:
        out = np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = {k: np.shape(v) for k, v in arrays.items()}
        raise ParameterError("grid", shapes, "shapes that broadcast together") from None
    return [np.array(o, dtype=np.float64) for o in out]


def scalar_or_array(x, scalar: bool):
    """Return a Python float for scalar inputs, the array otherwise."""
    if scalar:
        return float(np.asarray(x).reshape(-1)[0]) if np.ndim(x) else float(x)
    return x
