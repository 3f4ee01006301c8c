"""Sweeps: grids of run configurations × seeds, executed on a pool or a Dask cluster, kept in SQLite."""

from verify.sweep.config import ProblemSpec, RunConfig, grid
from verify.sweep.runner import SweepSummary, run_sweep
from verify.sweep.store import Store, StoreError

__all__ = ["ProblemSpec", "RunConfig", "Store", "StoreError", "SweepSummary", "grid", "run_sweep"]
