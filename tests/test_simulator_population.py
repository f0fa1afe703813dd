"""The exact population risk of the simulator (``validation.simulator.population``) against
independent references:

* the closed-form dual kernels against mpmath two-dimensional quadrature;
* the conditioned Hermite expansion against a brute-force two-dimensional Gauss–Legendre
  integral of every pair of neurons (written here, sharing no code with the simulator), and
  against the closed-form dual kernels (erf, relu: two derivations of the same number);
* the exact risk of a trained network against the Monte-Carlo test risk of the same network
  (same seed, so the same weights and readout) within its test-set standard error, for every
  activation pair used by the validation cases, both protocols and the sRF model, true and
  Gaussian-equivalent features; the Hermite truncation bound below the tolerance.

The n_test = 10⁶, d = 300 version of the last comparison is marked ``slow`` (and reported by
``benchmarks/bench_simulator.py --exactness``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss

from asymptotics.activations import activation
from validation.simulator import BaConfig, CuiConfig, SRFConfig, simulate
from validation.simulator.dual_kernels import pair_kernel
from validation.simulator.population import population_risk, teacher_moments

pytestmark = pytest.mark.filterwarnings("ignore::asymptotics.errors.DegenerateWarning", "ignore:one seed")


# ---- closed-form dual kernels -------------------------------------------------------------------------
#: E (σ(u) − o)(σ(v) − o) by nested mpmath quadratures (20 digits), made offline by
#: test_simulator_data/make_dual_kernel_references.py
REFERENCES = json.loads((Path(__file__).parent / "test_simulator_data" / "dual_kernel_references.json").read_text())


@pytest.mark.parametrize("row", REFERENCES["rows"], ids=lambda r: f"{r['activation']}-{r['a']}-{r['b']}-{r['C']}")
def test_closed_form_dual_kernels_against_mpmath(row):
    act = activation(row["activation"])  # centred (relu: offset 1/√(2π); the others are odd)
    assert float(act.offset) == pytest.approx(row["offset"], abs=1e-15)
    got = float(pair_kernel(row["activation"], row["a"], row["b"], row["C"], float(act.offset)))
    assert got == pytest.approx(float(row["value"]), rel=1e-13, abs=1e-15)


# ---- the conditioned Hermite expansion against brute-force pair integrals -----------------------------
def _gauss_rule(panels=64, order=16, half=10.0):
    x, w = leggauss(order)
    e = np.linspace(-half, half, panels + 1)
    a, b = e[:-1, None], e[1:, None]
    z = ((a + b) / 2 + (b - a) / 2 * x).ravel()
    wz = ((b - a) / 2 * w).ravel() * np.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)
    return z, wz


def _brute_force_risk(W, c, beta, st, te):
    """bᵀKb − 2bᵀk + E σ*² with every K_ij, k_i a tensor Gauss–Legendre integral (smooth σ only)."""
    z, w = _gauss_rule()
    C = W.T @ W
    N = C.shape[0]
    K, k = np.empty((N, N)), np.empty(N)
    for i in range(N):
        for j in range(i, N):
            a, b = C[i, i], C[j, j]
            r = C[i, j] / math.sqrt(a * b)
            u = math.sqrt(a) * z[:, None]
            v = math.sqrt(b) * (r * z[:, None] + math.sqrt(max(1 - r * r, 0)) * z[None, :])
            K[i, j] = K[j, i] = w @ (st.numpy(u) * st.numpy(v)) @ w
        r = (W[:, i] @ beta) / math.sqrt(C[i, i])
        u = math.sqrt(C[i, i]) * (r * z[:, None] + math.sqrt(max(1 - r * r, 0)) * z[None, :])
        k[i] = w @ (te.numpy(z)[:, None] * st.numpy(u)) @ w
    fz = te.numpy(z)
    return c @ K @ c - 2 * c @ k + w @ (fz * fz)


def _spiked_network(d=50, N=10, seed=1, spike=1.5):
    """A first layer whose neurons share an O(1) component along u (⟨u, β⟩ = 0.6), as after a large step."""
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    q = np.linalg.qr(np.stack([beta, rng.standard_normal(d)], axis=1))[0][:, 1]
    u = 0.6 * beta + 0.8 * q
    W = rng.standard_normal((d, N)) / math.sqrt(d) + np.outer(u, spike * rng.standard_normal(N))
    c = rng.standard_normal(N) / N
    return W, c, beta


@pytest.mark.parametrize("student,teacher", [("tanh", "tanh"), ("tanh", "relu"), ("softplus", "tanh"), ("gelu", "sin")])
def test_hermite_expansion_against_pairwise_quadrature(student, teacher):
    W, c, beta = _spiked_network()
    st, te = activation(student), activation(teacher)
    pr = population_risk(W, c, beta, st, te)
    assert pr.method == "hermite" and pr.conditioning == 1  # the common component is conditioned on
    assert pr.bound <= 1e-10 * pr.target_energy
    assert pr.quadrature_error < 1e-12
    ref = _brute_force_risk(W, c, beta, st, te)
    # the brute-force rule itself is accurate to ~1e-12 here (64 panels × 16 nodes per axis)
    assert abs(pr.risk - ref) <= pr.bound + 1e-11


@pytest.mark.parametrize("student", ["erf", "relu"])
def test_hermite_expansion_equals_closed_form(student):
    # two derivations of the same number: the dual kernel in closed form, and the conditioned expansion
    # (for relu through the kink-splitting inner rule)
    W, c, beta = _spiked_network(d=80, N=30, seed=4)
    st = activation(student)
    for teacher in ("tanh", student):
        te = activation(teacher)
        closed = population_risk(W, c, beta, st, te)
        herm = population_risk(W, c, beta, st, te, closed_form=False)
        assert closed.method == f"dual-{student}" and herm.method == "hermite"
        assert herm.bound <= 1e-10 * herm.target_energy
        assert abs(herm.risk - closed.risk) <= herm.bound + 1e-12


def test_teacher_moments_closed_forms():
    # E erf² = (2/π) arcsin(2/3); E relu² − μ0² = 1/2 − 1/(2π) (centred); E z tanh = μ1
    assert teacher_moments(activation("erf"))[2] == pytest.approx(2 / math.pi * math.asin(2 / 3), rel=1e-14)
    m0, m1, m2 = teacher_moments(activation("relu"))
    assert abs(m0) < 1e-15 and m1 == pytest.approx(0.5, rel=1e-14)
    assert m2 == pytest.approx(0.5 - 1 / (2 * math.pi), rel=1e-13)
    assert teacher_moments(activation("tanh"))[1] == pytest.approx(0.605705509602159, rel=1e-13)


# ---- exact risk of a trained network = Monte-Carlo test risk of the same network -------------------------
#: every activation pair of the validation cases (tanh/softplus, tanh/relu, erf/erf, tanh/tanh, tanh/sin)
PAIRS = [("tanh", "tanh"), ("tanh", "softplus"), ("tanh", "relu"), ("erf", "erf"), ("tanh", "sin")]


def _configs(student, teacher, d):
    return [
        BaConfig(student, teacher, d=d, psi1=2.0, psi2=1.5, eta=3.0, lam=1e-2, measure=("risk",)),
        BaConfig(student, teacher, d=d, psi1=1.0, psi2=1.0, eta=2.0, eta_exponent=0.5, lam=1e-2, measure=("risk",)),
        CuiConfig(student, teacher, d=d, alpha=2.0, alpha0=1.0, eta_tilde=3.0, lam=0.01, measure=("risk", "baseline")),
        SRFConfig(student, teacher, d=d, alpha=2.0, c=1.5, r=1.5, gamma=0.7, lam=0.01, measure=("risk",)),
    ]


def _risk_names(cfg):
    return ("risk0", "risk1", "delta") if cfg.protocol == "ba" else (
        ("test_error", "test_error0") if "baseline" in cfg.measure else ("test_error",)
    )  # fmt: skip


def _check_against_monte_carlo(cfg, n_test, z=4.5):
    exact = simulate(cfg, seeds=1, root_seed=2, blas_threads=1)
    mc = simulate(cfg.replace(test_risk="monte-carlo", n_test=n_test), seeds=1, root_seed=2, blas_threads=1)
    pe, pm = exact.per_seed[0], mc.per_seed[0]
    assert pe["train_error"] == pm["train_error"]  # the same trained network and readout
    for name in _risk_names(cfg):
        se = pm[f"{name}_test_se"]
        assert abs(pe[name] - pm[name]) <= z * se, (cfg.protocol, name, pe[name], pm[name], se)
        assert pe[f"{name}_test_se"] == 0.0
    for key, v in pe.items():
        if key.startswith("risk_bound"):
            assert v <= cfg.risk_rtol * teacher_moments(cfg.teacher_activation())[2], key
    return pe


@pytest.mark.parametrize("student,teacher", PAIRS)
def test_exact_risk_equals_monte_carlo_ba(student, teacher):
    # all pairs on the Ba protocol (small step), n_test = 2·10⁵: a 4.5σ tolerance on each risk
    _check_against_monte_carlo(_configs(student, teacher, 150)[0], 200_000)


@pytest.mark.parametrize("protocol", [1, 2, 3])
@pytest.mark.parametrize("student,teacher", [("tanh", "tanh"), ("tanh", "relu")])
def test_exact_risk_equals_monte_carlo_large_step_cui_srf(protocol, student, teacher):
    pe = _check_against_monte_carlo(_configs(student, teacher, 150)[protocol], 200_000)
    assert max(v for k, v in pe.items() if k.startswith("conditioning")) == 1  # the learned direction


@pytest.mark.parametrize("protocol", [0, 1, 2, 3])
def test_exact_risk_equals_monte_carlo_ge_features(protocol):
    cfg = _configs("tanh", "softplus", 150)[protocol].replace(features="ge")
    pe = _check_against_monte_carlo(cfg, 200_000)
    assert all(v == "ge" for k, v in pe.items() if k.startswith("risk_method"))


@pytest.mark.slow
@pytest.mark.parametrize("features", ["true", "ge"])
@pytest.mark.parametrize("protocol", [0, 1, 2, 3])
@pytest.mark.parametrize("student,teacher", PAIRS)
def test_exact_risk_equals_monte_carlo_million_points(student, teacher, protocol, features):
    cfg = _configs(student, teacher, 300)[protocol].replace(features=features)
    _check_against_monte_carlo(cfg, 1_000_000)


def test_linear_network_exact_risk_is_the_closed_form():
    # σ = σ* = identity: R = ‖Wb − β‖² exactly (closed form 'linear'), the same for true and GE features
    cfg = BaConfig("linear", "linear", d=120, psi1=2.0, psi2=1.0, lam=0.1, eta=1.0, measure=("risk",))
    true = simulate(cfg, seeds=2, root_seed=5)
    ge = simulate(cfg.replace(features="ge"), seeds=2, root_seed=5)
    for name in ("risk0", "risk1"):
        assert true.values(name) == pytest.approx(ge.values(name), rel=1e-12)
    assert {ps["risk_method1"] for ps in true.per_seed} == {"dual-linear"}
