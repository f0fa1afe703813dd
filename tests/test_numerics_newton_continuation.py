"""The numerics layer's compiled Newton and continuation (``asymptotics/numerics/templates/newton.py``,
``continuation.py``): a catalogue of problems with closed-form roots, each checked on its residual
test, its status and the root itself.

* the templates imported directly (their reference problem F = (a² − 2q², ab − 2kq), root
  a = q√2, b = k√2): the stopping rule, the round-off floor, the statuses, the grid drivers;
* rendered through a lowered system (sympy → printer → template with the numerics kernels included):
  the Marchenko–Pastur quadratic z m² + (1 + z − ψ2) m + 1 = 0 at complex z (closed form with
  Im m > 0), the cubic x³ + x = p (Cardano, x = (2/√3) sinh(asinh(3√3 p/2)/3)), a 2×2 system x² + y² = r², x = t·y (x = rt/√(1+t²));
  the continuation in one parameter (fixed steps and adaptive with the secant predictor) reaches
  the branch the closed form names.
"""

import cmath
import math

import numpy as np
import pytest
import sympy as sp

from asymptotics.numerics.status import ROUNDOFF, Status
from asymptotics.numerics.templates import continuation as ct
from asymptotics.numerics.templates import newton as nt
from asymptotics.solvers import compile_system
from asymptotics.symbolic import EquationSystem

SQRT2 = math.sqrt(2.0)


def test_template_constants_are_the_status_vocabulary():
    assert (nt.CONVERGED, nt.MAX_STEPS, nt.NONFINITE, nt.SINGULAR) == (
        Status.CONVERGED, Status.MAX_STEPS, Status.NONFINITE, Status.SINGULAR)
    assert nt.ROUNDOFF == ROUNDOFF and nt.EPS == np.finfo(float).eps


@pytest.mark.parametrize("q", [2.0**17, 2.0**20, 2.0**26], ids=["1e5", "1e6", "7e7"])
def test_newton_at_large_components_and_the_roundoff_floor(q):
    """The term-scaled test passes where a test scaled by the unknowns cannot (F_0 = a² − 2q² never
    vanishes in float64 for q a power of two); below the floor's tolerance the root is accepted
    at the round-off floor."""
    p = np.array([q, 1.0])
    x, st, it, res, floor = nt.newton(ct.start(p), p, 1e-13, 1e-13, 50)
    assert st == Status.CONVERGED and not floor and res <= 1e-13
    assert abs(x[0] - q * SQRT2) <= 4 * np.spacing(q * SQRT2) and abs(x[1] - SQRT2) <= 8e-16 * SQRT2
    ok_unknown_scaled, finite, _, _ = nt.residual_test(nt.residual(x, p), x, np.abs(x), 1e-13, 1e-13)
    assert finite and not ok_unknown_scaled
    x2, st2, _, _, floor2 = nt.newton(ct.start(p), p, 1e-300, 1e-18, 50)
    assert st2 == Status.CONVERGED and floor2
    assert abs(x2[0] - q * SQRT2) <= 4 * np.spacing(q * SQRT2)


def test_newton_statuses_and_full_steps():
    p = np.array([2.0**20, 1.0])
    _, st, *_ = nt.newton(np.array([0.0, 1.0]), p, 1e-13, 1e-13, 50)  # J = [[0, 0], [1, 0]]
    assert st == Status.SINGULAR
    _, st, it, *_ = nt.newton(np.array([1.0, 1.0]), p, 1e-13, 1e-13, 2)
    assert st == Status.MAX_STEPS and it == 2
    _, st, _, res, _ = nt.newton(np.array([1.0, 1.0]), np.array([np.inf, 1.0]), 1e-13, 1e-13, 5)
    assert st == Status.NONFINITE and math.isinf(res)
    # full steps (no line search) from a good start: the same root
    x, st, _, res, _ = nt.newton_steps(np.array([1.5, 0.5]), np.array([1.0, 0.5]), 1e-14, 1e-14, 30, False)
    assert st == Status.CONVERGED and res <= 1e-14
    np.testing.assert_allclose(x, [SQRT2, 0.5 * SQRT2], rtol=1e-14)


def test_grid_driver_and_fixed_step_homotopy():
    qs = 2.0 ** np.arange(0, 27)
    P = np.column_stack([qs, np.full_like(qs, 0.5)])
    X, status, iters, resid, floors, Y = ct.solve_grid_full(ct.start(P[0])[None, :], P, 1e-13, 1e-13, 50, True,
                                                            -1, 0.0, 1)
    assert np.all(status == 0) and np.all(resid <= 1e-13)
    np.testing.assert_allclose(X[:, 0], qs * SQRT2, rtol=1.01e-13)
    np.testing.assert_allclose(Y[:, 0], qs / 0.5, rtol=3e-13)  # outputs: a/b = q/k
    # q from 1 to 1e6 in 12 geometric steps: every step converges, the root is the closed form
    p = np.array([1e6, 0.5])
    x, st, it, res, _ = ct.homotopy(p, 1e-13, 1e-13, 50, 0, 1.0, 12)
    assert st == Status.CONVERGED and res <= 1e-13 and it >= 12
    np.testing.assert_allclose(x, [1e6 * SQRT2, 0.5 * SQRT2], rtol=1e-13)


def test_distance_and_path():
    assert ct.distance(np.array([1.0, 3.0]), np.array([1.0, 2.0])) == 0.5
    assert ct.distance(np.array([np.nan]), np.array([1.0])) == math.inf
    assert ct.path_value(2.0, 8.0, 0.5) == pytest.approx(4.0, rel=1e-15)  # geometric
    assert ct.path_value(-1.0, 1.0, 0.25) == -0.5  # linear


# ---------------------------------------------------------------------- rendered problems
def _mp_stieltjes(z, psi2):
    """m(z) of z m² + (1 + z − ψ2) m + 1 = 0 with Im m > 0 (Im z > 0)."""
    b = 1 + z - psi2
    d = cmath.sqrt(b * b - 4 * z)
    roots = [(-b + d) / (2 * z), (-b - d) / (2 * z)]
    return max(roots, key=lambda m: m.imag)


@pytest.fixture(scope="module")
def mp_quadratic():
    m, z, psi2 = sp.symbols("m z psi2")
    return compile_system(EquationSystem("test_mp_quadratic", (m,), (z * m**2 + (1 + z - psi2) * m + 1,),
                                         (psi2, z), outputs={"m": m}, start={m: -1 / z}))


@pytest.mark.parametrize("z", [2.0 + 1.0j, 0.5 + 0.05j, 4.0 + 1e-3j, -0.5 + 0.2j])
def test_mp_quadratic_by_continuation_in_z(mp_quadratic, z):
    """From z₀ = z + 50i (start −1/z₀ in the basin of the Stieltjes root) down to z, adaptive steps
    with the secant predictor: the Stieltjes branch, residual test passed."""
    mod = mp_quadratic.module
    psi2 = 1.5
    p = np.array([psi2, z], dtype=np.complex128)
    iz = list(mp_quadratic.parameters).index("z")
    x, st, it, res, _ = mod.continue_parameter(p, iz, z + 50j, 1e-14, 1e-14, 60, 0.125, 1e-7, 0.25, 0.1, True)
    assert st == Status.CONVERGED and res <= 1e-14
    m = _mp_stieltjes(z, psi2)
    assert abs(x[0] - m) <= 1e-12 * abs(m)
    F = mod.residual(x, p)
    assert abs(F[0]) <= 1e-14 * np.sum(mod.residual_scale(x, p))


def test_cubic_and_two_by_two_through_the_lowered_solver():
    x, y, p, r, t = sp.symbols("x y p r t")
    cubic = compile_system(EquationSystem("test_cubic", (x,), (x**3 + x - p,), (p,), start={x: 0}))
    ps = np.array([-1e3, -2.0, 0.0, 0.5, 7.0, 1e6])
    g = cubic.solve_grid(p=ps, atol=0.0, rtol=1e-14)
    cardano = 2 / math.sqrt(3) * np.sinh(np.arcsinh(1.5 * math.sqrt(3) * ps) / 3)  # the one real root
    assert g.converged and np.all(g.residual <= 1e-14)
    np.testing.assert_allclose(g.values[:, 0], cardano, rtol=1e-12, atol=1e-15)
    circle = compile_system(EquationSystem("test_circle_line", (x, y), (x**2 + y**2 - r**2, x - t * y), (r, t),
                                           start={x: r, y: r}))
    rs, ts = np.array([1.0, 3.0, 1e4]), np.array([0.5, -2.0, 10.0])
    g = circle.solve_grid(r=rs, t=ts, atol=0.0, rtol=1e-14)
    assert g.converged and np.all(g.status == Status.CONVERGED)
    # the two roots ±(rt, r)/√(1 + t²): which one depends on the start's basin
    yy = np.sign(g.values[:, 1]) * rs / np.sqrt(1 + ts**2)
    np.testing.assert_allclose(g.values[:, 1], yy, rtol=1e-13)
    np.testing.assert_allclose(g.values[:, 0], ts * yy, rtol=1e-13)


def test_plain_python_twin_of_the_continuation():
    """The twin (:func:`asymptotics.solvers.continuation.continue_parameter`, Newton by ``root``)
    follows the MP quadratic along z(τ) = z + 50i(1 − τ) to the Stieltjes root; a step control
    that cannot reach τ = 1 fails with a status, never silently."""
    from asymptotics.solvers import Newton, root
    from asymptotics.solvers.continuation import continue_parameter

    psi2, z = 1.5, 0.5 + 0.05j

    def newton_at(m, tau):
        zt = z + 50j * (1 - tau)
        return root(lambda v: zt * v**2 + (1 + zt - psi2) * v + 1, m, jac=lambda v: 2 * zt * v + 1 + zt - psi2,
                    solver=Newton(atol=1e-15, rtol=1e-14), on_failure="return")

    m, st, its, res = continue_parameter(newton_at, -1 / (z + 50j), 0.125, 1e-7, 0.25, 0.1)
    assert st == Status.CONVERGED and res <= 1e-14 and its > 0
    assert abs(m - _mp_stieltjes(z, psi2)) <= 1e-12 * abs(m)
    _, st, _, _ = continue_parameter(newton_at, -1 / (z + 50j), 0.125, 0.2, 0.25, 0.0)  # delta = 0: no step passes
    assert st == Status.SINGULAR


def test_ladder_with_split_rungs_reaches_the_closed_form():
    """x² = p along p = 1 → 10⁶ in three rungs, Newton limited to 4 steps: a rung too long for it
    is split at its geometric midpoint; the root is √p, on the positive branch (the accept test).
    A branch test that fails beyond p = 10³ stops the rows there (``keep_last``) or fails them."""
    from asymptotics.solvers import Newton, root
    from asymptotics.solvers.continuation import follow_ladder

    def solve_at(rows, b, X):
        out = [root(lambda v, p=p: v * v - p, x[0], jac=lambda v: 2 * v, solver=Newton(max_steps=4, rtol=1e-14),
                    on_failure="return") for x, p in zip(X, b, strict=True)]
        return (np.array([r.value for r in out], dtype=float).reshape(-1, 1),
                np.array([int(r.status) for r in out], dtype=np.int64), np.array([r.residual for r in out], dtype=float))

    def mid(a, b):
        return np.sqrt(a * b)

    ladder = np.array([[1.0, 4.0], [1e2, 4e2], [1e4, 4e4], [1e6, 4e6]])
    X0 = np.array([[1.0], [2.0]])
    X, st, res, reached = follow_ladder(solve_at, lambda X: X[:, 0] > 0, np.arange(2), X0, np.zeros(2), ladder,
                                        mid, 8)
    assert np.all(st == Status.CONVERGED) and np.all(reached == ladder[-1])
    np.testing.assert_allclose(X[:, 0], np.sqrt(ladder[-1]), rtol=1e-14)
    below = lambda X: X[:, 0] < 40.0  # noqa: E731 - the branch test: x < 40, i.e. p < 1600
    X, st, _, reached = follow_ladder(solve_at, below, np.arange(2), X0, np.zeros(2), ladder, mid, 3, keep_last=True)
    assert np.all(st == Status.CONVERGED) and np.all(X[:, 0] < 40.0) and np.all(reached < 1600)
    np.testing.assert_allclose(X[:, 0], np.sqrt(reached), rtol=1e-14)
    _, st, _, _ = follow_ladder(solve_at, below, np.arange(2), X0, np.zeros(2), ladder, mid, 3)
    assert np.all(st != Status.CONVERGED)  # the failed rung's status (Newton's, or UNRESOLVED off the branch)
