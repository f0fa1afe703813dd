"""Spiked random features after one large step (Cui et al. 2024): theory vs simulation.

Each case simulates the one-step network (Cui protocol, :class:`CuiConfig`) and/or the sRF model
itself (:class:`SRFConfig`) and compares with :mod:`asymptotics.theory.spiked_rf`. Tolerance:
``|sim − theory| ≤ 3 s.e. + allowance`` with a stated finite-size allowance:

* sRF model: 2 % of the theory value at d ≥ 1500 (the cGET is exact as d → ∞; corrections are
  O(1/√d)); 6 % at the quick sizes (d ≈ 400).
* network, uniform readout: judged against the **network map** (the structured bulk and the step's
  self term, :func:`~asymptotics.theory.spiked_rf.network_map.network_one_step`) with the sRF model's
  finite-size allowance; the isotropic map of Cui et al. is stated in the note. The isotropic map's
  error is a modelling error, not a finite-size effect (tanh/tanh, η̃ = 5, α0 = 1, α = 3: network
  0.2074 ± 0.0012 extrapolated to d = ∞, network map 0.2080, isotropic 0.1911;
  docs/spiked-rf-finite-width.md), so it gets no allowance.
* network with readout types (the structured map does not cover them): the isotropic map with 6 %
  at d ≥ 1500 (10 % at quick sizes) for that modelling error.
* measured sRF parameters (r, c, γ) of the trained network: 2 % (quick: 4 %).

Quick variants (``asymptotics validate --quick``) use d ≈ 300–400 and 2 seeds.
"""

from __future__ import annotations

import math

import numpy as np

from asymptotics.theory.spiked_rf import channel_model, cui_to_srf, solve_spiked_rf, srf_parameters
from asymptotics.theory.spiked_rf.network_map import network_one_step
from validation.registry import CaseConfig, Check, case
from validation.simulator import CuiConfig, SRFConfig, simulate

FAMILY = "spiked_rf"
_THEORY_CACHE: dict = {}


def _theory(student, teacher, alpha, beta, lam, *, eta_tilde=None, alpha0=None, c=None, r=None, gamma=None,
            readout=None, proportions=None):
    ro = None if readout is None else (tuple(readout), tuple(proportions) if proportions else None)
    key = (student, teacher, eta_tilde, alpha0, c if not isinstance(c, list) else tuple(c), r, gamma, ro)
    if key not in _THEORY_CACHE:
        from asymptotics.theory.spiked_rf import readout_types

        rt = None if readout is None else readout_types(readout, proportions)
        params = (cui_to_srf(eta_tilde, alpha0, student, teacher, readout=rt) if eta_tilde is not None
                  else srf_parameters(c, r, gamma, rt))
        _THEORY_CACHE[key] = channel_model(params, student, teacher)
    return solve_spiked_rf(_THEORY_CACHE[key], alpha, beta, lam)


def _network_map(student, teacher, alpha, beta, lam, eta_tilde, alpha0):
    key = ("network", student, teacher, alpha, beta, lam, eta_tilde, alpha0)
    if key not in _THEORY_CACHE:
        _THEORY_CACHE[key] = network_one_step(alpha, alpha0, beta, eta_tilde, lam, student, teacher)
    return _THEORY_CACHE[key]


def _sim(cfg_obj, run: CaseConfig, seeds: int, offset: int):
    return simulate(cfg_obj, seeds=seeds, root_seed=run.seed + offset, workers=run.workers)


def _check(name, quantity, params, theory, res, key, allowance_rel, d, note):
    return Check(name, quantity, params, float(theory), float(res.mean[key]), float(res.se[key]),
                 allowance=allowance_rel * abs(float(theory)), d=d, note=note)


def _network_and_srf(name, run, *, student, teacher, eta_tilde, alpha0, lam, alphas, beta=1.0, d, seeds,
                     allow_net, allow_srf, allow_par, n_test, offset, readout=None, proportions=None):
    """Network (Cui protocol) and sRF simulations at the mapped (c, r, γ), against the theory."""
    checks = []
    rt_kw = {} if readout is None else dict(readout_values=tuple(readout), readout_proportions=tuple(proportions))
    for i, a in enumerate(alphas):
        th = _theory(student, teacher, a, beta, lam, eta_tilde=eta_tilde, alpha0=alpha0, readout=readout,
                     proportions=proportions)
        p = th.params
        pars = dict(alpha=a, alpha0=alpha0, beta=beta, eta_tilde=eta_tilde, lam=lam, teacher=teacher, student=student)
        if readout is not None:
            pars["readout"] = f"{readout}:{proportions}"
        net = _sim(CuiConfig(student=student, teacher=teacher, d=d, alpha=a, alpha0=alpha0, beta=beta,
                             eta_tilde=eta_tilde, lam=lam, n_test=n_test, measure=("risk", "spike"), **rt_kw),
                   run, seeds, offset + 10 * i)
        if readout is None:  # the network map, with the finite-size allowance only
            st = _network_map(student, teacher, a, beta, lam, eta_tilde, alpha0)
            for q in ("test_error", "train_error"):
                checks.append(_check(name, f"{q} (network)", pars, getattr(st, q), net, q, allow_srf, d,
                                     f"one-step network, Cui protocol, vs the network map (isotropic map "
                                     f"{getattr(th, q):.4g})"))
        else:
            for q in ("test_error", "train_error"):
                checks.append(_check(name, f"{q} (network)", pars, getattr(th, q), net, q, allow_net, d,
                                     "one-step network with readout types, Cui protocol, vs the isotropic map "
                                     "(modelling error allowed)"))
        if i == 0 and readout is None:
            for q, v in (("r", p.r), ("c", p.c), ("gamma", p.gamma)):
                checks.append(_check(name, f"measured {q} of W1", pars, v, net, q, allow_par, d,
                                     "sRF parameters of the trained first layer vs the map of §2"))
        srf = _sim(SRFConfig(student=student, teacher=teacher, d=d, alpha=a, beta=beta, lam=lam,
                             c=tuple(p.bulk) if len(p.bulk) > 1 else p.c, r=p.r, gamma=p.gamma, n_test=n_test,
                             **rt_kw),
                   run, seeds, offset + 10 * i + 5)
        checks.append(_check(name, "test_error (sRF)", pars, th.test_error, srf, "test_error", allow_srf, d,
                             "sRF model at the mapped (c, r, γ)"))
    return checks


def _table_case(name: str, description: str, **setting):
    """Register one check table of docs/spiked-rf.md: tanh student, network and sRF at α = 0.5, 1.5, 3
    (d = 1500, 3 seeds, 10 000 test points); ``setting``: teacher, η̃, α0, λ and the seed offset."""

    def table(run: CaseConfig):
        return _network_and_srf(name, run, student="tanh", alphas=(0.5, 1.5, 3.0), d=1500, seeds=3, allow_net=0.06,
                                allow_srf=0.02, allow_par=0.02, n_test=10_000, **setting)

    return case(name, family=FAMILY, description=description)(table)


table_tanh = _table_case(
    "spiked-rf-table-tanh",
    "docs/spiked-rf.md (checks): tanh/tanh, η̃ = 5, α0 = 1, λ = 0.01, α = 0.5, 1.5, 3 — network and sRF, d = 1500",
    teacher="tanh", eta_tilde=5.0, alpha0=1.0, lam=0.01, offset=0)
table_sin = _table_case(
    "spiked-rf-table-sin",
    "docs/spiked-rf.md (checks): sin target, tanh student, η̃ = 3, α0 = 20, λ = 0.1, α = 0.5, 1.5, 3 — d = 1500",
    teacher="sin", eta_tilde=3.0, alpha0=20.0, lam=0.1, offset=100)


@case("spiked-rf-beta", family=FAMILY,
      description="β = 0.5 (d = 1600, p = 800) and β = 2 (d = 800, p = 1600): sRF, tanh/sin, η̃ = 2, α0 = 3, λ = 0.05")
def beta_not_one(run: CaseConfig):
    checks = []
    for j, (beta, d) in enumerate(((0.5, 1600), (2.0, 800))):
        for i, a in enumerate((1.0, 3.0)):
            th = _theory("tanh", "sin", a, beta, 0.05, eta_tilde=2.0, alpha0=3.0)
            p = th.params
            res = _sim(SRFConfig(student="tanh", teacher="sin", d=d, alpha=a, beta=beta, lam=0.05, c=p.c, r=p.r,
                                 gamma=p.gamma, n_test=10_000), run, 4, 200 + 10 * j + i)
            checks.append(_check("spiked-rf-beta", "test_error (sRF)", dict(alpha=a, beta=beta, lam=0.05),
                                 th.test_error, res, "test_error", 0.02, d, f"p = {int(beta * d)}"))
    return checks


@case("spiked-rf-readout-types", family=FAMILY,
      description="K = 2 readout types (§7): sRF c = 1, γ = 1, r = 1.5, λ = 0.01, α = 3, u ∈ {0.3, 1.7}, sin and "
                  "z + He3/√6 targets, d = 1500; network tanh/tanh η̃ = 3, α0 = 2, u ∈ {0.5, 1.5}")
def readout_types_case(run: CaseConfig):
    checks = []
    for j, teacher in enumerate(("sin", "x + (x**3 - 3*x)/sqrt(6)")):
        th = _theory("tanh", teacher, 3.0, 1.0, 0.01, c=1.0, r=1.5, gamma=1.0, readout=(0.3, 1.7), proportions=(0.5, 0.5))
        res = _sim(SRFConfig(student="tanh", teacher=teacher, d=1500, alpha=3.0, beta=1.0, lam=0.01, c=1.0, r=1.5,
                             gamma=1.0, readout_values=(0.3, 1.7), readout_proportions=(0.5, 0.5), n_test=10_000),
                   run, 3, 300 + j)
        checks.append(_check("spiked-rf-readout-types", "test_error (sRF, K = 2)",
                             dict(alpha=3.0, teacher=teacher, readout="0.3,1.7"), th.test_error, res, "test_error",
                             0.02, 1500, "§7"))
    checks += _network_and_srf("spiked-rf-readout-types", run, student="tanh", teacher="tanh", eta_tilde=3.0,
                               alpha0=2.0, lam=0.01, alphas=(2.0,), d=1500, seeds=3, allow_net=0.06, allow_srf=0.02,
                               allow_par=0.02, n_test=10_000, offset=310, readout=(0.5, 1.5), proportions=(0.5, 0.5))
    return checks


def _gap_checks(name, run, d, seeds, alphas, allow, n_test, offset):
    """Network minus random features on the same data (common random numbers): too large a step hurts."""
    checks = []
    for i, a in enumerate(alphas):
        th = _network_map("tanh", "tanh", a, 1.0, 0.01, 5.0, 1.0)
        iso = _theory("tanh", "tanh", a, 1.0, 0.01, eta_tilde=5.0, alpha0=1.0)
        rf = _theory("tanh", "tanh", a, 1.0, 0.01, c=1.0, r=0.0, gamma=0.0)
        res = _sim(CuiConfig(student="tanh", teacher="tanh", d=d, alpha=a, alpha0=1.0, beta=1.0, eta_tilde=5.0,
                             lam=0.01, n_test=n_test, measure=("risk", "baseline")), run, seeds, offset + i)
        diffs = np.array([ps["test_error"] - ps["test_error0"] for ps in res.per_seed])
        se = float(diffs.std(ddof=1) / math.sqrt(diffs.size))
        gap = th.test_error - rf.test_error
        pars = dict(alpha=a, eta_tilde=5.0, alpha0=1.0, lam=0.01)
        checks.append(Check(name, "network − RF (common data)", pars, gap, float(diffs.mean()), se,
                            allowance=allow * th.test_error, d=d,
                            note="sign change: the step helps for α < 1 and hurts above (§6); network "
                                 f"map (isotropic map {iso.test_error - rf.test_error:+.4g})"))
        checks.append(Check(name, "test_error0 (RF, W0)", pars, rf.test_error, res.mean["test_error0"],
                            res.se["test_error0"], allowance=0.02 * rf.test_error, d=d, note="r = 0 theory"))
    return checks


@case("spiked-rf-step-hurts", family=FAMILY,
      description="§6: tanh/tanh, η̃ = 5, α0 = 1: the trained network beats RF at α = 0.5 and loses at α = 1.5, 3 (d = 1500)")
def step_hurts(run: CaseConfig):
    return _gap_checks("spiked-rf-step-hurts", run, 1500, 3, (0.5, 1.5, 3.0), 0.02, 10_000, 400)


# ---- quick variants ---------------------------------------------------------------------------------

@case("spiked-rf-quick", family=FAMILY, quick=True,
      description="quick: tanh/tanh η̃ = 5, α0 = 1 (network + sRF, α = 3), sRF K = 2 sin target, β = 0.5, d ≈ 400")
def quick(run: CaseConfig):
    checks = _network_and_srf("spiked-rf-quick", run, student="tanh", teacher="tanh", eta_tilde=5.0, alpha0=1.0,
                              lam=0.01, alphas=(3.0,), d=400, seeds=2, allow_net=0.10, allow_srf=0.06, allow_par=0.04,
                              n_test=5000, offset=500)
    th = _theory("tanh", "sin", 3.0, 1.0, 0.01, c=1.0, r=1.5, gamma=1.0, readout=(0.3, 1.7), proportions=(0.5, 0.5))
    res = _sim(SRFConfig(student="tanh", teacher="sin", d=400, alpha=3.0, beta=1.0, lam=0.01, c=1.0, r=1.5, gamma=1.0,
                         readout_values=(0.3, 1.7), readout_proportions=(0.5, 0.5), n_test=5000), run, 2, 520)
    checks.append(_check("spiked-rf-quick", "test_error (sRF, K = 2)", dict(alpha=3.0, teacher="sin"), th.test_error,
                         res, "test_error", 0.06, 400, "§7, quick size"))
    th = _theory("tanh", "sin", 1.0, 0.5, 0.05, eta_tilde=2.0, alpha0=3.0)
    p = th.params
    res = _sim(SRFConfig(student="tanh", teacher="sin", d=600, alpha=1.0, beta=0.5, lam=0.05, c=p.c, r=p.r,
                         gamma=p.gamma, n_test=5000), run, 2, 530)
    checks.append(_check("spiked-rf-quick", "test_error (sRF, β = 0.5)", dict(alpha=1.0, beta=0.5), th.test_error,
                         res, "test_error", 0.06, 600, "quick size"))
    return checks


@case("spiked-rf-step-hurts-quick", family=FAMILY, quick=True,
      description="quick: the sign change of network − RF between α = 0.5 and α = 3 (tanh/tanh, η̃ = 5, α0 = 1, d = 400)")
def step_hurts_quick(run: CaseConfig):
    return _gap_checks("spiked-rf-step-hurts-quick", run, 400, 2, (0.5, 3.0), 0.06, 5000, 600)
