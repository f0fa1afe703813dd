"""Every option of every command is used or refused: none is silently ignored.

The commands and their options are read from the CLI app itself (typer/click introspection), so a
new option fails :func:`test_every_option_is_classified` until it is given a probe here, or put in
one of the documented lists:

* :data:`OUTPUT_ONLY` — options that choose how or where the output is written (``--format``,
  ``--out``, …): the numbers do not change by design;
* :data:`EXECUTION_ONLY` — options that choose how the work is scheduled (workers, threads, caches,
  retries): the results are bit-identical by design (tested where each is implemented);
* :data:`ON_FAILURE_ONLY` — ``--keep-going``, which acts only on a grid point without a solution;
* :data:`NOT_WALKED` — (command, option) pairs that cannot be probed cheaply, each with its reason.

A probe runs the command in-process twice, without and with the option (on the cheapest
parameters), and expects either a different stdout (``CHANGES``: the option is used) or a refusal
(``REFUSED``: status 2, one ``error:`` line naming the option). The expensive commands are probed
through their dry-run or parameter-check paths.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest
from conftest import cli_commands

from asymptotics.cli.app import main

CHANGES, REFUSED = "changes", "refused"

#: Options that only choose how or where the output is written.
OUTPUT_ONLY = {"--format", "--out", "--columns", "--all", "--no-progress", "--progress", "--density", "--help",
               "--studies-out"}
#: Options that only choose how the work is scheduled; results are bit-identical by design.
EXECUTION_ONLY = {"--workers", "--blas-threads", "--threads-per-task", "--batch-size", "--retries",
                  "--cache-dir", "--no-cache", "--retry-failed"}
#: Options that act only on a grid point without a solution (tests/test_api_failures.py marks one).
ON_FAILURE_ONLY = {"--keep-going"}
#: (command, option): why it is not walked.
NOT_WALKED = {
    ("check", "*"): "the claims checker, added beside this work: its options are checked by its own tests "
                    "(tests/test_claims_*); to be probed here",
    ("reproduce", "*"): "no dry run: every option of a run costs minutes; its parameter checks (--size, "
                        "--seed, --quick/--full, --only) are cases of the bad-input corpus",
    ("figure", "--quick"): "a figure run costs minutes; refused with --list (probed), used by reproduce",
    ("figure", "--full"): "as --quick",
    ("figure", "--size"): "as --quick",
    ("validate", "--list"): "without --list the cases run (minutes)",
    ("validate", "--budget"): "a finite-size study runs minutes; refused without --finite-size and with --list (probed)",
    ("sweep", "--dry-run"): "probed as the base of every other sweep probe (the plan is printed, nothing runs)",
    ("derive", "--code"): "lowers a compiled module (numba, minutes on a cold cache)",
}

# ---- probes: command -> option -> list of (base argv, extra argv, expected) -------------------
S = ["--format", "json"]
RISK = ["theory", "risk", *S]
SPIKE = ["theory", "alignment", "--eta", "1", *S]
CK = ["theory", "ck-spike", "--eta", "1", *S]
LIM = ["theory", "limits", *S]
SRF = ["theory", "srf", "--alpha", "1", "--alpha0", "1", "--eta-tilde", "1", *S]
SRFM = ["theory", "srf", "--alpha", "1", "--c", "1", "--r", "1", "--gamma", "0.5", *S]
LS = ["theory", "large-step", "--psi1", "2", "--kappa-nodes", "8", "--types", "2", *S]
TAU = ["theory", "tau-star", *S]
BND = ["theory", "bounds", "--psi1", "10", *S]
SPEC = ["theory", "spectrum", "--points", "20", *S]
SPECW = ["theory", "spectrum", "--points", "20", "--matrix", "weights", *S]
SPECL = ["theory", "spectrum", "--points", "20", "--regime", "large", "--matrix", "weights", "--types", "4", *S]
SPECLC = ["theory", "spectrum", "--points", "20", "--regime", "large", *S]
SPECC = ["theory", "spectrum", "--points", "20", "--protocol", "cui", "--matrix", "weights", *S]
#: The CK after a large step (a κ-mixture: seconds per run) is walked only in the slow suite.
SLOW = pytest.mark.slow
ACT = ["activation", "tanh", *S]
DER = ["derive", "rf_ridge_traces"]
DEX = ["derive", "--expr", "tr(inv(X@X.T/d + lam*I))", "--dims", "X:n,d", "--ratios", "n/d=2"]
SIM = ["simulate", "--d", "12", "--seeds", "2", "--measure", "risk", *S]
SIMC = ["simulate", "--protocol", "cui", "--d", "12", "--seeds", "2", "--measure", "risk", *S]
SIMS = ["simulate", "--protocol", "srf", "--d", "12", "--seeds", "2", *S]
SIMSP = ["simulate", "--d", "12", "--seeds", "2", "--measure", "spectrum", *S]
VAL = ["validate", "--list", *S]
SWP = ["sweep", "{tmp}/sweep.toml", "--dry-run"]
TAB = ["table", "{tmp}/result.json"]
FIG = ["figure", "--list"]


def _one_step(base, grids):
    p = {"--student": [(base, ["--student", "erf"], CHANGES)], "--teacher": [(base, ["--teacher", "erf"], CHANGES)],
         "--center": [(base + ["--student", "relu"], ["--no-center"], REFUSED)]}
    p.update({f"--{g}": [(base, [f"--{g}", v], CHANGES)] for g, v in grids.items()})
    return p


PROBES: dict[str, dict[str, list]] = {
    "theory risk": {**_one_step(RISK, {"psi1": "3", "psi2": "2", "lam": "0.1", "eta": "2", "noise": "0.5"}),
                    "--route": [(RISK, ["--route", "A,C"], CHANGES)]},
    "theory alignment": _one_step(SPIKE, {"psi1": "3", "psi2": "2", "eta": "2", "noise": "0.5"}),
    "theory ck-spike": _one_step(CK, {"psi1": "3", "psi2": "2", "eta": "2", "noise": "0.5"}),
    "theory limits": {**_one_step(LIM, {"psi2": "2", "lam": "0.1", "eta": "2", "noise": "0.5"}),
                      "--limit": [(LIM, ["--limit", "psi2-inf"], CHANGES)],
                      "--psi1": [(LIM, ["--psi1", "3"], REFUSED), (LIM + ["--limit", "psi2-inf"], ["--psi1", "3"], CHANGES)]},
    "theory srf": {
        "--alpha": [(SRF, ["--alpha", "2"], CHANGES)], "--student": [(SRF, ["--student", "erf"], CHANGES)],
        "--teacher": [(SRF, ["--teacher", "erf"], CHANGES)], "--beta": [(SRF, ["--beta", "2"], CHANGES)],
        "--lam": [(SRF, ["--lam", "0.1"], CHANGES)], "--eta-tilde": [(SRF, ["--eta-tilde", "2"], CHANGES)],
        "--alpha0": [(SRF, ["--alpha0", "2"], CHANGES)],
        "--c": [(SRF, ["--c", "1"], REFUSED), (SRFM, ["--c", "2"], CHANGES)],
        "--r": [(SRF, ["--r", "1"], REFUSED), (SRFM, ["--r", "2"], CHANGES)],
        "--gamma": [(SRF, ["--gamma", "0.5"], REFUSED), (SRFM, ["--gamma", "0.2"], CHANGES)],
        "--noise": [(SRF, ["--noise", "0.3"], CHANGES)], "--readout": [(SRF, ["--readout", "0.5,1.5"], CHANGES)],
        "--center": [(SRF + ["--student", "relu"], ["--no-center"], CHANGES)],
        "--tol": [(SRF, ["--tol", "1e-4"], CHANGES)],
        "--finite-d": [(SRF, ["--finite-d", "50"], CHANGES)], "--width": [(SRF, ["--width", "50"], CHANGES)],
        "--bulk": [(SRF, ["--bulk", "self-term"], CHANGES)],
        "--seed": [(SRF, ["--seed", "3"], REFUSED), (SRF + ["--finite-d", "50"], ["--seed", "3"], CHANGES)],
        "--max-memory": [(SRF, ["--max-memory", "8GiB"], REFUSED),
                         (SRF + ["--finite-d", "50"], ["--max-memory", "1KiB"], REFUSED)],
    },
    "theory large-step": {
        "--psi1": [(LS, ["--psi1", "3"], CHANGES)], "--student": [(LS, ["--student", "tanh"], CHANGES)],
        "--teacher": [(LS, ["--teacher", "tanh"], CHANGES)], "--psi2": [(LS, ["--psi2", "3"], CHANGES)],
        "--lam": [(LS, ["--lam", "0.1"], CHANGES)], "--noise": [(LS, ["--noise", "0.3"], CHANGES)],
        "--c": [(LS, ["--c", "2"], CHANGES)], "--width": [(LS, ["--width", "500"], CHANGES)],
        "--d": [(LS, ["--d", "500"], CHANGES)], "--readout": [(LS, ["--readout", "quantile"], CHANGES)],
        "--types": [(LS + ["--no-check"], ["--types", "3"], CHANGES)],
        "--readout-values": [(LS, ["--readout-values", "0.5,1.5"], REFUSED)],
        "--readout-proportions": [(LS, ["--readout-proportions", "0.5,0.5"], REFUSED)],
        "--kappa-nodes": [(LS, ["--kappa-nodes", "9"], CHANGES)], "--check": [(LS, ["--no-check"], CHANGES)],
        "--center": [(LS + ["--student", "relu"], ["--no-center"], CHANGES)],
        "--initial-columns": [(LS, ["--initial-columns", "gaussian"], REFUSED),
                              (LS + ["--d", "500"], ["--initial-columns", "gaussian"], CHANGES)],
        "--gradient": [(LS, ["--gradient", "exact"], REFUSED), (LS + ["--d", "500"], ["--gradient", "exact"], CHANGES)],
        "--tol": [(LS + ["--no-check"], ["--tol", "1e-6"], CHANGES)],
    },
    "theory tau-star": {
        "--student": [(TAU, ["--student", "erf"], CHANGES)], "--teacher": [(TAU, ["--teacher", "erf"], CHANGES)],
        "--center": [(TAU + ["--student", "relu"], ["--no-center"], CHANGES)],
        "--fit-constant": [(TAU + ["--student", "relu", "--no-center"], ["--fit-constant"], CHANGES)],
        "--student-scale": [(TAU, ["--student-scale", "2"], CHANGES)],
        "--teacher-scale": [(TAU, ["--teacher-scale", "2"], CHANGES)],
        "--method": [(TAU + ["--student", "erf", "--teacher", "erf"], ["--method", "compiled"], CHANGES)],
        "--dps": [(TAU, ["--dps", "40"], REFUSED), (TAU + ["--method", "mpmath"], ["--dps", "40"], CHANGES, SLOW)],
    },
    "theory bounds": {
        "--student": [(BND, ["--student", "erf"], CHANGES)], "--teacher": [(BND, ["--teacher", "erf"], CHANGES)],
        "--center": [(BND + ["--student", "relu"], ["--no-center"], CHANGES)],
        "--fit-constant": [(BND + ["--student", "relu", "--no-center"], ["--fit-constant"], CHANGES)],
        "--psi1": [(BND, ["--psi1", "20"], CHANGES)], "--constant": [(BND, ["--constant", "2"], CHANGES)],
        "--student-scale": [(BND, ["--student-scale", "2"], CHANGES)],
        "--teacher-scale": [(BND, ["--teacher-scale", "2"], CHANGES)],
        "--method": [(BND + ["--student", "erf", "--teacher", "erf"], ["--method", "compiled"], CHANGES)],
        "--dps": [(BND, ["--dps", "40"], REFUSED)],
    },
    "theory spectrum": {
        "--matrix": [(SPEC, ["--matrix", "weights"], CHANGES)], "--protocol": [(SPECW, ["--protocol", "cui"], CHANGES)],
        "--regime": [(SPECL, [], CHANGES, SPECW), (SPECC, ["--regime", "large"], REFUSED)],
        "--student": [(SPEC, ["--student", "erf"], CHANGES)], "--teacher": [(SPEC, ["--teacher", "erf"], CHANGES)],
        "--center": [(SPEC + ["--student", "relu"], ["--no-center"], REFUSED)],
        **{f"--{g}": [(SPEC, [f"--{g}", v], CHANGES), (SPECC, [f"--{g}", v], REFUSED)]
           for g, v in (("psi1", "3"), ("psi2", "2"), ("eta", "3"))},
        **{f"--{g}": [(SPEC, [f"--{g}", v], REFUSED), (SPECC, [f"--{g}", v], CHANGES)]
           for g, v in (("alpha", "3"), ("beta", "2"), ("eta-tilde", "2"), ("alpha0", "3"))},
        "--noise": [(SPEC, ["--noise", "0.5"], CHANGES)], "--before": [(SPEC, ["--before"], CHANGES)],
        "--equivalence": [(SPEC, ["--equivalence", "gaussian"], REFUSED),
                          (SPECL, ["--equivalence", "gaussian"], REFUSED),
                          (SPECLC, ["--equivalence", "gaussian"], CHANGES, SLOW)],
        "--width": [(SPEC, ["--width", "100"], REFUSED), (SPECL, ["--width", "100"], CHANGES)],
        "--d": [(SPEC, ["--d", "100"], REFUSED), (SPECL, ["--d", "100"], CHANGES)],
        "--x": [(SPEC, ["--x", "0:5:11"], REFUSED)],
        "--points": [(SPEC, ["--points", "21"], CHANGES)],
        "--types": [(SPEC, ["--types", "4"], REFUSED), (SPECL, ["--types", "5"], CHANGES)],
        "--kappa-nodes": [(SPEC, ["--kappa-nodes", "10"], REFUSED), (SPECL, ["--kappa-nodes", "10"], REFUSED),
                          (SPECLC, ["--kappa-nodes", "10"], CHANGES, SLOW)],
    },
    "activation": {
        "SPEC": [(["activation", "relu", *S], [], CHANGES, ACT)],
        "--center": [(["activation", "relu", *S], ["--no-center"], CHANGES)],
        "--method": [(["activation", "x**2 + x", *S], ["--method", "mpmath"], CHANGES)],
    },
    "derive": {
        "SYSTEM": [(["derive", "--list"], ["rf_ridge_traces"], REFUSED)],
        "--latex": [(DER, ["--latex"], CHANGES)], "--list": [(DER, ["--list"], REFUSED)],
        "--pencil": [(DER, ["--no-pencil"], CHANGES), (DEX, ["--no-pencil"], REFUSED)],
        "--full": [(DER, ["--full"], CHANGES), (DEX, ["--full"], REFUSED)],
        "--expr": [(DER, ["--expr", "tr(X)"], REFUSED)],
        **{o: [(DER, [o, v], REFUSED)] for o, v in (("--dims", "X:n,n"), ("--ratios", "n/d=2"), ("--at", "lam=1"),
                                                       ("--student", "tanh"), ("--entries", "scaled"),
                                                       ("--branch", "grid"))},
        "--at": [(DER, ["--at", "lam=1"], REFUSED), (DEX, ["--at", "lam=0.5"], CHANGES)],
        "--student": [(DER, ["--student", "tanh"], REFUSED), (DEX, ["--student", "erf"], REFUSED),
                      (["derive", "--expr", "tr(inv(X@X.T/d + mu1*lam*I))", "--dims", "X:n,d", "--ratios", "n/d=2",
                        "--at", "lam=0.5", *S, "--student", "tanh"], ["--student", "erf"], CHANGES)],
        "--center": [(DEX, ["--no-center"], REFUSED)],
        "--entries": [(["derive", "--expr", "tr(inv(X@X.T + lam*I))", "--dims", "X:n,d", "--ratios", "n/d=2", "--at",
                        "lam=0.5", *S, "--entries", "scaled"], [], CHANGES, DEX + ["--at", "lam=0.5", *S])],
        "--branch": [(DEX, ["--branch", "grid"], REFUSED), (DEX + ["--at", "lam=0.5,1"], ["--branch", "grid"], CHANGES)],
    },
    "simulate": {
        "--protocol": [(SIM, ["--protocol", "cui"], CHANGES)], "--student": [(SIM, ["--student", "erf"], CHANGES)],
        "--teacher": [(SIM, ["--teacher", "erf"], CHANGES)],
        "--center": [(SIM + ["--student", "relu"], ["--no-center"], CHANGES)],
        "--d": [(SIM, ["--d", "14"], CHANGES)],
        **{f"--{g}": [(SIM, [f"--{g}", v], CHANGES), (SIMC, [f"--{g}", v], REFUSED)]
           for g, v in (("psi1", "3"), ("psi2", "2"), ("eta", "2"), ("eta-exponent", "0.5"))},
        **{f"--{g}": [(SIM, [f"--{g}", v], REFUSED), (SIMC, [f"--{g}", v], CHANGES)]
           for g, v in (("alpha", "2"), ("alpha0", "2"), ("beta", "2"), ("eta-tilde", "2"), ("readout", "0.5,1.5"))},
        **{f"--{g}": [(SIM, [f"--{g}", v], REFUSED), (SIMS, [f"--{g}", v], CHANGES)]
           for g, v in (("c", "2"), ("r", "1"), ("gamma", "0.5"), ("self-term", "0.5"))},
        "--lam": [(SIM, ["--lam", "0.1"], CHANGES)], "--noise": [(SIM, ["--noise", "0.5"], CHANGES)],
        "--steps": [(SIM, ["--steps", "2"], CHANGES), (SIMS, ["--steps", "2"], REFUSED)],
        "--features": [(SIM, ["--features", "ge"], CHANGES)], "--gradient": [(SIM, ["--gradient", "rank1"], CHANGES)],
        "--batches": [(SIM + ["--steps", "2"], ["--batches", "fresh"], CHANGES),
                      (SIMS, ["--batches", "fresh"], REFUSED)],
        "--initial-columns": [(SIM, ["--initial-columns", "unit"], CHANGES)],
        "--measure": [(SIM, ["--measure", "spike"], CHANGES)],
        **{o: [(SIM, a, REFUSED), (SIMSP, a2, CHANGES)]
           for o, a, a2 in (("--matrix", ["--matrix", "ck"], ["--matrix", "ck"]),
                            ("--ck-features", ["--ck-features", "ge"], ["--ck-features", "ge"]),
                            ("--before", ["--before"], ["--before"]), ("--top", ["--top", "2"], ["--top", "2"]),
                            ("--bins", ["--bins", "0:5:10"], ["--bins", "0:5:10"]))},
        "--eigenvalues": [(SIM, ["--eigenvalues"], REFUSED), (SIMSP + ["--bins", "0:5:10"], ["--eigenvalues"], CHANGES)],
        "--n-test": [(SIM, ["--n-test", "500"], REFUSED),
                     (SIM + ["--test-risk", "monte-carlo"], ["--n-test", "500"], CHANGES)],
        "--test-risk": [(SIM, ["--test-risk", "monte-carlo"], CHANGES)],
        "--risk-rtol": [(SIM, ["--risk-rtol", "1e-3"], CHANGES),
                        (SIM + ["--test-risk", "monte-carlo"], ["--risk-rtol", "1e-3"], REFUSED)],
        "--seeds": [(SIM, ["--seeds", "3"], CHANGES)], "--seed": [(SIM, ["--seed", "1"], CHANGES)],
        "--per-seed": [(SIM, ["--per-seed"], CHANGES)],
        "--max-memory": [(SIM, ["--max-memory", "1KiB"], REFUSED)],
    },
    "validate": {
        "--quick": [(VAL, ["--quick"], CHANGES)], "--case": [(VAL, ["--case", "spiked-rf-table-tanh"], CHANGES)],
        "--family": [(VAL, ["--family", "one_step"], CHANGES)], "--seed": [(VAL, ["--seed", "3"], REFUSED)],
        "--finite-size": [(VAL, ["--finite-size"], CHANGES)],
        "--full": [(VAL, ["--full"], REFUSED)],
    },
    "sweep": {
        "CONFIG": [(["sweep", "{tmp}/sweep2.toml", "--dry-run"], [], CHANGES, SWP)],
        "--scheduler": [(SWP, ["--scheduler", "processes:2"], CHANGES)],
        "--max-memory": [(SWP, ["--max-memory", "3GiB"], CHANGES)],
        "--list-quantities": [(SWP, ["--list-quantities"], REFUSED)],
    },
    "table": {
        "RESULT_FILE": [(["table", "{tmp}/result2.json"], [], CHANGES, TAB)],
        "--to": [(TAB, ["--to", "latex"], CHANGES)], "--columns": [(TAB, ["--columns", "psi1,risk1"], CHANGES)],
        "--precision": [(TAB, ["--precision", "2"], CHANGES)],
        "--caption": [(TAB + ["--to", "latex"], ["--caption", "Risks"], CHANGES), (TAB, ["--caption", "Risks"], CHANGES)],
        "--label": [(TAB + ["--to", "latex"], ["--label", "tab:r"], CHANGES), (TAB, ["--label", "tab:r"], REFUSED)],
        "--raw-headers": [(TAB, ["--raw-headers"], CHANGES)],
        "--no-merge-se": [(["table", "{tmp}/sim.json"], ["--no-merge-se"], CHANGES)],
        "--tabular-only": [(TAB + ["--to", "latex"], ["--tabular-only"], CHANGES), (TAB, ["--tabular-only"], REFUSED)],
    },
    "figure": {
        "NAME": [(FIG, ["tab_srf_grid"], REFUSED)],
        **{o: [(FIG, a, REFUSED)] for o, a in (("--list", ["--seed", "3"]), ("--seed", ["--seed", "3"]),
                                              ("--workers", ["--workers", "2"]), ("--no-cache", ["--no-cache"]),
                                              ("--quick", ["--quick"]), ("--full", ["--full"]),
                                              ("--size", ["--size", "toy"]), ("--cache-dir", ["--cache-dir", "{tmp}"]),
                                              ("--out", ["--out", "{tmp}/f"]), ("--no-progress", ["--no-progress"]))},
    },
    "sweep-extra": {},
}
PROBES.pop("sweep-extra")


def _options(cmd) -> list[str]:
    names = []
    for p in cmd.params:
        if getattr(p, "param_type_name", "") == "option":
            names.append([o for o in p.opts if o.startswith("--")][0])
        else:
            names.append((p.name or "").upper())
    return names


def _classified(name: str, option: str) -> bool:
    return (option in OUTPUT_ONLY or option in EXECUTION_ONLY or option in ON_FAILURE_ONLY or (name, option) in NOT_WALKED
            or (name, "*") in NOT_WALKED or option in PROBES.get(name, {}))


def test_every_option_is_classified():
    """A new option (or command) must be probed here or listed, with its reason."""
    missing = [f"{name} {opt}" for name, cmd in cli_commands() for opt in _options(cmd)
               if not _classified(name, opt)]
    assert not missing, "options neither probed nor listed as output-only/execution-only/not walked: " + \
        ", ".join(missing)


def _param(name, opt, i, probe):
    marks = [p for p in probe[3:] if isinstance(p, type(SLOW))]
    probe = tuple(p for p in probe if not isinstance(p, type(SLOW)))
    return pytest.param(name, opt, i, probe, marks=marks, id=f"{name} {opt} {i}")


_CASES = [_param(name, opt, i, probe) for name, opts in PROBES.items() for opt, probes in opts.items()
          for i, probe in enumerate(probes)]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("walk")
    cwd = os.getcwd()
    os.chdir(tmp)
    assert main(["theory", "risk", "--psi1", "1,2", "--format", "json", "--out", str(tmp / "result.json")]) == 0
    assert main(["theory", "risk", "--psi1", "1,3", "--format", "json", "--out", str(tmp / "result2.json")]) == 0
    assert main(["simulate", "--d", "12", "--seeds", "2", "--measure", "risk", "--format", "json",
                 "--out", str(tmp / "sim.json")]) == 0
    for name, acts in (("sweep", '["tanh", "erf"]'), ("sweep2", '["tanh"]')):
        (tmp / f"{name}.toml").write_text(f'name = "{name}"\nquantity = "gaussian.moments"\n'
                                          f'out = "{tmp / name}.sweep"\n[grid]\nactivation = {acts}\n')
    yield tmp
    os.chdir(cwd)


_BASE_RUNS: dict[tuple, tuple[int, str, str]] = {}


def _run_base(argv: list[str], tmp: Path) -> tuple[int, str, str]:
    """A base run, once per distinct argv (several probes share a base)."""
    key = tuple(argv)
    if key not in _BASE_RUNS:
        _BASE_RUNS[key] = _run(argv, tmp)
    return _BASE_RUNS[key]


def _run(argv: list[str], tmp: Path) -> tuple[int, str, str]:
    argv = [a.replace("{tmp}", str(tmp)) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _wall_clock_free(text: str) -> str:
    """The output without the wall-clock and version fields that differ between two identical runs."""
    import re

    return re.sub(r'"(elapsed_s|created|timestamp|seconds|time_s|run_s|total_s|[a-z_]*_s)": [^,}\n]*', "", text)


@pytest.mark.parametrize("name, option, i, probe", _CASES)
def test_option_is_used_or_refused(name, option, i, probe, tmp):
    base, extra, expected, *other = probe  # other: the run to compare with (default: base without extra)
    rc, out, err = _run(base + extra, tmp)
    if expected == REFUSED:
        lines = [line for line in err.splitlines() if line.strip()]
        flag = next((a for a in extra if a.startswith("--")), option)
        assert rc == 2 and len(lines) == 1 and lines[0].startswith("error: "), (rc, err[-1500:])
        assert flag in lines[0] or option in lines[0], lines[0]
        return
    assert rc == 0, (rc, err[-1500:])
    rc0, out0, err0 = _run_base(other[0] if other else base, tmp)
    assert rc0 == 0, (rc0, err0[-1500:])
    assert _wall_clock_free(out) != _wall_clock_free(out0), f"{name} {' '.join(extra)} changes nothing: ignored"
