"""Helpers of the one-step results: broadcasting of validated parameter arrays (validated by
:func:`asymptotics.params.check_array`), scalar outputs, ``as_dict``."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from ...errors import ParameterError
from ...params import check_array


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
    psi1 = check_array("psi1", psi1)
    psi2 = check_array("psi2", psi2)
    lam = check_array("lam", lam, "nonnegative")
    eta = check_array("eta", eta, "nonnegative")
    return broadcast_params(psi1=psi1, psi2=psi2, lam=lam, eta=eta)


def as_output(x, scalar: bool):
    """A Python number (bool for a boolean) for scalar inputs, the array otherwise."""
    x = np.asarray(x)
    return x.item() if scalar else x



class AsDict:
    """Mixin of the result dataclasses: ``as_dict()`` → their fields as a dict."""

    def as_dict(self) -> dict:
        return asdict(self)
