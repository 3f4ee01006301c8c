"""What a cvxpy solve returned, without importing cvxpy (a cached answer needs no solver)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CvxResult:
    """Solution (None if the solver failed), solver name, status and wall time."""

    w: np.ndarray | None
    solver: str
    status: str
    seconds: float
