"""Validation cases, one module per family; each registers itself with :func:`validation.registry.case`.

Importing this package imports every family module (so every case is registered);
:func:`cases` selects among them.
"""

from __future__ import annotations

from validation import registry

from . import large_step, one_step, spiked_rf  # noqa: F401  (each registers its cases)

__all__ = ["cases"]


def cases(names=None, family: str | None = None, quick: bool = False) -> list[registry.Case]:
    """Registered cases, filtered by name, family and (when ``quick``) the quick subset."""
    out = list(registry.REGISTRY.values())
    if names:
        unknown = set(names) - set(registry.REGISTRY)
        if unknown:
            from asymptotics.errors import ParameterError

            raise ParameterError("--case", sorted(unknown), f"one of {sorted(registry.REGISTRY)}")
        out = [registry.REGISTRY[n] for n in names]
    if family:
        out = [c for c in out if c.family == family]
    if quick and not names:
        out = [c for c in out if c.quick]
    return out
