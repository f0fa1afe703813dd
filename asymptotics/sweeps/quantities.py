r"""The registry of quantities a sweep can compute: a name → ``fn(params: dict, seed: int) -> dict``.

A quantity is one computation at one parameter point: a Monte-Carlo simulation at one seed, a
theory curve at one point, a Gaussian expectation. The sweep machinery never looks inside: it
validates the parameters against the quantity's declared :class:`Param` schema, derives the seed
from the task's identity, calls ``fn`` on whatever executor runs the task, and stores the returned
``{name: value}`` dictionary as columns of one row.

Built-in entries:

==========================  ===================================================================
``simulate.ba``             one seed of :func:`validation.simulator.simulate` on a ``BaConfig``
``simulate.cui``            one seed of the simulator on a ``CuiConfig``
``simulate.srf``            one seed of the simulator on an ``SRFConfig``
``gaussian.moments``        E f, E z f, E He₂(z) f, E f² for f(z) = σ(a z), z ~ N(0,1), by
                            composite Gauss–Legendre quadrature (deterministic, milliseconds)
``gaussian.monte_carlo``    the same moments estimated from ``samples`` Gaussian draws seeded by
                            the task seed, with standard errors (cost ∝ ``samples``)
==========================  ===================================================================

The simulator entries are *lazy*: ``validation.simulator`` is imported inside the callable (on
the worker) and when the schema is first needed, so the registry imports nothing heavy.

Registering a quantity (for instance a theory function, from its own module or a user script)
is one call::

    from asymptotics.sweeps import Param, register_quantity

    register_quantity(
        "theory.risk",
        "asymptotics.theory.one_step.sweep:risk_point",   # "module:function", imported lazily
        parameters={"student": Param("str"), "teacher": Param("str"), "center": Param("bool", True),
                    "psi1": Param("float"), "psi2": Param("float"), "eta": Param("float"),
                    "lam": Param("float"), "noise": Param("float", 0.0)},
        seeded=False,                 # deterministic: the seed is ignored and seeds must be 1
        description="Prediction risk after one step (Ba et al., Theorem 3)",
    )

``fn`` may be a callable or a ``"module:function"`` string (resolved where the task runs, which
is what a Dask worker needs). It receives the complete parameter dictionary (defaults filled in)
and an ``int`` seed, and returns a flat dictionary of scalars (``float``, ``int``, ``bool``,
``str``) or short lists of numbers. Raising an exception marks that task as failed; the sweep
goes on.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

from ..errors import ParameterError

__all__ = [
    "Param",
    "REQUIRED",
    "Quantity",
    "register_quantity",
    "get_quantity",
    "quantity_names",
    "resolve_callable",
    "simulator_memory_estimate",
    "gaussian_moments",
    "gaussian_monte_carlo",
]


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


@dataclass(frozen=True)
class Quantity:
    """A registered quantity.

    Attributes:
        name: the registry name used in configs (``quantity = "simulate.ba"``).
        fn: ``fn(params, seed) -> dict``, or a ``"module:function"`` string resolved lazily.
        parameters: ``{name: Param}``, or a zero-argument callable returning it (lazy), or
            ``None`` when any parameter names are accepted.
        check: optional ``check(params) -> None`` raising :class:`ParameterError` for an invalid
            point; run on every point before any work starts. May be a ``"module:function"``.
        memory: optional ``memory(params) -> int``, the bytes one task needs (pre-flight
            refusal of tasks that cannot fit under ``--max-memory``).
        seeded: whether the seed changes the result (``False``: deterministic, ``seeds`` must be 1).
        description: one line for listings.
    """

    name: str
    fn: Callable | str
    parameters: Mapping | Callable | None = None
    check: Callable | str | None = None
    memory: Callable | str | None = None
    seeded: bool = True
    description: str = ""
    _schema_cache: dict = field(default_factory=dict, compare=False, repr=False)

    def schema(self) -> dict[str, Param] | None:
        """The parameter schema (resolving a lazy one once)."""
        if "schema" not in self._schema_cache:
            p = self.parameters
            if p is not None and not isinstance(p, Mapping):
                p = resolve_callable(p)() if isinstance(p, str) else p()
            self._schema_cache["schema"] = None if p is None else dict(p)
        return self._schema_cache["schema"]

    def function(self) -> Callable:
        return resolve_callable(self.fn)

    def check_point(self, params: dict) -> None:
        if self.check is not None:
            resolve_callable(self.check)(params)

    def memory_estimate(self, params: dict) -> int | None:
        if self.memory is None:
            return None
        return int(resolve_callable(self.memory)(params))


_REGISTRY: dict[str, Quantity] = {}


def resolve_callable(target: Callable | str) -> Callable:
    """A callable, or the object named by ``"package.module:attribute"``."""
    if callable(target):
        return target
    if not isinstance(target, str) or ":" not in target:
        raise TypeError(f"expected a callable or a 'module:function' string, got {target!r}")
    mod, _, attr = target.partition(":")
    obj = importlib.import_module(mod)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def register_quantity(
    name: str,
    fn: Callable | str,
    *,
    parameters: Mapping | Callable | None = None,
    check: Callable | str | None = None,
    memory: Callable | str | None = None,
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
    if isinstance(parameters, Mapping):
        for k, v in parameters.items():
            if not isinstance(v, Param):
                raise TypeError(f"parameters[{k!r}] must be a Param, got {v!r}")
    q = Quantity(name, fn, parameters, check, memory, bool(seeded), description)
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


# ------------------------------------------------------------------------------------------------
# Built-in, self-contained quantities (used to exercise the machinery; real computations)
# ------------------------------------------------------------------------------------------------
_ACT_PARAMS = {
    "activation": Param("str", doc="built-in activation name or an expression in x"),
    "center": Param("bool", True, doc="centre σ (σ − E σ(z)) before scaling"),
    "scale": Param("float", 1.0, doc="a in f(z) = σ(a z); a > 0"),
}


def _check_activation_point(params: dict) -> None:
    from ..activations import activation
    from ..params import check_int, check_positive

    check_positive("scale", params["scale"])
    if "samples" in params:
        check_int("samples", params["samples"], 2)
    try:
        activation(params["activation"], center=params["center"])
    except ParameterError:
        raise
    except Exception as exc:
        raise ParameterError("activation", params["activation"], "a built-in name or a safe expression in x", str(exc)) from None


def _scaled(params: dict):
    from ..activations import activation

    act = activation(params["activation"], center=bool(params["center"]))
    a = float(params["scale"])
    kinks = tuple(sorted(k / a for k in act.kinks))
    return act, a, kinks


def gaussian_moments(params: dict, seed: int) -> dict:
    r"""Gaussian moments of f(z) = σ(a z), z ~ N(0, 1), by composite Gauss–Legendre quadrature
    split at the kinks of f (deterministic; ``seed`` is ignored).

    Returns ``mean`` = E f, ``linear`` = E z f, ``quadratic`` = E (z² − 1) f, ``second_moment``
    = E f² and ``quadrature_error`` (largest difference between two quadrature orders).

    >>> r = gaussian_moments({"activation": "erf", "center": True, "scale": 1.0}, 0)
    >>> round(r["linear"], 12)            # 2a / √(π(1 + 2a²)) at a = 1
    0.651470015871
    """
    import numpy as np

    from ..gaussian import expect

    act, a, kinks = _scaled(params)

    def f(z):
        return act.numpy(a * z)

    out, err = {}, 0.0
    for key, g in (
        ("mean", f),
        ("linear", lambda z: z * f(z)),
        ("quadratic", lambda z: (z * z - 1.0) * f(z)),
        ("second_moment", lambda z: f(z) ** 2),
    ):
        v, e = expect(g, kinks)
        out[key] = v
        err = max(err, e)
    out["quadrature_error"] = float(err)
    if not all(np.isfinite(v) for v in out.values()):
        raise ArithmeticError(f"non-finite Gaussian moment of {act.name} at scale {a}: {out}")
    return out


_MC_CHUNK = 1 << 18


def gaussian_monte_carlo(params: dict, seed: int) -> dict:
    r"""Monte-Carlo estimates of the moments of :func:`gaussian_moments` from ``samples`` draws
    z ~ N(0, 1) generated by ``numpy.random.default_rng(seed)``, in chunks of 2¹⁸ (bounded memory).

    Returns ``mean``, ``linear``, ``quadratic``, ``second_moment`` and their standard errors
    ``*_se`` = sample standard deviation / √samples (the estimates are asymptotically normal, so
    |estimate − exact| / se is a standard-normal z-score).
    """
    import numpy as np

    act, a, _ = _scaled(params)
    n = int(params["samples"])
    rng = np.random.default_rng(int(seed))
    keys = ("mean", "linear", "quadratic", "second_moment")
    s1 = np.zeros(4)
    s2 = np.zeros(4)
    left = n
    while left > 0:
        m = min(left, _MC_CHUNK)
        z = rng.standard_normal(m)
        fz = act.numpy(a * z)
        for i, v in enumerate((fz, z * fz, (z * z - 1.0) * fz, fz * fz)):
            s1[i] += v.sum()  # numpy's pairwise sums: independent of BLAS threading
            s2[i] += (v * v).sum()
        left -= m
    mean = s1 / n
    var = np.maximum(s2 / n - mean**2, 0.0) * n / (n - 1)
    se = np.sqrt(var / n)
    out = {}
    for i, k in enumerate(keys):
        out[k] = float(mean[i])
        out[f"{k}_se"] = float(se[i])
    return out


def _mc_memory(params: dict) -> int:
    m = min(int(params.get("samples", _MC_CHUNK)), _MC_CHUNK)
    return 64 * 2**20 + 8 * m * 8


register_quantity(
    "gaussian.moments",
    gaussian_moments,
    parameters=_ACT_PARAMS,
    check=_check_activation_point,
    seeded=False,
    description="E f, E z f, E (z²−1) f, E f² of f(z) = σ(a z) by quadrature (deterministic)",
)

register_quantity(
    "gaussian.monte_carlo",
    gaussian_monte_carlo,
    parameters={**_ACT_PARAMS, "samples": Param("int", 100_000, doc="number of Gaussian draws (>= 2)")},
    check=_check_activation_point,
    memory=_mc_memory,
    seeded=True,
    description="Monte-Carlo estimate (with standard errors) of the moments of gaussian.moments",
)


# ------------------------------------------------------------------------------------------------
# The simulator (validation.simulator), registered lazily
# ------------------------------------------------------------------------------------------------
_SIM_CLASSES = {"ba": "BaConfig", "cui": "CuiConfig", "srf": "SRFConfig"}


def _sim_class(kind: str):
    try:
        mod = importlib.import_module("validation.simulator")
    except ImportError as exc:
        raise ParameterError(
            "quantity", f"simulate.{kind}", "a quantity whose code can be imported",
            f"validation.simulator could not be imported: {exc}",
        ) from None
    return getattr(mod, _SIM_CLASSES[kind])


_ANNOTATION_KINDS = {"float": "float", "int": "int", "str": "str", "bool": "bool"}


def _kind_of(f: dataclasses.Field) -> str:
    ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
    if ann in _ANNOTATION_KINDS:
        return _ANNOTATION_KINDS[ann]
    if ann:  # unions, tuples, ...: the config class checks the value
        return "any"
    default = f.default if f.default is not dataclasses.MISSING else None
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, float):
        return "float"
    if isinstance(default, int):
        return "int"
    if isinstance(default, str):
        return "str"
    return "any"


@cache
def _sim_schema(kind: str) -> dict:
    cls = _sim_class(kind)
    schema = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:
            default = REQUIRED
        if isinstance(default, tuple):
            default = list(default)
        schema[f.name] = Param(_kind_of(f), default)
    return schema


def _sim_config(kind: str, params: dict):
    cls = _sim_class(kind)
    kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()}
    return cls(**kw)


def _simulate(kind: str, params: dict, seed: int) -> dict:
    """One seed of the simulator: its measurements, their test-set standard errors
    ``<name>_test_se`` and its diagnostics (``ridge_form0``, ``ridge_rcond0``, ...)."""
    import warnings

    from validation.simulator import simulate

    from .tasks import task_threads

    with warnings.catch_warnings():
        # the sweep replicates tasks itself; a single seed per task is intended
        warnings.filterwarnings("ignore", message="one seed")
        res = simulate(_sim_config(kind, params), seeds=1, root_seed=int(seed), blas_threads=task_threads())
    out = {}
    for k, v in dict(res.per_seed[0]).items():
        if k in ("seed", "elapsed_s"):  # the simulator's seed index (0) and its own timer
            continue
        if isinstance(v, (bool, int, float, str)) or v is None:
            out[k] = v
        else:
            try:
                out[k] = float(v)
            except (TypeError, ValueError):
                continue
    return out


def simulate_ba(params: dict, seed: int) -> dict:
    """One seed of the one-step simulator (Ba et al. protocol) at ``BaConfig(**params)``."""
    return _simulate("ba", params, seed)


def simulate_cui(params: dict, seed: int) -> dict:
    """One seed of the simulator (Cui et al. protocol) at ``CuiConfig(**params)``."""
    return _simulate("cui", params, seed)


def simulate_srf(params: dict, seed: int) -> dict:
    """One seed of the spiked random-features simulator at ``SRFConfig(**params)``."""
    return _simulate("srf", params, seed)


def _rounded(x: float) -> int:
    return max(1, int(round(x)))


def simulator_memory_estimate(kind: str, params: dict) -> int:
    r"""A conservative estimate, in bytes, of the memory one simulator task needs.

    With n training samples (two batches in Ba's protocol: one for the step, one for the ridge
    fit), input dimension d, width N (p in Cui's notation) and ``n_test`` test points, the float64
    arrays alive at the peak are the data (n·d per batch, n_test·d), the weights before and after
    the step and the gradient (3·d·N), the features and their derivatives on a batch (2·n·N), the
    test features (n_test·N) and the ridge Gram matrix (min(n, N)²). The estimate is 1.5× their size
    (numpy temporaries) plus 256 MiB for the interpreter, numpy, scipy and numba.
    """
    d = int(params["d"])
    n_test = int(params.get("n_test", 10_000))
    if kind == "ba":
        n, N = _rounded(float(params["psi1"]) * d), _rounded(float(params["psi2"]) * d)
        batches = 2 * n * d
    elif kind == "cui":
        n, N = _rounded(float(params["alpha"]) * d), _rounded(float(params["beta"]) * d)
        n0 = _rounded(float(params["alpha0"]) * d)
        batches = (n + n0) * d + 2 * n0 * N
    else:
        n, N = _rounded(float(params["alpha"]) * d), _rounded(float(params["beta"]) * d)
        batches = n * d
    floats = batches + 3 * d * N + 2 * n * N + min(n, N) ** 2 + n_test * (d + N)
    return int(math.ceil(1.5 * 8 * floats)) + 256 * 2**20


def _sim_memory(kind: str):
    def memory(params: dict) -> int:
        return simulator_memory_estimate(kind, params)

    memory.__name__ = f"memory_{kind}"
    return memory


for _kind, _fn in (("ba", simulate_ba), ("cui", simulate_cui), ("srf", simulate_srf)):
    register_quantity(
        f"simulate.{_kind}",
        _fn,
        parameters=lambda k=_kind: _sim_schema(k),
        check=lambda p, k=_kind: _sim_config(k, p) and None,
        memory=_sim_memory(_kind),
        seeded=True,
        description=f"one seed of validation.simulator.simulate on a {_SIM_CLASSES[_kind]}",
    )
del _kind, _fn


# ------------------------------------------------------------------------------------------------
# Theory quantities (deterministic; resolved lazily on the worker)

_THEORY_ACTS = {"student": Param("str"), "teacher": Param("str"), "center": Param("bool", True)}

register_quantity(
    "theory.one_step.risk",
    "asymptotics.theory.one_step.sweep:risk_point",
    parameters={**_THEORY_ACTS, "psi1": Param("float"), "psi2": Param("float"), "lam": Param("float"),
                "eta": Param("float", 0.0), "noise": Param("float", 0.0), "route": Param("str", "B")},
    seeded=False,
    description="R0, R1, δ and the kernel bound μ2*² after one step at η = Θ(1) (Ba et al.)",
)

register_quantity(
    "theory.one_step.spike",
    "asymptotics.theory.one_step.sweep:spike_point",
    parameters={**_THEORY_ACTS, "psi1": Param("float"), "psi2": Param("float"), "eta": Param("float"),
                "noise": Param("float", 0.0)},
    seeded=False,
    description="BBP threshold η_c, overlaps ⟨u₁,β*⟩², ⟨v₁,a⟩², s₁² after one step",
)
