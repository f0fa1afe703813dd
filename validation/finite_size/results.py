r"""The result of a finite-size study: per quantity the ladder's means, the fit, the verdict; rows.

Rows (one per quantity) carry ``case, quantity, theory, limit, limit_se, z, omega, chi2_dof,
dims, passed`` and, beside them, the variant, the fitted model, the fit's p-value, the per-d
``seeds``, ``means`` and ``ses``, the finite-width theory and its z per d when there is one, the
verdict's kind and reason, and how the standard errors were obtained. Everything is plain data
(:meth:`StudyResult.as_dict` is JSON-ready), so a convergence figure can be drawn from a saved
result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .allocation import SeedPlan
from .fit import Extrapolation
from .verdict import Verdict

__all__ = ["QuantityResult", "StudyResult", "ROW_COLUMNS"]

#: The leading columns of every row (the issue's list), in order.
ROW_COLUMNS = ("case", "quantity", "theory", "limit", "limit_se", "z", "omega", "chi2_dof", "dims", "passed")


def _f(v):
    """A float for a row, None when not finite."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


@dataclass(frozen=True)
class QuantityResult:
    """One quantity of a study.

    Attributes:
        name, label: the quantity and its axis label.
        theory: the d → ∞ theory.
        dims, seeds, means, ses: the ladder, the seeds used and the mean ± s.e. at each d.
        se_method: ``pooled`` (variance model over the ladder) or ``per-d``.
        variance_dof: degrees of freedom of the standard errors (for the F tests).
        extrapolation: the d → ∞ fit.
        limit_verdict: the limit against the d → ∞ theory (always computed).
        finite_theory: the finite-width theory at each d, when there is one.
        verdict: the verdict that decides (``finite-width`` when there is a finite-width theory,
            else ``limit_verdict``).
        omega_reason: why these ω.
        per_seed: the per-seed values at each d.
        references: ``((name, value), …)``: d → ∞ values reported beside ``theory``, not judged.
    """

    name: str
    label: str
    theory: float
    dims: tuple[int, ...]
    seeds: tuple[int, ...]
    means: tuple[float, ...]
    ses: tuple[float, ...]
    se_method: str
    variance_dof: float
    extrapolation: Extrapolation | None
    limit_verdict: Verdict
    finite_theory: tuple[float, ...] | None
    verdict: Verdict
    omega_reason: str = ""
    per_seed: tuple[tuple[float, ...], ...] = ()
    references: tuple[tuple[str, float], ...] = ()

    @property
    def passed(self) -> bool:
        return self.verdict.passed

    def reference_z(self) -> dict[str, float]:
        """z = (L − value)/se(L) of the extrapolated limit against each reference value."""
        ex = self.extrapolation
        ok = ex is not None and math.isfinite(ex.limit_se) and ex.limit_se > 0
        return {name: ((ex.limit - v) / ex.limit_se if ok else math.nan) for name, v in self.references}

    def beside(self) -> str:
        """The reference values in words (``""`` when there are none)."""
        z = self.reference_z()
        return "; ".join(f"{name} {v:.6g} (limit z = {z[name]:+.1f})" if math.isfinite(z[name]) else f"{name} {v:.6g}"
                         for name, v in self.references)

    def row(self, case: str, variant: str) -> dict:
        ex = self.extrapolation
        best = ex.best if ex is not None else None
        row = {
            "case": case,
            "quantity": self.name,
            "theory": _f(self.theory),
            "limit": _f(ex.limit) if ex else None,
            "limit_se": _f(ex.limit_se) if ex else None,
            "z": _f(self.limit_verdict.z),
            "omega": best.model.omega if best else None,
            "chi2_dof": _f(best.chi2_dof) if best else None,
            "dims": list(self.dims),
            "passed": self.passed,
            "variant": variant,
            "verdict": self.verdict.kind,
            "p_value": _f(best.p_value) if best else None,
            "fit_model": best.model.label if best else None,
            "fit_rule": ex.rule if ex else None,
            "seeds": list(self.seeds),
            "means": [_f(v) for v in self.means],
            "ses": [_f(v) for v in self.ses],
            "se_method": self.se_method,
            "finite_theory": [_f(v) for v in self.finite_theory] if self.finite_theory else None,
            "z_per_d": [_f(v) for v in self.verdict.z_per_d] if self.verdict.kind == "finite-width" else None,
            "finite_p_value": _f(self.verdict.p_value) if self.verdict.kind == "finite-width" else None,
            "reason": self.verdict.reason,
            "omega_reason": self.omega_reason,
            "references": {name: {"theory": _f(v), "z": _f(self.reference_z()[name])} for name, v in self.references},
            "beside": self.beside(),
        }
        if self.verdict.kind == "finite-width":
            row["reason"] += f"; limit vs d = ∞ theory: {self.limit_verdict.reason}"
        return row

    def as_dict(self) -> dict:
        return {"name": self.name, "label": self.label, "theory": _f(self.theory), "dims": list(self.dims),
                "seeds": list(self.seeds), "means": [_f(v) for v in self.means], "ses": [_f(v) for v in self.ses],
                "se_method": self.se_method, "variance_dof": _f(self.variance_dof),
                "extrapolation": _clean(self.extrapolation.as_dict()) if self.extrapolation else None,
                "finite_theory": [_f(v) for v in self.finite_theory] if self.finite_theory else None,
                "verdict": _clean(vars(self.verdict)), "limit_verdict": _clean(vars(self.limit_verdict)),
                "omega_reason": self.omega_reason, "per_seed": [[_f(v) for v in vs] for vs in self.per_seed],
                "references": [[name, _f(v)] for name, v in self.references]}


def _clean(obj):
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, float):
        return _f(obj)
    return obj


@dataclass(frozen=True)
class StudyResult:
    """A finite-size study of one variant.

    Attributes:
        variant, case, family, description: what was studied.
        params: the parameter point.
        mode: the study mode's name.
        root_seed: the root of every seed (seed i at d is seed i of ``simulate(cfg, K, root_seed)``).
        plan: the seed allocation.
        quantities: one :class:`QuantityResult` per quantity.
        timings: ``pilot_s``, ``total_s`` and ``seconds_per_seed`` per d (measured).
        meta: versions, store hits, notes.
        error: the error that stopped the study, if any (then ``quantities`` is empty).
    """

    variant: str
    case: str
    family: str
    description: str
    params: dict
    mode: str
    root_seed: int
    plan: SeedPlan | None
    quantities: tuple[QuantityResult, ...]
    timings: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(q.passed for q in self.quantities)

    def rows(self) -> list[dict]:
        """One row per quantity (an error gives one failed row naming it)."""
        if self.error:
            return [{"case": self.case, "quantity": "error", "theory": None, "limit": None, "limit_se": None,
                     "z": None, "omega": None, "chi2_dof": None, "dims": [], "passed": False,
                     "variant": self.variant, "reason": self.error}]
        return [q.row(self.case, self.variant) for q in self.quantities]

    def quantity(self, name: str) -> QuantityResult:
        for q in self.quantities:
            if q.name == name:
                return q
        raise KeyError(f"study {self.variant} has no quantity {name!r}; it has {[q.name for q in self.quantities]}")

    def as_dict(self) -> dict:
        return _clean({"variant": self.variant, "case": self.case, "family": self.family,
                       "description": self.description, "params": {k: _param(v) for k, v in self.params.items()},
                       "mode": self.mode, "root_seed": self.root_seed,
                       "plan": self.plan.as_dict() if self.plan else None,
                       "quantities": [q.as_dict() for q in self.quantities], "timings": self.timings,
                       "meta": self.meta, "error": self.error})


def _param(v):
    if isinstance(v, tuple):
        return list(v)
    return v
