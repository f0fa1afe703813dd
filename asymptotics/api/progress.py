"""Progress of long computations, in a terminal and in Jupyter alike.

``progress=None`` (the default of every API function that takes it) shows a bar only when the
computation is long — more than ``min_total`` steps *and* still running after ``delay`` seconds —
and someone can see it: in a Jupyter notebook (tqdm's notebook bar when tqdm and ipywidgets are
installed, else an HTML bar updated in place, which needs nothing but IPython) or on a terminal
(a rich bar on stderr, removed when done). ``progress=True`` shows it from the start wherever
the code runs (on a pipe or a log file: a line every few seconds), ``progress=False`` never.

>>> with Progress(3, "solving", enabled=False) as bar:
...     for _ in range(3):
...         bar.advance()
>>> bar.done
3
"""

from __future__ import annotations

import html
import sys
import time

__all__ = ["Progress", "in_notebook", "backend_name"]

#: Seconds a computation must have run before an automatic bar appears.
DELAY_S = 0.5
#: Seconds between two updates of a notebook bar or a text line.
REFRESH_S = 0.25
TEXT_REFRESH_S = 5.0


def in_notebook() -> bool:
    """Whether this code runs in a Jupyter kernel (an IPython shell with a kernel)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # pragma: no cover - a broken IPython
        return False
    return shell is not None and (type(shell).__name__ == "ZMQInteractiveShell" or hasattr(shell, "kernel"))


def _has_tqdm_notebook() -> bool:
    try:
        import ipywidgets  # noqa: F401
        import tqdm.notebook  # noqa: F401
    except Exception:
        return False
    return True


def backend_name(enabled: bool | None) -> str:
    """``"notebook"``, ``"terminal"``, ``"text"`` or ``"none"``: where a bar would be drawn."""
    if enabled is False:
        return "none"
    if in_notebook():
        return "notebook"
    if sys.stderr is not None and sys.stderr.isatty():
        return "terminal"
    return "text" if enabled else "none"


class _Rich:
    def __init__(self, total, label):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                                transient=True)
        self.bar.__enter__()
        self.task = self.bar.add_task(label, total=total)

    def show(self, done, total, label):
        self.bar.update(self.task, completed=done, total=total, description=label)

    def close(self, done, total, label):
        self.bar.__exit__(None, None, None)


class _TqdmNotebook:
    def __init__(self, total, label):
        from tqdm.notebook import tqdm

        self.bar = tqdm(total=total, desc=label)

    def show(self, done, total, label):
        self.bar.total = total
        self.bar.set_description(label, refresh=False)
        self.bar.n = done
        self.bar.refresh()

    def close(self, done, total, label):
        self.show(done, total, label)
        self.bar.close()


class _Html:
    """An HTML ``<progress>`` element in the notebook, replaced in place (IPython display id)."""

    def __init__(self, total, label):
        from IPython.display import HTML, display

        self._html = HTML
        self.t0 = time.monotonic()
        self.handle = display(HTML(self._render(0, total, label)), display_id=True)

    def _render(self, done, total, label, final=False):
        elapsed = time.monotonic() - self.t0
        eta = "" if final or not done else f", {elapsed * (total - done) / done:.0f} s left"
        return (f"<div><span style='font-family:monospace'>{html.escape(label)}</span> "
                f"<progress value='{done}' max='{max(total, 1)}' style='width:40%'></progress> "
                f"{done}/{total} ({elapsed:.1f} s{eta})</div>")

    def show(self, done, total, label):
        if self.handle is not None:
            self.handle.update(self._html(self._render(done, total, label)))

    def close(self, done, total, label):
        if self.handle is not None:
            self.handle.update(self._html(self._render(done, total, label, final=True)))


class _Text:
    def __init__(self, total, label):
        self.t0 = time.monotonic()
        self.show(0, total, label)

    def show(self, done, total, label):
        sys.stderr.write(f"{label}: {done}/{total} ({time.monotonic() - self.t0:.0f} s)\n")
        sys.stderr.flush()

    def close(self, done, total, label):
        self.show(done, total, label)


class Progress:
    """A progress bar for ``total`` steps: ``with Progress(n, "solving") as bar: bar.advance()``.

    Args:
        total: number of steps.
        label: what is being done (shown next to the bar; :meth:`describe` changes it).
        enabled: ``None`` (automatic, see the module docstring), ``True`` or ``False``.
        min_total: an automatic bar needs more steps than this.
        delay: an automatic bar appears only after this many seconds.
    """

    def __init__(self, total: int, label: str, enabled: bool | None = None, *, min_total: int = 1,
                 delay: float = DELAY_S):
        if enabled not in (None, True, False):
            from ..errors import ParameterError

            raise ParameterError("progress", enabled, "None (automatic), True or False")
        self.total, self.label, self.enabled = int(total), label, enabled
        self.done = 0
        self._kind = backend_name(enabled)
        if enabled is None and self.total <= min_total:
            self._kind = "none"
        self._delay = 0.0 if enabled else delay
        self._bar = None
        self._t0 = time.monotonic()
        self._last = -1.0

    def __enter__(self):
        self._t0 = time.monotonic()
        self._maybe_show(force=self.enabled is True)
        return self

    def _start(self):
        if self._kind == "terminal":
            return _Rich(self.total, self.label)
        if self._kind == "notebook":
            return _TqdmNotebook(self.total, self.label) if _has_tqdm_notebook() else _Html(self.total, self.label)
        if self._kind == "text":
            return _Text(self.total, self.label)
        return None

    def _maybe_show(self, force: bool = False) -> None:
        if self._kind == "none":
            return
        now = time.monotonic()
        if self._bar is None:
            if not force and now - self._t0 < self._delay:
                return
            self._bar = self._start()
            self._last = now
            if self._kind == "terminal":
                self._bar.show(self.done, self.total, self.label)
            return
        refresh = TEXT_REFRESH_S if self._kind == "text" else (0.0 if self._kind == "terminal" else REFRESH_S)
        if force or now - self._last >= refresh:
            self._bar.show(self.done, self.total, self.label)
            self._last = now

    def advance(self, n: int = 1) -> None:
        """``n`` more steps are done."""
        self.done = min(self.total, self.done + n)
        self._maybe_show()

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` steps (of ``total``, if it changed) are done."""
        if total is not None:
            self.total = int(total)
        self.done = int(done)
        self._maybe_show()

    def describe(self, label: str) -> None:
        """Change the label (e.g. the case being run)."""
        self.label = label
        self._maybe_show()

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.close(self.done, self.total, self.label)
        return False
