"""The instance digest's memo: same problem, same digest; another instance, another digest; a dropped
problem is not kept alive by the memo (it held up to 32 instances — large ones — before)."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace

import numpy as np

from fcocheck.solvers.digest import _CACHE, instance_sha256
from fcocheck.solvers.generators import generate


def test_digest_is_memoised_per_instance_and_follows_the_data():
    p = generate("lasso-paper", clients=3, samples=7, d=5, nnz=2)
    d = instance_sha256(p)
    assert instance_sha256(p) == d and _CACHE[p] == d
    q = replace(p, y=tuple(y + 1.0 for y in p.y))  # same name and meta, other data
    assert instance_sha256(q) != d
    assert instance_sha256(replace(p, y=tuple(np.array(y) for y in p.y))) == d  # equal data, new object


def test_a_dropped_problem_is_not_kept_alive_by_the_memo():
    p = generate("lasso-paper", clients=3, samples=7, d=5, nnz=2)
    instance_sha256(p)
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None
