"""`asymptotics reproduce` at toy size: no item errors, every output exists and parses, every
theory-vs-simulation row has a method and a status (no allowance anywhere), reruns read the cache, changed inputs recompute,
a log gets one line per item, and an interrupted run says what it saved, leaves no half-written file
and resumes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from asymptotics.cli.app import main  # noqa: E402
from asymptotics.reproduce import items, reproduce  # noqa: E402
from asymptotics.reproduce.registry import SIZES  # noqa: E402


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("reproduce")
    out, cache = root / "out", root / "cache"
    manifest = reproduce(out, "toy", cache_dir=cache, progress=False)
    return out, cache, manifest


def _toy_items():
    """The items a toy-size run includes (finite-size studies belong to full runs only)."""
    return [it for it in items() if it.only_sizes is None or "toy" in it.only_sizes]


def _partials(*folders):
    return [p for f in folders for p in f.rglob("*") if p.name.endswith(".part") or p.name.endswith(".tmp")]


def test_every_item_is_registered_with_all_sizes():
    names = [it.name for it in items()]
    for expected in ("ba_fig1", "ba_fig3a", "ba_fig3b", "ba_fig3c", "alignment_eta", "alignment_psi1", "ck_spike",
                     "cui_learning_curves", "cui_step_hurts", "cui_k_types"):
        assert expected in names
    for it in items():
        assert set(SIZES) <= set(it.sizes) and it.paper and it.checks.endswith(".")


def test_size_presets_written_by_parameter():
    from asymptotics.reproduce.registry import sizes

    assert sizes(d=(100, 200, 500, 2000), seeds=(2, 2, 3, 4))["default"] == {"d": 500, "seeds": 3}
    assert sizes(eta=([1.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0, 3.0]))["toy"] == {"eta": [1.0]}
    assert sizes() == {s: {} for s in SIZES}  # theory only
    with pytest.raises(ValueError, match="d has 3 values"):
        sizes(d=(100, 200, 500))


def test_every_output_exists_and_parses(toy):
    import pandas as pd
    import pyarrow.parquet as pq

    out, _, manifest = toy
    assert manifest["complete"] is True and manifest["size"] == "toy"
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk["complete"] is True and set(on_disk["items"]) == {it.name for it in _toy_items()}
    assert on_disk["versions"]["asymptotics"] and on_disk["seed"] == manifest["seed"]
    report = (out / "report.md").read_text()
    for it in _toy_items():
        rec = manifest["items"][it.name]
        assert rec["status"] in ("ok", "finding"), (it.name, rec.get("reason"), rec.get("traceback"))
        assert f"## {it.name}" in report and it.checks in report
        outs = rec["outputs"]
        if it.kind == "figure":
            png, pdf = (out / outs["png"]).read_bytes(), (out / outs["pdf"]).read_bytes()
            assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
            assert pdf[:5] == b"%PDF-" and b"%%EOF" in pdf[-1024:]
            assert f"]({outs['png']})" in report
        data = json.loads((out / outs["data"]).read_text())
        assert data["meta"]["item"] == it.name and data["data"]["params"]
        if "csv" in outs:
            df = pd.read_csv(out / outs["csv"])
            tab = pq.read_table(out / outs["parquet"])
            assert len(df) == tab.num_rows > 0
            assert json.loads(tab.schema.metadata[b"asymptotics.meta"])["item"] == it.name
            tex = (out / outs["latex"]).read_text()
            assert tex.count(r"\toprule") == 1 and tex.count(r"\bottomrule") == 1 and r"\end{table}" in tex
            body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
            assert len(body) == len(df)
            md = (out / outs["md"]).read_text().splitlines()
            assert sum(1 for ln in md if ln.startswith("|")) == len(df) + 2
        assert rec["timings"]["total_s"] >= 0
    comp = pd.read_parquet(out / "tables" / "comparison.parquet")
    assert len(comp) == sum(r.get("comparisons", {}).get("total", 0) for r in manifest["items"].values()) > 20
    s = manifest["summary"]
    assert s["error"] == 0 and s["ok"] + s["finding"] == len(_toy_items())
    assert s["total"] == s["judged"] + s["not_judged"] and s["judged"] == s["passed"] + s["failed"]
    assert "allowance |" not in report and "by allowance" not in report and "tolerance" not in report
    assert not _partials(out)


def test_ck_spike_exports_no_outlier_as_missing(toy):
    """Below the separation the CK has no outlier: the plotted curve has a gap there (NaN), and its
    exported data carry null in the JSON and an empty cell in the CSV, never NaN; above it, numbers."""
    import pandas as pd

    from asymptotics.reproduce.catalog import ck_spike as C
    from asymptotics.theory.one_step import OneStepModel, ck_outlier

    out, _, manifest = toy
    outs = manifest["items"]["ck_spike"]["outputs"]
    text = (out / outs["data"]).read_text()
    assert "NaN" not in text and "Infinity" not in text
    (curve,) = [c for c in json.loads(text)["data"]["curves"] if c["quantity"] == "ck_outlier"]
    model = OneStepModel.from_activations(C.STUDENT, C.TEACHER, noise=C.NOISE)
    ck = ck_outlier(model, C.PSI1, C.PSI2, np.asarray(curve["x"]))
    sep = np.asarray(ck.separated, bool)
    assert 0 < sep.sum() < len(sep)  # the grid crosses the separation
    assert all((y is None) == (not s) for y, s in zip(curve["y"], sep, strict=True))
    assert ",nan," not in (out / outs["data_csv"]).read_text().lower()
    for df in (pd.read_csv(out / outs["data_csv"]), pd.read_parquet(out / outs["data_parquet"])):
        theory = df[(df["kind"] == "theory") & (df["quantity"] == "ck_outlier")]
        assert list(theory["value"].isna()) == list(~sep)


def test_every_comparison_has_a_method_and_a_recomputable_status(toy):
    """Each row: no allowance column; judged rows (≥ 8 seeds, a finite-size method) pass iff
    |simulation − theory| ≤ 3 s.e. (recomputed here, not trusted); not-judged rows state why."""
    out, _, manifest = toy
    import pandas as pd

    comp = pd.read_parquet(out / "tables" / "comparison.parquet")
    assert not any("allowance" in c or "tolerance" in c for c in comp.columns)
    assert set(comp["status"]) <= {"passed", "failed", "not judged"}
    for _, r in comp.iterrows():
        if r["status"] == "not judged":
            assert r["reason"], r.to_dict()
            continue
        assert r["method"] in ("finite-width theory", "extrapolation d → ∞")
        assert r["seeds"] is None or math.isnan(r["seeds"]) or r["seeds"] >= 8
        ok = abs(r["simulation"] - r["theory"]) <= 3 * r["se"]
        assert (r["status"] == "passed") == ok
    # the toy size has fewer than 8 seeds: nothing is judged on them (stated)
    assert comp["reason"].str.contains("seeds").any()


def test_second_run_reads_the_cache(toy, tmp_path):
    out, cache, first = toy
    names = ["ba_fig3a", "alignment_eta", "cui_step_hurts"]
    expected = sum(first["items"][n]["simulations"]["total"] for n in names)
    m = reproduce(tmp_path / "again", "toy", names=names, cache_dir=cache, progress=False)
    assert m["cache"]["misses"] == 0 and m["cache"]["writes"] == 0 and m["cache"]["hits"] == expected > 0
    for n in names:
        assert m["items"][n]["simulations"]["computed"] == 0
        a = json.loads((out / first["items"][n]["outputs"]["data"]).read_text())["data"]["points"]
        b = json.loads((tmp_path / "again" / m["items"][n]["outputs"]["data"]).read_text())["data"]["points"]
        assert a == b                                   # identical simulation results


def test_changed_input_recomputes_only_that(toy, tmp_path):
    _, cache, first = toy
    total = first["items"]["alignment_eta"]["simulations"]["total"]
    m = reproduce(tmp_path / "seed", "toy", names=["alignment_eta"], cache_dir=cache, seed=first["seed"] + 1,
                  progress=False)
    assert m["cache"]["misses"] == total and m["cache"]["hits"] == 0
    m2 = reproduce(tmp_path / "seed2", "toy", names=["alignment_eta", "ck_spike"], cache_dir=cache,
                   seed=first["seed"] + 1, progress=False)
    assert m2["items"]["alignment_eta"]["simulations"]["computed"] == 0
    assert m2["items"]["ck_spike"]["simulations"]["computed"] == m2["items"]["ck_spike"]["simulations"]["total"] > 0


def test_interrupted_run_leaves_no_partial_file_and_resumes(tmp_path, monkeypatch, capsys):
    import validation.simulator as sim

    real = sim.simulate
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the third simulation
        return real(*args, **kwargs)

    out, cache = tmp_path / "out", tmp_path / "cache"
    monkeypatch.setattr(sim, "simulate", flaky)
    with pytest.raises(KeyboardInterrupt):
        reproduce(out, "toy", names=["tab_srf_grid", "alignment_eta", "ck_spike"], cache_dir=cache, progress=False)
    monkeypatch.setattr(sim, "simulate", real)
    said = capsys.readouterr().err.strip().splitlines()             # like `sweep`: what was saved, how to resume
    assert said == [f"reproduce interrupted: 1 of 3 item(s) finished and saved in {out} (manifest.json says "
                    f"\"complete\": false); 2 simulation(s) finished in this run are saved in the cache {cache}; "
                    "run the same command again to resume"]
    assert not _partials(out, cache)
    manifest = json.loads((out / "manifest.json").read_text())       # parses: written atomically
    assert manifest["complete"] is False and manifest["interrupted"] is True
    assert manifest["items"]["tab_srf_grid"]["status"] == "ok"      # finished before the interruption
    assert "alignment_eta" not in manifest["items"] and not (out / "report.md").exists()
    for f in out.rglob("*"):                                        # every file that exists is complete
        if f.suffix == ".json":
            json.loads(f.read_text())
    assert len(list(cache.rglob("*.json"))) == 2                    # the two finished simulations
    resumed = reproduce(out, "toy", names=["tab_srf_grid", "alignment_eta", "ck_spike"], cache_dir=cache,
                        progress=False)
    assert resumed["complete"] is True and resumed["cache"]["hits"] == 2
    total = sum(resumed["items"][n]["simulations"]["total"] for n in ("alignment_eta", "ck_spike"))
    assert resumed["cache"]["misses"] == total - 2
    assert not _partials(out, cache)


def test_a_log_gets_one_line_per_finished_item(toy, tmp_path):
    """stderr not a terminal (a log, a pipe): one line per item with its name, status and seconds."""
    import subprocess
    import sys

    _, cache, _ = toy
    names = ["tab_srf_grid", "alignment_eta"]
    cmd = [sys.executable, "-m", "asymptotics", "reproduce", "--size", "toy", "--out", str(tmp_path / "o"),
           "--cache-dir", str(cache)] + [a for n in names for a in ("--only", n)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("reproduce [")]
    assert len(lines) == 2
    for i, (name, ln) in enumerate(zip(names, lines, strict=True), 1):
        assert ln.startswith(f"reproduce [{i}/2] {name}: ok in ") and " s" in ln
    assert "reproduce (toy): 2 item(s) into" in proc.stderr


def test_stale_partial_files_of_a_killed_run_are_removed(tmp_path):
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    stale = out / "figures" / ".ba_fig3a.png.abc123.part"
    stale.write_bytes(b"\x89PNG half")
    m = reproduce(out, "toy", names=["tab_srf_grid"], cache_dir=tmp_path / "c", progress=False)
    assert m["removed_partial_files"] == 1 and not stale.exists()


def test_cli_figure_list_and_one_figure(toy, tmp_path, capsys):
    _, cache, _ = toy
    assert main(["figure", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "ba_fig3a" in listing and "cui_step_hurts" in listing
    code = main(["figure", "ba_fig3b", "--size", "toy", "--out", str(tmp_path / "f"), "--cache-dir", str(cache),
                 "--no-progress"])
    assert code == 0
    assert (tmp_path / "f" / "figures" / "ba_fig3b.png").exists() and (tmp_path / "f" / "report.md").exists()
    assert main(["figure", "no_such_figure", "--size", "toy"]) == 2
    assert "ba_fig1" in capsys.readouterr().err
    assert main(["reproduce", "--quick", "--full"]) == 2


def test_finite_size_items_only_in_full_runs():
    # the finite-size convergence figures belong to `reproduce --full` (and `figure NAME`); a
    # toy/quick/default run leaves them out
    fs = [it for it in items() if it.name.startswith("finite-size-")]
    assert fs and all(it.only_sizes == ("full",) for it in fs)
