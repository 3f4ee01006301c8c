"""FedCanon Thm 2's linear contraction within one run: the one theorem experiment not yet a claim."""

from __future__ import annotations

import numpy as np

from fcocheck.rates.catalog import FEDCANON_2
from fcocheck.rates.verdict import INCONCLUSIVE, Verdict
from fcocheck.verify.experiments import judge
from fcocheck.verify.experiments.base import (
    Result,
    plot_spec,
    runs,
    seeds_for,
    tail_mean,
)
from fcocheck.verify.experiments.instances import quadratics


def _g2(trace) -> np.ndarray:
    return np.asarray(trace["prox_grad_norm"], dtype=float) ** 2


def _pl_curve(p, ref, eta_l: float, R: int, seed: int, metric: str,
              instances: int = 1) -> tuple[np.ndarray, Verdict]:
    """One instance's curve of ``metric`` and its linear-rate verdict on Φ(x^t)'s window."""
    t = runs("fedcanon", p, {"eta_l": eta_l, "local_steps": 3}, R, "exact", [seed], ref)[0]
    last = np.maximum(np.asarray(t["gap"], dtype=float), 1e-300)
    fl = max(tail_mean(last), 1e-300)
    # the window is fixed by Φ(x^t) (before it reaches 100× its floor) whatever curve is judged
    above = np.nonzero(last > 100 * max(fl, 1e-14 * last[0]))[0]
    stop = int(above.max()) + 1 if above.size else 3
    gap = np.maximum(np.asarray(t[metric], dtype=float), 1e-300)
    v = judge.linear(gap[None, :], 0, max(stop, 3), seed=seed, deterministic=True,  # exact gradients
                     instances=instances)
    v.evidence["neighbourhood"] = fl
    return gap, v


SHORT = 60  # rounds: a linear-rate window shorter than this is stretched by a smaller step


def _pl_powered(p, ref, eta_l: float, R: int, seed: int, metric: str,
                instances: int = 1) -> tuple[np.ndarray, Verdict]:
    """``_pl_curve``, the step cut by 4 (at most twice) while the window is short and without power.

    A curve that reaches its floor within ``SHORT`` rounds gives the linear rule too few rounds to
    tell a linear rate from a sub-linear decay (``rates.linear``); a smaller step stretches the same
    contraction over more rounds.
    """
    for attempt in range(3):
        gap, v = _pl_curve(p, ref, eta_l, R, seed, metric, instances)
        short = v.evidence.get("stop", 0) - v.evidence.get("start", 0) < SHORT
        if attempt == 2 or not (short and v.status == INCONCLUSIVE):
            break
        eta_l /= 4
    v.evidence["eta_l"] = eta_l
    return gap, v


def fedcanon_pl(quick: bool, seed: int, metric: str = "gap", instance: tuple | None = None) -> Result:
    """Thm 2: linear convergence to a neighbourhood on strongly convex (hence proximal-PL) instances.

    Built in: one quadratics instance per seed, each judged on its own window
    (``judge.every_instance``).  ``metric`` runs the same study on another curve of the same runs: the
    negative control ``gap_avg`` (Φ of the running average, which turns a linear rate into 1/t) must
    fail.  ``instance`` (problem, reference) replaces the built-in quadratics (``validate --problem``).
    """
    R = 300 if quick else 1000
    if instance is None:
        seeds = seeds_for(quick, seed, 3, 5)
        cases = [(quadratics(1.0, lam=0.01, assumption2=False, seed=s), 0.1, s) for s in seeds]  # L = 1
    else:
        from fcocheck.solvers.smoothness import global_smoothness

        seeds = [seed]
        cases = [(instance, 0.1 / global_smoothness(instance[0]), seed)]
    judged = [_pl_powered(p, ref, eta, R, s, metric, len(cases)) for (p, ref), eta, s in cases]
    curves, verdicts = zip(*judged, strict=True)
    v = verdicts[0] if len(verdicts) == 1 else judge.every_instance(verdicts, seeds)
    first = verdicts[0].evidence
    p, eta_l = cases[0][0][0], first["eta_l"]  # the step the first instance was judged at
    return Result(
        "fedcanon-pl-linear",
        FEDCANON_2.name,
        (f"FedCanon, {len(seeds)} quadratics instances μ=0.1 (seeds {seeds}; strongly convex ⇒ proximal "
         "PL), λ=0.01" if instance is None
         else f"FedCanon on instance {p.name} (strongly convex ⇒ proximal PL)")
        + f", exact gradients, η_l={eta_l:.4g}, K=3, R={R}; contraction of Φ − Φ* before it reaches "
        "100× its floor, each instance on its own window",
        {
            "contraction": [w.evidence["factor"] for w in verdicts],
            "window": [[w.evidence["start"], w.evidence["stop"]] for w in verdicts],
            "neighbourhood": [w.evidence["neighbourhood"] for w in verdicts],
            "plot": plot_spec(
                "trace",
                "round",
                "Φ − Φ*",
                [{"label": f"FedCanon (instance {s})", "x": list(range(g.size)), "Y": [g.tolist()]}
                 for s, g in zip(seeds, curves, strict=True)],
                contraction=first["factor"],
                window=[first["start"], first["stop"]],
            ),
        },
        [v],
    )
