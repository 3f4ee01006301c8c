"""Theorem experiments for the FCO paper: eq. 4.5, Lemmas 4.4–4.5, Theorems 4.1–4.3."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fcocheck.rates import algebra
from fcocheck.rates.catalog import LEMMA_4_4, THM_4_1
from fcocheck.rates.symbols import BY_NAME
from fcocheck.rates.threshold import at_most
from fcocheck.rates.verdict import Verdict, known_disagreement
from fcocheck.solvers.regularizers import L1
from fcocheck.solvers.smoothness import global_smoothness
from fcocheck.verify.experiments import judge
from fcocheck.verify.experiments.base import Result, plot_spec, runs, seeds_for, slope_series
from fcocheck.verify.experiments.instances import drift_quadratics, quadratics


def lemma_4_4(quick: bool, seed: int) -> Result:
    """Lemma 4.4 with constant 1, run by run: Φ(ŵ) − Φ* ≤ B/(η_c K R) + η_c σ²/M + L·D_disc.

    The instance has heterogeneous Hessians on an ℓ1-ball (``drift_quadratics``), so client
    drift leaves FedDualAvg a floor that the synchronised terms B/(η_c K R) + η_c σ²/M cannot
    cover at K = 8, ζ = 32: deleting the discrepancy term must break the inequality there (the
    rule's power), while keeping it must not.  With a common Hessian the local updates average to
    the global one and the term is never needed (the earlier design: no power).

    Three instances (one per study seed; five in the full design), every grid point on each; the left
    side of a noisy run is the mean over its seeds, judged with its standard error
    (``rates.inequality``).
    """
    seeds = seeds_for(quick, seed, 3, 8)
    instances = seeds[:3] if quick else seeds[:5]
    R = 40 if quick else 100
    grid = [(K, frac, sig, z)
            for K in (2, 8) for frac in (0.08, 1.0) for sig in (0.0, 1.0) for z in (1.0, 8.0, 32.0)]
    if quick:  # η_c = 1/(4L) for every ζ and σ; the small step once
        grid = [g for g in grid if g[1] == 1.0 or (g[0] == 2 and g[2] == 0.0 and g[3] == 8.0)]
    lhs, terms, labels, rows = [], {}, [], []
    for (K, frac, sig, z), inst in ((g, i) for i in instances for g in grid):
        p, ref = drift_quadratics(z, seed=inst)
        L = global_smoothness(p)
        eta = frac / (4 * L)
        B = 0.5 * float(np.sum((ref.w - p.zero()) ** 2))
        trs = runs(
            "feddualavg",
            p,
            {"eta_c": eta, "local_steps": K},
            R,
            f"gaussian:{sig}" if sig else "exact",
            seeds if sig else seeds[:1],
            ref,
        )
        per_seed = [float(t["gap_avg"][-1]) for t in trs]
        left = float(np.mean(per_seed))
        over = float(np.mean([t["discrepancy_overhead"][-1] for t in trs]))
        # the engine records L·D_disc; the catalog's term is L·D_disc with D_disc = overhead / L
        vals = LEMMA_4_4.values(B=B, eta_c=eta, K=K, R=R, sigma=sig, M=p.M, L=L, D_disc=over / L)
        for k, val in vals.items():
            terms.setdefault(k, []).append(val)
        right = sum(vals.values())
        lhs.append(per_seed), labels.append(f"instance {inst}: K={K},η={eta:.3g},σ={sig},ζ={z}")
        rows.append({"run": labels[-1], "lhs": left, "rhs": right, "overhead": over, "slack": right / left,
                     "discrepancy_share": vals["discrepancy"] / right,
                     "synchronised_only": right - vals["discrepancy"]})
    rhs = np.sum([np.array(v) for v in terms.values()], axis=0)
    v = judge.inequality(lhs, terms, ["discrepancy"], labels, seed)
    means = [float(np.mean(x)) for x in lhs]
    return Result(
        "fco-lemma-4.4",
        LEMMA_4_4.name,
        f"FedDualAvg on {len(instances)} quadratics instances (seeds {instances}) with heterogeneous "
        f"Hessians (spread 0.5) on an ℓ1-ball, R={R}, "
        f"{len(seeds)} seeds when σ>0; LHS = Φ(ŵ of eq. 4.2) − Φ*; overhead measured",
        {
            "runs": rows,
            "plot": plot_spec(
                "scatter",
                "RHS of Lemma 4.4 (every constant 1)",
                "Φ(ŵ) − Φ*",
                [{"label": "runs", "x": rhs, "y": means, "labels": labels}],
            ),
        },
        [v],
    )


def _tuned_eta(thm, values: dict[str, float]) -> float:
    step = algebra.tuning_constants(thm).step
    return float(step.subs({BY_NAME[k]: v for k, v in values.items()}))


#: How much closer printed FedMiD must be to PGM on F + 2ψ than to PGM on F + ψ for its known
#: disagreement to be filed (measured on seeds 0–7: at least 60×).
CLOSER = 10.0


def thm_4_1_minibatch(quick: bool, seed: int) -> Result:
    """Thm 4.1: at small η_c (η_s η_c K fixed) FedMiD/FedDualAvg follow minibatch PGM/DA with batch MK.

    One quadratics instance per seed (a row each); the exponent is fitted over the rows.  Printed
    FedMiD's known disagreement is filed only when the same run shows its cause: at η_c K L ≤ 0.01 its
    iterate is at least ``CLOSER``× closer to PGM on F + 2ψ than to PGM on F + ψ, on every instance.
    It is not PGM on F + 2ψ exactly: that deviation does not vanish like η_c (fitted exponents
    0.1–0.75 on seeds 0–7), because a coordinate that reaches zero inside a round is clipped there by
    the client prox, so the server moves it by less than a proximal-gradient step would.
    """
    seeds = seeds_for(quick, seed, 3, 5)
    insts = [quadratics(1.0, lam=0.05, assumption2=False, seed=s) for s in seeds]
    K, R, step = 5, 30 if quick else 100, 0.5
    xs = [1e-1, 1e-2, 1e-3]
    checks, measured, series = [], {}, []

    def rel(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.linalg.norm(a - b) / np.linalg.norm(b))

    for fed, seq in (("fedmid", "pgm"), ("feddualavg", "dual-averaging")):
        devs, dev2, gaps = np.empty((len(seeds), len(xs))), np.empty((len(seeds), len(xs))), []
        for i, (q, ref) in enumerate(insts):
            ref_tr = runs(seq, q, {"eta": step, "local_steps": K}, R, "exact", [seeds[i]], ref)[0]
            gaps.append(float(ref_tr["gap"][-1]))
            if fed == "fedmid":
                q2 = replace(q, regularizer=L1(2 * q.regularizer.lam))
                twice = runs(seq, q2, {"eta": step, "local_steps": K}, R, "exact", [seeds[i]], False)[0]
            for j, x in enumerate(xs):
                eta_c = x / K
                hp = {"eta_c": eta_c, "eta_s": step / (eta_c * K), "local_steps": K}
                t = runs(fed, q, hp, R, "exact", [seeds[i]], ref)[0]
                devs[i, j] = rel(t.final_w, ref_tr.final_w)
                if fed == "fedmid":
                    dev2[i, j] = rel(t.final_w, twice.final_w)
        measured[fed] = {"eta_c_K_L": xs, "relative_deviation": devs.tolist(), "gap_sequential": gaps}
        fit, v = judge.exponent(xs, devs, 1.0, "two-sided", seed, "η_cKL")
        if fed == "fedmid":
            measured[fed]["relative_deviation_from_pgm_on_F+2psi"] = dev2.tolist()
            closer = float(np.max(dev2[:, 1:] / devs[:, 1:]))
            v = known_disagreement(
                v, "printed FedMiD applies ψ twice per round (Alg. 2 lines 8 and 10)",
                at_most(closer, 1.0 / CLOSER),
                f"at η_c K L ≤ {xs[1]:g} its iterate's distance to PGM on F + 2ψ is at most {closer:.2g}× "
                f"its distance to PGM on F + ψ on instances {seeds} (rule ≤ 1/{CLOSER:g}; at η_c K L = "
                f"{xs[-1]:g}: {', '.join(f'{d:.2g}' for d in dev2[:, -1])} against "
                f"{', '.join(f'{d:.2g}' for d in devs[:, -1])})")
        checks.append(Verdict(v.status, f"{fed}: {v.rule}", v.reason, v.evidence))
        series.append(slope_series(fed, xs, devs, fit, 1.0))
    measured["plot"] = plot_spec("slope", "η_c K L", "relative deviation from the minibatch method", series)
    return Result(
        "fco-4.1-minibatch",
        THM_4_1.name,
        f"{len(seeds)} quadratics instances (seeds {seeds}) ζ=1, λ=0.05, exact gradients, K={K}, R={R}, "
        f"η_s η_c K = {step}; deviation of the final iterate from minibatch PGM (FedMiD) / dual "
        "averaging (FedDualAvg) with step η_s η_c K, vs η_c K L",
        measured,
        checks,
        notes=[
            "FedMiD as printed (Alg. 2) applies ψ in every client step and again at the server; with "
            "η_s = Θ(1/(η_c K L)) the client proxes add up to the server's, so at small η_c FedMiD follows "
            "minibatch PGM on F + 2ψ (see relative_deviation_from_pgm_on_F+2psi), not on F + ψ. The "
            "check is filed as a known disagreement only when that diagnostic holds in the same run.",
            "The sweep spans η_c K L ∈ {0.1, 0.01, 0.001}: the claim is the limit η_c → 0, checked as the "
            "deviation shrinking like η_c (exponent 1).",
            "Predicted exponent 1 is the toolkit's first-order expansion in η_c of 'sufficiently small "
            "η_c' (the paper states the limit, not the order).",
        ],
    )
