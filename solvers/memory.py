"""Memory as a checked resource: a run, a batch or an instance states its bytes before it allocates them.

Every accepted maximum (10⁷ rounds, 10⁶ local steps, minibatches of 10⁶, instances of 2³¹ floats) is
fine alone and impossible together: ``run … --rounds 10^7 --local-steps 10^6 --oracle minibatch:10^6``
asked for 11.9 GiB.  So before anything is allocated the work estimates its bytes — an upper bound
of what it holds at its peak (``run_bytes``, ``instance_bytes``; ``tests/solvers/test_memory.py``
checks each against the peak ``tracemalloc`` measures) — and ``check`` refuses it above ``SHARE`` of
the memory available now (``available``: the kernel's MemAvailable, read at run time), naming the
work, the estimate, what it is made of and the rule.
"""

from __future__ import annotations

import os
from typing import Any

from fcocheck.solvers.errors import FcocheckError

#: the share of the memory available at run time one run, batch or instance may take
SHARE = 0.5
#: bytes a run holds per round for its per-round series: up to 40 of them (the methods' instruments),
#: each a list of Python floats (a pointer and a 24-byte float object) stacked into an array of 8-byte
#: floats at the end (measured: at most 1.3 kB a round over every method, ``tests/solvers/test_memory.py``)
PER_ROUND = 40 * (8 + 24 + 8)
#: client-sized arrays a round keeps alive at once (states, gradients, controls, temporaries)
WORKING_SETS = 8
#: copies of the instance's data a round's gradients and metrics may hold at once (X w, residuals,
#: the full-gradient passes of SVRG-like methods: measured at most 1.4)
DATA_COPIES = 3
#: bytes any run or instance may hold whatever its size (caches, compiled kernels' buffers, the first
#: call's imports: measured at most 17 MiB)
OVERHEAD = 64 * 2**20
#: an instance's peak while it is generated, in copies of its final data (measured at most 2.2)
GENERATION_COPIES = 3


class MemoryLimitError(FcocheckError):
    """Work whose estimated memory exceeds the share of the machine's available memory it may take."""


def available() -> int:
    """Bytes of memory available now (``MemAvailable`` of ``/proc/meminfo``; else the physical total)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 2**63 - 1  # unknown: nothing is refused for it


def gib(n: float) -> str:
    """Bytes as GiB (MiB below one GiB), for messages."""
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / 2**20:.3g} MiB"


def check(what: str, estimate: int, parts: dict[str, int],
          advice: str = "fewer rounds, steps, clients or a smaller minibatch") -> None:
    """Refuse ``what`` when its ``estimate`` exceeds ``SHARE`` of the available memory (module docstring).

    Raises:
        MemoryLimitError: naming the work, the estimate and its largest parts, and the rule.

    """
    free = available()
    if estimate > SHARE * free:
        largest = ", ".join(f"{k} {gib(v)}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1])[:3])
        raise MemoryLimitError(f"{what} would need about {gib(estimate)} ({largest}); the rule is at most "
                               f"{SHARE:.0%} of the memory available now ({gib(free)}): {advice}")


def data_bytes(problem: Any) -> int:
    """Bytes of an instance's data (its clients' X, y, Q and c; dense or CSR)."""
    total = 0
    for part in (*problem.X, *problem.y, problem.Q, problem.c):
        if part is None:
            continue
        if hasattr(part, "indptr"):
            total += part.data.nbytes + part.indices.nbytes + part.indptr.nbytes
        else:
            total += getattr(part, "nbytes", 0)
    return total


def run_bytes(dim: int, clients: int, rounds: int, local_steps: int, batch: int, record: str,
              participants: int | None = None, data: int = 0) -> dict[str, int]:
    """The parts of a run's peak memory (bytes), the instance itself aside (it exists before the run).

    The peak is bounded by

        OVERHEAD + R·PER_ROUND + 2(R+1)·d·8 + WORKING_SETS·M·d·8 + DATA_COPIES·data
        [+ R(3K + 1 + K·S)·d·8 with per-step records] [+ 2M·b(d+2)·8 with a minibatch of b].

    Args:
        dim: the model's dimension.
        clients: M.
        rounds: R.
        local_steps: K (1 for a method without local steps).
        batch: the minibatch size b (0 without a minibatch oracle).
        record: ``round`` or ``step`` (per-local-step arrays of every round kept).
        participants: clients per round (all when None).
        data: the instance's data bytes (``data_bytes``).

    """
    S = clients if participants is None else participants
    parts = {
        "fixed overhead": OVERHEAD,
        "temporaries over the data": DATA_COPIES * data,
        "per-round series": rounds * PER_ROUND,
        "server points (w, z per round)": 2 * (rounds + 1) * dim * 8,
        "client working sets": WORKING_SETS * clients * dim * 8,
    }
    if record == "step":
        parts["per-step records"] = rounds * (3 * local_steps + 1 + local_steps * S) * dim * 8
    if batch:
        parts["minibatch rows"] = 2 * clients * batch * (dim + 2) * 8
    return parts


def check_run(what: str, problem: Any, rounds: int, local_steps: int, batch: int, record: str,
              participants: int | None = None, runs: int = 1) -> None:
    """``check`` a run on ``problem`` (or ``runs`` of them advancing together) before it allocates.

    The estimate is ``run_bytes``'; ``runs`` of them share the overhead and the data's temporaries.
    """
    parts = run_bytes(problem.dim, problem.M, rounds, local_steps, batch, record, participants,
                      data_bytes(problem))
    shared = ("fixed overhead", "temporaries over the data")
    parts = {k: v if k in shared else runs * v for k, v in parts.items()}
    check(what, sum(parts.values()), parts)


def instance_bytes(floats: int) -> dict[str, int]:
    """The parts of an instance's peak while it is generated: ``OVERHEAD + GENERATION_COPIES·8·floats``."""
    return {"fixed overhead": OVERHEAD, "data and its generation temporaries": GENERATION_COPIES * 8 * floats}


def local_steps_of(hp: Any) -> int:
    """K of a method's hyper-parameters (its ``local_steps``, else its inner steps ``m``, else 1)."""
    for name in ("local_steps", "m"):
        value = getattr(hp, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return 1
