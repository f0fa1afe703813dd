"""The command line's light paths stay light: ``--help``, ``activation tanh`` and a one-step
theory call import neither matplotlib nor scipy.optimize, ``--help`` not the theory, sympy or
numba either, and a one-step call with built-in activations whose constants are cached neither
sympy nor numba (checked in a fresh interpreter through ``sys.modules``; timings live in
``benchmarks/bench_cli.py``, not here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, sys
from asymptotics.cli.app import main
rc = main({argv!r})
sys.stdout.flush()
print("\\n@@MODULES@@" + json.dumps(sorted(sys.modules)))
"""


def _modules(argv: list[str], tmp_path) -> set[str]:
    env = dict(
        os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), COLUMNS="120"
    )
    env.setdefault("ASYMPTOTICS_CACHE_DIR", str(tmp_path / "cache"))
    p = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert "@@MODULES@@" in p.stdout, p.stderr[-2000:]
    return set(json.loads(p.stdout.rsplit("@@MODULES@@", 1)[1]))


HEAVY = ("matplotlib", "scipy.optimize", "pandas")


def test_help_imports_no_theory(tmp_path):
    mods = _modules(["--help"], tmp_path)
    for name in (
        *HEAVY,
        "sympy",
        "numba",
        "scipy",
        "asymptotics.theory",
        "asymptotics.activations",
        "asymptotics.api.one_step",
    ):
        assert name not in mods, f"asymptotics --help imports {name}"


@pytest.mark.parametrize(
    "argv",
    [
        ["activation", "tanh", "--format", "json"],
        [
            "theory",
            "risk",
            "--student",
            "tanh",
            "--teacher",
            "tanh",
            "--psi1",
            "2",
            "--psi2",
            "1.5",
            "--lam",
            "1e-3",
            "--eta",
            "3",
            "--format",
            "json",
        ],
    ],
)
def test_light_commands_import_no_optimizer_or_plotting(argv, tmp_path):
    mods = _modules(argv, tmp_path)
    for name in HEAVY:
        assert name not in mods, f"asymptotics {' '.join(argv)} imports {name}"


def test_a_one_step_call_with_cached_constants_imports_no_numba_or_sympy(tmp_path):
    risk = "theory risk --student tanh --teacher tanh --psi1 2 --psi2 1.5 --lam 1e-3 --eta 3 --format json"
    alignment = "theory alignment --student tanh --teacher tanh --eta 3 --format json"
    risk, alignment = risk.split(), alignment.split()
    _modules(risk, tmp_path)  # fills the cache (constants of tanh)
    for argv in (risk, alignment):
        mods = _modules(argv, tmp_path)
        for name in ("numba", "sympy"):
            assert name not in mods, f"a warm asymptotics {' '.join(argv)} imports {name}"


def test_compiled_theory_calls_with_builtins_import_no_sympy(tmp_path):
    """τ* and the exact large-step risk of built-in activations, warm: their limits, tails and
    first Hermite coefficients come from tables and compiled σ, not from sympy or scipy.special."""
    tau = "theory tau-star --student tanh --teacher tanh --format json".split()
    large = "theory large-step --psi1 8 --format json".split()
    for argv in (tau, large):
        _modules(argv, tmp_path)  # fills the cache (compiled kernels, constants)
        mods = _modules(argv, tmp_path)
        for name in ("sympy", "scipy.special", "asymptotics.activations.lowering"):
            assert name not in mods, f"a warm asymptotics {' '.join(argv)} imports {name}"
