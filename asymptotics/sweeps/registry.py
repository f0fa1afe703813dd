r"""The registry of quantities a sweep can compute: a name → ``fn(params: dict, seed: int) -> dict``.

A quantity is one computation at one parameter point: a Monte-Carlo simulation at one seed, a
theory curve at one point, a Gaussian expectation. The sweep machinery never looks inside: it
validates the parameters against the quantity's declared :class:`Param` schema, derives the seed
from the task's identity, calls ``fn`` on whatever executor runs the task, and stores the returned
``{name: value}`` dictionary as columns of one row.

Registering a quantity (a theory function, from its own module or a user script) is one call::

    from asymptotics.sweeps import Param, register_quantity
    from asymptotics.theory.one_step.sweep import risk_point

    register_quantity(
        "my.risk",
        risk_point,
        parameters={"student": Param("str"), "teacher": Param("str"), "center": Param("bool", True),
                    "psi1": Param("float"), "psi2": Param("float"), "eta": Param("float"),
                    "lam": Param("float"), "noise": Param("float", 0.0)},
        seeded=False,                 # deterministic: the seed is ignored and seeds must be 1
        description="Prediction risk after one step (Ba et al., Theorem 3)",
    )

``fn`` is a callable defined at module level (so that worker processes can import it: ``pickle``
and Dask's ``cloudpickle`` send it by reference). It receives the complete parameter dictionary
(defaults filled in) and an ``int`` seed, and returns a flat dictionary of scalars (``float``,
``int``, ``bool``, ``str``) or short lists of numbers. Raising an exception marks that task as
failed; the sweep goes on.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import ParameterError

__all__ = ["Param", "REQUIRED", "Quantity", "register_quantity", "get_quantity", "quantity_names"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Marker for a parameter without a default.
REQUIRED = _Required()

_KINDS = ("float", "int", "str", "bool", "floats", "strs", "any")


@dataclass(frozen=True)
class Param:
    """One parameter of a quantity.

    Attributes:
        kind: ``float`` (finite real), ``int``, ``str``, ``bool``, ``floats`` (list of finite
            reals), ``strs`` (list of strings) or ``any`` (any TOML value; checked by the
            quantity's ``check``).
        default: the value used when the config does not give one, or :data:`REQUIRED`.
        doc: one line shown by ``asymptotics sweep --list-quantities``.
    """

    kind: str = "any"
    default: object = REQUIRED
    doc: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Param kind must be one of {_KINDS}, got {self.kind!r}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def _callable_or_none(what: str, name: str, obj) -> None:
    if obj is not None and not callable(obj):
        raise TypeError(f"quantity {name!r}: {what} must be a callable (or None), got {obj!r}")


@dataclass(frozen=True)
class Quantity:
    """A registered quantity.

    Attributes:
        name: the registry name used in configs (``quantity = "simulate.ba"``).
        fn: ``fn(params, seed) -> dict``, a module-level function.
        parameters: ``{name: Param}``, or a zero-argument callable returning it (evaluated once,
            when first needed: a schema read from a heavy module stays unimported until then),
            or ``None`` when any parameter names are accepted.
        check: optional ``check(params) -> None`` raising :class:`ParameterError` for an invalid
            point; run on every point before any work starts.
        memory: optional ``memory(params) -> int``, the bytes one task needs (pre-flight
            refusal of tasks that cannot fit under ``--max-memory``).
        cost: optional ``cost(params) -> float``, the floating-point operations of one task; it
            chooses the default thread count (see :func:`asymptotics.sweeps.executors.default_threads`).
        seeded: whether the seed changes the result (``False``: deterministic, ``seeds`` must be 1).
        description: one line for listings.
    """

    name: str
    fn: Callable
    parameters: Mapping | Callable | None = None
    check: Callable | None = None
    memory: Callable | None = None
    cost: Callable | None = None
    seeded: bool = True
    description: str = ""
    _schema_cache: dict = field(default_factory=dict, compare=False, repr=False)

    def schema(self) -> dict[str, Param] | None:
        """The parameter schema (resolving a lazy one once)."""
        if "schema" not in self._schema_cache:
            p = self.parameters
            if p is not None and not isinstance(p, Mapping):
                p = p()
            self._schema_cache["schema"] = None if p is None else dict(p)
        return self._schema_cache["schema"]

    def check_point(self, params: dict) -> None:
        if self.check is not None:
            self.check(params)

    def memory_estimate(self, params: dict) -> int | None:
        return None if self.memory is None else int(self.memory(params))

    def cost_estimate(self, params: dict) -> float | None:
        return None if self.cost is None else float(self.cost(params))


_REGISTRY: dict[str, Quantity] = {}


def register_quantity(
    name: str,
    fn: Callable,
    *,
    parameters: Mapping | Callable | None = None,
    check: Callable | None = None,
    memory: Callable | None = None,
    cost: Callable | None = None,
    seeded: bool = True,
    description: str = "",
    replace: bool = False,
) -> Quantity:
    """Register ``fn`` under ``name`` (see the module docstring). Returns the :class:`Quantity`.

    Registering an existing name raises ``ValueError`` unless ``replace=True``.
    """
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise ValueError(f"a quantity name must be a non-empty string without spaces, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"quantity {name!r} is already registered (pass replace=True to override)")
    if not callable(fn):
        raise TypeError(f"quantity {name!r}: fn must be a callable fn(params, seed) -> dict, got {fn!r}")
    for what, obj in (("check", check), ("memory", memory), ("cost", cost)):
        _callable_or_none(what, name, obj)
    if isinstance(parameters, Mapping):
        for k, v in parameters.items():
            if not isinstance(v, Param):
                raise TypeError(f"parameters[{k!r}] must be a Param, got {v!r}")
    else:
        _callable_or_none("parameters", name, parameters)
    q = Quantity(name, fn, parameters, check, memory, cost, bool(seeded), description)
    _REGISTRY[name] = q
    return q


def quantity_names() -> list[str]:
    """Names of the registered quantities, sorted."""
    return sorted(_REGISTRY)


def get_quantity(name: str) -> Quantity:
    """The registered quantity ``name``; an unknown name raises a :class:`ParameterError` that
    lists the known ones (and the closest match)."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f"did you mean {close[0]!r}?" if close else ""
        raise ParameterError("quantity", name, f"one of {quantity_names()}", hint) from None
