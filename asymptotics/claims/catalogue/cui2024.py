r"""Cui, Pesce, Dandi, Krzakala, Lu, Zdeborová, Loureiro (2024), "Asymptotics of feature learning in
two-layer networks after one gradient-step" — its testable claims.

The quantity is the spiked random-features (sRF) model's test error (``spiked_rf``, the replica
fixed point with the conditional Gaussian equivalence and Marchenko–Pastur prior, docs/spiked-rf.md),
either of the sRF model itself (parameters c, r, γ) or of the network after one large step mapped to
it (η̃, α0). Domains are those of the paper's experiments and statements: α = n/d ∈ [0.2, 10],
β = p/d ∈ [0.25, 4], ridge λ ∈ [1e-3, 1], learning rates η̃ ∈ [0.5, 5], first-step batches
α0 ∈ [0.5, 20] (α0 ∈ [0.1, 100] for the α0 → ∞ statement), spike strengths r ∈ [0, 3],
overlaps γ ∈ [0, 1], bulk variance c ∈ [1, 3].

Claims comparing two evaluations (random features against the step, r = 0.2 against r = 0, a
finite vocabulary against the uniform readout, α0 against α0 = ∞) are callable statements
(:func:`.common.reference_margin`) returning relative margins.
"""

from __future__ import annotations

import math

from ..claim import Claim, Domain, Range
from ..confirm import confirm_with, step_vs_random_features_probe
from ..precise import spiked_rf_precise
from .common import monotone_claim, reference_margin, relative_gap

__all__ = ["claims", "PAIRS", "ASSUMPTIONS"]

PAPER = "Cui et al. (2024)"
#: tanh student (the paper's), single-index targets of information exponent 1
PAIRS = (("tanh", "tanh"), ("tanh", "sin"))
ASSUMPTIONS = ("centred", "mu1!=0", "mu2!=0", "teacher:mu1!=0")

ALPHA = Range(0.2, 10.0, "log")
BETA = Range(0.25, 4.0, "log")
LAM = Range(1e-3, 1.0, "log")
R = Range(0.0, 3.0, "lin")
GAMMA = Range(0.0, 1.0, "lin")
C = Range(1.0, 3.0, "lin")
#: the relative improvement called "sizable" (r = 0.2 against r = 0)
SIZABLE = 0.05


def _srf(**ranges) -> Domain:
    base = {"alpha": ALPHA, "beta": BETA, "lam": LAM}
    base.update(ranges)
    return Domain(ranges=base)


def _get(row, key, default=None):
    v = row.get(key, default)
    return default if v is None else v


def _random_features_equal(student: str, teacher: str):
    """|ε_g(r = 0) − R0| / R0 ≤ 1e-8, R0 the one-step random-features risk at ψ1 = α, ψ2 = β,
    λ_Ba = λβ/α (relative margin: 1e-8 − relative difference)."""

    def change(row):
        a, b = float(row["alpha"]), float(_get(row, "beta", 1.0))
        return {
            "psi1": a,
            "psi2": b,
            "lam": float(row["lam"]) * b / a,
            "eta": 0.0,
            "noise": float(_get(row, "noise", 0.0)),
        }

    def margin(row, ref):
        return 1e-8 - abs(row["test_error"] - ref["risk0"]) / abs(ref["risk0"])

    return reference_margin("risk", student, teacher, change, margin, "test_error")


def _srf_change(**updates):
    """The reference point's keyword arguments: the row's point with ``updates`` applied. A row of the
    network (η̃, α0 given) stays one unless the updates set the sRF parameters (c, r, γ)."""

    def change(row):
        kw = {
            "alpha": float(row["alpha"]),
            "beta": float(_get(row, "beta", 1.0)),
            "lam": float(row["lam"]),
            "noise": float(_get(row, "noise", 0.0)),
        }
        network = row.get("eta_tilde") is not None and "c" not in updates
        keys = ("eta_tilde", "alpha0") if network else ("c", "r", "gamma")
        kw.update({k: float(row[k]) for k in keys})
        kw.update(updates)
        return {k: v for k, v in kw.items() if v is not None}

    return change


def _better_than(student, teacher, updates, sizable=0.0):
    """Relative margin: (ε_ref − ε)/(ε_ref + ε) (positive where the row beats the reference), or with
    ``sizable`` > 0 the improvement beyond that fraction of the reference, (ε_ref − ε)/ε_ref − sizable."""
    return reference_margin(
        "spiked_rf",
        student,
        teacher,
        _srf_change(**updates),
        (lambda row, ref: (ref["test_error"] - row["test_error"]) / ref["test_error"] - sizable)
        if sizable
        else (lambda row, ref: relative_gap(ref["test_error"], row["test_error"])),
        "test_error",
    )


def _pair_claims(name, quantity, statement_for, domain, source, pairs=PAIRS, **kw) -> tuple[Claim, ...]:
    """One claim per pair for callable statements (the callable needs the pair)."""
    return tuple(
        Claim(
            f"{name}[{s}/{t}]",
            quantity,
            statement_for(s, t),
            domain,
            activations=((s, t),),
            assumptions=ASSUMPTIONS,
            source=source,
            **kw,
        )
        for s, t in pairs
    )


def _srf_claims() -> tuple[Claim, ...]:
    sec = f"{PAPER}, §3 (sRF model, replica formula with the conditional Gaussian equivalence)"
    return (
        *_pair_claims(
            "cui-r0-is-random-features",
            "spiked_rf",
            _random_features_equal,
            _srf(noise=Range(0.0, 0.5, "lin")),
            sec + ": at r = 0 the sRF is random features (Mei–Montanari)",
            fixed={"c": 1.0, "r": 0.0, "gamma": 0.0},
            precise=spiked_rf_precise,
        ),
        monotone_claim("cui-spike-strength-helps", "spiked_rf", "decreasing(test_error, r)", _srf(r=R, gamma=GAMMA, c=C),
                       activations=PAIRS, assumptions=ASSUMPTIONS,
                       source=sec + ", Fig. 2: increasing the spike strength r helps"),
        *_pair_claims(
            "cui-small-spike-sizable",
            "spiked_rf",
            lambda s, t: _better_than(s, t, {"r": 0.0}, SIZABLE),
            _srf(gamma=GAMMA, c=C),
            sec + f", Fig. 2: r = 0.2 already sizably (tested: ≥ {SIZABLE:.0%} lower) than r = 0",
            fixed={"r": 0.2},
        ),
        monotone_claim("cui-overlap-helps", "spiked_rf", "decreasing(test_error, gamma)",
                       _srf(r=Range(0.1, 3.0, "lin"), gamma=GAMMA, c=C), activations=PAIRS, assumptions=ASSUMPTIONS,
                       source=sec + ", Fig. 2: increasing the spike–target overlap γ helps"),
    )


def _network_claims() -> tuple[Claim, ...]:
    sec = f"{PAPER}, §4 (one large step η̃·p, map to the sRF)"
    step = {"eta_tilde": Range(0.5, 5.0, "lin"), "alpha0": Range(0.5, 20.0, "log")}
    return (
        monotone_claim("cui-alpha0-decreasing", "spiked_rf", "decreasing(test_error, alpha0)",
                       _srf(eta_tilde=Range(0.5, 5.0, "lin"), alpha0=Range(0.1, 100.0, "log")),
                       activations=PAIRS, assumptions=ASSUMPTIONS,
                       source=sec + ", Fig. 3: the test error decreases as the first-step batch α0 grows"),
        *_pair_claims(
            "cui-alpha0-limit",
            "spiked_rf",
            lambda s, t: reference_margin(
                "spiked_rf",
                s,
                t,
                _srf_change(alpha0=math.inf),
                lambda row, ref: relative_gap(row["test_error"], ref["test_error"]),
                "test_error",
            ),
            _srf(eta_tilde=Range(0.5, 5.0, "lin"), alpha0=Range(0.1, 100.0, "log")),
            sec + ", Fig. 3: … towards its α0 → ∞ value (γ = 1, the isotropic sRF), from above",
        ),
        *_pair_claims(
            "cui-step-helps",
            "spiked_rf",
            lambda s, t: _better_than(s, t, {"c": 1.0, "r": 0.0, "gamma": 0.0}),
            _srf(**step),
            sec + ", Fig. 1: the network after one step beats random features at initialisation",
            confirm=confirm_with(step_vs_random_features_probe()),
        ),
    )


def _vocabulary_claims() -> tuple[Claim, ...]:
    sec = f"{PAPER}, §5 (non-uniform readout initialisation): a finite vocabulary of readouts beats the uniform one"
    return _pair_claims(
        "cui-vocabulary-helps",
        "spiked_rf",
        lambda s, t: _better_than(s, t, {"readout": None}),
        _srf(r=Range(0.5, 3.0, "lin"), gamma=GAMMA),
        sec + " (two types u ∈ {0.5, 1.5}, equal proportions, c = 1)",
        fixed={"c": 1.0, "readout": (0.5, 1.5)},
    )


def claims() -> tuple[Claim, ...]:
    """Every testable claim of Cui et al. (2024)."""
    return (*_srf_claims(), *_network_claims(), *_vocabulary_claims())
