r"""Per-seed results kept on disk, so that an interrupted study resumes and a rerun recomputes nothing.

One small JSON file per adapter call, named by :func:`~validation.finite_size.adapters.adapter_key`
(what is simulated, d, the seed and a code version — the caller passes e.g. the simulator's source
fingerprint, so a change of the simulator recomputes), written atomically the moment the seed
finishes.

>>> import tempfile
>>> s = SeedStore(tempfile.mkdtemp())
>>> s.get("k") is None
True
>>> s.put("k", {"x": 1.5}); s.get("k")
{'x': 1.5}
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from asymptotics.atomic import write_text

__all__ = ["SeedStore"]


class SeedStore:
    """A directory of per-seed results; ``hits``/``misses`` count the lookups."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        p = self._path(key)
        try:
            out = json.loads(p.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            self.misses += 1
            return None
        self.hits += 1
        return out

    def put(self, key: str, values: dict) -> None:
        write_text(self._path(key), json.dumps(values, sort_keys=True), create_parents=True)
