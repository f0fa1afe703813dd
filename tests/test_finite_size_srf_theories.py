"""Which theory the spiked-RF finite-size variants judge, checked against committed simulations.

* The network (Cui protocol, uniform readout) is judged against the network map (structured bulk
  and the step's self term), with the structured-bulk map and the isotropic map of Cui et al. beside it: the library simulator's network at d = 1000 (16 seeds,
  ``tests/test_spiked_rf_data/finite_width/network_cui_eta5_a1_d1000.csv``) is within 3 s.e. of the
  judged theory and far from the reference.
* The sRF model with three readout types is judged at every d against the finite-p theory at
  p = round(βd): the sRF simulations at d = 300 … 2400 (``srf_three_d*.csv``, made by
  ``make_srf_ktypes.sh``) pass its combined χ² and reject the p = ∞ value.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from validation.finite_size.catalogue import variants
from validation.finite_size.verdict import finite_width_verdict

DATA = Path(__file__).parent / "test_spiked_rf_data" / "finite_width"


def _column(name: str, key: str = "test_error") -> np.ndarray:
    with open(DATA / name) as f:
        return np.array([float(r[key]) for r in csv.DictReader(f)])


def _quantity(variant: str, name: str):
    (v,) = variants([variant])
    return next(q for q in v.quantities if q.name == name)


def test_network_is_judged_against_the_network_map():
    vals = _column("network_cui_eta5_a1_d1000.csv")
    mean, se = vals.mean(), vals.std(ddof=1) / math.sqrt(vals.size)
    q = _quantity("spiked-rf-table-tanh-alpha3-network", "test_error")
    refs = dict(q.references)
    assert list(refs) == ["structured map", "isotropic map", "isotropic map + self term"]
    assert abs(mean - q.theory()) <= 3 * se
    assert abs(mean - refs["isotropic map"]()) >= 5 * se
    assert abs(mean - refs["structured map"]()) <= 3 * se  # the self term is small at α0 = 1 (−0.6 %)


def test_three_readout_types_are_judged_against_the_finite_width_theory():
    q = _quantity("spiked-rf-readout-types-srf-three-he3", "test_error")
    dims = (300, 600, 1200, 2400)
    vals = [_column(f"srf_three_d{d}.csv") for d in dims]
    means = [v.mean() for v in vals]
    ses = [v.std(ddof=1) / math.sqrt(v.size) for v in vals]
    finite = [q.finite_theory(d) for d in dims]
    assert finite_width_verdict(means, ses, finite).passed
    assert not finite_width_verdict(means, ses, [q.theory()] * len(dims)).passed
    # the finite-width theory decreases towards the p = ∞ value it is the limit of
    assert all(a > b for a, b in zip(finite, finite[1:], strict=False)) and finite[-1] > q.theory()
    # ... like b/p at large p (Richardson from p = 10⁹, 2·10⁹ removes it)
    assert 2 * q.finite_theory(2 * 10**9) - q.finite_theory(10**9) == pytest.approx(q.theory(), rel=1e-8)
