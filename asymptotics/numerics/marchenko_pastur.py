r"""Marchenko–Pastur (MP) law: Stieltjes transforms, derivatives, density, edges and atom.

Convention (docs/engine.md §7). X ∈ ℝ^{n×p} with N(0, 1) entries, M = XᵀX/n, ratio γ = p/n.
The law of M has density

    ρ(x) = √((λ₊ − x)(x − λ₋)) / (2π γ x)  on [λ₋, λ₊],  λ± = (1 ± √γ)²,

plus an atom of mass 1 − 1/γ at 0 when γ > 1. Its Stieltjes transform
m(z) = ∫ ρ(dx)/(x − z) = lim tr(M − z)⁻¹/p solves

    γ z m² + (z + γ − 1) m + 1 = 0.

**Branch (explicit).** With s(z) = √(z − λ₋)·√(z − λ₊) (product of *principal* square roots: it
is analytic off [λ₋, λ₊], s(z) ~ z at infinity and s(z̄) = conj s(z)),

    m(z) = (1 − γ − z + s(z)) / (2γz) = 2 / (1 − γ − z − s(z)),

which is the root with m(z) ~ −1/z at infinity, Im m > 0 for Im z > 0 (Im m < 0 for Im z < 0) and
m > 0 for real z < 0 (the unique root that is a Stieltjes transform). Of the two equal forms the
one without cancellation is evaluated. The density is obtained by Stieltjes inversion,
ρ(x) = Im m(x + i0)/π, using the boundary value s(x + i0) = i√((x − λ₋)(λ₊ − x)).

Ba et al.'s W₀ ∈ ℝ^{d×N} with N(0, 1/d) entries, ψ2 = N/d:

* W₀ᵀW₀ (N×N) has law MP(ψ2): :func:`wtw_stieltjes` solves ψ2 z m² − (1 − ψ2 − z) m + 1 = 0;
* W₀W₀ᵀ (d×d) = ψ2 · MP(1/ψ2): :func:`gram_stieltjes` m̄(z) = m_{1/ψ2}(z/ψ2)/ψ2 solves
  z m̄² + (1 + z − ψ2) m̄ + 1 = 0, i.e. m̄ = 1/(−z + ψ2/(1 + m̄)); and m = −1/(z(1 + m̄)).

Inputs broadcast (numpy); a real ``z`` gives a real result and must lie off the support (and off
the atom at 0); a complex ``z`` may be anywhere with Im z ≠ 0.

**One source for numpy and compiled code.** Each formula is written once, as plain arithmetic on
numpy functions (:func:`stieltjes_root`, :func:`stieltjes_root_derivative`, :func:`gram_root`,
:func:`gram_root_derivative`, :func:`density_root`, :func:`mp_moments`): numpy evaluates them
elementwise on arrays (the checked transforms below wrap them), and
:mod:`.marchenko_pastur_numba` compiles the very same functions for scalars (the ``*_nb``
twins; no input checks there: validate in Python first). The one branch choice is
:func:`select` (``numpy.where`` here, a scalar ``if`` in compiled code). This module imports no
numba.

The prior moments of the spiked random-features theory are the same transform on the negative
axis: with x ~ MP(β) and u ≥ 0, E 1/(1 + ux) = m(−1/u)/u (:func:`mp_resolvent_moments`, written
without cancellation for every u ≥ 0 and β).

>>> round(mp_stieltjes(-0.5, 0.5), 5), round(mp_companion_stieltjes(-0.5, 0.5), 5)
(0.82843, 1.41421)
>>> round(gram_stieltjes(-0.5, 0.5), 12)     # z m̄² + (1 + z − ψ2) m̄ + 1 = 0 → m̄ = √2
1.414213562373
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError

__all__ = [
    "select",
    "stieltjes_root",
    "stieltjes_root_derivative",
    "gram_root",
    "gram_root_derivative",
    "density_root",
    "mp_moments",
    "mp_resolvent_moments",
    "mp_edges",
    "mp_atom",
    "mp_stieltjes",
    "mp_stieltjes_derivative",
    "mp_companion_stieltjes",
    "mp_density",
    "gram_stieltjes",
    "gram_stieltjes_derivative",
    "wtw_stieltjes",
    "wtw_stieltjes_derivative",
]


# --------------------------------------------------------------------------- input checks
def _check_ratio(name, ratio):
    r = np.asarray(ratio)
    if r.dtype.kind not in "biuf":
        raise ParameterError(name, ratio, "a real number > 0 (valid range: (0, inf))")
    r = r.astype(np.float64)
    if not np.all(np.isfinite(r) & (r > 0)):
        bad = r[~(np.isfinite(r) & (r > 0))].ravel()[0]
        raise ParameterError(name, float(bad), "> 0 (valid range: (0, inf))")
    return r


def _check_z(z, ratio, rname, atom_if_ratio_at_least=True):
    """Broadcast and validate (z, ratio); returns (z as complex array, ratio, real_input, scalar).

    The support is [(1 − √r)², (1 + √r)²] plus an atom at 0 when r >= 1 (MP(r)), or when r <= 1
    with ``atom_if_ratio_at_least=False`` (W₀W₀ᵀ = ψ2·MP(1/ψ2) has the same edges as MP(ψ2))."""
    za = np.asarray(z)
    if za.dtype.kind not in "biufc":
        raise ParameterError("z", z, "a real or complex number (array)")
    g = _check_ratio(rname, ratio)
    real_input = za.dtype.kind != "c"
    zc = za.astype(np.complex128)
    if not np.all(np.isfinite(zc)):
        raise ParameterError("z", z, "finite")
    zc, g = np.broadcast_arrays(zc, g)
    lo, hi = mp_edges(g)
    on_axis = zc.imag == 0
    x = zc.real
    atom = (g >= 1) if atom_if_ratio_at_least else (g <= 1)
    bad = on_axis & (((x >= lo) & (x <= hi)) | ((x == 0) & atom))
    if np.any(bad):
        i = np.flatnonzero(bad.ravel())[0]
        zb, gb = zc.ravel()[i], g.ravel()[i]
        lob, hib = mp_edges(float(gb))
        raise ParameterError(
            "z",
            complex(zb) if not real_input else float(zb.real),
            f"off the support [{lob:.6g}, {hib:.6g}] ({rname}={gb:g})"
            + (" and off its atom at 0" if atom.ravel()[i] else "")
            + " (a real z outside it, or Im z != 0)",
            "use mp_density for the boundary values on the support",
        )
    return zc, g, real_input, (np.ndim(z) == 0 and np.ndim(ratio) == 0)


def _out(v, real_input, scalar):
    if real_input:
        v = v.real.astype(np.float64)
    if scalar:
        return float(v) if real_input else complex(v)
    return v


# --------------------------------------------------------------------------- the formulas, once
def select(condition, if_true, if_false):
    """``if_true`` where ``condition`` holds, else ``if_false`` (``numpy.where`` on arrays; the
    compiled twin module overloads it with a scalar ``if``)."""
    return np.where(condition, if_true, if_false)


def stieltjes_root(z, g):
    """The Stieltjes root m(z) of MP(γ = g) at complex z (no checks), of the two equal forms
    (1 − γ − z + s)/(2γz) and 2/(1 − γ − z − s), s = √(z − λ₋)·√(z − λ₊), the one without
    cancellation (|a| ≥ |b|: the first; one division, so that the form not taken is never
    evaluated)."""
    r = np.sqrt(g)
    s = np.sqrt(z - (1.0 - r) ** 2) * np.sqrt(z - (1.0 + r) ** 2)
    a = 1.0 - g - z + s
    b = 1.0 - g - z - s
    first = np.abs(a) >= np.abs(b)
    return select(first, a, 2.0) / select(first, 2.0 * g * z, b)


def stieltjes_root_derivative(z, g, m):
    """m'(z) = −(γm² + m)/(2γzm + z + γ − 1) at the root m = m(z) (implicit differentiation)."""
    return -(g * m * m + m) / (2.0 * g * z * m + z + g - 1.0)


def gram_root(z, psi2):
    """m̄(z) of W₀W₀ᵀ = ψ2·MP(1/ψ2): m_{1/ψ2}(z/ψ2)/ψ2 (complex z, no checks)."""
    return stieltjes_root(z / psi2, 1.0 / psi2) / psi2


def gram_root_derivative(z, psi2):
    """m̄'(z) = m'_{1/ψ2}(z/ψ2)/ψ2² (complex z, no checks)."""
    w = z / psi2
    g = 1.0 / psi2
    return stieltjes_root_derivative(w, g, stieltjes_root(w, g)) / (psi2 * psi2)


def density_root(x, g):
    """ρ(x) = Im m(x + i0)/π of MP(γ = g) at real x (0 off (λ₋, λ₊)), with the boundary value
    s(x + i0) = i√((x − λ₋)(λ₊ − x)): m(x + i0) = (1 − γ − x + s)/(2γx)."""
    lo = (1.0 - np.sqrt(g)) ** 2
    hi = (1.0 + np.sqrt(g)) ** 2
    inside = (x > lo) & (x < hi) & (x > 0.0)
    s = 1j * np.sqrt(select(inside, (x - lo) * (hi - x), 0.0))
    m = select(inside, (1.0 - g - x + s) / (2.0 * g * select(inside, x, 1.0)), 0.0)
    return select(inside, m.imag / np.pi, 0.0)


def _moments_beta_le_1(u, beta):
    """The five resolvent moments of MP(β), β ≤ 1, at u ≥ 0 (see :func:`mp_resolvent_moments`)."""
    b = 1.0 + u * (1.0 - beta)
    R = np.sqrt(b * b + 4.0 * beta * u)
    A0 = 2.0 / (b + R)
    bu = 1.0 + beta * u * A0
    A1 = A0 / bu
    B1 = A0 * (beta * A0 + 1.0 - beta) / R
    B0 = A0 * bu / R
    B2 = (beta * A0 * A0 + B1) / (bu * bu)
    return A0, A1, B0, B1, B2


def mp_moments(u, beta):
    """:func:`mp_resolvent_moments` by plain arithmetic on a float or an array ``u`` (scalar β):
    the one home of these formulas, compiled by :mod:`.marchenko_pastur_numba` and by the sRF
    kernels. For β > 1 the atom 1 − 1/β at 0 is split off exactly:
    MP(β) = (1 − 1/β)δ0 + (1/β)·(β·MP(1/β))."""
    if beta <= 1.0:
        return _moments_beta_le_1(u, beta)
    bp = 1.0 / beta
    a0, a1, b0, b1, b2 = _moments_beta_le_1(beta * u, bp)
    atom = 1.0 - bp
    return atom + bp * a0, a1, atom + bp * b0, b1, beta * b2


def mp_resolvent_moments(u, beta: float):
    r"""(A0, A1, B0, B1, B2) = E[(1, x)/(1+ux)], E[(1, x, x²)/(1+ux)²] for x ~ MP(β), u ≥ 0.

    Vectorised over ``u``. MP(β) is the law of GGᵀ/d, G ∈ ℝ^{p×d} standard, β = p/d (atom
    1 − 1/β at 0 for β > 1). A0 = m(−1/u)/u is the positive root of
    βu A0² + (1 + u(1−β)) A0 − 1 = 0 (the MP equation with m = u A0, z = −1/u); differentiating
    it gives the rest without cancellation (R = √((1 + u(1−β))² + 4βu) = 2βuA0 + 1 + u(1−β)):
    A1 = A0/(1 + βuA0), B1 = A0(βA0 + 1 − β)/R, B0 = A0(1 + βuA0)/R,
    B2 = (βA0² + B1)/(1 + βuA0)². Accurate to rounding for every u ≥ 0 (u = 0 included).

    >>> [round(float(v), 12) for v in mp_resolvent_moments(0.0, 0.5)]   # moments 1, 1, 1, 1, 1 + β
    [1.0, 1.0, 1.0, 1.0, 1.5]
    """
    return mp_moments(np.asarray(u, dtype=float), beta)


# --------------------------------------------------------------------------- checked numpy transforms
def mp_edges(ratio):
    """Edges (λ₋, λ₊) = ((1 − √γ)², (1 + √γ)²) of the continuous part of MP(γ)."""
    g = np.asarray(ratio, dtype=np.float64)
    r = np.sqrt(g)
    lo, hi = (1 - r) ** 2, (1 + r) ** 2
    if np.ndim(ratio) == 0:
        return float(lo), float(hi)
    return lo, hi


def mp_atom(ratio):
    """Mass max(0, 1 − 1/γ) of the atom at 0 of MP(γ)."""
    g = _check_ratio("ratio", ratio)
    a = np.maximum(0.0, 1.0 - 1.0 / g)
    return float(a) if np.ndim(ratio) == 0 else a


def _m(z, g):
    """The Stieltjes root on complex arrays (no checks)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return stieltjes_root(z, g)


def mp_stieltjes(z, ratio):
    """m(z) = ∫ρ(dx)/(x − z) of MP(γ = ratio); root of γ z m² + (z + γ − 1) m + 1 = 0 with
    Im m > 0 for Im z > 0, m ~ −1/z at infinity, m > 0 for real z < 0.

    >>> round(mp_stieltjes(-0.5, 0.5), 12)       # −2 + 2√2
    0.828427124746
    >>> mp_stieltjes(1 + 1j, 0.5).imag > 0
    True
    """
    zc, g, real_input, scalar = _check_z(z, ratio, "ratio")
    return _out(_m(zc, g), real_input, scalar)


def mp_stieltjes_derivative(z, ratio):
    """m'(z) = −(γm² + m)/(2γzm + z + γ − 1) (implicit differentiation of the MP equation)."""
    zc, g, real_input, scalar = _check_z(z, ratio, "ratio")
    return _out(stieltjes_root_derivative(zc, g, _m(zc, g)), real_input, scalar)


def mp_companion_stieltjes(z, ratio):
    """Companion transform m̲(z) = γ m(z) − (1 − γ)/z (law of XXᵀ/n); z = −1/m̲ + γ/(1 + m̲)."""
    zc, g, real_input, scalar = _check_z(z, ratio, "ratio")
    if np.any(zc == 0):
        raise ParameterError("z", 0.0, "nonzero for the companion transform (pole of (1 − γ)/z)")
    return _out(g * _m(zc, g) - (1 - g) / zc, real_input, scalar)


def mp_density(x, ratio):
    """Density of the continuous part of MP(γ) at real ``x``, by Stieltjes inversion
    ρ(x) = Im m(x + i0)/π (zero off [λ₋, λ₊]; the atom :func:`mp_atom` is not included).

    >>> round(mp_density(1.0, 0.5), 12)          # √((λ₊−1)(1−λ₋))/(2πγ) = √(4γ − γ²)/(2πγ) = √1.75/π
    0.421084399348
    """
    xa = np.asarray(x)
    if xa.dtype.kind not in "biuf":
        raise ParameterError("x", x, "a real number (array)")
    g = _check_ratio("ratio", ratio)
    xa, g = np.broadcast_arrays(xa.astype(np.float64), g)
    if not np.all(np.isfinite(xa)):
        raise ParameterError("x", x, "finite")
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = density_root(xa, g)
    return float(rho) if (np.ndim(x) == 0 and np.ndim(ratio) == 0) else rho


def gram_stieltjes(z, psi2):
    """m̄(z) of W₀W₀ᵀ (d×d), W₀ ∈ ℝ^{d×N} with N(0, 1/d) entries, ψ2 = N/d:
    z m̄² + (1 + z − ψ2) m̄ + 1 = 0 (W₀W₀ᵀ = ψ2·MP(1/ψ2), so m̄(z) = m_{1/ψ2}(z/ψ2)/ψ2; support
    [(1 − √ψ2)², (1 + √ψ2)²] plus an atom 1 − ψ2 at 0 when ψ2 < 1)."""
    zc, p, real_input, scalar = _check_z(z, psi2, "psi2", atom_if_ratio_at_least=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(gram_root(zc, p), real_input, scalar)


def gram_stieltjes_derivative(z, psi2):
    """m̄'(z) = m̄²(1 + m̄)² / ((1 + m̄)² − ψ2 m̄²) (evaluated as m'_{1/ψ2}(z/ψ2)/ψ2²)."""
    zc, p, real_input, scalar = _check_z(z, psi2, "psi2", atom_if_ratio_at_least=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(gram_root_derivative(zc, p), real_input, scalar)


def wtw_stieltjes(z, psi2):
    """m(z) of W₀ᵀW₀ (N×N), law MP(ψ2): ψ2 z m² − (1 − ψ2 − z) m + 1 = 0."""
    zc, g, real_input, scalar = _check_z(z, psi2, "psi2")
    return _out(_m(zc, g), real_input, scalar)


def wtw_stieltjes_derivative(z, psi2):
    """m'(z) of W₀ᵀW₀ (N×N) (the MP(ψ2) derivative)."""
    zc, g, real_input, scalar = _check_z(z, psi2, "psi2")
    return _out(stieltjes_root_derivative(zc, g, _m(zc, g)), real_input, scalar)
