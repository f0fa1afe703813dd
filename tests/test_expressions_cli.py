"""The CLI function of ``asymptotics derive --expr`` (called directly and through a small typer
app): equations, values as JSON rows (one per grid point), complex arguments, activation
constants, and one clear line for bad input."""

import json

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from asymptotics.cli.commands.derive_expression import parse_at, register_standalone, run_derive_expression
from asymptotics.errors import AsymptoticsError, ExpressionError, ParameterError
from asymptotics.numerics.marchenko_pastur import gram_stieltjes
from asymptotics.solvers.expression_values import evaluate_grid

MP = ["--expr", "tr(inv(W@W.T/d - z*I))", "--dims", "W:d,N", "--ratios", "N/d=psi2"]


@pytest.fixture(scope="module")
def app():
    a = typer.Typer()
    register_standalone(a, "derive-expression")

    @a.callback()
    def _root():
        """test app"""

    return a


def invoke(app, args):
    return CliRunner().invoke(app, ["derive-expression", *args])


def test_parse_at_grid_syntax():
    assert parse_at("lam=0.1") == {"lam": [0.1]}
    assert parse_at("lam=1,2,4, phi=1.5; psi=0:1:3") == {
        "lam": [1.0, 2.0, 4.0],
        "phi": [1.5],
        "psi": [0.0, 0.5, 1.0],
    }
    assert parse_at("lam=log:1e-2:1:3") == {"lam": [0.01, 0.1, 1.0]}
    assert parse_at(["z=0.5+0.1j,1+0.1j", "psi2=2"]) == {"z": [0.5 + 0.1j, 1 + 0.1j], "psi2": [2.0]}
    for bad, what in [
        ("lam", "name=values"),
        ("lam=abc", "complex numbers"),
        ("lam=1; lam=2", "each parameter once"),
    ]:
        with pytest.raises(ParameterError, match=what):
            parse_at(bad)


def test_equations_are_printed(app):
    r = invoke(app, MP)
    assert r.exit_code == 0, r.output
    assert "pencil: 2 blocks" in r.output and "g₁₁" in r.output and "ψ₂" in r.output
    r = invoke(app, [*MP, "--latex"])
    assert r.exit_code == 0 and "\\begin{pmatrix}" in r.output and "\\begin{aligned}" in r.output


def test_json_rows_one_per_grid_point(app):
    r = invoke(app, [*MP, "--at", "z=-2:-0.5:4; psi2=0.5,1.5", "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    rows, meta = out["rows"], out["meta"]
    assert len(rows) == 8 and meta["equations"] == ["g11**2*z - g11*psi2 + g11*z + g11 + 1 = 0"]
    assert meta["pencil"]["blocks"] == 2 and "continuation in the Gaussian scale" in meta["branch"]
    assert {"derive_s", "evaluate_s", "us_per_point"} <= set(meta["timings"]) and "versions" in meta
    for row in rows:
        assert row["status"] == "converged" and row["residual"] < 1e-12
        assert abs(row["value"] - gram_stieltjes(row["z"], row["psi2"])) < 1e-12 * abs(row["value"])


def test_complex_values_and_activation_constants(tmp_path):
    out = tmp_path / "mp.json"
    run_derive_expression(MP[1], MP[3], MP[5], "z=1.2+0.05j; psi2=0.7", fmt="json", out=out)
    (row,) = json.loads(out.read_text())["rows"]
    z, p2 = 1.2 + 0.05j, 0.7
    b = 1 + z - p2
    ref = next(m for m in [(-b + s * np.sqrt(b * b - 4 * z)) / (2 * z) for s in (1, -1)] if m.imag > 0)
    assert abs(row["value_re"] + 1j * row["value_im"] - ref) < 1e-12 and "value" not in row
    # --student supplies mu1, mu2 (relu, centred: mu1 = 1/2); the value is the RF check value
    out2 = tmp_path / "rf.json"
    run_derive_expression(
        "F = mu1*W@X/sqrt(d) + mu2*Theta; tr(inv(F.T@F/m + lam*I))",
        "X:d,n; W:m,d; Theta:m,n",
        "n/d=1/phi, m/d=1/psi",
        "lam=0.1; phi=1.5; psi=0.8",
        fmt="json",
        out=out2,
        student="relu",
    )
    res = json.loads(out2.read_text())
    assert abs(res["rows"][0]["value"] - 3.598963) < 5e-7
    assert res["meta"]["constants"]["mu1"] == pytest.approx(0.5) and "student" in res["meta"]["activations"]


@pytest.mark.parametrize(
    "args,error,message",
    [
        (["--expr", "tr(X@X)", "--dims", "X:n,d", "--ratios", "n/d=2"], ExpressionError, "non-conformable"),
        (["--expr", "tr(inv(X))", "--dims", "X:n,d", "--ratios", "n/d=2"], ExpressionError, "square"),
        (
            [
                "--expr",
                "tr(inv(X.T@X/d + lamb*I))",
                "--dims",
                "X:n,d",
                "--ratios",
                "n/d=2",
                "--at",
                "lam=0.1",
            ],
            ExpressionError,
            "unknown name 'lamb'",
        ),
        (
            ["--expr", "tr(" * 50 + "I" + ")" * 50, "--dims", "X:n,d", "--ratios", "n/d=2"],
            ExpressionError,
            "nesting too deep",
        ),
        ([*MP, "--at", "z=-1"], ParameterError, "missing psi2"),
        ([*MP, "--format", "xml"], ParameterError, "--format"),
        ([*MP, "--at", "z=-1; psi2=1", "--student", "nosuch(x)"], ParameterError, "--student"),
    ],
)
def test_bad_input_gives_one_clear_line(app, args, error, message):
    r = invoke(app, args)
    assert r.exit_code != 0 and isinstance(r.exception, error) and isinstance(r.exception, AsymptoticsError)
    assert message in str(r.exception) and "\n" not in str(r.exception)


def test_failed_point_is_a_marked_row_with_no_value(tmp_path):
    """z = 1 lies inside the Marchenko–Pastur bulk (ψ2 = 1: support [0, 4]): no real solution, the
    continuation from the free limit fails there. The failed point stays a row of every export,
    its value missing and its status named; the converged point keeps its closed-form value."""
    from asymptotics.results import Result
    from asymptotics.symbolic.expressions import derive

    D = derive(MP[1], dims=MP[3], ratios=MP[5], params=["z", "psi2"])
    grid = evaluate_grid(D, {"z": [-1.0, 1.0], "psi2": [1.0]}, on_failure="return")
    assert list(grid.status != 0) == [False, True] and np.isnan(grid.value[1])
    rows = grid.rows()
    assert rows[1]["value"] is None and rows[1]["status"] not in ("converged",)
    assert abs(rows[0]["value"] - gram_stieltjes(-1.0, 1.0)) < 1e-12 and rows[0]["status"] == "converged"
    res = Result(rows, {})
    for fmt in ("json", "csv", "parquet"):
        res.write(tmp_path / f"g.{fmt}", fmt)
    assert json.loads((tmp_path / "g.json").read_text())["rows"][1]["value"] is None
    csv_lines = (tmp_path / "g.csv").read_text().splitlines()
    assert csv_lines[2].startswith(f"1.0,1.0,,{rows[1]['status']},")
    # the same through the command: exit 0, a warning, the row marked
    out = tmp_path / "cli.json"
    run_derive_expression(MP[1], MP[3], MP[5], "z=-1,1; psi2=1", fmt="json", out=out)
    cli_rows = json.loads(out.read_text())["rows"]
    assert [r["value"] is None for r in cli_rows] == [False, True] and cli_rows[1]["status"] == rows[1][
        "status"
    ]


def test_non_finite_residual_is_exported_as_missing():
    """A non-finite residual (a point whose iterate overflowed) is None in the rows, not inf."""
    from asymptotics.solvers import Status
    from asymptotics.solvers.expression_values import ExpressionGrid

    g = ExpressionGrid(
        {"z": np.array([-1.0, 2.0])},
        np.array([0.5, np.nan]),
        np.array([0, int(Status.NONFINITE)]),
        np.array([3, 7]),
        np.array([1e-15, np.inf]),
        "test",
    )
    r0, r1 = g.rows()
    assert r0 == {"z": -1.0, "value": 0.5, "status": "converged", "iterations": 3, "residual": 1e-15}
    assert r1["value"] is None and r1["residual"] is None and r1["status"] == Status.NONFINITE.label
