"""Round-engine performance, every figure a ratio against a baseline measured in the same run.

(i)   FedDualAvg on lasso-paper (64 × 128 × 1024), K = 10, exact oracle, every per-round metric
      on: engine time per local step ÷ time of the bare gradient kernel for the same work
      (best of a batched einsum and a per-client loop, with nothing else).  Target ≤ 1.25.
(ii)  10,000 clients × 20 samples × d = 100, FedDualAvg K = 10: engine time per round (metrics
      on) against a straightforward per-client-loop implementation of the same algorithm written
      below (metrics off).  Target ≥ 10× faster.  Both produce the same iterate (checked).
(iii) Peak memory (tracemalloc, numpy buffers included) of 1,000 rounds at ``record="round"``
      on lasso-paper (K = 1), against 250 rounds: growth must be the recorded arrays only.

    .venv/bin/python benchmarks/engine.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from solvers import kernels
from solvers.engine import run
from solvers.generators import generate
from solvers.reference import reference_solve


def best_of(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bare_kernel_time(problem, repeats: int = 30) -> dict[str, float]:
    """One gradient of every client at distinct points: batched einsum vs per-client loop."""
    X, Y = problem.stacked, np.stack(problem.y)
    W = np.random.default_rng(0).standard_normal((problem.M, problem.d)) * 0.01
    n = X.shape[1]

    def batched():
        R = (np.einsum("mnd,md->mn", X, W) - Y) / n
        return np.einsum("mnd,mn->md", X, R)

    def loop():
        out = np.empty_like(W)
        for m in range(problem.M):
            out[m] = X[m].T @ ((X[m] @ W[m] - Y[m]) / n)
        return out

    return {"batched": best_of(batched, repeats), "loop": best_of(loop, repeats)}


def engine_step_time(problem, phi_star: float, K: int, rounds: tuple[int, int]) -> float:
    """Engine seconds per local step: difference of two run lengths removes the set-up cost."""
    hp = {"eta_c": 0.02, "eta_s": 1.0, "local_steps": K}
    times = []
    for R in rounds:
        t = time.perf_counter()
        run("feddualavg", problem, hp, rounds=R, oracle="exact", reference=phi_star)
        times.append(time.perf_counter() - t)
    return (times[1] - times[0]) / ((rounds[1] - rounds[0]) * K)


def straightforward_feddualavg(problem, eta_c: float, K: int, rounds: int) -> np.ndarray:
    """FedDualAvg (FCO Alg. 3, η_s = 1) the obvious way: a Python loop over clients and steps."""
    lam, d = problem.regularizer.lam, problem.d
    z = np.zeros(problem.dim)
    for r in range(rounds):
        new = np.zeros_like(z)
        for m in range(problem.M):
            X, y, zm = problem.X[m], problem.y[m], z.copy()
            for k in range(K):
                t = eta_c * r * K + eta_c * k
                w = zm.copy()
                w[:d] = np.sign(zm[:d]) * np.maximum(np.abs(zm[:d]) - t * lam, 0.0)
                resid = (X @ w[:d] + w[d] - y) / len(y)
                zm[:d] -= eta_c * (X.T @ resid)
                zm[d] -= eta_c * resid.sum()
            new += zm / problem.M
        z = new
    t = eta_c * rounds * K
    w = z.copy()
    w[:d] = np.sign(z[:d]) * np.maximum(np.abs(z[:d]) - t * lam, 0.0)
    return w


def part_i(quick: bool) -> None:
    p = generate("lasso-paper")
    phi_star = reference_solve(p).objective
    kernel = bare_kernel_time(p)
    best = min(kernel.values())
    step = engine_step_time(p, phi_star, K=10, rounds=(2, 6 if quick else 22))
    print("(i) FedDualAvg, lasso-paper, K = 10, exact gradients, all metrics every round")
    print(f"    bare kernel per gradient: batched {kernel['batched'] * 1e3:.2f} ms, "
          f"loop {kernel['loop'] * 1e3:.2f} ms (engine chose {p.kernel.strategy})")
    print(f"    engine per local step:    {step * 1e3:.2f} ms")
    print(f"    ratio engine / best bare kernel = {step / best:.3f}   (target <= 1.25)")


def part_ii(quick: bool) -> None:
    p = generate("lasso-paper", clients=10_000, samples=20, d=100, nnz=10)
    K, R, eta = 10, 2 if quick else 4, 0.05
    phi_star = reference_solve(p).objective
    hp = {"eta_c": eta, "local_steps": K}
    times = []
    for rounds in (1, 1 + R):
        t = time.perf_counter()
        ours = run("feddualavg", p, hp, rounds=rounds, reference=phi_star)
        times.append(time.perf_counter() - t)
    ours_s = (times[1] - times[0]) / R
    t = time.perf_counter()
    naive_w = straightforward_feddualavg(p, eta, K, 1 + R)
    naive_s = (time.perf_counter() - t) / (1 + R)
    agree = float(np.max(np.abs(naive_w - ours.final_w)))
    print(f"(ii) 10,000 clients × 20 × d = 100, FedDualAvg K = {K} (engine chose {p.kernel.strategy}, "
          f"blocks of {kernels.BLOCK} clients on {os.cpu_count()} threads)")
    print(f"    engine {ours_s * 1e3:.0f} ms/round (all metrics on, set-up excluded), "
          f"straightforward loop {naive_s * 1e3:.0f} ms/round (no metrics)")
    print(f"    speed-up = {naive_s / ours_s:.1f}x   (target >= 10x); max |w_ours - w_loop| = {agree:.1e}")


def peak_memory(problem, rounds: int) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    run("feddualavg", problem, {"eta_c": 0.02, "local_steps": 1}, rounds=rounds, reference=24.9)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def part_iii(quick: bool) -> None:
    p = generate("lasso-paper")
    _ = p.stacked, p.kernel  # data views built before measuring
    long = 200 if quick else 1000
    small, big = peak_memory(p, long // 4), peak_memory(p, long)
    per_round = 2 * p.dim * 8 / 2**20  # server_w and server_z, float64
    data = p.stacked.nbytes / 2**20
    print(f"(iii) peak traced memory at record='round' on lasso-paper (data {data:.0f} MiB, "
          "not counted: allocated before tracing)")
    print(f"    {long // 4} rounds: {small:.1f} MiB; {long} rounds: {big:.1f} MiB; growth "
          f"{big - small:.1f} MiB vs recorded server_w + server_z "
          f"{per_round * (long - long // 4):.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke test)")
    args = parser.parse_args()
    part_i(args.quick)
    part_ii(args.quick)
    part_iii(args.quick)


if __name__ == "__main__":
    main()
