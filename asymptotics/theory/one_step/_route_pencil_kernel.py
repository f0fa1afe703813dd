r"""Route C's compiled kernels: the reduced pencil system's Newton map, rendered by the engine.

The reduced route-C system (:func:`.route_pencil.schur_system`) has two unknowns, the traces
g11, g22 ∈ (0, 1], and closed-form tangents. Its hot path is an elementwise Newton map in the
log-traces rendered by :func:`asymptotics.codegen.newton_map.render_newton_map` into the template
``asymptotics/rendering/templates/newton_map_grid.py`` (one printer, one header, one cache key: the
hash of the module's source):

* ``newton_map(U, P)`` — ONE Newton step per grid point in u = log g, clipped to |Δu| ≤ 2,
  elementwise over the columns of U (2 × n) and the rows of P (n × n_params); the iteration is
  :func:`asymptotics.solvers.fixed_point` (the project's solver loop);
* ``finish(U, P)`` → (Y, R) — at the solution: every output of the system (with the tangents
  dg/ds by the implicit function theorem) and the residual max_k |F_k|/max(1, s_k), s_k the size
  of the terms of equation k.

:func:`load_kernels` finds the module through the derivation index without any sympy work when
the deriving code (this file, ``route_pencil.py``, ``derivation.py``, ``asymptotics/symbolic``,
``asymptotics/codegen``) is unchanged (see :mod:`asymptotics.rendering.modules`).
"""

from __future__ import annotations

from pathlib import Path

from ...rendering.modules import DerivationIndex, code_hash, package_files

__all__ = ["render_kernels", "load_kernels"]

_INDEX = DerivationIndex()


def render_kernels(system, tangents, d_ds, source) -> str:
    """Source text of the kernel module for the reduced ``system`` (unknowns g11, g22, source
    parameter already set to 0 in ``system.equations``). ``tangents`` are the tangent symbols
    (dg11_ds, dg22_ds) used by the outputs, ``d_ds`` the expressions ∂F/∂s at s = 0."""
    from ...codegen.newton_map import render_newton_map

    return render_newton_map(system, tangents, d_ds, notes=(f"route C kernels, derivation key {source}",))


def _code_key() -> str:
    here = Path(__file__)
    files = [here, here.with_name("route_pencil.py"), here.with_name("derivation.py")]
    return code_hash(files + package_files("symbolic", "codegen", "rendering"), extra="route_c_kernels")


def load_kernels(build):
    """The kernel module: from the derivation index when the deriving code is unchanged (no sympy
    work), else ``build()`` → ``(system, tangents, d_ds)`` is rendered and indexed."""
    key = _code_key()

    def render():
        system, tangents, d_ds = build()
        return render_kernels(system, tangents, d_ds, key)

    return _INDEX.load(f"one_step_route_c_{key}", "one_step_route_c", render)[0]
