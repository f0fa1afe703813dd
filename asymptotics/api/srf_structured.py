r"""``theory srf --bulk structured``: the one-step network (Cui protocol) through the structured-bulk
map (``docs/spiked-rf-finite-width.md``), the isotropic map of Cui et al. beside it in each row.

After one large step the trained bulk's rows are N(0, (I + κ_c C)/d) with a weighted Wishart C built
from the first batch (κ_c = η̃²ȟ1/α0), and the spike direction is a special direction of C; the
isotropic map keeps (c, r, γ) but replaces this bulk by an isotropic one, which is optimistic at strong
steps (+9.4 % at η̃ = 5, α0 = 1, α = 3). Covered: an odd student (E σ'' = 0), the uniform readout,
no label noise, the Marchenko–Pastur (d → ∞) bulk. Each point is its own solve (0.03–0.6 s).

``--bulk self-term`` keeps the isotropic bulk and adds the step's self term, each neuron rescaled by
its own alignment, w⁰ⱼ(1 + k⟨w⁰ⱼ, v⟩), k = η̃ E[σ⁽³⁾] ‖ĝ‖ = r E[σ⁽³⁾]/E[σ'] (:mod:`asymptotics.theory.spiked_rf.self_term`):
the piece both maps miss at large α0 (the sin table of Cui et al., α = 3: −3.2 %). Same coverage, α0 = ∞
allowed; its map to the network holds where the step's noise in the bulk, c − 1 (``bulk_excess``), is
small.

``--bulk network`` is the network map (:mod:`asymptotics.theory.spiked_rf.network_map`): the structured
bulk with the self term riding on the initial rows w⁰ⱼ only (not on the step's noise), valid over the
whole (η̃, α0) plane. Same coverage as ``structured``; α0 = ∞ is the isotropic map with the self term.
Rows carry ``test_error_structured`` and ``test_error_isotropic`` beside the network map's errors.

>>> import asymptotics as asy
>>> r = asy.spiked_rf(alpha=3, alpha0=1, eta_tilde=5, lam=0.01, bulk="structured")
>>> round(r.rows[0]["test_error"], 4), round(r.rows[0]["test_error_isotropic"], 4)
(0.2092, 0.1911)
>>> r = asy.spiked_rf(alpha=3, alpha0=20, eta_tilde=3, lam=0.1, teacher="sin", bulk="self-term")
>>> round(r.rows[0]["test_error"], 4), round(r.rows[0]["test_error_isotropic"], 4)
(0.0315, 0.0325)
>>> r = asy.spiked_rf(alpha=3, alpha0=1, eta_tilde=5, lam=0.01, bulk="network")
>>> round(r.rows[0]["test_error"], 4), round(r.rows[0]["test_error_isotropic"], 4)
(0.208, 0.1911)
"""

from __future__ import annotations

import math

from ..errors import ConvergenceError, ParameterError
from ..params import check_positive
from ..solvers import Status
from .errors import option, point_error, status_code

__all__ = ["BULKS", "MAX_STRUCTURED_POINTS", "check_structured", "structured_rows"]

#: The bulks of ``theory srf``: Cui et al.'s isotropic map (the paper's sRF model), the structured-bulk
#: map, the isotropic map with the step's self term, or the network map (structured bulk + self term:
#: the one-step network's own theory).
BULKS = ("isotropic", "structured", "self-term", "network")
#: The structured map's second-order traces are central differences (error ≈ 2·10⁻⁹, part of the
#: reported residual), so its fixed point is solved to at least this tolerance.
STRUCTURED_TOL_FLOOR = 1e-11
#: Most points of one structured computation (each point is a separate solve of up to 0.6 s).
MAX_STRUCTURED_POINTS = 2_000


def check_structured(*, srf_mode: bool, readout, noises, finite_d, width, alpha0s, alphas, lams, size: int,
                     kind: str = "structured") -> None:
    """What the structured-bulk map (``kind="structured"``) or the self term (``"self-term"``) covers,
    each violation one :class:`ParameterError` naming the option."""
    bulk = option("bulk")
    if srf_mode:
        raise ParameterError(bulk, kind, f"used with {option('eta_tilde')}/{option('alpha0')} (the one-step "
                             "network), not with the sRF model's c, r, gamma")
    if readout is not None and not readout.is_uniform:
        raise ParameterError(bulk, kind, "used with the uniform readout only (no readout types)")
    if any(v != 0 for v in noises):
        raise ParameterError(option("noise"), [v for v in noises if v != 0][0], f"0 with {bulk} {kind}")
    if finite_d is not None:
        raise ParameterError(option("finite_d"), finite_d, f"not combined with {bulk} {kind}")
    if width is not None:
        raise ParameterError(option("width"), width, f"not combined with {bulk} {kind}")
    for a0 in alpha0s:
        if kind in ("structured",) and not math.isfinite(a0):
            raise ParameterError(option("alpha0"), a0, "finite with the structured bulk (α0 = ∞ is the isotropic map)")
    for name, vals in (("alpha", alphas), ("lam", lams)):
        for v in vals:
            check_positive(option(name), v)
    if size > MAX_STRUCTURED_POINTS:
        raise ParameterError("grid size", size, f"at most {MAX_STRUCTURED_POINTS} points with {bulk} {kind} "
                             "(each point is a separate solve)")


def _self_term_point(alpha, alpha0, beta, eta_tilde, lam, student, teacher, *, tol):
    from ..theory.spiked_rf.self_term import one_step_self_term

    return one_step_self_term(alpha, alpha0, beta, eta_tilde, lam, student, teacher, tol=tol)


def _network_point(alpha, alpha0, beta, eta_tilde, lam, student, teacher, *, tol):
    from ..theory.spiked_rf.network_map import network_one_step

    if math.isinf(alpha0):              # isotropic bulk (κ_c = 0, c = 1): the network map is the self-term map
        return _self_term_point(alpha, alpha0, beta, eta_tilde, lam, student, teacher, tol=tol)
    return network_one_step(alpha, alpha0, beta, eta_tilde, lam, student, teacher, tol=tol)


def _network_row(sol) -> dict:
    if hasattr(sol, "test_error_structured"):
        return sol.as_dict()
    row = _self_term_row(sol)
    return {**row, "test_error_structured": row["test_error_isotropic"],
            "train_error_structured": row["train_error_isotropic"], "kappa_c": 0.0,
            "relative_modelling_error": row["test_error_isotropic"] / row["test_error"] - 1.0}


def _self_term_row(sol) -> dict:
    row = sol.as_dict()
    row["test_error_isotropic"] = row.pop("test_error_without")
    row["train_error_isotropic"] = row.pop("train_error_without")
    return row


def structured_rows(models, betas, lams, alphas, student, teacher, *, tol: float, on_failure: str,
                    step=lambda n=1: None, kind: str = "structured") -> tuple[list[dict], int]:
    """One row per point (model × β × λ × α, slowest first) and the number of failed points.

    ``kind``: ``"structured"`` (the structured-bulk map), ``"self-term"`` (the isotropic map with the
    step's self term) or ``"network"`` (both: the network map). A point whose solve does not converge raises (``on_failure="raise"``) or
    becomes a row with its ``status`` and ``message`` and no numbers (``"mark"``)."""
    from ..theory.spiked_rf.structured_map import structured_one_step

    solve, as_row = {"structured": (structured_one_step, lambda sol: sol.as_dict()),
                     "self-term": (_self_term_point, _self_term_row),
                     "network": (_network_point, _network_row)}[kind]

    rows, failed = [], 0
    for mp in models:
        for beta in betas:
            for lam in lams:
                for alpha in alphas:
                    a0 = "inf" if math.isinf(mp["alpha0"]) else mp["alpha0"]   # the rows' spelling of α0 = ∞
                    point = {"eta_tilde": mp["eta_tilde"], "alpha0": a0, "noise": mp["noise"],
                             "beta": beta, "lam": lam, "alpha": alpha}
                    try:
                        sol = solve(alpha, mp["alpha0"], beta, mp["eta_tilde"], lam, student, teacher,
                                    tol=max(tol, STRUCTURED_TOL_FLOOR))
                    except ConvergenceError as exc:
                        failed += 1
                        if on_failure == "raise":
                            raise point_error(f"theory srf --bulk {kind}", point, str(exc)) from None
                        rows.append({**point, "bulk": kind, "test_error": None, "train_error": None,
                                     "status": Status(status_code(exc)).label, "message": str(exc)})
                        continue
                    rows.append({**point, "bulk": kind, **as_row(sol)})
                step()
    return rows, failed
