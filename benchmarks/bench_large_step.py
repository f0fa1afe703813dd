"""Benchmark of the exact large-step risk (Gaussian readout) against a plain numpy/scipy implementation.

Problem: erf/erf, ψ2 = 2, σ_ε = 0.1, c = 1 (setting (a) of ``docs/large-step-exact.md``); one point
(ψ1 = 8, λ = 1e-3) at N = ∞ and N = 2000, with and without the convergence checks in K and in the κ
rule, and (ψ1, λ) grids, ψ1 ∈ geomspace(2, 32), λ ∈ geomspace(1e-4, 1e-1).

* **asymptotics**: :func:`~asymptotics.theory.large_step.gaussian_readout.gaussian_readout_risk` and
  :func:`~asymptotics.theory.large_step.gaussian_readout.gaussian_readout_risk_grid` (one compiled
  kernel: Anderson acceleration of the responses, exact spike–mean block, variance equations;
  continuation along λ in the grid; cGET tables cached per (ψ1, K, n)).
* **numpy baseline** (the same equations as a researcher would write them): the response map
  (V(κ), τ(u)) in vectorised numpy/scipy (M = μ1ᵀΛμ1, Cholesky of I + β√BM√B, T, 𝒱), iterated as
  x ← g(x) on the logarithms (plain iteration converges here; damping only slows it), then the
  spike–mean block (``np.linalg.svd``/``lstsq`` at N = ∞, ``solve`` at finite N) and the variance
  system (``np.linalg.solve``, ``eigvals`` for its spectral radius). It uses the same cGET tables.
  BLAS runs single-threaded for both (``OPENBLAS_NUM_THREADS=1``, set before numpy is imported):
  at these sizes a threaded OpenBLAS on a busy 2-core machine is 10–100× slower, which would be an
  unfair baseline. Grids are timed on a random subsample of points and extrapolated.

Run: ``python benchmarks/bench_large_step.py [--n 10] [--big 30] [--subsample 6] [--workers 2] [--no-cold] [--no-cli] [--out benchmarks/results/large_step.md]``
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: see the module docstring
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from _common import publish  # noqa: E402
from scipy.linalg import cho_factor, cho_solve  # noqa: E402

SETTING = dict(student="erf", teacher="erf", psi2=2.0, noise=0.1)


# ---- the numpy baseline ---------------------------------------------------------------------

def numpy_responses(model, lam_c, tol=1e-12, max_steps=20000):
    """Plain iteration of (log V, log τ) ↦ (log V-map, log τ-map). Returns (V, τ, state, iterations, residual)."""
    ch, f = model.channel, model.features
    w, beta, ratio = ch.weights, model.psi2, model.psi1 / model.psi2
    mu1, mu2, c, pi = f.mu1, f.mu2_sq, f.bulk, f.weights
    n = w.size

    def state(V, tau):
        b = w * ratio / (1.0 + V)
        S = lam_c + mu2 @ b + tau
        M = (mu1.T * (pi * c / S)) @ mu1
        sb = np.sqrt(b)
        H = np.eye(n) + beta * sb[:, None] * M * sb[None, :]
        T = sb[:, None] * cho_solve(cho_factor(H, lower=True), np.diag(sb))
        Vop = M - beta * M @ T @ M
        Vk = np.diag(Vop) + (pi / S) @ mu2
        P = mu1 @ T @ mu1.T
        return dict(b=b, S=S, M=M, T=T, Vop=Vop, V=Vk, P=P, tau=c * np.diag(P))

    b0 = w * ratio
    st = state(np.zeros(n), c * ((mu1 * b0) @ mu1.T).diagonal())
    x = np.log(np.maximum(np.concatenate([st["V"], st["tau"]]), 1e-300))
    for k in range(1, max_steps + 1):
        V, tau = np.exp(x[:n]), np.exp(x[n:])
        st = state(V, tau)
        r = np.log(np.maximum(np.concatenate([st["V"], st["tau"]]), 1e-300)) - x
        if np.all(np.abs(r) <= tol + tol * np.abs(x)):
            return V, tau, st, k, float(np.max(np.abs(r) / np.maximum(1.0, np.abs(x))))
        x = x + r
    raise RuntimeError("numpy baseline: no convergence")


def numpy_risk(model, lam, width=math.inf):
    """R1 at Ba's ridge λ and width N with the numpy baseline: (risk1, residual, iterations)."""
    ch, f = model.channel, model.features
    beta, kappa, h, mu0, mu1, c, pi = model.psi2, ch.kappa, ch.h, ch.mu0, f.mu1, f.bulk, f.weights
    lam_c = lam * model.psi1 / model.psi2
    V, tau, st, its, res = numpy_responses(model, lam_c)
    b, S, M, T, Vop, P = st["b"], st["S"], st["M"], st["T"], st["Vop"], st["P"]
    n = b.size
    sb = np.sqrt(b)
    Qt = beta * kappa[:, None] * M * kappa[None, :]
    if math.isinf(width):                                    # the mean span costs nothing
        Z = sb[:, None] * mu0.T
        U, sv, _ = np.linalg.svd(Z, full_matrices=False)
        Q = U[:, sv > 1e-13 * sv[0]]
        Pp = np.eye(n) - Q @ Q.T
        y = Pp @ np.linalg.solve(np.eye(n) + Pp @ (sb[:, None] * Qt * sb[None, :]) @ Pp, Pp @ (sb * h))
        bx = sb * y
        t = beta * M @ (kappa * bx)
        m = np.linalg.lstsq(Z, sb * (h - kappa * t) - y, rcond=1e-13)[0]
        x = h - mu0.T @ m - kappa * t
        g = beta * c * (mu1 @ (kappa * bx)) ** 2
    else:
        G = (mu0.T * (pi / S)) @ mu0
        y = np.linalg.solve(np.eye(n) + sb[:, None] * (width * G + Qt) * sb[None, :], sb * h)
        bx = sb * y
        x = h - width * G @ bx - kappa * (beta * M @ (kappa * bx))
        g = beta * c * (mu1 @ (kappa * bx)) ** 2 + width * (mu0 @ bx) ** 2
    yv = b * ch.h1t
    psi = beta * Vop @ yv
    E0 = x**2 + ch.h2t - h**2 - 2 * psi * ch.h1t + ch.noise_var
    A1 = mu1 - beta * mu1 @ T @ M
    C = beta * c[:, None] * (pi * c / S**2)[None, :] * P**2
    Psi = c[:, None] * A1**2 + f.mu2_sq
    ImC = np.eye(c.size) - C
    fixed = (beta * Vop @ yv) ** 2 + ((pi / S**2) * np.linalg.solve(ImC, beta * c * (A1 @ yv) ** 2 + g)) @ Psi
    L = ((pi / S**2)[:, None] * Psi).T @ np.linalg.solve(ImC, Psi) + beta * Vop**2
    LW = L * (b / (1.0 + V))[None, :]
    rad = float(np.max(np.abs(np.linalg.eigvals(LW))))
    if not rad < 1 - 1e-8:
        raise RuntimeError("numpy baseline: unstable variance equations")
    q = np.linalg.solve(np.eye(n) - LW, LW @ E0 + fixed)
    return float(ch.weights @ (E0 + q - ch.noise_var)), res, its


def numpy_checked(p1, lam, width=math.inf):
    """The baseline with the refinement of the project: K = 32 → 48, then κ nodes 61 → 122."""
    from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_model

    def at(K, n):
        return numpy_risk(gaussian_readout_model(SETTING["student"], SETTING["teacher"], p1, SETTING["psi2"],
                                                 noise=SETTING["noise"], types=K, kappa_nodes=n), lam, width)

    K, r0 = 32, at(32, 61)
    while True:
        K2 = math.ceil(1.5 * K)
        r1 = at(K2, 61)
        K, done, r0 = K2, abs(r1[0] - r0[0]) <= 1e-8, r1
        if done:
            break
    n = 61
    while True:
        r2 = at(K, 2 * n)
        n, done, r0 = 2 * n, abs(r2[0] - r0[0]) <= 1e-8, r2
        if done:
            return r2


# ---- timing helpers -------------------------------------------------------------------------

class Clock:
    """Wall-clock and CPU time (this process) of a block."""

    def __enter__(self):
        self.w, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.w, time.process_time() - self.c


def best_of(fn, reps):
    """((best wall, best CPU) seconds, last output) over ``reps`` calls."""
    wall, cpu, out = math.inf, math.inf, None
    for _ in range(reps):
        with Clock() as c:
            out = fn()
        wall, cpu = min(wall, c.wall), min(cpu, c.cpu)
    return (wall, cpu), out


def fmt(t):
    if isinstance(t, tuple):
        return f"{fmt(t[0])} ({fmt(t[1])} CPU)"
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def ratio(base, mine):
    """Ratio of CPU times (the machine is shared: wall clocks include waiting for a core)."""
    return base[1] / mine[1]


def cli_time(args, env, reps=3):
    """(wall, CPU of the child) seconds of an ``asymptotics theory large-step`` call, end to end (start-up,
    imports, solve, csv written): the medians of ``reps`` calls (NaN when it fails)."""
    import resource
    import statistics
    import tempfile

    exe = Path(sys.executable).with_name("asymptotics")
    walls, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="bench-ls-cli-") as tmp:
        cmd = [str(exe), "theory", "large-step", *args, "--format", "csv", "--out", str(Path(tmp) / "out.csv")]
        for _ in range(reps):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            dt = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if p.returncode != 0:
                return (math.nan, math.nan)
            walls.append(dt)
            cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    return (statistics.median(walls), statistics.median(cpus))


COLD_CHILD = """
import json, time
w0, c0 = time.perf_counter(), time.process_time()
from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk
w1, c1 = time.perf_counter(), time.process_time()
r = gaussian_readout_risk("erf", "erf", 8.0, 2.0, 1e-3, noise=0.1, check=False)
w2, c2 = time.perf_counter(), time.process_time()
gaussian_readout_risk("erf", "erf", 8.0, 2.0, 1e-3, noise=0.1, check=False)
w3, c3 = time.perf_counter(), time.process_time()
print(json.dumps(dict(import_=(w1 - w0, c1 - c0), first=(w2 - w1, c2 - c1), second=(w3 - w2, c3 - c2), risk1=r.risk1)))
"""


def cold_compile(env):
    """Times of a fresh process with an empty cache: the import, the first point (rendering the
    templates, numba compiling every kernel, the activation's modules, the tables) and a second
    point; then of a second process on that cache (machine code loaded from disk)."""
    import json
    import tempfile

    out = []
    with tempfile.TemporaryDirectory(prefix="asymptotics-cold-") as tmp:
        env = dict(env, ASYMPTOTICS_CACHE_DIR=tmp)
        for _ in range(2):
            p = subprocess.run([sys.executable, "-c", COLD_CHILD], capture_output=True, text=True, env=env)
            if p.returncode != 0:
                raise RuntimeError(f"cold-start child failed: {p.stderr[-2000:]}")
            out.append(json.loads(p.stdout.strip().splitlines()[-1]))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="grid points per axis (the grid of the issue: 10)")
    ap.add_argument("--big", type=int, default=30, help="points per axis of the larger grid (0: skip)")
    ap.add_argument("--subsample", type=int, default=6, help="grid points timed with the numpy baseline")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of the one-point rows (best is kept)")
    ap.add_argument("--no-cli", action="store_true", help="skip the command-line rows")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold start (empty cache: compiles every kernel)")
    ap.add_argument("--workers", type=int, default=2, help="threads of the grid rows with workers (1: skip them)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "large_step.md")
    a = ap.parse_args(argv)

    from asymptotics.theory.large_step.gaussian_readout import (
        gaussian_readout_model,
        gaussian_readout_risk,
        gaussian_readout_risk_grid,
        solve_gaussian_readout,
    )
    from asymptotics.theory.large_step.gaussian_readout import model as model_module

    st = SETTING
    p1, lam = 8.0, 1e-3
    with Clock() as c:
        gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam, noise=st["noise"], check=False)
    t_first = (c.wall, c.cpu)
    model_module._tabulated.cache_clear()
    t_tab, model = best_of(lambda: (model_module._tabulated.cache_clear(),
                                    gaussian_readout_model(st["student"], st["teacher"], p1, st["psi2"],
                                                           noise=st["noise"]))[1], a.reps)
    rows = []
    for width in (math.inf, 2000.0):
        tp, rp = best_of(lambda: solve_gaussian_readout(model, lam, width), a.reps)   # noqa: B023
        tn, rn = best_of(lambda: numpy_risk(model, lam, width), max(1, a.reps // 2))   # noqa: B023
        label = "N = ∞" if math.isinf(width) else f"N = {width:.0f}"
        rows.append((f"one point, {label}, K = 32, n = 61 (tables cached)", tp, tn,
                     f"{rp.residual:.1e} / {rn[1]:.1e}", abs(rp.risk1 - rn[0]) / rn[0], f"{rp.iterations} / {rn[2]}"))
    tpc, rpc = best_of(lambda: gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam,
                                                     noise=st["noise"], check=False), a.reps)
    model_module._tabulated.cache_clear()
    tpc_cold, _ = best_of(lambda: (model_module._tabulated.cache_clear(),
                                   gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam,
                                                         noise=st["noise"], check=False)), a.reps)
    gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam, noise=st["noise"])   # tables of every level
    t_chk, r_chk = best_of(lambda: gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam,
                                                         noise=st["noise"]), a.reps)
    t_chk_cold, _ = best_of(lambda: (model_module._tabulated.cache_clear(),
                                     gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam,
                                                           noise=st["noise"])), 2)
    gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam, noise=st["noise"])
    t_wl, r_wl = best_of(lambda: gaussian_readout_risk(st["student"], st["teacher"], p1, st["psi2"], lam,
                                                       noise=st["noise"], warm_levels=True), a.reps)
    tn_chk, rn_chk = best_of(lambda: numpy_checked(p1, lam), 1)
    rows.append(("one point, N = ∞, convergence checks (K 32→48, n 61→122), tables cached", t_chk,
                 tn_chk, f"{r_chk.residual:.1e} / {rn_chk[1]:.1e}", abs(r_chk.risk1 - rn_chk[0]) / rn_chk[0],
                 f"{r_chk.iterations} / {rn_chk[2]}"))
    rows.append(("the same, warm_levels=True (each level started from the one before)", t_wl,
                 tn_chk, f"{r_wl.residual:.1e} / {rn_chk[1]:.1e}", abs(r_wl.risk1 - rn_chk[0]) / rn_chk[0],
                 f"{r_wl.iterations} / {rn_chk[2]}"))

    # grids
    rng = np.random.default_rng(20260101)
    grid_rows = []
    configs = [(a.n, False, False, 1), (a.n, True, False, 1), (a.n, True, True, 1)]
    if a.workers > 1:
        configs.append((a.n, True, True, a.workers))
    if a.big > 0:
        configs += [(a.big, False, False, 1), (a.big, True, False, 1), (a.big, True, True, 1)]
        if a.workers > 1:
            configs.append((a.big, True, True, a.workers))
    for size, checked, warm, workers in configs:
        ps, ls = np.geomspace(2.0, 32.0, size), np.geomspace(1e-4, 1e-1, size)
        opts = dict(psi2=st["psi2"], noise=st["noise"], check=checked, warm_levels=warm, workers=workers)
        model_module._tabulated.cache_clear()
        with Clock() as c:
            g = gaussian_readout_risk_grid(st["student"], st["teacher"], ps, ls, **opts)
        t_cold = (c.wall, c.cpu)
        with Clock() as c:
            gaussian_readout_risk_grid(st["student"], st["teacher"], ps, ls, **opts)
        t_warm = (c.wall, c.cpu)
        npts = size * size
        base = ""
        if size == a.n and not warm and workers == 1:
            pick = rng.choice(npts, size=min(a.subsample if not checked else max(2, a.subsample // 3), npts),
                              replace=False)
            diffs = []
            clk = Clock().__enter__()
            for q in pick:
                i, j = divmod(int(q), size)
                if checked:
                    rb = numpy_checked(float(ps[i]), float(ls[j]))[0]
                else:
                    m = gaussian_readout_model(st["student"], st["teacher"], float(ps[i]), st["psi2"], noise=st["noise"])
                    rb = numpy_risk(m, float(ls[j]))[0]
                diffs.append(abs(rb - g.risk1[i, j, 0]) / rb)
            clk.__exit__()
            base = ((clk.wall / len(pick) * npts, clk.cpu / len(pick) * npts), len(pick), max(diffs))
        label = "yes" if checked else "no"
        label += ", warm levels" if warm else ""
        label += f", {workers} threads" if workers > 1 else ""
        grid_rows.append((size, label, t_cold, t_warm, bool(g.converged.all()), float(np.max(
            [r.residual for row in g.results for cell in row for r in cell])), base))

    cli = []
    if not a.no_cli:
        env = dict(os.environ)
        grid_args = ["--student", "erf", "--teacher", "erf", "--psi2", "2", "--noise", "0.1",
                     "--psi1", f"log:2:32:{a.n}", "--lam", f"log:1e-4:1e-1:{a.n}"]
        cli_time(["--psi1", "8"], env)                      # warm the on-disk caches
        for extra, label in (([], "checks (default)"), (["--no-check"], "--no-check")):
            cli.append((label, cli_time(grid_args + extra, env)))
        cli.append(("one point, checks", cli_time(["--student", "erf", "--teacher", "erf", "--psi2", "2", "--noise",
                                                  "0.1", "--psi1", "8", "--lam", "1e-3"], env)))
        issue = ["--student", "erf", "--teacher", "erf", "--psi2", "2", "--noise", "0.1",
                 "--psi1", "0.5,1,1.5,2,2.5,3,3.5,4,4.5,5", "--lam", "0.001,0.002,0.005,0.01,0.02,0.05,0.1,0.2,0.5,1"]
        cli.append(("issue 15's 10 × 10 grid (ψ1 0.5…5, λ 1e-3…1), checks", cli_time(issue, env)))
        if a.big:
            big = ["--student", "erf", "--teacher", "erf", "--psi2", "2", "--noise", "0.1",
                   "--psi1", f"log:2:32:{a.big}", "--lam", f"log:1e-4:1e-1:{a.big}"]
            cli.append((f"{a.big} × {a.big} grid, checks", cli_time(big, env, reps=1)))

    cold = None if a.no_cold else cold_compile(dict(os.environ))

    L = [
        "# Exact large-step risk (Gaussian readout): asymptotics vs a plain numpy implementation",
        "",
        "Generated by `python benchmarks/bench_large_step.py` (do not edit by hand).",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}; "
        f"load average at the end {os.getloadavg()[0]:.1f} (shared machine: timings are indicative; best of "
        f"{a.reps} for the one-point rows)",
        "- problem: erf/erf, ψ2 = 2, σ_ε = 0.1, c = 1; one point ψ1 = 8, λ = 1e-3; grids ψ1 ∈ geomspace(2, 32), "
        "λ ∈ geomspace(1e-4, 1e-1)",
        "- both sides use the same cGET tables and single-threaded BLAS (see the script's docstring); times are "
        "wall clock (CPU time of this process in parentheses); ratios are of CPU times, since on a shared machine "
        "the wall clock includes waiting for a core",
        "",
        "| work | asymptotics | numpy baseline | ratio | residual (asymptotics / numpy) | rel. difference | iterations |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, tp, tn, res, diff, its in rows:
        L.append(f"| {label} | {fmt(tp)} | {fmt(tn)} | **{ratio(tn, tp):.0f}×** | {res} | {diff:.1e} | {its} |")
    L += [
        "",
        f"One point including its cGET tables (no cache): {fmt(tpc_cold)} without the checks (tables "
        f"{fmt(t_tab)}), {fmt(t_chk_cold)} with them (three tables); warm: {fmt(tpc)} / {fmt(t_chk)}. "
        f"First call in a process (numba machine code loaded from the on-disk cache): {fmt(t_first)}.",
        "",
        "| grid | checks | asymptotics, tables built | asymptotics, tables cached | numpy baseline (extrapolated) | ratio | all converged | max residual | max rel. difference |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size, label, t_cold, t_warm, ok, res, base in grid_rows:
        if base:
            tb, k, d = base
            bl, rt, dd = f"{fmt(tb)} ({k} points timed)", f"**{ratio(tb, t_cold):.0f}×**", f"{d:.1e}"
        else:
            bl = rt = dd = "—"
        L.append(f"| {size} × {size} | {label} | {fmt(t_cold)} | {fmt(t_warm)} | {bl} | {rt} | "
                 f"{ok} | {res:.1e} | {dd} |")
    if cold:
        c1, c2 = cold
        L += ["", "Cold start (a fresh process, empty `ASYMPTOTICS_CACHE_DIR`): import "
              f"{fmt(tuple(c1['import_']))}, first point (templates rendered, every kernel compiled by numba, "
              f"the activation's modules, the tables) {fmt(tuple(c1['first']))}, second point "
              f"{fmt(tuple(c1['second']))}. A second process on that cache: import {fmt(tuple(c2['import_']))}, "
              f"first point {fmt(tuple(c2['first']))} (machine code loaded from disk)."]
    if cli:
        L += ["", f"Command line (`asymptotics theory large-step … --format csv --out FILE`, end to end in a fresh "
              f"process with the on-disk caches warm, medians of 3 calls (the larger grid: 1 call); {a.n} × {a.n} "
              "(ψ1, λ) grid unless said; the grid's rows run on numba's threads):", ""]
        L += [f"- {label}: {fmt(t)}" for label, t in cli]
    L += [
        "",
        "The ratio of the grids compares the baseline with asymptotics *including* the construction of the "
        "cGET tables (which the baseline reuses from asymptotics, so the ratio is conservative). With the "
        "checks most of the cold time is those tables (three per ψ1: K = 32, 48 at 61 κ nodes and K = 48 at "
        "122) — computed by `asymptotics.theory.spiked_rf.cget`, not by the kernel benchmarked here.",
        "",
    ]
    publish(L, a.out)


if __name__ == "__main__":
    main()
