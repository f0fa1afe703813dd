"""What a notebook user meets: ``import asymptotics as asy`` is fast and loads no sympy/numba; grid
parameters take numbers, lists, arrays and grid strings (a Cartesian grid); results show as a
compact repr and an HTML table, become tidy DataFrames, plot, round-trip through files."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import asymptotics as asy
from asymptotics.results import Columns, Result


def test_import_is_fast_and_lazy():
    code = ("import sys, time; t = time.perf_counter(); import asymptotics as asy; t = time.perf_counter() - t; "
            "heavy = [m for m in ('numpy', 'sympy', 'numba', 'scipy', 'pandas') if m in sys.modules]; "
            "f = asy.risk, asy.simulate, asy.spiked_rf, asy.large_step, asy.tau_star, asy.validate, asy.sweep, asy.spectrum; "
            "after = [m for m in ('sympy', 'numba', 'scipy', 'pandas') if m in sys.modules]; "
            "print(t, heavy, after)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    seconds, modules = float(out[0]), out[1].strip()
    assert modules == "[] []", modules  # nothing heavy on import, nor on looking the functions up
    assert seconds < 0.5, seconds


def test_the_flat_api_lists_every_command():
    names = {"risk", "alignment", "ck_spike", "limits", "spiked_rf", "large_step", "tau_star", "bounds", "activation",
             "simulate", "validate", "sweep", "spectrum"}
    assert names <= set(asy.__all__) and names <= set(dir(asy))
    for n in names:
        assert callable(getattr(asy, n)) and getattr(asy, n).__doc__
    with pytest.raises(AttributeError):
        asy.no_such_function  # noqa: B018


def test_grid_values_numbers_lists_arrays_strings_give_the_same_rows():
    base = asy.alignment(psi1="0.5,2", psi2=1.5, eta="1:3:3")
    for psi1, eta in (([0.5, 2], [1, 2, 3]), (np.array([0.5, 2.0]), np.linspace(1, 3, 3)), ((0.5, 2), range(1, 4))):
        assert asy.alignment(psi1=psi1, psi2=np.float64(1.5), eta=eta).rows == base.rows
    # a Cartesian grid, the first parameter varying slowest (as on the command line)
    assert [(r["psi1"], r["eta"]) for r in base.rows] == [(0.5, 1.0), (0.5, 2.0), (0.5, 3.0), (2.0, 1.0), (2.0, 2.0),
                                                          (2.0, 3.0)]
    with pytest.raises(asy.ParameterError, match="1-D"):
        asy.alignment(psi1=np.ones((2, 2)))
    with pytest.raises(asy.ParameterError, match="grid"):
        asy.risk(psi1="0.1:10:1000", psi2="0.1:10:1000")  # 10⁶ points > the command's cap


def test_repr_html_and_frame():
    r = asy.risk(student="tanh", teacher="softplus", psi1=[0.5, 4, 20], psi2=2, lam=1e-4, eta=4, noise=0.25)
    text = repr(r)
    assert text.startswith("<Result theory risk: 3 row(s)") and "psi2=2 · lam=0.0001" in text and "0.125124" in text
    html = r._repr_html_()
    assert html.count("<tr") == 4 and "<th" in html and "risk1" in html and "0.125124" in html
    assert "noise" not in html.split("</p>", 1)[1].split("</table>")[0]  # fixed parameters in the caption only
    df = r.to_frame()
    assert list(df.columns) == list(r.rows[0]) and len(df) == 3
    assert df.attrs["command"] == "theory risk" and "versions" in df.attrs and "student" in df.attrs
    assert np.array_equal(df["risk1"].to_numpy(), r["risk1"])
    many = asy.alignment(eta="0:10:101")
    assert "more row(s)" in repr(many) and repr(many).count("\n") < 25
    assert "… 61 more row(s) …" in many._repr_html_()  # 40 of 101 rows shown


def test_missing_numbers_are_nan_in_the_frame_and_none_in_files(tmp_path):
    res = Result([{"psi1": 1.0, "risk1": 0.5, "status": "converged"},
                  {"psi1": 2.0, "risk1": None, "status": "max_steps", "message": "no root"}],
                 meta={"command": "demo"}, columns=Columns(("psi1",), ("risk1", "status")))
    df = res.to_frame()
    assert df["risk1"].dtype == float and math.isnan(df.loc[1, "risk1"]) and df.loc[1, "status"] == "max_steps"
    assert np.isnan(res["risk1"][1]) and res.failures == [res.rows[1]]
    assert "color:#b00020" in res._repr_html_()
    path = res.write(tmp_path / "r.json")
    assert json.loads(path.read_text())["rows"][1]["risk1"] is None
    back = Result.read(path)
    assert back.rows == res.rows and back.meta == res.meta
    res.write(tmp_path / "r.parquet")
    assert math.isnan(Result.read(tmp_path / "r.parquet").rows[1]["risk1"])
    with pytest.raises(asy.ParameterError, match="column"):
        res["risk2"]


def test_plot_draws_the_curves():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = asy.risk(student="tanh", teacher="softplus", psi1="log:0.3:30:20", psi2=[1, 2], lam=1e-4, eta=4, noise=0.25)
    ax = r.plot(["risk0", "risk1"])
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "samples per dimension n/d ψ₁" and len(ax.lines) == 4
    line = ax.lines[1]  # risk1 at ψ2 = 1 (2 curves × 2 ψ2)
    assert line.get_label() == "risk after the step R₁ (ψ₂ = 1)"
    assert ax.get_ylabel() == "risk before the step R₀; risk after the step R₁"
    sel = [row for row in r.rows if row["psi2"] == 1.0]
    assert np.allclose(line.get_ydata(), [row["risk1"] for row in sel])
    plt.close("all")
    sim = Result([{"eta": e, "risk_mean": 0.1 * e, "risk_se": 0.01} for e in (1, 2, 3)], meta={},
                 columns=Columns(("eta",), ("risk",)))
    ax = sim.plot()
    assert len(ax.containers) == 1  # an errorbar container
    plt.close("all")
    with pytest.raises(asy.ParameterError, match="single point"):
        asy.risk().plot()


def test_spectrum_is_marchenko_pastur_below_the_bbp_threshold_and_plots_one_curve_per_point():
    """W1ᵀW1 after a small step below the BBP threshold (η = 1): its density is the Marchenko–Pastur law of
    ratio ψ2, f(x) = √((b − x)(x − a)) / (2π ψ2 x) on [a, b] = [(1 ∓ √ψ2)²], with an atom 1 − 1/ψ2 when ψ2 > 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = np.linspace(0.05, 6.0, 25)
    s = asy.spectrum(matrix="weights", psi2=[0.5, 2], eta=1, x=xs)
    assert [sp["outliers"] for sp in s.meta["spectra"]] == [[], []]
    for psi2 in (0.5, 2.0):
        a, b = (1 - math.sqrt(psi2)) ** 2, (1 + math.sqrt(psi2)) ** 2
        mp = np.where((xs > a) & (xs < b), np.sqrt(np.clip((b - xs) * (xs - a), 0, None)) / (2 * math.pi * psi2 * xs), 0)
        got = np.array([r["density"] for r in s.rows if r["psi2"] == psi2])
        assert np.allclose(got, mp, rtol=1e-8, atol=1e-10), np.max(np.abs(got - mp))
    assert [sp["atom"] for sp in s.meta["spectra"]] == pytest.approx([0.0, 0.5], abs=1e-9)
    df = s.to_frame()
    assert list(df.columns) == ["psi1", "psi2", "eta", "noise", "x", "density"] and len(df) == 50
    ax = s.plot(x="x")
    assert len(ax.lines) == 2 and ax.get_xlabel() == "eigenvalue x" and "ψ₂ = 2" in ax.lines[1].get_label()
    assert ax.get_ylabel() == "eigenvalue density ρ(x)"
    plt.close("all")


def test_activation_is_an_activation_and_a_result(tmp_path):
    act = asy.activation("tanh")
    assert isinstance(act, asy.Activation) and act.centered and act == asy.activation("tanh")
    row = act.rows[0]
    assert row["mu1"] == pytest.approx(0.6057055096021589, rel=1e-12)  # E tanh'(z), tests/test_activations
    assert act.f(0.5) == pytest.approx(math.tanh(0.5), rel=1e-15)  # tanh is odd: no offset
    assert act.to_frame().attrs["command"] == "activation" and "mu2_sq" in act._repr_html_()
    assert json.loads(act.to_json())["rows"][0]["mu1"] == row["mu1"]
    raw = asy.activation("relu", center=False, method="float64")
    assert raw.rows[0]["mu0"] == pytest.approx(1 / math.sqrt(2 * math.pi), rel=1e-10)


def test_results_carry_their_provenance():
    r = asy.tau_star(student="erf", teacher="erf")
    assert r.meta["command"] == "theory tau-star" and r.meta["versions"]["asymptotics"] == asy.__version__
    assert r.rows[0]["kappa_star"] == pytest.approx(math.sqrt(3), rel=1e-15)  # κ* = √3 for erf/erf (closed form)
    assert r.rows[0]["status"] == "converged" and r.rows[0]["infimum_at"] == "interior"


def test_degenerate_inputs_warn_once_and_are_recorded(capsys):
    from asymptotics.cli.app import main
    from asymptotics.errors import DegenerateWarning

    with pytest.warns(DegenerateWarning) as caught:
        r = asy.alignment(student="he2", eta=[1, 2])  # μ1(He2) = 0: the step does not move the weights along β*
    assert r.meta["warnings"] and sorted({str(w.message) for w in caught}) == r.meta["warnings"]
    assert not r["separated"].any()
    assert main(["theory", "alignment", "--student", "he2", "--eta", "1,2", "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert all(f"warning: {m}" in err for m in r.meta["warnings"])


def test_csv_without_pandas_is_what_pandas_writes():
    """Rows of plain scalars are written without pandas, byte for byte as
    ``pandas.DataFrame(rows).to_csv(index=False)`` writes them (the reference): int, float,
    mixed and gapped columns, bools, strings that need quoting, missing keys."""
    import io
    import random

    pd = pytest.importorskip("pandas")
    from asymptotics.results import _plain_csv, to_jsonable

    pool = [None, 0, 1, -7, 2**40, 0.0, -0.0, 0.1, 1e16, 1e-5, 1e-4, 123456789012345.67, 5e-324,
            1.7976931348623157e308, 9999999999999998.0, 7.0, True, False, "converged", "a,b", 'q"x', "two\nlines", "",
            "inf"]
    rng = random.Random(20261202)
    for _ in range(1500):
        names = [f"c{i}" for i in range(rng.randint(1, 4))]
        rows = [{n: rng.choice(pool[:16] if rng.random() < 0.5 else pool) for n in names if rng.random() > 0.15}
                for _ in range(rng.randint(1, 5))]
        if not any(rows):
            continue
        buf = io.StringIO()
        pd.DataFrame(to_jsonable(rows)).to_csv(buf, index=False)
        assert _plain_csv(rows) == buf.getvalue() == Result(rows).to_csv(), rows
    assert _plain_csv([{"a": np.float64(1.0)}]) is None and _plain_csv([{"a": [1, 2]}]) is None   # pandas writes these
    with pytest.raises(ValueError, match="non-finite"):
        Result([{"a": math.inf}]).to_csv()
