"""The claims engine (asymptotics.claims): planted counterexamples are found, margins below float64
resolution are decided at high precision, unresolved points never count as support, statements
are parsed safely, the command line and the API agree, and an interrupted check resumes.

Independent references: the planted claims' violating regions are known in closed form (a band
of the parameters) or measured on a dense grid; the high-precision route is an mpmath quadrature
of the Gaussian integrals, independent of the package's constants."""

from __future__ import annotations

import functools
import json
import math

import mpmath as mp
import numpy as np
import pytest

import asymptotics as asy
from asymptotics.claims import Claim, Domain
from asymptotics.claims import evaluate as claims_evaluate
from asymptotics.claims.run import check
from asymptotics.errors import ExpressionError, ParameterError

# ---- (a) planted false claims -----------------------------------------------------------------
#: A band in (log ψ1, η): |log ψ1 − c(η)| < W with c a curve across the domain; its volume fraction
#: in the domain log ψ1 ∈ [log 0.5, log 20], η ∈ [0, 10] is 2W / log 40 = 0.8 %.
_W = 0.008 * math.log(40) / 2


def _band_margin(frame):
    """A statement false only in the band: the relative margin (|log ψ1 − c(η)| − W)/W."""
    eta, psi1 = frame["eta"].to_numpy(float), frame["psi1"].to_numpy(float)
    c = math.log(0.5) + (0.2 + 0.06 * eta) * math.log(40)
    return (np.abs(np.log(psi1) - c) - _W) / _W


def _band_claim():
    return Claim("band", "alignment", _band_margin,
                 Domain.parse({"psi1": "log:0.5:20", "eta": "0:10"}), fixed={"psi2": 1.5})


def test_band_volume_is_under_one_percent():
    rng = np.random.default_rng(1)
    import pandas as pd

    f = pd.DataFrame({"psi1": np.exp(rng.uniform(math.log(0.5), math.log(20), 100_000)),
                      "eta": rng.uniform(0, 10, 100_000)})
    frac = float(np.mean(_band_margin(f) < 0))
    assert 0.006 < frac < 0.01


def test_planted_band_found_in_95_percent_of_seeds():
    hits = 0
    seeds = range(40)
    for s in seeds:
        v = check(_band_claim(), root_seed=s, store=False)[0]
        if v.verdict == "violated":
            hits += 1
            assert _band_margin(__import__("pandas").DataFrame([v.at]))[0] < 0  # a real counterexample
    assert hits / len(seeds) >= 0.95, f"found in {hits} of {len(seeds)} seeds"


def test_planted_band_above_the_bbp_threshold():
    """A real quantity: 'the overlap is ≥ 0.01 once η is above the BBP threshold' fails in the
    thin band just above the threshold (0.17 % of the domain on a dense grid)."""
    over = {"psi1": "log:0.5:20", "eta": "0:10"}
    dense = asy.alignment(psi1=np.geomspace(0.5, 20, 120), psi2=1.5, eta=np.linspace(0, 10, 120))
    frac = np.mean((dense["overlap_beta"] < 0.01) & (dense["eta"] > dense["eta_threshold"]))
    assert 0 < frac < 0.01
    claim = Claim("bbp-band", "alignment", "overlap_beta >= 0.01 or eta <= eta_threshold", Domain.parse(over),
                  fixed={"psi2": 1.5})
    for seed in (1, 2, 3):
        v = check(claim, root_seed=seed, store=False)[0]
        assert v.verdict == "violated", v
        at = asy.alignment(psi1=v.at["psi1"], psi2=1.5, eta=v.at["eta"]).rows[0]
        assert at["eta"] > at["eta_threshold"] and at["overlap_beta"] < 0.01


# ---- (b) a margin of 1e-15 decided at high precision -----------------------------------------------
def _mu2_sq_tanh() -> mp.mpf:
    """μ2*² of tanh (odd: μ0 = 0): E tanh(z)² − (E z tanh(z))², by mpmath quadrature."""
    def gauss(f):
        return mp.quad(lambda z: f(z) * mp.exp(-z * z / 2), [-mp.inf, 0, mp.inf]) / mp.sqrt(2 * mp.pi)

    return gauss(lambda z: mp.tanh(z) ** 2) - gauss(lambda z: z * mp.tanh(z)) ** 2


@functools.lru_cache(maxsize=4)
def _mu2_sq_at(dps: int) -> mp.mpf:
    with mp.workdps(dps + 10):
        return +_mu2_sq_tanh()


def _kernel_bound_route(params, student, teacher, dps):
    return {"kernel_bound": _mu2_sq_at(dps)}


@pytest.mark.parametrize("gap, expected", [(1e-15, "holds"), (-1e-15, "violated")])
def test_margin_of_1e_15_decided_at_high_precision(gap, expected):
    """kernel_bound + (ψ1 − 1) ≥ μ2*² − gap over ψ1 ∈ [1, 2]: its margin is `gap` at the boundary
    ψ1 = 1, below float64's resolution of the risk's values; the mpmath route decides it."""
    with mp.workdps(40):
        c = float(_mu2_sq_tanh() - mp.mpf(gap))
    statement = f"kernel_bound + (psi1 - 1) >= {c!r}"
    domain = Domain.parse({"psi1": "1:2", "eta": "0.5:2"})
    claim = Claim("tiny-margin", "risk", statement, domain, precise=_kernel_bound_route)
    v = check(claim, samples=64, store=False)[0]
    assert v.verdict == expected, v
    assert v.at["psi1"] == 1.0 and v.precise_value is not None and v.precise_digits >= 30
    assert abs(float(v.precise_value) - gap) < 1e-17
    assert abs(v.value) < 1e-14  # float64 alone could not tell
    # without a high-precision route the same point is undecided, never 'holds' or 'violated'
    bare = check(Claim("tiny-margin", "risk", statement, domain), samples=64, store=False)[0]
    assert bare.verdict == "undecided" and bare.undecided >= 1


# ---- (c) unresolved points ---------------------------------------------------------------------------
def _failing_above(psi1_max):
    real = claims_evaluate._call

    def call(quantity, kwargs):
        rows, meta = real(quantity, kwargs)
        for r in rows:
            if r["psi1"] > psi1_max:
                r.update(risk0=None, risk1=None, delta=None, status="max_steps")
        return rows, meta

    return call


def test_unresolved_points_are_counted_never_support(monkeypatch):
    monkeypatch.setattr(claims_evaluate, "_call", _failing_above(5.0))
    domain = Domain.parse({"psi1": "log:0.5:50", "eta": "0.5:3"})
    true_claim = Claim("r1-floor", "risk", "risk1 >= kernel_bound", domain)
    seen = []
    v = check(true_claim, samples=128, store=False, on_pair=lambda c, p, pc: seen.append(pc.evaluated))[0]
    failing = sum(1 for p in seen[0].values() if p["psi1"] > 5.0)
    assert v.verdict == "unresolved points"
    assert v.points == len(seen[0]) and v.unresolved == failing > 0
    # a claim false only where the theory fails is not 'violated' and not 'holds'
    false_there = Claim("false-there", "risk", "risk1 <= 1e-9 + 0 * psi1 or psi1 <= 5", domain)
    v = check(false_there, samples=128, store=False)[0]
    assert v.verdict == "unresolved points" and v.min_relative_margin > 0


# ---- (d) the statement parser --------------------------------------------------------------------------
@pytest.mark.parametrize("statement, message", [
    ("__import__('os').system('true') >= 0", "dunder"),
    ("open('f') >= 0", "not allowed"),
    ("delta.real >= 0", "not allowed"),
    ("delta", "comparison"),
    ("foo >= 0", "unknown column 'foo'"),
    ("increasing(delta, lam)", "not a parameter of the domain"),
])
def test_statement_parser_refuses(statement, message):
    with pytest.raises(ExpressionError, match=message) as info:
        asy.check(quantity="risk", claim=statement, over={"psi1": "log:0.5:5"}, samples=4, store=False)
    assert "\n" not in str(info.value)
    if "unknown" in message:
        assert "risk1" in str(info.value) and "kernel_bound" in str(info.value)  # the columns are listed


@pytest.mark.parametrize("kwargs, message", [
    ({"quantity": "risky"}, "quantity"),
    ({"over": {"psi1": "lug:1:2"}}, "log:LOW:HIGH"),
    ({"over": {"alpha": "0:1"}}, "a parameter of risk"),
    ({"over": {"psi1": "log:-1:2"}}, "> 0 at both ends"),
    ({"over": {"psi1": "0:10"}}, "psi1 must be > 0"),
])
def test_bad_input_is_one_line(kwargs, message):
    args = {"quantity": "risk", "claim": "delta >= 0", "over": {"psi1": "log:0.5:5"}, "samples": 4, "store": False}
    with pytest.raises(ParameterError, match=message) as info:
        asy.check(**{**args, **kwargs})
    assert "\n" not in str(info.value)


# ---- (e) command line and API ---------------------------------------------------------------------------
def test_unknown_paper_names_the_option_as_spelled(capsys):
    """``--paper nope`` on the command line, ``paper`` in Python: one line with the value and the papers."""
    from asymptotics.cli.app import main

    assert main(["check", "--paper", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: invalid --paper='nope': --paper must be one of ba2022, cui2024", err
    with pytest.raises(ParameterError, match=r"^invalid paper='nope': paper must be one of ba2022, cui2024$"):
        asy.check(paper="nope")


def test_cli_and_api_agree(tmp_path):
    from typer.testing import CliRunner

    from asymptotics.cli.app import app

    out = tmp_path / "v.json"
    res = CliRunner().invoke(app, ["check", "--quantity", "risk", "--claim", "risk1 >= kernel_bound",
                                   "--over", "psi1=log:0.5:5", "--over", "eta=0:3", "--fixed", "psi2=2",
                                   "--samples", "32", "--no-store", "--format", "json", "--out", str(out)])
    assert res.exit_code == 0, res.output
    cli_rows = json.loads(out.read_text())["rows"]
    api_rows = asy.check(quantity="risk", claim="risk1 >= kernel_bound", over={"psi1": "log:0.5:5", "eta": "0:3"},
                         fixed={"psi2": 2}, samples=32, store=False).rows
    for a, b in zip(cli_rows, api_rows, strict=True):
        a.pop("seconds"), b.pop("seconds")
        assert a == b


# ---- (f) resume ----------------------------------------------------------------------------------------
def test_interrupted_check_resumes_without_recomputing(tmp_path, monkeypatch):
    claim = Claim("resume", "risk", "risk1 >= kernel_bound", Domain.parse({"psi1": "log:0.5:5", "eta": "0:3"}))
    real = claims_evaluate.evaluate_points
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 20:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(claims_evaluate, "evaluate_points", interrupted)
    with pytest.raises(KeyboardInterrupt):
        check(claim, samples=1024, store=tmp_path)
    monkeypatch.setattr(claims_evaluate, "evaluate_points", real)
    seen = []
    v = check(claim, samples=1024, store=tmp_path, on_pair=lambda c, p, pc: seen.append(pc.store.loaded))[0]
    assert seen[0] == 512  # the two tasks completed before the interrupt were stored …
    assert v.computed == v.points - seen[0]  # … and were not computed again
    fresh = check(claim, samples=1024, store=False)[0]
    assert (v.verdict, v.points, v.at, v.value) == (fresh.verdict, fresh.points, fresh.at, fresh.value)
    again = check(claim, samples=1024, store=tmp_path)[0]
    assert again.computed == 0  # a complete check is read back whole


# ---- the network confirmation hook ------------------------------------------------------------------
def test_confirm_route_is_called_at_the_counterexample():
    from asymptotics.claims import ConfirmResult

    calls = []

    def confirm(claim, point, root_seed, target_se):
        calls.append((point, root_seed, target_se))
        return ConfirmResult(network_margin=-0.2, se=0.05, z=-4.0, seeds=8, d=(500,), verdict="network violates")

    claim = Claim("r1-below-kb", "risk", "risk1 <= kernel_bound", Domain.parse({"psi1": "log:0.5:5"}),
                  fixed={"psi2": 2.0}, confirm=confirm)
    v = check(claim, samples=16, confirm=True, root_seed=7, store=False)[0]
    assert v.verdict == "violated" and v.finding and v.confirm.z == -4.0
    (point, seed, target), = calls
    assert seed == 7 and point["psi1"] == v.at["psi1"] and point["psi2"] == 2.0 and target == abs(v.value) / 4
    row = asy.check(claim=claim, samples=16, confirm=True, seed=7, store=False).rows[0]
    assert row["confirm_z"] == -4.0 and row["confirm_verdict"] == "network violates"
