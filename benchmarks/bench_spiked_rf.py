"""Benchmark of the spiked-RF theory (``asymptotics.theory.spiked_rf``) against a plain numpy
implementation of the same equations, timed in the same run.

Setting: tanh student and target, α0 = 1, λ = 0.01, β = 1 (docs/spiked-rf.md, "Accuracy and speed");
η̃ = 5 for the curve, the single call and the tables; α ∈ log(0.1 … 10) × η̃ ∈ [0, 10] (100 × 100) for
the phase diagram.

* **asymptotics**: cGET tables by the compiled moment kernels on the adaptive κ rule (cached by
  (σ, σ*, c, r, γ)), the reduced response system with compiled Anderson acceleration, exact linear
  solves for the means and variances, continuation along α inside compiled code, tolerance 1e-12.
* **plain numpy** (the same equations, written as a competent researcher would): the tables on one
  fixed composite Gauss–Legendre rule (16 nodes per unit panel on [−12, 12] in κ and in the inner
  variable: 384 × 384, vectorised), and the published fixed point (§4–5 of docs/spiked-rf.md: all
  seven order parameters with the Marchenko–Pastur closed form) iterated until the largest relative
  change is below 1e-13, warm-started along α (plain iteration; damping 0.5 where it has not
  converged after 300 steps). Its residual is that last change.

Each row also gives the residual of both and the largest relative difference of the test errors
(must be ≤ 1e-10). The numpy grid is timed on ``--grid-rows`` η̃ rows and extrapolated to 100 (its cost
per row is nearly constant) — said so in the output.

Run: ``python benchmarks/bench_spiked_rf.py [--grid-rows 5] [--no-cli] [--no-startup] [--write]`` (``--write`` updates
benchmarks/results/spiked_rf.md, keeping its theory-vs-simulation section;
``--validation FILE`` replaces that section from ``asymptotics validate --family spiked_rf --format json``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path

import numpy as np
from _common import best_of

from asymptotics.atomic import write_text

ALPHA0, LAM, BETA, ETA = 1.0, 0.01, 1.0, 5.0
CURVE = np.linspace(0.2, 5.0, 50)
GRID_ALPHAS = np.logspace(-1, 1, 100)
GRID_ETAS = np.linspace(0.0, 10.0, 100)
RESULTS = Path(__file__).with_name("results") / "spiked_rf.md"


# ---- plain numpy: the same equations ------------------------------------------------------------
def gl_rule(order, half_width=12.0):
    """Composite Gauss–Legendre on unit panels of [−L, L], Gaussian density in the weights."""
    t, wt = np.polynomial.legendre.leggauss(order)
    edges = np.arange(-half_width, half_width + 1e-12, 1.0)
    a, b = edges[:-1, None], edges[1:, None]
    x = (0.5 * (b - a) * t + 0.5 * (a + b)).ravel()
    return x, (0.5 * (b - a) * wt).ravel() * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def numpy_map(eta, alpha0=ALPHA0):
    """(r, c, γ) of Cui et al.'s map with Gaussian constants by the same quadrature."""
    z, w = gl_rule(16)
    t, dt = np.tanh(z), 1 - np.tanh(z) ** 2
    h1 = h1s = w @ dt
    h2s = w @ t**2
    var_d = w @ dt**2 - h1**2
    g = math.sqrt(h1s**2 + h2s / alpha0)
    if eta == 0.0:
        return 0.0, 1.0, 0.0
    return eta * h1 * g, 1 + eta**2 * h2s * var_d / alpha0, h1s / g


def mp_moments(u, beta):
    b = 1 + u * (1 - beta)
    R = np.sqrt(b * b + 4 * beta * u)
    A0 = 2 / (b + R)
    bu = 1 + beta * u * A0
    B1 = A0 * (beta * A0 + 1 - beta) / R
    return A0, A0 / bu, A0 * bu / R, B1, (beta * A0 * A0 + B1) / bu**2


class NumpySRF:
    """The sRF fixed point in plain numpy: fixed-rule tables and the damped published iteration."""

    def __init__(self, eta, alpha0=ALPHA0):
        r, c, gamma = numpy_map(eta, alpha0)
        self.k, self.w = gl_rule(16)
        z, wz = gl_rule(16)
        S = np.tanh(r * self.k[:, None] + math.sqrt(c) * z[None, :])
        m0, m1, m2 = S @ wz, S @ (wz * z), (S * S) @ wz
        self.mu0, self.mu1, self.mu2 = m0, m1 / math.sqrt(c), np.maximum(m2 - m0**2 - m1**2, 0)
        rho = math.sqrt(max(0.0, 1 - gamma**2))
        T = np.tanh(gamma * self.k[:, None] + rho * z[None, :])
        self.h, self.h1t, self.h2t = T @ wz, T @ (wz * z), (T * T) @ wz
        self.c = c

    def error_function(self, x):
        V1, V2, q1, q2, m, t, psi = x
        om = m * self.mu0 + t * self.k * self.mu1
        E = self.h2t - 2 * om * self.h + om**2 - 2 * self.mu1 * psi * self.h1t + self.mu1**2 * q1 + self.mu2 * q2
        return om, E

    def step(self, x, ratio, lam, beta):
        V1, V2, q1, q2, m, t, psi = x
        k, w, mu0, mu1, mu2 = self.k, self.w, self.mu0, self.mu1, self.mu2
        V = mu1**2 * V1 + mu2 * V2
        om, E = self.error_function(x)
        wh = ratio / (1 + V)
        q1h, q2h = w @ (mu1**2 * E * wh / (1 + V)), w @ (mu2 * E * wh / (1 + V))
        V1h, V2h = w @ (mu1**2 * wh), w @ (mu2 * wh)
        th, ph = w @ (k * mu1 * (self.h - om) * wh), w @ (mu1 * self.h1t * wh)
        den = w @ (mu0**2 / (1 + V))
        m_new = (w @ (mu0 * (self.h - t * k * mu1) / (1 + V))) / den if den > 1e-300 else 0.0
        c = self.c
        s0 = lam + V2h
        A0, A1, B0, B1, B2 = mp_moments(V1h * c / s0, beta)
        I0, I1, I2 = B0 / s0**2, c * B1 / s0**2, c * c * B2 / s0**2
        return np.array([c * A1 / s0, A0 / s0,
                         I2 * q1h + I1 * q2h + beta * c * I1 * th**2 + beta * I2 * ph**2,
                         I1 * q1h + I0 * q2h + beta * c * I0 * th**2 + beta * I1 * ph**2,
                         m_new, beta * c * th * A0 / s0, beta * ph * c * A1 / s0])

    def solve(self, alpha, lam=LAM, beta=BETA, x0=None, tol=1e-13):
        """(test error, x, iterations, last relative change): plain iteration; if it has not
        converged after 300 steps (it oscillates at some points: η̃ ≈ 2.5), damping 0.5."""
        ratio = alpha / beta
        start = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]) if x0 is None else x0
        total = 0
        with np.errstate(all="ignore"):
            for damping, max_iter in ((1.0, 300), (0.5, 20000)):
                x = start.copy()
                diff = math.inf
                for _ in range(max_iter):
                    new = self.step(x, ratio, lam, beta)
                    diff = float(np.max(np.abs(new - x) / np.maximum(1, np.abs(x))))
                    x = (1 - damping) * x + damping * new
                    total += 1
                    if not np.isfinite(diff) or diff < tol:
                        break
                if diff < tol:
                    break
        return float(self.w @ self.error_function(x)[1]), x, total, diff

    def curve(self, alphas):
        x, out = None, []
        for a in alphas:
            e, x, it, diff = self.solve(a, x0=x)
            out.append((e, it, diff))
        return out


# ---- the measurements ---------------------------------------------------------------------------
def rel_diff(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.nanmax(np.abs(a - b) / np.abs(b)))


def measure(grid_rows: int, repeats: int):
    from asymptotics.theory.spiked_rf import (
        cget_coefficients,
        channel_model,
        cui_to_srf,
        kappa_rule,
        one_step_spiked_rf,
        spiked_rf_curve,
        target_functions,
    )
    from asymptotics.theory.spiked_rf import channel as ch
    from asymptotics.theory.spiked_rf.mapping import as_activation
    from asymptotics.theory.spiked_rf.phase_diagram import phase_diagram

    rows = {}
    params = cui_to_srf(ETA, ALPHA0, "tanh", "tanh")
    model = channel_model(params, "tanh", "tanh")
    spiked_rf_curve(model, CURVE, BETA, LAM)                       # compile / load kernels
    # 1. one α point on a curve
    t_ours, sols = best_of(lambda: spiked_rf_curve(model, CURVE, BETA, LAM), repeats)
    plain = NumpySRF(ETA)
    t_np, base = best_of(lambda: plain.curve(CURVE), max(1, repeats // 3))
    rows["curve"] = dict(ours=t_ours / CURVE.size, numpy=t_np / CURVE.size,
                         res_ours=max(s.residual for s in sols), res_np=max(b[2] for b in base),
                         diff=rel_diff([b[0] for b in base], [s.test_error for s in sols]),
                         it_ours=np.mean([s.iterations for s in sols]), it_np=np.mean([b[1] for b in base]))
    # 2. a single call, tables cached (numpy: tables + a cold solve)
    one_step_spiked_rf(1.5, ALPHA0, BETA, ETA, LAM, "tanh", "tanh")
    t_ours, s = best_of(lambda: one_step_spiked_rf(1.5, ALPHA0, BETA, ETA, LAM, "tanh", "tanh"), repeats * 10)
    t_np, b = best_of(lambda: NumpySRF(ETA).solve(1.5), repeats)
    rows["single"] = dict(ours=t_ours, numpy=t_np, res_ours=s.residual, res_np=b[3], diff=rel_diff(b[0], s.test_error))

    # 3. the cGET tables of one (c, r, γ)
    def tables():
        ch._adaptive_tables.cache_clear()
        return channel_model(params, "tanh", "tanh")

    t_ours, m = best_of(tables, repeats)
    t_np, _ = best_of(lambda: NumpySRF(ETA), repeats)
    rows["tables"] = dict(ours=t_ours, numpy=t_np, nodes=m.rule.nodes.size, qerr=m.quadrature_error)
    # 3b. the same tables on the numpy's own fixed 384-node κ rule (the inner rule still searched)
    fixed = kappa_rule("composite", 16, ())
    s_act, t_act = as_activation("tanh", "student"), as_activation("tanh", "teacher")

    def fixed_tables():
        return (cget_coefficients(s_act, params.spikes, params.bulk, fixed.nodes, tol=1e-13),
                target_functions(t_act, params.gamma, fixed.nodes, tol=1e-13))

    t_fixed, (co, tf) = best_of(fixed_tables, repeats)
    ref = NumpySRF(ETA)
    diff = max(float(np.max(np.abs(a - b))) / max(1.0, float(np.max(np.abs(b))))
               for a, b in ((co.mu0[0], ref.mu0), (co.mu1[0], ref.mu1), (co.mu2_sq[0], ref.mu2), (tf.h, ref.h),
                            (tf.h1t, ref.h1t), (tf.h2t, ref.h2t)))
    rows["tables_fixed"] = dict(ours=t_fixed, numpy=t_np, diff=diff, qerr=max(co.error, tf.error))

    # 4. the 100 × 100 phase diagram (library call, tables not cached)
    def diagram():
        ch._adaptive_tables.cache_clear()
        return phase_diagram(GRID_ALPHAS, GRID_ETAS, alpha0=ALPHA0, beta=BETA, lam=LAM)

    t_ours, pd = best_of(diagram, max(1, repeats // 3))
    picks = np.linspace(0, GRID_ETAS.size - 1, grid_rows).round().astype(int)
    t0 = time.perf_counter()
    base = {i: NumpySRF(GRID_ETAS[i]).curve(GRID_ALPHAS) for i in picks}
    t_rows = time.perf_counter() - t0
    diffs = [rel_diff([b[0] for b in base[i]], pd.test_error[i]) for i in picks]
    rows["grid"] = dict(ours=t_ours, numpy=t_rows / grid_rows * GRID_ETAS.size, rows=grid_rows,
                        res_ours=float(np.nanmax(pd.residual)), res_np=max(b[2] for i in picks for b in base[i]),
                        diff=max(diffs), converged=float(pd.converged.mean()))
    return rows


STARTUP_SCRIPT = """
import json, time
t0 = time.perf_counter()
from asymptotics.theory.spiked_rf import one_step_spiked_rf
t1 = time.perf_counter()
s = one_step_spiked_rf(1.5, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")
t2 = time.perf_counter()
one_step_spiked_rf(1.5, 1.0, 1.0, 5.0, 0.01, "tanh", "tanh")
t3 = time.perf_counter()
print(json.dumps(dict(imp=t1 - t0, first=t2 - t1, second=t3 - t2, test_error=s.test_error)))
"""


def measure_startup():
    """A fresh process with an empty cache (renders the templates and compiles every kernel it uses),
    then a second fresh process on that cache (loads the machine code): import, first and second call."""
    import subprocess
    import sys
    import tempfile

    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-srf-cache-") as cache:
        env = dict(os.environ, ASYMPTOTICS_CACHE_DIR=cache)
        for key in ("cold", "warm"):
            run = subprocess.run([sys.executable, "-c", STARTUP_SCRIPT], env=env, capture_output=True, text=True,
                                 check=True)
            out[key] = json.loads(run.stdout.strip().splitlines()[-1])
    return out


CLI_GRID = ["theory", "srf", "--student", "tanh", "--teacher", "tanh", "--alpha", "log:0.1:10:100", "--eta-tilde",
            "0:10:100", "--alpha0", "1", "--beta", "1", "--lam", "0.01", "--format", "csv"]


def measure_cli(reps=3):
    """The 100 × 100 phase diagram by the command line, end to end in a fresh process (start-up, imports, tables,
    the compiled grid, 10⁴ rows written as csv) with the on-disk caches warm (one call first): the medians of
    ``reps`` calls, wall and CPU (of the child) seconds."""
    import resource
    import statistics
    import subprocess
    import sys
    import tempfile

    exe = Path(sys.executable).with_name("asymptotics")
    walls, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="bench-srf-cli-") as tmp:
        cmd = [str(exe), *CLI_GRID, "--out", str(Path(tmp) / "grid.csv")]
        subprocess.run(cmd, capture_output=True, check=True)                # warm the on-disk caches
        for _ in range(reps):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            walls.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "reps": reps}


def report(rows, load_before, load_after, grid_rows) -> str:
    def ms(x):
        return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.2f} s"

    def us(x):
        return f"{x * 1e6:.1f} µs" if x < 1e-3 else ms(x)

    c, s, t, g = rows["curve"], rows["single"], rows["tables"], rows["grid"]
    lines = [
        "# Benchmark: spiked-RF theory (Cui et al.) — asymptotics vs plain numpy of the same equations",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical cores; "
        f"Python {platform.python_version()}, numpy {np.__version__}; 1-minute load average "
        f"{load_before:.1f} before, {load_after:.1f} after (the machine is shared: absolute times vary, the ratios are "
        "measured in one run).",
        f"Setting: tanh/tanh, α0 = {ALPHA0:g}, λ = {LAM:g}, β = {BETA:g}; η̃ = {ETA:g} for rows 1–3 "
        "(50 α points on [0.2, 5] for row 1, α = 1.5 for row 2).",
        "",
        "| work | asymptotics | plain numpy | ratio | residual (ours / numpy) | max rel. difference |",
        "|---|---|---|---|---|---|",
        f"| test error, one α point on a curve | {us(c['ours'])} ({c['it_ours']:.1f} Anderson iterations) | "
        f"{us(c['numpy'])} ({c['it_np']:.0f} iterations) | **{c['numpy'] / c['ours']:.0f}×** | "
        f"{c['res_ours']:.1e} / {c['res_np']:.1e} | {c['diff']:.1e} |",
        f"| single call `one_step_spiked_rf` (tables cached; numpy: tables + cold solve) | {us(s['ours'])} | "
        f"{us(s['numpy'])} | **{s['numpy'] / s['ours']:.0f}×** | {s['res_ours']:.1e} / {s['res_np']:.1e} | "
        f"{s['diff']:.1e} |",
        f"| cGET tables of one (c, r, γ) | {us(t['ours'])} (adaptive: {t['nodes']} κ nodes chosen, error "
        f"estimate {t['qerr']:.1e}) | {us(t['numpy'])} (one fixed 384 × 384 rule, no error estimate) | "
        f"{t['numpy'] / t['ours']:.1f}× | | |",
        f"| cGET tables on the numpy's fixed 384-node κ rule (inner rule searched, error estimate "
        f"{rows['tables_fixed']['qerr']:.1e}) | {us(rows['tables_fixed']['ours'])} | {us(t['numpy'])} | "
        f"**{t['numpy'] / rows['tables_fixed']['ours']:.1f}×** | | {rows['tables_fixed']['diff']:.1e} (tables) |",
        f"| 100 × 100 (α, η̃) phase diagram, library call | {ms(g['ours'])} ({100 * g['converged']:.0f} % converged) | "
        f"{ms(g['numpy'])} (extrapolated from {grid_rows} η̃ rows) | **{g['numpy'] / g['ours']:.0f}×** | "
        f"{g['res_ours']:.1e} / {g['res_np']:.1e} | {g['diff']:.1e} (on those rows) |",
        "",
        "Residuals: ours, the largest violation of every equation of the full fixed point at the solution "
        "(the solutions' `residual`); numpy, the last relative change of its iteration (stopping at 1e-13). "
        "The difference is between the two test errors (both tables are accurate to ~1e-15; the numpy rule is "
        "fixed, the library's is chosen adaptively with an error estimate).",
        "",
        f"Run: `python benchmarks/bench_spiked_rf.py --grid-rows {grid_rows}`",
    ]
    if "cli" in rows:
        cli = rows["cli"]
        lines[-1:-1] = [
            f"Command line, the same 100 × 100 phase diagram end to end (`asymptotics {' '.join(CLI_GRID)} --out "
            f"FILE`: a fresh process, imports, tables, the compiled grid, 10⁴ csv rows; on-disk caches warm; medians "
            f"of {cli['reps']} calls): {ms(cli['wall'])} ({ms(cli['cpu'])} CPU).",
            "",
        ]
    if "startup" in rows:
        cold, warm = rows["startup"]["cold"], rows["startup"]["warm"]
        lines[-1:-1] = [
            "Start-up (a fresh process calling `one_step_spiked_rf` at the setting of row 2; import / first "
            "call / second call):",
            "",
            "| cache | import | first call | second call |",
            "|---|---|---|---|",
            f"| empty (templates rendered, every kernel compiled by numba) | {ms(cold['imp'])} | {ms(cold['first'])} | "
            f"{us(cold['second'])} |",
            f"| filled by the run above (machine code loaded from the cache) | {ms(warm['imp'])} | "
            f"{ms(warm['first'])} | {us(warm['second'])} |",
            "",
            "The warm first call is mostly the activation's symbolic set-up (sympy derivatives, lowering) and "
            "numba's loading of cached code; the spiked-RF kernels add no compilation.",
            "",
        ]
    return "\n".join(lines) + "\n"


def validation_table(path: Path) -> str:
    """Markdown table of a validation run (theory vs simulation, z-scores)."""
    obj = json.loads(Path(path).read_text())
    meta = obj.get("meta", {})
    out = ["## Theory vs simulation (`asymptotics validate --family spiked_rf`)", "",
           f"Root seed {meta.get('seed')}, {meta.get('total')} checks, {meta.get('failed')} failed. "
           "Tolerance: 3 s.e. + allowance (finite-size allowance stated per case in `validation/cases/spiked_rf.py`).",
           "", "| case | quantity | parameters | d | theory | simulation ± s.e. | z | allowance | pass |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in obj["rows"]:
        z = r.get("z")
        out.append(f"| {r['case']} | {r['quantity']} | {r['params']} | {r.get('d')} | {r['theory']:.4g} | "
                   f"{r['simulation']:.4g} ± {r['se']:.2g} | {'' if z is None else f'{z:+.2f}'} | "
                   f"{r['allowance']:.2g} | {'yes' if r['passed'] else '**no**'} |")
    timings = meta.get("timings", {})
    if timings:
        out += ["", "Case run times (s): " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items())]
    return "\n".join(out)


def _kept_validation() -> str:
    if not RESULTS.exists():
        return ""
    text = RESULTS.read_text()
    i = text.find("## Theory vs simulation")
    return text[i:].rstrip() if i >= 0 else ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid-rows", type=int, default=5, help="η̃ rows of the numpy grid that are timed")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="update benchmarks/results/spiked_rf.md")
    ap.add_argument("--no-startup", action="store_true",
                    help="skip the start-up rows (a fresh process on an empty, then a filled cache: about a minute)")
    ap.add_argument("--no-cli", action="store_true", help="skip the command-line row (four fresh processes)")
    ap.add_argument("--validation", type=Path, default=None,
                    help="a JSON written by `asymptotics validate --family spiked_rf --format json --out FILE`")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()[0]
    rows = measure(args.grid_rows, args.repeats)
    if not args.no_cli:
        rows["cli"] = measure_cli()
    if not args.no_startup:
        rows["startup"] = measure_startup()
    text = report(rows, load_before, os.getloadavg()[0], args.grid_rows)
    bad = [k for k, r in rows.items() if r.get("diff", 0.0) > 1e-10]
    if bad:
        text += f"\n**Rows whose results differ by more than 1e-10: {', '.join(bad)}.**\n"
    print(text)
    if args.write:
        extra = validation_table(args.validation) if args.validation else _kept_validation()
        write_text(RESULTS, text + ("\n" + extra + "\n" if extra else ""), name="benchmark results")


if __name__ == "__main__":
    main()
