r"""The result store: a partitioned Parquet dataset with one row per task.

Layout of a sweep directory::

    OUT/
      sweep.json                         manifest: quantity, partitioning, config history
      data/d=2000/part-<run>-<k>.parquet one file per flush (Hive-style partition directories)
      runs/<run>.json                    one record per invocation (executor, counts, timing)
      .lock                              held (flock) while a sweep writes here

Every part file is written to a hidden temporary file in its directory (``.part-….part``) and
renamed into place (:func:`asymptotics.atomic.write_bytes`), so a reader — this module,
``pyarrow.dataset`` or pandas, which all skip names starting with ``.`` or ``_`` — never sees a
partial file, whatever happens to the writing process. Rows are written by the driver only (workers
return them), so a task retried after its worker died is written once.

The partition columns are encoded in the directory names and not repeated inside the files (the
Hive convention), so ``pyarrow.dataset.dataset(OUT / "data", partitioning="hive")`` reads the
dataset directly; :func:`read_sweep` also restores their types, unifies the schemas of all parts
and resolves a task written twice (a failed task retried with ``--retry-failed``: the ``ok`` row
wins, otherwise the latest). :meth:`SweepStore.compact` then removes such superseded rows from the
files, so after a completed run every task has exactly one row on disk.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
import secrets
from contextlib import contextmanager
from pathlib import Path

from ..atomic import output_dir, path_error, write_bytes
from ..errors import AsymptoticsError
from ..results import to_jsonable
from .tasks import BOOKKEEPING_COLUMNS

__all__ = ["SweepStore", "StoreError", "read_sweep", "new_run_id", "STATUS_RANK"]

FORMAT = "asymptotics.sweep/1"
#: Preference when one task has several rows: lower wins, ties go to the latest ``started``.
STATUS_RANK = {"ok": 0, "error": 1, "refused": 2}


class StoreError(AsymptoticsError, RuntimeError):
    """The output directory cannot hold this sweep (another quantity, partitioning, or locked)."""


def new_run_id() -> str:
    """``20250101T120000-1a2b3c``: UTC start time and 24 random bits."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


def _pa_types():
    import pyarrow as pa

    s, i = pa.string(), pa.int64()
    return {
        "task_id": s, "quantity": s, "replicate": i, "root_seed": i, "seed": i, "status": s,
        "error": s, "traceback": s, "warnings": s, "started": pa.timestamp("us", tz="UTC"),
        "elapsed_s": pa.float64(), "worker": s, "memory_estimate": i, "threads": i, "versions": s, "run_id": s,
    }


class SweepStore:
    """A sweep's output directory (see the module docstring)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.data = self.root / "data"
        self.runs = self.root / "runs"
        self.manifest_path = self.root / "sweep.json"

    # ---- manifest --------------------------------------------------------------------------
    def manifest(self) -> dict | None:
        try:
            text = self.manifest_path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {self.manifest_path}: {exc.strerror or exc}; choose another --out "
                             "directory") from None
        try:
            return json.loads(text)
        except ValueError:  # not JSON (or not UTF-8)
            raise StoreError(f"{self.root} is not an asymptotics sweep directory ({self.manifest_path.name} is "
                             "not a sweep manifest); choose another --out directory") from None

    def exists(self) -> bool:
        return self.manifest_path.exists()

    @property
    def partition_by(self) -> tuple[str, ...]:
        m = self.manifest() or {}
        return tuple(m.get("partition_by", ()))

    def check_compatible(self, config) -> None:
        """Raise :class:`StoreError` if the directory holds a different quantity or partitioning, and
        :class:`~asymptotics.errors.ParameterError` (``--out``) if it is a file (nothing is created)."""
        blocker = next((p for p in (self.root, *self.root.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise path_error("--out", self.root, "a directory, not an existing file",
                             f"{blocker} is a file; choose another location or remove the file")
        m = self.manifest()
        if m is None:
            return
        if m.get("format") != FORMAT:
            raise StoreError(f"{self.root} is not an asymptotics sweep directory (format {m.get('format')!r})")
        if m.get("quantity") != config.quantity:
            raise StoreError(
                f"{self.root} holds results of quantity {m.get('quantity')!r}, not {config.quantity!r}; "
                "choose another --out directory"
            )
        if tuple(m.get("partition_by", ())) != tuple(config.partition_by):
            raise StoreError(
                f"{self.root} is partitioned by {m.get('partition_by')}, the config asks for "
                f"{list(config.partition_by)}; choose another --out directory or the same partition_by"
            )

    def open_for(self, config, run_id: str) -> None:
        """Create the directory and manifest, or append this config to the existing manifest."""
        self.check_compatible(config)
        self.data.mkdir(parents=True, exist_ok=True)
        self.runs.mkdir(parents=True, exist_ok=True)
        m = self.manifest()
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        entry = {
            "run_id": run_id,
            "time": now,
            "name": config.name,
            "source": str(config.source) if config.source else None,
            "config": to_jsonable(config.raw),
            "n_tasks": config.n_tasks,
        }
        if m is None:
            part_types = {}
            for p in config.partition_by:
                vals = [config.fixed[p]] if p in config.fixed else list(config.grid[p])
                part_types[p] = "string" if any(isinstance(v, str) for v in vals) else "int64"
            m = {
                "format": FORMAT,
                "quantity": config.quantity,
                "partition_by": list(config.partition_by),
                "partition_types": part_types,
                "created": now,
                "history": [],
            }
        m["updated"] = now
        m["history"].append(entry)
        write_bytes(self.manifest_path, (json.dumps(m, indent=2) + "\n").encode(), create_parents=True)

    @contextmanager
    def lock(self):
        """Hold an exclusive lock on the directory (two sweeps never write the same store)."""
        import fcntl

        output_dir(self.root, "--out")  # created, and writable, or one clear error
        fh = open(self.root / ".lock", "a+")
        try:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.seek(0)
                who = fh.read().strip()
                raise StoreError(f"another sweep is writing to {self.root} ({who or 'unknown process'})") from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()} on {os.uname().nodename}\n")
            fh.flush()
            yield self
        finally:
            fh.close()

    # ---- writing ---------------------------------------------------------------------------
    def _partition_types(self) -> dict:
        import pyarrow as pa

        m = self.manifest() or {}
        return {k: pa.string() if v == "string" else pa.int64() for k, v in m.get("partition_types", {}).items()}

    def write(self, rows: list[dict], run_id: str, seq: int) -> list[Path]:
        """Write ``rows`` as one part file per partition (atomically). Returns the paths."""
        if not rows:
            return []
        part_by = self.partition_by
        groups: dict[tuple, list[dict]] = {}
        for r in rows:
            groups.setdefault(tuple(r.get(p) for p in part_by), []).append(r)
        paths = []
        for key, grp in groups.items():
            sub = self.data
            for p, v in zip(part_by, key, strict=True):
                sub = sub / f"{p}={v}"
            table = _rows_to_table(grp, drop=part_by)
            path = sub / f"part-{run_id}-{seq:06d}.parquet"
            write_bytes(path, _table_bytes(table), create_parents=True)
            paths.append(path)
        return paths

    def write_run_record(self, run_id: str, record: dict) -> Path:
        return write_bytes(self.runs / f"{run_id}.json", (json.dumps(to_jsonable(record), indent=2) + "\n").encode(), create_parents=True)

    # ---- reading ---------------------------------------------------------------------------
    def part_files(self) -> list[Path]:
        """Visible part files (hidden temporaries excluded), sorted."""
        if not self.data.exists():
            return []
        out = []
        for dirpath, dirnames, filenames in os.walk(self.data):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            out += [Path(dirpath) / f for f in filenames if f.startswith("part-") and f.endswith(".parquet")]
        return sorted(out)

    def _dataset(self, files):
        import pyarrow as pa
        import pyarrow.dataset as ds
        import pyarrow.parquet as pq

        ptypes = self._partition_types()
        part_schema = pa.schema([(p, ptypes.get(p, pa.string())) for p in self.partition_by])
        schemas = [pq.read_schema(f) for f in files]
        schemas = [s.remove_metadata() for s in schemas]
        unified = pa.unify_schemas(schemas + [part_schema], promote_options="permissive")
        partitioning = ds.partitioning(part_schema, flavor="hive") if len(part_schema) else None
        return ds.dataset(
            [str(f) for f in files],
            schema=unified,
            format="parquet",
            partitioning=partitioning,
            partition_base_dir=str(self.data),
        )

    def read_table(self, columns: list[str] | None = None):
        """All rows as one pyarrow Table (no de-duplication)."""
        import pyarrow as pa

        files = self.part_files()
        if not files:
            types = _pa_types()
            return pa.table({c: pa.array([], type=types[c]) for c in BOOKKEEPING_COLUMNS})
        dset = self._dataset(files)
        if columns is not None:
            columns = [c for c in columns if c in dset.schema.names]
        return dset.to_table(columns=columns)

    def read(self, latest: bool = True, columns: list[str] | None = None):
        """The rows as a pandas DataFrame; ``latest`` keeps one row per task (``STATUS_RANK``)."""
        need = None if columns is None else list(dict.fromkeys([*columns, "task_id", "status", "started"]))
        df = self.read_table(need).to_pandas()
        if latest and len(df):
            df = _resolve_latest(df)
        if columns is not None:
            df = df[[c for c in columns if c in df.columns]]
        return df.reset_index(drop=True)

    def statuses(self) -> dict[str, str]:
        """``task_id → status`` of the row that counts for each task."""
        df = self.read(latest=True, columns=["task_id", "status"])
        return dict(zip(df["task_id"], df["status"], strict=True))

    # ---- compaction ------------------------------------------------------------------------
    def compact(self, run_id: str) -> int:
        """Remove superseded rows (tasks with several rows) from the part files. Returns the
        number of rows removed. Each rewritten file is written atomically before the old one is
        deleted, so an interruption leaves at worst a duplicate, which :meth:`read` resolves."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        df = self.read(latest=False, columns=["task_id", "status", "started", "run_id"])
        if not len(df) or not df["task_id"].duplicated().any():
            return 0
        dup_ids = set(df.loc[df["task_id"].duplicated(keep=False), "task_id"])
        keep = _resolve_latest(df[df["task_id"].isin(dup_ids)])
        keepers = set(zip(keep["task_id"], keep["run_id"], keep["started"], strict=True))
        removed = 0
        for i, f in enumerate(self.part_files()):
            t = pq.read_table(f)
            if not dup_ids.intersection(t.column("task_id").to_pylist()):
                continue
            cols = t.select(["task_id", "run_id", "started"]).to_pandas()
            mask = [tid not in dup_ids or (tid, rid, st) in keepers
                    for tid, rid, st in zip(cols["task_id"], cols["run_id"], cols["started"], strict=True)]
            n_drop = mask.count(False)
            if n_drop == 0:
                continue
            removed += n_drop
            new = t.filter(pa.array(mask))
            if new.num_rows:
                write_bytes(f.parent / f"part-{run_id}-c{i:06d}.parquet", _table_bytes(new), create_parents=True)
            f.unlink()
        return removed


def _resolve_latest(df):
    rank = df["status"].map(STATUS_RANK).fillna(9)
    order = df.assign(_rank=rank).sort_values(["_rank", "started"], ascending=[True, False], kind="stable")
    return order.drop_duplicates("task_id", keep="first").drop(columns="_rank").sort_index()


def _column(name: str, values: list):
    import pyarrow as pa

    types = _pa_types()
    if name == "started":
        return pa.array(
            [None if v is None else _dt.datetime.fromtimestamp(v, _dt.UTC) for v in values], type=types[name]
        )
    if name in types:
        return pa.array(values, type=types[name])
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else json.dumps(v) if not isinstance(v, str) else v for v in values],
                        type=pa.string())


def _rows_to_table(rows: list[dict], drop: tuple[str, ...] = ()):
    import pyarrow as pa

    cols: list[str] = list(BOOKKEEPING_COLUMNS)
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    cols = [c for c in cols if c not in drop]
    return pa.table({c: _column(c, [r.get(c) for r in rows]) for c in cols})


def _table_bytes(table) -> bytes:
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def read_sweep(path: str | os.PathLike, *, latest: bool = True, columns: list[str] | None = None, ok_only: bool = False):
    """Read a sweep directory into a pandas DataFrame, one row per task.

    Columns: the bookkeeping columns (``task_id``, ``quantity``, ``replicate``, ``seed``,
    ``status``, ``error``, ``traceback``, ``warnings``, ``started``, ``elapsed_s``, ``worker``,
    ``memory_estimate``, ``versions``, ``run_id``), one column per parameter and one per value
    the quantity returned (prefixed ``out_`` where a value's name equals a parameter's).
    ``ok_only=True`` keeps the rows with ``status == "ok"``.
    """
    store = SweepStore(path)
    if not store.exists():
        raise StoreError(f"{path} is not a sweep directory (no sweep.json)")
    df = store.read(latest=latest, columns=columns)
    if ok_only and len(df):
        df = df[df["status"] == "ok"].reset_index(drop=True)
    return df
