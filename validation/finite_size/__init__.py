r"""Finite-size studies: simulate a ladder of d, extrapolate to d → ∞, judge the theory without allowance.

A fixed-d comparison ``|sim − theory| ≤ 3 s.e. + allowance`` cannot detect a theory that is 3 %
wrong when the allowance is 3 %. A finite-size study instead simulates each case on a ladder of
dimensions with seeds chosen for a target standard error, fits value(d) = L + b·d^{-ω}
(+ c·d^{-2ω}) by weighted least squares and passes when |L − theory| ≤ 3·se(L) and the fit is
statistically acceptable — or, where a finite-width theory exists, when every d agrees with it.
Mathematics, rules and results: ``docs/finite-size.md``.

==========================  =====================================================================
:mod:`.fit`                 weighted fits of the power-law models, ω selection by AICc weights
:mod:`.variance`            seed-to-seed variance pooled over the ladder (log σ² linear in log d)
:mod:`.allocation`          seeds per d for a target standard error within a time budget
:mod:`.ladder`              the modes (toy, quick, default, full) and their ladders
:mod:`.verdict`             the two verdict rules (extrapolation, finite width)
:mod:`.adapters`            ``run(params, d, seed) -> values``: the simulator behind a study
:mod:`.spec`                :class:`Variant` and :class:`Quantity` declarations
:mod:`.one_step`, :mod:`.spiked_rf`, :mod:`.large_step`   the variants of the registry's cases
:mod:`.catalogue`           every variant; selection by name, case, family, quick subset
:mod:`.study`               the runner
:mod:`.results`             study results and their rows
:mod:`.store`               per-seed results on disk (resume)
==========================  =====================================================================
"""

from .adapters import Seed, combined, simulator
from .fit import Extrapolation, Fit, PowerLawModel, extrapolate, weighted_fit
from .ladder import MODES, StudyMode
from .results import ROW_COLUMNS, QuantityResult, StudyResult
from .spec import OMEGA_UNKNOWN, Quantity, Variant
from .store import SeedStore
from .study import DEFAULT_SEED, run_studies, run_study
from .verdict import P_MIN, Z_MAX

__all__ = [
    "Seed", "simulator", "combined", "PowerLawModel", "Fit", "Extrapolation", "weighted_fit", "extrapolate",
    "MODES", "StudyMode", "QuantityResult", "StudyResult", "ROW_COLUMNS", "Quantity", "Variant", "OMEGA_UNKNOWN",
    "SeedStore", "run_study", "run_studies", "DEFAULT_SEED", "P_MIN", "Z_MAX",
]
