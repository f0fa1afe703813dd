"""Progress of long computations: drawn in a Jupyter kernel (an HTML bar updated in place, without
ipywidgets) and on a terminal, never for short computations unless asked, never on a pipe."""

from __future__ import annotations

import sys
import types

import pytest

from asymptotics.api import progress as P


class _Handle:
    def __init__(self, log):
        self.log = log

    def update(self, obj):
        self.log.append(obj.data)


@pytest.fixture
def notebook(monkeypatch):
    """A fake IPython kernel: ``get_ipython()`` is a ZMQInteractiveShell; ``display`` records."""
    log: list[str] = []

    class ZMQInteractiveShell:
        kernel = object()

    class HTML:
        def __init__(self, data):
            self.data = data

    def display(obj, display_id=False):
        log.append(obj.data)
        return _Handle(log)

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: ZMQInteractiveShell()
    disp = types.ModuleType("IPython.display")
    disp.HTML, disp.display = HTML, display
    ipython.display = disp
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", disp)
    monkeypatch.setattr(P, "_has_tqdm_notebook", lambda: False)
    monkeypatch.setattr(P, "REFRESH_S", 0.0)
    return log


def test_notebook_bar_updates_in_place(notebook):
    assert P.in_notebook() and P.backend_name(None) == "notebook"
    with P.Progress(4, "theory srf", enabled=True) as bar:
        for _ in range(4):
            bar.advance()
    assert "<progress value='0' max='4'" in notebook[0]
    assert "<progress value='4' max='4'" in notebook[-1] and "4/4" in notebook[-1] and "theory srf" in notebook[-1]


def test_automatic_bar_waits_for_a_long_computation(notebook, monkeypatch):
    with P.Progress(100, "fast", enabled=None) as bar:  # finished before the delay: nothing drawn
        bar.advance(100)
    assert notebook == []
    monkeypatch.setattr(P, "DELAY_S", 0.0)
    with P.Progress(100, "slow", enabled=None, delay=0.0) as bar:
        bar.advance(50)
    assert notebook and "value='50'" in notebook[-1]
    notebook.clear()
    with P.Progress(1, "one step", enabled=None, delay=0.0) as bar:  # one step: no bar
        bar.advance()
    assert notebook == []


def test_no_bar_on_a_pipe_unless_asked(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert P.backend_name(None) == "none" and P.backend_name(True) == "text"
    with P.Progress(3, "quiet", enabled=None, delay=0.0) as bar:
        bar.advance(3)
    assert capsys.readouterr().err == ""
    with P.Progress(3, "asked", enabled=True) as bar:
        bar.update(3)
    assert "asked: 3/3" in capsys.readouterr().err


def test_terminal_uses_rich(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert P.backend_name(None) == "terminal"
    started = []
    monkeypatch.setattr(P, "_Rich", lambda total, label: started.append((total, label)) or types.SimpleNamespace(
        show=lambda *a: None, close=lambda *a: None))
    with P.Progress(5, "simulating ba", enabled=None, delay=0.0) as bar:
        bar.advance()
    assert started == [(5, "simulating ba")]


def test_bad_progress_value():
    from asymptotics.errors import ParameterError

    with pytest.raises(ParameterError, match="progress"):
        P.Progress(3, "x", enabled="yes")


def test_an_api_function_draws_its_bar_in_a_notebook(notebook, monkeypatch):
    import asymptotics as asy

    monkeypatch.setattr(P, "DELAY_S", 0.0)
    asy.spiked_rf(alpha=[1, 2], alpha0=1, eta_tilde=1, lam=[0.01, 0.1], progress=True)
    assert notebook and "theory srf" in notebook[-1] and "2/2" in notebook[-1]
