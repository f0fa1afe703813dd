"""What an item's data function receives: its size, the cache, seeds and progress."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cache import CachedSimulation, SimulationCache
from .data import FigureData
from .item import Item
from .progress import NullProgress

__all__ = ["Context", "NullProgress"]


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
    simulations: list[dict] = field(default_factory=list)

    @property
    def p(self) -> dict:
        """The parameters of this size preset."""
        return dict(self.item.size(self.size))

    def figure(self, x_name: str, **params) -> FigureData:
        """An empty :class:`FigureData` for this item along ``x_name``, its ``params`` the given
        constants followed by this size preset's parameters."""
        return FigureData(self.item.name, x_name, params={**params, **self.p})

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

    def sweep(self, config, x_name: str, xs: Sequence, description: str, **fixed) -> list[CachedSimulation]:
        """Simulate ``config(**fixed, x_name=x)`` at each x of ``xs`` (:meth:`simulate_all`), with this
        size preset's ``d`` and, where the preset sets one, its ``n_test``, over its ``seeds``."""
        p = self.p
        size = {k: p[k] for k in ("d", "n_test") if k in p}
        cfgs = [config(**fixed, **size, **{x_name: x}) for x in xs]
        return self.simulate_all(cfgs, p["seeds"], description)

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
