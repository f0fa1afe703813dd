"""``asymptotics simulate``: Monte-Carlo simulation of the one-step network (the ground truth).

Three protocols (``--protocol``):

* ``ba``  — Ba et al. (2022): ``--psi1`` ψ1 = n/d, ``--psi2`` ψ2 = N/d, ``--eta`` with
  ``--eta-exponent`` (η = eta·N^exponent; 0.5 is the large step η = eta·√N), ``--lam`` λ
  (penalty (λ/N)‖a‖² on (1/n)‖ỹ − Φa‖²), ``--noise`` σ_ε. Reports risk0, risk1, delta (common
  random numbers), the spike (overlap_beta, overlap_a, top_sv2, bulk_edge_sv2, rank1_error, …)
  and the conjugate-kernel outlier.
* ``cui`` — Cui et al. (2024): ``--alpha`` α = n/d, ``--alpha0`` α0 = n0/d, ``--beta`` β = p/d,
  ``--eta-tilde`` η̃, ``--lam`` (Σ(y − ŷ)² + λ‖a‖², not rescaled), ``--readout VALUES[:PROPORTIONS]``.
  Reports test_error, train_error and the measured sRF parameters r, c, gamma.
* ``srf`` — the spiked random-features model: ``--alpha --beta --lam --c --r --gamma`` (``--self-term``).

Every numeric parameter (and ``--d``, ``--steps``) accepts a grid: ``0.5``, ``1,2,4``,
``0:1:5``, ``log:1e-4:1:5``; several grids form a Cartesian product, each point simulated with
the same root seed (common random numbers along the grid). Each row carries ``<name>_mean``,
``<name>_se`` (standard error over seeds) and, for test-set quantities, ``<name>_test_se`` (the
part of the error due to the finite test set). ``--per-seed`` writes one row per seed instead.

Example::

    asymptotics simulate --protocol ba --d 1000 --psi1 2 --psi2 1.5 --eta 1,3,5,10 \\
        --seeds 4 --workers 2 --format json --out alignment.json

The command wraps the Python API (``asy.simulate``: :mod:`asymptotics.api.simulation`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..api_call import run_api
from ..options import GRID_HELP as GRID
from ..options import OUTPUT, CenterOpt, StudentOpt, TeacherOpt, command, opt


def _g(help_text: str):
    return typer.Option(help=f"{help_text} ({GRID}).")


# The options whose declaration takes more than a line (the signature below lists them in order).
_ProtocolOpt = Annotated[
    str, typer.Option("--protocol", help="ba (Ba et al.), cui (Cui et al.) or srf (spiked RF model).")
]
_EtaExponentOpt = Annotated[
    str | None, _g("(ba) exponent of N in η, in [0, 1]; 0.5 is the large step (default 0)")
]
_SelfTermOpt = Annotated[
    str | None, _g("(srf) self term k: bulk columns √c wⱼ(1 + k uⱼ⟨wⱼ, v⟩), the w⁰-part of a large step (default 0)")
]
_LamOpt = Annotated[
    str | None,
    _g(
        "ridge λ >= 0 (ba: (λ/N)|a|² on the mean loss, default 1e-3; cui/srf: λ|a|² on the summed loss, default 0.01)"
    ),
]
_ReadoutOpt = Annotated[
    str | None,
    typer.Option(
        "--readout",
        help="(cui, srf) readout types VALUES[:PROPORTIONS], e.g. 0.3,1.7:0.5,0.5 (default: uniform 1).",
    ),
]
_FeaturesOpt = Annotated[
    str, typer.Option("--features", help="true: σ(Wᵀx); ge: Gaussian equivalent μ0 + μ1Wᵀx + μ2 z.")
]
_GradientOpt = Annotated[
    str,
    typer.Option("--gradient", help="(ba, cui) exact gradient, rank1 (its rank-one approximation), or labels "
                 "(the gradient on the labels y instead of the residual y − f0: the large-step theory's step)."),
]
_BatchesOpt = Annotated[
    str,
    typer.Option(
        "--batches", help="(ba, cui) same: full-batch steps on one set; fresh: a new batch per step."
    ),
]
_InitialColumnsOpt = Annotated[
    str | None,
    typer.Option(
        "--initial-columns", help="(ba) gaussian: W0 with N(0, 1/d) entries (default); unit: the same columns "
        "normalised to the sphere (paired with gaussian on every seed)."
    ),
]
_MeasureOpt = Annotated[
    str | None,
    typer.Option(
        "--measure",
        help="measurement groups, comma-separated: risk, spike, ck (cui also baseline); default per protocol. "
             "'spectrum': the empirical spectra of W1ᵀW1 and the CK Gram with the top eigenvectors' overlaps "
             "(ba, cui; see --matrix, --ck-features, --before, --top, --bins, --eigenvalues).",
    ),
]
_MatrixOpt = Annotated[str, typer.Option("--matrix", help="(--measure spectrum) weights, ck or both, comma-separated.")]
_CkFeaturesOpt = Annotated[str, typer.Option("--ck-features", help="(--measure spectrum) CK feature models: true, ge or both.")]
_BeforeOpt = Annotated[bool, typer.Option("--before", help="(--measure spectrum) also the matrices of W0 (before the step).")]
_TopOpt = Annotated[int, typer.Option("--top", help="(--measure spectrum) top eigenvalues reported with their eigenvectors' overlaps.")]
_BinsOpt = Annotated[str | None, typer.Option("--bins", metavar="LO:HI:COUNT", help="(--measure spectrum) a histogram: rows {x, density ± s.e.} pooled over seeds; default: every eigenvalue.")]
_EigenvaluesOpt = Annotated[bool, typer.Option("--eigenvalues", help="(--measure spectrum) with --bins, also every eigenvalue.")]
_NTestOpt = Annotated[
    int | None,
    typer.Option("--n-test", help="(with --test-risk monte-carlo only) test points per seed, streamed in chunks "
                 "(default 10000)."),
]
_TestRiskOpt = Annotated[
    str, typer.Option("--test-risk", help="exact: the population risk of each trained network in closed form "
                      "(no test set, no test-set noise); monte-carlo: the mean over --n-test fresh points.")
]
_RiskRtolOpt = Annotated[
    float | None, typer.Option("--risk-rtol", help="tolerance of the exact risk's Hermite truncation bound, "
                               "relative to E σ*² (default 1e-10, in [1e-15, 1e-2]).")
]
_SeedsOpt = Annotated[
    int, typer.Option("--seeds", help="independent seeds per grid point (>= 2 for standard errors).")
]
_WorkersOpt = Annotated[
    int, typer.Option("--workers", help="worker processes (seeds and grid points in parallel).")
]
_BlasThreadsOpt = Annotated[
    int | None,
    typer.Option("--blas-threads", help="BLAS/numba threads per task (default: chosen by problem size, at most cores // workers)."),
]
_PerSeedOpt = Annotated[
    bool, typer.Option("--per-seed", help="one row per seed instead of mean ± s.e.")
]


@command(opt("max_memory"), *OUTPUT)
def simulate_command(
    protocol: _ProtocolOpt = "ba",
    student: StudentOpt = "tanh",
    teacher: TeacherOpt = "tanh",
    center: CenterOpt = True,
    d: Annotated[str, _g("input dimension d, an integer >= 2")] = "1000",
    psi1: Annotated[str | None, _g("(ba) ψ1 = n/d (default 2)")] = None,
    psi2: Annotated[str | None, _g("(ba) ψ2 = N/d (default 1.5)")] = None,
    eta: Annotated[str | None, _g("(ba) learning-rate constant; η = eta·N^eta_exponent (default 1)")] = None,
    eta_exponent: _EtaExponentOpt = None,
    alpha: Annotated[str | None, _g("(cui, srf) α = n/d of the readout set (default 1)")] = None,
    alpha0: Annotated[str | None, _g("(cui) α0 = n0/d of the first-step batch (default 1)")] = None,
    beta: Annotated[str | None, _g("(cui, srf) β = p/d, width (default 1)")] = None,
    eta_tilde: Annotated[str | None, _g("(cui) η̃, step η̃·p on the plain gradient (default 1)")] = None,
    c: Annotated[str | None, _g("(srf) bulk variance c (default 1)")] = None,
    r: Annotated[str | None, _g("(srf) spike strength r (default 0)")] = None,
    gamma: Annotated[str | None, _g("(srf) spike–target overlap γ in [-1, 1] (default 0)")] = None,
    self_term: _SelfTermOpt = None,
    lam: _LamOpt = None,
    noise: Annotated[str | None, _g("label-noise standard deviation σ_ε (ba default 0.1, cui/srf 0)")] = None,
    steps: Annotated[str | None, _g("(ba, cui) number of gradient steps T >= 1 (default 1)")] = None,
    readout: _ReadoutOpt = None,
    features: _FeaturesOpt = "true",
    gradient: _GradientOpt = "exact",
    batches: _BatchesOpt = "same",
    initial_columns: _InitialColumnsOpt = None,
    measure: _MeasureOpt = None,
    matrix: _MatrixOpt = "weights,ck",
    ck_features: _CkFeaturesOpt = "true,ge",
    before: _BeforeOpt = False,
    top: _TopOpt = 3,
    bins: _BinsOpt = None,
    eigenvalues: _EigenvaluesOpt = False,
    n_test: _NTestOpt = None,
    test_risk: _TestRiskOpt = "exact",
    risk_rtol: _RiskRtolOpt = None,
    seeds: _SeedsOpt = 4,
    root_seed: Annotated[int, typer.Option("--seed", help="root seed of every numpy SeedSequence.")] = 0,
    workers: _WorkersOpt = 1,
    blas_threads: _BlasThreadsOpt = None,
    per_seed: _PerSeedOpt = False,
    **options,
) -> None:
    """Monte-Carlo simulation of the one-step network: risks, spike, CK (mean ± s.e. over seeds)."""
    from ...api import simulation as api

    run_api(api.simulate, protocol=protocol, student=student, teacher=teacher,
            center=center, d=d, psi1=psi1, psi2=psi2, eta=eta, eta_exponent=eta_exponent, alpha=alpha, alpha0=alpha0,
            beta=beta, eta_tilde=eta_tilde, c=c, r=r, gamma=gamma, self_term=self_term, lam=lam, noise=noise, steps=steps, readout=readout,
            features=features, gradient=gradient, batches=batches, initial_columns=initial_columns, measure=measure, n_test=n_test, test_risk=test_risk, risk_rtol=risk_rtol, seeds=seeds,
            seed=root_seed, workers=workers, blas_threads=blas_threads, per_seed=per_seed, matrix=matrix,
            ck_features=ck_features, before=before, top=top, bins=bins, eigenvalues=eigenvalues, **options)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)
