"""``docs/expressions.md`` runs: its Python examples, executed in order in one namespace (each
carries its own checks against closed forms or the library's check values), and the doctests of
the expression modules."""

import doctest
import re
from pathlib import Path

import pytest

import asymptotics.symbolic.expressions as pkg
from asymptotics.symbolic.expressions import declarations, derivation, linearise, parser, tree

PAGE = Path(__file__).resolve().parents[1] / "docs" / "expressions.md"


def test_the_page_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) >= 6
    namespace: dict = {}
    for code in blocks:
        exec(compile(code, str(PAGE), "exec"), namespace)  # noqa: S102 - the project's own docs


@pytest.mark.parametrize("mod", [pkg, declarations, derivation, linearise, parser, tree])
def test_module_doctests(mod):
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0
