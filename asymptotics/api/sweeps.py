r"""``asy.sweep``: run or resume a parameter sweep (in-process, local processes or a Dask cluster)
into a partitioned Parquet dataset, the command ``asymptotics sweep CONFIG``.

A sweep can be far larger than memory, so its result is not a table in memory but the
:class:`SweepRun`: the run's summary (shown as a table in a notebook) and ``.to_frame()``, which
reads the dataset (``ok_only=True`` for the rows that succeeded). See ``docs/sweeps.md``.

>>> import asymptotics as asy, tempfile
>>> run = asy.sweep({"quantity": "gaussian.moments", "out": tempfile.mkdtemp(),
...                  "fixed": {"activation": "erf"}, "grid": {"scale": [0.5, 1.0, 2.0]}})
>>> run.complete, len(run.to_frame())
(True, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

from .checks import checked
from .progress import Progress

__all__ = ["sweep", "SweepRun"]


@dataclass(frozen=True)
class SweepRun:
    """The outcome of :func:`sweep`: ``summary`` (a
    :class:`~asymptotics.sweeps.SweepSummary`: counts, timings, errors) and where the rows are."""

    summary: object

    @property
    def out(self):
        """The output directory (a partitioned Parquet dataset)."""
        return self.summary.out

    @property
    def complete(self) -> bool:
        """Every task of the sweep has an ``ok`` row."""
        return self.summary.complete

    def to_frame(self, ok_only: bool = False, columns=None):
        """The sweep's rows as a pandas DataFrame (``ok_only``: only the tasks that succeeded)."""
        from ..sweeps import read_sweep

        return read_sweep(self.out, ok_only=ok_only, columns=columns)

    def __repr__(self) -> str:
        return f"<SweepRun {self.summary.quantity} into {self.out}: {self.summary.ok} ok, {self.summary.failed} failed, " \
               f"{self.summary.refused} refused of {self.summary.total}{'' if self.complete else ' (incomplete)'}>"

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                       for k, v in self.summary.as_dict().items() if k not in ("errors",) and v not in (None, ()))
        errs = "".join(f"<li>{html.escape(e)}</li>" for e in self.summary.errors)
        return f"<div><table>{rows}</table>{f'<ul>{errs}</ul>' if errs else ''}</div>"


@checked
def sweep(config, *, scheduler=None, out=None, max_memory=None, retries: int | None = None,
          batch_size: int | None = None, threads_per_task: int | None = None, retry_failed: bool = False,
          dry_run: bool = False, progress: bool | None = None) -> SweepRun:
    """Run (or resume) the sweep described by ``config`` (``asymptotics sweep CONFIG``): one row
    per (parameter point, seed) task, with status, timing and versions; completed tasks are
    skipped, so calling it again resumes an interrupted sweep.

    Args:
        config: a TOML path, a dict with the same structure, or a SweepConfig.
        scheduler: ``None``/``"in-process"``, ``"processes:N"``, ``"local:N"`` (Dask LocalCluster),
            ``"tcp://host:port"`` or a ``distributed.Client``.
        out: the output directory (overrides ``out`` in the config).
        max_memory: per-task memory bound (bytes or ``"8GiB"``); tasks estimated above it are refused.
        retries: times a task whose worker died is retried.
        batch_size: tasks per executor job.
        threads_per_task: BLAS/numba threads per task.
        retry_failed: also rerun tasks recorded as failed.
        dry_run: validate the config and plan only.
        progress: ``None`` (automatic), ``True`` or ``False`` (works in Jupyter and in a terminal).
    """
    from ..sweeps import plan_sweep, run_sweep

    total = None
    if not dry_run:
        try:
            total = len(plan_sweep(config, out, retry_failed=retry_failed).pending)
        except Exception:  # run_sweep reports the problem with its own message
            total = None
    bar = Progress(total or 0, "sweep", progress if total else False, min_total=0)
    with bar:
        summary = run_sweep(config, scheduler, out=out, max_memory=max_memory, retries=retries, batch_size=batch_size,
                            threads_per_task=threads_per_task, retry_failed=retry_failed, dry_run=dry_run,
                            progress=False, callback=lambda u: bar.update(u.done, u.total))
    return SweepRun(summary)
