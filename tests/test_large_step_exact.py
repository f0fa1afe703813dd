"""The exact large-step risk with a Gaussian readout (``docs/large-step-exact.md``).

Independent references, one per test:

* the N = ∞ and finite-N values and the K-quantile sequence of ``docs/large-step-exact.md`` §2
  (an independent derivation, an operator-valued fixed point on L²(κ) solved by a separate
  implementation and checked against network simulations), to the digits quoted (± half a unit
  of the last digit);
* Cui et al.'s K-type fixed point (:mod:`asymptotics.theory.spiked_rf`): u ≡ 1 goes through its
  Marchenko–Pastur closed form (Stieltjes transform, scalar responses), K > 1 through its block-MP
  solver in the *type* representation with a least-squares mean system — a different code path
  from the κ-representation self-energy, closed-form tangent and bordered mean block used here;
* the Mei–Montanari closed form of the random-features risk R0 (c = 0: no step);
* explicit N × N random matrices for the deterministic equivalent of the prior (Monte Carlo,
  tolerance 1.5 % at N = 800: the observed deviation is O(1/N), 0.2 % at N = 1200);
* finite differences for the free-energy derivative and the second-order tangent;
* a small simulation of the network (d = 400, 3 seeds) with a stated tolerance.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from asymptotics.errors import ConvergenceError, ParameterError
from asymptotics.solvers import Status
from asymptotics.theory.large_step.gaussian_readout import (
    gaussian_readout_model,
    gaussian_readout_risk,
    readout_type_sequence,
    solve_gaussian_readout,
    width_from_dimension,
)
from asymptotics.theory.large_step.readout_quadrature import readout_rule
from asymptotics.theory.large_step.spike_mean_block import spike_mean_block
from asymptotics.theory.large_step.typed_prior import (
    solve_typed_prior,
    spike_overlap_function,
    typed_free_energy,
    variance_response,
)

#: setting (a) of §3: erf/erf, ψ2 = 2, λ = 1e-3, σ_ε = 0.1, c = 1
A = dict(student="erf", teacher="erf", psi2=2.0, lam=1e-3, noise=0.1)
#: setting (b): tanh/tanh, ψ2 = 1, λ = 1e-2, σ_ε = 0.1, c = 1
B = dict(student="tanh", teacher="tanh", psi2=1.0, lam=1e-2, noise=0.1)


def _risk(setting, psi1, **kw):
    s = dict(setting)
    return gaussian_readout_risk(s.pop("student"), s.pop("teacher"), psi1, s.pop("psi2"), s.pop("lam"),
                                 noise=s.pop("noise"), **kw)


def _close(value, quoted: str):
    """|value − quoted| ≤ half a unit of the last quoted digit (+ rounding slack)."""
    ulp = 10.0 ** -(len(quoted.split(".")[1]))
    return abs(value - float(quoted)) <= 0.5 * ulp + 1e-9


# ---- §2: the proportional limit -------------------------------------------------------------

def test_limit_values_of_section_2():
    """R1(∞) = .0625, .0259, .0125, .0062 at ψ1 = 4, 8, 16, 32 (erf/erf, ψ2 = 2, λ = 1e-3, σ_ε = 0.1)."""
    full = _risk(A, 8.0)                                     # default path: both convergence checks
    assert full.converged and full.limit
    assert _close(full.risk1, ".0259"), full.risk1
    assert full.type_error is not None and full.type_error <= 1e-8
    assert len(full.type_sequence) >= 2 and full.quadrature_error <= 1e-7
    assert full.residual <= 1e-10 and full.stability_margin > 0
    # odd σ, σ*: the mean directions fit h exactly, the spike part of the error vanishes
    assert full.spike_error <= 1e-12
    # ω̄ = h in L²(κ) (pointwise values at the far tail nodes are not determined by an L² problem)
    inner = np.abs(full.kappa) < 5
    np.testing.assert_allclose(full.omega_bar[inner], full.h[inner], atol=1e-8)
    for psi1, ref in ((4.0, ".0625"), (16.0, ".0125"), (32.0, ".0062")):
        r = _risk(A, psi1, check=False, types=48)
        assert _close(r.risk1, ref), (psi1, r.risk1, ref)
    # ∝ d/n (Ba et al.'s theorem): R1(∞)·ψ1 nearly constant, all below the kernel bound μ2*²
    assert full.beats_kernels and full.kernel_bound == pytest.approx(0.0401458728191524, rel=1e-9)


def test_quantile_type_sequence_converges_to_the_gaussian_readout():
    """§3: K = 2, 4, 8, 16, 32 midpoint-quantile types → .0545, .0295, .0261, .0259, .0259 (ψ1 = 8)."""
    seq = readout_type_sequence("erf", "erf", 8.0, 2.0, 1e-3, noise=0.1, types=(2, 4, 8, 16, 32), check=False)
    for r, ref in zip(seq, (".0545", ".0295", ".0261", ".0259", ".0259"), strict=True):
        assert r.types == len(r.readout_values) and r.readout == "quantile"
        assert _close(r.risk1, ref), (r.types, r.risk1, ref)
    risks = [r.risk1 for r in seq]
    assert all(a > b for a, b in zip(risks, risks[1:], strict=False))     # more types, more expressive


# ---- §3: finite N ---------------------------------------------------------------------------

FINITE = [  # (setting, ψ1, d, quoted finite-N theory); N = ψ2 d
    (A, 4.0, 1000, ".0648"), (A, 4.0, 2000, ".0638"),
    (A, 8.0, 400, ".0319"), (A, 8.0, 1000, ".0291"), (A, 8.0, 2000, ".0278"), (A, 8.0, 3000, ".0273"),
    (A, 16.0, 1000, ".0167"), (A, 16.0, 2000, ".0151"),
    (B, 2.0, 1000, ".0987"), (B, 2.0, 2000, ".0979"),
    (B, 8.0, 1000, ".0304"), (B, 8.0, 3000, ".0274"),
]
LIMIT_B = {2.0: ".0968", 8.0: ".0241"}


@pytest.mark.parametrize("setting,psi1", [(A, 4.0), (A, 8.0), (A, 16.0), (B, 2.0), (B, 8.0)])
def test_finite_width_values_of_section_3(setting, psi1):
    rows = [(d, q) for s, p, d, q in FINITE if s is setting and p == psi1]
    widths = [math.inf] + [width_from_dimension(setting["psi2"], d) for d, _ in rows]
    res = _risk(setting, psi1, width=widths, check=False, types=48)
    if setting is B:
        assert _close(res[0].risk1, LIMIT_B[psi1]), res[0].risk1
    for r, (d, quoted) in zip(res[1:], rows, strict=True):
        assert r.converged and not r.limit
        assert _close(r.risk1, quoted), (psi1, d, r.risk1, quoted)
    # the gap to N = ∞ is positive and shrinks with d
    gaps = [r.risk1 - res[0].risk1 for r in res[1:]]
    assert all(g > 0 for g in gaps) and all(a > b for a, b in zip(gaps, gaps[1:], strict=False))


def test_controls_uniform_and_two_types_finite_width():
    """§3 controls at (a) ψ1 = 8, d = 1000: u ≡ 1: .0472 / .0470; u ∈ {0.5, 1.5}: .0329 / .0273."""
    for vals, fin, lim in (((1.0,), ".0472", ".0470"), ((0.5, 1.5), ".0329", ".0273")):
        r_inf, r_fin = _risk(A, 8.0, width=[math.inf, 2000.0], readout="given", readout_values=vals, check=False)
        assert _close(r_fin.risk1, fin) and _close(r_inf.risk1, lim), (vals, r_fin.risk1, r_inf.risk1)


# ---- the K-type sRF theory of Cui et al., through its own solver -----------------------------

@pytest.mark.parametrize("values,props", [((1.0,), None), ((0.5, 1.5), None), ((0.3, 1.0, 2.2), (0.2, 0.5, 0.3))])
def test_discrete_types_reduce_to_cui_fixed_point(values, props):
    from asymptotics.theory.spiked_rf import one_step_spiked_rf, readout_types

    psi1, psi2, lam, c = 8.0, 2.0, 1e-3, 1.0
    mine = gaussian_readout_risk("erf", "erf", psi1, psi2, lam, noise=0.1, c=c, readout="given",
                                 readout_values=values, readout_proportions=props, kappa_nodes=81,
                                 check=False)
    cui = one_step_spiked_rf(alpha=psi1, alpha0=psi1, beta=psi2, eta_tilde=c, lam=lam * psi1 / psi2, student="erf",
                             teacher="erf", noise=0.1, readout=readout_types(values, props))
    assert mine.risk1 == pytest.approx(cui.test_error, rel=1e-8, abs=1e-12)
    assert mine.train_error == pytest.approx(cui.train_error, rel=1e-7)


def test_tanh_quantile_types_against_block_mp():
    from asymptotics.theory.spiked_rf import one_step_spiked_rf

    rule = readout_rule("quantile", 4)
    mine = _risk(B, 2.0, readout="quantile", types=4, kappa_nodes=81, check=False)
    cui = one_step_spiked_rf(alpha=2.0, alpha0=2.0, beta=1.0, eta_tilde=1.0, lam=1e-2 * 2.0, student="tanh",
                             teacher="tanh", noise=0.1, readout=tuple(rule.values.tolist()))
    assert mine.risk1 == pytest.approx(cui.test_error, rel=1e-8)


def test_no_step_is_random_features_mei_montanari():
    """c = 0: r = 0, c(u) = 1 — the random-features risk R0 (Mei–Montanari closed form)."""
    from asymptotics.theory.one_step.model import OneStepModel
    from asymptotics.theory.one_step.risk_mei_montanari import risk0

    for psi1, psi2, lam in ((3.0, 1.5, 1e-2), (1.0, 2.0, 1e-1)):
        r = gaussian_readout_risk("tanh", "tanh", psi1, psi2, lam, noise=0.2, c=0.0, types=8, check=False)
        ref = float(np.asarray(risk0(OneStepModel.from_activations("tanh", "tanh", noise=0.2), psi1, psi2, lam)))
        assert r.r == 0.0 and r.risk1 == pytest.approx(ref, rel=1e-9)
        assert r.spike_error == pytest.approx(0.0, abs=1e-14)


# ---- the deterministic equivalent against explicit random matrices --------------------------

@pytest.fixture(scope="module")
def prior_at_solution():
    m = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, readout="quantile", types=8, kappa_nodes=9)
    r = solve_gaussian_readout(m, 1e-3)
    f = m.features
    b = m.channel.weights * (8.0 / 2.0) / (1.0 + r.V)
    D = 1e-3 * 8.0 / 2.0 + f.mu2_sq @ b
    return m, r, solve_typed_prior(b, D, f)


def test_prior_against_explicit_random_matrices(prior_at_solution):
    m, r, st = prior_at_solution
    f = m.features
    N, d = 800, 400                                           # β = ψ2 = 2, 100 neurons per type
    typ = np.repeat(np.arange(f.K), N // f.K)
    rng = np.random.default_rng(np.random.SeedSequence(20260101))
    W = np.sqrt(f.bulk[typ])[:, None] * rng.standard_normal((N, d)) / math.sqrt(d)
    wv, Wp = W[:, 0], W[:, 1:]                                 # v = e1: W̃v is independent of Ω = W̃ΠW̃ᵀ
    Om = Wp @ Wp.T
    U, mu2 = f.mu1[typ], f.mu2_sq[typ]
    A = np.diag(st.D[typ]) + Om * ((U * st.b) @ U.T)
    Ai = np.linalg.inv(A)

    def trace_C(X):        # (1/N) tr(Cov(φ | κ_a) X) for every node a
        return np.array([(np.einsum("i,ij,j,ji->", U[:, a], Om, U[:, a], X) + mu2[:, a] @ np.diag(X)) / N
                         for a in range(st.b.size)])

    np.testing.assert_allclose(trace_C(Ai), st.V, rtol=0.015)
    s = 0.7 * st.b                                           # source on B (and μ2²·s on D)
    Ap = Om * ((U * s) @ U.T) + np.diag((f.mu2_sq @ s)[typ])
    np.testing.assert_allclose(trace_C(Ai @ Ap @ Ai), variance_response(st, s), rtol=0.015)
    y = st.b * m.channel.h1t                                   # the orthogonal field's source β y yᵀ
    ph = U @ y
    np.testing.assert_allclose(trace_C(Ai @ (f.beta * ph[:, None] * Om * ph[None, :]) @ Ai),
                               variance_response(st, np.zeros_like(s), y), rtol=0.015)
    g = 1.0 + np.arange(f.K) / f.K                            # a diagonal source on D
    np.testing.assert_allclose(trace_C(Ai @ np.diag(g[typ]) @ Ai),
                               variance_response(st, np.zeros_like(s), None, g), rtol=0.015)
    # spike overlap: t(κ) = (W̃v)ᵀ diag(μ1(κ)) A⁻¹ diag(t̂) W̃v
    that = np.linspace(0.5, 1.5, f.K)
    t_mc = np.array([wv @ (U[:, a] * (Ai @ (that[typ] * wv))) for a in range(st.b.size)])
    np.testing.assert_allclose(t_mc, spike_overlap_function(st, that), rtol=0.05)
    # the resolvent is diagonal on deterministic type-dependent vectors (the mean block's claim)
    mu0 = m.channel.mu0[typ]
    g0 = np.linspace(-1.0, 1.0, f.K)
    om_mc = mu0.T @ (Ai @ g0[typ])
    om_de = N * ((m.channel.mu0.T * (f.weights / st.S)) @ g0)
    np.testing.assert_allclose(om_mc, om_de, rtol=0.02, atol=0.02 * np.max(np.abs(om_de)))


def test_kappa_representation_solves_the_engine_derived_block_equations():
    """For K discrete types the κ-representation is the push-through transform of the K-type block
    Marchenko–Pastur problem, whose Dyson equations the pencil engine derives
    (:mod:`asymptotics.theory.spiked_rf.block_mp_derivation`): the typed prior's τ and V(κ), mapped
    to the type representation (V2 = π/S, V1 from 𝒱 = μ1ᵀ V1 μ1), satisfy them, and the
    second-order traces equal the block solver's tangent."""
    from asymptotics.theory.spiked_rf.block_mp_derivation import engine_residual
    from asymptotics.theory.spiked_rf.readout_types import block_tangent, solve_block_mp

    m = gaussian_readout_model("tanh", "tanh", 2.0, 1.0, noise=0.1, readout="given", readout_values=(0.4, 1.0, 2.0),
                               readout_proportions=(0.3, 0.3, 0.4), kappa_nodes=15)
    r = solve_gaussian_readout(m, 1e-2)
    f = m.features
    b = m.channel.weights * 2.0 / (1.0 + r.V)
    D = 2e-2 + f.mu2_sq @ b
    st = solve_typed_prior(b, D, f)
    mu1 = f.mu1
    G = mu1 @ mu1.T
    V1 = np.linalg.solve(G, np.linalg.solve(G, mu1 @ st.Vop @ mu1.T).T).T
    V2 = f.weights / st.S
    V1hat = (mu1 * b) @ mu1.T
    assert engine_residual(3, V1hat, D, f.bulk, f.weights, f.beta, V1, V2) <= 1e-12
    bm = solve_block_mp(V1hat, D, f.bulk, f.weights, f.beta)
    np.testing.assert_allclose(bm.tau, st.tau, rtol=1e-10)
    # second order: a diagonal source s on B is the block source (G, g) = (μ1 diag(s) μ1ᵀ, μ2²·s)
    s = 0.5 * b
    dV1, dV2 = block_tangent(bm, (mu1 * s) @ mu1.T, f.mu2_sq @ s)
    q_block = -(np.einsum("ka,kl,la->a", mu1, dV1, mu1) + dV2 @ f.mu2_sq)
    np.testing.assert_allclose(variance_response(st, s), q_block, rtol=1e-9)


def test_free_energy_derivative_and_tangent_by_finite_differences(prior_at_solution):
    m, _, st = prior_at_solution
    f = m.features
    lam_c = 4e-3

    def state(bb, extra=0.0):
        return solve_typed_prior(bb, lam_c + f.mu2_sq @ bb + extra, f, tau0=st.tau, tol=1e-14)

    h = 1e-6
    for a in (2, 4, 6):
        e = np.zeros_like(st.b)
        e[a] = h
        fd = (typed_free_energy(state(st.b + e)) - typed_free_energy(state(st.b - e))) / (2 * h)
        assert fd == pytest.approx(st.V[a], rel=1e-6)       # V(κ) = ∂Φ/∂b_κ
    rng = np.random.default_rng(3)
    s, g = rng.random(st.b.size) * st.b, rng.random(f.K)
    fd = -(state(st.b + h * s, h * g).V - state(st.b - h * s, -h * g).V) / (2 * h)
    np.testing.assert_allclose(variance_response(st, s, None, g), fd, rtol=1e-6)


def test_mean_block_limit_is_the_large_width_limit():
    """The N = ∞ block (bordered projection on the mean span) is the limit of the finite-N block.
    With 4 types the span is 2-dimensional (odd μ0) and well conditioned, so the approach is clean;
    with many types the slowest directions of 𝒢 need N ≫ 10¹⁰ (the slow N^-0.7 approach of §2)."""
    m = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, readout="quantile", types=4, kappa_nodes=21)
    r = solve_gaussian_readout(m, 1e-3)
    ch, f = m.channel, m.features
    b = ch.weights * 4.0 / (1.0 + r.V)
    st = solve_typed_prior(b, 4e-3 + f.mu2_sq @ b, f)
    inf = spike_mean_block(st, ch.mu0, ch.kappa, ch.h, math.inf)
    w = ch.weights
    assert inf.rank == 2                                       # odd μ0 of ±u types: a 2-dimensional span
    assert np.max(np.abs(ch.mu0 @ (st.b * inf.x))) <= 1e-14     # x ⟂ the mean span (B-weighted)
    errs = []
    for N in (1e3, 1e5, 1e7, 1e9):
        big = spike_mean_block(st, ch.mu0, ch.kappa, ch.h, N)
        errs.append(math.sqrt(w @ (inf.x - big.x) ** 2))
        assert big.residual <= 1e-10
    assert all(a > 10 * b_ for a, b_ in zip(errs, errs[1:], strict=False)) and errs[-1] <= 1e-5 * math.sqrt(w @ ch.h**2)


# ---- failures and bad input -----------------------------------------------------------------

def test_nonconvergence_is_reported_not_returned_as_a_number():
    # ridgeless at the interpolation threshold n = N (λ = 0, ψ1 = ψ2): the variance diverges
    kw = dict(noise=0.1, types=8, check=False, max_steps=300)
    with pytest.raises(ConvergenceError):
        gaussian_readout_risk("tanh", "tanh", 1.0, 1.0, 0.0, **kw)
    r = gaussian_readout_risk("tanh", "tanh", 1.0, 1.0, 0.0, on_failure="return", **kw)
    assert not r.converged and math.isnan(r.risk1)
    row = r.as_dict()
    assert row["risk1"] is None and row["train_error"] is None and row["status"]
    json.dumps(row)
    # a K-convergence check that cannot pass is reported as such
    with pytest.raises(ConvergenceError, match="readout types"):
        gaussian_readout_risk("erf", "erf", 8.0, 2.0, 1e-3, noise=0.1, types=4, max_types=6, type_tol=1e-15)
    # ... and, kept, as the one status of an unresolved discretisation, with the risks it saw
    r = gaussian_readout_risk("erf", "erf", 8.0, 2.0, 1e-3, noise=0.1, types=4, max_types=6, type_tol=1e-15,
                              on_failure="return")
    assert not r.converged and r.status == Status.UNRESOLVED and "readout types up to 6" in r.message
    assert [k for k, _ in r.type_sequence] == [4, 6] and r.as_dict()["risk1"] is None
    # the failed response solve keeps its own status (not "converged")
    assert gaussian_readout_risk("tanh", "tanh", 1.0, 1.0, 0.0, on_failure="return", **kw).status != Status.CONVERGED


@pytest.mark.parametrize("kw,name", [
    (dict(psi1=-1.0), "psi1"), (dict(lam=-1e-3), "lam"), (dict(c=-1.0), "c"), (dict(width=0.5), "width"),
    (dict(width="many"), "width"), (dict(readout="uniform"), "readout"), (dict(types=0), "types"),
    (dict(kappa_nodes=3), "kappa_nodes"), (dict(noise=float("nan")), "noise"),
    (dict(readout="given"), "readout_values"), (dict(readout="given", readout_values=(1.0, 2.0),
                                                     readout_proportions=(0.2, 0.2)), "readout_proportions"),
])
def test_bad_input_names_the_parameter(kw, name):
    args = dict(student="erf", teacher="erf", psi1=8.0, psi2=2.0, lam=1e-3, check=False, types=4)
    args.update(kw)
    with pytest.raises(ParameterError) as e:
        gaussian_readout_risk(args.pop("student"), args.pop("teacher"), args.pop("psi1"), args.pop("psi2"),
                              args.pop("lam"), **args)
    assert e.value.name == name


def test_result_row_is_json_and_flags_the_limit():
    r_inf, r_fin = _risk(A, 8.0, width=[math.inf, 2000], check=False, types=16)
    for r in (r_inf, r_fin):
        row = r.as_dict()
        json.dumps(row)
        assert row["limit"] == r.limit and row["kernel_bound"] > row["risk1"]
    assert r_inf.as_dict()["width"] == "inf" and r_fin.as_dict()["width"] == 2000.0
    assert r_inf.V.shape == r_inf.kappa.shape == r_inf.q.shape == (61,)
    assert r_inf.self_energy.shape == (16,)


# ---- the network itself ---------------------------------------------------------------------

@pytest.mark.slow
def test_network_simulation_at_d_400():
    """(a) ψ1 = 8, d = 400 (N = 800), 3 seeds: network R1 within 3 s.e. + 4 % of the finite-N
    theory (0.0319; §3 reports .0320 ± .0009 there; the 4 % allowance is the documented
    overshoot of the finite-N correction at N ≲ 800), and far below μ2*² = 0.0401."""
    from validation.simulator import BaConfig, simulate

    cfg = BaConfig(student="erf", teacher="erf", d=400, psi1=8.0, psi2=2.0, eta=1.0, eta_exponent=0.5, lam=1e-3,
                   noise=0.1, n_test=10_000, measure=("risk",))
    sim = simulate(cfg, seeds=3, root_seed=20260101, workers=1)
    th = _risk(A, 8.0, width=[math.inf, width_from_dimension(2.0, 400)], check=False, types=32)
    mean, se = sim.mean["risk1"], sim.se["risk1"]
    assert abs(mean - th[1].risk1) <= 3 * se + 0.04 * th[1].risk1, (mean, se, th[1].risk1)
    assert mean + 3 * se < th[1].kernel_bound


def test_docstring_examples():
    import doctest

    from asymptotics.theory.large_step import gaussian_readout, readout_quadrature

    for mod in (readout_quadrature, gaussian_readout):
        failed, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert failed == 0, mod.__name__
