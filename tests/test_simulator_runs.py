"""Running the simulator: seed streams that extend (the on-disk store), threads chosen by problem size,
the memory pre-flight, progress and stage callbacks, per-seed values.

References: recomputation (a stored seed must be returned bit for bit, a new one must equal the same
seed computed afresh), the documented thresholds of the thread choice, and the memory estimate's
own arithmetic against a measured peak (benchmarks/results/simulator.md).
"""

from __future__ import annotations

import json
import math

import pytest

from asymptotics.errors import ParameterError
from validation.simulator import BaConfig, CuiConfig, simulate, simulate_many
from validation.simulator.config import memory_estimate
from validation.simulator.store import SeedStore, code_version
from validation.simulator.threads import PROCESS_SECONDS, THREADED_PRODUCT, choose_parallelism, seed_flops

pytestmark = pytest.mark.filterwarnings("ignore::asymptotics.errors.DegenerateWarning", "ignore:one seed")


def _numbers(res):
    return [{k: v for k, v in ps.items() if k != "elapsed_s"} for ps in res.per_seed]


def test_store_extends_seeds_and_returns_stored_runs_bit_for_bit(tmp_path):
    cfg = BaConfig(d=60, psi1=2.0, psi2=1.5, eta=3.0, measure=("risk", "spike"))
    first = simulate(cfg, seeds=2, root_seed=3, blas_threads=1, store=tmp_path)
    assert first.meta["store"]["read"] == 0 and first.meta["store"]["computed"] == 2
    more = simulate(cfg, seeds=4, root_seed=3, blas_threads=1, store=tmp_path)
    assert more.meta["store"]["read"] == 2 and more.meta["store"]["computed"] == 2
    fresh = simulate(cfg, seeds=4, root_seed=3, blas_threads=1)
    assert _numbers(more) == _numbers(fresh)  # stored and new seeds both equal a fresh computation
    assert _numbers(more)[:2] == _numbers(first)
    # only the new seed indices, in any order; a larger d is a new configuration
    tail = simulate(cfg, seeds=[5, 3], root_seed=3, blas_threads=1, store=tmp_path)
    assert tail.seed_indices == [5, 3] and tail.meta["store"]["read"] == 1
    assert _numbers(tail)[1] == _numbers(fresh)[3]
    big = simulate(cfg.replace(d=80), seeds=2, root_seed=3, blas_threads=1, store=tmp_path)
    assert big.meta["store"]["read"] == 0
    # one JSON file per seed, with its key material
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 7
    rec = json.loads(files[0].read_text())
    assert rec["code"] == code_version() and rec["threads_per_task"] == 1 and "values" in rec


def test_store_key_depends_on_everything_that_changes_numbers(tmp_path):
    st = SeedStore(tmp_path)
    cfg = BaConfig(d=40, measure=("risk",))
    keys = {
        st.key(cfg, 0, 0, 1), st.key(cfg, 1, 0, 1), st.key(cfg, 0, 1, 1), st.key(cfg, 0, 0, 2),
        st.key(cfg.replace(eta=2.0), 0, 0, 1), st.key(cfg.replace(test_risk="monte-carlo"), 0, 0, 1),
    }  # fmt: skip
    assert len(keys) == 6


def test_per_seed_values_and_seed_indices():
    cfg = BaConfig(d=50, measure=("risk",))
    res = simulate(cfg, seeds=range(2, 5), blas_threads=1)
    assert res.seed_indices == [2, 3, 4]
    v = res.values("delta")
    assert v.shape == (3,)
    assert res.mean["delta"] == pytest.approx(v.mean(), rel=1e-15)
    assert res.se["delta"] == pytest.approx(v.std(ddof=1) / math.sqrt(3), rel=1e-12)
    one = simulate(cfg, seeds=[3], blas_threads=1)
    assert _numbers(one)[0] == _numbers(res)[1]  # seed 3's numbers do not depend on the others
    with pytest.raises(ParameterError):
        simulate(cfg, seeds=[1, 1])


def test_thread_choice_by_problem_size():
    small = BaConfig(d=150, measure=("risk",))
    large = BaConfig(d=2000, psi1=1.0, psi2=1.0, measure=("risk",))
    assert 2000**3 >= THREADED_PRODUCT > 150 * 300 * 225
    assert choose_parallelism([small], 4, 2) == (1, 1)  # too little work to pay for starting processes
    assert choose_parallelism([large], 1, 2) == (1, 2)  # all cores in BLAS
    assert choose_parallelism([large], 8, 2) == (1, 2)
    many = math.ceil(PROCESS_SECONDS * 2e10 / seed_flops(small)) + 1
    assert choose_parallelism([small], many, 2) == (2, 1)  # one thread per seed, seeds in parallel
    assert choose_parallelism([small], many, 1) == (1, 1)
    res = simulate(small.replace(d=60), seeds=2)
    assert res.meta["threads_chosen"] == "by problem size" and res.meta["threads_per_task"] == 1


def test_workers_give_the_same_numbers_as_one_thread():
    cfg = CuiConfig(d=80, alpha=2.0, eta_tilde=3.0, measure=("risk", "baseline"))
    a = simulate(cfg, seeds=2, root_seed=9, blas_threads=1)
    b = simulate(cfg, seeds=2, root_seed=9, workers=2)
    assert b.meta["mode"] == "processes" and _numbers(a) == _numbers(b)


def test_memory_preflight_refuses_with_one_line():
    cfg = BaConfig(d=8000, psi1=1.0, psi2=1.0, measure=("risk",))
    need = memory_estimate(cfg)
    # the arrays alive at the peak (ridge phase): W₀, W₁, X̃, Φ, the Gram matrix and its factor
    assert need >= 8 * (2 * 8000**2 + 8000**2 + 8000**2 + 2 * 8000**2)
    assert need < 6 * 2**30  # measured peak 3.2 GiB (benchmarks/results/simulator.md)
    with pytest.raises(ParameterError) as info:
        simulate(cfg, seeds=1, max_memory=2**30)
    msg = str(info.value)
    assert info.value.name == "d" and "needs about" in msg and "GiB" in msg and "limit 1.00 GiB" in msg
    assert "\n" not in msg


def test_progress_and_stages():
    cfg = BaConfig(d=50, measure=("risk", "spike"))
    done, stages = [], []
    simulate_many([cfg, cfg.replace(eta=2.0)], seeds=2, blas_threads=1, progress=lambda k, n: done.append((k, n)),
                  on_stage=lambda i, k, s: stages.append((i, k, s)))  # fmt: skip
    assert done == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert stages[:4] == [(0, 0, "first layer"), (0, 0, "spike"), (0, 0, "readout"), (0, 0, "risk")]
    assert len(stages) == 16


def test_bad_test_risk_and_tolerance():
    with pytest.raises(ParameterError) as info:
        BaConfig(test_risk="sampled")
    assert info.value.name == "test_risk"
    with pytest.raises(ParameterError) as info:
        BaConfig(risk_rtol=0.5)
    assert info.value.name == "risk_rtol"
    assert BaConfig(test_risk="monte_carlo").test_risk == "monte-carlo"


def test_docstring_examples():
    import doctest

    import validation.simulator as package
    from validation.simulator import config, dual_kernels, parallel, quadrature, result, store

    for mod in (package, config, dual_kernels, parallel, quadrature, result, store):
        failed, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert failed == 0, mod.__name__
