"""A certified solve against the best straightforward code for the same work: a scikit-learn script.

The work: the lasso of ``lasso-paper`` (64 clients × 128 samples × d = 1024, uniform weights, free
intercept, λ = 0.05), solved to a relative duality gap of 1e-10, starting from an instance file
on disk.  Both sides read the same ``.npz`` and run as fresh processes with one BLAS thread:

* **fcocheck**: ``fcocheck solve FILE.npz`` — FISTA certified by a duality gap, cross-checked
  against cvxpy/CLARABEL, the problem constants; *cold* (an empty solve cache: cvxpy and the
  constants computed; cvxpy's import and solve run in a forked child beside FISTA and the
  constants, so wall time overlaps them while CPU time counts both processes) and *cached* (the
  second run: cvxpy's point and the constants read back, the certificate and the cross-check's
  agreement recomputed);
* **scikit-learn**: a plain script — ``numpy.load``, ``Lasso(alpha=λ, tol=t).fit(X, y)``, print
  its dual gap.  ``Lasso`` minimises (1/2n)‖y − Xw − b‖² + α‖w‖₁, which is exactly the instance's
  Φ for uniform weights, and its stopping rule is its own duality gap; ``t`` is the loosest decade
  whose fit reaches a relative gap ≤ 1e-10 (found here before timing, checked with fcocheck's
  certificate so both sides are held to the same figure).

Printed: wall and CPU seconds (user + system of the child) of each, best of ``--repeat`` runs,
and the ratios fcocheck ÷ scikit-learn.  Nothing is asserted.

    .venv/bin/python benchmarks/solve_sklearn.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1e-10  # relative duality gap, as fcocheck solve certifies
SCRIPT = """
import sys
import numpy as np
from sklearn.linear_model import Lasso
z = np.load(sys.argv[1])
X = z["X"].reshape(-1, z["X"].shape[-1]); y = z["y"].ravel()
m = Lasso(alpha=float(sys.argv[2]), tol=float(sys.argv[3]), max_iter=1_000_000).fit(X, y)
print(m.dual_gap_)
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + sys of the child) seconds of one run of ``cmd``; raises if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed ({out.returncode}): {out.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The best wall and the best CPU time over runs."""
    return min(w for w, _ in runs), min(c for _, c in runs)


def loosest_tol(path: Path, lam: float) -> tuple[float, float]:
    """The loosest tolerance 10^-k whose ``Lasso`` fit fcocheck certifies at relative gap ≤ TARGET."""
    from sklearn.linear_model import Lasso

    from fcocheck.solvers.instance_io import load_instance
    from fcocheck.solvers.reference import gram_form
    from fcocheck.solvers.reference.certificate import gram_gap

    problem = load_instance(path)
    gram = gram_form(problem)
    z = np.load(path)
    X, y = z["X"].reshape(-1, z["X"].shape[-1]), z["y"].ravel()
    for k in range(6, 16):
        m = Lasso(alpha=lam, tol=10.0**-k, max_iter=1_000_000).fit(X, y)
        cert = gram_gap(problem, gram, np.append(m.coef_, m.intercept_))
        if cert.relative <= TARGET:
            return 10.0**-k, cert.relative
    raise RuntimeError("scikit-learn did not reach the target gap at tol 1e-15")


def figures(repeat: int = 3) -> dict[str, float]:
    """Seconds (wall and CPU) of fcocheck cold, fcocheck cached and the scikit-learn script."""
    from fcocheck.solvers.generators import generate
    from fcocheck.solvers.instance_io import save_instance

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lasso-paper.npz"
        problem = generate("lasso-paper")
        save_instance(problem, path)
        lam = problem.regularizer.lam
        tol, reached = loosest_tol(path, lam)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        ours = [sys.executable, "-m", "fcocheck.reports.cli", "solve", str(path), "--out", f"{tmp}/w.json"]
        theirs = [sys.executable, "-c", SCRIPT, str(path), repr(lam), repr(tol)]
        cold, cached, sk = [], [], []
        for i in range(repeat):  # interleaved: a change of machine load reaches every side
            env["FCOCHECK_CACHE"] = f"{tmp}/cache{i}"  # empty: this run is cold, the next one cached
            cold.append(timed(ours, env))
            cached.append(timed(ours, env))
            sk.append(timed(theirs, env))
    (cw, cc), (hw, hc), (sw, sc) = best(cold), best(cached), best(sk)
    return {"tol": tol, "reached": reached, "cold_wall": cw, "cold_cpu": cc, "cached_wall": hw,
            "cached_cpu": hc, "sklearn_wall": sw, "sklearn_cpu": sc}


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (best is kept)")
    f = figures(parser.parse_args().repeat)
    print(f"scikit-learn Lasso tol {f['tol']:g}: certified relative gap {f['reached']:.2e} "
          f"(target {TARGET:g})")
    print(f"{'':<34} {'wall s':>8} {'CPU s':>8} {'wall ÷ sk':>10} {'CPU ÷ sk':>9}")
    for name, key in (("fcocheck solve (cold)", "cold"), ("fcocheck solve (cached)", "cached"),
                      ("scikit-learn script", "sklearn")):
        w, c = f[f"{key}_wall"], f[f"{key}_cpu"]
        print(f"{name:<34} {w:8.2f} {c:8.2f} {w / f['sklearn_wall']:10.2f} {c / f['sklearn_cpu']:9.2f}")


if __name__ == "__main__":
    main()
