"""Solvers over a catalogue of problems with independent references (closed forms, mpmath).

Every test checks the residual independently (recomputed here) and the value against a
reference that does not come from the solver itself.
"""

import cmath
import math

import mpmath
import numpy as np
import pytest

from asymptotics.errors import ConvergenceError, ParameterError
from asymptotics.solvers import (
    Anderson,
    FixedPoint,
    Newton,
    SolverResult,
    continuation,
    fixed_point,
    root,
)

SQRT2 = math.sqrt(2.0)
DOTTIE = float(mpmath.findroot(lambda t: mpmath.cos(t) - t, 0.7))  # independent: mpmath, 15+ digits


def mbar_closed_form(z, psi2):
    """Root of z m² + (1 + z − ψ2) m + 1 = 0 with Im m > 0 (Im z > 0) / m > 0 (z < 0)."""
    z = complex(z)
    b = 1 + z - psi2
    disc = cmath.sqrt(b * b - 4 * z)
    roots = [(-b + disc) / (2 * z), (-b - disc) / (2 * z)]
    if z.imag > 0:
        return max(roots, key=lambda m: m.imag)
    return max(roots, key=lambda m: m.real)


def mp_map(m, z, psi2):
    return 1.0 / (-z + psi2 / (1.0 + m))


SCALAR_CATALOGUE = [
    # name, g, x0, args, reference
    ("mp_real", mp_map, 1.0, (-0.5, 0.5), SQRT2),
    ("mp_real_wide", mp_map, 0.1, (-0.05, 3.0), mbar_closed_form(-0.05, 3.0).real),
    ("cos", lambda x: math.cos(x), 0.0, (), DOTTIE),
    ("mp_complex", mp_map, 1j, (1.0 + 1.0j, 0.5), mbar_closed_form(1.0 + 1.0j, 0.5)),
    ("mp_complex_near_axis", mp_map, 1j, (2.0 + 0.05j, 2.0), mbar_closed_form(2.0 + 0.05j, 2.0)),
]


@pytest.mark.parametrize(
    "solver",
    [FixedPoint(), FixedPoint(damping=0.5), Anderson(), Newton()],
    ids=["plain", "damped", "anderson", "newton"],
)
@pytest.mark.parametrize("name,g,x0,args,ref", SCALAR_CATALOGUE, ids=[c[0] for c in SCALAR_CATALOGUE])
def test_scalar_catalogue(solver, name, g, x0, args, ref):
    if name == "mp_complex_near_axis" and isinstance(solver, FixedPoint):
        solver = FixedPoint(damping=solver.damping, max_steps=200_000)  # slow contraction near the axis
    r = fixed_point(g, x0, args=args, solver=solver)
    assert isinstance(r, SolverResult) and r.converged and r.status == 0
    assert isinstance(r.value, complex if isinstance(ref, complex) else float)
    # independent residual check
    resid = abs(g(r.value, *args) - r.value)
    assert resid <= 1e-12 + 1e-12 * abs(r.value) + 1e-15
    assert abs(r.value - ref) <= 1e-9 * max(1.0, abs(ref))


def test_residual_semantics_and_min_steps():
    # starting exactly at the fixed point: converged after min_steps evaluations
    r = fixed_point(mp_map, SQRT2, args=(-0.5, 0.5), solver=FixedPoint(min_steps=7))
    assert r.converged and r.iterations == 7
    # the returned value is the tested iterate: its residual obeys the tolerance
    cfg = FixedPoint(atol=1e-6, rtol=0.0)
    r = fixed_point(mp_map, 1.0, args=(-0.5, 0.5), solver=cfg)
    assert abs(mp_map(r.value, -0.5, 0.5) - r.value) <= 1e-6
    assert 0 < r.residual <= 1e-6
    assert abs(r.value - SQRT2) > 1e-10  # a loose tolerance really stops early


def test_anderson_accelerates_a_slow_linear_contraction():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((20, 20)))
    A = Q @ np.diag(np.linspace(0.0, 0.995, 20)) @ Q.T  # spectral radius 0.995
    b = rng.standard_normal(20)
    ref = np.linalg.solve(np.eye(20) - A, b)
    plain = fixed_point(
        lambda x: A @ x + b, np.zeros(20), solver=FixedPoint(max_steps=100_000, atol=1e-12, rtol=0)
    )
    acc = fixed_point(lambda x: A @ x + b, np.zeros(20), solver=Anderson(memory=10, atol=1e-12, rtol=0))
    for r in (plain, acc):
        assert r.converged
        assert np.max(np.abs(A @ r.value + b - r.value)) <= 1e-12
        np.testing.assert_allclose(r.value, ref, rtol=0, atol=1e-9)
    assert acc.iterations * 20 < plain.iterations


def test_array_shaped_unknown_keeps_shape():
    c = np.array([[0.5, 1.0, 2.0], [3.0, 0.7, 1.5]])
    r = fixed_point(lambda x: np.cos(x) / c, np.zeros((2, 3)), solver=Anderson())
    assert r.value.shape == (2, 3)
    refs = np.array(
        [[float(mpmath.findroot(lambda t, ci=ci: mpmath.cos(t) / ci - t, 0.5)) for ci in row] for row in c]
    )
    np.testing.assert_allclose(r.value, refs, rtol=0, atol=1e-10)


def test_newton_system_with_and_without_jacobian():
    # x² + y² = 4, x y = 1: x² = 2 + √3, y² = 2 − √3 (closed form)
    F = lambda v: np.array([v[0] ** 2 + v[1] ** 2 - 4.0, v[0] * v[1] - 1.0])  # noqa: E731
    J = lambda v: np.array([[2 * v[0], 2 * v[1]], [v[1], v[0]]])  # noqa: E731
    ref = np.array([math.sqrt(2 + math.sqrt(3)), math.sqrt(2 - math.sqrt(3))])
    for jac in (J, None):
        r = root(F, np.array([2.0, 0.3]), jac=jac)
        assert r.converged and r.method == "newton"
        assert np.max(np.abs(F(r.value))) <= 1e-11
        np.testing.assert_allclose(r.value, ref, atol=1e-11)
    # quadratic convergence: few steps from a nearby start
    assert root(F, np.array([2.0, 0.3]), jac=J).iterations <= 8


def test_newton_complex_holomorphic_branch():
    z, psi2 = 0.5 + 0.3j, 2.0
    F = lambda m: z * m * m + (1 + z - psi2) * m + 1  # noqa: E731
    r = root(F, 1j, jac=lambda m: 2 * z * m + (1 + z - psi2))
    assert isinstance(r.value, complex)
    assert abs(r.value - mbar_closed_form(z, psi2)) < 1e-11


# ----------------------------------------------------------------- failures must be reported
@pytest.mark.parametrize(
    "g,x0,status",
    [
        (lambda x: x * x + 1.0, 0.0, {1, 2}),  # no real fixed point: runs away
        (lambda x: 2.0 * x + 1.0, 0.0, {1, 2}),  # repelling fixed point x = −1
        (lambda x: -x + 1.0, 0.0, {1}),  # undamped oscillation 0, 1, 0, 1, ...
        (lambda x: 1.0 / (x - 1.0), 1.0, {2}),  # division by zero → inf
    ],
    ids=["no_fixed_point", "repelling", "oscillation", "nonfinite"],
)
def test_non_convergence_raises_and_reports(g, x0, status):
    with np.errstate(all="ignore"):
        with pytest.raises(ConvergenceError) as info:
            fixed_point(g, x0, solver=FixedPoint(max_steps=500))
        res = info.value.result
        assert isinstance(res, SolverResult) and not res.converged and res.status in status
        r = fixed_point(g, x0, solver=FixedPoint(max_steps=500), on_failure="return")
    assert not r.converged and r.status in status and r.message != "converged"


def test_damping_rescues_the_oscillation():
    r = fixed_point(lambda x: -x + 1.0, 0.0, solver=FixedPoint(damping=0.5))
    assert r.converged and abs(r.value - 0.5) < 1e-12


def test_newton_failures():
    with pytest.raises(ConvergenceError) as info:
        root(lambda x: x * x + 1.0, 0.5)  # no real root
    assert info.value.result.status in (1, 3)
    r = root(lambda x: x * x, 0.0 + 1e-300, jac=lambda x: 0.0 * x, on_failure="return")
    assert r.status in (0, 3)  # either already at the root or a singular Jacobian, never NaN
    r = root(lambda x: x * x + 1.0, 0.0, jac=lambda x: 2 * x, on_failure="return")
    assert r.status == 3 and not r.converged


def test_bad_configuration_is_a_parameter_error():
    with pytest.raises(ParameterError, match="damping"):
        FixedPoint(damping=0.0)
    with pytest.raises(ParameterError, match="atol"):
        Newton(atol=0.0, rtol=0.0)
    with pytest.raises(ParameterError, match="min_steps"):
        FixedPoint(min_steps=5, max_steps=3)
    with pytest.raises(ParameterError, match="memory"):
        Anderson(memory=0)
    with pytest.raises(ParameterError, match="x0"):
        fixed_point(mp_map, float("nan"), args=(-0.5, 0.5))
    with pytest.raises(ParameterError, match="on_failure"):
        fixed_point(mp_map, 1.0, args=(-0.5, 0.5), on_failure="ignore")


def test_continuation_follows_the_branch_with_warm_starts():
    zs = -np.geomspace(5.0, 1e-3, 40)
    psi2 = 3.0  # N > d: W₀W₀ᵀ has no atom at 0, m̄ stays finite as z → 0⁻
    res = continuation(lambda x, z: fixed_point(mp_map, x, args=(z, psi2), solver=Anderson()), 0.1, zs)
    assert all(r.converged for r in res)
    for r, z in zip(res, zs, strict=True):
        assert abs(r.value - mbar_closed_form(z, psi2).real) < 1e-10
    cold = sum(fixed_point(mp_map, 0.1, args=(z, psi2), solver=Anderson()).iterations for z in zs)
    assert sum(r.iterations for r in res) < cold


def test_continuation_from_large_imaginary_part_selects_the_stieltjes_branch():
    # follow z = 1.5 + i t from t = 10 down to t = 1e-3: stays on the Im m > 0 branch
    psi2 = 0.5
    ts = np.geomspace(10.0, 1e-3, 30)
    res = continuation(
        lambda x, t: root(lambda m: (1.5 + 1j * t) * m * m + (2.5 + 1j * t - psi2) * m + 1, x), 1j / 10, ts
    )
    for r, t in zip(res, ts, strict=True):
        ref = mbar_closed_form(1.5 + 1j * t, psi2)
        assert r.value.imag > 0 and abs(r.value - ref) < 1e-10
