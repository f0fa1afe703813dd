"""On-disk cache of simulation results, keyed by protocol parameters, seeds and code version.

A simulation is identified by its configuration (every field of the frozen ``BaConfig`` /
``CuiConfig`` / ``SRFConfig``, with its type), the number of seeds, the root seed, the package
version and a fingerprint of the simulator's source code (``validation/simulator/*.py`` and the
activation layer it imports). The SHA-256 of that canonical JSON names the entry. Hence

* a rerun with the same inputs reads the cache and simulates nothing;
* changing any parameter, the seeds, the package version or the simulator's code gives a new key
  and recomputes only the affected simulations (theory curves are always recomputed: they cost
  milliseconds);
* each entry is written atomically (temporary file + rename) the moment its simulation finishes, so
  an interrupted run (Ctrl-C, kill) leaves complete entries only and a rerun resumes from them.

The cache directory is ``<user cache>/simulations`` (``$ASYMPTOTICS_CACHE_DIR/simulations`` when set)
unless given. Every lookup is recorded in :attr:`SimulationCache.events` (``hit``/``miss``/``write``),
so a caller can check what was recomputed without timing anything.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import threading
from collections.abc import Callable
from pathlib import Path

from .._version import __version__
from ..atomic import write_bytes

__all__ = ["SimulationCache", "CachedSimulation", "simulator_fingerprint", "config_key_material"]

_SCHEMA = 1


def _source_files() -> list[Path]:
    import asymptotics.activations as acts

    files = sorted(Path(acts.__file__).parent.glob("*.py"))
    try:
        import validation.simulator as sim
    except ImportError:  # simulator not installed: its code cannot be part of the key
        return files
    for folder in getattr(sim, "__path__", []):
        files += sorted(Path(folder).rglob("*.py"))
    return files


_FINGERPRINT: str | None = None
_LOCK = threading.Lock()


def simulator_fingerprint() -> str:
    """SHA-256 (16 hex digits) of the simulator's source and the activation layer it imports."""
    global _FINGERPRINT
    with _LOCK:
        if _FINGERPRINT is None:
            h = hashlib.sha256()
            for f in _source_files():
                h.update(f.name.encode())
                h.update(f.read_bytes())
            _FINGERPRINT = h.hexdigest()[:16]
        return _FINGERPRINT


def _canonical(obj):
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__type__": type(obj).__name__, **{f.name: _canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in sorted(obj.items())}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, float):
        return repr(obj)  # exact, and distinguishes 1 from 1.0 never (both floats here)
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return _canonical(obj.item())
    return obj


def config_key_material(cfg, seeds: int, root_seed: int, code: str | None = None) -> dict:
    """The canonical description of one simulation that its cache key hashes."""
    return {
        "schema": _SCHEMA,
        "config": _canonical(cfg),
        "seeds": int(seeds),
        "root_seed": int(root_seed),
        "asymptotics": __version__,
        "simulator_code": code if code is not None else simulator_fingerprint(),
    }


def _encode(obj):
    """JSON-safe copy (numpy → lists; non-finite floats → strings, restored on read)."""
    if isinstance(obj, dict):
        return {str(k): _encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    if hasattr(obj, "tolist"):
        return _encode(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return {"__float__": repr(obj)}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def _decode(obj):
    if isinstance(obj, dict):
        if set(obj) == {"__float__"}:
            return float(obj["__float__"])
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


@dataclasses.dataclass(frozen=True)
class CachedSimulation:
    """A simulation result as stored: aggregated means and standard errors over seeds, the
    per-seed measurements, the simulator's metadata, and whether it came from the cache."""

    key: str
    mean: dict
    se: dict
    per_seed: list
    meta: dict
    seeds: int
    from_cache: bool = False

    def value(self, name: str) -> tuple[float, float]:
        """``(mean, se)`` of a measurement (NaN when the simulator did not measure it)."""
        return float(self.mean.get(name, math.nan)), float(self.se.get(name, math.nan))


class SimulationCache:
    """Simulation results on disk, one JSON file per (config, seeds, root seed, code version).

    ``enabled=False`` turns lookups off (every call recomputes) but still records events.
    """

    def __init__(self, root: str | os.PathLike | None = None, *, enabled: bool = True):
        if root is None:
            from .._cache import cache_dir

            root = cache_dir("simulations")
        self.root = Path(root)
        self.enabled = enabled
        self.events: list[tuple[str, str]] = []  # (event, key)

    # -- bookkeeping ---------------------------------------------------------------------------
    def count(self, event: str) -> int:
        return sum(1 for e, _ in self.events if e == event)

    @property
    def hits(self) -> int:
        return self.count("hit")

    @property
    def misses(self) -> int:
        return self.count("miss")

    def stats(self) -> dict:
        return {"dir": str(self.root), "enabled": self.enabled, "hits": self.hits, "misses": self.misses,
                "writes": self.count("write")}

    # -- keys and files ------------------------------------------------------------------------
    @staticmethod
    def key(cfg, seeds: int, root_seed: int) -> str:
        material = json.dumps(config_key_material(cfg, seeds, root_seed), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(material.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedSimulation | None:
        """The stored result, or None (a missing, unreadable or foreign file is a miss)."""
        if not self.enabled:
            self.events.append(("miss", key))
            return None
        p = self.path(key)
        try:
            obj = _decode(json.loads(p.read_text()))
            if obj.get("key") != key:
                raise ValueError("key mismatch")
            res = CachedSimulation(key, obj["mean"], obj["se"], obj["per_seed"], obj["meta"], obj["seeds"], True)
        except (OSError, ValueError, KeyError, TypeError):
            self.events.append(("miss", key))
            return None
        self.events.append(("hit", key))
        return res

    def put(self, key: str, material: dict, result: CachedSimulation) -> Path:
        """Store ``result`` atomically under ``key`` (with the key material, for inspection)."""
        payload = {"key": key, "material": material, "mean": result.mean, "se": result.se,
                   "per_seed": result.per_seed, "meta": result.meta, "seeds": result.seeds}
        data = json.dumps(_encode(payload), indent=1).encode()
        path = write_bytes(self.path(key), data, create_parents=True, name="--cache-dir")
        self.events.append(("write", key))
        return path

    def get_or_compute(self, cfg, seeds: int, root_seed: int, compute: Callable[[], object]) -> CachedSimulation:
        """The cached result for ``(cfg, seeds, root_seed)``, or ``compute()`` (a
        ``SimulationResult`` with ``mean``, ``se``, ``per_seed``, ``meta``) stored and returned."""
        key = self.key(cfg, seeds, root_seed)
        hit = self.get(key)
        if hit is not None:
            return hit
        res = compute()
        out = CachedSimulation(key, dict(res.mean), dict(res.se), list(getattr(res, "per_seed", [])),
                               dict(getattr(res, "meta", {}) or {}), int(seeds), False)
        out = CachedSimulation(key, _decode(_encode(out.mean)), _decode(_encode(out.se)),
                               _decode(_encode(out.per_seed)), _decode(_encode(out.meta)), int(seeds), False)
        if self.enabled:
            self.put(key, config_key_material(cfg, seeds, root_seed), out)
        return out
