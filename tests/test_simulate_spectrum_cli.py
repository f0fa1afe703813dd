"""``asymptotics simulate --measure spectrum``: the CLI and ``asy.simulate(measure="spectrum")``
give the same rows; the histogram's bookkeeping closes (∫ density = 1 − outside/N exactly, per
seed); the pooled density is the mean of the per-seed densities with its s.e.; the reported top
eigenvalue is the largest eigenvalue of the rows; bad options get one line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import asymptotics as asy
from asymptotics.cli.app import main

BA = ["simulate", "--protocol", "ba", "--d", "80", "--psi1", "3", "--psi2", "1", "--eta", "6", "--measure",
      "spectrum", "--seeds", "3", "--seed", "5"]


def _cli(args, capsys):
    code = main(args + ["--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_eigenvalues_and_histogram_agree(capsys):
    ev = _cli(BA + ["--matrix", "weights,ck"], capsys)
    hist = _cli(BA + ["--matrix", "weights,ck", "--bins", "0:12:24"], capsys)
    api = asy.simulate(d=80, psi1=3, psi2=1, eta=6, measure="spectrum", seeds=3, seed=5, bins="0:12:24",
                       progress=False)
    assert [r["density"] for r in api.rows] == [r["density"] for r in hist["rows"]]
    edges = np.linspace(0, 12, 25)
    width = np.diff(edges)
    for name in ("weights", "ck_true", "ck_ge"):
        per_seed = []
        for k in range(3):
            v = np.array([r["eigenvalue"] for r in ev["rows"] if r["matrix"] == name and r["seed"] == k])
            assert v.size == 80  # N = ψ2·d
            per_seed.append(np.histogram(v, edges)[0] / (v.size * width))
            out = [o for o in ev["meta"]["outliers"] if o["matrix"] == name and o["rank"] == 1][0]
        tops = [max(r["eigenvalue"] for r in ev["rows"] if r["matrix"] == name and r["seed"] == k) for k in range(3)]
        assert out["location"] == pytest.approx(np.mean(tops), rel=1e-12)
        assert out["location_se"] == pytest.approx(np.std(tops, ddof=1) / math.sqrt(3), rel=1e-9)
        per_seed = np.array(per_seed)
        rows = [r for r in hist["rows"] if r["matrix"] == name]
        dens = np.array([r["density"] for r in rows])
        np.testing.assert_allclose(dens, per_seed.mean(0), rtol=1e-12, atol=1e-15)
        se = np.array([r["density_se"] for r in rows], dtype=float)
        np.testing.assert_allclose(se, per_seed.std(0, ddof=1) / math.sqrt(3), rtol=1e-9, atol=1e-15)
        o = [o for o in hist["meta"]["outliers"] if o["matrix"] == name][0]
        inside = 1 - (np.array(o["below"]) + np.array(o["above"])) / 80
        assert float((dens * width).sum()) == pytest.approx(inside.mean(), abs=1e-12)
    assert hist["meta"]["measure"] == "spectrum" and hist["meta"]["root_seed"] == 5


@pytest.mark.parametrize("extra, fragment", [
    (["--bins", "5:1:3"], "--bins"),
    (["--matrix", "hessian"], "--matrix"),
    (["--top", "0"], "--top"),
    (["--ck-features", "fake"], "--ck-features"),
])
def test_bad_spectrum_options_one_line(extra, fragment, capsys):
    code = main(BA + extra)
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and fragment in err and "Traceback" not in err, err


def test_spectrum_options_need_measure_spectrum(capsys):
    code = main(["simulate", "--d", "40", "--bins", "0:1:3", "--seeds", "2"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "--measure spectrum" in err, err
