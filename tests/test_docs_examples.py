"""The quick start and every tutorial run as written, and give what they say.

Each page is executed top to bottom in one namespace: ```` ```python ```` blocks run, ```` ```pycon ````
blocks are doctests (their printed outputs are checked). Two HTML comments, invisible on the site,
steer the run:

* ``<!-- same-as: NAME -->`` before a ```` ```bash ```` block: the command's ``--format json`` rows
  must equal the rows of the Python result ``NAME`` (1e-12 relative): the page's command line and
  its Python produce the same numbers;
* ``<!-- ci-size: OLD -> NEW; … -->`` (once per page): replacements applied to every block of the
  page, so that simulations run at a small size here (d = 400 → 120, …); the numbers a page prints
  from a simulation are checked only with tolerances that hold at both sizes.
* ``<!-- ci: skip (reason) -->`` before a block: not run (the reason says why).
"""

from __future__ import annotations

import doctest
import json
import math
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["quickstart.md", "tutorials/ba-one-step.md", "tutorials/cui-spiked-rf.md", "tutorials/reproduce.md",
         "tutorials/verify-a-theorem.md", "tutorials/add-a-theory.md", "api/index.md"]

_BLOCK = re.compile(r"((?:<!--[^\n]*-->\n)*)```(python|pycon|bash)\n(.*?)```", re.S)
_SIZE = re.compile(r"<!--\s*ci-size:\s*(.*?)\s*-->")


def blocks(text: str):
    """``(kind, code, directives)`` of each code block, in order."""
    for m in _BLOCK.finditer(text):
        directives = re.findall(r"<!--\s*(.*?)\s*-->", m.group(1))
        yield m.group(2), m.group(3), directives, text[: m.start()].count("\n") + 1


def sizes(text: str) -> list[tuple[str, str]]:
    m = _SIZE.search(text)
    if not m:
        return []
    return [tuple(part.split("->")) for part in m.group(1).split(";") if part.strip()]


def shrink(code: str, subs) -> str:
    for old, new in subs:
        code = code.replace(old.strip(), new.strip())
    return code


def close(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-14 + 1e-12 * max(abs(a), abs(b))


def cli_rows(command: str, tmp_path: Path) -> list[dict]:
    from asymptotics.cli.app import main

    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[0] == "asymptotics", command
    out = tmp_path / f"cli-{abs(hash(command))}.json"
    code = main([*argv[1:], "--format", "json", "--out", str(out)])
    assert code == 0, command
    return json.loads(out.read_text())["rows"]


def compare_rows(api_rows: list[dict], cli: list[dict], what: str) -> None:
    from asymptotics.results import to_jsonable

    api = json.loads(json.dumps(to_jsonable(api_rows)))
    assert len(api) == len(cli), what
    for i, (ra, rc) in enumerate(zip(api, cli, strict=True)):
        assert ra.keys() == rc.keys(), (what, i, set(ra) ^ set(rc))
        bad = [k for k in ra if not close(ra[k], rc[k])]
        assert not bad, (what, i, {k: (ra[k], rc[k]) for k in bad})


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_and_matches_the_cli(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = (ROOT / "docs" / page).read_text()
    subs = sizes(text)
    monkeypatch.chdir(tmp_path)  # the pages write files (risk.json, out/, …)
    namespace: dict = {"__name__": "__docs__"}
    checks = []
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    ran = 0
    for kind, code, directives, line in blocks(text):
        if any(d.startswith("ci: skip") for d in directives):
            continue
        code = shrink(code, subs)
        if kind == "python":
            exec(compile(code, f"{page}:{line}", "exec"), namespace)  # noqa: S102 - the project's own docs
            ran += 1
        elif kind == "pycon":
            test = parser.get_doctest(code, namespace, f"{page}:{line}", page, line)
            result = runner.run(test, clear_globs=False)
            namespace.update(test.globs)  # a DocTest runs in a copy of the namespace
            assert result.failed == 0, f"{page}:{line}: {result.failed} example(s) failed (output above)"
            ran += 1
        for d in directives:
            if d.startswith("same-as:"):
                assert kind == "bash", f"{page}:{line}: same-as on a {kind} block"
                checks.append((d.split(":", 1)[1].strip(), code.strip(), line))
    plt.close("all")
    assert ran, f"{page} has no executable example"
    for name, command, line in checks:
        assert name in namespace, f"{page}:{line}: same-as {name}, which the page's Python never defines"
        compare_rows(namespace[name].rows, cli_rows(command, tmp_path), f"{page}:{line} {name}")


def test_every_page_with_python_is_run():
    """A page of the quick start or the tutorials with Python code is in PAGES."""
    pages = [ROOT / "docs" / "quickstart.md", *sorted((ROOT / "docs" / "tutorials").glob("*.md"))]
    with_code = [str(p.relative_to(ROOT / "docs")) for p in pages if re.search(r"```(python|pycon)", p.read_text())]
    assert set(with_code) <= set(PAGES), set(with_code) - set(PAGES)


def test_same_as_rows_are_compared_exactly(tmp_path):
    """The comparison used above finds a difference of 1e-10 (it is not vacuous)."""
    rows = [{"a": 1.0, "b": "x"}]
    compare_rows(rows, [{"a": 1.0 + 1e-14, "b": "x"}], "equal")
    with pytest.raises(AssertionError):
        compare_rows(rows, [{"a": 1.0 + 1e-10, "b": "x"}], "differ")
