"""Entry points of the one-step theory for :mod:`asymptotics.sweeps` (``fn(params, seed) -> dict``).

Register with, e.g.::

    from asymptotics.sweeps import Param, register_quantity
    from asymptotics.theory.one_step.sweep import risk_point
    register_quantity(
        "theory.one_step.risk", risk_point,
        parameters={"student": Param("str"), "teacher": Param("str"), "center": Param("bool", True),
                    "psi1": Param("float"), "psi2": Param("float"), "lam": Param("float"),
                    "eta": Param("float", 0.0), "noise": Param("float", 0.0), "route": Param("str", "B")},
        seeded=False)

The theory is deterministic: ``seed`` is ignored.
"""

from __future__ import annotations

__all__ = ["risk_point", "spike_point"]


def _model(params):
    from .model import OneStepModel

    return OneStepModel.from_activations(params["student"], params["teacher"], noise=params.get("noise", 0.0),
                                         center=params.get("center", True))


def risk_point(params: dict, seed: int = 0) -> dict:
    """R0, R1, δ and μ2*² at one point (keys ``psi1, psi2, lam, eta``; optional ``route``, default B)."""
    from .risk import risk

    r = risk(_model(params), params["psi1"], params["psi2"], params["lam"], params.get("eta", 0.0),
             route=params.get("route", "B"))
    out = {"risk0": float(r.risk0), "kernel_bound": float(r.kernel_bound)}
    if r.risk1 is not None:
        out.update(risk1=float(r.risk1), delta=float(r.delta))
    return out


def spike_point(params: dict, seed: int = 0) -> dict:
    """The spike quantities (η_c, overlaps, s₁², ‖W₁ᵀβ*‖²) at one point (keys ``psi1, psi2, eta``)."""
    import math

    from .spike import spike

    s = spike(_model(params), params["psi1"], params["psi2"], params["eta"])
    return {"eta_threshold": s.eta_threshold if math.isfinite(s.eta_threshold) else None,
            "overlap_beta": s.overlap_beta, "overlap_a": s.overlap_a, "top_sv2": s.top_sv2,
            "teacher_energy": s.teacher_energy, "separated": bool(s.separated)}
