"""What a figure's ``compute`` function receives: its size, the cache, seeds and progress."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cache import CachedSimulation, SimulationCache
from .registry import Item, resolve

__all__ = ["Context", "NullProgress", "NeedsError"]


class NeedsError(RuntimeError):
    """Raised by a ``compute`` function when a required theory function is not available yet."""

    def __init__(self, target: str):
        self.target = target
        super().__init__(f"needs {target}")


class NullProgress:
    """Progress reporting that does nothing (tests, non-interactive use)."""

    def add_task(self, description: str, total: float | None = None, **kw) -> int:
        return 0

    def advance(self, task: int, advance: float = 1) -> None:
        pass

    def update(self, task: int, **kw) -> None:
        pass

    def remove_task(self, task: int) -> None:
        pass


@dataclass
class Context:
    """The environment of one item's computation.

    Attributes:
        item: the item being computed.
        size: the size preset (``toy``, ``quick``, ``default``, ``full``).
        cache: the simulation cache.
        root_seed: root of every ``numpy.random.SeedSequence`` of the simulations. The same root is
            used at every parameter point (common random numbers along a curve: smoother curves,
            and a point shared by two figures is simulated once).
        workers: parallel workers passed to the simulator.
        progress: a rich ``Progress`` (or :class:`NullProgress`).
    """

    item: Item
    size: str
    cache: SimulationCache
    root_seed: int = 20260101
    workers: int = 1
    progress: object = field(default_factory=NullProgress)
    missing: list[str] = field(default_factory=list)
    simulations: list[dict] = field(default_factory=list)

    @property
    def p(self) -> dict:
        """The parameters of this size preset."""
        return dict(self.item.size(self.size))

    # -- theory --------------------------------------------------------------------------------
    def theory(self, target: str, *, optional: bool = False):
        """The function ``"module:attribute"``; if it does not exist yet, record it in
        :attr:`missing` and return None (``optional``) or raise :class:`NeedsError`."""
        fn = resolve(target)
        if fn is None:
            if target not in self.missing:
                self.missing.append(target)
            if not optional:
                raise NeedsError(target)
        return fn

    # -- simulation ----------------------------------------------------------------------------
    def simulate(self, cfg, seeds: int, on_seed=None) -> CachedSimulation:
        """Simulate ``cfg`` over ``seeds`` seeds (from the cache when already done); ``on_seed()`` is
        called after each simulated seed."""

        def run():
            from validation.simulator import simulate

            cb = (lambda done, total: on_seed()) if on_seed is not None else None
            return simulate(cfg, seeds=seeds, root_seed=self.root_seed, workers=self.workers, progress=cb)

        res = self.cache.get_or_compute(cfg, seeds, self.root_seed, run)
        self.simulations.append({"key": res.key, "cached": res.from_cache, "seeds": seeds,
                                 "config": type(cfg).__name__})
        return res

    def simulate_all(self, cfgs: Sequence, seeds: int, description: str = "simulating") -> list[CachedSimulation]:
        """Simulate each config (a progress bar over points × seeds); returns results in order."""
        task = self.progress.add_task(f"{self.item.name}: {description}", total=len(cfgs) * seeds)
        out = []
        try:
            for cfg in cfgs:
                done = []
                res = self.simulate(cfg, seeds, on_seed=lambda done=done: (done.append(1), self.progress.advance(task)))
                if res.from_cache:
                    self.progress.advance(task, seeds - len(done))
                out.append(res)
        finally:
            self.progress.remove_task(task)
        return out
