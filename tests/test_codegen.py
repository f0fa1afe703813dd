"""Lowering: generated modules on disk (hash-named, reused by a second process, numba cache
hits), compiled residual/Jacobian equal to sympy's evaluation, precision-aware printing, grid
solving with warm starts and honest failure reports."""

import json
import os
import subprocess
import sys
import textwrap

import mpmath
import numpy as np
import pytest
import sympy as sp

from asymptotics.codegen import lower, render_module
from asymptotics.errors import ConvergenceError, ParameterError
from asymptotics.random_matrix import gram_stieltjes, wtw_stieltjes
from asymptotics.solvers import compile_system
from asymptotics.symbolic import EquationSystem, get_system

z, psi2 = sp.symbols("z psi2")
x, a = sp.symbols("x a")


def test_module_on_disk_named_by_hash_and_regenerated_on_change():
    S = get_system("mp_gram_reduced")
    L = lower(S)
    assert L.path.exists() and L.path.parent.name == "generated"
    src = L.path.read_text()
    assert "@njit(cache=True)" in src and src == render_module(S)
    assert lower(S) is L  # same process: same module
    changed = S.with_(equations=(S.equations[0] + 0 * z + sp.Rational(1, 10**6) * z,))
    L2 = lower(changed)
    assert L2.path != L.path and L2.path.exists()


def test_compiled_residual_and_jacobian_equal_sympy():
    S = get_system("rf_ridge_traces")
    cs = compile_system("rf_ridge_traces")
    rng = np.random.default_rng(3)
    F = sp.lambdify([S.unknowns, S.parameters], S.equations)
    J = sp.lambdify([S.unknowns, S.parameters], S.jacobian())
    for _ in range(5):
        xv = rng.uniform(0.1, 3, size=4)
        pv = rng.uniform(0.1, 2, size=5)
        kw = dict(zip(cs.parameters, pv, strict=True))
        np.testing.assert_allclose(cs.residual(xv, **kw), F(xv, pv), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cs.jacobian(xv, **kw), np.array(J(xv, pv), float), rtol=1e-12, atol=1e-12)


def test_precision_aware_printing():
    S = EquationSystem("log1p_probe", (x,), (x - sp.log(1 + a) - (sp.exp(a) - 1),), outputs={"x": x})
    src = render_module(S)
    assert "log1p" in src and "expm1" in src
    cs = compile_system(S)
    av = 1e-12
    sol = cs.solve(a=av)
    ref = float(mpmath.log1p(mpmath.mpf(av)) + mpmath.expm1(mpmath.mpf(av)))
    assert abs(sol["x"] - ref) <= 1e-15 * abs(ref)  # naive log(1 + a) would lose ~4 digits


def test_grid_with_warm_starts_real_and_complex_branches():
    cs = compile_system("mp_gram")
    zs = -np.geomspace(1e-3, 20, 300)
    g = cs.solve_grid(z=zs, psi2=1.7)
    assert g.converged and g.residual.max() <= 1e-12
    np.testing.assert_allclose(g["mbar"], gram_stieltjes(zs, 1.7), rtol=1e-11)
    np.testing.assert_allclose(g["m"], wtw_stieltjes(zs, 1.7), rtol=1e-11)
    cold = cs.solve_grid(z=zs, psi2=1.7, warm=False)
    np.testing.assert_allclose(cold["mbar"], g["mbar"], rtol=1e-12)
    assert g.iterations.sum() < cold.iterations.sum()
    # complex z, including close to the support: the Stieltjes branch (Im m̄ > 0)
    zc = np.linspace(-1, 6, 200) + 0.05j
    gc = cs.solve_grid(z=zc, psi2=1.7)
    assert gc.converged
    np.testing.assert_allclose(gc["mbar"], gram_stieltjes(zc, 1.7), rtol=1e-9)
    assert np.all(gc["mbar"].imag > 0)


def test_failure_is_reported_never_silent():
    S = EquationSystem("no_real_root", (x,), (x**2 + a,), outputs={"x": x}, start={x: sp.Integer(1)})
    cs = compile_system(S)
    with pytest.raises(ConvergenceError) as info:
        cs.solve_grid(a=np.array([-4.0, 1.0, -9.0]))
    res = info.value.result
    assert list(res.status == 0) == [True, False, True]
    r = cs.solve_grid(a=np.array([-4.0, 1.0, -9.0]), on_failure="return")
    assert np.isnan(r["x"][1]) and r["x"][0] == pytest.approx(2.0, abs=1e-12)
    with pytest.raises(ConvergenceError):
        cs.solve(a=1.0)


def test_parameter_errors():
    cs = compile_system("mp_gram")
    with pytest.raises(ParameterError, match="missing psi2"):
        cs.solve(z=-1.0)
    with pytest.raises(ParameterError, match="unknown lam"):
        cs.solve(z=-1.0, psi2=1.0, lam=2.0)
    with pytest.raises(ParameterError, match="psi2"):
        cs.solve(z=-1.0, psi2=float("nan"))
    with pytest.raises(ParameterError, match="grid"):
        cs.solve_grid(z=np.ones(3), psi2=np.ones(4))


def test_second_process_reuses_the_module_and_numba_cache(tmp_path):
    """A fresh process finds the module through the on-disk index (no re-derivation, file not
    rewritten) and numba loads every kernel from its cache (hits, no misses)."""
    script = textwrap.dedent(
        """
        import json, sys
        from asymptotics.solvers import compile_system
        cs = compile_system("mp_gram_dz")
        sol = cs.solve(z=-0.5, psi2=0.5)
        m = cs.module
        stats = {k: (sum(getattr(m, k).stats.cache_hits.values()), sum(getattr(m, k).stats.cache_misses.values()))
                 for k in ("residual", "jacobian", "newton", "solve_grid", "outputs", "start")}
        print(json.dumps({"path": str(cs.path), "mtime": cs.path.stat().st_mtime_ns,
                          "from_index": cs.lowered.from_index, "mbar": sol["mbar"], "stats": stats}))
        """
    )
    env = dict(os.environ, ASYMPTOTICS_CACHE_DIR=str(tmp_path))
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(2)
    ]
    first, second = runs
    assert first["path"] == second["path"] and first["mtime"] == second["mtime"]
    assert not first["from_index"] and second["from_index"]
    assert abs(second["mbar"] - 2**0.5) < 1e-12
    # the kernels called from Python (solve_grid, start; the others are compiled into them) are
    # compiled in the first process and loaded from numba's cache in the second: no compilation
    assert first["stats"]["solve_grid"][1] >= 1 and first["stats"]["solve_grid"][0] == 0
    assert second["stats"]["solve_grid"][0] >= 1 and second["stats"]["start"][0] >= 1
    assert all(miss == 0 for hit, miss in second["stats"].values())
