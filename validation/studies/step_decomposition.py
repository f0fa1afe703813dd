"""Which part of one large step the network's readout uses: the test error of the Cui et al. network
with its first layer taken apart (docs/spiked-rf-finite-width.md, "The self term").

One seed: θ, W⁰ (unit columns), the step w¹ⱼ = w⁰ⱼ + η̃ (1/n0) Σ_μ (y_μ − f0(x_μ)) σ'(⟨w⁰ⱼ, x_μ⟩) x_μ
(uniform readout, tanh student), then on common data (a fresh ridge set of n = αd samples, λ‖a‖², and
10⁴ test points) the same readout on each of these first layers (v: the spike direction W¹1/‖W¹1‖;
sⱼ = ⟨w⁰ⱼ, w¹ⱼ − w⁰ⱼ − spike⟩, the measured self part; k = η̃ E[tanh⁽³⁾] ‖ĝ‖, ‖ĝ‖² = h1*² + E y²/α0):

    network                        W¹
    network − self part            W¹ − W⁰ diag(s)
    W⁰ + spike                     W⁰ + v vᵀ(W¹ − W⁰)
    W⁰ + spike + k⟨w⁰, v⟩ self      W⁰ diag(1 + k W⁰ᵀv) + v vᵀ(W¹ − W⁰)       (the theory's self term)
    W⁰ + spike + population self   W⁰ diag(1 + kγ W⁰ᵀθ) + v vᵀ(W¹ − W⁰)      (its d → ∞ mean, along θ)
    W⁰ + spike + measured self     W⁰ diag(1 + s) + v vᵀ(W¹ − W⁰)
    network, self → k⟨w⁰, v⟩        W¹ − W⁰ diag(s − k W⁰ᵀv)                  (the rest of the step kept)
    sRF (measured c, r)            √c W' + r v 1ᵀ, W' fresh                  (Cui et al.'s map, measured)
    sRF + self term                √c W' diag(1 + k W'ᵀv) + r v 1ᵀ

and the slopes of s on ⟨w⁰ⱼ, v⟩ (the theory: k) and on ⟨w⁰ⱼ, θ⟩ (kγ). Paired differences against the
network, mean ± s.e. over seeds. Plain numpy, independent of the library.

    python -m validation.studies.step_decomposition --teacher sin --eta-tilde 3 --alpha0 20 --lam 0.1 --alpha 3 --d 1000 --seeds 8
"""

from __future__ import annotations

import argparse
import math

import numpy as np

TEACHERS = {"sin": np.sin, "tanh": np.tanh}


def _gauss_mean(f) -> float:
    x, w = np.polynomial.hermite_e.hermegauss(200)
    return float((w / w.sum()) @ f(x))


def _tanh3(z):
    t = np.tanh(z)
    s = 1 - t * t
    return -2 * s * (s - 2 * t * t)


def self_term_k(eta: float, alpha0: float, teacher: str) -> tuple[float, float]:
    """(k, γ): k = η̃ E[tanh⁽³⁾(g)] ‖ĝ‖ and γ = h1*/‖ĝ‖ (Gauss–Hermite, 200 nodes)."""
    f = TEACHERS[teacher]
    h1s = _gauss_mean(lambda g: g * f(g))
    gnorm = math.sqrt(h1s**2 + _gauss_mean(lambda g: f(g) ** 2) / alpha0)
    return eta * _gauss_mean(_tanh3) * gnorm, h1s / gnorm


def _unit_columns(rng, d, p):
    W = rng.standard_normal((d, p))
    return W / np.linalg.norm(W, axis=0)


def _test_error(F, X, y, Xt, yt, lam):
    p = F.shape[1]
    Z = np.tanh(X @ F)
    a = np.linalg.solve(Z.T @ Z / p + lam * np.eye(p), Z.T @ y / math.sqrt(p))
    return float(np.mean((np.tanh(Xt @ F) @ a / math.sqrt(p) - yt) ** 2))


def one_seed(rng, d, teacher, eta, alpha0, lam, alpha):
    fstar = TEACHERS[teacher]
    k, gam = self_term_k(eta, alpha0, teacher)
    p, n0, n = d, round(alpha0 * d), round(alpha * d)
    th = rng.standard_normal(d)
    th /= np.linalg.norm(th)
    W0 = _unit_columns(rng, d, p)
    X0 = rng.standard_normal((n0, d))
    Z0 = X0 @ W0
    resid = fstar(X0 @ th) - np.tanh(Z0).mean(axis=1)            # y − f0, f0 = σ(XW⁰)1/p
    G = eta * (X0.T @ (resid[:, None] * (1 - np.tanh(Z0) ** 2))) / n0
    del X0, Z0
    W1 = W0 + G
    s = W1.mean(axis=1)
    c = (np.sum(W1 * W1) - p * (s @ s)) / p
    r = math.sqrt(max(s @ s - c / p, 0.0))
    v = s / np.linalg.norm(s)
    X = rng.standard_normal((n, d))
    Xt = rng.standard_normal((10_000, d))
    y, yt = fstar(X @ th), fstar(Xt @ th)
    spike = np.outer(v, v @ G)
    own = np.einsum("ij,ij->j", W0, G - spike)                   # each column's update along its own w⁰ⱼ
    rv, rho = W0.T @ v, W0.T @ th
    Wf = _unit_columns(rng, d, p)
    layers = {
        "network": W1,
        "network − self part": W1 - W0 * own[None, :],
        "W⁰ + spike": W0 + spike,
        "W⁰ + spike + k⟨w⁰, v⟩ self": W0 * (1 + k * rv)[None, :] + spike,
        "W⁰ + spike + population self": W0 * (1 + k * gam * rho)[None, :] + spike,
        "W⁰ + spike + measured self": W0 * (1 + own)[None, :] + spike,
        "network, self → k⟨w⁰, v⟩": W1 - W0 * (own - k * rv)[None, :],
        "sRF (measured c, r)": math.sqrt(c) * Wf + r * v[:, None],
        "sRF + self term": math.sqrt(c) * Wf * (1 + k * (Wf.T @ v))[None, :] + r * v[:, None],
    }
    out = {name: _test_error(F, X, y, Xt, yt, lam) for name, F in layers.items()}
    out["slope of s on ⟨w⁰, v⟩ (k)"] = float(np.polyfit(rv, own, 1)[0])
    out["slope of s on ⟨w⁰, θ⟩ (kγ)"] = float(np.polyfit(rho, own, 1)[0])
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--teacher", choices=sorted(TEACHERS), default="sin")
    ap.add_argument("--eta-tilde", type=float, default=3.0)
    ap.add_argument("--alpha0", type=float, default=20.0)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--alpha", type=float, default=3.0)
    ap.add_argument("--d", type=int, default=400)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--seed", type=int, default=20261203)
    a = ap.parse_args(argv)
    k, gam = self_term_k(a.eta_tilde, a.alpha0, a.teacher)
    runs = [one_seed(np.random.default_rng(np.random.SeedSequence([a.seed, a.d, i])), a.d, a.teacher, a.eta_tilde,
                     a.alpha0, a.lam, a.alpha) for i in range(a.seeds)]
    print(f"tanh/{a.teacher}, η̃ = {a.eta_tilde:g}, α0 = {a.alpha0:g}, λ = {a.lam:g}, α = {a.alpha:g}, d = p = {a.d}, "
          f"{a.seeds} seeds; k = {k:.4f}, kγ = {k * gam:.4f}")
    base = np.array([r["network"] for r in runs])
    for name in runs[0]:
        vals = np.array([r[name] for r in runs])
        diff = vals - base
        se = vals.std(ddof=1) / math.sqrt(len(vals))
        dse = diff.std(ddof=1) / math.sqrt(len(vals))
        print(f"  {name:32s} {vals.mean():.5f} ± {se:.5f}" +
              ("" if name == "network" or name.startswith("slope") else f"   − network: {diff.mean():+.5f} ± {dse:.5f}"))


if __name__ == "__main__":
    main()
