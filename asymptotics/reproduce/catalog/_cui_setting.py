"""Theory and simulation helpers shared by the Cui et al. items (Cui convention: α = n/d, α0 = n0/d,
β = p/d, η̃; ridge Σ(y − aᵀφ/√p)² + λ‖a‖² with λ not rescaled; see ``docs/spiked-rf.md``)."""

from __future__ import annotations

import numpy as np


def curve(alphas, *, student, teacher, beta, lam, eta_tilde=None, alpha0=None, srf=None, readout=None, noise=0.0):
    """Test errors along ``alphas`` by continuation, and the sRF parameters. ``eta_tilde=None``:
    random features (r = 0); ``srf=(c, r, gamma)``: the sRF model directly; else the one-step
    network (η̃, α0) through the map of ``docs/spiked-rf.md``."""
    from ...theory.spiked_rf import channel_model, cui_to_srf, spiked_rf_curve, srf_parameters

    if srf is not None:
        params = srf_parameters(srf[0], srf[1], srf[2], readout)
    elif eta_tilde is None or eta_tilde == 0:
        params = srf_parameters(1.0, 0.0, 0.0, readout)
    else:
        params = cui_to_srf(eta_tilde, alpha0, student, teacher, noise, readout)
    model = channel_model(params, student, teacher, noise)
    sols = spiked_rf_curve(model, np.asarray(alphas, float), beta, lam)
    return np.array([s.test_error for s in sols], float), params


def network_config(d, alpha, *, student, teacher, beta, lam, eta_tilde, alpha0, n_test, readout=None):
    """The Cui-protocol network with the RF baseline on the same seeds (``test_error0``)."""
    from validation.simulator import CuiConfig

    vals, props = readout if readout is not None else ((1.0,), (1.0,))
    return CuiConfig(student=student, teacher=teacher, d=d, alpha=alpha, alpha0=alpha0, beta=beta, eta_tilde=eta_tilde,
                     lam=lam, readout_values=vals, readout_proportions=props, n_test=n_test,
                     measure=("risk", "baseline"))
