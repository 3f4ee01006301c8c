"""Statements of the papers measured as rates, each with a negative control that must flip.

* ``fco-curse-rate`` (FCO §3.1, the curse of primal averaging): with a server that averages the
  clients' prox points (FedMiD-avg), the steady-state Φ − Φ* on heterogeneous clients is first
  order in η_cK — the average of ℓ1-prox points is non-zero off the optimum's support — while
  FedDualAvg, which averages dual states and thresholds once, keeps a floor at least 10³ times lower
  on the same instances.  The claim's condition is stated and drawn for: clients whose gradients at
  w* cross λ off the support (heterogeneity beyond the off-support dual margin); FedDualAvg's floor
  need not be zero (a legal 2.85e-9 was measured: the ℓ1 prox does not commute with averaging near a
  small on-support coordinate), so "at the optimum" was a false premise.
* ``fco-4.1-speedup`` (FCO Thm 4.1, eq. 4.1): with stochastic gradients and η_s tuned as the
  theorem says (effective step η_sη_cK = √(BMK/R)/σ), Φ(ŵ) − Φ* ≲ σ√B/√(MKR): one free constant
  over sweeps of M and of R.  Negative control: one client per round (the average is over one
  client's K gradients, not MK), which must fail the same rule.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fcocheck.rates.catalog import FCO_CURSE, THM_4_1
from fcocheck.rates.oc import mean_log_noise
from fcocheck.rates.power import Violation, powered
from fcocheck.rates.threshold import above, at_most, below
from fcocheck.rates.verdict import CONSISTENT, INCONCLUSIVE, INCONSISTENT, NOT_APPLICABLE, Verdict
from fcocheck.solvers.generators import generate
from fcocheck.solvers.problem import uniform_weights
from fcocheck.solvers.reference import reference_solve
from fcocheck.verify.experiments import judge
from fcocheck.verify.experiments.base import Result, draw_instances, plot_spec, runs, seeds_for, slope_series
from fcocheck.verify.experiments.instances import quadratics

#: FedDualAvg's floor must sit at least this far below FedMiD-avg's ("≪"); it may be a legal floor (the
#: ℓ1 prox does not commute with averaging near a small on-support coordinate: 2.85e-9 measured)
FAR_BELOW = 1e-3
#: the curse needs clients whose gradients at w* cross λ off the support (their prox points are
#: non-zero there); instances of the class are drawn until one does, at most this many
DRAWS = 20


def curse_margin(p, ref) -> float:  # noqa: ANN001
    """Max over off-support j and clients m of |∇F_m(w*)_j| − λ.

    It is > 0 where client prox points leave the support: the curse's condition, heterogeneity beyond
    the off-support dual margin λ − |∇F(w*)_j|.
    """
    zeros = np.abs(ref.w) == 0
    if not zeros.any():
        return float("-inf")
    G = p.kernel.grads(np.repeat(ref.w[None, :], p.M, axis=0))
    return float(np.max(np.abs(G[:, zeros])) - p.regularizer.lam)


def _curse_instance(seed: int):  # noqa: ANN202
    """Instance ``seed`` of the class, or the first replacement where the curse's condition holds.

    Replacements come from the study seed's own stream (``base.draw_instances``); None after ``DRAWS``.
    """
    def accept(draw: int):  # noqa: ANN202
        p, ref = quadratics(1.0, lam=0.3, clients=8, assumption2=False, seed=draw)
        return (p, ref) if curse_margin(p, ref) > 0 else None

    got, _ = draw_instances(seed, 1, accept, DRAWS)
    return (*got[0][1], got[0][0]) if got else None


def _steady(alg: str, p, ref, hp: dict, rounds: int) -> tuple[float, np.ndarray]:
    """Final Φ − Φ* (relative to max(1, |Φ*|)) and the final server iterate of one exact run."""
    t = runs(alg, p, hp, rounds, "exact", [0], ref)[0]
    scale = max(1.0, abs(ref.objective))
    return max(float(t["gap"][-1]) / scale, 0.0), np.asarray(t["server_w"][-1])


def curse_rate(quick: bool, seed: int) -> Result:
    """Steady state of FedMiD-avg ∝ (η_cK)¹ over η_c and over K; FedDualAvg's floor ≪ it (module doc)."""
    found = _curse_instance(seed)
    if found is None:
        return Result("fco-curse-rate", FCO_CURSE.name, f"quadratics seed {seed}, {DRAWS} replacements", {},
                      [Verdict(NOT_APPLICABLE, "applicability", "it needs an instance whose clients' "
                               f"gradients cross λ off the support at w*; none in {DRAWS} draws")])
    p, ref, draw = found
    zeros = np.abs(ref.w) == 0
    mu = 0.1  # the smallest curvature: 8/(μη_cK) rounds reach FedMiD-avg's floor, 12/(μη_cK) the optimum
    sweeps = {
        "η_c (K = 4)": [(0.02 * 2**j, 4) for j in range(4 if quick else 6)],
        "K (η_c = 0.04)": [(0.04, 2**j) for j in range(4 if quick else 5)],
    }
    checks, measured, series = [], {"support_zeros": int(zeros.sum())}, []
    for label, points in sweeps.items():
        x = [e * k for e, k in points]
        avg, dual, off = [], [], []
        for e, k in points:
            hp = {"eta_c": e, "eta_s": 1.0, "local_steps": k}
            g, w = _steady("fedmid-avg", p, ref, hp, int(np.ceil(8 / (mu * e * k))))
            avg.append(g)
            off.append(int(np.sum((w != 0) & zeros)))
            dual.append(_steady("feddualavg", p, ref, hp, int(np.ceil(24 / (mu * e * k))))[0])
        Y, D = np.array(avg)[None, :], np.array(dual)
        fit, v = judge.exponent(x, np.maximum(Y, 1e-300), 1.0, "two-sided", seed, "η_cK")
        v = dataclasses.replace(v, rule=f"{v.rule} [{label}]")
        below = _far_below(D, Y[0], f"FedDualAvg's floor ≪ FedMiD-avg's [{label}]")
        checks += [v, below]
        measured[label] = {"eta_cK": x, "fedmid_avg": avg, "feddualavg": dual, "off_support_nonzeros": off,
                           "slope": fit.slope, "ci": [fit.lo, fit.hi]}
        series.append(slope_series(f"FedMiD-avg, {label}", x, Y, fit, 1.0))
    measured["plot"] = plot_spec("slope", "η_c·K", "steady-state (Φ − Φ*)/max(1,|Φ*|)", series)
    # negative control on the same runs: the roles swapped (FedMiD-avg's floor ≪ FedDualAvg's) is rejected
    first = measured[next(iter(sweeps))]
    avg0, dual0 = np.array(first["fedmid_avg"]), np.array(first["feddualavg"])
    neg = judge.control(lambda d: _far_below(d, dual0, "FedMiD-avg ≪ FedDualAvg"), avg0,
                        0.1 * FAR_BELOW * dual0,
                        "the roles swapped: FedMiD-avg's floor is not ≪ FedDualAvg's")
    return Result(
        "fco-curse-rate",
        FCO_CURSE.name,
        f"quadratics (common Hessian, μ = 0.1, L = 1, ζ = 1; instance seed {draw}: seed {seed}, or its "
        f"first replacement, whose clients' gradients cross λ off the support by "
        f"{curse_margin(p, ref):.3g}), ψ = 0.3‖·‖₁ "
        f"({int(zeros.sum())} of {zeros.size} optimum coordinates zero), 8 clients, exact gradients, "
        "η_s = 1, R = 8/(μη_cK) (FedDualAvg: 24/(μη_cK)); final Φ − Φ* of FedMiD-avg and FedDualAvg",
        measured,
        checks + [neg],
        notes=["FedMiD-avg's steady iterate has non-zeros where w* is zero (off_support_nonzeros): the "
               "curse of primal averaging, first order in η_cK; FedDualAvg thresholds the averaged dual "
               "state and stays on the support."],
    )


def _far_below(low: np.ndarray, high: np.ndarray, what: str) -> Verdict:
    """``low`` ≤ FAR_BELOW × ``high`` at every point; power: ``low`` at a tenth of ``high`` is rejected."""
    def rule(d: np.ndarray) -> Verdict:
        ratio = float(np.max(np.asarray(d, dtype=float) / np.maximum(high, 1e-300)))
        ok = at_most(ratio, FAR_BELOW)
        return Verdict(CONSISTENT if ok else INCONSISTENT, "far below",
                       f"{what}: max ratio {ratio:.2e} (rule ≤ {FAR_BELOW:g})", {"ratio": ratio})

    return powered(rule, np.asarray(low, dtype=float), [Violation("a tenth of it", 0.1 * np.asarray(high))])


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
