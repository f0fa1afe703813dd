"""Benchmark of the Monte-Carlo simulator (``validation.simulator``) against a plain-numpy
implementation of the same protocols, timed in the same run.

Reported:

* the machine's measured GEMM rate (float64, all cores, best of several 2000³ products);
* Ba et al. protocol, tanh/tanh, ψ1 = ψ2 = 1, one seed, n_test = 10⁴, at d = 1000 and 2000:
  - "risk": R0, R1, δ (gradient step, two ridge fits, test set);
  - "full": the same plus the spike (overlaps, s₁², s₂², ‖W₁ᵀβ*‖²), the rank-one error of G₀ and the
    conjugate-kernel outlier and label alignment;
  each as plain numpy (the way a researcher writes it: default_rng, materialised arrays,
  ``np.linalg.inv``, full SVD / eigh for the spectral measurements) and as the simulator; the ratio;
  and the fraction of the BLAS bound the simulator reaches: (FLOPs of its products and solves) /
  time / (measured GEMM rate). Counted FLOPs: 2ndN per n×d×N product (training pre-activations, the
  gradient, the ridge features for W₀ and W₁, the test pre-activations 2·n_test·d·N each), m²M for
  each Gram matrix (syrk; m = min(n, N), M = max), m³/3 per Cholesky. Not counted: activations,
  random numbers, Lanczos iterations (memory-bound);
* Cui et al. protocol at d = p = 2000 (α = α0 = 1, η̃ = 1, λ = 0.01, 5000 test points as in their
  notebooks), one seed: simulator (test/train error only, and with the spike measurements) vs a
  plain-numpy version with an explicit inverse (their public notebook takes ≈ 7 s on 2 cores);
* peak resident memory of one seed at d = 4000, ψ1 = ψ2 = 2 (n = N = 8000), all measurements,
  measured in a fresh subprocess with ``resource.getrusage``.

Run: ``python benchmarks/bench_simulator.py [--sizes 1000,2000] [--repeats 2] [--skip-memory]
[--out benchmarks/results/simulator.md]``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")


# ---- the plain-numpy reference implementations ---------------------------------------------------------
def plain_ba(d, psi1=1.0, psi2=1.0, eta=1.0, lam=1e-3, noise=0.1, n_test=10_000, seed=0, full=False):
    """Ba et al.'s protocol as a researcher writes it (tanh student and teacher)."""
    rng = np.random.default_rng(seed)
    n, N = int(round(psi1 * d)), int(round(psi2 * d))
    mu1 = 0.605705509602159  # E tanh'(z)
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
    out = {}
    for tag, W in (("0", W0), ("1", W1)):
        Phi = np.tanh(Xr @ W) / np.sqrt(N)
        ahat = np.linalg.inv(Phi.T @ Phi + lam * n / N * np.eye(N)) @ (Phi.T @ yr)
        pred = np.tanh(Xt @ W) @ ahat / np.sqrt(N)
        out["risk" + tag] = np.mean((pred - ft) ** 2)
    out["delta"] = out["risk0"] - out["risk1"]
    if full:
        U, S, Vt = np.linalg.svd(W1, full_matrices=False)
        out.update(
            overlap_beta=(U[:, 0] @ beta) ** 2,
            overlap_a=(Vt[0] @ a / np.linalg.norm(a)) ** 2,
            top_sv2=S[0] ** 2,
            bulk_edge_sv2=S[1] ** 2,
            beta_energy=np.sum((W1.T @ beta) ** 2),
        )
        A = mu1 * np.outer(X.T @ y, a) / (n * np.sqrt(N))
        out["rank1_error"] = np.linalg.norm(G0 - A, 2) / np.linalg.norm(G0, 2)
        Phi1 = np.tanh(Xr @ W1) / np.sqrt(N)
        ev, evec = np.linalg.eigh(Phi1 @ Phi1.T)
        yc = yr - yr.mean()
        out["ck_outlier"] = ev[-1] * N / n
        out["ck_label_alignment"] = (evec[:, -1] @ yc) ** 2 / (yc @ yc)
    return out


def plain_cui(d, alpha=1.0, alpha0=1.0, beta=1.0, eta_tilde=1.0, lam=0.01, n_test=5000, seed=0):
    """Cui et al.'s protocol as in their public notebook (explicit inverse), tanh/tanh."""
    rng = np.random.default_rng(seed)
    p, n0, n = int(round(beta * d)), int(round(alpha0 * d)), int(round(alpha * d))
    theta = rng.standard_normal(d)
    theta /= np.linalg.norm(theta)
    W = rng.standard_normal((p, d))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    X0 = rng.standard_normal((n0, d))
    y0 = np.tanh(X0 @ theta)
    pre = X0 @ W.T
    f0 = np.tanh(pre).mean(axis=1)
    W1 = W + eta_tilde * ((1 - np.tanh(pre) ** 2) * (y0 - f0)[:, None]).T @ X0 / n0
    X = rng.standard_normal((n, d))
    y = np.tanh(X @ theta)
    Phi = np.tanh(X @ W1.T) / np.sqrt(p)
    ahat = np.linalg.inv(Phi.T @ Phi + lam * np.eye(p)) @ Phi.T @ y
    Xt = rng.standard_normal((n_test, d))
    pred = np.tanh(Xt @ W1.T) / np.sqrt(p) @ ahat
    return {
        "test_error": np.mean((pred - np.tanh(Xt @ theta)) ** 2),
        "train_error": np.mean((Phi @ ahat - y) ** 2),
    }


# ---- helpers ---------------------------------------------------------------------------------------------
def gemm_rate(size=2000, repeats=3) -> float:
    """Best float64 GEMM rate (FLOP/s) of ``repeats`` 2000³ products, with the current threads."""
    A = np.random.default_rng(0).standard_normal((size, size))
    B = np.random.default_rng(1).standard_normal((size, size))
    C = np.empty((size, size))
    np.matmul(A, B, out=C)
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        np.matmul(A, B, out=C)
        best = min(best, time.perf_counter() - t)
    return 2 * size**3 / best


def ba_flops(d, n, N, n_test) -> float:
    """FLOPs of the simulator's products and solves (Ba protocol, R0 and R1)."""
    m, M = min(n, N), max(n, N)
    products = 2 * n * d * N * (2 + 2) + 2 * (2 * n_test * d * N)  # train Z, gradient, 2 ridge features, test
    grams = 2 * m * m * M
    chol = 2 * m**3 / 3
    return products + grams + chol


def timed(fn):
    t = time.perf_counter()
    val = fn()
    return time.perf_counter() - t, val


def measure(args) -> dict:
    """All timings with the thread count this process was started with (JSON-able)."""
    from validation.simulator import BaConfig, CuiConfig, simulate

    # warm-up: load/compile the kernels, start the BLAS threads
    simulate(BaConfig(d=100, n_test=500), seeds=1)
    simulate(CuiConfig(d=100, n_test=500, measure=("risk", "spike")), seeds=1)
    out = {"ba": [], "gemm": []}
    for d in [int(s) for s in args.sizes.split(",")]:
        flops = ba_flops(d, d, d, args.n_test)
        for mode, measure_groups, full in (
            ("risk", ("risk",), False),
            ("full", ("risk", "spike", "ck"), True),
        ):
            cfg = BaConfig(
                d=d,
                psi1=1.0,
                psi2=1.0,
                eta=1.0,
                lam=1e-3,
                noise=0.1,
                n_test=args.n_test,
                measure=measure_groups,
            )
            rec = {"d": d, "mode": mode, "gflop": flops / 1e9, "sim": [], "plain": [], "rate": []}
            for r in range(args.repeats):
                rate = gemm_rate()  # the machine's rate right now (the machine is shared)
                t_sim, res = timed(lambda cfg=cfg: simulate(cfg, seeds=1, root_seed=0))
                t_plain, pl = timed(lambda full=full, d=d: plain_ba(d, n_test=args.n_test, full=full))
                rec["rate"].append(rate)
                rec["sim"].append(t_sim)
                rec["plain"].append(t_plain)
                out["gemm"].append(rate)
                print(f"  d={d} {mode} rep {r}: GEMM {rate / 1e9:.1f} GFLOP/s, simulator {t_sim:.2f} s, plain {t_plain:.2f} s",
                      file=sys.stderr, flush=True)  # fmt: skip
            rec["values_sim"] = {k: float(v) for k, v in res.mean.items()}
            rec["values_plain"] = {k: float(v) for k, v in pl.items()}
            out["ba"].append(rec)
    cui_cfg = CuiConfig(
        d=2000, alpha=1.0, alpha0=1.0, beta=1.0, eta_tilde=1.0, lam=0.01, n_test=5000, measure=("risk",)
    )
    cui = {"sim": [], "sim_spike": [], "plain": []}
    for _ in range(args.repeats):
        t, res = timed(lambda: simulate(cui_cfg, seeds=1, root_seed=0))
        cui["sim"].append(t)
        t, _ = timed(lambda: simulate(cui_cfg.replace(measure=("risk", "spike")), seeds=1, root_seed=0))
        cui["sim_spike"].append(t)
        t, pl = timed(lambda: plain_cui(2000))
        cui["plain"].append(t)
        print(f"  Cui: simulator {cui['sim'][-1]:.2f} s (+spike {cui['sim_spike'][-1]:.2f} s), plain {t:.2f} s",
              file=sys.stderr, flush=True)  # fmt: skip
    cui["test_error_sim"] = float(res.mean["test_error"])
    cui["test_error_plain"] = float(pl["test_error"])
    out["cui"] = cui
    return out


_MEMORY_CHILD = r"""
import json, resource, time, warnings
warnings.simplefilter("ignore")
from validation.simulator import BaConfig, simulate
cfg = BaConfig(d={d}, psi1=2.0, psi2=2.0, eta=1.0, n_test={n_test})
t = time.perf_counter()
res = simulate(cfg, seeds=1, root_seed=0)
el = time.perf_counter() - t
print(json.dumps({{"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "elapsed": el,
                  "risk1": res.mean["risk1"], "overlap_beta": res.mean["overlap_beta"]}}))
"""

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _child_env(threads: int) -> dict:
    env = dict(os.environ)
    env.update({k: str(threads) for k in _THREAD_VARS})
    # idle OpenBLAS threads sleep at once instead of spinning ~0.1 s (validation.simulator.threads);
    # the same environment for both implementations (the plain one is unaffected: measured 3.56 vs 3.38 s)
    env.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,2000")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--n-test", type=int, default=10_000)
    ap.add_argument("--threads", default=None, help="thread counts to measure, e.g. 2,1 (default: all cores)")
    ap.add_argument("--memory-d", type=int, default=4000)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "simulator.md"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args)))
        return

    from asymptotics.atomic import write_bytes
    from validation.simulator.rng import available_cores

    cores = available_cores()
    threads = [int(t) for t in (args.threads or str(cores)).split(",")]
    root = Path(__file__).resolve().parents[1]
    load0 = os.getloadavg()
    runs = {}
    for t in threads:
        print(f"{t} thread(s):", file=sys.stderr, flush=True)
        cmd = [
            sys.executable,
            __file__,
            "--child",
            "--sizes",
            args.sizes,
            "--repeats",
            str(args.repeats),
            "--n-test",
            str(args.n_test),
        ]
        proc = subprocess.run(cmd, env=_child_env(t), cwd=root, capture_output=True, text=True)
        sys.stderr.write(proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"benchmark child failed ({t} threads)")
        runs[t] = json.loads(proc.stdout.strip().splitlines()[-1])
    mem = None
    if not args.skip_memory:
        code = _MEMORY_CHILD.format(d=args.memory_d, n_test=args.n_test)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
        if proc.returncode == 0:
            mem = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"memory d={args.memory_d}: {mem['maxrss_kb'] / 2**20:.2f} GiB peak RSS, {mem['elapsed']:.1f} s",
                file=sys.stderr,
            )
        else:
            print(proc.stderr, file=sys.stderr)
    load1 = os.getloadavg()

    L = []
    L.append("# Simulator: speed against plain numpy, BLAS bound, memory")
    L.append("")
    L.append(
        f"Machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, numpy {np.__version__} "
        f"(OpenBLAS). Load average {load0[0]:.1f} before, {load1[0]:.1f} after: **the machine is shared with other "
        "processes**, so every time includes competition for the cores. To make the comparison fair under load, each "
        "repetition measures the GEMM rate, then the simulator, then the plain version, back to back; times are the best "
        "of the repetitions and the BLAS-bound fraction uses the GEMM rate measured just before the same repetition "
        "(best repetition reported). Each thread count runs in a fresh process (OPENBLAS/OMP/NUMBA_NUM_THREADS), "
        "with OPENBLAS_THREAD_TIMEOUT=4 for both implementations (idle OpenBLAS threads sleep at once instead of "
        "spinning ~0.1 s and stealing the cores of the numba kernels that follow a GEMM)."
    )
    L.append("")
    for t, run in runs.items():
        rates = run["gemm"]
        L.append(
            f"## {t} thread(s): Ba et al. protocol (tanh/tanh, ψ1 = ψ2 = 1, η = 1, λ = 1e-3, σ_ε = 0.1, n_test = {args.n_test}, one seed)"
        )
        L.append("")
        L.append(
            f"GEMM rate measured during the run: {min(rates) / 1e9:.1f}–{max(rates) / 1e9:.1f} GFLOP/s (float64, 2000³)."
        )
        L.append("")
        L.append(
            "| d | measurements | plain numpy (s) | simulator (s) | speed-up | GFLOP counted | GEMM rate then (GFLOP/s) | fraction of BLAS bound |"
        )
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|")
        for rec in run["ba"]:
            what = "R0, R1, δ" if rec["mode"] == "risk" else "R0, R1, δ + spike + rank-one error + CK"
            fr = [rec["gflop"] * 1e9 / (ts * r) for ts, r in zip(rec["sim"], rec["rate"], strict=True)]
            k = int(np.argmax(fr))
            tp, ts = min(rec["plain"]), min(rec["sim"])
            L.append(f"| {rec['d']} | {what} | {tp:.2f} | {ts:.2f} | {tp / ts:.2f}× | {rec['gflop']:.0f} | "
                     f"{rec['rate'][k] / 1e9:.0f} | {100 * fr[k]:.0f} % |")  # fmt: skip
        L.append("")
        cui = run["cui"]
        L.append(
            f"Cui et al. protocol, d = p = 2000 (α = α0 = 1, η̃ = 1, λ = 0.01, 5000 test points, one seed), {t} thread(s):"
        )
        L.append("")
        L.append("| implementation | time (s) | test error |")
        L.append("|---|---:|---:|")
        L.append(
            f"| plain numpy, explicit inverse (as the public notebook) | {min(cui['plain']):.2f} | {cui['test_error_plain']:.4f} |"
        )
        L.append(f"| simulator, test/train error | {min(cui['sim']):.2f} | {cui['test_error_sim']:.4f} |")
        L.append(
            f"| simulator, + spike, rank-one error and measured r, c, γ | {min(cui['sim_spike']):.2f} | |"
        )
        L.append("")
    L.append("The public Cui et al. notebook takes about 7 s per point on 2 cores (docs/spiked-rf.md, Speed).")
    L.append("")
    last = runs[threads[0]]
    full = [r for r in last["ba"] if r["mode"] == "full"]
    if full:
        L.append(
            "Values of the last full run (one seed; the two implementations draw different random numbers, so they agree only statistically):"
        )
        L.append("")
        L.append("| d | quantity | plain numpy | simulator |")
        L.append("|---:|---|---:|---:|")
        for rec in full:
            for k in ("risk0", "risk1", "delta", "overlap_beta", "top_sv2", "rank1_error", "ck_outlier"):
                L.append(f"| {rec['d']} | {k} | {rec['values_plain'][k]:.4f} | {rec['values_sim'][k]:.4f} |")
        L.append("")
    if mem is not None:
        L.append(
            f"## Memory (d = {args.memory_d}, ψ1 = ψ2 = 2: n = N = {2 * args.memory_d}, all measurements, n_test = {args.n_test}, one seed)"
        )
        L.append("")
        L.append(
            f"Peak resident set size {mem['maxrss_kb'] / 2**20:.2f} GiB (limit 8 GB), wall time {mem['elapsed']:.1f} s "
            f"(fresh subprocess, all cores, `resource.getrusage`). R1 = {mem['risk1']:.4f}, ⟨u₁, β*⟩² = {mem['overlap_beta']:.4f}."
        )
        L.append("")
    L.append(
        f"Command: `python benchmarks/bench_simulator.py --threads {','.join(map(str, threads))} --repeats {args.repeats}`"
    )
    write_bytes(args.out, ("\n".join(L) + "\n").encode(), create_parents=True)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
