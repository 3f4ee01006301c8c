"""Statements of the papers measured as rates, each with a negative control that must flip.

* ``fco-4.1-speedup`` (FCO Thm 4.1, eq. 4.1): with stochastic gradients and η_s tuned as the
  theorem says (effective step η_sη_cK = √(BMK/R)/σ), Φ(ŵ) − Φ* ≲ σ√B/√(MKR): one free constant
  over sweeps of M and of R.  Negative control: one client per round (the average is over one
  client's K gradients, not MK), which must fail the same rule.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fcocheck.rates.catalog import THM_4_1
from fcocheck.rates.oc import mean_log_noise
from fcocheck.rates.power import Violation, powered
from fcocheck.rates.threshold import above, below
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, Verdict
from fcocheck.solvers.generators import generate
from fcocheck.solvers.problem import uniform_weights
from fcocheck.solvers.reference import reference_solve
from fcocheck.verify.experiments import judge
from fcocheck.verify.experiments.base import Result, plot_spec, runs, seeds_for, slope_series


def _shared_clients(M: int, seed: int):
    """The first M of 32 identical clients (ζ = 0): the same F for every M."""
    base = generate("quadratics", seed=seed, clients=32, d=20, mu=1e-3, zeta=0.0, lam=0.01)
    return dataclasses.replace(base, Q=base.Q[:M], c=base.c[:M], weights=uniform_weights(M))


def _speedup_gaps(Ms, Rs, K: int, sigma: float, seeds: list[int], seed: int, one_client: bool) -> np.ndarray:
    """Mean over seeds of Φ(ŵ) − Φ* at each (M, R), η_s tuned as Thm 4.1, w0 = w* + unit vector."""
    out = []
    u = np.random.default_rng(seed + 1).standard_normal(20)
    u /= np.linalg.norm(u)
    for M, R in zip(Ms, Rs, strict=True):
        p = _shared_clients(M, seed)
        ref = reference_solve(p)
        B = 0.5  # D_h(w*, w0) = ½‖u‖²
        eta_c = 1e-3 / K  # η_cKL = 1e-3: "η_c sufficiently small"
        eta_s = min(1.0, np.sqrt(B * M * K / R) / sigma) / (eta_c * K)
        traces = runs("feddualavg", p, {"eta_c": eta_c, "eta_s": eta_s, "local_steps": K}, R,
                      f"gaussian:{sigma}", seeds, ref, w0=ref.w + u, participation=1 if one_client else None)
        gaps = [p.Phi(np.asarray(t.meta["w_hat"])) - ref.objective for t in traces]
        out.append(np.maximum(np.asarray(gaps, dtype=float), 1e-300))
    return np.array(out).T  # seeds × points


def speedup_mkr(quick: bool, seed: int) -> Result:
    """Thm 4.1's σ√B/√(MKR) term: one free constant over M and R sweeps; one-client control (module doc)."""
    K, sigma = 2, 1.0
    seeds = seeds_for(quick, seed, 12, 32)
    # each sweep moves the bound 1/√(MKR) by √32 ≈ 5.7: a factor 16 (√16 = 4) sat exactly on the
    # one-constant rule's minimum span, where the verdict hung on the last bit (issue 29).  Beyond
    # M = 32 the M-free optimisation term LB/R takes over and the σ-term's ratio rises (measured at
    # M = 128); at 12 seeds the mean's log-noise (≈ 0.05) leaves the rule without power against a
    # speed-up M^0.35–0.4 instead of M^0.5 — reported as such (no power), not as consistent
    sweeps = {
        "M (R = 64)": ([1, 2, 4, 8, 16, 32], [64] * 6),
        "R (M = 4)": ([4] * 6, [16, 32, 64, 128, 256, 512]) if quick
        else ([4] * 7, [16, 32, 64, 128, 256, 512, 1024]),
    }
    instances = seeds_for(quick, seed, 3, 5)
    level = 1.0 - (1.0 - judge.LEVEL) / len(instances)  # each instance takes 1/S of the claim's budget
    checks, measured, plot = [], {}, None
    for label, (Ms, Rs) in sweeps.items():
        rate = 1.0 / np.sqrt(np.array(Ms) * K * np.array(Rs))
        x = Ms if label.startswith("M") else Rs
        # the claim is on E[Φ(ŵ)] − Φ*: per instance, the mean over seeds with the mean's noise
        G = [_speedup_gaps(Ms, Rs, K, sigma, seeds, s, one_client=False) for s in instances]
        Y = np.array([g.mean(axis=0) for g in G])
        vs = [judge.bound(x, rate, y[None, :], seed, label=label.split()[0], noise=mean_log_noise(g, seed),
                          level=level) for g, y in zip(G, Y, strict=True)]
        v = judge.every_instance(vs, instances)
        v = dataclasses.replace(v, rule=f"bounded ratio along {label.split()[0]} on each of {len(instances)} "
                                f"instances (calibrated) [{label}]")
        checks.append(v)
        measured[label] = {"x": x, "gap": Y, "bound": rate}
        if label.startswith("M"):
            Cs = [_speedup_gaps(Ms, Rs, K, sigma, seeds, s, one_client=True) for s in instances]
            ctrl = np.array([c.mean(axis=0) for c in Cs])
            measured[label]["one_client_per_round"] = ctrl
            noises = [mean_log_noise(c, seed) for c in Cs]
            controls = [judge.control(lambda d, r=rate, x=x, s=s: judge.bound(x, r, d, seed, label="M",
                                                                               noise=s, level=level),
                                      c_row[None, :], y[None, :], "one client per round: no speed-up in M")
                        for s, c_row, y in zip(noises, ctrl, Y, strict=True)]
            checks.append(judge.every_instance(controls, instances))
            plot = plot_spec("bound", "M (R = 64, K = 2)", "E[Φ(ŵ)] − Φ*",
                             [slope_series("FedDualAvg", x, Y, bound=rate)],
                             C=max(w.evidence.get("C", 0.0) for w in vs))
    measured["plot"] = plot
    return Result(
        "fco-4.1-speedup",
        THM_4_1.name,
        f"{len(instances)} instances (seeds {instances}) of 32 identical clients (ζ = 0) of quadratics "
        f"(μ = 1e-3, L = 1), ψ = 0.01‖·‖₁, first M used; gaussian:{sigma} gradients, K = {K}, η_cKL = "
        f"1e-3, η_s = min(1/(η_cKL), √(BMK/R)/(η_cKσ)) (Thm 4.1), w0 = w* + unit vector (B = ½); mean of "
        f"Φ(ŵ) − Φ* over {len(seeds)} seeds per instance",
        measured,
        checks,
        notes=["Thm 4.1 is an upper bound with free constants: the rule asks that the measured error over "
               "σ√B/√(MKR) does not keep growing along either sweep (one constant fits both ends)."],
    )


def crossover_4_2_4_1(quick: bool, seed: int) -> Result:
    """The remark after Thm 4.2, measured: (4.3) beats (4.1) iff R ≲ L²B/G².

    Both regimes run on Thm 4.2's own bounded-gradient instance at every R of the sweep: FedDualAvg
    with η_s = 1 and Thm 4.2's tuned η_c (the (4.3) regime), and FedDualAvg with η_cKL = 1e-3 and
    Thm 4.1's η_s = 1/(η_cKL) (σ = 0: the (4.1) regime, minibatch GD with step 1/L).  Rule: at every
    R outside [R*/4, 4R*] (R* = L²B/G², constants free) the regime the remark names wins
    (smaller Φ(ŵ) − Φ*).  Power: the same curves with the regimes swapped must be rejected.

    The instance makes both sides measurable: ℓ2-ball logistic with its features scaled ×40, so the
    curvature (L ∝ scale²) outgrows the gradient bound (G ∝ scale) and R* = L²B/G² ≈ 20; on the
    unscaled data R* < 1 and only the R ≳ R* side exists.  The verdict names the sides measured.
    """
    from fcocheck.rates.catalog import THM_4_2
    from fcocheck.solvers.constants import compute_constants
    from fcocheck.verify.experiments.fco import _tuned_eta

    K = 10
    xs = [1, 2, 4, 32, 128, 512] if quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    seeds = seeds_for(quick, seed, 3, 5)

    def instance(s: int) -> tuple[Verdict, dict[str, Any]]:
        p = generate("constrained-logistic", ball="l2", radius=2.0, clients=8, samples=32, d=20, scale=40.0,
                     seed=s)
        # 1e-9 relative: features ×40 make some draws too ill-conditioned for 1e-10 (seed 10: 1.1e-10
        # after 2·10⁵ iterations), and the study compares two regimes' gaps, all ≫ 1e-9
        ref = reference_solve(p, tol=1e-9)
        c = compute_constants(p, ref.w)
        r_star = c.L**2 * c.B / c.G**2
        a, b = [], []
        for R in xs:
            vals = {"L": c.L, "B": c.B, "sigma": 1e-300, "G": c.G, "M": p.M, "K": K, "R": R}
            eta = _tuned_eta(THM_4_2, vals)
            tuned = runs("feddualavg", p, {"eta_c": eta, "local_steps": K}, R, "exact", [s], ref)[0]
            a.append(tuned["gap_avg"][-1])
            eta_c = 1e-3 / (K * c.L)
            hp = {"eta_c": eta_c, "eta_s": 1.0 / (eta_c * K * c.L), "local_steps": K}
            b.append(runs("feddualavg", p, hp, R, "exact", [s], ref)[0]["gap_avg"][-1])
        curves = np.array([a, b])

        def sides(data: np.ndarray) -> Verdict:
            judged = [(R, ya < yb) for R, ya, yb in zip(xs, data[0], data[1], strict=True)
                      if below(R, r_star / 4) or above(R, 4 * r_star)]
            wrong = [R for R, a_wins in judged if a_wins != (R < r_star)]
            measured = sorted({"R ≲ R*" if R < r_star else "R ≳ R*" for R, _ in judged})
            if not judged:
                return Verdict(INCONCLUSIVE, "crossover sides", f"every R is within 4× of R* = {r_star:.3g}")
            miss = f" (not at R = {wrong})" if wrong else ""
            return Verdict(CONSISTENT if not wrong else INCONSISTENT, "crossover sides",
                           f"R* = L²B/G² = {r_star:.3g}; sides measured: {', '.join(measured)}; the named "
                           f"regime wins at {len(judged) - len(wrong)} of {len(judged)} R{miss}",
                           {"r_star": r_star, "wrong": wrong, "sides": measured})

        v = powered(sides, curves, [Violation("the regimes swapped", curves[::-1])])
        return v, {"L": c.L, "B": c.B, "G": c.G, "r_star": r_star, "thm_4_2_regime": a, "thm_4_1_regime": b}

    judged = [instance(s) for s in seeds]
    v = judge.every_instance([j for j, _ in judged], seeds)
    m = [d for _, d in judged]
    A, Bc = np.array([d["thm_4_2_regime"] for d in m]), np.array([d["thm_4_1_regime"] for d in m])
    stars = [d["r_star"] for d in m]
    return Result(
        "fco-4.2-vs-4.1",
        THM_4_2.name,
        f"FedDualAvg on {len(seeds)} ℓ2-ball logistic instances (seeds {seeds}), features ×40 (R* = L²B/G² = "
        f"{', '.join(f'{r:.3g}' for r in stars)}), exact gradients, K = {K}: η_s = 1 with Thm 4.2's tuned "
        "η_c vs η_cKL = 1e-3 with Thm 4.1's η_s; final Φ(ŵ) − Φ* at each R, each instance against its own R*",
        {"R": xs, "r_star": stars, "instances": m,
         "plot": plot_spec("slope", "R", "Φ(ŵ) − Φ*",
                           [slope_series("(4.3): η_s = 1, tuned η_c", xs, A),
                            slope_series(f"(4.1): η_cKL = 1e-3; R* ≈ {np.median(stars):.3g}", xs, Bc)])},
        [v],
        notes=["R* per instance: " + ", ".join(f"{r:.3g}" for r in stars) + (
            "; an instance with R* < 1 has only the R ≳ R* side, where (4.1)'s regime must win"
            if min(stars) < 1 else "; both sides are on the sweep")],
    )
