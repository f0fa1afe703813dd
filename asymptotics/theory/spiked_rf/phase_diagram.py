r"""Phase diagram of one large step: the sRF test error over (α, η̃) at fixed α0, λ, β.

:func:`phase_diagram` returns the data of the figure: ε_g(α, η̃) after one step of learning rate
η̃ with a first batch n0 = α0·d (Cui et al. protocol, docs/spiked-rf.md), the random-features error
ε_RF(α) (no step: r = 0, c = 1, γ = 0) and the linear floor h2* − h0*² − h1*² below which no
random-features ridge goes. Its contours ε_g = ε_RF(α) (where the step starts to help or to hurt)
and ε_g = floor (where the trained network beats every kernel method) are the two lines of the
figure. The tables of each η̃ are built once (cached by (σ, σ*, c, r, γ)) and every (η̃, α) curve is
solved by :func:`~.grid.spiked_rf_grid`.

>>> from asymptotics.theory.spiked_rf.phase_diagram import phase_diagram
>>> pd = phase_diagram([0.5, 1.5, 3.0], [0.0, 5.0], alpha0=1.0, lam=0.01)
>>> pd.test_error.round(3)                                    # docs/spiked-rf.md: .316 .319 .191 at η̃ = 5
array([[0.412, 0.254, 0.167],
       [0.316, 0.319, 0.191]])
>>> bool(pd.gain[1, 0] > 0), bool(pd.gain[1, 1] < 0)           # the step helps at α = 0.5, hurts at 1.5
(True, True)
>>> pd = phase_diagram([0.5, 1.5, 3.0], [1.0, 3.0, 5.0], alpha0=1.0, lam=0.01)
>>> [a.round(2).tolist() for a in pd.boundary("rf")]          # (α, η̃) where ε_g = ε_RF
[[1.5, 3.0], [3.56, 3.95]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import ParameterError
from ...params import check_nonnegative, check_positive
from .channel import channel_model
from .grid import spiked_rf_grid
from .mapping import as_activation, cui_to_srf, srf_parameters
from .special_cases import linear_floor

__all__ = ["PhaseDiagram", "phase_diagram"]


@dataclass(frozen=True)
class PhaseDiagram:
    r"""ε_g over (η̃, α) with the random-features error and the linear floor.

    Attributes:
        alphas, eta_tildes: the axes (α = n/d of the second step, η̃ the learning rate).
        alpha0, beta, lam, noise: α0 = n0/d of the first step, β = p/d, the ridge λ (Cui's), σ_ε.
        student, teacher: the activations' names.
        test_error, train_error: arrays (η̃, α); NaN where the fixed point has no solution.
        converged: (η̃, α) booleans; residual: the full-system residual of each point.
        rf_error: ε_RF(α), the random-features (r = 0) test error at the same α, β, λ.
        linear_floor: h2* − h0*² − h1*² (the best linear predictor's error).
        r, c, gamma: the sRF parameters of each η̃.
    """

    alphas: np.ndarray
    eta_tildes: np.ndarray
    alpha0: float
    beta: float
    lam: float
    noise: float
    student: str
    teacher: str
    test_error: np.ndarray
    train_error: np.ndarray
    converged: np.ndarray
    residual: np.ndarray
    rf_error: np.ndarray
    linear_floor: float
    r: np.ndarray
    c: np.ndarray
    gamma: np.ndarray
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def gain(self) -> np.ndarray:
        """ε_RF(α) − ε_g(α, η̃): positive where the step helps (the contour 0 of the figure)."""
        return self.rf_error[None, :] - self.test_error

    def boundary(self, level: str = "rf") -> tuple[np.ndarray, np.ndarray]:
        r"""The contour ε_g(α, η̃) = level as points (α, η̃): for each α, every η̃ between two grid
        rows where ε_g − level changes sign, by linear interpolation. ``level``: ``"rf"`` (ε_RF(α):
        where the step starts to help or to hurt) or ``"floor"`` (the linear floor: below it the
        trained readout beats every kernel method)."""
        if level not in ("rf", "floor"):
            raise ParameterError("level", level, "'rf' or 'floor'")
        ref = self.rf_error[None, :] if level == "rf" else np.full((1, self.alphas.size), self.linear_floor)
        f = self.test_error - ref
        xs, ys = [], []
        for j in range(self.alphas.size):
            col = f[:, j]
            for i in range(self.eta_tildes.size - 1):
                a, b = col[i], col[i + 1]
                if np.isfinite(a) and np.isfinite(b) and a * b < 0.0:
                    e0, e1 = self.eta_tildes[i], self.eta_tildes[i + 1]
                    xs.append(self.alphas[j])
                    ys.append(e0 + (e1 - e0) * a / (a - b))
        return np.array(xs), np.array(ys)

    def as_rows(self) -> list[dict]:
        """One row per (η̃, α) with the errors, the RF error, the floor and (r, c, γ)."""
        rows = []
        for i, e in enumerate(self.eta_tildes):
            for j, a in enumerate(self.alphas):
                ok = bool(self.converged[i, j])
                rows.append({
                    "eta_tilde": float(e), "alpha": float(a), "alpha0": self.alpha0, "beta": self.beta,
                    "lam": self.lam, "test_error": float(self.test_error[i, j]) if ok else None,
                    "train_error": float(self.train_error[i, j]) if ok else None,
                    "rf_error": float(self.rf_error[j]), "linear_floor": self.linear_floor,
                    "r": float(self.r[i]), "c": float(self.c[i]), "gamma": float(self.gamma[i]),
                    "residual": float(self.residual[i, j]),
                })
        return rows


def phase_diagram(alphas, eta_tildes, *, alpha0: float, beta: float = 1.0, lam: float = 0.01, student="tanh",
                  teacher="tanh", noise: float = 0.0, tol: float = 1e-12, progress=None) -> PhaseDiagram:
    r"""ε_g(α, η̃) after one large step, with ε_RF(α) and the linear floor (module docstring).

    ``alphas`` and ``eta_tildes`` are 1-D sequences (α > 0, η̃ ≥ 0); ``alpha0`` > 0 or ``math.inf``
    (isotropic limit); ``progress(done, total)`` is called as the curves are solved.
    """
    s_act = as_activation(student, "student")
    t_act = as_activation(teacher, "teacher")
    sn = check_nonnegative("noise", noise)
    beta, lam = check_positive("beta", beta), check_nonnegative("lam", lam)
    etas = np.array([check_nonnegative("eta_tilde", e) for e in np.atleast_1d(eta_tildes).tolist()], dtype=float)
    models = [channel_model(cui_to_srf(float(e), alpha0, s_act, t_act, sn), s_act, t_act, sn) for e in etas]
    rf = channel_model(srf_parameters(1.0, 0.0, 0.0), s_act, t_act, sn)
    grid = spiked_rf_grid([*models, rf], alphas, [beta], [lam], tol=tol, progress=progress)
    a0 = math.inf if isinstance(alpha0, float) and math.isinf(alpha0) else float(alpha0)
    return PhaseDiagram(
        alphas=grid.alphas, eta_tildes=etas, alpha0=a0, beta=beta, lam=lam, noise=sn, student=s_act.name,
        teacher=t_act.name, test_error=grid.test_error[:-1, 0, 0], train_error=grid.train_error[:-1, 0, 0],
        converged=grid.converged[:-1, 0, 0], residual=grid.residual[:-1, 0, 0], rf_error=grid.test_error[-1, 0, 0],
        linear_floor=float(linear_floor(t_act)), r=np.array([m.params.r for m in models]),
        c=np.array([m.params.c for m in models]), gamma=np.array([m.params.gamma for m in models]),
        meta={"tolerance": tol, "prior": "Marchenko–Pastur closed form", "formulas": "docs/spiked-rf.md"},
    )
