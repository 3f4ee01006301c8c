"""Theorem experiments for the FCO paper: eq. 4.5, Lemmas 4.4–4.5, Theorems 4.1–4.3 (SPEC §6)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fcocheck.rates import algebra
from fcocheck.rates.catalog import EQ_4_5, LEMMA_4_4, LEMMA_4_5, THM_4_1, THM_4_2, THM_4_3
from fcocheck.rates.fit import loglog_slope
from fcocheck.rates.symbols import BY_NAME
from fcocheck.rates.threshold import at_most, below
from fcocheck.rates.verdict import INCONCLUSIVE, Verdict, known_disagreement
from fcocheck.solvers.constants import compute_constants
from fcocheck.solvers.reference.certificate import RESOLVED
from fcocheck.solvers.regularizers import L1
from fcocheck.solvers.smoothness import global_smoothness
from fcocheck.verify.evidence import IDENTITY_TOL
from fcocheck.verify.experiments import judge
from fcocheck.verify.experiments.base import Result, plot_spec, runs, seeds_for, slope_series
from fcocheck.verify.experiments.instances import drift_quadratics, named, quadratics


def _shadow_residual(trace, eta_c: float) -> float:
    z, g = trace["dual_shadow"], trace["grad_avg"]
    resid = z[:, 1:] - (z[:, :-1] - eta_c * g)
    return float(np.abs(resid).max() / max(np.abs(z).max(), 1e-300))


def eq_4_5(quick: bool, seed: int, instance: tuple | None = None) -> Result:
    """z̄_{r,k+1} = z̄_{r,k} − η_c ḡ_{r,k} to rounding for FedDualAvg; not for FedMiD.

    ``instance`` (problem, reference) replaces the built-in quadratics (``validate --problem``);
    the step is then 1/(4L) of that instance.
    """
    p, ref = quadratics(1.0, lam=0.1) if instance is None else instance
    eta, K, R = 0.05, 5, 10 if quick else 40
    if instance is not None:
        from fcocheck.solvers.smoothness import global_smoothness

        eta = 0.25 / global_smoothness(p)
    hp = {"eta_c": eta, "local_steps": K}
    da = runs("feddualavg", p, hp, R, "gaussian:0.5", [seed], ref, record="step")[0]
    md = runs("fedmid", p, hp, R, "gaussian:0.5", [seed], ref, record="step")[0]
    r_da, r_md = _shadow_residual(da, eta), _shadow_residual(md, eta)
    checks = [
        judge.identity(r_da, IDENTITY_TOL, "FedDualAvg"),
        # the negative control: FedMiD's shadow does not follow eq. 4.5 (Remark after Lemma 4.4)
        judge.differs(r_md, 1e3 * IDENTITY_TOL, r_da, "FedMiD (negative control, must fail)"),
    ]
    where = "quadratics ζ=1, λ=0.1" if instance is None else f"instance {p.name}"
    return Result(
        "fco-eq-4.5",
        EQ_4_5.name,
        f"{where}, η_c={eta:.4g}, K={K}, R={R}, gaussian σ=0.5",
        {
            "residual_feddualavg": r_da,
            "residual_fedmid": r_md,
            "plot": plot_spec(
                "bars",
                "",
                "max relative residual of eq. 4.5",
                [{"label": "FedDualAvg", "value": r_da}, {"label": "FedMiD", "value": r_md}],
                tol=IDENTITY_TOL,
            ),
        },
        checks,
    )


def lemma_4_4(quick: bool, seed: int) -> Result:
    """Lemma 4.4 with constant 1, run by run: Φ(ŵ) − Φ* ≤ B/(η_c K R) + η_c σ²/M + L·D_disc.

    The instance has heterogeneous Hessians on an ℓ1-ball (``drift_quadratics``), so client
    drift leaves FedDualAvg a floor that the synchronised terms B/(η_c K R) + η_c σ²/M cannot
    cover at K = 8, ζ = 32: deleting the discrepancy term must break the inequality there (the
    rule's power), while keeping it must not.  With a common Hessian the local updates average to
    the global one and the term is never needed (the earlier design: no power).
    """
    seeds = seeds_for(quick, seed, 3, 8)
    R = 40 if quick else 100
    grid = [(K, frac, sig, z)
            for K in (2, 8) for frac in (0.08, 1.0) for sig in (0.0, 1.0) for z in (1.0, 8.0, 32.0)]
    if quick:  # η_c = 1/(4L) for every ζ and σ; the small step once
        grid = [g for g in grid if g[1] == 1.0 or (g[0] == 2 and g[2] == 0.0 and g[3] == 8.0)]
    lhs, terms, labels, rows = [], {}, [], []
    for K, frac, sig, z in grid:
        p, ref = drift_quadratics(z)
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
        left = float(np.mean([t["gap_avg"][-1] for t in trs]))
        over = float(np.mean([t["discrepancy_overhead"][-1] for t in trs]))
        # the engine records L·D_disc; the catalog's term is L·D_disc with D_disc = overhead / L
        vals = LEMMA_4_4.values(B=B, eta_c=eta, K=K, R=R, sigma=sig, M=p.M, L=L, D_disc=over / L)
        for k, val in vals.items():
            terms.setdefault(k, []).append(val)
        right = sum(vals.values())
        lhs.append(left), labels.append(f"K={K},η={eta:.3g},σ={sig},ζ={z}")
        rows.append({"run": labels[-1], "lhs": left, "rhs": right, "overhead": over, "slack": right / left,
                     "discrepancy_share": vals["discrepancy"] / right,
                     "synchronised_only": right - vals["discrepancy"]})
    rhs = np.sum([np.array(v) for v in terms.values()], axis=0)
    v = judge.inequality(lhs, terms, ["discrepancy"], labels)
    return Result(
        "fco-lemma-4.4",
        LEMMA_4_4.name,
        f"FedDualAvg on quadratics with heterogeneous Hessians (spread 0.5) on an ℓ1-ball, R={R}, "
        f"{len(seeds)} seeds when σ>0; LHS = Φ(ŵ of eq. 4.2) − Φ*; overhead measured",
        {
            "runs": rows,
            "plot": plot_spec(
                "scatter",
                "RHS of Lemma 4.4 (every constant 1)",
                "Φ(ŵ) − Φ*",
                [{"label": "runs", "x": rhs, "y": lhs, "labels": labels}],
            ),
        },
        [v],
    )


def _lemma_4_5_curve(xs, make_hp, zeta, sigma, seeds, R):
    p, ref = quadratics(zeta, lam=0.05)
    Y = np.empty((len(seeds) if sigma else 1, len(xs)))
    for j, x in enumerate(xs):
        trs = runs(
            "feddualavg",
            p,
            make_hp(x),
            R,
            f"gaussian:{sigma}" if sigma else "exact",
            seeds if sigma else seeds[:1],
            ref,
            record="step",
        )
        for i, t in enumerate(trs):
            Y[i, j] = float(np.mean(t["discrepancy_steps"][:, -1]))
    return Y


def _lemma_4_5(name: str, what: str, quick: bool, seed: int) -> Result:
    seeds = seeds_for(quick, seed, 3, 8)
    R = 5 if quick else 20
    if what == "eta":
        xs = [1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 0.25]  # up to the condition η_c ≤ 1/(4L)
        Y = _lemma_4_5_curve(xs, lambda e: {"eta_c": e, "local_steps": 4}, 1.0, 1.0, seeds, R)
        p_exp, design = 2.0, "K=4, ζ=1, σ=1, η_c ∈ 1e-3…1/(4L)"
    else:
        xs = [8, 16, 32, 64] if quick else [8, 16, 32, 64, 128]
        zeta, sigma = (0.0, 1.0) if what == "K-noise" else (1.0, 0.0)
        Y = _lemma_4_5_curve(xs, lambda k: {"eta_c": 1e-3, "local_steps": k}, zeta, sigma, seeds, R)
        p_exp = float(
            algebra.exponent(
                LEMMA_4_5.term("variance" if what == "K-noise" else "heterogeneity"), BY_NAME["K"]
            )
        )
        design = f"η_c=1e-3, ζ={zeta}, σ={sigma}, K ∈ {xs}"
    fit, v = judge.exponent(xs, Y, p_exp, "two-sided", seed, "η_c" if what == "eta" else "K")
    return Result(
        name,
        LEMMA_4_5.name,
        f"FedDualAvg on Assumption-2 quadratics (h = ½wᵀQw/‖Q‖), {design}, R={R}; "
        "discrepancy at the last local step, averaged over rounds",
        {
            "x": xs,
            "discrepancy": Y.mean(0),
            "plot": plot_spec(
                "slope",
                "η_c" if what == "eta" else "K",
                "discrepancy (last local step)",
                [slope_series("FedDualAvg", xs, Y, fit, p_exp)],
            ),
        },
        [v],
    )


def lemma_4_5_K_noise(quick: bool, seed: int) -> Result:
    """Discrepancy ∝ K at ζ = 0 (the η_c²Kσ² term)."""
    return _lemma_4_5("fco-lemma-4.5-K-noise", "K-noise", quick, seed)


def lemma_4_5_K_hetero(quick: bool, seed: int) -> Result:
    """Discrepancy ∝ K² at σ = 0 (the η_c²K²ζ² term)."""
    return _lemma_4_5("fco-lemma-4.5-K-hetero", "K-hetero", quick, seed)


def lemma_4_5_eta(quick: bool, seed: int) -> Result:
    """Discrepancy ∝ η_c²."""
    return _lemma_4_5("fco-lemma-4.5-eta", "eta", quick, seed)


#: the certificate of the floors' reference optimum must sit this far below the smallest floor
FLOOR_OVER_CERTIFICATE = RESOLVED


def _limit_gap(p, ref, eta: float, K: int, R: int, seed: int) -> tuple[float, float]:
    """(lim_R Φ(ŵ_R) − Φ*, its convergence residual) for FedDualAvg with exact gradients.

    ŵ_R of eq. 4.2 averages the primal images of the dual shadow from round 0, so Φ(ŵ_R) carries
    B/(η_c K R) for every finite R; its limit (the theorem's bound at R → ∞, where only the
    η_c²LK²ζ² term is left) is the average of the same images over the run's stationary tail.  It is
    taken over rounds R/2…R and checked against rounds 3R/4…R (the residual).
    """
    (t,) = runs("feddualavg", p, {"eta_c": eta, "local_steps": K}, R, "exact", [seed], ref, record="step")
    images = t["shadow_primal"]

    def gap(start: int) -> float:
        return float(p.Phi(images[start:].reshape(-1, images.shape[-1]).mean(0)) - ref.objective)

    half, quarter = gap(R // 2), gap(3 * R // 4)
    return half, abs(half - quarter) / max(abs(half), 1e-300)


def _floor_sweep(name: str, vary: str, quick: bool, seed: int) -> Result:
    """Thm 4.3's η_c²LK²ζ² term, where it can be falsified (the constant C is free).

    ``≲`` bounds the ratio floor/(η_c²LK²ζ²) by one absolute constant, not the local slope: on a
    bounded domain the floor saturates as ζ or K grows, so a large-x slope says nothing (the floor's
    local slope reaches 4–5 before it saturates, compatible with any large C).  The ratio is
    unbounded only if
    * ζ → 0: the floor vanishes more slowly than ζ² (rule ``lower`` on the small-ζ half), or
    * K → ∞ at fixed η_cK (the bound term is then constant): the floor keeps growing with K
      (rule ``upper`` with exponent 0 on the large-K half).
    LHS: lim_R Φ(ŵ_R) − Φ* with ŵ of eq. 4.2 (``_limit_gap``); σ = 0.
    """
    from fcocheck.solvers.smoothness import client_smoothness_max

    R = 160 if quick else 400
    if vary == "zeta":
        xs = [float(x) for x in np.geomspace(1 / 16, 4.0, 7 if quick else 13)]
        instances = [drift_quadratics(z) for z in xs]
        L = max(client_smoothness_max(p) for p, _ in instances)
        cfg = [(p, ref, 0.25 / L, 10, z) for (p, ref), z in zip(instances, xs, strict=True)]
    else:
        xs = [4.0, 8.0, 16.0, 32.0, 64.0] if quick else [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]
        p, ref = drift_quadratics(4.0)
        L = client_smoothness_max(p)
        product = 0.5 / L  # η_cK: η_c = product/K ≤ 1/(4L) for every K ≥ 2
        cfg = [(p, ref, product / K, int(K), 4.0) for K in xs]
    y, resid, bound = [], [], []
    for p, ref, eta, K, z in cfg:
        gap, r = _limit_gap(p, ref, eta, K, R, seed)
        y.append(gap), resid.append(r)
        bound.append(float(THM_4_3.values(eta_c=eta, L=L, K=K, zeta=z, B=1.0, R=1.0, M=1.0,
                                          sigma=0.0)["heterogeneity"]))
    y, bound = np.array(y), np.array(bound)
    cert = max(ref.certificate.value for _, ref, *_ in cfg)
    half = len(xs) // 2
    # the direction into the theorem's regime: ζ → 0 (coordinate 1/ζ), K → ∞ at fixed η_cK (coordinate K)
    order = np.argsort(-np.asarray(xs)) if vary == "zeta" else np.argsort(xs)
    direction = (1 / np.asarray(xs) if vary == "zeta" else np.asarray(xs, dtype=float))[order]
    label = "1/ζ" if vary == "zeta" else "K"
    fit_x = xs[: half + 1] if vary == "zeta" else xs[half:]
    fit_y = y[: half + 1] if vary == "zeta" else y[half:]
    ratio_max = float(np.max(y / bound))

    def rule(data: np.ndarray) -> Verdict:
        return judge.bound(direction, bound[order], np.atleast_2d(data)[:, order], seed, label=label,
                           deterministic=True)

    v = rule(y)
    fit = loglog_slope(np.asarray(fit_x), np.maximum(fit_y, 1e-300), seed=seed)
    checks = [v, judge.identity(max(resid), 0.01, "lim Φ(ŵ_R) reached (tail R/2…R vs 3R/4…R)")]
    # negative controls on real runs, through the same rule: each must come out inconsistent
    if vary == "zeta":  # FedMiD-OSP: K unconstrained local steps, then one projection, even for ζ = 0
        osp = [runs("fedmid-osp", p, {"eta_c": eta, "local_steps": K}, R, "exact", [seed], ref)[0]
               for p, ref, eta, K, _ in cfg]
        ctrl = np.array([max(float(np.mean(t["gap"][R // 2:])), 1e-300) for t in osp])
        what_ctrl = "FedMiD-OSP (ψ only in the server step): its floor does not vanish as ζ → 0"
        short_ctrl = "control: FedMiD-OSP, Φ(w_r) − Φ*"
    else:  # the same FedDualAvg at fixed η_c (the bound term then grows ∝ K²): its floor grows with K
        ctrl = np.array([_limit_gap(p, ref, cfg[half][2], K, R, seed)[0] for p, ref, _, K, _ in cfg])
        what_ctrl = f"FedDualAvg at fixed η_c = {cfg[half][2]:.3g} (not fixed η_cK): floor grows with K"
        short_ctrl = "control: fixed η_c"
    checks.append(judge.control(rule, ctrl, y, what_ctrl))
    if below(y.min(), FLOOR_OVER_CERTIFICATE * cert):
        checks.append(Verdict(INCONCLUSIVE, "resolution", f"smallest floor {y.min():.2e} is within "
                              f"{FLOOR_OVER_CERTIFICATE:g}× of the reference's certificate {cert:.1e}"))
    what = ("vary ζ ∈ " + str([round(x, 3) for x in xs]) + f" at η_c = 1/(4L) = {cfg[0][2]:.3g}, K = 10; "
            "the ζ² factor judged as ζ → 0 (small-ζ half)") if vary == "zeta" else (
            "vary K ∈ " + str([int(k) for k in xs]) + f" at fixed η_cK = {cfg[0][2] * cfg[0][3]:.3g} "
            "(the bound term η_c²LK²ζ² is then constant), ζ = 4; judged on the large-K half")
    return Result(
        name,
        THM_4_3.name,
        f"FedDualAvg on quadratics with heterogeneous Hessians (spread 0.5) on the ℓ1-ball of radius 3 "
        f"(ζ exact on the domain, L = max_m L_m = {L:.3g}), σ = 0, R = {R}; LHS = lim_R Φ(ŵ_R) − Φ* (ŵ of "
        f"eq. 4.2, the bound at R → ∞ where only η_c²LK²ζ² is left); {what}",
        {
            "x": xs,
            "floor": y,
            "bound_term": bound,
            "ratio_max_constant_1": ratio_max,
            "tail_residual": resid,
            "control": ctrl,
            "certificate": cert,
            "plot": plot_spec(
                "slope",
                "ζ" if vary == "zeta" else "K",
                "lim Φ(ŵ_R) − Φ*",
                [slope_series("FedDualAvg", xs, y, fit, 2.0 if vary == "zeta" else 0.0, fit_x=fit_x,
                              bound=bound),
                 slope_series(short_ctrl, xs, np.maximum(ctrl, 1e-300))],
            ),
        },
        checks,
        notes=[
            "≲ hides an absolute constant, so only an unbounded ratio floor/(η_c²LK²ζ²) contradicts the "
            "theorem; on this bounded domain that can happen only as ζ → 0 or as K → ∞ at fixed η_cK, "
            "which is what is judged.  At fixed η_c the floor's local slope in K or ζ reaches 4–5 before "
            "it saturates (the earlier design judged that slope and printed 'inconsistent': a false "
            "result, since the ratio stays bounded).",
        ],
    )


def floor_zeta(quick: bool, seed: int) -> Result:
    """Thm 4.3: lim Φ(ŵ) − Φ* vanishes at least as fast as ζ² as ζ → 0."""
    return _floor_sweep("fco-4.3-floor-zeta", "zeta", quick, seed)


def floor_K(quick: bool, seed: int) -> Result:
    """Thm 4.3: lim Φ(ŵ) − Φ* stays bounded as K → ∞ at fixed η_cK (bound term constant)."""
    return _floor_sweep("fco-4.3-floor-K", "K", quick, seed)


def variance_M(quick: bool, seed: int) -> Result:
    """Thm 4.3 at ζ = 0: steady-state error ∝ η_c σ²/M."""
    seeds = seeds_for(quick, seed, 4, 8)
    eta, K, R = 0.2, 2, 150 if quick else 400
    xs = [2, 4, 8, 16, 32]
    Y = np.empty((len(seeds), len(xs)))
    full, ref = quadratics(0.0, lam=0.01, clients=max(xs))
    Q = full.Q[0]
    for j, M in enumerate(xs):
        p = _first_clients(full, M)  # ζ = 0: every client holds the same F, so F and w* do not change with M
        hp = {"eta_c": eta, "local_steps": K}
        w0 = np.asarray(runs("feddualavg", p, hp, R, "exact", [seed], ref)[0].meta["w_hat"])
        for i, t in enumerate(runs("feddualavg", p, hp, R, "gaussian:1.0", seeds, ref)):
            # the noise's share of Φ(ŵ) (ŵ of eq. 4.2): ½(ŵ_σ − ŵ_0)ᵀQ(ŵ_σ − ŵ_0), ŵ_0 the noise-free run
            dw = np.asarray(t.meta["w_hat"]) - w0
            Y[i, j] = 0.5 * float(dw @ Q @ dw)
    fit, v = judge.exponent(xs, Y, -1.0, "two-sided", seed, "M")
    return Result(
        "fco-4.3-variance-M",
        THM_4_3.name,
        f"FedDualAvg, ζ=0, σ=1, η_c={eta}, K={K}, R={R}, {len(seeds)} seeds; the noise's share of Φ(ŵ): "
        f"½‖ŵ_σ − ŵ_0‖²_Q with ŵ of eq. 4.2 and ŵ_0 the noise-free run (which carries B/(η_c K R), the "
        f"same for every M); M ∈ {xs}",
        {
            "x": xs,
            "floor": Y.mean(0),
            "plot": plot_spec(
                "slope", "M", "½‖ŵ_σ − ŵ_0‖²_Q", [slope_series("FedDualAvg", xs, Y, fit, -1.0)]
            ),
        },
        [v],
    )


def _first_clients(p, M: int):
    return replace(p, Q=p.Q[:M].copy(), c=p.c[:M].copy(), weights=np.full(M, 1.0 / M))


def _tuned_eta(thm, values: dict[str, float]) -> float:
    step = algebra.tuning_constants(thm).step
    return float(step.subs({BY_NAME[k]: v for k, v in values.items()}))


#: R of fco-4.3-tuned-R's quick design.  R = 10 … 80 put the tuned bound's span at 4.01, a hair over the
#: one-constant rule's minimum 4 (the verdict then hung on rounding: issue 29); R = 10 … 640 gives the
#: bounded-ratio rule power ≥ 95% against y ∝ bound^0.8 at the measured log-noise (10 … 160 did not).
TUNED_R_QUICK = [10, 20, 40, 80, 160, 320, 640]


def tuned_R(quick: bool, seed: int) -> Result:
    """Thm 4.3's tuned rate (4.4) vs R at the closed-form tuned η_c."""
    seeds = seeds_for(quick, seed, 3, 8)
    p, ref = drift_quadratics(1.0)  # heterogeneous Hessians: the ζ^{2/3}/R^{2/3} term is real here
    B = float(p.h.bregman(ref.w, p.zero()))
    K, sig = 5, 0.5
    xs = TUNED_R_QUICK if quick else [10, 20, 40, 80, 160, 320, 640, 1280]
    Y, rate, etas = np.empty((len(seeds), len(xs))), [], []
    for j, R in enumerate(xs):
        vals = {"L": 1.0, "B": B, "sigma": sig, "zeta": 1.0, "M": p.M, "K": K, "R": R}
        eta = _tuned_eta(THM_4_3, vals)
        etas.append(eta)
        rate.append(sum(THM_4_3.values("tuned", **vals).values()))
        for i, t in enumerate(
            runs("feddualavg", p, {"eta_c": eta, "local_steps": K}, R, f"gaussian:{sig}", seeds, ref)
        ):
            Y[i, j] = t["gap_avg"][-1]
    v = judge.bound(xs, rate, Y, seed=seed, label="R")
    return Result(
        "fco-4.3-tuned-R",
        THM_4_3.name,
        f"FedDualAvg on quadratics with heterogeneous Hessians on an ℓ1-ball (ζ=1 exact), σ={sig}, K={K}, "
        f"M={p.M}, B={B:.3g}; η_c = η*(R) of rates.algebra; Φ(ŵ) − Φ* vs the tuned rate (4.4)",
        {
            "R": xs,
            "eta_c": etas,
            "gap_hat": Y.mean(0),
            "tuned_rate": rate,
            "plot": plot_spec(
                "bound", "R", "Φ(ŵ) − Φ*", [slope_series("FedDualAvg", xs, Y, bound=rate)], C=v.evidence["C"]
            ),
        },
        [v],
    )


def thm_4_2_rounds(quick: bool, seed: int) -> Result:
    """Thm 4.2 on a bounded-gradient (ℓ2-ball constrained logistic) instance: error vs R at tuned η_c."""
    p, ref = named("constrained-logistic", ball="l2", radius=2.0, clients=8, samples=32, d=20)
    c = compute_constants(p, ref.w)
    K = 10
    xs = [10, 20, 40, 80, 160, 320, 640] if quick else [10, 20, 40, 80, 160, 320, 640, 1280, 2560]
    y, rate, etas = [], [], []
    for R in xs:
        vals = {"L": c.L, "B": c.B, "sigma": 1e-300, "G": c.G, "M": p.M, "K": K, "R": R}
        eta = _tuned_eta(THM_4_2, vals)
        etas.append(eta)
        rate.append(sum(THM_4_2.values("tuned", **vals).values()))
        y.append(
            runs("feddualavg", p, {"eta_c": eta, "local_steps": K}, R, "exact", [seed], ref)[0]["gap_avg"][-1]
        )
    v = judge.bound(xs, rate, np.array(y), seed=seed, label="R", deterministic=True)
    return Result(
        "fco-4.2-rounds",
        THM_4_2.name,
        f"FedDualAvg on ℓ2-ball logistic (G={c.G:.3g} {c.G_kind}, "
        f"L={c.L:.3g}, B={c.B:.3g}), exact gradients, K={K}; η_c = η*(R); Φ(ŵ) − Φ* vs rate (4.3)",
        {
            "R": xs,
            "eta_c": etas,
            "gap_hat": y,
            "tuned_rate": rate,
            "plot": plot_spec(
                "bound", "R", "Φ(ŵ) − Φ*", [slope_series("FedDualAvg", xs, y, bound=rate)], C=v.evidence["C"]
            ),
        },
        [v],
    )


def thm_4_1_minibatch(quick: bool, seed: int) -> Result:
    """Thm 4.1: at small η_c (η_s η_c K fixed) FedMiD/FedDualAvg follow minibatch PGM/DA with batch MK."""
    p, ref = quadratics(1.0, lam=0.05, assumption2=False)
    K, R, step = 5, 30 if quick else 100, 0.5
    xs = [1e-1, 1e-2, 1e-3]
    checks, measured, series = [], {}, []
    for fed, seq in (("fedmid", "pgm"), ("feddualavg", "dual-averaging")):
        ref_tr = runs(seq, p, {"eta": step, "local_steps": K}, R, "exact", [seed], ref)[0]
        devs = []
        for x in xs:
            eta_c = x / K
            t = runs(
                fed,
                p,
                {"eta_c": eta_c, "eta_s": step / (eta_c * K), "local_steps": K},
                R,
                "exact",
                [seed],
                ref,
            )[0]
            devs.append(float(np.linalg.norm(t.final_w - ref_tr.final_w) / np.linalg.norm(ref_tr.final_w)))
        measured[fed] = {
            "eta_c_K_L": xs,
            "relative_deviation": devs,
            "gap_sequential": float(ref_tr["gap"][-1]),
        }
        fit, v = judge.exponent(xs, np.array(devs), 1.0, "two-sided", seed, "η_cKL")
        if fed == "fedmid":
            p2 = replace(p, regularizer=L1(2 * p.regularizer.lam))
            twice = runs(seq, p2, {"eta": step, "local_steps": K}, R, "exact", [seed], False)[0]
            dev2 = float(np.linalg.norm(t.final_w - twice.final_w) / np.linalg.norm(twice.final_w))
            measured[fed]["relative_deviation_from_pgm_on_F+2psi"] = dev2
            v = known_disagreement(
                v, "printed FedMiD applies ψ twice per round (Alg. 2 lines 8 and 10)",
                at_most(dev2, 1e-2 * devs[-1]),
                f"at η_c K L = {xs[-1]:g} its iterate is {devs[-1]:.2g} from PGM on F + ψ and {dev2:.2g} "
                "from PGM on F + 2ψ (rule: ≤ 1% of the former)")
        checks.append(Verdict(v.status, f"{fed}: {v.rule}", v.reason, v.evidence))
        series.append(slope_series(fed, xs, devs, fit, 1.0))
    measured["plot"] = plot_spec("slope", "η_c K L", "relative deviation from the minibatch method", series)
    return Result(
        "fco-4.1-minibatch",
        THM_4_1.name,
        f"quadratics ζ=1, λ=0.05, exact gradients, K={K}, R={R}, "
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
