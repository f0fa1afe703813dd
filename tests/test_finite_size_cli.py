"""``run_finite_size`` (the body of ``asymptotics validate --finite-size``): selection, rows, exit status,
the per-seed store, and the convergence figure drawn from the saved studies."""

from __future__ import annotations

import json

import pytest
import typer

from asymptotics.cli.commands.validate_finite_size import TABLE_COLUMNS, run_finite_size, study_mode
from asymptotics.errors import ParameterError


def test_modes_and_list(capsys):
    assert study_mode(False, False) == "default" and study_mode(True, False) == "quick"
    assert study_mode(False, True) == "full" and study_mode(False, False, "toy") == "toy"
    with pytest.raises(ParameterError, match="--quick/--full"):
        study_mode(True, True)
    run_finite_size(quick=True, list_cases=True, fmt="json")
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["family"] for r in rows} == {"one_step", "spiked_rf", "large_step"} and all(r["quick"] for r in rows)


def test_toy_study_rows_store_and_figure(tmp_path):
    out, studies = tmp_path / "rows.json", tmp_path / "studies.json"
    kw = dict(size="toy", cases=["spiked-rf-readout-types-srf-sin"], fmt="json", out=out, studies_out=studies,
              cache_dir=tmp_path / "store", progress=False)
    try:
        run_finite_size(**kw)
        code = 0
    except typer.Exit as e:  # a toy ladder may fail its verdict: the exit status says so
        code = e.exit_code
    doc = json.loads(out.read_text())
    rows = doc["rows"]
    assert len(rows) == 1 and set(TABLE_COLUMNS) <= set(rows[0])
    assert code == (0 if rows[0]["passed"] else 1)
    dims = rows[0]["dims"]  # the toy ladder, less rungs the time budget dropped (stated in the study)
    assert len(dims) >= 3 and dims == [60, 85, 120, 170, 240][: len(dims)] and len(rows[0]["ses"]) == len(dims)
    assert doc["meta"]["mode"] == "toy" and "no allowance" in doc["meta"]["rules"]
    # rerun: every seed comes from the store, same numbers
    out2 = tmp_path / "rows2.json"
    try:
        run_finite_size(**dict(kw, out=out2, studies_out=None))
    except typer.Exit:
        pass
    assert json.loads(out2.read_text())["rows"][0]["means"] == rows[0]["means"]
    # the convergence figure from the saved study
    from asymptotics.figures import paper_style, save_figure
    from asymptotics.figures.finite_size import convergence_figure

    study = json.loads(studies.read_text())["studies"][0]
    with paper_style():
        paths = save_figure(convergence_figure(study), tmp_path / "fig", formats=("png",))
    assert paths[0].stat().st_size > 10_000


def test_unknown_case_is_one_clear_error():
    with pytest.raises(ParameterError, match="--case"):
        run_finite_size(size="toy", cases=["nope"], progress=False)


def test_reproduce_report_has_no_allowance():
    """report.md (``reproduce``) judges without allowance: a check 5 s.e. off its finite-width theory fails
    (no column can rescue it), and the table has no allowance or tolerance column (the verdict logic
    itself is tested in tests/test_reproduce_verdicts.py)."""
    from types import SimpleNamespace

    from asymptotics.reproduce.data import FINITE_WIDTH, FigureData, compare
    from asymptotics.reproduce.report import build_report, comparison_rows

    off = compare("item", "q1", {}, 1.0, 1.05, 0.01, d=500, seeds=8, method=FINITE_WIDTH)  # 5 s.e.
    data = FigureData(name="item", x_name="x", comparisons=[off])
    rows = comparison_rows(data)
    assert rows[0]["status"] == "failed" and "allowance" not in rows[0]
    item = SimpleNamespace(name="item", paper="p", title="t", checks="c", kind="table")
    manifest = {"size": "toy", "seed": 1, "versions": {}, "cache": {"misses": 0, "hits": 0},
                "items": {"item": {"status": "finding", "comparisons": {"total": 1, "judged": 1, "passed": 0,
                                                                        "failed": 1, "not_judged": 0,
                                                                        "max_abs_z": 5.0}, "outputs": {}}}}
    text = build_report(manifest, {"item": data}, [item])
    header = next(line for line in text.splitlines() if line.startswith("| quantity"))
    assert "allowance" not in header and "tolerance" not in header and "status" in header
