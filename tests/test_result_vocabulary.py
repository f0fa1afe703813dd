"""One status vocabulary and named kernel outputs.

* every :class:`~asymptotics.solvers.SolverResult` carries a :class:`~asymptotics.solvers.Status`
  (a compiled kernel's integer code becomes its member at the boundary);
* the Gaussian-readout kernel's outputs are read by name: the named tuples have exactly as many
  fields as the kernel template writes (``SCAL_SIZE``, ``VEC_ROWS``, read from the template file).
"""

from __future__ import annotations

import re

import numpy as np

from asymptotics.solvers import SolverResult, Status
from asymptotics.theory.large_step.gaussian_readout.compiled import (
    KERNEL_TEMPLATE,
    PathSolution,
    PointScalars,
    PointVectors,
)


def test_solver_result_status_is_a_status_member():
    for code in Status:
        r = SolverResult(value=None, converged=code == 0, iterations=0, residual=0.0, method="x",
                         message=code.message, status=int(code))
        assert r.status is code and r.status.label == code.name.lower()
    assert SolverResult(value=1.0, converged=True, iterations=1, residual=0.0, method="x").status is Status.CONVERGED


def _template_constant(name: str) -> int:
    return int(re.search(rf"^{name} = (\d+)", KERNEL_TEMPLATE.read_text(), re.M).group(1))


def test_gaussian_readout_outputs_by_name():
    assert len(PointScalars._fields) == _template_constant("SCAL_SIZE")
    assert len(PointVectors._fields) == _template_constant("VEC_ROWS")
    scal = np.arange(2 * 3 * 7, dtype=float).reshape(2, 3, 7)
    vec = np.arange(2 * 3 * 7 * 4, dtype=float).reshape(2, 3, 7, 4)
    sol = PathSolution(x=None, status=None, iterations=None, solve_residual=None, vec=vec, scal=scal,
                       width_iterations=None)
    s = sol.scalars(1, 2)
    assert (s.risk1, s.residual, s.code) == (scal[1, 2, 0], scal[1, 2, 4], scal[1, 2, 6])
    v = sol.vectors(1, 2)
    assert np.array_equal(v.conditional_error, vec[1, 2, 6]) and v.V is not vec[1, 2, 0]
