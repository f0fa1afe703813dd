r"""Route C: R0, R1 and δ from a linear pencil (the paper's method; docs/one-step.md §3 route C,
docs/engine.md). The equations are derived by the symbolic engine (:mod:`asymptotics.symbolic`),
the source traces by implicit differentiation, the spike by Woodbury algebra on the pencil, and
the result is rendered to compiled code (elementwise kernels printed by the engine's printer; the
engine's generic lowered solver, :mod:`asymptotics.codegen`, as the fallback).

**The Gaussian-equivalent ridge problem.** With X' = X̃/√d (n×d), W₀ (d×N) and Z' (n×N), all with
N(0, 1/d) entries, the features are F = √d F', F' = μ1 X'W₀ + μ2 Z', and Ba et al.'s ridge is
b̂ = G FᵀY/n with G = (F'ᵀF'/ψ1 + λ)⁻¹ (N×N). For y = μ1*⟨β*, x⟩ + (nonlinear part, acting as noise
of variance μ2*²) + ε the risk is

    R = μ2*² + μ1*² (1 − 2μ1 T1 + T2) + (σ_ε² + μ2*²) T3,
    T1 = β*ᵀW G F'ᵀX'β*/ψ1,  T2 = β*ᵀX'ᵀF' G Σ G F'ᵀX'β*/ψ1²,  T3 = tr(F' G Σ G F'ᵀ)/(ψ1 n),

Σ = μ1²WᵀW + μ2² I. **The pencil** (blocks of sizes N, n, d, d; L = d; t a source parameter;
shown before the scaling by λ described below):

    Q = [ (λ + tμ2²) I_N    (μ2/√ψ1) Z'ᵀ     W₀ᵀ            −tμ1² W₀ᵀ     ]
        [ −(μ2/√ψ1) Z'       I_n              0              (μ1/√ψ1) X'   ]
        [  0                −(μ1/√ψ1) X'ᵀ     I_d            0             ]
        [  W₀                0                0              I_d           ]

Eliminating blocks 3, 4 gives [[λ + tΣ, F'ᵀ/√ψ1], [−F'/√ψ1, I]], so (Q⁻¹)₁₁ = G_t = (F'ᵀF'/ψ1 + λ + tΣ)⁻¹
and, with ∂_t G_t = −G Σ G and β* independent of the random matrices (quadratic forms → block
traces g_bc of the matrix Dyson equation):

    (Q⁻¹)₂₂ = I − F'G_tF'ᵀ/ψ1                 ⇒  T3 = ∂_t g22,
    (Q⁻¹)₄₄ = I − μ1 W₀G F'ᵀX'/ψ1 (t = 0)      ⇒  μ1 T1 = 1 − g44,
    (Q⁻¹)₃₄ = −μ1²X'ᵀ(I − F'G_tF'ᵀ/ψ1)X'/ψ1 + tμ1³X'ᵀF'G_tW₀ᵀ/ψ1  ⇒  T2 = 1 − g44 − ∂_t g34/μ1²,

hence **R0 = μ2*² + μ1*² (g44 − ∂_t g34/μ1²) + (σ_ε² + μ2*²) ∂_t g22** at t = 0.

**The spike.** W₁ = W₀ + θ u vᵀ changes Q by a rank-three perturbation: θ u vᵀ in block (4, 1),
θ v uᵀ in (1, 3), −tμ1²θ v uᵀ in (1, 4). Woodbury on Q⁻¹ with the block-scalar deterministic
equivalents (aᵀ(Q⁻¹)_bc a' → g_bc⟨a, a'⟩ for blocks of equal size, 0 otherwise; ⟨u, β*⟩ = ρ,
ρ²θ² = θ1²) gives the corrections c44 = β*ᵀ(Q₀⁻¹ − Q₁⁻¹)₄₄β* and c34 (derived symbolically, not
typed in), and

    **δ = μ1*² (c44 − ∂_t c34/μ1²)**,   R1 = R0 − δ.

**Scaling.** The pencil is written for λG rather than G (coefficients μ/√(ψ1λ), source s = t/λ,
see :func:`one_step_ridge_pencil`), so that every trace stays O(1) as λ → 0 on both sides of the
interpolation threshold: g11 = tr λG/N ∈ (0, 1], g22 ∈ (0, 1], T3 = ∂_s g22/λ, and the formulas
above hold with ∂_t → ∂_s for g34 and c34.

**Solving.** Blocks of different sizes do not couple, so the d-blocks (3, 4) form a 2×2 Dyson
block whose traces are the explicit inverse of (q0 − S)₍₃₄₎ — a function of g11 and g22 only
(:func:`schur_system`). That leaves two rational equations g11 (q0 − S)₁₁ = 1, g22 (q0 − S)₂₂ = 1,
whose tangents in s follow from one 2×2 linear solve (implicit differentiation by the engine).
Newton's method in the log-traces u = log g (positivity of the Stieltjes branch built in),
started between the ridgeless and the large-λ limits of the traces and iterated by
:func:`asymptotics.solvers.fixed_point`, converges on the physical branch; the step and the final quantities are compiled elementwise kernels rendered
from the derived expressions (:mod:`._route_pencil_kernel`). Every point is checked (residual,
0 < g ≤ 1, ∂_s g22 ≥ 0); a point that fails is solved again by the engine's generic lowered
solver (:func:`asymptotics.codegen.lower`) on the polynomial system that
:func:`asymptotics.symbolic.eliminate` produces (with continuation in λ), polished on the full
matrix Dyson system. λ > 0 is required (routes A and B give the ridgeless limit); μ1 = 0 is
answered by the closed form of route B (with a :class:`~asymptotics.errors.DegenerateWarning`).

>>> m = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
>>> round(risk(m, psi1=4.0, psi2=2.0, lam=1e-4, eta=3.0).risk0, 7)
0.1367689
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from ...errors import ConvergenceError, ParameterError
from ...solvers import FixedPoint, fixed_point
from ...symbolic import (
    EquationSystem,
    Gaussian,
    Pencil,
    dyson_system,
    eliminate,
    implicit_derivatives,
    register_system,
    self_energy,
    trace_matrix,
)
from ._checks import risk_grid
from .derivation import woodbury_quadratic_form
from .model import OneStepModel
from .risk_deterministic_equivalent import RiskResult
from .spike_parameters import check_risk_spike, signal_spike_sq, spike_strength_sq

__all__ = ["SYSTEM_NAME", "SYSTEM_NAME_FULL", "SYSTEM_NAME_SCHUR", "one_step_ridge_pencil", "spike_corrections",
           "schur_system", "schur_tangents", "kernels", "solve_traces", "risk",
           "one_step_ridge_system", "one_step_ridge_full_system", "compiled_system", "solve_traces_engine"]

SYSTEM_NAME = "one_step_ridge_risk"
SYSTEM_NAME_FULL = "one_step_ridge_risk_full"
SYSTEM_NAME_SCHUR = "one_step_ridge_schur"

lam, psi1, psi2, mu1sq, mu2sq, s = sp.symbols("lam psi1 psi2 mu1sq mu2sq s", positive=True)
theta_sq, theta1_sq = sp.symbols("theta_sq theta1_sq", positive=True)
_theta, _rho = sp.symbols("theta rho", positive=True)

#: Fallback (engine's lowered solver) settings: residual tolerances, steps, continuation in λ.
ATOL, RTOL, MAX_STEPS = 1e-300, 1e-13, 100
#: A point whose Newton iteration stagnates (no further decrease of the residual) is accepted when
#: its scaled residual is below this round-off floor (stage 1, expanded polynomials).
FLOOR = 1e-10
#: Stage 2 (polish on the full Dyson system): tolerances, steps and round-off floor.
POLISH_RTOL, POLISH_STEPS, POLISH_FLOOR = 1e-14, 8, 1e-13
#: The compiled-kernel Newton (log-traces), iterated by the project's fixed-point loop; accepted
#: residual floor of the Schur equations.
KERNEL_NEWTON = FixedPoint(damping=1.0, atol=1e-9, rtol=1e-9, max_steps=100)
KERNEL_FLOOR = 1e-12
#: Largest log-trace step allowed at the accepted iterate (before its final polishing step).
KERNEL_STEP = 1e-8
#: Largest relative change of the traces allowed in stage 2 (same root as stage 1: a jump to
#: another root changes them by O(1)).
MAX_MOVE = 1e-4
#: Continuation steps (geometric in λ from 10³) of the fallback for points that fail from g = q0⁻¹.
HOMOTOPY_STEPS = 40


def one_step_ridge_pencil() -> Pencil:
    """The 4-block pencil of the Gaussian-equivalent ridge, scaled by λ (module docstring): with
    c1 = μ1/√(ψ1λ), c2 = μ2/√(ψ1λ) and the source s,

        Q = [ (1 + sμ2²) I_N   c2 Z'ᵀ    W₀ᵀ     −sμ1² W₀ᵀ ]
            [ −c2 Z'           I_n       0        c1 X'     ]
            [  0              −c1 X'ᵀ    I_d      0         ]
            [  W₀              0         0        I_d       ]

    so that (Q⁻¹)₁₁ = λ G_{t=λs}: every trace stays O(1) as λ → 0 (g11 = tr λG/N ∈ (0, 1])."""
    r = sp.sqrt(psi1 * lam)
    a1, a2 = sp.sqrt(mu1sq), sp.sqrt(mu2sq)
    return Pencil(
        name="one_step_ridge",
        sizes=(psi2, psi1, 1, 1),
        q0=sp.diag(1 + s * mu2sq, 1, 1, 1),
        gaussians=(
            Gaussian("Z", 2, 1, -a2 / r),
            Gaussian("Z", 1, 2, a2 / r, transpose=True),
            Gaussian("X", 2, 4, a1 / r),
            Gaussian("X", 3, 2, -a1 / r, transpose=True),
            Gaussian("W", 4, 1, 1),
            Gaussian("W", 1, 3, 1, transpose=True),
            Gaussian("W", 1, 4, -s * mu1sq, transpose=True),
        ),
        description="Ba et al. ridge on Gaussian-equivalent features: (Q^-1)_11 = lam (F'^T F'/psi1 + lam + lam s Sigma)^-1",
    )


def spike_corrections(G: sp.Matrix) -> dict:
    r"""c44 = β*ᵀ(Q₀⁻¹ − Q₁⁻¹)₄₄β* and c34 = β*ᵀ(Q₀⁻¹ − Q₁⁻¹)₃₄β* for W₁ = W₀ + θuvᵀ, by Woodbury on the
    pencil with the block-scalar equivalents of the trace matrix ``G`` (expressions in g_bc, s, θ², θ1²)."""
    inner = {("beta", "beta"): 1, ("u", "u"): 1, ("v", "v"): 1, ("beta", "u"): _rho, ("u", "beta"): _rho}

    def gram(x, y):
        (bx, ax), (by, ay) = x, y
        ip = inner.get((ax, ay))
        if ip is None or G[bx, by] == 0:  # different spaces, or blocks of different sizes
            return sp.Integer(0)
        return G[bx, by] * ip

    # Q₁ = Q₀ + U C Vᵀ: θ u vᵀ in (4,1), θ v uᵀ in (1,3), −sμ1²θ v uᵀ in (1,4) (0-based blocks)
    U = [(3, "u"), (0, "v"), (0, "v")]
    V = [(0, "v"), (2, "u"), (3, "u")]
    C = sp.diag(_theta, _theta, -s * mu1sq * _theta)
    out = {}
    for name, (b1, b2) in (("corr44", (3, 3)), ("corr34", (2, 3))):
        q1 = woodbury_quadratic_form((b1, "beta"), (b2, "beta"), U, C, gram, V)
        corr = sp.together(G[b1, b2] - q1)
        corr = corr.subs(_rho, sp.sqrt(theta1_sq) / _theta).subs(_theta, sp.sqrt(theta_sq))
        out[name] = sp.factor(sp.cancel(corr))
    return out


def _dyson(P):
    G = trace_matrix(P)
    outputs = {"g22": G[1, 1], "g33": G[2, 2], "g34": G[2, 3], "g43": G[3, 2], "g44": G[3, 3], **spike_corrections(G)}
    return G, dyson_system(P, outputs=outputs, name=SYSTEM_NAME, homotopy=(lam, 1e3))


@register_system(SYSTEM_NAME, "Ba et al. one-step ridge (route C): blocks 3–4 eliminated, source tangents, s = 0",
                 pencil=one_step_ridge_pencil)
def one_step_ridge_system() -> EquationSystem:
    """The reduced system: Dyson equations of the pencil with blocks 3–4 eliminated (unknowns g11,
    g22), tangent equations in the source s (unknowns dg11_ds, dg22_ds), s = 0. Outputs: every
    other trace g22, g33, g34, g43, g44, the spike corrections corr44, corr34 and their
    s-derivatives. Its Newton iteration from the large-λ start g = q0⁻¹ finds the physical branch."""
    P = one_step_ridge_pencil()
    G, S = _dyson(P)
    R = eliminate(S, keep=[G[0, 0], G[1, 1]])
    return implicit_derivatives(R, s).subs({s: 0}, name=SYSTEM_NAME)


@register_system(SYSTEM_NAME_FULL, "Ba et al. one-step ridge (route C): full matrix Dyson system with source tangents, s = 0",
                 pencil=one_step_ridge_pencil)
def one_step_ridge_full_system() -> EquationSystem:
    """The full (bilinear) Dyson system of the pencil in the six traces g11, g22, g33, g34, g43,
    g44 with their s-tangents, s = 0. Used to polish the reduced solution: its residual has no
    expanded high-degree polynomial, hence a round-off floor ~1e-15 instead of ~1e-11 at small λ."""
    P = one_step_ridge_pencil()
    _, S = _dyson(P)
    return implicit_derivatives(S, s, outputs=["g22", "g34", "corr34"]).subs({s: 0}, name=SYSTEM_NAME_FULL)


@lru_cache(maxsize=1)
def compiled_system():
    """The compiled modules (reduced, full) of the route-C systems (:func:`asymptotics.codegen.lower`;
    loaded from the on-disk cache in later processes, without re-deriving)."""
    from ...codegen import lower

    return lower(SYSTEM_NAME), lower(SYSTEM_NAME_FULL)


@register_system(SYSTEM_NAME_SCHUR, "Ba et al. one-step ridge (route C): the d-blocks inverted exactly (2 rational equations)",
                 pencil=one_step_ridge_pencil)
def schur_system() -> EquationSystem:
    """The reduced rational system in (g11, g22): the d-block traces are the exact inverse of the
    2×2 Dyson block (q0 − S)₍₃₄₎ (which depends on g11, g22 only), substituted into the equations
    g11 (q0 − S)₁₁ − 1 = 0 and g22 (q0 − S)₂₂ − 1 = 0 (nothing expanded or multiplied through).
    The source s is kept (the tangents are taken by :func:`schur_tangents`)."""
    P = one_step_ridge_pencil()
    G = trace_matrix(P)
    M = P.q0 - self_energy(P, G)
    d_traces = {G[i, j] for i in (2, 3) for j in (2, 3)}
    if M[2:4, 2:4].free_symbols & d_traces or any(M[i, j] != 0 for i in (0, 1) for j in (2, 3)):
        raise AssertionError("the d-block of the one-step pencil is not closed in g11, g22")  # pragma: no cover
    Md = M[2:4, 2:4]
    det = Md.det()
    inv = sp.Matrix([[Md[1, 1], -Md[0, 1]], [-Md[1, 0], Md[0, 0]]]) / det
    sub = {G[2, 2]: inv[0, 0], G[2, 3]: inv[0, 1], G[3, 2]: inv[1, 0], G[3, 3]: inv[1, 1]}
    eqs = (M[0, 0].xreplace(sub) * G[0, 0] - 1, M[1, 1].xreplace(sub) * G[1, 1] - 1)
    outputs = {"g22": G[1, 1], "g33": G[2, 2], "g34": G[2, 3], "g43": G[3, 2], "g44": G[3, 3], **spike_corrections(G)}
    return EquationSystem(
        name=SYSTEM_NAME_SCHUR, unknowns=(G[0, 0], G[1, 1]), equations=eqs, outputs=outputs, eliminated=sub,
        start={G[0, 0]: sp.Integer(1), G[1, 1]: sp.Integer(1)}, homotopy=(lam, 1e3),
        description="one-step ridge pencil, d-blocks inverted exactly: g11 (q0 − S)_11 = 1, g22 (q0 − S)_22 = 1",
    )


def schur_tangents():
    """``(system, tangents, d_ds)`` for the kernels: the Schur system at s = 0 whose outputs include
    their total s-derivatives (from :func:`asymptotics.symbolic.implicit_derivatives`, in terms of
    the tangent symbols dg11_ds, dg22_ds, listed last among its parameters), the tangent symbols,
    and ∂F/∂s at s = 0 (the right-hand side of the tangent equations J x' = −∂F/∂s)."""
    S = schur_system()
    D = implicit_derivatives(S, s, outputs=["g22", "g33", "g34", "g43", "g44", "corr34"])
    tangents = tuple(D.unknowns[2:])
    d_ds = [sp.diff(e, s).subs(s, 0) for e in S.equations]
    system = EquationSystem(
        name=SYSTEM_NAME_SCHUR, unknowns=S.unknowns, equations=tuple(e.subs(s, 0) for e in S.equations),
        parameters=tuple(q for q in S.parameters if q != s) + tangents,
        outputs={**{k: v.subs(s, 0) for k, v in D.output_expressions().items()}, "dg11_ds": tangents[0]},
        description=S.description,
    )
    return system, tangents, d_ds


@lru_cache(maxsize=1)
def kernels():
    """The compiled elementwise kernels of :mod:`._route_pencil_kernel` (from the disk cache when
    the deriving code is unchanged)."""
    from ._route_pencil_kernel import load_kernels

    return load_kernels(schur_tangents)


def solve_traces_engine(psi1_, psi2_, lam_, mu1sq_, mu2sq_, theta_sq_, theta1_sq_):
    """Solve the route-C equations on a grid with the engine's generic lowered solver (the fallback
    of :func:`solve_traces`, and an independent check of it in the tests).

    Stage 1: the reduced system by Newton from g = q0⁻¹ (continuation in λ from 10³ for points
    that fail); stage 2: a few Newton steps on the full Dyson system from the stage-1 solution.
    Returns ``(traces: dict name → array, status, iterations, residual, moved)`` where ``moved`` is
    the largest relative change of the traces in stage 2 (a jump to another root would show).
    """
    LR, LF = compiled_system()
    cols = {"lam": lam_, "psi1": psi1_, "psi2": psi2_, "mu1sq": mu1sq_, "mu2sq": mu2sq_,
            "theta_sq": theta_sq_, "theta1_sq": theta1_sq_}
    n = len(psi1_)
    P = np.empty((n, len(LR.parameters)))
    for j, name in enumerate(LR.parameters):
        P[:, j] = cols[name]
    X0 = np.empty((n, len(LR.unknowns)))
    for i in range(n):
        X0[i] = LR.module.start(P[i])
    hi, hv = LR.homotopy
    X, status, iters, resid, Y = LR.module.solve_grid(X0, P, ATOL, RTOL, MAX_STEPS, False, int(hi), float(hv),
                                                      HOMOTOPY_STEPS)
    red = {name: Y[:, k] for k, name in enumerate(LR.outputs)}
    red.update({name: X[:, k] for k, name in enumerate(LR.unknowns)})
    ok1 = (status == 0) | ((status == 3) & (resid <= FLOOR))
    # stage 2: polish on the full system (parameters in the same order: checked)
    if tuple(LF.parameters) != tuple(LR.parameters):  # pragma: no cover - both derive from one pencil
        raise RuntimeError("route C: the reduced and full systems disagree on their parameters")
    XF0 = np.column_stack([red[u] for u in LF.unknowns])
    XF, stF, itF, resF, YF = LF.module.solve_grid(XF0, P, ATOL, POLISH_RTOL, POLISH_STEPS, False, -1, 0.0, 1)
    base = [k for k, u in enumerate(LF.unknowns) if not str(u).startswith("d")]  # the traces, not tangents
    moved = np.max(np.abs(XF[:, base] - XF0[:, base]) / np.maximum(np.abs(XF0[:, base]), 1e-300), axis=1)
    out = {name: YF[:, k] for k, name in enumerate(LF.outputs)}
    out.update({name: XF[:, k] for k, name in enumerate(LF.unknowns)})
    ok2 = (stF == 0) | (resF <= POLISH_FLOOR)
    st = np.where(ok1 & ok2, 0, np.where(ok1, np.maximum(stF, 1), np.maximum(status, 1)))
    return out, st, iters + itF, np.maximum(np.where(ok1, 0.0, resid), resF), moved


def _param_matrix(names, cols, n):
    P = np.empty((n, len(names)))
    for j, name in enumerate(names):
        P[:, j] = cols[name]
    return P


def solve_traces(psi1_, psi2_, lam_, mu1sq_, mu2sq_, theta_sq_, theta1_sq_):
    """Solve the route-C equations on a grid (1-D arrays of equal length).

    Newton in the log-traces on the Schur system (compiled elementwise step, iterated by
    :func:`asymptotics.solvers.fixed_point`); points that fail any check are solved again by
    :func:`solve_traces_engine`. Returns ``(outputs: dict name → array, status, iterations,
    residual)``; ``status`` is 0 where the answer passed every check.
    """
    K = kernels()
    cols = {"lam": lam_, "psi1": psi1_, "psi2": psi2_, "mu1sq": mu1sq_, "mu2sq": mu2sq_,
            "theta_sq": theta_sq_, "theta1_sq": theta1_sq_}
    n = len(psi1_)
    P = _param_matrix(K.PARAMETERS, cols, n)
    U0 = np.log(_start(psi1_, psi2_, lam_, mu1sq_ + mu2sq_))
    sol = fixed_point(K.newton_map, U0, args=(P,), solver=KERNEL_NEWTON, on_failure="return")
    U = np.asarray(sol.value, dtype=float).reshape(2, n)
    U1 = K.newton_map(U, P)  # one more step: Newton converges quadratically, so U1 is accurate to ~step²
    step = np.max(np.abs(U1 - U), axis=0)
    Y, resid = K.finish(U1, P)
    out = {name: Y[:, k] for k, name in enumerate(K.OUTPUTS)}
    out["g11"], out["g22"] = np.exp(U1[0]), np.exp(U1[1])
    good = (np.isfinite(resid) & (resid <= KERNEL_FLOOR) & (step <= KERNEL_STEP) & _physical(out)
            & np.all(np.isfinite(Y), axis=1))
    status = np.zeros(n, dtype=np.int64)
    iters = np.full(n, sol.iterations + 1, dtype=np.int64)
    if not np.all(good):
        bad = np.flatnonzero(~good)
        sub = [np.asarray(a)[bad] for a in (psi1_, psi2_, lam_, mu1sq_, mu2sq_, theta_sq_, theta1_sq_)]
        o2, st2, it2, res2, moved = solve_traces_engine(*sub)
        ok2 = (st2 == 0) & _physical(o2) & (moved <= MAX_MOVE)
        for k in out:
            out[k][bad] = o2[k]
        resid[bad] = res2
        status[bad] = np.where(ok2, 0, np.maximum(st2, 3))
        iters[bad] += it2
    return out, status, iters, resid


def _start(psi1_, psi2_, lam_, scale):
    """Starting traces: g11 = tr λG/N and g22 = tr λ(F'F'ᵀ/ψ1 + λ)⁻¹/n interpolate between their
    ridgeless limits (the fractions of zero eigenvalues, (1 − ψ1/ψ2)₊ and (1 − ψ2/ψ1)₊) and their
    large-λ limit 1 (= q0⁻¹), floored at ½√(λ/(λ + μ1² + μ2²)) for the interpolation region. Only a
    start: the answer is the converged root, checked afterwards (it saves ~30 % of the steps)."""
    w = lam_ / (lam_ + scale)
    floor = 0.5 * np.sqrt(w)
    a11 = np.maximum(1 - psi1_ / psi2_, 0.0)
    a22 = np.maximum(1 - psi2_ / psi1_, 0.0)
    return np.vstack([np.maximum(a11 + (1 - a11) * w, floor), np.maximum(a22 + (1 - a22) * w, floor)])


def _physical(out):
    """The Stieltjes branch: 0 < g11, g22 ≤ 1 (traces of λ(A + λ)⁻¹, A ⪰ 0) and ∂_s g22 ≥ 0."""
    return ((out["g11"] > 0) & (out["g11"] <= 1 + 1e-12) & (out["g22"] > 0) & (out["g22"] <= 1 + 1e-12)
            & (out["dg22_ds"] >= -1e-14))


def risk(model: OneStepModel, psi1, psi2, lam, eta=0.0) -> RiskResult:
    r"""R0(λ), R1(λ) and δ by the pencil (see the module docstring), vectorised over the inputs."""
    p1, p2, lm, et = risk_grid(psi1, psi2, lam, eta)
    scalar = p1.ndim == 0
    if np.any(lm == 0):
        raise ParameterError("lam", 0.0, "> 0 for route C (the pencil's traces diverge as λ → 0 when N > n)",
                             "routes A and B give the ridgeless limit")
    model.warn_if_degenerate()
    if model.mu1 == 0:
        from .risk_deterministic_equivalent import risk as risk_b

        res = risk_b(model, p1, p2, lm, et)
        return RiskResult(res.risk0, res.risk1, res.delta, res.kernel_bound, route="C", residual=res.residual)
    shape = p1.shape
    f = [a.ravel() for a in (p1, p2, lm, et)]
    a1, a2, al, ae = f
    th1 = np.asarray(signal_spike_sq(model, ae))
    th = np.asarray(spike_strength_sq(model, a1, ae))
    check_risk_spike(th, ae)
    n = a1.size
    if n == 0:
        empty = np.empty(shape)
        return RiskResult(empty, empty, empty, model.kernel_bound, route="C")
    out, status, iters, resid = solve_traces(a1, a2, al, np.full(n, model.mu1**2), np.full(n, model.mu2_sq), th, th1)
    bad = status != 0
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        from ...solvers import SolverResult

        raise ConvergenceError(
            f"route C: {int(bad.sum())} of {n} point(s) failed (compiled kernel and engine fallback); first at "
            f"psi1={a1[i]:g}, psi2={a2[i]:g}, lam={al[i]:g}",
            SolverResult(value=None, converged=False, iterations=int(iters[i]), residual=float(resid[i]),
                         method="newton (compiled, route C)", message="failed", status=int(status[i])),
        )
    mu1s = model.mu1**2
    r0 = (model.mu2_star_sq + model.mu1_star**2 * (out["g44"] - out["dg34_ds"] / mu1s)
          + model.effective_noise_sq * out["dg22_ds"] / al)
    delta = model.mu1_star**2 * (out["corr44"] - out["dcorr34_ds"] / mu1s)
    r1 = r0 - delta

    def o(x):
        x = x.reshape(shape)
        return float(x) if scalar else x

    return RiskResult(risk0=o(r0), risk1=o(r1), delta=o(delta), kernel_bound=model.kernel_bound, route="C",
                      residual=float(np.max(resid)), iterations=int(np.max(iters)))
