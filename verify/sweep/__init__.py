"""Sweeps: grids of run configurations × seeds, executed on a pool or a Dask cluster, kept in SQLite."""

from fcocheck.verify.sweep.config import ProblemSpec, RunConfig, grid
from fcocheck.verify.sweep.runner import SweepSummary, run_sweep
from fcocheck.verify.sweep.store import Store, StoreError

__all__ = ["ProblemSpec", "RunConfig", "Store", "StoreError", "SweepSummary", "grid", "run_sweep"]
