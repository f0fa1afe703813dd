r"""The solution object of the spiked-RF fixed point (one (α, β, λ)), converged or not.

:class:`SpikedRFSolution` is what every solve of :mod:`.fixed_point` and :mod:`.compiled`
returns; :func:`failed_solution` is the object of a point without a solution (numbers NaN,
emitted as null, with the solver's status and message).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...solvers import SolverResult
from ...solvers.result import CONVERGED, SINGULAR, Status
from .mapping import SpikedRFParameters

__all__ = ["SpikedRFSolution", "failed_solution", "not_converged_message", "MIN_STABILITY_MARGIN"]

#: smallest accepted 1 − (spectral radius of the variance map): closer to 1 the variances (and
#: the test error) lose more than ~8 digits to the conditioning of their linear system
MIN_STABILITY_MARGIN = 1e-8


#: order-parameter fields and their row names for one readout type (Q1 → q1, Q2 → q2, Q1hat → q1hat)
SCALAR_KEYS = (("V1", "V1"), ("V2", "V2"), ("Q1", "q1"), ("Q2", "q2"), ("m", "m"), ("t", "t"), ("psi", "psi"),
                ("V1hat", "V1hat"), ("V2hat", "V2hat"), ("Q1hat", "q1hat"), ("q2hat", "q2hat"), ("that", "that"),
                ("psihat", "psihat"))


@dataclass(frozen=True)
class SpikedRFSolution:
    r"""Solution of the sRF fixed point at one (α, β, λ).

    Order parameters are arrays over the K readout types (K = 1: shape (1,) and (1, 1)); use
    :meth:`as_dict` for plain numbers.

    Attributes:
        test_error: ε_g = E(y − ŷ)² over a fresh x (label noise excluded).
        train_error: the training loss (1/n) Σ (y − ŷ)² (label noise included).
        alpha, beta, lam, noise: α = n/d, β = p/d, the ridge λ (Cui: not rescaled), σ_ε.
        params: the sRF parameters (c, r, γ, readout types).
        V1, V2, Q1, Q2: responses and overlaps (Q1 = q1 = aᵀΩa/p, Q2 = q2 = ‖a‖²/p for K = 1).
        m, t, psi: mean direction 1ᵀa/√p, spike overlap aᵀW̃v/√p, orthogonal overlap aᵀW̃ζ/√p.
        V1hat, V2hat, Q1hat, q2hat, that, psihat: the conjugates.
        converged, status, message, iterations: the solver outcome (status a
            :class:`~asymptotics.solvers.Status`, ``CONVERGED`` when converged).
        residual: largest violation of the full fixed-point equations at the solution.
        method: solver used; prior: ``"mp"``, ``"block-mp"`` or ``"finite"``.
        quadrature_error: estimated error of the κ and inner Gaussian rules.
        stability_margin: 1 − spectral radius of the linear map of the variances (→ 0 where the
            error diverges: interpolation threshold at λ → 0); results with a margin below
            ``MIN_STABILITY_MARGIN`` are refused.
        start: the reduced (logarithmic) solution, to warm-start a nearby solve.
    """

    test_error: float
    train_error: float
    alpha: float
    beta: float
    lam: float
    noise: float
    params: SpikedRFParameters
    V1: np.ndarray
    V2: np.ndarray
    Q1: np.ndarray
    Q2: np.ndarray
    m: np.ndarray
    t: np.ndarray
    psi: np.ndarray
    V1hat: np.ndarray
    V2hat: np.ndarray
    Q1hat: np.ndarray
    q2hat: np.ndarray
    that: np.ndarray
    psihat: np.ndarray
    converged: bool
    status: Status
    message: str
    iterations: int
    residual: float
    method: str
    prior: str
    quadrature_error: float
    stability_margin: float
    start: np.ndarray = field(default=None, repr=False, compare=False)

    @property
    def K(self) -> int:
        return int(np.size(self.V2))

    def order_parameters(self) -> dict:
        """The order parameters, scalars for K = 1 and nested lists otherwise."""
        if self.K == 1:
            return {key: float(np.asarray(getattr(self, n)).flat[0]) for n, key in SCALAR_KEYS}
        return {n: np.asarray(getattr(self, n)).tolist() for n, _ in SCALAR_KEYS}

    def as_dict(self) -> dict:
        """A flat row: errors, (r, c, γ), order parameters and solver status (errors are None
        unless converged)."""
        ok = self.converged
        row = {
            "alpha": self.alpha, "beta": self.beta, "lam": self.lam,
            "test_error": self.test_error if ok else None,
            "train_error": self.train_error if ok else None,
            **self.params.as_dict(),
        }
        if self.noise:
            row["noise"] = self.noise
        row.update({k: (v if ok else None) for k, v in self.order_parameters().items()})
        row.update(status=self.message, iterations=self.iterations, residual=self.residual,
                   prior=self.prior, quadrature_error=self.quadrature_error,
                   stability_margin=self.stability_margin if ok else None)
        return row


def failed_solution(model, alpha, beta, lam, res: SolverResult | None, prior, method, message=None) -> SpikedRFSolution:
    """The solution object of a point without a solution (numbers NaN)."""
    nanK = np.full(model.K, math.nan)
    nanKK = np.full((model.K, model.K), math.nan)
    return SpikedRFSolution(
        test_error=math.nan, train_error=math.nan, alpha=alpha, beta=beta, lam=lam,
        noise=math.sqrt(model.noise_var), params=model.params, V1=nanKK, V2=nanK, Q1=nanKK, Q2=nanK,
        m=nanK, t=nanK, psi=nanK, V1hat=nanKK, V2hat=nanK, Q1hat=nanKK, q2hat=nanK, that=nanK, psihat=nanK,
        # the responses may have converged while the rest has no solution: never "converged" here
        converged=False, status=res.status if res is not None and res.status != CONVERGED else SINGULAR,
        message=message or (res.message if res is not None else "failed"),
        iterations=res.iterations if res is not None else 0,
        residual=res.residual if res is not None else math.inf, method=method,
        prior=prior.name, quadrature_error=model.quadrature_error,
        stability_margin=math.nan,
    )


def not_converged_message(alpha, beta, lam, res: SolverResult) -> str:
    """The message of a point whose reduced solve did not converge (with the hint for λ = 0)."""
    msg = (f"sRF fixed point did not converge at α = {alpha:g}, β = {beta:g}, λ = {lam:g}: {res.message} "
           f"after {res.iterations} iterations (residual {res.residual:.3g})")
    if lam == 0.0:
        msg += ("; with λ = 0 the responses diverge unless n/p is large enough (ridgeless limit of an "
                "interpolating readout) — use λ > 0")
    return msg
