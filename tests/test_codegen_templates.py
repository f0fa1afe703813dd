"""The template files of :mod:`asymptotics.rendering.templates`, imported directly with their hand-written
placeholders (reference systems with closed forms), and the same kernels rendered from sympy.

The stopping rule (of the numerics Newton that a lowered system's module includes) is checked where a
test scaled by the unknowns fails deterministically: the placeholder system of ``system_solvers.py``
is F = (a² − 2q², ab − 2kq), a = q√2, b = k√2, and for
q a power of two a² − 2q² never vanishes in float64 (√2 is irrational; a = q·x scales the
rounding of x² exactly) while its smallest value near the root, ≈ 2.7e-16·q², exceeds
rtol·|a| ≈ 1.4e-13·q once q ≳ 10³. (The numerics Newton and continuation kernels imported directly:
tests/test_numerics_newton_continuation.py.)
"""

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from asymptotics.rendering.templates import (
    ACTIVATION,
    MARKER,
    NEWTON_MAP_GRID,
    SYSTEM_SOLVERS,
    render_template,
)
from asymptotics.rendering.templates import activation as act_template
from asymptotics.rendering.templates import newton_map_grid as nm
from asymptotics.solvers import FixedPoint, compile_system, fixed_point
from asymptotics.symbolic import EquationSystem

SQRT2 = math.sqrt(2.0)
ROOT = Path(__file__).resolve().parent.parent


def test_newton_map_template_iterated_by_the_fixed_point_solver():
    """F = (g0² − p0 − s, g0 g1 − p1): g0 = √p0, g1 = p1/√p0 over a wide range of scales, and the
    tangent dg0/ds = 1/(2√p0) of the template's 2×2 solve."""
    p0 = np.geomspace(1e-6, 1e6, 50)
    p1 = np.geomspace(1e3, 1e-3, 50)
    P = np.column_stack([p0, p1])
    U0 = np.zeros((2, 50))
    sol = fixed_point(nm.newton_map, U0, args=(P,), solver=FixedPoint(atol=1e-14, rtol=1e-14, max_steps=100))
    assert sol.converged
    g = np.exp(sol.value)
    np.testing.assert_allclose(g[0], np.sqrt(p0), rtol=1e-13)
    np.testing.assert_allclose(g[1], p1 / np.sqrt(p0), rtol=1e-13)
    Y, R = nm.finish(sol.value, P)
    np.testing.assert_allclose(Y[:, 0], p1, rtol=1e-13)
    np.testing.assert_allclose(Y[:, 1], 0.5 / np.sqrt(p0), rtol=1e-13)
    assert np.all(R <= 1e-14)
    far = nm.newton_map(np.full((2, 1), 50.0), P[:1])  # clipped steps keep the iterate finite
    assert np.all(np.abs(far - 50.0) <= nm.CLIP)


def test_activation_template_placeholders_are_erf():
    xs = np.linspace(-4, 4, 9)
    ref = np.array([math.erf(v) for v in xs])
    np.testing.assert_allclose([act_template.f(v) for v in xs], ref, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(act_template.f_np(xs), ref, rtol=1e-15, atol=1e-16)
    h = 1e-5  # σ' and σ'' against central differences of the closed form
    np.testing.assert_allclose([act_template.df(v) for v in xs],
                               [(math.erf(v + h) - math.erf(v - h)) / (2 * h) for v in xs], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(act_template.d2f_np(xs), [act_template.d2f(v) for v in xs], rtol=1e-15)
    assert abs(float(act_template.df_mp(0.5)) - act_template.df(0.5)) < 1e-15


def test_activation_module_imports_scipy_special_only_when_used(tmp_path):
    """A generated activation module reaches scipy.special through ``scipy`` (imported on first
    use): σ = tanh never imports it, σ = erf does when its numpy function runs (same numbers)."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, numpy as np\n"
        "from asymptotics.activations import resolve_activation\n"
        "m = resolve_activation('tanh', center=False)._module\n"
        "m.f_np(np.linspace(-1, 1, 3))\n"
        "before = 'scipy.special' in sys.modules\n"
        "e = resolve_activation('erf', center=False)._module\n"
        "v = float(e.f_np(np.array([0.5]))[0])\n"
        "print(before, 'scipy.special' in sys.modules, v.hex())\n"
    )
    env = dict(os.environ, ASYMPTOTICS_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    before, after, v = out.stdout.split()
    assert (before, after) == ("False", "True")
    assert float.fromhex(v) == float(np.asarray(act_template.f_np(np.array([0.5])))[0])


def test_generated_system_uses_the_term_scaled_rule():
    """The placeholder system derived by sympy and rendered by lower(): the generated
    residual_scale is Σ|terms| and the generated module converges at q = 2^26 (≈ 7e7)."""
    a, b, q, k = sp.symbols("a b q k")
    S = EquationSystem("sqrt2_scaled", (a, b), (a**2 - 2 * q**2, a * b - 2 * k * q), outputs={"ratio": a / b},
                       start={a: q, b: k})
    cs = compile_system(S)
    qv = 2.0**26
    x = np.array([qv * SQRT2, 0.75 * SQRT2])
    pv = np.array([{"q": qv, "k": 0.75}[n] for n in cs.parameters])
    np.testing.assert_allclose(cs.module.residual_scale(x, pv), [x[0] ** 2 + 2 * qv**2, x[0] * x[1] + 2 * 0.75 * qv],
                               rtol=1e-15)
    sol = cs.solve(q=qv, k=0.75, atol=1e-13, rtol=1e-13)
    assert sol.converged and not sol.result.at_roundoff_floor
    assert abs(sol["a"] - qv * SQRT2) <= 4 * np.spacing(qv * SQRT2) and abs(sol["ratio"] - qv / 0.75) <= 1e-15 * qv
    floor = cs.solve(q=qv, k=0.75, atol=1e-300, rtol=1e-18)
    assert floor.converged and floor.result.at_roundoff_floor and "round-off floor" in floor.result.message
    grid = cs.solve_grid(q=2.0 ** np.arange(10, 27), k=0.75)
    assert grid.converged and grid.at_roundoff_floor.dtype == bool


def test_rendering_copies_the_kernels_verbatim():
    for template in (SYSTEM_SOLVERS, NEWTON_MAP_GRID, ACTIVATION):
        text = template.read_text()
        src = render_template(template, origin="test", definitions="N_OUTPUTS = 1")
        assert src.startswith("# Generated by asymptotics.codegen from") and src.endswith(text[text.index(MARKER):])


def test_a_function_defined_twice_is_refused(tmp_path):
    """Two included templates sharing a kernel, a template defining an included kernel, a printed
    definition of a bound name, a template included twice: each would let the later definition
    silently replace the earlier one in the rendered module."""
    from asymptotics.numerics.templates import DENSE_LINALG, NEWTON

    own = tmp_path / "own_gauss_solve.py"
    own.write_text(f"from numba import njit\n\n{MARKER}\n\n\n@njit\ndef gauss_solve(M, B, X, tol, skip_zero):\n"
                   "    return False\n")
    with pytest.raises(ValueError, match="'gauss_solve' is defined by both"):
        render_template(SYSTEM_SOLVERS, origin="test", definitions="N_OUTPUTS = 1", include=(DENSE_LINALG, own))
    with pytest.raises(ValueError, match="'gauss_solve' is defined by both"):
        render_template(own, origin="test", include=(DENSE_LINALG,))
    with pytest.raises(ValueError, match="'sigma' is defined by both bindings and definitions"):
        render_template(own, {"sigma": ("math", "sin")}, "test", definitions="def sigma(x):\n    return x\n")
    with pytest.raises(ValueError, match="included twice"):
        render_template(SYSTEM_SOLVERS, origin="test", include=(DENSE_LINALG, NEWTON, DENSE_LINALG))


def _non_docstring_strings(tree):
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node


@pytest.mark.parametrize("folder", ["asymptotics/codegen", "asymptotics/solvers", "asymptotics/symbolic",
                                    "asymptotics/activations", "asymptotics/numerics",
                                    "asymptotics/rendering", "asymptotics/theory"])
def test_no_numba_source_in_python_strings(folder):
    """Generated code comes from template files; printed expressions are plain Python."""
    files = sorted((ROOT / folder).rglob("*.py"))
    files += [ROOT / "asymptotics/theory/one_step/_route_pencil_kernel.py"]
    for f in files:
        for node in _non_docstring_strings(ast.parse(f.read_text())):
            assert "njit" not in node.value and "prange" not in node.value, f"{f}:{node.lineno}"


def test_docstring_examples_run():
    """The executable examples of the code-generation and solver modules."""
    import doctest
    import sys

    import asymptotics.activations.lowering as lowering
    import asymptotics.codegen.expressions as expressions
    import asymptotics.rendering.modules as modules
    import asymptotics.rendering.printing as printing
    import asymptotics.rendering.templates as templates
    import asymptotics.solvers as solvers
    import asymptotics.solvers.config as config
    import asymptotics.solvers.newton as newton
    import asymptotics.solvers.result as result

    fp = sys.modules["asymptotics.solvers.fixed_point"]  # the package attribute is the function
    for mod in (printing, expressions, modules, templates, lowering, solvers, config, fp, newton, result):
        failed, tried = doctest.testmod(mod)
        assert failed == 0 and tried > 0, mod.__name__


def test_generated_module_is_never_seen_half_initialised_by_another_thread(tmp_path, monkeypatch):
    """Two threads loading the same new module at once: the second waits for the first to finish
    executing it instead of taking the half-initialised module from ``sys.modules`` (the race the
    threaded large-step grid met)."""
    import threading
    import time

    from asymptotics.rendering.modules import load_generated_module

    monkeypatch.setenv("ASYMPTOTICS_CACHE_DIR", str(tmp_path))
    source = f"import time\ntime.sleep(0.5)\nVALUE = 42  # {tmp_path.name}\n"
    seen, errors = [], []

    def load():
        try:
            seen.append(load_generated_module(source, "race_probe").VALUE)
        except Exception as exc:  # an AttributeError on the half-initialised module
            errors.append(exc)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:  # the later threads arrive while the first one executes the module
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join()
    assert not errors and seen == [42] * 4
