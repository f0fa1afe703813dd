"""Benchmark of ``asymptotics.sweeps``: the same 64-task simulation sweep in-process and on a
2-worker Dask LocalCluster, against a plain loop over the simulator (no sweep machinery).

Reported:

* wall time of the plain loop, of the in-process sweep and of the LocalCluster sweep (execution loop,
  and with the cluster's start-up);
* speed-up of the cluster over the in-process sweep;
* machinery overhead per task in-process: (in-process sweep − plain loop) / tasks;
* scheduling overhead per task on the cluster: (workers × loop wall time − Σ task run times) /
  tasks — the worker time not spent computing (scheduling, serialisation, the driver's writes,
  the idle tail), and the same for 256 no-op tasks (batch sizes 1 and 16), where it is everything;
* agreement of the values between executors (max relative difference; BLAS thread counts differ:
  the in-process run uses every core, each worker one).

Run: ``python benchmarks/bench_sweeps.py [--d 150] [--n-test 2000] [--out benchmarks/results/sweeps.md]``
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path


def noop(params, seed):
    return {"i2": params["i"] * 2}


def ba_config(out, d, n_test):
    return {
        "name": "bench-ba",
        "quantity": "simulate.ba",
        "out": str(out),
        "seeds": 4,
        "root_seed": 7,
        "fixed": {"student": "tanh", "teacher": "tanh", "d": d, "psi2": 1.5, "eta": 1.0, "noise": 0.1,
                  "n_test": n_test, "measure": ["risk"]},
        "grid": {"psi1": [1.0, 2.0, 3.0, 4.0], "lam": "log:1e-3:1:4"},
    }


def overhead_per_task(summary, workers):
    n = summary.ok + summary.failed
    return (workers * summary.run_s - summary.task_seconds) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=150)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "sweeps.md"))
    args = ap.parse_args()

    import numpy as np

    from asymptotics.results import atomic_write_bytes
    from asymptotics.sweeps import (
        get_quantity,
        load_config,
        make_tasks,
        read_sweep,
        register_quantity,
        run_sweep,
    )

    register_quantity("bench.noop", noop, replace=True)
    tmp = Path(tempfile.mkdtemp(prefix="bench-sweeps-"))
    load0 = os.getloadavg()
    lines = []
    k = 0

    def fresh(name):
        nonlocal k
        k += 1
        return tmp / f"{name}{k}"

    try:
        # warm-up: compile/cache the simulator's kernels in this process
        warm = ba_config(fresh("warm"), args.d, args.n_test)
        warm["grid"] = {"psi1": [1.0], "lam": [0.01]}
        warm["seeds"] = 1
        run_sweep(warm, progress=False)
        cfg = load_config(ba_config(fresh("plain"), args.d, args.n_test))
        tasks = make_tasks(cfg, get_quantity("simulate.ba"))
        fn = get_quantity("simulate.ba").function()

        plains, ins, in1s, dks = [], [], [], []
        for _ in range(args.repeats):  # interleaved, best of: the machine is shared
            t0 = time.perf_counter()
            for t in tasks:  # plain loop: the simulator called directly, no sweep machinery
                fn(dict(t.params), t.seed)
            plains.append(time.perf_counter() - t0)
            out_in = fresh("inproc")
            ins.append((run_sweep(ba_config(out_in, args.d, args.n_test), progress=False), out_in))
            in1s.append(run_sweep(ba_config(fresh("inproc1"), args.d, args.n_test), threads_per_task=1, progress=False))
            out_dk = fresh("dask")
            dks.append((run_sweep(ba_config(out_dk, args.d, args.n_test), scheduler="local:2", progress=False), out_dk))
        plain = min(plains)
        s_in, out_in = min(ins, key=lambda x: x[0].run_s)
        s_dk, out_dk = min(dks, key=lambda x: x[0].run_s)
        s_in1 = min(in1s, key=lambda x: x.run_s)
        assert s_in.complete and s_dk.complete, (s_in.errors, s_dk.errors)

        a = read_sweep(out_in).set_index("task_id").sort_index()
        b = read_sweep(out_dk).set_index("task_id").sort_index()
        cols = ["risk0", "risk1", "delta", "train_error"]
        rel = float(np.max(np.abs(a[cols].to_numpy() - b[cols].to_numpy()) / np.abs(a[cols].to_numpy())))

        # pure overhead: no-op tasks on one warm 2-worker cluster
        from distributed import Client, LocalCluster

        noop_cfg = {"quantity": "bench.noop", "grid": {"i": list(range(256))}}
        n_in = run_sweep(noop_cfg | {"out": str(fresh("noop"))}, progress=False)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            run_sweep({"quantity": "bench.noop", "grid": {"i": list(range(16))}, "out": str(fresh("noop"))},
                      scheduler=client, progress=False)  # warm: imports on the workers
            n_d1 = run_sweep(noop_cfg | {"out": str(fresh("noop"))}, scheduler=client, progress=False)
            n_d16 = run_sweep(noop_cfg | {"out": str(fresh("noop"))}, scheduler=client, batch_size=16, progress=False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()

    n = s_in.ok
    lines += [
        "# Sweeps: in-process vs a 2-worker Dask LocalCluster",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average {load0[0]:.1f} before, {load1[0]:.1f} after "
        "(the machine is shared: other processes compete for the cores).",
        "",
        f"Sweep: `simulate.ba` (validation.simulator, Ba et al. protocol), d = {args.d}, ψ2 = 1.5, "
        f"n_test = {args.n_test}, measure = risk; grid ψ1 ∈ {{1,2,3,4}} × λ ∈ {{1e-3,1e-2,1e-1,1}} × 4 seeds "
        f"= {n} tasks. In-process: one process, BLAS/numba threads = all cores. LocalCluster: 2 worker "
        "processes × 1 thread, cores // 2 BLAS threads each.",
        "",
        "| run | wall time (s) | per task (ms) | speed-up vs in-process |",
        "|---|---:|---:|---:|",
        f"| plain loop over the simulator (baseline, no machinery) | {plain:.2f} | {1e3 * plain / n:.1f} | |",
        f"| sweep in-process | {s_in.run_s:.2f} | {1e3 * s_in.run_s / n:.1f} | 1.00 |",
        f"| sweep in-process, threads_per_task = 1 | {s_in1.run_s:.2f} | {1e3 * s_in1.run_s / n:.1f} | "
        f"{s_in.run_s / s_in1.run_s:.2f} |",
        f"| sweep on LocalCluster (execution loop) | {s_dk.run_s:.2f} | {1e3 * s_dk.run_s / n:.1f} | "
        f"{s_in.run_s / s_dk.run_s:.2f} ({s_in1.run_s / s_dk.run_s:.2f} vs one thread) |",
        f"| sweep on LocalCluster (including cluster start-up) | {s_dk.elapsed_s:.2f} | | "
        f"{s_in.elapsed_s / s_dk.elapsed_s:.2f} ({s_in1.elapsed_s / s_dk.elapsed_s:.2f} vs one thread) |",
        "",
        f"- Machinery overhead in-process (hashing, seeds, rows, Parquet writes), measured inside the run as "
        f"(wall − Σ task time) / tasks: {1e3 * (s_in.run_s - s_in.task_seconds) / n:.2f} ms per task "
        f"({100 * (s_in.run_s - s_in.task_seconds) / s_in.task_seconds:.2f} % of the task time); vs the plain loop "
        f"(separate runs, so load noise included): {1e3 * (s_in.run_s - plain) / n:+.1f} ms per task.",
        f"- Scheduling overhead on the cluster, (2 × wall − Σ task time) / tasks: "
        f"{1e3 * overhead_per_task(s_dk, 2):.1f} ms per task (Σ task time {s_dk.task_seconds:.1f} s on the workers "
        f"vs {s_in.task_seconds:.1f} s in-process).",
        f"- Cluster start-up (2 worker processes, imports): {s_dk.elapsed_s - s_dk.run_s:.1f} s.",
        f"- Values agree between executors to {rel:.1e} (max relative difference of risk0, risk1, delta, "
        "train_error; different BLAS thread counts sum in a different order — fix `threads_per_task` for "
        "bit-identical results).",
        "",
        f"Best of {args.repeats} interleaved repetitions of each run.",
        "",
        "Pure overhead, 256 no-op tasks (one warm 2-worker LocalCluster, worker imports done):",
        "",
        "| executor | wall (s) | per task (ms) |",
        "|---|---:|---:|",
        f"| in-process | {n_in.run_s:.3f} | {1e3 * n_in.run_s / 256:.3f} |",
        f"| LocalCluster, batch_size = 1 | {n_d1.run_s:.3f} | {1e3 * n_d1.run_s / 256:.2f} |",
        f"| LocalCluster, batch_size = 16 | {n_d16.run_s:.3f} | {1e3 * n_d16.run_s / 256:.2f} |",
        "",
        "Command: `python benchmarks/bench_sweeps.py" + (f" --d {args.d}" if args.d != 150 else "")
        + (f" --n-test {args.n_test}" if args.n_test != 2000 else "")
        + (f" --repeats {args.repeats}" if args.repeats != 2 else "") + "`",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    atomic_write_bytes(args.out, text.encode())


if __name__ == "__main__":
    main()
