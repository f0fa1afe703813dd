"""The user cache directory and the on-disk cache of generated modules.

The implementation lives in :mod:`asymptotics.rendering.modules` (one header, one cache key — the
hash of a module's whole source — and the derivation index); these names are kept here for the
modules that import them from ``asymptotics._cache``.
"""

from .rendering.modules import cache_dir, load_generated_module, source_hash

__all__ = ["cache_dir", "source_hash", "load_generated_module"]
