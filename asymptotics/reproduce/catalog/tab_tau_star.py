"""Ba et al. (2022) §5: τ*, κ* and the verdict "one large step beats every kernel" (10τ* < μ2*²)."""

from __future__ import annotations

from ..item import Item, sizes

PAIRS = (("erf", "erf"), ("tanh", "tanh"), ("tanh", "softplus"), ("softplus", "softplus"), ("erf", "tanh"),
         ("tanh", "erf"), ("relu", "relu"))


def data(ctx):
    from ...activations import resolve_activation
    from ...theory.large_step import tau_star

    fig = ctx.figure("pair", pairs=[list(p) for p in PAIRS], center=True)
    for s, t in PAIRS:
        r = tau_star(s, t)
        kb = resolve_activation(t, center=True, name="teacher").constants().mu2_sq
        fig.table.append({
            "student": s, "teacher": t, "tau_star": r.tau_star, "kappa_star": r.kappa_star, "kernel_bound": kb,
            "ten_tau_star": 10 * r.tau_star, "beats_every_kernel": bool(10 * r.tau_star < kb),
            "status": r.status.label, "infimum_at": r.infimum_at, "method": r.method,
        })
    fig.caption = ("τ* = inf_κ E[(σ*(ξ1) − E_ξ2 σ(κξ1 + ξ2))²] for centred activations; kernel bound μ2*²; "
                   "after one large step the trained CK beats every kernel (for large ψ1) when 10τ* < μ2*².")
    fig.notes.append("erf/erf: κ* = √3 and τ* = 0 in closed form (E_ξ2 erf(κξ1 + ξ2) = erf(κξ1/√3)).")
    fig.notes.append("tanh/tanh: τ* = 9.45·10⁻⁵ at κ* = 1.588; the value ≈ 3·10⁻⁴ attributed to the paper's "
                     "appendix matches κ* but not τ* — an open discrepancy, reported rather than tuned.")
    return fig


ITEM = Item(
    name="tab_tau_star",
    title="τ*, κ* and the large-step verdict",
    paper="Ba et al. (2022), eq. (5.1) and Cor. (docs/large-step.md, τ* and κ*)",
    checks="τ* and κ* of the oracle neuron average, with the closed form for erf/erf, and which pairs beat the "
           "kernel bound after one large step.",
    sizes=sizes(),  # theory only: the same at every size
    data=data,
    order=200,
)
