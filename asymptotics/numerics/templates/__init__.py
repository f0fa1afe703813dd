"""The compiled algorithm templates of the numerics layer (one file per algorithm).

Each file is a template of :mod:`asymptotics.rendering.templates`: ordinary Python whose kernels,
from the marker line on, are copied into the rendered module that *includes* it; a template that
iterates calls its problem through placeholders defined above the marker.

* ``dense_linalg.py`` — Gaussian elimination with partial pivoting, the one-sided Jacobi SVD,
  minimum-norm least squares, the 2×2 spectral radius (no placeholders;
  :data:`asymptotics.rendering.templates.SMALL_LINALG` names it);
* ``newton.py`` — Newton with the Armijo line search, the term-scaled stopping rule and the
  round-off floor (placeholders ``residual``, ``residual_scale``, ``jacobian``);
* ``continuation.py`` — continuation in one parameter with step control, the fixed-step homotopy
  and the grid drivers ``solve_grid_full``, ``solve_grid``, ``continue_grid`` (with ``newton.py``;
  placeholders ``start``, ``outputs``, ``N_OUTPUTS``);
* ``anderson.py`` — Anderson acceleration, ``anderson_solve`` over the placeholder ``fixed_point_map``;
* ``quadrature.py`` — composite Gauss–Legendre against the Gaussian density (no placeholders).

Their plain-Python twins are :mod:`asymptotics.solvers.newton`, :mod:`asymptotics.solvers.fixed_point`
and :mod:`asymptotics.solvers.continuation` (and :mod:`asymptotics.numerics.quadrature`, numpy).
"""

from pathlib import Path

#: The folder of the numerics templates.
FOLDER = Path(__file__).resolve().parent
#: The small dense linear algebra (no placeholders).
DENSE_LINALG = FOLDER / "dense_linalg.py"
#: Newton with line search (placeholders ``residual``, ``residual_scale``, ``jacobian``).
NEWTON = FOLDER / "newton.py"
#: Continuation and the grid drivers (with :data:`NEWTON`).
CONTINUATION = FOLDER / "continuation.py"
#: Anderson acceleration (placeholder ``fixed_point_map``).
ANDERSON = FOLDER / "anderson.py"
#: Composite Gauss–Legendre against the Gaussian density (no placeholders).
QUADRATURE = FOLDER / "quadrature.py"
