r"""Exact asymptotic risk after one large step η = c√N in the Ba et al. protocol, Gaussian readout.

Ba et al. (2022) only bound the risk in this regime (10τ* + C(√τ*√(d/n) + d/n)); this module gives the
asymptotic value itself (``35-large-step-gaussian-readout.md``, derived there and checked against
simulations of the network).

**The network is a spiked RF with a continuous law of readout types** (§1). With η = c√N, dropping
the O(N^{-1/2}) output at initialisation, neuron i moves to

    w¹ᵢ = w⁰ᵢ + c uᵢ [μ1 ĝ + ξᵢ],   uᵢ = √N a⁰ᵢ ~ N(0, 1),   ĝ = Xᵀy/n,

so it is a spiked-random-features neuron of *type* uᵢ: spike r uᵢ κ along v = ĝ/‖ĝ‖ (κ = ⟨v, x⟩),
bulk variance c(uᵢ), target overlap γ, with E y² = μ1*² + μ2*² + σ_ε² and

    r = c μ1 ‖ĝ‖,   ‖ĝ‖² = μ1*² + E y²/ψ1,   γ = μ1*/‖ĝ‖,   c(u) = 1 + c² u² E y² Var σ'(z)/ψ1.

This is the map of Cui et al. with η̃ = c, α0 = ψ1 (:func:`~asymptotics.theory.spiked_rf.cui_to_srf`,
reused). Conventions: Ba's ridge (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖² is Cui's Σ(…)² + λ_C‖a‖² with
**λ_C = λψ1/ψ2**; α/β = ψ1/ψ2, β = ψ2; the risk R1 = E_x(f̂(x) − f*(x))² excludes σ_ε² (the noise
enters only the training side of the channel).

**Fixed point on functions of κ** (§2). The cGET coefficients of a type-u neuron are Cui's with
r → r u, c → c(u) (:mod:`asymptotics.theory.spiked_rf.cget`). On a Gauss–Hermite grid in κ the order
parameters are vectors; with ŵ(κ) = (ψ1/ψ2)/(1 + V(κ)) the channel is diagonal in κ:

    E(κ) = h̃2 + σ_ε² − 2ω̄h + ω̄² − 2ψ(κ)h̃1 + q(κ),   ω̄ = ω0(κ) + κ t(κ),

and the prior is the exact deterministic equivalent on L²(κ) of :mod:`.typed_prior` (self-energy
τ(u), responses V(κ), overlaps t(κ), ψ(κ), second-order traces q(κ) by differentiation with respect
to the sources diag(ŵE/(1+V)) + ψ2 (Bh̃1)(Bh̃1)ᵀ on B and q̂2 + ψ2 c t̂² + N ĝ0² on D). Expectations
over u use a :class:`~.readout_quadrature.ReadoutRule` (Gauss–Hermite by default, checked for
convergence in the number of nodes K).

The solve is reduced like the sRF solver's: (1) the responses (V(κ), τ(u)) form a closed system,
solved by Anderson acceleration; (2) the spike–mean block (ω0, t) is linear given V and is solved
exactly (:mod:`.spike_mean_block`); (3) the variances q(κ) solve a linear system whose spectral
radius must be < 1. Every equation is then evaluated once at the solution; the largest violation
is ``residual``.

**N = ∞ and finite N.** At N = ∞ the mean directions are free: for odd σ and σ* the spike part of the
error vanishes and R1(∞) = E_κ[h̃2 − h² − 2ψh̃1 + q], O(d/n). At finite N the block keeps N = ψ2 d:
a leading-order correction with no fitted parameter (it overshoots for N ≲ 800; cross terms of
order N^{-1/2} are neglected — open).

>>> r = gaussian_readout_risk("erf", "erf", psi1=8, psi2=2, lam=1e-3, noise=0.1)     # N = ∞
>>> round(r.risk1, 4), r.limit, r.converged
(0.0259, True, True)
>>> r = gaussian_readout_risk("erf", "erf", psi1=8, psi2=2, lam=1e-3, noise=0.1, width=2000)
>>> round(r.risk1, 4), r.width                          # d = 1000: network 0.0289 ± 0.0001
(0.0291, 2000.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...activations import Activation
from ...errors import ConvergenceError, ParameterError
from ...params import check_int, check_nonnegative, check_positive
from ...solvers import Anderson, SolverResult, fixed_point
from ...solvers.result import CONVERGED, MAX_STEPS, SINGULAR, STATUS_MESSAGES
from ..spiked_rf import (
    ChannelModel,
    KappaRule,
    cget_coefficients,
    cui_to_srf,
    kappa_rule,
    readout_types,
    target_functions,
)
from ..spiked_rf.mapping import SpikedRFParameters, as_activation
from .readout_quadrature import ReadoutRule, readout_rule
from .spike_mean_block import SpikeMeanBlock, spike_mean_block
from .typed_prior import (
    TypedFeatures,
    orthogonal_overlap_function,
    typed_prior_state,
    variance_operator,
    variance_response,
)

__all__ = [
    "GaussianReadoutModel",
    "GaussianReadoutRisk",
    "gaussian_readout_model",
    "solve_gaussian_readout",
    "gaussian_readout_risk",
    "readout_type_sequence",
    "width_from_dimension",
    "DEFAULT_TYPES",
    "DEFAULT_KAPPA_NODES",
]

#: default number of Gauss–Hermite readout types (checked against 1.5× as many)
DEFAULT_TYPES = 32
#: default number of Gauss–Hermite nodes in κ
DEFAULT_KAPPA_NODES = 61
#: smallest accepted 1 − (spectral radius of the variance map)
MIN_STABILITY_MARGIN = 1e-8


def width_from_dimension(psi2: float, d: int) -> float:
    """N = round(ψ2·d), the width of the simulated network at dimension d (as the simulator)."""
    return float(round(check_positive("psi2", psi2) * check_positive("d", d)))


@dataclass(frozen=True)
class GaussianReadoutModel:
    r"""The network after one large step as a typed spiked RF, tabulated on the κ and type rules.

    Attributes:
        student, teacher: the (centred) activations σ, σ*.
        psi1, psi2: ψ1 = n/d, ψ2 = N/d.
        c: the learning-rate constant, η = c√N.
        noise: σ_ε.
        readout: the rule for the types u (:class:`~.readout_quadrature.ReadoutRule`).
        params: the sRF parameters: spike strength r, overlap γ, bulk variances c(u_j).
        channel: cGET coefficients μ0, μ1, μ2² (K × n) and h, h̃1, h̃2 on the κ rule
            (:class:`~asymptotics.theory.spiked_rf.ChannelModel`).
        features: the prior's data (:class:`~.typed_prior.TypedFeatures`).
        label_energy: E y² = E σ*² + σ_ε².
        kernel_bound: μ2*², the kernel lower bound of Ba et al. (Prop. 1).
    """

    student: Activation
    teacher: Activation
    psi1: float
    psi2: float
    c: float
    noise: float
    readout: ReadoutRule
    params: SpikedRFParameters
    channel: ChannelModel
    features: TypedFeatures
    label_energy: float
    kernel_bound: float

    @property
    def r(self) -> float:
        """Spike strength r = c μ1 ‖ĝ‖ (type u has spike r u)."""
        return self.params.r

    @property
    def gamma(self) -> float:
        """Overlap γ = μ1*/‖ĝ‖ of the spike direction with β*."""
        return self.params.gamma

    @property
    def K(self) -> int:
        return self.readout.K

    @property
    def kappa(self) -> np.ndarray:
        return self.channel.rule.nodes


def gaussian_readout_model(student, teacher, psi1: float, psi2: float, *, c: float = 1.0, noise: float = 0.0,
                           readout: str | ReadoutRule = "hermite", types: int = DEFAULT_TYPES, readout_values=None,
                           readout_proportions=None, kappa_nodes: int = DEFAULT_KAPPA_NODES,
                           rule: KappaRule | None = None) -> GaussianReadoutModel:
    r"""Map the Ba-protocol network at η = c√N to the typed spiked RF and tabulate it.

    Parameters
    ----------
    student, teacher : activations σ, σ* (names, expressions or :class:`Activation`; centred by default).
    psi1, psi2 : ψ1 = n/d > 0, ψ2 = N/d > 0.
    c : ≥ 0, the step η = c√N (c = 0: no step, random features).
    noise : σ_ε ≥ 0.
    readout : ``"hermite"`` (Gaussian readout, K quadrature nodes), ``"quantile"`` (K equal-mass
        discrete types), ``"given"`` (``readout_values``/``readout_proportions``), or a ReadoutRule.
    types : K.
    kappa_nodes : Gauss–Hermite nodes in κ, or pass a :class:`~asymptotics.theory.spiked_rf.KappaRule`
        as ``rule``. ``channel.quadrature_error`` is the error estimate of the inner (z, s)
        expectations only; :func:`gaussian_readout_risk` checks the κ rule on the risk itself.
    """
    p1 = check_positive("psi1", psi1)
    p2 = check_positive("psi2", psi2)
    cc = check_nonnegative("c", c)
    sn = check_nonnegative("noise", noise)
    s_act = as_activation(student, "student")
    t_act = as_activation(teacher, "teacher")
    ro = readout if isinstance(readout, ReadoutRule) else readout_rule(
        readout, types, values=readout_values, proportions=readout_proportions)
    if rule is None:
        kn = int(kappa_nodes) if isinstance(kappa_nodes, (int, np.integer)) and not isinstance(kappa_nodes, bool) else 0
        if not 8 <= kn <= 1000:
            raise ParameterError("kappa_nodes", kappa_nodes, "an integer in [8, 1000]")
        rule = kappa_rule("hermite", kn)
    # Ba's one large step η = c√N is Cui's step with η̃ = c and a first batch of α0 = ψ1 samples per dimension
    params = cui_to_srf(cc, p1, s_act, t_act, sn, readout_types(tuple(ro.values.tolist()), tuple(ro.weights.tolist())))
    co = cget_coefficients(s_act, params.spikes, params.bulk, rule.nodes, tol=1e-11)
    tf = target_functions(t_act, params.gamma, rule.nodes, tol=1e-11)
    ch = ChannelModel(rule, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t, sn**2, co.error + tf.error, params)
    feats = TypedFeatures(ch.mu1, ch.mu2_sq, np.asarray(params.bulk, dtype=float), ro.weights.copy(), p2)
    ct = t_act.constants()
    return GaussianReadoutModel(s_act, t_act, p1, p2, cc, sn, ro, params, ch, feats,
                                float(ct.second_moment + sn**2), float(ct.mu2_sq))


@dataclass(frozen=True)
class GaussianReadoutRisk:
    r"""The asymptotic risk after one large step (Gaussian readout) and its order parameters.

    Functions of κ are given on the Gauss–Hermite nodes ``kappa`` (weights ``kappa_weights``,
    E_κ f = Σ weights·f); functions of the type u on ``readout_values`` (weights ``readout_weights``).

    Attributes:
        risk1: R1 = E_x(f̂(x) − f*(x))² (label noise excluded).
        train_error: (1/n)‖ỹ − Φâ‖² (label noise included).
        spike_error: E_κ[(h − ω̄)²], the part of R1 from the spike direction (0 at N = ∞ for odd σ, σ*).
        width: N, or ``math.inf`` for the proportional limit.
        psi1, psi2, lam, noise, c: ψ1, ψ2, Ba's ridge λ, σ_ε, and η = c√N.
        lam_cui: λ_C = λψ1/ψ2 (Cui's ridge).
        r, gamma: spike strength and overlap of the typed sRF.
        kernel_bound: μ2*² (Ba et al., Prop. 1: every kernel's risk is ≥ μ2*²).
        kappa, kappa_weights: the κ rule.
        V, q: response V(κ) and prediction variance q(κ).
        omega_bar, omega0, t, psi: ω̄(κ) = ω0(κ) + κ t(κ) and ψ(κ) (the h̃1 overlap).
        conditional_error: E(κ) = E[(f*(x) − f̂(x))² | κ] (noise excluded).
        h, h1t, h2t: target functions h(κ), h̃1(κ), h̃2(κ).
        readout: ``"hermite"``, ``"quantile"`` or ``"given"``; types: K.
        readout_values, readout_weights, bulk, self_energy: u_j, π_j, c(u_j), τ(u_j).
        type_error: |R1(K) − R1(K')| for the last two K of the Gauss–Hermite sequence (``None``
            for discrete types, where K is part of the model).
        type_sequence: ((K, R1), …) tried in the convergence check.
        kappa_nodes: n; quadrature_error: estimated error of the κ integrals (n vs 2n nodes).
        mean_rank: dimension of the mean span used at N = ∞ (K at finite N).
        converged, status, message, iterations, residual: solver report (residual: largest
            violation of any equation at the solution, scaled).
        stability_margin: 1 − spectral radius of the variance map (> 0).
    """

    risk1: float
    train_error: float
    spike_error: float
    width: float
    psi1: float
    psi2: float
    lam: float
    noise: float
    c: float
    lam_cui: float
    r: float
    gamma: float
    kernel_bound: float
    kappa: np.ndarray
    kappa_weights: np.ndarray
    V: np.ndarray
    q: np.ndarray
    omega_bar: np.ndarray
    omega0: np.ndarray
    t: np.ndarray
    psi: np.ndarray
    conditional_error: np.ndarray
    h: np.ndarray
    h1t: np.ndarray
    h2t: np.ndarray
    readout: str
    types: int
    readout_values: np.ndarray
    readout_weights: np.ndarray
    bulk: np.ndarray
    self_energy: np.ndarray
    type_error: float | None
    type_sequence: tuple
    kappa_nodes: int
    quadrature_error: float
    mean_rank: int
    converged: bool
    status: int
    message: str
    iterations: int
    residual: float
    stability_margin: float
    start: np.ndarray = field(default=None, repr=False, compare=False)

    @property
    def limit(self) -> bool:
        """True for the proportional limit N = ∞."""
        return math.isinf(self.width)

    @property
    def beats_kernels(self) -> bool:
        """R1 < μ2*²: below every kernel's risk (Ba et al., Prop. 1)."""
        return bool(self.converged and self.risk1 < self.kernel_bound)

    def as_dict(self) -> dict:
        """A flat row (numbers are None unless converged; N = ∞ written as ``"inf"``)."""
        ok = self.converged
        return {
            "psi1": self.psi1, "psi2": self.psi2, "lam": self.lam, "noise": self.noise, "c": self.c,
            "width": "inf" if self.limit else self.width, "limit": self.limit,
            "risk1": self.risk1 if ok else None,
            "train_error": self.train_error if ok else None,
            "spike_error": self.spike_error if ok else None,
            "kernel_bound": self.kernel_bound,
            "beats_kernels": self.beats_kernels if ok else None,
            "r": self.r, "gamma": self.gamma, "lam_cui": self.lam_cui,
            "readout": self.readout, "types": self.types,
            "type_error": self.type_error if ok else None,
            "kappa_nodes": self.kappa_nodes, "quadrature_error": self.quadrature_error,
            "mean_rank": self.mean_rank if ok else None,
            "status": self.message, "iterations": self.iterations,
            "residual": self.residual if math.isfinite(self.residual) else None,
            "stability_margin": self.stability_margin if ok else None,
        }


# ---- the solve --------------------------------------------------------------------------------

def _check_width(width) -> float:
    if isinstance(width, str) and width.strip().lower() in ("inf", "infinity"):
        return math.inf
    if isinstance(width, (int, float, np.integer, np.floating)) and not isinstance(width, bool):
        w = float(width)
        if math.isinf(w) and w > 0:
            return math.inf
        if math.isfinite(w) and w >= 1:
            return w
    raise ParameterError("width", width, "a number of neurons N >= 1, or inf (the proportional limit)")


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
        status=res.status if res is not None else SINGULAR, message=message,
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
        kappa_nodes=n, quadrature_error=ch.quadrature_error, mean_rank=blk.rank, converged=True, status=CONVERGED,
        message=STATUS_MESSAGES[CONVERGED], iterations=res.iterations, residual=resid, stability_margin=1.0 - rad,
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
    width = _check_width(width)
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


# ---- the user-level function with the convergence check in K ---------------------------------

def _ladder(start: int, cap: int, factor: float):
    out = [start]
    while out[-1] < cap:
        out.append(min(cap, int(math.ceil(factor * out[-1]))))
    return out


def _as_widths(width):
    if isinstance(width, Sequence) and not isinstance(width, str):
        ws = [_check_width(wd) for wd in width]
        if not ws:
            raise ParameterError("width", width, "a non-empty list of widths")
        return ws, False
    return [_check_width(width)], True


def _refine(solve_at, ladder, tolerance, what, first=None):
    """Solve along ``ladder`` until two successive levels agree within ``tolerance`` on every risk
    (``first``: the results at ``ladder[0]`` if already known).

    Returns (results at the finer level, differences (one per result) or None, sequence [(level, risks)], message or None)."""
    prev = solve_at(ladder[0]) if first is None else first
    seq = [(ladder[0], [r.risk1 for r in prev])]
    for lv in ladder[1:]:
        if not all(r.converged for r in prev):
            return prev, None, seq, None
        cur = solve_at(lv)
        seq.append((lv, [r.risk1 for r in cur]))
        if not all(r.converged for r in cur):
            return cur, None, seq, None
        errs = [abs(a.risk1 - b.risk1) for a, b in zip(cur, prev, strict=True)]
        if max(errs) <= tolerance:
            return cur, errs, seq, None
        prev = cur
    if not all(r.converged for r in prev):
        return prev, None, seq, None
    return prev, None, seq, (f"large-step risk: no convergence in the {what} up to {ladder[-1]} "
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
        res = [replace(r, converged=False, status=MAX_STEPS, message=msg) for r in res]
    res = [replace(r, type_error=None if type_err is None else type_err[i],
                   type_sequence=tuple((k, v[i]) for k, v in type_seq)) for i, r in enumerate(res)]
    return finish(res)


def readout_type_sequence(student, teacher, psi1: float, psi2: float, lam: float, *, types=(2, 4, 8, 16, 32),
                          kind: str = "quantile", **kwargs) -> tuple[GaussianReadoutRisk, ...]:
    r"""Risks with K = ``types`` discrete readout types of ``kind`` (default K equal-mass quantile
    types), to show the convergence to the Gaussian readout (``35-large-step-gaussian-readout.md`` §3:
    erf/erf, ψ1 = 8, N = ∞: K = 2, 4, 8, 16, 32 → .0545, .0295, .0261, .0259, .0259)."""
    return tuple(gaussian_readout_risk(student, teacher, psi1, psi2, lam, readout=kind, types=K, **kwargs)
                 for K in types)
