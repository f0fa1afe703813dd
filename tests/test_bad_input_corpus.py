"""The committed bad-input corpus (``tests/bad_inputs/corpus.toml``), every case run in-process.

Each case is a command line or a Python API call with its expected class (``refused``,
``refused-output``, ``accepted``; :mod:`bad_inputs.runner` says what each requires). Over the whole
corpus: no traceback, no hang (a per-case timeout), every refusal one ``error:`` line naming what
was wrong, and no accepted option ignored (an accepted case with a ``baseline`` must give another
output than its baseline).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bad_inputs.runner import CLASSES, fingerprint, load, problems, run, run_api, run_argv  # noqa: E402

CASES = load()

_SWEEP = """name = "tiny"
quantity = "gaussian.moments"
out = "{out}"
[grid]
activation = ["tanh", "erf"]
"""
_HUGE = """name = "huge"
quantity = "simulate.ba"
seeds = 1
out = "{out}"
[grid]
d = [10000000]
"""


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    """The ``{tmp}`` folder of the corpus: a result file, sweep configs, a binary and a text file."""
    from asymptotics.cli.app import main

    tmp = tmp_path_factory.mktemp("corpus")
    cwd = os.getcwd()
    os.chdir(tmp)  # commands that write a default output folder write it here
    assert main(["theory", "risk", "--psi1", "1,2", "--format", "json", "--out", str(tmp / "result.json")]) == 0
    (tmp / "sweep.toml").write_text(_SWEEP.format(out=tmp / "tiny.sweep"))
    (tmp / "huge.toml").write_text(_HUGE.format(out=tmp / "huge.sweep"))
    (tmp / "binary.png").write_bytes(bytes(range(256)) * 4)
    (tmp / "file.txt").write_text("not a sweep config\n")
    yield tmp
    os.chdir(cwd)


def test_corpus_is_large_distinct_and_covers_every_command():
    from asymptotics.api import FUNCTIONS

    counts = Counter(c.expect for c in CASES)
    assert len(CASES) >= 300 and set(counts) <= set(CLASSES), counts
    assert len({c.id for c in CASES}) == len(CASES)
    commands = {" ".join(c.argv[:2]) if c.argv[0] == "theory" else c.argv[0] for c in CASES if c.argv}
    for name in ("simulate", "validate", "sweep", "reproduce", "figure", "table", "derive", "activation"):
        assert name in commands, name
    for sub in ("risk", "alignment", "ck-spike", "limits", "srf", "large-step", "tau-star", "bounds", "spectrum"):
        assert f"theory {sub}" in commands, sub
    called = {c.api.split("(")[0] for c in CASES if c.api}
    assert set(FUNCTIONS) <= called, set(FUNCTIONS) - called


#: Seconds the baseline of an accepted case may take: it may compile the command's kernels cold.
BASELINE_TIMEOUT_S = 600


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case, tmp):
    base = None
    if case.expect == "accepted" and case.baseline is not None:
        # the baseline first, with room for a cold cache: the first call of a command compiles its
        # kernels (theory spectrum: 61-72 s of numba compilation on one loaded core), which is not
        # a hang; the case itself then runs under the hang limit
        base = (run_argv(case.baseline, tmp, timeout=BASELINE_TIMEOUT_S) if isinstance(case.baseline, list)
                else run_api(case.baseline, tmp, timeout=BASELINE_TIMEOUT_S))
        assert base.rc == 0 and not base.traceback, (base.err, base.traceback)
    outcome = run(case, tmp)
    found = problems(case, outcome, tmp)
    assert not found, f"{case.id} ({case.argv or case.api}): " + "; ".join(found)
    if base is not None:
        assert fingerprint(outcome) != fingerprint(base), f"{case.id}: the option changes nothing (ignored)"


def test_the_shared_checks_do_what_their_docs_say():
    import doctest

    import asymptotics.api.checks as checks

    assert doctest.testmod(checks).failed == 0
