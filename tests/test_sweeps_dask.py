"""Sweeps on a real dask.distributed LocalCluster (worker processes): a worker killed mid-run loses
nothing and duplicates nothing, and every row equals the in-process result for the same task."""

import os
import signal
import time

import numpy as np

from asymptotics.sweeps import SweepStore, plan_sweep, read_sweep, run_sweep  # noqa: E402

VALUE_COLUMNS = ["mean", "mean_se", "linear", "linear_se", "quadratic", "quadratic_se", "second_moment",
                 "second_moment_se"]


def mc_config(out, seeds, samples):
    return {"quantity": "gaussian.monte_carlo", "out": str(out), "seeds": seeds, "root_seed": 2024,
            "fixed": {"activation": "tanh", "samples": samples}, "grid": {"scale": [0.5, 1.0, 2.0, 4.0]}}


def assert_same_rows(df, ref, columns):
    assert len(df) == len(ref) and not df["task_id"].duplicated().any()
    a = df.set_index("task_id").sort_index()
    b = ref.set_index("task_id").sort_index()
    assert list(a.index) == list(b.index)
    assert (a["status"] == "ok").all() and (a["seed"] == b["seed"]).all()
    for c in columns:
        np.testing.assert_array_equal(a[c].to_numpy(), b[c].to_numpy(), err_msg=c)  # bit for bit


def test_killed_worker_loses_and_duplicates_nothing(tmp_path):
    from distributed import Client, LocalCluster

    cfg = mc_config(tmp_path / "dask", seeds=2, samples=2_000_000)   # 8 tasks of ~0.15 s
    cfg["execution"] = {"flush_seconds": 3600}  # no fsync in the driver before the kill (slow on busy disks)
    plan = plan_sweep(cfg)
    killed = {}

    def kill_a_busy_worker(update):
        if killed:
            return
        client = update.executor.client
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            busy = {w: keys for w, keys in client.processing().items() if keys}
            if busy:
                break
            time.sleep(0.02)
        assert busy, "no task in flight to kill"
        worker, keys = next(iter(busy.items()))
        pid = client.run(os.getpid, workers=[worker])[worker]
        killed.update(pid=pid, keys=list(keys), done=update.done)
        os.kill(pid, signal.SIGKILL)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        pids_before = set(client.run(os.getpid).values())
        s = run_sweep(cfg, scheduler=cluster.scheduler_address, progress=False, callback=kill_a_busy_worker)
        pids_after = set(client.run(os.getpid).values())

    assert killed, "the sweep finished before a worker could be killed"
    assert killed["done"] < 8 and killed["pid"] in pids_before and killed["pid"] not in pids_after
    assert s.complete and (s.ok, s.failed, s.refused) == (8, 0, 0)
    assert "Dask scheduler tcp://" in s.executor

    raw = SweepStore(tmp_path / "dask").read(latest=False)      # what is on disk, unresolved
    assert sorted(raw["task_id"]) == sorted(t.task_id for t in plan.tasks)   # each task exactly once
    # the tasks that were on the killed worker were recomputed elsewhere
    index = {f"asymptotics-sweep-{s.run_id}-{i}": t.task_id for i, t in enumerate(plan.pending)}
    lost = {index[k] for k in killed["keys"]}
    assert lost
    by_id = raw.set_index("task_id")
    for tid in lost:
        assert not by_id.loc[tid, "worker"].endswith(f":{killed['pid']}")

    ref_cfg = mc_config(tmp_path / "ref", seeds=2, samples=2_000_000)
    run_sweep(ref_cfg, progress=False)                          # the same tasks, in-process
    assert_same_rows(raw, read_sweep(tmp_path / "ref"), VALUE_COLUMNS)


def test_local_cluster_spec_with_memory_limit(tmp_path):
    cfg = mc_config(tmp_path / "local", seeds=1, samples=20_000)
    seen = {}

    def record(update):
        info = update.executor.client.scheduler_info()["workers"]
        seen["limits"] = {w["memory_limit"] for w in info.values()}
        seen["threads"] = {w["nthreads"] for w in info.values()}

    s = run_sweep(cfg, scheduler="local:2", max_memory="1GiB", threads_per_task=1, progress=False, callback=record)
    assert s.complete and s.ok == 4 and "LocalCluster: 2 worker processes" in s.executor
    assert seen == {"limits": {2**30}, "threads": {1}} and s.memory_limit == 2**30
    df = read_sweep(tmp_path / "local")
    assert set(df["threads"]) == {1}
    assert len({w.split(":")[1] for w in df["worker"]} - {str(os.getpid())}) >= 1
    run_sweep(mc_config(tmp_path / "ref", seeds=1, samples=20_000), progress=False)
    assert_same_rows(df, read_sweep(tmp_path / "ref"), VALUE_COLUMNS)
