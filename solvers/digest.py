"""A content digest of a problem instance: what a stored run was run on, whatever its name says.

A study may run on a subset, a translated or rescaled copy of a generator's instance, so the
generator's name and parameters (``Problem.meta``) do not always identify the data.  The digest
hashes everything the algorithms read: the loss, ψ and h with their parameters, the weights, every
client's data (dense bytes, or CSR data/indices/indptr), the intercept flag, the ridge λ and shape —
each value with its type and length (``solvers.exact_digest``), so that two different instances never
feed the same bytes (joined reprs did: GroupLasso's groups (1, 1, 23) and (11, 2, 3) shared a digest,
so the two problems shared a solve-cache entry — whose point is certified afresh, so a spurious failed
cross-check, never a false certificate — and looked like one instance in the store).
"""

from __future__ import annotations

import hashlib
import weakref

from fcocheck.solvers.exact_digest import feed
from fcocheck.solvers.problem import Problem

#: problem → digest, dropped with the problem (a strong cache kept up to 32 instances alive)
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def instance_sha256(problem: Problem) -> str:
    """Hex SHA-256 of the data and the model of ``problem`` (not of its name or meta)."""
    hit = _CACHE.get(problem)
    if hit is not None:
        return hit
    h = hashlib.sha256()
    feed(h, (problem.loss, problem.regularizer, problem.mirror, problem.weights, problem.X, problem.y,
             problem.Q, problem.c, problem.intercept, problem.ridge_lam, problem.shape), objects=True)
    digest = h.hexdigest()
    _CACHE[problem] = digest
    return digest
