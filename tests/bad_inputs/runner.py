"""Run one case of the bad-input corpus (``corpus.toml``) in-process and classify what happened.

A case is a command line (``argv``) or a Python API call (``api``, written as Python:
``"risk(psi1=None)"``; values are literals, or ``object()`` for an object of no known kind), and
its expected class:

* ``refused``: exit status 2 (or the case's ``status``: 1 for a sweep whose plan is refused; an API
  call: a ``ParameterError`` or another ``AsymptoticsError``),
  nothing on stdout, exactly one line on stderr starting ``error: `` that contains every one of the
  case's ``names`` (the option or parameter, and what the case is about);
* ``refused-output``: the same, for an output location (``--out``) the command cannot write;
* ``accepted``: exit status 0 (an API call returns) and no traceback; with ``baseline`` (another
  argv or API call), the output must differ from the baseline's, so the option it adds is not
  ignored.

``{tmp}`` in an argument is a fresh temporary folder holding ``result.json`` (a small result file),
``sweep.toml`` (a tiny sweep), ``binary.png`` (binary bytes) and ``file.txt``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import signal
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus.toml")
CLASSES = ("refused", "refused-output", "accepted")
#: Seconds one case may take before it counts as a hang.
CASE_TIMEOUT_S = 60


@dataclass
class Case:
    id: str
    expect: str
    argv: list[str] | None = None
    api: str | None = None
    names: list[str] = field(default_factory=list)
    baseline: list[str] | str | None = None
    status: int = 2
    note: str = ""


@dataclass
class Outcome:
    rc: int | None
    out: str
    err: str
    traceback: str = ""
    timed_out: bool = False
    value: object = None


def load(path: Path = CORPUS) -> list[Case]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Case(**c) for c in data["case"]]


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float):
    def fire(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_OBJECT = object()


def _literal(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "object" and not node.args:
        return _OBJECT
    return ast.literal_eval(node)


def parse_call(text: str) -> tuple[str, list, dict]:
    """``"risk(psi1=None)"`` → ``("risk", [], {"psi1": None})`` (literal arguments only)."""
    node = ast.parse(text, mode="eval").body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise ValueError(f"not a call of an API function: {text!r}")
    return node.func.id, [_literal(a) for a in node.args], {k.arg: _literal(k.value) for k in node.keywords}


def _fill(value, tmp: Path):
    if isinstance(value, str):
        return value.replace("{tmp}", str(tmp))
    return value


def run_argv(argv: list[str], tmp: Path, timeout: float = CASE_TIMEOUT_S) -> Outcome:
    from asymptotics.cli.app import main

    argv = [_fill(a, tmp) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    rc, tb, timed_out = None, "", False
    try:
        with _deadline(timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    except _Timeout:
        timed_out = True
    except SystemExit as exc:  # pragma: no cover - main returns its status
        rc = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a traceback is what the corpus looks for
        tb = traceback.format_exc()
    return Outcome(rc, out.getvalue(), err.getvalue(), tb, timed_out)


def run_api(text: str, tmp: Path, timeout: float = CASE_TIMEOUT_S) -> Outcome:
    import warnings

    import asymptotics as asy  # every API function, asy.check (the claims package) included
    from asymptotics.errors import AsymptoticsError

    name, args, kwargs = parse_call(text)
    fn = getattr(asy, name)
    args = [_fill(a, tmp) for a in args]
    kwargs = {k: _fill(v, tmp) for k, v in kwargs.items()}
    out, err = io.StringIO(), io.StringIO()
    try:
        with _deadline(timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn(*args, **kwargs)
    except _Timeout:
        return Outcome(None, out.getvalue(), err.getvalue(), timed_out=True)
    except AsymptoticsError as exc:
        return Outcome(2, out.getvalue(), f"error: {exc}\n")
    except BaseException:  # noqa: BLE001
        return Outcome(None, out.getvalue(), err.getvalue(), traceback.format_exc())
    return Outcome(0, out.getvalue(), err.getvalue(), value=value)


def run(case: Case, tmp: Path) -> Outcome:
    return run_argv(case.argv, tmp) if case.argv is not None else run_api(case.api, tmp)


def fingerprint(outcome: Outcome) -> str:
    """What an accepted case produced (stdout, or the API result's rows), to compare with a baseline."""
    value = outcome.value
    if value is not None:
        rows = getattr(value, "rows", None)
        if rows is not None:
            return json.dumps(rows, default=repr, sort_keys=True)
        return repr(value)
    return outcome.out


def problems(case: Case, o: Outcome, tmp: Path) -> list[str]:
    """What is wrong with the outcome ``o`` of ``case`` (empty: as expected)."""
    if o.timed_out:
        return [f"hang: still running after {CASE_TIMEOUT_S} s"]
    if o.traceback:
        return ["traceback:\n" + o.traceback[-3000:]]
    if "Traceback (most recent call last)" in o.err:
        return ["traceback on stderr:\n" + o.err[-3000:]]
    if case.expect == "accepted":
        return [] if o.rc == 0 else [f"refused (status {o.rc}): {o.err.strip()[-600:]}"]
    lines = [line for line in o.err.splitlines() if line.strip()]
    found = []
    if o.rc != case.status:
        found.append(f"status {o.rc}, not {case.status} (stderr: {o.err.strip()[-400:]!r})")
    if o.out.strip():
        found.append(f"stdout not empty: {o.out[:300]!r}")
    if len(lines) != 1:
        found.append(f"{len(lines)} stderr lines, not one: {o.err[-800:]!r}")
    elif not lines[0].startswith("error: "):
        found.append(f"not an error line: {lines[0][:300]!r}")
    else:
        for name in case.names:
            if _fill(name, tmp) not in lines[0]:
                found.append(f"{name!r} not named in {lines[0][:500]!r}")
    return found
