r"""The assumptions a paper states about its activations, checked on each (student, teacher) pair.

An assumption is a name, optionally prefixed by the role it concerns (``student:odd``,
``teacher:mu1!=0``); without a prefix it concerns both functions. Known names:

=============  =====================================================================
``odd``        σ(−x) = −σ(x) (decided symbolically)
``even``       σ(−x) = σ(x)
``smooth``     no kinks (points where σ is not differentiable)
``centred``    E σ(z) = 0 for the function used (the claim's ``center`` is not False,
               or the raw function has μ0 = 0)
``mu1!=0``     μ1 = E[z σ(z)] ≠ 0 (relative to ‖σ‖ = √E σ²: above 1e-12)
``mu1==0``     μ1 = 0 (likewise)
``mu2!=0``     the nonlinear part μ2 ≠ 0
=============  =====================================================================

A pair that violates an assumption is refused with one line naming the pair and the assumption.
"""

from __future__ import annotations

import math

from ..errors import ParameterError

__all__ = ["ASSUMPTIONS", "check_pair"]

_REL = 1e-12


def _odd(a, c):
    return a.parity == -1


def _even(a, c):
    return a.parity == 1


def _smooth(a, c):
    return not a.kinks


def _centred(a, c):
    return a.centered or abs(c.mu0) <= _REL * math.sqrt(max(c.second_moment, 0.0))


def _mu1_nonzero(a, c):
    return abs(c.mu1) > _REL * math.sqrt(max(c.second_moment, 1e-300))


def _mu1_zero(a, c):
    return not _mu1_nonzero(a, c)


def _mu2_nonzero(a, c):
    return c.mu2 > _REL * math.sqrt(max(c.second_moment, 1e-300))


#: {assumption: predicate(activation, constants)}.
ASSUMPTIONS = {"odd": _odd, "even": _even, "smooth": _smooth, "centred": _centred, "centered": _centred,
               "mu1!=0": _mu1_nonzero, "mu1==0": _mu1_zero, "mu2!=0": _mu2_nonzero}


def _parse(item: str) -> tuple[tuple[str, ...], str]:
    text = item.replace(" ", "").lower()
    roles: tuple[str, ...] = ("student", "teacher")
    if ":" in text:
        role, text = text.split(":", 1)
        if role not in roles:
            raise ParameterError("assumptions", item, "NAME or student:NAME or teacher:NAME")
        roles = (role,)
    if text not in ASSUMPTIONS:
        raise ParameterError("assumptions", item, "one of " + ", ".join(sorted(ASSUMPTIONS)))
    return roles, text


def check_pair(claim, student: str, teacher: str) -> None:
    """Refuse (ParameterError, one line) a pair violating one of ``claim.assumptions``."""
    if not claim.assumptions:
        return
    from ..activations import resolve_activation

    center = bool(claim.fixed.get("center", True))
    acts = {"student": resolve_activation(student, center=center, name="student"),
            "teacher": resolve_activation(teacher, center=center, name="teacher")}
    for item in claim.assumptions:
        roles, name = _parse(item)
        for role in roles:
            act = acts[role]
            if not ASSUMPTIONS[name](act, act.constants()):
                raise ParameterError(
                    "activations", f"{student}/{teacher}", "a pair satisfying the claim's assumptions",
                    f"claim {claim.name!r}: the {role} {act.name} is not {name}")
