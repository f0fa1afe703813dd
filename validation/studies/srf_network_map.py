r"""The network map against the Cui-protocol network over the (η̃, α0) plane.

Simulates the one-step network of Cui et al. (``CuiConfig``: spherical W⁰, uniform readout, exact
first step, ridge with λ not rescaled, exact population risk) at each (η̃, α0) of a grid, at one or
more d, and compares the mean test error (± its standard error over seeds) with the network map
(``bulk="network"``) and the isotropic map of Cui et al. With two or more d the ladder is extrapolated
to d → ∞ by a weighted fit L + b/d (``validation.finite_size.fit``) and the limit is judged as well.

    python -m validation.studies.srf_network_map                       # the default study
    python -m validation.studies.srf_network_map --dims 1000 --seeds 8 --etas 5 --alpha0s 1

Mathematics: docs/spiked-rf-finite-width.md ("The network map"); the table is in that section.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time

import numpy as np

#: The default grid: weak and strong steps, small and large α0 (tanh/tanh, α = 3, λ = 0.01, β = 1).
ETAS = (1.0, 3.0, 5.0)
ALPHA0S = (0.5, 2.0, 20.0)
DIMS = (500, 1000)
SEEDS = (16, 12)
ROOT_SEED = 3030


def theory(eta: float, alpha0: float, alpha: float, lam: float, student: str, teacher: str) -> dict:
    """Network map, structured map (k = 0) and isotropic map at one point."""
    from asymptotics.theory.spiked_rf.network_map import network_one_step

    s = network_one_step(alpha, alpha0, 1.0, eta, lam, student, teacher)
    return {"network": s.test_error, "structured": s.test_error_structured, "isotropic": s.test_error_isotropic,
            "self_term": s.self_term, "bulk_excess": s.bulk_excess}


def simulate_point(eta, alpha0, alpha, lam, student, teacher, d, seeds, root_seed) -> tuple[float, float, float]:
    """(mean, s.e., seconds) of the network's test error over ``seeds`` seeds at dimension ``d``."""
    from validation.simulator import CuiConfig, simulate

    cfg = CuiConfig(d=d, alpha=alpha, alpha0=alpha0, beta=1.0, eta_tilde=eta, lam=lam, student=student,
                    teacher=teacher, measure=("risk",))
    t0 = time.perf_counter()
    res = simulate(cfg, seeds=seeds, root_seed=root_seed)
    return float(res.mean["test_error"]), float(res.se["test_error"]), time.perf_counter() - t0


def extrapolate(dims, means, ses) -> tuple[float, float]:
    """(limit, s.e.) of the weighted fit L + b/d (NaN with one d)."""
    if len(dims) < 2:
        return math.nan, math.nan
    from validation.finite_size.fit import PowerLawModel, weighted_fit

    f = weighted_fit(np.asarray(dims, float), np.asarray(means), np.asarray(ses), PowerLawModel(1.0))
    return float(f.coef[0]), float(math.sqrt(f.cov[0, 0]))


def run(etas=ETAS, alpha0s=ALPHA0S, dims=DIMS, seeds=SEEDS, alpha=3.0, lam=0.01, student="tanh", teacher="tanh",
        root_seed=ROOT_SEED, out=None) -> list[dict]:
    """One row per (η̃, α0, d) and one ``d = inf`` row per (η̃, α0) with the extrapolated limit."""
    rows = []
    for eta in etas:
        for a0 in alpha0s:
            th = theory(eta, a0, alpha, lam, student, teacher)
            ladder = []
            for d, ns in zip(dims, seeds, strict=True):
                mean, se, secs = simulate_point(eta, a0, alpha, lam, student, teacher, d, ns, root_seed)
                ladder.append((d, mean, se))
                rows.append(_row(eta, a0, d, ns, mean, se, th, secs))
                print(_line(rows[-1]), flush=True)
            if len(ladder) > 1:
                L, sL = extrapolate(*zip(*ladder, strict=True))
                rows.append(_row(eta, a0, "inf", sum(seeds), L, sL, th, 0.0))
                print(_line(rows[-1]), flush=True)
    if out:
        with open(out, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return rows


def _row(eta, a0, d, ns, mean, se, th, secs) -> dict:
    return {"eta_tilde": eta, "alpha0": a0, "d": d, "seeds": ns, "simulation": mean, "se": se,
            "network_map": th["network"], "z_network": (mean - th["network"]) / se,
            "isotropic_map": th["isotropic"], "z_isotropic": (mean - th["isotropic"]) / se,
            "structured_map": th["structured"], "z_structured": (mean - th["structured"]) / se,
            "rel_err_isotropic": th["isotropic"] / th["network"] - 1.0, "self_term": th["self_term"],
            "bulk_excess": th["bulk_excess"], "seconds": round(secs, 1)}


def _line(r) -> str:
    return (f"η̃={r['eta_tilde']:g} α0={r['alpha0']:g} d={r['d']} seeds={r['seeds']}: "
            f"sim {r['simulation']:.5f} ± {r['se']:.5f} | network {r['network_map']:.5f} (z {r['z_network']:+.2f}) "
            f"| structured {r['structured_map']:.5f} (z {r['z_structured']:+.2f}) "
            f"| isotropic {r['isotropic_map']:.5f} (z {r['z_isotropic']:+.2f}) [{r['seconds']} s]")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etas", default=",".join(map(str, ETAS)))
    ap.add_argument("--alpha0s", default=",".join(map(str, ALPHA0S)))
    ap.add_argument("--dims", default=",".join(map(str, DIMS)))
    ap.add_argument("--seeds", default=",".join(map(str, SEEDS)), help="seeds per d (one number or one per d)")
    ap.add_argument("--alpha", type=float, default=3.0)
    ap.add_argument("--lam", type=float, default=0.01)
    ap.add_argument("--student", default="tanh")
    ap.add_argument("--teacher", default="tanh")
    ap.add_argument("--root-seed", type=int, default=ROOT_SEED)
    ap.add_argument("--out", default=None, help="write the rows as csv")
    a = ap.parse_args(argv)
    dims = [int(x) for x in a.dims.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    seeds = seeds * len(dims) if len(seeds) == 1 else seeds
    run([float(x) for x in a.etas.split(",")], [float(x) for x in a.alpha0s.split(",")], dims, seeds, a.alpha, a.lam,
        a.student, a.teacher, a.root_seed, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
