r"""The empirical spectrum of the one-step networks: every eigenvalue (or a histogram) of the
trained first layer's Gram and of the conjugate kernel, with the top eigenvectors' overlaps.

The matrices (N×N; ``docs/spectra.md`` for the limits they are compared with):

* ``weights`` — W₁ᵀW₁, the Gram of the trained first layer W₁ ∈ ℝ^{d×N} (neurons as columns; its
  eigenvalues are the squared singular values of W₁, padded with zeros when N > d);
* ``ck_true`` — the conjugate-kernel Gram FᵀF/n, F = σ(X̃W₁) on the fresh (ridge) set X̃ of n samples;
* ``ck_ge`` — the same with the Gaussian-equivalent features F = μ0 + μ1 X̃W₁ + μ2 Z;
* ``*_before`` — the same matrices with W₀ (before the step: Marchenko–Pastur, the random-features CK).

Top-k squared overlaps (each a squared cosine in [0, 1]):

* weights: of the k-th left singular vector u_k ∈ ℝᵈ with ``teacher`` β* (θ for Cui) and
  ``gradient`` u = Xᵀy (the first step's training set), of the right one v_k ∈ ℝᴺ with ``readout``
  (a for Ba, the readout types u for Cui);
* CK: of the eigenvector ŵ_k ∈ ℝᴺ of FᵀF/n with ``spike_direction`` (v₁ of W₁) and ``readout``,
  of ŷ_k = Fŵ_k/‖Fŵ_k‖ ∈ ℝⁿ with ``labels`` (the centred ỹ), ``teacher`` (f*(X̃β*)) and
  ``teacher_linear`` (X̃β*).

The network is drawn by the simulator's own streams (:mod:`.rng`) and trained by its own step
(:func:`.engine.train_first_layer`), so a (config, root seed, seed index) gives the W₁ of
:func:`.protocols.run_seed` and the CK Gram whose top eigenvalue is its ``ck_outlier``. Ba: ``eta_exponent``
0 is the regime η = Θ(1), 0.5 the large step η = c√N; Cui's protocol (any readout types).

>>> from validation.simulator import BaConfig
>>> m = measure_spectrum(BaConfig(d=40, psi1=2, psi2=1.5, eta=3, measure=("ck",)), root_seed=1)
>>> sorted(m.spectra), m["weights"].eigenvalues.size
(['ck_ge', 'ck_true', 'weights'], 60)
>>> sorted(m["ck_true"].top[0].overlaps)
['labels', 'readout', 'spike_direction', 'teacher', 'teacher_linear']
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from asymptotics.errors import ParameterError

from .config import BaConfig, CuiConfig
from .engine import RunContext
from .linalg import gram
from .protocols import ba_network, cui_network
from .result import versions
from .rng import Streams

__all__ = ["TopEigen", "MatrixSpectrum", "SpectrumMeasurement", "measure_spectrum", "measure_spectra",
           "pooled_histogram", "spectrum_memory_bytes", "MEMORY_LIMIT", "MATRICES", "FEATURE_MODELS"]

#: The matrix families: ``weights`` (W₁ᵀW₁) and ``ck`` (FᵀF/n).
MATRICES = ("weights", "ck")
#: The CK feature models: ``true`` σ(X̃W) and ``ge`` μ0 + μ1X̃W + μ2Z.
FEATURE_MODELS = ("true", "ge")
#: Default bound on the working memory of one measurement (bytes).
MEMORY_LIMIT = 8 * 2**30


@dataclass(frozen=True)
class TopEigen:
    """One of the top eigenvalues and its eigenvector's squared overlaps.

    Attributes:
        location: the eigenvalue λ_k (k = 1 the largest).
        overlaps: name → squared cosine of the eigenvector with that direction (module docstring).
    """

    location: float
    overlaps: dict

    def as_dict(self) -> dict:
        return {"location": self.location, "overlaps": dict(self.overlaps)}


@dataclass(frozen=True)
class MatrixSpectrum:
    """The empirical spectrum of one N×N matrix of one network.

    Attributes:
        name: ``weights``, ``ck_true``, ``ck_ge`` or one of these with ``_before``.
        size: N, the number of eigenvalues.
        mean: tr/N (the first moment, exact from the trace).
        eigenvalues: all N eigenvalues, increasing (``None`` when only the histogram is kept).
        edges: the histogram's bin edges (``None``: no histogram).
        counts: eigenvalues per bin; ``below``/``above``: eigenvalues outside the edges.
        top: the k largest eigenvalues with overlaps (:class:`TopEigen`), largest first.
    """

    name: str
    size: int
    mean: float
    eigenvalues: np.ndarray | None
    edges: np.ndarray | None
    counts: np.ndarray | None
    below: int
    above: int
    top: tuple

    def density(self) -> np.ndarray:
        """The histogram as a density: counts/(N·bin width) (integrates to the fraction inside)."""
        if self.counts is None:
            raise ParameterError("bins", None, "bin edges given to measure_spectrum for a histogram")
        return self.counts / (self.size * np.diff(self.edges))

    def rows(self) -> list:
        """json rows: ``{x, density}`` at the bin centres (histogram) or ``{eigenvalue}``."""
        if self.counts is not None:
            c = 0.5 * (self.edges[1:] + self.edges[:-1])
            return [{"x": float(a), "density": float(b)} for a, b in zip(c, self.density(), strict=True)]
        return [{"eigenvalue": float(v)} for v in self.eigenvalues]

    def meta(self) -> dict:
        return {"matrix": self.name, "size": self.size, "mean": self.mean, "below": self.below, "above": self.above,
                "outliers": [t.as_dict() for t in self.top]}


@dataclass(frozen=True)
class SpectrumMeasurement:
    """The spectra of one seed of one network.

    Attributes:
        protocol: ``ba`` or ``cui``. regime: ``small`` (η = Θ(1)), ``large`` (η = c√N; Cui always)
            or ``eta_exponent=…``.
        spectra: name → :class:`MatrixSpectrum`.
        parameters: the configuration (``cfg.as_dict()``) and the sizes.
        root_seed, seed_index: the streams' seed (``numpy.random.SeedSequence(root_seed,
            spawn_key=(seed_index, component, …))``, as the simulator).
        memory_bytes: the working-memory estimate checked before the work.
        elapsed_s: wall time. versions: of the package and the numerical stack.
    """

    protocol: str
    regime: str
    spectra: dict
    parameters: dict
    root_seed: int
    seed_index: int
    memory_bytes: int
    elapsed_s: float
    versions: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> MatrixSpectrum:
        if name not in self.spectra:
            raise ParameterError("matrix", name, "one of " + ", ".join(self.spectra))
        return self.spectra[name]

    def meta(self) -> dict:
        return {"protocol": self.protocol, "regime": self.regime, "parameters": self.parameters,
                "root_seed": self.root_seed, "seed_index": self.seed_index, "memory_bytes": self.memory_bytes,
                "elapsed_s": self.elapsed_s, "versions": self.versions,
                "spectra": {k: v.meta() for k, v in self.spectra.items()}}


# ---- sizes -------------------------------------------------------------------------------------
def _sizes(cfg) -> tuple[int, int, int, int]:
    """(d, N, n of the CK set, n of the training set)."""
    if isinstance(cfg, BaConfig):
        return cfg.d, cfg.N, cfg.n, cfg.n
    if isinstance(cfg, CuiConfig):
        return cfg.d, cfg.p, cfg.n, cfg.n0
    raise ParameterError("cfg", type(cfg).__name__, "a BaConfig or CuiConfig")


def spectrum_memory_bytes(cfg, before: bool = False) -> int:
    """Working memory of :func:`measure_spectrum` in bytes: W₀ and W₁ (and the step's gradient),
    the training and CK inputs, the step's and the CK's n×N blocks, the GE noise, and the N×N Gram
    with its eigenvectors and LAPACK workspace."""
    d, N, n, n0 = _sizes(cfg)
    floats = (3 + before) * d * N + n0 * d + n * d + n0 * N + 2 * n * N + 4 * N * N + 2 * min(d, N) ** 2
    return 8 * int(floats)


def _regime(cfg) -> str:
    if isinstance(cfg, CuiConfig):
        return "large"
    return {0.0: "small", 0.5: "large"}.get(float(cfg.eta_exponent), f"eta_exponent={cfg.eta_exponent:g}")


# ---- drawing (the simulator's streams and step) ------------------------------------------------
@dataclass
class _Network:
    ctx: RunContext
    W0: np.ndarray
    W1: np.ndarray
    teacher: np.ndarray
    readout: np.ndarray
    gradient: np.ndarray


def _draw_ba(cfg: BaConfig, ctx: RunContext) -> _Network:
    """W₀, a, β* and W₁ as :func:`.protocols.run_ba` draws and trains them (the same function)."""
    Ws = np.empty((2, cfg.d, cfg.N))
    beta, a, _ = ba_network(ctx, cfg, Ws, measure_gradient=False)
    X, y = ctx.labelled_set("train", cfg.n, cfg.d, beta, cfg.noise, 0)
    return _Network(ctx, Ws[0], Ws[1], beta, a, X.T @ y)


def _draw_cui(cfg: CuiConfig, ctx: RunContext) -> _Network:
    """W⁰ (unit columns), the readout types u, θ and W¹ as :func:`.protocols.run_cui` (the same
    function)."""
    Ws = np.empty((2, cfg.d, cfg.p))
    theta, u, _ = cui_network(ctx, cfg, Ws, measure_gradient=False)
    X, y = ctx.labelled_set("train", cfg.n0, cfg.d, theta, cfg.noise, 0)
    return _Network(ctx, Ws[0], Ws[1], theta, u, X.T @ y / cfg.n0)


# ---- spectra -----------------------------------------------------------------------------------
def _sq_cos(v: np.ndarray, w: np.ndarray) -> float:
    nv, nw = float(v @ v), float(w @ w)
    return float(v @ w) ** 2 / (nv * nw) if nv > 0 and nw > 0 else math.nan


def _spectrum(name, ev, top_list, bins, keep) -> MatrixSpectrum:
    ev = np.sort(ev)
    size = ev.size
    edges = counts = None
    below = above = 0
    if bins is not None:
        edges = np.asarray(bins, float)
        counts = np.histogram(ev, edges)[0]
        below, above = int(np.sum(ev < edges[0])), int(np.sum(ev > edges[-1]))
    return MatrixSpectrum(name, size, float(ev.sum() / size), ev if keep else None, edges, counts, below, above,
                          tuple(top_list))


def _weights_spectrum(name, W, left: dict, right: dict, top: int, bins, keep):
    """Eigenvalues of WᵀW from the smaller Gram; top singular pairs (u_k ∈ ℝᵈ, v_k ∈ ℝᴺ)."""
    d, N = W.shape
    K, side = gram(W)
    ev, vec = np.linalg.eigh(K)
    ev = np.maximum(ev, 0.0)
    tops = []
    v1 = None
    for k in range(1, min(top, ev.size) + 1):
        x = vec[:, -k]
        u, v = (x, W.T @ x) if side == "left" else (W @ x, x)
        if k == 1:
            v1 = v / np.linalg.norm(v)
        ov = {nm: _sq_cos(u, w) for nm, w in left.items()}
        ov.update({nm: _sq_cos(v, w) for nm, w in right.items()})
        tops.append(TopEigen(float(ev[-k]), ov))
    full = np.concatenate([ev, np.zeros(N - ev.size)]) if ev.size < N else ev
    return _spectrum(name, full, tops, bins, keep), v1


def _ck_spectrum(name, F, n: int, dirs_N: dict, dirs_n: dict, top: int, bins, keep) -> MatrixSpectrum:
    K = F.T @ F
    K *= 1.0 / n
    ev, vec = np.linalg.eigh(K)
    del K
    tops = []
    for k in range(1, min(top, ev.size) + 1):
        w = vec[:, -k]
        yv = F @ w
        ov = {nm: _sq_cos(w, v) for nm, v in dirs_N.items()}
        ov.update({nm: _sq_cos(yv, v) for nm, v in dirs_n.items()})
        tops.append(TopEigen(float(ev[-k]), ov))
    return _spectrum(name, ev, tops, bins, keep)


def _choices(name, values, allowed) -> tuple:
    vals = (values,) if isinstance(values, str) else tuple(values)
    bad = [v for v in vals if v not in allowed]
    if bad or not vals:
        raise ParameterError(name, ",".join(map(str, vals)), "a non-empty list among " + ", ".join(allowed))
    return vals


def measure_spectrum(cfg, root_seed: int = 0, seed_index: int = 0, *, matrices=MATRICES, features=FEATURE_MODELS,
                     before: bool = False, top: int = 3, bins=None, keep_eigenvalues: bool = True,
                     memory_limit: int | None = None, threads: int | None = None) -> SpectrumMeasurement:
    """The empirical spectra of one seed of the network of ``cfg`` (:class:`BaConfig` or
    :class:`CuiConfig`; its ``measure`` is ignored).

    Args:
        root_seed, seed_index: the simulator's seed convention (the same W₁ as its run of that seed).
        matrices: among ``weights``, ``ck``. features: CK feature models among ``true``, ``ge``.
        before: also the matrices with W₀ (``*_before``).
        top: how many top eigenvalues get overlaps (≥ 1).
        bins: histogram bin edges (increasing), or ``None``.
        keep_eigenvalues: keep all eigenvalues (else only the histogram, mean and top).
        memory_limit: bytes allowed for the working memory (default :data:`MEMORY_LIMIT`); the
            estimate :func:`spectrum_memory_bytes` is checked before anything is drawn.
        threads: threads for the random streams (no number depends on it).
    """
    t0 = time.perf_counter()
    matrices = _choices("matrices", matrices, MATRICES)
    features = _choices("features", features, FEATURE_MODELS)
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ParameterError("top", top, "an integer >= 1")
    if bins is not None:
        e = np.asarray(bins, float)
        if e.ndim != 1 or e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
            raise ParameterError("bins", bins, "at least two finite, strictly increasing bin edges")
    if bins is None and not keep_eigenvalues:
        raise ParameterError("keep_eigenvalues", False, "True when no bins are given (nothing would be kept)")
    d, N, n, _ = _sizes(cfg)
    need = spectrum_memory_bytes(cfg, before)
    limit = MEMORY_LIMIT if memory_limit is None else int(memory_limit)
    if need > limit:
        raise ParameterError("d", d, f"a size whose spectra fit in {limit / 2**30:.2f} GiB "
                             f"(d = {d}, N = {N}, n = {n} need ≈ {need / 2**30:.2f} GiB; raise memory_limit)")
    ctx = RunContext(Streams(root_seed, seed_index, threads), cfg.student_activation(), cfg.teacher_activation())
    net = _draw_ba(cfg, ctx) if isinstance(cfg, BaConfig) else _draw_cui(cfg, ctx)
    layers = [("", net.W1)] + ([("_before", net.W0)] if before else [])
    out: dict = {}
    left = {"teacher": net.teacher, "gradient": net.gradient}
    right = {"readout": net.readout}
    v1 = None
    for tag, W in layers:
        spec, v = _weights_spectrum("weights" + tag, W, left, right, top, bins, keep_eigenvalues)
        if tag == "":
            v1 = v
        if "weights" in matrices:
            out["weights" + tag] = spec
    if "ck" in matrices:
        X, y = ctx.labelled_set("ridge", n, d, net.teacher, cfg.noise, 0)
        proj = X @ net.teacher
        dirs_n = {"labels": y - y.mean(), "teacher": ctx.target(proj), "teacher_linear": proj}
        dirs_N = {"spike_direction": v1, "readout": net.readout}
        xi = ctx.streams.normal("ridge_ge", (n, N), 0) if ("ge" in features and ctx.mu2 != 0.0) else None
        F = np.empty((n, N))
        for tag, W in layers:
            for fm in features:
                np.matmul(X, W, out=F)
                if fm == "true":
                    ctx.kern.apply_sigma(F)
                else:
                    F *= ctx.mu1
                    if xi is not None:
                        F += ctx.mu2 * xi
                    if ctx.mu0 != 0.0:
                        F += ctx.mu0
                if not np.all(np.isfinite(F)):
                    raise ParameterError("eta", getattr(cfg, "eta", getattr(cfg, "eta_tilde", None)),
                                         "a step that keeps the features finite")
                name = f"ck_{fm}{tag}"
                out[name] = _ck_spectrum(name, F, n, dirs_N, dirs_n, top, bins, keep_eigenvalues)
    params = {**cfg.as_dict(), **cfg.sizes()}
    return SpectrumMeasurement(cfg.protocol, _regime(cfg), out, params, int(root_seed), int(seed_index), need,
                               time.perf_counter() - t0, versions())


def measure_spectra(cfg, seeds: int = 1, root_seed: int = 0, **options) -> tuple:
    """:func:`measure_spectrum` for seed indices 0 … seeds−1 (one tuple of measurements)."""
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise ParameterError("seeds", seeds, "an integer >= 1")
    return tuple(measure_spectrum(cfg, root_seed, k, **options) for k in range(int(seeds)))


def pooled_histogram(measurements, name: str, edges) -> tuple[np.ndarray, np.ndarray]:
    """Density per bin over several seeds (mean of the per-seed densities, counts/(N·width)) and its
    standard error over seeds (NaN for one seed). Works from the kept eigenvalues or the histograms
    on the same edges."""
    edges = np.asarray(edges, float)
    dens = []
    for m in measurements:
        s = m[name]
        if s.eigenvalues is not None:
            counts = np.histogram(s.eigenvalues, edges)[0]
        elif s.edges is not None and s.edges.shape == edges.shape and np.array_equal(s.edges, edges):
            counts = s.counts
        else:
            raise ParameterError("edges", "given", "the bins of the measurement, or measurements with eigenvalues")
        dens.append(counts / (s.size * np.diff(edges)))
    dens = np.asarray(dens)
    k = dens.shape[0]
    se = dens.std(axis=0, ddof=1) / math.sqrt(k) if k > 1 else np.full(dens.shape[1], math.nan)
    return dens.mean(axis=0), se
