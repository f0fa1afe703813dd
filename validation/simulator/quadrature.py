r"""Gaussian expectations E g(z), z ~ N(0, 1), by composite Gauss–Legendre rules.

Gauss–Hermite rules converge slowly for the functions the exact population risk integrates
(tanh(5z) has poles at distance π/10 from the real axis: 160 Gauss–Hermite nodes leave an error
of 1.8·10⁻³ in E tanh(5z)²), so every Gaussian expectation of :mod:`validation.simulator.population` uses a
composite Gauss–Legendre rule with the Gaussian density in the weights, on panels covering
[−9, 9] (the mass outside is 2·10⁻¹⁹); the rule on given panels is the numerics layer's
(:mod:`asymptotics.numerics.quadrature`), the panels are chosen here:

* :func:`composite_rule` — the rule on given panel edges (split further at kinks);
* :func:`adaptive_rule` — panels bisected until, for every one of a set of test integrands, the
  rule on a panel and on its two halves agree to ``rtol`` of the integrands' scale; the rule
  returned uses the halves (its error is far below the last difference);
* :func:`inner_edges` — the uniform panels of the inner rule used at every point (sₚ, tₚ) by the
  compiled kernel ``conditional_hermite``: the panel count is doubled until the Hermite
  coefficients of σ(s + tξ) at probe points, at the largest and smallest t in use, agree to 10⁻¹⁴.

>>> import numpy as np
>>> x, w = composite_rule(np.linspace(-9, 9, 7))
>>> round(float(w @ x**4), 12)                         # E z⁴ = 3
3.0
>>> x, w = adaptive_rule(lambda z: np.tanh(5 * z)[None] ** 2, np.linspace(-9, 9, 5))
>>> abs(float(w @ np.tanh(5 * x) ** 2) - 0.8429617595625437) < 1e-14   # mpmath: 0.84296175956254369
True
"""

from __future__ import annotations

import math

import numpy as np

from asymptotics.numerics.quadrature import gaussian_panel_pairs, gaussian_panels, legendre_rule

__all__ = [
    "HALF_RANGE",
    "GL_ORDER",
    "composite_rule",
    "adaptive_rule",
    "inner_edges",
    "split_at",
    "conditional_coefficients",
    "hermite_table",
    "refine_edges",
    "inner_panels",
]

#: Gaussian expectations are taken over [−HALF_RANGE, HALF_RANGE].
HALF_RANGE = 9.0
#: Gauss–Legendre nodes per panel.
GL_ORDER = 12



def gl_nodes() -> tuple[np.ndarray, np.ndarray]:
    """The Gauss–Legendre nodes and weights on [−1, 1] used on every panel."""
    return legendre_rule(GL_ORDER)


def split_at(edges: np.ndarray, points) -> np.ndarray:
    """Panel edges with the given points (kinks) inside the range added."""
    edges = np.asarray(edges, dtype=float)
    extra = [p for p in points if edges[0] < p < edges[-1]]
    return np.unique(np.concatenate([edges, np.asarray(extra, dtype=float)])) if extra else edges


def composite_rule(edges, kinks=()) -> tuple[np.ndarray, np.ndarray]:
    """Nodes x and weights w with Σ w g(x) ≈ E g(z): Gauss–Legendre on each panel, φ in w."""
    x, w = gaussian_panels(split_at(edges, kinks), GL_ORDER)
    return x.ravel(), w.ravel()


def adaptive_rule(fn, edges, *, kinks=(), rtol: float = 1e-14, min_width: float = 1e-6, max_panels: int = 20_000):
    """An adaptive composite rule for E g(z) accurate for every test integrand of ``fn``.

    Args:
        fn: maps an array of nodes (n,) to the test integrands' values there, shape (m, n).
        edges: initial panel edges (sorted, covering the range).
        kinks: points where the integrands are not smooth (panels are split there).
        rtol: a panel is accepted when, for every integrand, its one-panel and two-half-panel
            sums differ by at most rtol · scale · (panel width / range), scale = max E|g|.

    Returns:
        (nodes, weights) of the accepted (half) panels.
    """
    e = split_at(edges, kinks)
    x0, w0 = composite_rule(e)
    scale = float(np.max(np.abs(np.atleast_2d(fn(x0))) @ w0))
    tol = rtol * max(scale, 1e-300)
    span = float(e[-1] - e[0])
    todo = list(zip(e[:-1], e[1:], strict=True))
    accepted: list[tuple[float, float]] = []
    while todo:
        if len(accepted) + 2 * len(todo) > max_panels:
            accepted.extend(todo)  # give up refining: the caller's global check reports the error
            break
        a = np.array([p[0] for p in todo])
        b = np.array([p[1] for p in todo])
        m = 0.5 * (a + b)
        coarse_e = np.stack([a, b], axis=1)
        fine_e = np.stack([a, m, m, b], axis=1).reshape(-1, 2)
        xs, ws = _panel_nodes(np.concatenate([coarse_e, fine_e]))
        vals = np.atleast_2d(fn(xs.ravel())).reshape(-1, xs.shape[0], xs.shape[1])  # (m, panels, G)
        sums = np.einsum("fpg,pg->fp", vals, ws)
        k = len(todo)
        coarse = sums[:, :k]
        fine = sums[:, k::2] + sums[:, k + 1 :: 2]
        err = np.max(np.abs(coarse - fine), axis=0)
        nxt = []
        for i, (pa, pb) in enumerate(todo):
            if err[i] <= tol * (pb - pa) / span or (pb - pa) < min_width:
                accepted.extend([(pa, 0.5 * (pa + pb)), (0.5 * (pa + pb), pb)])
            else:
                nxt.extend([(pa, 0.5 * (pa + pb)), (0.5 * (pa + pb), pb)])
        todo = nxt
    accepted.sort()
    xs, ws = _panel_nodes(np.array(accepted))
    return xs.ravel(), ws.ravel()


def _panel_nodes(panels: np.ndarray):
    """Nodes and weights (panels × GL_ORDER) of the rule on the rows (a, b) of ``panels``."""
    return gaussian_panel_pairs(panels, GL_ORDER)


def hermite_table(x: np.ndarray, K: int) -> np.ndarray:
    """h_k(x) = He_k(x)/√k! for k = 0 … K (rows), by the three-term recurrence."""
    H = np.empty((K + 1, x.size))
    H[0] = 1.0
    if K >= 1:
        H[1] = x
    for k in range(1, K):
        H[k + 1] = (x * H[k] - math.sqrt(k) * H[k - 1]) / math.sqrt(k + 1)
    return H


#: Points per block of :func:`conditional_coefficients` (bounded memory).
POINT_BLOCK = 1 << 14


def conditional_coefficients(kern, s, t, edges, kinks, K: int) -> tuple[np.ndarray, np.ndarray]:
    """A[k, p] = E_ξ[σ(sₚ + tₚξ) h_k(ξ)] (k = 0 … K) and S[p] = E_ξ σ(sₚ + tₚξ)².

    For a σ without kinks the nodes ξₗ of the inner rule are the same at every point: σ is
    evaluated on the grid sₚ + tₚξₗ (compiled, in parallel) and the projections are one matrix
    product with the table wₗ h_k(ξₗ). With kinks, ``kern.conditional_hermite`` splits the panels
    at every point's (kink − sₚ)/tₚ. Both take sums in an order independent of the thread count.
    """
    s = np.ascontiguousarray(s, dtype=float)
    t = np.ascontiguousarray(t, dtype=float)
    P = s.size
    A = np.empty((K + 1, P))
    S = np.empty(P)
    glx, glw = gl_nodes()
    if len(kinks):
        kern.conditional_hermite(s, t, edges, glx, glw, np.asarray(kinks, dtype=float), A, S)
        return A, S
    xi, w = composite_rule(edges)
    HW = hermite_table(xi, K) * w[None, :]  # (K+1, L)
    F = np.empty((min(P, POINT_BLOCK), xi.size))
    for p0 in range(0, P, POINT_BLOCK):
        p1 = min(P, p0 + POINT_BLOCK)
        Fb = F[: p1 - p0]
        kern.sigma_grid(s[p0:p1], t[p0:p1], xi, Fb)
        A[:, p0:p1] = HW @ Fb.T
        Fb *= Fb
        S[p0:p1] = Fb @ w
    return A, S


#: Panel counts of the core [−6, 6] tried by :func:`inner_edges` (each compared with the next);
#: the tails [−9, −6] and [6, 9] get max(1, n // 8) panels each.
_PANEL_COUNTS = (6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
_CORE = 6.0


def inner_panels(n: int) -> np.ndarray:
    """Edges of n uniform panels on [−6, 6] and max(1, n // 8) on each tail [−9, −6], [6, 9]."""
    nt = max(1, n // 8)
    return np.unique(np.concatenate([
        np.linspace(-HALF_RANGE, -_CORE, nt + 1), np.linspace(-_CORE, _CORE, n + 1),
        np.linspace(_CORE, HALF_RANGE, nt + 1),
    ]))  # fmt: skip


def inner_edges(kern, kinks, t_values, *, rtol: float = 1e-13, orders: int = 8) -> np.ndarray:
    """Panel edges on [−9, 9] for the inner rule in ξ (uniform in [−6, 6], coarser in the tails),
    fine enough at every t in ``t_values`` (the largest and smallest matter): the first panel
    count whose coefficients h_k (k ≤ ``orders``) and second moments at probe points (sₚ, t), with σ's
    features anywhere in the range, agree with the next count's to rtol·max(S, √S)."""
    t = np.asarray([v for v in t_values if v > 0], dtype=float)
    if t.size == 0:
        return np.array([-HALF_RANGE, HALF_RANGE])
    probe_t = np.unique([t.min(), t.max(), float(np.median(t))])
    probe_s = np.array([0.0, 0.61, -1.93, 3.77, -7.3])
    s = (probe_s[None, :] * np.maximum(probe_t[:, None], 1.0)).ravel()
    tt = np.repeat(probe_t, probe_s.size)

    def run(n):
        edges = inner_panels(n)
        A, S = conditional_coefficients(kern, s, tt, edges, kinks, orders)
        return edges, np.concatenate([A.ravel(), S]), S

    edges, prev, S = run(_PANEL_COUNTS[0])
    scale = max(float(np.max(S)), float(np.sqrt(np.max(S))), 1e-300)
    for n in _PANEL_COUNTS[1:]:
        nxt_edges, cur, _ = run(n)
        if np.max(np.abs(cur - prev)) <= rtol * scale:
            return edges
        edges, prev = nxt_edges, cur
    return edges


def refine_edges(edges: np.ndarray) -> np.ndarray:
    """Every panel halved."""
    mid = 0.5 * (edges[:-1] + edges[1:])
    return np.sort(np.concatenate([edges, mid]))
