"""How the Python API reports bad input and failed grid points.

**Spelling.** An error names the parameter as the user wrote it: ``route`` in Python,
``--route`` on the command line. The CLI calls the API inside :func:`cli_spelling`, and the API
spells each option through :func:`option`, so the two share every check and every message.
Grid parameters are named bare in both (``invalid psi1=-1.0: psi1 must be > 0 …``).

**Failed points.** A grid computation takes ``on_failure``: ``"raise"`` (default, like the
command line without ``--keep-going``) raises a :class:`~asymptotics.errors.ConvergenceError`
naming the first failing point with all its parameters; ``"mark"`` (``--keep-going``) returns
every point, the failed ones as rows with their :class:`~asymptotics.solvers.Status` label in
``status``, the reason in ``message`` and no numbers. A vectorised solve that fails on some
point of a batch is split in halves until the failing points stand alone
(:func:`solve_in_parts`), so one bad point costs about log₂(batch) extra solves, never the batch.

**Degenerate inputs** (an activation with μ1 = 0, …) are valid: their
:class:`~asymptotics.errors.DegenerateWarning` s are collected (:class:`DegenerateNotes`), kept in
the result's metadata and warned once each (printed as ``warning:`` lines by the command line).

>>> option("kappa_nodes"), option("spec")
('kappa_nodes', 'spec')
>>> with cli_spelling():
...     option("kappa_nodes"), option("spec")
('--kappa-nodes', 'SPEC')
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Callable

import numpy as np

from ..errors import ConvergenceError, DegenerateWarning
from ..params import check_choice

__all__ = [
    "ON_FAILURE",
    "option",
    "in_cli",
    "cli_spelling",
    "check_on_failure",
    "point_error",
    "status_code",
    "solve_in_parts",
    "DegenerateNotes",
]

#: The values of ``on_failure`` (``"mark"`` is the command line's ``--keep-going``).
ON_FAILURE = ("raise", "mark")

_CLI = contextvars.ContextVar("asymptotics_cli_spelling", default=False)
#: Parameters the command line spells otherwise than ``--name-with-dashes``.
_CLI_SPECIAL = {"spec": "SPEC"}


def option(name: str) -> str:
    """``name`` as the user wrote it: the Python keyword, or the command-line option inside
    :func:`cli_spelling`."""
    if not _CLI.get():
        return name
    return _CLI_SPECIAL.get(name, "--" + name.replace("_", "-"))


def in_cli() -> bool:
    """Whether the call comes from the command line (inside :func:`cli_spelling`)."""
    return _CLI.get()


@contextlib.contextmanager
def cli_spelling():
    """Within this block, :func:`option` spells parameters as command-line options."""
    token = _CLI.set(True)
    try:
        yield
    finally:
        _CLI.reset(token)


def check_on_failure(value) -> str:
    """``"raise"`` or ``"mark"`` (anything else is a ParameterError naming ``on_failure``)."""
    return check_choice("on_failure", value, ON_FAILURE)


def status_code(exc: BaseException) -> int:
    """The :class:`~asymptotics.solvers.Status` code a failure carries (its solver result's
    ``status``), ``Status.SINGULAR`` when it carries none."""
    from ..solvers import Status

    code = getattr(getattr(exc, "result", None), "status", None)
    if isinstance(code, np.ndarray):
        code = code.ravel()[0] if code.size else None
    try:
        return int(Status.of(code))
    except (KeyError, TypeError, ValueError):
        return int(Status.SINGULAR)


def _where(point: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in point.items())


def point_error(command: str, point: dict, reason: str, result=None) -> ConvergenceError:
    """The error of a failed grid point: names the command and every parameter of the point; it
    carries ``point`` and ``reason`` and the solver's ``result``."""
    hint = "--keep-going writes it as a row with its status" if _CLI.get() else \
        "on_failure='mark' returns the other points with this one marked"
    exc = ConvergenceError(f"{command}: no solution at {_where(point)}: {reason} ({hint})", result)
    exc.point, exc.reason = dict(point), reason
    return exc


def solve_in_parts(solve: Callable[[np.ndarray], object], index: np.ndarray):
    """Solve the points ``index`` (an integer array) with ``solve(index)``, a vectorised solve that
    raises :class:`ConvergenceError` when any point of its batch fails; a failing batch is split
    in halves until each failure stands alone.

    Returns ``(parts, failures)``: ``parts`` a list of ``(index_part, result)`` whose union with the
    failures is ``index`` (in order), ``failures`` a dict ``{point: ConvergenceError}``.

    >>> def solve(idx):
    ...     if 3 in idx:
    ...         raise ConvergenceError("no root")
    ...     return idx * 10
    >>> parts, failures = solve_in_parts(solve, np.arange(6))
    >>> [p.tolist() for p, _ in parts], sorted(failures)
    ([[0, 1, 2], [4, 5]], [3])
    """
    index = np.asarray(index)
    try:
        return [(index, solve(index))], {}
    except ConvergenceError as exc:
        if index.size <= 1:
            return [], {int(i): exc for i in index}
    half = index.size // 2
    left, fl = solve_in_parts(solve, index[:half])
    right, fr = solve_in_parts(solve, index[half:])
    return left + right, {**fl, **fr}


class DegenerateNotes:
    """Collect the :class:`~asymptotics.errors.DegenerateWarning` s of a computation (``caught``);
    :meth:`finish` puts their messages in the result's metadata and warns once per message (the
    command line prints them instead)."""

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always", DegenerateWarning)
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        return False

    def finish(self, result, key: str = "warnings"):
        msgs = sorted({str(w.message) for w in self.caught if issubclass(w.category, DegenerateWarning)})
        if msgs:
            result.meta[key] = msgs
            for m in msgs:
                warnings.warn(m, DegenerateWarning, stacklevel=3)
        return result
