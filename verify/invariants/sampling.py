"""The engine's shared machinery on every ``check``: client sampling, and runs that advance together.

Partial participation draws, in each round r, the set S_r of P of the M clients uniformly without
replacement (Alg. 1 line 3 of FedAvg; the same line in every method with sampling).  On the logged
``sampled`` rows, independently of the code that draws them:

* each row is P distinct client indices in [0, M) — a set, not a multiset;
* over R rounds client m is chosen N_m ~ Binomial(R, P/M) times under a uniform draw; every
  |N_m − RP/M| ≤ 5·√(R (P/M)(1 − P/M)) (a false alarm at most 6·10⁻⁷ per client and case; the seeds are
  fixed, so a case's outcome never changes between runs);
* a batch of runs that advance together (``run_batch``: the path sweeps and reports take) gives each run
  the sampled sets and iterates its run alone gives, bit for bit, under a noisy oracle — each run's own
  streams, whatever the other runs' seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fcocheck.solvers.engine import run
from fcocheck.solvers.engine.batch import run_batch
from fcocheck.verify.cases import InstanceSpec, build
from fcocheck.verify.evidence import Evidence, bounded
from fcocheck.verify.invariants.base import Invariant
from fcocheck.verify.optimum import optimum

#: rounds of each run: enough that a client's count has a standard deviation of a few rounds
ROUNDS = 240
#: the count's allowance in binomial standard deviations
Z = 5.0
ORACLE = "gaussian:0.5"
METHOD = "fedavg"


@dataclass(frozen=True)
class SamplingCase:
    """M clients, P per round, one run per seed (≥ 2 seeds: a batch)."""

    M: int
    P: int
    seeds: tuple[int, ...]
    data_seed: int = 0

    def describe(self) -> str:
        """M, P and the seeds."""
        return f"M={self.M}, P={self.P}, seeds {list(self.seeds)}"

    def record(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"M": self.M, "P": self.P, "seeds": list(self.seeds), "data_seed": self.data_seed}


@st.composite
def sampling_cases(draw) -> SamplingCase:
    """M ∈ 2..8, P ∈ 1..M−1, two or three distinct seeds."""
    M = draw(st.integers(2, 8))
    P = draw(st.integers(1, M - 1))
    seeds = tuple(draw(st.lists(st.integers(0, 2**31), min_size=2, max_size=3, unique=True)))
    return SamplingCase(M, P, seeds, draw(st.integers(0, 100)))


def examples() -> list[SamplingCase]:
    """A pair per round of five (a duplicate is likely each round), most of four, and one of two."""
    return [SamplingCase(5, 2, (3, 4, 5)), SamplingCase(4, 3, (0, 11)), SamplingCase(2, 1, (7, 8))]


def _set_violations(S: np.ndarray, M: int, P: int, rounds: int) -> list[str]:
    """What is wrong with the logged sampled rows (empty: each round P distinct indices in [0, M))."""
    if S.shape != (rounds, P):
        return [f"sampled has shape {S.shape}, not ({rounds}, {P})"]
    out = []
    if S.min() < 0 or S.max() >= M:
        out.append(f"an index outside [0, {M})")
    repeats = int(np.sum(np.any(np.diff(np.sort(S, axis=1), axis=1) == 0, axis=1)))
    if repeats:
        out.append(f"{repeats} of {rounds} rounds sample a client twice")
    return out


def _count_z(S: np.ndarray, M: int, P: int) -> float:
    """The largest |N_m − RP/M| in binomial standard deviations."""
    R, q = S.shape[0], P / M
    counts = np.bincount(S.ravel().astype(int), minlength=M)[:M]
    return float(np.max(np.abs(counts - R * q)) / np.sqrt(R * q * (1 - q)))


def sampling_residual(c: SamplingCase) -> Evidence:
    """Sets, counts and batch-against-alone on ``c``'s runs: the number of violations (rule: 0)."""
    spec = InstanceSpec("general", c.M, 2, 2, 0.5, "zero", 0.0, c.data_seed)
    problem = build(spec)
    hp = {"eta_c": 0.1 / optimum(spec).L_max, "local_steps": 2}
    kw = {"rounds": ROUNDS, "oracle": ORACLE, "participation": c.P}
    alone = [run(METHOD, problem, hp, seed=s, reference=False, **kw) for s in c.seeds]
    together = run_batch(METHOD, [problem] * len(c.seeds), [hp] * len(c.seeds), seeds=list(c.seeds),
                         references=[False] * len(c.seeds), **kw)
    found: list[str] = []
    zs = []
    for s, a, b in zip(c.seeds, alone, together, strict=True):
        S = np.asarray(a["sampled"])
        found += [f"seed {s}: {v}" for v in _set_violations(S, c.M, c.P, ROUNDS)]
        if not found:
            zs.append(_count_z(S, c.M, c.P))
        if not (np.array_equal(S, np.asarray(b["sampled"])) and np.array_equal(a["server_w"], b["server_w"])):
            found.append(f"seed {s}: the batch's run differs from the run alone")
    z = max(zs, default=0.0)
    if z > Z:
        found.append(f"a client's count is {z:.2f} binomial sd from RP/M (rule ≤ {Z:g})")
    detail = "; ".join(found) or (f"{ROUNDS} rounds per seed: every S_r P distinct clients, counts within "
                                   f"{z:.2f} sd of RP/M, each batched run its run alone")
    return bounded("sampling", float(len(found)), 0.0, f"{c.describe()}: {detail}", count_z=z)


INVARIANTS = (
    Invariant(
        "sampling",
        "Alg. 1 line 3 (S_r: P of M clients, uniformly without replacement); run_batch's contract",
        "each S_r is P distinct clients, each sampled RP/M ± 5 sd times; a batched run = its run alone",
        (),
        "holds",
        sampling_cases,
        sampling_residual,
        examples,
        component="engine",
    ),
)
