r"""High-precision reference values of the Gaussian constants of every built-in activation.

Run offline (minutes) to regenerate ``tests/reference/constants.json``; the tests read the data and
never run this script's quadratures::

    python tests/reference/make_constants.py            # write constants.json
    python tests/reference/make_constants.py --docs     # also rewrite the table in docs/activations.md

For z ~ N(0, 1) and each built-in σ, raw and centred (σ̃ = σ − μ0):

* μ0 = E σ(z), μ1 = E[z σ(z)], E σ(z)², μ2² = E σ² − μ0² − μ1²;
* E σ'(z)², Var σ'(z) = E σ'² − (E σ')²;
* c_k = E[σ(z) He_k(z)]/√k!, k = 0 … 12 (He_k by the three-term recurrence).

Independent of the library: σ and σ' are written here by hand in mpmath (not lowered from the
library's sympy expressions), the integrals are mpmath's tanh–sinh quadrature on (−∞, 0] ∪ [0, ∞)
(ReLU's kink is 0) at :data:`DPS` digits, and every value is recomputed at :data:`DPS` + 15 digits:
the two must agree to :data:`DIGITS` + 2 significant digits (relative to the size of the integrand,
√(E σ²) for c_k), or the script stops. Stein's identity E σ' = μ1 is checked to the same accuracy.
:data:`DIGITS` significant digits are stored, as strings.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

import mpmath

from asymptotics.atomic import write_text

HERE = Path(__file__).resolve().parent
DATA = HERE / "constants.json"
DOCS = HERE.parents[1] / "docs" / "activations.md"

#: Working precision (decimal digits) of the quadratures; the check runs at DPS + 15.
DPS = 40
#: Significant digits stored.
DIGITS = 32
#: Highest Hermite degree (the library's HERMITE_DEGREE).
DEGREE = 12


def _sigmoid(x):
    return 1 / (1 + mpmath.exp(-x))


def _Phi(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def _phi(x):
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


#: name -> (σ, σ'), in mpmath, written independently of the library's sympy expressions.
FUNCTIONS = {
    "erf": (mpmath.erf, lambda x: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)),
    "tanh": (mpmath.tanh, lambda x: mpmath.sech(x) ** 2),
    "relu": (lambda x: x if x > 0 else mpmath.mpf(0), lambda x: mpmath.mpf(1) if x > 0 else mpmath.mpf(0)),
    "softplus": (lambda x: mpmath.log1p(mpmath.exp(x)) if x < 0 else x + mpmath.log1p(mpmath.exp(-x)), _sigmoid),
    "sigmoid": (_sigmoid, lambda x: _sigmoid(x) * (1 - _sigmoid(x))),
    "sin": (mpmath.sin, mpmath.cos),
    "linear": (lambda x: x, lambda x: mpmath.mpf(1)),
    "gelu": (lambda x: x * _Phi(x), lambda x: _Phi(x) + x * _phi(x)),
    "silu": (lambda x: x * _sigmoid(x), lambda x: _sigmoid(x) * (1 + x * (1 - _sigmoid(x)))),
    "he2": (lambda x: x * x - 1, lambda x: 2 * x),
    "he3": (lambda x: x**3 - 3 * x, lambda x: 3 * x * x - 3),
    "quadratic": (lambda x: x * x, lambda x: 2 * x),
}

#: Quantities stored per activation and centring, in this order.
SCALARS = ("mu0", "mu1", "second_moment", "mu2_sq", "mean_derivative", "mean_sq_derivative", "var_derivative")


def _hermite(k, x):
    """Probabilists' He_k(x) by He_{j+1} = x He_j − j He_{j−1}."""
    a, b = mpmath.mpf(1), x
    if k == 0:
        return a
    for j in range(1, k):
        a, b = b, x * b - j * a
    return b


def _expect(g):
    """E g(z) by tanh–sinh quadrature split at 0."""
    return mpmath.quad(lambda t: g(t) * _phi(t), [-mpmath.inf, 0, mpmath.inf])


def constants_at(name: str, dps: int) -> dict:
    """Raw and centred constants of ``name`` at ``dps`` digits (mpmath numbers)."""
    f, df = FUNCTIONS[name]
    with mpmath.workdps(dps):
        c = [_expect(lambda t, k=k: f(t) * _hermite(k, t)) / mpmath.sqrt(mpmath.factorial(k)) for k in range(DEGREE + 1)]
        m2 = _expect(lambda t: f(t) ** 2)
        md = _expect(df)
        msd = _expect(lambda t: df(t) ** 2)
        mu0, mu1 = c[0], c[1]
        raw = {"mu0": mu0, "mu1": mu1, "second_moment": m2, "mu2_sq": m2 - mu0**2 - mu1**2,
               "mean_derivative": md, "mean_sq_derivative": msd, "var_derivative": msd - md**2, "hermite": c}
        # centred: integrate (σ − μ0)² afresh rather than subtracting μ0² (a second derivation)
        m2c = _expect(lambda t: (f(t) - mu0) ** 2)
        centred = dict(raw, mu0=mpmath.mpf(0), second_moment=m2c, hermite=[mpmath.mpf(0)] + c[1:])
        return {"raw": raw, "centred": centred}


def _scale(vals: dict, key: str):
    """The size against which an entry's accuracy is judged: √(E σ²) for μ0, μ1 and c_k
    (|c_k| ≤ ‖σ‖), √(E σ'²) for E σ', the sum of the magnitudes of the terms for a difference, the
    value itself for a second moment."""
    if key in ("hermite", "mu0", "mu1"):
        return mpmath.sqrt(vals["second_moment"])
    if key == "mean_derivative":
        return mpmath.sqrt(vals["mean_sq_derivative"])
    if key == "mu2_sq":
        return abs(vals["second_moment"]) + vals["mu0"] ** 2 + vals["mu1"] ** 2
    if key == "var_derivative":
        return abs(vals["mean_sq_derivative"]) + vals["mean_derivative"] ** 2
    return abs(vals[key])


def _check(name: str, lo: dict, hi: dict) -> None:
    tol = mpmath.mpf(10) ** -(DIGITS + 2)
    for kind in ("raw", "centred"):
        a, b = lo[kind], hi[kind]
        for key in SCALARS:
            s = max(_scale(b, key), mpmath.mpf(10) ** -30)
            if abs(a[key] - b[key]) > tol * s:
                sys.exit(f"{name} {kind} {key}: {a[key]} and {b[key]} disagree at {DIGITS + 2} digits")
        s = _scale(b, "hermite")
        for k, (x, y) in enumerate(zip(a["hermite"], b["hermite"], strict=True)):
            if abs(x - y) > tol * s:
                sys.exit(f"{name} {kind} c_{k}: {x} and {y} disagree at {DIGITS + 2} digits")
        if abs(b["mean_derivative"] - b["mu1"]) > tol * max(abs(b["mu1"]), 1):
            sys.exit(f"{name}: Stein's identity E σ' = μ1 fails: {b['mean_derivative']} vs {b['mu1']}")


def _text(x, scale) -> str:
    """``x`` to DIGITS significant digits; a value below 10^-(DIGITS+4) of its scale is an exact 0
    (a coefficient that vanishes by symmetry)."""
    if abs(x) <= mpmath.mpf(10) ** -(DIGITS + 4) * max(scale, 1):
        return "0"
    return mpmath.nstr(x, DIGITS, min_fixed=-4, max_fixed=6, strip_zeros=False)


def make() -> dict:
    table = {}
    for name in FUNCTIONS:
        lo, hi = constants_at(name, DPS), constants_at(name, DPS + 15)
        _check(name, lo, hi)
        entry = {}
        for kind in ("raw", "centred"):
            v = hi[kind]
            entry[kind] = {key: _text(v[key], _scale(v, key)) for key in SCALARS}
            entry[kind]["hermite"] = [_text(c, _scale(v, "hermite")) for c in v["hermite"]]
        table[name] = entry
        print(f"{name}: done", file=sys.stderr)
    return {
        "description": "Gaussian constants of the built-in activations, z ~ N(0, 1): mu0 = E s(z), mu1 = E z s(z), "
                       "second_moment = E s(z)^2, mu2_sq = E s^2 - mu0^2 - mu1^2, mean_derivative = E s'(z), "
                       "mean_sq_derivative = E s'(z)^2, var_derivative = E s'^2 - (E s')^2, hermite = "
                       "c_k = E[s(z) He_k(z)]/sqrt(k!), k = 0..12; raw and centred (s - mu0). "
                       "Made by tests/reference/make_constants.py.",
        "mpmath_version": mpmath.__version__,
        "dps": DPS,
        "check_dps": DPS + 15,
        "digits": DIGITS,
        "date": datetime.date.today().isoformat(),
        "activations": table,
    }


# ---- the table in docs/activations.md ----------------------------------------------------------
BEGIN = "<!-- constants table: generated by tests/reference/make_constants.py --docs; do not edit -->"
END = "<!-- end of constants table -->"

#: Columns of the docs table: (header, kind, key).
COLUMNS = (("μ0 (raw)", "raw", "mu0"), ("μ1", "raw", "mu1"), ("E σ² (raw)", "raw", "second_moment"),
           ("μ2²", "raw", "mu2_sq"), ("E σ'²", "raw", "mean_sq_derivative"), ("Var σ'", "raw", "var_derivative"))


def _short(text: str) -> str:
    x = mpmath.mpf(text)
    if x == mpmath.nint(x):
        return str(int(x))
    return mpmath.nstr(x, 10, min_fixed=-5, max_fixed=6)


def render_table(data: dict) -> str:
    """The markdown table of the docs (10 significant digits), from the data."""
    lines = [BEGIN, "", "| name | " + " | ".join(h for h, _, _ in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for name, entry in data["activations"].items():
        cells = [_short(entry[kind][key]) for _, kind, key in COLUMNS]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines += ["", END]
    return "\n".join(lines)


def docs_table(text: str) -> str | None:
    """The generated table as it stands in the docs page ``text`` (``None`` if absent)."""
    m = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, flags=re.S)
    return None if m is None else m.group(0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", action="store_true", help="also rewrite the table in docs/activations.md")
    ap.add_argument("--docs-only", action="store_true", help="only rewrite the docs table from the existing data")
    args = ap.parse_args(argv)
    if not args.docs_only:
        data = make()
        write_text(DATA, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {DATA}", file=sys.stderr)
    if args.docs or args.docs_only:
        data = json.loads(DATA.read_text(encoding="utf-8"))
        text = DOCS.read_text(encoding="utf-8")
        old = docs_table(text)
        if old is None:
            sys.exit(f"{DOCS}: no generated table (markers {BEGIN!r} … {END!r})")
        write_text(DOCS, text.replace(old, render_table(data)))
        print(f"updated {DOCS}", file=sys.stderr)


if __name__ == "__main__":
    main()
