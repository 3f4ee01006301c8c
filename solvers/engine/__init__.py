"""The round engine and the trace it records (``run``, ``Trace``)."""

from fcocheck.solvers.engine.run import run
from fcocheck.solvers.engine.trace import Trace

__all__ = ["Trace", "run"]
