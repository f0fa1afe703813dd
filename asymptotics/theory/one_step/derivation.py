r"""Symbolic derivation of the rank-one (spike) algebra of the first gradient step.

After one step at η = Θ(1), W₁ = W₀ + θ u vᵀ (docs/one-step.md §1) with u ∈ ℝ^d, v ∈ ℝ^N unit
vectors independent of W₀, ⟨u, β*⟩ = ρ, and W₀ ∈ ℝ^{d×N} with N(0, 1/d) entries. Everything the
theory needs about the spike follows from the Woodbury identity applied to the resolvents

    R(z) = (W₀W₀ᵀ − z)⁻¹ (d×d),      R̃(z) = (W₀ᵀW₀ − z)⁻¹ (N×N),

together with the deterministic equivalents of quadratic forms in vectors independent of W₀
(a, b deterministic unit vectors, m̄ and m the Stieltjes transforms of W₀W₀ᵀ and W₀ᵀW₀):

    aᵀR b → ⟨a, b⟩ m̄(z),            (W₀v)ᵀR(W₀v) = vᵀW₀ᵀW₀(W₀ᵀW₀ − z)⁻¹v → 1 + z m(z),
    vᵀR̃ v → m(z),                   (W₀ᵀu)ᵀR̃(W₀ᵀu) → 1 + z m̄(z),
    aᵀR W₀ v → 0,  vᵀR̃ W₀ᵀa → 0     (v independent of W₀ and a: odd in W₀),

and m(z) = −1/(z(1 + m̄(z))) (docs/engine.md §7).

W₁W₁ᵀ = W₀W₀ᵀ + U C Uᵀ with U = [u, W₀v], C = [[θ², θ], [θ, 0]] (and the mirror image on the N
side), so for any vector a,

    aᵀ(W₁W₁ᵀ − z)⁻¹a = aᵀRa − (aᵀRU)(C⁻¹ + UᵀRU)⁻¹(UᵀRa).

This module carries that computation out with sympy — nothing below is typed in from the notes —
and returns the resulting expressions: Δ(z) = Q₀(z) − Q₁(z) for Q(z) = β*ᵀ(WWᵀ − z)⁻¹β*, its
z-derivative, the outlier (the pole of Q₁ outside the bulk), the BBP condition (the pole is an
eigenvalue outside the bulk iff z'(m̄) > 0 there) and the squared overlaps (residues at the pole).
The tests compare them with the formulas of docs/one-step.md §1 (an independent statement).

The expressions are rendered to numpy code in :mod:`._spike_generated` by
``python -m asymptotics.theory.one_step.derivation`` (a real module on disk; a test re-derives
and checks that the committed module is up to date).
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

__all__ = [
    "SYMBOLS",
    "mp_inverse",
    "woodbury_quadratic_form",
    "spike_expressions",
    "render_module",
]

# symbols: m̄ (and its z-derivative), θ², θ1², ψ2, z
mbar, mbar_p, theta_sq, theta1_sq, psi2, z = sp.symbols("mbar mbar_prime theta_sq theta1_sq psi2 z")
_theta, _rho, _m = sp.symbols("theta rho m")

SYMBOLS = {
    "mbar": mbar,
    "mbar_prime": mbar_p,
    "theta_sq": theta_sq,
    "theta1_sq": theta1_sq,
    "psi2": psi2,
    "z": z,
}


@lru_cache(maxsize=1)
def mp_inverse() -> sp.Expr:
    """z as a function of m̄, from the Marchenko–Pastur equation z m̄² + (1 + z − ψ2) m̄ + 1 = 0
    of W₀W₀ᵀ (solved symbolically for z): z(m̄) = ψ2/(1 + m̄) − 1/m̄."""
    zz = sp.solve(sp.Eq(z * mbar**2 + (1 + z - psi2) * mbar + 1, 0), z)
    assert len(zz) == 1
    return sp.simplify(zz[0])


def woodbury_quadratic_form(left, right, U, C, gram, V=None):
    """aᵀ(R⁻¹ + U C Vᵀ)⁻¹ b by the Woodbury identity, given deterministic equivalents.

    ``gram(x, y)`` returns the equivalent of xᵀ R y for the symbolic vectors x, y (R need not be
    symmetric); ``U``, ``V`` are lists of the perturbation's column vectors (``V`` defaults to
    ``U``), ``C`` the sympy capacitance matrix. Returns the sympy expression

        aᵀRb − (aᵀRU)(C⁻¹ + VᵀRU)⁻¹(VᵀRb).
    """
    V = U if V is None else V
    k = len(U)
    VtRU = sp.Matrix(k, k, lambda i, j: gram(V[i], U[j]))
    aRU = sp.Matrix(1, k, lambda _, j: gram(left, U[j]))
    VRb = sp.Matrix(k, 1, lambda i, _: gram(V[i], right))
    core = (C.inv() + VtRU).inv()
    return gram(left, right) - (aRU * core * VRb)[0, 0]


def _left_gram():
    """Deterministic equivalents of xᵀ(W₀W₀ᵀ − z)⁻¹y for x, y ∈ {β*, u, W₀v}."""
    ip = {("beta", "beta"): 1, ("u", "u"): 1, ("beta", "u"): _rho, ("u", "beta"): _rho}

    def gram(x, y):
        if x == "W0v" and y == "W0v":
            return 1 + z * _m
        if "W0v" in (x, y):
            return sp.Integer(0)
        return ip[(x, y)] * mbar

    return gram


def _right_gram():
    """Deterministic equivalents of xᵀ(W₀ᵀW₀ − z)⁻¹y for x, y ∈ {v, W₀ᵀu}."""

    def gram(x, y):
        if x == y == "v":
            return _m
        if x == y == "W0tu":
            return 1 + z * mbar
        return sp.Integer(0)

    return gram


def _to_mbar(expr):
    """Eliminate m = −1/(z(1 + m̄)) and write θ²ρ² = θ1², θ = √θ²."""
    e = expr.subs(_m, -1 / (z * (1 + mbar)))
    e = sp.simplify(sp.factor(sp.cancel(e)))
    e = e.subs(_rho**2, theta1_sq / _theta**2)
    e = sp.simplify(e.subs(_theta, sp.sqrt(theta_sq)))
    return sp.factor(sp.cancel(e))


@lru_cache(maxsize=1)
def spike_expressions() -> dict[str, sp.Expr]:
    """Derive the spike quantities. Keys:

    ``Q0`` — β*ᵀ(W₀W₀ᵀ − z)⁻¹β* in terms of m̄;
    ``Q1`` — β*ᵀ(W₁W₁ᵀ − z)⁻¹β* in terms of m̄ (after eliminating z = z(m̄));
    ``Delta`` — Δ = Q₀ − Q₁ in terms of m̄, θ², θ1² (z eliminated);
    ``Delta_prime`` — dΔ/dz = (dΔ/dm̄) m̄'(z) in terms of m̄, m̄' (symbol ``mbar_prime``);
    ``pole_mbar`` — the value of m̄ at the pole of Q₁ (the outlier);
    ``outlier_sq`` — the outlier z = s₁(W₁)² = z(m̄_pole);
    ``bbp`` — z'(m̄) at the pole: an eigenvalue separates from the bulk iff it is > 0;
    ``overlap_u`` — ⟨u₁, u⟩² (residue of uᵀ(W₁W₁ᵀ − z)⁻¹u at the outlier);
    ``overlap_beta`` — ⟨u₁, β*⟩² (residue of Δ);
    ``overlap_v`` — ⟨v₁, v⟩² (residue of vᵀ(W₁ᵀW₁ − z)⁻¹v);
    ``teacher_energy`` — ‖W₁ᵀβ*‖² (deterministic equivalent, with β*ᵀW₀W₀ᵀβ* → ψ2).
    """
    C = sp.Matrix([[_theta**2, _theta], [_theta, 0]])
    zm = mp_inverse()

    q1 = woodbury_quadratic_form("beta", "beta", ["u", "W0v"], C, _left_gram())
    qu = woodbury_quadratic_form("u", "u", ["u", "W0v"], C, _left_gram())
    qv = woodbury_quadratic_form("v", "v", ["v", "W0tu"], C, _right_gram())

    q0 = _left_gram()("beta", "beta")
    delta = _to_mbar(q0 - q1)
    delta_u = _to_mbar(q0.subs(_rho, 1) - qu)  # ρ = 1 for u itself; θ1² → θ² below
    delta_u = sp.factor(delta_u.subs(theta1_sq, theta_sq))
    # v-side: express m (the N×N transform) through m̄; the "bulk" part m(z) is analytic at the pole
    qv_m = sp.simplify(qv.subs(_m, -1 / (z * (1 + mbar))))
    qv_m = sp.factor(sp.cancel(sp.simplify(qv_m.subs(_theta, sp.sqrt(theta_sq)))))

    # the pole: zero of the denominator of Δ(m̄)
    num, den = sp.fraction(sp.factor(delta))
    poles = [p for p in sp.solve(den, mbar) if p != 0]
    assert len(poles) == 1, poles
    mb0 = sp.simplify(poles[0])
    dz_dmb = sp.diff(zm, mbar)
    z0 = sp.factor(sp.simplify(zm.subs(mbar, mb0)))
    bbp = sp.factor(sp.simplify(dz_dmb.subs(mbar, mb0)))

    def residue_in_z(expr_mbar):
        """w = Res_{z=z0} of −(quadratic form): for Q(z) = Σ w_k/(λ_k − z), Res_z Q = −w_1.
        With the singular part f(m̄) ~ A/(m̄ − m̄0) and m̄ − m̄0 ≈ m̄'(z0)(z − z0): Res_z = A z'(m̄0)."""
        A = sp.simplify(sp.limit((mbar - mb0) * expr_mbar, mbar, mb0))
        return sp.factor(sp.simplify(A * dz_dmb.subs(mbar, mb0)))

    # Δ = Q0 − Q1 carries the singular part of −Q1: overlap = Res_z Δ (with sign as above)
    overlap_beta = residue_in_z(delta)
    overlap_u = residue_in_z(delta_u)
    # v side: qv(z) = Σ w_k/(λ_k − z) ⇒ w_1 = −Res_z qv; substitute z = z(m̄) to see the pole in m̄
    qv_mb = sp.factor(sp.cancel(qv_m.subs(z, zm)))
    overlap_v = sp.factor(sp.simplify(-residue_in_z(qv_mb)))

    delta_prime = sp.factor(sp.simplify(sp.diff(delta, mbar))) * mbar_p

    # ‖W₁ᵀβ*‖² = β*ᵀW₁W₁ᵀβ*; W₁W₁ᵀ = W₀W₀ᵀ + U C Uᵀ: β*ᵀW₀W₀ᵀβ* → ψ2 (tr W₀W₀ᵀ/d),
    # β*ᵀU = (ρ, β*ᵀW₀v → 0), so the correction is ρ² C₁₁ = ρ²θ² = θ1².
    bU = sp.Matrix([[_rho, 0]])
    energy = psi2 + (bU * C * bU.T)[0, 0]
    energy = sp.simplify(energy.subs(_rho**2, theta1_sq / _theta**2))

    return {
        "Q0": q0,
        "Q1": sp.factor(sp.simplify(q0 - delta)),
        "Delta": sp.factor(delta),
        "Delta_prime": delta_prime,
        "pole_mbar": mb0,
        "outlier_sq": z0,
        "bbp": bbp,
        "overlap_u": overlap_u,
        "overlap_beta": overlap_beta,
        "overlap_v": overlap_v,
        "teacher_energy": energy,
    }


_HEADER = '''"""GENERATED by ``python -m asymptotics.theory.one_step.derivation`` — do not edit.

Numpy functions of the spike expressions derived symbolically in
:mod:`asymptotics.theory.one_step.derivation` (Woodbury algebra on the resolvent of W₀W₀ᵀ).
Arguments broadcast; m̄ = ``mbar`` is the Stieltjes transform of W₀W₀ᵀ at the point of interest.
"""

import numpy as np  # noqa: F401


'''

_FUNCS = [
    ("spike_correction", "Delta", ("mbar", "theta_sq", "theta1_sq"), "Δ(z) = Q₀(z) − Q₁(z) as a function of m̄(z)."),
    ("spike_correction_derivative", "Delta_prime", ("mbar", "mbar_prime", "theta_sq", "theta1_sq"),
     "Δ'(z) = dΔ/dz, with m̄' = dm̄/dz."),
    ("outlier_sq", "outlier_sq", ("theta_sq", "psi2"), "s₁(W₁)² at the pole (meaningful above the BBP threshold)."),
    ("bbp_indicator", "bbp", ("theta_sq", "psi2"), "z'(m̄) at the pole: the spike separates iff this is > 0."),
    ("overlap_u_sq", "overlap_u", ("theta_sq", "psi2"), "⟨u₁, u⟩² above the threshold."),
    ("overlap_beta_sq", "overlap_beta", ("theta_sq", "theta1_sq", "psi2"), "⟨u₁, β*⟩² above the threshold."),
    ("overlap_v_sq", "overlap_v", ("theta_sq", "psi2"), "⟨v₁, a/‖a‖⟩² above the threshold."),
    ("teacher_energy", "teacher_energy", ("theta1_sq", "psi2"), "‖W₁ᵀβ*‖²."),
]


def render_module() -> str:
    """The source text of :mod:`._spike_generated` (numpy code printed by sympy)."""
    from sympy.printing.numpy import NumPyPrinter

    ex = spike_expressions()
    printer = NumPyPrinter({"fully_qualified_modules": True, "allow_unknown_functions": False})
    out = [_HEADER]
    for fname, key, args, doc in _FUNCS:
        expr = ex[key]
        free = {s.name for s in expr.free_symbols}
        extra = free - set(args)
        if extra:
            raise RuntimeError(f"{key} depends on {extra} beyond {args}")
        body = printer.doprint(expr)
        out.append(f"def {fname}({', '.join(args)}):\n    \"\"\"{doc}\n\n    {sp.sstr(expr)}\n    \"\"\"\n"
                   f"    return {body}\n\n\n")
    out.append(f"__all__ = {[f[0] for f in _FUNCS]!r}\n")
    return "".join(out).rstrip() + "\n"


def generated_path():
    from pathlib import Path

    return Path(__file__).with_name("_spike_generated.py")


if __name__ == "__main__":  # pragma: no cover
    from ...atomic import write_text

    write_text(generated_path(), render_module(), name="generated spike module")
    print(f"wrote {generated_path()}")
