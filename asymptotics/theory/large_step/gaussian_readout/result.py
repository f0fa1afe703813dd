r"""The asymptotic risk after one large step with a Gaussian readout: :class:`GaussianReadoutRisk`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["GaussianReadoutRisk"]


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
        readout: ``"hermite"``, ``"quantile"`` or ``"given"``; types: K (readout types u).
        readout_values, readout_weights, bulk, self_energy: u_j, π_j, c(u_j), τ(u_j) (with Gaussian
            columns at finite N: over the K × COLUMN_NODES types (u, ρ²), values u·E σ'(ρz)/E σ'(z)).
        type_error: |R1(K) − R1(K')| for the last two K of the Gauss–Hermite sequence (``None``
            for discrete types, where K is part of the model).
        type_sequence: ((K, R1), …) tried in the convergence check.
        kappa_nodes: n; quadrature_error: estimated error of the κ integrals (n vs 2n nodes).
        mean_rank: dimension of the mean span used at N = ∞ (K at finite N).
        converged, status, message, iterations, residual: solver report (residual: largest
            violation of any equation at the solution, scaled).
        stability_margin: 1 − spectral radius of the variance map (> 0).
        initial_columns: the initial columns, ``"unit"`` or ``"gaussian"`` (ρ² ~ χ²_d/d types at finite N).
        gradient: the step's gradient, ``"labels"`` or ``"exact"`` (the initial output's terms at finite N;
            ``r`` and ``gamma`` are then those of the tilted spike).
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
    initial_columns: str = "unit"
    gradient: str = "labels"

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
            "width": "inf" if self.limit else self.width, "limit": self.limit, "initial_columns": self.initial_columns,
            "gradient": self.gradient,
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
