"""The numerics layer's compiled Anderson solve and small dense linear algebra against independent
references (``asymptotics/numerics/templates/{anderson,dense_linalg}.py``).

References: numpy's LAPACK (``lstsq``/gelsd, ``svd``, ``solve``, ``eigvals``) on random, nearly
dependent and exactly rank-deficient matrices; fixed points with a closed form or an mpmath root:
the Dottie number x = cos x, the Marchenko–Pastur m̄ = 1/(a + b/(1 + m̄)) (the positive root of
a m̄² + (a + b − 1) m̄ − 1 = 0) and a linear map x = Mx + b (x = (I − M)⁻¹b, also where the plain
iteration diverges).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from asymptotics.numerics.status import Status
from asymptotics.numerics.templates import FOLDER
from asymptotics.numerics.templates import anderson as plain_anderson
from asymptotics.numerics.templates import dense_linalg as dl
from asymptotics.rendering.templates import MARKER, SMALL_LINALG, load_template, render_template

ANDERSON = FOLDER / "anderson.py"
EPS = np.finfo(float).eps

# A theory-like template: three problems behind the one placeholder map (``which`` selects).
PROBLEM_TEMPLATE = f'''
import math

import numpy as np
from numba import njit

{MARKER}


@njit(cache=True)
def fixed_point_map(x, g, problem):
    which, M, b, a, c = problem
    for i in range(x.shape[0]):
        if which == 0:       # linear: g = M x + b
            acc = b[i]
            for j in range(x.shape[0]):
                acc += M[i, j] * x[j]
            g[i] = acc
        elif which == 1:     # Marchenko–Pastur m̄ = 1/(a + c/(1 + m̄))
            g[i] = 1.0 / (a[i] + c[i] / (1.0 + x[i]))
        else:                # not finite once x < 10
            g[i] = math.log(x[i] - 10.0)
'''


@pytest.fixture(scope="module")
def solver(tmp_path_factory):
    path = tmp_path_factory.mktemp("anderson") / "problem_template.py"
    path.write_text(PROBLEM_TEMPLATE)
    return load_template(path, {}, "a test", prefix="test_anderson", include=(SMALL_LINALG, ANDERSON))


def _options(atol=1e-13, rtol=1e-13, min_steps=1, max_steps=500, memory=5, damping=1.0, restart=1e3):
    return (float(atol), float(rtol), int(min_steps), int(max_steps), int(memory), float(damping), float(restart))


def _problem(which, n, M=None, b=None, a=None, c=None):
    z = np.zeros(n)
    return (which, np.zeros((n, n)) if M is None else M, z if b is None else b, z if a is None else a,
            z if c is None else c)


# ---- dense linear algebra -------------------------------------------------------------------------

def _matrices(rng):
    """(name, F): random, nearly dependent, exactly rank-deficient, a zero column, wide."""
    out = []
    for n, k in ((2, 1), (3, 3), (6, 4), (9, 5)):
        out.append((f"random {n}x{k}", rng.standard_normal((n, k))))
        if k > 1:
            F = rng.standard_normal((n, k))
            F[:, -1] = F[:, 0] + 1e-8 * F[:, -1]
            out.append((f"nearly dependent {n}x{k}", F))
            G = rng.standard_normal((n, k - 1)) @ rng.standard_normal((k - 1, k))   # rank k − 1
            out.append((f"rank {k - 1} {n}x{k}", G))
            Z = rng.standard_normal((n, k))
            Z[:, 1] = 0.0
            out.append((f"zero column {n}x{k}", Z))
    out.append(("wide 3x5", rng.standard_normal((3, 5))))
    out.append(("zero 3x2", np.zeros((3, 2))))
    return out


def test_lstsq_min_norm_against_lapack_gelsd():
    rng = np.random.default_rng(np.random.SeedSequence(41))
    for name, F in _matrices(rng):
        n, k = F.shape
        r = rng.standard_normal(n)
        F0, r0 = F.copy(), r.copy()
        gamma = np.full(k, np.nan)
        rcond = EPS * max(n, k)
        rank, smin, smax = dl.lstsq_min_norm(F, r, rcond, gamma)
        ref, _, ref_rank, sv = np.linalg.lstsq(F, r, rcond=rcond)
        assert np.array_equal(F, F0) and np.array_equal(r, r0), name
        assert rank == ref_rank, name
        assert smax == pytest.approx(sv[0], rel=1e-13, abs=0.0), name
        if k <= n:
            assert smin == pytest.approx(sv[-1], rel=1e-8, abs=1e-14 * sv[0]), name
        # the minimum-norm solutions agree to the conditioning of the kept part (≈ 1e8 when nearly dependent)
        kept = sv[sv > rcond * sv[0]] if sv[0] > 0 else sv[:0]
        cond = kept[0] / kept[-1] if kept.size else 1.0
        np.testing.assert_allclose(gamma, ref, rtol=0, atol=1e-14 * cond * max(1.0, np.abs(ref).max()), err_msg=name)


def test_jacobi_svd_against_lapack():
    rng = np.random.default_rng(np.random.SeedSequence(7))
    for name, A in _matrices(rng):
        n, k = A.shape
        if k > n:
            continue
        W = A.copy()
        V = np.empty((k, k))
        s = dl.jacobi_svd(W, V)
        ref = np.linalg.svd(A, compute_uv=False)
        np.testing.assert_allclose(np.sort(s)[::-1], ref, rtol=1e-12, atol=1e-14 * max(ref[0], 1.0), err_msg=name)
        np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-14, err_msg=name)        # V orthogonal
        np.testing.assert_allclose(A @ V, W, atol=1e-14 * max(ref[0], 1.0), err_msg=name)  # A V = U Σ
        G = W.T @ W                                                                    # columns orthogonal
        assert np.all(np.abs(G - np.diag(np.diag(G))) <= 1e-13 * max(ref[0], 1.0) ** 2), name


def test_singular_values_to_high_relative_accuracy():
    """A graded matrix D1 B D2 (B well conditioned): one-sided Jacobi gets its tiny singular values
    to a relative accuracy set by B, not by σ_max (Demmel & Veselić); reference: mpmath at 50 digits."""
    rng = np.random.default_rng(3)
    B = rng.standard_normal((5, 4)) + 3 * np.eye(5, 4)
    A = B * np.logspace(0, -12, 4)[None, :]
    W = A.copy()
    s = np.sort(dl.jacobi_svd(W, np.empty((4, 4))))[::-1]
    with mpmath.workdps(50):
        ref = sorted((float(v) for v in mpmath.svd_r(mpmath.matrix(A.tolist()), compute_uv=False)), reverse=True)
    np.testing.assert_allclose(s, ref, rtol=1e-13)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 1), (5, 3), (12, 4)])
def test_gaussian_elimination_against_lapack(n, m):
    rng = np.random.default_rng(n * 10 + m)
    M = rng.standard_normal((n, n)) + 0.1 * n * np.eye(n)
    B = rng.standard_normal((n, m))
    X = np.empty((n, m))
    assert dl.lu_solve_many(M, B, X)
    np.testing.assert_allclose(X, np.linalg.solve(M, B), rtol=1e-10, atol=1e-12)
    x = np.empty(n)
    assert dl.lu_solve(M, B[:, 0].copy(), x)
    np.testing.assert_allclose(x, np.linalg.solve(M, B[:, 0]), rtol=1e-10, atol=1e-12)


def test_exact_singularity_contract():
    """tol = 0: only an exactly singular matrix fails (X ← NaN for ``lu_solve_many``)."""
    S = np.array([[1.0, 2.0], [2.0, 4.0]])
    X = np.zeros((2, 2))
    assert not dl.lu_solve_many(S, np.eye(2), X) and np.all(np.isnan(X))
    assert not dl.lu_solve(np.zeros((2, 2)), np.ones(2), np.empty(2))
    x = np.empty(2)
    assert dl.lu_solve(np.array([[1.0, 0.0], [0.0, 1e-15]]), np.ones(2), x)
    assert x[1] == pytest.approx(1e15, rel=1e-14)


def test_spectral_radius_2x2_against_eigvals():
    rng = np.random.default_rng(11)
    mats = [np.array([[0.3, 0.2], [0.1, 0.4]]), np.array([[0.1, -0.5], [0.5, 0.1]]), np.eye(2), np.zeros((2, 2))]
    mats += [rng.standard_normal((2, 2)) for _ in range(50)]
    for A in mats:
        ref = np.max(np.abs(np.linalg.eigvals(A)))
        assert dl.spectral_radius_2x2(*A.ravel()) == pytest.approx(ref, rel=1e-13, abs=1e-15)


# ---- Anderson acceleration ------------------------------------------------------------------------

def test_dottie_number_to_its_residual():
    """x = cos x (the template's own reference map, run as plain Python): the accepted iterate is
    within its residual test of the root (r(x) = cos x − x, r' = −(1 + sin ξ), so
    |x − x*| = |r|/(1 + sin ξ), ξ ≈ x* ≈ 0.739, 1 + sin x* ≈ 1.67)."""
    with mpmath.workdps(30):
        root = float(mpmath.findroot(lambda t: mpmath.cos(t) - t, 0.7))
    for atol in (1e-6, 1e-10, 1e-14):
        x = np.array([1.0, 0.0, -2.0, 3.0])
        status, its, res = plain_anderson.anderson_solve(x, (1.0,), _options(atol=atol, rtol=0.0))
        assert status == Status.CONVERGED and res <= atol
        r = np.cos(x) - x
        assert np.all(np.abs(r) <= atol)
        assert np.all(np.abs(x - root) <= (np.abs(r) + 2 * EPS) / (1.0 + math.sin(root)) * 1.01)


def test_marchenko_pastur_fixed_point_closed_form(solver):
    """m̄ = 1/(a + c/(1 + m̄)) for several (a, c) at once (z = −a, ψ2 = c): the positive root of
    a m̄² + (a + c − 1) m̄ − 1 = 0 (√2 at a = c = 1/2)."""
    a = np.array([0.5, 0.1, 2.0, 0.05, 0.7])
    c = np.array([0.5, 0.3, 0.5, 0.9, 3.0])
    root = (-(a + c - 1) + np.sqrt((a + c - 1) ** 2 + 4 * a)) / (2 * a)
    assert root[0] == pytest.approx(math.sqrt(2), rel=1e-15)
    x = np.ones(5)
    status, its, res = solver.anderson_solve(x, _problem(1, 5, a=a, c=c), _options(atol=0.0, rtol=1e-14))
    assert status == Status.CONVERGED
    np.testing.assert_allclose(x, root, rtol=1e-12)
    g = 1.0 / (a + c / (1.0 + x))
    assert np.all(np.abs(g - x) <= 1e-14 * np.abs(x)) and res == pytest.approx(np.max(np.abs(g - x) / np.maximum(1, x)))


@pytest.mark.parametrize("memory", [6, 9])
def test_linear_map_even_where_the_iteration_diverges(solver, memory):
    """x = Mx + b with eigenvalues of M in [−1.6, 1.5] (the plain iteration diverges): x* = (I − M)⁻¹b.
    With memory ≥ n Anderson is GMRES on (I − M)x = b (finite termination, Walker & Ni §4);
    memory > n exercises the cut of an ill-conditioned history (more differences than unknowns)."""
    rng = np.random.default_rng(5)
    n = 6
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    M = Q @ np.diag([-1.6, -0.5, 0.2, 0.6, 0.9, 1.5]) @ Q.T
    b = rng.standard_normal(n)
    ref = np.linalg.solve(np.eye(n) - M, b)
    x = np.zeros(n)
    status, its, res = solver.anderson_solve(x, _problem(0, n, M=M, b=b), _options(max_steps=2000, memory=memory))
    assert status == Status.CONVERGED
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-11 * np.abs(ref).max())
    if memory == n:
        assert its <= 3 * n


def test_outcomes_nonfinite_max_steps_min_steps_and_scale(solver):
    n = 3
    x = np.full(n, 20.0)
    status, its, res = solver.anderson_solve(x, _problem(2, n), _options())
    assert status == Status.NONFINITE and res == math.inf
    a, c = np.full(n, 0.5), np.full(n, 0.5)
    x = np.ones(n)
    status, its, res = solver.anderson_solve(x, _problem(1, n, a=a, c=c), _options(max_steps=2))
    assert status == Status.MAX_STEPS and its == 2 and 0 < res < 1
    x = np.full(n, math.sqrt(2))               # the root: accepted at once, unless min_steps asks for more
    assert solver.anderson_solve(x, _problem(1, n, a=a, c=c), _options())[1] == 1
    x = np.full(n, math.sqrt(2))
    assert solver.anderson_solve(x, _problem(1, n, a=a, c=c), _options(min_steps=4))[1] == 4
    # term sizes s_i instead of |x_i|: a large scale accepts a coarser iterate
    x = np.ones(n)
    status, its, res = solver.anderson_solve_scaled(x, np.full(n, 1e6), _problem(1, n, a=a, c=c),
                                                    _options(atol=0.0, rtol=1e-10))
    g = 1.0 / (a + c / (1.0 + x))
    assert status == Status.CONVERGED and np.all(np.abs(g - x) <= 1e-4)
    x2 = np.ones(n)
    its2 = solver.anderson_solve(x2, _problem(1, n, a=a, c=c), _options(atol=0.0, rtol=1e-10))[1]
    assert its < its2


def test_rendered_module_has_one_copy_of_each_algorithm(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(PROBLEM_TEMPLATE)
    src = render_template(path, origin="test", include=(SMALL_LINALG, ANDERSON))
    for name in ("def anderson_solve(", "def lstsq_min_norm(", "def jacobi_svd(", "def gauss_solve(",
                 "def fixed_point_map("):
        assert src.count(name) == 1, name
    assert not any(line.startswith("from .") for line in src.splitlines())
