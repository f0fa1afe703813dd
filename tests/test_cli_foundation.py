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


# ---- usage errors and help through the installed typer ---------------------------------------------
def test_usage_errors_use_the_installed_typer_click(monkeypatch, capsys):
    import typer

    from asymptotics.cli.app import click_exception_class

    cls = click_exception_class()
    assert cls.__name__ == "ClickException" and issubclass(typer.BadParameter, cls)
    # typer >= 0.29 vendors click (typer._click) and installs none: `import click` must not be needed
    monkeypatch.setitem(sys.modules, "click", None)
    for argv, fragment in (
        (["theory", "risk", "--bogus", "1"], "no such option --bogus"),
        (["theory", "large-step"], "missing --psi1"),
        (["simulate", "--seeds", "abc"], "invalid --seeds='abc'"),
        (["frobnicate"], "no such command 'frobnicate'"),
        (["theory", "risk", "extra"], "unexpected argument(s) 'extra'"),
    ):
        code, out, err = run_cli(argv, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), (argv, err)
        assert fragment in err and "Traceback" not in err


def test_help_is_plain_text_without_flag_types(capsys):
    code, out, _ = run_cli(["theory", "ck-spike", "--help"], capsys)
    assert code == 0
    assert "``" not in out and "<bool>" not in out and ":func:" not in out
    assert "ck_gram_outlier" in out and "GRID" in out


# ---- tables: compact by default, --columns, --all; files keep every column --------------------------
def test_default_table_is_compact(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    args = ["theory", "srf", "--alpha", "0.5,1.5", "--alpha0", "1", "--eta-tilde", "5", "--lam", "0.01"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "eta_tilde=5" in lines[0] and "alpha0=1" in lines[0]  # fixed parameters: one line above
    header = next(line for line in lines if "test_error" in line)
    assert "alpha" in header and "V1hat" not in header
    code, out, _ = run_cli(args + ["--columns", "alpha,test_error,V1hat"], capsys)
    assert code == 0 and "V1hat" in out and "train_error" not in out
    code, out, _ = run_cli(args + ["--format", "json"], capsys)
    assert code == 0 and {"V1hat", "q1hat", "psihat", "residual"} <= set(json.loads(out)["rows"][0])


def test_unknown_column_lists_the_valid_ones(capsys):
    code, out, err = run_cli(["theory", "risk", "--psi1", "2", "--columns", "risk9"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "risk9" in err and "risk0" in err and "kernel_bound" in err


def test_mean_se_columns_are_merged():
    from asymptotics.console_table import plan_columns, render_text
    from asymptotics.results import Columns

    res = Result(rows=[{"d": 100, "seeds": 4, "risk1_mean": 0.18576, "risk1_se": 0.0024},
                       {"d": 200, "seeds": 4, "risk1_mean": 0.1702, "risk1_se": 0.0011}],
                 meta={}, columns=Columns(("d",), ("risk1", "absent")))
    assert [c.header for c in plan_columns(res)] == ["d", "risk1"]
    text = render_text(res)
    assert "0.1858 ± 0.0024" in text and "mean ± s.e. over 4 seeds" in text
    assert [c.header for c in plan_columns(res, show_all=True)] == ["d", "seeds", "risk1_mean", "risk1_se"]
