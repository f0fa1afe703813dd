"""``theory spectrum`` prints a summary (edges, atom, bulk mass, outliers with their alignments, solver
status) instead of the density, which goes to files and to ``--density``; ``asy.spectrum`` shows the same
summary. References: the Marchenko–Pastur law (edges (1 ± √ψ2)², atom 1 − 1/ψ2) and the rectangular
spike's closed form (Benaych-Georges–Nadakuditi, ``rectangular_spike``); the README tour's CK outlier
3.4213 with label alignment 0.5481 (docs/spectra.md)."""

from __future__ import annotations

import json
import math

import pytest

import asymptotics as asy
from asymptotics.cli.app import main
from asymptotics.theory.one_step import rectangular_spike

TOUR = ["theory", "spectrum", "--matrix", "ck", "--protocol", "ba", "--psi1", "3", "--psi2", "1", "--eta", "6"]


def _value(lines: list[str], feature: str) -> str:
    row = next(line for line in lines if f" {feature} " in line)
    return row.split("│")[2].strip()


def test_readme_tour_prints_a_short_summary(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main(TOUR) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 100
    assert "matrix=ck" in lines[0] and "eta=6" in lines[0]
    assert float(_value(lines, "outlier 1: location")) == pytest.approx(3.4213, abs=1e-4)
    assert float(_value(lines, "alignment: labels")) == pytest.approx(0.5481, abs=1e-4)
    for feature in ("bulk edge (left)", "bulk edge (right)", "atom at 0", "bulk mass ∫ρ"):
        float(_value(lines, feature))
    assert _value(lines, "solver") == "converged"


def test_weights_summary_against_marchenko_pastur_and_the_rectangular_spike():
    psi2 = 2.0
    s = asy.spectrum(matrix="weights", psi1=2, psi2=psi2, eta=5, points=40)
    rows = {r["feature"]: r["value"] for r in s.summary.rows}
    lo, hi = (1 - math.sqrt(psi2)) ** 2, (1 + math.sqrt(psi2)) ** 2
    assert rows["bulk edge (left)"] == pytest.approx(lo, abs=1e-9)
    assert rows["bulk edge (right)"] == pytest.approx(hi, abs=1e-9)
    assert rows["atom at 0"] == pytest.approx(1 - 1 / psi2, abs=1e-9)
    assert rows["bulk mass ∫ρ"] == pytest.approx(1 / psi2, abs=1e-6)
    x, _, readout = rectangular_spike(s.meta["spectra"][0]["outliers"][0]["strength"], psi2)
    assert rows["outlier 1: location"] == pytest.approx(x, rel=1e-10)
    assert rows["  alignment: readout"] == pytest.approx(readout, abs=1e-10)
    text = repr(s)
    assert text.startswith("<SpectrumResult") and "40 row(s)" in text and "outlier 1: location" in text
    assert len(s.rows) == 40 and set(s.rows[0]) == {"x", "density"}  # the density stays the rows


def test_grid_summary_has_one_block_per_point_and_says_when_there_is_no_outlier():
    s = asy.spectrum(matrix="ck", psi1=3, psi2=1, eta=[2, 6], points=5)
    rows = s.summary.rows
    assert {r["eta"] for r in rows} == {2.0, 6.0}
    at2 = [r for r in rows if r["eta"] == 2.0]
    assert any(r["feature"] == "outliers" and r["value"] == "none" for r in at2)
    assert any(r["feature"] == "outlier 1: location" for r in rows if r["eta"] == 6.0)


def test_density_on_request_and_in_files(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main([*TOUR, "--points", "7", "--density"]) == 0
    out = capsys.readouterr().out
    assert "density" in out and "outlier" not in out and len([ln for ln in out.splitlines() if "│" in ln]) == 7
    path = tmp_path / "ck.csv"
    assert main([*TOUR, "--points", "7", "--out", str(path)]) == 0
    got = capsys.readouterr()
    assert path.read_text().splitlines()[0] == "x,density" and len(path.read_text().splitlines()) == 8
    assert "outlier 1: location" in got.out  # the summary beside the file
    assert main([*TOUR, "--points", "7", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["rows"]) == 7 and doc["meta"]["outliers"][0]["location"] == pytest.approx(3.4213, abs=1e-4)
