"""The Monte-Carlo simulator against independent references.

References used (none is an output of the simulator itself):

* exact finite-sample OLS risk of a linear random-features model (λ = 0, N < n);
* the Marchenko–Pastur deterministic equivalent of linear random-features ridge, derived here
  from ``docs/mathematics.md`` (MP law of W₀ᵀW₀) and the standard ridge deterministic equivalent;
* exact algebra for σ = identity (G₀ exactly rank one; rank-one error from the f₀ term);
* Ba et al.'s Prop. 2 rate (rank-one error ∝ n^{-1/2}, fitted slope);
* the spiked-matrix formulas of ``docs/one-step.md`` and the sRF map of ``docs/spiked-rf.md``,
  evaluated here from the Gaussian constants of the activations;
* χ² statistics of the test-set estimator.

Sizes stay at d ≤ 300; heavier comparisons are validation cases (``asymptotics validate``).
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

from asymptotics.activations import activation
from asymptotics.errors import DegenerateWarning, ParameterError
from validation.simulator import (
    BaConfig,
    CuiConfig,
    SimulationResult,
    SRFConfig,
    config_class,
    measurement_names,
    simulate,
)

pytestmark = pytest.mark.filterwarnings("ignore::asymptotics.errors.DegenerateWarning")


# ---- independent references ---------------------------------------------------------------------
def mp_stieltjes(z: float, psi2: float) -> float:
    """m(z) of the MP law of W₀ᵀW₀ (W₀ d×N, entries N(0,1/d)): ψ2 z m² − (1 − ψ2 − z) m + 1 = 0,
    the positive root for z < 0 (docs/mathematics.md)."""
    a, b = psi2 * z, -(1 - psi2 - z)
    disc = math.sqrt(b * b - 4 * a)
    return max((-b + disc) / (2 * a), (-b - disc) / (2 * a))


def mp_stieltjes_derivative(z: float, psi2: float) -> float:
    m = mp_stieltjes(z, psi2)
    return -(psi2 * m * m + m) / (2 * psi2 * z * m - (1 - psi2 - z))


def linear_rf_ridge_risk(psi1: float, psi2: float, lam: float, noise: float) -> float:
    """Risk ‖W b̂ − β‖² of ridge (1/n)‖y − Zb‖² + λ‖b‖² on z = Wᵀx, y = βᵀx + ε (d → ∞).

    β = Pβ + (I − P)β with P the projection on range(W): the second part is Gaussian and
    independent of z, i.e. extra noise A = ‖(I − P)β‖² → 1 − min(1, ψ2); the first is zᵀb*,
    b* = W⁺β. The ridge deterministic equivalent (κ from λ = κ(1 − df1)) gives
    R = A + [κ² b*ᵀΣ(Σ + κ)⁻²b* + (σ² + A) df2]/(1 − df2), Σ = WᵀW, with
    df1 = (ψ2/ψ1)(1 − κm), df2 = (ψ2/ψ1)(1 − 2κm + κ²m'), κ² b*ᵀΣ(Σ + κ)⁻²b* = ψ2(κ²m' − P0),
    m = m(−κ) of MP(ψ2), P0 = (1 − 1/ψ2)₊ its atom at 0.
    """
    ratio = psi2 / psi1

    def df1(k):
        return ratio * (1 - k * mp_stieltjes(-k, psi2))

    kappa = brentq(lambda k: k * (1 - df1(k)) - lam, 1e-14, 10 * (lam + 1) * (1 + psi2))
    m, dm = mp_stieltjes(-kappa, psi2), mp_stieltjes_derivative(-kappa, psi2)
    df2 = ratio * (1 - 2 * kappa * m + kappa**2 * dm)
    p0 = max(0.0, 1 - 1 / psi2)
    A = 1 - min(1.0, psi2)
    bias = psi2 * (kappa**2 * dm - p0)
    return A + (bias + (noise**2 + A) * df2) / (1 - df2)


def spike_theory(student: str, teacher: str, psi1: float, psi2: float, eta: float, noise: float) -> dict:
    """docs/one-step.md (Benaych-Georges–Nadakuditi for W₀ + θuvᵀ), from the Gaussian constants."""
    s, t = activation(student).constants(), activation(teacher).constants()
    ey2 = t.second_moment + noise**2  # μ1*² + μ2*² + σ_ε² (centred teacher)
    s2 = t.mu1**2 + ey2 / psi1
    th2 = eta**2 * s.mu1**2 * s2
    rho2 = t.mu1**2 / s2
    sep = max(th2**2 - psi2, 0.0)
    return {
        "overlap_beta": rho2 * sep / (th2 * (1 + th2)),
        "overlap_a": sep / (th2 * (th2 + psi2)),
        "top_sv2": (psi2 + th2) * (1 + th2) / th2 if th2**2 > psi2 else (1 + math.sqrt(psi2)) ** 2,
        "rho2": rho2,
        "theta2": th2,
        "beta_energy": psi2 + eta**2 * s.mu1**2 * t.mu1**2,
    }


def cui_srf_map(student: str, teacher: str, eta_tilde: float, alpha0: float) -> dict:
    """docs/spiked-rf.md: r = η̃ h1 √(h1*² + h2*/α0), c = 1 + η̃² h2* ȟ1/α0, γ = h1*/√(h1*² + h2*/α0)."""
    s, t = activation(student).constants(), activation(teacher).constants()
    h1, h1s, h2s, hv = s.mu1, t.mu1, t.second_moment, s.var_derivative
    g = math.sqrt(h1s**2 + h2s / alpha0)
    return {"r": eta_tilde * h1 * g, "c": 1 + eta_tilde**2 * h2s * hv / alpha0, "gamma": h1s / g}


def close(res: SimulationResult, name: str, ref: float, z: float = 3.5, allowance: float = 0.0) -> None:
    m, se = res.mean[name], res.se[name]
    assert abs(m - ref) <= z * se + allowance, f"{name}: simulation {m:.5g} ± {se:.2g} vs reference {ref:.5g}"


# ---- risk: linear student and teacher --------------------------------------------------------------
def _linear(**kw) -> BaConfig:
    """The Ba protocol with σ = σ* = identity, risks only."""
    return BaConfig("linear", "linear", measure=("risk",), **kw)


def test_linear_ols_exact_finite_d():
    # λ = 0, N < n: OLS on z = Wᵀx with Gaussian extra noise A = ‖(I − P)β‖², E A = 1 − N/d exactly, and
    # E tr(Σ(ZᵀZ)⁻¹) = N/(n − N − 1): E R0 = (1 − N/d)(n − 1)/(n − N − 1) + σ² N/(n − N − 1) at finite d.
    cfg = _linear(d=200, psi1=1.5, psi2=0.5, lam=0.0, noise=0.5, eta=0.0, n_test=4000)
    res = simulate(cfg, seeds=8, root_seed=11)
    d, N, n = cfg.d, cfg.N, cfg.n
    exact = (1 - N / d) * (n - 1) / (n - N - 1) + cfg.noise**2 * N / (n - N - 1)
    close(res, "risk0", exact, z=3.5)
    # η = 0: W₁ = W₀, so R1 = R0 on the same draws, δ = 0 to round-off
    assert abs(res.mean["delta"]) < 1e-12
    # the exact population risk of a linear network is ‖Wb − β‖² (closed form): no test-set error
    assert res.test_se["risk0"] == 0.0
    # the Monte-Carlo test set: per point (xᵀ(Wb − β))² = R·χ²₁, variance 2R², so test_se = R √(2/n_test),
    # and the same networks (same seeds) have the same exact risks to within that error
    mc = simulate(cfg.replace(test_risk="monte-carlo"), seeds=8, root_seed=11)
    for ps, pe in zip(mc.per_seed, res.per_seed, strict=True):
        assert ps["risk0_test_se"] == pytest.approx(ps["risk0"] * math.sqrt(2 / cfg.n_test), rel=0.1)
        assert abs(ps["risk0"] - pe["risk0"]) <= 4.5 * ps["risk0_test_se"]
    assert 0 < mc.test_se["risk0"] < mc.se["risk0"] * 3


@pytest.mark.parametrize(
    "psi1,psi2,lam,noise", [(3.0, 2.0, 0.05, 0.3), (3.0, 0.5, 0.05, 0.3), (1.0, 2.0, 0.1, 0.5)]
)
def test_linear_ridge_marchenko_pastur(psi1, psi2, lam, noise):
    cfg = _linear(d=250, psi1=psi1, psi2=psi2, lam=lam, noise=noise, eta=0.0, n_test=3000)
    res = simulate(cfg, seeds=6, root_seed=3)
    ref = linear_rf_ridge_risk(psi1, psi2, lam, noise)
    close(res, "risk0", ref, z=3.5, allowance=0.03 * ref)  # + O(1/d) finite-size allowance


def test_ge_features_equal_true_features_for_linear_student():
    # σ(x) = x: μ0 = 0, μ1 = 1, μ2 = 0, so the Gaussian-equivalent features are the true ones; the GE path
    # draws its test points through the exact joint law of the projections (no d-dim inputs).
    base = _linear(d=150, psi1=2.0, psi2=1.0, lam=0.1, noise=0.2, eta=1.0, n_test=4000)
    base = base.replace(test_risk="monte-carlo")
    true = simulate(base, seeds=4, root_seed=5)
    ge = simulate(base.replace(features="ge"), seeds=4, root_seed=5)
    # same ridge fits (same W, data and readout): train errors agree to round-off
    assert ge.mean["train_error"] == pytest.approx(true.mean["train_error"], rel=1e-10)
    for name in ("risk0", "risk1"):
        diff = abs(ge.mean[name] - true.mean[name])
        assert diff <= 4 * math.hypot(ge.test_se[name], true.test_se[name])
    # the exact risks (closed form for both) agree to round-off
    ex_true = simulate(base.replace(test_risk="exact"), seeds=4, root_seed=5)
    ex_ge = simulate(base.replace(test_risk="exact", features="ge"), seeds=4, root_seed=5)
    for name in ("risk0", "risk1"):
        assert ex_ge.values(name) == pytest.approx(ex_true.values(name), rel=1e-11)


# ---- the first gradient ------------------------------------------------------------------------------
def test_identity_student_gradient_is_exactly_rank_one():
    cfg = BaConfig("linear", "linear", d=200, psi1=2.0, psi2=1.0, noise=0.3, eta=1.0, measure=("spike",))
    res = simulate(cfg, seeds=3, root_seed=1)
    # σ' ≡ 1: G₀ = Xᵀ(y − f₀)aᵀ/(n√N) exactly (singular values come from the Gram matrix, so a zero s₂ is
    # resolved to √ε·s₁ ≈ 1e-8; for tanh the ratio is ≈ 0.06 at this size)
    assert res.mean["gradient_sv_ratio"] < 1e-6
    # A uses y instead of y − f₀: ‖G₀ − A‖/‖G₀‖ = ‖Xᵀf₀‖/‖Xᵀ(y − f₀)‖ with f₀ = Xv, v = W₀a/√N, ‖v‖² ≈ 1/N;
    # E‖XᵀXw/n‖² = ‖w‖²(1 + (d + 1)/n) for fixed w, so the ratio² ≈ (1/N)(1 + 1/ψ1) / ((1 + 1/N)(1 + 1/ψ1) + σ²/ψ1)
    N, q = cfg.N, 1 + 1 / cfg.psi1
    ref = math.sqrt((q / N) / ((1 + 1 / N) * q + cfg.noise**2 / cfg.psi1))
    assert res.mean["rank1_error"] == pytest.approx(ref, rel=0.2)


def test_labels_gradient_drops_the_initial_output():
    # σ' ≡ 1: the gradient on the labels, Xᵀ[(y cᵀ) ⊙ σ'(XW)]/n = Xᵀy cᵀ/n, *is* Ba's rank-one A with r = y
    # (computed by another path: g = μ1 Xᵀy/n and an outer update), so the two trained networks are one;
    # the exact gradient (r = y − f₀) differs from both by the initial output's term
    cfg = BaConfig("linear", "linear", d=120, psi1=2.0, psi2=1.0, noise=0.3, eta=1.0, eta_exponent=0.5,
                   measure=("risk",))
    labels = simulate(cfg.replace(gradient="labels"), seeds=2, root_seed=3).values("risk1")
    rank1 = simulate(cfg.replace(gradient="rank1"), seeds=2, root_seed=3).values("risk1")
    exact = simulate(cfg, seeds=2, root_seed=3).values("risk1")
    assert labels == pytest.approx(rank1, rel=1e-8)
    assert np.all(np.abs(np.asarray(exact) - np.asarray(labels)) > 1e-6 * np.abs(labels))


def test_rank_one_error_decays_like_inverse_sqrt_n():
    sizes = (50, 100, 200, 400)
    errs = []
    for d in sizes:
        res = simulate(BaConfig(d=d, psi1=1.0, psi2=1.0, eta=1.0, measure=("spike",)), seeds=3, root_seed=2)
        errs.append(res.mean["rank1_error"])
    slope = np.polyfit(np.log(sizes), np.log(errs), 1)[0]
    # Ba et al. Prop. 2: ‖G₀ − A‖/‖G₀‖ ≤ C log²n/√n; the measured decay is n^{-1/2}
    assert -0.7 < slope < -0.35, (slope, errs)
    assert errs[-1] < 0.1


# ---- spike (docs/one-step.md) and large step ----------------------------------------------------------
def test_spike_alignment_matches_bbp_formulas():
    cfg = BaConfig(d=300, psi1=2.0, psi2=1.5, eta=5.0, noise=0.1, measure=("spike",))
    res = simulate(cfg, seeds=3, root_seed=7)
    th = spike_theory("tanh", "tanh", 2.0, 1.5, 5.0, 0.1)
    assert th["overlap_beta"] == pytest.approx(0.511, abs=2e-3)  # the value quoted in docs/one-step.md
    close(res, "overlap_beta", th["overlap_beta"], allowance=0.04)
    close(res, "overlap_a", th["overlap_a"], allowance=0.04)
    close(res, "top_sv2", th["top_sv2"], allowance=0.08 * th["top_sv2"])
    close(res, "beta_energy", th["beta_energy"], allowance=0.08 * th["beta_energy"])
    # below the BBP threshold (θ⁴ < ψ2) there is no outlier: no alignment, top at the bulk edge
    below = simulate(cfg.replace(eta=1.0), seeds=3, root_seed=7)
    assert below.mean["overlap_beta"] < 0.05
    assert below.mean["top_sv2"] == pytest.approx((1 + math.sqrt(1.5)) ** 2, rel=0.08)


def test_large_step_alignment_reaches_rho_squared():
    # η = c√N: θ → ∞ and ⟨u₁, β*⟩² → ρ² = μ1*²/s² (docs/one-step.md); W₁ = W₀ + η√N G₀ = W₀ + cN G₀
    cfg = BaConfig(d=200, psi1=1.0, psi2=1.0, eta=2.0, eta_exponent=0.5, noise=0.1, measure=("spike",))
    assert cfg.learning_rate == pytest.approx(2 * math.sqrt(200))
    res = simulate(cfg, seeds=3, root_seed=4)
    rho2 = spike_theory("tanh", "tanh", 1.0, 1.0, 1.0, 0.1)["rho2"]
    close(res, "overlap_beta", rho2, allowance=0.03)
    assert res.mean["overlap_a"] > 0.95


def test_rank1_gradient_variant_and_multiple_steps():
    cfg = BaConfig(d=200, psi1=2.0, psi2=1.5, eta=5.0, measure=("spike",))
    exact = simulate(cfg, seeds=2, root_seed=8)
    rank1 = simulate(cfg.replace(gradient="rank1"), seeds=2, root_seed=8)
    # Prop. 2: A ≈ G₀, so the spike is the same to O(n^{-1/2})
    assert abs(rank1.mean["overlap_beta"] - exact.mean["overlap_beta"]) < 0.05
    # two small steps of η ≈ one step of 2η (to O(η²)): the energy along β* ψ2 + θ1²
    small = BaConfig(d=200, psi1=2.0, psi2=1.5, eta=0.5, measure=("spike",))
    two = simulate(small.replace(steps=2), seeds=2, root_seed=9)
    one = simulate(small.replace(eta=1.0), seeds=2, root_seed=9)
    assert two.mean["beta_energy"] == pytest.approx(one.mean["beta_energy"], rel=0.03)
    fresh = simulate(small.replace(steps=2, batches="fresh"), seeds=2, root_seed=9)
    assert fresh.mean["beta_energy"] == pytest.approx(one.mean["beta_energy"], rel=0.05)


# ---- Cui protocol and the sRF model ---------------------------------------------------------------------
def test_cui_measured_srf_parameters_match_the_map():
    cfg = CuiConfig(d=300, alpha=1.0, alpha0=1.0, beta=1.0, eta_tilde=5.0, measure=("spike",))
    res = simulate(cfg, seeds=4, root_seed=6)
    ref = cui_srf_map("tanh", "tanh", 5.0, 1.0)
    assert ref["c"] == pytest.approx(1.961, abs=1e-3)  # the value quoted in docs/spiked-rf.md
    # finite-size allowances: the d = 2000 measurement quoted there is c = 1.972 (0.6 % high)
    close(res, "c", ref["c"], allowance=0.03 * ref["c"])
    close(res, "r", ref["r"], allowance=0.04 * ref["r"])
    close(res, "gamma", ref["gamma"], allowance=0.03)
    # the variant with an extra factor h1² in c (1.353) is rejected
    assert abs(res.mean["c"] - 1.353) > 0.5


def test_cui_two_readout_types():
    cfg = CuiConfig(d=200, alpha=1.0, alpha0=2.0, eta_tilde=2.0, readout_values=(0.5, 1.5),
                    readout_proportions=(0.5, 0.5), measure=("spike",))  # fmt: skip
    res = simulate(cfg, seeds=2, root_seed=6)
    # neuron j moves by η̃ uⱼ(h1 ĝ + ξⱼ): the fitted spike s = Wu/‖u‖² has r = η̃ h1 ‖ĝ‖ and the bulk variance
    # is the type-average of c(u) = 1 + η̃² u² h2* ȟ1/α0 (docs/spiked-rf.md)
    ref1 = cui_srf_map("tanh", "tanh", 2.0, 2.0)
    c_avg = 1 + (ref1["c"] - 1) * (0.5 * 0.25 + 0.5 * 2.25)
    close(res, "c", c_avg, allowance=0.03 * c_avg)
    close(res, "r", ref1["r"], allowance=0.05 * ref1["r"])


def test_srf_model_reproduces_its_parameters_and_readout():
    cfg = SRFConfig(d=200, alpha=2.0, beta=1.0, lam=0.01, c=1.5, r=2.0, gamma=0.6, n_test=3000,
                    measure=("risk", "spike"))  # fmt: skip
    res = simulate(cfg, seeds=3, root_seed=2)
    close(res, "c", 1.5, allowance=0.01)
    close(res, "r", 2.0, allowance=0.03)
    close(res, "gamma", 0.6, allowance=0.02)
    assert 0 < res.mean["train_error"] < res.mean["test_error"] < activation("tanh").constants().second_moment


def test_cui_network_and_baseline():
    cfg = CuiConfig(
        d=200, alpha=2.0, alpha0=2.0, eta_tilde=3.0, lam=0.01, n_test=3000, measure=("risk", "baseline")
    )
    res = simulate(cfg, seeds=3, root_seed=1)
    # one large step with a good first batch beats random features (docs/spiked-rf.md: 0.0889 vs 0.1667
    # at η̃ = 3, α0 = 2, α = 3)
    assert res.mean["test_error"] < res.mean["test_error0"] - 5 * math.hypot(
        res.se["test_error"], res.se["test_error0"]
    )
    assert set(res.test_se) == {"test_error", "test_error0"}


# ---- conjugate kernel --------------------------------------------------------------------------------------
def test_ck_outlier_and_label_alignment():
    cfg = BaConfig(d=200, psi1=2.0, psi2=2.0, eta=8.0, n_test=2000, measure=("ck",))
    res = simulate(cfg, seeds=2, root_seed=3)
    init = simulate(cfg.replace(eta=0.0), seeds=2, root_seed=3)
    # docs/one-step.md: an outlier x_out = (μ1²s₁² + μ2²)(1 + (ψ2/ψ1)(1/θ² + (μ2²/μ1²)/(ψ2 + θ²))) after the
    # step (quoted there: 6.50 simulated vs 6.57 at d = 1600), none at W₀ for odd σ
    s = activation("tanh").constants()
    th = spike_theory("tanh", "tanh", 2.0, 2.0, 8.0, 0.1)
    th2 = th["theta2"]
    x_out = (s.mu1**2 * th["top_sv2"] + s.mu2_sq) * (1 + (1 / th2 + (s.mu2_sq / s.mu1**2) / (2 + th2)))
    assert x_out == pytest.approx(6.57, abs=0.02)
    close(res, "ck_outlier", x_out, allowance=0.08 * x_out)
    assert init.mean["ck_outlier"] < 0.6 * res.mean["ck_outlier"]
    assert res.mean["ck_label_alignment"] > 0.2 > init.mean["ck_label_alignment"]


# ---- reproducibility ---------------------------------------------------------------------------------------
def _numbers(res):
    return [{k: v for k, v in ps.items() if k != "elapsed_s"} for ps in res.per_seed]


def test_same_seed_same_numbers_and_worker_invariance():
    cfg = BaConfig(d=120, psi1=2.0, psi2=1.5, eta=3.0, n_test=1500)
    a = simulate(cfg, seeds=3, root_seed=42, blas_threads=1)
    b = simulate(cfg, seeds=3, root_seed=42, blas_threads=1)
    assert _numbers(a) == _numbers(b)
    c = simulate(cfg, seeds=3, root_seed=42, workers=2)  # two processes, one BLAS thread each
    assert _numbers(c) == _numbers(a)
    assert c.meta["mode"] == "processes" and c.meta["threads_per_task"] == 1
    # all cores in one process: the same to round-off (a threaded BLAS may order sums differently)
    e = simulate(cfg, seeds=3, root_seed=42)
    for x, y in zip(_numbers(a), _numbers(e), strict=True):
        for k, v in x.items():
            if isinstance(v, float):
                assert y[k] == pytest.approx(v, rel=1e-8, abs=1e-12), k
    d = simulate(cfg, seeds=3, root_seed=43, blas_threads=1)
    assert d.mean["risk1"] != a.mean["risk1"]
    # seed k's numbers do not depend on how many seeds are run
    assert _numbers(simulate(cfg, seeds=2, root_seed=42, blas_threads=1)) == _numbers(a)[:2]


def test_result_rows_and_meta():
    cfg = CuiConfig(d=60, alpha=1.5, n_test=500, measure=("risk", "ck"))
    res = simulate(cfg, seeds=2, root_seed=0)
    row = res.as_row()
    for name in measurement_names("cui", cfg.measure):
        assert f"{name}_mean" in row and f"{name}_se" in row
    assert "test_error_test_se" in row and row["seeds"] == 2 and row["p"] == 60
    assert res.meta["root_seed"] == 0 and res.meta["student"]["mu1"] == pytest.approx(0.605705509602159)
    json.dumps(row)
    with pytest.warns(UserWarning, match="one seed"):
        one = simulate(cfg, seeds=1)
    assert one.as_row()["test_error_se"] is None


def test_singular_ridge_falls_back_and_warns():
    # λ = 0 at N = n with a linear student: the features span only d < N directions, FᵀF is singular
    cfg = _linear(d=50, psi1=2.0, psi2=2.0, lam=0.0, eta=0.0, n_test=500)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = simulate(cfg, seeds=2)
    assert any(issubclass(w.category, DegenerateWarning) for w in rec)
    assert all(math.isfinite(v) for v in res.mean.values())


# ---- bad input ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make,name",
    [
        (lambda: BaConfig(d=10.5), "d"),
        (lambda: BaConfig(d=1), "d"),
        (lambda: BaConfig(d="x"), "d"),
        (lambda: BaConfig(d=10, psi1=0.1), "psi1"),
        (lambda: BaConfig(d=10, psi1=-1), "psi1"),
        (lambda: BaConfig(psi2=0.0001), "psi2"),
        (lambda: BaConfig(eta=-1), "eta"),
        (lambda: BaConfig(eta_exponent=2), "eta_exponent"),
        (lambda: BaConfig(lam=float("nan")), "lam"),
        (lambda: BaConfig(student="tanh(("), "student"),
        (lambda: BaConfig(features="gaussian"), "features"),
        (lambda: BaConfig(gradient="approx"), "gradient"),
        (lambda: BaConfig(steps=0), "steps"),
        (lambda: BaConfig(n_test=1), "n_test"),
        (lambda: BaConfig(measure=("risk", "spectrum")), "measure"),
        (lambda: CuiConfig(d=10, alpha=0.05), "alpha"),
        (lambda: CuiConfig(readout_values=(1.0, 2.0), readout_proportions=(1.0,)), "readout_proportions"),
        (lambda: CuiConfig(readout_values=(0.0,)), "readout_values"),
        (lambda: SRFConfig(gamma=1.5), "gamma"),
        (lambda: SRFConfig(c=(1.0, 2.0)), "c"),
        (lambda: config_class("mlp"), "protocol"),
        (lambda: simulate({"d": 100}), "protocol"),
        (lambda: simulate(BaConfig(d=20), seeds=0), "seeds"),
        (lambda: simulate(BaConfig(d=20), workers=0), "workers"),
    ],
)
def test_bad_input_names_the_parameter(make, name):
    with pytest.raises(ParameterError) as info:
        make()
    assert info.value.name == name
    assert name in str(info.value)


# ---- CLI -------------------------------------------------------------------------------------------------------
def test_cli_simulate_grid_json_and_parquet(tmp_path, capsys):
    from asymptotics.cli.app import main
    from asymptotics.results import Result

    code = main(["simulate", "--d", "60", "--psi1", "2", "--eta", "0,4", "--seeds", "2",
                 "--measure", "risk,spike", "--format", "json"])  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    obj = json.loads(out.out)
    rows = obj["rows"]
    assert [r["eta"] for r in rows] == [0.0, 4.0]
    assert rows[0]["risk0_mean"] == rows[1]["risk0_mean"]  # common random numbers along the grid
    assert abs(rows[0]["delta_mean"]) < 1e-12 and rows[1]["overlap_beta_mean"] > rows[0]["overlap_beta_mean"]
    assert obj["meta"]["command"] == "simulate" and obj["meta"]["seeds"] == 2
    path = tmp_path / "sim.parquet"
    code = main(["simulate", "--protocol", "srf", "--d", "50", "--alpha", "2", "--r", "1", "--gamma", "0.5",
                 "--seeds", "2", "--per-seed", "--format", "parquet", "--out", str(path)])  # fmt: skip
    assert code == 0
    back = Result.read(path)
    assert len(back.rows) == 2 and back.meta["protocol"] == "srf"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["simulate", "--protocol", "mlp"], "protocol"),
        (["simulate", "--d", "100.5"], "d="),
        (["simulate", "--d", "1"], "d="),
        (["simulate", "--d", "20", "--psi1", "0.01"], "psi1"),
        (["simulate", "--protocol", "cui", "--psi1", "2"], "--psi1"),
        (["simulate", "--features", "xx", "--d", "20"], "features"),
    ],
)
def test_cli_simulate_bad_input(args, needle, capsys):
    from asymptotics.cli.app import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


# ---- linear algebra against LAPACK ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(90, 150), (150, 90)])
def test_linalg_helpers_against_dense_lapack(shape):
    from validation.simulator.engine import _gradient_measurements
    from validation.simulator.linalg import ridge_solve, top_singular

    rng = np.random.default_rng(0)
    d, N = shape
    M = rng.standard_normal((d, N)) / math.sqrt(d) + 3 * np.outer(
        rng.standard_normal(d), rng.standard_normal(N)
    ) / math.sqrt(d * N)
    U, S, Vt = np.linalg.svd(M)
    s, u1, v1 = top_singular(M, k=2, rng=np.random.default_rng(1))
    assert s == pytest.approx(S[:2], rel=1e-8)
    assert abs(u1 @ U[:, 0]) == pytest.approx(1, abs=1e-8) and abs(v1 @ Vt[0]) == pytest.approx(1, abs=1e-8)
    assert u1 @ M @ v1 == pytest.approx(S[0], rel=1e-8)

    # rank-two update of the Gram matrix vs the spectral norm of G − g cᵀ formed explicitly
    class Ctx:
        mu1 = 0.7
        streams = type("S", (), {"generator": staticmethod(lambda *a: np.random.default_rng(a[-1]))})()

    n = 40
    X, y, c = rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal(N) / N
    g = 0.7 * X.T @ y / n
    out = _gradient_measurements(Ctx, M.copy(), X, y, c, n)
    assert out["rank1_error"] == pytest.approx(np.linalg.norm(M - np.outer(g, c), 2) / S[0], rel=1e-7)
    assert out["gradient_sv_ratio"] == pytest.approx(S[1] / S[0], rel=1e-7)

    # ridge, primal and dual forms, against the normal equations solved by LAPACK gesv
    F = np.tanh(rng.standard_normal(shape))
    yy = rng.standard_normal(shape[0])
    ref = np.linalg.solve(F.T @ F + 0.3 * np.eye(shape[1]), F.T @ yy)
    sol = ridge_solve(F, yy, 0.3, v0=np.ones(min(shape)))
    assert sol.form == ("primal" if shape[1] <= shape[0] else "dual")
    assert sol.coef == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert sol.top_eigenvalue == pytest.approx(np.linalg.eigvalsh(F.T @ F)[-1], rel=1e-9)
    w, V = np.linalg.eigh(F @ F.T)
    assert abs(sol.top_vector_n @ V[:, -1]) == pytest.approx(1, abs=1e-7)
    assert sol.train_error == pytest.approx(np.mean((yy - F @ ref) ** 2), rel=1e-9)
