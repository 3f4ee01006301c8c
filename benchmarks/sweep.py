"""Sweep throughput: runs per second of one 200-run sweep on three executors, in one script run.

The same 200 configurations (FedAvg, FedDualAvg, SCAFFOLD, FedCanon × 5 step sizes × 10 seeds on
8-client quadratics, d = 20, 200 rounds, Gaussian oracle) execute

* serially in this process (the baseline),
* on the local process pool (``--workers``, default one per core),
* on a Dask LocalCluster of 2 single-threaded worker processes,

each into a fresh store; startup (pool fork, cluster launch, instance + reference solve per
worker) is inside the timed region, as a user would pay it.  The three stores must hold identical
results (checked).  Printed: runs/s and the ratio to serial.

    .venv/bin/python benchmarks/sweep.py [--runs 200] [--rounds 200] [--workers N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from fcocheck.verify.sweep import Store, grid, run_sweep
from fcocheck.verify.sweep.executors import Dask, Pool, Serial, cores

ALGS = {"fedavg": "eta_c", "feddualavg": "eta_c", "scaffold": "eta_l", "fedcanon": "eta_l"}


def configs(runs: int, rounds: int) -> list:
    seeds = max(1, runs // (len(ALGS) * 5))
    out = []
    for alg, step in ALGS.items():
        base = {
            "algorithm": alg,
            "problem": {"generator": "quadratics", "params": {"clients": 8, "d": 20}},
            "hp": {step: 0.1, "local_steps": 5},
            "rounds": rounds,
            "oracle": "gaussian:0.5",
        }
        out += grid(base, {f"hp.{step}": [0.02, 0.05, 0.1, 0.2, 0.4]}, range(seeds))
    return out[:runs]


def contents(path: Path) -> dict:
    with Store(path) as st:
        return {
            r["key"]: (r["status"], {k: v.tobytes() for k, v in st.metrics(r["id"]).items()})
            for r in st.runs()
        }


def timed(name: str, make, cfgs: list, root: Path) -> tuple[float, Path]:
    path = root / f"{name}.sqlite"
    t0 = time.perf_counter()
    ex = make()
    try:
        with Store(path) as st:
            summary = run_sweep(cfgs, st, ex, progress=False)
    finally:
        ex.close()
    seconds = time.perf_counter() - t0
    assert sum(summary.executed.values()) == len(cfgs), summary.line()
    return seconds, path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    cfgs = configs(args.runs, args.rounds)
    workers = args.workers or cores()
    print(
        f"{len(cfgs)} runs ({args.rounds} rounds each), {cores()} cores; pool of {workers}, "
        "Dask LocalCluster of 2"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows = [
            ("serial (1 process)", *timed("serial", Serial, cfgs, root)),
            (f"local pool ({workers} workers)", *timed("pool", lambda: Pool(workers), cfgs, root)),
            ("Dask LocalCluster (2 workers)", *timed("dask", lambda: Dask(local=2), cfgs, root)),
        ]
        base = contents(rows[0][2])
        same = all(contents(p) == base for _, _, p in rows[1:])
    serial = rows[0][1]
    print(f"{'executor':<32}{'seconds':>9}{'runs/s':>9}{'× serial':>10}")
    for name, sec, _ in rows:
        print(f"{name:<32}{sec:>9.2f}{len(cfgs) / sec:>9.1f}{serial / sec:>10.2f}")
    print(f"identical results across executors: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
