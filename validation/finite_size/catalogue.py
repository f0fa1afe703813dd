r"""Every finite-size variant, and their selection by name, registry case, family or the quick subset.

>>> names = [v.name for v in variants(["one-step-ck-outlier"])]
>>> names
['one-step-ck-outlier-psi1-3-eta6', 'one-step-ck-outlier-psi1-2-eta8']
"""

from __future__ import annotations

from asymptotics.errors import ParameterError

from . import large_step, one_step, spiked_rf
from .spec import Variant

__all__ = ["VARIANTS", "variants", "by_name", "covered_cases"]

#: every variant, by family
VARIANTS: tuple[Variant, ...] = (*one_step.VARIANTS, *spiked_rf.VARIANTS, *large_step.VARIANTS)

_BY_NAME = {v.name: v for v in VARIANTS}
if len(_BY_NAME) != len(VARIANTS):  # pragma: no cover - a declaration error
    raise ValueError("two finite-size variants share a name")


def by_name(name: str) -> Variant:
    """The variant called ``name``."""
    if name not in _BY_NAME:
        raise ParameterError("--case", name, "a finite-size variant or registry case (see `validate --finite-size --list`)")
    return _BY_NAME[name]


def covered_cases() -> dict[str, list[str]]:
    """Registry case → the variants standing for it (its own and those that ``cover`` it)."""
    out: dict[str, list[str]] = {}
    for v in VARIANTS:
        for c in (v.case, *v.covers):
            out.setdefault(c, []).append(v.name)
    return out


def variants(names=None, family: str | None = None, quick: bool = False) -> list[Variant]:
    """Variants selected by ``names`` (variant names, or registry case names meaning all their own
    variants), ``family``, and — when ``quick`` and no names are given — the quick subset."""
    out = list(VARIANTS)
    if names:
        cases = covered_cases()
        chosen: list[Variant] = []
        for n in names:
            if n in _BY_NAME:
                picks = [_BY_NAME[n]]
            elif n in cases:
                own = [_BY_NAME[v] for v in cases[n] if _BY_NAME[v].case == n]
                picks = own or [_BY_NAME[v] for v in cases[n]]
            else:
                raise ParameterError("--case", n, "a finite-size variant or a registry case: one of "
                                     + ", ".join(sorted(set(cases) | set(_BY_NAME))))
            chosen += [p for p in picks if p not in chosen]
        out = chosen
    if family:
        out = [v for v in out if v.family == family]
    if quick and not names:
        out = [v for v in out if v.quick]
    return out
