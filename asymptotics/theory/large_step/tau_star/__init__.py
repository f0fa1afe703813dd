r"""τ* and κ*: the one-dimensional Gaussian optimisation of Ba et al. (2022), eq. (5.1).

With ξ1, ξ2 i.i.d. N(0, 1),

    τ(κ) = E_ξ1 [ ( σ*(ξ1) − E_ξ2 σ(κ ξ1 + ξ2) )² ],     τ* = inf_κ τ(κ),   κ* = argmin τ.

Meaning (stated; ``docs/large-step.md``): after one large step η = c√N, neuron i has moved by
≈ κᵢ β* with κᵢ = c μ1 μ1* √N aᵢ, so its feature is ≈ σ(ξ2 + κᵢ ξ1) with ξ1 = ⟨β*, x⟩; an oracle
average of the neurons with κᵢ ≈ κ* predicts E_ξ2 σ(κ* ξ1 + ξ2), whose risk is τ*. Ba et al.'s
theorem bounds the trained conjugate-kernel risk by 10 τ* + C(√τ* √(d/n) + d/n)
(:mod:`asymptotics.theory.large_step.bounds`).

Conventions (the project's choices, documented):

* **Centring.** Ba et al. assume centred σ and σ*. By default (``center=True``) both are centred
  by their Gaussian means at unit variance, σ − E σ(z) and σ* − E σ*(z) (for input scales a, b:
  σ(a·) − E σ(az), σ*(b·) − E σ*(bz)), exactly as :func:`asymptotics.activation` does. The inner
  mean E_ξ2 σ(κξ1 + ξ2) then has mean E σ(√(1+κ²) z) − E σ(z), which is not zero for a non-odd
  student: the paper's definition has **no free constant**. ``fit_constant=True`` lets the
  oracle add the best constant as well (τ_c = inf_κ Var(σ* − E_ξ2σ)), the natural choice if the
  readout can fit an intercept; it changes nothing for an odd student and odd teacher, and a lot
  for SoftPlus/SoftPlus (9.15e-3 → 2.77e-4). ``center=False`` uses the raw functions.
* **κ ∈ ℝ.** The readout aᵢ is Gaussian, so κᵢ takes both signs; the infimum is over ℝ.
* **Input scales.** ``student_scale`` a and ``teacher_scale`` b replace σ(x), σ*(x) by σ(ax),
  σ*(bx) (a, b ∈ [1e-3, 1e3], where the quadrature is trusted) without recompiling, for grids
  over activation scalings.

Outcomes: ``status`` is the :class:`~asymptotics.solvers.Status` of the computation
(``Status.CONVERGED``, label ``"converged"`` in rows; a failure raises :class:`~asymptotics.errors.ConvergenceError`, or is kept in a grid
with ``on_failure="return"``), and ``infimum_at`` says where the infimum lies (:data:`INFIMUM_AT`):

* ``"interior"``: a finite minimiser κ* ≠ 0 (τ'(κ*) = 0, τ''(κ*) > 0);
* ``"zero"``: the minimiser is κ* = 0 (τ* = τ(0) = E σ*² for centred functions). Since
  τ'(0) = −2 μ1(σ) μ1(σ*), this needs μ1 μ1* = 0 — the degenerate case in which one large step
  does not move the neurons along β* at all (a :class:`~asymptotics.errors.DegenerateWarning`
  is issued when μ1 μ1* = 0). An even student with an odd teacher has κ* = 0 by symmetry
  (τ(κ) = E σ*² + E G(κξ1)², with τ''(0) = 0 as well): recognised, not searched for; for any
  even student a flat minimum next to 0 that Newton cannot pin down is compared with τ(0);
* ``"to_plus_infinity"`` / ``"to_minus_infinity"``: no finite minimiser, the infimum is the
  limit κ → ±∞ (``kappa_star = ±inf``, ``attained = False``). This is possible only for a student
  with finite limits σ(±∞) (decided symbolically); then E_ξ2 σ(κξ1 + ξ2) tends to the step
  σ(+∞)·1{ξ1 > 0} + σ(−∞)·1{ξ1 < 0} and τ(±∞) is computed exactly. Example: σ = tanh,
  σ* = sign (``"sign(x)"``): τ(κ) decreases to τ(∞) = 0 with no minimiser.

Three paths (``method``):

* ``"closed"``: closed forms — σ = erf(a·), σ* = erf(b·): E_ξ2 erf(a(κξ1 + ξ2)) =
  erf(aκξ1/√(1+2a²)), so κ* = b√(1+2a²)/a (√3 for a = b = 1) and τ* = 0; a linear student σ = a x:
  κ* = μ1*/a, τ* = E σ*² − μ1*² (− μ0*² with ``fit_constant``); an even student with an odd
  teacher: κ* = 0, τ* = E σ*² (:mod:`.closed_forms`).
* ``"compiled"``: numba kernels generated per student from a template file (:mod:`.kernels`,
  :mod:`.compiled`) with the rules of :mod:`.rules`: truncated
  trapezoidal rules with the Gaussian weight for smooth activations (spectrally accurate; step
  adapted to the input scale), composite Gauss–Legendre rules split at the kinks otherwise (ReLU),
  or fixed-degree Gauss–Hermite on request; a scan of κ on a two-sided geometric grid, then
  safeguarded Newton on τ'(κ) = 0 inside the bracket of the best scanned point (derivatives by
  Stein's identity, so only σ is evaluated). The answer is re-evaluated with the next finer rule
  (resolution × 1.5); if the two disagree by more than ``atol + rtol·τ*`` (or κ* moves by more
  than ``kappa_rtol``) the resolution is refined and Newton restarted from the previous κ* (up to
  ``max_level`` times; :func:`~asymptotics.theory.large_step.refinement.refine`), else
  :class:`~asymptotics.errors.ConvergenceError`.
* ``"mpmath"``: the high-precision path at ``dps`` digits — Newton on τ'(κ) = 0 in mpmath
  arithmetic from the compiled κ*, with trapezoidal rules whose step is set by ``dps`` (composite
  Gauss–Legendre split at the kinks for kinked functions) and closed-form inner expectations for
  ReLU, erf and linear students (E relu(m + z) = mΦ(m) + φ(m), …), so the kinked case does not
  share the compiled path's kink handling; the error is the difference from the rule of half the
  step; the limits κ → ±∞ by tanh–sinh quadrature (:mod:`.mp`).

``"auto"`` (default) takes the closed form where one exists and the compiled path otherwise.

>>> r = tau_star("tanh", "tanh")
>>> r.status.label, r.infimum_at, round(r.kappa_star, 5), f"{r.tau_star:.4e}"
('converged', 'interior', 1.58827, '9.4527e-05')
>>> r = tau_star("erf", "erf")
>>> r.method, r.kappa_star == 3 ** 0.5, r.tau_star
('closed-form', True, 0.0)

The paper's appendix quotes "τ* ≈ 3·10⁻⁴ for σ = σ* = tanh, κ* ≈ 1.6": κ* agrees, τ* does not
(τ(1.6) = 1.0e-4; 3e-4 is reached only at κ = 1.52 or 1.66). This is an open discrepancy, reported
in ``docs/large-step.md``; the code is not tuned to it.
"""

from ....gaussian import trapezoid_rule
from .api import tau_limits, tau_objective, tau_star, tau_star_grid
from .config import TauStarConfig
from .problem import SCALE_RANGE, activation_limits
from .results import INFIMUM_AT, TauObjective, TauStarGrid, TauStarResult

__all__ = [
    "TauStarConfig",
    "TauStarResult",
    "TauStarGrid",
    "TauObjective",
    "INFIMUM_AT",
    "SCALE_RANGE",
    "tau_star",
    "tau_star_grid",
    "tau_objective",
    "tau_limits",
    "activation_limits",
    "trapezoid_rule",
]
