"""Study: the spectrum theory against the reference sampler of the networks at d = 500 … 2000, and
the Gaussian-equivalence verdict for the CK spike (``docs/spectra.md``).

For each setting and d (several seeds): the Kolmogorov and Wasserstein-1 distances of the
empirical eigenvalue laws (W₁ᵀW₁, CK of the true features, CK of the Gaussian-equivalent
features; the top k eigenvalues dropped, k the number of outliers of the theory) to the theory,
the top bulk eigenvalue against the right edge, and the top outlier's
location and overlaps (true and Gaussian-equivalent features) against the theory (the η = Θ(1)
Gaussian-equivalence theory; at the large step both the conditional theory and the
Gaussian-equivalence prediction). Writes ``benchmarks/results/spectra_study.json`` and a
markdown summary ``benchmarks/results/spectra_study.md``. Usage::

    python benchmarks/study_spectra.py [--dims 500,1000,2000] [--seeds 4,3,2] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_spectra_sampler import ks_distance, sample_ba, sample_cui, w1_distance  # noqa: E402

from asymptotics.theory.spectra import ba_step, ck_spectrum, cui_step, weights_spectrum  # noqa: E402

SETTINGS = {
    "ba_small": {"kind": "ba", "cfg": {"psi1": 3.0, "psi2": 1.0, "eta": 6.0, "noise": 0.1}, "regime": "small"},
    "ba_large": {"kind": "ba", "cfg": {"psi1": 2.0, "psi2": 1.0, "eta": 1.0, "noise": 0.1}, "regime": "large"},
    "ba_small_relu": {"kind": "ba", "cfg": {"psi1": 3.0, "psi2": 1.0, "eta": 6.0, "noise": 0.1}, "regime": "small",
                      "student": "relu"},
    "cui": {"kind": "cui", "cfg": {"alpha": 2.0, "beta": 1.0, "eta_tilde": 3.0, "alpha0": 2.0, "noise": 0.0}},
}


def _law(spectrum_fn, step, **kw):
    """(cdf, quantile, result) of the limiting law from the density on x = a + (b − a)(1 − cos t)/2."""
    res = spectrum_fn(step, points=10, **kw)
    t = np.linspace(0, np.pi, 3001)
    xs, Fs, acc = [], [], res.atom
    for a, b in res.support.intervals:
        x = a + (b - a) * (1 - np.cos(t)) / 2
        f = spectrum_fn(step, x=x, **kw).density * (b - a) * np.sin(t) / 2
        cum = acc + np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(t))])
        xs.append(x)
        Fs.append(cum)
        acc = cum[-1]
    x, F = np.concatenate(xs), np.concatenate(Fs)
    F = np.maximum.accumulate(F)

    def cdf(v):
        v = np.asarray(v, dtype=float)
        return np.where(v < 0, 0.0, np.interp(v, x, F, left=res.atom, right=acc))

    def quantile(q):
        q = np.asarray(q, dtype=float)
        return np.where(q <= res.atom, 0.0, np.interp(q, F, x))

    return cdf, quantile, res


def theory(name):
    s = SETTINGS[name]
    if s["kind"] == "ba":
        step = ba_step(s.get("student", "tanh"), "tanh", **s["cfg"], regime=s["regime"])
    else:
        step = cui_step("tanh", "tanh", **s["cfg"])
    out = {"step": step}
    out["weights"] = _law(weights_spectrum, step)
    out["ck"] = _law(ck_spectrum, step)
    if step.regime == "large":
        out["ck_ge"] = _law(ck_spectrum, step, equivalence="gaussian")
    return out


def sample(name, d, seed):
    s = SETTINGS[name]
    if s["kind"] == "ba":
        return sample_ba(d, **s["cfg"], student=s.get("student", "tanh"), regime=s["regime"], seed=seed, top=2)
    return sample_cui(d, **s["cfg"], seed=seed, top=2)


def measure(th, r):
    large = th["step"].regime == "large"
    N = r["N"]
    out = {}
    for mat, key, law in (("weights", "weights", th["weights"]), ("ck_true", "ck_true", th["ck"]),
                          ("ck_ge", "ck_ge", th["ck_ge" if large else "ck"])):
        cdf, q, res = law
        k = len(res.outliers)
        ev = r[key]["eigenvalues"]
        bulk = ev[: ev.size - k] if k else ev  # the distances are of the bulk (outliers dropped)
        top = r[key]["top"][0]
        out[mat] = {"ks": ks_distance(bulk, cdf), "w1": w1_distance(bulk, q), "bulk_top": float(bulk[-1]),
                    "edge": res.support.intervals[-1][1], "outlier": top["location"] / (N if large else 1),
                    "overlaps": top["overlaps"]}
    return out


def theory_summary(th):
    large = th["step"].regime == "large"
    out = {}
    for key in ("weights", "ck", "ck_ge"):
        if key not in th:
            continue
        res = th[key][2]
        o = res.outliers[0] if res.outliers else None
        out[key] = {"edge": res.support.intervals[-1][1], "atom": res.atom, "mass": res.mass,
                    "outlier": (o.location_per_width if large else o.location) if o else None,
                    "overlaps": o.overlaps if o else None}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", default="500,1000,2000")
    ap.add_argument("--seeds", default="4,3,2")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    a = ap.parse_args(argv)
    dims = [int(v) for v in a.dims.split(",")]
    seeds = [int(v) for v in a.seeds.split(",")]
    out_dir = Path(a.out)
    path = out_dir / "spectra_study.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    for name in a.settings.split(","):
        t0 = time.perf_counter()
        th = theory(name)
        entry = data.setdefault(name, {"setting": {**SETTINGS[name]["cfg"], "student": SETTINGS[name].get("student", "tanh"),
                                                   "teacher": "tanh"}, "runs": {}})
        entry["theory"] = theory_summary(th)
        entry["theory_seconds"] = time.perf_counter() - t0
        for d, ns in zip(dims, seeds, strict=True):
            runs = entry["runs"].setdefault(str(d), [])
            done = {r["seed"] for r in runs}
            for seed in range(ns):
                if seed in done:
                    continue
                t1 = time.perf_counter()
                m = measure(th, sample(name, d, seed))
                m.update(seed=seed, seconds=time.perf_counter() - t1)
                runs.append(m)
                out_dir.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(data, indent=1, default=float))
                tmp.replace(path)
                print(f"{name} d={d} seed={seed}: {m['seconds']:.0f}s", flush=True)
    (out_dir / "spectra_study.md").write_text(summary(data))
    print(summary(data))


def _ms(vals):
    v = np.asarray(vals, dtype=float)
    se = v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else float("nan")
    return f"{v.mean():.4f} ± {se:.4f}"


def summary(data) -> str:
    lines = ["# Spectrum study: theory vs the reference sampler (mean ± s.e. over seeds)", ""]
    for name, entry in data.items():
        th = entry["theory"]
        large = not name.startswith("ba_small")
        lines += [f"## {name}: {entry['setting']}", ""]
        unit = " / N" if large else ""
        lines.append(f"theory: weights edge {th['weights']['edge']:.4f}, outlier{unit} {th['weights']['outlier']:.4f}; "
                     f"CK edge {th['ck']['edge']:.4f}, outlier{unit} {th['ck']['outlier']:.4f}, "
                     f"labels {th['ck']['overlaps']['labels']:.4f}"
                     + (f"; GE-prediction CK edge {th['ck_ge']['edge']:.4f}, outlier / N {th['ck_ge']['outlier']:.4f}, "
                        f"labels {th['ck_ge']['overlaps']['labels']:.4f}" if "ck_ge" in th else ""))
        lines += ["", "| d | seeds | matrix | KS | W1 | bulk top (edge) | outlier" + unit + " | labels | teacher_linear |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for d, runs in sorted(entry["runs"].items(), key=lambda kv: int(kv[0])):
            for mat in ("weights", "ck_true", "ck_ge"):
                rs = [r[mat] for r in runs]
                ov = "labels" if mat != "weights" else "teacher"
                ov2 = "teacher_linear" if mat != "weights" else "readout"
                lines.append(f"| {d} | {len(runs)} | {mat} | {_ms([r['ks'] for r in rs])} | {_ms([r['w1'] for r in rs])} | "
                             f"{_ms([r['bulk_top'] for r in rs])} ({rs[0]['edge']:.4f}) | {_ms([r['outlier'] for r in rs])} | "
                             f"{_ms([r['overlaps'][ov] for r in rs])} | {_ms([r['overlaps'][ov2] for r in rs])} |")
        lines.append("")
    lines.append("(weights: the overlap columns are ⟨u₁, β*⟩² and ⟨v₁, a⟩²)")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
