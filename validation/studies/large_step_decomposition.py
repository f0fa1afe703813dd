"""Where the large-step network departs from the finite-N theory: the trained first layer taken apart
(docs/large-step-exact.md §4, "Gaussian initial columns").

For one finite-size variant of the large step (Ba et al. protocol, step on the labels as in the
theory), per seed: train W¹ with the library's simulator, then fit the same ridge on common data to

    network                         W¹ = W⁰ + U
    sphere-normalised               W⁰/‖w⁰ⱼ‖ + U            (the column norms removed)
    ... noise isotropic             W⁰/‖w⁰ⱼ‖ + S + g‖Ξⱼ‖     (S = v vᵀU the spike, Ξ = U − S, g fresh ⊥ v)
    ... self part + isotropic rest  W⁰/‖w⁰ⱼ‖ + S + sⱼw⁰ⱼ + g‖Ξⱼ − sⱼw⁰ⱼ‖
    ... self part removed           W⁰/‖w⁰ⱼ‖ + U − sⱼw⁰ⱼ    (sⱼ = ⟨w⁰ⱼ, Ξⱼ⟩/‖w⁰ⱼ‖²)
    sRF model at the seed's u       √c(u) w'ⱼ + r u v       (w' fresh unit columns: the theory's model)

and compare with the finite-N theory at the seed's own readout sample u (``readout="given"``, N
types of weight 1/N, unit columns) — which removes most of the seed-to-seed spread. Prints means
and paired differences, mean ± s.e. over seeds.

    python -m validation.studies.large_step_decomposition --variant large-step-exact-erf-psi1-8 --d 250 --seeds 96
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk
from asymptotics.theory.spiked_rf import cui_to_srf, readout_types
from validation.cases.large_step import SETTINGS
from validation.finite_size.catalogue import variants
from validation.simulator.config import BaConfig
from validation.simulator.engine import RunContext, exact_risks, ridge_readouts
from validation.simulator.protocols import ba_network
from validation.simulator.rng import Streams

_SETTING_OF = {"erf": "a", "tanh": "b", "relu": "c"}
NAMES = ("network", "sphere-normalised", "... noise isotropic", "... self part + isotropic rest",
         "... self part removed", "sRF model at the seed's u")


def one_seed(cfg: BaConfig, s: dict, root: int, index: int):
    ctx = RunContext(Streams(root, index, 1), cfg.student_activation(), cfg.teacher_activation())
    Ws = np.empty((2, cfg.d, cfg.N))
    beta, a, _ = ba_network(ctx, cfg, Ws, measure_gradient=False)
    W0, U = Ws[0].copy(), Ws[1] - Ws[0]
    W0s = W0 / np.linalg.norm(W0, axis=0)
    v = U @ a
    v /= np.linalg.norm(v)
    S = np.outer(v, v @ U)
    Xi = U - S
    rng = np.random.default_rng([root, index, 7])
    g = rng.standard_normal(W0.shape)
    g -= np.outer(v, v @ g)
    g /= np.linalg.norm(g, axis=0)
    own = np.einsum("ij,ij->j", W0, Xi) / np.einsum("ij,ij->j", W0, W0)
    rest = Xi - W0 * own
    u = a * math.sqrt(cfg.N)
    p = cui_to_srf(1.0, cfg.psi1, s["student"], s["teacher"], s["noise"], readout_types((1.0,), (1.0,)))
    wf = rng.standard_normal(W0.shape)
    wf /= np.linalg.norm(wf, axis=0)
    srf = wf * np.sqrt(1.0 + (p.bulk[0] - 1.0) * u * u) + np.outer(v, p.r * u)
    layers = np.stack([W0 + U, W0s + U, W0s + S + g * np.linalg.norm(Xi, axis=0),
                       W0s + S + W0 * own + g * np.linalg.norm(rest, axis=0), W0s + U - W0 * own, srf])
    ro = ridge_readouts(ctx, layers, beta, n=cfg.n, penalty=cfg.n * cfg.lam, noise=cfg.noise,
                        features=cfg.features, ck_index=None)
    risks = [pr.risk for pr in exact_risks(ctx, layers, ro.coefs, beta, features=cfg.features, rtol=cfg.risk_rtol)]
    theory = gaussian_readout_risk(s["student"], s["teacher"], cfg.psi1, s["psi2"], s["lam"], noise=s["noise"],
                                   width=cfg.N, readout="given", readout_values=tuple(u.tolist()),
                                   readout_proportions=tuple(np.full(cfg.N, 1.0 / cfg.N).tolist()), check=False)
    return risks + [theory.risk1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="large-step-exact-erf-psi1-8")
    ap.add_argument("--d", type=int, default=250)
    ap.add_argument("--seeds", type=int, default=24)
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args(argv)
    (var,) = variants([args.variant])
    point = {k: val for k, val in var.point().items() if k not in ("measure", "gradient")}
    cfg = BaConfig(d=args.d, measure=("risk",), gradient="labels", **point)
    s = SETTINGS[_SETTING_OF[cfg.student]]
    r = np.array([one_seed(cfg, s, args.seed, i) for i in range(args.seeds)])

    def ms(x):
        return f"{x.mean():+.5f} ± {x.std(ddof=1) / math.sqrt(len(x)):.5f}"

    print(f"{args.variant}, d = {args.d} (N = {cfg.N}), {args.seeds} seeds, step on the labels; "
          f"theory at the seeds' u: {ms(r[:, -1])}")
    for k, name in enumerate(NAMES):
        print(f"  {name:32s} {r[:, k].mean():.5f}   − theory(u) {ms(r[:, k] - r[:, -1])}   − network "
              f"{ms(r[:, k] - r[:, 0])}")


if __name__ == "__main__":
    main()
