"""``reproduce(out_dir, size)``: every figure and table of both papers, with a report and a manifest.

Output layout (every file written atomically; a run interrupted by Ctrl-C or a kill leaves only
complete files, a ``manifest.json`` saying ``"complete": false``, and the finished simulations in the
cache, from which a rerun resumes):

```text
out_dir/
  report.md                        every figure, what it checks, theory-vs-simulation tables
  manifest.json                    parameters, seeds, versions, timings, cache use, status
  figures/<name>.png, .pdf         the figures
  tables/<name>.csv|.parquet|.tex|.md     theory vs simulation (figures) or the paper's table
  tables/comparison.*              all theory-vs-simulation rows with z-scores
  data/<name>.json|.csv|.parquet   everything plotted (theory curves, simulation points, lines)
```
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
import traceback
from pathlib import Path

from ..atomic import output_dir, write_bytes
from ..errors import ParameterError
from ..results import base_meta, to_jsonable
from .cache import SimulationCache, simulator_fingerprint
from .context import Context
from .export import write_table
from .plot import draw
from .progress import NullProgress, make_reporter
from .registry import COMPARISON_COLUMNS, SIZES, items
from .report import build_report, comparison_counts, comparison_rows, verdict_counts

__all__ = ["reproduce", "run_item", "remove_stale_partials", "DEFAULT_SEED"]

DEFAULT_SEED = 20260101


def _rel(path: Path, root: Path) -> str:
    return str(Path(path).relative_to(root))


def run_item(item, out: Path, *, size: str, cache: SimulationCache, seed: int = DEFAULT_SEED, workers: int = 1,
             progress=None) -> tuple[dict, object]:
    """Compute, export and draw one item; returns ``(record, data)`` (data is None after an error).

    The record's ``status`` is ``ok``, ``finding`` (a judged theory-vs-simulation comparison failed
    or a computed verdict does not hold: reported, and ``reproduce --strict`` exits 1) or ``error``
    (the data function, the export or the drawing raised: recorded with its traceback, and the run
    goes on). ``comparisons`` counts judged / passed / failed / not judged; ``verdicts`` counts the
    claims that hold / do not hold / are undecided.
    """
    progress = progress or NullProgress()
    rec: dict = {"kind": item.kind, "paper": item.paper, "checks": item.checks, "size_params": dict(item.size(size)),
                 "outputs": {}, "timings": {}}
    t0 = time.perf_counter()
    c0 = time.process_time()
    ctx = Context(item=item, size=size, cache=cache, root_seed=seed, workers=workers, progress=progress)
    stage = "data"
    try:
        data = item.data(ctx)
        t1 = time.perf_counter()
        rec["timings"]["compute_s"] = t1 - t0
        stage = "export"
        _export(item, data, rec, out, size=size, seed=seed)
    except Exception as exc:  # recorded in the manifest and the report; the run goes on
        prefix = "" if stage == "data" else f"{stage}: "
        rec.update(status="error", reason=f"{prefix}{type(exc).__name__}: {exc}", traceback=traceback.format_exc())
        rec["timings"]["total_s"] = time.perf_counter() - t0
        rec["simulations"] = _sim_summary(ctx)
        return rec, None
    t2 = time.perf_counter()
    rec["simulations"] = _sim_summary(ctx)
    rec["timings"]["export_s"] = t2 - t1
    rec["timings"]["total_s"] = t2 - t0
    rec["timings"]["cpu_s"] = time.process_time() - c0
    rec["comparisons"] = comparison_counts(data.comparisons)
    rec["verdicts"] = verdict_counts(data.verdicts)
    found = rec["comparisons"]["failed"] + rec["verdicts"]["does_not_hold"]
    rec["status"] = "finding" if found else "ok"
    rec["params"] = data.params
    return rec, data


def _export(item, data, rec, out, *, size, seed):
    """Write the data, tables and figure of one computed item (atomically); fills ``rec['outputs']``."""
    meta = base_meta(item=item.name, paper=item.paper, size=size, seed=seed, params=data.params)

    # data: everything shown
    data_dir = out / "data"
    p = write_bytes(data_dir / f"{item.name}.json",
                    (json.dumps(to_jsonable({"meta": meta, "data": data.as_dict()}), indent=1) + "\n").encode(),
                    create_parents=True)
    rec["outputs"]["data"] = _rel(p, out)
    tidy = data.tidy_rows()
    if tidy:
        for q in write_table(tidy, data_dir / item.name, meta=meta, formats=("csv", "parquet")):
            rec["outputs"][f"data_{q.suffix[1:]}"] = _rel(q, out)

    # tables: the paper's table (table items) or theory vs simulation (figures)
    table_rows = data.table if data.table else comparison_rows(data)
    if table_rows:
        (out / "tables").mkdir(parents=True, exist_ok=True)
        for q in write_table(table_rows, out / "tables" / item.name, meta=meta,
                             columns=item.table_columns(bool(data.table)), precision=item.table.precision,
                             caption=f"{item.title} ({item.paper}). {data.caption}".strip(),
                             label=f"tab:{item.name}"):
            rec["outputs"][q.suffix[1:] if q.suffix != ".tex" else "latex"] = _rel(q, out)

    # the figure
    if item.plot is not None:
        from ..figures import paper_style, save_figure

        (out / "figures").mkdir(parents=True, exist_ok=True)
        with paper_style():
            fig = draw(item.plot, data)
            for q in save_figure(fig, out / "figures" / item.name):
                rec["outputs"][q.suffix[1:]] = _rel(q, out)


def remove_stale_partials(folder: Path, older_than_s: float = 0.0) -> int:
    """Delete temporary ``.*.part`` files left by a process that was killed (SIGKILL) between creating
    and renaming them; only those older than ``older_than_s`` (a shared cache may be written by a
    concurrent run). Returns how many were removed."""
    folder = Path(folder)
    if not folder.exists():
        return 0
    now, n = time.time(), 0
    for f in folder.rglob(".*.part"):
        try:
            if now - f.stat().st_mtime >= older_than_s:
                f.unlink()
                n += 1
        except OSError:  # gone already, or not ours to remove
            pass
    return n


def _sim_summary(ctx) -> dict:
    sims = ctx.simulations
    return {"total": len(sims), "from_cache": sum(s["cached"] for s in sims),
            "computed": sum(not s["cached"] for s in sims), "keys": [s["key"][:16] for s in sims]}


def reproduce(out_dir, size: str = "default", *, names=None, seed: int = DEFAULT_SEED, workers: int = 1,
              cache_dir=None, use_cache: bool = True, progress: bool = True, docs_dir=None) -> dict:
    """Regenerate the figures and tables into ``out_dir``; returns the manifest (also written).

    Args:
        out_dir: output folder (created).
        size: ``"quick"``, ``"default"``, ``"full"`` (paper sizes), or ``"toy"`` (tests); the
            README states how long each takes on 2 cores.
        names: only these items (default: all).
        seed: root seed of every simulation.
        workers: parallel workers of the simulator.
        cache_dir: simulation cache (default: the user cache); ``use_cache=False`` recomputes all.
        progress: report progress on stderr: a live display on a terminal, else one line per
            finished item (name, status, seconds).
        docs_dir: also copy the PNG figures there (used to refresh ``docs/figures``).

    On an interrupt (Ctrl-C) the finished items' files, a manifest saying ``"complete": false``
    and the finished simulations (in the cache) are kept, a line on stderr says so, and the
    exception propagates; running the same command again resumes from the cache.
    """
    if size not in SIZES:
        raise ParameterError("size", size, f"one of {', '.join(SIZES)}")
    selected = [it for it in items(names) if names or it.only_sizes is None or size in it.only_sizes]
    out = output_dir(out_dir, "--out")  # every output location is checked before any work
    if docs_dir is not None:
        output_dir(docs_dir, "--docs-dir")
    cache = SimulationCache(cache_dir, enabled=use_cache)
    if use_cache:
        output_dir(cache.root, "--cache-dir")
    removed = remove_stale_partials(out) + remove_stale_partials(cache.root, older_than_s=3600)
    manifest = _new_manifest(size, seed, workers, cache, removed)
    datas = {}
    t_start = time.perf_counter()
    reporter = make_reporter(progress)

    def write_manifest():
        manifest["cache"] = cache.stats()
        manifest["total_s"] = time.perf_counter() - t_start
        write_bytes(out / "manifest.json", (json.dumps(to_jsonable(manifest), indent=1) + "\n").encode(), create_parents=True)

    n = len(selected)
    try:
        reporter.begin(size, n, out)
        for i, it in enumerate(selected, 1):
            reporter.item_started(it.name, i, n)
            rec, data = run_item(it, out, size=size, cache=cache, seed=seed, workers=workers, progress=reporter.bars)
            manifest["items"][it.name] = rec
            if data is not None:
                datas[it.name] = data
            write_manifest()
            reporter.item_done(it.name, rec, i, n)
    except BaseException:
        manifest["interrupted"] = True
        write_manifest()
        reporter.close()
        reporter.say(_interrupted_message(manifest, n, out, cache))
        raise
    reporter.close()

    _write_comparison_tables(manifest, datas, out, size, seed)
    manifest["total_s"] = time.perf_counter() - t_start
    manifest["cache"] = cache.stats()
    manifest["finished"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    manifest["summary"] = _summary(manifest["items"])
    report = build_report(manifest, datas, selected)
    write_bytes(out / "report.md", report.encode(), create_parents=True)
    manifest["complete"] = True
    write_manifest()
    written = [out / "manifest.json", out / "report.md"] + [out / p for p in manifest.get("comparison_tables", [])]
    written += [out / p for rec in manifest["items"].values() for p in rec.get("outputs", {}).values()]
    if docs_dir is not None:
        written += _copy_figures(manifest["items"], out, docs_dir)
    _readable(written)
    return manifest


def _new_manifest(size: str, seed: int, workers: int, cache: SimulationCache, removed) -> dict:
    """The manifest of a run as it starts (``"complete": false``, no items yet)."""
    return {
        "complete": False,
        "size": size,
        "seed": seed,
        "workers": workers,
        "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "versions": base_meta()["versions"],
        "simulator_code": simulator_fingerprint(),
        "cache": cache.stats(),
        "removed_partial_files": removed,
        "items": {},
    }


def _write_comparison_tables(manifest: dict, datas: dict, out: Path, size: str, seed: int) -> None:
    """Every item's theory-against-simulation rows in one table (``tables/comparison.*``), listed
    in ``manifest["comparison_tables"]``; nothing when no item has any."""
    all_rows = [r for d in datas.values() for r in comparison_rows(d)]
    if all_rows:
        meta = base_meta(size=size, seed=seed)
        paths = write_table(all_rows, out / "tables" / "comparison", meta=meta,
                            columns=["figure", *COMPARISON_COLUMNS],
                            caption="Theory against simulation (mean ± s.e. over seeds): method, status, reason",
                            label="tab:comparison")
        manifest["comparison_tables"] = [_rel(p, out) for p in paths]


def _summary(items: dict) -> dict:
    """Items per status (ok, finding, error), then the comparisons summed over the items (total,
    judged, passed, failed, not judged)."""
    summary = {s: sum(1 for r in items.values() if r["status"] == s) for s in ("ok", "finding", "error")}
    counts = [r.get("comparisons") or {} for r in items.values()]
    summary.update({k: sum(c.get(k, 0) for c in counts) for k in ("total", "judged", "passed", "failed", "not_judged")})
    return summary


def _copy_figures(items: dict, out: Path, docs_dir) -> list[Path]:
    """The PNG figures copied into ``docs_dir`` (``--docs-dir``); returns the paths written."""
    docs = output_dir(docs_dir, "--docs-dir")
    written = []
    for rec in items.values():
        png = rec.get("outputs", {}).get("png")
        if png:
            written.append(write_bytes(docs / Path(png).name, (out / png).read_bytes(), create_parents=True,
                                       name="--docs-dir"))
    return written


def _interrupted_message(manifest: dict, n: int, out: Path, cache: SimulationCache) -> str:
    done = len(manifest["items"])
    sims = cache.count("write")
    where = f"in the cache {cache.root}" if cache.enabled else "nowhere (--no-cache)"
    return (f"reproduce interrupted: {done} of {n} item(s) finished and saved in {out} (manifest.json says "
            f"\"complete\": false); {sims} simulation(s) finished in this run are saved {where}; "
            "run the same command again to resume")


def _readable(paths) -> None:
    """Give the outputs the usual permissions (0666 & ~umask): temporary files are created 0600."""
    mask = os.umask(0)
    os.umask(mask)
    for p in paths:
        try:
            os.chmod(p, 0o666 & ~mask)
        except OSError:
            pass


