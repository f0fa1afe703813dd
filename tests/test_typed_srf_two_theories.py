"""The spiked RF with K readout types, computed by its two independent theories.

* the sRF fixed point in the **type representation** (block order parameters V1_kl, V2_k; the mean
  directions Pₖ1 at finite width p, :mod:`asymptotics.theory.spiked_rf.finite_width`), and
* the large-step theory in the **κ representation** (order parameters as functions of κ, the mean
  block with N = p, :mod:`asymptotics.theory.large_step.gaussian_readout` with ``readout="quantile"``).

The two were derived separately (docs/spiked-rf-finite-width.md, docs/large-step-exact.md §1) and
agree at finite width to the solvers' tolerance; they meet the p = ∞ solver in the limit. A point
whose type-representation system is too ill-conditioned to solve (Gauss–Hermite types with
proportions down to 1e-17) is refused, not returned: the continuous-readout theory is the reference
for what the answer should have been.
"""

from __future__ import annotations

import math

import pytest

from asymptotics.errors import ConvergenceError
from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension
from asymptotics.theory.large_step.readout_quadrature import readout_rule
from asymptotics.theory.spiked_rf import channel_model, cui_to_srf, readout_types, solve_spiked_rf
from asymptotics.theory.spiked_rf.finite_width import solve_finite_width

#: (student, teacher, ψ1, ψ2, λ, σ_ε): settings (a), (b), (c) of the large-step validation
SETTINGS = {"a": ("erf", "erf", 8.0, 2.0, 1e-3, 0.1), "b": ("tanh", "tanh", 2.0, 1.0, 1e-2, 0.1),
            "c": ("relu", "relu", 8.0, 1.0, 1e-2, 0.1)}


def _model(setting, kind, K):
    s, t, psi1, psi2, lam, noise = SETTINGS[setting]
    rule = readout_rule(kind, K)
    rt = readout_types(tuple(rule.values.tolist()), tuple(rule.weights.tolist()))
    # Ba's large step η = √N is Cui's map with η̃ = c = 1, α0 = ψ1; λ_C = λψ1/ψ2, α = ψ1, β = ψ2
    return channel_model(cui_to_srf(1.0, psi1, s, t, noise, rt), s, t, noise), psi1, psi2, lam * psi1 / psi2


@pytest.mark.parametrize("setting, K", [("a", 2), ("a", 4), ("a", 16), ("b", 4), ("c", 4)])
def test_finite_width_type_and_kappa_representations_agree(setting, K):
    model, alpha, beta, lam_c = _model(setting, "quantile", K)
    s, t, psi1, psi2, lam, noise = SETTINGS[setting]
    inf = solve_spiked_rf(model, alpha, beta, lam_c)
    for d in (250, 1000):
        N = width_from_dimension(psi2, d)
        typed = solve_finite_width(model, alpha, beta, lam_c, N, infinite=inf)
        kappa = gaussian_readout_risk(s, t, psi1, psi2, lam, noise=noise, c=1.0, width=N, readout="quantile", types=K)
        # both solve to residuals ≤ 1e-10; measured agreement 1e-15 … 2e-12 relative
        assert typed.test_error == pytest.approx(kappa.risk1, rel=1e-9)
        assert typed.train_error == pytest.approx(kappa.train_error, rel=1e-9)
        assert typed.test_error > inf.test_error  # the finite-width cost of the mean directions


def test_ill_conditioned_types_are_refused_not_returned():
    # the continuous (Gaussian) readout at N = ∞: what K Gauss–Hermite types approach
    s, t, psi1, psi2, lam, noise = SETTINGS["a"]
    reference = gaussian_readout_risk(s, t, psi1, psi2, lam, noise=noise, c=1.0, width=math.inf).risk1
    model, alpha, beta, lam_c = _model("a", "hermite", 12)
    assert solve_spiked_rf(model, alpha, beta, lam_c).test_error == pytest.approx(reference, rel=2e-5)
    for K in (16, 24):  # smallest proportions 1.5e-10 and 9.4e-17: the full fixed point is violated
        model, alpha, beta, lam_c = _model("a", "hermite", K)
        with pytest.raises(ConvergenceError, match="ill-conditioned"):
            solve_spiked_rf(model, alpha, beta, lam_c)
        sol = solve_spiked_rf(model, alpha, beta, lam_c, on_failure="return")
        assert not sol.converged and math.isnan(sol.test_error) and sol.status.label != "converged"
