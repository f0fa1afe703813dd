"""The built-in activations' names and what is known of them without sympy: their aliases, their
canonical expressions (the ``sympy.srepr`` text of the expressions of
:mod:`.builtin_expressions`, which keys their cached constants), their ``sympy.sstr`` text, their
parities, their kinks and their limits at ±∞.

The tables are checked against the symbolic computation by ``tests/test_activation_builtins.py``, so
they cannot drift from the expressions.

>>> builtin_name(" Swish "), CANONICAL["tanh"], PARITY["he2"]
('silu', "tanh(Symbol('x', real=True))", 1)
"""

from __future__ import annotations

__all__ = ["NAMES", "ALIASES", "CANONICAL", "TEXT", "PARITY", "KINKS", "LIMITS", "builtin_name"]

_X = "Symbol('x', real=True)"

#: name -> ``sympy.srepr`` of the built-in's (uncentred) expression in ``x``.
CANONICAL: dict[str, str] = {
    "erf": f"erf({_X})",
    "tanh": f"tanh({_X})",
    "relu": f"Max(Integer(0), {_X})",
    "softplus": f"log(Add(exp({_X}), Integer(1)))",
    "sigmoid": f"Pow(Add(Integer(1), exp(Mul(Integer(-1), {_X}))), Integer(-1))",
    "sin": f"sin({_X})",
    "linear": _X,
    "gelu": f"Mul(Rational(1, 2), {_X}, Add(erf(Mul(Rational(1, 2), Pow(Integer(2), Rational(1, 2)), {_X})), Integer(1)))",
    "silu": f"Mul({_X}, Pow(Add(Integer(1), exp(Mul(Integer(-1), {_X}))), Integer(-1)))",
    "he2": f"Add(Pow({_X}, Integer(2)), Integer(-1))",
    "he3": f"Add(Pow({_X}, Integer(3)), Mul(Integer(-1), Integer(3), {_X}))",
    "quadratic": f"Pow({_X}, Integer(2))",
}

#: name -> ``sympy.sstr`` of the expression (the text shown in results' metadata).
TEXT: dict[str, str] = {
    "erf": "erf(x)",
    "tanh": "tanh(x)",
    "relu": "Max(0, x)",
    "softplus": "log(exp(x) + 1)",
    "sigmoid": "1/(1 + exp(-x))",
    "sin": "sin(x)",
    "linear": "x",
    "gelu": "x*(erf(sqrt(2)*x/2) + 1)/2",
    "silu": "x/(1 + exp(-x))",
    "he2": "x**2 - 1",
    "he3": "x**3 - 3*x",
    "quadratic": "x**2",
}

#: The built-in names, in the order of :data:`~.builtin_expressions.BUILTINS`.
NAMES: tuple[str, ...] = tuple(CANONICAL)

#: name -> −1 (odd), +1 (even) or 0, as :attr:`~.activation.Activation.parity` decides it symbolically.
PARITY: dict[str, int] = {
    "erf": -1,
    "tanh": -1,
    "relu": 0,
    "softplus": 0,
    "sigmoid": 0,
    "sin": -1,
    "linear": -1,
    "gelu": 0,
    "silu": 0,
    "he2": 1,
    "he3": -1,
    "quadratic": 1,
}

#: name -> the points where the built-in is not smooth (as :func:`~.activation.find_kinks` finds them).
KINKS: dict[str, tuple[float, ...]] = {name: () for name in CANONICAL} | {"relu": (0.0,)}

#: name -> (σ(−∞), σ(+∞)) of the uncentred built-in where finite, else ``None`` (as
#: :func:`asymptotics.theory.large_step.tau_star.activation_limits` decides it with ``sympy.limit``).
LIMITS: dict[str, tuple[float | None, float | None]] = {
    "erf": (-1.0, 1.0),
    "tanh": (-1.0, 1.0),
    "relu": (0.0, None),
    "softplus": (0.0, None),
    "sigmoid": (0.0, 1.0),
    "sin": (None, None),
    "linear": (None, None),
    "gelu": (0.0, None),
    "silu": (0.0, None),
    "he2": (None, None),
    "he3": (None, None),
    "quadratic": (None, None),
}

ALIASES = {"identity": "linear", "id": "linear", "swish": "silu", "logistic": "sigmoid"}


def builtin_name(spec: str) -> str | None:
    """The canonical name of a built-in (or alias), or ``None`` if ``spec`` is not one."""
    key = spec.strip().lower()
    key = ALIASES.get(key, key)
    return key if key in CANONICAL else None
