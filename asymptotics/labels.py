r"""What each column of a result is: its name in words, its symbol (Unicode) and its LaTeX symbol —
the one home of these labels, for plots (:meth:`~asymptotics.results.Result.plot`), paper tables
(:mod:`asymptotics.reproduce.export`, ``asymptotics table``) and anything else that shows a column.

>>> axis_label("risk1")
'risk after the step R₁'
>>> axis_label("psi1")
'samples per dimension n/d ψ₁'
>>> axis_label("no_such_column")
'no_such_column'
>>> SYMBOLS["psi1"]
('ψ₁', '$\\psi_1$')
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Label", "LABELS", "SYMBOLS", "axis_label", "symbol"]


class Label(NamedTuple):
    """A column's ``name`` (words; empty where the symbol says it all), ``symbol`` (Unicode) and
    ``latex`` (its symbol in LaTeX)."""

    name: str
    symbol: str
    latex: str


#: column → its label (the parameters of the grids, then the computed quantities).
LABELS: dict[str, Label] = {
    # grid parameters
    "psi1": Label("samples per dimension n/d", "ψ₁", r"$\psi_1$"),
    "psi2": Label("width per dimension N/d", "ψ₂", r"$\psi_2$"),
    "lam": Label("ridge penalty", "λ", r"$\lambda$"),
    "eta": Label("learning rate", "η", r"$\eta$"),
    "eta_exponent": Label("learning-rate exponent", "η exponent", r"$\log_N \eta$"),
    "noise": Label("label noise", "σ_ε", r"$\sigma_\varepsilon$"),
    "alpha": Label("samples per dimension n/d", "α", r"$\alpha$"),
    "alpha0": Label("step samples per dimension n₀/d", "α₀", r"$\alpha_0$"),
    "beta": Label("width per dimension p/d", "β", r"$\beta$"),
    "eta_tilde": Label("step size", "η̃", r"$\tilde\eta$"),
    "gamma": Label("spike strength", "γ", r"$\gamma$"),
    "d": Label("input dimension", "d", "$d$"),
    "width": Label("", "width", "width"),
    "x": Label("eigenvalue", "x", "$x$"),
    # one step (Ba et al.)
    "risk0": Label("risk before the step", "R₀", r"$R_0$"),
    "risk1": Label("risk after the step", "R₁", r"$R_1$"),
    "delta": Label("risk decrease R₀ − R₁", "δ", r"$\delta$"),
    "delta_ridgeless": Label("ridgeless risk decrease", "δ₀", r"$\delta_0$"),
    "overlap_beta": Label("teacher alignment", "⟨u₁,β*⟩²", r"$\langle u_1,\beta_*\rangle^2$"),
    "overlap_a": Label("readout alignment", "⟨v₁,a⟩²", r"$\langle v_1,a\rangle^2$"),
    "top_sv2": Label("top squared singular value", "s₁²", r"$s_1^2$"),
    "eta_threshold": Label("alignment threshold", "η_c", r"$\eta_c$"),
    "kernel_bound": Label("kernel lower bound", "μ₂*²", r"$\mu_{2,*}^2$"),
    "ck_outlier": Label("", "CK outlier", r"$\lambda_{\max}(\mathrm{CK})$"),
    "ck_bulk_edge": Label("CK bulk edge", "λ₊(CK)", r"$\lambda_+(\mathrm{CK})$"),
    "density": Label("eigenvalue density", "ρ(x)", r"$\rho(x)$"),
    # large step
    "tau_star": Label("kernel-beating threshold", "τ*", r"$\tau_*$"),
    "kappa_star": Label("", "κ*", r"$\kappa_*$"),
    "ten_tau_star": Label("", "10τ*", r"$10\tau_*$"),
    "beats_every_kernel": Label("", "10τ* < μ₂*²", r"$10\tau_* < \mu_{2,*}^2$"),
    "upper_bound": Label("risk upper bound", "R̄", r"$\bar R$"),
    # spiked random features (Cui et al.)
    "test_error": Label("test error", "ε_g", r"$\varepsilon_g$"),
    "train_error": Label("training error", "ε_t", r"$\varepsilon_t$"),
    "test_error_alpha_1": Label("test error at α = 1", "ε_g (α = 1)", r"$\varepsilon_g$ ($\alpha = 1$)"),
    "test_error_alpha_3": Label("test error at α = 3", "ε_g (α = 3)", r"$\varepsilon_g$ ($\alpha = 3$)"),
    # comparisons
    "theory": Label("", "theory", "theory"),
    "simulation": Label("", "simulation", "simulation"),
    "se": Label("standard error", "s.e.", "s.e."),
    "z": Label("z-score", "z", "$z$"),
    "risk0_theory": Label("", "R₀ theory", r"$R_0$ theory"),
    "risk1_theory": Label("", "R₁ theory", r"$R_1$ theory"),
    "delta_theory": Label("", "δ theory", r"$\delta$ theory"),
    "random_features": Label("", "random features", "random features"),
    "network": Label("", "network (sim.)", "network (sim.)"),
    "srf": Label("", "sRF model (sim.)", "sRF model (sim.)"),
    "theory_finite_N": Label("", "theory, width N", "theory, width $N$"),
    "theory_N_inf": Label("", "theory, N = ∞", r"theory, $N = \infty$"),
    "theory_structured": Label("", "theory, structured map", "theory, structured map"),
}

#: column → (Unicode symbol, LaTeX symbol): the headers of paper tables.
SYMBOLS: dict[str, tuple[str, str]] = {k: (v.symbol, v.latex) for k, v in LABELS.items()}


def symbol(column: str) -> str:
    """The column's Unicode symbol, or its name when it has none."""
    label = LABELS.get(column)
    return label.symbol if label else column


def axis_label(column: str) -> str:
    """The column's name and symbol (``"risk after the step R₁"``), the symbol alone where it has no
    name, the column's own name where it has no label."""
    label = LABELS.get(column)
    if label is None:
        return column
    return f"{label.name} {label.symbol}" if label.name else label.symbol
