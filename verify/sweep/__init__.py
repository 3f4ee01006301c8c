"""Sweeps: grids of run configurations × seeds, executed on a pool or a Dask cluster, kept in SQLite.

The public names are imported on first use (PEP 562): ``fcocheck.verify.sweep.version`` — the code
version a cached certified solve is keyed by — must not pull in the round engine and its compiled
kernels (importing this package eagerly cost a cached ``fcocheck solve`` 0.5 s of imports).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

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


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'fcocheck.verify.sweep' has no attribute {name!r}")
    value = getattr(import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
