"""Continuation along a parameter path: each solve starts from the previous solution.

This is how a branch is followed: start where the wanted root is unambiguous (large |z|, large
Im z, large λ) and move in small steps toward the target, so that each solve stays in the basin
of the same branch.
"""

from __future__ import annotations

__all__ = ["continuation"]


def continuation(solve_one, x0, params_list):
    """Solve along ``params_list`` with warm starts.

    ``solve_one(x_start, params) -> SolverResult``. The first solve starts from ``x0``; each
    later one from the last *converged* value (an unconverged result does not move the start).
    Returns the list of results, one per parameter. A :class:`ConvergenceError` raised by
    ``solve_one`` propagates.
    """
    results = []
    x_start = x0
    for params in params_list:
        res = solve_one(x_start, params)
        results.append(res)
        if res.converged:
            x_start = res.value
    return results
