"""Warm wall time of typical ``asymptotics`` command-line calls (issue 15: a theory call ≤ 0.7 s).

Each command is run once to fill the caches (generated modules, numba machine code, Gaussian
constants), then ``--repeat`` times; the table gives the median and the range, in seconds. With
``--baseline PATH`` every command is also run from another checkout (``PYTHONPATH=PATH``, its
own working directory), interleaved with this one so both see the same load, and the ratio is
reported::

    python benchmarks/bench_cli.py --repeat 5 --out benchmarks/results/cli.md
    python benchmarks/bench_cli.py --baseline /path/to/main --repeat 5

Timings on a shared machine are noisy: compare ratios taken in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = {
    "theory risk": "theory risk --student tanh --teacher tanh --psi1 2 --psi2 1.5 --lam 1e-3 --eta 3",
    "theory alignment": "theory alignment --student tanh --teacher tanh --psi1 2 --psi2 1.5 --eta 3",
    "theory srf (one point)": "theory srf --student tanh --teacher tanh --alpha 2 --alpha0 1 --eta-tilde 3",
    "theory tau-star": "theory tau-star --student tanh --teacher tanh",
    "activation tanh": "activation tanh",
    "--help": "--help",
    "simulate (d=200)": "simulate --protocol ba --student tanh --teacher tanh --d 200 --psi1 2 --psi2 1.5 --eta 5 "
    "--seeds 2 --seed 7",
    "python -c 'import numba'": None,
}


def _time(tree: Path, cmd: str | None, cache: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), ASYMPTOTICS_CACHE_DIR=str(cache), COLUMNS="120")
    argv = (
        [sys.executable, "-c", "import numba"]
        if cmd is None
        else [sys.executable, "-m", "asymptotics", *cmd.split()]
    )
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} (in {tree}): exit {p.returncode}\n{p.stderr[-2000:]}")
    return dt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout to time beside this one")
    ap.add_argument(
        "--cache", type=Path, default=None, help="cache directory (default: $ASYMPTOTICS_CACHE_DIR, else a folder in the temporary directory)"
    )
    ap.add_argument("--only", default=None, help="comma list of command labels")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    args = ap.parse_args(argv)
    cache = args.cache or Path(os.environ.get("ASYMPTOTICS_CACHE_DIR", Path(tempfile.gettempdir()) / "asymptotics-bench-cli"))
    trees = [("this", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    labels = [k for k in COMMANDS if args.only is None or k in args.only.split(",")]
    rows = []
    for label in labels:
        cmd = COMMANDS[label]
        times: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _, tree in trees:  # warm-up: fill the caches
            _time(tree, cmd, cache)
        for _ in range(args.repeat):
            for name, tree in trees:
                times[name].append(_time(tree, cmd, cache))
        row = [label]
        for name, _ in trees:
            t = times[name]
            row.append(f"{statistics.median(t):.2f} ({min(t):.2f}–{max(t):.2f})")
        if args.baseline:
            row.append(f"{statistics.median(times['this']) / statistics.median(times['baseline']):.2f}")
        rows.append(row)
        print(" | ".join(row), file=sys.stderr)
    head = ["command", "this tree, s median (range)"]
    if args.baseline:
        head += ["baseline, s median (range)", "ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]
    text = (
        f"Warm `asymptotics` calls, {args.repeat} repetitions, {os.cpu_count()} cores.\n\n"
        + "\n".join(lines)
        + "\n"
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
