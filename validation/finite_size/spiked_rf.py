r"""Finite-size variants of the spiked random-features cases (:mod:`validation.cases.spiked_rf`).

The points of each case (Cui et al. 2024 protocol for the network, the sRF model at the mapped
(c, r, γ), K readout types, β ≠ 1, the network − RF gap) simulated on a ladder of d, against the
p = ∞ theory of :mod:`asymptotics.theory.spiked_rf`.

**ω.** Not known: the conditional Gaussian equivalence is exact as d → ∞, but the spike r·v enters
every neuron at O(1), and its corrections at finite d are not derived; with K readout types the
finite-p noise of the mean directions is O(1/p) with a coefficient mₖ²/πₖ that can be large
(``docs/spiked-rf.md``, K types). ω is selected among {1/2, 1}. For the **network** the p = ∞
theory of the sRF at the mapped (c, r, γ) is a *model* of the network: a failing limit there
measures the network → sRF map's error (issue: tanh/tanh, η̃ = 5, α0 = 1, α = 3, network 0.2006 ±
0.0029 … vs 0.1911, no trend), not a finite-size effect. A finite-p theory plugs in as
``finite_theories[(variant, "test_error")]`` of :func:`~validation.finite_size.study.run_study`.
**Which theory is judged.** For the network with a uniform readout the network map
(:func:`~asymptotics.theory.spiked_rf.network_map.network_one_step`: the trained bulk's
weighted-Wishart covariance and the step's self term together, docs/spiked-rf-finite-width.md), at
small α0 (the tanh table, α0 = 1: c − 1 = 0.96) and large α0 (the sin table, α0 = 20: c − 1 = 0.019)
alike; the structured-bulk map, the isotropic map with the self term and the isotropic map are
reported beside it (``references``); with readout types the isotropic map (the network map does
not cover K types). For the sRF model with K readout types the finite-p theory of the mean
directions at p = round(βd) (:func:`~asymptotics.theory.spiked_rf.finite_width.solve_finite_width`)
is judged at every d and the p = ∞ value is the limit reported beside it.
"""

from __future__ import annotations

import functools

from asymptotics.theory.spiked_rf import (
    channel_model,
    cui_to_srf,
    readout_types,
    solve_spiked_rf,
    srf_parameters,
)
from asymptotics.theory.spiked_rf.finite_width import solve_finite_width
from asymptotics.theory.spiked_rf.network_map import network_one_step
from asymptotics.theory.spiked_rf.self_term import one_step_self_term
from asymptotics.theory.spiked_rf.structured_map import structured_one_step

from .adapters import CUI, SRF, combined
from .spec import OMEGA_UNKNOWN, Quantity, Variant

__all__ = ["VARIANTS", "srf_theory", "network_theory", "structured_theory", "self_term_theory", "finite_width_theory"]

FAMILY = "spiked_rf"

_W = ("ω not known: finite-size corrections of the conditional Gaussian equivalence (the spike r·v enters every "
      "neuron at O(1)) are not derived")
_W_NET = _W + "; for the network the p = ∞ theory also carries the network → sRF map's modelling error"
_W_NETWORK = (_W + "; network judged against the network map (structured bulk and the step's self term; the "
              "structured, isotropic + self term and isotropic maps beside it)")
_W_TYPES = _W + "; K types: judged at every d against the finite-p theory of the mean directions (p = ∞ beside)"


@functools.cache
def srf_theory(student, teacher, alpha, beta, lam, eta_tilde=None, alpha0=None, c=None, r=None, gamma=None,
               readout=None, proportions=None):
    """The p = ∞ sRF solution at (α, β, λ): (c, r, γ) mapped from the Cui protocol (η̃, α0) or given."""
    rt = None if readout is None else readout_types(readout, proportions)
    params = (cui_to_srf(eta_tilde, alpha0, student, teacher, readout=rt) if eta_tilde is not None
              else srf_parameters(c, r, gamma, rt))
    return solve_spiked_rf(channel_model(params, student, teacher), alpha, beta, lam)


@functools.cache
def network_theory(student, teacher, alpha, beta, lam, eta_tilde, alpha0):
    """The network map's solution after one large step (uniform readout, no label noise)."""
    return network_one_step(alpha, alpha0, beta, eta_tilde, lam, student, teacher)


@functools.cache
def structured_theory(student, teacher, alpha, beta, lam, eta_tilde, alpha0):
    """The structured-bulk map's solution after one large step (uniform readout, no label noise)."""
    return structured_one_step(alpha, alpha0, beta, eta_tilde, lam, student, teacher)


@functools.cache
def self_term_theory(student, teacher, alpha, beta, lam, eta_tilde, alpha0):
    """The isotropic map with the step's self term (docs/spiked-rf-finite-width.md, "The self term")."""
    return one_step_self_term(alpha, alpha0, beta, eta_tilde, lam, student, teacher)


@functools.cache
def _finite_width_cached(args, d: int):
    student, teacher, alpha, beta, lam, eta_tilde, alpha0, c, r, gamma, readout, proportions = args
    rt = readout_types(readout, proportions)
    params = (cui_to_srf(eta_tilde, alpha0, student, teacher, readout=rt) if eta_tilde is not None
              else srf_parameters(c, r, gamma, rt))
    infinite = srf_theory(student, teacher, alpha, beta, lam, eta_tilde, alpha0, c, r, gamma, readout, proportions)
    return solve_finite_width(channel_model(params, student, teacher), alpha, beta, lam, max(1, round(beta * d)),
                              infinite=infinite)


def finite_width_theory(student, teacher, alpha, beta, lam, eta_tilde=None, alpha0=None, c=None, r=None, gamma=None,
                        readout=None, proportions=None):
    """``theory(d)``: the finite-p sRF test error at p = round(βd) (the simulator's width) for K readout types."""
    args = (student, teacher, alpha, beta, lam, eta_tilde, alpha0, c, r, gamma, tuple(readout), tuple(proportions))
    return lambda d: _finite_width_cached(args, int(d)).test_error


def _readout_fields(readout, proportions) -> dict:
    return {} if readout is None else dict(readout_values=tuple(readout), readout_proportions=tuple(proportions))


def _network(case, *, student, teacher, eta_tilde, alpha0, lam, alpha, beta=1.0, readout=None, proportions=None,
             parameters=False, quick=False, covers=()) -> Variant:
    th = functools.partial(srf_theory, student, teacher, alpha, beta, lam, eta_tilde, alpha0, readout=readout,
                           proportions=proportions)
    params = dict(student=student, teacher=teacher, alpha=alpha, alpha0=alpha0, beta=beta, eta_tilde=eta_tilde,
                  lam=lam, n_test=10_000, measure=("risk", "spike"), **_readout_fields(readout, proportions))
    if readout is None:  # judged against the network map, the other maps beside it
        nw = functools.partial(network_theory, student, teacher, alpha, beta, lam, eta_tilde, alpha0)
        st = functools.partial(structured_theory, student, teacher, alpha, beta, lam, eta_tilde, alpha0)
        sf = functools.partial(self_term_theory, student, teacher, alpha, beta, lam, eta_tilde, alpha0)
        maps = {"network map": nw, "structured map": st, "isotropic map": th, "isotropic map + self term": sf}
        main, why = "network map", _W_NETWORK
        qs = [Quantity(q, (lambda q=q: getattr(maps[main](), q)), OMEGA_UNKNOWN, why, label=label, target_rel=0.005,
                       references=tuple((name, (lambda q=q, f=f: getattr(f(), q))) for name, f in maps.items()
                                        if name != main))
              for q, label in (("test_error", "test error ε_g"), ("train_error", "training error"))]
    else:
        qs = [Quantity("test_error", lambda: th().test_error, OMEGA_UNKNOWN, _W_NET, label="test error ε_g",
                       target_rel=0.005),
              Quantity("train_error", lambda: th().train_error, OMEGA_UNKNOWN, _W_NET, label="training error",
                       target_rel=0.005)]
    if parameters:
        for q, label in (("r", "measured r"), ("c", "measured c"), ("gamma", "measured γ")):
            qs.append(Quantity(q, (lambda q=q: float(getattr(th().params, q))), OMEGA_UNKNOWN,
                               "ω not known: the sRF parameters of the trained W¹ vs the map", label=label,
                               target_rel=0.003))
    tag = "" if readout is None else "-types"
    return Variant(f"{case}-alpha{alpha:g}{tag}-network", case, FAMILY,
                   f"network (Cui protocol) {student}/{teacher}, η̃ = {eta_tilde:g}, α0 = {alpha0:g}, λ = {lam:g}, "
                   f"α = {alpha:g}, β = {beta:g}" + ("" if readout is None else f", readout types {readout}"),
                   params, CUI, tuple(qs), quick=quick, covers=covers)


def _srf_mapped(case, *, student, teacher, eta_tilde, alpha0, lam, alpha, beta=1.0, readout=None, proportions=None,
                quick=False, covers=()) -> Variant:
    th = functools.partial(srf_theory, student, teacher, alpha, beta, lam, eta_tilde, alpha0, readout=readout,
                           proportions=proportions)

    def params():
        p = th().params
        return dict(student=student, teacher=teacher, alpha=alpha, beta=beta, lam=lam,
                    c=tuple(p.bulk) if len(p.bulk) > 1 else p.c, r=p.r, gamma=p.gamma, n_test=10_000,
                    **_readout_fields(readout, proportions))

    finite = None if readout is None else finite_width_theory(student, teacher, alpha, beta, lam, eta_tilde, alpha0,
                                                              readout=readout, proportions=proportions)
    q = Quantity("test_error", lambda: th().test_error, OMEGA_UNKNOWN, _W if readout is None else _W_TYPES,
                 label="test error ε_g", target_rel=0.005, finite_theory=finite)
    tag = "" if readout is None else "-types"
    return Variant(f"{case}-alpha{alpha:g}{tag}-srf", case, FAMILY,
                   f"sRF at the (c, r, γ) mapped from η̃ = {eta_tilde:g}, α0 = {alpha0:g} ({student}/{teacher}), "
                   f"λ = {lam:g}, α = {alpha:g}, β = {beta:g}", params, SRF, (q,), quick=quick, covers=covers)


def _table(case, student, teacher, eta_tilde, alpha0, lam, quick_alpha=None, covers=()) -> list[Variant]:
    out = []
    for i, a in enumerate((0.5, 1.5, 3.0)):
        quick = a == quick_alpha
        kw = dict(student=student, teacher=teacher, eta_tilde=eta_tilde, alpha0=alpha0, lam=lam, alpha=a)
        out.append(_network(case, parameters=(i == 0), quick=quick, covers=covers if quick else (), **kw))
        out.append(_srf_mapped(case, covers=covers if quick else (), **kw))
    return out


def _beta(beta: float) -> Variant:
    case = "spiked-rf-beta"
    qs, parts = [], {}
    th = {a: functools.partial(srf_theory, "tanh", "sin", a, beta, 0.05, 2.0, 3.0) for a in (1.0, 3.0)}

    def params():
        p = th[1.0]().params
        return dict(student="tanh", teacher="sin", beta=beta, lam=0.05, c=p.c, r=p.r, gamma=p.gamma, n_test=10_000)

    for a in (1.0, 3.0):
        parts[f"alpha={a:g}"] = (SRF, {"alpha": a})
        qs.append(Quantity(f"test_error (α = {a:g})", (lambda a=a: th[a]().test_error), OMEGA_UNKNOWN, _W,
                           key=f"alpha={a:g}.test_error", label=f"ε_g (α = {a:g})", target_rel=0.005))
    dims = {"default": (250, 354, 500, 707, 1000, 1414, 2000)} if beta > 1 else {}
    return Variant(f"{case}-{beta:g}", case, FAMILY, f"sRF, tanh/sin, η̃ = 2, α0 = 3, λ = 0.05, β = {beta:g} "
                   f"(p = {beta:g}·d), α = 1 and 3 on common seeds", params, combined(parts), tuple(qs), dims=dims)


def _types(teacher: str, readout=(0.3, 1.7), quick: bool = False, name: str = "", dims=None) -> Variant:
    case = "spiked-rf-readout-types"
    proportions = tuple(1.0 / len(readout) for _ in readout)
    kw = dict(c=1.0, r=1.5, gamma=1.0, readout=tuple(readout), proportions=proportions)
    th = functools.partial(srf_theory, "tanh", teacher, 3.0, 1.0, 0.01, **kw)
    params = dict(student="tanh", teacher=teacher, alpha=3.0, beta=1.0, lam=0.01, c=1.0, r=1.5, gamma=1.0,
                  readout_values=tuple(readout), readout_proportions=proportions, n_test=10_000)
    q = Quantity("test_error", lambda: th().test_error, OMEGA_UNKNOWN, _W_TYPES, label="test error ε_g",
                 target_rel=0.005, finite_theory=finite_width_theory("tanh", teacher, 3.0, 1.0, 0.01, **kw))
    tag = name or ("sin" if teacher == "sin" else "he3")
    types = ", ".join(f"{u:g}" for u in readout)
    return Variant(f"{case}-srf-{tag}", case, FAMILY, f"sRF K = {len(readout)} types u ∈ {{{types}}}, c = 1, r = 1.5, "
                   f"γ = 1, λ = 0.01, α = 3, target {teacher}", params, SRF, (q,), quick=quick,
                   covers=("spiked-rf-quick",) if quick else (), dims=dims or {})


def _step_hurts(alpha: float, quick: bool = False) -> Variant:
    case = "spiked-rf-step-hurts"
    th = functools.partial(srf_theory, "tanh", "tanh", alpha, 1.0, 0.01, 5.0, 1.0)
    nw = functools.partial(network_theory, "tanh", "tanh", alpha, 1.0, 0.01, 5.0, 1.0)
    rf = functools.partial(srf_theory, "tanh", "tanh", alpha, 1.0, 0.01, c=1.0, r=0.0, gamma=0.0)
    params = dict(student="tanh", teacher="tanh", alpha=alpha, alpha0=1.0, beta=1.0, eta_tilde=5.0, lam=0.01,
                  n_test=10_000, measure=("risk", "baseline"))
    qs = (Quantity("network − RF (common data)", lambda: nw().test_error - rf().test_error, OMEGA_UNKNOWN,
                   _W_NETWORK, derive=lambda o: o["test_error"] - o["test_error0"], label="ε_g(network) − ε_g(RF)",
                   target_se=0.002, references=(("isotropic map", lambda: th().test_error - rf().test_error),)),
          Quantity("test_error0 (RF, W0)", lambda: rf().test_error, (1.0,),
                   "ω = 1: finite-size bias of a ridge risk of random features (r = 0)", key="test_error0",
                   label="ε_g of RF at W⁰", target_rel=0.005))
    return Variant(f"{case}-alpha{alpha:g}", case, FAMILY, f"tanh/tanh, η̃ = 5, α0 = 1, λ = 0.01, α = {alpha:g}: "
                   "trained network minus RF on the same data", params, CUI, qs, quick=quick,
                   covers=("spiked-rf-step-hurts-quick",) if quick else ())


VARIANTS = (
    *_table("spiked-rf-table-tanh", "tanh", "tanh", 5.0, 1.0, 0.01, quick_alpha=3.0, covers=("spiked-rf-quick",)),
    # α0 = 20: the step's noise is small (c − 1 = 0.019) and the self term is what the maps miss
    # (docs/spiked-rf-finite-width.md, "The self term"); α0 = 1 (tanh table): the structured bulk;
    # the network map has both
    *_table("spiked-rf-table-sin", "tanh", "sin", 3.0, 20.0, 0.1),
    _beta(0.5),
    _beta(2.0),
    _types("sin", quick=True),
    _types("x + (x**3 - 3*x)/sqrt(6)"),
    # docs/spiked-rf-finite-width.md: three types, where the p = ∞ value (0.184) is far from every network
    _types("x + (x**3 - 3*x)/sqrt(6)", readout=(0.5, 1.0, 1.5), name="three-he3",
           dims={"default": (300, 424, 600, 849, 1200, 1697, 2400)}),
    _network("spiked-rf-readout-types", student="tanh", teacher="tanh", eta_tilde=3.0, alpha0=2.0, lam=0.01, alpha=2.0,
             readout=(0.5, 1.5), proportions=(0.5, 0.5)),
    _srf_mapped("spiked-rf-readout-types", student="tanh", teacher="tanh", eta_tilde=3.0, alpha0=2.0, lam=0.01,
                alpha=2.0, readout=(0.5, 1.5), proportions=(0.5, 0.5)),
    _step_hurts(0.5),
    _step_hurts(1.5),
    _step_hurts(3.0, quick=True),
)
