r"""The statistics of the first gradient shared by the one-step theories (a plain formula, no imports).

The first gradient of both protocols is, to leading order, a rank-one spike along Xᵀy/n for n
samples with labels y = σ*(⟨β*, x⟩) + ε. Its squared norm

    lim ‖Xᵀy/n‖² = μ1*² + E y²/ψ1,   ψ1 = n/d,

is Ba et al.'s s² (:mod:`asymptotics.theory.one_step.spike_parameters`, docs/one-step.md §1) and
Cui et al.'s ‖ĝ‖² with ψ1 → α0 (:mod:`asymptotics.theory.spiked_rf.mapping`, docs/spiked-rf.md):
one formula, one home. (Kept outside both packages so that importing one does not import the other.)

>>> correlation_norm_sq(0.5, 1.25, 2.0), correlation_norm_sq(0.5, 1.25, float("inf"))
(0.875, 0.25)
"""

from __future__ import annotations

__all__ = ["correlation_norm_sq"]


def correlation_norm_sq(teacher_mu1, label_energy, ratio):
    r"""lim ‖Xᵀy/n‖² = μ1*² + E y²/ψ1 for n = ψ1·d samples (signal + sampling noise; μ1*² at
    ψ1 = ∞). Arguments broadcast; no validation (callers validate their inputs)."""
    return teacher_mu1**2 + label_energy / ratio
