"""The compiled large-step fixed point against an independent numpy implementation, and the grid API.

Reference: the numpy functions of :mod:`asymptotics.theory.large_step.typed_prior` and
:mod:`asymptotics.theory.large_step.spike_mean_block` (T = B(I + βMB)⁻¹ formed explicitly by a
Cholesky solve, the mean span by LAPACK's SVD, the variance system by LAPACK's LU, the spectral
radius by LAPACK's nonsymmetric eigenvalues) driven by the package's Python Anderson solver — the
implementation the compiled kernel replaced. The kernel instead works with U⁻ᵀ√Bμ1ᵀ and P = YᵀY, a
pivoted-QR/Jacobi SVD, Cholesky solves through the push-through identity and bisection on the
tridiagonal form. Both solve the fixed point to the same residual tolerance, so they agree to the
conditioning of the problem (tolerances below: 1e-10 relative on the risks, exact on the
iteration counts and the rank of the mean span, 1e-9 on the functions of κ).
"""

from __future__ import annotations

import ast
import collections
import math
from pathlib import Path

import numpy as np
import pytest

from asymptotics.solvers import Anderson, Status, fixed_point
from asymptotics.theory.large_step.gaussian_readout import (
    gaussian_readout_model,
    gaussian_readout_risk,
    gaussian_readout_risk_grid,
    solve_gaussian_readout,
    solve_gaussian_readout_path,
)
from asymptotics.theory.large_step.spike_mean_block import spike_mean_block
from asymptotics.theory.large_step.typed_prior import (
    orthogonal_overlap_function,
    typed_prior_state,
    variance_operator,
    variance_response,
)


def reference_solve(model, lam, width=math.inf, tol=1e-12):
    """The fixed point in numpy (the equations of ``docs/large-step-exact.md``, reference path)."""
    ch, f = model.channel, model.features
    ratio = model.psi1 / model.psi2
    w, n = ch.weights, ch.weights.size
    lam_c = lam * model.psi1 / model.psi2

    def state_at(V, tau):
        b = w * ratio / (1.0 + V)
        return typed_prior_state(tau, b, lam_c + f.mu2_sq @ b, f)

    def g(x):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            st = state_at(np.exp(x[:n]), np.exp(x[n:]))
            return np.log(np.maximum(np.concatenate([st.V, st.tau_map]), 1e-300))

    b0 = w * model.psi1 / model.psi2
    tau0 = f.bulk * ((f.mu1 * b0) @ f.mu1.T).diagonal()
    st0 = typed_prior_state(tau0, b0, lam_c + f.mu2_sq @ b0, f)
    x0 = np.log(np.maximum(np.concatenate([st0.V, st0.tau_map]), 1e-300))
    res = fixed_point(g, x0, solver=Anderson(memory=5, atol=tol, rtol=tol, max_steps=3000), on_failure="return")
    assert res.converged
    V, tau = np.exp(res.value[:n]), np.exp(res.value[n:])
    st = state_at(V, tau)
    b = st.b
    blk = spike_mean_block(st, ch.mu0, ch.kappa, ch.h, width)
    y = b * ch.h1t
    psi = orthogonal_overlap_function(st, y)
    E0 = blk.x**2 + ch.h2t - ch.h**2 - 2.0 * psi * ch.h1t + ch.noise_var
    gsrc = f.beta * f.bulk * blk.t_hat**2 + (0.0 if math.isinf(width) else width * blk.g0**2)
    LW = variance_operator(st) * (b / (1.0 + V))[None, :]
    rad = float(np.max(np.abs(np.linalg.eigvals(LW))))
    q = np.linalg.solve(np.eye(n) - LW, LW @ E0 + variance_response(st, np.zeros(n), y, gsrc))
    E = E0 + q
    return dict(risk1=float(w @ (E - ch.noise_var)), train_error=float(w @ (E / (1.0 + V) ** 2)),
                spike_error=float(w @ blk.x**2), V=V, q=q, psi=psi, omega_bar=blk.omega_bar, self_energy=tau,
                mean_rank=blk.rank, stability_margin=1.0 - rad, iterations=res.iterations, residual=res.residual)


CASES = [  # (student, teacher, ψ1, ψ2, λ, σ_ε, c, readout kwargs, κ nodes, width)
    ("erf", "erf", 8.0, 2.0, 1e-3, 0.1, 1.0, dict(types=32), 61, math.inf),
    ("erf", "erf", 4.0, 2.0, 1e-3, 0.1, 1.0, dict(types=48), 122, 4000.0),
    ("tanh", "tanh", 2.0, 1.0, 1e-2, 0.1, 1.0, dict(types=48), 122, math.inf),
    ("tanh", "tanh", 2.0, 1.0, 1e-2, 0.1, 1.0, dict(types=72), 61, 2000.0),          # K > n
    ("tanh", "tanh", 8.0, 1.0, 1e-2, 0.1, 1.0, dict(readout="quantile", types=4), 41, 3000.0),
    ("erf", "erf", 8.0, 2.0, 1e-3, 0.1, 1.0, dict(readout="given", readout_values=(0.5, 1.5)), 61, math.inf),
    ("relu", "tanh", 3.0, 1.5, 1e-2, 0.2, 0.5, dict(types=16), 41, math.inf),       # not odd: a larger mean span
    ("tanh", "tanh", 3.0, 1.5, 1e-2, 0.2, 0.0, dict(types=8), 31, math.inf),       # c = 0: random features
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-psi1={c[2]}-N={c[9]}" for c in CASES])
def test_compiled_fixed_point_equals_the_numpy_reference(case):
    s, t, p1, p2, lam, noise, c, ro, n, width = case
    model = gaussian_readout_model(s, t, p1, p2, c=c, noise=noise, kappa_nodes=n, **ro)
    mine = solve_gaussian_readout(model, lam, width)
    ref = reference_solve(model, lam, width)
    assert mine.converged and mine.status == Status.CONVERGED
    for key in ("risk1", "train_error", "stability_margin"):
        assert getattr(mine, key) == pytest.approx(ref[key], rel=1e-10, abs=1e-15), key
    assert mine.spike_error == pytest.approx(ref["spike_error"], rel=1e-8, abs=1e-14)
    assert mine.iterations == ref["iterations"] and mine.mean_rank == ref["mean_rank"]
    assert mine.residual <= 1e-10 and abs(mine.residual - ref["residual"]) <= 1e-14 + 0.01 * ref["residual"]
    for key in ("V", "self_energy", "q"):
        np.testing.assert_allclose(getattr(mine, key), ref[key], rtol=1e-9, atol=1e-14, err_msg=key)
    # ω̄ = h − x: at N = ∞ ω0 comes from a least-squares fit on the mean span with singular values
    # down to 1e-13 of the largest, so ω̄ itself is determined only to ~eps/1e-13 ≈ 1e-3 of the
    # rounding of its input, ~1e-9 here (and pointwise at nodes of small weight only to that over
    # √weight); x, the part that enters the risk, is checked through spike_error above
    sw = np.sqrt(mine.kappa_weights)
    scale = float(np.sqrt(mine.kappa_weights @ mine.h**2))
    assert np.max(np.abs(sw * (mine.omega_bar - ref["omega_bar"]))) <= 1e-8 * scale
    np.testing.assert_allclose(mine.psi, ref["psi"], rtol=1e-9, atol=1e-14)


def test_path_over_ridges_with_and_without_continuation():
    """Each ridge of a path equals the single-point solve; continuation changes only the start."""
    model = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, types=32)
    lams = [1e-4, 1e-3, 1e-2, 1e-1]
    cold = solve_gaussian_readout_path(model, lams, [math.inf, 2000.0], continuation=False)
    warm = solve_gaussian_readout_path(model, lams, [math.inf, 2000.0], continuation=True)
    for lam, row_c, row_w in zip(lams, cold, warm, strict=True):
        single = [solve_gaussian_readout(model, lam, wd) for wd in (math.inf, 2000.0)]
        for a, b, s in zip(row_c, row_w, single, strict=True):
            assert a.risk1 == s.risk1 and a.residual == s.residual              # the same computation
            assert b.risk1 == pytest.approx(s.risk1, rel=1e-10)                  # a different start
        assert row_c[0].iterations == single[0].iterations
        assert row_c[1].iterations == 1                # the second width reuses the converged responses
    assert sum(r[0].iterations for r in warm[1:]) < sum(r[0].iterations for r in cold[1:])


def test_grid_equals_the_single_point_calls():
    psi1, lam = [4.0, 16.0], [1e-3, 3e-2]
    kw = dict(noise=0.1, width=[math.inf, 2000.0])
    g = gaussian_readout_risk_grid("erf", "erf", psi1, lam, psi2=2.0, continuation=False, **kw)
    assert g.shape == (2, 2, 2) and g.converged.all() and (g.status == 0).all()
    done = []
    gw = gaussian_readout_risk_grid("erf", "erf", psi1, lam, psi2=2.0, progress=lambda d, t: done.append((d, t)), **kw)
    assert done == [(2, 4), (4, 4)]
    for i, p1 in enumerate(psi1):
        for j, lm in enumerate(lam):
            single = gaussian_readout_risk("erf", "erf", p1, 2.0, lm, **kw)
            for k, s in enumerate(single):
                r = g.result(i, j, k)
                assert r.as_dict() == s.as_dict()                                 # every reported field
                assert gw.risk1[i, j, k] == pytest.approx(s.risk1, rel=1e-10)
    rows = g.rows()
    assert len(rows) == 8 and rows[1]["width"] == 2000.0 and rows[2]["lam"] == 3e-2


def test_grid_on_threads_equals_one_thread():
    psi1, lam = [2.0, 4.0, 8.0], [1e-3, 3e-2]
    one = gaussian_readout_risk_grid("erf", "erf", psi1, lam, psi2=2.0, noise=0.1, continuation=False)
    done = []
    two = gaussian_readout_risk_grid("erf", "erf", psi1, lam, psi2=2.0, noise=0.1, continuation=False, workers=2,
                                     progress=lambda d, t: done.append((d, t)))
    assert done == [(2, 6), (4, 6), (6, 6)]
    assert two.rows() == one.rows()                                          # every field, bit for bit


def test_grid_reports_failed_points_and_bad_input():
    from asymptotics.errors import ParameterError

    g = gaussian_readout_risk_grid("tanh", "tanh", [1.0, 3.0], [0.0], psi2=1.0, noise=0.1, types=8, check=False,
                                   max_steps=300)
    assert not g.converged[0, 0, 0] and g.converged[1, 0, 0] and math.isnan(g.risk1[0, 0, 0])
    assert g.result(0, 0).status != Status.CONVERGED and g.rows()[0]["risk1"] is None
    for kw, name in ((dict(psi1=[]), "psi1"), (dict(lam=[-1.0]), "lam"), (dict(psi1=[0.0]), "psi1")):
        args = dict(psi1=[2.0], lam=[1e-2])
        args.update(kw)
        with pytest.raises(ParameterError) as e:
            gaussian_readout_risk_grid("erf", "erf", args["psi1"], args["lam"], psi2=1.0, check=False)
        assert e.value.name == name


def test_docstring_examples():
    import doctest

    from asymptotics.theory.large_step.gaussian_readout import grid

    failed, _ = doctest.testmod(grid, optionflags=doctest.ELLIPSIS)
    assert failed == 0


def test_warm_starts_across_refinement_levels():
    """Starting each level of the refinement from the level before gives the same risks (within the
    fixed point's tolerance) in fewer iterations; a start on new types or new κ nodes is a close
    approximation of the solution there."""
    from asymptotics.theory.large_step.gaussian_readout.compiled import transfer_start

    kw = dict(noise=0.1, width=[math.inf, 2000.0])
    cold = gaussian_readout_risk_grid("erf", "erf", [8.0], [1e-3, 1e-2], psi2=2.0, continuation=False, **kw)
    warm = gaussian_readout_risk_grid("erf", "erf", [8.0], [1e-3, 1e-2], psi2=2.0, continuation=False,
                                      warm_levels=True, **kw)
    np.testing.assert_allclose(warm.risk1, cold.risk1, rtol=1e-10)
    assert [r.types for r in warm.results[0][0]] == [r.types for r in cold.results[0][0]]
    assert warm.result(0, 0).iterations < cold.result(0, 0).iterations
    m32 = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, types=32, kappa_nodes=61)
    m48 = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, types=48, kappa_nodes=61)
    m122 = gaussian_readout_model("erf", "erf", 8.0, 2.0, noise=0.1, types=48, kappa_nodes=122)
    r32, r48, r122 = (solve_gaussian_readout(m, 1e-3) for m in (m32, m48, m122))
    x = transfer_start(r32.start, m32, m48, r32.lam_cui)
    np.testing.assert_allclose(np.exp(x[61:]), r48.self_energy, rtol=1e-3)      # one self-energy step
    x = transfer_start(r48.start, m48, m122, r48.lam_cui)
    inner = np.abs(m122.kappa) < 4
    np.testing.assert_allclose(np.exp(x[:122])[inner], r122.V[inner], rtol=1e-2)  # interpolated V(κ)
    with pytest.raises(ValueError):
        transfer_start(r32.start, m32, m122, r32.lam_cui)


@pytest.mark.parametrize("s,t,p1,p2,lam", [("erf", "erf", 8.0, 2.0, 1e-3), ("tanh", "tanh", 2.0, 1.0, 1e-2)])
def test_single_point_warm_levels_equal_the_cold_refinement(s, t, p1, p2, lam):
    """``warm_levels`` changes only the starts of the refinement's levels: the same levels, the risks
    of the cold refinement (checked against the numpy reference above) within 1e-10 relative — the
    fixed point's residual tolerance 1e-12 times its conditioning — in fewer iterations."""
    kw = dict(noise=0.1, width=[math.inf, 2000.0])
    cold = gaussian_readout_risk(s, t, p1, p2, lam, **kw)
    warm = gaussian_readout_risk(s, t, p1, p2, lam, warm_levels=True, **kw)
    for a, b in zip(cold, warm, strict=True):
        assert a.converged and b.converged
        assert (a.types, a.kappa_nodes) == (b.types, b.kappa_nodes)
        assert [k for k, _ in a.type_sequence] == [k for k, _ in b.type_sequence]
        assert b.risk1 == pytest.approx(a.risk1, rel=1e-10)
        assert b.type_error == pytest.approx(a.type_error, rel=1e-3, abs=1e-11)
    assert warm[0].iterations < cold[0].iterations


@pytest.mark.parametrize("n,K", [(1, 1), (2, 3), (7, 5), (61, 32), (40, 72)])
def test_dense_kernels_against_lapack(n, K):
    """The kernel's own dense algebra (no BLAS) against numpy/LAPACK, to rounding."""
    from asymptotics.theory.large_step.gaussian_readout.compiled import kernels

    d = sp = kernels()
    rng = np.random.default_rng(np.random.SeedSequence([n, K]))
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + np.eye(n)
    scale = np.linalg.norm(H)
    U, ok = d.cholesky_upper(H)
    assert ok and np.max(np.abs(U.T @ U - H)) <= 1e-14 * scale and np.all(np.tril(U, -1) == 0)
    assert not d.cholesky_upper(-H)[1]
    R = rng.standard_normal((n, K))
    np.testing.assert_allclose(U.T @ d.forward_rows(U, R), R, atol=1e-12)
    np.testing.assert_allclose(d.spd_solve(U, R[:, 0]), np.linalg.solve(H, R[:, 0]), rtol=1e-10, atol=1e-12)
    LU, piv, ok = d.lu_factor(A)
    b = rng.standard_normal(n)
    assert ok and np.allclose(A @ d.lu_solve_vec(LU, piv, b), b, atol=1e-10)
    assert np.allclose(A @ d.lu_solve_rows(LU, piv, R), R, atol=1e-10)
    assert not d.lu_factor(np.zeros((n, n)))[2]
    M = rng.standard_normal((K, n))
    w = rng.random(K)
    np.testing.assert_allclose(d.weighted_gram(M, w), (M.T * w) @ M, atol=1e-12)
    np.testing.assert_allclose(d.gram_rows(R), R.T @ R, atol=1e-12)
    np.testing.assert_allclose(d.matmul(R, M), R @ M, atol=1e-12)
    np.testing.assert_allclose(d.matmul_tn(R, A[:, :3].copy()), R.T @ A[:, :3], atol=1e-12)
    np.testing.assert_allclose(d.matvec(A, b), A @ b, atol=1e-12)
    np.testing.assert_allclose(d.rmatvec(A, b), A.T @ b, atol=1e-12)
    S = (A + A.T) / 2
    ev = np.linalg.eigvalsh(S)
    lo, hi = sp.symmetric_extreme_eigenvalues(S)
    assert abs(lo - ev[0]) <= 1e-13 * max(1, abs(ev).max()) and abs(hi - ev[-1]) <= 1e-13 * max(1, abs(ev).max())
    assert sp.spectral_radius_symmetric(S) == pytest.approx(np.max(np.abs(ev)), rel=1e-13)
    # graded singular values (1 … 1e-20), as in the mean span: the triplets above 1e-15‖Z‖
    Z = rng.standard_normal((n, K)) @ np.diag(np.geomspace(1.0, 1e-20, K))
    Ut, sv, Vt = sp.truncated_svd(Z, 1e-15)
    ref = np.linalg.svd(Z, compute_uv=False)
    big = ref[: sv.size] > 1e-12 * ref[0]
    np.testing.assert_allclose(sv[: sv.size][big], ref[: sv.size][big], rtol=1e-6)
    np.testing.assert_allclose(Ut @ Ut.T, np.eye(sv.size), atol=1e-12)
    assert np.max(np.abs((Ut.T * sv) @ Vt - Z)) <= 1e-14 * ref[0]


def test_one_rendered_module_defines_every_placeholder():
    """The fixed point is one rendered module: the kernel template with its included templates; every
    placeholder of each (a name above its marker) is defined there, by one of the included files."""
    from asymptotics.rendering.templates import placeholders
    from asymptotics.theory.large_step.gaussian_readout.compiled import INCLUDED, KERNEL_TEMPLATE, kernels

    mod = kernels()
    for template in (KERNEL_TEMPLATE, *INCLUDED):
        missing = {name for name in placeholders(template) if not hasattr(mod, name)}
        assert not missing, (template.name, missing)
    source = Path(mod.__file__).read_text()
    assert "sys.modules[" not in source                                  # nothing bound to another module
    defined = collections.Counter()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            defined[node.name] += 1
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
    assert [name for name, count in defined.items() if count > 1] == []   # no included kernel shadows another
