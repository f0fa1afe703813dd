r"""The network after one large step as a typed spiked RF: :class:`GaussianReadoutModel`.

With η = c√N neuron i is a spiked-random-features neuron of *type* uᵢ = √N a⁰ᵢ ~ N(0, 1)
(``docs/large-step-exact.md``): spike r uᵢ along v = ĝ/‖ĝ‖, bulk variance c(uᵢ), overlap γ with β*.
:func:`gaussian_readout_model` maps the protocol to it (Cui et al.'s map with η̃ = c, α0 = ψ1) and
tabulates the cGET coefficients on a Gauss–Hermite rule in κ and a rule for the types. With
``initial_columns="gaussian"`` at a finite width the types are pairs (uᵢ, ρᵢ²), ρᵢ² = ‖w⁰ᵢ‖² ~ χ²_d/d the
norm of the Gaussian initial column (:mod:`..column_norms`). The tables
do not depend on ψ2 or λ and are cached in memory (read-only arrays), so a sweep over λ, the widths
and the refinement ladders of :func:`~.risk.gaussian_readout_risk` compute each of them once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ....activations import Activation
from ....errors import ParameterError
from ....params import check_nonnegative, check_positive
from ...spiked_rf import (
    ChannelModel,
    KappaRule,
    cget_coefficients,
    cui_to_srf,
    kappa_rule,
    readout_types,
    target_functions,
)
from ...spiked_rf.mapping import SpikedRFParameters, as_activation
from ..column_norms import COLUMN_NODES, check_columns, column_norm_rule, norm_factors
from ..initial_output import (
    check_gradient,
    exact_gradient_parameters,
    initial_output_energy,
    initial_output_terms,
)
from ..readout_quadrature import ReadoutRule, readout_rule
from ..typed_prior import TypedFeatures

__all__ = [
    "GaussianReadoutModel",
    "gaussian_readout_model",
    "width_from_dimension",
    "check_width",
    "DEFAULT_TYPES",
    "DEFAULT_KAPPA_NODES",
]

#: default number of Gauss–Hermite readout types (checked against 1.5× as many)
DEFAULT_TYPES = 32
#: default number of Gauss–Hermite nodes in κ
DEFAULT_KAPPA_NODES = 61
#: number of tabulated (σ, σ*, ψ1, c, σ_ε, types, κ nodes) kept in memory (≤ 0.3 MB each at K = 48, n = 122)
TABLE_CACHE_SIZE = 256


def width_from_dimension(psi2: float, d: int) -> float:
    """N = round(ψ2·d), the width of the simulated network at dimension d (as the simulator)."""
    return float(round(check_positive("psi2", psi2) * check_positive("d", d)))


def check_width(width) -> float:
    """N as a float: a number of neurons ≥ 1, or ``math.inf`` (also the strings "inf", "infinity")."""
    if isinstance(width, str) and width.strip().lower() in ("inf", "infinity"):
        return math.inf
    if isinstance(width, (int, float, np.integer, np.floating)) and not isinstance(width, bool):
        w = float(width)
        if math.isinf(w) and w > 0:
            return math.inf
        if math.isfinite(w) and w >= 1:
            return w
    raise ParameterError("width", width, "a number of neurons N >= 1, or inf (the proportional limit)")


@dataclass(frozen=True)
class GaussianReadoutModel:
    r"""The network after one large step as a typed spiked RF, tabulated on the κ and type rules.

    Attributes:
        student, teacher: the (centred) activations σ, σ*.
        psi1, psi2: ψ1 = n/d, ψ2 = N/d.
        c: the learning-rate constant, η = c√N.
        noise: σ_ε.
        readout: the rule for the types (:class:`~.readout_quadrature.ReadoutRule`): the readout
            types u, or with Gaussian columns the products (u, ρ²) with values u·E σ'(ρz)/E σ'(z)
            (the spike of a type is r times its value) and weights π(u)·π(ρ²).
        params: the sRF parameters: spike strength r, overlap γ, bulk variances c(u_j) (c(u, ρ²)).
        channel: cGET coefficients μ0, μ1, μ2² (K × n) and h, h̃1, h̃2 on the κ rule
            (:class:`~asymptotics.theory.spiked_rf.ChannelModel`).
        features: the prior's data (:class:`~.typed_prior.TypedFeatures`).
        label_energy: E y² = E σ*² + σ_ε².
        kernel_bound: μ2*², the kernel lower bound of Ba et al. (Prop. 1).
        initial_columns: ``"unit"`` or ``"gaussian"`` (the initial columns' norms are types).
        dimension: d of the column-norm law (``math.inf`` with unit columns or at N = ∞).
        gradient: ``"labels"`` (the step on y) or ``"exact"`` (the residual y − f₀: the terms of
            :mod:`..initial_output` at width ``gradient_width``).
        gradient_width: N of the f₀ terms (``math.inf`` when ``gradient="labels"`` or at N = ∞).
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
    initial_columns: str = "unit"
    dimension: float = math.inf
    gradient: str = "labels"
    gradient_width: float = math.inf

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
                           rule: KappaRule | None = None, initial_columns: str = "unit",
                           width=math.inf, gradient: str = "labels") -> GaussianReadoutModel:
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
    initial_columns : ``"unit"`` (default: ρ ≡ 1, Cui et al.'s unit columns) or ``"gaussian"`` (Ba et al.'s
        W⁰ with N(0, 1/d) entries: at a finite ``width`` N the types become (u, ρ²), ρ² ~ χ²_d/d,
        d = N/ψ2, on a :data:`~..column_norms.COLUMN_NODES`-node Gauss rule).
    width : N, needed (finite) for Gaussian columns and the exact gradient; ``math.inf`` gives ρ ≡ 1
        and the step on the labels.
    gradient : ``"labels"`` (default: the step on y, §1) or ``"exact"`` (Ba et al.'s residual y − f₀: at a
        finite ``width`` the spike, its overlap and the bulk carry the terms of :mod:`..initial_output`).
    """
    p1 = check_positive("psi1", psi1)
    p2 = check_positive("psi2", psi2)
    cc = check_nonnegative("c", c)
    sn = check_nonnegative("noise", noise)
    s_act = as_activation(student, "student")
    t_act = as_activation(teacher, "teacher")
    ro = readout if isinstance(readout, ReadoutRule) else readout_rule(
        readout, types, values=readout_values, proportions=readout_proportions)
    cols = check_columns(initial_columns)
    grad = check_gradient(gradient)
    dim = f0_width = math.inf
    if cols == "gaussian":
        wd = check_width(width)
        dim = wd / p2 if math.isfinite(wd) else math.inf
        if dim < 2:
            raise ParameterError("width", width, f"N >= 2ψ2 = {2 * p2:g} with Gaussian columns (d = N/ψ2 >= 2)")
    if grad == "exact":
        f0_width = check_width(width)
    if rule is None:
        kn = int(kappa_nodes) if isinstance(kappa_nodes, (int, np.integer)) and not isinstance(kappa_nodes, bool) else 0
        if not 8 <= kn <= 1000:
            raise ParameterError("kappa_nodes", kappa_nodes, "an integer in [8, 1000]")
        params, ch = _tabulated(s_act, t_act, p1, cc, sn, ro.kind, tuple(ro.values.tolist()),
                                tuple(ro.weights.tolist()), kn, dim, f0_width)
    else:
        params, ch = _tabulate(s_act, t_act, p1, cc, sn, ro, rule, dim, f0_width)
    if math.isfinite(dim):
        ro = ReadoutRule(np.asarray(params.readout.values, dtype=float), np.asarray(params.readout.proportions,
                                                                                      dtype=float), ro.kind)
    feats = TypedFeatures(ch.mu1, ch.mu2_sq, np.asarray(params.bulk, dtype=float), ro.weights.copy(), p2)
    ct = t_act.constants()
    return GaussianReadoutModel(s_act, t_act, p1, p2, cc, sn, ro, params, ch, feats,
                                float(ct.second_moment + sn**2), float(ct.mu2_sq), cols, dim, grad, f0_width)


def _column_types(s_act, params: SpikedRFParameters, ro: ReadoutRule, dim: float) -> SpikedRFParameters:
    """The (u, ρ²) product types of Gaussian initial columns at dimension ``dim``
    (:mod:`..column_norms`): values u·E σ'(ρz)/E σ'(z), bulk ρ² + (c(u) − 1)·Var σ'(ρz)/Var σ'(z),
    weights π(u)·π(ρ²); ρ² slowest."""
    rho2, wr = column_norm_rule(dim, COLUMN_NODES)
    f1, f2 = norm_factors(s_act, rho2)
    u, wu = ro.values, ro.weights
    excess = np.asarray(params.bulk, dtype=float) - 1.0
    values = np.concatenate([u * a for a in f1])
    weights = np.concatenate([wu * w for w in wr])
    bulk = np.concatenate([r2 + excess * b for r2, b in zip(rho2, f2, strict=True)])
    src = params.source + (("initial_columns", "gaussian"), ("d", dim))
    return SpikedRFParameters(params.r, params.gamma, tuple(bulk.tolist()),
                              readout_types(tuple(values.tolist()), tuple(weights.tolist())), params.origin, src)


def _tabulate(s_act, t_act, psi1, c, noise, ro: ReadoutRule, rule: KappaRule, dim: float = math.inf,
              f0_width: float = math.inf):
    """The sRF parameters and the cGET tables on the κ rule (they do not depend on ψ2 or λ; with
    Gaussian columns, ``dim`` finite, on the (u, ρ²) types; with the exact gradient at width
    ``f0_width`` < ∞, with the initial output's terms)."""
    rho2, wr = column_norm_rule(dim, COLUMN_NODES) if math.isfinite(dim) else (np.ones(1), np.ones(1))
    exact = math.isfinite(f0_width) and c > 0.0
    map_noise = noise
    if exact:       # the residual y − f₀ has the label energy E y² + E f₀² (initial_output, item 3)
        map_noise = math.sqrt(noise**2 + initial_output_energy(s_act, ro.values, ro.weights, rho2, wr, f0_width))
    # Ba's one large step η = c√N is Cui's step with η̃ = c and a first batch of α0 = ψ1 samples per dimension
    params = cui_to_srf(c, psi1, s_act, t_act, map_noise, readout_types(tuple(ro.values.tolist()), tuple(ro.weights.tolist())))
    if exact:
        params = replace(params, source=tuple((k, noise if k == "noise" else v) for k, v in params.source)
                         + (("initial_output_energy", map_noise**2 - noise**2),))
    if math.isfinite(dim):
        params = _column_types(s_act, params, ro, dim)
    if exact:
        u = np.tile(ro.values, rho2.size)
        rho2_types = np.repeat(rho2, ro.values.size)              # ρ² slowest, as in _column_types
        terms = initial_output_terms(s_act, c, u, rho2_types, params.readout.values, params.readout.proportions,
                                     f0_width)
        params = exact_gradient_parameters(params, terms, rho2_types)
    co = cget_coefficients(s_act, params.spikes, params.bulk, rule.nodes, tol=1e-11)
    tf = target_functions(t_act, params.gamma, rule.nodes, tol=1e-11)
    ch = ChannelModel(rule, co.mu0, co.mu1, co.mu2_sq, tf.h, tf.h1t, tf.h2t, noise**2, co.error + tf.error, params)
    for arr in (ch.mu0, ch.mu1, ch.mu2_sq, ch.h, ch.h1t, ch.h2t, rule.nodes, rule.weights):
        arr.setflags(write=False)                      # shared by every model (and result) of the cache
    return params, ch


@lru_cache(maxsize=TABLE_CACHE_SIZE)
def _tabulated(s_act, t_act, psi1, c, noise, kind, values, weights, kappa_nodes, dim=math.inf, f0_width=math.inf):
    """:func:`_tabulate` on the Gauss–Hermite κ rule, cached by (σ, σ*, ψ1, c, σ_ε, types, nodes, d, N
    of the exact gradient): a grid over λ or ψ2, the widths and the refinement ladders reuse the tables."""
    ro = ReadoutRule(np.array(values, dtype=float), np.array(weights, dtype=float), kind)
    return _tabulate(s_act, t_act, psi1, c, noise, ro, kappa_rule("hermite", kappa_nodes), dim, f0_width)
