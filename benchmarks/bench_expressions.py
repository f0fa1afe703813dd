"""Benchmark: derived expressions (``asymptotics.symbolic.expressions``) against plain
numpy/scipy implementations of the same equations, in the same run and on the same grids.

* **MP** — tr(WWᵀ/d − z)⁻¹ at 10,000 real z < 0: the derived, compiled solver (continuation in
  the Gaussian scale at every point, and warm starts along the grid) against the closed-form
  root of z m̄² + (1 + z − ψ2) m̄ + 1 = 0 vectorised in numpy (the best a researcher can do:
  no solver at all).
* **RF ridge** — τ1 = tr(K + λ)⁻¹/n of random features (centred ReLU, φ = 1.5, ψ = 0.8) at
  1,000 values of λ: the derived solver against ``scipy.optimize.fsolve`` per point on the
  two-unknown system of the ridge pencil written by hand (τ1 = 1/(λ + g2[(η−ζ) + ζ/Δ]),
  g2 = 1/(1 + (ψ/φ)τ1[(η−ζ) + ζ/Δ]), Δ = 1 + (ζ/φ)τ1 g2), warm-started along the grid.

Derivation times (parse → pencil → Dyson → elimination) and the one-off compilation are
reported apart from the per-point times. Writes ``benchmarks/results/expressions.md``. Usage::

    python benchmarks/bench_expressions.py [--repeat 3] [--out benchmarks/results/expressions.md]
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from pathlib import Path

import numpy as np
from _common import best_of
from scipy.optimize import fsolve

ROOT = Path(__file__).resolve().parents[1]


def mp_baseline(z, psi2):
    b = 1 + z - psi2
    return (-b - np.sqrt(b * b - 4 * z)) / (2 * z)  # the positive root for z < 0


def rf_baseline(lams, phi, psi, eta, zeta):
    out = np.empty_like(lams)
    x = np.array([1 / lams[0], 1.0])
    for i, lam in enumerate(lams):

        def F(v, lam=lam):
            t1, g2 = v
            delta = 1 + zeta / phi * t1 * g2
            c = (eta - zeta) + zeta / delta
            return [t1 * (lam + g2 * c) - 1, g2 * (1 + psi / phi * t1 * c) - 1]

        with warnings.catch_warnings():  # "not making good progress": at the precision limit
            warnings.simplefilter("ignore", RuntimeWarning)
            x = fsolve(F, x, xtol=1e-13)
        out[i] = x[0]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "expressions.md"))
    args = ap.parse_args(argv)

    from asymptotics.activations import resolve_activation
    from asymptotics.atomic import write_text
    from asymptotics.results import versions
    from asymptotics.solvers.expression_values import evaluate_grid
    from asymptotics.symbolic.expressions import activation_constants, derive

    lines = [
        "# Derived expressions: timings",
        "",
        f"machine: {platform.machine()}, {platform.processor() or '?'}",
    ]
    lines += [f"versions: {versions()}", ""]

    # ---------------------------------------------------------------- MP
    t0 = time.perf_counter()
    mp = derive("tr(inv(W@W.T/d - z*I))", dims="W:d,N", ratios="N/d=psi2")
    t_derive = time.perf_counter() - t0
    t0 = time.perf_counter()
    evaluate_grid(mp, at={"z": [-1.0], "psi2": 0.5})
    t_compile = time.perf_counter() - t0
    z = np.linspace(-3.0, -0.01, 10_000)
    t_base, ref = best_of(lambda: mp_baseline(z, 0.5), args.repeat)
    t_scale, g1 = best_of(lambda: evaluate_grid(mp, at={"z": z, "psi2": 0.5}), args.repeat)
    t_grid, g2 = best_of(lambda: evaluate_grid(mp, at={"z": z, "psi2": 0.5}, branch="grid"), args.repeat)
    err = max(np.max(np.abs(g.value - ref) / np.abs(ref)) for g in (g1, g2))
    lines += [
        "## Marchenko–Pastur, 10,000 points",
        "",
        f"derivation {t_derive:.2f} s, first evaluation (lower + compile or load) {t_compile:.2f} s; "
        f"max relative difference to the closed form {err:.1e}",
        "",
        "| method | total (ms) | µs per point |",
        "|---|---|---|",
        f"| numpy closed form (baseline) | {1e3 * t_base:.2f} | {1e6 * t_base / z.size:.3f} |",
        f"| derived, continuation in t at every point | {1e3 * t_scale:.1f} | {1e6 * t_scale / z.size:.2f} |",
        f"| derived, warm starts along the grid | {1e3 * t_grid:.1f} | {1e6 * t_grid / z.size:.2f} |",
        "",
    ]

    # ---------------------------------------------------------------- RF ridge
    c = resolve_activation("relu", center=True).constants()
    eta, zeta = c.second_moment, c.mu1**2
    t0 = time.perf_counter()
    rf = derive(
        "F = mu1*W@X/sqrt(d) + mu2*Theta; tr(inv(F.T@F/m + lam*I))",
        dims="X:d,n; W:m,d; Theta:m,n",
        ratios="n/d=1/phi, m/d=1/psi",
        constants=activation_constants("relu"),
    )
    t_derive = time.perf_counter() - t0
    t0 = time.perf_counter()
    evaluate_grid(rf, at={"lam": [0.1], "phi": 1.5, "psi": 0.8})
    t_compile = time.perf_counter() - t0
    lams = np.geomspace(10.0, 1e-3, 1000)
    t_base, ref = best_of(lambda: rf_baseline(lams, 1.5, 0.8, eta, zeta), args.repeat)
    t_scale, g1 = best_of(lambda: evaluate_grid(rf, at={"lam": lams, "phi": 1.5, "psi": 0.8}), args.repeat)
    t_grid, g2 = best_of(
        lambda: evaluate_grid(rf, at={"lam": lams, "phi": 1.5, "psi": 0.8}, branch="grid"), args.repeat
    )
    err = max(np.max(np.abs(g.value - ref) / np.abs(ref)) for g in (g1, g2))
    lines += [
        "## Random-features ridge τ1 (centred ReLU, φ = 1.5, ψ = 0.8), 1,000 values of λ",
        "",
        f"pencil {rf.pencil.blocks} blocks (from {rf.raw_blocks[0]}), reduced system {len(rf.unknowns)} unknowns; "
        f"derivation {t_derive:.2f} s ({', '.join(f'{k} {v:.2f}' for k, v in rf.timings.items())}), "
        f"first evaluation {t_compile:.2f} s; max relative difference to the baseline {err:.1e}",
        "",
        "| method | total (ms) | µs per point | ratio to baseline |",
        "|---|---|---|---|",
        f"| scipy fsolve per point, warm starts (baseline) | {1e3 * t_base:.1f} | {1e6 * t_base / lams.size:.1f} | 1 |",
        f"| derived, continuation in t at every point | {1e3 * t_scale:.1f} | {1e6 * t_scale / lams.size:.1f} | "
        f"{t_base / t_scale:.1f}× faster |",
        f"| derived, warm starts along the grid | {1e3 * t_grid:.1f} | {1e6 * t_grid / lams.size:.1f} | "
        f"{t_base / t_grid:.1f}× faster |",
        "",
    ]
    text = "\n".join(lines) + "\n"
    write_text(Path(args.out), text)
    print(text)


if __name__ == "__main__":
    main()
