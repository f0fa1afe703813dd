r"""The prior side of the sRF fixed point: one small frozen class per bulk spectrum, one interface.

The prior of the ridge readout enters the fixed point only through its traces at given conjugates
(docs/spiked-rf.md, "How it is computed"): with S = λ_r + V̂1 λ + V̂2 over the spectrum of
Ω = W̃ΠW̃ᵀ, the first-order traces V1, V2 (K-type blocks V1_kl, V2_k), the responses t = ⟨F/S⟩ t̂
and ψ = ⟨H/S⟩ ψ̂, and the linear second-order map (Q̂1, q̂2, t̂, ψ̂) ↦ (q1, q2) [(Q1, Q2)].
Each prior gives the same interface:

* ``reduced_map(model, ratio, lam, beta)`` and ``reduced_start(...)`` — the closed response
  system the solver iterates (on log V, or on the packed K-type blocks), and where it starts;
* ``responses(x, K)`` — (V1, V2) from a point of that system;
* ``at(model, lam, beta, V1hat, V2hat, V2)`` — a :class:`PriorPoint`: V1, V2, the spike response
  T (t = T t̂), ψ(ψ̂), the variance map L, its sources and the published second-order equations.

The priors and the status of their equations:

* :class:`MarchenkoPastur` — c·MP(β), F = βc, H = βλ (K = 1): a typed closed form
  (:mod:`.prior_mp`), tied to the engine's MP pencil (``mp_gram`` with its z-tangent) by
  ``tests/test_spiked_rf_priors.py`` (1e-12 on random points). The engine's lowered solve is not
  used at run time: m and m' from it cost ~1.2× the closed form's five moments per call, and the
  moments A1, B1, B2 recovered from m, m' lose digits to cancellation at small u (B2: 2e-4
  relative at u = 1e-6), where the closed form is exact to rounding.
* :class:`BlockMarchenkoPastur` — K readout types, the block (operator-valued) MP problem: typed
  closed forms (:mod:`.readout_types`) derived from the engine's 2K-block pencil
  (:mod:`.block_mp_derivation`); the tests check that the typed solution satisfies the engine's
  Dyson equations (residual < 1e-12) and that the engine's implicit derivatives equal the typed
  tangents.
* :class:`FiniteSpectrum` — a sampled or given spectrum (λᵢ, Fᵢ, Hᵢ), K = 1: finite sums (the
  definitions themselves).

A prior is chosen once per solve by :func:`choose_prior` (``None`` → MP for K = 1, block MP
for K > 1; ``"mp"``, ``"block-mp"``, a :class:`~.prior_mp.Spectrum` or a prior instance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...numerics.marchenko_pastur import mp_resolvent_moments
from .channel import ChannelModel, response_conjugates, response_function
from .prior_mp import PriorTraces, Spectrum, finite_prior_traces, mp_prior_traces
from .readout_types import (
    BlockMPState,
    block_second_order_map,
    block_self_energy,
    block_traces,
    solve_block_mp,
)

__all__ = [
    "Prior",
    "PriorPoint",
    "ScalarPriorPoint",
    "BlockPriorPoint",
    "MarchenkoPastur",
    "BlockMarchenkoPastur",
    "FiniteSpectrum",
    "choose_prior",
    "response_map_mp",
]


# ---- the prior at one point of the conjugates ---------------------------------------------------

@dataclass(frozen=True)
class ScalarPriorPoint:
    r"""The prior traces of one readout type (K = 1) at given conjugates.

    Attributes:
        traces: the :class:`~.prior_mp.PriorTraces` (V1, V2, ⟨F/S⟩, ⟨H/S⟩ and the 2×4 map P with
            (q1, q2) = P (q̂1, q̂2, t̂², ψ̂²)).
    """

    traces: PriorTraces

    @property
    def V1(self) -> np.ndarray:
        return np.array([[self.traces.V1]])

    @property
    def V2(self) -> np.ndarray:
        return np.array([self.traces.V2])

    @property
    def spike_response(self) -> np.ndarray:
        """T with t = T t̂ (⟨F/S⟩; βcV2 for MP)."""
        return np.array([self.traces.spike_response])

    def orthogonal_overlap(self, psihat) -> np.ndarray:
        """ψ = ⟨H/S⟩ ψ̂ (βV1 ψ̂ for MP)."""
        return np.array([self.traces.orthogonal_response * psihat[0]])

    @property
    def variance_map(self) -> np.ndarray:
        """L: (q̂1, q̂2) ↦ (q1, q2), the part of P acting on the variance conjugates."""
        return self.traces.second_order[:, :2]

    def variance_source(self, that, psihat) -> np.ndarray:
        """The part of (q1, q2) driven by t̂² and ψ̂²."""
        P = self.traces.second_order
        return P[:, 2] * that[0] ** 2 + P[:, 3] * psihat[0] ** 2

    def second_order(self, Q1hat, q2hat, that, psihat) -> np.ndarray:
        """(q1, q2) from the published prior equations (the residual check of the solution)."""
        return self.traces.second_order @ np.array([Q1hat[0, 0], q2hat[0], that[0] ** 2, psihat[0] ** 2])

    def consistency_residual(self) -> float | None:
        return None


@dataclass(frozen=True)
class BlockPriorPoint:
    r"""The block-MP prior traces of K readout types at given conjugates.

    Attributes:
        state: the :class:`~.readout_types.BlockMPState` (τ, V1, V2, Λ and the data).
        L: the second-order map (vec G, g) ↦ (vec Q1, Q2) of :func:`~.readout_types.block_second_order_map`
            (sources G = Q̂1 + βψ̂ψ̂ᵀ, g = q̂2 + βc∘t̂²).
    """

    state: BlockMPState
    L: np.ndarray

    @property
    def V1(self) -> np.ndarray:
        return self.state.V1

    @property
    def V2(self) -> np.ndarray:
        return self.state.V2

    @property
    def spike_response(self) -> np.ndarray:
        """T with t_k = T_k t̂_k: βc_k V2_k (the spike column W̃v is independent of Ω)."""
        return self.state.beta * self.state.c * self.state.V2

    def orthogonal_overlap(self, psihat) -> np.ndarray:
        """ψ = βV1 ψ̂ (W̃ζ is a typical column of W̃Π)."""
        return self.state.beta * self.state.V1 @ psihat

    @property
    def variance_map(self) -> np.ndarray:
        return self.L

    def _sources(self, G, g):
        return np.concatenate([np.asarray(G).ravel(), g])

    def variance_source(self, that, psihat) -> np.ndarray:
        st, K = self.state, self.state.c.size
        e = np.concatenate([(st.beta * np.outer(psihat, psihat)).ravel(), np.zeros(K)])
        return self.L @ (e + np.concatenate([np.zeros(K * K), st.beta * st.c * that**2]))

    def second_order(self, Q1hat, q2hat, that, psihat) -> np.ndarray:
        st = self.state
        return self.L @ self._sources(Q1hat + st.beta * np.outer(psihat, psihat), q2hat + st.beta * st.c * that**2)

    def consistency_residual(self) -> float:
        """Largest change of V1 when the block MP problem is solved again from the solution's τ."""
        st = self.state
        again = solve_block_mp(st.V1hat, st.D, st.c, st.pi, st.beta, tau0=st.tau)
        return float(np.abs(again.V1 - st.V1).max())


PriorPoint = ScalarPriorPoint | BlockPriorPoint


# ---- the reduced response systems ---------------------------------------------------------------
#
# The responses are positive and span many decades as λ → 0 (V ~ 1/λ in the over-parametrised
# regime), so the maps act on logarithms: x = (log V1, log V2) for K = 1. For K types,
# x = (log V2_k, log V1_kk, V1_kl/√(V1_kk V1_ll) for k < l); the self-energy τ is carried by V2
# through τ = π/V2 − D (one step of the block-MP iteration per outer step).

def _scalar_conjugates(V, model: ChannelModel, ratio: float):
    """(V̂1, V̂2) of one readout type at the responses V = (V1, V2)."""
    V1, V2 = float(V[0]), float(V[1])
    mu1sq = model.mu1[0] ** 2
    inv = model.weights / (1.0 + mu1sq * V1 + model.mu2_sq[0] * V2)
    return ratio * float(mu1sq @ inv), ratio * float(model.mu2_sq[0] @ inv)


def response_map_mp(V, model: ChannelModel, ratio: float, lam: float, beta: float):
    r"""(V1, V2) ↦ (⟨λ/S⟩, ⟨1/S⟩) at the conjugates of (V1, V2): the closed response system for
    K = 1 with the Marchenko–Pastur prior."""
    V1h, V2h = _scalar_conjugates(V, model, ratio)
    c = model.params.bulk[0]
    s0 = lam + V2h
    A0, A1, *_ = mp_resolvent_moments(V1h * c / s0, beta)
    return np.array([c * float(A1) / s0, float(A0) / s0])


def _response_map_finite(V, model, ratio, lam, spectrum):
    V1h, V2h = _scalar_conjugates(V, model, ratio)
    S = lam + V2h + V1h * spectrum.eigenvalues
    return np.array([float(np.mean(spectrum.eigenvalues / S)), float(np.mean(1.0 / S))])


def _log_map(fn):
    def g(x):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return np.log(fn(np.exp(x)))
    return g


class _ScalarPrior:
    """Shared reduced system of the K = 1 priors: x = (log V1, log V2)."""

    def _linear_map(self, model, ratio, lam, beta):  # pragma: no cover - abstract
        raise NotImplementedError

    def reduced_map(self, model: ChannelModel, ratio: float, lam: float, beta: float):
        return _log_map(self._linear_map(model, ratio, lam, beta))

    def reduced_start(self, model: ChannelModel, ratio: float, lam: float, beta: float) -> np.ndarray:
        return np.log(self._linear_map(model, ratio, lam, beta)(np.zeros(2)))

    def responses(self, x, K: int):
        return np.array([[math.exp(x[0])]]), np.array([math.exp(x[1])])

    def check_types(self, K: int) -> None:
        if K != 1:
            raise ParameterError("prior", self.name, "'block-mp' for K > 1 readout types")


@dataclass(frozen=True)
class MarchenkoPastur(_ScalarPrior):
    r"""The asymptotic bulk of one readout type: λᵢ ~ c·MP(β), F = βc, H = βλ (closed form)."""

    name = "mp"

    def _linear_map(self, model, ratio, lam, beta):
        return lambda V: response_map_mp(V, model, ratio, lam, beta)

    def at(self, model: ChannelModel, lam: float, beta: float, V1hat, V2hat, V2) -> ScalarPriorPoint:
        c = model.params.bulk[0]
        return ScalarPriorPoint(mp_prior_traces(lam, float(V1hat[0, 0]), float(V2hat[0]), c, beta))


@dataclass(frozen=True, eq=False)
class FiniteSpectrum(_ScalarPrior):
    r"""A finite bulk (the authors' finite-d approach): averages (1/p) Σᵢ over a given spectrum.

    Attributes:
        spectrum: eigenvalues λᵢ of Ω and weights Fᵢ, Hᵢ (:class:`~.prior_mp.Spectrum`).
    """

    spectrum: Spectrum
    name = "finite"

    def check_types(self, K: int) -> None:
        if K != 1:
            raise ParameterError("prior", "spectrum", "a finite spectrum only with one readout type (K = 1)")

    def _linear_map(self, model, ratio, lam, beta):
        return lambda V: _response_map_finite(V, model, ratio, lam, self.spectrum)

    def at(self, model: ChannelModel, lam: float, beta: float, V1hat, V2hat, V2) -> ScalarPriorPoint:
        return ScalarPriorPoint(finite_prior_traces(lam, float(V1hat[0, 0]), float(V2hat[0]), self.spectrum))


def _block_pack(V1, V2):
    d = np.diag(V1)
    iu = np.triu_indices(V1.shape[0], 1)
    corr = V1[iu] / np.sqrt(d[iu[0]] * d[iu[1]])
    return np.concatenate([np.log(V2), np.log(d), corr])


def _block_unpack(x, K):
    V2 = np.exp(x[:K])
    d = np.exp(x[K:2 * K])
    V1 = np.diag(d)
    iu = np.triu_indices(K, 1)
    off = np.clip(x[2 * K:], -1.0, 1.0) * np.sqrt(d[iu[0]] * d[iu[1]])
    V1[iu] = off
    V1[(iu[1], iu[0])] = off
    return V1, V2


def _block_data(model):
    return np.asarray(model.params.bulk), np.asarray(model.params.readout.proportions)


def _block_step(V1, V2, model, ratio, lam, beta):
    V = np.maximum(response_function(model.mu1, model.mu2_sq, V1, V2), 0.0)
    V1h, V2h = response_conjugates(model.rule, model.mu1, model.mu2_sq, ratio / (1.0 + V))
    D = lam + V2h
    c, pi = _block_data(model)
    tau = np.maximum(pi / V2 - D, 0.0)
    tau_new = block_self_energy(tau, V1h, D, c, pi, beta)
    V1n, V2n, _ = block_traces(tau_new, V1h, D, c, pi, beta)
    return V1n, V2n


@dataclass(frozen=True)
class BlockMarchenkoPastur:
    r"""K readout types: the block (operator-valued) Marchenko–Pastur prior of :mod:`.readout_types`."""

    name = "block-mp"

    def check_types(self, K: int) -> None:
        return None

    def reduced_map(self, model: ChannelModel, ratio: float, lam: float, beta: float):
        def g(x):
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                V1, V2 = _block_unpack(x, model.K)
                return _block_pack(*_block_step(V1, V2, model, ratio, lam, beta))
        return g

    def reduced_start(self, model: ChannelModel, ratio: float, lam: float, beta: float) -> np.ndarray:
        """The exact block-MP prior at the conjugates of V = 0."""
        V1h, V2h = response_conjugates(model.rule, model.mu1, model.mu2_sq, np.full(model.rule.nodes.size, ratio))
        st = solve_block_mp(V1h, lam + V2h, *_block_data(model), beta)
        return _block_pack(st.V1, st.V2)

    def responses(self, x, K: int):
        return _block_unpack(x, K)

    def at(self, model: ChannelModel, lam: float, beta: float, V1hat, V2hat, V2) -> BlockPriorPoint:
        c, pi = _block_data(model)
        state = solve_block_mp(V1hat, lam + V2hat, c, pi, beta, tau0=np.maximum(pi / V2 - lam - V2hat, 0.0))
        return BlockPriorPoint(state, block_second_order_map(state))


Prior = MarchenkoPastur | BlockMarchenkoPastur | FiniteSpectrum


def choose_prior(model: ChannelModel, prior=None) -> Prior:
    """The prior of a solve, chosen once: ``None`` (MP for K = 1, block MP for K > 1), ``"mp"``,
    ``"block-mp"``, a :class:`~.prior_mp.Spectrum` (finite sums, K = 1) or a prior instance."""
    if prior is None:
        return MarchenkoPastur() if model.K == 1 else BlockMarchenkoPastur()
    if isinstance(prior, Spectrum):
        prior = FiniteSpectrum(prior)
    elif isinstance(prior, str) and prior in ("mp", "block-mp"):
        prior = MarchenkoPastur() if prior == "mp" else BlockMarchenkoPastur()
    elif not isinstance(prior, (MarchenkoPastur, BlockMarchenkoPastur, FiniteSpectrum)):
        raise ParameterError("prior", prior, "'mp', 'block-mp' or a Spectrum")
    prior.check_types(model.K)
    return prior
