"""Reading a file a user names (a sweep config, a result file): one clear error, never a traceback.

A missing file, a directory, a file that cannot be read (permission) and, for text, content that
is not UTF-8 text (an image given as a config) each raise one
:class:`~asymptotics.errors.ParameterError` naming the argument (``name``), the path and what is
expected.
"""

from __future__ import annotations

import os
from pathlib import Path

from .atomic import path_error

__all__ = ["input_file", "read_text"]


def input_file(path: str | os.PathLike, name: str, what: str) -> Path:
    """``path`` if it is an existing file, else one :class:`ParameterError` saying why (``what``
    describes the file expected, e.g. ``"a sweep config file (TOML)"``)."""
    path = Path(path)
    try:
        if path.is_dir():
            raise path_error(name, str(path), what, "it is a directory; give a file in it")
        if not path.exists():
            raise path_error(name, str(path), what, "no such file")
    except OSError as exc:
        raise path_error(name, str(path), what, f"cannot read it: {exc.strerror or exc}") from None
    return path


def read_text(path: str | os.PathLike, name: str, what: str) -> str:
    """The UTF-8 text of the file ``path`` (see :func:`input_file`); a binary file or another
    encoding is refused naming the byte offset."""
    path = input_file(path, name, what)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise path_error(name, str(path), what, f"cannot read it: {exc.strerror or exc}") from None
    if b"\0" in data[:8192]:
        raise path_error(name, str(path), what, "it is a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise path_error(name, str(path), what,
                         f"it is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
