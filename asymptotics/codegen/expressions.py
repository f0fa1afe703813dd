r"""Rendering sympy expressions into the bodies of compiled functions (one renderer for all).

:func:`array_function` renders the plain-Python function ``def name(args): …; return out``
(compiled by the template it is rendered into) where ``out`` is a 1-D or 2-D array whose entries
are the given expressions, after the arguments are unpacked into named locals and common
subexpressions are shared (``sympy.cse``); :func:`cse_lines` is the shared step, also used by the
elementwise Newton map (:mod:`asymptotics.codegen.newton_map`).
:func:`equation_terms` and :func:`scale_function` give the size of each equation's terms,
s_i = Σ_k |t_ik| over the terms of F_i = Σ_k t_ik (the arguments of the prepared ``Add``), that
the stopping rule of :mod:`asymptotics.rendering.templates.system_solvers` uses.

>>> import sympy as sp
>>> from asymptotics.rendering.printing import NumbaExprPrinter
>>> x, a = sp.symbols("x a")
>>> pr = NumbaExprPrinter({x: "x_x", a: "p_a"})
>>> print("\n".join(array_function("residual", "x, p", ["    x_x = x[0]", "    p_a = p[0]"],
...                                [x**2 - a], pr, "r", "x.dtype")))
def residual(x, p):
    x_x = x[0]
    p_a = p[0]
    out = np.zeros(1, dtype=x.dtype)
    out[0] = -p_a + x_x**2
    return out
>>> sorted(map(str, equation_terms(x**2 - a))), sorted(map(str, equation_terms(2**40 * (x - a))))
(['-a', 'x**2'], ['-1099511627776*a', '1099511627776*x'])
"""

from __future__ import annotations

import sympy as sp

from ..rendering.printing import prepare

__all__ = ["cse_lines", "array_function", "equation_terms", "scale_function"]


def cse_lines(exprs, printer, tag: str, indent: str = "    "):
    """``(lines, printed)``: assignments of the common subexpressions of ``exprs`` (named
    ``_<tag>0, _<tag>1, …`` and registered with ``printer``) and the printed reduced expressions."""
    repl, reduced = sp.cse(list(exprs), symbols=sp.numbered_symbols(f"_{tag}"), optimizations="basic")
    lines = []
    for s_, e in repl:
        printer._names[s_] = str(s_)
        lines.append(f"{indent}{s_} = {printer.doprint(e)}")
    return lines, [printer.doprint(e) for e in reduced]


def array_function(name, args, unpack, exprs, printer, tag, dtype, shape=None):
    """Source lines of a function returning an array of the given expressions.

    ``exprs`` is a list (a 1-D result of that length) or, with ``shape = (m, n)``, a list of
    ``((i, j), expr)`` pairs (a 2-D result); zero entries are left to ``np.zeros``. ``unpack`` are
    the body's first lines (arguments → named locals); ``dtype`` the result's dtype expression.
    """
    lines = [f"def {name}({args}):", *unpack]
    if shape is None:
        if not exprs:
            return [*lines, f"    return np.zeros(0, dtype={dtype})"]
        pre, printed = cse_lines(exprs, printer, tag)
        lines += pre
        lines.append(f"    out = np.zeros({len(exprs)}, dtype={dtype})")
        lines += [f"    out[{i}] = {s}" for i, (e, s) in enumerate(zip(exprs, printed, strict=True)) if e != 0]
    else:
        pre, printed = cse_lines([e for _, e in exprs], printer, tag)
        lines += pre
        lines.append(f"    out = np.zeros(({shape[0]}, {shape[1]}), dtype={dtype})")
        lines += [f"    out[{i}, {j}] = {s}" for ((i, j), e), s in zip(exprs, printed, strict=True) if e != 0]
    lines.append("    return out")
    return lines


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


def scale_function(name, args, unpack, equations, printer, tag="s", prepared=False):
    """Source lines of the function ``name(args)`` → the float64 array (Σ_k |t_ik|)_i over the
    equations (the size of each equation's terms)."""
    terms = [equation_terms(e, prepared) for e in equations]
    flat = [t for ts in terms for t in ts]
    pre, printed = cse_lines(flat, printer, tag)
    lines = [f"def {name}({args}):", *unpack, *pre,
             f"    out = np.zeros({len(equations)}, dtype=np.float64)"]
    k = 0
    for i, ts in enumerate(terms):
        lines.append(f"    out[{i}] = " + " + ".join(f"abs({printed[k + m]})" for m in range(len(ts))))
        k += len(ts)
    lines.append("    return out")
    return lines
