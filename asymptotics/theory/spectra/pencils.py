r"""The linear pencils of the spectra and their registered systems (derivation engine).

**Trained weights** — the Gram W₀ᵀW₀ (N×N) of W₀ ∈ ℝ^{d×N}, N(0, 1/d) entries, from the
Marchenko–Pastur pencil of :func:`asymptotics.symbolic.mp_pencil` (blocks d, N; sizes (1, ψ2)):

    Q = [ −z I_d    W    ]      g11 = m̄(z) = tr(WWᵀ − z)⁻¹/d,
        [   Wᵀ    −I_N   ]      g22 = −1/(1 + m̄) = z·m(z),  m(z) = tr(WᵀW − z)⁻¹/N.

**Conjugate kernel, Gaussian-equivalent features** — F = μ1 X̃W + μ2 Z (X̃ ∈ ℝ^{n×d}, Z ∈ ℝ^{n×N}
standard; the features of a centred σ with the constants μ1, μ2), K = FᵀF/n (N×N). With
X' = X̃/√n, Z' = Z/√n (entries of variance (1/ψ1)/d), blocks (N, n, d, d) of sizes (ψ2, ψ1, 1, 1),
L = d:

    Q = [ −z I_N    μ2 Z'ᵀ    0       Wᵀ  ]
        [ μ2 Z'     −I_n      μ1 X'   0   ]
        [ −W        0         I_d     0   ]
        [ 0         −μ1 X'ᵀ   0       I_d ]

Its Schur complement onto blocks (1, 2) is [[−z, Fᵀ/√n], [F/√n, −I]] (the two d-blocks carry the
product X'W), so

    g11 = m(z) = tr(K − z)⁻¹/N,      g22 = z·m̲(z),  m̲(z) = tr(FFᵀ/n − z)⁻¹/n (the companion).

The matrix Dyson rule gives six traces; eliminating the d-blocks leaves two equations in
(g11, g22) (see ``asymptotics derive spectrum_ck_ge``). For μ1 = 0 they reduce to MP(ψ2/ψ1) of
μ2²·ZᵀZ/n (checked in the tests).

**Edges** of a support are folds of the real solution branch: the augmented system
F(g; x) = 0, det ∂F/∂g = 0 in the unknowns (g, x) (:func:`fold_system`).

>>> from asymptotics.symbolic import get_system
>>> get_system("spectrum_ck_ge").unknowns
(g11, g22)
"""

from __future__ import annotations

import sympy as sp

from ...symbolic import (
    EquationSystem,
    Gaussian,
    Pencil,
    dyson_system,
    eliminate,
    get_system,
    implicit_derivatives,
    mp_pencil,
    register_system,
)

__all__ = [
    "ck_ge_pencil",
    "typed_gram_pencil",
    "fold_system",
    "z",
    "psi1",
    "psi2",
    "mu1",
    "mu2",
    "g11",
    "g22",
]

z, psi1, psi2, mu1, mu2 = sp.symbols("z psi1 psi2 mu1 mu2")
g11, g22 = sp.symbols("g11 g22")


def ck_ge_pencil() -> Pencil:
    r"""The 4-block pencil of the Gaussian-equivalent conjugate-kernel Gram K = FᵀF/n,
    F = μ1 X̃W + μ2 Z (module docstring)."""
    return Pencil(
        name="ck_ge",
        sizes=(psi2, psi1, 1, 1),
        q0=sp.diag(-z, -1, 1, 1),
        gaussians=(
            Gaussian("Z", 2, 1, mu2),
            Gaussian("Z", 1, 2, mu2, transpose=True),
            Gaussian("X", 2, 3, mu1),
            Gaussian("X", 4, 2, -mu1, transpose=True),
            Gaussian("W", 3, 1, -1),
            Gaussian("W", 1, 4, 1, transpose=True),
        ),
        variances={"Z": 1 / psi1, "X": 1 / psi1},
        description="Gaussian-equivalent CK Gram F^T F/n, F = mu1 X W + mu2 Z: g11 = tr(K − z)^{-1}/N, "
        "g22 = z * tr(F F^T/n − z)^{-1}/n",
    )


def typed_gram_pencil(types: int) -> Pencil:
    r"""The Gram of W̃ = Z D^{1/2} ∈ ℝ^{d×N} whose columns of type k (a fraction w_k of the N
    columns) have variance c_k/d: blocks d, N_1, …, N_K of sizes (1, ψ2 w_1, …, ψ2 w_K).

    The Dyson rule gives g11 = 1/(−z − ψ2 Σ_k w_k c_k g_kk), g_kk = −1/(1 + c_k g11): the
    mixture form used for a continuous law of column variances (the large step's bulk)."""
    cs = sp.symbols(f"c1:{types + 1}")
    ws = sp.symbols(f"w1:{types + 1}")
    gs = []
    for k in range(types):
        gs.append(Gaussian(f"Y{k + 1}", 1, k + 2, 1))
        gs.append(Gaussian(f"Y{k + 1}", k + 2, 1, 1, transpose=True))
    return Pencil(
        name=f"typed_gram_{types}",
        sizes=(1, *(psi2 * w for w in ws)),
        q0=sp.diag(-z, *([-1] * types)),
        gaussians=tuple(gs),
        variances={f"Y{k + 1}": cs[k] for k in range(types)},
        description="Gram of a d×N Gaussian matrix with column variances c_k/d (K types)",
    )


def fold_system(system: EquationSystem, name: str) -> EquationSystem:
    r"""The edges of the support as folds: unknowns (g…, z), equations F(g; z) = 0 and
    det ∂F/∂g = 0 (real arithmetic; started from a real solution next to the edge)."""
    J = system.jacobian()
    det = sp.expand(sp.numer(sp.together(J.det())))
    return EquationSystem(
        name=name,
        unknowns=(*system.unknowns, z),
        equations=(*system.equations, det),
        outputs={"edge": z},
        description=f"support edges of {system.name}: F = 0 and det dF/dg = 0 (a fold of the real branch)",
    )


# ---------------------------------------------------------------------- registered systems
@register_system("spectrum_mp_gram", pencil=mp_pencil,
                 description="MP pencil of W0 W0^T for spectra: g11 = mbar(z), g22 = z m(z) (N×N transform m)")
def _mp_gram():
    # the library's MP Dyson system (symbolic/registry.py, "mp_gram"), with the traces themselves
    # as outputs and no homotopy (the spectra continue along their own paths)
    return get_system("mp_gram").with_(outputs={"g11": g11, "g22": g22}, homotopy=())


@register_system("spectrum_mp_gram_dz", pencil=mp_pencil,
                 description="the MP pencil traces and their z-derivatives (implicit differentiation)")
def _mp_gram_dz():
    return implicit_derivatives(get_system("spectrum_mp_gram"), z)


@register_system("spectrum_mp_gram_edges", pencil=mp_pencil, description="edges of the MP law as folds")
def _mp_gram_edges():
    return fold_system(get_system("spectrum_mp_gram"), "spectrum_mp_gram_edges")


@register_system("spectrum_ck_ge_dyson", pencil=ck_ge_pencil,
                 description="matrix Dyson equations of the Gaussian-equivalent CK pencil (6 traces)")
def _ck_dyson():
    return dyson_system(ck_ge_pencil(), outputs={"g11": g11, "g22": g22})


@register_system("spectrum_ck_ge", pencil=ck_ge_pencil,
                 description="Gaussian-equivalent CK Gram: g11 = tr(K − z)^{-1}/N, g22 = z * companion")
def _ck():
    return eliminate(get_system("spectrum_ck_ge_dyson"), keep=[g11, g22])


@register_system("spectrum_ck_ge_dz", pencil=ck_ge_pencil,
                 description="Gaussian-equivalent CK traces and their z-derivatives")
def _ck_dz():
    return implicit_derivatives(get_system("spectrum_ck_ge"), z)


@register_system("spectrum_ck_ge_edges", pencil=ck_ge_pencil, description="edges of the CK bulk as folds")
def _ck_edges():
    return fold_system(get_system("spectrum_ck_ge"), "spectrum_ck_ge_edges")
