"""Writing files atomically: the one writer of the package, and the checks of an output location.

Data goes to a temporary file in the target directory, is flushed to disk and renamed into place
(``os.replace``), so an interrupted write never leaves a half-written file and never destroys the
previous version. The file gets the permissions a plain ``open(path, "w")`` would give (``mkstemp``
makes files 0600).

**The rule for output locations** (every ``--out`` and every API ``write``):

- an output *file* must go into an existing folder (``create_parents=False``, the default): a typo
  in ``--out /nonexistent/dir/x.json`` must not create folders; caches create theirs;
- an output *folder* (``reproduce``, ``figure``, ``sweep --out DIR``) is created with its parents
  by :func:`output_dir`, which also checks, before any work, that a file can be written in it.

Every failure — a folder where a file is wanted, a file where a folder is wanted, a location that
cannot be created or written (permission denied, a read-only file system, ``/proc``), a disk that
is full — is one :class:`~asymptotics.errors.ParameterError` naming the option (``name``), the
path and what to do; the temporary ``.part`` file is never named.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from .errors import MAX_ECHO, ParameterError, shorten

__all__ = ["write_bytes", "write_text", "output_dir", "make_dir", "check_file_target", "path_error", "OutputError"]

_FIX = "choose another location"


#: Longest path an error message names whole (other values are cut at ``errors.MAX_ECHO``).
PATH_ECHO = 1000


class OutputError(ParameterError, OSError):
    """A location that cannot be written (permission, read-only file system, full disk, ``/proc``):
    a :class:`ParameterError` naming the option and the path (one line on the command line) that is
    also the :class:`OSError` it replaces (``errno`` kept), so ``except OSError`` still catches it."""


def path_error(name: str, path, valid: str, hint: str = "", cls: type = ParameterError) -> ParameterError:
    """A :class:`ParameterError` (or ``cls``) about the path ``path`` that names it whole (a path cut
    in the middle does not say which file was meant)."""
    err = cls(name, str(path), valid, hint)
    if len(repr(str(path))) > MAX_ECHO:
        err.args = (str(err).replace(shorten(str(path)), shorten(str(path), PATH_ECHO), 1),)
    return err


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _is_dir(p: Path) -> bool:
    try:
        return p.is_dir()
    except OSError:  # e.g. a parent without search permission
        return False


def _is_file(p: Path) -> bool:
    """Something that exists and is not a directory."""
    try:
        return p.exists() and not p.is_dir()
    except OSError:
        return False


def _why(exc: OSError) -> str:
    """The reason of an OS error without its file names (which may be a temporary file)."""
    if exc.errno == errno.EROFS:
        return "read-only file system"
    return exc.strerror or (str(exc) if exc.filename is None else "") or type(exc).__name__


def _refuse(name: str, path: Path, valid: str, exc: OSError, where: Path) -> OutputError:
    err = path_error(name, str(path), valid, f"cannot write in {where}: {_why(exc)}; {_FIX}", OutputError)
    err.errno = exc.errno
    return err


def _a_directory(name: str, path: Path) -> ParameterError:
    return path_error(name, str(path), "a file path, not a directory",
                      f"give a file name inside it, e.g. {path / ('result' + (path.suffix or '.json'))}")


def _missing_folder(name: str, path: Path) -> ParameterError:
    """The refusal of a file whose folder does not exist, or is not a folder."""
    parent = path.parent
    for p in (parent, *parent.parents):  # the first existing ancestor says what is wrong
        if _is_file(p):
            return path_error(name, str(path), "a file in an existing directory",
                              f"{p} is a file, not a directory; {_FIX}")
    return path_error(name, str(path), "a file in an existing directory",
                      f"{parent} does not exist; create it first or {_FIX}")


def _probe(folder: Path, name: str, target: Path, valid: str) -> None:
    """Create and remove a hidden temporary file in ``folder``: refuse if that is impossible."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".asymptotics-probe.", suffix=".part")
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise _refuse(name, target, valid, exc, folder) from None


def check_file_target(path: str | os.PathLike, name: str = "--out") -> Path:
    """Refuse, before any work, an output file that could not be written: a folder, a missing or
    non-folder parent, a parent where no file can be created. Returns the path."""
    path = Path(path)
    if _is_dir(path):
        raise _a_directory(name, path)
    if not _is_dir(path.parent):
        raise _missing_folder(name, path)
    _probe(path.parent, name, path, "a file in a writable directory")
    return path


def output_dir(path: str | os.PathLike, name: str = "--out") -> Path:
    """Create the output folder ``path`` (with its parents) and check that a file can be written in
    it; any failure is one :class:`ParameterError` naming ``name``. Returns the path."""
    path = Path(path)
    if _is_file(path):
        raise path_error(name, str(path), "a directory, not an existing file",
                         f"{path} is a file; {_FIX} or remove the file")
    make_dir(path, name)
    _probe(path, name, path, "a writable directory")
    return path


def make_dir(path: str | os.PathLike, name: str) -> Path:
    """Create the folder ``path`` with its parents (no writability probe: for caches, whose every
    write reports its own failure); a failure is one :class:`ParameterError` naming ``name``."""
    path = Path(path)
    if _is_dir(path):
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in path.parents if _is_file(p)), path)
        raise path_error(name, str(path), "a directory that can be created",
                         f"{blocker} is a file, not a directory; {_FIX}") from None
    except OSError as exc:
        where = next((p for p in path.parents if _is_dir(p)), path.parent)
        raise _refuse(name, path, "a directory that can be created", exc, where) from None
    return path


def write_bytes(path: str | os.PathLike, data: bytes, *, create_parents: bool = False, name: str = "--out") -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    Raises :class:`~asymptotics.errors.ParameterError` (naming ``name`` and ``path``) when ``path``
    is a folder, its parent does not exist (and ``create_parents`` is false) or is not a folder,
    or the file cannot be written there (permission, read-only file system, full disk). An
    interrupted write (``KeyboardInterrupt``) leaves the previous file as it was.
    """
    path = Path(path)
    if _is_dir(path):
        raise _a_directory(name, path)
    if create_parents:
        make_dir(path.parent, name)
    elif not _is_dir(path.parent):
        raise _missing_folder(name, path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise _refuse(name, path, "a file in a writable directory", exc, path.parent) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, IsADirectoryError):
            raise _a_directory(name, path) from None
        if isinstance(exc, OSError):
            raise _refuse(name, path, "a writable file path", exc, path.parent) from None
        raise
    return path


def write_text(path: str | os.PathLike, text: str, *, create_parents: bool = False, name: str = "--out") -> Path:
    """:func:`write_bytes` of ``text`` encoded as UTF-8."""
    return write_bytes(path, text.encode(), create_parents=create_parents, name=name)
