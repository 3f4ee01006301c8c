"""Round-engine performance, every figure a ratio against a baseline measured in the same run.

(i)   FedDualAvg on lasso-paper and lowrank-paper (64 × 128 × 1024 / 32 × 32), K = 10, exact oracle,
      every per-round metric on: engine time per local step ÷ time of the bare gradient kernel for the
      same work, and ÷ (bare kernel + the bare client map, which on lowrank-paper is 64 SVDs a step)
      (best of a batched einsum, a per-client numpy loop and the engine's own compiled loop, each
      called with nothing else).  Target ≤ 1.1 (issue 19).
(ii)  10,000 clients × 20 samples × d = 100, FedDualAvg K = 10: engine time per round (metrics
      on) against a straightforward per-client-loop implementation of the same algorithm written
      below (metrics off).  Target ≥ 10× faster.  Both produce the same iterate (checked).
(iii) Peak memory (tracemalloc, numpy buffers included) of 1,000 rounds at ``record="round"``
      on lasso-paper (K = 1), against 250 rounds: growth must be the recorded arrays only.
(iv)  Prox cost on lowrank-paper (nuclear-norm ψ: one SVD per prox), K = 10, 20, 40, 80: time
      per round of FedMiD and FedDualAvg against FedCanon (1 prox per round) and FedCanon II
      (M proxes), printed beside the ratio of prox counts (seed 003 Table III / Table V).
(v)   One FSVRG round at seed-004 scale: 10,000 clients, log-normal sizes clipped to
      [75, 9000], d = 20,002 sparse bag-of-words features with client-skewed frequencies;
      wall time and peak memory of the round, against one full-gradient pass over the same
      data (the floor any SVRG round pays).  Target ≤ 5 s per round on 2 cores (issue 19).

    .venv/bin/python benchmarks/engine.py [--quick] [--parts i,ii,iii,iv,v]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

import numpy as np

from fcocheck.solvers import kernels
from fcocheck.solvers.algorithms.samples import frequency_scaling, full_gradient, sample_view
from fcocheck.solvers.blas_threads import serial_blas
from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.run import prepare
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve


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

    times = {"batched": best_of(batched, repeats), "loop": best_of(loop, repeats)}
    if problem.loss in ("squares", "matrix", "ridge"):  # the engine's own compiled loop, called bare
        from fcocheck.solvers.squares_kernel import squares_grads

        clients, Wb = np.arange(problem.M), np.zeros((problem.M, problem.dim))
        G = np.empty_like(Wb)
        Wb[:, : problem.d] = W
        squares_grads(problem, clients, Wb, G)  # compile / load outside the timing
        times["compiled"] = best_of(lambda: squares_grads(problem, clients, Wb, G), repeats)
    return times


def bare_pass_time(problem, K: int = 10, repeats: int = 10) -> float | None:
    """Seconds a local step of the compiled K-step FedDualAvg pass called bare (None where it cannot run).

    The engine's own hot loop (``fused_steps.dual_trajectory``, client-major, split over the cores) on
    every client from a random dual point, under the engine's BLAS setting (``blas_threads.serial_blas``).
    """
    from fcocheck.solvers.algorithms import fused_steps
    from fcocheck.solvers.algorithms.base import eta_tilde

    kern = kernels.Kernel(problem)
    spec = fused_steps.map_spec(problem.h, problem.psi, problem.dim)
    if spec is None or (kern.dense_squares() is None and kern.pooled_squares() is None):
        return None
    z = np.random.default_rng(0).standard_normal(problem.dim) * 0.01
    ts = np.array([eta_tilde(1.0, 0.02, 3, K, k) for k in range(K)])
    with serial_blas():
        fused_steps.dual_trajectory(kern, z, K, 0.02, spec, ts)  # compile / load outside the timing
        return best_of(lambda: fused_steps.dual_trajectory(kern, z, K, 0.02, spec, ts), repeats) / K


def engine_step_time(problem, phi_star: float, K: int, rounds: tuple[int, int],
                     metrics_every: int = 1, repeats: int = 3) -> float:
    """Engine seconds per local step: difference of two run lengths removes the set-up cost.

    Each run length is timed ``repeats`` times and the best kept (the machine's noise is one-sided).
    """
    hp = {"eta_c": 0.02, "eta_s": 1.0, "local_steps": K}
    times = []
    for R in rounds:
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            run("feddualavg", problem, hp, rounds=R, oracle="exact", reference=phi_star,
                metrics_every=metrics_every if metrics_every > 0 else R)
            best = min(best, time.perf_counter() - t)
        times.append(best)
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


def blocked_feddualavg(problem, eta_c: float, K: int, rounds: int, block: int = 256) -> np.ndarray:
    """FedDualAvg (FCO Alg. 3, η_s = 1) as the best straightforward numpy: clients in blocks.

    Equal-sized clients' data stacked as (M, n, d); each block of ``block`` clients takes its K
    local steps as batched products (its rows stay in cache), the server averages the blocks' dual
    points.  The same arithmetic as ``straightforward_feddualavg``, vectorised over clients.
    """
    lam, d, M = problem.regularizer.lam, problem.d, problem.M
    X, Y = problem.stacked, np.stack(problem.y)
    n = X.shape[1]
    z = np.zeros(problem.dim)
    for r in range(rounds):
        total = np.zeros_like(z)
        for s in range(0, M, block):
            Xb, Yb = X[s:s + block], Y[s:s + block]
            Z = np.repeat(z[None], len(Xb), axis=0)
            for k in range(K):
                t = eta_c * r * K + eta_c * k
                W = np.sign(Z[:, :d]) * np.maximum(np.abs(Z[:, :d]) - t * lam, 0.0)
                resid = (np.einsum("bnd,bd->bn", Xb, W) + Z[:, d:] - Yb) / n
                Z[:, :d] -= eta_c * np.einsum("bnd,bn->bd", Xb, resid)
                Z[:, d] -= eta_c * resid.sum(axis=1)
            total += Z.sum(axis=0)
        z = total / M
    t = eta_c * rounds * K
    w = z.copy()
    w[:d] = np.sign(z[:d]) * np.maximum(np.abs(z[:d]) - t * lam, 0.0)
    return w


def best_numpy_round(problem, eta_c: float, K: int, repeats: int = 2) -> tuple[float, str]:
    """Seconds per round of the fastest straightforward numpy FedDualAvg: a loop or blocks of 64…M."""
    times = {"per-client loop": best_of(lambda: straightforward_feddualavg(problem, eta_c, K, 1), repeats)}
    for block in (64, 256, 1024, problem.M):
        name = f"numpy blocks of {block}" if block < problem.M else "numpy batched (all clients)"
        times[name] = best_of(lambda b=block: blocked_feddualavg(problem, eta_c, K, 1, b), repeats)
    name = min(times, key=times.get)
    return times[name], name


def client_map_time(problem, repeats: int = 10) -> float:
    """One FedDualAvg client map ∇(h + tψ)*(Z) on every client's (M, dim) row, nothing else."""
    from fcocheck.solvers.composite import make_composite

    composite = make_composite(problem.h, problem.psi)
    Z = np.random.default_rng(1).standard_normal((problem.M, problem.dim)) * 0.1
    return best_of(lambda: composite(Z, 0.01), repeats)


def step_figures(name: str, quick: bool = False) -> dict:
    """Engine step (every metric / metrics_every = R) against the bare gradient and the bare client map."""
    p = generate(name)
    phi_star = reference_solve(p).objective
    kernel = bare_kernel_time(p)
    window = (2, 6 if quick else 22) if name == "lasso-paper" else (2, 4 if quick else 12)
    return {"problem": p, "kernel": kernel, "best": min(kernel.values()), "map": client_map_time(p),
            "pass": bare_pass_time(p),
            "step": engine_step_time(p, phi_star, K=10, rounds=window),
            "lean": engine_step_time(p, phi_star, K=10, rounds=window, metrics_every=0)}


def part_i(quick: bool) -> None:
    for name in ("lasso-paper", "lowrank-paper"):
        f = step_figures(name, quick)
        best, bare_step = f["best"], f["best"] + f["map"]
        print(f"(i) FedDualAvg, {name}, K = 10, exact gradients")
        kernels_ms = ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in f["kernel"].items())
        print(f"    bare kernel per gradient: {kernels_ms}"
              f" (engine chose {f['problem'].kernel.strategy}; compiled = its loop strategy called bare); "
              f"bare client map ∇(h + tψ)* on every client {f['map'] * 1e3:.2f} ms")
        print(f"    engine per local step:    {f['step'] * 1e3:.2f} ms with every metric every round, "
              f"{f['lean'] * 1e3:.2f} ms with metrics_every = R (instrumentation kept)")
        print(f"    ratio engine / best bare kernel = {f['step'] / best:.3f} (metrics every round), "
              f"{f['lean'] / best:.3f} (metrics_every = R)   (target <= 1.1); "
              f"engine / (bare kernel + bare client map) = {f['lean'] / bare_step:.3f} (metrics_every = R)")


def part_ii(quick: bool) -> None:
    p = generate("lasso-paper", clients=10_000, samples=20, d=100, nnz=10)
    K, R, eta = 10, 2 if quick else 4, 0.05
    phi_star = reference_solve(p).objective
    hp = {"eta_c": eta, "local_steps": K}
    run("feddualavg", p, hp, rounds=1, reference=phi_star)  # warm the per-problem caches (L, ψ, kernel):
    # without this the 1-round run pays them and the difference undercounts a round ~4× (measured)
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


def round_time(name: str, problem, hp: dict, rounds: int) -> float:
    """Seconds per round of the algorithm's round function alone (no metrics)."""
    s = prepare(name, problem, hp, rounds, "exact", None, "round", False, None, "auto")
    rng = np.random.default_rng(0)
    state = s.algorithm.init(problem, s.hp, s.w0, rng)
    clients = np.arange(problem.M)
    state, _ = s.algorithm.round(state, s.hp, s.env, rng, clients)  # warm-up
    start = time.perf_counter()
    for _ in range(rounds):
        state, log = s.algorithm.round(state, s.hp, s.env, rng, clients)
    return (time.perf_counter() - start) / rounds


def part_iv(quick: bool) -> None:
    p = generate("lowrank-paper")
    M = p.M
    print(f"(iv) prox cost per round on lowrank-paper (M = {M}, 32 x 32 nuclear norm, exact oracle)")
    print("     K   FedCanon s/round  FedCanonII  FedMiD  FedDualAvg | time ratio MiD/Canon, DA/Canon, "
          "CanonII/Canon | prox ratio MiD/Canon, CanonII/Canon")
    for K in ((10, 20) if quick else (10, 20, 40, 80)):
        rounds = 2 if quick else 5
        canon = round_time("fedcanon", p, {"eta_l": 0.01, "local_steps": K}, rounds)
        canon2 = round_time("fedcanon2", p, {"eta_l": 0.01, "local_steps": K}, rounds)
        mid = round_time("fedmid", p, {"eta_c": 0.01, "local_steps": K}, rounds)
        da = round_time("feddualavg", p, {"eta_c": 0.01, "local_steps": K}, rounds)
        print(f"    {K:3d}   {canon:.4f}           {canon2:.4f}      {mid:.4f}  {da:.4f}    | "
              f"{mid / canon:5.1f}x  {da / canon:5.1f}x  {canon2 / canon:5.2f}x | "
              f"{M * K + 1}/1 = {M * K + 1}x, {M}/1 = {M}x")


def fsvrg_round(clients: int) -> dict:
    """Seed-004-scale FSVRG: two rounds timed (the first builds the cached layout), a full-gradient pass."""
    t0 = time.perf_counter()
    p = generate("bag-of-words", clients=clients, d=20_002, mean_size=200, min_size=75, max_size=9000,
                 words=20, lam=1e-4)
    out = {"problem": p, "generated": time.perf_counter() - t0, "nnz": sum(x.nnz for x in p.X)}
    view = sample_view(p, "benchmark")
    frequency_scaling(p, view)
    w = np.zeros(p.dim)
    out["grad"] = best_of(lambda: full_gradient(p, view, w), 3)
    s = prepare("fsvrg", p, {"h": 1.0}, 2, "exact", None, "round", False, None, "auto")
    rng = np.random.default_rng(0)
    state = s.algorithm.init(p, s.hp, s.w0, rng)
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    state, _ = s.algorithm.round(state, s.hp, s.env, rng, np.arange(p.M))
    out["first"] = time.perf_counter() - start
    out["peak"] = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    tracemalloc.stop()
    start = time.perf_counter()
    state, _ = s.algorithm.round(state, s.hp, s.env, rng, np.arange(p.M))
    out["second"] = time.perf_counter() - start
    out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    out["objective"] = (p.Phi(np.zeros(p.dim)), p.Phi(state.w))
    return out


def part_v(quick: bool) -> None:
    r = fsvrg_round(1000 if quick else 10_000)
    p = r["problem"]
    print(f"(v) FSVRG at seed-004 scale: {p.M} clients, n = {int(p.n.sum())} "
          f"(sizes {p.n.min()}..{p.n.max()}, mean {p.n.mean():.0f}), d = {p.d}, nnz = {r['nnz']} "
          f"(generated in {r['generated']:.1f} s)")
    print(f"    round 1 (builds the cached layout): {r['first']:.1f} s; round 2: {r['second']:.2f} s "
          f"(target <= 5 s); one full-gradient pass: {r['grad']:.2f} s -> round = "
          f"{r['second'] / r['grad']:.0f} passes")
    print(f"    peak memory allocated during round 1: {r['peak']:.0f} MiB (tracemalloc); process max RSS "
          f"{r['rss']:.0f} MiB; objective {r['objective'][0]:.4f} -> {r['objective'][1]:.4f}")


PARTS = {"i": part_i, "ii": part_ii, "iii": part_iii, "iv": part_iv, "v": part_v}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke test)")
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated subset of i,ii,iii,iv,v")
    args = parser.parse_args()
    for part in args.parts.split(","):
        PARTS[part.strip()](args.quick)


if __name__ == "__main__":
    main()
