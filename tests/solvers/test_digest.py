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


def test_two_instances_that_differ_only_in_a_regularizers_tuple_have_two_digests():
    """Group lasso over groups (1, 1, 23) — coordinates 0 and 1 together — and (11, 2, 3) — each alone — are
    two problems (their prox differs); the joined reprs of the old digest gave them one digest (one
    solve-cache entry, one instance to the store)."""
    from fcocheck.solvers.regularizers.group import GroupLasso

    p = generate("lasso-paper", clients=2, samples=4, d=3, nnz=1)
    a, b = GroupLasso(lam=0.5, groups=(1, 1, 23)), GroupLasso(lam=0.5, groups=(11, 2, 3))
    v = np.array([[0.6, 0.8, 1.0]])
    assert not np.array_equal(a.prox(v, 1.0), b.prox(v, 1.0))
    assert instance_sha256(replace(p, regularizer=a)) != instance_sha256(replace(p, regularizer=b))
    again = GroupLasso(lam=0.5, groups=(1, 1, 23))
    assert instance_sha256(replace(p, regularizer=again)) == instance_sha256(replace(p, regularizer=a))


def test_a_zero_of_either_sign_and_one_ulp_are_other_instances():
    p = generate("lasso-paper", clients=2, samples=4, d=3, nnz=1)
    X = [x.copy() for x in p.X]
    X[1][2, 0] = 0.0
    zero, negative = replace(p, X=tuple(X)), replace(p, X=tuple(x.copy() for x in X))
    negative.X[1][2, 0] = -0.0
    assert instance_sha256(zero) != instance_sha256(negative)
    ulp = replace(p, ridge_lam=np.nextafter(p.ridge_lam, 1.0))
    assert instance_sha256(ulp) != instance_sha256(p)
