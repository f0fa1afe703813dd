r"""Declarations of finite-size variants: which quantities, at which parameter point, on which ladder,
with which ω.

A :class:`Variant` is plain data plus callables: the parameter point, the :mod:`adapter
<validation.finite_size.adapters>` that simulates it, and one :class:`Quantity` per compared number
with its d → ∞ theory (a callable, evaluated when the verdict is made), optionally a finite-width
theory evaluated at each simulated d, and the exponents ω allowed in value(d) = L + b·d^{-ω}.
The descriptions live in one module per family (:mod:`validation.finite_size.one_step`,
:mod:`~validation.finite_size.spiked_rf`, :mod:`~validation.finite_size.large_step`) and point at
the registry's cases by name (``case``) and at their parameters and theory functions by plain
imports.

>>> q = Quantity("risk0", theory=lambda: 0.33, omegas=(1.0,), target_rel=0.01,
...              omega_reason="finite-size bias of a ridge risk: O(1/d)")
>>> round(q.target(0.33, 2.0), 12)
0.0066
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from asymptotics.errors import ParameterError

from .adapters import Adapter
from .ladder import StudyMode

__all__ = ["Quantity", "Variant", "OMEGA_UNKNOWN"]

#: ω when the theory does not fix it: the candidates 1/2 and 1 (and the two-term model containing both).
OMEGA_UNKNOWN = (0.5, 1.0)


@dataclass(frozen=True)
class Quantity:
    """One compared quantity of a variant.

    Attributes:
        name: the name in the result rows (and the adapter's key unless ``key`` is given).
        theory: ``theory() -> float``: the d → ∞ prediction.
        omegas: the allowed ω (one value when the theory fixes it; :data:`OMEGA_UNKNOWN` otherwise).
        omega_reason: why (shown with the result).
        key: the adapter's output key (default ``name``).
        derive: ``derive(values) -> float`` computing the quantity from the adapter's output of one
            seed (e.g. a difference on common random numbers); overrides ``key``.
        finite_theory: ``finite_theory(d) -> float``: a finite-width theory at the simulated d
            (the verdict then compares every d with it).
        references: ``((name, theory() -> float), …)``: further d → ∞ values reported beside the
            judged theory with the limit's z against each, never judged (e.g. the isotropic
            network → sRF map beside the structured one).
        target_se: target standard error of the mean at each d (absolute), or
        target_rel: … relative to |theory| (``target_floor`` when the theory is 0).
        target_floor: the absolute target used when the relative one would be 0.
        label: axis label of the convergence figure (default ``name``).
        max_terms: 2 allows the second term c·d^{-2ω} (at the smallest ω), 1 forbids it.
    """

    name: str
    theory: Callable[[], float]
    omegas: tuple[float, ...] = OMEGA_UNKNOWN
    omega_reason: str = ""
    key: str | None = None
    derive: Callable[[Mapping], float] | None = None
    finite_theory: Callable[[int], float] | None = None
    references: tuple[tuple[str, Callable[[], float]], ...] = ()
    target_se: float | None = None
    target_rel: float | None = None
    target_floor: float = 1e-3
    label: str = ""
    max_terms: int = 2

    def __post_init__(self):
        if not self.omegas or any(not (w > 0) for w in self.omegas):
            raise ParameterError("omegas", self.omegas, "a non-empty tuple of exponents > 0")
        if self.target_se is None and self.target_rel is None:
            raise ParameterError("target_se", None, "a target standard error (target_se or target_rel)")

    def value(self, out: Mapping) -> float:
        """This quantity from one seed's adapter output."""
        if self.derive is not None:
            return float(self.derive(out))
        k = self.key or self.name
        if k not in out:
            raise KeyError(f"quantity {self.name!r}: the simulation returned no {k!r} (got {sorted(out)})")
        return float(out[k])

    def target(self, theory: float, factor: float = 1.0) -> float:
        """The target standard error at each d (× the mode's ``factor``)."""
        if self.target_se is not None:
            t = self.target_se
        else:
            t = self.target_rel * abs(theory) if math.isfinite(theory) else math.nan
            if not t > 0:
                t = self.target_floor
        return float(t * factor)


@dataclass(frozen=True)
class Variant:
    """The finite-size variant of (a parameter point of) a registry case.

    Attributes:
        name: unique name (``asymptotics validate --finite-size --case NAME`` accepts it or ``case``).
        case: the registry case it belongs to (:data:`validation.registry.REGISTRY`).
        family: ``one_step``, ``spiked_rf`` or ``large_step``.
        description: the point in words.
        params: the adapter's parameter point (a mapping, or a callable returning one: computed
            when first needed, e.g. sRF parameters mapped by the theory).
        adapter: ``run(params, d, seed) -> {name: value}``.
        quantities: the compared quantities.
        dims: ladder per mode name overriding the mode's (e.g. a smaller one for a wide network).
        note: anything the reader of the result must know.
        quick: part of the quick subset (``validate --finite-size --quick`` without ``--case``).
        covers: further registry cases this variant stands for (e.g. a case's quick version).
    """

    name: str
    case: str
    family: str
    description: str
    params: Mapping | Callable[[], Mapping]
    adapter: Adapter
    quantities: tuple[Quantity, ...]
    dims: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    note: str = ""
    quick: bool = False
    covers: tuple[str, ...] = ()

    def __post_init__(self):
        names = [q.name for q in self.quantities]
        if len(set(names)) != len(names):
            raise ValueError(f"variant {self.name}: duplicate quantity names {names}")

    def point(self) -> dict:
        """The parameter point (evaluated if given as a callable)."""
        return dict(self.params() if callable(self.params) else self.params)

    def ladder(self, mode: StudyMode) -> tuple[int, ...]:
        """The dimensions simulated in ``mode``."""
        return tuple(int(d) for d in self.dims.get(mode.name, mode.dims))
