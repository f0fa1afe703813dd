"""The figures and tables of ``asymptotics reproduce``: one module per figure or table (Ba et al. Fig. 3(a)
and 3(b), one construction along two axes, share one), each declaring its :class:`~asymptotics.reproduce.item.Item`."""

from . import (
    alignment_eta,
    alignment_psi1,
    ba_fig1,
    ba_fig3ab,
    ba_fig3c,
    ck_spike,
    cui_k_types,
    cui_learning_curves,
    cui_step_hurts,
    finite_size,
    spectra,
    srf_map_validity,
    srf_phase_diagram,
    tab_ba_risk,
    tab_large_step,
    tab_srf_grid,
    tab_srf_network,
    tab_tau_star,
)

#: every item of the catalogue (the report orders them by ``Item.order``)
ITEMS = (
    ba_fig1.ITEM,
    *ba_fig3ab.ITEMS,
    ba_fig3c.ITEM,
    alignment_eta.ITEM,
    alignment_psi1.ITEM,
    ck_spike.ITEM,
    cui_learning_curves.ITEM,
    cui_step_hurts.ITEM,
    srf_phase_diagram.ITEM,
    cui_k_types.ITEM,
    tab_tau_star.ITEM,
    tab_ba_risk.ITEM,
    tab_srf_network.ITEM,
    tab_srf_grid.ITEM,
    tab_large_step.ITEM,
    *spectra.ITEMS,
    srf_map_validity.ITEM,
    *finite_size.ITEMS,
)
