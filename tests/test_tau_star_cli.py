"""``asymptotics theory tau-star`` and ``asymptotics theory bounds``: JSON keys, grids, clear errors."""

import json
import math

import pytest

from asymptotics.cli.app import main


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tau_star_json(capsys):
    code, out, err = run_cli(
        ["theory", "tau-star", "--student", "tanh", "--teacher", "tanh", "--format", "json"], capsys
    )
    assert code == 0, err
    obj = json.loads(out)
    (row,) = obj["rows"]
    for key in ("tau_star", "kappa_star", "kernel_bound", "beats_every_kernel", "status", "error"):
        assert key in row
    assert abs(row["tau_star"] - 9.4527e-5) < 0.5e-9 and abs(row["kappa_star"] - 1.58827) < 0.5e-5
    assert abs(row["kernel_bound"] - 0.0274153260354303) < 1e-13 and row["beats_every_kernel"] is True
    assert obj["meta"]["command"] == "theory tau-star" and obj["meta"]["student"]["name"] == "tanh"


def test_tau_star_scale_grid_csv(capsys):
    code, out, err = run_cli(
        [
            "theory",
            "tau-star",
            "--student",
            "erf",
            "--teacher",
            "erf",
            "--student-scale",
            "1,2",
            "--teacher-scale",
            "0.7",
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 3 and "tau_star" in lines[0]
    # closed form: κ* = b√(1 + 2a²)/a
    header = lines[0].split(",")
    k = [float(line.split(",")[header.index("kappa_star")]) for line in lines[1:]]
    assert k[0] == pytest.approx(0.7 * math.sqrt(3), rel=1e-14) and k[1] == pytest.approx(1.05, rel=1e-14)


def test_tau_star_infinite_limit_is_null(capsys):
    code, out, err = run_cli(["theory", "tau-star", "--teacher", "sign(x)", "--format", "json"], capsys)
    assert code == 0, err
    (row,) = json.loads(out)["rows"]
    assert row["kappa_star"] is None and row["kappa_limit"] == "+inf" and row["infimum_at"] == "to_plus_infinity"


def test_bounds_json(capsys):
    code, out, err = run_cli(
        [
            "theory",
            "bounds",
            "--student",
            "tanh",
            "--teacher",
            "tanh",
            "--psi1",
            "10,1000",
            "--constant",
            "2",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    obj = json.loads(out)
    rows = obj["rows"]
    assert [r["psi1"] for r in rows] == [10.0, 1000.0]
    for r in rows:
        for key in (
            "tau_star",
            "kappa_star",
            "kernel_bound",
            "upper_bound",
            "psi1_crossover",
            "beats_every_kernel",
        ):
            assert key in r
        t = r["tau_star"]
        assert r["upper_bound"] == pytest.approx(
            10 * t + 2 * (math.sqrt(t / r["psi1"]) + 1 / r["psi1"]), rel=1e-14
        )
    assert obj["meta"]["constant"] == 2.0 and any("C is not given" in n for n in obj["meta"]["notes"])


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["theory", "tau-star", "--student-scale", "-1"], "student_scale"),
        (["theory", "tau-star", "--teacher", "exp(x**2)"], "teacher"),
        (["theory", "tau-star", "--method", "fast"], "--method"),
        (["theory", "bounds", "--psi1", "0"], "psi1"),
        (["theory", "bounds", "--constant", "-1"], "constant"),
    ],
)
def test_bad_input_is_one_clear_line(args, fragment, capsys):
    code, out, err = run_cli(args, capsys)
    assert code == 2 and "error:" in err and fragment in err and "Traceback" not in err
