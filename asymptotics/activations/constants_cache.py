"""On-disk cache of the raw Gaussian constants of an activation.

Computing the constants of an activation costs symbolic work (its derivatives, simplified, printed
into the generated module; its parity; its kinks) and a quadrature. A second process finds them in
``<cache>/constants/<key>.json`` instead, where ``<key>`` hashes everything that decides them: the
canonical expression (``sympy.srepr`` of the raw σ), the method, the versions of the package,
sympy, numpy, scipy and mpmath, and the source files of ``asymptotics/activations``,
``asymptotics/codegen`` and ``asymptotics/gaussian.py``
(:func:`asymptotics.rendering.modules.code_hash`). A changed expression or code gives a new key, so a
stale entry is never read; a missing or unreadable entry just means computing again.

The numbers go through JSON unchanged (``repr`` of a float64 round-trips exactly), so a cached
constant equals the computed one bit for bit; the exact closed-form values that
:func:`~asymptotics.activations.constants.assemble` keeps in ``extra`` (not compared, not used by the
theory) are not stored.

>>> from asymptotics.activations.constants import GaussianConstants
>>> c = GaussianConstants(0.0, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.25, (0.0, 0.5), "float64", 1e-16)
>>> decode(encode(c)) == c
True
"""

from __future__ import annotations

import json
from pathlib import Path

from ..rendering.modules import cache_dir, code_hash, package_files
from .constants import GaussianConstants

__all__ = ["cache_key", "load", "store", "encode", "decode"]

_FIELDS = (
    "mu0",
    "mu1",
    "mu2",
    "mu2_sq",
    "second_moment",
    "mean_derivative",
    "mean_sq_derivative",
    "var_derivative",
    "error",
)


def _versions() -> str:
    from importlib.metadata import version  # not importing scipy only to read its version

    return "|".join(f"{name} {version(name)}" for name in ("numpy", "scipy", "mpmath"))


def cache_key(canonical: str, method: str) -> str:
    """The cache key of the raw constants of the expression whose ``srepr`` is ``canonical``."""
    files = package_files("activations", "rendering") + [Path(__file__).resolve().parent.parent / "gaussian.py"]
    return code_hash(files, extra=f"gaussian constants|{method}|{_versions()}|{canonical}")


def encode(c: GaussianConstants) -> str:
    """The JSON text of ``c`` (without ``extra``)."""
    d = {k: getattr(c, k) for k in _FIELDS}
    d.update(hermite=list(c.hermite), method=c.method, centered=c.centered)
    return json.dumps(d)


def decode(text: str) -> GaussianConstants:
    """:class:`GaussianConstants` from :func:`encode`'s text."""
    d = json.loads(text)
    return GaussianConstants(
        **{k: float(d[k]) for k in _FIELDS},
        hermite=tuple(float(h) for h in d["hermite"]),
        method=str(d["method"]),
        centered=bool(d["centered"]),
    )


def _path(canonical: str, method: str) -> Path:
    return cache_dir("constants") / f"{cache_key(canonical, method)}.json"


def load(canonical: str, method: str) -> GaussianConstants | None:
    """The cached raw constants, or ``None`` when absent or unreadable."""
    path = _path(canonical, method)
    try:
        return decode(path.read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(canonical: str, method: str, constants: GaussianConstants) -> None:
    """Record ``constants`` (a read-only or full cache directory is not an error)."""
    from ..atomic import write_text

    try:
        write_text(_path(canonical, method), encode(constants), create_parents=True, name="cache file")
    except Exception:  # pragma: no cover - the cache is a shortcut only
        pass
