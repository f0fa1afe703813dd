"""The simulation cache: keys, hits/misses (counted, not timed), atomic writes, resumption."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from types import SimpleNamespace

import pytest

from asymptotics.reproduce import cache as cache_mod
from asymptotics.reproduce.cache import SimulationCache


@dataclass(frozen=True)
class Cfg:  # stands in for a simulator config (any frozen dataclass)
    student: str = "tanh"
    d: int = 64
    psi1: float = 2.0
    measure: tuple = ("risk",)


def _fake_result(v):
    return SimpleNamespace(mean={"risk1": v, "nanq": math.nan}, se={"risk1": 0.01, "nanq": math.nan},
                           per_seed=[{"risk1": v}], meta={"seeds": [1, 2]})


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self, v=0.5):
        def compute():
            self.n += 1
            return _fake_result(v)

        return compute


def test_hit_after_miss_and_values_round_trip(tmp_path):
    c, count = SimulationCache(tmp_path), Counter()
    r1 = c.get_or_compute(Cfg(), 3, 7, count(0.25))
    r2 = SimulationCache(tmp_path).get_or_compute(Cfg(), 3, 7, count(0.99))   # a new process: reads disk
    assert count.n == 1 and not r1.from_cache and r2.from_cache
    assert r2.mean["risk1"] == 0.25 and r2.value("risk1") == (0.25, 0.01)
    assert math.isnan(r2.mean["nanq"])                  # non-finite values survive JSON
    assert c.events == [("miss", r1.key), ("write", r1.key)]


@pytest.mark.parametrize("change", [
    lambda cfg, s, r: (replace(cfg, psi1=2.0000001), s, r),
    lambda cfg, s, r: (replace(cfg, student="erf"), s, r),
    lambda cfg, s, r: (replace(cfg, measure=("risk", "spike")), s, r),
    lambda cfg, s, r: (cfg, s + 1, r),
    lambda cfg, s, r: (cfg, s, r + 1),
])
def test_any_changed_input_recomputes(tmp_path, change):
    c, count = SimulationCache(tmp_path), Counter()
    c.get_or_compute(Cfg(), 3, 7, count())
    cfg2, s2, r2 = change(Cfg(), 3, 7)
    res = c.get_or_compute(cfg2, s2, r2, count())
    assert count.n == 2 and not res.from_cache
    assert c.get_or_compute(Cfg(), 3, 7, count()).from_cache and count.n == 2


def test_code_version_is_part_of_the_key(tmp_path, monkeypatch):
    c = SimulationCache(tmp_path)
    k1 = c.key(Cfg(), 3, 7)
    monkeypatch.setattr(cache_mod, "_FINGERPRINT", "0123456789abcdef")
    assert c.key(Cfg(), 3, 7) != k1
    monkeypatch.setattr(cache_mod, "__version__", "999.0")
    monkeypatch.setattr(cache_mod, "_FINGERPRINT", None)
    assert c.key(Cfg(), 3, 7) != k1


def test_type_of_config_is_part_of_the_key(tmp_path):
    @dataclass(frozen=True)
    class Other(Cfg):
        pass

    assert SimulationCache.key(Cfg(), 1, 1) != SimulationCache.key(Other(), 1, 1)


def test_interrupted_simulation_writes_nothing(tmp_path):
    c = SimulationCache(tmp_path)

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        c.get_or_compute(Cfg(), 3, 7, interrupted)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_crash_during_write_leaves_no_file(tmp_path, monkeypatch):
    c, count = SimulationCache(tmp_path), Counter()

    def boom(src, dst):
        raise KeyboardInterrupt  # Ctrl-C between writing the temporary file and renaming it

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        c.get_or_compute(Cfg(), 3, 7, count())
    monkeypatch.undo()
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]       # neither final nor .part file
    assert not c.get_or_compute(Cfg(), 3, 7, count()).from_cache and count.n == 2


def test_truncated_entry_is_a_miss_and_is_rewritten(tmp_path):
    c, count = SimulationCache(tmp_path), Counter()
    r = c.get_or_compute(Cfg(), 3, 7, count())
    path = c.path(r.key)
    path.write_text(path.read_text()[:40])            # e.g. written by a foreign non-atomic tool
    r2 = c.get_or_compute(Cfg(), 3, 7, count())
    assert count.n == 2 and not r2.from_cache
    assert c.get_or_compute(Cfg(), 3, 7, count()).from_cache


def test_disabled_cache_always_recomputes(tmp_path):
    c, count = SimulationCache(tmp_path, enabled=False), Counter()
    c.get_or_compute(Cfg(), 3, 7, count())
    c.get_or_compute(Cfg(), 3, 7, count())
    assert count.n == 2 and c.misses == 2 and not list(tmp_path.rglob("*.json"))
