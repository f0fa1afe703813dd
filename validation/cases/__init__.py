"""Validation cases, one module per family; each registers itself with :func:`validation.registry.case`."""
