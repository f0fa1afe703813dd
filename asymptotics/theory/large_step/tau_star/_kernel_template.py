r"""Compiled kernels of τ*, specialised to one student activation σ.

This file is a template (:mod:`asymptotics.rendering.templates`): :mod:`.kernels` renders it with
``Activation.specialise`` to a module whose header binds ``sigma`` to the student's compiled scalar
σ (raw, uncentred), so that ``numba.njit(cache=True)`` keeps the machine code between processes.
Everything from the marker line on is copied verbatim; above it, ``sigma`` is a placeholder (a test
may bind a plain Python function and call the kernels' ``py_func``).

The objective (``docs/large-step.md``),

    τ(κ) = E_x [ (t(x) − G(κx))² ],   G(m) = E_z σ(a(m + z)) − o,   x, z i.i.d. N(0, 1),

(t the centred, scaled teacher on the outer nodes, a the student's input scale, o its centring
offset), and its derivatives by Stein's identity,

    G'(m) = E[z σ(a(m + z))],   G''(m) = E[(z² − 1) σ(a(m + z))],
    τ'(κ) = −2 E[(t − G) x G'],   τ''(κ) = 2 E[x² (G'² − (t − G) G'')],

only need σ itself (no σ', no distributional σ'' at kinks). With ``fit_c`` the residual is
centred first (τ_c = Var(t − G)):  τ_c' = −2(S1 − R P),  τ_c'' = 2(S2 − P² + R Q), with
S1 = E[(t−G) x G'], S2 = E[x²(G'² − (t−G)G'')], R = E[t − G], P = E[x G'], Q = E[x² G''].

The inner expectation uses either fixed nodes (trapezoidal or Gauss–Hermite; ``mode`` 0) or a
composite Gauss–Legendre rule on [−L, L] whose panels are split at the student's kinks, shifted to
z = k/a − m for each m (``mode`` 1), so kinked students (ReLU) are integrated to machine precision:
the rule of the numerics layer (``asymptotics/numerics/templates/quadrature.py``: ``panel_edges``,
``gaussian_node``, included in the rendered module).

Status codes are those of :class:`asymptotics.solvers.Status`: converged, maximum steps,
non-finite value, no stationary point in the bracket (the scan misled the refinement), best
scanned value at an end of the scanned κ range.
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.status import Status
from asymptotics.numerics.templates.quadrature import gaussian_node, panel_edges  # placeholders: included


def sigma(x):  # placeholder: replaced by the student's compiled σ in the rendered module
    raise NotImplementedError


# ---- kernels (copied into the rendered module) ----

CONVERGED = int(Status.CONVERGED)
MAX_STEPS = int(Status.MAX_STEPS)
NONFINITE = int(Status.NONFINITE)
NO_STATIONARY = int(Status.NO_STATIONARY)
AT_EDGE = int(Status.AT_EDGE)

@njit(cache=True)
def inner_fixed(m, a, z, wz):
    """E_z of sigma(a(m+z)) times 1, z, z^2-1 on fixed nodes."""
    g0 = 0.0
    g1 = 0.0
    g2 = 0.0
    for j in range(z.shape[0]):
        if wz[j] == 0.0:
            continue
        v = wz[j] * sigma(a * (m + z[j]))
        g0 += v
        g1 += v * z[j]
        g2 += v * (z[j] * z[j] - 1.0)
    return g0, g1, g2


@njit(cache=True)
def _panel(m, a, lo, hi, glx, glw):
    g0 = 0.0
    g1 = 0.0
    g2 = 0.0
    for j in range(glx.shape[0]):
        zz, wj = gaussian_node(lo, hi, glx[j], glw[j])
        v = wj * sigma(a * (m + zz))
        g0 += v
        g1 += v * zz
        g2 += v * (zz * zz - 1.0)
    return g0, g1, g2


@njit(cache=True)
def inner_split(m, a, kinks, half_width, panel, glx, glw):
    """Composite Gauss-Legendre on [-L, L] (the numerics rule: ``panel_edges``, ``gaussian_node``),
    panels split where a(m+z) hits a kink: ``kinks`` are the student's kinks divided by a."""
    edges = panel_edges(half_width, panel, kinks - m)
    g0 = 0.0
    g1 = 0.0
    g2 = 0.0
    for p in range(edges.shape[0] - 1):
        a0, a1, a2 = _panel(m, a, edges[p], edges[p + 1], glx, glw)
        g0 += a0
        g1 += a1
        g2 += a2
    return g0, g1, g2


@njit(cache=True)
def inner(m, a, mode, z, wz, kinks, half_width, panel, glx, glw):
    if mode == 0:
        return inner_fixed(m, a, z, wz)
    return inner_split(m, a, kinks, half_width, panel, glx, glw)


@njit(cache=True)
def objective(kappa, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw):
    """(tau, tau', tau'') at kappa for one (student scale, teacher) pair."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    rr = 0.0
    pp = 0.0
    qq = 0.0
    for i in range(x.shape[0]):
        wi = w[i]
        if wi == 0.0:
            continue
        xi = x[i]
        g0, g1, g2 = inner(kappa * xi, a, mode, z, wz, kinks, half_width, panel, glx, glw)
        r = t[i] - (g0 - off)
        s0 += wi * r * r
        s1 += wi * r * xi * g1
        s2 += wi * xi * xi * (g1 * g1 - r * g2)
        rr += wi * r
        pp += wi * xi * g1
        qq += wi * xi * xi * g2
    if fit_c:
        return s0 - rr * rr, -2.0 * (s1 - rr * pp), 2.0 * (s2 - pp * pp + rr * qq)
    return s0, -2.0 * s1, 2.0 * s2


@njit(cache=True)
def objective_many(kappas, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw):
    """(tau, tau', tau'') at each kappa for one pair, as an (n, 3) array."""
    n = kappas.shape[0]
    out = np.empty((n, 3))
    for p in range(n):
        v0, v1, v2 = objective(kappas[p], a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw)
        out[p, 0] = v0
        out[p, 1] = v1
        out[p, 2] = v2
    return out


@njit(cache=True)
def newton_bracket(k, lo, hi, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw,
                   xtol, max_iter):
    """Safeguarded Newton on tau' = 0 from k inside [lo, hi] (bisection when the Newton step
    leaves the bracket or tau'' <= 0). Returns kappa, tau, tau', tau'', status, iterations."""
    v, d1, d2 = objective(k, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw)
    status = MAX_STEPS
    it = 0
    seen_neg = False  # tau' < 0 evaluated at lo
    seen_pos = False  # tau' > 0 evaluated at hi
    for it in range(1, max_iter + 1):
        if not (math.isfinite(v) and math.isfinite(d1) and math.isfinite(d2)):
            return k, v, d1, d2, NONFINITE, it
        tol = xtol * (1.0 + abs(k))
        # converged: the Newton step to the stationary point is below tolerance
        if d1 == 0.0 or (d2 > 0.0 and abs(d1) <= tol * d2):
            status = CONVERGED
            break
        if d1 > 0.0:
            hi = k
            seen_pos = True
        else:
            lo = k
            seen_neg = True
        if hi - lo <= tol:
            # tau' changes sign inside an interval below tolerance: converged (derivative
            # rounding noise above xtol * tau''); otherwise the bracket held no stationary point
            status = CONVERGED if (seen_neg and seen_pos) else NO_STATIONARY
            break
        kn = 0.5 * (lo + hi)
        if d2 > 0.0:
            cand = k - d1 / d2
            if cand > lo and cand < hi:
                kn = cand
        k = kn
        v, d1, d2 = objective(k, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw)
    return k, v, d1, d2, status, it


@njit(cache=True)
def minimise_one(a, off, fit_c, kscan, xs, ws, ts, zs, wzs, glxs, glws,
                 x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw,
                 xtol, max_iter):
    """Scan kscan with the cheap rule (xs, ws, ts, zs, wzs, glxs, glws), then safeguarded Newton
    on tau' inside the bracket around the best scanned point with the main rule.

    Returns kappa, tau, tau', tau'', status, iterations."""
    ns = kscan.shape[0]
    best = -1
    bestv = np.inf
    for i in range(ns):
        v, d1, d2 = objective(kscan[i], a, off, fit_c, xs, ws, ts, mode, zs, wzs, kinks,
                              half_width, panel, glxs, glws)
        if not math.isfinite(v):
            return kscan[i], v, d1, d2, NONFINITE, 0
        if v < bestv:
            bestv = v
            best = i
    if best == 0 or best == ns - 1:
        return kscan[best], bestv, 0.0, 0.0, AT_EDGE, 0
    lo = kscan[best - 1]
    hi = kscan[best + 1]
    # Newton with the cheap rule, then a polish with the main rule from there
    k0, v, d1, d2, st0, it0 = newton_bracket(kscan[best], lo, hi, a, off, fit_c, xs, ws, ts, mode, zs, wzs,
                                             kinks, half_width, panel, glxs, glws, xtol, max_iter)
    if st0 == CONVERGED:
        dk = 0.02 * (1.0 + abs(k0))
        k, v, d1, d2, status, it = newton_bracket(k0, max(lo, k0 - dk), min(hi, k0 + dk), a, off, fit_c,
                                                  x, w, t, mode, z, wz, kinks, half_width, panel, glx, glw,
                                                  xtol, max_iter)
        if status == CONVERGED:
            return k, v, d1, d2, status, it0 + it
    return newton_bracket(kscan[best], lo, hi, a, off, fit_c, x, w, t, mode, z, wz, kinks, half_width, panel,
                          glx, glw, xtol, max_iter)
