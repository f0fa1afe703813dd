"""`asymptotics table`: any result file → LaTeX (booktabs) / Markdown, chosen columns and precision."""

from __future__ import annotations

import json
import math
import re

import pytest

from asymptotics.cli.app import main
from asymptotics.errors import ParameterError
from asymptotics.reproduce.export import format_value, to_latex, to_markdown, write_table
from asymptotics.results import Result, base_meta

ROWS = [
    {"psi1": 0.5, "psi2": 2.0, "lam": 1e-4, "risk0": 0.27712345678, "risk1_mean": 0.2431, "risk1_se": 0.0021, "route": "B"},
    {"psi1": 4.0, "psi2": 2.0, "lam": 1e-4, "risk0": 0.13676890, "risk1_mean": 0.125, "risk1_se": 0.0009, "route": "B"},
    {"psi1": 20.0, "psi2": 2.0, "lam": 1e-4, "risk0": 0.0491, "risk1_mean": 0.0420, "risk1_se": None, "route": "B"},
]


def _md_cells(text):
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def test_format_value_significant_digits_and_specials():
    assert format_value(0.13676890, 4) == "0.1368"
    assert format_value(1234567.0, 3) == "1.23e6"
    assert format_value(1.5e-5, 2, latex=True) == r"$1.5 \times 10^{-5}$"
    assert format_value(float("nan")) == "—" and format_value(None, latex=True) == "---"
    assert format_value(True) == "✓" and format_value(False, latex=True) == "no"
    assert format_value(7) == "7"
    assert format_value("a_b&c", latex=True) == r"a\_b\&c"


def test_markdown_round_trip_values_within_precision():
    text = to_markdown(ROWS, ["psi1", "risk0", "risk1_mean", "risk1_se"], precision=5)
    cells = _md_cells(text)
    assert cells[0] == ["ψ₁", "R₀", "R₁"]          # symbols, mean ± se merged into one column
    assert cells[1] == ["---:", "---:", "---:"]
    assert len(cells) == 2 + len(ROWS)
    for row, cell in zip(ROWS, cells[2:], strict=True):
        assert float(cell[0]) == row["psi1"]
        assert math.isclose(float(cell[1]), row["risk0"], rel_tol=5e-5)
        mean = float(cell[2].split("±")[0])
        assert math.isclose(mean, row["risk1_mean"], rel_tol=5e-5)
        if row["risk1_se"] is not None:
            assert math.isclose(float(cell[2].split("±")[1]), row["risk1_se"], rel_tol=5e-2)
        else:
            assert "±" not in cell[2]


def test_latex_booktabs_structure():
    tex = to_latex(ROWS, ["psi1", "lam", "risk0", "risk1_mean", "risk1_se", "route"], 3, caption="R0 and R1", label="tab:r")
    lines = tex.strip().splitlines()
    assert lines[0] == r"\begin{table}[t]" and lines[-1] == r"\end{table}"
    assert r"\caption{R0 and R1}" in tex and r"\label{tab:r}" in tex
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1
    assert r"\begin{tabular}{rrrrl}" in tex     # numeric right, text left; mean±se is one column
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    assert len(body) == len(ROWS)
    for ln in body:
        assert ln.endswith(r"\\") and ln.count("&") == 4
    assert r"$\psi_1$ & $\lambda$ & $R_0$ & $R_1$ & route \\" in tex
    assert r" & 0.0001 & " in tex and r"$0.243 \pm 0.0021$" in tex
    assert tex.count("$") % 2 == 0


def test_raw_headers_and_unmerged():
    md = to_markdown(ROWS[:1], ["risk1_mean", "risk1_se"], symbols=False, merge_se=False)
    assert _md_cells(md)[0] == ["risk1_mean", "risk1_se"]


def test_bad_columns_and_precision():
    with pytest.raises(ParameterError, match="--columns"):
        to_markdown(ROWS, ["psi1", "nope"])
    with pytest.raises(ParameterError, match="--precision"):
        to_latex(ROWS, precision=0)


@pytest.mark.parametrize("suffix", [".json", ".csv", ".parquet"])
def test_cli_table_from_each_result_format(tmp_path, capsys, suffix):
    path = tmp_path / f"r{suffix}"
    Result(rows=[{k: v for k, v in r.items() if v is not None} for r in ROWS], meta=base_meta(command="theory risk")).write(path)
    code = main(["table", str(path), "--to", "latex", "--columns", "psi1,risk0", "--precision", "3", "--tabular-only"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith(r"\begin{tabular}{rr}")
    assert r"0.5 & 0.277 \\" in out and r"4 & 0.137 \\" in out and r"20 & 0.0491 \\" in out

    code = main(["table", str(path), "--to", "markdown", "--columns", "risk0,psi1", "--precision", "2"])
    cells = _md_cells(capsys.readouterr().out)
    assert cells[0] == ["R₀", "ψ₁"] and cells[2] == ["0.28", "0.5"]


def test_cli_table_out_file_and_validate_rows(tmp_path, capsys):
    # the shape `asymptotics validate --format json` writes (params as text, passed as bool, z may be null)
    rows = [{"case": "fig3a", "quantity": "risk1", "params": "psi1=4, eta=4", "theory": 0.125, "simulation": 0.1262,
             "se": 0.0011, "z": 1.09, "passed": True},
            {"case": "fig3a", "quantity": "delta", "params": "psi1=4, eta=4", "theory": 0.0117, "simulation": 0.0117,
             "se": 0.0, "z": None, "passed": False}]
    src = tmp_path / "v.json"
    src.write_text(json.dumps({"meta": {}, "rows": rows}))
    dest = tmp_path / "v.md"
    code = main(["table", str(src), "--to", "markdown", "--out", str(dest), "--columns", "quantity,params,theory,z,passed"])
    assert code == 0
    cells = _md_cells(dest.read_text())
    assert cells[2] == ["risk1", "psi1=4, eta=4", "0.125", "1.09", "✓"]
    assert cells[3][3] == "—" and cells[3][4] == "✗"


def test_cli_table_errors_are_one_line(tmp_path, capsys):
    code = main(["table", str(tmp_path / "missing.json")])
    err = capsys.readouterr().err
    assert code == 2 and "RESULT_FILE" in err and "Traceback" not in err
    bad = tmp_path / "x.txt"
    bad.write_text("hello")
    assert main(["table", str(bad)]) == 2
    good = tmp_path / "g.json"
    Result(rows=[{"a": 1.0}]).write(good)
    assert main(["table", str(good), "--to", "html"]) == 2
    assert main(["table", str(good), "--columns", "b"]) == 2
    assert "--columns" in capsys.readouterr().err


def test_write_table_all_formats_parse(tmp_path):
    import pandas as pd
    import pyarrow.parquet as pq

    paths = write_table(ROWS, tmp_path / "t", meta={"x": 1}, columns=["psi1", "risk0"], caption="c", label="tab:t")
    assert sorted(p.suffix for p in paths) == [".csv", ".md", ".parquet", ".tex"]
    df = pd.read_csv(tmp_path / "t.csv")
    assert list(df["risk0"]) == [r["risk0"] for r in ROWS]          # full precision in CSV
    tab = pq.read_table(tmp_path / "t.parquet")
    assert json.loads(tab.schema.metadata[b"asymptotics.meta"])["x"] == 1
    assert tab.to_pandas()["psi1"].tolist() == [0.5, 4.0, 20.0]
    assert re.search(r"\\toprule.*\\bottomrule", (tmp_path / "t.tex").read_text(), re.S)
    assert not list(tmp_path.glob(".*part"))
