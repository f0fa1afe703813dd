"""Does the step's self term explain the large step's deficit against the finite-N theory?
(docs/finite-size.md, "Results: the large step"; docs/spiked-rf-finite-width.md, "The self term").

For one finite-size variant of the large step (Ba et al. protocol, Gaussian readout a ~ N(0, 1/N)),
per seed: train W¹ with the library's simulator, remove from each column its update along its own w⁰ⱼ
(the self part sⱼ, after the spike v vᵀ(W¹ − W⁰) with v ∝ (W¹ − W⁰)a), and compute the exact test risk
R1 of the same ridge readout on both first layers (common data). Prints the finite-N theory, both
risks, their paired difference, and the slope and correlation of sⱼ on aⱼ⟨w⁰ⱼ, v⟩.

    python -m validation.studies.large_step_self_part --variant large-step-exact-erf-psi1-8 --d 500 --seeds 40
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from validation.finite_size.catalogue import variants
from validation.simulator.config import BaConfig
from validation.simulator.engine import RunContext, exact_risks, ridge_readouts
from validation.simulator.protocols import ba_network
from validation.simulator.rng import Streams


def one_seed(cfg: BaConfig, root: int, index: int):
    ctx = RunContext(Streams(root, index, 1), cfg.student_activation(), cfg.teacher_activation())
    Ws = np.empty((2, cfg.d, cfg.N))
    beta, a, _ = ba_network(ctx, cfg, Ws, measure_gradient=False)
    W0, W1 = Ws[0].copy(), Ws[1].copy()
    U = W1 - W0
    v = U @ a
    v /= np.linalg.norm(v)
    own = np.einsum("ij,ij->j", W0, U - np.outer(v, v @ U)) / np.einsum("ij,ij->j", W0, W0)
    x = a * (W0.T @ v)
    layers = np.stack([W1, W1 - W0 * own[None, :]])
    ro = ridge_readouts(ctx, layers, beta, n=cfg.n, penalty=cfg.n * cfg.lam, noise=cfg.noise,
                        features=cfg.features, ck_index=None)
    pr = exact_risks(ctx, layers, ro.coefs, beta, features=cfg.features, rtol=cfg.risk_rtol)
    return pr[0].risk, pr[1].risk, float(np.polyfit(x * math.sqrt(cfg.N), own, 1)[0]), float(np.corrcoef(own, x)[0, 1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="large-step-exact-erf-psi1-8")
    ap.add_argument("--d", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args(argv)
    (var,) = variants([args.variant])
    point = {k: val for k, val in var.point().items() if k != "measure"}
    cfg = BaConfig(d=args.d, measure=("risk",), **point)
    theory = var.quantities[0].finite_theory(args.d)
    r = np.array([one_seed(cfg, args.seed, i) for i in range(args.seeds)])

    def se(x):
        return x.std(ddof=1) / math.sqrt(len(x))

    diff = r[:, 1] - r[:, 0]
    print(f"{args.variant}, d = {args.d}, {args.seeds} seeds: finite-N theory {theory:.5f}")
    print(f"  network R1            {r[:, 0].mean():.5f} ± {se(r[:, 0]):.5f} ({100 * (r[:, 0].mean() / theory - 1):+.1f} %)")
    print(f"  self part removed     {r[:, 1].mean():.5f} ± {se(r[:, 1]):.5f} ({100 * (r[:, 1].mean() / theory - 1):+.1f} %)")
    print(f"  paired difference     {diff.mean():+.5f} ± {se(diff):.5f}")
    print(f"  slope of s on √N aⱼ⟨w⁰ⱼ, v⟩ {r[:, 2].mean():.4f} ± {se(r[:, 2]):.4f}, correlation {r[:, 3].mean():.3f}")


if __name__ == "__main__":
    main()
