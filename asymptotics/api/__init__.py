r"""The Python API: one function per command of the ``asymptotics`` command line, with the same
name, parameters, defaults, checks, error messages and output columns.

=====================  ==========================================  ====================================
function               command                                     module
=====================  ==========================================  ====================================
``risk``               ``asymptotics theory risk``                 :mod:`.one_step`
``alignment``          ``asymptotics theory alignment``            :mod:`.one_step`
``ck_spike``           ``asymptotics theory ck-spike``             :mod:`.one_step`
``limits``             ``asymptotics theory limits``               :mod:`.one_step`
``spiked_rf``          ``asymptotics theory srf``                  :mod:`.srf`
``large_step``         ``asymptotics theory large-step``           :mod:`.large_step_exact`
``tau_star``           ``asymptotics theory tau-star``             :mod:`.large_step_bounds`
``bounds``             ``asymptotics theory bounds``               :mod:`.large_step_bounds`
``activation``         ``asymptotics activation SPEC``             :mod:`.activation_constants`
``simulate``           ``asymptotics simulate``                    :mod:`.simulation`
``validate``           ``asymptotics validate``                    :mod:`.validation`
``spectrum``           ``asymptotics theory spectrum``             :mod:`.spectra`
``sweep``              ``asymptotics sweep CONFIG``                :mod:`.sweeps`
=====================  ==========================================  ====================================

Conventions shared by every function:

* **keyword-only** parameters (``activation`` takes its ``spec`` first, like the command);
* **grids**: a number, a list or 1-D array, or the command line's grid string (``"0:1:5"``,
  ``"log:1e-4:1:5"``); several grid parameters form a **Cartesian grid**, the first varying
  slowest (:mod:`.grid`);
* **results**: a :class:`~asymptotics.results.Result` whose ``rows`` are the command's rows (the
  ``--format json`` rows, same column names); it shows as a table in a notebook and has
  ``to_frame()``, ``plot()``, ``to_json()``, ``write(path)``;
* **failed points**: ``on_failure="raise"`` (default, like the command without ``--keep-going``)
  or ``"mark"`` (:mod:`.errors`);
* **progress**: ``progress=None`` shows a bar on long computations, in Jupyter and in a
  terminal (:mod:`.progress`).

Importing this package imports numpy but not sympy or numba; each function imports the theory
it needs when it is called (``activation`` is loaded on first use, as it builds on sympy).
"""

from .errors import ON_FAILURE
from .large_step_bounds import bounds, tau_star
from .large_step_exact import large_step
from .one_step import alignment, ck_spike, limits, risk
from .simulation import simulate
from .spectra import spectrum
from .srf import spiked_rf
from .sweeps import SweepRun, sweep
from .validation import validate

__all__ = [
    "risk",
    "alignment",
    "ck_spike",
    "limits",
    "spiked_rf",
    "large_step",
    "tau_star",
    "bounds",
    "activation",
    "simulate",
    "validate",
    "spectrum",
    "sweep",
    "SweepRun",
    "ON_FAILURE",
]


def __getattr__(name):
    if name == "activation":  # an Activation subclass: defined where sympy is imported
        from .activation_constants import activation

        return activation
    raise AttributeError(f"module 'asymptotics.api' has no attribute {name!r}")
