"""A content digest of a problem instance: what a stored run was run on, whatever its name says.

A study may run on a subset, a translated or rescaled copy of a generator's instance, so the
generator's name and parameters (``Problem.meta``) do not always identify the data.  The digest
hashes everything the algorithms read: the loss, ψ and h with their parameters, the weights, every
client's data (dense bytes, or CSR data/indices/indptr), the intercept flag, the ridge λ and shape.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

import numpy as np

from fcocheck.solvers.problem import Problem
from fcocheck.solvers.sparse import issparse

#: problem → digest, dropped with the problem (a strong cache kept up to 32 instances alive)
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _feed(h: Any, x: Any) -> None:
    if x is None:
        h.update(b"<none>")
    elif issparse(x):
        csr = x.tocsr()
        h.update(f"csr{csr.shape}".encode())
        for part in (csr.data, csr.indices, csr.indptr):
            _feed(h, np.asarray(part))
    elif isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    elif isinstance(x, list | tuple):
        h.update(f"seq{len(x)}".encode())
        for v in x:
            _feed(h, v)
    elif isinstance(x, dict):
        for k in sorted(x):
            h.update(str(k).encode())
            _feed(h, x[k])
    elif hasattr(x, "__dict__"):  # a regularizer or mirror map: its class and parameters
        h.update(type(x).__name__.encode())
        _feed(h, {k: v for k, v in vars(x).items() if not k.startswith("_")})
    else:
        h.update(repr(x).encode())


def instance_sha256(problem: Problem) -> str:
    """Hex SHA-256 of the data and the model of ``problem`` (not of its name or meta)."""
    hit = _CACHE.get(problem)
    if hit is not None:
        return hit
    h = hashlib.sha256()
    for part in (problem.loss, problem.regularizer, problem.mirror, problem.weights, problem.X, problem.y,
                 problem.Q, problem.c, problem.intercept, problem.ridge_lam, problem.shape):
        _feed(h, part)
    digest = h.hexdigest()
    _CACHE[problem] = digest
    return digest
