"""Which configurations of a sweep execute together as one ``run_batch`` (``task.execute_batch``).

Configurations whose method the batched round covers (``engine.batch.batched_method``: the dual cards
FedDualAvg and FedDualAvg-OSP, the primal cards FedAvg, FedAvgM, FedMiD and their variants, FedCanon, ZA1)
and that agree in everything ``run_batch`` holds common — algorithm, R, oracle, ``metrics_every``, clients
per round, per-round records, the local steps K and the oracle queries per step b — and in their instance
generator and its parameters other than the seed (so that their instances have the same shapes) form one
group; each group is cut into batches of at most ``MAX_BATCH`` runs, and into at least one batch per worker
when it has enough runs, so that a pool's workers share it. Every other configuration is a batch of its own.
``run_batch`` checks the instances themselves (``batch_key``); a run that does not fit the batch after all
(a kernel of the loop strategy, a compiled pass) is handed back and executed as its own item right after the
batch (``runner.run_sweep``), so a grouping that turns out wrong costs the batch's checks (and, on a pool,
maybe an instance built again in another worker), never a bit, and never a finished run at Ctrl-C.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from fcocheck.verify.sweep.config import RunConfig, canonical

#: the most runs one batch holds (its per-round Python overhead is shared by them all; beyond a few tens
#: the arithmetic, not the overhead, dominates)
MAX_BATCH = 32


def group_key(config: RunConfig) -> tuple | None:
    """What the configurations of one batch share, or None for a configuration that runs alone."""
    from fcocheck.solvers import algorithms
    from fcocheck.solvers.engine.batch import batched_method
    from fcocheck.solvers.errors import FcocheckError

    try:
        alg = algorithms.get(config.algorithm)
    except FcocheckError:
        return None
    if not batched_method(alg) or config.record != "round":
        return None
    spec = config.problem.as_dict()
    params = {k: v for k, v in (spec.get("params") or {}).items() if k != "seed"}
    instance = canonical({**spec, "params": params}) if spec.get("file") is None else canonical(spec)
    steps = canonical([config.hp.get("local_steps"), config.hp.get("b")])  # ``batch_key``'s K and b
    return alg.name, config.rounds, config.oracle, config.metrics_every, config.participation, steps, instance


def batches(configs: Sequence[RunConfig], workers: int = 1) -> list[list[RunConfig]]:
    """The configurations as batches (module docstring), in their first configuration's order."""
    groups: dict[tuple, list[RunConfig]] = {}
    out: list[list[RunConfig]] = []
    for c in configs:
        key = group_key(c)
        if key is None:
            out.append([c])
        else:
            if key not in groups:
                groups[key] = []
                out.append(groups[key])
            groups[key].append(c)
    cut: list[list[RunConfig]] = []
    for group in out:
        size = max(1, min(MAX_BATCH, math.ceil(len(group) / max(1, workers))))
        cut += [group[i:i + size] for i in range(0, len(group), size)]
    return cut
