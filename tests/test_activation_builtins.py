"""The built-ins' tables known without sympy (canonical ``srepr``, ``sstr`` text, parity, kinks) equal the
symbolic computation, an activation's identity is its canonical expression and centring, and an
activation pickles (sweeps send them to worker processes)."""

from __future__ import annotations

import pickle

import pytest
import sympy as sp

from asymptotics.activations import BUILTINS, Activation, activation, find_kinks
from asymptotics.activations.builtins import CANONICAL, KINKS, LIMITS, NAMES, PARITY, TEXT, builtin_name
from asymptotics.theory.large_step.tau_star import activation_limits


def _symbolic(name: str) -> Activation:
    """The built-in as a user expression: every property decided by sympy."""
    expr = BUILTINS[name][0]
    return Activation(name, sp.srepr(expr), True, None, expr)


def test_the_tables_name_every_builtin_in_order():
    assert NAMES == tuple(BUILTINS) == tuple(TEXT) == tuple(PARITY) == tuple(KINKS) == tuple(LIMITS)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_the_tables_equal_the_symbolic_computation(name):
    expr = BUILTINS[name][0]
    assert CANONICAL[name] == sp.srepr(expr)
    assert TEXT[name] == sp.sstr(expr)
    assert PARITY[name] == _symbolic(name).parity
    assert KINKS[name] == find_kinks(expr) == _symbolic(name).kinks
    act = activation(name)
    assert act.raw is expr and act.canonical == CANONICAL[name] and act.text == TEXT[name]
    assert LIMITS[name] == activation_limits(_symbolic(name)) == activation_limits(activation(name, center=False))


def test_aliases_resolve_without_sympy():
    assert builtin_name(" Swish ") == "silu" and builtin_name("identity") == "linear"
    assert builtin_name("tanh(x)") is None


def test_identity_is_the_canonical_expression_and_the_centring():
    assert activation("tanh") == activation("tanh(x)") == _symbolic("tanh")
    assert activation("tanh") != activation("tanh", center=False)
    assert activation("x**2") == activation("quadratic") and activation("x**2") != activation("x**2 - 1")
    assert hash(activation("tanh")) == hash(activation("TANH"))
    assert activation("tanh").constants() == activation("tanh(x)").constants()


@pytest.mark.parametrize("spec", ["tanh", "relu", "tanh(x) + 0.1*x**3"])
def test_an_activation_pickles_with_its_identity_and_constants(spec):
    act = activation(spec)
    c = act.constants()
    _ = act.raw, act.kinks  # cached values are not what is pickled
    back = pickle.loads(pickle.dumps(act))
    assert back == act and hash(back) == hash(act) and back.builtin == act.builtin
    assert back.raw == act.raw and back.constants() == c
    assert not {"raw", "kinks"} & set(pickle.loads(pickle.dumps(act)).__dict__)


def test_the_api_activation_result_pickles():
    import asymptotics as asy

    act = asy.activation("tanh", method="float64")
    back = pickle.loads(pickle.dumps(act))
    assert back == act and back.method == "float64" and back.rows == act.rows


def test_equal_activations_hash_alike_and_keep_their_names():
    """__hash__ agrees with __eq__ (equal canonical expression and centring), and an activation
    passed in keeps its own name (no cache keyed by equality swaps ``x`` for ``linear``)."""
    from asymptotics.activations import activation

    x, lin = activation("x", center=False), activation("linear", center=False)
    assert x == lin and hash(x) == hash(lin)
    assert activation(x, center=True).name == "x" and activation(lin, center=True).name == "linear"
    assert activation(lin, center=False) is lin


@pytest.mark.parametrize("name", ["relu", "softplus", "tanh"])
def test_a_builtin_module_is_the_one_the_expression_lowers_to(name):
    """The built-in's index key (name + centring offset, no sympy) leads to the same generated
    file as lowering its sympy expression, centred and raw, and its σ is that expression's."""
    import math

    from asymptotics.activations.lowering import lower_activation

    for center in (True, False):
        act = activation(name, center=center)
        assert act._module.__file__ == lower_activation(act.expr).__file__
        assert act._raw_mod.__file__ == lower_activation(act.raw).__file__
        x = 0.37
        want = float(act.raw.subs(act.raw.free_symbols.pop(), x)) - act.offset
        assert math.isclose(act.f(x), want, rel_tol=1e-14, abs_tol=1e-15)


def test_the_builtin_module_doctest():
    import doctest

    import asymptotics.activations.builtin_modules as mod

    failed, tried = doctest.testmod(mod)
    assert failed == 0 and tried >= 3
