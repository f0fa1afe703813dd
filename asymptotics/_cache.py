"""On-disk cache for generated modules (compiled activations, lowered equations).

Generated code is rendered to a real ``.py`` file, named by a hash of its source, in a user cache
directory, and imported from there, so that ``numba.njit(cache=True)`` can keep the machine code
next to it and a second process starts without recompiling.

The directory is ``$ASYMPTOTICS_CACHE_DIR`` when set, else the platform's user cache directory
(``~/.cache/asymptotics`` on Linux).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from .atomic import write_text

__all__ = ["cache_dir", "source_hash", "load_generated_module", "atomic_write_text"]


def cache_dir(sub: str = "") -> Path:
    """The cache directory (created on demand)."""
    root = os.environ.get("ASYMPTOTICS_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        from platformdirs import user_cache_dir

        base = Path(user_cache_dir("asymptotics"))
    path = base / sub if sub else base
    path.mkdir(parents=True, exist_ok=True)
    return path


def source_hash(source: str, length: int = 16) -> str:
    """A short stable hash of a generated module's source text."""
    return hashlib.sha256(source.encode()).hexdigest()[:length]


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (creating the cache folders on the way)."""
    write_text(path, text, create_parents=True, name="cache file")


def load_generated_module(source: str, prefix: str, sub: str = "generated") -> ModuleType:
    """Render ``source`` to ``<cache>/<sub>/<prefix>_<hash>.py`` (once) and import it.

    The file name depends only on the source, so a changed system gets a new module and an
    unchanged one reuses the file (and numba's on-disk cache beside it).
    """
    name = f"{prefix}_{source_hash(source)}"
    modname = f"asymptotics_generated.{name}"
    if modname in sys.modules:
        return sys.modules[modname]
    path = cache_dir(sub) / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        atomic_write_text(path, source)
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return module
