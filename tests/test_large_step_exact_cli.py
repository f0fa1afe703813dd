"""``asymptotics theory large-step``: keys, reference values of ``docs/large-step-exact.md``,
widths, readout kinds, failures and bad input."""

from __future__ import annotations

import json

from asymptotics.cli.app import main
from asymptotics.results import Result


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


BASE = ["theory", "large-step", "--student", "erf", "--teacher", "erf", "--psi2", "2", "--lam", "1e-3", "--noise", "0.1",
        "--c", "1"]


def test_json_keys_limit_and_finite_width(capsys):
    code, out, err = run(BASE + ["--psi1", "8", "--width", "inf", "--d", "1000", "--format", "json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    lim, fin = obj["rows"]
    for key in ("risk1", "kernel_bound", "tau_star", "kappa_star", "width", "limit", "beats_kernels", "spike_error",
                "type_error", "quadrature_error", "residual", "status", "r", "gamma"):
        assert key in lim and key in fin, key
    assert lim["limit"] is True and lim["width"] == "inf"
    assert fin["limit"] is False and fin["width"] == 2000.0 and fin["d"] == 1000
    # §2: R1(∞) = .0259; §3: finite N at d = 1000: .0291; erf/erf: τ* = 0, κ* = √3; μ2*² = 0.0401
    assert round(lim["risk1"], 4) == 0.0259 and round(fin["risk1"], 4) == 0.0291
    assert lim["tau_star"] == 0.0 and abs(lim["kappa_star"] - 3 ** 0.5) < 1e-12
    assert round(lim["kernel_bound"], 4) == 0.0401 and lim["beats_kernels"] is True
    assert lim["type_error"] <= 1e-8 and obj["meta"]["command"] == "theory large-step"


def test_quantile_types_grid_and_csv(capsys, tmp_path):
    out = tmp_path / "k.csv"
    code, _, err = run(BASE + ["--psi1", "8", "--readout", "quantile", "--types", "2,4,8", "--no-check",
                               "--format", "csv", "--out", str(out)], capsys)
    assert code == 0, err
    rows = Result.read(out).rows
    assert [int(r["types"]) for r in rows] == [2, 4, 8]
    assert [round(float(r["risk1"]), 4) for r in rows] == [0.0545, 0.0295, 0.0261]        # §3


def test_failure_rows_and_bad_input(capsys):
    # ridgeless at the interpolation threshold: an error by default, a row with null numbers with --keep-going
    args = ["theory", "large-step", "--student", "erf", "--teacher", "erf", "--psi1", "2", "--psi2", "2",
            "--lam", "0", "--types", "8", "--no-check"]
    code, _, err = run(args, capsys)
    assert code != 0 and "variance" in err
    code, out, err = run(args + ["--keep-going", "--format", "json"], capsys)
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["risk1"] is None and row["status"] != "converged"
    for bad, name in ((["--psi1", "-1"], "psi1"), (["--psi1", "8", "--width", "0"], "--width"),
                      (["--psi1", "8", "--readout", "uniform"], "--readout"), (["--psi1", "8", "--c", "-1"], "c")):
        code, _, err = run(BASE + bad, capsys)
        assert code != 0 and name in err, (bad, err)


def test_initial_columns_option(capsys):
    """--initial-columns gaussian: rows say so, and the column-norm term has the sign and the size of
    the paired network measurement at (a) ψ1 = 8, d = 250 (−0.00034 ± 0.00005, docs/large-step-exact.md
    §4); a bad value is one line naming the option."""
    rows = {}
    for cols in ("unit", "gaussian"):
        code, out, err = run(BASE + ["--psi1", "8", "--d", "250", "--initial-columns", cols, "--format", "json"], capsys)
        assert code == 0, err
        lim, row = json.loads(out)["rows"]                 # the default width inf, then d = 250
        assert lim["initial_columns"] == row["initial_columns"] == cols and row["d"] == 250
        rows[cols] = row["risk1"]
    assert abs((rows["gaussian"] - rows["unit"]) - (-0.00034)) <= 4 * 0.00005
    code, out, err = run(BASE + ["--psi1", "8", "--initial-columns", "sphere"], capsys)
    assert code == 2 and err.strip().count("\n") == 0 and "--initial-columns" in err and "unit or gaussian" in err
