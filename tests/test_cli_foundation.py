"""CLI contract: activation command, output formats, atomic writes, clear errors."""

import json
import subprocess
import sys

import pytest

from asymptotics.cli.app import main
from asymptotics.results import Result


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_activation_json_subprocess():
    # the exact command of the issue, in a fresh interpreter through the console entry point
    p = subprocess.run(
        [sys.executable, "-m", "asymptotics", "activation", "tanh", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    row = obj["rows"][0]
    for key in ("mu0", "mu1", "mu2", "second_moment", "hermite", "centered"):
        assert key in row
    assert abs(row["mu1"] - 0.605705509602159) < 1e-12
    assert row["centered"] is True and len(row["hermite"]) == 13
    assert obj["meta"]["versions"]["asymptotics"]


def test_activation_no_center(capsys):
    code, out, _ = run_cli(["activation", "relu", "--no-center", "--format", "json"], capsys)
    assert code == 0
    row = json.loads(out)["rows"][0]
    assert abs(row["mu0"] - 0.398942280401433) < 1e-14 and row["centered"] is False


def test_activation_csv_and_out(tmp_path, capsys):
    out = tmp_path / "c.parquet"
    code, _, err = run_cli(["activation", "erf", "--format", "parquet", "--out", str(out)], capsys)
    assert code == 0 and out.exists()
    r = Result.read(out)
    assert abs(r.rows[0]["mu1"] - 0.651470015870560) < 1e-14
    assert r.meta["command"] == "activation"


def test_malicious_expression_clear_error(capsys):
    code, out, err = run_cli(["activation", "__import__('os').system('true')"], capsys)
    assert code == 2
    assert "error:" in err and "Traceback" not in err


def test_parquet_to_stdout_refused(capsys):
    code, _, err = run_cli(["activation", "tanh", "--format", "parquet"], capsys)
    assert code == 2 and "--out" in err


def test_atomic_write_keeps_old_file(tmp_path):
    path = tmp_path / "r.json"
    Result(rows=[{"a": 1.0}], meta={}).write(path)
    before = path.read_text()
    with pytest.raises(ValueError):
        Result(rows=[{"a": float("nan")}], meta={}).write(path)  # refused: NaN never reaches a file
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left behind
