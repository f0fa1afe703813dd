r"""Per-seed results on disk, so that a study extends instead of starting again.

One JSON file per (configuration, root seed, seed index, threads per task, code version), named by
the SHA-256 of those: adding seeds, or grid points, or a larger d to a study computes only the
runs not stored yet, and a stored run is returned bit for bit (the thread count is part of the key
because a multithreaded BLAS may sum in another order). The code version is a hash of the
simulator's own source files, of the package version and of the numerical stack's versions, so
any change of the code that produces the numbers gives new keys. Writes are atomic
(:func:`asymptotics.atomic.write_text`): an interrupted run never leaves a half-written file.

>>> import tempfile
>>> from validation.simulator import BaConfig
>>> store = SeedStore(tempfile.mkdtemp())
>>> cfg = BaConfig(d=40, n_test=200, measure=("risk",))
>>> store.get(cfg, 0, 0, 1) is None
True
>>> store.put(cfg, 0, 0, 1, {"risk0": 0.5})
>>> store.get(cfg, 0, 0, 1)
{'risk0': 0.5}
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

from asymptotics.atomic import write_text

__all__ = ["SeedStore", "code_version", "default_store_dir"]


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the simulator's source files, the package version and numpy/scipy/numba versions."""
    from asymptotics._version import __version__

    h = hashlib.sha256(__version__.encode())
    for mod in ("numpy", "scipy", "numba"):
        m = sys.modules.get(mod) or __import__(mod)
        h.update(f"{mod}={getattr(m, '__version__', '?')}".encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def default_store_dir() -> Path:
    """``$ASYMPTOTICS_CACHE_DIR/simulations`` when set, else the user cache directory's."""
    root = os.environ.get("ASYMPTOTICS_CACHE_DIR")
    if root:
        return Path(root) / "simulations"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("asymptotics")) / "simulations"


def _key_payload(cfg, root_seed: int, seed_index: int, threads: int) -> dict:
    return {
        "config": cfg.as_dict(),
        "student": cfg.student_activation().as_dict()["expression"],
        "teacher": cfg.teacher_activation().as_dict()["expression"],
        "root_seed": int(root_seed),
        "seed_index": int(seed_index),
        "threads_per_task": int(threads),
        "code": code_version(),
    }


class SeedStore:
    """A directory of per-seed simulation results, content-addressed."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory is not None else default_store_dir()

    def key(self, cfg, root_seed: int, seed_index: int, threads: int) -> str:
        text = json.dumps(_key_payload(cfg, root_seed, seed_index, threads), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, cfg, root_seed: int, seed_index: int, threads: int) -> dict | None:
        """The stored per-seed values, or None."""
        path = self.path(self.key(cfg, root_seed, seed_index, threads))
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return record.get("values")

    def put(self, cfg, root_seed: int, seed_index: int, threads: int, values: dict) -> None:
        """Store the per-seed values (atomically)."""
        key = self.key(cfg, root_seed, seed_index, threads)
        record = {**_key_payload(cfg, root_seed, seed_index, threads), "values": values}
        write_text(self.path(key), json.dumps(record, sort_keys=True), create_parents=True, name="simulation store")
