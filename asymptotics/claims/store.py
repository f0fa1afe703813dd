r"""The store of evaluated points, so that an interrupted check resumes where it stopped.

One folder per (claim, activation pair, root seed), named by a hash of everything that decides
the rows — the quantity, its fixed parameters, the pair, the domain, the claim's name, the seed
and the package version — under ``<cache>/claims`` (or a folder given as ``store``). Each chunk
of evaluated rows is one JSON file, written atomically (:mod:`asymptotics.atomic`) as soon as
it is computed; a rerun reads every chunk and evaluates only the points not yet there.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from ..atomic import output_dir, write_text

__all__ = ["PointStore", "claim_key", "DEFER"]

#: Rows of single evaluations (the local search) gathered before they are written.
DEFER = 64


def _describe(v) -> object:
    if callable(v):
        return f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', repr(v))}"
    if isinstance(v, Mapping):
        return {str(k): _describe(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_describe(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return repr(v)


def claim_key(claim, pair: tuple[str, str], root_seed: int) -> str:
    """The store key of (claim, pair, seed): 20 hex digits of SHA-256 of their canonical text."""
    from .._version import __version__

    d = claim.domain
    obj = {
        "name": claim.name, "quantity": claim.quantity, "fixed": _describe(dict(claim.fixed)),
        "ranges": {k: [r.low, r.high, r.scale] for k, r in d.ranges.items()},
        "grids": {k: list(v) for k, v in d.grids.items()}, "pair": list(pair), "seed": int(root_seed),
        "version": __version__,
    }  # fmt: skip
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class PointStore:
    """Rows keyed by their point (``point_key``), backed by chunk files in ``folder`` (or memory
    only when ``folder`` is None)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.rows: dict[str, dict] = {}
        self._pending: dict[str, dict] = {}
        self._chunks = 0
        if folder is not None:
            output_dir(folder, "store")  # created and writable, or one ParameterError (no traceback)
            for f in sorted(folder.glob("chunk-*.json")):
                try:
                    for key, row in json.loads(f.read_text()).items():
                        self.rows[key] = row
                except (OSError, ValueError):  # a damaged chunk is recomputed
                    continue
                m = re.match(r"chunk-(\d+)\.json$", f.name)
                if m:
                    self._chunks = max(self._chunks, int(m.group(1)) + 1)
        #: rows read from disk at opening (the points a rerun does not recompute)
        self.loaded = len(self.rows)

    @classmethod
    def open(cls, root, claim, pair: tuple[str, str], root_seed: int) -> PointStore:
        """The store of (claim, pair, seed) under ``root`` (``None``: the user cache; ``False``:
        memory only)."""
        if root is False:
            return cls(None)
        if root is None:
            from .._cache import cache_dir

            root = cache_dir("claims")
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", claim.name)[:40]
        return cls(Path(root) / f"{slug}-{claim_key(claim, pair, root_seed)}")

    def __contains__(self, key: str) -> bool:
        return key in self.rows

    def get(self, key: str) -> dict | None:
        return self.rows.get(key)

    def add(self, rows: Mapping[str, dict], defer: bool = False) -> None:
        """Add rows and write them as one chunk (atomically); ``defer``: gather them and write
        once :data:`DEFER` rows are waiting (or at :meth:`flush`)."""
        if not rows:
            return
        self.rows.update(rows)
        self._pending.update(rows)
        if not defer or len(self._pending) >= DEFER:
            self.flush()

    def flush(self) -> None:
        """Write the rows not yet written as one chunk."""
        if self._pending and self.folder is not None:
            write_text(self.folder / f"chunk-{self._chunks:06d}.json", json.dumps(self._pending, default=str))
            self._chunks += 1
        self._pending = {}
