"""``check``: run claims (being written; the signature is the interface)."""

from __future__ import annotations


def check(claims, *, samples: int = 1024, search: bool = True, confirm: bool = False, root_seed: int = 0,
          scheduler=None, store=None, progress=None):
    """Check claims; returns a list of ClaimVerdict (see docs/api/claims.md)."""
    raise NotImplementedError("asymptotics.claims.run.check is being written")
