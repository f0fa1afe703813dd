r"""Ba, Erdogdu, Suzuki, Wang, Wu, Yang (2022), "High-dimensional asymptotics of feature learning:
how one gradient step improves the representation" — its testable claims.

Domains are the paper's: its theorems at η = Θ(1) hold for every ψ1 = n/d, ψ2 = N/d > 0, λ ≥ 0
(ridge), every label-noise level, and σ odd, smooth, centred with μ1, μ2 ≠ 0, σ* centred with
μ1* ≠ 0 (docs/one-step.md). The sampled box is ψ1, ψ2 ∈ [0.05, 100] (log), λ ∈ [1e-6, 10] (log),
η ∈ [0, 20], σ_ε ∈ [0, 1]: as wide as the float64 theory is meant to cover (its routes agree to
1e-14 there), not narrowed to any claim. The large-step claims use the exact Gaussian-readout theory
at N = ∞ (docs/large-step-exact.md); τ* and κ* are compared with the digits the paper quotes.
"""

from __future__ import annotations

from ..claim import Claim, Domain, Range
from ..confirm import ba_monotone_probe, ba_probe, confirm_with
from ..precise import alignment_precise, limits_precise, risk_precise, tau_star_precise
from .common import monotone_claim

__all__ = ["claims", "ONE_STEP_PAIRS", "ONE_STEP_ASSUMPTIONS"]

PAPER = "Ba et al. (2022)"
#: student/teacher pairs of the η = Θ(1) theorems (σ odd and smooth; teachers centred, μ1* ≠ 0)
ONE_STEP_PAIRS = (("tanh", "tanh"), ("erf", "erf"), ("tanh", "softplus"), ("erf", "relu"))
ONE_STEP_ASSUMPTIONS = (
    "student:odd",
    "student:smooth",
    "centred",
    "student:mu1!=0",
    "student:mu2!=0",
    "teacher:mu1!=0",
)

PSI = Range(0.05, 100.0, "log")
LAM = Range(1e-6, 10.0, "log")
ETA = Range(0.0, 20.0, "lin")
NOISE = Range(0.0, 1.0, "lin")


def _risk_domain(**override) -> Domain:
    ranges = {"psi1": PSI, "psi2": PSI, "lam": LAM, "eta": ETA, "noise": NOISE}
    ranges.update(override)
    return Domain(
        ranges={k: v for k, v in ranges.items() if isinstance(v, Range)},
        grids={k: v for k, v in ranges.items() if isinstance(v, tuple)},
    )


def _alignment_domain() -> Domain:
    return Domain(ranges={"psi1": PSI, "psi2": PSI, "eta": ETA, "noise": NOISE})


def _bbp_claims() -> tuple[Claim, ...]:
    src = f"{PAPER}, §3 (Thm. on the alignment; BBP transition of the rectangular spiked model W₀ + θuvᵀ)"
    probe = confirm_with(ba_monotone_probe("overlap_beta", "psi1", factor=4.0))
    return (
        Claim(
            "ba-bbp-zero-below",
            "alignment",
            "overlap_beta <= 1e-13 or theta_sq**2 > psi2",
            _alignment_domain(),
            activations=ONE_STEP_PAIRS,
            assumptions=ONE_STEP_ASSUMPTIONS,
            precise=alignment_precise,
            source=src + ": ⟨u₁, β*⟩² = 0 below the threshold θ⁴ ≤ ψ2",
        ),
        Claim(
            "ba-bbp-positive-above",
            "alignment",
            "overlap_beta > 0 or theta_sq**2 <= psi2",
            _alignment_domain(),
            activations=ONE_STEP_PAIRS,
            assumptions=ONE_STEP_ASSUMPTIONS,
            precise=alignment_precise,
            source=src + ": ⟨u₁, β*⟩² > 0 above the threshold θ⁴ > ψ2",
        ),
        monotone_claim(
            "ba-alignment-increasing-eta", "alignment", "increasing(overlap_beta, eta)", _alignment_domain(),
            unless="overlap_beta <= 1e-13", activations=ONE_STEP_PAIRS, assumptions=ONE_STEP_ASSUMPTIONS,
            precise=alignment_precise, source=src + "; Appendix figure: alignment increases with the learning rate η",
        ),
        monotone_claim(
            "ba-alignment-increasing-psi1", "alignment", "increasing(overlap_beta, psi1)", _alignment_domain(),
            activations=ONE_STEP_PAIRS, assumptions=ONE_STEP_ASSUMPTIONS, precise=alignment_precise, confirm=probe,
            source=src + "; Appendix figure: alignment increases with the sample size ψ1 = n/d",
        ),
    )


def _delta_claims() -> tuple[Claim, ...]:
    thm = f"{PAPER}, §4 Thm. 'δ' (η = Θ(1), Gaussian equivalence)"
    risk_probe = confirm_with(
        ba_probe(lambda r: r["net"]["risk0"] - r["net"]["risk1"], "R0 − R1 of the network", measure="risk")
    )
    one_step = {"activations": ONE_STEP_PAIRS, "assumptions": ONE_STEP_ASSUMPTIONS}
    return (
        Claim("ba-delta-nonnegative", "risk", "delta >= 0", _risk_domain(), **one_step, precise=risk_precise,
              confirm=risk_probe, source=thm + ": R0 − R1 → δ ≥ 0"),
        Claim("ba-delta-positive", "risk", "delta > 0", _risk_domain(eta=Range(1e-3, 20.0, "log")), **one_step,
              precise=risk_precise, source=thm + ": δ = 0 only if ημ1μ1* = 0 (so δ > 0 for η > 0)"),
        Claim(
            "ba-kernel-bound",
            "risk",
            "risk0 >= kernel_bound and risk1 >= kernel_bound",
            _risk_domain(),
            **one_step,
            precise=risk_precise,
            source=thm
            + ", Fact 4 / Prop. 1: R0, R1 ≥ μ2*² (no better than the best linear predictor); δ ≤ R0 − μ2*²",
        ),
        *_delta_zero_claims(thm),
        monotone_claim(
            "ba-delta-vanishes-wide", "risk", "decreasing(delta, psi2)",
            _risk_domain(psi1=Range(0.05, 20.0, "log"), psi2=Range(100.0, 1e6, "log")), **one_step,
            precise=risk_precise, source=thm + ": δ → 0 as ψ2 → ∞ (tested: δ decreasing in ψ2 for ψ2 ≥ 100 ≥ 5ψ1)",
        ),
        monotone_claim(
            "ba-delta-infinite-samples-increasing-eta", "limits", "increasing(delta, eta)",
            Domain(ranges={"psi2": PSI, "lam": LAM, "eta": ETA}), fixed={"limit": "psi1-inf"}, **one_step,
            precise=limits_precise, source=thm + ": at ψ1 = ∞, δ increases with η",
        ),
    )


def _delta_zero_claims(thm: str) -> tuple[Claim, ...]:
    """δ = 0 (to 1e-13 of R0) where the step carries no signal: η = 0, μ1* = 0 or μ1 = 0."""

    def zero(name, domain, activations, assumptions, when):
        return Claim(name, "risk", "abs(delta) <= 1e-13 * risk0", domain, activations=activations,
                     assumptions=assumptions, precise=risk_precise, source=thm + ": δ = 0 when " + when)

    return (
        zero("ba-delta-zero-eta0", _risk_domain(eta=(0.0,)), ONE_STEP_PAIRS, ONE_STEP_ASSUMPTIONS, "η = 0"),
        zero("ba-delta-zero-teacher-mu1star0", _risk_domain(), (("tanh", "he2"), ("erf", "he2")),
             ("student:odd", "student:smooth", "centred", "student:mu1!=0", "teacher:mu1==0"),
             "μ1* = 0 (teacher of information exponent 2)"),
        zero("ba-delta-zero-student-mu1-0", _risk_domain(), (("he2", "tanh"),),
             ("student:smooth", "centred", "student:mu1==0"), "μ1 = 0 (no rank-one signal in the gradient)"),
    )


def _large_step_claims() -> tuple[Claim, ...]:
    src = f"{PAPER}, §5 Thm. (η = Θ(√N), n/d > ψ1*): R1 ≤ 10τ* + C(√τ*√(d/n) + d/n); Cor.: the trained CK beats every kernel"
    tau = f"{PAPER}, §5 eq. (5.1) and Appendix: τ* = inf_κ E(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²"
    grid = Domain(grids={"student_scale": (1.0,)})
    return (
        Claim(
            "ba-large-step-beats-kernels",
            "large_step",
            "risk1 < kernel_bound",
            Domain(
                grids={
                    "psi1": (32.0, 64.0, 128.0, 256.0, 512.0, 1024.0),
                    "psi2": (0.25, 1.0, 4.0, 8.0),
                    "lam": (1e-4, 1e-2, 1.0),
                    "noise": (0.0, 0.25, 0.5),
                }
            ),
            activations=(("erf", "erf"), ("tanh", "tanh")),
            assumptions=("odd", "smooth", "centred"),
            source=src
            + " (exact Gaussian-readout theory at N = ∞; the paper gives no ψ1*: tested for ψ1 ≥ 32 on a "
            "grid — one API call per grid, the theory costs ~0.05 s a point)",
        ),
        Claim(
            "ba-tau-star-beats-kernels",
            "tau_star",
            "10 * tau_star < kernel_bound",
            grid,
            activations=(("erf", "erf"), ("tanh", "tanh")),
            assumptions=("odd", "smooth"),
            precise=tau_star_precise,
            source=tau + ": 10τ* < μ2*² for σ = σ* = erf and tanh",
        ),
        Claim(
            "ba-tau-star-erf-closed-form",
            "tau_star",
            "tau_star <= 1e-15 and kappa_star == sqrt(3)",
            grid,
            tolerance=1e-12,
            activations=(("erf", "erf"),),
            assumptions=("odd", "smooth"),
            precise=tau_star_precise,
            source=tau + "; Cor.: σ = σ* = erf gives τ* = 0 at κ* = √3",
        ),
        _quoted_tau_star("tanh", ("3e-4", "0.5e-4"), ("1.6", "0.05"), ("odd", "smooth"),
                         tau + ": quoted τ* ≈ 3·10⁻⁴, κ* ≈ 1.6 for σ = σ* = tanh (one significant digit each)"),
        _quoted_tau_star("softplus", ("0.03", "0.005"), ("0.96", "0.005"), ("student:odd", "smooth"),
                         tau + ": quoted τ* ≈ 0.03, κ* ≈ 0.96 for a SoftPlus teacher (tanh student, centred teacher)"),
    )


def _quoted_tau_star(teacher: str, tau: tuple[str, str], kappa: tuple[str, str], assumptions, source: str) -> Claim:
    """τ* and κ* of the tanh student and ``teacher`` within half a unit of the last digit the paper
    quotes: ``tau``, ``kappa`` = (quoted value, half-unit), written as the paper writes them."""
    return Claim(
        f"ba-tau-star-quoted-{teacher}",
        "tau_star",
        f"abs(tau_star - {tau[0]}) <= {tau[1]} and abs(kappa_star - {kappa[0]}) <= {kappa[1]}",
        Domain(grids={"student_scale": (1.0,)}),
        activations=(("tanh", teacher),),
        assumptions=assumptions,
        precise=tau_star_precise,
        source=source,
    )


def claims() -> tuple[Claim, ...]:
    """Every testable claim of Ba et al. (2022)."""
    return (*_bbp_claims(), *_delta_claims(), *_large_step_claims())
