r"""Construction code for the library's pencils (docs/engine.md §1, §5), and their symbols.

Symbols (plain sympy symbols, so that ``sympy.Symbol("phi")`` written elsewhere is the same):

=========  ===================================================================================
``z``      spectral parameter
``lam``    ridge λ (z = −λ); printed λ
``psi2``   ψ2 = N/d (Ba et al.)
``phi``    φ = d/n (Adlam–Pennington)
``psi``    ψ = d/m (Adlam–Pennington: m = width)
``eta``    η_AP = E σ(z)² of the centred activation (not a learning rate)
``zeta``   ζ_AP = (E σ'(z))² = μ1²
``s``      source parameter
=========  ===================================================================================
"""

from __future__ import annotations

import sympy as sp

from .pencil import Gaussian, Pencil

__all__ = [
    "SYMBOLS",
    "LATEX_NAMES",
    "mp_pencil",
    "rf_ridge_pencil",
    "z",
    "lam",
    "psi2",
    "phi",
    "psi",
    "eta",
    "zeta",
    "s",
]

z, lam, psi2, phi, psi, eta, zeta, s = sp.symbols("z lam psi2 phi psi eta zeta s")
SYMBOLS = {sym.name: sym for sym in (z, lam, psi2, phi, psi, eta, zeta, s)}
LATEX_NAMES = {lam: r"\lambda", psi2: r"\psi_2", eta: r"\eta", zeta: r"\zeta"}


def mp_pencil() -> Pencil:
    r"""Marchenko–Pastur of W₀W₀ᵀ (docs/engine.md §1). W ∈ ℝ^{d×N}, N(0, 1/d) entries, L = d:

    Q = [ −z I_d   W    ]        (Q⁻¹)₁₁ = (WWᵀ − z)⁻¹,  g11 = m̄(z);
        [  Wᵀ    −I_N   ]        g22 = −1/(1 + m̄),  m(z) (of WᵀW) = g22/z.
    """
    return Pencil(
        name="mp_gram",
        sizes=(1, psi2),
        q0=sp.diag(-z, -1),
        gaussians=(Gaussian("W", 1, 2), Gaussian("W", 2, 1, transpose=True)),
        description="Marchenko–Pastur pencil of W0 W0^T: g11 = mbar(z) = tr (W W^T − z)^{-1}/d",
    )


def rf_ridge_pencil(source: bool = True, sqrt_source: bool = False) -> Pencil:
    r"""The random-features ridge pencil of Adlam–Pennington (docs/engine.md §5), 5 blocks of
    relative sizes (n/d, m/d, 1, 1, 1) = (1/φ, 1/ψ, 1, 1, 1), L = d.

    Gaussian equivalent F' = √ζ W'X' + b Θ' with X' = X/√d, W' = W/√d, Θ' (entries N(0, 1/d)),
    b = √(η − ζ); with m♯ = m/d = 1/ψ and c = √(ζ/m♯) = √(ζψ):

        Q = [  λ I_n        (b/√m♯) Θ'ᵀ   X'ᵀ    0     s X'ᵀ ]
            [ −(b/√m♯) Θ'    I_m           0      W'    0     ]
            [  0            −c W'ᵀ         I_d    0     0     ]
            [  c X'          0             0      I_d   0     ]
            [  −X'           0             0      0     I_d   ]

    Schur complement onto blocks (1, 2): [[λ + s X'ᵀX', F'ᵀ/√m♯], [−F'/√m♯, I]], so with
    R_s = (λ + s XᵀX/d + K)⁻¹, K = FᵀF/m: g11 = tr R_s / n and g55 = tr(I − s X' R_s X'ᵀ)/d.
    Hence τ1 = g11|_{s=0} and τ2 = lim (1 − g55)/(s n/d) = −φ ∂g55/∂s|_{s=0}.

    The theory note writes the source as √s X'ᵀ in block (1, 5) and −√s X' in block (5, 1); the
    diagonal similarity diag(1, 1, 1, 1, √s) moves both √s into block (1, 5) (s X'ᵀ, −X'),
    leaving every diagonal block of Q⁻¹ unchanged and the equations polynomial in s (so that
    they can be differentiated at s = 0). ``sqrt_source=True`` builds the note's form (for tests).
    ``source=False`` drops block 5.
    """
    b_over = sp.sqrt(eta - zeta) * sp.sqrt(psi)  # b/√m♯
    c = sp.sqrt(zeta) * sp.sqrt(psi)  # √(ζ/m♯)
    gs = [
        Gaussian("Theta", 1, 2, b_over, transpose=True),
        Gaussian("Theta", 2, 1, -b_over),
        Gaussian("X", 1, 3, 1, transpose=True),
        Gaussian("X", 4, 1, c),
        Gaussian("W", 2, 4, 1),
        Gaussian("W", 3, 2, -c, transpose=True),
    ]
    if source:
        if sqrt_source:
            gs += [Gaussian("X", 1, 5, sp.sqrt(s), transpose=True), Gaussian("X", 5, 1, -sp.sqrt(s))]
        else:
            gs += [Gaussian("X", 1, 5, s, transpose=True), Gaussian("X", 5, 1, -1)]
        sizes = (1 / phi, 1 / psi, 1, 1, 1)
        q0 = sp.diag(lam, 1, 1, 1, 1)
    else:
        sizes = (1 / phi, 1 / psi, 1, 1)
        q0 = sp.diag(lam, 1, 1, 1)
    return Pencil(
        name="rf_ridge" + ("_source" if source else "") + ("_sqrt" if sqrt_source else ""),
        sizes=sizes,
        q0=q0,
        gaussians=tuple(gs),
        description="Adlam–Pennington random-features ridge pencil: g11 = tr(λ + s XᵀX/d + K)^{-1}/n",
    )
