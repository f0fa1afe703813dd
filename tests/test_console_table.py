"""The console table at a given width: a table too wide for the terminal keeps the columns its
command declares in ``Columns.keep`` (validate's verdict among them), abbreviates headers, wraps
long text and drops only the other columns, naming them; numbers are never folded."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from asymptotics.api.validation import TABLE as VALIDATE_TABLE
from asymptotics.cli.commands.validate_finite_size import TABLE as FINITE_SIZE_TABLE
from asymptotics.console_table import print_table, wrap_text
from asymptotics.results import Columns, Result

CASES = ["large-step-exact-quick", "one-step-alignment-threshold-trend", "spiked-rf-step-hurts-quick",
         "spiked_rf_readout_types_srf_sin_three_types"]
QUANTITIES = ["risk1 (network) vs finite-N theory", "kernel bound μ2*² − risk1 (must be > 0)", "overlap_beta",
              "delta(σ_ε=0.1) − delta(σ_ε=1)"]


def _validate_rows() -> list[dict]:
    rows = []
    for i, (case, q) in enumerate(zip(CASES, QUANTITIES, strict=True)):
        rows.append({"case": case, "quantity": q, "theory": 0.031335826 * (i + 1), "simulation": 0.030107421 * (i + 1),
                     "se": 0.0011748901, "allowance": 0.0012534330, "z_max": 3.0, "d": 400 + 100 * i,
                     "note": "a long note " * 5, "params": "setting=a, student=erf, teacher=erf, psi1=8",
                     "z": -1.0455489 * (i - 1.5), "tolerance": 0.0047781035, "passed": i != 2})
    return rows


def _finite_size_rows() -> list[dict]:
    return [{"case": c, "variant": f"{c}-eta5-variant", "quantity": q, "theory": 0.5113 * (i + 1),
             "limit": 0.5137 * (i + 1), "limit_se": 0.014, "z": 0.1712 - i, "omega": 1.0, "chi2_dof": 0.9,
             "p_value": 0.29, "verdict": "extrapolation", "dims": [200, 283, 400, 566, 800], "passed": i != 1,
             "beside": "overlap_beta 0.5 (limit z = +0.3); a reference beside the judged theory"}
            for i, (c, q) in enumerate(zip(CASES, QUANTITIES, strict=True))]


def _render(result: Result, width: int, columns=None) -> list[str]:
    buf = io.StringIO()
    print_table(result, columns, console=Console(width=width, file=buf, force_terminal=False, no_color=True))
    return buf.getvalue().splitlines()


def _header(lines: list[str]) -> str:
    return next(line for line in lines if "┃" in line)


@pytest.mark.parametrize("width", [100, 80])
def test_validate_table_shows_the_verdict_at_narrow_widths(width):
    lines = _render(Result(_validate_rows(), meta={}, columns=VALIDATE_TABLE), width)
    assert max(len(line) for line in lines) <= width
    header = " ".join(line for line in lines if "┃" in line)  # a header may wrap onto a second line
    for name in ("case", "theory", "± s.e.", "z", "passed"):
        assert name in header, (name, header)
    assert "quantity" in header or "qty" in header
    body = [line for line in lines if line.startswith("│")]
    verdicts = [cell.strip() for line in body for cell in line.strip("│").split("│")[-1:]]
    assert verdicts.count("True") == 3 and verdicts.count("False") == 1  # one verdict per row, never cut
    text = "\n".join(lines)
    assert "0.03011 ± 0.0012" in text  # simulation ± s.e. in one cell
    assert "not shown for width" in text and "tolerance" in text.split("not shown for width")[1]


def test_validate_table_wraps_case_names_rather_than_dropping_columns():
    lines = _render(Result(_validate_rows(), meta={}, columns=VALIDATE_TABLE), 100)
    body = "\n".join(line for line in lines if line.startswith("│"))
    # each long name is cut after a hyphen or underscore, and every piece is there
    for case in CASES:
        pieces = [p for p in case.replace("-", "- ").replace("_", "_ ").split()]
        assert all(p in body for p in pieces), case


def test_finite_size_table_shows_limit_and_verdict_at_100_columns():
    lines = _render(Result(_finite_size_rows(), meta={}, columns=FINITE_SIZE_TABLE), 100)
    assert max(len(line) for line in lines) <= 100
    header = _header(lines)
    for name in ("variant", "quantity", "theory", "limit ± s.e.", "z", "passed"):
        assert name in header, (name, header)
    assert "0.5137 ± 0.014" in "\n".join(lines)
    assert "mean ± s.e." not in lines[0]  # a limit ± s.e. is not a mean over seeds


def test_wide_enough_console_shows_every_column_unwrapped():
    lines = _render(Result(_validate_rows(), meta={}, columns=VALIDATE_TABLE), 400)
    header = _header(lines)
    assert "allowance" in header and "tolerance" in header
    assert "kernel bound μ2*² − risk1 (must be > 0)" in "\n".join(lines)


def test_default_keep_is_the_varying_parameters_and_the_first_value():
    rows = [{"psi1": p, "risk0": 0.123456 * p, "risk1": 0.1 * p, "delta": 0.02 * p, "kernel_bound": 0.3,
             "a_rather_long_column_name": 1.5, "another_long_column_name": 2.5} for p in (1.0, 2.0, 4.0)]
    res = Result(rows, meta={}, columns=Columns(("psi1",), tuple(k for k in rows[0] if k != "psi1")))
    lines = _render(res, 40)
    header = _header(lines)
    assert "psi1" in header and "risk0" in header and max(len(line) for line in lines) <= 40
    assert "another_long_column_name" in "\n".join(lines)  # named in the note


def test_columns_named_by_the_user_are_all_kept():
    res = Result(_validate_rows(), meta={}, columns=VALIDATE_TABLE)
    lines = _render(res, 100, columns=["case", "note", "passed"])
    assert "not shown" not in "\n".join(lines)
    assert "passed" in _header(lines) and "note" in _header(lines)


@pytest.mark.parametrize("text, width", [("large-step-exact-quick", 12), ("a_b_c_defghijklmnop qr", 5),
                                          ("kernel bound μ2*² − risk1 (must be > 0)", 17), ("short", 10)])
def test_wrap_text_keeps_every_character_within_the_width(text, width):
    out = wrap_text(text, width)
    assert all(len(line) <= width for line in out.splitlines())
    assert out.replace("\n", "").replace(" ", "") == text.replace(" ", "")


def test_validate_through_the_terminal_width(monkeypatch, capsys):
    """The path the command takes: the console's width from COLUMNS."""
    monkeypatch.setenv("COLUMNS", "100")
    print_table(Result(_validate_rows(), meta={}, columns=VALIDATE_TABLE))
    out = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in out) <= 100 and "passed" in _header(out)


def test_repr_and_html_of_a_table_with_a_pair_column():
    res = Result(_validate_rows() * 3, meta={"command": "validate"}, columns=VALIDATE_TABLE)
    text = repr(res)
    assert "simulation ± s.e." in text and "0.03011 ± 0.0012" in text and "2 more row(s)" in text
    assert "simulation ± s.e." in res._repr_html_()
