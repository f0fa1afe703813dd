r"""``asy.activation``: an activation together with its Gaussian constants, the command
``asymptotics activation SPEC``.

The object returned **is** an :class:`~asymptotics.activations.Activation` (σ as used, with
``.f``, ``.df``, ``.constants()``, … — it goes wherever an activation goes) and **shows** as the
command's result: ``.rows`` (one row: μ0, μ1, μ2, μ2², E σ², E σ'², Var σ', the Hermite
coefficients c_0..c_12), ``.meta``, ``.to_frame()``, ``.to_json()``, ``.write(path)`` and an HTML
table in a notebook.

>>> import asymptotics as asy
>>> act = asy.activation("tanh")
>>> round(act.rows[0]["mu1"], 6), isinstance(act, asy.Activation)
(0.605706, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..activations import Activation
from ..errors import ParameterError
from ..results import Result, base_meta, record
from .checks import checked
from .errors import option

__all__ = ["activation", "ActivationResult", "METHODS"]

#: Ways to compute the constants: closed forms first, float64 quadrature, mpmath.
METHODS = ("auto", "float64", "mpmath")


@dataclass(frozen=True, eq=False, repr=False)
class ActivationResult(Activation):
    """An :class:`~asymptotics.activations.Activation` that also is the result of the
    ``activation`` command (its Gaussian constants computed by ``method``, on first use)."""

    method: str = "auto"

    @cached_property
    def result(self) -> Result:
        """The command's :class:`~asymptotics.results.Result`: one row of Gaussian constants."""
        c = self.constants(self.method)
        row = {"activation": self.name, "expression": self.text, **record(c)}
        meta = base_meta(command="activation", offset=self.offset, kinks=list(self.kinks))
        return Result(rows=[row], meta=meta)

    @property
    def rows(self) -> list[dict]:
        return self.result.rows

    @property
    def meta(self) -> dict:
        return self.result.meta

    def to_frame(self):
        """The constants as a one-row pandas DataFrame (metadata in ``.attrs``)."""
        return self.result.to_frame()

    def to_json(self, indent: int | None = 2) -> str:
        return self.result.to_json(indent)

    def write(self, path, fmt: str | None = None):
        """Write the constants atomically (format from ``fmt`` or the suffix)."""
        return self.result.write(path, fmt)

    def _repr_html_(self) -> str:
        return self.result._repr_html_()

    def __repr__(self) -> str:
        return f"Activation({self.name!r}, centered={self.centered})"


@checked
def activation(spec, *, center: bool = True, method: str = "auto") -> ActivationResult:
    """An activation from a built-in name (erf, tanh, relu, softplus, sigmoid, sin, linear, gelu,
    silu, he2, he3, quadratic) or a safe expression in ``x``, centred by default (σ − E σ(z)), with
    its Gaussian constants (``asymptotics activation SPEC``).

    Args:
        spec: the name or expression (or an Activation).
        center: centre σ (``False`` keeps the raw function).
        method: how the constants are computed: ``"auto"`` (closed forms first), ``"float64"`` or
            ``"mpmath"``.

    Raises:
        ParameterError: naming ``spec`` when it does not parse or its Gaussian moments are not
            finite, or naming ``method``.
    """
    if method not in METHODS:
        raise ParameterError(option("method"), method, "one of auto, float64, mpmath")
    from ..activations import resolve_activation

    act = resolve_activation(spec, center=center, name=option("spec"))
    return ActivationResult(act.name, act.canonical, act.centered, act.builtin, act.parsed, method)
