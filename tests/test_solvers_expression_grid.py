"""The warm-started grid of a derived expression (``evaluate_grid(..., branch="grid")``,
:func:`asymptotics.solvers.expression_values._solve`): the branch is chosen by the continuation in
t of the first point, so when that continuation fails its iterate must not seed the grid.

Reference: the Stieltjes transform of the Marchenko–Pastur law, m(z) of ψ2 z m² + (z + ψ2 − 1) m
+ 1 = 0 with Im m > 0 (the root of a quadratic, closed form), for W Wᵀ/d with N/d = ψ2.
"""

import cmath

import numpy as np

from asymptotics.solvers import Status
from asymptotics.solvers import expression_values as ev
from asymptotics.symbolic.expressions import derive


def _stieltjes(z, g):
    """m(z) of g z m² + (z + g − 1) m + 1 = 0 with Im m > 0 (Im z > 0)."""
    b = z + g - 1
    d = cmath.sqrt(b * b - 4 * g * z)
    return max(((-b + d) / (2 * g * z), (-b - d) / (2 * g * z)), key=lambda m: m.imag)


def test_a_failed_first_continuation_does_not_seed_the_warm_grid(monkeypatch):
    """The first point's continuation is made to fail, leaving an iterate in the basin of the other
    root (the solution negated: at z = −1 + 0.1i Newton goes from there to m ≈ −1.41 − 0.03i, Im < 0)
    with status 0, which would seed the whole grid. Instead every point is continued in t: the
    Stieltjes branch (Im > 0), the closed form."""
    D = derive("tr(inv(W@W.T/d - z*I))", dims="W:d,N", ratios="N/d=psi2")
    zs = np.linspace(-1, 4, 11) + 0.1j
    module = ev.compiled_solver(D).module

    class FirstFails:
        first = True

        def continue_grid(self, P, *args):
            X, status, iters, resid, Y = module.continue_grid(P, *args)
            if self.first:
                self.first = False
                X, status = -X, np.full_like(status, Status.SINGULAR)
            return X, status, iters, resid, Y

    monkeypatch.setattr(ev, "_continuation", lambda D: FirstFails())
    g = ev.evaluate_grid(D, at={"z": zs, "psi2": 0.7}, branch="grid")
    ref = np.array([_stieltjes(z / 0.7, 1 / 0.7) / 0.7 for z in zs])  # W Wᵀ/d = ψ2 · W Wᵀ/N
    assert g.converged and np.all(g.value.imag > 0)
    np.testing.assert_allclose(g.value, ref, rtol=1e-11)
