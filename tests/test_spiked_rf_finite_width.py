"""Finite-width spiked-RF theory (asymptotics/theory/spiked_rf/finite_width.py).

References, each independent of the code under test:
* the sRF simulator (true features, per-seed rows in tests/test_spiked_rf_data/finite_width/, made by
  make_srf_ktypes.sh there): the finite-p theory within 2 s.e. at d = p = 300 … 2400 (issue 16);
* sampled rotation-invariant bulks: the mean-direction response 1ᵀPₖA⁻¹Pₗ1 = δₖₗ pV2ₖ (not pV2ₖ/πₖ);
* the p = ∞ solver (a separate derivation: the zero-cost mean directions) as the limit p → ∞,
  with the 1/p rate of the approach.
"""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from asymptotics.errors import ParameterError
from asymptotics.solvers import Status
from asymptotics.theory.spiked_rf import channel_model, solve_spiked_rf, srf_parameters
from asymptotics.theory.spiked_rf.finite_width import (
    mean_direction_response,
    solve_finite_width,
    spiked_rf_finite_width,
)
from asymptotics.theory.spiked_rf.readout_types import solve_block_mp

DATA = Path(__file__).parent / "test_spiked_rf_data" / "finite_width"
HE3 = "x + (x**3-3*x)/sqrt(6)"
CASES = {"three": (0.5, 1.0, 1.5), "two": (0.5, 1.5), "uniform": (1.0,)}


def _sim(name, d, column="test_error"):
    with open(DATA / f"srf_{name}_d{d}.csv") as f:
        rows = list(csv.DictReader(f))
    assert all(int(r["d"]) == d and int(r["p"]) == d and r["protocol"] == "srf" for r in rows)
    v = np.array([float(r[column]) for r in rows])
    return v.mean(), v.std(ddof=1) / math.sqrt(v.size)


@pytest.fixture(scope="module")
def models():
    return {k: channel_model(srf_parameters(1.0, 1.5, 1.0, ro), "tanh", HE3) for k, ro in CASES.items()}


@pytest.fixture(scope="module")
def infinite(models):
    return {k: solve_spiked_rf(m, 3.0, 1.0, 0.01) for k, m in models.items()}


@pytest.mark.parametrize("name,d", [("three", 300), ("three", 600), ("three", 1200), ("three", 2400),
                                    ("two", 300), ("two", 600), ("two", 1200), ("two", 2400),
                                    ("uniform", 300), ("uniform", 1200)])
def test_matches_srf_simulation_within_two_se(models, infinite, name, d):
    mean, se = _sim(name, d)
    s = solve_finite_width(models[name], 3.0, 1.0, 0.01, d, infinite=infinite[name])
    assert s.status == Status.CONVERGED and s.residual < 1e-9
    assert abs(mean - s.test_error) <= 2.0 * se, (name, d, mean, se, s.test_error)
    train, train_se = _sim(name, d, "train_error")
    assert abs(train - s.train_error) <= 2.0 * train_se, (name, d, train, train_se, s.train_error)
    if name == "three":  # where the limit is slow, p = ∞ is far from the network at every d
        assert abs(mean - s.test_error_infinite) > 10 * se


def test_infinite_width_limit_is_the_p_infinity_solver(models, infinite):
    """p → ∞ recovers the zero-cost theory; the gap closes like 1/p once pV2 dominates G's scale."""
    for name, model in models.items():
        ref = infinite[name].test_error
        e = {p: solve_finite_width(model, 3.0, 1.0, 0.01, p, infinite=infinite[name]).test_error
             for p in (1e8, 2e8, 1e9, 2e9, 1e10)}
        # the limit of ε(p) = ε∞ + b/p + O(1/p²) from two widths (Richardson) is the p = ∞ solver's
        assert abs(2 * e[2e9] - e[1e9] - ref) <= 1e-10 * max(1.0, ref)   # O(1/p²) ~ 1e-12 left
        # 1/p rate: doubling p halves the gap (to 1e-3 of the gap); at p = 1e10 it is below 1e-6
        g1, g2 = e[1e8] - ref, e[2e8] - ref
        assert abs(g1 - 2 * g2) <= 1e-3 * abs(g1) + 1e-13
        assert abs(e[1e10] - ref) <= 1e-6 * max(1.0, ref)


def test_mean_direction_response_against_sampled_bulk():
    """1ᵀPₖA⁻¹Pₗ1 for A = D + Ω ⊙ V̂1 with sampled rows (√cₖ × uniform on the sphere): diagonal
    pV2ₖ, off-diagonal O(√p) — the alternative pV2ₖ/πₖ is 3× larger here and excluded."""
    rng = np.random.default_rng(np.random.SeedSequence(1601))
    p = d = 360
    pi = np.full(3, 1 / 3)
    c = np.array([1.0, 1.3, 0.8])
    V1h = np.array([[0.9, 0.2, -0.1], [0.2, 0.6, 0.15], [-0.1, 0.15, 1.2]])
    D = np.array([0.3, 0.5, 0.2])
    st = solve_block_mp(V1h, D, c, pi, 1.0)
    M = mean_direction_response(st.V2, p)
    types = np.repeat(np.arange(3), p // 3)
    samples = []
    for _ in range(6):
        W = rng.standard_normal((p, d))
        W *= np.sqrt(c[types])[:, None] / np.linalg.norm(W, axis=1, keepdims=True)
        v = rng.standard_normal(d)
        v /= np.linalg.norm(v)
        Wp = W - np.outer(W @ v, v)
        A = np.diag(D[types]) + (Wp @ Wp.T) * V1h[types][:, types]
        P1 = (types[:, None] == np.arange(3)[None, :]).astype(float)
        samples.append(P1.T @ np.linalg.solve(A, P1))
    S = np.array(samples)
    mean, se = S.mean(0), S.std(0, ddof=1) / math.sqrt(len(S))
    for k in range(3):
        assert abs(mean[k, k] - M[k]) <= 4 * se[k, k] + 0.03 * M[k], (k, mean[k, k], M[k])
        assert abs(mean[k, k] - M[k] / pi[k]) > 0.5 * M[k]
    off = mean[~np.eye(3, dtype=bool)]
    assert np.all(np.abs(off) <= 0.1 * M.min())


def test_several_widths_and_the_row():
    out = spiked_rf_finite_width(3.0, 1.0, 0.01, 1.0, 1.5, 1.0, "tanh", HE3, width=[300, 2400],
                                 readout=(0.5, 1.5))
    assert [s.width for s in out] == [300.0, 2400.0]
    assert out[0].test_error > out[1].test_error > out[1].test_error_infinite
    row = out[0].as_dict()
    assert row["status"] == "converged" and row["width"] == 300.0 and len(row["m"]) == 2
    assert row["test_error_infinite"] == out[1].test_error_infinite
    assert 0 < row["train_error"] < row["test_error"]


@pytest.mark.parametrize("bad", [0, -3, math.inf, math.nan, "wide"])
def test_bad_width_is_one_clear_error(models, infinite, bad):
    with pytest.raises(ParameterError, match="width"):
        solve_finite_width(models["two"], 3.0, 1.0, 0.01, bad, infinite=infinite["two"])
