r"""The replica-symmetric fixed point of the ridge readout on spiked random features.

Mathematics: docs/spiked-rf.md, "How it is computed" (uniform readout, the Marchenko–Pastur closed
form, K readout types). The prior enters only through the interface of :mod:`.priors` (one class
per bulk spectrum, chosen once per solve). The equations are solved in a reduced form that is
equivalent to the published fixed point:

1. **Responses.** (V1, V2) [(V1, V2, τ) for K types] form a closed system: V(κ) → ŵ(κ) →
   (V̂1, V̂2) → prior traces → (V1, V2) (the prior's ``reduced_map``). It is solved with the
   project's fixed-point solver (Anderson acceleration), continued along α when a curve is asked for.
2. **Means.** Given V, the zero-cost mean directions m and the spike overlaps t solve a linear
   system exactly (:func:`~.channel.solve_mean_directions`) — no iteration on t, which is what
   makes damped iterations slow or unstable; ψ = ψ̂·⟨H/S⟩ is explicit.
3. **Variances.** Given the above, (q1, q2) [(Q1, Q2)] solve a linear system
   (I − L𝒜) q = L a + f (L: second-order prior map, 𝒜: the channel's dependence on q);
   a spectral radius of L𝒜 ≥ 1 means the variance diverges (λ → 0 at the interpolation
   threshold), which is reported as a :class:`~asymptotics.errors.ConvergenceError`.

Afterwards every equation of the full fixed point is evaluated once at the solution and the
largest violation is reported as ``residual``; nothing unconverged is returned as a number.

With the default solver (Anderson) the whole solve runs in compiled code (:mod:`.compiled`): for
one readout type (Marchenko–Pastur or a finite spectrum) steps 1–3, the residual and the
continuation along α; for K types the iteration of step 1 and the block self-energy, the
assembly (steps 2–3) staying here. Other solver configurations (``FixedPoint``, ``Newton``) use
the plain-numpy maps of :mod:`.priors` with :mod:`asymptotics.solvers`.

>>> from asymptotics.theory.spiked_rf import one_step_spiked_rf
>>> s = one_step_spiked_rf(alpha=3.0, alpha0=20.0, beta=1.0, eta_tilde=3.0, lam=0.01,
...                        student="tanh", teacher="tanh")
>>> round(s.test_error, 4), s.converged                     # reference grid (docs/spiked-rf.md): .0153
(0.0153, True)
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import ConvergenceError, ParameterError
from ...params import check_nonnegative, check_positive
from ...solvers import Anderson, SolverResult, continuation, fixed_point
from ...solvers.result import CONVERGED, STATUS_MESSAGES
from . import compiled
from .channel import (
    ChannelModel,
    channel_model,
    conditional_error,
    generalisation_error,
    mean_prediction,
    orthogonal_conjugate,
    overlap_conjugates,
    response_conjugates,
    response_function,
    solve_mean_directions,
    spike_conjugate,
    training_error,
    variance_system,
)
from .mapping import cui_to_srf, srf_parameters
from .priors import Prior, choose_prior, response_map_mp
from .solution import MIN_STABILITY_MARGIN, SpikedRFSolution, failed_solution, not_converged_message

__all__ = [
    "SpikedRFSolution",
    "solve_spiked_rf",
    "spiked_rf_curve",
    "spiked_rf",
    "one_step_spiked_rf",
    "response_map_mp",
]

# ---- assembling the full solution -------------------------------------------------------------

#: Largest accepted violation of the full fixed point at an assembled solution (every equation
#: evaluated once; well-posed points reach 1e-13 … 1e-10), or 10³ × the response solve's own
#: residual when that is larger (a loose ``tol``). Beyond it the point is not a solution: e.g. K
#: Gauss–Hermite readout types with proportions down to 1e-10 gave 1.3e-3 (and K = 24: 2.2, with a
#: test error of 4.2 instead of 0.0259) while every response equation held.
MAX_RESIDUAL = 1e-8

def _assemble(model: ChannelModel, alpha, beta, lam, res: SolverResult, prior: Prior, method):
    K = model.K
    ratio = alpha / beta
    rule = model.rule
    pi = np.asarray(model.params.readout.proportions)
    x = np.asarray(res.value, dtype=float)
    V1, V2 = prior.responses(x, K)
    V = response_function(model.mu1, model.mu2_sq, V1, V2)
    if np.any(V < 0):
        raise ConvergenceError("sRF fixed point: negative response V(κ) at the solution", res)
    what = ratio / (1.0 + V)
    V1h, V2h = response_conjugates(rule, model.mu1, model.mu2_sq, what)
    psih = orthogonal_conjugate(rule, model.mu1, what, model.h1t)
    pt = prior.at(model, lam, beta, V1h, V2h, V2)
    T = pt.spike_response
    psi = pt.orthogonal_overlap(psih)
    m, t = solve_mean_directions(rule, model.mu0, model.mu1, V, model.h, ratio * T, pi)
    omega = mean_prediction(model.mu0, model.mu1, rule.nodes, m, t)
    th = ratio * spike_conjugate(rule, model.mu1, what / ratio, model.h, omega)
    psi_mu1 = psi @ model.mu1
    E0_test = conditional_error(model.h, model.h1t, model.h2t, omega, psi_mu1, 0.0, 0.0)
    E0_train = E0_test + model.noise_var
    y, rad, A, a = variance_system(model, what, V, E0_train, pt.variance_map, pt.variance_source(th, psih))
    if not rad < 1.0 - MIN_STABILITY_MARGIN:
        raise ConvergenceError(
            f"sRF fixed point: the variance equations have no stable solution at α = {alpha:g}, β = {beta:g}, "
            f"λ = {lam:g} (spectral radius of the variance map {rad:.12g}; the test error diverges — "
            f"interpolation threshold with λ → 0?)", res)
    Q1 = y[: K * K].reshape(K, K)
    Q1 = 0.5 * (Q1 + Q1.T)
    Q2 = y[K * K:]
    hats = a + A @ y
    Q1h = hats[: K * K].reshape(K, K)
    q2h = hats[K * K:]
    q = response_function(model.mu1, model.mu2_sq, Q1, Q2)
    E_test = E0_test + q
    E_train = E0_train + q
    eg = generalisation_error(rule, E_test)
    et = training_error(rule, E_train, V)
    # full-system residual: every equation evaluated once at the solution
    resid = [np.abs(pt.V1 - V1).max(), np.abs(pt.V2 - V2).max()]
    resid.append(np.abs(t - T * th).max())
    mres = rule.expect(model.mu0 * (model.h - omega) / (1.0 + V))
    resid.append(float(np.abs(mres).max()))
    # the variance equations as published: conjugates from the channel, then the prior
    Q1h_c, q2h_c = overlap_conjugates(rule, model.mu1, model.mu2_sq, what, V, E_train)
    y_chk = pt.second_order(Q1h_c, q2h_c, th, psih)
    qscale = max(1.0, float(np.max(np.abs(y))))
    resid.append(float(np.max(np.abs(y_chk - y))) / qscale)
    extra = pt.consistency_residual()
    if extra is not None:
        resid.append(extra)
    scale = max(1.0, float(np.max(np.abs(np.concatenate([V1.ravel(), V2])))))
    residual = max(float(res.residual), max(float(r) for r in resid) / scale)
    if not residual <= max(MAX_RESIDUAL, 1e3 * float(res.residual)):
        raise ConvergenceError(
            f"sRF fixed point: the full fixed point is violated by {residual:.3g} at the solution (accepted: "
            f"{MAX_RESIDUAL:g}) — with {K} readout types the mean-direction system is ill-conditioned (nearly "
            f"collinear mean functions or tiny type proportions, smallest {float(pi.min()):.3g}); fewer or coarser "
            "types, or the continuous-readout theory (asymptotics.theory.large_step.gaussian_readout)", res)
    for name, val in (("test error", eg), ("training error", et)):
        if not math.isfinite(val):
            raise ConvergenceError(f"sRF fixed point: non-finite {name}", res)
    if np.any(np.diag(Q1) < -1e-12) or np.any(Q2 < -1e-12) or eg < -1e-12:
        raise ConvergenceError("sRF fixed point: negative variance at the solution (no physical solution)", res)
    return SpikedRFSolution(
        test_error=eg, train_error=et, alpha=alpha, beta=beta, lam=lam, noise=math.sqrt(model.noise_var),
        params=model.params, V1=V1, V2=V2, Q1=Q1, Q2=Q2, m=m, t=t, psi=psi,
        V1hat=V1h, V2hat=V2h, Q1hat=Q1h, q2hat=q2h, that=th, psihat=psih,
        converged=True, status=CONVERGED, message=STATUS_MESSAGES[CONVERGED], iterations=res.iterations,
        residual=residual, method=method, prior=prior.name,
        quadrature_error=model.quadrature_error, stability_margin=1.0 - rad, start=x,
    )


def _check_point(alpha, beta, lam):
    return check_positive("alpha", alpha), check_positive("beta", beta), check_nonnegative("lam", lam)


def _check_ridge(model, lam):
    # zero student nonlinearity and zero ridge: the prior operator is singular
    if lam == 0.0 and float(np.max(model.mu2_sq)) <= 1e-12 * max(1.0, float(np.max(model.mu1**2))):
        raise ParameterError("lam", lam, "> 0 when the student has no nonlinear part (μ2 ≡ 0)")


def _reduced_solve(model, alpha, beta, lam, prior: Prior, solver, x0):
    ratio = alpha / beta
    _check_ridge(model, lam)
    g = prior.reduced_map(model, ratio, lam, beta)
    if x0 is None:
        x0 = prior.reduced_start(model, ratio, lam, beta)
    return fixed_point(g, np.asarray(x0, dtype=float), solver=solver, on_failure="return")


def _default_solver(tol):
    return Anderson(memory=4, atol=tol, rtol=tol, max_steps=3000)


def solve_spiked_rf(model: ChannelModel, alpha: float, beta: float, lam: float, *, prior=None, tol: float = 1e-12,
                    solver=None, start=None, on_failure: str = "raise") -> SpikedRFSolution:
    r"""Solve the sRF fixed point at one (α, β, λ) for a tabulated :class:`ChannelModel`.

    Parameters
    ----------
    model : from :func:`~.channel.channel_model` (fixes σ, σ*, c, r, γ, readout types, σ_ε).
    alpha, beta, lam : α = n/d > 0, β = p/d > 0, ridge λ ≥ 0 (Cui's, not rescaled).
    prior : ``None`` (Marchenko–Pastur closed form for K = 1, block MP for K > 1), ``"block-mp"``
        (force the block equations), a :class:`~.prior_mp.Spectrum` (finite-d sums, K = 1), or a
        prior of :mod:`.priors` (:func:`~.priors.choose_prior`).
    tol : residual tolerance of the response system (``atol = rtol = tol``).
    solver : a :class:`~asymptotics.solvers.Anderson` / :class:`FixedPoint` / :class:`Newton`
        configuration (default Anderson with ``tol``).
    start : starting point of the reduced (logarithmic) system, e.g. ``previous.start``.
    on_failure : ``"raise"`` (:class:`ConvergenceError`) or ``"return"`` (a solution with
        ``converged=False`` whose numbers are NaN and are emitted as null).
    """
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    alpha, beta, lam = _check_point(alpha, beta, lam)
    chosen = choose_prior(model, prior)
    solver = solver or _default_solver(tol)
    if compiled.supports(model, chosen, solver):
        _check_ridge(model, lam)
        out, iout = compiled.solve_path(model, [alpha], beta, lam, chosen, solver, start)
        return compiled.point_solution(model, alpha, beta, lam, chosen, out[0], iout[0], on_failure)
    method = getattr(solver, "name", type(solver).__name__)
    if compiled.supports_block(model, chosen, solver):
        _check_ridge(model, lam)
        res = compiled.block_path(model, [alpha], beta, lam, solver, start)[0]
    else:
        res = _reduced_solve(model, alpha, beta, lam, chosen, solver, start)
    return _finish(model, alpha, beta, lam, res, chosen, method, on_failure)


def _finish(model, alpha, beta, lam, res, prior: Prior, method, on_failure):
    if not res.converged:
        msg = not_converged_message(alpha, beta, lam, res)
        if on_failure == "raise":
            raise ConvergenceError(msg, res)
        return failed_solution(model, alpha, beta, lam, res, prior, method, msg)
    try:
        return _assemble(model, alpha, beta, lam, res, prior, method)
    except ConvergenceError as exc:
        if on_failure == "raise":
            raise
        return failed_solution(model, alpha, beta, lam, res, prior, method, str(exc))
    except np.linalg.LinAlgError as exc:
        msg = f"sRF fixed point: singular linear system at α = {alpha:g} ({exc})"
        if on_failure == "raise":
            raise ConvergenceError(msg, res) from None
        return failed_solution(model, alpha, beta, lam, res, prior, method, msg)


def spiked_rf_curve(model: ChannelModel, alphas, beta: float, lam: float, *, prior=None, tol: float = 1e-12,
                    solver=None, on_failure: str = "raise") -> list[SpikedRFSolution]:
    r"""Solutions along a list of α, by continuation (increasing α, each solve warm-started from
    the previous converged one); returned in the order given. With ``on_failure="raise"`` the
    first failure raises after the whole path was tried."""
    alphas = [check_positive("alpha", a) for a in np.atleast_1d(alphas).tolist()]
    beta, lam = check_positive("beta", beta), check_nonnegative("lam", lam)
    chosen = choose_prior(model, prior)
    solver = solver or _default_solver(tol)
    method = getattr(solver, "name", type(solver).__name__)
    order = np.argsort(alphas, kind="stable")
    path = [alphas[i] for i in order]
    if compiled.supports(model, chosen, solver):
        _check_ridge(model, lam)
        return _compiled_curve(model, alphas, order, path, beta, lam, chosen, solver, on_failure)
    if compiled.supports_block(model, chosen, solver):
        _check_ridge(model, lam)
        results = compiled.block_path(model, path, beta, lam, solver)
    else:
        results = continuation(lambda xs, a: _reduced_solve(model, a, beta, lam, chosen, solver, xs), None, path)
    sols = [None] * len(alphas)
    first_error = None
    for i, a, res in zip(order, path, results, strict=True):
        try:
            sols[i] = _finish(model, a, beta, lam, res, chosen, method, "raise")
        except ConvergenceError as exc:
            first_error = first_error or exc
            sols[i] = failed_solution(model, a, beta, lam, res, chosen, method, str(exc))
    if first_error is not None and on_failure == "raise":
        raise first_error
    return sols


def _compiled_curve(model, alphas, order, path, beta, lam, prior, solver, on_failure):
    out, iout = compiled.solve_path(model, path, beta, lam, prior, solver)
    sols = [None] * len(alphas)
    first_error = None
    for j, i in enumerate(order):
        try:
            sols[i] = compiled.point_solution(model, path[j], beta, lam, prior, out[j], iout[j], "raise")
        except ConvergenceError as exc:
            first_error = first_error or exc
            sols[i] = compiled.point_solution(model, path[j], beta, lam, prior, out[j], iout[j], "return")
    if first_error is not None and on_failure == "raise":
        raise first_error
    return sols


def spiked_rf(alpha: float, beta: float, lam: float, c, r: float, gamma: float, student, teacher, *,
              noise: float = 0.0, readout=None, prior=None, tol: float = 1e-12, quad_tol: float = 1e-12,
              on_failure: str = "raise") -> SpikedRFSolution:
    r"""Test and training error of ridge regression on the sRF model σ(√c Wx + r u κ) (given c, r, γ).

    ``readout``: readout types (values u⁽ᵏ⁾ or a :class:`~.mapping.ReadoutTypes`); ``c`` may be one
    number or one per type. See :func:`solve_spiked_rf` for the rest.
    """
    params = srf_parameters(c, r, gamma, readout)
    model = channel_model(params, student, teacher, check_nonnegative("noise", noise), tol=quad_tol)
    return solve_spiked_rf(model, alpha, beta, lam, prior=prior, tol=tol, on_failure=on_failure)


def one_step_spiked_rf(alpha: float, alpha0: float, beta: float, eta_tilde: float, lam: float, student, teacher, *,
                       noise: float = 0.0, readout=None, prior=None, tol: float = 1e-12, quad_tol: float = 1e-12,
                       on_failure: str = "raise") -> SpikedRFSolution:
    r"""Test and training error after one large step (Cui et al. protocol): map (η̃, α0, σ, σ*) to
    (c, r, γ) (:func:`~.mapping.cui_to_srf`) and solve the sRF fixed point."""
    params = cui_to_srf(eta_tilde, alpha0, student, teacher, noise, readout)
    model = channel_model(params, student, teacher, check_nonnegative("noise", noise), tol=quad_tol)
    return solve_spiked_rf(model, alpha, beta, lam, prior=prior, tol=tol, on_failure=on_failure)
