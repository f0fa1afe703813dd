"""The initial output f₀ in the large step, taken apart (docs/large-step-exact.md §1, "The initial output f₀").

The exact step uses the residual y − f₀(X), f₀(x) = Σⱼ cⱼ σ(⟨w⁰ⱼ, x⟩), cⱼ = aⱼ/√N; the simulator's
``gradient="labels"`` uses y. Their difference is the f₀ part of the update,

    Uf_i = −lr cᵢ (1/n) Σ_μ f₀(x_μ) σ'(⟨w⁰ᵢ, x_μ⟩) x_μ,

whose population mean is, by Stein's lemma, at leading order in the overlaps ρᵢⱼ = ⟨w⁰ᵢ, w⁰ⱼ⟩,

    common  A_i = −lr cᵢ m(ρᵢ) Σ_{j≠i} cⱼ m(ρⱼ) w⁰ⱼ         (m(ρ) = E σ'(ρz): one direction W⁰c for all)
    self    S_i = −lr cᵢ² E[(σσ')'(ρᵢz)] w⁰ᵢ               (O(1/N) along the neuron's own column).

With its diagonal, A is the collective shrink W⁰ ↦ W⁰(I − ε q qᵀ), q ∝ c∘m, ε = lr‖c∘m‖², which the
theory (asymptotics.theory.large_step.initial_output) replaces by a Gaussian of the same law: an
independent second spike γ'ω qᵀ with γ'² = (1 − ε)² − 1. The tool checks that replacement where
the network can: a *positive* independent spike (γ'² = 2ε − ε², ω ~ N(0, I/d)) must move the risk
by minus the shrink's amount (first order in γ'²), and the same shrink or spike along a random
profile q' (not the spike's) must do almost nothing.

Per seed (Ba et al. protocol, common random numbers) one ridge is fitted on common data to

    labels step                         W_L = W⁰ + U(y)
    ... + common direction A            W_L + A
    ... + common + self S               W_L + A + S
    ... + population mean P             W_L + P̂      (P̂: the f₀ part on fresh sets of n points)
    ... + shrink along q (A with j = i) W_L − ε W⁰qqᵀ
    ... + independent spike along q     W_L + √(2ε − ε²) ω qᵀ
    ... + shrink along a random q'      W_L − ε W⁰q'q'ᵀ
    ... + independent spike along q'    W_L + √(2ε − ε²) ω q'ᵀ
    exact step                          W_E = W_L + Uf

and the tool prints the mean risk and the paired differences (mean ± s.e. over seeds) against W_L
and W_E, and the theory's exact − labels difference at the same width.

    python -m validation.studies.large_step_initial_output --variant large-step-exact-erf-psi1-8 --d 250 --seeds 48 \
        [--initial-columns unit]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension
from validation.finite_size.catalogue import variants
from validation.simulator.config import BaConfig
from validation.simulator.engine import RunContext, exact_risks, ridge_readouts
from validation.simulator.protocols import ba_network
from validation.simulator.rng import Streams

NAMES = ("labels step", "... + common direction A", "... + common + self S", "... + population mean P",
         "... + shrink along q", "... + independent spike along q", "... + shrink along random q'",
         "... + independent spike along q'", "exact step")
_Z, _WZ = np.polynomial.hermite_e.hermegauss(200)
_WZ = _WZ / _WZ.sum()


def _gauss(fn, rho: np.ndarray) -> np.ndarray:
    """E fn(ρz, z) for each ρ (Gauss–Hermite, 200 nodes; σ' with a kink is resolved to ~1e-4, enough
    for a direction whose whole effect is ~1e-3 of the risk)."""
    return np.array([_WZ @ fn(r * _Z, _Z) for r in rho])


def f0_part(ctx: RunContext, W0: np.ndarray, c: np.ndarray, lr: float, X: np.ndarray) -> np.ndarray:
    """−lr cᵢ (1/n) Xᵀ[f₀(X) ⊙ σ'(XW⁰)_i] for every neuron i (the f₀ part of the update)."""
    Z = X @ W0
    f0 = ctx.student.numpy(Z) @ c
    return (-lr / len(X)) * (X.T @ (f0[:, None] * ctx.student.numpy_derivative(Z))) * c[None, :]


def one_seed(cfg_l: BaConfig, cfg_e: BaConfig, root: int, index: int, probe: int):
    out = []
    for cfg in (cfg_l, cfg_e):
        ctx = RunContext(Streams(root, index, 1), cfg.student_activation(), cfg.teacher_activation())
        Ws = np.empty((2, cfg.d, cfg.N))
        beta, a, _ = ba_network(ctx, cfg, Ws, measure_gradient=False)
        out.append(Ws)
    (W0, WL), (W0e, WE) = out
    assert np.array_equal(W0, W0e)
    N, lr = cfg_l.N, cfg_l.learning_rate * math.sqrt(cfg_l.N)
    c = a / math.sqrt(N)
    rho = np.linalg.norm(W0, axis=0)
    sig, dsig = ctx.student.numpy, ctx.student.numpy_derivative
    m = _gauss(lambda x, z: dsig(x), rho)
    e_self = _gauss(lambda x, z: z * sig(x) * dsig(x), rho) / rho  # E[(σσ')'(ρz)] = E[z σσ'(ρz)]/ρ
    common = W0 @ (c * m)
    A = -lr * np.outer(common, c * m) + lr * W0 * (c * m) ** 2  # j ≠ i
    S = -lr * W0 * c**2 * e_self
    rng = np.random.default_rng([root, index, 11])
    P = sum(f0_part(ctx, W0, c, lr, rng.standard_normal((cfg_l.n, cfg_l.d))) for _ in range(probe)) / probe
    p = c * m
    eps = lr * float(p @ p)
    q = p / np.linalg.norm(p)
    qr = rng.standard_normal(N)
    qr /= np.linalg.norm(qr)
    omega = rng.standard_normal(cfg_l.d) / math.sqrt(cfg_l.d)
    g = math.sqrt(2 * eps - eps**2)
    layers = np.stack([WL, WL + A, WL + A + S, WL + P, WL - eps * np.outer(W0 @ q, q), WL + g * np.outer(omega, q),
                       WL - eps * np.outer(W0 @ qr, qr), WL + g * np.outer(omega, qr), WE])
    ro = ridge_readouts(ctx, layers, beta, n=cfg_l.n, penalty=cfg_l.n * cfg_l.lam, noise=cfg_l.noise,
                        features=cfg_l.features, ck_index=None)
    risks = [pr.risk for pr in exact_risks(ctx, layers, ro.coefs, beta, features=cfg_l.features,
                                           rtol=cfg_l.risk_rtol)]
    Uf = WE - WL
    share = [float(np.sum(Uf * B) / np.sum(Uf * Uf)) for B in (A, S, P)]
    return risks, share, eps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="large-step-exact-erf-psi1-8")
    ap.add_argument("--d", type=int, default=250)
    ap.add_argument("--seeds", type=int, default=24)
    ap.add_argument("--probe", type=int, default=16, help="fresh sets of n points for the population mean")
    ap.add_argument("--seed", type=int, default=20261205)
    ap.add_argument("--initial-columns", default="gaussian", choices=("gaussian", "unit"))
    args = ap.parse_args(argv)
    (var,) = variants([args.variant])
    point = {k: val for k, val in var.point().items() if k not in ("measure", "gradient")}
    cols = args.initial_columns
    cfg_l = BaConfig(d=args.d, measure=("risk",), gradient="labels", initial_columns=cols, **point)
    cfg_e = BaConfig(d=args.d, measure=("risk",), gradient="exact", initial_columns=cols, **point)
    rows = [one_seed(cfg_l, cfg_e, args.seed, i, args.probe) for i in range(args.seeds)]
    r = np.array([row[0] for row in rows])
    sh = np.array([row[1] for row in rows])
    eps = float(np.mean([row[2] for row in rows]))
    N = width_from_dimension(point["psi2"], args.d)
    th = [gaussian_readout_risk(point["student"], point["teacher"], point["psi1"], point["psi2"], point["lam"],
                                noise=point["noise"], c=point["eta"], width=N, initial_columns=cols, gradient=g).risk1
          for g in ("labels", "exact")]

    def ms(x):
        return f"{x.mean():+.6f} ± {x.std(ddof=1) / math.sqrt(len(x)):.6f}"

    print(f"{args.variant}, {cols} columns, d = {args.d} (N = {cfg_l.N}), {args.seeds} seeds, root {args.seed}; ⟨Uf, B⟩/‖Uf‖² for "
          f"B = A, S, P: {', '.join(f'{s:.3f}' for s in sh.mean(axis=0))}; ε = {eps:.4f}")
    for k, name in enumerate(NAMES):
        print(f"  {name:36s} {r[:, k].mean():.6f}   − labels {ms(r[:, k] - r[:, 0])}   − exact "
              f"{ms(r[:, k] - r[:, -1])}")
    print(f"  theory ({cols} columns, N = {N:g}): labels {th[0]:.6f}, exact {th[1]:.6f}, exact − labels "
          f"{th[1] - th[0]:+.6f}")


if __name__ == "__main__":
    main()
