"""Benchmark of the simulator (``validation.simulator``) against a plain-numpy implementation of the
same protocol, timed in the same run, and the checks of its exact population risk at scale.

Sections (each in fresh subprocesses, under ``nice`` when run as documented; the load average is
reported because the reference machine is shared):

* ``speed`` — Ba et al. protocol, tanh/tanh, ψ1 = ψ2 = 1, η = 1, λ = 1e-3, σ_ε = 0.1, R0/R1/δ only,
  at d = 1000, 2000, 4000 (``--sizes``) over ``--seeds`` seeds: the plain-numpy version (the way
  a researcher writes it: default_rng, materialised arrays, ``np.linalg.inv``, a Monte-Carlo
  test set of n_test = 10⁴ points) and the simulator (default: exact population risk, threads
  by problem size), alternating seed by seed; time per seed (median), the ratio, and the
  seed-to-seed mean ± s.e. of δ of each;
* ``big`` — one seed at d = 8000 (``--big-d``), ψ1 = ψ2 = 1: wall time and peak resident memory
  (``resource.getrusage`` of the child) against :func:`validation.simulator.config.memory_estimate`;
* ``threads`` — the thread-choice table: d = 150, 500, 2000, 8000 (``--thread-sizes``) with the
  default choice, one thread in this process, all cores in this process, and one worker process
  per core;
* ``exactness`` — the exact risk against the Monte-Carlo risk of the same trained network with
  n_test = 10⁶ at d = 300 for every activation pair of the validation cases, both protocols, the
  sRF model, true and Gaussian-equivalent features (the slow test of
  tests/test_simulator_population.py): the largest |z| and the largest truncation bound.

Run: ``nice python benchmarks/bench_simulator.py [--sections speed,big,threads,exactness]
[--out benchmarks/results/simulator.md]``. The default runs every section in one command and one
file: ≈ 20 min on the shared two-core machine at load average 2–3 (measured per section: speed
≈ 4.5 min with 10/8/3 seeds, big ≈ 3.5, threads ≈ 4.5 of which 3 for d = 8000 on one thread,
exactness ≈ 9 on both cores), less when idle. On a loaded machine leave out ``nice``: a niced process is starved there (measured:
the d = 1000 speed row took 370 s at load average 9 instead of ≈ 20 s).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, OPENBLAS_THREAD_TIMEOUT="4")


# ---- the plain-numpy reference implementation ------------------------------------------------------------
def plain_ba(d, psi1=1.0, psi2=1.0, eta=1.0, lam=1e-3, noise=0.1, n_test=10_000, seed=0):
    """Ba et al.'s protocol as a researcher writes it (tanh student and teacher): R0, R1, δ."""
    rng = np.random.default_rng(seed)
    n, N = int(round(psi1 * d)), int(round(psi2 * d))
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    W0 = rng.standard_normal((d, N)) / np.sqrt(d)
    a = rng.standard_normal(N) / np.sqrt(N)
    X = rng.standard_normal((n, d))
    y = np.tanh(X @ beta) + noise * rng.standard_normal(n)
    Z = X @ W0
    f0 = np.tanh(Z) @ a / np.sqrt(N)
    G0 = X.T @ (np.outer(y - f0, a) / np.sqrt(N) * (1 - np.tanh(Z) ** 2)) / n
    W1 = W0 + eta * np.sqrt(N) * G0
    Xr = rng.standard_normal((n, d))
    yr = np.tanh(Xr @ beta) + noise * rng.standard_normal(n)
    Xt = rng.standard_normal((n_test, d))
    ft = np.tanh(Xt @ beta)
    out, err = {}, {}
    for tag, W in (("0", W0), ("1", W1)):
        Phi = np.tanh(Xr @ W) / np.sqrt(N)
        ahat = np.linalg.inv(Phi.T @ Phi + lam * n / N * np.eye(N)) @ (Phi.T @ yr)
        pred = np.tanh(Xt @ W) @ ahat / np.sqrt(N)
        err[tag] = (pred - ft) ** 2
        out["risk" + tag] = float(np.mean(err[tag]))
    out["delta"] = out["risk0"] - out["risk1"]
    out["delta_test_se"] = float(np.std(err["0"] - err["1"], ddof=1) / np.sqrt(n_test))  # the test-set part
    return out


# ---- children (each section runs in a fresh process) -------------------------------------------------------
def child_speed(d: int, seeds: int) -> dict:
    import warnings

    from validation.simulator import BaConfig, simulate

    warnings.simplefilter("ignore")
    cfg = BaConfig(d=d, psi1=1.0, psi2=1.0, eta=1.0, lam=1e-3, noise=0.1, measure=("risk",))
    simulate(BaConfig(d=100, measure=("risk",)), seeds=1)  # load the compiled kernels
    rec = {"d": d, "plain_s": [], "sim_s": [], "plain_delta": [], "sim_delta": [], "plain_test_se": [], "threads": None}
    for k in range(seeds):
        t = time.perf_counter()
        marks = [("start", 0.0)]
        res = simulate(cfg, seeds=[k], on_stage=lambda i, j, name, m=marks, t0=t: m.append((name, time.perf_counter() - t0)))
        rec["sim_s"].append(time.perf_counter() - t)
        marks.append(("end", rec["sim_s"][-1]))
        phases = {a[0]: b[1] - a[1] for a, b in zip(marks, marks[1:], strict=False)}
        for name, v in phases.items():  # per-phase medians: drawing W₀ (start), first layer, readout, risk
            rec.setdefault("phases", {}).setdefault(name, []).append(v)
        rec["sim_delta"].append(res.per_seed[0]["delta"])
        rec["threads"] = res.meta["threads_per_task"]
        rec["bound"] = max(rec.get("bound", 0.0), res.meta["risk_bound_max"])
        t = time.perf_counter()
        pl = plain_ba(d, seed=k)
        rec["plain_s"].append(time.perf_counter() - t)
        rec["plain_delta"].append(pl["delta"])
        rec["plain_test_se"].append(pl["delta_test_se"])
    return rec


def child_big(d: int) -> dict:
    import resource
    import warnings

    from validation.simulator import BaConfig, simulate
    from validation.simulator.config import memory_estimate

    warnings.simplefilter("ignore")
    cfg = BaConfig(d=d, psi1=1.0, psi2=1.0, eta=1.0, lam=1e-3, noise=0.1, measure=("risk",))
    stages = []
    t = time.perf_counter()
    res = simulate(cfg, seeds=1, on_stage=lambda i, k, s: stages.append((s, round(time.perf_counter() - t, 1))))
    el = time.perf_counter() - t
    ps = res.per_seed[0]
    return {
        "d": d, "elapsed_s": el, "maxrss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "estimate_bytes": memory_estimate(cfg), "stages": stages, "threads": res.meta["threads_per_task"],
        "risk0": ps["risk0"], "risk1": ps["risk1"], "delta": ps["delta"], "bound": res.meta["risk_bound_max"],
        "orders": [ps["hermite_orders0"], ps["hermite_orders1"]], "rho_max": [ps["rho_max0"], ps["rho_max1"]],
    }  # fmt: skip


def child_threads(d: int, seeds: int, mode: str) -> dict:
    import warnings

    from validation.simulator import BaConfig, simulate

    warnings.simplefilter("ignore")
    cfg = BaConfig(d=d, psi1=1.0, psi2=1.0, eta=1.0, lam=1e-3, noise=0.1, measure=("risk",))
    simulate(BaConfig(d=60, measure=("risk",)), seeds=1, blas_threads=1)
    cores = len(os.sched_getaffinity(0))
    kw = {"default": {}, "1 thread": {"blas_threads": 1, "workers": 1},
          "all cores": {"blas_threads": cores, "workers": 1}, "processes": {"workers": cores, "blas_threads": 1}}[mode]  # fmt: skip
    t = time.perf_counter()
    res = simulate(cfg, seeds=seeds, **kw)
    return {"d": d, "seeds": seeds, "mode": mode, "elapsed_s": time.perf_counter() - t,
            "workers": res.meta["workers"], "threads": res.meta["threads_per_task"]}  # fmt: skip


def child_exactness(d: int, n_test: int) -> dict:
    """Every network of the slow test, exact and Monte-Carlo, one task per network on every core
    (``blas_threads=1`` per task: the numbers of the test, bit for bit)."""
    import warnings

    sys.path.insert(0, str(ROOT / "tests"))
    from test_simulator_population import PAIRS, _configs, _risk_names

    from validation.simulator import simulate_many
    from validation.simulator.population import teacher_moments

    warnings.simplefilter("ignore")
    cases = [(f"{st}/{te}", ["ba", "ba large step", "cui", "srf"][j], base.replace(features=features))
             for st, te in PAIRS for j, base in enumerate(_configs(st, te, d)) for features in ("true", "ge")]  # fmt: skip
    cfgs = [c for _, _, c in cases]
    workers = len(os.sched_getaffinity(0))
    t = time.perf_counter()
    exact = simulate_many(cfgs, seeds=1, root_seed=2, blas_threads=1, workers=workers)
    t_exact = time.perf_counter() - t
    mc = simulate_many([c.replace(test_risk="monte-carlo", n_test=n_test) for c in cfgs], seeds=1, root_seed=2,
                       blas_threads=1, workers=workers)  # fmt: skip
    rows = []
    for (pair, setting, cfg), er, mr in zip(cases, exact, mc, strict=True):
        ex, mcs = er.per_seed[0], mr.per_seed[0]
        assert ex["train_error"] == mcs["train_error"]  # the same trained network and readout
        energy = teacher_moments(cfg.teacher_activation())[2]
        bound = max((v for k, v in ex.items() if k.startswith("risk_bound")), default=0.0) / energy
        for name in _risk_names(cfg):
            se = mcs[f"{name}_test_se"]
            rows.append({"pair": pair, "setting": setting, "features": cfg.features, "name": name, "exact": ex[name],
                         "mc": mcs[name], "se": se, "z": (ex[name] - mcs[name]) / se, "bound_rel": bound})  # fmt: skip
    return {"d": d, "n_test": n_test, "rows": rows, "exact_s": t_exact, "total_s": time.perf_counter() - t,
            "workers": workers}  # fmt: skip


def run_child(*args: str) -> dict:
    cmd = [sys.executable, __file__, "--child", *args]
    t = time.time()
    proc = subprocess.run(cmd, env=ENV, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"benchmark child {args} failed")
    print(f"  {' '.join(args)}: {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- report --------------------------------------------------------------------------------------------------
def _mean_se(v):
    v = np.asarray(v, dtype=float)
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", default="speed,big,threads,exactness")
    ap.add_argument("--sizes", default="1000,2000,4000")
    ap.add_argument("--seeds", default="10,8,3", help="seeds per size of --sizes")
    ap.add_argument("--big-d", type=int, default=8000)
    ap.add_argument("--thread-sizes", default="150:16,500:8,2000:2,8000:1", help="d:seeds,…")
    ap.add_argument("--exact-d", type=int, default=300)
    ap.add_argument("--exact-n-test", type=int, default=1_000_000)
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "simulator.md"))
    args = ap.parse_args()
    if args.child is not None:
        kind, *rest = args.child
        fn = {"speed": child_speed, "big": child_big, "threads": child_threads, "exactness": child_exactness}[kind]
        vals = [int(r) if r.isdigit() else r for r in rest]
        print(json.dumps(fn(*vals)))
        return
    sections = args.sections.split(",")
    load0 = os.getloadavg()
    t_start = time.time()
    L = ["# Simulator: exact population risk, speed against plain numpy, memory, threads", ""]
    cores = len(os.sched_getaffinity(0))
    L.append(
        f"Machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, numpy {np.__version__} "
        "(OpenBLAS), OPENBLAS_THREAD_TIMEOUT=4 for every process. **The machine is shared with other sessions**: "
        "run under `nice`, load average reported per section; the times include competition for the cores."
    )
    L.append("")
    if "speed" in sections:
        sizes = [int(s) for s in args.sizes.split(",")]
        seeds = [int(s) for s in args.seeds.split(",")]
        L += ["## Ba et al. protocol: simulator (exact risk) against plain numpy (Monte-Carlo test set, n_test = 10⁴)", "",
              "tanh/tanh, ψ1 = ψ2 = 1, η = 1, λ = 1e-3, σ_ε = 0.1, R0/R1/δ only. Seeds alternate between the two "
              "implementations (same load for both); time per seed is the median; δ is mean ± seed-to-seed s.e. "
              "(different random numbers in the two implementations: they agree statistically). The s.e. of the plain δ "
              "contains the test-set part √(mean test_se²/seeds) (given), absent from the simulator's; with few seeds each "
              "s.e. is itself uncertain by ≈ 1/√(2(seeds − 1)).", "",
              "| d | seeds | plain numpy (s/seed) | simulator (s/seed) | speed-up | threads | δ plain | its test-set part | δ simulator | s.e. ratio plain/simulator | max truncation bound | load |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        phases = []
        for d, s in zip(sizes, seeds, strict=True):
            rec = run_child("speed", str(d), str(s))
            tp, ts = statistics.median(rec["plain_s"]), statistics.median(rec["sim_s"])
            mp_, sp_ = _mean_se(rec["plain_delta"])
            ms, ss = _mean_se(rec["sim_delta"])
            tpart = math.sqrt(np.mean(np.square(rec["plain_test_se"])) / s)
            L.append(f"| {d} | {s} | {tp:.2f} | {ts:.2f} | {tp / ts:.2f}× | {rec['threads']} | {mp_:.5f} ± {sp_:.5f} | "
                     f"{tpart:.5f} | {ms:.5f} ± {ss:.5f} | {sp_ / ss:.2f} | {rec['bound']:.1e} | {os.getloadavg()[0]:.1f} |")  # fmt: skip
            phases.append(f"d = {d}: " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in rec["phases"].items()))
        L += ["", "Simulator phases, median s per seed (`start`: β*, W₀, a drawn; `first layer`: the training set "
              "and the step; `readout`: the ridge set, features and both ridge fits; `risk`: the exact risks): "
              + "; ".join(phases) + ".", ""]  # fmt: skip
    big = None
    if "big" in sections:
        rec = big = run_child("big", str(args.big_d))
        L += [f"## One seed at d = {rec['d']} (ψ1 = ψ2 = 1: n = N = {rec['d']}), R0/R1/δ, exact risk", "",
              f"Wall time **{rec['elapsed_s']:.0f} s** with {rec['threads']} thread(s); peak resident memory "
              f"**{rec['maxrss_bytes'] / 2**30:.2f} GiB** (`getrusage`, whole process) against the pre-flight estimate "
              f"{rec['estimate_bytes'] / 2**30:.2f} GiB. R0 = {rec['risk0']:.6f}, R1 = {rec['risk1']:.6f}, "
              f"δ = {rec['delta']:.6f}; Hermite orders {rec['orders']}, max |ρ̃| {rec['rho_max'][0]:.3f} / "
              f"{rec['rho_max'][1]:.3f}, truncation bound {rec['bound']:.1e}. Stage start times (s): "
              + ", ".join(f"{s} {t}" for s, t in rec["stages"]) + f". Load average {os.getloadavg()[0]:.1f}.", ""]  # fmt: skip
    if "threads" in sections:
        L += ["## Threads and processes chosen by problem size", "",
              "Ba protocol as above (tanh/tanh, ψ1 = ψ2 = 1, η = 1), R0/R1/δ (exact), wall time of `simulate` for all "
              "seeds including the start of worker processes. `default` is "
              "`validation.simulator.threads.choose_parallelism` (workers × threads); a setting equal to the default "
              "is not run twice; d = 8000 default is the run of the previous section.", "",
              "| d | seeds | default (choice) | 1 thread | all cores | one process per core | default / best | load |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        for item in args.thread_sizes.split(","):
            d, s = (int(v) for v in item.split(":"))
            got = {}
            if big is not None and d == big["d"] and s == 1:
                got["default"] = {"elapsed_s": big["elapsed_s"], "workers": 1, "threads": big["threads"]}
            else:
                got["default"] = run_child("threads", str(d), str(s), "default")
            de = got["default"]
            same = {"1 thread": (de["workers"], de["threads"]) == (1, 1),
                    "all cores": (de["workers"], de["threads"]) == (1, cores),
                    "processes": (de["workers"], de["threads"]) == (cores, 1)}  # fmt: skip
            for m in ["1 thread", "all cores"] + (["processes"] if s > 1 else []):
                got[m] = de if same[m] else run_child("threads", str(d), str(s), m)
            best = min(g["elapsed_s"] for g in got.values())
            cells = [f"{got[m]['elapsed_s']:.1f} s" if m in got else "—" for m in ("1 thread", "all cores", "processes")]
            L.append(f"| {d} | {s} | {de['elapsed_s']:.1f} s ({de['workers']}×{de['threads']}) | " + " | ".join(cells)
                     + f" | {de['elapsed_s'] / best:.2f} | {os.getloadavg()[0]:.1f} |")  # fmt: skip
        L.append("")
    if "exactness" in sections:
        rec = run_child("exactness", str(args.exact_d), str(args.exact_n_test))
        rows = rec["rows"]
        zs = [abs(r["z"]) for r in rows]
        L += [f"## Exact risk = Monte-Carlo risk of the same network (d = {rec['d']}, n_test = {rec['n_test']:,})", "",
              f"{len(rows)} comparisons ({len({(r['pair'], r['setting'], r['features']) for r in rows})} trained networks: "
              "5 activation pairs × {Ba small step, Ba large step, Cui, sRF} × {true, GE features}): "
              f"max |z| = {max(zs):.2f}, mean z² = {np.mean(np.square(zs)):.2f} (≈ 1 expected), "
              f"largest truncation bound {max(r['bound_rel'] for r in rows):.1e}·E σ*² (tolerance 1e-10). "
              f"The exact risks of all the networks took {rec['exact_s']:.0f} s, the Monte-Carlo ones "
              f"{rec['total_s'] - rec['exact_s']:.0f} s ({rec['workers']} worker processes, 1 thread each: the numbers "
              "of the slow test `tests/test_simulator_population.py::test_exact_risk_equals_monte_carlo_million_points`, "
              f"bit for bit). Load average {os.getloadavg()[0]:.1f}.", "",
              "| pair | setting | features | quantity | exact | Monte-Carlo ± s.e. | z |", "|---|---|---|---|---:|---:|---:|"]  # fmt: skip
        for r in rows:
            L.append(f"| {r['pair']} | {r['setting']} | {r['features']} | {r['name']} | {r['exact']:.6f} | "
                     f"{r['mc']:.6f} ± {r['se']:.6f} | {r['z']:+.2f} |")  # fmt: skip
        L.append("")
    load1 = os.getloadavg()
    L.append(f"Load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end; total {time.time() - t_start:.0f} s. "
             f"Command: `python benchmarks/bench_simulator.py {' '.join(sys.argv[1:])}`.")  # fmt: skip
    from asymptotics.atomic import write_text

    write_text(args.out, "\n".join(L) + "\n", create_parents=True)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
