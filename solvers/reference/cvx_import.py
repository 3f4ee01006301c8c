"""cvxpy imported without the scipy.stats it loads for one function it never calls on our models.

cvxpy's quantum-entropy atoms import ``scipy.stats.entropy`` at module level, so ``import cvxpy`` loads
all of ``scipy.stats`` (its distributions: ≈ 0.3 s of CPU of cvxpy's ≈ 1.0 s here, measured in fresh
processes) although no model of ours uses those atoms.  ``import_cvxpy`` imports cvxpy with a
*deferred* ``scipy.stats`` in ``sys.modules`` for the duration of that import only:

* ``entropy`` is a function that imports the real ``scipy.stats`` when it is *called*, and calls it;
* any other attribute (``norm``, a submodule's path …) imports the real module at that moment and
  answers from it — so whatever cvxpy reads at import time, it gets the real object, only later;
* afterwards the deferred module is removed from ``sys.modules``: a later ``import scipy.stats``
  anywhere gets the real module.

Nothing changes if ``scipy.stats`` or cvxpy is already imported (the plain import then costs nothing
more), and the models, the solver and its answers are the same objects and bits either way.  A cvxpy that
imports a *submodule* of scipy.stats (``import scipy.stats.distributions``: the stand-in is no package)
fails inside the window; it is then imported again, plainly.  Who gains: a process whose first import
of cvxpy comes before anything loads scipy.stats — the cold solve, the worst cases (PEPit), a claim's
process at its first reference optimum (the rules import scipy.stats only when they judge); one that
loaded scipy.stats first gains nothing.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

STATS = "scipy.stats"


def _real_stats() -> types.ModuleType:
    """The real ``scipy.stats``, imported now (a deferred stand-in is dropped from ``sys.modules`` first)."""
    if isinstance(sys.modules.get(STATS), _DeferredStats):
        del sys.modules[STATS]
    return importlib.import_module(STATS)


def entropy(*args: Any, **kwargs: Any) -> Any:
    """``scipy.stats.entropy``, the real module imported at the first call."""
    return _real_stats().entropy(*args, **kwargs)


class _DeferredStats(types.ModuleType):
    """``scipy.stats`` until something other than ``entropy`` is read from it (module docstring)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import machinery's probes (``__path__`` …): not a package
            raise AttributeError(name)
        return getattr(_real_stats(), name)


def import_cvxpy() -> types.ModuleType:
    """``cvxpy``, imported with ``scipy.stats`` deferred (module docstring)."""
    if "cvxpy" in sys.modules or STATS in sys.modules:
        return importlib.import_module("cvxpy")
    stand_in = _DeferredStats(STATS)
    stand_in.entropy = entropy
    sys.modules[STATS] = stand_in
    try:
        return importlib.import_module("cvxpy")
    except ImportError:  # a cvxpy that imports a submodule of scipy.stats: start over, plainly
        for name in [m for m in sys.modules if m == "cvxpy" or m.startswith("cvxpy.")]:
            del sys.modules[name]
        if sys.modules.get(STATS) is stand_in:
            del sys.modules[STATS]
        return importlib.import_module("cvxpy")
    finally:
        if sys.modules.get(STATS) is stand_in:
            del sys.modules[STATS]
