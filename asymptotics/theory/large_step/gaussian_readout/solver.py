r"""The fixed point of a tabulated :class:`~.model.GaussianReadoutModel` at Ba's ridge λ.

The solve is reduced like the sRF solver's (``docs/large-step-exact.md``): (1) the responses
(V(κ), τ(u)) form a closed system, solved by Anderson acceleration on their logarithms; (2) the
spike–mean block (ω0, t) is linear given V and is solved exactly (:mod:`..spike_mean_block`);
(3) the variances q(κ) solve a linear system whose spectral radius must be < 1. Every equation is
then evaluated once at the solution; the largest violation is ``residual``.
"""

from __future__ import annotations

import math

import numpy as np

from ....errors import ConvergenceError, ParameterError
from ....params import check_int, check_nonnegative
from ....solvers import Anderson, SolverResult, Status, fixed_point
from ..spike_mean_block import SpikeMeanBlock, spike_mean_block
from ..typed_prior import orthogonal_overlap_function, typed_prior_state, variance_operator, variance_response
from .model import GaussianReadoutModel, check_width
from .result import GaussianReadoutRisk

__all__ = ["solve_gaussian_readout", "MIN_STABILITY_MARGIN"]

#: smallest accepted 1 − (spectral radius of the variance map)
MIN_STABILITY_MARGIN = 1e-8

#: floor of the self-energy in the logarithmic variables (τ = 0 exactly when μ1(·; u) ≡ 0)
_TAU_FLOOR = 1e-300


def _response_system(model: GaussianReadoutModel, lam_c: float):
    """The closed map (V(κ), τ(u)) ↦ (V at τ, self-energy map of τ), with B, D from V.

    The responses span many decades as λ → 0 (V ~ 1/λ when N > n), so the map acts on
    x = (log V, log τ); returns (map, decode x → (V, τ), state at (V, τ))."""
    ch, f = model.channel, model.features
    ratio = model.psi1 / model.psi2
    w = ch.weights
    n = w.size

    def state_at(V, tau):
        b = w * ratio / (1.0 + V)
        return typed_prior_state(tau, b, lam_c + f.mu2_sq @ b, f)

    def decode(x):
        return np.exp(x[:n]), np.exp(x[n:])

    def g(x):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            st = state_at(*decode(x))
            return np.log(np.maximum(np.concatenate([st.V, st.tau_map]), _TAU_FLOOR))

    return g, decode, state_at


def _failed(model, lam, width, lam_c, res, message, iterations=0) -> GaussianReadoutRisk:
    """A result with converged=False and NaN numbers (status: the response solver's when it failed,
    else ``Status.SINGULAR``: the responses converged but the variance or mean equations have no
    physical solution)."""
    n, K = model.kappa.size, model.K
    nan_n, nan_K = np.full(n, math.nan), np.full(K, math.nan)
    return GaussianReadoutRisk(
        risk1=math.nan, train_error=math.nan, spike_error=math.nan, width=width, psi1=model.psi1, psi2=model.psi2,
        lam=lam, noise=model.noise, c=model.c, lam_cui=lam_c, r=model.r, gamma=model.gamma,
        kernel_bound=model.kernel_bound, kappa=model.kappa, kappa_weights=model.channel.weights, V=nan_n, q=nan_n,
        omega_bar=nan_n, omega0=nan_n, t=nan_n, psi=nan_n, conditional_error=nan_n, h=model.channel.h,
        h1t=model.channel.h1t, h2t=model.channel.h2t, readout=model.readout.kind, types=K,
        readout_values=model.readout.values, readout_weights=model.readout.weights, bulk=model.features.bulk,
        self_energy=nan_K, type_error=None, type_sequence=(), kappa_nodes=n,
        quadrature_error=model.channel.quadrature_error, mean_rank=0, converged=False,
        status=res.status if res is not None and not res.converged else Status.SINGULAR, message=message,
        iterations=res.iterations if res is not None else iterations,
        residual=res.residual if res is not None else math.inf, stability_margin=math.nan)


def _assemble(model: GaussianReadoutModel, lam, width, lam_c, res: SolverResult, decode, state_at) -> GaussianReadoutRisk:
    ch, f = model.channel, model.features
    n = ch.weights.size
    x = np.asarray(res.value, dtype=float)
    V, tau = decode(x)
    st = state_at(V, tau)
    b = st.b
    blk: SpikeMeanBlock = spike_mean_block(st, ch.mu0, ch.kappa, ch.h, width)
    y = b * ch.h1t                                          # ψ̂(u) = μ1(·; u)ᵀ y
    psi = orthogonal_overlap_function(st, y)
    noise_var = ch.noise_var
    E0_train = blk.x**2 + ch.h2t - ch.h**2 - 2.0 * psi * ch.h1t + noise_var
    g = f.beta * f.bulk * blk.t_hat**2
    if not math.isinf(width):
        g = g + width * blk.g0**2
    f_fixed = variance_response(st, np.zeros(n), y, g)
    Lmat = variance_operator(st)
    Wd = b / (1.0 + V)
    LW = Lmat * Wd[None, :]
    rad = float(np.max(np.abs(np.linalg.eigvals(LW))))
    if not rad < 1.0 - MIN_STABILITY_MARGIN:
        raise ConvergenceError(
            f"large-step fixed point: the variance equations have no stable solution at ψ1 = {model.psi1:g}, "
            f"ψ2 = {model.psi2:g}, λ = {lam:g} (spectral radius of the variance map {rad:.12g}; the risk "
            f"diverges — interpolation threshold with λ → 0?)", res)
    q = np.linalg.solve(np.eye(n) - LW, LW @ E0_train + f_fixed)
    E_train = E0_train + q
    E_test = E_train - noise_var
    w = ch.weights
    risk1 = float(w @ E_test)
    train = float(w @ (E_train / (1.0 + V) ** 2))
    # every equation once at the solution
    q_chk = variance_response(st, b * E_train / (1.0 + V), y, g)
    qscale = max(1.0, float(np.max(np.abs(q))))
    vscale = max(1.0, float(np.max(V)))
    resid = max(float(res.residual),
                float(np.max(np.abs(st.V - V))) / vscale,
                st.tau_residual,
                blk.residual,
                float(np.max(np.abs(q_chk - q))) / qscale)
    for name, val in (("risk", risk1), ("training error", train)):
        if not math.isfinite(val):
            raise ConvergenceError(f"large-step fixed point: non-finite {name}", res)
    if np.any(q < -1e-10 * qscale) or risk1 < -1e-12:
        raise ConvergenceError("large-step fixed point: negative variance at the solution (no physical solution)", res)
    return GaussianReadoutRisk(
        risk1=risk1, train_error=train, spike_error=float(w @ blk.x**2), width=width, psi1=model.psi1,
        psi2=model.psi2, lam=lam, noise=model.noise, c=model.c, lam_cui=lam_c, r=model.r, gamma=model.gamma,
        kernel_bound=model.kernel_bound, kappa=ch.kappa, kappa_weights=w, V=V, q=q, omega_bar=blk.omega_bar,
        omega0=blk.omega0, t=blk.t, psi=psi, conditional_error=E_test, h=ch.h, h1t=ch.h1t, h2t=ch.h2t,
        readout=model.readout.kind, types=model.K, readout_values=model.readout.values,
        readout_weights=model.readout.weights, bulk=f.bulk, self_energy=tau, type_error=None, type_sequence=(),
        kappa_nodes=n, quadrature_error=ch.quadrature_error, mean_rank=blk.rank, converged=True, status=Status.CONVERGED,
        message=Status.CONVERGED.message, iterations=res.iterations, residual=resid, stability_margin=1.0 - rad,
        start=x)


def solve_gaussian_readout(model: GaussianReadoutModel, lam: float, width=math.inf, *, tol: float = 1e-12,
                           max_steps: int = 3000, start=None, on_failure: str = "raise") -> GaussianReadoutRisk:
    r"""Solve the fixed point of a tabulated :class:`GaussianReadoutModel` at Ba's ridge λ.

    Parameters
    ----------
    model : from :func:`gaussian_readout_model`.
    lam : λ ≥ 0, Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² (λ_C = λψ1/ψ2 internally).
    width : N ≥ 1 for the finite-width prediction, ``math.inf`` (default) for the proportional limit.
    tol : residual tolerance of the response system.
    max_steps : iteration limit of the response system (Anderson acceleration).
    start : a previous solution's ``start`` (warm start; the responses do not depend on N).
    on_failure : ``"raise"`` (:class:`~asymptotics.errors.ConvergenceError`) or ``"return"``
        (a result with ``converged=False`` whose numbers are NaN and are written as null).
    """
    if on_failure not in ("raise", "return"):
        raise ParameterError("on_failure", on_failure, "'raise' or 'return'")
    lam = check_nonnegative("lam", lam)
    width = check_width(width)
    if not (isinstance(tol, float) and 1e-16 <= tol < 1):
        raise ParameterError("tol", tol, "a float in [1e-16, 1)")
    lam_c = lam * model.psi1 / model.psi2
    f = model.features
    if lam_c == 0.0 and float(np.max(f.mu2_sq)) <= 1e-12 * max(1.0, float(np.max(f.mu1**2))):
        raise ParameterError("lam", lam, "> 0 when the student has no nonlinear part (μ2 ≡ 0)")
    g, decode, state_at = _response_system(model, lam_c)
    n = model.kappa.size
    if start is None:
        # the responses at V = 0, τ = c ∘ diag(μ1 B μ1ᵀ) (the self-energy at M = 0)
        b0 = model.channel.weights * model.psi1 / model.psi2
        tau0 = f.bulk * ((f.mu1 * b0) @ f.mu1.T).diagonal()
        st0 = typed_prior_state(tau0, b0, lam_c + f.mu2_sq @ b0, f)
        x0 = np.log(np.maximum(np.concatenate([st0.V, st0.tau_map]), _TAU_FLOOR))
    else:
        x0 = np.asarray(start, dtype=float)
        if x0.shape != (n + model.K,):
            raise ParameterError("start", f"shape {x0.shape}", f"a previous solution's start, shape ({n + model.K},)")
    res = fixed_point(g, x0, solver=Anderson(memory=5, atol=tol, rtol=tol, max_steps=check_int("max_steps", max_steps, 1)),
                      on_failure="return")
    msg = None
    if not res.converged:
        msg = (f"large-step fixed point did not converge at ψ1 = {model.psi1:g}, ψ2 = {model.psi2:g}, λ = {lam:g}: "
               f"{res.message} after {res.iterations} iterations (residual {res.residual:.3g})")
        if lam == 0.0:
            msg += "; with λ = 0 the responses diverge unless n/N is large enough — use λ > 0"
    else:
        try:
            return _assemble(model, lam, width, lam_c, res, decode, state_at)
        except ConvergenceError as exc:
            msg = str(exc)
        except np.linalg.LinAlgError as exc:
            msg = f"large-step fixed point: singular linear system ({exc})"
    if on_failure == "raise":
        raise ConvergenceError(msg, res)
    return _failed(model, lam, width, lam_c, res, msg)
