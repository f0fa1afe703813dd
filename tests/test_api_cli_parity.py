"""Each API function gives the rows of its command: same columns, same numbers (1e-12 relative;
simulations bit for bit), same metadata keys — for every command, with grids given as the command
line's strings in one and as lists or arrays in the other."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import asymptotics as asy
from asymptotics.cli.app import main
from asymptotics.results import to_jsonable


def _close(a, b, exact=False) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, exact) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], exact) for k in a)
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if exact:
        return a == b
    return abs(a - b) <= 1e-14 + 1e-12 * max(abs(a), abs(b))


def cli(args: list[str], tmp_path) -> dict:
    out = tmp_path / "cli.json"
    assert main([*args, "--format", "json", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def same(result, doc, exact=False) -> None:
    api_rows = json.loads(json.dumps(to_jsonable(result.rows)))
    cli_rows = doc["rows"]
    assert len(api_rows) == len(cli_rows)
    for i, (a, c) in enumerate(zip(api_rows, cli_rows, strict=True)):
        assert list(a) == list(c), (i, set(a) ^ set(c))
        bad = {k: (a[k], c[k]) for k in a if not _close(a[k], c[k], exact)}
        assert not bad, (i, bad)
    volatile = {"created", "elapsed_s", "timings"}
    assert set(result.meta) - volatile == set(doc["meta"]) - volatile


CASES = [
    (["theory", "risk", "--student", "erf", "--teacher", "tanh", "--psi1", "1,3", "--psi2", "0.5,2", "--lam", "1e-2",
      "--eta", "2", "--noise", "0.1", "--route", "A,B,C"],
     lambda: asy.risk(student="erf", teacher="tanh", psi1=[1, 3], psi2=np.array([0.5, 2.0]), lam=1e-2, eta=2,
                      noise=0.1, route=["A", "B", "C"])),
    (["theory", "alignment", "--student", "tanh", "--teacher", "tanh", "--psi1", "2", "--psi2", "1.5",
      "--eta", "0:10:11", "--noise", "0.1"],
     lambda: asy.alignment(psi1=2, psi2=1.5, eta=np.linspace(0, 10, 11), noise=0.1)),
    (["theory", "ck-spike", "--psi1", "2", "--psi2", "1.5", "--eta", "1,5,8"],
     lambda: asy.ck_spike(eta=(1, 5, 8))),
    (["theory", "limits", "--eta", "3", "--lam", "0.1,1"],
     lambda: asy.limits(eta=3, lam=[0.1, 1])),
    (["theory", "limits", "--limit", "psi2-inf", "--psi1", "log:1:100:3", "--eta", "3"],
     lambda: asy.limits(limit="psi2-inf", psi1="log:1:100:3", eta=3)),
    (["theory", "srf", "--alpha", "0.5,1.5", "--alpha0", "1,inf", "--eta-tilde", "5", "--lam", "0.01"],
     lambda: asy.spiked_rf(alpha=[0.5, 1.5], alpha0=[1, math.inf], eta_tilde=5, lam=0.01)),
    (["theory", "srf", "--student", "tanh", "--teacher", "sin", "--alpha", "3", "--c", "1", "--r", "1",
      "--gamma", "1", "--lam", "0.01", "--readout", "0.3,1.7"],
     lambda: asy.spiked_rf(student="tanh", teacher="sin", alpha=3, c=1, r=1, gamma=1, lam=0.01, readout=[0.3, 1.7])),
    (["theory", "large-step", "--psi1", "4", "--psi2", "2", "--lam", "1e-2", "--noise", "0.1", "--width", "inf,2000",
      "--no-check", "--types", "8"],
     lambda: asy.large_step(psi1=4, psi2=2, lam=1e-2, noise=0.1, width=[math.inf, 2000], check=False, types=8)),
    (["theory", "tau-star", "--student", "tanh", "--teacher", "tanh", "--student-scale", "0.5,2"],
     lambda: asy.tau_star(student="tanh", teacher="tanh", student_scale=[0.5, 2])),
    (["theory", "tau-star", "--student", "erf", "--teacher", "erf", "--teacher-scale", "1,2"],
     lambda: asy.tau_star(student="erf", teacher="erf", teacher_scale=[1, 2])),
    (["theory", "bounds", "--student", "tanh", "--teacher", "tanh", "--psi1", "1,10,100"],
     lambda: asy.bounds(student="tanh", teacher="tanh", psi1=[1, 10, 100])),
    (["activation", "tanh(x) + 0.1*x**3", "--no-center"],
     lambda: asy.activation("tanh(x) + 0.1*x**3", center=False).result),
    (["validate", "--list", "--quick"],
     lambda: asy.validate(list_cases=True, quick=True)),
    (["theory", "spectrum", "--matrix", "weights", "--psi2", "0.5,2", "--eta", "1", "--x", "0:3:7"],
     lambda: asy.spectrum(matrix="weights", psi2=[0.5, 2], eta=1, x=np.linspace(0, 3, 7))),
    (["theory", "spectrum", "--protocol", "cui", "--alpha", "2", "--alpha0", "inf", "--points", "5", "--d", "1000"],
     lambda: asy.spectrum(protocol="cui", alpha=2, alpha0=math.inf, points=5, d=1000)),
]


@pytest.mark.parametrize("args, api", CASES, ids=[" ".join(a[:3]) for a, _ in CASES])
def test_api_rows_are_the_cli_rows(args, api, tmp_path):
    same(api(), cli(args, tmp_path))


def test_simulate_is_the_cli_bit_for_bit(tmp_path):
    args = ["simulate", "--protocol", "srf", "--student", "tanh", "--teacher", "sin", "--d", "60", "--alpha", "2",
            "--beta", "1", "--c", "1.5", "--r", "1", "--gamma", "0.7,0.9", "--lam", "0.01", "--seeds", "2",
            "--seed", "7", "--blas-threads", "1"]
    res = asy.simulate(protocol="srf", student="tanh", teacher="sin", d=60, alpha=2, beta=1, c=1.5, r=1,
                       gamma=[0.7, 0.9], lam=0.01, seeds=2, seed=7, blas_threads=1)
    same(res, cli(args, tmp_path), exact=True)
    per_seed = asy.simulate(protocol="srf", d=60, alpha=2, seeds=2, per_seed=True, blas_threads=1)
    assert [r["seed"] for r in per_seed.rows] == [0, 1]


def test_sweep_gives_the_rows_of_the_command(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text('quantity = "gaussian.moments"\n[fixed]\nactivation = "erf"\n[grid]\nscale = [0.5, 1.0, 2.0]\n')
    assert main(["sweep", str(cfg), "--out", str(tmp_path / "cli"), "--no-progress"]) == 0
    run = asy.sweep(str(cfg), out=tmp_path / "api")
    assert run.complete and run.summary.ok == 3
    from asymptotics.sweeps import read_sweep

    a = run.to_frame(ok_only=True).sort_values("scale").reset_index(drop=True)
    c = read_sweep(tmp_path / "cli", ok_only=True).sort_values("scale").reset_index(drop=True)
    values = [k for k in a.columns if k not in ("run_id", "started", "elapsed_s", "worker", "versions")]
    assert list(a.columns) == list(c.columns)
    for k in values:
        assert all(_close(x, y) for x, y in zip(a[k].tolist(), c[k].tolist(), strict=True)), k
    assert "3 ok" in repr(run) and "<table>" in run._repr_html_()


@pytest.mark.parametrize("call, cli_args, api_text, cli_text", [
    (lambda: asy.risk(psi1=-1), ["theory", "risk", "--psi1", "-1"],
     "invalid psi1=-1.0: psi1 must be > 0", "invalid psi1=-1.0: psi1 must be > 0"),
    (lambda: asy.risk(route="Z"), ["theory", "risk", "--route", "Z"],
     "invalid route='Z': route must be A, B, C", "invalid --route='Z': --route must be A, B, C"),
    (lambda: asy.tau_star(method="fast"), ["theory", "tau-star", "--method", "fast"],
     "invalid method='fast': method must be one of auto, closed, compiled, mpmath",
     "invalid --method='fast': --method must be one of auto, closed, compiled, mpmath"),
    (lambda: asy.large_step(psi1=8, kappa_nodes=2), ["theory", "large-step", "--psi1", "8", "--kappa-nodes", "2"],
     "invalid kappa_nodes=2: kappa_nodes must be an integer in [8, 1000]",
     "invalid --kappa-nodes=2: --kappa-nodes must be an integer in [8, 1000]"),
    (lambda: asy.spiked_rf(alpha=1, alpha0=1), ["theory", "srf", "--alpha", "1", "--alpha0", "1"],
     "eta_tilde/alpha0 must be both given (or c r gamma", "--eta-tilde/--alpha0 must be both given (or --c --r --gamma"),
    (lambda: asy.simulate(protocol="ba", alpha=2), ["simulate", "--protocol", "ba", "--alpha", "2"],
     "alpha must be omitted with protocol ba (it takes d, psi1,",
     "--alpha must be omitted with --protocol ba (it takes --d, --psi1,"),
    (lambda: asy.activation("exp(x**2)"), ["activation", "exp(x**2)"],
     "invalid spec='exp(x**2)'", "invalid SPEC='exp(x**2)'"),
    (lambda: asy.risk(student="1/x"), ["theory", "risk", "--student", "1/x"],
     "invalid student='1/x'", "invalid --student='1/x'"),
    (lambda: asy.spectrum(protocol="cui", regime="large"), ["theory", "spectrum", "--protocol", "cui", "--regime", "large"],
     "invalid regime='large': regime must be not given with protocol cui",
     "invalid --regime='large': --regime must be not given with --protocol cui"),
])
def test_errors_are_the_command_lines_with_python_names(call, cli_args, api_text, cli_text, capsys):
    with pytest.raises(asy.ParameterError) as exc:
        call()
    assert api_text in str(exc.value)
    assert main(cli_args) == 2
    err = capsys.readouterr().err.strip()
    assert cli_text in err and err.startswith("error: ") and "\n" not in err, err


def test_keyword_only():
    with pytest.raises(TypeError):
        asy.risk("tanh")  # noqa - deliberately positional
    with pytest.raises(TypeError):
        asy.activation("tanh", False)  # noqa


def test_validate_runs_cases_like_the_command(monkeypatch, tmp_path, capsys):
    """Two registered toy cases (one passing, one failing: 1.1 vs 1 ± 0.01 is 10 s.e. away): the same
    verdict rows from the API and the command, and the command's exit status 1."""
    from validation import registry

    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    registry.case("toy_pass", family="toy", description="passes")(
        lambda cfg: [registry.Check("toy_pass", "x", {"d": 10}, theory=1.0, simulation=1.005, se=0.01, d=10)])
    registry.case("toy_fail", family="toy", description="fails")(
        lambda cfg: [registry.Check("toy_fail", "x", {"d": 10}, theory=1.0, simulation=1.1, se=0.01, d=10)])
    res = asy.validate(case=["toy_pass", "toy_fail"], seed=3)
    assert [r["passed"] for r in res.rows] == [True, False] and res.meta["failed"] == 1 and res.meta["total"] == 2
    out = tmp_path / "v.json"
    code = main(["validate", "--case", "toy_pass", "--case", "toy_fail", "--seed", "3", "--format", "json",
                 "--out", str(out)])
    assert code == 1 and "1 passed, 1 failed" in capsys.readouterr().err
    same(res, json.loads(out.read_text()))
    assert asy.validate(family="toy", list_cases=True)["case"].tolist() == ["toy_pass", "toy_fail"]
