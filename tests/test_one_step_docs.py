"""The executable examples in the docstrings of the one-step theory modules run and give what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "asymptotics.theory.one_step",
    "asymptotics.theory.one_step.model",
    "asymptotics.theory.first_gradient",
    "asymptotics.theory.one_step.spike_parameters",
    "asymptotics.theory.one_step.spike",
    "asymptotics.theory.one_step.ck_outlier",
    "asymptotics.theory.one_step.risk_mei_montanari",
    "asymptotics.theory.one_step.risk_deterministic_equivalent",
    "asymptotics.theory.one_step.route_pencil",
    "asymptotics.theory.one_step.limits",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.failed == 0
