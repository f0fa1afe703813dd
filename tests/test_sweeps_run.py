"""Running sweeps: built-in quantities against closed forms, the Parquet store, failures, memory
bounds, interruption and resumption (in-process and after a hard kill), local processes, the CLI."""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from asymptotics.cli.app import main
from asymptotics.sweeps import (
    Param,
    SweepStore,
    get_quantity,
    load_config,
    make_tasks,
    plan_sweep,
    read_sweep,
    register_quantity,
    run_sweep,
)
from asymptotics.sweeps.quantities import gaussian_moments, gaussian_monte_carlo

SQ2PI = math.sqrt(2 * math.pi)


# ---- the built-in quantities against closed forms -----------------------------------------------

def erf_moments(a):
    # E erf(az) = 0, E z erf(az) = 2a/√(π(1+2a²)), E (z²−1) erf(az) = 0, E erf(az)² = (2/π) asin(2a²/(1+2a²))
    return {"mean": 0.0, "linear": 2 * a / math.sqrt(math.pi * (1 + 2 * a * a)), "quadratic": 0.0,
            "second_moment": 2 / math.pi * math.asin(2 * a * a / (1 + 2 * a * a))}


def relu_moments(a, centered):
    # relu(az) = a relu(z) for a > 0: E = a/√(2π), E z· = a/2, E (z²−1)· = a/√(2π), E ·² = a²/2
    m = {"mean": a / SQ2PI, "linear": a / 2, "quadratic": a / SQ2PI, "second_moment": a * a / 2}
    if centered:  # σ̃ = relu − 1/√(2π), shifted before scaling
        c = 1 / SQ2PI
        m = {"mean": m["mean"] - c, "linear": m["linear"], "quadratic": m["quadratic"],
             "second_moment": m["second_moment"] - 2 * c * m["mean"] + c * c}
    return m


@pytest.mark.parametrize("a", [0.3, 1.0, 2.5])
def test_gaussian_moments_closed_forms(a):
    got = gaussian_moments({"activation": "erf", "center": True, "scale": a}, 0)
    for k, v in erf_moments(a).items():
        assert got[k] == pytest.approx(v, abs=1e-14), k
    for centered in (False, True):
        got = gaussian_moments({"activation": "relu", "center": centered, "scale": a}, 0)
        for k, v in relu_moments(a, centered).items():
            assert got[k] == pytest.approx(v, abs=1e-13), (k, centered)


def test_monte_carlo_within_standard_errors():
    n = 200_000
    zs = []
    for seed in range(4):
        got = gaussian_monte_carlo({"activation": "erf", "center": True, "scale": 1.5, "samples": n}, seed)
        exact = erf_moments(1.5)
        for k, v in exact.items():
            zs.append((got[k] - v) / got[f"{k}_se"])
        # the standard error of the mean estimates √(Var f / n), Var f = E f² for the odd erf
        assert got["mean_se"] == pytest.approx(math.sqrt(exact["second_moment"] / n), rel=0.02)
    assert max(abs(z) for z in zs) < 5.0, zs
    # deterministic in the seed
    p = {"activation": "tanh", "center": True, "scale": 1.0, "samples": 1000}
    assert gaussian_monte_carlo(p, 3) == gaussian_monte_carlo(p, 3) != gaussian_monte_carlo(p, 4)


# ---- in-process runs and the store --------------------------------------------------------------

MC = {"quantity": "gaussian.monte_carlo", "seeds": 2, "root_seed": 11,
      "fixed": {"activation": "tanh", "samples": 5000}, "grid": {"scale": [0.5, 1.0, 2.0]}}


def expected_rows(cfg):
    """The rows a sweep must contain: the quantity called directly with each task's seed."""
    cfg = load_config(cfg)
    q = get_quantity(cfg.quantity)
    return {t.task_id: (t, q.fn(dict(t.params), t.seed)) for t in make_tasks(cfg, q)}


def assert_rows_match(df, expected):
    assert sorted(df["task_id"]) == sorted(expected)          # every task, exactly once
    assert not df["task_id"].duplicated().any()
    for row in df.itertuples():
        task, values = expected[row.task_id]
        assert row.status == "ok" and row.seed == task.seed and row.replicate == task.replicate
        for k, v in values.items():
            assert getattr(row, k) == v, (k, getattr(row, k), v)   # bit-for-bit


def test_in_process_sweep_writes_one_row_per_task(tmp_path):
    cfg = {**MC, "out": str(tmp_path / "mc")}
    s = run_sweep(cfg, progress=False)
    assert s.complete and (s.total, s.ok, s.failed, s.previously_ok) == (6, 6, 0, 0)
    df = read_sweep(tmp_path / "mc")
    assert_rows_match(df, expected_rows(cfg))
    row = df.iloc[0]
    assert json.loads(row["versions"])["numpy"] == np.__version__
    assert row["elapsed_s"] > 0 and row["worker"].endswith(f":{os.getpid()}") and row["run_id"] == s.run_id
    assert row["memory_estimate"] > 0 and str(row["started"].tz) == "UTC"
    # a run record and a manifest
    assert json.loads((tmp_path / "mc" / "runs" / f"{s.run_id}.json").read_text())["ok"] == 6
    assert json.loads((tmp_path / "mc" / "sweep.json").read_text())["quantity"] == "gaussian.monte_carlo"


COUNT = {"n": 0}


def counted(params, seed):
    COUNT["n"] += 1
    return {"y": params["x"] ** 2 + params["k"], "seed_mod": seed % 1000}


register_quantity("test.counted", counted, replace=True)


def test_rerun_skips_done_tasks_and_extends_grids(tmp_path):
    cfg = {"quantity": "test.counted", "out": str(tmp_path / "c"), "partition_by": ["k"],
           "grid": {"x": [1.0, 2.0], "k": [3, 4]}}
    COUNT["n"] = 0
    run_sweep(cfg, progress=False)
    assert COUNT["n"] == 4
    s = run_sweep(cfg, progress=False)
    assert COUNT["n"] == 4 and s.pending == 0 and s.previously_ok == 4 and s.complete
    s = run_sweep({**cfg, "grid": {"x": [1.0, 2.0, 3.0], "k": [3, 4]}}, progress=False)
    assert COUNT["n"] == 6 and (s.previously_ok, s.ok) == (4, 2)
    # Hive partitions: readable by pyarrow directly, types restored by read_sweep
    assert sorted(p.name for p in (tmp_path / "c" / "data").iterdir()) == ["k=3", "k=4"]
    import pyarrow.dataset as ds

    direct = ds.dataset(tmp_path / "c" / "data", partitioning="hive").to_table().to_pandas()
    assert len(direct) == 6
    df = read_sweep(tmp_path / "c")
    assert df["k"].dtype == np.int64 and sorted(zip(df["x"], df["k"], df["y"], strict=True)) == sorted(
        (x, k, x * x + k) for x in (1.0, 2.0, 3.0) for k in (3, 4))


FLAKY = {"fixed": False}


def flaky(params, seed):
    x = params["x"]
    if x == 2 and not FLAKY["fixed"]:
        raise ValueError(f"no convergence at x={x}")
    if x == 3 and not FLAKY["fixed"]:
        return {"y": float("nan")}
    return {"y": x + 0.5}


register_quantity("test.flaky", flaky, replace=True)


def test_failures_are_recorded_and_do_not_stop_the_sweep(tmp_path):
    cfg = {"quantity": "test.flaky", "out": str(tmp_path / "f"), "grid": {"x": [1, 2, 3, 4]}}
    FLAKY["fixed"] = False
    s = run_sweep(cfg, progress=False)
    assert (s.ok, s.failed, s.complete) == (2, 2, False)
    df = read_sweep(tmp_path / "f").set_index("x")
    assert df.loc[2, "status"] == "error" and df.loc[2, "error"] == "ValueError: no convergence at x=2"
    assert "Traceback" in df.loc[2, "traceback"] and "raise ValueError" in df.loc[2, "traceback"]
    assert df.loc[3, "status"] == "error" and "non-finite value(s): y=nan" in df.loc[3, "error"]
    assert math.isnan(df.loc[3, "y"]) and df.loc[4, "y"] == 4.5  # no value kept for a failed task
    # failed tasks are final on a plain rerun, rerun on request; one row per task remains on disk
    assert run_sweep(cfg, progress=False).pending == 0
    FLAKY["fixed"] = True
    s = run_sweep(cfg, progress=False, retry_failed=True)
    assert (s.pending, s.ok, s.complete) == (2, 2, True)
    raw = SweepStore(tmp_path / "f").read(latest=False)
    assert len(raw) == 4 and set(raw["status"]) == {"ok"} and sorted(raw["y"]) == [1.5, 2.5, 3.5, 4.5]


def test_memory_preflight_refuses_tasks_that_cannot_fit(tmp_path):
    cfg = {"quantity": "gaussian.monte_carlo", "out": str(tmp_path / "m"),
           "fixed": {"activation": "erf"}, "grid": {"samples": [1000, 1_000_000]}}
    q = get_quantity("gaussian.monte_carlo")
    small, big = (q.memory_estimate({"samples": n}) for n in (1000, 1_000_000))
    bound = (small + big) // 2
    s = run_sweep(cfg, max_memory=bound, progress=False)
    assert (s.ok, s.refused, s.complete) == (1, 1, False)
    df = read_sweep(tmp_path / "m").set_index("samples")
    assert df.loc[1_000_000, "status"] == "refused" and "MemoryBound: estimated" in df.loc[1_000_000, "error"]
    s = run_sweep(cfg, max_memory="1GiB", progress=False)
    assert (s.pending, s.ok, s.complete) == (1, 1, True)
    raw = SweepStore(tmp_path / "m").read(latest=False)
    assert len(raw) == 2 and set(raw["status"]) == {"ok"}


def test_partial_files_are_never_visible(tmp_path, monkeypatch):
    cfg = {"quantity": "test.counted", "out": str(tmp_path / "p"), "grid": {"x": [1.0], "k": [1]}}
    run_sweep(cfg, progress=False)
    data = tmp_path / "p" / "data"
    # what a writer killed mid-write leaves: a hidden temporary next to the parts
    (data / ".part-dead-000000.parquet.x1y2.part").write_bytes(b"PAR1 half a file")
    df = read_sweep(tmp_path / "p")
    assert len(df) == 1
    import pyarrow.dataset as ds

    assert ds.dataset(data).count_rows() == 1
    # a failure inside the atomic write leaves nothing visible, and the sweep can be rerun
    import asymptotics.results as results

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(results.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        run_sweep({**cfg, "grid": {"x": [1.0, 2.0], "k": [1]}}, progress=False)
    monkeypatch.undo()
    assert len(read_sweep(tmp_path / "p")) == 1
    assert not [p for p in data.rglob("*") if p.name.startswith(".") and p.name != ".part-dead-000000.parquet.x1y2.part"]
    assert run_sweep({**cfg, "grid": {"x": [1.0, 2.0], "k": [1]}}, progress=False).complete


# ---- interruption and resumption ----------------------------------------------------------------

INTERRUPT = {"after": None, "n": 0}


def interruptible(params, seed):
    INTERRUPT["n"] += 1
    if INTERRUPT["after"] is not None and INTERRUPT["n"] > INTERRUPT["after"]:
        raise KeyboardInterrupt
    return gaussian_monte_carlo(params, seed)


register_quantity("test.interruptible", interruptible,
                  parameters=get_quantity("gaussian.monte_carlo").schema(), replace=True)


def test_interrupt_then_resume_has_no_duplicates_or_gaps(tmp_path):
    cfg = {**MC, "quantity": "test.interruptible", "out": str(tmp_path / "i"),
           "execution": {"flush_rows": 2, "flush_seconds": 3600}}
    INTERRUPT.update(after=3, n=0)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(cfg, progress=False)
    part = read_sweep(tmp_path / "i")
    assert len(part) == 3 and not part["task_id"].duplicated().any()  # finished rows were saved
    INTERRUPT.update(after=None, n=0)
    s = run_sweep(cfg, progress=False)
    assert (s.previously_ok, s.ok, INTERRUPT["n"]) == (3, 3, 3)
    raw = SweepStore(tmp_path / "i").read(latest=False)
    assert_rows_match(raw, expected_rows(cfg))


KILL_SCRIPT = """
import os, signal, sys
from asymptotics.sweeps import get_quantity, register_quantity, run_sweep
from asymptotics.sweeps.quantities import gaussian_monte_carlo

calls = [0]
def killable(params, seed):
    calls[0] += 1
    if calls[0] > int(os.environ.get("KILL_AFTER", "1000000")):
        os.kill(os.getpid(), signal.SIGKILL)          # no cleanup of any kind
    return gaussian_monte_carlo(params, seed)

register_quantity("test.killable", killable, parameters=get_quantity("gaussian.monte_carlo").schema())
if __name__ == "__main__":
    s = run_sweep(sys.argv[1], progress=False)
    print("COMPLETE" if s.complete else "INCOMPLETE", s.previously_ok, s.ok)
"""


def test_hard_kill_then_resume(tmp_path):
    script = tmp_path / "kill_sweep.py"
    script.write_text(KILL_SCRIPT)
    toml = tmp_path / "kill.toml"
    toml.write_text(textwrap.dedent("""
        quantity = "test.killable"
        seeds = 2
        root_seed = 11
        out = "killed.sweep"
        [fixed]
        activation = "tanh"
        samples = 5000
        [grid]
        scale = [0.5, 1.0, 2.0]
        [execution]
        flush_rows = 1
    """))
    env = {**os.environ, "KILL_AFTER": "4"}
    p = subprocess.run([sys.executable, str(script), str(toml)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == -9, p.stderr
    out = tmp_path / "killed.sweep"
    assert len(read_sweep(out)) == 4
    env.pop("KILL_AFTER")
    p = subprocess.run([sys.executable, str(script), str(toml)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.split() == ["COMPLETE", "4", "2"], (p.stdout, p.stderr)
    raw = SweepStore(out).read(latest=False)
    # the same quantity name (it is part of each task's identity), computed here without the kill
    register_quantity("test.killable", gaussian_monte_carlo,
                      parameters=get_quantity("gaussian.monte_carlo").schema(), replace=True)
    assert_rows_match(raw, expected_rows({**MC, "quantity": "test.killable", "out": str(out)}))
    assert not [f for f in (out / "data").rglob(".*")]


# ---- local processes ----------------------------------------------------------------------------

def dies_once(params, seed):
    marker = Path(params["marker"])
    if params["x"] == 2 and not marker.exists():
        marker.write_text("died")
        os._exit(1)  # the worker process dies mid-task
    return {"y": params["x"] * 10.0, "pid": os.getpid()}


register_quantity("test.dies_once", dies_once, replace=True)


def test_process_executor_retries_a_dead_worker(tmp_path):
    cfg = {"quantity": "test.dies_once", "out": str(tmp_path / "pp"),
           "fixed": {"marker": str(tmp_path / "marker")}, "grid": {"x": [1, 2, 3, 4]}}
    s = run_sweep(cfg, "processes:2", progress=False)
    assert (tmp_path / "marker").exists() and s.complete and s.ok == 4
    assert "2 local processes" in s.executor
    df = read_sweep(tmp_path / "pp")
    assert len(df) == 4 and sorted(df["y"]) == [10.0, 20.0, 30.0, 40.0]
    assert os.getpid() not in set(df["pid"])


# ---- the command line ---------------------------------------------------------------------------

def test_cli_sweep_runs_resumes_and_reports(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text(textwrap.dedent("""
        name = "cli-check"
        quantity = "gaussian.moments"
        [fixed]
        activation = "erf"
        [grid]
        scale = "log:0.1:10:5"
    """))
    assert main(["sweep", str(toml), "--dry-run"]) == 0
    assert "would run" in capsys.readouterr().out and not (tmp_path / "s.sweep").exists()
    assert main(["sweep", str(toml), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "complete" in out and "5 ok" in out
    df = read_sweep(tmp_path / "s.sweep")
    for row in df.itertuples():
        assert row.linear == pytest.approx(erf_moments(row.scale)["linear"], abs=1e-12)  # erf(10z) is nearly a step
    assert main(["sweep", str(toml), "--no-progress", "--out", str(tmp_path / "other")]) == 0
    assert len(read_sweep(tmp_path / "other")) == 5
    # failures give exit status 1, bad options 2 with one line
    bad = tmp_path / "f.toml"
    bad.write_text('quantity = "test.flaky"\n[grid]\nx = [1, 2]\n')
    FLAKY["fixed"] = False
    from typer.testing import CliRunner

    from asymptotics.cli.app import app

    result = CliRunner().invoke(app, ["sweep", str(bad), "--no-progress"])
    assert result.exit_code == 1 and "ValueError: no convergence at x=2" in result.output
    assert main(["sweep", str(toml), "--scheduler", "cluster"]) == 2
    assert "invalid scheduler='cluster'" in capsys.readouterr().err


def test_another_quantity_in_the_same_directory_is_refused(tmp_path):
    run_sweep({"quantity": "test.counted", "out": str(tmp_path / "x"), "grid": {"x": [1.0], "k": [1]}}, progress=False)
    from asymptotics.sweeps import StoreError

    with pytest.raises(StoreError, match="holds results of quantity 'test.counted'"):
        plan_sweep({"quantity": "test.flaky", "out": str(tmp_path / "x"), "grid": {"x": [1]}})


def test_a_dask_scheduler_without_dask_is_one_clear_line_naming_the_extra(tmp_path, monkeypatch, capsys):
    for mod in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, mod, None)   # as if the extra were not installed
    toml = tmp_path / "g.toml"
    toml.write_text('quantity = "gaussian.moments"\n[fixed]\nactivation = "erf"\n[grid]\nscale = [1.0]\n')
    assert main(["sweep", str(toml), "--scheduler", "local:2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'asymptotics[dask]'" in err[0] and "local:2" in err[0]
    assert not (tmp_path / "o").exists()                  # refused before anything was written


def _sized(params, seed):
    return {"threads": int(os.environ.get("ASYMPTOTICS_SWEEP_THREADS", "0"))}


register_quantity("test.sized", _sized, parameters={"flops": Param("float")}, cost=lambda p: p["flops"],
                  replace=True)


def test_default_threads_follow_the_task_size(tmp_path):
    from asymptotics.sweeps.executors import THREADED_COST

    cores = len(os.sched_getaffinity(0))
    for flops, expected in ((1e6, 1), (10 * THREADED_COST, cores)):
        s = run_sweep({"quantity": "test.sized", "out": str(tmp_path / f"s{flops:g}"), "grid": {"flops": [flops]}},
                      progress=False)
        df = read_sweep(tmp_path / f"s{flops:g}")
        # the budget the task saw, the one recorded in its row, and the summary's agree
        assert int(df["out_threads"].iloc[0]) == int(df["threads"].iloc[0]) == s.threads_per_task == expected
    s = run_sweep({"quantity": "test.sized", "out": str(tmp_path / "fixed"), "grid": {"flops": [1e6]}},
                  threads_per_task=3, progress=False)
    assert s.threads_per_task == 3 and int(read_sweep(tmp_path / "fixed")["out_threads"].iloc[0]) == 3


# ---- the simulator, when it is there ------------------------------------------------------------

def test_one_tiny_simulator_task(tmp_path):
    cfg = {"quantity": "simulate.ba", "out": str(tmp_path / "ba"),
           "fixed": {"student": "tanh", "teacher": "tanh", "d": 64, "n_test": 256, "psi2": 1.0},
           "grid": {"psi1": [2.0]}}
    s = run_sweep(cfg, progress=False)
    df = read_sweep(tmp_path / "ba")
    assert s.complete, s.errors
    assert (tmp_path / "ba" / "data" / "d=64").is_dir()
    assert df["memory_estimate"].iloc[0] > 0 and np.isfinite(df.filter(like="risk").select_dtypes("number").to_numpy(float)).all()
