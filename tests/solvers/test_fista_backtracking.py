"""The backtracking FISTA of the GLM reference solves: same certified optimum, far fewer steps."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.generators import generate
from fcocheck.solvers.reference.certificate import glm_gap
from fcocheck.solvers.reference.fista import fista, fista_backtracking
from fcocheck.solvers.reference.solve import _smooth_part


def test_backtracking_reaches_the_same_certified_point_in_fewer_steps_on_large_margins():
    """ℓ2-ball logistic with features ×20: the global L (∝ 20²) is far above the curvature near the
    solution; both methods stop on the same duality-gap certificate (1e-11 relative) at the same
    optimum, and the backtracking one in at least 5× fewer iterations (6140 vs 690 measured)."""
    p = generate("constrained-logistic", ball="l2", radius=2.0, clients=8, samples=32, d=20, scale=20.0)
    smooth = _smooth_part(p)

    def stop(w):
        return glm_gap(p, w).relative <= 1e-11

    fixed = fista(smooth.grad, p.psi.prox, smooth.L, p.zero(), stop, max_iter=200_000)
    back = fista_backtracking(p.F, smooth.grad, p.psi.prox, smooth.L, p.zero(), stop, max_iter=200_000)
    assert fixed.converged and back.converged
    assert back.iterations * 5 <= fixed.iterations, (back.iterations, fixed.iterations)
    assert abs(p.Phi(back.w) - p.Phi(fixed.w)) <= 2e-11 * abs(p.Phi(fixed.w))


def test_backtracking_never_steps_beyond_the_global_bound():
    """An F that rejects every trial point (F(y) = 0, F(w⁺) = +inf) drives the estimate up to L and
    no further: every step is then 1/L and the iterates are plain FISTA's (to rounding)."""
    p = generate("sparse-logistic", clients=3, samples=10, d=5, nnz=2)
    smooth = _smooth_part(p)
    calls = []

    def rejecting(w):  # each iteration asks F(y) once, then F(w⁺) once (rejected, so ℓ = L)
        calls.append(w)
        return 0.0 if len(calls) % 2 else np.inf

    steps = []

    def prox(v, t):
        steps.append(t)
        return p.psi.prox(v, t)

    bt = fista_backtracking(rejecting, smooth.grad, prox, smooth.L, p.zero(), lambda w: False, max_iter=6)
    plain = fista(smooth.grad, p.psi.prox, smooth.L, p.zero(), lambda w: False, max_iter=6)
    accepted = steps[1::2]  # per iteration: the rejected 1/(0.9ℓ) trial, then 1/L
    assert len(accepted) == 6 and all(t == 1.0 / smooth.L for t in accepted)
    np.testing.assert_allclose(bt.w, plain.w, rtol=1e-12, atol=1e-15)  # y − g/L vs y − (1/L)g
