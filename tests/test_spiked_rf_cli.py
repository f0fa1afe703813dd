"""``asymptotics theory srf``: output keys, reference values, grids, failures and bad input."""

from __future__ import annotations

import json
import math

import pytest

from asymptotics.cli.app import main
from asymptotics.results import Result


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_srf_json_keys_and_values(capsys):
    code, out, err = run(["theory", "srf", "--alpha", "0.5,1.5,3", "--alpha0", "1", "--beta", "1", "--eta-tilde", "5",
                          "--lam", "0.01", "--student", "tanh", "--teacher", "tanh", "--format", "json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    rows = obj["rows"]
    assert [r["alpha"] for r in rows] == [0.5, 1.5, 3.0]
    for key in ("test_error", "train_error", "r", "c", "gamma", "V1", "V2", "q1", "q2", "m", "t", "psi",
                "V1hat", "V2hat", "q1hat", "q2hat", "that", "psihat", "status", "residual"):
        assert key in rows[0], key
    # docs/spiked-rf.md (reference values of Cui et al.): 0.316, 0.319, 0.191; c = 1.961
    assert [round(r["test_error"], 3) for r in rows] == [0.316, 0.319, 0.191]
    assert round(rows[0]["c"], 3) == 1.961
    assert obj["meta"]["command"] == "theory srf" and obj["meta"]["activations"]["student"]["name"] == "tanh"


def test_srf_model_and_readout(capsys, tmp_path):
    out = tmp_path / "k2.csv"
    code, _, err = run(["theory", "srf", "--alpha", "3", "--c", "1", "--r", "1.5", "--gamma", "1", "--lam", "0.01",
                        "--teacher", "sin", "--readout", "0.3,1.7:0.5,0.5", "--format", "csv", "--out", str(out)], capsys)
    assert code == 0, err
    row = Result.read(out).rows[0]
    assert round(row["test_error"], 4) == 0.0147  # §7


def test_srf_isotropic_limit(capsys):
    code, out, err = run(["theory", "srf", "--alpha", "300", "--alpha0", "inf", "--eta-tilde", "3", "--teacher", "sin",
                          "--format", "json"], capsys)
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["alpha0"] == "inf" and row["gamma"] == 1.0 and round(row["test_error"], 4) == 0.0196


def test_srf_finite_d_option(capsys):
    code, out, err = run(["theory", "srf", "--alpha", "1", "--alpha0", "3", "--eta-tilde", "2", "--beta", "0.5",
                          "--lam", "0.05", "--teacher", "sin", "--finite-d", "600", "--format", "json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    assert obj["rows"][0]["prior"] == "finite" and "sampled bulk" in obj["meta"]["prior"]
    assert abs(obj["rows"][0]["test_error"] - 0.1622) < 0.08 * 0.1622  # one draw at p = 300: within ±8 %


def test_srf_failure_reported(capsys):
    code, out, err = run(["theory", "srf", "--alpha", "0.5,1", "--alpha0", "1", "--eta-tilde", "5", "--lam", "0"], capsys)
    assert code == 2 and "error:" in err and "Traceback" not in err
    code, out, err = run(["theory", "srf", "--alpha", "1,3", "--alpha0", "1", "--eta-tilde", "5", "--lam", "0",
                          "--keep-going", "--format", "json"], capsys)
    assert code == 0
    rows = json.loads(out)["rows"]
    assert rows[0]["test_error"] is None and rows[0]["status"] != "converged"
    assert rows[1]["test_error"] > 0 and rows[1]["status"] == "converged"


@pytest.mark.parametrize("args", [
    ["--alpha", "-1", "--alpha0", "1", "--eta-tilde", "1"],
    ["--alpha", "1", "--alpha0", "1"],
    ["--alpha", "1", "--alpha0", "1", "--eta-tilde", "1", "--r", "1"],
    ["--alpha", "1", "--c", "1", "--r", "1", "--gamma", "2"],
    ["--alpha", "1", "--alpha0", "1", "--eta-tilde", "1", "--readout", "0.3,1.7:0.2,0.2"],
    ["--alpha", "1", "--alpha0", "1", "--eta-tilde", "1", "--student", "__import__('os')"],
    ["--alpha", "1", "--alpha0", "1", "--eta-tilde", "1", "--tol", "0"],
])
def test_srf_bad_input(args, capsys):
    code, _, err = run(["theory", "srf", *args], capsys)
    assert code == 2 and "error: invalid" in err and "Traceback" not in err


def test_srf_width_option_against_the_simulation(capsys):
    """``--width``: the finite-p theory against the sRF simulation at d = p = 300 (three readout
    types, the He3 target; per-seed data and the command that made them in
    tests/test_spiked_rf_data/finite_width/), within 2 s.e. as docs/spiked-rf-finite-width.md
    states; the p = ∞ value (0.184) is far outside."""
    import csv
    import math
    from pathlib import Path

    with open(Path(__file__).parent / "test_spiked_rf_data" / "finite_width" / "srf_three_d300.csv") as f:
        sim = [float(r["test_error"]) for r in csv.DictReader(f)]
    mean = sum(sim) / len(sim)
    se = math.sqrt(sum((v - mean) ** 2 for v in sim) / (len(sim) - 1) / len(sim))
    code, out, err = run(["theory", "srf", "--student", "tanh", "--teacher", "x + (x**3 - 3*x)/sqrt(6)", "--c", "1",
                          "--r", "1.5", "--gamma", "1", "--alpha", "3", "--lam", "0.01", "--readout", "0.5,1,1.5",
                          "--width", "300,2400", "--format", "json"], capsys)
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["width"] for r in rows] == [300.0, 2400.0]
    assert abs(rows[0]["test_error"] - mean) <= 2 * se
    assert abs(rows[0]["test_error_infinite"] - mean) > 20 * se
    assert rows[0]["test_error_infinite"] == rows[1]["test_error_infinite"]
    assert all(r["status"] == "converged" and math.isfinite(r["residual"]) for r in rows)


def test_srf_rows_of_the_compiled_grid_equal_the_solution_rows(monkeypatch):
    """The rows built from the compiled grid's arrays (no solution object per converged point)
    are those built from the solution objects: same keys in the same order, same values."""
    import asymptotics.api.srf as srf

    kw = dict(alpha=[0.5, 3.0, 1.5], eta_tilde=[0.0, 2.0], alpha0=[1.0, "inf"], lam=[0.0, 0.01], noise=[0.0, 0.1],
              on_failure="mark", progress=False)
    fast = srf.spiked_rf(**kw)
    monkeypatch.setattr(srf, "_grid_rows", lambda grid, spec: [(s, []) for s in grid.solutions()])
    slow = srf.spiked_rf(**kw)
    assert 0 < fast.meta["failed"] == slow.meta["failed"] < len(fast.rows)
    assert [list(r.items()) for r in fast.rows] == [list(r.items()) for r in slow.rows]
    srf_kw = {**kw, "c": [1.0, 2.0], "r": 1.0, "gamma": 0.5, "eta_tilde": None, "alpha0": None}   # the sRF model
    slow = srf.spiked_rf(**srf_kw)
    monkeypatch.undo()
    fast = srf.spiked_rf(**srf_kw)
    assert [list(r.items()) for r in fast.rows] == [list(r.items()) for r in slow.rows]


def test_spiked_rf_pauses_the_cycle_collector_and_restores_it():
    """``asy.spiked_rf`` runs with the cyclic collector paused and leaves it as it found it, also
    when it raises (a bad parameter) and when the caller had disabled it."""
    import gc

    from asymptotics.api.srf import spiked_rf
    from asymptotics.errors import ParameterError

    seen = []

    def probe(phase, info):
        seen.append(gc.isenabled())

    assert gc.isenabled()
    r = spiked_rf(alpha=[0.5, 1.5], alpha0=1, eta_tilde=5, lam=0.01)
    assert gc.isenabled() and len(r.rows) == 2
    with pytest.raises(ParameterError):
        spiked_rf(alpha=[0.5], alpha0=1, eta_tilde=-1, lam=0.01)
    assert gc.isenabled()
    gc.disable()
    try:
        spiked_rf(alpha=[0.5], alpha0=1, eta_tilde=5, lam=0.01)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.callbacks.append(probe)
    try:
        spiked_rf(alpha=[0.5], alpha0=1, eta_tilde=5, lam=0.01)
    finally:
        gc.callbacks.remove(probe)
    assert not any(seen)  # no collection ran inside (a callback would see it enabled)


# ---- --bulk structured (docs/spiked-rf-finite-width.md) ----------------------------------------------

def test_srf_structured_bulk_rows(capsys):
    """Rows carry the structured map beside the isotropic one; the isotropic column is the ordinary
    command's value (the compiled grid, a second route), the structured one is the network's: the
    committed simulation at d = 1000 (tests/test_spiked_rf_data/finite_width, 16 seeds) gives
    0.2094 ± 0.0016 at α = 3; and as α0 → ∞ (κ_c → 0) the structured map returns the isotropic one."""
    args = ["theory", "srf", "--alpha", "0.5,3", "--alpha0", "1,1e4", "--eta-tilde", "5", "--lam", "0.01"]
    code, out, err = run([*args, "--bulk", "structured", "--format", "json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    rows = obj["rows"]
    assert obj["meta"]["command"] == "theory srf --bulk structured"
    code, out, err = run([*args, "--format", "json"], capsys)
    iso = json.loads(out)["rows"]
    assert [(r["alpha0"], r["alpha"]) for r in rows] == [(r["alpha0"], r["alpha"]) for r in iso]
    for s, i in zip(rows, iso, strict=True):
        assert s["status"] == "converged" and s["residual"] < 1e-7  # central-difference traces: ≈ 2·10⁻⁹ … 2·10⁻⁸
        assert s["test_error_isotropic"] == pytest.approx(i["test_error"], rel=1e-9)
        assert s["train_error_isotropic"] == pytest.approx(i["train_error"], rel=1e-9)
    strong = rows[1]
    assert abs(strong["test_error"] - 0.2094) <= 3 * 0.0016 and strong["relative_modelling_error"] > 0.05
    for r in rows[2:]:  # α0 = 10⁴: κ_c = 2.4·10⁻⁴
        assert r["kappa_c"] < 1e-3 and r["test_error"] == pytest.approx(r["test_error_isotropic"], rel=1e-4)


@pytest.mark.parametrize("extra, name", [
    (["--bulk", "wishart"], "--bulk"),
    (["--bulk", "structured", "--readout", "0.3,1.7"], "--bulk"),
    (["--bulk", "structured", "--noise", "0.1"], "--noise"),
    (["--bulk", "structured", "--alpha0", "inf"], "--alpha0"),
    (["--bulk", "structured", "--student", "relu"], "--student"),
    (["--bulk", "structured", "--width", "300"], "--width"),
    (["--bulk", "structured", "--lam", "0"], "--lam"),
    (["--bulk", "structured", "--alpha", "0.1:3:2500"], "grid size"),
])
def test_srf_structured_bulk_bad_input(capsys, extra, name):
    base = ["theory", "srf", "--alpha", "3", "--alpha0", "1", "--eta-tilde", "5"]
    opts = dict(zip(base[2::2], base[3::2], strict=True))
    for k, v in zip(extra[::2], extra[1::2], strict=True):
        opts[k] = v
    code, out, err = run(["theory", "srf", *[x for kv in opts.items() for x in kv]], capsys)
    assert code != 0 and not out
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1 and name in lines[0] and "Traceback" not in err, err


def test_srf_self_term_rows(capsys):
    """``--bulk self-term``: the isotropic column is the ordinary command's value (the compiled grid,
    a second route), α0 = ∞ is allowed and spelled ``inf``; the self term k = η̃ ‖ĝ‖ E tanh⁽³⁾
    (sin teacher: ‖ĝ‖² = e^{-1} + (1 − e^{-2})/(2α0); E tanh⁽³⁾ = −0.36359537628… by mpmath in
    test_spiked_rf_self_term) lowers the error."""
    args = ["theory", "srf", "--alpha", "0.5,3", "--alpha0", "20,inf", "--eta-tilde", "3", "--lam", "0.1",
            "--teacher", "sin"]
    code, out, err = run([*args, "--bulk", "self-term", "--format", "json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    rows = obj["rows"]
    assert obj["meta"]["command"] == "theory srf --bulk self-term"
    code, out, err = run([*args, "--format", "json"], capsys)
    iso = json.loads(out)["rows"]
    assert [(r["alpha0"], r["alpha"]) for r in rows] == [(r["alpha0"], r["alpha"]) for r in iso]
    assert {r["alpha0"] for r in rows} == {20.0, "inf"}
    for s, i in zip(rows, iso, strict=True):
        assert s["status"] == "converged" and s["residual"] < 1e-9
        assert s["test_error_isotropic"] == pytest.approx(i["test_error"], rel=1e-9)
        assert s["train_error_isotropic"] == pytest.approx(i["train_error"], rel=1e-9)
        gnorm2 = math.exp(-1) + ((1 - math.exp(-2)) / 2 / s["alpha0"] if s["alpha0"] != "inf" else 0.0)
        assert s["self_term"] == pytest.approx(3 * math.sqrt(gnorm2) * -0.3635953762809, rel=1e-9)
        assert s["bulk_excess"] == pytest.approx(i["c"] - 1.0, abs=1e-12)
        assert s["test_error"] < s["test_error_isotropic"]


@pytest.mark.parametrize("extra, name", [
    (["--readout", "0.3,1.7"], "--bulk"),
    (["--noise", "0.1"], "--noise"),
    (["--student", "relu"], "--student"),
    (["--width", "300"], "--width"),
])
def test_srf_self_term_bad_input(capsys, extra, name):
    args = ["theory", "srf", "--alpha", "3", "--alpha0", "20", "--eta-tilde", "3", "--bulk", "self-term", *extra]
    code, out, err = run(args, capsys)
    assert code != 0 and not out
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1 and name in lines[0] and "Traceback" not in err, err
    assert "self-term" in lines[0] or "self term" in lines[0]


def test_srf_structured_bulk_failed_point_is_marked_with_its_status(monkeypatch):
    """A point whose structured solve fails is a row with the solver's status and no numbers
    (``on_failure="mark"``), or one error naming the point (``"raise"``); the others are solved."""
    import types

    import asymptotics as asy
    from asymptotics.errors import ConvergenceError
    from asymptotics.solvers import Status
    from asymptotics.theory.spiked_rf import structured_map

    real = structured_map.structured_one_step

    def flaky(alpha, *args, **kw):
        if alpha == 3.0:
            raise ConvergenceError("no fixed point", types.SimpleNamespace(status=Status.MAX_STEPS))
        return real(alpha, *args, **kw)

    monkeypatch.setattr(structured_map, "structured_one_step", flaky)
    res = asy.spiked_rf(alpha=[0.5, 3.0], alpha0=1, eta_tilde=5, lam=0.01, bulk="structured", on_failure="mark")
    ok, bad = res.rows
    assert ok["status"] == "converged" and ok["test_error"] > 0
    assert bad["status"] == Status.MAX_STEPS.label and bad["test_error"] is None and "no fixed point" in bad["message"]
    assert res.meta["failed"] == 1
    with pytest.raises(ConvergenceError, match="alpha=3"):
        asy.spiked_rf(alpha=[0.5, 3.0], alpha0=1, eta_tilde=5, lam=0.01, bulk="structured")
