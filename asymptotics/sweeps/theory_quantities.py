r"""Sweep quantities of the theory (deterministic: the seed is ignored and ``seeds`` must be 1):
``theory.one_step.risk`` and ``theory.one_step.spike``.

The theory (sympy, numba, generated modules) is imported inside the functions, on the worker that
runs a task, so that listing or validating a sweep stays fast.
"""

from __future__ import annotations

from .registry import Param, register_quantity

__all__ = ["one_step_risk", "one_step_spike"]

_ACTIVATIONS = {"student": Param("str"), "teacher": Param("str"), "center": Param("bool", True)}


def one_step_risk(params: dict, seed: int = 0) -> dict:
    """R0, R1, δ and the kernel bound μ2*² at one point: :func:`asymptotics.theory.one_step.sweep.risk_point`."""
    from ..theory.one_step.sweep import risk_point

    return risk_point(params, seed)


def one_step_spike(params: dict, seed: int = 0) -> dict:
    """η_c, the overlaps and s₁² at one point: :func:`asymptotics.theory.one_step.sweep.spike_point`."""
    from ..theory.one_step.sweep import spike_point

    return spike_point(params, seed)


register_quantity(
    "theory.one_step.risk",
    one_step_risk,
    parameters={**_ACTIVATIONS, "psi1": Param("float"), "psi2": Param("float"), "lam": Param("float"),
                "eta": Param("float", 0.0), "noise": Param("float", 0.0), "route": Param("str", "B")},
    seeded=False,
    description="R0, R1, δ and the kernel bound μ2*² after one step at η = Θ(1) (Ba et al.)",
)

register_quantity(
    "theory.one_step.spike",
    one_step_spike,
    parameters={**_ACTIVATIONS, "psi1": Param("float"), "psi2": Param("float"), "eta": Param("float"),
                "noise": Param("float", 0.0)},
    seeded=False,
    description="BBP threshold η_c, overlaps ⟨u₁,β*⟩², ⟨v₁,a⟩², s₁² after one step",
)
