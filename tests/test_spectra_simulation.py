"""The spectra against the reference sampler of the actual networks (small sizes; the study at
d = 500…2000 is ``benchmarks/study_spectra.py``).

Tolerances: outliers and overlaps within 3 standard errors over the seeds plus a finite-size
allowance (the study measures the finite-size bias: e.g. the CK outlier of the true features is
≈ 3–6 % low at d = 400 and the gap shrinks with d); distributions by the Kolmogorov distance,
which must shrink as d grows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_spectra_sampler import ks_distance, sample_ba, sample_cui

from asymptotics.theory.spectra import ba_step, ck_spectrum, cui_step, weights_spectrum

SMALL = {"psi1": 3.0, "psi2": 1.0, "eta": 6.0, "noise": 0.1}


def theory_cdf(spectrum_fn, step, **kw):
    """The CDF of the limiting law (atom + ∫ρ), from the density on x = a + (b − a)(1 − cos t)/2."""
    res = spectrum_fn(step, points=10, **kw)
    t = np.linspace(0, np.pi, 1501)
    xs, Fs = [], []
    acc = res.atom
    for a, b in res.support.intervals:
        x = a + (b - a) * (1 - np.cos(t)) / 2
        dens = spectrum_fn(step, x=x, **kw).density
        f = dens * (b - a) * np.sin(t) / 2
        cum = acc + np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(t))])
        xs.append(x)
        Fs.append(cum)
        acc = cum[-1]
    x, F = np.concatenate(xs), np.concatenate(Fs)

    def cdf(v):
        v = np.asarray(v, dtype=float)
        return np.where(v < 0, 0.0, np.interp(v, x, F, left=res.atom, right=acc))

    return cdf, res


def _stats(values):
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0


@pytest.fixture(scope="module")
def small_step_runs():
    return {d: [sample_ba(d, **SMALL, seed=s, top=1) for s in range(3)] for d in (150, 400)}


def test_bulk_distributions_converge(small_step_runs):
    """Kolmogorov distance of the empirical eigenvalue law of W₁ᵀW₁ and of the CK (true and
    Gaussian-equivalent features) to the theory shrinks from d = 150 to 400 and is small."""
    step = ba_step("tanh", "tanh", **SMALL)
    cdf_w, _ = theory_cdf(weights_spectrum, step)
    cdf_ck, _ = theory_cdf(ck_spectrum, step)
    ks = {}
    for d, runs in small_step_runs.items():
        ks[d] = {
            "weights": np.mean([ks_distance(r["weights"]["eigenvalues"], cdf_w) for r in runs]),
            "ck_true": np.mean([ks_distance(r["ck_true"]["eigenvalues"], cdf_ck) for r in runs]),
            "ck_ge": np.mean([ks_distance(r["ck_ge"]["eigenvalues"], cdf_ck) for r in runs]),
        }
    for k in ("weights", "ck_true", "ck_ge"):
        assert ks[400][k] < ks[150][k], (k, ks)
        assert ks[400][k] < 0.02, (k, ks)


def test_small_step_outliers_match_the_theory(small_step_runs):
    step = ba_step("tanh", "tanh", **SMALL)
    w = weights_spectrum(step, points=10).outliers[0]
    ck = ck_spectrum(step, points=10).outliers[0]
    runs = small_step_runs[400]
    loc, se = _stats([r["weights"]["top"][0]["location"] for r in runs])
    assert abs(loc - w.location) <= 3 * se + 0.06 * w.location
    for k in ("teacher", "readout"):
        m, s = _stats([r["weights"]["top"][0]["overlaps"][k] for r in runs])
        assert abs(m - w.overlaps[k]) <= 3 * s + 0.06, k
    for feats in ("ck_true", "ck_ge"):
        loc, se = _stats([r[feats]["top"][0]["location"] for r in runs])
        assert abs(loc - ck.location) <= 3 * se + 0.06 * ck.location, feats
        for k in ("labels", "teacher_linear", "spike_direction", "readout"):
            m, s = _stats([r[feats]["top"][0]["overlaps"][k] for r in runs])
            assert abs(m - ck.overlaps[k]) <= 3 * s + 0.05, (feats, k, m, ck.overlaps[k])


def test_large_step_uniform_readout_true_features_follow_cget_not_ge():
    """Cui's protocol: the true-feature CK outlier (per width) and its label alignment follow the
    conditional theory; the Gaussian-equivalent features follow the GE prediction, about twice
    as large — the Gaussian equivalence of the CK spike fails at the large step."""
    cfg = {"alpha": 2.0, "beta": 1.0, "eta_tilde": 3.0, "alpha0": 2.0}
    step = cui_step("tanh", "tanh", **cfg)
    cond = ck_spectrum(step, points=10).outliers[0]
    ge = ck_spectrum(step, points=10, equivalence="gaussian").outliers[0]
    runs = [sample_cui(300, **cfg, seed=s, top=1) for s in range(3)]
    N = runs[0]["N"]
    true_loc, se_t = _stats([r["ck_true"]["top"][0]["location"] / N for r in runs])
    ge_loc, se_g = _stats([r["ck_ge"]["top"][0]["location"] / N for r in runs])
    assert abs(true_loc - cond.location_per_width) <= 3 * se_t + 0.1 * cond.location_per_width
    assert abs(ge_loc - ge.location_per_width) <= 3 * se_g + 0.1 * ge.location_per_width
    assert ge.location_per_width > 1.5 * cond.location_per_width
    lab, se = _stats([r["ck_true"]["top"][0]["overlaps"]["labels"] for r in runs])
    assert abs(lab - cond.overlaps["labels"]) <= 3 * se + 0.05


def test_large_step_gaussian_readout_outliers():
    """Ba with η = c√N: the weights' and the CK's top eigenvalue per width, one draw at d = 300
    (the spike fluctuates with ‖a‖² and ‖Xᵀy‖²: ~10 % at this size)."""
    cfg = {"psi1": 2.0, "psi2": 1.0, "eta": 1.0, "noise": 0.1}
    step = ba_step("tanh", "tanh", **cfg, regime="large")
    r = sample_ba(300, **cfg, regime="large", seed=0, top=1)
    N = r["N"]
    w = weights_spectrum(step, points=10, width=N).outliers[0]
    ck = ck_spectrum(step, points=10, width=N, types=6, kappa_nodes=24).outliers[0]
    assert r["weights"]["top"][0]["location"] == pytest.approx(w.location, rel=0.15)
    assert r["weights"]["top"][0]["overlaps"]["teacher"] == pytest.approx(w.overlaps["teacher"], abs=0.08)
    assert r["ck_true"]["top"][0]["location"] == pytest.approx(ck.location, rel=0.15)
    assert r["ck_true"]["top"][0]["overlaps"]["labels"] == pytest.approx(ck.overlaps["labels"], abs=0.08)


@pytest.mark.slow
def test_small_step_outlier_error_shrinks_with_d():
    step = ba_step("tanh", "tanh", **SMALL)
    ck = ck_spectrum(step, points=10).outliers[0]
    err = {}
    for d in (200, 800):
        locs = [sample_ba(d, **SMALL, seed=s, top=1, features=("true",))["ck_true"]["top"][0]["location"] for s in range(4)]
        err[d] = abs(np.mean(locs) - ck.location)
    assert err[800] < err[200] + 0.02
