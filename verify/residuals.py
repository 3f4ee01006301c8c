"""Residuals of the papers' identities, read off a trace recorded per local step.

FCO eq. (4.5): with η_s = 1 FedDualAvg's dual shadow z̄ (the clients' average dual state) moves by
exactly −η_c times the clients' average gradient at every local step, z̄_{r,k+1} = z̄_{r,k} − η_c ḡ_{r,k}
(the duals are averaged linearly).  FedMiD's does not once ψ acts (prox and averaging do not commute).
A residual is relative to the largest |z̄| of the run, so an identity that holds to rounding reads
about 1e-16, whatever the scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def shadow_residual(trace: Any, eta_c: float) -> np.ndarray:
    """Per round r: max over k and coordinates of |z̄_{r,k+1} − (z̄_{r,k} − η_c ḡ_{r,k})| / max_run |z̄|.

    Args:
        trace: a run recorded per local step (``dual_shadow`` R × (K+1) × d, ``grad_avg`` R × K × d).
        eta_c: the client step η_c the identity is stated with.

    Returns:
        The residual of each round (its maximum is the run's).

    """
    z, g = np.asarray(trace["dual_shadow"]), np.asarray(trace["grad_avg"])
    resid = np.abs(z[:, 1:] - (z[:, :-1] - eta_c * g)).reshape(z.shape[0], -1).max(axis=1)
    return resid / max(float(np.abs(z).max()), 1e-300)


#: the residual measures a claim may name (``Claim.measure``), each read with the run's hyper-parameters
RESIDUALS = {"shadow_residual": lambda trace, hp: shadow_residual(trace, float(hp["eta_c"]))}
