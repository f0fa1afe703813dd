"""Writing figures atomically (PNG and PDF), so an interrupted run never leaves half a file."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

from ..atomic import write_bytes

__all__ = ["figure_bytes", "save_figure"]


def figure_bytes(fig, fmt: str, **kw) -> bytes:
    """The figure rendered in ``fmt`` (png, pdf, svg) as bytes (reproducible PDF metadata)."""
    # fontTools (font subsetting for the PDF) logs harmless notes about old font timestamps
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    buf = io.BytesIO()
    if fmt == "pdf":
        kw.setdefault("metadata", {"CreationDate": None, "ModDate": None, "Creator": "asymptotics"})
    elif fmt == "png":
        kw.setdefault("metadata", {"Software": "asymptotics"})
    fig.savefig(buf, format=fmt, **kw)
    return buf.getvalue()


def save_figure(fig, stem: str | os.PathLike, formats=("png", "pdf")) -> list[Path]:
    """Write ``stem.<fmt>`` for each format atomically; returns the paths."""
    stem = Path(stem)
    return [write_bytes(stem.with_suffix(f".{fmt}"), figure_bytes(fig, fmt), create_parents=True) for fmt in formats]
