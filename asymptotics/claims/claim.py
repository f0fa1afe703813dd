r"""Claims as data: a quantity of the API, a statement over its output columns, a domain of its
parameters, the activation pairs and the assumptions the paper states (``docs/api/claims.md``).

A :class:`Claim` is checked by :func:`asymptotics.claims.run.check`: the domain is sampled
(scrambled Sobol), the worst samples are refined by a bounded local search, points whose margin is
within the float64 resolution are re-decided at ≥ 30 digits through ``claim.precise``, and the
result is one :class:`ClaimVerdict` per claim.

>>> parse_range("log:0.01:100")
Range(low=0.01, high=100.0, scale='log')
>>> parse_range("0:20")
Range(low=0.0, high=20.0, scale='lin')
>>> parse_range("1,2,4")
(1.0, 2.0, 4.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..errors import ParameterError

__all__ = ["Range", "Domain", "Claim", "PointResult", "ConfirmResult", "ClaimVerdict", "parse_range",
           "QUANTITIES", "VERDICTS", "SCALES"]

#: The API functions a claim may be about (``asymptotics.api``).
QUANTITIES = ("risk", "alignment", "ck_spike", "limits", "spiked_rf", "large_step", "tau_star", "spectrum")
#: A claim's verdicts.
VERDICTS = ("holds", "violated", "undecided", "unresolved points")
SCALES = ("lin", "log")


@dataclass(frozen=True)
class Range:
    """A continuous interval of one parameter.

    Attributes:
        low: the lower end (> 0 on a log scale).
        high: the upper end (≥ low).
        scale: ``"lin"`` (sampled uniformly) or ``"log"`` (sampled uniformly in log).
    """

    low: float
    high: float
    scale: str = "lin"

    def __post_init__(self):
        lo, hi = float(self.low), float(self.high)
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)
        if self.scale not in SCALES:
            raise ParameterError("scale", self.scale, "lin or log")
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi < lo:
            raise ParameterError("range", f"{lo}:{hi}", "finite with low <= high")
        if self.scale == "log" and lo <= 0:
            raise ParameterError("range", f"log:{lo}:{hi}", "> 0 at both ends on a log scale")

    def point(self, u: float) -> float:
        """The parameter at the unit-cube coordinate ``u`` ∈ [0, 1]."""
        u = min(max(float(u), 0.0), 1.0)
        if u in (0.0, 1.0):  # the ends exactly (exp(log(high)) may differ from high by an ulp)
            return self.low if u == 0.0 else self.high
        if self.scale == "log":
            x = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            x = self.low + u * (self.high - self.low)
        return float(min(max(x, self.low), self.high))

    def unit(self, x: float) -> float:
        """The unit-cube coordinate of the parameter value ``x`` (inverse of :meth:`point`)."""
        if self.high == self.low:
            return 0.0
        if self.scale == "log":
            return (math.log(x) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (x - self.low) / (self.high - self.low)


def _number(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ParameterError(name, text, "a number") from None


def parse_range(text, name: str = "range") -> Range | tuple[float, ...]:
    """A range or a grid from its text: ``"log:LOW:HIGH"``, ``"LOW:HIGH"`` (linear), ``"lin:LOW:HIGH"``,
    or a comma list ``"1,2,4"`` (a grid: a tuple of floats); a single number is a one-point grid.
    A :class:`Range`, a number or a sequence of numbers is passed through (as a Range / tuple)."""
    if isinstance(text, Range):
        return text
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return (float(text),)
    if isinstance(text, (list, tuple)):
        return tuple(_number(name, str(v)) for v in text)
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(name, text, "'log:LOW:HIGH', 'LOW:HIGH' or a comma list '1,2,4'")
    s = text.strip()
    if ":" in s:
        parts = [p.strip() for p in s.split(":")]
        scale = "lin"
        if parts[0].lower() in SCALES:
            scale = parts.pop(0).lower()
        if len(parts) != 2:
            raise ParameterError(name, text, "'log:LOW:HIGH', 'LOW:HIGH' or a comma list '1,2,4'")
        return Range(_number(name, parts[0]), _number(name, parts[1]), scale)
    return tuple(_number(name, p.strip()) for p in s.split(","))


def _frozen(mapping) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Domain:
    """Where a claim is asserted.

    Attributes:
        ranges: {parameter: :class:`Range`} — continuous parameters, sampled quasi-randomly.
        grids: {parameter: tuple of values} — discrete parameters, a Cartesian factor of the
            sampling (every sample is evaluated at every grid combination).
    """

    ranges: Mapping[str, Range] = field(default_factory=dict)
    grids: Mapping[str, tuple[float, ...]] = field(default_factory=dict)

    def __post_init__(self):
        ranges = {k: parse_range(v, k) if not isinstance(v, Range) else v for k, v in dict(self.ranges).items()}
        bad = [k for k, v in ranges.items() if not isinstance(v, Range)]
        if bad:
            raise ParameterError(f"ranges[{bad[0]}]", self.ranges[bad[0]], "a Range or 'LOW:HIGH' text")
        grids = {k: tuple(parse_range(v, k)) if not isinstance(v, tuple) else tuple(float(x) for x in v)
                 for k, v in dict(self.grids).items()}
        both = set(ranges) & set(grids)
        if both:
            raise ParameterError("domain", sorted(both), "each parameter either a range or a grid, not both")
        object.__setattr__(self, "ranges", _frozen(ranges))
        object.__setattr__(self, "grids", _frozen(grids))

    @classmethod
    def parse(cls, over: Mapping[str, object]) -> Domain:
        """A domain from ``{name: text}`` as given on the command line (``--over name=TEXT``)."""
        ranges, grids = {}, {}
        for k, v in dict(over).items():
            r = parse_range(v, k)
            (ranges if isinstance(r, Range) else grids)[k] = r
        return cls(ranges=ranges, grids=grids)

    @property
    def names(self) -> tuple[str, ...]:
        """Every parameter of the domain: the ranges first, then the grids."""
        return (*self.ranges, *self.grids)

    def volume_dims(self) -> int:
        """The number of continuous (sampled) dimensions."""
        return len(self.ranges)


@dataclass(frozen=True)
class Claim:
    """One testable statement of a paper.

    Attributes:
        name: a short unique name (the store key and the table's ``claim`` column).
        quantity: the API function evaluated: one of :data:`QUANTITIES`.
        statement: a safe expression over the quantity's output columns (``"delta >= 0"``,
            ``"risk1 >= kernel_bound and risk0 >= kernel_bound"``, ``"increasing(overlap_beta, eta)"``),
            or a callable(rows: list[dict]) -> sequence of margins (positive = holds), one per row.
        domain: the parameters' ranges and grids (:class:`Domain`).
        fixed: fixed keyword arguments of the API function (``{"psi2": 2.0, "noise": 0.1}``).
        activations: the (student, teacher) pairs the claim is asserted for.
        assumptions: what the paper assumes of each pair: ``"odd"``, ``"even"``, ``"smooth"``,
            ``"centred"``, ``"mu1!=0"``, ``"mu1==0"``, ``"mu2!=0"`` — a pair violating one is refused.
        source: the paper, section, theorem.
        tolerance: the relative tolerance of an equality ``a == b``.
        precise: an independent high-precision route ``(params, student, teacher, dps) -> {column:
            mpmath.mpf}`` used to decide points whose margin is within float64 resolution.
        confirm: a network confirmation ``(claim, point, root_seed, target_se) -> ConfirmResult``.
        expected: what the paper says: ``"holds"`` (a violation is a finding) or ``"violated"``.
    """

    name: str
    quantity: str
    statement: str | Callable
    domain: Domain
    fixed: Mapping[str, object] = field(default_factory=dict)
    activations: tuple[tuple[str, str], ...] = (("tanh", "tanh"),)
    assumptions: tuple[str, ...] = ()
    source: str = ""
    tolerance: float = 0.0
    precise: Callable | None = None
    confirm: Callable | None = None
    expected: str = "holds"

    def __post_init__(self):
        if self.quantity not in QUANTITIES:
            raise ParameterError("quantity", self.quantity, "one of " + ", ".join(QUANTITIES))
        if not isinstance(self.name, str) or not self.name.strip():
            raise ParameterError("name", self.name, "a non-empty string")
        if not (isinstance(self.statement, str) or callable(self.statement)):
            raise ParameterError("statement", self.statement, "an expression string or a callable")
        if not isinstance(self.domain, Domain):
            object.__setattr__(self, "domain", Domain.parse(self.domain))
        if self.expected not in ("holds", "violated"):
            raise ParameterError("expected", self.expected, "holds or violated")
        if not (self.tolerance >= 0 and math.isfinite(self.tolerance)):
            raise ParameterError("tolerance", self.tolerance, ">= 0 and finite")
        pairs = tuple((str(a), str(b)) for a, b in self.activations)
        if not pairs:
            raise ParameterError("activations", self.activations, "at least one (student, teacher) pair")
        object.__setattr__(self, "activations", pairs)
        object.__setattr__(self, "assumptions", tuple(self.assumptions))
        object.__setattr__(self, "fixed", _frozen(self.fixed))


@dataclass(frozen=True)
class PointResult:
    """One evaluated point.

    Attributes:
        params: the point's parameters (domain parameters, plus ``student``/``teacher``).
        margin: the signed margin (positive = the statement holds there; NaN if unresolved).
        relative_margin: the margin over the size of the terms compared.
        status: the solver's status (``"converged"`` or the failure's label); anything but
            ``"converged"`` makes the point unresolved.
        values: the output columns the statement used, at this point.
    """

    params: dict
    margin: float
    relative_margin: float
    status: str
    values: dict


@dataclass(frozen=True)
class ConfirmResult:
    """The network's verdict at a counterexample.

    Attributes:
        network_margin: the claim's margin measured on simulated networks.
        se: its standard error over the seeds.
        z: ``network_margin / se`` (negative = the network violates the claim).
        seeds: the number of seeds simulated.
        d: the input dimensions simulated (finite-size extrapolation if several).
        verdict: ``"network violates"``, ``"network holds"`` or ``"inconclusive"``.
        note: how it was measured (one line).
    """

    network_margin: float
    se: float
    z: float
    seeds: int
    d: tuple[int, ...]
    verdict: str
    note: str = ""


@dataclass(frozen=True)
class ClaimVerdict:
    """The verdict on one claim.

    Attributes:
        claim: the claim's name.
        source: the claim's source.
        verdict: one of :data:`VERDICTS`.
        points: the number of points evaluated.
        unresolved: the number of points where the theory did not converge (never support).
        min_relative_margin: the smallest relative margin found (NaN if no point resolved).
        at: the parameters where it was attained (domain parameters, ``student``, ``teacher``).
        value: the margin there (float64).
        precise_value: the margin at ≥ 30 digits (a string), if it was re-decided.
        precise_digits: the precision (digits) of ``precise_value``.
        confirm: the network confirmation, if asked for.
        seconds: the wall time of the check.
        expected: what the paper says (the claim's ``expected``); a verdict that differs from it
            is a **finding** (:attr:`finding`).
        undecided: points within float64 resolution that were not decided.
        note: what else the check found (one line: undecided points, routes missing, …).
        computed: points computed in this run (the others were read from the store).
    """

    claim: str
    source: str
    verdict: str
    points: int
    unresolved: int
    min_relative_margin: float
    at: dict
    value: float
    precise_value: str | None = None
    precise_digits: int | None = None
    confirm: ConfirmResult | None = None
    seconds: float = 0.0
    expected: str = "holds"
    undecided: int = 0
    note: str = ""
    computed: int = 0

    @property
    def finding(self) -> bool:
        """Whether the verdict contradicts the paper (holds ↔ violated)."""
        return {self.verdict, self.expected} == {"holds", "violated"}
