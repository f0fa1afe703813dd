"""The simulator's spectrum measurement (``validation/simulator/spectrum.py``) against independent
references: the simulator's own scalar measurements (same seeds), finite-size closed forms of
W₀ᵀW₀, the numpy reference sampler of ``tests/test_spectra_sampler.py`` (other random streams:
compared statistically) and the d → ∞ theory of ``asymptotics.theory.spectra`` with stated
finite-size tolerances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_spectra_sampler import sample_ba

from asymptotics.errors import ParameterError
from validation.simulator import BaConfig, CuiConfig
from validation.simulator.protocols import run_seed
from validation.simulator.spectrum import (
    measure_spectra,
    measure_spectrum,
    pooled_histogram,
    spectrum_memory_bytes,
)

BA = {"psi1": 3.0, "psi2": 1.0, "noise": 0.1}


def _ba(d, eta, **kw):
    return BaConfig(d=d, eta=eta, measure=("spike", "ck"), **{**BA, **kw})


@pytest.mark.parametrize(
    "cfg",
    [
        _ba(120, 6.0),
        _ba(120, 6.0, features="ge"),
        _ba(120, 1.0, eta_exponent=0.5, psi1=2.0),
        CuiConfig(d=120, alpha=2, beta=1, eta_tilde=3, alpha0=2, measure=("spike", "ck")),
    ],
    ids=["ba-small-true", "ba-small-ge", "ba-large", "cui"],
)
def test_reproduces_the_simulators_network_of_the_same_seed(cfg):
    """Same (root seed, seed index) → the W₁ and CK of run_seed: its Lanczos top eigenvalue and
    overlaps (tolerance 1e-8) are the dense eigendecomposition's."""
    r = run_seed(cfg, 11, 3)
    m = measure_spectrum(cfg, 11, 3)
    w, ck = m["weights"].top[0], m["ck_" + cfg.features].top[0]
    assert w.location == pytest.approx(r["top_sv2"], rel=1e-8)
    assert w.overlaps["teacher"] == pytest.approx(r["overlap_beta"], rel=1e-6, abs=1e-9)
    assert w.overlaps["readout"] == pytest.approx(r["overlap_a"], rel=1e-6, abs=1e-9)
    assert m["weights"].top[1].location == pytest.approx(r["bulk_edge_sv2"], rel=1e-8)
    assert ck.location == pytest.approx(r["ck_outlier"], rel=1e-8)
    assert ck.overlaps["labels"] == pytest.approx(r["ck_label_alignment"], rel=1e-6, abs=1e-9)


def test_W0_gram_has_the_finite_size_moments_of_a_gaussian_matrix():
    """W₀ with N(0, 1/d) entries: E tr(W₀ᵀW₀)/N = 1 and E tr(W₀ᵀW₀)²/N = 1 + 2/d + (N − 1)/d exactly
    (Wick); the seed means agree within 4 s.e. Cui's unit columns give tr/N = 1 for every seed."""
    d, psi2 = 150, 1.5
    ms = measure_spectra(_ba(d, 2.0, psi2=psi2), seeds=6, root_seed=5, matrices=("weights",), before=True)
    N = round(psi2 * d)
    m1 = np.array([m["weights_before"].mean for m in ms])
    m2 = np.array([np.mean(m["weights_before"].eigenvalues ** 2) for m in ms])
    for vals, exact in ((m1, 1.0), (m2, 1.0 + 2.0 / d + (N - 1) / d)):
        se = vals.std(ddof=1) / math.sqrt(vals.size)
        assert abs(vals.mean() - exact) < 4 * se + 1e-12
    # the trace is the sum of the eigenvalues (N − d zeros padded since N > d)
    ev = ms[0]["weights_before"].eigenvalues
    assert ev.size == N and np.sum(ev < 1e-10) >= N - d
    cui = measure_spectrum(CuiConfig(d=80, alpha=2, beta=1.5, eta_tilde=2, alpha0=2), 1, 0, before=True,
                           matrices=("weights",))
    assert cui["weights_before"].mean == pytest.approx(1.0, rel=1e-12)


def test_matches_the_reference_sampler_in_distribution():
    """The reference sampler (independent code, other streams) and the simulator at d = 250, four
    seeds each: the first moments of W₁ᵀW₁ and of both CK Grams, the CK outlier and its label
    alignment agree within 4 s.e. of the difference, and the pooled bulks within a Kolmogorov
    distance 0.03 (each is within ≈ 0.01 of the limit at this d, docs/spectra.md §5)."""
    d, eta, seeds = 250, 6.0, 4
    ours = measure_spectra(_ba(d, eta), seeds=seeds, root_seed=2)
    ref = [sample_ba(d, eta=eta, seed=k, **BA) for k in range(seeds)]

    def stats(vals):
        vals = np.asarray(vals)
        return vals.mean(), vals.std(ddof=1) / math.sqrt(vals.size)

    for name in ("weights", "ck_true", "ck_ge"):
        checks = {
            "mean": ([m[name].mean for m in ours], [np.mean(r[name]["eigenvalues"]) for r in ref]),
            "top": ([m[name].top[0].location for m in ours], [r[name]["top"][0]["location"] for r in ref]),
        }
        if name != "weights":
            checks["labels"] = ([m[name].top[0].overlaps["labels"] for m in ours],
                                [r[name]["top"][0]["overlaps"]["labels"] for r in ref])
        for what, (a, b) in checks.items():
            (ma, sa), (mb, sb) = stats(a), stats(b)
            assert abs(ma - mb) < 4 * math.hypot(sa, sb), (name, what, ma, mb)
        from scipy.stats import ks_2samp

        pa = np.concatenate([m[name].eigenvalues[:-1] for m in ours])
        pb = np.concatenate([r[name]["eigenvalues"][:-1] for r in ref])
        assert ks_2samp(pa, pb).statistic < 0.03, name


def test_top_eigenvalues_approach_the_theorys_outliers():
    """ψ1 = 3, ψ2 = 1, η = 6, d = 400, 3 seeds against the d → ∞ outliers of asymptotics.theory.spectra
    (W₁: θ²D(x) = 1; CK: −ℓm̲(x) = 1). Finite-size tolerance: 4 s.e. + 6 % of the location (the
    outliers sit 1–4 % below their limits at d = 500–2000, docs/spectra.md §5) and 4 s.e. + 0.05 for
    the label alignment."""
    from asymptotics.theory.spectra import ba_step, ck_spectrum, weights_spectrum

    step = ba_step("tanh", "tanh", eta=6.0, **BA)
    wt = weights_spectrum(step, points=50).outliers[0]
    ct = ck_spectrum(step, points=50).outliers[0]
    ms = measure_spectra(_ba(400, 6.0), seeds=3, root_seed=9, features=("true",))
    for vals, theory, slack in (
        ([m["weights"].top[0].location for m in ms], wt.location, 0.06 * wt.location),
        ([m["ck_true"].top[0].location for m in ms], ct.location, 0.06 * ct.location),
        ([m["ck_true"].top[0].overlaps["labels"] for m in ms], ct.overlaps["labels"], 0.05),
        ([m["weights"].top[0].overlaps["teacher"] for m in ms], wt.overlaps["teacher"], 0.05),
    ):
        vals = np.asarray(vals)
        se = vals.std(ddof=1) / math.sqrt(vals.size)
        assert abs(vals.mean() - theory) < 4 * se + slack, (vals, theory)


def test_W1_outlier_aligns_with_the_gradient_as_eta_grows():
    """⟨u₁, Xᵀy⟩² of W₁'s top left singular vector rises towards 1 with η, as the theory's
    m̄/(θ²D') does (0.40, 0.85, 0.96 at η = 3, 6, 12): monotone, within 0.08 of the theory at
    d = 300 (2 seeds), and no outlier below the BBP threshold θ⁴ = ψ2 (η = 1.5: the top eigenvalue
    stays within 10 % of the bulk edge (1 + √ψ2)² = 4)."""
    from asymptotics.theory.spectra import ba_step, weights_spectrum

    means = []
    for eta in (3.0, 6.0, 12.0):
        th = weights_spectrum(ba_step("tanh", "tanh", eta=eta, **BA), points=20).outliers[0].overlaps["gradient"]
        ms = measure_spectra(_ba(300, eta), seeds=2, root_seed=4, matrices=("weights",))
        m = float(np.mean([x["weights"].top[0].overlaps["gradient"] for x in ms]))
        assert abs(m - th) < 0.08, (eta, m, th)
        means.append(m)
    assert means[0] < means[1] < means[2] and means[2] > 0.9
    below = weights_spectrum(ba_step("tanh", "tanh", eta=1.5, **BA), points=20)
    assert below.outliers == ()
    top = measure_spectrum(_ba(300, 1.5), 4, 0, matrices=("weights",))["weights"].top[0].location
    assert abs(top - below.support.intervals[-1][1]) < 0.1 * 4.0


def test_histogram_and_pooled_density():
    """Histogram counts plus the eigenvalues outside the edges make N; the density integrates to the
    fraction inside; pooling two seeds' eigenvalues equals pooling their histograms."""
    cfg = _ba(60, 4.0)
    edges = np.linspace(0.0, 3.0, 31)
    ms = measure_spectra(cfg, seeds=2, root_seed=3, bins=edges)
    ck = ms[0]["ck_true"]
    assert ck.counts.sum() + ck.below + ck.above == ck.size == cfg.N
    assert np.sum(ck.density() * np.diff(edges)) == pytest.approx(ck.counts.sum() / ck.size, rel=1e-12)
    only = measure_spectra(cfg, seeds=2, root_seed=3, bins=edges, keep_eigenvalues=False)
    assert only[0]["ck_true"].eigenvalues is None
    a, sa = pooled_histogram(ms, "ck_true", edges)
    b, sb = pooled_histogram(only, "ck_true", edges)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sa, sb)
    rows = ck.rows()
    assert len(rows) == 30 and set(rows[0]) == {"x", "density"}


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"matrices": ("cov",)}, "matrices"),
        ({"features": ()}, "features"),
        ({"top": 0}, "top"),
        ({"bins": [1.0, 0.5]}, "bins"),
        ({"keep_eigenvalues": False}, "keep_eigenvalues"),
        ({"memory_limit": 10**4}, "d"),
    ],
)
def test_bad_input_is_one_clear_error(kw, name):
    with pytest.raises(ParameterError) as e:
        measure_spectrum(_ba(40, 2.0), **kw)
    assert e.value.name == name


def test_memory_estimate_grows_with_the_sizes():
    """The estimate counts the N×N Gram with its eigenvectors: at least 8·(dN + nd + 2N²) bytes."""
    for d in (100, 1000):
        cfg = _ba(d, 1.0)
        assert spectrum_memory_bytes(cfg) >= 8 * (d * cfg.N + cfg.n * d + 2 * cfg.N**2)
