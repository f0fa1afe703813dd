"""The documentation site builds offline, without a single warning (``mkdocs build --strict``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _nav_files(nav):
    for entry in nav:
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for v in entry.values():
                if isinstance(v, str):
                    yield v
                else:
                    yield from _nav_files(v)


def test_every_nav_page_exists():
    yaml = pytest.importorskip("yaml")
    cfg = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    missing = [p for p in _nav_files(cfg["nav"]) if not (ROOT / "docs" / p).exists()]
    assert not missing, f"pages in the nav of mkdocs.yml but not in docs/: {missing}"


def test_docs_figures_come_from_reproduce():
    """Every figure a page shows is in docs/figures and is a name of the reproduce catalogue."""
    from asymptotics.reproduce import items

    names = {it.name for it in items()}
    for page in (ROOT / "docs").rglob("*.md"):
        for ref in re.findall(r"\]\(((?:\.\./)*figures/[^)\s]+\.png)\)", page.read_text()):
            fig = (page.parent / ref).resolve()
            assert fig.exists(), f"{page.name} shows {ref}, which is not in docs/figures (run `asymptotics reproduce --quick --docs-dir docs/figures`)"
            assert fig.stem in names, f"{page.name} shows {ref}, which is not produced by reproduce"


def test_mkdocs_build_strict(tmp_path):
    # mkdocs, mkdocs-material and mkdocstrings are in the `test` extra, so CI builds the docs
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[test]')")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (pip install -e '.[test]')")
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[test]')")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site), "--config-file", str(ROOT / "mkdocs.yml")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    warnings = [ln for ln in log.splitlines() if "WARNING" in ln]
    assert not warnings, "\n".join(warnings)
    assert (site / "index.html").exists() and (site / "mathematics" / "index.html").exists()
    assert (site / "api" / "reproduce" / "index.html").exists()
