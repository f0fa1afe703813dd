r"""Statements of generated functions, built as ``sympy.codegen.ast`` nodes and printed by the one printer.

Every function printed into a template's placeholders is a
:class:`sympy.codegen.ast.FunctionDefinition` whose body is a :class:`~sympy.codegen.ast.CodeBlock`
of :class:`~sympy.codegen.ast.Assignment` nodes — the arguments unpacked into named locals
(:func:`unpack`), the common subexpressions shared by ``sympy.cse`` (:func:`cse_assignments`), the
results — and a :class:`~sympy.codegen.ast.Return`, printed as a whole by
:class:`~asymptotics.rendering.printing.NumbaExprPrinter`
(:func:`~asymptotics.rendering.printing.function_source`). No line of
generated code is assembled from strings.

* :func:`constants` — the module's constants (``UNKNOWNS = ('g11', 'g22')``, …);
* :func:`tuple_function` — ``def name(args): …; return (e_0, e_1, …)`` (scalar results; route C's
  per-point functions, :mod:`asymptotics.codegen.newton_map`);
* :func:`store_function` — ``def name(args): …; Y[i, k] = e_k`` (results written into an array row);
* :func:`array_function` — ``def name(args): …; out = numpy.zeros(…); out[k] = e_k; return out``
  (the lowered systems, :mod:`asymptotics.codegen.systems`);
* :func:`equation_terms`, :func:`scale_function` — the size of each equation's terms,
  s_i = Σ_k |t_ik| over the terms of F_i = Σ_k t_ik (the arguments of the prepared ``Add``), that
  the stopping rule of :mod:`asymptotics.numerics.templates.newton` uses; the sum is
  accumulated left to right (:func:`size_statements`).

>>> import sympy as sp
>>> from asymptotics.rendering.printing import NumbaExprPrinter
>>> x, a = sp.symbols("x a")
>>> pr = NumbaExprPrinter({x: "x_x", a: "p_a"})
>>> print("\n".join(array_function("residual", "x, p", unpack({x: ("x", 0), a: ("p", 0)}),
...                                [x**2 - a], pr, "r", "x.dtype")))
def residual(x, p):
    x_x = x[0]
    p_a = p[0]
    out = numpy.zeros(1, x.dtype)
    out[0] = -p_a + x_x**2
    return out
>>> sorted(map(str, equation_terms(x**2 - a))), sorted(map(str, equation_terms(2**40 * (x - a))))
(['-a', 'x**2'], ['-1099511627776*a', '1099511627776*x'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp
from sympy.codegen.ast import AddAugmentedAssignment, Assignment, CodeBlock, FunctionCall, Return, String

from ..rendering.printing import Identifier, function_source, prepare

__all__ = ["array", "unpack", "constants", "cse_assignments", "function_source", "tuple_function", "store_function",
           "array_function", "size_statements", "equation_terms", "scale_function"]


def array(name: str, ndim: int = 1) -> sp.IndexedBase:
    """An array of the generated code (an argument such as ``x``, ``P``, ``Y`` or the result
    ``out``); ``name[k]`` / ``name[i, k]`` index it."""
    return sp.IndexedBase(Identifier(name), shape=tuple(Identifier(f"{name}_n{d}") for d in range(ndim)))


def unpack(positions: Mapping) -> list[Assignment]:
    """``symbol = array[k…]`` for each ``symbol → (array name, k, …)``: the arguments unpacked into
    the named locals the expressions are printed with (``"i"`` in a position is the grid index)."""
    out = []
    for sym, (name, *index) in positions.items():
        index = [Identifier(k) if isinstance(k, str) else k for k in index]
        out.append(Assignment(sym, array(name, len(index))[tuple(index)]))
    return out


def constants(printer, values: Mapping) -> str:
    """Module constants ``NAME = value`` (Python data — names, counts — printed as its ``repr``)."""
    return printer.doprint(CodeBlock(*(Assignment(Identifier(k), String(repr(v))) for k, v in values.items())))


def cse_assignments(exprs, tag: str) -> tuple[list[Assignment], list[sp.Expr]]:
    """``(assignments, reduced)``: the common subexpressions of ``exprs`` as assignments to
    ``_<tag>0, _<tag>1, …`` (``sympy.cse``, basic optimisations) and the reduced expressions."""
    repl, reduced = sp.cse(list(exprs), symbols=sp.numbered_symbols(f"_{tag}"), optimizations="basic")
    return [Assignment(s, e) for s, e in repl], list(reduced)


def tuple_function(name: str, args, unpacked: Sequence, exprs, printer, tag: str) -> str:
    """``def name(args)`` → the tuple of ``exprs`` (scalars), after ``unpacked`` and the shared
    subexpressions."""
    pre, reduced = cse_assignments(exprs, tag)
    return function_source(name, args, [*unpacked, *pre, Return(sp.Tuple(*reduced))], printer)


def store_function(name: str, args, unpacked: Sequence, exprs, printer, tag: str, target: str = "Y") -> str:
    """``def name(args)`` writing ``exprs`` into row ``i`` of ``target`` (``Y[i, k] = e_k``)."""
    pre, reduced = cse_assignments(exprs, tag)
    Y, i = array(target, 2), Identifier("i")
    return function_source(name, args, [*unpacked, *pre, *(Assignment(Y[i, k], e) for k, e in enumerate(reduced))],
                           printer)


def array_function(name, args, unpacked, exprs, printer, tag, dtype, shape=None):
    """Source lines of the function ``name(args)`` returning an array of the given expressions.

    ``exprs`` is a list (a 1-D result of that length) or, with ``shape = (m, n)``, a list of
    ``((i, j), expr)`` pairs (a 2-D result); zero entries are left to ``numpy.zeros``.
    ``unpacked`` are the body's first statements (:func:`unpack`); ``dtype`` the result's dtype expression (``"x.dtype"``).
    """
    dims = (len(exprs),) if shape is None else tuple(shape)
    alloc = FunctionCall("numpy.zeros", [sp.Tuple(*dims) if shape is not None else dims[0], Identifier(dtype)])
    if not exprs:
        return function_source(name, args, [*unpacked, Return(alloc)], printer).splitlines()
    pairs = list(enumerate(exprs)) if shape is None else list(exprs)
    pre, reduced = cse_assignments([e for _, e in pairs], tag)
    out = array("out", len(dims))
    stores = [Assignment(out[k], r) for (k, e), r in zip(pairs, reduced, strict=True) if e != 0]
    body = [*unpacked, *pre, Assignment(Identifier("out"), alloc), *stores, Return(Identifier("out"))]
    return function_source(name, args, body, printer).splitlines()


def equation_terms(expr, prepared: bool = False) -> tuple:
    """The terms t_k of F = Σ_k t_k: the arguments of the prepared expression when it is a sum,
    with a product that has a sum among its factors distributed one level (c·(a + b) → ca, cb),
    so that a rescaled equation 2⁴⁰·(…) has the terms of (…); else the expression itself.
    ``prepared``: ``expr`` has already been through :func:`~asymptotics.rendering.printing.prepare`."""
    out = []
    for t in sp.Add.make_args(expr if prepared else prepare(expr)):
        factors = sp.Mul.make_args(t)
        k = next((i for i, f in enumerate(factors) if f.is_Add), None)
        if k is None:
            out.append(t)
            continue
        rest = sp.Mul(*factors[:k], *factors[k + 1 :])
        out += [rest * a for a in factors[k].args]
    return tuple(out)


def size_statements(targets, equations, tag: str = "s", prepared: bool = False) -> list:
    """Statements setting each of ``targets`` to s_i = |t_i0| + |t_i1| + … (the terms of equation
    i, :func:`equation_terms`), summed left to right, the terms' subexpressions shared."""
    terms = [equation_terms(e, prepared) for e in equations]
    pre, reduced = cse_assignments([t for ts in terms for t in ts], tag)
    body, k = list(pre), 0
    for target, ts in zip(targets, terms, strict=True):
        sizes = [sp.Abs(r, evaluate=False) for r in reduced[k : k + len(ts)]]
        body += [Assignment(target, sizes[0]), *(AddAugmentedAssignment(target, s) for s in sizes[1:])]
        k += len(ts)
    return body


def scale_function(name, args, unpacked, equations, printer, tag="s", prepared=False):
    """Source lines of the function ``name(args)`` → the float64 array (Σ_k |t_ik|)_i over the
    equations (the size of each equation's terms)."""
    out = array("out")
    body = [*unpacked,
            Assignment(Identifier("out"), FunctionCall("numpy.zeros", [len(equations), Identifier("numpy.float64")])),
            *size_statements([out[i] for i in range(len(equations))], equations, tag, prepared),
            Return(Identifier("out"))]
    return function_source(name, args, body, printer).splitlines()
