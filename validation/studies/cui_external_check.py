r"""External check: Cui et al.'s own network simulations against the maps and the library's network.

Cui et al.'s notebook (SPOC-group/OneStepGD_asymptotics, ``Simulations.ipynb``) simulates the one-step
network with tanh student and teacher, no label noise, d = p = 2000, α0 = 0.5, η̃ = 1, λ = 0.01 in
Σ(y − ŷ)² + λ‖a‖² with ŷ = aᵀσ(Wx)/√p (the library's convention: no conversion), unit rows of W⁰,
a⁰ = 1/√p, test error mean (y − ŷ)² over 5000 test points (no factor 1/2). Its three "seeds" redraw
only the readout's training and test sets: the first layer (W⁰ and the first batch) is one draw for all
of them, so their spread is not the full seed-to-seed spread. The printed means (quoted in
docs/spiked-rf.md, "An external check") are compared here with the isotropic map, the network map and
the library's simulator (``CuiConfig``, exact population risk, independent first layers per seed) at
d = 2000 and on a ladder extrapolated to d → ∞ (weighted fit L + b/d).

    python -m validation.studies.cui_external_check
"""

from __future__ import annotations

import argparse
import sys

from .srf_network_map import extrapolate, simulate_point

#: α of their table and their printed mean test errors (3 seeds sharing one first layer).
ALPHAS = (0.2, 2 / 3, 3.4 / 3, 1.6, 6.2 / 3, 7.6 / 3, 3.0)
THEIRS = (0.2944, 0.3185, 0.2770, 0.2057, 0.1722, 0.1549, 0.1445)
ROOT_SEED = 2024


def main(argv=None) -> int:
    from asymptotics.theory.spiked_rf.network_map import network_one_step

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ladder", default="500:16,1000:12", help="d:seeds pairs at every α")
    ap.add_argument("--big", default="2000:6", help="d:seeds at --big-alphas")
    ap.add_argument("--big-alphas", default="0.2,1.6,3.0")
    ap.add_argument("--root-seed", type=int, default=ROOT_SEED)
    a = ap.parse_args(argv)
    ladder = [tuple(int(x) for x in s.split(":")) for s in a.ladder.split(",") if s]
    big_d, big_n = (int(x) for x in a.big.split(":"))
    big_alphas = [float(x) for x in a.big_alphas.split(",")]
    print("alpha | theirs | isotropic | network | sim d (mean ± se) ... | limit ± se")
    for alpha, theirs in zip(ALPHAS, THEIRS, strict=True):
        s = network_one_step(alpha, 0.5, 1.0, 1.0, 0.01, "tanh", "tanh")
        pts = [(d, *simulate_point(1.0, 0.5, alpha, 0.01, "tanh", "tanh", d, n, a.root_seed)[:2]) for d, n in ladder]
        if any(abs(alpha - b) < 1e-9 for b in big_alphas):
            pts.append((big_d, *simulate_point(1.0, 0.5, alpha, 0.01, "tanh", "tanh", big_d, big_n, a.root_seed)[:2]))
        L, sL = extrapolate(*zip(*pts, strict=True))
        sims = " | ".join(f"d={d}: {m:.4f} ± {e:.4f}" for d, m, e in pts)
        print(f"{alpha:.3f} | {theirs:.4f} | {s.test_error_isotropic:.4f} | {s.test_error:.4f} | {sims} | "
              f"{L:.4f} ± {sL:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
