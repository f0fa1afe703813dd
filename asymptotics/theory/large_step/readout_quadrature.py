r"""Discretisations of the law of readout types u = √N a⁰ ~ N(0, 1).

After one large step η = c√N in the Ba et al. protocol, neuron i is a spiked-random-features neuron
of *type* uᵢ = √N a⁰ᵢ (``docs/large-step-exact.md``): its spike is r uᵢ and its bulk
variance c(uᵢ). With a Gaussian readout initialisation the types have a continuous law, and every
expectation E_u f(u) of the theory is replaced by a finite rule Σⱼ πⱼ f(uⱼ):

* ``"hermite"`` — probabilists' Gauss–Hermite nodes and weights (:func:`asymptotics.gaussian.hermite_rule`):
  the quadrature of the *continuous* law. This is the default; the answer is checked for
  convergence in the number of nodes K (:func:`~.gaussian_readout.gaussian_readout_risk`).
* ``"quantile"`` — K equal-mass types at the midpoint quantiles uⱼ = Φ⁻¹((j − ½)/K), πⱼ = 1/K: a
  readout with K *discrete* types (the network a K-type readout initialisation would give). At
  N = ∞ it converges to the continuous law as K grows; ``docs/large-step-exact.md``
  quotes the sequence K = 2, 4, 8, 16, 32 → .0545, .0295, .0261, .0259, .0259 (erf/erf, ψ1 = 8).
* ``"given"`` — explicit values and proportions, e.g. u ≡ 1 (the uniform readout of Cui et al.) or
  u ∈ {0.5, 1.5}: the theory then is the K-type spiked RF of ``docs/spiked-rf.md`` (finite K), plus
  the finite-width mean block.

>>> rule = readout_rule("quantile", 2)
>>> [round(float(u), 6) for u in rule.values], rule.weights.tolist()
([-0.67449, 0.67449], [0.5, 0.5])
>>> readout_rule("hermite", 3).values.round(6).tolist()              # ±√3 and 0
[-1.732051, 0.0, 1.732051]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...gaussian import hermite_rule
from ...params import check_in_range, check_int

__all__ = ["ReadoutRule", "readout_rule", "KINDS"]

#: the kinds of rule (see the module docstring)
KINDS = ("hermite", "quantile", "given")

#: largest number of types accepted (the theory is O(K n² + n³) per iteration)
MAX_TYPES = 4096


@dataclass(frozen=True)
class ReadoutRule:
    r"""A finite rule E_u f(u) ≈ Σⱼ πⱼ f(uⱼ) for the readout types.

    Attributes:
        values: the type values uⱼ, shape (K,).
        weights: the proportions πⱼ > 0, summing to 1.
        kind: ``"hermite"`` (quadrature of N(0, 1)), ``"quantile"`` (K equal-mass discrete types)
            or ``"given"`` (explicit types).
    """

    values: np.ndarray
    weights: np.ndarray
    kind: str

    @property
    def K(self) -> int:
        """Number of types (quadrature nodes)."""
        return int(self.values.size)

    @property
    def is_gaussian(self) -> bool:
        """Whether the rule stands for the continuous Gaussian law (``"hermite"``)."""
        return self.kind == "hermite"

    def with_types(self, K: int) -> ReadoutRule:
        """The same kind of rule with K types (``"given"`` rules cannot be resized)."""
        if self.kind == "given":
            raise ParameterError("types", K, "not applicable to explicitly given readout types")
        return readout_rule(self.kind, K)

    def as_dict(self) -> dict:
        out = {"readout": self.kind, "types": self.K}
        if self.kind == "given":
            out.update(readout_values=self.values.tolist(), readout_proportions=self.weights.tolist())
        return out


def _check_types(K) -> int:
    k = check_int("types", K, 1)
    if k > MAX_TYPES:
        raise ParameterError("types", K, f"an integer in [1, {MAX_TYPES}]")
    return k


def readout_rule(kind: str = "hermite", types: int = 32, *, values=None, proportions=None) -> ReadoutRule:
    r"""A :class:`ReadoutRule`.

    Parameters
    ----------
    kind : ``"hermite"``, ``"quantile"`` or ``"given"`` (then ``values`` is required).
    types : K, the number of nodes / types (ignored for ``"given"``).
    values, proportions : explicit types uⱼ and proportions πⱼ (equal when omitted).
    """
    if kind not in KINDS:
        raise ParameterError("readout", kind, "one of " + ", ".join(KINDS))
    if kind == "given":
        if values is None:
            raise ParameterError("readout_values", values, "a non-empty list of type values for readout='given'")
        vals = np.atleast_1d(np.asarray(values, dtype=float))
        if vals.ndim != 1 or vals.size == 0 or vals.size > MAX_TYPES:
            raise ParameterError("readout_values", values, f"a non-empty list of at most {MAX_TYPES} numbers")
        for i, v in enumerate(vals):
            check_in_range(f"readout_values[{i}]", float(v), -1e6, 1e6)
        if proportions is None:
            w = np.full(vals.size, 1.0 / vals.size)
        else:
            w = np.atleast_1d(np.asarray(proportions, dtype=float))
            if w.shape != vals.shape or not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise ParameterError("readout_proportions", proportions,
                                     f"{vals.size} positive proportions (one per readout value)")
            if abs(float(w.sum()) - 1.0) > 1e-9:
                raise ParameterError("readout_proportions", proportions, "proportions summing to 1")
            w = w / w.sum()
        return ReadoutRule(vals, w, "given")
    if values is not None or proportions is not None:
        raise ParameterError("readout_values", values, "only with readout='given'")
    K = _check_types(types)
    if kind == "hermite":
        u, w = hermite_rule(K)
        return ReadoutRule(np.array(u), np.array(w), "hermite")
    from scipy.special import ndtri  # lazy: only the quantile readout needs it

    u = ndtri((np.arange(K) + 0.5) / K)
    return ReadoutRule(u, np.full(K, 1.0 / K), "quantile")
