"""Theory layer: one function per equation.

- :mod:`asymptotics.theory.one_step` — Ba et al. (2022), η = Θ(1): spike, alignment, CK outlier,
  R0, R1, δ by three routes, limits.
- :mod:`asymptotics.theory.spiked_rf` — Cui et al. (2024): the spiked random-features model, its
  replica fixed point with a conditional Gaussian equivalence, K readout types.
- :mod:`asymptotics.theory.first_gradient` — the first gradient's statistics shared by both
  one-step theories (lim ‖Xᵀy/n‖²).
- :mod:`asymptotics.theory.large_step` — η = Θ(√N): τ*, bounds, the intermediate regime and the
  exact Gaussian-readout risk curve.
"""
