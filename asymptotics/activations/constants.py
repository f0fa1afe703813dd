r"""Gaussian constants of an activation.

For z ~ N(0,1):

* μ0 = E σ(z), μ1 = E[z σ(z)] = E σ'(z) (Stein's identity), μ2² = E σ(z)² − μ0² − μ1²;
* normalised Hermite coefficients c_k = E[σ(z) He_k(z)]/√k!, k = 0..12, with E σ² = Σ c_k²;
* E σ'(z)² and Var σ'(z) = E σ'² − μ1² (Cui et al.'s ȟ1).

Three paths: ``"closed"`` (closed forms, where they exist: erf, relu, sin, linear, he2, he3,
quadratic, and partial ones), ``"float64"`` (composite Gauss–Legendre split at the kinks, with an
error estimate) and ``"mpmath"`` (tanh–sinh quadrature at 30 digits). ``"auto"`` takes closed forms
where they exist and float64 quadrature for the rest.

Centring (σ̃ = σ − μ0) is applied exactly to the raw constants: μ0 → 0, c_0 → 0,
E σ̃² = E σ² − μ0²; μ1, μ2, the c_k (k ≥ 1) and the derivative moments are unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import mpmath
import numpy as np

from ..gaussian import expect, expect_mp

__all__ = ["GaussianConstants", "HERMITE_DEGREE", "raw_constants", "closed_form_constants", "centred"]

#: Highest Hermite degree computed.
HERMITE_DEGREE = 12


@dataclass(frozen=True)
class GaussianConstants:
    """Gaussian constants of one activation (centred or not).

    Attributes:
        mu0: E σ(z).
        mu1: E[z σ(z)].
        mu2: √(E σ² − μ0² − μ1²) ≥ 0 (the size of the nonlinear part).
        mu2_sq: μ2², the energy of the nonlinear part.
        second_moment: E σ(z)².
        mean_derivative: E σ'(z) (equals μ1 by Stein's identity; computed independently).
        mean_sq_derivative: E σ'(z)².
        var_derivative: Var σ'(z) = E σ'² − (E σ')².
        hermite: (c_0, …, c_12), c_k = E[σ He_k]/√k!.
        method: how they were obtained (``closed``, ``float64``, ``mpmath`` or a mix).
        error: an estimate of the absolute quadrature error (0 for closed forms).
        centered: whether σ is the centred function.
    """

    mu0: float
    mu1: float
    mu2: float
    mu2_sq: float
    second_moment: float
    mean_derivative: float
    mean_sq_derivative: float
    var_derivative: float
    hermite: tuple[float, ...]
    method: str
    error: float = 0.0
    centered: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        """A JSON-friendly dictionary."""
        return {
            "mu0": self.mu0,
            "mu1": self.mu1,
            "mu2": self.mu2,
            "mu2_sq": self.mu2_sq,
            "second_moment": self.second_moment,
            "mean_derivative": self.mean_derivative,
            "mean_sq_derivative": self.mean_sq_derivative,
            "var_derivative": self.var_derivative,
            "hermite": list(self.hermite),
            "centered": self.centered,
            "method": self.method,
            "error": self.error,
        }


def _hermite_poly_mp(k, x):
    return mpmath.hermite(k, x / mpmath.sqrt(2)) * mpmath.mpf(2) ** (-mpmath.mpf(k) / 2)


def _dfact(m: int) -> int:
    """Double factorial m!! with (−1)!! = 0!! = 1."""
    out = 1
    while m > 1:
        out *= m
        m -= 2
    return out


def closed_form_constants(name: str | None, dps: int = 30) -> dict:
    """Closed-form raw (uncentred) constants of a built-in, as mpmath numbers (possibly partial).

    Keys among ``mu0, mu1, second_moment, hermite, mean_sq_derivative``.
    """
    if name is None:
        return {}
    with mpmath.workdps(dps + 5):
        pi = mpmath.pi
        K = HERMITE_DEGREE
        sf = [mpmath.sqrt(mpmath.factorial(k)) for k in range(K + 1)]
        if name == "erf":
            c = [mpmath.mpf(0)] * (K + 1)
            for k in range(1, K + 1, 2):
                m = k - 1
                c[k] = 2 / mpmath.sqrt(3 * pi) * _dfact(m - 1) * (mpmath.mpf(-2) / 3) ** (m // 2) / sf[k]
            return {
                "mu0": mpmath.mpf(0),
                "mu1": 2 / mpmath.sqrt(3 * pi),
                "second_moment": 2 / pi * mpmath.asin(mpmath.mpf(2) / 3),
                "mean_sq_derivative": 4 / (pi * mpmath.sqrt(5)),
                "hermite": c,
            }
        if name == "relu":
            c = [mpmath.mpf(0)] * (K + 1)
            c[0] = 1 / mpmath.sqrt(2 * pi)
            c[1] = mpmath.mpf(1) / 2
            for k in range(2, K + 1):
                m = k - 2
                if m % 2 == 0:
                    he0 = (-1) ** (m // 2) * _dfact(m - 1)
                    c[k] = he0 / (mpmath.sqrt(2 * pi) * sf[k])
            return {
                "mu0": c[0],
                "mu1": c[1],
                "second_moment": mpmath.mpf(1) / 2,
                "mean_sq_derivative": mpmath.mpf(1) / 2,
                "hermite": c,
            }
        if name == "sin":
            e = mpmath.exp(mpmath.mpf(-1) / 2)
            c = [e * mpmath.sinpi(mpmath.mpf(k) / 2) / sf[k] for k in range(K + 1)]
            return {
                "mu0": mpmath.mpf(0),
                "mu1": e,
                "second_moment": (1 - mpmath.exp(-2)) / 2,
                "mean_sq_derivative": (1 + mpmath.exp(-2)) / 2,
                "hermite": c,
            }
        poly = {"linear": {1: 1}, "he2": {2: 1}, "he3": {3: 1}, "quadratic": {0: 1, 2: 1}}
        if name in poly:
            # He-expansion coefficients a_k of σ = Σ a_k He_k: c_k = a_k √k!
            a = poly[name]
            c = [mpmath.mpf(a.get(k, 0)) * sf[k] for k in range(K + 1)]
            deriv = {"linear": 1, "he2": 4, "he3": 18, "quadratic": 4}[name]  # E σ'²
            return {
                "mu0": c[0],
                "mu1": c[1],
                "second_moment": sum(ck**2 for ck in c),
                "mean_sq_derivative": mpmath.mpf(deriv),
                "hermite": c,
            }
        if name == "softplus":
            return {"mu1": mpmath.mpf(1) / 2}  # softplus' = sigmoid, E sigmoid(z) = 1/2 by symmetry
    return {}


def raw_constants(f_np, df_np, f_mp, df_mp, kinks=(), method: str = "float64", dps: int = 30,
                  singular=()) -> dict:
    """Quadrature values of the raw constants (no closed forms) as a dict of floats/mpf.

    ``method`` is ``"float64"`` (vectorised numpy functions) or ``"mpmath"``; ``singular``:
    integrable singular points, approached by geometrically graded panels (float64) or used as
    split points (mpmath).
    """
    K = HERMITE_DEGREE
    if method == "float64":
        err = 0.0
        vals = {}

        def E(g):
            nonlocal err
            v, e = expect(g, kinks, graded=singular)
            err = max(err, e)
            return v

        he = [np.polynomial.hermite_e.HermiteE.basis(k) for k in range(K + 1)]
        c = [E(lambda x, k=k: f_np(x) * he[k](x)) / math.sqrt(math.factorial(k)) for k in range(K + 1)]
        vals["hermite"] = c
        vals["mu0"] = c[0]
        vals["mu1"] = c[1]
        vals["second_moment"] = E(lambda x: f_np(x) ** 2)
        vals["mean_derivative"] = E(df_np)
        vals["mean_sq_derivative"] = E(lambda x: df_np(x) ** 2)
        vals["error"] = err
        return vals
    if method == "mpmath":
        kinks = tuple(sorted(set(kinks) | set(singular)))
        with mpmath.workdps(dps):
            c = [
                expect_mp(lambda t, k=k: f_mp(t) * _hermite_poly_mp(k, t), kinks, dps=dps)
                / mpmath.sqrt(mpmath.factorial(k))
                for k in range(K + 1)
            ]
            return {
                "hermite": c,
                "mu0": c[0],
                "mu1": c[1],
                "second_moment": expect_mp(lambda t: f_mp(t) ** 2, kinks, dps=dps),
                "mean_derivative": expect_mp(df_mp, kinks, dps=dps),
                "mean_sq_derivative": expect_mp(lambda t: df_mp(t) ** 2, kinks, dps=dps),
                "error": mpmath.mpf(10) ** (-dps + 5),
            }
    raise ValueError(f"unknown quadrature method {method!r}")


def assemble(vals: dict, method: str, center: bool) -> GaussianConstants:
    """Build :class:`GaussianConstants` from raw values (floats or mpf), centring if asked."""
    mu0 = vals["mu0"]
    mu1 = vals["mu1"]
    m2 = vals["second_moment"]
    mu2_sq = m2 - mu0**2 - mu1**2
    hermite = list(vals["hermite"])
    if center:
        m2 = m2 - mu0**2
        hermite[0] = 0 * hermite[0]
        mu0 = 0 * mu0
    mu2_sq_f = float(mu2_sq)
    if mu2_sq_f < 0:
        mu2_sq_f = 0.0 if mu2_sq_f > -1e-12 else mu2_sq_f
    md = vals.get("mean_derivative", vals["mu1"])
    msd = vals["mean_sq_derivative"]
    return GaussianConstants(
        mu0=float(mu0),
        mu1=float(mu1),
        mu2=math.sqrt(max(mu2_sq_f, 0.0)),
        mu2_sq=mu2_sq_f,
        second_moment=float(m2),
        mean_derivative=float(md),
        mean_sq_derivative=float(msd),
        var_derivative=float(msd - md**2),
        hermite=tuple(float(c) for c in hermite),
        method=method,
        error=float(vals.get("error", 0.0)),
        centered=center,
        extra={"exact": vals} if method != "float64" else {},
    )


def centred(constants: GaussianConstants) -> GaussianConstants:
    """The constants of σ − μ0 given those of σ."""
    h = list(constants.hermite)
    h[0] = 0.0
    return replace(
        constants,
        mu0=0.0,
        second_moment=constants.second_moment - constants.mu0**2,
        hermite=tuple(h),
        centered=True,
    )
