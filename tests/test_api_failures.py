"""A grid with a point that has no solution: ``on_failure="mark"`` returns every other point (checked
against an independent route) and marks that one with its status; ``"raise"`` names it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import asymptotics as asy
from asymptotics.api import one_step as api_one_step
from asymptotics.cli.app import main
from asymptotics.errors import ConvergenceError
from asymptotics.solvers import SolverResult, Status

#: Route B (Newton on the effective ridge) stops at max_steps at the interpolation threshold
#: ψ1 = ψ2 for this ψ and λ = 1e-12 (residual 2e-17); routes C and B agree everywhere else.
THRESHOLD = 0.7880462815669912
PARAMS = dict(student="tanh", teacher="tanh", psi2=THRESHOLD, lam=1e-12, eta=1.0, noise=0.1)


def test_a_real_failure_is_marked_and_the_rest_agrees_with_route_c():
    psi1 = [0.5, THRESHOLD, 2.0, 4.0]
    res = asy.risk(psi1=psi1, on_failure="mark", **PARAMS)
    ref = asy.risk(psi1=psi1, route="C", **PARAMS)  # an independent derivation (the linear pencil)
    assert len(res) == 4 and all(ref["status"] == "converged")
    for i, row in enumerate(res.rows):
        if row["status"] == "converged":  # if route B learns to converge here, it must agree too
            for q in ("risk0", "risk1", "delta"):
                assert row[q] == pytest.approx(ref.rows[i][q], rel=1e-9)
        else:
            assert i == 1 and row["status"] == Status.MAX_STEPS.label
            assert row["risk0"] is None and row["risk1"] is None and "did not converge" in row["message"]
            assert res.failures == [row] and res.meta["failed"] == 1
            frame = res.to_frame()
            assert math.isnan(frame.loc[1, "risk1"]) and frame.loc[1, "status"] == "max_steps"
            assert "status" in res.columns.values  # the table shows the status column
    if res.failures:
        with pytest.raises(ConvergenceError, match=r"theory risk: no solution at psi1=0\.788046, psi2=0\.788046"):
            asy.risk(psi1=psi1, **PARAMS)


def test_one_bad_point_in_a_large_route_c_batch(monkeypatch):
    """A failure at ψ1 = 0.0118, ψ2 = 858, λ = 1e-6 (the point of issue 19) injected into a batch
    of 1,000 route-C points: the 999 others are returned (route B agrees) in O(log n) solves."""
    from asymptotics.theory import one_step

    bad = (0.0118, 858.0, 1e-6)
    real = one_step.risk
    calls = []

    def risk_with_a_bad_point(model, psi1, psi2, lam, eta=0.0, route="B"):
        calls.append(np.size(psi1))
        hit = (np.isclose(psi1, bad[0]) & np.isclose(psi2, bad[1]) & np.isclose(lam, bad[2]))
        if np.any(hit):
            raise ConvergenceError("route C: 1 point failed", SolverResult(None, False, 100, 1e-3, "newton", "failed",
                                                                           status=Status.SINGULAR))
        return real(model, psi1, psi2, lam, eta, route=route)

    monkeypatch.setattr(one_step, "risk", risk_with_a_bad_point)
    psi1 = np.concatenate([np.geomspace(0.01, 10, 99), [bad[0]]])
    psi2 = np.geomspace(1, 858, 10)
    psi2[-1] = bad[1]
    res = asy.risk(psi1=psi1, psi2=psi2, lam=1e-6, route="C", on_failure="mark")
    assert len(res) == 1000 and len(calls) <= 2 * math.ceil(math.log2(1000)) + 1
    (failed,) = res.failures
    assert (failed["psi1"], failed["psi2"], failed["lam"]) == bad and failed["status"] == "singular"
    monkeypatch.setattr(one_step, "risk", real)
    ok = [r for r in res.rows if r is not failed]
    model = one_step.OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    ref = real(model, [r["psi1"] for r in ok], [r["psi2"] for r in ok], 1e-6, 1.0, route="B")  # paired, route B
    assert np.allclose([r["risk1"] for r in ok], ref.risk1, rtol=1e-8, atol=0)
    assert np.allclose([r["risk0"] for r in ok], ref.risk0, rtol=1e-8, atol=0)
    assert res.meta["failed"] == 1


def test_keep_going_on_the_command_line(monkeypatch, tmp_path):
    from asymptotics.theory import one_step

    real = one_step.risk

    def fails_at_two(model, psi1, psi2, lam, eta=0.0, route="B"):
        if np.any(np.asarray(psi1) == 2.0):
            raise ConvergenceError("no root", SolverResult(None, False, 200, 1.0, "newton", "failed", status=1))
        return real(model, psi1, psi2, lam, eta, route=route)

    monkeypatch.setattr(one_step, "risk", fails_at_two)
    out = tmp_path / "r.json"
    assert main(["theory", "risk", "--psi1", "1,2,4", "--format", "json", "--out", str(out)]) == 2
    assert main(["theory", "risk", "--psi1", "1,2,4", "--keep-going", "--format", "json", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["status"] for r in rows] == ["converged", "max_steps", "converged"]
    assert rows[1]["risk1"] is None and rows[1]["message"] == "no root"
    api = asy.risk(psi1=[1, 2, 4], on_failure="mark")
    assert [r.get("risk1") for r in api.rows] == [r["risk1"] for r in rows]


def test_the_error_names_the_point_and_the_way_out(monkeypatch, capsys):
    from asymptotics.theory import one_step

    def never(model, psi1, psi2, lam, eta=0.0, route="B"):
        raise ConvergenceError("no root")

    monkeypatch.setattr(one_step, "risk", never)
    with pytest.raises(ConvergenceError, match=r"psi1=2, psi2=1\.5, lam=0\.001, eta=1, noise=0\.1: no root \(on_failure='mark'"):
        asy.risk()
    assert main(["theory", "risk"]) == 2
    assert "--keep-going writes it as a row" in capsys.readouterr().err


def test_srf_marks_a_point_without_a_solution():
    """λ = 0 below the interpolation threshold has no solution (the responses diverge): that point is
    a row with its status, the other one is the same as solved on its own."""
    res = asy.spiked_rf(alpha=[1, 3], alpha0=1, eta_tilde=5, lam=0, on_failure="mark")
    assert res.rows[0]["test_error"] is None and res.rows[0]["status"] in {s.label for s in Status} - {"converged"}
    assert res.rows[0]["message"] and res.failures == [res.rows[0]]
    alone = asy.spiked_rf(alpha=3, alpha0=1, eta_tilde=5, lam=0)
    assert res.rows[1]["test_error"] == pytest.approx(alone.rows[0]["test_error"], rel=1e-9)
    with pytest.raises(ConvergenceError, match=r"theory srf: no solution at eta_tilde=5, alpha0=1, noise=0, beta=1, "
                                               r"lam=0, alpha=1"):
        asy.spiked_rf(alpha=[1, 3], alpha0=1, eta_tilde=5, lam=0)


def test_on_failure_is_checked():
    with pytest.raises(asy.ParameterError, match="on_failure"):
        asy.risk(on_failure="ignore")
    assert api_one_step.ROUTE_NAMES == ("A", "B", "C")


def test_tau_star_and_bounds_mark_a_point_of_the_compiled_grid(monkeypatch):
    """A compiled τ* grid whose point (a = 2, b = 1) did not converge: that row has its status and no
    τ*; the other row is the one computed when nothing fails."""
    import dataclasses

    from asymptotics.theory.large_step import TauStarGrid

    good = asy.tau_star(student="tanh", teacher="tanh", student_scale=[1, 2])
    real = TauStarGrid.results

    def one_failed(self):
        out = real(self)
        return [dataclasses.replace(r, status="max_steps", tau_star=math.nan, message="Newton: 50 steps")
                if r.student_scale == 2.0 else r for r in out]

    monkeypatch.setattr(TauStarGrid, "results", one_failed)
    res = asy.tau_star(student="tanh", teacher="tanh", student_scale=[1, 2], on_failure="mark")
    assert res.rows[0] == good.rows[0]
    bad = res.rows[1]
    assert bad["status"] == "max_steps" and bad["tau_star"] is None and bad["beats_every_kernel"] is None
    assert bad["message"] == "Newton: 50 steps" and res.failures == [bad] and "message" in res.columns.values
    b = asy.bounds(student="tanh", teacher="tanh", student_scale=[1, 2], psi1=[10, 100], on_failure="mark")
    assert [r["upper_bound"] is None for r in b.rows] == [False, False, True, True]
    with pytest.raises(ConvergenceError, match=r"theory tau-star: no solution at student_scale=2, teacher_scale=1: "
                                               r"Newton: 50 steps"):
        asy.tau_star(student="tanh", teacher="tanh", student_scale=[1, 2])
