r"""Declared shapes and dimension ratios: ``--dims "X:n,d; W:d,N"``, ``--ratios "n/d=2, N/d=1.5"``.

Every declared matrix is an independent Gaussian matrix with i.i.d. entries; its shape is a pair
of **dimension names**, all growing proportionally. One dimension, the common denominator of the
ratios, is the reference L; the others are n = r_n·L with r_n the declared ratio (a positive
number, or a scalar expression in parameters such as ``1/phi``, then given a value at
evaluation).

Entries (``entries=``):

* ``"unit"`` (default): entries N(0, v), v = 1 unless declared (``Z:n,N:var=2``). Expressions are
  written as on paper, with the normalisations explicit: ``X.T@X/d + lam*I``.
* ``"scaled"``: entries N(0, v/L) — the convention of the matrix Dyson rule (``docs/engine.md``);
  then ``X.T@X + lam*I`` has a finite limit and no dimension appears in the expression.

>>> D = declare("X:n,d; W:d,N", "n/d=2, N/d=1.5")
>>> D.reference, D.ratios["n"], D.matrices["W"]
('d', 2, ('d', 'N'))
>>> declare("X:n,d", "n/d=1/phi").ratios["n"]
1/phi
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

import sympy

from ...errors import ExpressionError

__all__ = ["Declarations", "declare", "RESERVED", "parse_scalar"]

#: Names with a meaning in expressions (not usable for matrices, dimensions or parameters).
RESERVED = frozenset({"I", "tr", "inv", "sqrt", "exp", "log", "pi", "T"})
ENTRIES = ("unit", "scaled")
_MAX_DECLARATION = 1000


@dataclass(frozen=True)
class Declarations:
    """What the expression may refer to.

    Attributes
    ----------
    matrices : dict name → (rows, cols) dimension names
    variances : dict name → sympy expression v (entries N(0, v) or N(0, v/L))
    ratios : dict dimension → sympy expression r (size r·L; the reference has r = 1)
    reference : str — the reference dimension L
    entries : ``"unit"`` or ``"scaled"`` (see the module docstring)
    """

    matrices: dict
    variances: dict
    ratios: dict
    reference: str
    entries: str = "unit"

    @property
    def dimensions(self) -> tuple:
        return tuple(self.ratios)

    @property
    def parameters(self) -> set:
        """Free symbols of the ratios and variances (parameters given a value at evaluation)."""
        return set().union(
            *(sympy.sympify(e).free_symbols for e in (*self.ratios.values(), *self.variances.values()))
        )

    def as_dict(self) -> dict:
        return {
            "matrices": {k: list(v) for k, v in self.matrices.items()},
            "variances": {k: str(v) for k, v in self.variances.items()},
            "ratios": {k: str(v) for k, v in self.ratios.items()},
            "reference": self.reference,
            "entries": self.entries,
        }


def _identifier(name: str, what: str, text: str) -> str:
    name = name.strip()
    if not name.isidentifier() or name.startswith("_"):
        raise ExpressionError(f"invalid {what} {name!r} in {text!r}: expected a name like X or n")
    if name in RESERVED:
        raise ExpressionError(f"{what} {name!r} is reserved (reserved: {', '.join(sorted(RESERVED))})")
    return name


_SCALAR_FUNCS = {"sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log}
#: the binary operators of a scalar (``^`` is refused: write ``**``)
_SCALAR_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def parse_scalar(text: str, what: str, forbidden=()) -> sympy.Expr:
    """A scalar expression in numbers and parameter names (no matrices), parsed with :mod:`ast`
    (no evaluation); ``forbidden`` names (matrices, dimensions) are refused."""
    text = str(text).strip()
    if not text or len(text) > 200 or "__" in text:
        raise ExpressionError(f"invalid {what} {text!r}: expected a number or a short scalar expression")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {what} {text!r}: {exc.msg}") from None

    def walk(node):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            return (
                sympy.Rational(repr(node.value))
                if isinstance(node.value, float)
                else sympy.Integer(node.value)
            )
        if isinstance(node, ast.Name):
            if node.id in forbidden or node.id in RESERVED or node.id.startswith("_"):
                raise ExpressionError(
                    f"{what} {text!r}: {node.id!r} cannot be used here (a parameter name is needed)"
                )
            return sympy.Symbol(node.id)
        if isinstance(node, ast.BinOp) and type(node.op) in _SCALAR_OPS:
            return _SCALAR_OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = walk(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _SCALAR_FUNCS
            and len(node.args) == 1
            and not node.keywords
        ):
            return _SCALAR_FUNCS[node.func.id](walk(node.args[0]))
        raise ExpressionError(f"{what} {text!r}: {ast.unparse(node)!r} is not allowed in a scalar")

    try:
        return walk(tree.body)
    except (ZeroDivisionError, RecursionError, TypeError, ValueError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"invalid {what} {text!r}: {exc}") from None


def _parts(text: str, sep: str, option: str) -> list[str]:
    """The non-blank ``sep``-separated parts of a declaration (``option`` names it in the error for an
    overlong one)."""
    if len(text) > _MAX_DECLARATION:
        raise ExpressionError(f"{option} longer than {_MAX_DECLARATION} characters")
    return [part for part in text.split(sep) if part.strip()]


def _parse_dims(dims) -> tuple[dict, dict]:
    if isinstance(dims, dict):
        items = []
        for name, spec in dims.items():
            spec = tuple(spec)
            if len(spec) not in (2, 3):
                raise ExpressionError(
                    f"dims[{name!r}] = {spec!r}: expected (rows, cols) or (rows, cols, variance)"
                )
            items.append((name, spec[0], spec[1], spec[2] if len(spec) == 3 else None))
        text = repr(dims)
    else:
        text = str(dims)
        items = []
        for part in _parts(text, ";", "--dims"):
            fields = part.split(":")
            if len(fields) not in (2, 3):
                raise ExpressionError(
                    f"cannot read {part.strip()!r} in --dims: expected NAME:rows,cols[:var=v]"
                )
            shape = fields[1].split(",")
            if len(shape) == 1:
                shape = [shape[0], shape[0]]  # a square matrix: X:n
            if len(shape) != 2:
                raise ExpressionError(
                    f"cannot read {part.strip()!r} in --dims: a shape is two dimensions, rows,cols"
                )
            var = None
            if len(fields) == 3:
                key, _, val = fields[2].partition("=")
                if key.strip() != "var" or not val.strip():
                    raise ExpressionError(
                        f"cannot read {part.strip()!r} in --dims: the third field is var=VALUE"
                    )
                var = val
            items.append((fields[0], shape[0], shape[1], var))
    if not items:
        raise ExpressionError("no matrices declared: --dims needs at least one NAME:rows,cols")
    matrices, variances = {}, {}
    for name, r, c, var in items:
        name = _identifier(str(name), "matrix name", text)
        r, c = _identifier(str(r), "dimension", text), _identifier(str(c), "dimension", text)
        if name in matrices:
            raise ExpressionError(f"matrix {name!r} declared twice in --dims")
        matrices[name] = (r, c)
        variances[name] = sympy.Integer(1) if var is None else var
    dims_used = {d for rc in matrices.values() for d in rc}
    clash = dims_used & set(matrices)
    if clash:
        raise ExpressionError(f"{sorted(clash)[0]!r} is declared both as a matrix and as a dimension")
    for name, var in list(variances.items()):
        if not isinstance(var, sympy.Expr):
            v = var if isinstance(var, str) else repr(var)
            variances[name] = parse_scalar(v, f"variance of {name}", forbidden=set(matrices) | dims_used)
        if variances[name].is_number and not variances[name] > 0:
            raise ExpressionError(f"variance of {name} = {variances[name]}: must be > 0")
    return matrices, variances


def _parse_ratios(ratios, forbidden) -> dict:
    if ratios is None:
        return {}
    if isinstance(ratios, dict):
        pairs = [(str(k), v) for k, v in ratios.items()]
    else:
        pairs = []
        for part in _parts(str(ratios), ",", "--ratios"):
            key, eq, val = part.partition("=")
            if not eq or not val.strip():
                raise ExpressionError(f"cannot read {part.strip()!r} in --ratios: expected n/d=VALUE")
            pairs.append((key, val))
    out = {}
    for key, val in pairs:
        num, slash, den = key.partition("/")
        if not slash:
            raise ExpressionError(f"cannot read ratio {key.strip()!r}: expected NUM/DEN, e.g. n/d=2")
        num, den = num.strip(), den.strip()
        v = val if isinstance(val, sympy.Expr) else parse_scalar(str(val), f"ratio {num}/{den}", forbidden)
        if v.is_number and not (v.is_real and v > 0):
            raise ExpressionError(f"ratio {num}/{den} = {val}: must be a positive number")
        out[(num, den)] = v
    return out


def declare(dims, ratios=None, entries: str = "unit") -> Declarations:
    """Read the declarations (strings as on the command line, or dicts; see the module docstring)."""
    if entries not in ENTRIES:
        raise ExpressionError(f"entries={entries!r}: must be one of {', '.join(ENTRIES)}")
    matrices, variances = _parse_dims(dims)
    dims_used = []
    for rc in matrices.values():
        for d in rc:
            if d not in dims_used:
                dims_used.append(d)
    raw = _parse_ratios(ratios, set(matrices) | set(dims_used))
    dens = {den for _, den in raw}
    if len(dens) > 1:
        raise ExpressionError(
            f"ratios must share one reference dimension (denominator), got {', '.join(sorted(dens))}"
        )
    if raw:
        ref = dens.pop()
    elif len(dims_used) == 1:
        ref = dims_used[0]
    else:
        raise ExpressionError(
            f'the dimensions {", ".join(dims_used)} need ratios: --ratios "{dims_used[0]}/{dims_used[-1]}=..."'
        )
    ratio = {ref: sympy.Integer(1)}
    for (num, den), v in raw.items():
        num = _identifier(num, "dimension", str(ratios))
        if num == ref:
            raise ExpressionError(f"ratio {num}/{den}: a dimension divided by itself")
        if num not in dims_used:
            raise ExpressionError(f"ratio {num}/{den}: {num!r} is not a dimension of a declared matrix")
        if num in ratio:
            raise ExpressionError(f"ratio {num}/{den} given twice")
        ratio[num] = v
    if ref not in dims_used:
        raise ExpressionError(f"reference dimension {ref!r} is not a dimension of a declared matrix")
    missing = [d for d in dims_used if d not in ratio]
    if missing:
        raise ExpressionError(
            f"no ratio for dimension {missing[0]!r}: add {missing[0]}/{ref}=VALUE to --ratios"
        )
    ordered = {d: ratio[d] for d in dims_used}
    return Declarations(matrices, variances, ordered, ref, entries)
