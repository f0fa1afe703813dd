"""``derive --latex``: rows of at most 100 characters, still valid LaTeX (each row balances its braces
and its \\left/\\right), and the same mathematics: joined back, the broken rows are the unbroken ones."""

from __future__ import annotations

import re

import pytest

from asymptotics.cli.app import main
from asymptotics.symbolic import LATEX_NAMES, get_system
from asymptotics.symbolic.latex_lines import break_latex, terms

SYSTEMS = ["rf_ridge_traces", "rf_ridge_source", "mp_gram_dz"]


def _rows(tex: str) -> list[str]:
    body = tex.split("\\begin{aligned}", 1)[1].split("\\end{aligned}", 1)[0]
    return [r for r in body.split("\\\\") if r.strip()]


def _balanced(row: str) -> bool:
    lefts, rights = len(re.findall(r"\\left\b|\\left[(.\[|]", row)), len(re.findall(r"\\right\b|\\right[).\]|]", row))
    depth = 0
    for ch in re.sub(r"\\[{}]", "", row):
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    return depth == 0 and lefts == rights


def _plain(text: str) -> str:
    """The mathematics without layout: no alignment, breaks, \\quad, \\left./\\right., spaces."""
    for token in ("\\left.", "\\right.", "\\quad", "\\\\", "&"):
        text = text.replace(token, "")
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("system", SYSTEMS)
def test_derive_latex_lines_fit_and_balance(system, capsys):
    assert main(["derive", system, "--latex"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert all(_balanced(row) for row in _rows(out))


@pytest.mark.parametrize("system", SYSTEMS)
def test_broken_rows_are_the_same_equations(system):
    original = get_system(system).latex(symbol_names=LATEX_NAMES)
    broken = break_latex(original)
    unbroken_rows = [r for r in _rows(original) if "\\frac" not in r]  # a long \frac is rewritten as 1/D (N)
    joined = _plain("".join(_rows(broken)))
    for row in unbroken_rows:
        assert _plain(row) in joined


def test_long_fraction_becomes_a_breakable_product():
    num = " + ".join(f"a_{{{i}}} b_{{{i}}}" for i in range(20))
    tex = f"\\begin{{aligned}}\nr &= - \\frac{{{num}}}{{c + d}}\n\\end{{aligned}}"
    out = break_latex(tex, 60)
    assert max(len(line) for line in out.splitlines()) <= 60 and "\\frac{1}{c + d}" in out
    assert all(_balanced(row) for row in _rows(out))
    assert _plain(out).replace("\\frac{1}{c+d}", "").replace("\\left(", "").replace("\\right)", "") == \
        _plain(f"\\begin{{aligned}}r=-{num}\\end{{aligned}}")


def test_terms_split_only_at_the_top_level():
    assert terms("- a + \\left(b - c\\right) + \\frac{d + e}{f} - g") == [
        "- a", "+ \\left(b - c\\right)", "+ \\frac{d + e}{f}", "- g"]
