"""A sample of bad command lines, each run as a subprocess of the installed ``asymptotics``
entry point (the whole corpus runs in-process: ``test_bad_input_corpus.py``): every one must
exit with status 2 within seconds, print nothing on stdout and exactly one line on stderr that
names the parameter (or activation), the value and what is valid — no traceback, no hang, no
number.

The cases run in a thread pool (each is a separate process); the whole file takes about
``len(CASES) × 1.2 s`` of CPU (most cases stop before the theory or sympy is imported). Each case's own CPU time is measured (``os.wait4``) and must
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
#: activation, the value, what is valid). ``{tmp}`` is an existing temporary folder. A sample of
#: each kind of error: the whole corpus (hundreds of cases, the API too) runs in-process in
#: ``test_bad_input_corpus.py`` (``tests/bad_inputs/corpus.toml``); here the installed entry point.
CASES: list[tuple[str, tuple[str, ...]]] = [
    ("theory risk --bogus 1", ("--bogus", "valid options", "--psi1")),
    ("simulate --seeds abc", ("--seeds", "'abc'", "an integer")),
    ("frobnicate", ("'frobnicate'", "valid commands", "simulate")),
    ("activation __import__('os').system('true')", ("SPEC", "dunder")),
    ("theory risk --psi1 nan", ("psi1", "nan", "not finite")),
    ("theory limits --psi1 7", ("--psi1", "omitted with --limit psi1-inf")),
    ("theory tau-star --out {tmp}", ("--out", "{tmp}", "not a directory")),
    ("simulate --d 10000000", ("d = 10000000", "needs about", "--max-memory")),
    ("derive --expr __import__('os') --dims W:d,N", ("--expr", "__import__")),
    ("reproduce --seed -1 --only tab_srf_grid", ("--seed", ">= 0")),
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


def test_sample_is_distinct():
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
