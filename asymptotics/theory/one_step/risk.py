r"""R0, R1 and δ at η = Θ(1) by a chosen route (one entry point for users and the CLI).

* ``"A"`` — Mei–Montanari's closed form (:mod:`.risk_mei_montanari`): R0 only;
* ``"B"`` — the ridge deterministic equivalent with the effective ridge κ and the rank-one
  Woodbury correction (:mod:`.risk_deterministic_equivalent`);
* ``"C"`` — the linear pencil: matrix Dyson equations derived by the symbolic engine, source
  traces by implicit differentiation, compiled Newton solver (:mod:`.route_pencil`) — the
  fastest on large grids.

The three are independent derivations of the same limit; the tests check that they agree to
≤ 1e-9 relative (in practice ~1e-13).
"""

from __future__ import annotations

from .model import OneStepModel
from .risk_deterministic_equivalent import RiskResult

__all__ = ["ROUTES", "risk"]

ROUTES = ("A", "B", "C")


def risk(model: OneStepModel, psi1, psi2, lam, eta=0.0, route: str = "B") -> RiskResult:
    """R0(λ), R1(λ), δ (and μ2*²) by ``route`` (``"A"``, ``"B"`` or ``"C"``), broadcast over
    ``psi1, psi2, lam, eta``. Route A returns R0 only (``risk1 = delta = None``)."""
    from ...errors import ParameterError

    r = str(route).upper()
    if r == "A":
        from .risk_mei_montanari import risk as risk_a

        return risk_a(model, psi1, psi2, lam, eta)
    if r == "B":
        from .risk_deterministic_equivalent import risk as risk_b

        return risk_b(model, psi1, psi2, lam, eta)
    if r == "C":
        from .route_pencil import risk as risk_c

        return risk_c(model, psi1, psi2, lam, eta)
    raise ParameterError("route", route, "one of A (Mei–Montanari, R0 only), B (deterministic equivalent), C (pencil)")
