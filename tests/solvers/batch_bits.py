"""What every batched-run test needs: the same runs alone and as one batch, and their differences.

``run_batch`` promises each run the bits ``run`` gives it alone.  ``differences`` lists every array
(byte for byte: a signed zero or a NaN's payload counts), array order and meta entry but the wall time
in which two traces differ; ``together`` asserts the runs really were batched (none left to ``run``),
``alone`` runs them one by one.  The method-generic properties (a run diverging mid-batch, a one-ulp
step change that must show, start points) are in ``test_run_batch_common.py``; each method's own file
keeps what is its own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

from fcocheck.solvers.engine.batch import batch_groups, run_batch
from fcocheck.solvers.engine.run import prepare, run
from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference import reference_solve

#: rounds of a comparison unless a test says otherwise
ROUNDS = 12


def differences(a: Any, b: Any) -> list[str]:
    """Every array or meta entry (wall time aside) in which two traces differ in any byte; their order."""
    out = sorted(set(a.arrays) ^ set(b.arrays))
    if not out and list(a.arrays) != list(b.arrays):
        out.append("order of the arrays")
    for k in set(a.arrays) & set(b.arrays):
        x, y = a.arrays[k], b.arrays[k]
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            out.append(k)
    meta_a = {k: v for k, v in a.meta.items() if k != "seconds"}
    meta_b = {k: v for k, v in b.meta.items() if k != "seconds"}
    out += [f"meta.{k}" for k in set(meta_a) | set(meta_b) if meta_a.get(k) != meta_b.get(k)]
    return out


def all_differences(got: list[Any], want: list[Any]) -> list[list[str]]:
    """``differences`` run by run (the lists must be as long)."""
    return [differences(a, b) for a, b in zip(got, want, strict=True)]


def together(algorithm: str, problems: list, hps: list[dict], seeds: list[int], refs: list,
             oracle: str = "exact", rounds: int = ROUNDS, participation: int | None = None,
             one_batch: bool = True, **options: Any) -> list[Any]:
    """``run_batch``'s traces, every run in a batch (in one batch with ``one_batch``): asserted first."""
    record = options.get("record", "round")
    setups = [prepare(algorithm, p, h, rounds, oracle, participation, record, r, None, "auto")
              for p, h, r in zip(problems, hps, refs, strict=True)]
    groups, lone = batch_groups(setups, problems)
    assert lone == [] and sorted(i for g in groups for i in g) == list(range(len(problems)))
    assert len(groups) == 1 or not one_batch, groups
    return run_batch(algorithm, problems, hps, rounds, seeds, oracle, refs, participation=participation,
                     **options)


def alone(algorithm: str, problems: list, hps: list[dict], seeds: list[int], refs: list,
          oracle: str = "exact", rounds: int = ROUNDS, participation: int | None = None,
          w0s: list | None = None, **options: Any) -> list[Any]:
    """The same runs, each by ``run`` on its own (run i from ``w0s[i]`` when given)."""
    w0s = [None] * len(problems) if w0s is None else w0s
    return [run(algorithm, p, h, rounds=rounds, oracle=oracle, seed=s, reference=r,
                participation=participation, w0=w, **options)
            for p, h, s, r, w in zip(problems, hps, seeds, refs, w0s, strict=True)]


#: the instance classes the batched-run tests draw from (instance seed → problem)
CLASSES: dict[str, Callable[[int], Any]] = {
    # ℓ1-ball quadratics with heterogeneous Hessians (the Lemma 4.4 class)
    "ball": partial(generate, "quadratics", clients=6, d=7, zeta=8.0, hessian_spread=0.5, ball=3.0),
    # ψ = 0: a large step explodes
    "free": partial(generate, "quadratics", clients=6, d=7, zeta=8.0),
    "l1": partial(generate, "quadratics", clients=6, d=7, zeta=2.0, lam=0.05),
    "logistic": partial(generate, "constrained-logistic", ball="l2", radius=2.0, clients=5, samples=12, d=6),
    "logistic-6": partial(generate, "constrained-logistic", ball="l2", radius=2.0, clients=6, samples=12,
                          d=5),
    # FedCanon's class (``verify.classes.FEDCANON_QUADRATICS``, ℓ1 ψ)
    "canon": partial(generate, "quadratics", clients=8, d=20, zeta=1.0, lam=0.01, mirror="euclidean"),
    # FCO's curse-rate class (FedCanon's quadratics, ψ = 0.3‖·‖₁)
    "curse": partial(generate, "quadratics", clients=8, d=20, zeta=1.0, lam=0.3, mirror="euclidean"),
}


@cache
def instances(cls: str, n: int = 3, references: bool = True) -> tuple[tuple, tuple]:
    """Instance seeds 0…n−1 of a class and their certified references (False without), made once."""
    ps = tuple(CLASSES[cls](seed=s) for s in range(n))
    return ps, tuple(reference_solve(p) if references else False for p in ps)


def twice_first(problems: tuple | list, refs: tuple | list) -> tuple[list, list]:
    """Instance 0 appended again (two seeds on one instance inside a batch)."""
    return [*problems, problems[0]], [*refs, refs[0]]
