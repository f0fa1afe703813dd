"""What ``reproduce`` says while it runs: a rich progress display on a terminal, one line per
finished item in a log (stderr not a terminal), nothing with ``progress=False`` — except, always,
what was saved when the run is interrupted.

>>> import io
>>> log = io.StringIO()
>>> r = LineReporter(log)
>>> r.begin("quick", 2, "out")
>>> r.item_done("ba_fig1", {"status": "ok", "timings": {"total_s": 12.34},
...                          "comparisons": {"total": 8, "judged": 6, "passed": 6, "failed": 0, "not_judged": 2}}, 1, 2)
>>> print(log.getvalue(), end="")
reproduce (quick): 2 item(s) into out
reproduce [1/2] ba_fig1: ok in 12.3 s (6 judged: 6 passed, 0 failed; 2 not judged)
"""

from __future__ import annotations

import sys

__all__ = ["NullProgress", "QuietReporter", "LineReporter", "RichReporter", "make_reporter", "item_line"]


class NullProgress:
    """Progress bars that draw nothing (the interface of ``rich.progress.Progress`` that the items use)."""

    def add_task(self, description: str, total: float | None = None, **kw) -> int:
        return 0

    def advance(self, task: int, advance: float = 1) -> None:
        pass

    def update(self, task: int, **kw) -> None:
        pass

    def remove_task(self, task: int) -> None:
        pass


def item_line(name: str, rec: dict, i: int, n: int) -> str:
    """``reproduce [i/n] NAME: STATUS in S s (J judged: P passed, F failed; N not judged)`` (or the error's
    first line)."""
    secs = rec.get("timings", {}).get("total_s", 0.0)
    line = f"reproduce [{i}/{n}] {name}: {rec['status']} in {secs:.1f} s"
    comp = rec.get("comparisons") or {}
    if comp.get("total"):
        line += (f" ({comp.get('judged', 0)} judged: {comp.get('passed', 0)} passed, {comp.get('failed', 0)} failed; "
                 f"{comp.get('not_judged', 0)} not judged)")
    if rec["status"] == "error":
        reason = str(rec.get("reason", "")).splitlines()
        line += f": {reason[0][:160]}" if reason else ""
    return line


class QuietReporter:
    """Says nothing but the interruption message."""

    bars = NullProgress()

    def __init__(self, stream=None):
        self.stream = stream

    def begin(self, size: str, n: int, out) -> None:
        pass

    def item_started(self, name: str, i: int, n: int) -> None:
        pass

    def item_done(self, name: str, rec: dict, i: int, n: int) -> None:
        pass

    def close(self) -> None:
        pass

    def say(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(text + "\n")
        stream.flush()


class LineReporter(QuietReporter):
    """One line per finished item (and one at the start): for logs and redirected output."""

    def begin(self, size: str, n: int, out) -> None:
        self.say(f"reproduce ({size}): {n} item(s) into {out}")

    def item_done(self, name: str, rec: dict, i: int, n: int) -> None:
        self.say(item_line(name, rec, i, n))


class RichReporter(QuietReporter):
    """A live rich progress display on stderr (an overall bar and one per simulation batch), with
    the line of each finished item printed above it."""

    def __init__(self, stream=None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        super().__init__(stream)
        console = Console(file=stream) if stream is not None else Console(stderr=True)
        self.bars = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), transient=False, console=console)
        self._overall = None
        self._size = ""

    def begin(self, size: str, n: int, out) -> None:
        self._size = size
        self.bars.start()
        self._overall = self.bars.add_task(f"reproduce ({size})", total=n)

    def item_started(self, name: str, i: int, n: int) -> None:
        self.bars.update(self._overall, description=f"reproduce ({self._size}): {name}")

    def item_done(self, name: str, rec: dict, i: int, n: int) -> None:
        self.bars.console.print(item_line(name, rec, i, n), markup=False, highlight=False)
        self.bars.advance(self._overall)

    def close(self) -> None:
        self.bars.stop()

    def say(self, text: str) -> None:
        self.bars.console.print(text, markup=False, highlight=False)


def make_reporter(progress: bool, stream=None):
    """:class:`RichReporter` when ``progress`` and the stream (stderr) is a terminal,
    :class:`LineReporter` when ``progress`` and it is not, :class:`QuietReporter` otherwise."""
    if not progress:
        return QuietReporter(stream)
    target = stream or sys.stderr
    is_tty = getattr(target, "isatty", lambda: False)()
    return RichReporter(stream) if is_tty else LineReporter(stream)
