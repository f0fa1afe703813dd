"""The Gaussian elimination and Jacobi rotation of ``numerics/templates/dense_linalg.py`` against LAPACK,
their two pivot contracts, and how templates include it (:data:`SMALL_LINALG`) and name placeholders.
(Its SVD, least squares and the Anderson solve: tests/test_numerics_anderson_linalg.py.)
"""

import math

import numpy as np
import pytest

from asymptotics.numerics.templates import dense_linalg as sl
from asymptotics.numerics.templates import newton as nt
from asymptotics.rendering.templates import (
    MARKER,
    SMALL_LINALG,
    SYSTEM_SOLVERS,
    kernel_names,
    placeholders,
    render_template,
)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 1), (5, 3), (12, 4)])
@pytest.mark.parametrize("skip_zero", [False, True])
def test_gauss_solve_against_lapack(n, m, skip_zero):
    rng = np.random.default_rng(n * 10 + m)
    M = rng.standard_normal((n, n)) + n * np.eye(n) * 0.1
    B = rng.standard_normal((n, m))
    M0, B0 = M.copy(), B.copy()
    X = np.empty((n, m))
    assert sl.gauss_solve(M, B, X, 0.0, skip_zero)
    np.testing.assert_allclose(X, np.linalg.solve(M, B), rtol=1e-10, atol=1e-12)
    assert np.array_equal(M, M0) and np.array_equal(B, B0)  # inputs untouched


def test_gauss_solve_complex_against_lapack():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    b = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    y, ok = nt.solve_linear(M, b)
    assert ok
    np.testing.assert_allclose(y, np.linalg.solve(M, b), rtol=1e-12)


def test_pivot_contracts():
    """tol = 0: only an exactly singular matrix fails; the Newton family's relative tolerance also
    rejects a negligible pivot. A failed solve leaves X as it was."""
    S = np.array([[1.0, 2.0], [2.0, 4.0]])
    X = np.full((2, 1), 7.0)
    assert not sl.gauss_solve(S, np.ones((2, 1)), X, 0.0, False)
    assert np.all(X == 7.0)
    near = np.array([[1.0, 0.0], [0.0, 1e-15]])
    assert sl.gauss_solve(near, np.ones((2, 1)), X, 0.0, False)
    assert X[1, 0] == pytest.approx(1e15, rel=1e-14)
    _, ok = nt.solve_linear(near, np.ones(2))
    assert not ok  # 1e-15 ≤ PIVOT_TOL · max|A|
    _, ok = nt.solve_linear(np.zeros((2, 2)), np.ones(2))
    assert not ok


def test_pivot_row_and_swaps():
    A = np.array([[1.0, 0.0], [-3.0, 1.0], [3.0, 2.0]])
    assert sl.pivot_row(A, 0) == (1, 3.0)  # the first of the largest
    sl.swap_rows(A, 0, 2)
    assert A[0].tolist() == [3.0, 2.0] and A[2].tolist() == [1.0, 0.0]
    v = np.array([1, 2, 3])
    sl.swap_entries(v, 0, 2)
    assert v.tolist() == [3, 2, 1]


def test_jacobi_rotation_orthogonalises():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(7), rng.standard_normal(7)
    t, c, s = sl.jacobi_rotation(x @ x, y @ y, x @ y)
    assert math.isclose(c * c + s * s, 1.0, rel_tol=1e-15) and math.isclose(s / c, t, rel_tol=1e-15)
    xr, yr = x.copy(), y.copy()
    sl.rotate_pair(xr, yr, c, s)
    assert abs(xr @ yr) <= 1e-14 * np.linalg.norm(x) * np.linalg.norm(y)
    np.testing.assert_allclose(xr @ xr + yr @ yr, x @ x + y @ y, rtol=1e-14)


def test_include_copies_the_kernels_and_no_relative_import():
    src = render_template(SYSTEM_SOLVERS, origin="test", definitions="N_OUTPUTS = 1", include=(SMALL_LINALG,))
    assert "def gauss_solve(" in src and src.count(MARKER) == 1
    assert not any(line.startswith("from .") for line in src.splitlines())
    assert src.index("def gauss_solve(") < src.index(MARKER)
    numerics = SYSTEM_SOLVERS.parents[2] / "numerics" / "templates"
    assert "gauss_solve" in placeholders(numerics / "newton.py")
    assert "newton" in placeholders(numerics / "continuation.py")
    assert {"gauss_solve", "pivot_row", "swap_rows", "jacobi_rotation", "rotate_pair"} <= kernel_names(
        SMALL_LINALG
    )


def test_rendered_sources_are_unchanged_without_include():
    """A template without include renders as before (its module name, the source hash, is kept)."""
    plain = render_template(SYSTEM_SOLVERS, origin="test", definitions="N_OUTPUTS = 1")
    text = SYSTEM_SOLVERS.read_text()
    assert plain.endswith(text[text.index(MARKER) :]) and "def gauss_solve(" not in plain
