"""The :class:`Activation` object: one sympy expression, its derivatives, compiled kernels and
Gaussian constants.

An activation is identified by its canonical expression (``sympy.srepr`` of the raw σ; for a
built-in, the table :data:`~.builtins.CANONICAL`) and its centring. A built-in builds its sympy
expression only when something symbolic is needed, so a built-in whose constants are in the cache
is used without importing sympy.

>>> act = activation("tanh")              # centred by default (tanh is odd: nothing changes)
>>> round(act.constants().mu1, 12)
0.605705509602
>>> bool(act.f(0.5) == act.numpy(0.5))    # compiled scalar and numpy paths agree
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import mpmath
import numpy as np

from ..errors import ExpressionError, ParameterError, shorten
from . import constants as _c
from . import constants_cache
from .builtins import CANONICAL, KINKS, PARITY, TEXT, builtin_name

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["Activation", "activation", "find_kinks"]


def find_kinks(expr: sp.Expr) -> tuple[float, ...]:
    """Real points where ``expr`` is not smooth (arguments of Max/Min/Abs/sign/Heaviside vanish)."""
    import sympy as sp

    from .parser import X

    pts: set[float] = set()
    cands = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Max, sp.Min)):
            a = node.args
            cands += [a[i] - a[j] for i in range(len(a)) for j in range(i + 1, len(a))]
        elif isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)):
            cands.append(node.args[0])
        elif isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                if isinstance(cond, sp.core.relational.Relational):
                    cands.append(cond.lhs - cond.rhs)
    for g in cands:
        try:
            sol = sp.solveset(sp.Eq(g, 0), X, domain=sp.S.Reals)
        except Exception:  # pragma: no cover - sympy cannot solve; fall back to no split
            continue
        if isinstance(sol, sp.FiniteSet):
            for s in sol:
                try:
                    pts.add(float(s))
                except TypeError:
                    pass
    return tuple(sorted(pts))


@dataclass(frozen=True)
class Activation:
    """An activation σ, optionally centred (σ̃ = σ − E σ(z)).

    Attributes:
        name: the built-in name, or the user expression as given.
        canonical: ``sympy.srepr`` of the uncentred expression (what equality, hashing and the
            constants cache go by).
        centered: whether the centred function σ − μ0 is used.
        builtin: the canonical built-in name, or ``None`` for a user expression.
        parsed: the parsed user expression (``None`` for a built-in, built on first use).
    """

    name: str
    canonical: str
    centered: bool = True
    builtin: str | None = None
    parsed: sp.Expr | None = None

    # ---- symbolic -------------------------------------------------------------------------
    @cached_property
    def raw(self) -> sp.Expr:
        """The uncentred sympy expression in ``x``."""
        if self.parsed is not None:
            return self.parsed
        from .builtin_expressions import builtin_expression

        return builtin_expression(self.builtin)

    @cached_property
    def offset(self) -> float:
        """The constant subtracted by centring: μ0 of the raw function (0 when not centred)."""
        return self.raw_constants().mu0 if self.centered else 0.0

    @cached_property
    def text(self) -> str:
        """``sympy.sstr`` of the raw expression (for a built-in, the table :data:`~.builtins.TEXT`)."""
        if self.builtin is not None:
            return TEXT[self.builtin]
        import sympy as sp

        return sp.sstr(self.raw)

    @cached_property
    def expr(self) -> sp.Expr:
        """σ as used: the raw expression minus the centring offset."""
        if self.centered and self.offset != 0.0:
            import sympy as sp

            return self.raw - sp.Float(self._offset_exact(), 30)
        return self.raw

    @cached_property
    def derivative_exprs(self) -> tuple[sp.Expr, sp.Expr]:
        """σ' and σ'' as sympy expressions."""
        from .lowering import derivatives

        _, d1, d2 = derivatives(self.raw)
        return d1, d2

    @cached_property
    def kinks(self) -> tuple[float, ...]:
        """Points where σ is not smooth (for a built-in, the table :data:`~.builtins.KINKS`)."""
        return KINKS[self.builtin] if self.builtin is not None else find_kinks(self.raw)

    @property
    def is_odd(self) -> bool:
        """Whether σ(−x) = −σ(x) symbolically."""
        return self.parity == -1

    # ---- compiled and vectorised kernels ---------------------------------------------------
    @cached_property
    def _module(self):
        if self.builtin is not None:
            shifted = self.centered and self.offset != 0.0
            return self._builtin_module(repr(self._offset_exact()) if shifted else "0", lambda: self.expr)
        from .lowering import lower_activation

        return lower_activation(self.expr)

    def _builtin_module(self, offset: str, expression):
        from .builtin_modules import builtin_module

        return builtin_module(self.builtin, offset, expression)

    @property
    def f(self):
        """σ as a scalar ``numba.njit`` function (usable inside compiled kernels)."""
        return self._module.f

    @property
    def df(self):
        """σ' as a scalar ``numba.njit`` function."""
        return self._module.df

    @property
    def d2f(self):
        """σ'' as a scalar ``numba.njit`` function (0 at kinks' distributional parts)."""
        return self._module.d2f

    def specialise(self, template, *, raw: bool = False, prefix: str = "kern", include: tuple = ()):
        """Compiled kernels of a template file specialised to this activation.

        ``template`` is a real Python file (see :mod:`asymptotics.rendering.templates`) whose
        kernels call the placeholders ``sigma``, ``dsigma`` and ``d2sigma``; in the returned
        module they are this activation's compiled σ, σ', σ'' (of the raw, uncentred function
        when ``raw``). The module is rendered once per (template, activation) into the user cache
        and its numba machine code is cached, so a second process starts without compiling.
        This is the one public way for compiled code elsewhere to call an activation.
        ``include``: template files whose kernels are copied in (e.g. the numerics quadrature,
        :data:`asymptotics.numerics.templates.QUADRATURE`).
        """
        module = self._raw_mod if raw else self._module
        bindings = {
            "sigma": (module.__name__, "f"),
            "dsigma": (module.__name__, "df"),
            "d2sigma": (module.__name__, "d2f"),
        }
        origin = f"activation {self.name!r}, centered={self.centered and not raw}"
        return _specialised(Path(template), tuple(sorted(bindings.items())), origin, prefix,
                            tuple(Path(t) for t in include))

    def mpmath(self, raw: bool = False):
        """``(σ, σ')`` as functions of an mpmath number, for high-precision quadrature (of the raw,
        uncentred function when ``raw``; the centred one subtracts μ0 at 30 digits).

        >>> f, df = activation("tanh").mpmath()
        >>> import mpmath
        >>> with mpmath.workdps(30):
        ...     print(f(mpmath.mpf(1)), df(mpmath.mpf(0)))
        0.761594155955764888119458282605 1.0
        """
        module = self._raw_mod if raw else self._module
        return module.f_mp, module.df_mp

    def numpy(self, x):
        """σ(x), vectorised over a numpy array."""
        return self._module.f_np(x)

    def numpy_derivative(self, x):
        """σ'(x), vectorised."""
        return self._module.df_np(x)

    def numpy_second_derivative(self, x):
        """σ''(x), vectorised."""
        return self._module.d2f_np(x)

    # ---- Gaussian constants ---------------------------------------------------------------
    @cached_property
    def _raw_mod(self):
        if self.builtin is not None:
            return self._builtin_module("0", lambda: self.raw)
        from .lowering import lower_activation

        return lower_activation(self.raw)

    @cached_property
    def moments_check(self) -> dict:
        """Proof that E σ(z)² and E σ'(z)² are finite (so every constant is), or a
        :class:`~asymptotics.activations.integrability.MomentError` naming the activation and
        the moment that is not (see :mod:`asymptotics.activations.integrability`). Built-ins are
        known to pass. Run before any constant is computed."""
        if self.builtin is not None:
            return {"builtin": self.builtin}
        import sympy as sp

        from .integrability import MomentError, check_gaussian_moments
        from .parser import X

        m = self._raw_mod
        try:
            d1 = sp.diff(self.raw, X).replace(sp.DiracDelta, lambda *a: sp.Integer(0))
            return check_gaussian_moments(self.raw, d1, m.f_np, m.df_np)
        except MomentError as exc:
            raise MomentError(f"activation {shorten(self.name, 60)}: {exc}") from None

    @lru_cache(maxsize=64)  # noqa: B019 - instances are immutable and few
    def raw_constants(self, method: str = "auto") -> _c.GaussianConstants:
        """Constants of the uncentred function (computed once for the centred and the raw
        activation alike, and kept in the on-disk cache of :mod:`.constants_cache`)."""
        if method not in ("auto", "closed", "float64", "mpmath"):
            raise ValueError(f"method must be one of auto, closed, float64, mpmath (got {method!r})")
        if self.centered:
            return activation(self, center=False).raw_constants(method)
        _ = self.moments_check
        canonical = self.canonical
        cached = constants_cache.load(canonical, method)
        if cached is not None:
            return cached
        out = self._raw_constants(method)
        bad = [k for k, v in out.as_dict().items() if isinstance(v, float) and not math.isfinite(v)]
        if bad or not all(math.isfinite(c) for c in out.hermite):
            raise ExpressionError(
                f"activation {shorten(self.name, 60)}: the Gaussian constant {(bad or ['hermite'])[0]} is not finite"
            )
        constants_cache.store(canonical, method, out)
        return out

    def _raw_constants(self, method: str) -> _c.GaussianConstants:
        m = self._raw_mod
        closed = _c.closed_form_constants(self.builtin) if method in ("auto", "closed") else {}
        if method == "closed" and not closed.get("hermite"):
            raise ExpressionError(f"no closed form for the constants of {self.name!r}")
        singular = tuple(self.moments_check.get("singular_points", ()))
        if method == "mpmath":
            vals = _c.raw_constants(
                None, None, *self.mpmath(raw=True), self.kinks, "mpmath", singular=singular
            )
            return _c.assemble(self._apply_parity(vals), "mpmath", center=False)
        need_quad = not ("hermite" in closed and "mean_sq_derivative" in closed)
        vals = (
            _c.raw_constants(m.f_np, m.df_np, None, None, self.kinks, "float64", singular=singular)
            if need_quad
            else {}
        )
        used_closed = bool(closed)
        for key, v in closed.items():
            vals[key] = [float(c) for c in v] if key == "hermite" else float(v)
        if "hermite" in closed:
            vals["mean_derivative"] = float(closed["mu1"])
            vals.setdefault("error", 0.0)
        label = ("closed" if not need_quad else "closed+float64") if used_closed else "float64"
        return _c.assemble(self._apply_parity(vals), label, center=False)

    @cached_property
    def parity(self) -> int:
        """+1 for an even raw σ, −1 for an odd one, 0 otherwise (decided symbolically; for a
        built-in, the table :data:`~.builtins.PARITY` of that decision)."""
        if self.builtin is not None:
            return PARITY[self.builtin]
        import sympy as sp

        from .parser import X

        if sp.simplify(self.raw.subs(X, -X) + self.raw) == 0:
            return -1
        if sp.simplify(self.raw.subs(X, -X) - self.raw) == 0:
            return 1
        return 0

    def _apply_parity(self, vals: dict) -> dict:
        """Exact zeros from symmetry: odd σ has c_k = 0 for even k (so μ0 = 0), even σ for odd k."""
        if self.parity == 0:
            return vals
        zero_even = self.parity == -1
        h = list(vals["hermite"])
        for k in range(len(h)):
            if (k % 2 == 0) == zero_even:
                h[k] = 0 * h[k]
        vals = dict(vals, hermite=h, mu0=h[0], mu1=h[1])
        if self.parity == 1:
            vals["mean_derivative"] = 0 * vals.get("mean_derivative", 0.0)
        return vals

    def _offset_exact(self):
        c = self.raw_constants()
        exact = _c.closed_form_constants(self.builtin).get("mu0")
        return exact if exact is not None else c.mu0

    def constants(self, method: str = "auto") -> _c.GaussianConstants:
        """Gaussian constants of σ as used (centred when :attr:`centered`).

        ``method``: ``auto`` (closed forms first), ``closed``, ``float64`` or ``mpmath``.
        """
        raw = self.raw_constants(method)
        return _c.centred(raw) if self.centered else raw

    def as_dict(self) -> dict:
        """Description with constants, for result metadata."""
        return {
            "name": self.name,
            "expression": self.text,
            "centered": self.centered,
            "offset": self.offset,
            **{k: v for k, v in self.constants().as_dict().items() if k != "centered"},
        }

    def __repr__(self) -> str:
        return f"Activation({self.name!r}, centered={self.centered})"

    def __hash__(self):  # consistent with __eq__: the expression and the centring, not the name
        return hash((self.canonical, self.centered))

    def __eq__(self, other):
        return (
            isinstance(other, Activation)
            and self.centered == other.centered
            and self.canonical == other.canonical
        )

    def __getstate__(self):
        """Pickled as its fields only (the compiled modules and other cached values are rebuilt)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def resolve_activation(spec, *, center: bool = True, name: str = "activation") -> Activation:
    """:func:`activation`, with any failure reported as one :class:`ParameterError` naming the
    argument ``name`` (``"--student"`` on the command line, ``"student"`` in the Python API).

    This is the one place where a user's activation is resolved: the CLI, the Python API, the
    theory drivers and the sweeps all call it, so the message is the same everywhere.
    """
    shown = (
        spec if isinstance(spec, str) else spec.name if isinstance(spec, Activation) else type(spec).__name__
    )
    if isinstance(shown, str) and len(shown) > 60:
        shown = shown[:59] + "…"
    try:
        act = activation(spec, center=center)
        _ = act.moments_check
        return act
    except ParameterError:
        raise
    except Exception as exc:  # moment, parse and validation errors, whatever their type
        from .integrability import MomentError

        if isinstance(exc, MomentError):
            detail = str(exc).split(": ", 1)[1] if str(exc).startswith("activation ") else str(exc)
            raise ParameterError(
                name, shown, "an activation with finite Gaussian moments E σ(z)², E σ'(z)²", detail
            ) from None
        raise ParameterError(name, shown, "a built-in name or a safe expression in x", str(exc)) from None


@lru_cache(maxsize=256)
def _specialised(template: Path, bindings: tuple, origin: str, prefix: str, include: tuple = ()):
    from ..rendering.templates import load_template

    return load_template(template, dict(bindings), origin, prefix, include=include)


def activation(spec: str | Activation, center: bool = True) -> Activation:
    """An activation from a built-in name or an expression in ``x``.

    Built-ins: erf, tanh, relu, softplus, sigmoid, sin, linear, gelu, silu, he2, he3, quadratic
    (aliases: identity, swish, logistic). Anything else is parsed safely as an expression.
    Centred by default (σ̃ = σ − E σ(z)); ``center=False`` keeps the raw function.
    """
    if isinstance(spec, Activation):
        if spec.centered == center:
            return spec
        return Activation(spec.name, spec.canonical, center, spec.builtin, spec.parsed)
    if not isinstance(spec, str):
        raise ExpressionError(f"an activation must be a name or an expression string, got {spec!r}")
    return _from_string(spec, center)


@lru_cache(maxsize=128)
def _from_string(spec: str, center: bool) -> Activation:
    """:func:`activation` of a string, cached by the string (an :class:`Activation` given is
    returned as it is, never through a cache keyed by equality, which would swap equal
    activations of different names, such as ``"x"`` and ``"linear"``)."""
    key = builtin_name(spec)
    if key is not None:
        return Activation(key, CANONICAL[key], center, key)
    import sympy as sp

    from .parser import parse_expression

    expr = parse_expression(spec)
    return Activation(spec.strip(), sp.srepr(expr), center, None, expr)


def dual_kernel(act1: Activation, rho, act2: Activation | None = None, method: str = "auto", dps: int = 20):
    r"""Dual kernel k(ρ) = E σ1(u) σ2(v) for unit Gaussians with correlation ρ.

    Closed forms (``auto``/``closed``): erf/erf (2/π) arcsin(2ρ/3); relu/relu
    (√(1−ρ²) + (π − arccos ρ)ρ)/(2π) (minus μ0² when centred). ``float64``: nested composite
    quadrature split at the kinks (v = ρu + √(1−ρ²) w). ``mpmath``: 2-D tanh–sinh (slow).

    Returns a float for scalar ρ and an array otherwise.
    """
    act2 = act1 if act2 is None else act2
    rho_arr = np.atleast_1d(np.asarray(rho, dtype=float))
    if np.any(~np.isfinite(rho_arr)) or np.any(np.abs(rho_arr) > 1):
        from ..errors import ParameterError

        raise ParameterError("rho", rho, "in [-1, 1]")
    same = act1.builtin is not None and act1.builtin == act2.builtin and act1.centered == act2.centered
    out = None
    if method in ("auto", "closed") and same and act1.builtin in ("erf", "relu", "linear"):
        if act1.builtin == "erf":
            out = 2 / np.pi * np.arcsin(2 * rho_arr / 3)
        elif act1.builtin == "linear":
            out = rho_arr.copy()
        else:
            r = np.clip(rho_arr, -1, 1)
            out = (np.sqrt(1 - r**2) + (np.pi - np.arccos(r)) * r) / (2 * np.pi)
            if act1.centered:
                out = out - 1 / (2 * np.pi)
    elif method == "closed":
        raise ExpressionError(f"no closed-form dual kernel for {act1.name}/{act2.name}")
    elif method == "mpmath":
        r1, r2 = act1.mpmath(raw=True)[0], act2.mpmath(raw=True)[0]
        o1, o2 = act1.offset, act2.offset
        vals = []
        for r in rho_arr:
            with mpmath.workdps(dps):
                s = mpmath.sqrt(1 - mpmath.mpf(r) ** 2)
                c = 1 / (2 * mpmath.pi)

                def g(u, w, r=r, s=s, c=c):
                    return (r1(u) - o1) * (r2(r * u + s * w) - o2) * c * mpmath.exp(-(u * u + w * w) / 2)

                vals.append(float(mpmath.quad(g, [-mpmath.inf, 0, mpmath.inf], [-mpmath.inf, 0, mpmath.inf])))
        out = np.array(vals)
    else:
        from ..gaussian import composite_rule

        xu, wu = composite_rule(act1.kinks)
        f1 = act1.numpy(xu)
        vals = []
        for r in rho_arr:
            s = math.sqrt(max(1.0 - r * r, 0.0))
            if s < 1e-12:
                vals.append(float(np.dot(wu, f1 * act2.numpy(r * xu))))
                continue
            if not act2.kinks:
                xw, ww = composite_rule(())
                inner = act2.numpy(r * xu[:, None] + s * xw[None, :]) @ ww
            else:
                inner = np.empty_like(xu)
                for i, u in enumerate(xu):
                    xw, ww = composite_rule(tuple(sorted((k - r * u) / s for k in act2.kinks)))
                    inner[i] = np.dot(ww, act2.numpy(r * u + s * xw))
            vals.append(float(np.dot(wu, f1 * inner)))
        out = np.array(vals)
    return float(out[0]) if np.ndim(rho) == 0 else out
