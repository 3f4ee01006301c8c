"""The round engine and the trace it records (``run``, ``Trace``)."""

from solvers.engine.run import run
from solvers.engine.trace import Trace

__all__ = ["Trace", "run"]
