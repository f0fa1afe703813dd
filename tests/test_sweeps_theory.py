"""Theory quantities in a sweep: each row equals the theory evaluated by an independent route."""

import pytest

from asymptotics.sweeps import read_sweep, run_sweep


def test_one_step_risk_sweep_matches_route_a(tmp_path):
    from asymptotics.theory.one_step.model import OneStepModel
    from asymptotics.theory.one_step.risk import risk

    config = {
        "name": "theory-risk",
        "quantity": "theory.one_step.risk",
        "seeds": 1,
        "fixed": {"student": "tanh", "teacher": "softplus", "psi2": 2.0, "lam": 1e-4, "noise": 0.25},
        "grid": {"psi1": [1.0, 4.0], "eta": [0.0, 3.0]},
    }
    summary = run_sweep(config, out=tmp_path / "sweep", progress=False)
    assert summary.failed == 0
    df = read_sweep(tmp_path / "sweep")
    assert len(df) == 4
    model = OneStepModel.from_activations("tanh", "softplus", noise=0.25)
    for _, row in df.iterrows():
        # route B runs in the sweep; route A (Mei–Montanari's closed form) is the reference for R0
        ref = risk(model, row["psi1"], 2.0, 1e-4, row["eta"], route="A")
        assert row["risk0"] == pytest.approx(float(ref.risk0), rel=1e-9)
        if row["eta"] == 0.0:
            assert row["delta"] == 0.0
    at_ref = df[(df.psi1 == 4.0)].iloc[0]
    assert at_ref["risk0"] == pytest.approx(0.1367689, abs=5e-8)  # the reference value of docs/one-step.md §3
