"""The computed verdicts of ``reproduce`` and the report they produce: a false claim becomes a "does not
hold here" sentence and a finding, a judged comparison that misses by more than 3 s.e. a failed row,
a d → ∞ theory at one d or too few seeds a "not judged" row with its reason — never a pass; and the
exit status changes only with ``--strict``. Every expected verdict is worked out by hand from the
synthetic numbers (the z-scores are (value − bound)/se)."""

from __future__ import annotations

import math

import pytest

from asymptotics.reproduce.data import EXTRAPOLATION, FINITE_WIDTH, INFINITE, FigureData, compare
from asymptotics.reproduce.registry import Item, sizes
from asymptotics.reproduce.verdicts import above, agrees, below, monotone, signs


def test_below_holds_fails_and_is_undecided_by_three_standard_errors():
    v = below([0.020, 0.0200], [0.001, 0.001], 0.0274, "R1")
    assert v.holds is True and v.z == pytest.approx(7.4)
    # the tanh ψ1 = 8 row: 0.0347 against the bound 0.0274 → 7.3 s.e. above it
    v = below([0.020, 0.0347], [0.001, 0.001], 0.0274, "R1")
    assert v.holds is False and "does not hold here" in v.sentence and "0.0347" in v.sentence
    assert v.z == pytest.approx(-7.3) and v.size == pytest.approx(0.0073)
    assert below([0.0270], [0.001], 0.0274, "R1").holds is None          # 0.4 s.e.: undecided
    assert above([0.05], [0.001], 0.0274, "R1").holds is True


def test_too_few_seeds_decide_nothing():
    v = below([0.0347], [0.001], 0.0274, "R1", seeds=2)
    assert v.holds is None and "2 seeds" in v.sentence
    assert agrees(0.5638, 0.000178, 0.5481, "label alignment", seeds=2).holds is None


def test_agrees_states_the_numbers_when_it_does_not_hold():
    v = agrees(0.5638, 0.000178, 0.5481, "the label alignment", seeds=8)
    assert v.holds is False and v.z == pytest.approx((0.5638 - 0.5481) / 0.000178)
    assert "does not hold here" in v.sentence and "0.5638" in v.sentence and "0.5481" in v.sentence
    assert agrees(0.55, 0.01, 0.5481, "x", seeds=8).holds is True


def test_monotone():
    xs = [0.0, 0.25, 0.5]
    assert monotone(xs, [0.30, 0.20, 0.10], [0.01] * 3, "decreasing", "R1").holds is True
    v = monotone(xs, [0.30, 0.40, 0.10], [0.01] * 3, "decreasing", "R1", x_name="a")
    # the step 0.30 → 0.40 is 0.1/√2·0.01 = 7.1 s.e. the wrong way
    assert v.holds is False and v.z == pytest.approx(-0.1 / math.sqrt(2e-4)) and "a = 0 to 0.25" in v.sentence
    assert monotone(xs, [0.30, 0.30, 0.29], [0.01] * 3, "decreasing", "R1").holds is None


def test_signs_of_a_difference():
    xs = [0.5, 3.0]
    assert signs(xs, [-0.05, 0.04], [0.01, 0.01], [-1, 1], "Δ").holds is True
    v = signs(xs, [-0.05, -0.04], [0.01, 0.01], [-1, 1], "Δ", x_name="α")
    assert v.holds is False and "α = 3" in v.sentence


def test_compare_judges_only_finite_size_methods_with_eight_seeds():
    c = compare("f", "q", {"a": 1.0}, 1.0, 1.05, 0.01, d=500, seeds=8, method=FINITE_WIDTH)
    assert c.judged and c.status == "failed" and c.z == pytest.approx(5.0)
    assert compare("f", "q", {}, 1.0, 1.02, 0.01, d=500, seeds=8, method=EXTRAPOLATION).status == "passed"
    c = compare("f", "q", {}, 1.0, 1.05, 0.01, d=500, seeds=8, method=INFINITE)
    assert c.status == "not judged" and "single d = 500" in c.reason and c.passed is None
    c = compare("f", "q", {}, 1.0, 1.05, 0.01, d=500, seeds=3, method=FINITE_WIDTH)
    assert c.status == "not judged" and "3 seeds" in c.reason
    assert "allowance" not in c.as_row()
    with pytest.raises(ValueError, match="method"):
        compare("f", "q", {}, 1.0, 1.0, 0.01, d=5, seeds=8, method="allowance")


def _synthetic(ctx):
    """An item whose claim is false: the simulated risk is above the bound it claims to be below,
    and its judged comparison misses the finite-width theory by 5 s.e."""
    fig = FigureData("synthetic", "psi1")
    fig.comparisons.append(compare("synthetic", "risk1", {"psi1": 8.0}, 0.0300, 0.0347, 0.00094, d=200, seeds=8,
                                   method=FINITE_WIDTH))
    fig.comparisons.append(compare("synthetic", "risk1", {"psi1": 4.0}, 0.0400, 0.0410, 0.0010, d=200, seeds=8,
                                   method=FINITE_WIDTH))
    fig.comparisons.append(compare("synthetic", "risk0", {"psi1": 8.0}, 0.0600, 0.0650, 0.0010, d=200, seeds=8,
                                   method=INFINITE))
    fig.verdicts.append(below([0.0347], [0.00094], 0.0274, "the large-step risk R₁", seeds=8))
    return fig


ITEM = Item(name="synthetic", title="A false claim", paper="none", checks="Nothing true.", sizes=sizes(),
            data=_synthetic)


def test_report_turns_a_false_claim_into_a_finding(tmp_path):
    from asymptotics.cli.commands.reproduce import summarise
    from asymptotics.reproduce.cache import SimulationCache
    from asymptotics.reproduce.report import build_report
    from asymptotics.reproduce.runner import run_item

    cache = SimulationCache(tmp_path / "cache", enabled=False)
    rec, data = run_item(ITEM, tmp_path, size="toy", cache=cache)
    assert rec["status"] == "finding"
    assert rec["comparisons"] == {"total": 3, "judged": 2, "passed": 1, "failed": 1, "not_judged": 1,
                                  "max_abs_z": pytest.approx(5.0), "methods": ["finite-width theory"]}
    assert rec["verdicts"] == {"holds": 0, "does_not_hold": 1, "undecided": 0}
    manifest = {"size": "toy", "seed": 1, "versions": {"asymptotics": "test"}, "total_s": 0.0,
                "cache": {"misses": 0, "hits": 0, "dir": str(tmp_path)}, "items": {"synthetic": rec},
                "summary": {"ok": 0, "finding": 1, "error": 0, "total": 3, "judged": 2, "passed": 1, "failed": 1,
                            "not_judged": 1}}
    report = build_report(manifest, {"synthetic": data}, [ITEM])
    # the claim: a sentence that says it does not hold, with the numbers ((0.0347 − 0.0274)/0.00094 = 7.8 s.e. above the bound)
    assert "✗ the large-step risk R₁ below 0.0274 — does not hold here: 0.0347 ± 0.00094 is 7.8 s.e." in report
    assert "### Findings" in report
    assert "**3 comparisons: 2 judged — 1 passed, 1 failed; 1 not judged**" in report
    assert "1 do not hold" in report and "0 allowances" in report
    rows = [ln for ln in report.splitlines() if ln.startswith("| risk1 ")]
    assert len(rows) == 2 and sum("failed" in r for r in rows) == 1 and sum("passed" in r for r in rows) == 1
    assert any("not judged" in ln and "single d = 200" in ln for ln in report.splitlines() if ln.startswith("| risk0"))
    # a finding is reported, not an error: exit 0 by default, 1 with --strict
    assert summarise(manifest, tmp_path) == 0
    assert summarise(manifest, tmp_path, strict=True) == 1
