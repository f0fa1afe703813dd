"""The norms of the Gaussian initial columns in the large step: network against theory, paired
(docs/large-step-exact.md §4, "Gaussian initial columns").

For one finite-size variant of the large step (Ba et al. protocol), per seed: R1 of the network with
W⁰ as drawn (N(0, 1/d) entries) and with the same W⁰ normalised to the sphere (common random numbers:
`BaConfig(initial_columns="unit")`), the step on the labels y as in the theory. Prints, per d, both
means, their paired difference, and the difference of the finite-N theory between
`initial_columns="gaussian"` and `"unit"`, with its z-score.

    python -m validation.studies.large_step_column_norms --variant large-step-exact-relu-psi1-8 --d 250,500,1000 --seeds 32,16,6
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension
from validation.cases.large_step import SETTINGS
from validation.finite_size.catalogue import variants
from validation.simulator.config import BaConfig
from validation.simulator.protocols import run_seed

_SETTING_OF = {"erf": "a", "tanh": "b", "relu": "c"}


def paired(var, d: int, seeds: int, root: int):
    point = {k: v for k, v in var.point().items() if k not in ("measure", "gradient")}
    base = dict(point, d=d, measure=("risk",), gradient="labels")
    r = np.array([[run_seed(BaConfig(**base, initial_columns=c), root, i, threads=1)["risk1"] for c in ("gaussian", "unit")]
                  for i in range(seeds)])
    return r


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="large-step-exact-erf-psi1-8")
    ap.add_argument("--d", default="250,500,1000")
    ap.add_argument("--seeds", default="48,24,12")
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args(argv)
    (var,) = variants([args.variant])
    s = SETTINGS[_SETTING_OF[var.point()["student"]]]
    dims = [int(x) for x in args.d.split(",")]
    seeds = [int(x) for x in args.seeds.split(",")]
    print(f"{args.variant}: step on the labels, root seed {args.seed}")
    for d, n in zip(dims, seeds, strict=True):
        r = paired(var, d, n, args.seed)
        diff = r[:, 0] - r[:, 1]
        se = diff.std(ddof=1) / math.sqrt(n)
        N = width_from_dimension(s["psi2"], d)
        th = [gaussian_readout_risk(s["student"], s["teacher"], var.point()["psi1"], s["psi2"], s["lam"], noise=s["noise"],
                                    width=N, initial_columns=c).risk1 for c in ("gaussian", "unit")]
        print(f"  d = {d:5d}, {n:3d} seeds: Gaussian {r[:, 0].mean():.5f}, unit {r[:, 1].mean():.5f}; paired difference "
              f"{diff.mean():+.5f} ± {se:.5f}; theory {th[0]:.5f} / {th[1]:.5f}, difference {th[0] - th[1]:+.5f} "
              f"(z = {(diff.mean() - th[0] + th[1]) / se:+.1f})", flush=True)


if __name__ == "__main__":
    main()
