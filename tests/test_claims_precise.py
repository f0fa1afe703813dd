"""The high-precision routes of asymptotics.claims.precise against the float64 theory (a second
derivation: mpmath quadrature of the activations instead of the cached constants, route A's closed
form and route B's equations re-implemented in mpmath) and against each other at 30 digits."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

import asymptotics.api as api
from asymptotics.activations import activation
from asymptotics.claims.precise import (
    alignment_precise,
    gaussian_constants,
    limits_precise,
    precise_route,
    risk0_route_b,
    risk_precise,
    spiked_rf_precise,
    tau_star_precise,
)
from asymptotics.errors import ParameterError

PAIRS = [("tanh", "softplus"), ("erf", "relu"), ("relu", "tanh"), ("tanh", "tanh")]
#: points spanning the float64 theory's domain: small/large ψ, ridgeless, strong spike, wide net
POINTS = [
    {"psi1": 4.0, "psi2": 2.0, "lam": 1e-4, "eta": 3.0, "noise": 0.25},
    {"psi1": 0.3, "psi2": 20.0, "lam": 1e-5, "eta": 8.0, "noise": 0.1},
    {"psi1": 50.0, "psi2": 0.1, "lam": 0.0, "eta": 0.5, "noise": 0.0},
    {"psi1": 1.0, "psi2": 1e4, "lam": 1.0, "eta": 2.0, "noise": 1.0},
    {"psi1": 2.0, "psi2": 2.0, "lam": 1e-3, "eta": 15.0, "noise": 0.1},
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _rel(a, b):
    return abs(float(a) - b) / max(abs(b), 1e-300)


@pytest.mark.parametrize("name", ["tanh", "erf", "softplus", "relu", "sin"])
def test_gaussian_constants_match_float64(name):
    c, mp = activation(name).constants(), gaussian_constants(name, True, 30)
    assert mp.mu0 == 0
    assert abs(float(mp.mu1) - c.mu1) <= 1e-14
    assert abs(float(mp.mu2_sq) - c.mu2_sq) <= 1e-14


def test_gaussian_constants_of_an_even_function_have_mu1_exactly_zero():
    assert gaussian_constants("he2", True, 30).mu1 == 0


@pytest.mark.parametrize("student,teacher", PAIRS)
def test_risk_matches_float64_theory(student, teacher):
    for p in POINTS:
        row = api.risk(student=student, teacher=teacher, **p).rows[0]
        hp = risk_precise(p, student, teacher, 30)
        # the float64 routes agree to 1e-14 among themselves; δ is a difference-free formula
        for k in ("risk0", "risk1", "kernel_bound"):
            assert _rel(hp[k], row[k]) <= 1e-12, (p, k)
        assert abs(float(hp["delta"]) - row["delta"]) <= 1e-12 * max(row["risk0"], abs(row["delta"])), p


@pytest.mark.parametrize("student,teacher", PAIRS[:3])
def test_route_a_and_route_b_agree_at_30_digits(student, teacher):
    for p in POINTS:
        with mpmath.workdps(40):
            a = risk_precise(p, student, teacher, 30)["risk0"]
            b = risk0_route_b(p, student, teacher, 30)
            assert abs(a - b) <= mpmath.mpf(10) ** -28 * abs(a), p


def test_reference_value_and_eta_zero_gives_exact_zero():
    p = {"psi1": 4, "psi2": 2, "lam": 1e-4, "eta": 3, "noise": 0.25}
    assert mpmath.nstr(risk_precise(p, "tanh", "softplus", 30)["risk0"], 7) == "0.1367689"
    assert risk_precise({**p, "eta": 0.0}, "tanh", "softplus", 30)["delta"] == 0
    assert risk_precise(p, "tanh", "he2", 30)["delta"] == 0  # μ1* = 0
    assert risk_precise(p, "he2", "tanh", 30)["delta"] == 0  # μ1 = 0


def test_interpolation_threshold_is_refused():
    with pytest.raises(ParameterError, match="lam"):
        risk_precise({"psi1": 2, "psi2": 2, "lam": 0.0}, "tanh", "tanh", 30)


def test_alignment_matches_float64_and_decides_the_threshold():
    for p in (
        {"psi1": 2.0, "psi2": 1.5, "eta": 5.0, "noise": 0.1},
        {"psi1": 0.2, "psi2": 30.0, "eta": 9.0, "noise": 0.5},
    ):
        row = api.alignment(student="tanh", teacher="tanh", **p).rows[0]
        hp = alignment_precise(p, "tanh", "tanh", 30)
        for k in (
            "theta_sq",
            "eta_threshold",
            "overlap_beta",
            "overlap_a",
            "overlap_u",
            "top_sv2",
            "teacher_energy",
        ):
            assert abs(float(hp[k]) - row[k]) <= 1e-13 * max(1.0, abs(row[k])), k
    assert (
        mpmath.nstr(
            alignment_precise({"psi1": 2, "psi2": 1.5, "eta": 5, "noise": 0.1}, "tanh", "tanh", 30)[
                "overlap_beta"
            ],
            4,
        )
        == "0.5113"
    )
    # at η = η_c(1 ± 1e-20) the float64 θ⁴ − ψ2 is round-off; 30 digits decide the side
    eta_c = alignment_precise({"psi1": 2, "psi2": 1.5, "eta": 1, "noise": 0.1}, "tanh", "tanh", 30)[
        "eta_threshold"
    ]
    with mpmath.workdps(40):
        below = alignment_precise(
            {"psi1": 2, "psi2": 1.5, "eta": eta_c * (1 - mpmath.mpf(10) ** -20), "noise": 0.1},
            "tanh",
            "tanh",
            30,
        )
        above = alignment_precise(
            {"psi1": 2, "psi2": 1.5, "eta": eta_c * (1 + mpmath.mpf(10) ** -20), "noise": 0.1},
            "tanh",
            "tanh",
            30,
        )
    assert below["overlap_beta"] == 0 and below["bbp_gap"] < 0
    assert above["overlap_beta"] > 0 and above["bbp_gap"] > 0


def test_limits_match_float64():
    p = {"psi2": 2.0, "lam": 0.01, "eta": 4.0}
    row = api.limits(student="tanh", teacher="softplus", **p).rows[0]
    hp = limits_precise(p, "tanh", "softplus", 30)
    for k in ("risk0", "risk1", "delta", "delta_ridgeless"):
        assert _rel(hp[k], row[k]) <= 1e-12, k
    # docs/one-step.md §4: δ(ψ1 = ∞) at η = 4 (tanh / centred SoftPlus, ψ2 = 2, λ = 0.01)
    assert round(float(hp["delta"]), 4) == 0.0068


def test_spiked_rf_at_r0_is_route_a_and_refused_elsewhere():
    p = {"alpha": 3.0, "beta": 1.0, "lam": 0.01, "c": 1.0, "r": 0.0, "gamma": 0.0}
    row = api.spiked_rf(student="tanh", teacher="tanh", **p).rows[0]
    hp = spiked_rf_precise(p, "tanh", "tanh", 30)
    assert _rel(hp["test_error"], row["test_error"]) <= 1e-9  # the sRF solver's tolerance
    assert precise_route("spiked_rf", {**p, "r": 1.0}) is None
    with pytest.raises(ParameterError):
        spiked_rf_precise({**p, "r": 1.0}, "tanh", "tanh", 30)
    assert precise_route("large_step") is None and precise_route("risk") is risk_precise


def test_tau_star_route_erf_closed_form():
    hp = tau_star_precise({}, "erf", "erf", 30)
    assert hp["tau_star"] < mpmath.mpf(10) ** -25
    assert abs(hp["kappa_star"] - mpmath.sqrt(3)) <= 1e-15
    assert np.isclose(float(hp["kernel_bound"]), 0.040145872819152, rtol=1e-12)


def test_engine_decides_round_off_margins_through_the_routes():
    """Margins exactly at round-off (δ = 0 at η = 0: float64 margin 0) are re-decided at 30 digits
    by risk_precise; the BBP statement at η_c(1 ± 1e-20) by alignment_precise."""
    import asymptotics as asy
    from asymptotics.claims import Claim, Domain, Range
    from asymptotics.claims.decide import decide_precisely
    from asymptotics.claims.statement import parse_statement

    claim = Claim(
        "delta-zero-at-eta0",
        "risk",
        "delta >= 0",
        Domain(ranges={"psi1": Range(0.5, 4.0, "log")}, grids={"eta": (0.0,)}),
        fixed={"psi2": 1.5, "lam": 1e-3},
        precise=risk_precise,
    )
    row = asy.check(claim=claim, samples=8, search=False, store=False).rows[0]
    assert row["verdict"] == "holds" and row["precise_value"] is not None
    bbp = Claim(
        "bbp",
        "alignment",
        "overlap_beta <= 0 or theta_sq**2 > psi2",
        Domain(ranges={"eta": Range(0.0, 5.0)}),
        fixed={"psi1": 2.0, "psi2": 1.5, "noise": 0.1},
        precise=alignment_precise,
    )
    st = parse_statement(bbp.statement)
    eta_c = alignment_precise({"psi1": 2, "psi2": 1.5, "eta": 1, "noise": 0.1}, "tanh", "tanh", 30)[
        "eta_threshold"
    ]
    for side in (-1, 1):
        with mpmath.workdps(40):
            eta = eta_c * (1 + side * mpmath.mpf(10) ** -20)
        decision, text, _ = decide_precisely(
            bbp, st, {"psi1": 2.0, "psi2": 1.5, "noise": 0.1, "eta": eta}, {}, "tanh", "tanh"
        )
        assert decision == "holds", (side, text)
