"""The limit of Φ(ŵ_R) − Φ* as R → ∞ for a dual-averaging method with exact gradients, and its residual.

ŵ_R of FCO eq. (4.2) averages the primal images of the dual shadow from round 0, so Φ(ŵ_R) carries
B/(η_c K R) for every finite R; its limit (a theorem's bound at R → ∞, where only the drift term is
left) is the average of the same images over the run's stationary tail.  It is taken over rounds
R/2…R and checked against rounds 3R/4…R (the residual); an instance that has not settled by R runs
again at 2R, 4R (``LIMIT_DOUBLINGS``) — instances of a class settle at their own pace.  A gap at or
below ``resolution`` (a multiple of the reference's certificate) is not a measurement (its relative
residual is rounding): it is returned as measured, not run longer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fcocheck.rates.threshold import at_most
from fcocheck.verify.experiments.base import runs

#: the limit's convergence residual a floor accepts, and how far R may double to reach it
LIMIT_TOL, LIMIT_DOUBLINGS = 0.01, 2


def limit_gap(method: str, p: Any, ref: Any, hp: dict[str, Any], R: int, seed: int,
              resolution: float = 0.0) -> tuple[float, float]:
    """(lim_R Φ(ŵ_R) − Φ*, its convergence residual) of ``method`` (module docstring).

    Raises:
        KeyError: the method logs no ``shadow_primal`` (it is not of the dual-averaging family).

    """
    def gap(images: np.ndarray, start: int) -> float:
        return float(p.Phi(images[start:].reshape(-1, images.shape[-1]).mean(0)) - ref.objective)

    for _ in range(LIMIT_DOUBLINGS + 1):
        (t,) = runs(method, p, hp, R, "exact", [seed], ref, record="step")
        half, quarter = gap(t["shadow_primal"], R // 2), gap(t["shadow_primal"], 3 * R // 4)
        resid = abs(half - quarter) / max(abs(half), 1e-300)
        if at_most(resid, LIMIT_TOL) or half <= resolution:
            break
        R *= 2
    return half, resid
