"""N runs alone against the same N runs as one batch (``run_batch``), CPU time, in the same process.

Small instances of the sizes the claims and studies draw (issue 33): FedDualAvg (FedAvgM in (e)), K = 4,
100 rounds, every per-round metric on, on N ∈ {1, 3, 10} instance draws of
(a) ℓ1-ball quadratics with heterogeneous Hessians (8 clients, d = 20: the Lemma 4.4 class), exact oracle;
(b) λ‖·‖₁ quadratics (8 clients, d = 20), Gaussian oracle σ = 1;
(c) a LASSO (lasso-paper's generator: 8 clients × 32 samples, d = 20), minibatch oracle b = 4;
(d) logistic clients over an ℓ2 ball (8 clients × 32 samples, d = 20), minibatch oracle b = 4;
(e) FedAvgM (server momentum β = 0.9) on (b)'s quadratics, Gaussian oracle σ = 1.
Each pair (alone, batched) runs back to back, alternating which goes first, ``--repeats`` times; the
figure is the median of the per-pair ratios batched ÷ alone (CPU time, so a loaded machine shifts both
sides alike).  Every batched trace is checked to be the same bits as its run alone.

    .venv/bin/python benchmarks/batch.py [--repeats 5] [--rounds 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fcocheck.solvers.engine.batch import run_batch
from fcocheck.solvers.engine.run import run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve

#: name → (method, its hyper-parameters beside η_c = 0.05 and K = 4, generator, parameters, oracle)
CASES = {
    "l1-ball quadratics, exact": ("feddualavg", {}, "quadratics",
                                  dict(clients=8, d=20, zeta=8.0, hessian_spread=0.5, ball=3.0), "exact"),
    "l1 quadratics, gaussian:1": ("feddualavg", {}, "quadratics", dict(clients=8, d=20, zeta=1.0, lam=0.05),
                                  "gaussian:1.0"),
    "lasso, minibatch:4": ("feddualavg", {}, "lasso-paper", dict(clients=8, samples=32, d=20, nnz=5),
                           "minibatch:4"),
    "logistic, minibatch:4": ("feddualavg", {}, "constrained-logistic",
                              dict(ball="l2", radius=2.0, clients=8, samples=32, d=20), "minibatch:4"),
    "FedAvgM, gaussian:1": ("fedavgm", {"beta": 0.9}, "quadratics", dict(clients=8, d=20, zeta=1.0, lam=0.05),
                            "gaussian:1.0"),
}


def cpu(fn) -> tuple[float, object]:
    """Process CPU seconds of one call, and its result."""
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def same(a, b) -> bool:
    """Every array of two traces equal bit for bit."""
    return set(a.arrays) == set(b.arrays) and all(
        np.array_equal(a.arrays[k], b.arrays[k], equal_nan=True) for k in a.arrays)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=100)
    args = ap.parse_args()
    print(f"K = 4, R = {args.rounds}; CPU seconds alone vs batched, median ratio of "
          f"{args.repeats} back-to-back pairs")
    for name, (method, extra, generator, params, oracle) in CASES.items():
        problems = [generate(generator, seed=s, **params) for s in range(10)]
        refs = [reference_solve(p) for p in problems]
        for n in (1, 3, 10):
            hps = [{"eta_c": 0.05, "local_steps": 4, **extra}] * n
            seeds = list(range(n))

            def alone(ps=problems[:n], hps=hps, seeds=seeds, rs=refs[:n], oracle=oracle, method=method):
                return [run(method, p, h, rounds=args.rounds, oracle=oracle, seed=s, reference=r)
                        for p, h, s, r in zip(ps, hps, seeds, rs, strict=True)]

            def batched(ps=problems[:n], hps=hps, seeds=seeds, rs=refs[:n], oracle=oracle, method=method):
                return run_batch(method, ps, hps, args.rounds, seeds, oracle, rs)

            ratios, a_times, b_times = [], [], []
            for rep in range(args.repeats):
                first, second = (alone, batched) if rep % 2 == 0 else (batched, alone)
                t1, o1 = cpu(first)
                t2, o2 = cpu(second)
                ta, tb, oa, ob = (t1, t2, o1, o2) if rep % 2 == 0 else (t2, t1, o2, o1)
                assert all(same(x, y) for x, y in zip(oa, ob, strict=True)), "batched bits differ"
                ratios.append(tb / ta)
                a_times.append(ta)
                b_times.append(tb)
            print(f"  {name:<28} N = {n:>2}: alone {np.median(a_times):.3f} s, "
                  f"batched {np.median(b_times):.3f} s,"
                  f" batched/alone = {np.median(ratios):.2f} (per run {1e3 * np.median(b_times) / n:.1f} ms "
                  f"vs {1e3 * np.median(a_times) / n:.1f} ms)")


if __name__ == "__main__":
    main()
