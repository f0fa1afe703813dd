"""Make ``dual_kernel_references.json``: E (σ(u) − o)(σ(v) − o) for jointly Gaussian (u, v) with
Var u = a, Var v = b, Cov(u, v) = C, by nested mpmath quadratures (tanh–sinh, 17 digits), for the
activations with a closed-form dual kernel in the simulator (erf, relu, sin, linear; o the
centring offset of the centred activation: 1/√(2π) for relu, 0 for the odd ones).

u = √a x, v = √b (ρx + √(1 − ρ²) y), ρ = C/√(ab); the inner integral over y is split where v = 0
(the kink of relu), the outer one at x = 0 (the kink of relu in u). Offline (≈ 10 minutes on an idle core):

    python tests/test_simulator_data/make_dual_kernel_references.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath

FUNCTIONS = {
    "erf": (mpmath.erf, 0.0),
    "relu": (lambda x: max(x, 0), 1 / math.sqrt(2 * math.pi)),
    "sin": (mpmath.sin, 0.0),
    "linear": (lambda x: x, 0.0),
}
#: (a, b, C) per activation (relu: the kinked one, three points; linear: one).
POINTS = {
    "erf": [(1.0, 1.0, 0.3), (0.49, 2.25, -0.8)],
    "relu": [(1.0, 1.0, 0.3), (0.49, 2.25, -0.8), (3.0, 0.2, 0.7)],
    "sin": [(0.49, 2.25, -0.8), (3.0, 0.2, 0.7)],
    "linear": [(3.0, 0.2, 0.7)],
}


def pair(f, a, b, C, o):
    with mpmath.workdps(17):
        r = mpmath.mpf(C) / mpmath.sqrt(mpmath.mpf(a) * b)
        q = mpmath.sqrt(1 - r**2)
        sa, sb = mpmath.sqrt(a), mpmath.sqrt(b)

        def inner(x):
            def g(y):
                return (f(sb * (r * x + q * y)) - o) * mpmath.npdf(y)

            return (f(sa * x) - o) * mpmath.npdf(x) * mpmath.quad(g, [-mpmath.inf, -r * x / q, mpmath.inf])

        return mpmath.nstr(mpmath.quad(inner, [-mpmath.inf, 0, mpmath.inf]), 17)


def main():
    rows = []
    for name, (f, o) in FUNCTIONS.items():
        for a, b, C in POINTS[name]:
            rows.append({"activation": name, "a": a, "b": b, "C": C, "offset": o, "value": pair(f, a, b, C, o)})
            print(rows[-1], flush=True)
    out = Path(__file__).with_name("dual_kernel_references.json")
    out.write_text(json.dumps({"method": "nested mpmath.quad (tanh-sinh), 17 digits", "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
