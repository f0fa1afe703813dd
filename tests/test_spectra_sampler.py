"""A self-contained numpy reference sampler of the one-step networks' spectra, and its own checks.

The sampler is the independent reference of the spectrum tests (the project's simulator gets a
``--measure spectrum`` later; this file is what it must reproduce).

Ba et al. (one full-batch step, ``docs/one-step.md``): β* uniform on the sphere, W₀ ∈ ℝ^{d×N} with
N(0, 1/d) entries, a ∈ ℝᴺ with N(0, 1/N) entries, X ∈ ℝ^{n×d} standard, y = σ*(Xβ*) + σ_ε ε,

    G₀ = (1/n) Xᵀ[((1/√N)(y − (1/√N) σ(XW₀) a) aᵀ) ⊙ σ'(XW₀)],   W₁ = W₀ + η√N G₀,

η = Θ(1) (``regime="small"``) or η = c√N (``regime="large"``, ``eta`` is then c). Fresh data
X̃ ∈ ℝ^{n×d}, ỹ; features F = σ(X̃W₁) (true) and F = μ1 X̃W₁ + μ2 Z (Gaussian equivalent); the
CK Gram FᵀF/n (N×N).

Cui et al. (``docs/spiked-rf.md``): rows of W⁰ ∈ ℝ^{p×d} uniform on the sphere, uniform readout
a⁰ = 1/√p, a batch of n0 = α0 d samples, w¹ⱼ = w⁰ⱼ + η̃ (1/n0) Σ_μ (y_μ − f0(x_μ)) σ'(w⁰ⱼ·x_μ) x_μ,
f0 = (1/p) Σⱼ σ(w⁰ⱼ·x); fresh n = α d samples; features σ(X W¹ᵀ) ∈ ℝ^{n×p}; CK Gram ΦᵀΦ/n.

Every draw comes from ``numpy.random.SeedSequence([seed, d])``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from asymptotics.activations import activation

__all__ = ["sample_ba", "sample_cui", "gram_spectrum", "weights_spectrum_sample", "ks_distance", "w1_distance"]


def _unit(rng, d):
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def _sq_overlap(a, b):
    return float(np.dot(a, b) ** 2 / (np.dot(a, a) * np.dot(b, b)))


def gram_spectrum(F: np.ndarray, top: int = 3, directions_n: dict | None = None, directions_N: dict | None = None) -> dict:
    """Eigenvalues of FᵀF/n (N×N) and, for the ``top`` largest, the squared overlaps of the
    eigenvector ŵ ∈ ℝᴺ with ``directions_N`` and of ŷ = Fŵ/‖Fŵ‖ ∈ ℝⁿ with ``directions_n``."""
    n = F.shape[0]
    K = F.T @ F / n
    ev, vec = np.linalg.eigh(K)
    out = {"eigenvalues": ev, "top": []}
    for k in range(1, top + 1):
        w = vec[:, -k]
        yv = F @ w
        ov = {name: _sq_overlap(w, d) for name, d in (directions_N or {}).items()}
        ov.update({name: _sq_overlap(yv, d) for name, d in (directions_n or {}).items()})
        out["top"].append({"location": float(ev[-k]), "overlaps": ov})
    return out


def weights_spectrum_sample(W: np.ndarray, directions_left: dict, directions_right: dict, top: int = 2) -> dict:
    """Eigenvalues of WᵀW (N×N; W ∈ ℝ^{d×N}) and the squared overlaps of the top left (ℝᵈ) and
    right (ℝᴺ) singular vectors with the given directions."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    ev = np.sort(np.concatenate([s**2, np.zeros(max(0, W.shape[1] - s.size))]))
    out = {"eigenvalues": ev, "top": []}
    for k in range(top):
        ov = {name: _sq_overlap(U[:, k], d) for name, d in directions_left.items()}
        ov.update({name: _sq_overlap(Vt[k], d) for name, d in directions_right.items()})
        out["top"].append({"location": float(s[k] ** 2), "overlaps": ov})
    return out


def sample_ba(d: int, *, psi1: float, psi2: float, eta: float, student="tanh", teacher="tanh", noise: float = 0.1,
              seed: int = 0, regime: str = "small", features=("true", "ge"), before: bool = False, top: int = 3) -> dict:
    """One draw of the Ba et al. network; the spectra of W₁ᵀW₁ and of the CK Gram (see the module
    docstring). Keys: ``weights``, ``ck_true``, ``ck_ge`` (and ``*_before`` with W₀)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, d]))
    s, t = activation(student, center=True), activation(teacher, center=True)
    cs = s.constants()
    N, n = round(psi2 * d), round(psi1 * d)
    beta = _unit(rng, d)
    W0 = rng.standard_normal((d, N)) / math.sqrt(d)
    a = rng.standard_normal(N) / math.sqrt(N)
    X = rng.standard_normal((n, d))
    y = t.numpy(X @ beta) + noise * rng.standard_normal(n)
    H = X @ W0
    f0 = s.numpy(H) @ a / math.sqrt(N)
    G0 = X.T @ ((((y - f0) / math.sqrt(N))[:, None] * a[None, :]) * s.numpy_derivative(H)) / n
    del H
    lr = eta * math.sqrt(N) if regime == "small" else eta * N
    W1 = W0 + lr * G0
    u = X.T @ y
    del X, G0
    out = {"N": N, "n": n, "d": d}
    out["weights"] = weights_spectrum_sample(W1, {"teacher": beta, "gradient": u}, {"readout": a})
    if before:
        out["weights_before"] = weights_spectrum_sample(W0, {"teacher": beta}, {"readout": a})
    Xt = rng.standard_normal((n, d))
    fstar = t.numpy(Xt @ beta)
    yt = fstar + noise * rng.standard_normal(n)
    dirs_n = {"labels": yt - yt.mean(), "teacher": fstar, "teacher_linear": Xt @ beta}
    v1 = np.linalg.svd(W1, full_matrices=False)[2][0]
    dirs_N = {"spike_direction": v1, "readout": a}
    mats = [("", W1)] + ([("_before", W0)] if before else [])
    for tag, W in mats:
        P = Xt @ W
        if "true" in features:
            out["ck_true" + tag] = gram_spectrum(s.numpy(P), top, dirs_n, dirs_N)
        if "ge" in features:
            Z = rng.standard_normal((n, N))
            out["ck_ge" + tag] = gram_spectrum(cs.mu1 * P + cs.mu2 * Z, top, dirs_n, dirs_N)
    return out


def sample_cui(d: int, *, alpha: float, beta: float, eta_tilde: float, alpha0: float, student="tanh", teacher="tanh",
               noise: float = 0.0, seed: int = 0, features=("true", "ge"), top: int = 3) -> dict:
    """One draw of the Cui et al. network (uniform readout); keys as :func:`sample_ba`. The
    N×N Grams are in neuron space (p×p)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, d, 1]))
    s, t = activation(student, center=True), activation(teacher, center=True)
    cs = s.constants()
    p, n, n0 = round(beta * d), round(alpha * d), round(alpha0 * d)
    theta = _unit(rng, d)
    W0 = rng.standard_normal((p, d))
    W0 /= np.linalg.norm(W0, axis=1, keepdims=True)
    X0 = rng.standard_normal((n0, d))
    y0 = t.numpy(X0 @ theta) + noise * rng.standard_normal(n0)
    H = X0 @ W0.T
    f0 = s.numpy(H).mean(axis=1)
    W1 = W0 + eta_tilde * ((s.numpy_derivative(H) * (y0 - f0)[:, None]).T @ X0) / n0
    g = X0.T @ y0 / n0
    del H, X0
    out = {"N": p, "n": n, "d": d}
    ones = np.ones(p)
    out["weights"] = weights_spectrum_sample(W1.T, {"teacher": theta, "gradient": g}, {"readout": ones})
    X = rng.standard_normal((n, d))
    fstar = t.numpy(X @ theta)
    yv = fstar + noise * rng.standard_normal(n)
    dirs_n = {"labels": yv - yv.mean(), "teacher": fstar, "teacher_linear": X @ theta}
    dirs_N = {"readout": ones}
    P = X @ W1.T
    if "true" in features:
        out["ck_true"] = gram_spectrum(s.numpy(P), top, dirs_n, dirs_N)
    if "ge" in features:
        out["ck_ge"] = gram_spectrum(cs.mu1 * P + cs.mu2 * rng.standard_normal((n, p)), top, dirs_n, dirs_N)
    return out


def ks_distance(eigenvalues: np.ndarray, cdf) -> float:
    """Kolmogorov distance sup_x |F_emp(x) − F(x)| for a theoretical CDF ``cdf`` (vectorised)."""
    ev = np.sort(np.asarray(eigenvalues))
    k = np.arange(1, ev.size + 1) / ev.size
    F = cdf(ev)
    return float(max(np.max(np.abs(k - F)), np.max(np.abs(k - 1.0 / ev.size - F))))


def w1_distance(eigenvalues: np.ndarray, quantile) -> float:
    """Wasserstein-1 distance ∫|F_emp⁻¹ − F⁻¹| between the empirical law and a theoretical
    quantile function ``quantile`` (vectorised), on the midpoints (k − ½)/n."""
    ev = np.sort(np.asarray(eigenvalues))
    q = (np.arange(ev.size) + 0.5) / ev.size
    return float(np.mean(np.abs(ev - quantile(q))))


# ----------------------------------------------------------------------------- the sampler's checks
def test_gradient_is_the_squared_loss_gradient():
    """G₀ of the sampler equals a finite difference of the loss (1/2n)Σ(f − y)² (independent check)."""
    rng = np.random.default_rng(3)
    s = activation("tanh", center=True)
    d, N, n = 7, 5, 11
    W = rng.standard_normal((d, N)) / math.sqrt(d)
    a = rng.standard_normal(N) / math.sqrt(N)
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)

    def loss(W):
        return 0.5 * np.mean((s.numpy(X @ W) @ a / math.sqrt(N) - y) ** 2)

    H = X @ W
    f0 = s.numpy(H) @ a / math.sqrt(N)
    G = X.T @ ((((y - f0) / math.sqrt(N))[:, None] * a[None, :]) * s.numpy_derivative(H)) / n
    E = np.zeros_like(W)
    E[2, 3] = 1e-6
    fd = -(loss(W + E) - loss(W - E)) / 2e-6
    assert G[2, 3] == pytest.approx(fd, rel=1e-7)


def test_sampler_is_reproducible_and_has_the_stated_sizes():
    r1 = sample_ba(60, psi1=2.0, psi2=1.5, eta=2.0, seed=5, features=("ge",))
    r2 = sample_ba(60, psi1=2.0, psi2=1.5, eta=2.0, seed=5, features=("ge",))
    assert (r1["N"], r1["n"]) == (90, 120)
    np.testing.assert_array_equal(r1["ck_ge"]["eigenvalues"], r2["ck_ge"]["eigenvalues"])
    assert r1["weights"]["eigenvalues"].size == 90


def test_ks_and_w1_of_an_exact_sample_are_small():
    """The distances of the quantiles of a law to that law are of order 1/n."""
    from scipy import stats

    q = (np.arange(1000) + 0.5) / 1000
    ev = stats.expon.ppf(q)
    assert ks_distance(ev, stats.expon.cdf) <= 0.5 / 1000 + 1e-12
    assert w1_distance(ev, stats.expon.ppf) == pytest.approx(0.0, abs=1e-12)
