"""Sweeps: grids of run configurations × seeds, executed on a pool or a Dask cluster, kept in SQLite.

The public names are imported on first use (PEP 562): ``fcocheck.verify.sweep.version`` — the code
version a cached certified solve is keyed by — must not pull in the round engine and its compiled
kernels (importing this package eagerly cost a cached ``fcocheck solve`` 0.5 s of imports).
"""

from __future__ import annotations

from fcocheck.lazy import lazy_exports

_PUBLIC = {
    "ProblemSpec": "fcocheck.verify.sweep.config",
    "RunConfig": "fcocheck.verify.sweep.config",
    "grid": "fcocheck.verify.sweep.config",
    "SweepSummary": "fcocheck.verify.sweep.runner",
    "run_sweep": "fcocheck.verify.sweep.runner",
    "Store": "fcocheck.verify.sweep.store",
    "StoreError": "fcocheck.verify.sweep.store",
}

__all__ = sorted(_PUBLIC)


__getattr__, __dir__ = lazy_exports(__name__, _PUBLIC, globals())
