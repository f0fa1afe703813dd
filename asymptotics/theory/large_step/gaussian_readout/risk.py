r"""The risk R1 after one large step with its resolution checked: :func:`gaussian_readout_risk`.

The answer of :func:`~.solver.solve_gaussian_readout` depends on two discretisations: the K types
of the readout rule and the n Gauss–Hermite nodes in κ. With ``check=True`` both are refined by the
one refinement loop of the large-step theory (:func:`~..refinement.refine`): K ×1.5 until two
successive K agree within ``type_tol``, then n ×2 until two successive κ rules agree within
``kappa_tol``; when a ladder ends first the results are marked ``Status.UNRESOLVED``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ....errors import ConvergenceError, ParameterError
from ....params import check_int, check_positive
from ....solvers import Status
from ..refinement import Check, refine
from .model import DEFAULT_KAPPA_NODES, DEFAULT_TYPES, check_width, gaussian_readout_model
from .result import GaussianReadoutRisk
from .solver import solve_gaussian_readout

__all__ = ["gaussian_readout_risk", "readout_type_sequence"]


def _ladder(start: int, cap: int, factor: float):
    out = [start]
    while out[-1] < cap:
        out.append(min(cap, int(math.ceil(factor * out[-1]))))
    return out


def _as_widths(width):
    if isinstance(width, Sequence) and not isinstance(width, str):
        ws = [check_width(wd) for wd in width]
        if not ws:
            raise ParameterError("width", width, "a non-empty list of widths")
        return ws, False
    return [check_width(width)], True


def _refine(solve_at, ladder, tolerance, what, first=None):
    """Solve along ``ladder`` until two successive levels agree within ``tolerance`` on every risk
    (:func:`~..refinement.refine`; ``first``: the results at ``ladder[0]`` if already known).

    Returns (results at the finer level, differences (one per result) or None, sequence
    [(level, risks)], message when the ladder ends unresolved, else None)."""

    def solve(level, previous):
        return first if first is not None and level == ladder[0] else solve_at(level)

    def check(results, level, finer):
        cur = solve_at(finer)
        if not all(r.converged for r in cur):
            return Check(False, None, cur)
        errs = [abs(a.risk1 - b.risk1) for a, b in zip(cur, results, strict=True)]
        return Check(max(errs) <= tolerance, errs, cur)

    def stop(results):
        failed = [r for r in results if not r.converged]
        return Status(failed[0].status) if failed else None

    ref = refine(solve, ladder, check, stop=stop)
    seq = [(level, [r.risk1 for r in results]) for level, results in ref.sequence]
    if ref.converged:
        return ref.check.finer, ref.check.error, seq, None
    if ref.status != Status.UNRESOLVED:  # a solve failed: its results carry the reason
        return ref.answer, None, seq, None
    return ref.answer, None, seq, (f"large-step risk: no convergence in the {what} up to {ladder[-1]} "
                                   f"(risks {seq}; tolerance {tolerance:g})")


def gaussian_readout_risk(student, teacher, psi1: float, psi2: float, lam: float, *, c: float = 1.0,
                          noise: float = 0.0, width=math.inf, readout: str = "hermite", types: int | None = None,
                          readout_values=None, readout_proportions=None, kappa_nodes: int = DEFAULT_KAPPA_NODES,
                          tol: float = 1e-12, type_tol: float = 1e-8, max_types: int = 256,
                          kappa_tol: float = 1e-8, max_kappa_nodes: int = 488, check: bool = True,
                          max_steps: int = 3000, on_failure: str = "raise"):
    r"""The risk R1 after one large step η = c√N with a Gaussian readout (Ba et al. protocol).

    Parameters
    ----------
    student, teacher : σ, σ* (centred by default).
    psi1, psi2 : ψ1 = n/d, ψ2 = N/d.
    lam : λ ≥ 0, Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖².
    c : η = c√N (default 1).
    noise : σ_ε, label-noise standard deviation (training side only; R1 excludes it).
    width : N (finite-width prediction; e.g. :func:`width_from_dimension`), ``math.inf`` (default,
        the proportional limit), or a sequence of them (then a tuple of results is returned; the
        responses do not depend on N and are shared).
    readout : ``"hermite"`` (the Gaussian readout: Gauss–Hermite types, convergence in K checked),
        ``"quantile"`` (K equal-mass discrete types, K = ``types``) or ``"given"``
        (``readout_values``, ``readout_proportions``; e.g. ``(1.0,)`` is Cui's uniform readout).
    types : K (default 32 for ``"hermite"``, 16 for ``"quantile"``).
    kappa_nodes : Gauss–Hermite nodes in κ (default 61).
    tol, max_steps : residual tolerance and iteration limit of the response fixed point.
    type_tol, max_types : for ``"hermite"``: K grows ×1.5 (up to ``max_types``) until two successive
        K give risks within ``type_tol``; the finer result is kept and ``type_error`` is the difference.
    kappa_tol, max_kappa_nodes : then the κ rule is doubled (up to ``max_kappa_nodes``) until two
        successive rules agree within ``kappa_tol``; ``quadrature_error`` is the difference (plus the
        inner quadrature error).
    check : ``False`` skips both convergence checks (one solve; ``type_error`` is then None and
        ``quadrature_error`` covers only the inner expectations).
    on_failure : ``"raise"`` (:class:`~asymptotics.errors.ConvergenceError`, also when a convergence
        check fails) or ``"return"`` (results with ``converged=False``; numbers written as null).
    """
    widths, single = _as_widths(width)
    if readout not in ("hermite", "quantile", "given"):
        raise ParameterError("readout", readout, "'hermite', 'quantile' or 'given'")
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    K0 = check_int("types", types if types is not None else (DEFAULT_TYPES if readout == "hermite" else 16), 1)
    n0 = check_int("kappa_nodes", kappa_nodes, 8)
    type_tol = check_positive("type_tol", type_tol)
    kappa_tol = check_positive("kappa_tol", kappa_tol)

    def solve_at(K, n):
        model = gaussian_readout_model(student, teacher, psi1, psi2, c=c, noise=noise, readout=readout, types=K,
                                       readout_values=readout_values, readout_proportions=readout_proportions,
                                       kappa_nodes=n)
        out, start = [], None
        for wd in widths:
            r = solve_gaussian_readout(model, lam, wd, tol=tol, max_steps=max_steps, start=start,
                                       on_failure=on_failure)
            start = r.start if r.converged else start
            out.append(r)
        return out

    def finish(res):
        return res[0] if single else tuple(res)

    if not check:
        return finish(solve_at(K0, n0))
    type_err, type_seq, msg, res = None, (), None, None
    K = K0
    proceed = True
    if readout == "hermite":
        max_types = check_int("max_types", max_types, 2)
        if max_types <= K0:
            raise ParameterError("max_types", max_types, f"> types = {K0} (the convergence check needs a larger K)")
        res, type_err, seq, msg = _refine(lambda k: solve_at(k, n0), _ladder(K0, max_types, 1.5), type_tol,
                                          "number of Gauss–Hermite readout types")
        type_seq = tuple(seq)
        K = seq[-1][0]
        proceed = msg is None and type_err is not None
    if proceed:
        max_n = check_int("max_kappa_nodes", max_kappa_nodes, 9)
        if max_n <= n0:
            raise ParameterError("max_kappa_nodes", max_kappa_nodes, f"> kappa_nodes = {n0}")
        res, kap_err, _, msg = _refine(lambda n: solve_at(K, n), _ladder(n0, max_n, 2.0), kappa_tol,
                                       "number of Gauss–Hermite nodes in κ", first=res)
        if kap_err is not None:
            res = [replace(r, quadrature_error=r.quadrature_error + e) for r, e in zip(res, kap_err, strict=True)]
    if msg is not None:
        if on_failure == "raise":
            raise ConvergenceError(msg, res)
        res = [replace(r, converged=False, status=Status.UNRESOLVED, message=msg) for r in res]
    res = [replace(r, type_error=None if type_err is None else type_err[i],
                   type_sequence=tuple((k, v[i]) for k, v in type_seq)) for i, r in enumerate(res)]
    return finish(res)


def readout_type_sequence(student, teacher, psi1: float, psi2: float, lam: float, *, types=(2, 4, 8, 16, 32),
                          kind: str = "quantile", **kwargs) -> tuple[GaussianReadoutRisk, ...]:
    r"""Risks with K = ``types`` discrete readout types of ``kind`` (default K equal-mass quantile
    types), to show the convergence to the Gaussian readout (``docs/large-step-exact.md``:
    erf/erf, ψ1 = 8, N = ∞: K = 2, 4, 8, 16, 32 → .0545, .0295, .0261, .0259, .0259)."""
    return tuple(gaussian_readout_risk(student, teacher, psi1, psi2, lam, readout=kind, types=K, **kwargs)
                 for K in types)
