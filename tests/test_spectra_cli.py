"""``asymptotics theory spectrum``: the json contract, the protocols and the one-line errors."""

from __future__ import annotations

import json
import math

import pytest

from asymptotics.cli.app import main
from asymptotics.theory.one_step import rectangular_spike


def _run(capsys, *args):
    rc = main(["theory", "spectrum", *args, "--format", "json"])
    out = capsys.readouterr()
    return rc, (json.loads(out.out) if rc == 0 else None), out.err


def test_weights_json_contract(capsys):
    rc, obj, _ = _run(capsys, "--matrix", "weights", "--psi2", "2", "--psi1", "2", "--eta", "5", "--points", "40")
    assert rc == 0
    assert len(obj["rows"]) == 40 and set(obj["rows"][0]) == {"x", "density"}
    meta = obj["meta"]
    lo, hi = (1 - math.sqrt(2)) ** 2, (1 + math.sqrt(2)) ** 2
    assert meta["support"] == [[pytest.approx(lo, abs=1e-10), pytest.approx(hi, abs=1e-10)]]
    assert meta["atom"] == pytest.approx(0.5, abs=1e-9)
    (o,) = meta["outliers"]
    assert set(o["overlaps"]) == {"teacher", "gradient", "readout"}
    th = meta["spectra"][0]["outliers"][0]["strength"]
    x, _, ov = rectangular_spike(th, 2.0)
    assert o["location"] == pytest.approx(x, rel=1e-10) and o["overlaps"]["readout"] == pytest.approx(ov, abs=1e-10)
    assert meta["status"] == "converged" and meta["student"]["name"] == "tanh"


def test_ck_before_and_grid(capsys):
    rc, obj, _ = _run(capsys, "--matrix", "ck", "--psi1", "3", "--psi2", "1", "--eta", "2,6", "--points", "5")
    assert rc == 0
    assert len(obj["meta"]["spectra"]) == 2 and len(obj["rows"]) == 10 and "eta" in obj["rows"][0]
    assert obj["meta"]["spectra"][0]["outliers"] == [] and len(obj["meta"]["spectra"][1]["outliers"]) == 1
    rc, obj, _ = _run(capsys, "--matrix", "ck", "--psi1", "3", "--psi2", "1", "--eta", "6", "--points", "5", "--before")
    assert rc == 0 and obj["meta"]["outliers"] == [] and obj["meta"]["before"] is True


def test_cui_large_step_with_width(capsys):
    rc, obj, _ = _run(capsys, "--matrix", "ck", "--protocol", "cui", "--alpha", "2", "--beta", "1", "--eta-tilde", "3",
                      "--alpha0", "2", "--points", "5", "--d", "1000")
    assert rc == 0
    o = obj["meta"]["outliers"][0]
    assert o["order"] == "N" and o["location"] == pytest.approx(1000 * o["location_per_width"], rel=1e-12)
    assert obj["meta"]["regime"] == "large"


def test_user_grid(capsys):
    rc, obj, _ = _run(capsys, "--matrix", "weights", "--psi2", "0.5", "--eta", "1", "--x", "0:3:7")
    assert rc == 0 and [r["x"] for r in obj["rows"]] == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    assert obj["rows"][0]["density"] == 0.0  # 0 lies outside [(1 − √ψ2)², (1 + √ψ2)²]


@pytest.mark.parametrize("args,fragment", [
    (("--matrix", "eigen"), "--matrix"),
    (("--psi2", "-1"), "psi2"),
    (("--protocol", "cui", "--regime", "large"), "--regime"),
    (("--equivalence", "linear"), "--equivalence"),
    (("--d", "100", "--width", "50", "--regime", "large"), "--d"),
    (("--student", "nosuchfunction(x)"), "--student"),
])
def test_bad_input_is_one_line(capsys, args, fragment):
    rc = main(["theory", "spectrum", *args, "--format", "json"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and fragment in err and len(err.splitlines()) == 1
