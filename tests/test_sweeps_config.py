"""Sweep configs: schema, clear errors before any work, grids, task identity and seeds."""

import hashlib
import json
import textwrap

import numpy as np
import pytest

from asymptotics.errors import ParameterError
from asymptotics.sweeps import (
    ConfigError,
    Param,
    get_quantity,
    load_config,
    make_tasks,
    parse_memory,
    parse_scheduler,
    register_quantity,
    run_sweep,
)
from asymptotics.sweeps.tasks import canonical_identity

CALLS = []


def _spy(params, seed):
    CALLS.append((params, seed))
    return {"value": float(params["x"])}


register_quantity(
    "test.spy",
    _spy,
    parameters={"x": Param("float"), "n": Param("int", 3), "label": Param("str", "a")},
    check=lambda p: None if p["x"] >= 0 else (_ for _ in ()).throw(ParameterError("x", p["x"], ">= 0")),
    replace=True,
)


def write(tmp_path, text, name="sweep.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def problems_of(src):
    with pytest.raises(ConfigError) as info:
        load_config(src)
    return info.value.problems, str(info.value)


def test_good_config_from_toml(tmp_path):
    p = write(tmp_path, """
        quantity = "test.spy"
        seeds = 2
        root_seed = 7
        [fixed]
        label = "b"
        [grid]
        x = "0:1:3"
        n = [1, 2]
        [execution]
        max_memory = "2GiB"
        batch_size = 4
    """)
    cfg = load_config(p)
    assert cfg.name == "sweep" and cfg.out == tmp_path / "sweep.sweep"
    assert cfg.grid == {"x": (0.0, 0.5, 1.0), "n": (1, 2)}
    assert cfg.fixed == {"label": "b"}
    assert cfg.seeds == (0, 1) and cfg.root_seed == 7
    assert cfg.execution.max_memory == 2 * 2**30 and cfg.execution.batch_size == 4
    pts = cfg.points()
    assert len(pts) == 6 and cfg.n_tasks == 12
    # first grid key varies slowest; every point complete with the fixed values
    assert [(q["x"], q["n"]) for q in pts] == [(0.0, 1), (0.0, 2), (0.5, 1), (0.5, 2), (1.0, 1), (1.0, 2)]
    assert all(q["label"] == "b" for q in pts)


def test_all_problems_reported_together_and_nothing_runs(tmp_path):
    CALLS.clear()
    p = write(tmp_path, """
        quantity = "test.spy"
        sedes = 3
        seeds = "four"
        [fixed]
        n = 2.5
        [grid]
        x = []
        lable = ["a"]
        [execution]
        max_memroy = "1G"
        retries = -1
    """)
    probs, text = problems_of(p)
    joined = "\n".join(probs)
    assert "unknown key 'sedes' (did you mean 'seeds'?)" in joined
    assert "seeds = 'four': expected an integer >= 1" in joined
    assert "[fixed] n = 2.5: expected an integer" in joined
    assert "[grid] x: the grid is empty" in joined
    assert "[grid] lable: not a parameter of quantity 'test.spy' (did you mean 'label'?)" in joined
    assert "[execution] unknown key 'max_memroy' (did you mean 'max_memory'?)" in joined
    assert "[execution] retries = -1: expected an integer >= 0" in joined
    assert str(p) in text and f"({len(probs)} problems)" in text
    # run_sweep validates before doing anything: no output directory, no quantity call
    with pytest.raises(ConfigError):
        run_sweep(p, progress=False)
    assert not (tmp_path / "sweep.sweep").exists()
    assert CALLS == []


@pytest.mark.parametrize(
    "cfg, expected",
    [
        ({"fixed": {"x": 1}}, "missing key 'quantity'"),
        ({"quantity": "test.spi", "grid": {"x": [1]}}, "did you mean 'test.spy'"),
        ({"quantity": "test.spy", "grid": {"n": [1]}}, "missing required parameter(s) of 'test.spy': x"),
        ({"quantity": "test.spy", "grid": {"x": "log:0:1:3"}}, "log range with positive ends"),
        ({"quantity": "test.spy", "grid": {"x": "1:2"}}, "start:stop:num"),
        ({"quantity": "test.spy", "grid": {"x": [1, "a"]}}, "[grid] x[1] = 'a': expected a number, got a string"),
        ({"quantity": "test.spy", "grid": {"x": [1, 1.0]}}, "repeated values"),
        ({"quantity": "test.spy", "grid": {"x": [1], "n": [True]}}, "expected an integer, got a boolean"),
        ({"quantity": "test.spy", "grid": {"x": [float("nan")]}}, "expected a finite number"),
        ({"quantity": "test.spy", "grid": {"x": {"a": 1}}}, "got a table"),
        ({"quantity": "test.spy", "grid": {"label": "abc", "x": [1]}}, "must be an array"),
        ({"quantity": "test.spy", "fixed": {"x": 1}, "grid": {"x": [2]}}, "both in [fixed] and in [grid]"),
        ({"quantity": "test.spy", "fixed": {"x": 1}, "grid": {}}, "[grid] is empty"),
        ({"quantity": "test.spy", "grid": {"x": [1, 2], "n": [1]}, "zip": [["x", "n"]]}, "equal lengths"),
        ({"quantity": "test.spy", "grid": {"x": [1]}, "zip": [["x", "q"]]}, "q not in [grid]"),
        ({"quantity": "test.spy", "grid": {"x": [1.5]}, "partition_by": ["x"]}, "integer or string values"),
        ({"quantity": "test.spy", "grid": {"x": [1]}, "seeds": [1, 1]}, "must be distinct"),
        ({"quantity": "test.spy", "grid": {"x": [1]}, "execution": {"scheduler": "dask"}}, "invalid scheduler='dask'"),
        ({"quantity": "test.spy", "grid": {"x": [1]}, "execution": {"max_memory": "lots"}}, "invalid [execution] max_memory='lots'"),
        ({"quantity": "gaussian.moments", "fixed": {"activation": "erf"}, "grid": {"scale": [1]}, "seeds": 3},
         "is deterministic"),
        ({"quantity": "test.spy", "grid": {"x": [1, -2, 3]}}, "point (x=-2.0): invalid x=-2.0"),
        ({"quantity": "gaussian.moments", "grid": {"scale": [1.0]}, "fixed": {"activation": "tanh(x"}},
         "invalid activation='tanh(x'"),
    ],
)
def test_bad_configs_name_the_problem(cfg, expected):
    probs, _ = problems_of(cfg)
    assert any(expected in p for p in probs), probs


def test_toml_syntax_error_names_the_file(tmp_path):
    p = write(tmp_path, 'quantity = "test.spy"\n[grid\nx = [1]\n')
    probs, text = problems_of(p)
    assert "not valid TOML" in probs[0] and str(p) in text
    probs, _ = problems_of(tmp_path / "missing.toml")
    assert "no such file" in probs[0]


def test_zip_and_defaults_and_partitioning():
    cfg = load_config({"quantity": "test.spy", "grid": {"x": [1, 2, 3], "n": [10, 20, 30], "label": ["p", "q"]},
                       "zip": [["x", "n"]], "partition_by": ["label"], "out": "/tmp/never-used"})
    pts = cfg.points()
    assert [(q["x"], q["n"], q["label"]) for q in pts] == [
        (1.0, 10, "p"), (1.0, 10, "q"), (2.0, 20, "p"), (2.0, 20, "q"), (3.0, 30, "p"), (3.0, 30, "q")]
    assert cfg.partition_by == ("label",)
    # defaults filled in from the schema, d-partitioning only when a quantity has an integer d
    cfg = load_config({"quantity": "test.spy", "grid": {"x": [1]}})
    assert cfg.points() == [{"n": 3, "label": "a", "x": 1.0}] and cfg.partition_by == ()


def test_memory_and_scheduler_parsing():
    assert parse_memory("512MiB") == 512 * 2**20
    assert parse_memory("8G") == 8 * 2**30 and parse_memory("8GB") == 8 * 10**9
    assert parse_memory(1e9) == 10**9
    for bad in ("0", "-1GB", "8 parsecs", True, None, float("inf")):
        with pytest.raises(ParameterError):
            parse_memory(bad)
    assert parse_scheduler(None) == ("inprocess", None)
    assert parse_scheduler("local:3") == ("local", 3)
    assert parse_scheduler("processes:2") == ("processes", 2)
    assert parse_scheduler("tcp://10.0.0.1:8786") == ("address", "tcp://10.0.0.1:8786")
    for bad in ("local:0", "local:x", "dask", "http://x"):
        with pytest.raises(ParameterError):
            parse_scheduler(bad)


# ---- task identity and seeds ----------------------------------------------------------------

def _reference_seed(identity: str, root: int) -> int:
    # the recipe of asymptotics/sweeps/tasks.py, re-derived from its documentation
    digest = hashlib.sha256(identity.encode()).digest()
    key = [int.from_bytes(digest[4 * i: 4 * i + 4], "little") for i in range(4)]
    lo, hi = np.random.SeedSequence(root, spawn_key=key).generate_state(2, np.uint32)
    return ((int(hi) << 32) | int(lo)) >> 1


def test_seeds_follow_the_documented_recipe_and_ignore_grid_order():
    q = get_quantity("test.spy")
    a = load_config({"quantity": "test.spy", "seeds": 2, "root_seed": 5, "grid": {"x": [1, 2], "n": [4, 5]}})
    b = load_config({"quantity": "test.spy", "seeds": 2, "root_seed": 5, "grid": {"n": [5, 4, 6], "x": [2.0, 1.0]}})
    ta = {(t.params["x"], t.params["n"], t.replicate): t for t in make_tasks(a, q)}
    tb = {(t.params["x"], t.params["n"], t.replicate): t for t in make_tasks(b, q)}
    for key, t in ta.items():
        assert tb[key].task_id == t.task_id and tb[key].seed == t.seed  # 1 and 1.0, any order
        ident = json.dumps({"params": {"label": "a", "n": key[1], "x": int(key[0])}, "quantity": "test.spy",
                            "replicate": key[2]}, sort_keys=True, separators=(",", ":"))
        assert canonical_identity("test.spy", t.params, t.replicate) == ident
        assert t.seed == _reference_seed(ident, 5)
        assert 0 <= t.seed < 2**63
    seeds = [t.seed for t in ta.values()]
    assert len(set(seeds)) == len(seeds)
    # another root seed gives other ids and seeds
    c = load_config({"quantity": "test.spy", "seeds": 2, "root_seed": 6, "grid": {"x": [1, 2], "n": [4, 5]}})
    tc = make_tasks(c, q)
    assert not {t.seed for t in tc} & set(seeds) and not {t.task_id for t in tc} & {t.task_id for t in ta.values()}


def test_common_random_numbers_share_the_seed_across_points():
    q = get_quantity("test.spy")
    cfg = load_config({"quantity": "test.spy", "seeds": 3, "common_random_numbers": True, "grid": {"x": [1, 2, 3]}})
    tasks = make_tasks(cfg, q)
    by_rep = {}
    for t in tasks:
        by_rep.setdefault(t.replicate, set()).add(t.seed)
    assert all(len(s) == 1 for s in by_rep.values()) and len({next(iter(s)) for s in by_rep.values()}) == 3
    assert by_rep[1] == {_reference_seed('{"replicate":1}', 0)}
    assert len({t.task_id for t in tasks}) == 9


def test_a_dict_config_needs_an_output_directory():
    with pytest.raises(ConfigError, match="no output directory"):
        run_sweep({"quantity": "test.spy", "grid": {"x": [1]}}, progress=False)
