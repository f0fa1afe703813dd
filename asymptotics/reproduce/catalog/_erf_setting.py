"""The erf/erf setting shared by Ba et al. Fig. 1 and Fig. 3(c) (identical simulations: one cache entry).

Fig. 3(c) states σ = σ* = erf, ψ2 = 2, λ = 10⁻³, σ_ε = 0.1; Fig. 1 does not state ψ2, λ, σ_ε and
is drawn with the same values (documented in its caption). The learning rate is η = N^a:
a = 0 is the small step (η = 1), a = 1/2 the large step η = √N (``docs/large-step.md``; the spike
count for 0 < a < 1/2 is :func:`asymptotics.theory.large_step.intermediate.spike_count`).
"""

from __future__ import annotations

import numpy as np

from ..plot import Panel, PlotSpec
from ._common import NOISE_TEX, RISK_LABEL

STUDENT = TEACHER = "erf"
PSI2, LAM, NOISE = 2.0, 1e-3, 0.1
#: ψ1 grid of the exact large-step curve (≈ 0.5 s a point), away from the interpolation peak ψ1 = ψ2
LARGE_GRID = np.geomspace(3.0, 40.0, 14)
#: the parameters every item of this setting records
PARAMS = {"student": STUDENT, "teacher": TEACHER, "psi2": PSI2, "lam": LAM, "noise": NOISE}
#: the large-step theory's keywords in this setting (c = 1)
LARGE_STEP = {"psi2": PSI2, "lam": LAM, "noise": NOISE, "c": 1.0}


def config(d: int, psi1: float, exponent: float, n_test: int):
    """The simulated network at ψ1 with η = N**exponent (c = 1)."""
    from validation.simulator import BaConfig

    return BaConfig(student=STUDENT, teacher=TEACHER, d=d, psi1=psi1, psi2=PSI2, eta=1.0, eta_exponent=exponent,
                    lam=LAM, noise=NOISE, n_test=n_test, measure=("risk",))


def small_step_model():
    """The one-step model of this setting (erf student and teacher, σ_ε = 0.1)."""
    from ...theory.one_step import OneStepModel

    return OneStepModel.from_activations(STUDENT, TEACHER, noise=NOISE)


def plot(title: str, panel_suffix: str = "") -> PlotSpec:
    """The one-panel log–log risk plot of this setting (Fig. 1 and Fig. 3(c)), legend below it."""
    return PlotSpec((Panel("ψ₁ = n/d", RISK_LABEL, xscale="log", yscale="log", legend="figure", legend_ncols=2,
                           title="σ = σ* = erf, ψ₂ = {psi2}, λ = {lam}, " + NOISE_TEX + " = {noise}" + panel_suffix),),
                    title=title, width=6.4, height=5.2)
