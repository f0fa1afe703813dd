"""The network map (asymptotics/theory/spiked_rf/network_map.py): structured bulk + the step's self term.

Independent references:

* k = 0 (self term off): the structured map of ``structured_map.solve_structured_srf`` (its own 2×2 mean
  system and variance assembly; the network map has a 3×3 system with the self overlap t₀);
* κ_c → 0 (no structured excess: α0 = 10⁶, c − 1 ≈ 10⁻⁶): the isotropic map with the self term of
  ``self_term.solve_self_term_srf`` (MP prior, one overlap t carrying κμ1 + e);
* the Cui-protocol network simulated by the library (``validation.studies.srf_network_map``: the
  stored mean and standard error over seeds below), judged at 3 s.e.
"""

import math

import numpy as np
import pytest

from asymptotics.api.srf import spiked_rf
from asymptotics.errors import ConvergenceError, ParameterError
from asymptotics.theory.spiked_rf.network_map import (
    network_form_matrix,
    network_one_step,
    solve_network_srf,
)
from asymptotics.theory.spiked_rf.self_term import one_step_self_term
from asymptotics.theory.spiked_rf.structured_map import structured_one_step


def test_k_zero_is_the_structured_map():
    net = network_one_step(1.5, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh", self_term=0.0)
    ref = structured_one_step(1.5, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")
    # both solve the same responses to 1e-11; the assemblies differ (3×3 against 2×2 means)
    assert net.test_error == pytest.approx(ref.test_error, rel=1e-8)
    assert net.train_error == pytest.approx(ref.train_error, rel=1e-8)
    assert net.psi == pytest.approx(ref.psi, rel=1e-8) and net.t == pytest.approx(ref.t, rel=1e-8)
    assert net.test_error_structured == pytest.approx(ref.test_error, rel=1e-8)


@pytest.mark.parametrize("teacher, lam", [("sin", 0.1), ("tanh", 0.01)])
def test_no_structured_excess_is_the_self_term_map(teacher, lam):
    # α0 = 1e6: κ_c ≈ 1e-6, so the two maps differ by O(1e-6) relative; the resolvent forms lose ≈ 1e-9
    net = network_one_step(3.0, 1e6, 1.0, 3.0, lam, "tanh", teacher)
    ref = one_step_self_term(3.0, 1e6, 1.0, 3.0, lam, "tanh", teacher)
    assert net.self_term == pytest.approx(ref.self_term, rel=1e-12)
    assert net.bulk_excess < 1e-5
    assert net.test_error == pytest.approx(ref.test_error, rel=2e-5)
    assert net.train_error == pytest.approx(ref.train_error, rel=2e-5)
    assert net.test_error_structured == pytest.approx(ref.test_error_without, rel=2e-5)
    assert abs(net.test_error / net.test_error_structured - 1) > 0.03     # the self term is not negligible there


def test_equations_are_checked_after_their_solve():
    """The mean and variance equations, put back in after their linear solves, hold to the rounding
    level at a well-posed point (far inside EQUATIONS_TOL); a tolerance no float64 solve can meet is
    refused with a ConvergenceError naming the violation and the tolerance."""
    from asymptotics.activations import resolve_activation
    from asymptotics.theory.spiked_rf import channel_model, cui_to_srf
    from asymptotics.theory.spiked_rf.structured_map import structured_bulk

    s_act = resolve_activation("tanh")
    model = channel_model(cui_to_srf(5.0, 1.0, s_act, "tanh"), s_act, "tanh", 0.0)
    bulk = structured_bulk(5.0, 1.0, s_act, "tanh", 1.0)
    eps = 0.1 * np.ones_like(model.rule.nodes)
    ok = solve_network_srf(model, bulk, 3.0, 0.01, eps)
    assert math.isfinite(ok["test_error"]) and ok["residual"] < 1e-7
    with pytest.raises(ConvergenceError, match=r"network map: the mean and variance equations are violated by .* "
                                               r"\(tolerance 1e-30\)"):
        solve_network_srf(model, bulk, 3.0, 0.01, eps, equations_tol=1e-30)


def test_self_direction_forms():
    # u0 = W⁰v is independent of the resolvent: its forms are βV2 whatever the structure, none with ζ
    T = network_form_matrix([3.0, 2.0, 7.0, 5.0, -0.5], 0.5)
    assert T[0, 1] == T[1, 0] == T[1, 1] == 1.0 and T[1, 2] == T[2, 1] == 0.0
    assert (T[0, 0], T[2, 2], T[0, 2]) == (7.0, 5.0, -0.5)


# The Cui-protocol network, tanh/tanh, η̃ = 5, α0 = 0.5, α = 3, λ = 0.01, β = 1: the library's simulator
# (python -m validation.studies.srf_network_map, root seed 3030), d = 1000, 12 seeds.
# (d = 500, 16 seeds: 0.30983 ± 0.00439; the two agree, so the d = 1000 bias is below its s.e.)
NETWORK_D1000 = dict(eta=5.0, alpha0=0.5, mean=0.3097154, se=0.0027867, seeds=12)


def test_against_the_simulated_network():
    p = NETWORK_D1000
    s = network_one_step(3.0, p["alpha0"], 1.0, p["eta"], 0.01, "tanh", "tanh")
    # statistical tolerance: 3 s.e. of the mean over seeds (z = −1.5; the isotropic map is at z = +14.9)
    assert abs(p["mean"] - s.test_error) <= 3 * p["se"]
    assert abs(p["mean"] - s.test_error_isotropic) > 10 * p["se"]       # the isotropic map is far
    assert s.status.label == "converged" and s.residual < 1e-7 and math.isfinite(s.quadrature_error)


def test_api_and_refusals():
    r = spiked_rf(alpha=3, alpha0=[1, math.inf], eta_tilde=5, lam=0.01, bulk="network", progress=False)
    a, b = r.rows
    assert a["test_error"] < a["test_error_structured"] and a["kappa_c"] > 0
    assert b["kappa_c"] == 0.0 and b["test_error_structured"] == b["test_error_isotropic"]
    with pytest.raises(ParameterError, match="readout"):
        spiked_rf(alpha=3, alpha0=1, eta_tilde=5, bulk="network", readout="0.5,1.5", progress=False)
    with pytest.raises(ParameterError, match="student"):
        network_one_step(3.0, 1.0, 1.0, 5.0, 0.01, "relu", "tanh")


# The sRF model with a self term, F = √c W diag(1 + k Wᵀv) + r v1ᵀ (SRFConfig(self_term=k)), tanh/tanh,
# r = 1, γ = 1, k = −2, α = 3, λ = 0.1, β = 1: paired differences (with − without the term, common seeds)
# at d = 600 (8 seeds, root seed 7) and d = 1500 (6 seeds, root seed 11), extrapolated linearly in 1/d
# (limit ± its s.e. from the two rungs' s.e.). At c = 3 this separates e(κ)/√c (the readout sums
# Σ aⱼ⟨wⱼ, v⟩/√p = t/√c) from e(κ) (twice the effect).
SELF_TERM_LIMITS = {1.0: (-0.0013375, 0.0000490), 3.0: (-0.0011050, 0.0000889)}


@pytest.mark.parametrize("c", [1.0, 3.0])
def test_self_term_srf_against_extrapolated_simulation(c):
    from asymptotics.theory.spiked_rf import channel_model, srf_parameters
    from asymptotics.theory.spiked_rf.self_term import solve_self_term_srf

    model = channel_model(srf_parameters(c, 1.0, 1.0), "tanh", "tanh")
    s = solve_self_term_srf(model, 3.0, 1.0, 0.1, -2.0, "tanh")
    lim, se = SELF_TERM_LIMITS[c]
    assert abs(s.test_error - s.test_error_without - lim) <= 3 * se
    if c > 1:     # the term without the 1/√c: −0.00216, 12 s.e. away
        e = solve_self_term_srf(model, 3.0, 1.0, 0.1, -2.0 * math.sqrt(c), "tanh")
        assert abs(e.test_error - e.test_error_without - lim) > 8 * se


def test_cli_bulk_network(capsys):
    """``theory srf --bulk network``: one row per point with the structured and isotropic values beside,
    the isotropic column equal to the default command's value (the compiled solver, a second route);
    a readout type is refused in one line naming the option."""
    import json

    from asymptotics.cli.app import main

    def run(args):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    base = ["theory", "srf", "--alpha", "3", "--alpha0", "1", "--eta-tilde", "5", "--lam", "0.01", "--format", "json"]
    code, out, err = run([*base, "--bulk", "network"])
    assert code == 0, err
    obj = json.loads(out)
    (row,) = obj["rows"]
    assert obj["meta"]["command"] == "theory srf --bulk network"
    code, out, _ = run(base)
    (iso,) = json.loads(out)["rows"]
    assert row["test_error_isotropic"] == pytest.approx(iso["test_error"], rel=1e-9)
    assert row["test_error"] < row["test_error_structured"] and row["status"] == "converged"
    code, out, err = run([*base, "--bulk", "network", "--readout", "0.5,1.5"])
    assert code != 0 and not out and "uniform readout" in err and "Traceback" not in err
    assert len([ln for ln in err.splitlines() if ln.strip()]) == 1
