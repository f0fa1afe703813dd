r"""Compiled Gaussian moments of the cGET coefficients, specialised to one activation σ.

This file is a template (:mod:`asymptotics.rendering.templates`): :mod:`.kernels` renders it with
:meth:`asymptotics.activations.Activation.specialise` to a module whose header binds ``sigma`` to
the activation's compiled scalar σ (centred, as the theory uses it), so that
``numba.njit(cache=True)`` keeps the machine code between processes. Everything from the marker
line on is copied verbatim; above it ``sigma`` is a placeholder.

For each shift a_i (a row) the kernels return the three moments of g(z) = σ(a_i + b z),
z ~ N(0, 1), on one fixed rule (docs/spiked-rf.md, "How it is computed"):

    out[0, i] = E g,   out[1, i] = E[z g],   out[2, i] = E g²,

* :func:`moments_on_rule` — one rule (nodes z, weights w with the Gaussian density folded in,
  and w·z) shared by every row: the composite Gauss–Legendre rule of a smooth σ;
* :func:`moments_split` — composite Gauss–Legendre on [−12, 12] with unit panels split, row by
  row, where a_i + b z crosses a kink of σ (z = (k − a_i)/b): ReLU-type σ integrated to rounding;
  the panels and nodes are those of the numerics layer's rule
  (``asymptotics/numerics/templates/quadrature.py``, included in the rendered module);
* :func:`values` — b = 0: g is the constant σ(a_i) (E g = σ, E[z g] = 0, E g² = σ²).

Each row is one sequential sum. The arithmetic is the one of the plain-numpy rule it replaces, term by term.
"""

import math

import numpy as np
from numba import njit

from asymptotics.numerics.templates.quadrature import gaussian_node, panel_edges  # placeholders: included


def sigma(x):  # placeholder: replaced by the activation's compiled σ in the rendered module
    return math.tanh(x)


# ---- kernels (copied into the rendered module) ----

INV_SQRT_2PI = 0.3989422804014327
HALF_WIDTH = 12.0


@njit(cache=True, nogil=True)
def moments_on_rule(shift, scale, z, w, wz, out):
    """out[:, i] = Σ_j (w_j, (wz)_j, w_j σ) σ(shift_i + scale z_j) (one rule for every row)."""
    n = shift.shape[0]
    m = z.shape[0]
    for i in range(n):
        a = shift[i]
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for j in range(m):
            v = sigma(a + scale * z[j])
            s0 += v * w[j]
            s1 += v * wz[j]
            s2 += (v * v) * w[j]
        out[0, i] = s0
        out[1, i] = s1
        out[2, i] = s2


@njit(cache=True, nogil=True)
def moments_split(shift, scale, kinks, t, wt, out):
    """Composite Gauss–Legendre (nodes t, weights wt on [−1, 1] per panel) on unit panels of
    [−12, 12], each row's panels split where shift_i + scale z hits a kink: the rule of the
    numerics layer (``panel_edges``, ``gaussian_node`` with 1/√(2π) last, as the numpy rule of
    :func:`asymptotics.gaussian.composite_rule`), summed node by node in panel order."""
    n = shift.shape[0]
    order = t.shape[0]
    for i in range(n):
        a = shift[i]
        edges = panel_edges(HALF_WIDTH, 1.0, (kinks - a) / scale)
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        for p in range(edges.shape[0] - 1):
            for j in range(order):
                zz, ww = gaussian_node(edges[p], edges[p + 1], t[j], wt[j], True)
                v = sigma(a + scale * zz)
                s0 += ww * v
                s1 += ww * zz * v
                s2 += ww * v * v
        out[0, i] = s0
        out[1, i] = s1
        out[2, i] = s2


@njit(cache=True, nogil=True)
def values(x, out):
    """out[:, i] = (σ(x_i), 0, σ(x_i)²): the moments of the constant g = σ(x_i) (scale 0)."""
    for i in range(x.shape[0]):
        v = sigma(x[i])
        out[0, i] = v
        out[1, i] = 0.0
        out[2, i] = v * v


#: the powers e^{−z_c δ j} of the Gaussian weights are recomputed by exp every RESYNC steps
#: (relative error of a weight ≲ (RESYNC + 2) ulp)
RESYNC = 8


@njit(cache=True, nogil=True)
def grid_values(t0, h, sig):
    """sig[k] = σ(t0 + k h): the activation on the shared grid of :func:`moments_trapezoid`."""
    for k in range(sig.shape[0]):
        sig[k] = sigma(t0 + k * h)


@njit(cache=True, nogil=True)
def moments_trapezoid(shift, scale, t0, h, sig, fine, coarse):
    """Trapezoid rule for the moments of g(z) = σ(shift_i + scale z) on one shared grid.

    With t_k = t0 + k h (σ(t_k) = sig[k]) and z = (t − a)/b, E f(z) = ∫ f((t − a)/b) φ((t − a)/b) dt/b
    is summed over the grid points with |z| ≤ 12: ``fine`` with step h, ``coarse`` with step 2h
    (the points of even k). For an integrand analytic in a strip the error falls like
    exp(−2π·(strip width)/step), so the difference of the two is a sharp error estimate of
    ``coarse`` and a pessimistic one of ``fine``. σ is evaluated once per grid point (not once per
    row and node). With k_c the grid point nearest to a, z_c its z and j = k − k_c, the weights
    are w = (h/b) φ(z_c + jδ) = (h/b) φ(z_c) · e^{−z_c δ j} · e^{−(jδ)²/2} (δ = h/b): the last
    factor is one table for every row, the middle one a running power recomputed every RESYNC
    steps.
    """
    n = shift.shape[0]
    N = sig.shape[0]
    delta = h / scale
    c = h / scale * INV_SQRT_2PI
    J = int(math.ceil(2.0 * HALF_WIDTH / delta)) + 2
    g = np.empty(J + 1)
    for j in range(J + 1):
        g[j] = math.exp(-0.5 * (j * delta) * (j * delta))
    for i in range(n):
        a = shift[i]
        lo = max(int(math.ceil((a - HALF_WIDTH * scale - t0) / h)), 0)
        hi = min(int(math.floor((a + HALF_WIDTH * scale - t0) / h)), N - 1)
        kc = min(max(int(round((a - t0) / h)), lo), hi)
        zc = (t0 + kc * h - a) / scale
        ec = c * math.exp(-0.5 * zc * zc)
        f0 = 0.0
        f1 = 0.0
        f2 = 0.0
        e0 = 0.0
        e1 = 0.0
        e2 = 0.0
        for side in range(2):
            sgn = 1 if side == 0 else -1
            u = math.exp(-sgn * zc * delta)
            j = side
            k = kc + sgn * j
            up = math.exp(-sgn * zc * delta * j)
            while lo <= k <= hi and j <= J:
                if j % RESYNC == 0:
                    up = math.exp(-sgn * zc * delta * j)
                w = ec * up * g[j]
                z = zc + sgn * j * delta
                s = sig[k]
                ws = w * s
                f0 += ws
                f1 += ws * z
                f2 += ws * s
                if k % 2 == 0:
                    e0 += ws
                    e1 += ws * z
                    e2 += ws * s
                up *= u
                j += 1
                k += sgn
        fine[0, i] = f0
        fine[1, i] = f1
        fine[2, i] = f2
        coarse[0, i] = 2.0 * e0
        coarse[1, i] = 2.0 * e1
        coarse[2, i] = 2.0 * e2


@njit(cache=True, nogil=True)
def trapezoid_ladder_rows(shifts, scales, delta0, min_delta, tol, max_grid, out, err, delta_out):
    """The trapezoid ladder (``cget._ladder_rows`` documents it) for every row (type) i at once.

    Row i has the shifts ``shifts[i]`` and the scale ``scales[i]``; its step δ = delta0, δ/2, …
    (down to ``min_delta``) is halved until the rules of steps δ·b/2 and δ·b (the fine and coarse
    moments of :func:`moments_trapezoid` on the shared grid of step h = δ·b/2 covering |z| ≤ 12)
    agree to ``tol`` (absolute below 1, relative above). Then out[i] holds the coarse moments,
    err[i] their difference and delta_out[i] = δ; delta_out[i] = 0 when the grid would exceed
    ``max_grid`` points, a moment is not finite or no step agrees (the caller falls back).
    """
    n = shifts.shape[1]
    fine = np.empty((3, n))
    coarse = np.empty((3, n))
    for i in range(shifts.shape[0]):
        shift = shifts[i]
        scale = scales[i]
        delta_out[i] = 0.0
        err[i] = 0.0
        smin = shift[0]
        smax = shift[0]
        for j in range(n):
            smin = min(smin, shift[j])
            smax = max(smax, shift[j])
        delta = delta0
        while delta >= min_delta:
            h = 0.5 * delta * scale
            lo = smin - HALF_WIDTH * scale
            hi = smax + HALF_WIDTH * scale
            k0 = math.floor(lo / h) - 2
            k0 -= k0 % 2
            N = math.ceil(hi / h) - k0 + 3
            if N > max_grid:
                break
            t0 = k0 * h
            sig = np.empty(N)
            for k in range(N):
                sig[k] = sigma(t0 + k * h)
            moments_trapezoid(shift, scale, t0, h, sig, fine, coarse)
            finite = True
            for m in range(3):
                for j in range(n):
                    if not (math.isfinite(fine[m, j]) and math.isfinite(coarse[m, j])):
                        finite = False
            if not finite:
                break
            e = 0.0
            for m in range(3):
                d = 0.0
                b = 0.0
                for j in range(n):
                    d = max(d, abs(coarse[m, j] - fine[m, j]))
                    b = max(b, abs(fine[m, j]))
                e = max(e, d / max(1.0, b))
            if e <= tol:
                for m in range(3):
                    for j in range(n):
                        out[i, m, j] = coarse[m, j]
                err[i] = e
                delta_out[i] = delta
                break
            delta /= 2
