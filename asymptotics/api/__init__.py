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

``asymptotics check`` is :func:`asymptotics.check` (:mod:`asymptotics.claims.public`): the claims
package evaluates the functions above, so it sits after this package, never imported by it.

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
* **progress**: every function that computes (all but ``activation``, which returns at once, and
  ``check``) takes ``progress=``: ``None`` shows a bar on long computations, in Jupyter and in a
  terminal, ``True`` always, ``False`` never (:mod:`.progress`);
* **bad input** is a :class:`~asymptotics.errors.ParameterError` naming the parameter: ``None``
  where a value is needed, a value of the wrong kind (a non-bool flag, a non-integer count,
  :mod:`.checks`), a value out of range, and a parameter the chosen mode does not use (``psi1``
  of ``limits`` at ψ1 = ∞, ``alpha`` of ``spectrum(protocol="ba")``): such a parameter is
  refused, never ignored.

Importing this package imports nothing heavy: each function is imported on first use (PEP 562)
and imports the theory it needs when it is called.
"""

#: Every API function (one per command), with the module that defines it; imported on first use.
FUNCTIONS = {
    "risk": "one_step",
    "alignment": "one_step",
    "ck_spike": "one_step",
    "limits": "one_step",
    "spiked_rf": "srf",
    "large_step": "large_step_exact",
    "tau_star": "large_step_bounds",
    "bounds": "large_step_bounds",
    "activation": "activation_constants",
    "simulate": "simulation",
    "validate": "validation",
    "spectrum": "spectra",
    "sweep": "sweeps",
}
_OTHERS = {"SweepRun": "sweeps", "ON_FAILURE": "errors"}

__all__ = [*FUNCTIONS, *_OTHERS]


def __getattr__(name):
    module = FUNCTIONS.get(name) or _OTHERS.get(name)
    if module is None:
        raise AttributeError(f"module 'asymptotics.api' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
