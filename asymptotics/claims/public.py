r"""``asy.check``: verify a claim numerically — a statement over a theory function's columns,
searched for counterexamples over a domain (``asymptotics check``; ``docs/api/claims.md``).

It lives in the claims package, which evaluates the API functions (:mod:`.evaluate`), so the
dependency runs one way, claims → api; ``asymptotics.check`` exposes it.

>>> import asymptotics as asy
>>> r = asy.check(quantity="alignment", claim="overlap_beta <= 1", over={"psi1": "log:0.5:20", "eta": "0:10"},
...               fixed={"psi2": 1.5}, samples=64, search=False, store=False)
>>> r.rows[0]["verdict"], r.rows[0]["points"]
('holds', 64)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping

from ..api.checks import checked
from ..api.errors import option
from ..errors import ParameterError
from ..results import Result

__all__ = ["check", "parse_assignments"]


def _number_or_text(text: str):
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return float(text)
    except ValueError:
        return text.strip()


def parse_assignments(items, name: str, numbers: bool = True) -> dict:
    """``{name: value}`` from a mapping or from ``["name=value", …]`` (the command line's
    ``--over``/``--fixed``); with ``numbers`` a value that reads as a number becomes a float, and
    ``true``/``false`` a bool."""
    if items is None:
        return {}
    if isinstance(items, Mapping):
        return dict(items)
    if isinstance(items, str):
        items = [items]
    out = {}
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise ParameterError(option(name), item, "NAME=VALUE, e.g. psi1=log:0.01:100")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k.isidentifier():
            raise ParameterError(option(name), item, "NAME=VALUE with NAME a parameter name")
        out[k] = _number_or_text(v) if numbers else v.strip()
    return out


def _names(value, name: str) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()] if "," in value and "(" not in value else [value]
    if isinstance(value, Iterable):
        return [str(v) for v in value]
    raise ParameterError(option(name), value, "an activation or a list of them")


def _user_claim(quantity, claim, over, fixed, student, teacher, tolerance, name, source):
    from .claim import QUANTITIES, Claim, Domain
    from .precise import PRECISE_ROUTES

    if quantity is None:
        raise ParameterError(option("quantity"), quantity, "one of " + ", ".join(QUANTITIES), "with --claim")
    if quantity not in QUANTITIES:
        raise ParameterError(option("quantity"), quantity, "one of " + ", ".join(QUANTITIES))
    ranges = parse_assignments(over, "over", numbers=False)
    if not ranges:
        raise ParameterError(option("over"), over, "at least one NAME=RANGE, e.g. psi1=log:0.01:100")
    domain = Domain.parse(ranges)
    pairs = tuple(itertools.product(_names(student, "student"), _names(teacher, "teacher")))
    text = claim if isinstance(claim, str) else getattr(claim, "__name__", "callable")
    return Claim(name=name or text, quantity=quantity, statement=claim, domain=domain,
                 fixed=parse_assignments(fixed, "fixed"), activations=pairs, source=source,
                 tolerance=float(tolerance), precise=PRECISE_ROUTES.get(quantity))


@checked
def check(*, quantity: str | None = None, claim: str | Callable | object = None, over=None, fixed=None,
          student="tanh", teacher="tanh", samples: int = 1024, search: bool = True, confirm: bool = False,
          paper=None, seed: int = 0, scheduler=None, store=None, tolerance: float = 0.0, name: str | None = None,
          source: str = "", line: int | None = None) -> Result:
    """Check a claim (or the papers' catalogue) numerically (``asymptotics check``).

    Args:
        quantity: the theory function: risk, alignment, ck_spike, limits, spiked_rf, large_step,
            tau_star, spectrum.
        claim: a statement over its columns (``"delta >= 0"``, ``"risk1 >= kernel_bound"``,
            ``"increasing(overlap_beta, eta)"``), a callable on the result frame returning one
            margin per row (positive = holds), a :class:`~asymptotics.claims.Claim`, or a list of them.
        over: the domain: ``{"psi1": "log:0.01:100", "eta": "0:20", "psi2": "1,2,4"}`` (log range,
            linear range, grid) or ``["psi1=log:0.01:100", …]``.
        fixed: fixed parameters of the function (``{"psi2": 2, "route": "A"}``).
        student, teacher: activations (a name, an expression, or lists: every pair is checked).
        samples: Sobol samples per claim and pair.
        search: refine the worst samples by a local search.
        confirm: simulate the network at a counterexample (claims with a confirmation route).
        paper: ``"ba2022"``, ``"cui2024"`` or a list: check that paper's claims (with ``claim``:
            both).
        seed: the root seed. scheduler: in-process (default), ``processes:N``, ``local:N``, a
            Dask address. store: folder of evaluated points (resume); None: the user cache;
            False: none.
        tolerance: relative tolerance of ``==``. name, source: the claim's name and source.
        line: Sobol points per API call (see :func:`asymptotics.claims.run.check`).

    Returns:
        a :class:`~asymptotics.results.Result`, one row per claim: ``claim, source, verdict,
        expected, finding, points, unresolved, undecided, min_relative_margin, at_<name>…, value,
        precise_value, precise_digits, confirm_z, confirm_verdict, confirm_seeds, seconds, note``.
    """
    from .catalogue import paper_claims
    from .claim import Claim
    from .run import check as run_check
    from .table import verdicts_result

    claims: list = []
    if isinstance(claim, Claim):
        claims.append(claim)
    elif isinstance(claim, (list, tuple)) and claim and all(isinstance(c, Claim) for c in claim):
        claims += list(claim)
    elif claim is not None:
        claims.append(_user_claim(quantity, claim, over, fixed, student, teacher, tolerance, name, source))
    for p in [paper] if isinstance(paper, str) else list(paper or ()):
        claims += list(paper_claims(p))
    if not claims:
        raise ParameterError(option("claim"), claim, "a statement (with --quantity and --over) or --paper NAME")
    verdicts = run_check(claims, samples=samples, search=search, confirm=confirm, root_seed=seed,
                         scheduler=scheduler, store=store, line=line)
    return verdicts_result(verdicts, samples=samples, search=search, seed=seed,
                           scheduler=str(scheduler or "in-process"), claims=[_describe(c) for c in claims])


def _describe(c) -> dict:
    return {"name": c.name, "quantity": c.quantity, "source": c.source,
            "statement": c.statement if isinstance(c.statement, str) else getattr(c.statement, "__name__", "callable"),
            "ranges": {k: [r.low, r.high, r.scale] for k, r in c.domain.ranges.items()},
            "grids": {k: list(v) for k, v in c.domain.grids.items()},
            "fixed": {k: v if isinstance(v, (int, float, str, bool)) else str(v) for k, v in c.fixed.items()},
            "activations": [list(p) for p in c.activations], "assumptions": list(c.assumptions),
            "expected": c.expected}
