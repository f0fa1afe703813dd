"""Verify a theorem numerically: claims as executable statements, searched for counterexamples
(``docs/api/claims.md``).

:mod:`.claim` (the data), :mod:`.statement` (the safe statement parser), :mod:`.search` (Sobol
sampling and the adversarial search), :mod:`.decide` (high-precision decision near zero),
:mod:`.run` (``check``: executors, resume, verdicts), :mod:`.catalogue` (the papers' claims).
"""

from .claim import (
    QUANTITIES,
    VERDICTS,
    Claim,
    ClaimVerdict,
    ConfirmResult,
    Domain,
    PointResult,
    Range,
    parse_range,
)

__all__ = ["Claim", "ClaimVerdict", "ConfirmResult", "Domain", "PointResult", "Range", "parse_range",
           "QUANTITIES", "VERDICTS", "check"]


def __getattr__(name):
    if name == "check":
        from .run import check

        return check
    raise AttributeError(f"module 'asymptotics.claims' has no attribute {name!r}")
