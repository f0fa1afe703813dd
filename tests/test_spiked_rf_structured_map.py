"""Structured-bulk network → sRF map (asymptotics/theory/spiked_rf/structured_map.py).

References, each independent of the code under test:
* κ_c → 0: the Marchenko–Pastur closed form and the library's isotropic sRF solver;
* sampled trained first layers (a numpy one-step network written here, d = 400): the prior traces
  V1, V2, T_H of the trained bulk at the solution's (D, V̂1);
* the library's network simulator (``cui`` protocol, d = 1000, 16 seeds, recorded in
  tests/test_spiked_rf_data/finite_width/network_cui_eta5_a1_d1000.csv, made by
  ``asymptotics simulate --protocol cui --d 1000 --alpha 3 --alpha0 1 --beta 1 --eta-tilde 5 --lam 0.01
  --student tanh --teacher tanh --seeds 16 --seed 5 --n-test 20000 --measure risk,spike --per-seed -f csv``):
  within 2 s.e. of the structured map, far from the isotropic map.
"""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from asymptotics.activations import resolve_activation
from asymptotics.errors import ParameterError
from asymptotics.theory.spiked_rf import mp_prior_traces
from asymptotics.theory.spiked_rf.structured_map import (
    map_validity_table,
    structured_bulk,
    structured_one_step,
    structured_prior_traces,
)

DATA = Path(__file__).parent / "test_spiked_rf_data" / "finite_width"


@pytest.fixture(scope="module")
def strong():
    return structured_one_step(3.0, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")


def test_isotropic_limit_is_marchenko_pastur():
    bulk = structured_bulk(1e-5, 1.0, "tanh", "tanh")
    D, V1h = 0.07, 0.4
    V1, V2, TF, TH, TX = structured_prior_traces(bulk, D, V1h)
    mp = mp_prior_traces(0.0, V1h, D, bulk.c, 1.0)
    assert V1 == pytest.approx(mp.V1, rel=1e-8) and V2 == pytest.approx(mp.V2, rel=1e-8)
    assert TF == pytest.approx(bulk.c * V2, rel=1e-7) and TH == pytest.approx(V1, rel=1e-7)
    assert abs(TX) < 1e-7
    s = structured_one_step(3.0, 1.0, 1.0, 1e-4, 0.01, "tanh", "tanh")
    assert s.test_error == pytest.approx(s.test_error_isotropic, rel=1e-8)


def _trained_bulk(d, alpha0, eta, seed):
    """One exact gradient step of the Cui protocol (rows on the sphere, a⁰ = 1/√p, f0 kept)."""
    s_act, t_act = resolve_activation("tanh"), resolve_activation("tanh")
    rng = np.random.default_rng(np.random.SeedSequence([seed, d]))
    p, n0 = d, int(alpha0 * d)
    theta = rng.standard_normal(d)
    theta /= np.linalg.norm(theta)
    W0 = rng.standard_normal((p, d))
    W0 /= np.linalg.norm(W0, axis=1, keepdims=True)
    X0 = rng.standard_normal((n0, d))
    y = t_act.numpy(X0 @ theta)
    Z = X0 @ W0.T
    S = s_act.numpy_derivative(Z) * (y - s_act.numpy(Z).mean(1))[:, None]
    W1 = W0 + eta * (S.T @ X0) / n0
    s = W1.mean(0)
    B = W1 - s[None, :]
    v = s / np.linalg.norm(s)
    zeta = theta - (theta @ v) * v
    return B, v, zeta / np.linalg.norm(zeta)


def _sampled_traces(B, v, zeta, D, V1h):
    Bv = B @ v
    BP = B - np.outer(Bv, v)
    lam, U = np.linalg.eigh(BP @ BP.T)
    iS = 1.0 / (D + V1h * np.clip(lam, 0, None))
    f, h = U.T @ Bv, U.T @ (B @ zeta)
    return np.array([np.mean(lam * iS), np.mean(iS), (f * f) @ iS, (h * h) @ iS])   # uᵀRu, wᵀRw


def test_prior_traces_against_sampled_trained_layers(strong):
    bulk = structured_bulk(5.0, 1.0, "tanh", "tanh")
    D, V1h = strong.D, strong.V1hat
    det = structured_prior_traces(bulk, D, V1h)[:4]
    mp = mp_prior_traces(0.0, V1h, D, bulk.c, 1.0)
    iso = np.array([mp.V1, mp.V2, bulk.c * mp.V2, mp.V1])
    S = np.array([_sampled_traces(*_trained_bulk(400, 1.0, 5.0, s), D, V1h) for s in range(4)])
    mean, se = S.mean(0), S.std(0, ddof=1) / 2.0
    # V1, V2, T_H: within 4 s.e. plus an O(1/d) allowance of 1 % (d = 400); the isotropic values fail it
    for i in (0, 1, 3):
        tol = 4 * se[i] + 0.01 * det[i]
        assert abs(mean[i] - det[i]) <= tol, (i, mean[i], se[i], det[i])
        assert abs(mean[i] - iso[i]) > tol, (i, mean[i], iso[i])
    # T_F (weight of the spike column): 2.4× the isotropic value, noisy — direction and size
    assert abs(mean[2] - det[2]) <= 4 * se[2] + 0.05 * det[2] and mean[2] > 2 * iso[2]


def test_network_simulation_agrees_with_structured_map_not_isotropic(strong):
    with open(DATA / "network_cui_eta5_a1_d1000.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["protocol"] for r in rows} == {"cui"} and {r["d"] for r in rows} == {"1000"}
    v = np.array([float(r["test_error"]) for r in rows])
    mean, se = v.mean(), v.std(ddof=1) / math.sqrt(v.size)
    assert abs(mean - strong.test_error) <= 2 * se
    assert abs(mean - strong.test_error_isotropic) > 8 * se
    assert strong.status.label == "converged" and strong.residual < 1e-7


def test_validity_table_rows():
    rows, thr = map_validity_table(etas=(2.0,), alpha0s=(1.0, 20.0), thresholds=False)
    assert thr == {} and [r["alpha0"] for r in rows] == [1.0, 20.0]
    assert rows[0]["kappa_c"] == pytest.approx(20 * rows[1]["kappa_c"])
    # the surrogate's error shrinks with κ_c (≈ κ_c² at large α0)
    assert rows[0]["relative_modelling_error"] > 0.02 > 0.005 > abs(rows[1]["relative_modelling_error"])


@pytest.mark.parametrize("kw,name", [(dict(student="relu"), "student"), (dict(alpha0=-1.0), "alpha0"),
                                     (dict(eta_tilde=math.nan), "eta_tilde")])
def test_bad_input_is_one_clear_error(kw, name):
    args = dict(eta_tilde=2.0, alpha0=1.0, student="tanh", teacher="tanh") | kw
    with pytest.raises(ParameterError, match=name):
        structured_bulk(**args)
