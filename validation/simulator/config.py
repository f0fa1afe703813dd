r"""Configurations of the three simulated protocols: small, immutable, validated on construction.

* :class:`BaConfig` — the network of Ba, Erdogdu, Suzuki, Wang, Wu & Yang (2022)
  (``docs/one-step.md``): Gaussian W₀ (entries N(0, 1/d)) and readout a
  (entries N(0, 1/N)), one (or ``steps``) full-batch gradient step(s) W₁ = W₀ + η√N G₀ on n = ψ1·d
  samples, ridge with the penalty (λ/N)‖a‖² on a fresh set of n samples, risk E(f̂ − f*)².
* :class:`CuiConfig` — the protocol of Cui, Pesce, Dandi, Krzakala, Lu, Zdeborová & Loureiro (2024)
  (``docs/spiked-rf.md``): rows uniform on the sphere, readout a⁰ = u/√p, first batch n0 = α0·d,
  step η̃·p on the plain gradient, fresh n = α·d samples, ridge Σ(y − aᵀφ/√p)² + λ‖a‖².
* :class:`SRFConfig` — the spiked random-features (sRF) model itself (``docs/spiked-rf.md``):
  features σ(F x), F = √c W + r u vᵀ, target direction θ = γ v + √(1 − γ²) ζ.

Every field is checked in ``__post_init__``; a bad value raises
:class:`~asymptotics.errors.ParameterError` naming the field, the value and the valid range.

>>> cfg = BaConfig(d=200, psi1=2, psi2=1.5, eta=5)
>>> (cfg.n, cfg.N, cfg.learning_rate)
(400, 300, 5.0)
>>> BaConfig(d=1000, eta=2, eta_exponent=0.5).learning_rate == 2 * 1500 ** 0.5
True
>>> BaConfig(d=10, psi1=0.1)
Traceback (most recent call last):
...
asymptotics.errors.ParameterError: invalid psi1=0.1: psi1 must be > 0 and give n = round(psi1*d) >= 2 (here n = 1 at d = 10)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import ClassVar

from asymptotics.activations import Activation, activation
from asymptotics.errors import ParameterError
from asymptotics.params import (
    as_float,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability_vector,
)

__all__ = [
    "BaConfig",
    "CuiConfig",
    "SRFConfig",
    "PROTOCOLS",
    "MEASURE_GROUPS",
    "FEATURES",
    "GRADIENTS",
    "BATCHES",
    "COLUMNS",
    "TEST_RISKS",
    "config_class",
    "readout_counts",
    "memory_estimate",
    "BASE_MEMORY",
]

PROTOCOLS = ("ba", "cui", "srf")
#: Measurement groups a config may ask for (see :mod:`validation.simulator.measurements`).
MEASURE_GROUPS = ("risk", "spike", "ck", "baseline")
FEATURES = ("true", "ge")
GRADIENTS = ("exact", "rank1", "labels")
BATCHES = ("same", "fresh")
#: initial columns of the Ba protocol: N(0, 1/d) entries (Ba et al.) or normalised to the sphere
COLUMNS = ("gaussian", "unit")
#: How E_x of the test risk is taken: ``exact`` (population risk from the Gram matrix, no test set)
#: or ``monte-carlo`` (``n_test`` fresh Gaussian points).
TEST_RISKS = ("exact", "monte-carlo")


# ---- field checks -------------------------------------------------------------------------------
def _activation_name(field_name: str, spec) -> str:
    if isinstance(spec, Activation):
        return spec.name
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(field_name, spec, "a built-in activation name or an expression in x")
    try:
        activation(spec.strip(), center=True)
    except ParameterError:
        raise
    except Exception as exc:  # parse errors: name the field
        raise ParameterError(
            field_name, spec, "a built-in activation name or a safe expression in x", str(exc)
        ) from None
    return spec.strip()


def _choice(field_name: str, value, choices) -> str:
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise ParameterError(field_name, value, "one of " + ", ".join(choices))
    return value.strip().lower()


def _measure(value, allowed) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.replace(" ", "").split(",") if v]
    try:
        items = tuple(str(v).strip().lower() for v in value)
    except TypeError:
        raise ParameterError("measure", value, f"a list of groups among {', '.join(allowed)}") from None
    bad = [v for v in items if v not in allowed]
    if bad:
        raise ParameterError(
            "measure", value, f"groups among {', '.join(allowed)}", f"unknown: {', '.join(bad)}"
        )
    # canonical order, no duplicates
    return tuple(g for g in allowed if g in items)


def _size(field_name: str, ratio: float, d: int, symbol: str, minimum: int) -> int:
    n = int(round(ratio * d))
    if n < minimum:
        raise ParameterError(
            field_name,
            ratio,
            f"> 0 and give {symbol} = round({field_name}*d) >= {minimum} (here {symbol} = {n} at d = {d})",
        )
    return n


def _readout(values, proportions) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if isinstance(values, (int, float)):
        values = (values,)
    if isinstance(proportions, (int, float)):
        proportions = (proportions,)
    try:
        vals = tuple(as_float(f"readout_values[{i}]", v) for i, v in enumerate(values))
        props = tuple(check_probability_vector("readout_proportions", list(proportions)))
    except TypeError:
        raise ParameterError("readout_values", values, "a list of finite numbers") from None
    if not vals:
        raise ParameterError("readout_values", values, "a non-empty list of finite numbers")
    if len(vals) != len(props):
        raise ParameterError(
            "readout_proportions", proportions, f"a list of {len(vals)} proportions, one per readout value"
        )
    if all(v == 0.0 for v in vals):
        raise ParameterError("readout_values", values, "not all zero (the readout would be identically 0)")
    return vals, props


def readout_counts(proportions, p: int) -> tuple[int, ...]:
    """Exact numbers of neurons per readout type: round(πₖ·p) by largest remainders (sum = p).

    >>> readout_counts((0.5, 0.5), 5)
    (3, 2)
    """
    raw = [q * p for q in proportions]
    counts = [int(math.floor(x)) for x in raw]
    order = sorted(range(len(raw)), key=lambda k: (-(raw[k] - counts[k]), k))
    for k in order[: p - sum(counts)]:
        counts[k] += 1
    return tuple(counts)


@dataclass(frozen=True)
class _ConfigBase:
    """The fields every protocol starts with, the checks they share, and shared helpers."""

    student: str = "tanh"
    teacher: str = "tanh"
    center: bool = True
    d: int = 1000

    protocol: ClassVar[str]

    def __post_init__(self):
        _common_checks(self)
        self._check()

    def _check(self):  # the protocol's own checks, after the common ones
        raise NotImplementedError

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def student_activation(self) -> Activation:
        """σ as used (centred when ``center``)."""
        return activation(self.student, center=self.center)

    def teacher_activation(self) -> Activation:
        """σ* as used (centred when ``center``)."""
        return activation(self.teacher, center=self.center)

    def as_dict(self) -> dict:
        """The fields and the derived sizes, for result rows and metadata."""
        out = {"protocol": self.protocol}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = ",".join(v) if f.name == "measure" else (list(v) if isinstance(v, tuple) else v)
        out.update(self.sizes())
        return out

    def replace(self, **changes):
        """A copy with some fields changed (validated again)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d.update(changes)
        return type(self)(**d)


class _CuiSizes:
    """The sizes in Cui et al.'s notation (``alpha``, ``beta``): width p and readout samples n."""

    @property
    def p(self) -> int:
        """Width: round(β·d)."""
        return int(round(self.beta * self.d))

    @property
    def n(self) -> int:
        """Readout samples: round(α·d)."""
        return int(round(self.alpha * self.d))


def _step_checks(cfg) -> None:
    cfg._set("steps", check_int("steps", cfg.steps, 1))
    cfg._set("gradient", _choice("gradient", cfg.gradient, GRADIENTS))
    cfg._set("batches", _choice("batches", cfg.batches, BATCHES))


def _readout_checks(cfg) -> tuple[float, ...]:
    vals, props = _readout(cfg.readout_values, cfg.readout_proportions)
    cfg._set("readout_values", vals)
    cfg._set("readout_proportions", props)
    return vals


def _common_checks(cfg) -> None:
    cfg._set("student", _activation_name("student", cfg.student))
    cfg._set("teacher", _activation_name("teacher", cfg.teacher))
    if not isinstance(cfg.center, bool):
        raise ParameterError("center", cfg.center, "True or False")
    cfg._set("d", check_int("d", cfg.d, 2))
    cfg._set("n_test", check_int("n_test", cfg.n_test, 2))
    cfg._set("noise", check_nonnegative("noise", cfg.noise))
    cfg._set("lam", check_nonnegative("lam", cfg.lam))
    cfg._set("features", _choice("features", cfg.features, FEATURES))
    test_risk = cfg.test_risk.replace("_", "-") if isinstance(cfg.test_risk, str) else cfg.test_risk
    cfg._set("test_risk", _choice("test_risk", test_risk, TEST_RISKS))
    cfg._set("risk_rtol", check_in_range("risk_rtol", cfg.risk_rtol, 1e-15, 1e-2))


@dataclass(frozen=True)
class BaConfig(_ConfigBase):
    r"""The Ba et al. one-step network (``docs/one-step.md``). Sizes: n = round(ψ1·d), N = round(ψ2·d).

    Attributes:
        student: σ, a built-in name or an expression in ``x``.
        teacher: σ*, the same; the target is f*(x) = σ*(⟨x, β*⟩) with β* uniform on the sphere.
        center: centre σ and σ* (σ − E σ(z)), as the theory assumes.
        d: input dimension (integer ≥ 2).
        psi1: ψ1 = n/d, samples per dimension (the step and the ridge each use n fresh samples).
        psi2: ψ2 = N/d, width per dimension.
        eta: the learning-rate constant; the step is η = eta · N**eta_exponent.
        eta_exponent: 0 for the small step η = Θ(1), 0.5 for the large step η = eta·√N (Ba et al.
            sweep [0, 1/2]); any value in [0, 1].
        lam: ridge penalty λ of â = argmin (1/n)‖ỹ − Φa‖² + (λ/N)‖a‖², Φ = σ(X̃W)/√N (λ = 0:
            the minimum-norm interpolator when N > n).
        noise: σ_ε, standard deviation of the Gaussian label noise (training and ridge sets).
        features: ``true`` for σ(Wᵀx), ``ge`` for the Gaussian equivalent μ0 + μ1Wᵀx + μ2 z,
            z ~ N(0, I_N) independent of x (ridge and test; the gradient step always uses σ).
        steps: number T ≥ 1 of gradient steps on W (a fixed).
        initial_columns: ``gaussian`` (W₀ with N(0, 1/d) entries, Ba et al.: column norms ρ² ~ χ²_d/d) or
            ``unit`` (the same columns normalised to the sphere, as in Cui et al.; the same
            random numbers, so the two are paired on a seed).
        gradient: ``exact`` (the true gradient G) or ``rank1`` (its rank-one approximation
            A = μ1 Xᵀr aᵀ/(n√N), r = y at the first step as in Ba et al.'s Prop. 2, the residual
            y − f(X) at later ones) or ``labels`` (G with the labels y in place of the residual
            y − f(X): at the first step it drops the network's initial output f₀ = O(N^{-1/2}), as
            the large-step theory does, so that the two can be compared on common random numbers).
        batches: ``same`` (full-batch steps on one training set) or ``fresh`` (a new set of n
            samples at every step).
        n_test: number of fresh test points for E_x with ``test_risk="monte-carlo"`` (streamed
            in chunks; unused by the exact risk).
        measure: measurement groups: ``risk`` (risk0, risk1, delta, train_error), ``spike``
            (overlap_beta, overlap_a, top_sv2, bulk_edge_sv2, rank1_error, gradient_sv_ratio,
            beta_energy), ``ck`` (ck_outlier, ck_label_alignment).
        test_risk: ``exact`` (default): the population risk E_x(f̂ − f*)² of the trained network
            computed from the Gram matrix WᵀW (:mod:`validation.simulator.population`), no test
            set, no test-set noise; ``monte-carlo``: the mean over ``n_test`` fresh points.
        risk_rtol: tolerance of the exact risk's Hermite truncation bound, relative to E σ*²
            (default 1e-10; closed forms and Gaussian-equivalent features are exact).
    """

    protocol: ClassVar[str] = "ba"

    psi1: float = 2.0
    psi2: float = 1.5
    eta: float = 1.0
    eta_exponent: float = 0.0
    lam: float = 1e-3
    noise: float = 0.1
    features: str = "true"
    steps: int = 1
    gradient: str = "exact"
    batches: str = "same"
    n_test: int = 10_000
    measure: tuple[str, ...] = ("risk", "spike", "ck")
    test_risk: str = "exact"
    risk_rtol: float = 1e-10
    initial_columns: str = "gaussian"

    def _check(self):
        self._set("initial_columns", _choice("initial_columns", self.initial_columns, COLUMNS))
        self._set("psi1", check_positive("psi1", self.psi1))
        self._set("psi2", check_positive("psi2", self.psi2))
        _size("psi1", self.psi1, self.d, "n", 2)
        _size("psi2", self.psi2, self.d, "N", 1)
        self._set("eta", check_nonnegative("eta", self.eta))
        self._set("eta_exponent", check_in_range("eta_exponent", self.eta_exponent, 0.0, 1.0))
        _step_checks(self)
        self._set("measure", _measure(self.measure, ("risk", "spike", "ck")))

    @property
    def n(self) -> int:
        """Samples of the training set (and of the ridge set): round(ψ1·d)."""
        return int(round(self.psi1 * self.d))

    @property
    def N(self) -> int:  # noqa: N802 - the paper's symbol
        """Width: round(ψ2·d)."""
        return int(round(self.psi2 * self.d))

    @property
    def learning_rate(self) -> float:
        """η = eta · N**eta_exponent."""
        return self.eta * self.N**self.eta_exponent

    def sizes(self) -> dict:
        return {"n": self.n, "N": self.N, "learning_rate": self.learning_rate}


@dataclass(frozen=True)
class CuiConfig(_ConfigBase, _CuiSizes):
    r"""The Cui et al. protocol (``docs/spiked-rf.md``). Sizes: p = round(β·d),
    n0 = round(α0·d), n = round(α·d).

    Attributes:
        student, teacher, center: as in :class:`BaConfig` (target σ*(⟨θ, x⟩), ‖θ‖ = 1).
        d: input dimension.
        alpha: α = n/d, samples of the (fresh) readout set.
        alpha0: α0 = n0/d, samples of the first-step batch.
        beta: β = p/d, width.
        eta_tilde: η̃; the step is w¹ⱼ = w⁰ⱼ + η̃ uⱼ (1/n0) Σ_μ (y_μ − f0(x_μ)) σ'(w⁰ⱼᵀx_μ) x_μ,
            i.e. the rate η̃·p on the plain gradient (Ba's η = η̃√p).
        lam: λ of â = argmin Σ_μ (y_μ − aᵀσ(W¹x_μ)/√p)² + λ‖a‖² (not rescaled).
        noise: σ_ε of the label noise (0 in Cui et al.); test_error is measured against the
            noiseless target, so Cui's ε_g with noisy test labels is test_error + σ_ε².
        readout_values, readout_proportions: the readout types uⱼ = √p a⁰ⱼ ∈ {u⁽ᵏ⁾} with
            proportions πₖ (exact counts round(πₖ p) by largest remainders, in blocks);
            the default (1.0,), (1.0,) is Cui's uniform readout a⁰ = 1/√p.
        n_test, features, steps, gradient, batches, test_risk, risk_rtol: as in :class:`BaConfig`.
        measure: ``risk`` (test_error, train_error), ``spike`` (overlap_beta, overlap_a, top_sv2,
            bulk_edge_sv2, rank1_error, gradient_sv_ratio, beta_energy and the measured sRF
            parameters r, c, gamma), ``ck`` (ck_outlier, ck_label_alignment), ``baseline``
            (test_error0, train_error0: the same readout on W⁰, common random numbers).
    """

    protocol: ClassVar[str] = "cui"

    alpha: float = 1.0
    alpha0: float = 1.0
    beta: float = 1.0
    eta_tilde: float = 1.0
    lam: float = 0.01
    noise: float = 0.0
    readout_values: tuple[float, ...] = (1.0,)
    readout_proportions: tuple[float, ...] = (1.0,)
    n_test: int = 10_000
    features: str = "true"
    steps: int = 1
    gradient: str = "exact"
    batches: str = "same"
    measure: tuple[str, ...] = ("risk", "spike")
    test_risk: str = "exact"
    risk_rtol: float = 1e-10

    def _check(self):
        self._set("alpha", check_positive("alpha", self.alpha))
        self._set("alpha0", check_positive("alpha0", self.alpha0))
        self._set("beta", check_positive("beta", self.beta))
        _size("alpha", self.alpha, self.d, "n", 2)
        _size("alpha0", self.alpha0, self.d, "n0", 1)
        _size("beta", self.beta, self.d, "p", 1)
        self._set("eta_tilde", check_nonnegative("eta_tilde", self.eta_tilde))
        _readout_checks(self)
        _step_checks(self)
        self._set("measure", _measure(self.measure, ("risk", "spike", "ck", "baseline")))

    @property
    def n0(self) -> int:
        """First-step batch: round(α0·d)."""
        return int(round(self.alpha0 * self.d))

    def sizes(self) -> dict:
        return {"n": self.n, "n0": self.n0, "p": self.p}


@dataclass(frozen=True)
class SRFConfig(_ConfigBase, _CuiSizes):
    r"""The spiked random-features model (``docs/spiked-rf.md``).

    Features φ(x) = σ(F x) with F = √c W + r u vᵀ ∈ ℝ^{p×d}: W has rows uniform on the sphere,
    v uniform on the sphere, u the readout types (u = 1_p for the uniform readout); target
    y = σ*(⟨θ, x⟩) + ε with θ = γ v + √(1 − γ²) ζ, ζ ⟂ v uniform. Readout as in :class:`CuiConfig`;
    the fields alpha, beta, lam, noise, readout_values, readout_proportions, n_test, features,
    test_risk and risk_rtol are as in :class:`CuiConfig`.

    Attributes:
        c: bulk variance, one number, or one per readout type (Cui §7: c_k depends on the type).
        r: spike strength (≥ 0); neuron j has spike r·uⱼ.
        gamma: overlap γ ∈ [−1, 1] between the spike v and the target direction θ.
        self_term: k of the step's self term: each bulk column √c wⱼ is rescaled by
            (1 + k uⱼ⟨wⱼ, v⟩) (the w⁰-component of one large step, k = r E[σ⁽³⁾]/E[σ']); 0, the
            default, is the plain sRF model (``docs/spiked-rf-finite-width.md``, "The self term").
        measure: ``risk`` (test_error, train_error), ``spike`` (overlap_beta, overlap_a, top_sv2,
            bulk_edge_sv2, beta_energy and the re-measured r, c, gamma of F), ``ck``.
    """

    protocol: ClassVar[str] = "srf"

    alpha: float = 1.0
    beta: float = 1.0
    lam: float = 0.01
    c: float | tuple[float, ...] = 1.0
    r: float = 0.0
    gamma: float = 0.0
    self_term: float = 0.0
    noise: float = 0.0
    readout_values: tuple[float, ...] = (1.0,)
    readout_proportions: tuple[float, ...] = (1.0,)
    n_test: int = 10_000
    features: str = "true"
    measure: tuple[str, ...] = ("risk",)
    test_risk: str = "exact"
    risk_rtol: float = 1e-10

    def _check(self):
        self._set("alpha", check_positive("alpha", self.alpha))
        self._set("beta", check_positive("beta", self.beta))
        _size("alpha", self.alpha, self.d, "n", 2)
        _size("beta", self.beta, self.d, "p", 1)
        vals = _readout_checks(self)
        if isinstance(self.c, (list, tuple)):
            cs = tuple(check_nonnegative(f"c[{k}]", v) for k, v in enumerate(self.c))
            if len(cs) == 1:
                cs = cs[0]
            elif len(cs) != len(vals):
                raise ParameterError("c", self.c, f"one number or {len(vals)} numbers (one per readout type)")
            self._set("c", cs)
        else:
            self._set("c", check_nonnegative("c", self.c))
        self._set("r", check_nonnegative("r", self.r))
        self._set("gamma", check_in_range("gamma", self.gamma, -1.0, 1.0))
        self._set("self_term", check_in_range("self_term", self.self_term, -1e6, 1e6))
        self._set("measure", _measure(self.measure, ("risk", "spike", "ck")))

    def bulk_variances(self) -> tuple[float, ...]:
        """c per readout type."""
        return self.c if isinstance(self.c, tuple) else (self.c,) * len(self.readout_values)

    def sizes(self) -> dict:
        return {"n": self.n, "p": self.p}


_CLASSES = {"ba": BaConfig, "cui": CuiConfig, "srf": SRFConfig}


def config_class(protocol: str):
    """The config class of ``protocol`` (``ba``, ``cui`` or ``srf``)."""
    key = _choice("protocol", protocol, PROTOCOLS)
    return _CLASSES[key]


#: Bytes of the interpreter with numpy, scipy, numba and the compiled kernels loaded.
BASE_MEMORY = 384 * 2**20
#: Nodes in κ and Hermite orders assumed by :func:`memory_estimate` for the exact risk (an upper
#: estimate: one node when no direction is conditioned on, ≈ 200 after a large step).
_EST_NODES, _EST_ORDERS = 256, 16


def memory_estimate(cfg) -> int:
    r"""An upper estimate, in bytes, of the peak memory of one seed of ``cfg`` in one process.

    The float64 arrays alive at the peak of each phase, plus the first layers (2·d·N when both
    W₀ and W₁ are kept) and :data:`BASE_MEMORY`:

    * first step: the batch X (n0·d), the pre-activations (n0·N), the gradient (d·N), and the
      Gram matrix of the smaller side of G₀ when the spike is measured;
    * ridge: the fresh inputs (n·d), the features (n·N, twice with Gaussian-equivalent noise),
      the ridge Gram matrix, its Cholesky factor and the temporary of its 1-norm (3·min(n, N)²);
    * exact risk: the Gram matrix WᵀW, its entrywise power (2·N²) and the conditional Hermite
      coefficients (2·(K + 1)·N·Q, Q ≤ 256 nodes in κ, K ≤ 16 orders);
      Monte-Carlo risk instead: two test chunks of 48 MiB;
    * spike: the Gram matrix of the smaller side of W (min(d, N)²).

    >>> round(memory_estimate(BaConfig(d=8000, psi1=1, psi2=1, measure=("risk",))) / 2**30, 1)   # measured: 3.57
    3.7
    """
    d = cfg.d
    sizes = cfg.sizes()
    n = sizes["n"]
    N = sizes.get("N", sizes.get("p"))
    n0 = sizes.get("n0", n)
    groups = cfg.measure
    kept = 2 if (cfg.protocol == "ba" or "baseline" in groups) else 1
    floats = kept * d * N
    phases = []
    if cfg.protocol != "srf":
        phases.append(n0 * d + n0 * N + d * N + (min(d, N) ** 2 if "spike" in groups else 0))
    if any(g in groups for g in ("risk", "ck", "baseline")):
        ge = cfg.features == "ge"
        phases.append(n * d + n * N * (2 if ge else 1) + 3 * min(n, N) ** 2)  # Gram, its factor, |Gram|
    if any(g in groups for g in ("risk", "baseline")):
        if cfg.test_risk == "exact" and cfg.features == "true":
            phases.append(2 * N * N + 2 * (_EST_ORDERS + 1) * N * _EST_NODES + (1 << 14) * 600)
        elif cfg.test_risk != "exact":
            phases.append(2 * 48 * 2**20 // 8)
    if "spike" in groups:
        phases.append(min(d, N) ** 2 + d * N)
    return int(BASE_MEMORY + 8 * (floats + max(phases, default=0)))
