"""Writing files atomically: the one writer of the package.

Data goes to a temporary file in the target directory, is flushed to disk and renamed into place
(``os.replace``), so an interrupted write never leaves a half-written file and never destroys the
previous version. The file gets the permissions a plain ``open(path, "w")`` would give (``mkstemp``
makes files 0600).

User-facing outputs refuse a missing parent directory (``create_parents=False``, the default): a
typo in ``--out /nonexistent/dir/x.json`` must not create folders; caches create theirs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import ParameterError

__all__ = ["write_bytes", "write_text"]


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes(path: str | os.PathLike, data: bytes, *, create_parents: bool = False, name: str = "--out") -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    Raises :class:`~asymptotics.errors.ParameterError` (naming ``name``) when ``path`` is a
    directory, or its parent does not exist and ``create_parents`` is false.
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(name, str(path), "a file path, not a directory")
    if create_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.parent.is_dir():
        raise ParameterError(name, str(path), f"a file in an existing directory ({path.parent} does not exist)")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_text(path: str | os.PathLike, text: str, *, create_parents: bool = False, name: str = "--out") -> Path:
    """:func:`write_bytes` of ``text`` encoded as UTF-8."""
    return write_bytes(path, text.encode(), create_parents=create_parents, name=name)
