"""The study runner end to end: a synthetic adapter with a known limit, the simulator adapter against
:func:`validation.simulator.simulate`, the seed store (resume), the budget guards, and every
registered variant's wiring (its quantities exist in the simulator's output, its theory evaluates).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from validation.finite_size import OMEGA_UNKNOWN, Quantity, SeedStore, Variant, run_study
from validation.finite_size.adapters import Seed, combined, simulator
from validation.finite_size.catalogue import VARIANTS, covered_cases, variants
from validation.finite_size.ladder import StudyMode

MINI = StudyMode("mini", (100, 141, 200, 283, 400, 566, 800), pilot=4, max_seeds=60, budget_s=1e6, target_factor=1.0)
L_TRUE, B_TRUE = 0.5, -2.0


def synthetic(params, d, seed):
    """value = L + b d^-1/2 + d^-1/2 ε, one independent ε per (root, index, d)."""
    rng = np.random.default_rng([seed.root, seed.index, d])
    return {"x": params["L"] + params["b"] * d**-0.5 + d**-0.5 * rng.standard_normal(), "elapsed_s": 1e-3 * d / 100}


def _variant(theory=L_TRUE, finite=None, references=(), **kw):
    q = Quantity("x", theory=lambda: theory, omegas=OMEGA_UNKNOWN, target_se=0.004, finite_theory=finite,
                 references=references)
    return Variant("synthetic", "none", "test", "synthetic ladder", {"L": L_TRUE, "b": B_TRUE}, synthetic, (q,), **kw)


def test_synthetic_study_recovers_the_limit_and_rejects_a_wrong_theory():
    res = run_study(_variant(), MINI, root_seed=3)
    q = res.quantities[0]
    assert res.passed and q.verdict.kind == "extrapolation"
    assert abs(q.extrapolation.limit - L_TRUE) <= 3 * q.extrapolation.limit_se
    # seeds follow the target: σ² ∝ 1/d, so k(d) ≈ 1/(d·0.004²) (capped at 60 at small d)
    assert res.plan.seeds[-1] == pytest.approx(1 / (800 * 0.004**2), rel=0.5)
    assert res.plan.seeds[0] == 60 and res.plan.capped_by == "max_seeds"
    row = res.rows()[0]
    for col in ("case", "quantity", "theory", "limit", "limit_se", "z", "omega", "chi2_dof", "dims", "passed",
                "means", "ses", "seeds"):
        assert col in row
    assert row["seeds"] == list(res.plan.seeds) and len(row["means"]) == len(MINI.dims)
    wrong = run_study(_variant(theory=L_TRUE + 8 * q.extrapolation.limit_se), MINI, root_seed=3)
    assert not wrong.passed and wrong.quantities[0].limit_verdict.z < -3


def test_finite_width_theory_verdict():
    exact = run_study(_variant(finite=lambda d: L_TRUE + B_TRUE / math.sqrt(d)), MINI, root_seed=4)
    assert exact.quantities[0].verdict.kind == "finite-width" and exact.passed
    off = run_study(_variant(finite=lambda d: L_TRUE + 0.7 * B_TRUE / math.sqrt(d)), MINI, root_seed=4)
    assert not off.passed  # a 30 % error in the finite-d correction is detected
    # a theory supplied from outside the description replaces it
    plug = run_study(_variant(), MINI, root_seed=4, finite_theories={("synthetic", "x"): lambda d: 0.0})
    assert plug.quantities[0].verdict.kind == "finite-width" and not plug.passed


def test_references_are_reported_beside_the_theory_not_judged():
    base = run_study(_variant(), MINI, root_seed=3)
    se = base.quantities[0].extrapolation.limit_se
    res = run_study(_variant(references=(("far", lambda: L_TRUE + 10 * se), ("true", lambda: L_TRUE))), MINI,
                    root_seed=3)
    q = res.quantities[0]
    assert res.passed  # a far reference does not fail the verdict ...
    z = q.reference_z()  # ... but its z is the limit's distance from it
    ex = q.extrapolation
    assert z["far"] == pytest.approx((ex.limit - L_TRUE - 10 * se) / ex.limit_se, rel=1e-12) and z["far"] < -6
    assert abs(z["true"]) <= 3
    row = res.rows()[0]
    assert row["references"]["far"]["theory"] == pytest.approx(L_TRUE + 10 * se)
    assert "far" in row["beside"] and "limit z" in row["beside"]
    assert [r[0] for r in res.as_dict()["quantities"][0]["references"]] == ["far", "true"]


def test_budget_scales_seeds_and_drops_expensive_rungs():
    res = run_study(_variant(), MINI, root_seed=5, budget_s=1.0)
    assert res.plan.capped_by == "budget" and "budget" in res.plan.note
    assert res.timings["simulated_s"] <= 1.0 + 1e-9
    slow = StudyMode("slow", MINI.dims, 4, 60, budget_s=0.05, target_factor=1.0)
    res = run_study(_variant(), slow, root_seed=5)
    assert res.meta["dropped_dims"] and len(res.quantities[0].dims) >= 3


def test_store_resumes_without_recomputing(tmp_path):
    calls = []

    def counted(params, d, seed):
        calls.append((d, seed.index))
        return synthetic(params, d, seed)

    store = SeedStore(tmp_path)
    first = run_study(_variant(), MINI, root_seed=6, store=store, adapter=counted)
    n = len(calls)
    again = run_study(_variant(), MINI, root_seed=6, store=SeedStore(tmp_path), adapter=counted)
    assert len(calls) == n and again.meta["store"]["misses"] == 0
    assert again.quantities[0].means == first.quantities[0].means


def test_simulator_adapter_is_seed_k_of_simulate():
    from validation.simulator import BaConfig, simulate

    params = dict(psi1=2.0, psi2=1.5, eta=5.0, n_test=2, measure=("spike",))
    run = simulator(BaConfig, threads=1)
    res = simulate(BaConfig(d=80, **params), seeds=3, root_seed=17, blas_threads=1)
    for k in range(3):
        out = run(params, 80, Seed(17, k))
        for name in ("overlap_beta", "overlap_a", "top_sv2"):
            assert out[name] == res.per_seed[k][name]  # bit for bit
    both = combined({"a": (run, {"eta": 5.0}), "b": (run, {"eta": 1.0})})(params, 80, Seed(17, 0))
    assert both["a.top_sv2"] == res.per_seed[0]["top_sv2"] and both["b.top_sv2"] != both["a.top_sv2"]


def test_every_registry_case_has_a_variant():
    from validation.cases import cases

    cov = covered_cases()
    assert {c.name for c in cases()} <= set(cov)
    assert {v.family for v in variants(quick=True)} == {"one_step", "spiked_rf", "large_step"}
    assert [v.name for v in variants(["one-step-theta2"])] == ["one-step-theta2"]
    from asymptotics.errors import ParameterError

    with pytest.raises(ParameterError, match="--case"):
        variants(["no-such-case"])


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_variant_wiring(variant):
    """One seed at a small d: every quantity is in the simulator's output and finite, the theory is
    finite (and so are a finite-width theory at that d and the reference values)."""
    d = 40 if variant.family != "large_step" else 30
    out = variant.adapter(variant.point(), d, Seed(1, 0))
    for q in variant.quantities:
        assert math.isfinite(q.value(out)), q.name
        assert math.isfinite(q.theory()), q.name
        if q.finite_theory is not None:
            assert math.isfinite(q.finite_theory(400)), q.name
        for name, ref in q.references:
            assert math.isfinite(ref()), (q.name, name)
        assert q.target(q.theory(), 1.0) > 0


@pytest.mark.parametrize("module", ["fit", "variance", "allocation", "verdict", "ladder", "spec", "adapters", "store",
                                    "catalogue"])
def test_docstring_examples(module):
    import doctest
    import importlib

    mod = importlib.import_module(f"validation.finite_size.{module}")
    assert doctest.testmod(mod).failed == 0


def test_figure_docstring_example():
    import doctest

    import asymptotics.figures.finite_size as mod

    assert doctest.testmod(mod).failed == 0
