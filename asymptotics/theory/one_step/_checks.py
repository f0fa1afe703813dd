"""Validation of array-valued parameters (the scalar checks of :mod:`asymptotics.params`, applied
elementwise, naming the first offending value)."""

from __future__ import annotations

from dataclasses import asdict

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


def risk_grid(psi1, psi2, lam, eta):
    """The validated inputs of a risk (ψ1, ψ2 > 0, λ, η ≥ 0) broadcast to a common shape."""
    psi1 = as_param_array("psi1", psi1)
    psi2 = as_param_array("psi2", psi2)
    lam = as_param_array("lam", lam, "nonnegative")
    eta = as_param_array("eta", eta, "nonnegative")
    return broadcast_params(psi1=psi1, psi2=psi2, lam=lam, eta=eta)


def as_output(x, scalar: bool):
    """A Python number (bool for a boolean) for scalar inputs, the array otherwise."""
    x = np.asarray(x)
    return x.item() if scalar else x



class AsDict:
    """Mixin of the result dataclasses: ``as_dict()`` → their fields as a dict."""

    def as_dict(self) -> dict:
        return asdict(self)
