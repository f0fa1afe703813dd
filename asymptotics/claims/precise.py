r"""Independent high-precision routes for deciding claims whose float64 margin is at round-off.

Each route is ``route(params, student, teacher, dps) -> {column: mpmath.mpf}`` (the signature of
:attr:`asymptotics.claims.claim.Claim.precise`) and returns the API function's output columns at
``dps`` significant digits. Every route is a second implementation of the theory, written from the
formulas of ``docs/one-step.md`` in mpmath arithmetic; it shares no code with the float64 solvers
(not the Newton maps, not the Stieltjes transforms, not the Gaussian constants):

* **Gaussian constants** μ0, μ1, μ2² of σ and σ* by ``mpmath.quad`` of the raw activation against
  the Gaussian density, split at its kinks (:func:`gaussian_constants`); centred as the API centres.
* ``risk``: R0 by Mei–Montanari's closed form (route A: ζ = μ1/μ2, G(P) = y²P − (p1 − φ)(p2 − φ)
  solved by monotone Newton from P = 0, then E0, E1, E2); R1 and δ by the deterministic equivalent
  (route B: κ̃ by Newton on κ̃(1 − df1) = λ/μ1² from the right, the Marchenko–Pastur transforms from
  their quadratics, Δ, Δ' of the rank-one spike). R0 is also given by route B (``risk0_route_b``):
  the two derivations agree to the working precision (tested).
* ``alignment``: the rectangular spiked model's closed forms (BBP θ⁴ > ψ2, overlaps, outlier).
* ``limits`` (``psi1-inf``): R0, δ, R1 and the ridgeless δ at ψ1 = ∞.
* ``tau_star``: the project's mpmath path (Newton on τ'(κ) = 0 at ``dps`` digits), continued by one
  Newton step in mpmath so that τ* and κ* keep every digit.
* ``spiked_rf``: only at r = 0 (``eta_tilde = 0`` or ``r = 0``), where the sRF is random features:
  route A at ψ1 = α, ψ2 = β, λ_Ba = λβ/α. The general replica fixed point has no high-precision
  route: there :func:`precise_route` returns ``None`` and a near-zero point stays undecided.
* ``large_step``, ``ck_spike``, ``spectrum``: no high-precision route (``None``).

>>> out = risk_precise({"psi1": 4, "psi2": 2, "lam": 1e-4, "eta": 3, "noise": 0.25}, "tanh", "softplus", 30)
>>> mpmath.nstr(out["risk0"], 7)
'0.1367689'
"""

from __future__ import annotations

from functools import lru_cache

import mpmath

from ..errors import ConvergenceError, ParameterError

__all__ = [
    "GaussianConstantsMP",
    "gaussian_constants",
    "risk_precise",
    "risk0_route_b",
    "alignment_precise",
    "limits_precise",
    "tau_star_precise",
    "spiked_rf_precise",
    "PRECISE_ROUTES",
    "precise_route",
]

#: the API's defaults for parameters a claim leaves out (asymptotics.api.one_step)
_RISK_DEFAULTS = {"psi1": 2.0, "psi2": 1.5, "lam": 1e-3, "eta": 1.0, "noise": 0.1}
_ALIGN_DEFAULTS = {"psi1": 2.0, "psi2": 1.5, "eta": 1.0, "noise": 0.1}
#: guard digits carried above the requested precision (cancellations in 1 − κ̃m at large ψ2)
_GUARD = 20


class GaussianConstantsMP:
    """μ0, μ1, μ2² of an activation (centred: μ0 = 0) at a given precision (mpmath numbers)."""

    def __init__(self, mu0, mu1, mu2_sq):
        self.mu0, self.mu1, self.mu2_sq = mu0, mu1, mu2_sq


@lru_cache(maxsize=64)
def gaussian_constants(spec: str, center: bool = True, dps: int = 30) -> GaussianConstantsMP:
    """μ0 = E σ(z), μ1 = E zσ(z), μ2² = E σ² − μ0² − μ1² of ``spec`` (z ~ N(0, 1)) at ``dps`` (+ guard)
    digits, each expectation by the one mpmath Gaussian quadrature (:func:`asymptotics.gaussian.expect_mp`,
    split at the activation's kinks); the centred function (``center``) has μ0 = 0 and the same
    μ1, μ2². (Only these three: :func:`asymptotics.activations.constants.raw_constants` would also
    compute twelve Hermite coefficients and two derivative moments: 8–70 times longer at 50 digits.)"""
    from ..activations import activation
    from ..gaussian import expect_mp

    act = activation(spec, center=False)
    f = act.mpmath(raw=True)[0]
    kinks = tuple(act.kinks)
    with mpmath.workdps(dps + _GUARD):
        m0 = expect_mp(f, kinks, dps=dps + _GUARD)
        m1 = expect_mp(lambda z: z * f(z), kinks, dps=dps + _GUARD)
        e2 = expect_mp(lambda z: f(z) ** 2, kinks, dps=dps + _GUARD)
        mu2_sq = e2 - m0 * m0 - m1 * m1
        # a constant below the quadrature's resolution vanishes by parity (μ1 of an even σ): exactly 0
        m0, m1 = (mpmath.mpf(0) if _tiny(x, dps) else x for x in (m0, m1))
    if not center and abs(m0) > mpmath.mpf(10) ** (-dps):
        raise ParameterError(
            "center", False, "True for the one-step theory", f"μ0 = {mpmath.nstr(m0, 6)} ≠ 0"
        )
    return GaussianConstantsMP(mpmath.mpf(0) if center else m0, m1, mu2_sq)


def _model(student, teacher, noise, dps):
    s, t = gaussian_constants(str(student), True, dps), gaussian_constants(str(teacher), True, dps)
    return s.mu1, s.mu2_sq, t.mu1, t.mu2_sq, mpmath.mpf(noise) ** 2


def _tiny(x, dps):
    """|x| below the working resolution: a constant that vanishes by parity (μ1 of an even σ)."""
    return abs(x) < mpmath.mpf(10) ** (-(dps + _GUARD // 2))


def _newton(F, x0, tol, max_steps=400):
    """Newton's method x ← x − F/F' for a monotone convergent iteration (F returns (F, F'))."""
    x = x0
    for _ in range(max_steps):
        f, df = F(x)
        step = f / df
        x = x - step
        if abs(step) <= tol * max(1, abs(x)):
            return x
    raise ConvergenceError(
        f"high-precision Newton did not converge in {max_steps} steps (last step {mpmath.nstr(step, 3)})"
    )


# ---------------------------------------------------------------- Marchenko–Pastur transforms (z < 0)
def _mbar(z, psi2):
    """m̄(z) of W₀W₀ᵀ (d×d): z m̄² + (1 + z − ψ2) m̄ + 1 = 0, the positive root at z < 0, and m̄'."""
    b = 1 + z - psi2
    mb = 2 / (-b + mpmath.sqrt(b * b - 4 * z))
    return mb, -(mb * mb + mb) / (2 * z * mb + b)


def _m_wtw(z, psi2):
    """m(z) of W₀ᵀW₀ (N×N, MP(ψ2)): ψ2 z m² + (ψ2 + z − 1) m + 1 = 0, the positive root, and m'."""
    b = psi2 + z - 1
    m = 2 / (-b + mpmath.sqrt(b * b - 4 * psi2 * z))
    return m, -(psi2 * m * m + m) / (2 * psi2 * z * m + b)


# ---------------------------------------------------------------- route A: R0 (Mei–Montanari)
def _route_a_risk0(psi1, psi2, lam, mu1, mu2_sq, mu1s, mu2s_sq, noise_sq, dps):
    p1, p2 = psi2, psi1
    z2 = mu1 * mu1 / mu2_sq
    y2 = psi1 * lam / mu2_sq

    def G(P):
        phi = P + z2 * P / (1 + z2 * P)
        dphi = 1 + z2 / (1 + z2 * P) ** 2
        return y2 * P - (p1 - phi) * (p2 - phi), y2 + dphi * (p1 + p2 - 2 * phi)

    P = _newton(G, mpmath.mpf(0), mpmath.mpf(10) ** (-(dps + _GUARD // 2)))
    chi = -P
    z4, z6 = z2 * z2, z2 * z2 * z2
    c2, c3 = chi * chi, chi**3
    c4, c5 = c3 * chi, c3 * chi * chi
    pp = p1 * p2
    E0 = (
        -c5 * z6
        + 3 * c4 * z4
        + (pp - p2 - p1 + 1) * c3 * z6
        - 2 * c3 * z4
        - 3 * c3 * z2
        + (p1 + p2 - 3 * pp + 1) * c2 * z4
        + 2 * c2 * z2
        + c2
        + 3 * pp * chi * z2
        - pp
    )
    E1 = p2 * c3 * z4 - p2 * c2 * z2 + pp * chi * z2 - pp
    E2 = (
        c5 * z6
        - 3 * c4 * z4
        + (p1 - 1) * c3 * z6
        + 2 * c3 * z4
        + 3 * c3 * z2
        + (-p1 - 1) * c2 * z4
        - 2 * c2 * z2
        - c2
    )
    return mu1s * mu1s * E1 / E0 + (noise_sq + mu2s_sq) * E2 / E0 + mu2s_sq


# ---------------------------------------------------------------- route B: κ, df2, R0, δ
def _effective_ridge(psi1, psi2, lam, mu1, mu2_sq, dps):
    """(κ̃, z*, df2) with λ = κ(1 − df1(κ)), κ̃ = κ/μ1², z* = −(γ + κ̃)."""
    gam = mu2_sq / (mu1 * mu1)
    lt = lam / (mu1 * mu1)
    r = psi2 / psi1

    def sums(kt):
        m, dm = _m_wtw(-(gam + kt), psi2)
        return r * (1 - kt * m), r * (1 - 2 * kt * m + kt * kt * dm)

    def F(kt):
        df1, df2 = sums(kt)
        return kt * (1 - df1) - lt, 1 - df2

    kt = _newton(F, lt + r * (1 + gam), mpmath.mpf(10) ** (-(dps + _GUARD // 2)))
    kt = max(kt, mpmath.mpf(0))
    return kt, -(gam + kt), sums(kt)[1], gam


def _bias(gam, z, kt, Q, dQ):
    return gam * Q - z * kt * dQ


def _spike_delta(mb, dmb, th, th1):
    """Δ = θ1²m̄²/(1 + (1 + θ²)m̄) and Δ' (docs/one-step.md §1)."""
    den = 1 + (1 + th) * mb
    return th1 * mb * mb / den, th1 * dmb * mb * (2 + (1 + th) * mb) / (den * den)


def _route_b(p, student, teacher, dps):
    mu1, mu2_sq, mu1s, mu2s_sq, noise_sq = _model(student, teacher, p["noise"], dps)
    psi1, psi2, lam, eta = (mpmath.mpf(p[k]) for k in ("psi1", "psi2", "lam", "eta"))
    eff = noise_sq + mu2s_sq
    if _tiny(mu1, dps):  # no rank-one signal: Σ = μ2² I, κ from its quadratic, δ = 0
        r = psi2 / psi1
        b = mu2_sq * (1 - r) - lam
        kappa = (mpmath.sqrt(b * b + 4 * lam * mu2_sq) - b) / 2
        df2 = r * mu2_sq**2 / (mu2_sq + kappa) ** 2
        r0 = mu2s_sq + (mu1s * mu1s + eff * df2) / (1 - df2)
        return r0, mpmath.mpf(0), mu1, mu2_sq, mu1s, mu2s_sq, noise_sq
    kt, z, df2, gam = _effective_ridge(psi1, psi2, lam, mu1, mu2_sq, dps)
    mb, dmb = _mbar(z, psi2)
    r0 = mu2s_sq + (mu1s * mu1s * _bias(gam, z, kt, mb, dmb) + eff * df2) / (1 - df2)
    label = mu1s * mu1s + mu2s_sq + noise_sq
    th1 = eta * eta * mu1 * mu1 * mu1s * mu1s
    th = th1 + eta * eta * mu1 * mu1 * label / psi1
    D, dD = _spike_delta(mb, dmb, th, th1)
    delta = mu1s * mu1s / (1 - df2) * _bias(gam, z, kt, D, dD)
    return r0, delta, mu1, mu2_sq, mu1s, mu2s_sq, noise_sq


def _rounded(out: dict, dps: int) -> dict:
    """The values rounded to ``dps`` digits (mpf carry their own precision outside the context)."""
    with mpmath.workdps(dps):
        return {k: +v for k, v in out.items()}


def _params(params, defaults):
    out = dict(defaults)
    out.update({k: v for k, v in dict(params).items() if k in defaults and v is not None})
    return out


def risk0_route_b(params, student, teacher, dps: int = 30):
    """R0 by route B at ``dps`` digits (the second derivation of route A's R0)."""
    p = _params(params, _RISK_DEFAULTS)
    with mpmath.workdps(dps + _GUARD):
        r0 = _route_b(p, student, teacher, dps)[0]
    with mpmath.workdps(dps):
        return +r0


def risk_precise(params, student, teacher, dps: int = 30) -> dict:
    """``risk``'s columns at ``dps`` digits: R0 by route A (route B for a linear student μ2 = 0),
    δ by route B, R1 = R0 − δ, and the kernel bound μ2*²."""
    p = _params(params, _RISK_DEFAULTS)
    if float(p["lam"]) == 0 and float(p["psi1"]) == float(p["psi2"]):
        raise ParameterError("lam", 0.0, "> 0 at the interpolation threshold ψ1 = ψ2")
    with mpmath.workdps(dps + _GUARD):
        r0b, delta, mu1, mu2_sq, mu1s, mu2s_sq, noise_sq = _route_b(p, student, teacher, dps)
        if mu2_sq > 0:
            r0 = _route_a_risk0(
                *(mpmath.mpf(p[k]) for k in ("psi1", "psi2", "lam")),
                mu1,
                mu2_sq,
                mu1s,
                mu2s_sq,
                noise_sq,
                dps,
            )
        else:
            r0 = r0b
        out = {"risk0": r0, "risk1": r0 - delta, "delta": delta, "kernel_bound": mu2s_sq}
    return _rounded(out, dps)


# ---------------------------------------------------------------- alignment (rectangular spiked model)
def alignment_precise(params, student, teacher, dps: int = 30) -> dict:
    """``alignment``'s numeric columns at ``dps`` digits (``separated`` as 0/1)."""
    p = _params(params, _ALIGN_DEFAULTS)
    with mpmath.workdps(dps + _GUARD):
        mu1, _, mu1s, mu2s_sq, noise_sq = _model(student, teacher, p["noise"], dps)
        psi1, psi2, eta = (mpmath.mpf(p[k]) for k in ("psi1", "psi2", "eta"))
        s_sq = mu1s * mu1s + (mu1s * mu1s + mu2s_sq + noise_sq) / psi1
        th1 = eta * eta * mu1 * mu1 * mu1s * mu1s
        th = eta * eta * mu1 * mu1 * s_sq
        gap = th * th - psi2  # BBP: separated iff θ⁴ > ψ2
        sep = gap > 0
        out = {
            "theta_sq": th,
            "separated": mpmath.mpf(1 if sep else 0),
            "eta_threshold": psi2 ** mpmath.mpf(0.25) / (abs(mu1) * mpmath.sqrt(s_sq))
            if not _tiny(mu1, dps)
            else mpmath.inf,
            "overlap_beta": (th1 / th) * gap / (th * (1 + th)) if sep else mpmath.mpf(0),
            "overlap_a": gap / (th * (th + psi2)) if sep else mpmath.mpf(0),
            "overlap_u": gap / (th * (1 + th)) if sep else mpmath.mpf(0),
            "top_sv2": (psi2 + th) * (1 + th) / th if sep else (1 + mpmath.sqrt(psi2)) ** 2,
            "teacher_energy": psi2 + th1,
            "bbp_gap": gap,
        }
    return _rounded(out, dps)


# ---------------------------------------------------------------- limits at ψ1 = ∞
def limits_precise(params, student, teacher, dps: int = 30) -> dict:
    """``limits`` with ``limit='psi1-inf'`` at ``dps`` digits: κ = λ, df2 = 0, θ² = θ1²."""
    p = _params(params, {"psi2": 1.5, "lam": 1e-3, "eta": 1.0, "noise": 0.1, "limit": "psi1-inf"})
    if str(dict(params).get("limit", "psi1-inf")) != "psi1-inf":
        raise ParameterError("limit", params.get("limit"), "psi1-inf for the high-precision route")
    with mpmath.workdps(dps + _GUARD):
        mu1, mu2_sq, mu1s, mu2s_sq, _ = _model(student, teacher, p["noise"], dps)
        psi2, lam, eta = (mpmath.mpf(p[k]) for k in ("psi2", "lam", "eta"))
        gam = mu2_sq / (mu1 * mu1)
        kt = lam / (mu1 * mu1)
        z = -(gam + kt)
        mb, dmb = _mbar(z, psi2)
        th1 = eta * eta * mu1 * mu1 * mu1s * mu1s
        r0 = mu2s_sq + mu1s * mu1s * _bias(gam, z, kt, mb, dmb)
        D, dD = _spike_delta(mb, dmb, th1, th1)
        delta = mu1s * mu1s * _bias(gam, z, kt, D, dD)
        m0, _ = _mbar(-gam, psi2)
        ridgeless = mu1s * mu1s * gam * th1 * m0 * m0 / (1 + (1 + th1) * m0)
        out = {
            "risk0": r0,
            "risk1": r0 - delta,
            "delta": delta,
            "delta_ridgeless": ridgeless,
            "kernel_bound": mu2s_sq,
        }
    return _rounded(out, dps)


# ---------------------------------------------------------------- τ*, spiked RF at r = 0
def tau_star_precise(params, student, teacher, dps: int = 30) -> dict:
    """τ*, κ* at ``dps`` digits by the project's mpmath path (Newton on τ'(κ) = 0 in mpmath at
    ``dps`` digits, :mod:`asymptotics.theory.large_step.tau_star.mp`), continued from its answer by
    one Newton step at the working precision so that κ* and τ* keep every digit (the path's own
    result is rounded to float64). An infimum at κ = 0 or κ → ∞ keeps the path's value."""
    from ..theory.large_step.tau_star import tau_star
    from ..theory.large_step.tau_star.mp import _MpObjective  # the path's objective (τ, τ', τ'')
    from ..theory.large_step.tau_star.problem import make_problem

    p = dict(params)
    a, b = float(p.get("student_scale", 1.0)), float(p.get("teacher_scale", 1.0))
    center, fit = bool(p.get("center", True)), bool(p.get("fit_constant", False))
    res = tau_star(
        student,
        teacher,
        student_scale=a,
        teacher_scale=b,
        center=center,
        fit_constant=fit,
        method="mpmath",
        dps=int(dps),
    )
    if not res.converged:
        raise ConvergenceError(f"τ* mpmath path: {res.status.label} ({res.message})")
    with mpmath.workdps(dps + 10):
        kappa, tau = mpmath.mpf(res.kappa_star), mpmath.mpf(res.tau_star)
        if res.infimum_at == "interior":
            # one Newton step from the path's κ* (|step| ~ 1e-16): κ* to O(step²), and τ* to O(step³)
            # by the quadratic model τ(κ − τ'/τ'') = τ − τ'²/(2τ'')
            R = _MpObjective(make_problem(student, teacher, center, fit, a, b), a, b, dps)
            v, d1, d2 = R.objective(kappa, 1)
            kappa, tau = kappa - d1 / d2, v - d1 * d1 / (2 * d2)
        out = {
            "tau_star": tau,
            "kappa_star": kappa,
            "kernel_bound": gaussian_constants(str(teacher), True, dps).mu2_sq,
        }
    return _rounded(out, dps)


def _srf_is_random_features(p) -> bool:
    if p.get("r") is not None:
        return float(p["r"]) == 0.0 and p.get("readout") is None
    return p.get("eta_tilde") is not None and float(p["eta_tilde"]) == 0.0 and p.get("readout") is None


def spiked_rf_precise(params, student, teacher, dps: int = 30) -> dict:
    """``spiked_rf``'s ``test_error`` at r = 0 (random features: route A at ψ1 = α, ψ2 = β,
    λ_Ba = λβ/α); a :class:`ParameterError` elsewhere (no high-precision route for r > 0)."""
    p = dict(params)
    if not _srf_is_random_features(p):
        raise ParameterError(
            "r",
            p.get("r", p.get("eta_tilde")),
            "0 (random features) for the high-precision route",
            "the spiked-RF fixed point at r > 0 has no high-precision route",
        )
    alpha, beta, lam = float(p["alpha"]), float(p.get("beta", 1.0)), float(p.get("lam", 0.01))
    q = {
        "psi1": alpha,
        "psi2": beta,
        "lam": lam * beta / alpha,
        "eta": 0.0,
        "noise": float(p.get("noise", 0.0)),
    }
    return {"test_error": risk_precise(q, student, teacher, dps)["risk0"]}


#: {quantity: route}; quantities without a route are absent.
PRECISE_ROUTES = {
    "risk": risk_precise,
    "alignment": alignment_precise,
    "limits": limits_precise,
    "tau_star": tau_star_precise,
    "spiked_rf": spiked_rf_precise,
}


def precise_route(quantity: str, params=None):
    """The high-precision route of ``quantity`` at ``params`` (``None`` where there is none: the
    large step, the CK spike, spectra, the spiked RF at r > 0, limits other than ψ1 = ∞)."""
    route = PRECISE_ROUTES.get(quantity)
    if route is None or params is None:
        return route
    if quantity == "spiked_rf" and not _srf_is_random_features(dict(params)):
        return None
    if quantity == "limits" and str(dict(params).get("limit", "psi1-inf")) != "psi1-inf":
        return None
    return route
