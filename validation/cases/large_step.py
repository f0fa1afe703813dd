"""The exact large-step risk (Gaussian readout, η = c√N) against simulations of the Ba et al. network.

Theory: :mod:`asymptotics.theory.large_step.gaussian_readout` (``docs/large-step-exact.md``).
Simulation: :class:`validation.simulator.BaConfig` with ``eta=c, eta_exponent=0.5`` (η = c√N), the
readout a⁰ Gaussian as in the paper. Settings of §3 of the note, c = 1:

* (a) erf/erf, ψ2 = 2, λ = 1e-3, σ_ε = 0.1;   (b) tanh/tanh, ψ2 = 1, λ = 1e-2, σ_ε = 0.1;
* d ∈ {1000, 2000}, ψ1 ∈ {4, 8, 16}.

Checks per point (``|sim − theory| ≤ 3 s.e. + allowance``):

* ``risk1`` of the network against the **finite-N** theory (N = ψ2 d, with the network's Gaussian
  initial columns as types and its exact step: ``initial_columns="gaussian", gradient="exact"``),
  allowance 2 % of the theory —
  the neglected N^{-1/2} cross terms of the spike–mean block (§2; §3 shows deviations up to 1.7 s.e.);
* the **N = ∞** theory against the values quoted in §2/§3 (pure theory check, ± half a unit of the
  last quoted digit);
* the **finite-size trend**: the network's R1(d = 1000) − R1(d = 2000) against the theory's
  difference (the gap to N = ∞ shrinks with d), s.e. combined, allowance 20 % of the predicted drop;
* **below the kernel bound**: where the finite-N theory is below μ2*² (Ba et al. say the risk must
  beat every kernel once ψ1 is large), the margin μ2*² − R1 of the network must be positive: checked
  as the margin against its prediction with allowance equal to the predicted margin, which passes
  iff the observed margin is positive (to 3 s.e.) and at most twice the predicted one.

One more case simulates the K-type network of the Cui protocol (4 equal-mass quantile readout types,
η̃ = c, α0 = α = ψ1, β = ψ2, λ_C = λψ1/ψ2) at (b) ψ1 = 2, where §3 reports the finite-N theory 4.6 %
high (3 s.e.) — an **open** discrepancy, checked with the same 2 % allowance (not tuned).

Sizes: 4 seeds at d = 1000, 3 at d = 2000 (one seed at d = 2000, ψ1 = 16 is several minutes on
two cores). The quick case: (a) ψ1 = 8, d = 400, 2 seeds, allowance 4 % (the finite-N correction
overshoots for N ≲ 800, §2).
"""

from __future__ import annotations

import math

from asymptotics.theory.large_step.gaussian_readout import gaussian_readout_risk, width_from_dimension
from asymptotics.theory.large_step.readout_quadrature import readout_rule
from validation.registry import CaseConfig, Check, case
from validation.simulator import BaConfig, CuiConfig, simulate

FAMILY = "large_step"

SETTINGS = {
    "a": dict(student="erf", teacher="erf", psi2=2.0, lam=1e-3, noise=0.1),
    "b": dict(student="tanh", teacher="tanh", psi2=1.0, lam=1e-2, noise=0.1),
    # (c): (b) with ReLU/ReLU, where the finite-N correction is largest (N = ∞: .0518, N = 2000: .0878 at
    # ψ1 = 8); checked by its finite-size variant only (validation/finite_size/large_step.py)
    "c": dict(student="relu", teacher="relu", psi2=1.0, lam=1e-2, noise=0.1),
}
#: N = ∞ values quoted in docs/large-step-exact.md §1 (a) and §2 (b)
LIMIT_QUOTED = {("a", 4.0): ".0625", ("a", 8.0): ".0259", ("a", 16.0): ".0125", ("a", 32.0): ".0062",
                ("b", 2.0): ".0968", ("b", 8.0): ".0241"}
ALLOW_RISK = 0.02
ALLOW_RISK_QUICK = 0.04
ALLOW_TREND = 0.20
SEEDS = {1000: 4, 2000: 3}

_THEORY: dict = {}


def _theory(setting: str, psi1: float, widths: tuple, *, readout="hermite", types=None, initial_columns="gaussian"):
    """The theory at the widths of the simulated networks (their exact step on the residual y − f₀:
    ``gradient="exact"``); ``initial_columns="gaussian"``: the Ba network's N(0, 1/d) initial columns
    (their norms are types at finite N, docs/large-step-exact.md §4), ``"unit"`` for the Cui protocol."""
    key = (setting, psi1, widths, readout, types, initial_columns)
    if key not in _THEORY:
        s = SETTINGS[setting]
        _THEORY[key] = gaussian_readout_risk(s["student"], s["teacher"], psi1, s["psi2"], s["lam"], noise=s["noise"],
                                             c=1.0, width=list(widths), readout=readout, types=types,
                                             initial_columns=initial_columns, gradient="exact")
    return _THEORY[key]


def _simulate(setting: str, psi1: float, d: int, seeds: int, run: CaseConfig, offset: int):
    s = SETTINGS[setting]
    cfg = BaConfig(student=s["student"], teacher=s["teacher"], d=d, psi1=psi1, psi2=s["psi2"], eta=1.0,
                   eta_exponent=0.5, lam=s["lam"], noise=s["noise"], n_test=10_000, measure=("risk",))
    return simulate(cfg, seeds=seeds, root_seed=run.seed + offset, workers=run.workers)


def _params(setting, psi1, **extra):
    s = SETTINGS[setting]
    return dict(setting=setting, student=s["student"], teacher=s["teacher"], psi1=psi1, psi2=s["psi2"],
                lam=s["lam"], noise=s["noise"], c=1.0, **extra)


def _quoted(value: str) -> float:
    return 0.5 * 10.0 ** -len(value.split(".")[1])


def _setting_checks(name: str, setting: str, run: CaseConfig, psi1s=(4.0, 8.0, 16.0), dims=(1000, 2000)):
    s = SETTINGS[setting]
    checks = []
    for i, psi1 in enumerate(psi1s):
        widths = (math.inf,) + tuple(width_from_dimension(s["psi2"], d) for d in dims)
        th = _theory(setting, psi1, widths)
        lim, fin = th[0], th[1:]
        if (setting, psi1) in LIMIT_QUOTED:
            q = LIMIT_QUOTED[(setting, psi1)]
            checks.append(Check(name, "risk1 theory N = ∞ vs quoted", _params(setting, psi1), float(q),
                                lim.risk1, 0.0, allowance=_quoted(q) + 1e-9,
                                note=f"docs/large-step-exact.md quotes {q}; type_error {lim.type_error:.1e}"))
        sims = []
        for j, (d, th_d) in enumerate(zip(dims, fin, strict=True)):
            res = _simulate(setting, psi1, d, SEEDS.get(d, 3), run, offset=100 * i + 10 * j + (0 if setting == "a" else 1000))
            sims.append(res)
            mean, se = float(res.mean["risk1"]), float(res.se["risk1"])
            pars = _params(setting, psi1, d=d, N=th_d.width)
            checks.append(Check(name, "risk1 (network) vs finite-N theory", pars, th_d.risk1, mean, se,
                                allowance=ALLOW_RISK * th_d.risk1, d=d,
                                note=f"N = ∞ theory {lim.risk1:.5f}; neglected N^-1/2 cross terms: 2 % allowance"))
            if th_d.risk1 < th_d.kernel_bound:
                margin = th_d.kernel_bound - th_d.risk1
                checks.append(Check(name, "kernel bound μ2*² − risk1 (must be > 0)", pars, margin,
                                    th_d.kernel_bound - mean, se, allowance=margin, d=d,
                                    note=f"μ2*² = {th_d.kernel_bound:.5f}: passes iff the network beats every kernel"))
        if len(dims) == 2:
            drop_th = fin[0].risk1 - fin[1].risk1
            drop = float(sims[0].mean["risk1"]) - float(sims[1].mean["risk1"])
            se = math.hypot(float(sims[0].se["risk1"]), float(sims[1].se["risk1"]))
            checks.append(Check(name, f"risk1(d={dims[0]}) − risk1(d={dims[1]}) (gap to N = ∞ shrinks)",
                                _params(setting, psi1), drop_th, drop, se, allowance=ALLOW_TREND * abs(drop_th),
                                d=dims[1], note=f"gap to N = ∞ (theory): {fin[0].risk1 - lim.risk1:.5f} → "
                                                f"{fin[1].risk1 - lim.risk1:.5f}"))
    return checks


@case("large-step-exact-erf", family=FAMILY,
      description="35 §3 (a): erf/erf, ψ2 = 2, λ = 1e-3, σ_ε = 0.1, η = √N; ψ1 = 4, 8, 16; d = 1000, 2000")
def erf_setting(run: CaseConfig):
    return _setting_checks("large-step-exact-erf", "a", run)


@case("large-step-exact-tanh", family=FAMILY,
      description="35 §3 (b): tanh/tanh, ψ2 = 1, λ = 1e-2, σ_ε = 0.1, η = √N; ψ1 = 4, 8, 16; d = 1000, 2000")
def tanh_setting(run: CaseConfig):
    return _setting_checks("large-step-exact-tanh", "b", run)


@case("large-step-exact-four-types", family=FAMILY,
      description="35 §3 open point: (b) ψ1 = 2, 4 quantile readout types (Cui protocol), d = 1000; finite-N theory")
def four_types(run: CaseConfig):
    name = "large-step-exact-four-types"
    s = SETTINGS["b"]
    psi1, d = 2.0, 1000
    rule = readout_rule("quantile", 4)
    N = width_from_dimension(s["psi2"], d)
    lim, fin = _theory("b", psi1, (math.inf, N), readout="quantile", types=4, initial_columns="unit")
    cfg = CuiConfig(student=s["student"], teacher=s["teacher"], d=d, alpha=psi1, alpha0=psi1, beta=s["psi2"],
                    eta_tilde=1.0, lam=s["lam"] * psi1 / s["psi2"], noise=s["noise"],
                    readout_values=tuple(rule.values.tolist()), readout_proportions=tuple(rule.weights.tolist()),
                    n_test=10_000)
    res = simulate(cfg, seeds=4, root_seed=run.seed + 5000, workers=run.workers)
    pars = _params("b", psi1, d=d, N=N, readout="4 quantile types")
    return [Check(name, "test_error (4-type network) vs finite-N theory", pars, fin.risk1,
                  float(res.mean["test_error"]), float(res.se["test_error"]), allowance=ALLOW_RISK * fin.risk1, d=d,
                  note=f"open (§3): 4.6 % high at 3 s.e. there; N = ∞ theory {lim.risk1:.5f}")]


@case("large-step-exact-quick", family=FAMILY, quick=True,
      description="quick: (a) erf/erf ψ1 = 8, d = 400 (N = 800), 2 seeds; finite-N theory 0.0313 (Gaussian columns, exact step), "
                  "N = ∞ 0.0259")
def quick(run: CaseConfig):
    name = "large-step-exact-quick"
    s = SETTINGS["a"]
    psi1, d = 8.0, 400
    lim, fin = _theory("a", psi1, (math.inf, width_from_dimension(s["psi2"], d)))
    res = _simulate("a", psi1, d, 2, run, offset=7000)
    mean, se = float(res.mean["risk1"]), float(res.se["risk1"])
    pars = _params("a", psi1, d=d, N=fin.width)
    return [
        Check(name, "risk1 (network) vs finite-N theory", pars, fin.risk1, mean, se,
              allowance=ALLOW_RISK_QUICK * fin.risk1, d=d,
              note="quick size: the finite-N correction overshoots for N ≲ 800 (§2), 4 % allowance"),
        Check(name, "kernel bound μ2*² − risk1 (must be > 0)", pars, fin.kernel_bound - fin.risk1,
              fin.kernel_bound - mean, se, allowance=fin.kernel_bound - fin.risk1, d=d,
              note="passes iff the network beats every kernel (μ2*² = 0.0401)"),
        Check(name, "risk1 theory N = ∞ vs quoted", _params("a", psi1), 0.0259, lim.risk1, 0.0,
              allowance=5e-5 + 1e-9, note="35 §2 quotes .0259"),
    ]
