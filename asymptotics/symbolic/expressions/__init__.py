r"""From a matrix expression to an exact answer: automatic linear pencils (``docs/expressions.md``).

A normalised trace of a rational expression in independent rectangular Gaussian matrices,

>>> D = derive("tr(inv(X.T@X/d + lam*I))", dims="X:n,d", ratios="n/d=2")

is parsed safely (:mod:`.parser`, :mod:`.declarations`), linearised into a linear pencil whose
inverse holds the trace (:mod:`.linearise`, :mod:`.assemble`), turned into matrix Dyson equations,
pruned and reduced (:mod:`.equations`), and solved by a generated compiled solver with an explicit
branch (:mod:`asymptotics.solvers.expression_values`). For X ∈ ℝ^{n×d} with N(0, 1) entries,
tr(XᵀX/d + λ)⁻¹ is the Marchenko–Pastur Stieltjes transform at −λ with ratio n/d = 2:

>>> from asymptotics.solvers.expression_values import evaluate_point
>>> r = evaluate_point(D, at={"lam": 1.0})
>>> round(r.value, 12), r.status.label                  # (√(λ² + 2λ(1+γ) + (γ−1)²) − λ + 1 − γ)/(2λ)
(0.414213562373, 'converged')
"""

from .declarations import Declarations, declare
from .derivation import Derivation, activation_constants, derive
from .parser import Parsed, parse

__all__ = ["derive", "Derivation", "declare", "Declarations", "parse", "Parsed", "activation_constants"]
