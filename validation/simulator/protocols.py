r"""One seed of each protocol: draw, train, read out, measure. Returns a flat dict of numbers.

Ba et al. (``docs/one-step.md``) — :func:`run_ba`:
    β* uniform on S^{d−1}; W₀ᵢⱼ ~ N(0, 1/d); aⱼ ~ N(0, 1/N); training set X ∈ ℝ^{n×d},
    y = σ*(Xβ*) + σ_ε ε; W₁ = W₀ + η√N G₀ (``steps`` times); a fresh ridge set (X̃, ỹ) of n
    samples; â = argmin (1/n)‖ỹ − σ(X̃W)a/√N‖² + (λ/N)‖a‖² for W = W₀ (R0) and W = W₁ (R1) on the
    same set; R = E_x(f̂(x) − f*(x))² on the same test points; δ = R0 − R1.

Cui et al. (``docs/spiked-rf.md``) — :func:`run_cui`:
    θ uniform; columns of W⁰ ∈ ℝ^{d×p} uniform on S^{d−1}; uⱼ the readout types; a batch of
    n0 samples; w¹ⱼ = w⁰ⱼ + η̃ uⱼ (1/n0) Σ_μ (y_μ − f0(x_μ)) σ'(w⁰ⱼᵀx_μ) x_μ; fresh n samples;
    â = argmin Σ_μ (y_μ − aᵀσ(W¹ᵀx_μ)/√p)² + λ‖a‖²; test_error = E(f*(x) − ŷ(x))²,
    train_error = (1/n)Σ_μ(y_μ − ŷ_μ)².

Spiked RF (``docs/spiked-rf.md``) — :func:`run_srf`: features σ(Fᵀx), F = √c W + r v uᵀ
(columns; with the self term k, √c wⱼ (1 + k uⱼ⟨wⱼ, v⟩)), θ = γ v + √(1 − γ²) ζ; readout and
errors as in Cui.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np

from .config import BaConfig, CuiConfig, SRFConfig, readout_counts
from .engine import RunContext, ck_measurements, exact_risks, ridge_readouts, test_risks, train_first_layer
from .measurements import spike_measurements, srf_parameters
from .rng import Streams

__all__ = ["run_seed", "run_ba", "run_cui", "run_srf", "ba_network", "cui_network"]


def _readouts(ctx: RunContext, cfg, Ws, beta, n: int, penalty: float, out: dict, labels):
    """The ridge readouts of the first layers ``Ws`` on one fresh set, the CK measurements of the
    last one (when asked for) and the ridge diagnostics (into ``out``)."""
    ro = ridge_readouts(ctx, Ws, beta, n=n, penalty=penalty, noise=cfg.noise, features=cfg.features,
                        ck_index=(Ws.shape[0] - 1) if "ck" in cfg.measure else None)  # fmt: skip
    if "ck" in cfg.measure:
        out.update(ck_measurements(ro.solutions[-1], ro.labels, n))
    for tag, sol in zip(labels, ro.solutions, strict=False):
        out[f"ridge_form{tag}"] = sol.form
        out[f"ridge_solver{tag}"] = sol.solver
        out[f"ridge_rcond{tag}"] = sol.rcond
    return ro


def _train(ctx: RunContext, cfg, W, c, beta, n: int, lr: float, measure_gradient: bool) -> dict:
    return train_first_layer(ctx, W, c, beta, n=n, lr=lr, steps=cfg.steps, gradient=cfg.gradient,
                             batches=cfg.batches, noise=cfg.noise, measure_gradient=measure_gradient)  # fmt: skip


def ba_network(ctx: RunContext, cfg: BaConfig, Ws: np.ndarray, *, measure_gradient: bool, stage=None):
    """Draw β*, W₀ (into ``Ws[0]``) and a, and train W₁ = ``Ws[1]`` (Ba et al.): returns
    (β*, a, the first-gradient measurements). The one drawing of the protocol (the spectra of
    :mod:`validation.simulator.spectrum` use it too)."""
    s = ctx.streams
    d, N = cfg.d, cfg.N
    beta = s.unit_vector("teacher", d)
    s.normal("weights", (d, N), out=Ws[0], scale=1.0 / math.sqrt(d))
    if cfg.initial_columns == "unit":
        Ws[0] /= np.sqrt(np.einsum("ij,ij->j", Ws[0], Ws[0]))[None, :]
    a = s.normal("readout", (N,), scale=1.0 / math.sqrt(N))
    Ws[1] = Ws[0]
    _at(stage, "first layer")
    lr = cfg.learning_rate * math.sqrt(N)
    return beta, a, _train(ctx, cfg, Ws[1], a / math.sqrt(N), beta, cfg.n, lr, measure_gradient)


def _timed(run):
    """One seed of a protocol with its context, and ``elapsed_s``."""

    @functools.wraps(run)
    def wrapper(cfg, root_seed: int, seed_index: int, threads: int | None = None, stage=None) -> dict:
        t0 = time.perf_counter()
        ctx = RunContext(
            Streams(root_seed, seed_index, threads), cfg.student_activation(), cfg.teacher_activation()
        )
        out = run(cfg, ctx, stage)
        out["elapsed_s"] = time.perf_counter() - t0
        return out

    return wrapper


@_timed
def run_ba(cfg: BaConfig, ctx: RunContext, stage) -> dict:
    """One seed of the Ba et al. protocol."""
    d, N, n = cfg.d, cfg.N, cfg.n
    Ws = np.empty((2, d, N))  # Ws[0] = W₀, Ws[1] = W₁ (contiguous, used as one block on the test set)
    out: dict = {}
    beta, a, grad = ba_network(ctx, cfg, Ws, measure_gradient="spike" in cfg.measure, stage=stage)
    out.update(grad)
    if "spike" in cfg.measure:
        _at(stage, "spike")
        out.update(spike_measurements(Ws[1], beta, a, ctx.streams.generator("linalg", 3)))
    if "risk" in cfg.measure or "ck" in cfg.measure:
        Wfit = Ws if "risk" in cfg.measure else Ws[1:]
        _at(stage, "readout")
        ro = _readouts(ctx, cfg, Wfit, beta, n, n * cfg.lam, out, ("0", "1") if len(Wfit) == 2 else ("1",))
        if "risk" in cfg.measure and cfg.test_risk == "exact":
            _at(stage, "risk")
            pr = exact_risks(ctx, Ws, ro.coefs, beta, features=cfg.features, rtol=cfg.risk_rtol)
            out.update(
                risk0=pr[0].risk,
                risk1=pr[1].risk,
                delta=pr[0].risk - pr[1].risk,
                train_error=ro.solutions[1].train_error,
                risk0_test_se=0.0,
                risk1_test_se=0.0,
                delta_test_se=0.0,
            )
            out.update(pr[0].as_dict("0"))
            out.update(pr[1].as_dict("1"))
        elif "risk" in cfg.measure:
            _at(stage, "risk")
            tr = test_risks(ctx, Ws, ro.coefs, beta, n_test=cfg.n_test, features=cfg.features)
            out.update(
                risk0=float(tr.risk[0]),
                risk1=float(tr.risk[1]),
                delta=tr.diff,
                train_error=ro.solutions[1].train_error,
                risk0_test_se=float(tr.se[0]),
                risk1_test_se=float(tr.se[1]),
                delta_test_se=tr.diff_se,
            )
    return out


def _types(values, proportions, p: int) -> np.ndarray:
    counts = readout_counts(proportions, p)
    return np.repeat(np.asarray(values, dtype=float), counts)


def _unit_columns(s: Streams, d: int, p: int, out: np.ndarray) -> None:
    s.normal("weights", (d, p), out=out)
    out /= np.sqrt(np.einsum("ij,ij->j", out, out))[None, :]


def _readout_and_errors(ctx, cfg, Ws, theta, n: int, p: int, out: dict, labels, stage=None) -> None:
    ro = _readouts(ctx, cfg, Ws, theta, n, p * cfg.lam, out, labels)
    if ("risk" in cfg.measure or "baseline" in cfg.measure) and cfg.test_risk == "exact":
        _at(stage, "risk")
        pr = exact_risks(ctx, Ws, ro.coefs, theta, features=cfg.features, rtol=cfg.risk_rtol)
        k1 = Ws.shape[0] - 1
        out.update(test_error=pr[k1].risk, train_error=ro.solutions[k1].train_error, test_error_test_se=0.0)
        out.update(pr[k1].as_dict())
        if Ws.shape[0] == 2:
            out.update(test_error0=pr[0].risk, train_error0=ro.solutions[0].train_error, test_error0_test_se=0.0)
            out.update(pr[0].as_dict("0"))
    elif "risk" in cfg.measure or "baseline" in cfg.measure:
        _at(stage, "risk")
        tr = test_risks(ctx, Ws, ro.coefs, theta, n_test=cfg.n_test, features=cfg.features)
        k1 = Ws.shape[0] - 1
        out.update(
            test_error=float(tr.risk[k1]),
            train_error=ro.solutions[k1].train_error,
            test_error_test_se=float(tr.se[k1]),
        )
        if Ws.shape[0] == 2:
            out.update(
                test_error0=float(tr.risk[0]),
                train_error0=ro.solutions[0].train_error,
                test_error0_test_se=float(tr.se[0]),
            )


def cui_network(ctx: RunContext, cfg: CuiConfig, Ws: np.ndarray, *, measure_gradient: bool, stage=None):
    """Draw θ, W⁰ (into ``Ws[0]``, unit columns; copied to every other ``Ws[k]``) and the readout
    types u, and train ``Ws[-1]`` (Cui et al.): returns (θ, u, the first-gradient measurements)."""
    s = ctx.streams
    d, p = cfg.d, cfg.p
    theta = s.unit_vector("teacher", d)
    _unit_columns(s, d, p, Ws[0])
    Ws[1:] = Ws[0]
    u = _types(cfg.readout_values, cfg.readout_proportions, p)
    _at(stage, "first layer")
    return theta, u, _train(ctx, cfg, Ws[-1], u / p, theta, cfg.n0, cfg.eta_tilde * p, measure_gradient)


@_timed
def run_cui(cfg: CuiConfig, ctx: RunContext, stage) -> dict:
    """One seed of the Cui et al. protocol."""
    baseline = "baseline" in cfg.measure
    Ws = np.empty((2 if baseline else 1, cfg.d, cfg.p))
    out: dict = {}
    theta, u, grad = cui_network(ctx, cfg, Ws, measure_gradient="spike" in cfg.measure, stage=stage)
    out.update(grad)
    if "spike" in cfg.measure:
        _at(stage, "spike")
        out.update(spike_measurements(Ws[-1], theta, u, ctx.streams.generator("linalg", 3)))
        out.update(srf_parameters(Ws[-1], u, theta))
    if any(g in cfg.measure for g in ("risk", "ck", "baseline")):
        labels = ("0", "1") if baseline else ("",)
        _at(stage, "readout")
        _readout_and_errors(ctx, cfg, Ws, theta, cfg.n, cfg.p, out, labels, stage)
    return out


@_timed
def run_srf(cfg: SRFConfig, ctx: RunContext, stage) -> dict:
    """One seed of the spiked random-features model."""
    s = ctx.streams
    d, p, n = cfg.d, cfg.p, cfg.n
    v = s.unit_vector("teacher", d, 0)
    zeta = s.normal("teacher", (d,), 1)
    zeta -= (zeta @ v) * v
    zeta /= np.linalg.norm(zeta)
    theta = cfg.gamma * v + math.sqrt(max(0.0, 1.0 - cfg.gamma**2)) * zeta
    Ws = np.empty((1, d, p))
    _unit_columns(s, d, p, Ws[0])
    u = _types(cfg.readout_values, cfg.readout_proportions, p)
    cvals = _types(cfg.bulk_variances(), cfg.readout_proportions, p)
    scale = np.sqrt(cvals)
    if cfg.self_term != 0.0:  # the step's self term: √c wⱼ (1 + k uⱼ ⟨wⱼ, v⟩)
        scale = scale * (1.0 + cfg.self_term * u * (v @ Ws[0]))
    Ws[0] *= scale[None, :]
    Ws[0] += cfg.r * np.outer(v, u)
    out: dict = {}
    if "spike" in cfg.measure:
        _at(stage, "spike")
        out.update(spike_measurements(Ws[0], theta, u, s.generator("linalg", 3)))
        out.update(srf_parameters(Ws[0], u, theta))
    if "risk" in cfg.measure or "ck" in cfg.measure:
        _at(stage, "readout")
        _readout_and_errors(ctx, cfg, Ws, theta, n, p, out, ("",), stage)
    return out


_RUNNERS = {"ba": run_ba, "cui": run_cui, "srf": run_srf}


def run_seed(cfg, root_seed: int, seed_index: int, threads: int | None = None, stage=None) -> dict:
    """One seed of the protocol of ``cfg``; ``stage(name)`` is called as each phase starts
    (``first layer``, ``spike``, ``readout``, ``risk``)."""
    return _RUNNERS[cfg.protocol](cfg, root_seed, seed_index, threads, stage)


def _at(stage, name: str) -> None:
    if stage is not None:
        stage(name)
