"""A corpus of bad command lines, each run as a subprocess of the installed ``asymptotics``
entry point: every one must exit with status 2 within seconds, print nothing on stdout and
exactly one line on stderr that names the parameter (or activation), the value and what is
valid — no traceback, no hang, no number.

The cases run in a thread pool (each is a separate process); the whole file takes about
``len(CASES) × 1.2 s`` of CPU (most cases stop before the theory or sympy is imported), so
under a minute on two idle cores. Each case's own CPU time is measured (``os.wait4``) and must
stay below :data:`CPU_LIMIT_S`, which a loaded machine does not change.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

#: Per case: the arguments, and the fragments its one stderr line must contain (the parameter or
#: activation, the value, what is valid). ``{tmp}`` is an existing temporary folder.
CASES: list[tuple[str, tuple[str, ...]]] = [
    # --- usage errors (typer/click) -------------------------------------------------------------
    ("theory risk --bogus 1", ("--bogus", "valid options", "--psi1")),
    ("theory large-step", ("missing --psi1", "ψ1 = n/d")),
    ("simulate --seeds abc", ("--seeds", "'abc'", "an integer")),
    ("frobnicate", ("'frobnicate'", "valid commands", "simulate")),
    ("theory frob", ("'frob'", "valid commands", "tau-star")),
    ("theory risk --psi1", ("--psi1", "needs a value")),
    ("theory risk extra", ("'extra'", "unexpected")),
    ("activation", ("missing SPEC", "built-in name")),
    ("reproduce --workers 0", ("--workers", "'0'", "greater than or equal to 1")),
    # --- activations ------------------------------------------------------------------------------
    ("activation 9**9**9**9", ("SPEC", "9**9**9**9", "magnitude <= 1e+300")),
    ("activation exp(x**2/4)", ("SPEC", "exp(x**2/4)", "E σ(z)² is infinite")),
    ("activation exp(x**2)", ("SPEC", "exp(x**2)", "E σ(z)² is infinite")),
    ("activation 1/x", ("SPEC", "1/x", "not square-integrable near x = 0")),
    ("theory risk --student 1/x", ("--student", "1/x", "finite Gaussian moments")),
    ("activation log(x)", ("SPEC", "log(x)", "not real-valued")),
    ("activation tan(x)", ("SPEC", "tan(x)", "infinitely many points")),
    ("activation log(abs(x))", ("SPEC", "log(abs(x))", "E σ'(z)² is infinite")),
    ("activation x**200", ("SPEC", "x**200", "exceeds 100")),
    ("activation __import__('os').system('true')", ("SPEC", "dunder")),
    ("theory alignment --teacher foo(x)", ("--teacher", "foo", "allowed")),
    ("activation " + "x+" * 20000 + "x", ("SPEC", "longer than 500 characters")),
    ("activation 3", ("SPEC", "must depend on x")),
    ("activation tanh --method fast", ("--method", "'fast'", "auto, float64, mpmath")),
    # --- grid syntax ------------------------------------------------------------------------------
    ("theory risk --psi1 1,,2", ("psi1", "'1,,2'", "empty item")),
    ("theory risk --psi1 1,2,", ("psi1", "'1,2,'", "empty item")),
    ("theory risk --psi1 0:1", ("psi1", "'0:1'", "start:stop:num")),
    ("theory risk --psi1 log:0:1:3", ("psi1", "log:0:1:3", "positive ends")),
    ("theory risk --psi1 1:2:0", ("psi1 (number of points)", "0", "[1, 1000000]")),
    ("theory risk --psi1 1:2:abc", ("psi1 (number of points)", "'abc'", "an integer")),
    ("theory risk --psi1 nan", ("psi1", "nan", "not finite")),
    ("theory risk --psi1 inf", ("psi1", "inf", "not finite")),
    ("theory risk --psi1 two", ("psi1", "'two'", "a number")),
    ("theory alignment --eta 0:10:10000000", ("eta (number of points)", "10000000", "[1, 1000000]")),
    # --- output -----------------------------------------------------------------------------------
    ("theory tau-star --out {tmp}", ("--out", "{tmp}", "not a directory")),
    ("theory risk --out /nonexistent/dir/x.json", ("--out", "/nonexistent/dir/x.json", "existing directory")),
    ("theory risk --format xml", ("--format", "'xml'", "table, csv, json, parquet")),
    ("theory risk --format parquet", ("--format", "'parquet'", "--out FILE")),
    ("theory risk --psi1 2 --columns bogus", ("--columns", "'bogus'", "risk0")),
    ("theory risk --psi1 2 --columns psi1,,risk0", ("--columns", "psi1,,risk0", "empty item")),
    # --- one-step theory --------------------------------------------------------------------------
    ("theory risk --psi2 -1", ("psi2", "-1.0", "> 0")),
    ("theory risk --lam -0.1", ("lam", "-0.1", ">= 0")),
    ("theory risk --eta -1", ("eta", "-1.0", ">= 0")),
    ("theory risk --noise -1", ("noise", "-1.0", ">= 0")),
    ("theory risk --route Z", ("--route", "'Z'", "A, B, C")),
    ("theory limits --limit psi3-inf", ("--limit", "'psi3-inf'", "psi1-inf or psi2-inf")),
    ("theory ck-spike --psi1 0", ("psi1", "0.0", "> 0")),
    # --- spiked RF --------------------------------------------------------------------------------
    ("theory srf --alpha -1 --alpha0 1 --eta-tilde 1", ("alpha", "-1.0", "> 0")),
    ("theory srf --alpha 1 --alpha0 1", ("--eta-tilde/--alpha0", "None", "both given")),
    ("theory srf --alpha 1 --c 1 --r 1 --gamma 2", ("gamma", "2.0", "[-1.0, 1.0]")),
    ("theory srf --alpha 1 --alpha0 1 --eta-tilde 1 --tol 0", ("--tol", "0.0", "[1e-16, 1)")),
    ("theory srf --alpha 1:3:100000 --alpha0 1 --eta-tilde 1", ("grid", "100000", "at most 20000 points")),
    ("theory srf --alpha 1 --alpha0 1 --eta-tilde 1 --finite-d 10000000", ("--finite-d 10000000", "needs about", "--max-memory")),
    ("theory srf --alpha 1 --alpha0 -1 --eta-tilde 1", ("alpha0", "-1.0", "> 0")),
    # --- large step -------------------------------------------------------------------------------
    ("theory tau-star --student-scale 1e300", ("student_scale", "1e+300", "[0.001, 1000.0]")),
    ("theory tau-star --teacher-scale 0", ("teacher_scale", "0.0", "> 0")),
    ("theory tau-star --method fast", ("--method", "'fast'", "auto, closed, compiled, mpmath")),
    ("theory tau-star --dps 5", ("--dps", "5", "[10, 200]")),
    ("theory bounds --psi1 0", ("psi1", "0.0", "> 0")),
    ("theory bounds --constant nan", ("--constant", "nan", ">= 0 and finite")),
    ("theory large-step --psi1 8 --width 0", ("--width", "'0'", "N >= 1 or inf")),
    ("theory large-step --psi1 8 --width inf,,2000", ("--width", "inf,,2000", "empty item")),
    ("theory large-step --psi1 8 --readout uniform", ("--readout", "'uniform'", "hermite, quantile or given")),
    ("theory large-step --psi1 8 --c -1", ("c", "-1.0", ">= 0")),
    ("theory large-step --psi1 8 --types 0", ("--types", "0", "[1, 4096]")),
    ("theory large-step --psi1 8 --kappa-nodes 2", ("--kappa-nodes", "2", "[8, 1000]")),
    # --- simulate ---------------------------------------------------------------------------------
    ("simulate --d 20000 --seeds 2 --max-memory 4GiB", ("d = 20000", "needs about", "limit 4.00 GiB; --max-memory")),
    ("simulate --d 10000000", ("d = 10000000", "needs about", "--max-memory")),
    ("simulate --seeds 100000000", ("--seeds", "100000000", "[1, 100000]")),
    ("simulate --n-test 1000000000", ("--n-test", "1000000000", "[2, 10000000]")),
    ("simulate --d 1", ("d", "1.0", "an integer >= 2")),
    ("simulate --d 100.5", ("d", "100.5", "an integer >= 2")),
    ("simulate --protocol xyz", ("--protocol", "'xyz'", "ba, cui, srf")),
    ("simulate --protocol ba --alpha 2", ("--alpha", "'2'", "omitted with --protocol ba")),
    ("simulate --psi1 0", ("psi1", "0.0", "> 0")),
    ("simulate --workers 0", ("--workers", "0", "[1, 1024]")),
    ("simulate --max-memory lots", ("--max-memory", "'lots'", "8GiB")),
    ("simulate --d 10 --seeds 1 --features fake", ("features", "'fake'", "true, ge")),
    # --- validate and the rest --------------------------------------------------------------------
    ("validate --family bogus", ("--family", "'bogus'", "one_step")),
    ("validate --workers 0", ("--workers", "'0'", "greater than or equal to 1")),
    ("derive bogus", ("system", "'bogus'", "rf_ridge")),
    ("table /nonexistent.json", ("RESULT_FILE", "/nonexistent.json", "existing")),
    ("reproduce --size huge", ("--size", "'huge'", "quick")),
]

#: The most CPU seconds one case may take ("within a few seconds" on an idle core).
CPU_LIMIT_S = 8.0
#: A case still running after this many seconds of wall time hangs.
WALL_LIMIT_S = 180.0


def _entry_point() -> str:
    exe = Path(sys.executable).with_name("asymptotics")
    return str(exe) if exe.exists() else (shutil.which("asymptotics") or "asymptotics")


def _run(argv: list[str], env: dict, cwd: str) -> dict:
    t0 = time.monotonic()
    p = subprocess.Popen([_entry_point(), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        p.kill()

    timer = threading.Timer(WALL_LIMIT_S, kill)
    timer.start()
    chunks: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda k=k, f=f: chunks.__setitem__(k, f.read()))
               for k, f in (("out", p.stdout), ("err", p.stderr))]
    for r in readers:
        r.start()
    cpu = None
    if hasattr(os, "wait4"):
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
    else:  # pragma: no cover
        p.wait()
    timer.cancel()
    for r in readers:
        r.join()
    return {"rc": p.returncode, "out": chunks["out"].decode(errors="replace"),
            "err": chunks["err"].decode(errors="replace"), "cpu": cpu, "wall": time.monotonic() - t0,
            "timed_out": timed_out.is_set()}


@pytest.fixture(scope="module")
def outcomes():
    tmp = tempfile.mkdtemp(prefix="bad-inputs-")
    env = dict(os.environ, COLUMNS="100", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    workers = max(2, min(6, (os.cpu_count() or 2) + 1))
    t0 = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        futures = {args: pool.submit(_run, shlex.split(args.format(tmp=tmp)), env, tmp) for args, _ in CASES}
        results = {args: f.result() for args, f in futures.items()}
    results["__wall__"] = time.monotonic() - t0
    results["__tmp__"] = tmp
    yield results
    shutil.rmtree(tmp, ignore_errors=True)


def test_corpus_is_large_and_distinct():
    assert len(CASES) >= 40
    assert len({a for a, _ in CASES}) == len(CASES)


@pytest.mark.parametrize("args, fragments", CASES, ids=[a[:60] for a, _ in CASES])
def test_bad_input_is_one_clear_line(args, fragments, outcomes):
    r = outcomes[args]
    tmp = outcomes["__tmp__"]
    assert not r["timed_out"], f"{args!r} still running after {WALL_LIMIT_S} s"
    lines = [line for line in r["err"].splitlines() if line.strip()]
    assert r["rc"] == 2, (r["rc"], r["err"][-2000:])
    assert r["out"] == "", r["out"][:500]
    assert "Traceback" not in r["err"], r["err"][-3000:]
    assert len(lines) == 1, r["err"][-3000:]
    line = lines[0]
    assert line.startswith("error: ") and len(line) < 700, line
    for frag in fragments:
        assert frag.format(tmp=tmp) in line, (frag, line)
    if r["cpu"] is not None:
        assert r["cpu"] < CPU_LIMIT_S, f"{args!r} used {r['cpu']:.1f} s of CPU"
