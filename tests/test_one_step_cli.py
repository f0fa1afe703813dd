"""CLI: ``asymptotics theory alignment | ck-spike | risk | limits`` (json keys, routes, errors)."""

from __future__ import annotations

import json

import pytest

from asymptotics.cli.app import main


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_alignment_json(capsys):
    code, out, _ = run(["theory", "alignment", "--student", "tanh", "--teacher", "tanh", "--noise", "0.1",
                        "--psi1", "2", "--psi2", "1.5", "--eta", "1,5", "--format", "json"], capsys)
    assert code == 0
    obj = json.loads(out)
    rows = obj["rows"]
    for key in ("eta_threshold", "overlap_beta", "overlap_a", "top_sv2"):
        assert key in rows[0]
    assert rows[0]["overlap_beta"] == 0 and round(rows[1]["overlap_beta"], 4) == 0.5113
    assert round(rows[1]["eta_threshold"], 4) == 2.4221
    assert obj["meta"]["student"]["mu1"] == pytest.approx(0.605705509602159)


def test_risk_routes_and_keys(capsys):
    args = ["theory", "risk", "--student", "tanh", "--teacher", "softplus", "--noise", "0.25", "--psi1", "4",
            "--psi2", "2", "--lam", "1e-4", "--eta", "3", "--format", "json"]
    code, out, _ = run(args, capsys)
    rows = json.loads(out)["rows"]
    assert code == 0 and len(rows) == 1 and "route" not in rows[0]
    assert {"risk0", "risk1", "delta", "kernel_bound"} <= set(rows[0])
    code, out, _ = run(args + ["--route", "A,B,C"], capsys)
    rows = json.loads(out)["rows"]
    assert [r["route"] for r in rows] == ["A", "B", "C"]
    assert "risk1" not in rows[0]  # route A gives R0 only
    for r in rows:
        assert round(r["risk0"], 7) == 0.1367689


def test_ck_spike_and_limits(capsys):
    code, out, _ = run(["theory", "ck-spike", "--psi1", "3", "--psi2", "1", "--eta", "6", "--noise", "0.1",
                        "--format", "json"], capsys)
    assert code == 0 and round(json.loads(out)["rows"][0]["ck_outlier"], 2) == 3.42
    code, out, _ = run(["theory", "limits", "--teacher", "softplus", "--psi2", "2", "--lam", "0.01", "--eta", "4",
                        "--format", "json"], capsys)
    row = json.loads(out)["rows"][0]
    assert code == 0 and round(row["delta"], 4) == 0.0068 and "kernel_bound" in row
    code, out, _ = run(["theory", "limits", "--teacher", "relu", "--limit", "psi2-inf", "--psi1", "5", "--eta", "4",
                        "--format", "csv"], capsys)
    assert code == 0 and "delta_coefficient" in out.splitlines()[0]


def test_errors_are_one_line(capsys):
    code, _, err = run(["theory", "risk", "--lam", "0", "--psi1", "2", "--psi2", "2"], capsys)
    assert code == 2 and "interpolation" in err and "Traceback" not in err
    code, _, err = run(["theory", "risk", "--route", "Z"], capsys)
    assert code == 2 and "--route" in err
    code, _, err = run(["theory", "alignment", "--psi2", "-1"], capsys)
    assert code == 2 and "psi2" in err


def test_degenerate_student_warns_in_meta(capsys):
    code, out, err = run(["theory", "alignment", "--student", "he2", "--eta", "3", "--format", "json"], capsys)
    obj = json.loads(out)
    assert code == 0 and "warning" in err and obj["meta"]["warnings"]
    assert obj["rows"][0]["eta_threshold"] is None and obj["rows"][0]["overlap_beta"] == 0
