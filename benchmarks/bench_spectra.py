"""Benchmark: limiting eigenvalue densities on 1000 points.

Compares, in the same run,

* **baseline** — a plain numpy implementation of the same equations as a researcher would write
  it: the two Gaussian-equivalent CK equations (from ``docs/spectra.md``) solved by Newton,
  vectorised over the 1000 points, with the same continuation in Im z (heights 10·s … 1e-10·s,
  ratio 0.1, as the library) and the boundary solve at y = 0;
* **library** — :func:`asymptotics.theory.spectra.support.density` of the compiled pencil system,
  and the whole :func:`asymptotics.theory.spectra.ck_spectrum` (support, edges by fold Newton,
  atom, mass, outlier) for reference;
* the large-step κ-mixture densities (Cui: one type; Ba: 8 readout types × 32 κ nodes).

Writes ``benchmarks/results/spectra.md``. Usage::

    python benchmarks/bench_spectra.py [--points 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import numpy as np

from asymptotics.theory.one_step import OneStepModel
from asymptotics.theory.spectra import ba_step, ck_spectrum, cui_step, ge_ck_bulk
from asymptotics.theory.spectra.large_step import ck_bulk_large, large_step_features
from asymptotics.theory.spectra.support import density

ROOT = Path(__file__).resolve().parents[1]


def baseline_density(x, mu1, mu2, psi1, psi2, scale):
    """Newton on F1 = −g11 g22 μ1²ψ2 (μ2² g11 g22 ψ2 + g11 z + 1) … (the reduced pencil equations),
    vectorised, continued from large Im z."""
    m1, m2 = mu1**2, mu2**2

    def FJ(a, b, z):
        F1 = (a * a * b * b * m1 * m2 * psi2**2 + a * b * b * m1 * psi1 * psi2 + a * b * m1 * psi1 * psi2
              - a * b * m1 * psi2 - a * b * m2 * psi2 - b * psi1 - psi1)
        F2 = -a * a * b * b * m1 * m2 * psi2 - a * a * b * m1 * psi2 * z - a * b * m1 * psi2 + a * b * m1 + a * b * m2 + a * z + 1
        d1a = 2 * a * b * b * m1 * m2 * psi2**2 + b * b * m1 * psi1 * psi2 + b * m1 * psi1 * psi2 - b * m1 * psi2 - b * m2 * psi2
        d1b = 2 * a * a * b * m1 * m2 * psi2**2 + 2 * a * b * m1 * psi1 * psi2 + a * m1 * psi1 * psi2 - a * m1 * psi2 - a * m2 * psi2 - psi1
        d2a = -2 * a * b * b * m1 * m2 * psi2 - 2 * a * b * m1 * psi2 * z - b * m1 * psi2 + b * m1 + b * m2 + z
        d2b = -2 * a * a * b * m1 * m2 * psi2 - a * a * m1 * psi2 * z - a * m1 * psi2 + a * m1 + a * m2
        return F1, F2, d1a, d1b, d2a, d2b

    def newton(a, b, z):
        for _ in range(60):
            F1, F2, A, B, C, D = FJ(a, b, z)
            if np.max(np.abs(F1) + np.abs(F2)) < 1e-13:
                break
            det = A * D - B * C
            a, b = a - (D * F1 - B * F2) / det, b - (A * F2 - C * F1) / det
        return a, b

    y = 10 * scale
    z = x + 1j * y
    a, b = -1 / z, -np.ones_like(z)
    while y > 1e-10 * scale:
        y *= 0.1
        a, b = newton(a, b, x + 1j * y)
    a0, b0 = newton(a, b, x + 0j)
    keep = a0.imag >= -1e-10
    a = np.where(keep, a0, a)
    return np.maximum(a.imag, 0) / np.pi


def best(fn, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts), out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "spectra.md"))
    a = ap.parse_args(argv)
    m = OneStepModel.from_activations("tanh", "tanh", noise=0.1)
    psi1, psi2 = 3.0, 1.0
    bulk = ge_ck_bulk(m.mu1, m.mu2_sq, psi1, psi2)
    x = np.linspace(1e-3, 2.1, a.points)
    t_cold = time.perf_counter()
    density(bulk, x[:2])
    t_cold = time.perf_counter() - t_cold
    t_lib, (rho_lib, _, _) = best(lambda: density(bulk, x), a.repeat)
    t_base, rho_base = best(lambda: baseline_density(x, m.mu1, m.mu2, psi1, psi2, bulk.scale), a.repeat)
    diff = float(np.max(np.abs(rho_lib - rho_base)))
    step = ba_step("tanh", "tanh", psi1=psi1, psi2=psi2, eta=6.0, noise=0.1)
    t_full, _ = best(lambda: ck_spectrum(step, points=a.points), 1)
    cui = cui_step("tanh", "tanh", alpha=2.0, beta=1.0, eta_tilde=3.0, alpha0=2.0)
    mix_c = ck_bulk_large(cui, large_step_features(cui))
    xc = np.linspace(1e-3, 1.5, a.points)
    density(mix_c, xc[:2])
    t_cui, _ = best(lambda: density(mix_c, xc), 1)
    bal = ba_step("tanh", "tanh", psi1=2.0, psi2=1.0, eta=1.0, noise=0.1, regime="large")
    mix_b = ck_bulk_large(bal, large_step_features(bal))
    xb = np.linspace(1e-3, 2.0, a.points)
    t_ba, _ = best(lambda: density(mix_b, xb), 1)
    lines = [
        "# Spectra: densities on a grid", "",
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared), python {platform.python_version()}",
        f"grid: {a.points} points; best of {a.repeat}", "",
        "| what | seconds | vs baseline |", "|---|---|---|",
        f"| baseline: numpy Newton on the CK equations, vectorised, same continuation | {t_base:.3f} | 1 |",
        f"| library: compiled pencil system, `density` | {t_lib:.3f} | {t_base / t_lib:.1f}× faster |",
        f"| library: whole `ck_spectrum` (support, fold edges, atom, mass, outlier) | {t_full:.3f} | |",
        f"| κ-mixture density, Cui (1 type × 32 κ nodes) | {t_cui:.3f} | |",
        f"| κ-mixture density, Ba large step (8 types × 32 κ nodes) | {t_ba:.3f} | |",
        f"| first call in a fresh process (loads the cached machine code) | {t_cold:.3f} | |", "",
        f"max |ρ_library − ρ_baseline| = {diff:.2e}",
    ]
    text = "\n".join(lines) + "\n"
    Path(a.out).write_text(text)
    print(text)
    if not math.isfinite(diff) or diff > 1e-8:
        raise SystemExit("the library and the baseline disagree")


if __name__ == "__main__":
    main()
